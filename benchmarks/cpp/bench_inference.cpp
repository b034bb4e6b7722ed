// The cost of inference of hidden cards (search/inference.hpp) in ISMCTS, same-run A/B (built only
// with -DSEQUENCE_BUILD_BENCH=ON):
//
//   cmake -S . -B build/bench -DSEQUENCE_BUILD_BENCH=ON && cmake --build build/bench -j2
//   build/bench/sequence_bench_inference [iterations] [positions]
//       ISMCTS with an iteration budget on one thread, inference off and recent, from the same 2-player
//       positions 12 to 40 plies into games played by the heuristic (greedy_move(), so that the
//       plays are evidence): iterations/s of each and the ratio. Also the sampler alone
//       (determinize() against InferenceModel::sample()), per deal.
//   build/bench/sequence_bench_inference overlap [strength] [plays] [margin] [tries]
//       How much the inference knows: over 60 positions of heuristic games, the mean number of
//       cards of the opponent's true hand (of 7) that a sampled deal gives it, without and with
//       inference (these options; defaults as SearchOptions), 2,000 deals each.
//   Deterministic instruction counts (valgrind cannot decode AVX-512, so build for x86-64-v3):
//   cmake -S . -B build/cg -DSEQUENCE_BUILD_BENCH=ON -DSEQUENCE_NATIVE=OFF -DCMAKE_CXX_FLAGS="-march=x86-64-v3 -g"
//   valgrind --tool=callgrind --callgrind-out-file=cg.out build/cg/sequence_bench_inference 5000 8
//   callgrind_annotate --inclusive=yes cg.out | grep phase_
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sequence/game.hpp"
#include "sequence/rules.hpp"
#include "sequence/search/greedy_playout.hpp"
#include "sequence/search/inference.hpp"
#include "sequence/search/ismcts.hpp"

using namespace sequence;
using Clock = std::chrono::steady_clock;

namespace {

std::vector<Game> games(int count) {
    Config cfg;
    make_config(2, 2, cfg);
    std::vector<Game> out;
    SplitMix64 rng(5);
    const HeuristicWeights w;
    for (int k = 0; static_cast<int>(out.size()) < count; ++k) {
        Game g(new_game(cfg, 2000 + static_cast<std::uint64_t>(k), 1000));
        const int plies = 12 + static_cast<int>(rng.below(29));
        for (int t = 0; t < plies && !is_over(g.state()); ++t) g.play(greedy_move(g.state(), rng, w, 0));
        if (!is_over(g.state())) out.push_back(g);
    }
    return out;
}

struct Tally {
    std::uint64_t iterations = 0;
    double seconds = 0;
    std::uint64_t check = 0;
};

SEQUENCE_NOINLINE Tally phase_search(const std::vector<Game>& gs, std::uint64_t iterations, InferenceKind kind) {
    Tally t;
    for (std::size_t i = 0; i < gs.size(); ++i) {
        SearchOptions o;
        o.iterations = iterations;
        o.seed = 11 + i;
        o.inference = kind;
        const GameState& root = gs[i].state();
        const std::vector<PublicChange> history = public_history(gs[i], root.current_player, o.inference_plays);
        const auto t0 = Clock::now();
        const SearchResult r = ismcts(root, o, &history);
        t.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
        t.iterations += r.iterations;
        t.check += r.best + r.nodes;
    }
    return t;
}

SEQUENCE_NOINLINE std::uint64_t phase_determinize(const Observation& obs, int deals) {
    SplitMix64 rng(3);
    std::uint64_t sum = 0;
    for (int i = 0; i < deals; ++i) sum += determinize(obs, rng).hands[1 - obs.player][0];
    return sum;
}

SEQUENCE_NOINLINE std::uint64_t phase_sample(const InferenceModel& model, const Observation& obs, int deals) {
    SplitMix64 rng(3);
    std::uint64_t sum = 0;
    for (int i = 0; i < deals; ++i) sum += model.sample(obs, rng).hands[1 - obs.player][0];
    return sum;
}

// Cards of `truth`'s hand of player p that `world` gives p too (as multisets).
int shared_cards(const GameState& world, const GameState& truth, int p) {
    int count[kCardKinds] = {};
    for (int i = 0; i < truth.hand_count[p]; ++i) ++count[truth.hands[p][i]];
    int shared = 0;
    for (int i = 0; i < world.hand_count[p]; ++i) shared += count[world.hands[p][i]]-- > 0;
    return shared;
}

int overlap(int argc, char** argv) {
    SearchOptions o;
    o.inference = InferenceKind::Recent;
    if (argc > 2) o.inference_strength = std::atof(argv[2]);
    if (argc > 3) o.inference_plays = std::atoi(argv[3]);
    if (argc > 4) o.inference_margin = std::atof(argv[4]);
    if (argc > 5) o.inference_tries = std::atoi(argv[5]);
    check_options(o);
    const std::vector<Game> gs = games(60);
    double plain = 0, inferred = 0;
    long deals = 0;
    for (const Game& g : gs) {
        const GameState& root = g.state();
        const int me = root.current_player;
        const Observation obs = observe(root, me);
        const InferenceModel model(obs, public_history(g, me, o.inference_plays), o);
        SplitMix64 a(1), b(1);
        for (int i = 0; i < 2000; ++i, ++deals) {
            plain += shared_cards(determinize(obs, a), root, 1 - me);
            inferred += shared_cards(model.sample(obs, b), root, 1 - me);
        }
    }
    std::printf("strength %g plays %d margin %g tries %d: cards of the true hand in the sampled one: "
                "%.3f without inference, %.3f with (%zu positions)\n",
                o.inference_strength, o.inference_plays, o.inference_margin, o.inference_tries, plain / deals,
                inferred / deals, gs.size());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "overlap") == 0) return overlap(argc, argv);
    const std::uint64_t iterations = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 20000;
    const int count = argc > 2 ? std::atoi(argv[2]) : 8;
    const std::vector<Game> gs = games(count < 1 ? 1 : count);
    const Tally off = phase_search(gs, iterations, InferenceKind::Off);
    const Tally on = phase_search(gs, iterations, InferenceKind::Recent);
    const double off_rate = static_cast<double>(off.iterations) / off.seconds;
    const double on_rate = static_cast<double>(on.iterations) / on.seconds;
    std::printf("ismcts inference=off     %10.0f iterations/s\n", off_rate);
    std::printf("ismcts inference=recent  %10.0f iterations/s  (%.3f of off)\n", on_rate, on_rate / off_rate);
    // The samplers alone, on the first position.
    SearchOptions o;
    o.inference = InferenceKind::Recent;
    const GameState& root = gs[0].state();
    const Observation obs = observe(root, root.current_player);
    const std::vector<PublicChange> history = public_history(gs[0], root.current_player, o.inference_plays);
    const InferenceModel model(obs, history, o);
    const int deals = 200000;
    auto t0 = Clock::now();
    std::uint64_t sum = phase_determinize(obs, deals);
    const double det = std::chrono::duration<double>(Clock::now() - t0).count();
    t0 = Clock::now();
    sum += phase_sample(model, obs, deals);
    const double inf = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("determinize()            %10.1f ns/deal\n", 1e9 * det / deals);
    std::printf("InferenceModel::sample() %10.1f ns/deal  (checksum %llu %llu)\n", 1e9 * inf / deals,
                static_cast<unsigned long long>(sum), static_cast<unsigned long long>(off.check + on.check));
    return 0;
}
