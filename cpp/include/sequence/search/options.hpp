// The options of the two searches (ISMCTS: ismcts.hpp, rollout search: rollout.hpp) as small
// values with named fields and defaults, and the one place that checks them (check_options()).
// The Python agents build these structs (python/bindings/search_options.cpp), so an absurd value
// is refused when the agent is constructed, with the bounds in the message.
#pragma once

#include <atomic>
#include <cstdint>

#include "sequence/isa.hpp"
#include "sequence/playout.hpp"
#include "sequence/search/evaluate.hpp"
#include "sequence/search/features.hpp"
#include "sequence/search/heuristic.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

#if SEQUENCE_RESEARCH
// How a playout that stops before the end of the game is scored (research build: the learned
// evaluation measured no gain over the hand-set one, docs/research/learned-evaluation.md).
enum class Evaluation : std::uint8_t {
    Handset,  // evaluate_rewards() with SearchOptions::weights (evaluate.hpp)
    Learned,  // learned_rewards() with SearchOptions::learned (features.hpp)
};
#endif

// Bounds of the numeric options. Values outside are refused (never clamped): they are typing
// mistakes, and one that overflowed a deadline or a float would fail far from its cause.
struct OptionLimits {
    static constexpr double kMaxSeconds = 1e6;        // time_limit: about 11.6 days
    static constexpr double kMaxExploration = 1e3;    // UCB's c; rewards are in [0, 1]
    static constexpr double kMaxWeight = 1e6;         // evaluation weights, playout costs, inference_strength
    static constexpr double kMinScale = 1e-3;         // the evaluation's logistic scale (0 would divide by zero)
    static constexpr std::uint64_t kMaxIterations = (std::uint64_t{1} << 62);
    static constexpr std::uint64_t kMaxNodes = 2147483647;  // node indices are 32-bit
    static constexpr std::uint32_t kMaxTurns = 2147483647;  // playout_turns, horizon
    static constexpr int kMaxPlayoutCandidates = 64;
    static constexpr std::uint32_t kMaxBlockChance = 256;  // PlayoutPolicy::block_chance: out of 256
    static constexpr int kMaxCandidates = 1024;
    static constexpr int kMaxInferencePlays = 64;   // inference_plays: turns per player
    static constexpr int kMaxInferenceTries = 1 << 16;
};

#if SEQUENCE_RESEARCH
// Whether ISMCTS weights its determinizations by the other players' recent turns (inference.hpp;
// research build: it measured no gain, docs/research/inference.md).
enum class InferenceKind : std::uint8_t {
    Off,     // every deal consistent with the observation is equally likely (determinize())
    Recent,  // deals that explain the last inference_plays turns of each other player are preferred
};
#endif

// What the caller of a search decides (as Stockfish keeps LimitsType apart from the engine's
// settings): the budget, the threads, the seed and the stop flag. The search's own settings are the
// rest of SearchOptions and RolloutOptions, which extend this.
struct SearchLimits {
    // Budget: iterations (all threads together; for the rollout search, playouts; 0 = none) and
    // time_limit in seconds (0 = none), whichever ends first. At least one is set.
    std::uint64_t iterations = 0;
    double time_limit = 0;
    int threads = 1;          // ISMCTS: one tree per thread; rollout search: the worlds are split (1..kMaxThreads)
    std::uint64_t seed = 0;
    const std::atomic<bool>* stop = nullptr;  // polled; when raised the search returns early
};

// Throw std::invalid_argument naming a limit out of its bounds (no budget, a budget or thread
// count out of range); check_options() checks these first.
void check_limits(const SearchLimits& limits);

// The search's settings: what the presets play with (every preset and level runs these defaults,
// python/sequence_game/agents/presets.py, levels.py) and the constants tuned by matches
// (docs/research/tuning.md). A playout runs the informed policy (informed_move(), playout.hpp) for
// playout_turns turns, extended by less than one round so that it stops with the root player to
// move (the evaluation is then unbiased between odd and even tree depths), and is scored by the
// hand-set evaluation (evaluate_rewards(), evaluate.hpp). Options that measured no gain are fields
// of a research build only (CMake SEQUENCE_RESEARCH, docs/research/).
struct SearchOptions : SearchLimits {
    SearchOptions() { iterations = 10000; }
    double exploration = 0.2;      // UCB constant c (rewards are in [0, 1])
    std::uint64_t max_nodes = 1000000;  // total over all trees, root nodes included (>= threads)
    std::uint32_t playout_turns = 6;    // playouts stop this many turns past the leaf (then the round's end)
    PlayoutPolicy policy;          // the informed playout's blocking, sampling and jack costs
    // At every tree node, a move that wins at once (R8) is the only one considered.
    bool decisive = true;
    EvalWeights weights;
#if SEQUENCE_RESEARCH
    // Which evaluation scores the playout leaves; the learned one reads its weights from `learned`
    // (a copy in the options: no file and no allocation in the search).
    Evaluation evaluation = Evaluation::Handset;
    LearnedWeights learned;
    // The learned evaluation as an expansion prior (0 = off): a node expands, of up to this many
    // of its untried moves drawn at random, the one after which learned_rewards() (with `learned`)
    // is highest for the mover's team, instead of one untried move at random.
    int expansion_candidates = 0;
    // Inference of hidden cards (inference.hpp; off by default): determinizations drawn by
    // rejection, at most inference_tries proposals per other player, with the likelihood
    // exp(-inference_strength * shortfall) of that player's last inference_plays turns; a play
    // counts as a shortfall only beyond inference_margin (log-heuristic units) below the hand's best.
    InferenceKind inference = InferenceKind::Off;
    int inference_plays = 4;
    double inference_strength = 1.0;
    double inference_margin = 1.0;
    int inference_tries = 16;
#endif
};

struct RolloutOptions : SearchLimits {
    RolloutOptions() { time_limit = 1.0; }
    int candidates = 8;            // root moves searched (the heuristic's best), 1..kMaxCandidates
    std::uint32_t horizon = 200;   // playout turns after the root move (then the evaluation); 200: to the end
    double epsilon = 0.0;          // chance of a random legal move per playout turn (greedy_move)
    HeuristicWeights heuristic;
    EvalWeights weights;
#if SEQUENCE_RESEARCH
    // Opponent modelling from the last play (rollout.hpp; research build, as the inference of
    // hidden cards that measured no gain, docs/research/inference.md): 0 = none.
    double inference_strength = 0.0;
    int inference_tries = 32;
    // Keep the two-eyed jacks (R5) for the cells that decide (rollout.hpp; research build: it
    // measured no gain for this search, docs/research/ceilings.md): a wild jack placed on a cell
    // that neither completes a sequence of the mover's team nor takes a cell where another team
    // would complete one is not a candidate while another play or a trade is.
    bool keep_two_eyed = false;
    // Sequential halving (rollout.hpp; research build: it measured no gain for this search,
    // docs/research/ceilings.md): the budget in rounds, the worse half of the candidates dropped
    // after each; false: every candidate plays every world.
    bool halving = false;
#endif
};

// TEST ONLY: how much of the true state a search reads, beside its options (never one of them: a
// player's search reads only what observe() shows, R9). Tests show with it that the honest search
// reads nothing hidden (a re-deal changes what a peeking search reports, and nothing the honest one
// reports); research measures what hidden information is worth (docs/research/ceilings.md).
enum class Peek : std::uint8_t {
    None,   // honest: every unseen card sampled
    Hands,  // the other hands read from the true state; the draw pile's order and the generator sampled
    All,    // the true state (hands, draw pile order and generator) is the one world
};

// Throw std::invalid_argument naming the first option out of its bounds (OptionLimits, the
// comments above) and the bounds; return normally when every option is valid. ismcts() and
// rollout_search() check their options with these first.
void check_options(const SearchOptions& o);
void check_options(const RolloutOptions& o);
void check_weights(const EvalWeights& w);
void check_weights(const LearnedWeights& w);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
