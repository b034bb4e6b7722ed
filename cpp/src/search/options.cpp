#include "sequence/search/options.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "sequence/parallel.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

namespace {

std::string show(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.6g", x);
    return buf;
}

// A finite number in [lo, hi] (NaN fails every comparison, so it is refused too).
void check_range(const char* name, double x, double lo, double hi) {
    if (!(x >= lo && x <= hi))
        throw std::invalid_argument(std::string(name) + " must be from " + show(lo) + " to " + show(hi) + ", not " + show(x));
}

void check_count(const char* name, std::uint64_t x, std::uint64_t lo, std::uint64_t hi) {
    if (x < lo || x > hi)
        throw std::invalid_argument(std::string(name) + " must be from " + std::to_string(lo) + " to " +
                                    std::to_string(hi) + ", not " + std::to_string(x));
}

#if SEQUENCE_RESEARCH  // only the research options are ints checked this way
void check_int(const char* name, int x, int lo, int hi) {
    if (x < lo || x > hi)
        throw std::invalid_argument(std::string(name) + " must be from " + std::to_string(lo) + " to " +
                                    std::to_string(hi) + ", not " + std::to_string(x));
}
#endif

}  // namespace

void check_limits(const SearchLimits& o) {
    if (o.iterations == 0 && o.time_limit == 0)
        throw std::invalid_argument("give iterations or time_limit (or both): a search needs a budget");
    if (o.iterations != 0) check_count("iterations", o.iterations, 1, OptionLimits::kMaxIterations);
    if (o.time_limit != 0 && !(o.time_limit > 0 && o.time_limit <= OptionLimits::kMaxSeconds))
        throw std::invalid_argument("time_limit must be a number of seconds > 0 and at most " +
                                    show(OptionLimits::kMaxSeconds) + " (or none), not " + show(o.time_limit));
    if (o.threads < 1 || o.threads > kMaxThreads)
        throw std::invalid_argument("threads must be from 1 to " + std::to_string(kMaxThreads) + ", not " +
                                    std::to_string(o.threads));
}

void check_weights(const EvalWeights& w) {
    const char* names[] = {"", "window1", "window2", "window3", "threat"};
    for (int k = 1; k < kWindowLength; ++k) check_range(names[k], w.window[k], 0, OptionLimits::kMaxWeight);
    check_range("sequence", w.sequence, 0, OptionLimits::kMaxWeight);
    check_range("scale", w.scale, OptionLimits::kMinScale, OptionLimits::kMaxWeight);
    check_range("two_eyed", w.two_eyed, 0, OptionLimits::kMaxWeight);
    check_range("one_eyed", w.one_eyed, 0, OptionLimits::kMaxWeight);
}

void check_weights(const LearnedWeights& w) {
    for (int i = 0; i < kEvalFeatures; ++i)
        check_range(eval_feature_name(i), w.weight[i], -OptionLimits::kMaxWeight, OptionLimits::kMaxWeight);
}

void check_options(const SearchOptions& o) {
    check_limits(o);
    check_range("exploration", o.exploration, 0, OptionLimits::kMaxExploration);
    if (o.max_nodes < static_cast<std::uint64_t>(o.threads) || o.max_nodes > OptionLimits::kMaxNodes)
        throw std::invalid_argument("max_nodes must be from threads (" + std::to_string(o.threads) +
                                    ": one root per tree) to " + std::to_string(OptionLimits::kMaxNodes) + ", not " +
                                    std::to_string(o.max_nodes));
    check_count("playout_turns", o.playout_turns, 1, OptionLimits::kMaxTurns);
    if (o.policy.candidates < 0 || o.policy.candidates > OptionLimits::kMaxPlayoutCandidates)
        throw std::invalid_argument("playout_candidates must be from 0 to " +
                                    std::to_string(OptionLimits::kMaxPlayoutCandidates) + ", not " +
                                    std::to_string(o.policy.candidates));
    check_count("playout_block_chance", o.policy.block_chance, 0, OptionLimits::kMaxBlockChance);
    check_range("playout_block", o.policy.block, 0, OptionLimits::kMaxWeight);
    check_range("playout_two_eyed_cost", o.policy.two_eyed_cost, 0, OptionLimits::kMaxWeight);
    check_range("playout_one_eyed_cost", o.policy.one_eyed_cost, 0, OptionLimits::kMaxWeight);
    check_weights(o.weights);
#if SEQUENCE_RESEARCH
    if (o.inference != InferenceKind::Off && o.inference != InferenceKind::Recent)
        throw std::invalid_argument("inference must be off or recent");
    check_int("inference_plays", o.inference_plays, 1, OptionLimits::kMaxInferencePlays);
    check_range("inference_strength", o.inference_strength, 0, OptionLimits::kMaxWeight);
    check_range("inference_margin", o.inference_margin, 0, OptionLimits::kMaxWeight);
    check_int("inference_tries", o.inference_tries, 1, OptionLimits::kMaxInferenceTries);
    if (o.evaluation != Evaluation::Handset && o.evaluation != Evaluation::Learned)
        throw std::invalid_argument("evaluation must be handset or learned");
    check_weights(o.learned);
    if (o.expansion_candidates < 0 || o.expansion_candidates > OptionLimits::kMaxCandidates)
        throw std::invalid_argument("expansion_candidates must be from 0 to " + std::to_string(OptionLimits::kMaxCandidates) +
                                    ", not " + std::to_string(o.expansion_candidates));
#endif
}

void check_options(const RolloutOptions& o) {
    check_limits(o);
    check_count("candidates", static_cast<std::uint64_t>(o.candidates < 0 ? 0 : o.candidates), 1,
                OptionLimits::kMaxCandidates);
    check_count("horizon", o.horizon, 1, OptionLimits::kMaxTurns);
    check_range("epsilon", o.epsilon, 0, 1);
#if SEQUENCE_RESEARCH
    check_range("inference_strength", o.inference_strength, 0, OptionLimits::kMaxWeight);
    check_int("inference_tries", o.inference_tries, 1, OptionLimits::kMaxInferenceTries);
#endif
    check_weights(o.weights);
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
