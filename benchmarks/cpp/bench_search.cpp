// Search and simulate throughput of the C++ core, and how it scales with threads (built only with
// -DSEQUENCE_BUILD_BENCH=ON):
//
//   cmake -S . -B build/bench -DSEQUENCE_BUILD_BENCH=ON && cmake --build build/bench -j2
//   build/bench/sequence_bench_search scaling [max_threads] [seconds]
//       ISMCTS iterations/s (default options, 2 players, time-limited searches) and simulate games/s
//       for 1, 2, 4, ... max_threads threads (default: the machine's hardware threads), each row
//       with its speed-up over one thread. Run it on an idle machine: numbers taken while other
//       work runs measure the other work too.
//   build/bench/sequence_bench_search fixed [iterations] [games]
//       a fixed amount of work on one thread (ISMCTS with an iteration budget on 8 positions, then
//       simulate): for same-run A/B comparisons and for deterministic instruction counts with
//       valgrind --tool=callgrind (build with -DSEQUENCE_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3
//       there: valgrind cannot decode AVX-512).
//
// Only the options every version of SearchOptions has are used (iterations, time_limit, threads,
// seed), so the same file builds against an older checkout for before/after comparisons.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "sequence/rules.hpp"
#include "sequence/search/ismcts.hpp"
#include "sequence/simulate.hpp"

using namespace sequence;
using Clock = std::chrono::steady_clock;

namespace {

// Positions a few turns into games (the search's typical input): random play from several deals.
std::vector<GameState> positions(int count) {
    Config cfg;
    make_config(2, 2, cfg);
    std::vector<GameState> out;
    SplitMix64 rng(7);
    std::vector<MoveId> legal;
    for (int k = 0; static_cast<int>(out.size()) < count; ++k) {
        GameState s = new_game(cfg, 1000 + static_cast<std::uint64_t>(k), 1000);
        const int depth = 4 + static_cast<int>(rng.below(30));
        for (int t = 0; t < depth && !is_over(s); ++t) {
            legal_moves(s, legal);
            apply_move(s, legal[rng.below(static_cast<std::uint32_t>(legal.size()))]);
        }
        if (!is_over(s)) out.push_back(s);
    }
    return out;
}

int scaling(int max_threads, double seconds) {
    const std::vector<GameState> roots = positions(4);
    Config cfg;
    make_config(2, 2, cfg);
    std::printf("%8s %16s %8s %16s %8s\n", "threads", "mcts iter/s", "x1", "simulate games/s", "x1");
    double mcts1 = 0, sim1 = 0;
    for (int threads = 1; threads <= max_threads; threads = threads * 2 > max_threads && threads < max_threads ? max_threads : threads * 2) {
        std::uint64_t iterations = 0;
        double spent = 0;
        for (std::size_t i = 0; i < roots.size(); ++i) {
            SearchOptions o;
            o.time_limit = seconds / static_cast<double>(roots.size());
            o.threads = threads;
            o.seed = 11 + i;
            o.max_nodes = 100000000;
            const SearchResult r = ismcts(roots[i], o);
            iterations += r.iterations;
            spent += r.seconds;
        }
        const double mcts = static_cast<double>(iterations) / spent;
        // simulate: about `seconds` of games at the rate of the first row.
        const std::int64_t games = sim1 > 0 ? static_cast<std::int64_t>(sim1 * threads * seconds) : 20000;
        const SimulateResult sr = simulate(games, cfg, 3, threads, 1000, nullptr);
        const double sim = static_cast<double>(sr.games) / sr.seconds;
        if (threads == 1) {
            mcts1 = mcts;
            sim1 = sim;
        }
        std::printf("%8d %16.0f %8.2f %16.0f %8.2f\n", threads, mcts, mcts / mcts1, sim, sim / sim1);
        std::fflush(stdout);
        if (threads == max_threads) break;
    }
    return 0;
}

int fixed(std::uint64_t iterations, std::int64_t games) {
    const std::vector<GameState> roots = positions(8);
    std::uint64_t total = 0, nodes = 0;
    const auto t0 = Clock::now();
    for (std::size_t i = 0; i < roots.size(); ++i) {
        SearchOptions o;
        o.iterations = iterations;
        o.seed = 11 + i;
        const SearchResult r = ismcts(roots[i], o);
        total += r.iterations;
        nodes += r.nodes + r.best;  // the result is used
    }
    const double mcts_s = std::chrono::duration<double>(Clock::now() - t0).count();
    Config cfg;
    make_config(2, 2, cfg);
    const SimulateResult sr = simulate(games, cfg, 3, 1, 1000, nullptr);
    std::printf("mcts      %10llu iterations  %8.3f s  %10.0f iterations/s  (nodes %llu)\n",
                static_cast<unsigned long long>(total), mcts_s, static_cast<double>(total) / mcts_s,
                static_cast<unsigned long long>(nodes));
    std::printf("simulate  %10lld games       %8.3f s  %10.0f games/s  %6.1f ns/turn\n", static_cast<long long>(sr.games),
                sr.seconds, static_cast<double>(sr.games) / sr.seconds, 1e9 * sr.seconds / static_cast<double>(sr.total_turns));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "scaling";
    if (std::strcmp(mode, "scaling") == 0) {
        const unsigned hw = std::thread::hardware_concurrency();
        const int max_threads = argc > 2 ? std::atoi(argv[2]) : static_cast<int>(hw ? hw : 1);
        const double seconds = argc > 3 ? std::atof(argv[3]) : 2.0;
        return scaling(max_threads < 1 ? 1 : max_threads, seconds);
    }
    if (std::strcmp(mode, "fixed") == 0) {
        const std::uint64_t iterations = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 20000;
        const std::int64_t games = argc > 3 ? std::atoll(argv[3]) : 100000;
        return fixed(iterations, games);
    }
    std::fprintf(stderr, "usage: %s scaling [max_threads] [seconds] | fixed [iterations] [games]\n", argv[0]);
    return 2;
}
