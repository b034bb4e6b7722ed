// Search and simulate throughput of the C++ core, and how it scales with threads (built only with
// -DSEQUENCE_BUILD_BENCH=ON):
//
//   cmake -S . -B build/bench -DSEQUENCE_BUILD_BENCH=ON && cmake --build build/bench -j2
//   build/bench/sequence_bench_search scaling [max_threads] [seconds]
//       thread scaling for 1, 2, 4, ... max_threads threads (default: the machine's hardware
//       threads), each rate with its speed-up over one thread:
//       - ISMCTS, time-limited searches (`seconds` per thread count over 4 positions): iterations/s,
//         the cores the process obtained (CPU seconds per wall second: below the thread count, the
//         threads waited for cores, e.g. other load), CPU microseconds per iteration (flat when the
//         threads do not slow each other down; rising with threads on cores that share hardware,
//         SMT siblings or a turbo budget, or with contention) and the system time's share;
//       - ISMCTS, 10,000 iterations per thread (trees of one size whatever the thread count:
//         an iteration costs more in a bigger tree, so a fixed total budget split over more threads
//         makes smaller trees and flatters the scaling);
//       - ISMCTS, an agent's search of 10,000 iterations in all: milliseconds per search, with the
//         minor page faults and thread starts per search (the per-search costs that grow with
//         threads);
//       - simulate games/s.
//       Run it on an idle machine: numbers taken while other work runs measure the other work too.
//   build/bench/sequence_bench_search searches [threads] [iterations] [count] [seconds]
//       `count` searches (10,000 iterations each by default; iterations 0: `seconds` each) with
//       `threads` threads: wall and CPU time per search and per iteration, system share, minor
//       page faults, context switches and thread starts per search.
//   build/bench/sequence_bench_search fixed [iterations] [games]
//       a fixed amount of work on one thread (ISMCTS with an iteration budget on 8 positions, then
//       simulate): for same-run A/B comparisons and for deterministic instruction counts with
//       valgrind --tool=callgrind (build with -DSEQUENCE_NATIVE=OFF -DCMAKE_CXX_FLAGS=-march=x86-64-v3
//       there: valgrind cannot decode AVX-512).
//
// `fixed` uses only the options every version of SearchOptions has (iterations, time_limit,
// threads, seed), so that mode builds against an older checkout for before/after comparisons
// (the other modes read worker_threads_started(), parallel.hpp).
#if defined(_WIN32)
#define NOMINMAX
#include <windows.h>
#include <psapi.h>
#else
#include <sys/resource.h>
#endif

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "sequence/parallel.hpp"
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

// The process's CPU time (user, system, seconds), minor page faults and context switches so far.
struct Usage {
    double user = 0, sys = 0;
    long minflt = 0, nvcsw = 0, nivcsw = 0;
    static Usage now() {
        Usage u;
#if defined(_WIN32)
        // Windows counts page faults (soft and hard together) but not context switches: those stay 0.
        FILETIME created, exited, kernel, user;
        if (GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user)) {
            const auto seconds = [](const FILETIME& t) {
                return 1e-7 * static_cast<double>((static_cast<unsigned long long>(t.dwHighDateTime) << 32) | t.dwLowDateTime);
            };
            u.user = seconds(user);
            u.sys = seconds(kernel);
        }
        PROCESS_MEMORY_COUNTERS memory{};
        if (K32GetProcessMemoryInfo(GetCurrentProcess(), &memory, sizeof memory))
            u.minflt = static_cast<long>(memory.PageFaultCount);
#else
        rusage ru{};
        getrusage(RUSAGE_SELF, &ru);
        u.user = static_cast<double>(ru.ru_utime.tv_sec) + 1e-6 * static_cast<double>(ru.ru_utime.tv_usec);
        u.sys = static_cast<double>(ru.ru_stime.tv_sec) + 1e-6 * static_cast<double>(ru.ru_stime.tv_usec);
        u.minflt = ru.ru_minflt;
        u.nvcsw = ru.ru_nvcsw;
        u.nivcsw = ru.ru_nivcsw;
#endif
        return u;
    }
};

// What a batch of searches cost: wall and CPU seconds, iterations, faults and thread starts.
struct Cost {
    double wall = 0, cpu = 0, sys = 0;
    std::uint64_t iterations = 0;
    long faults = 0;
    std::uint64_t starts = 0;
    int searches = 0;
};

template <class F>
Cost measure(F&& batch) {
    const std::uint64_t started = worker_threads_started();
    const Usage u0 = Usage::now();
    const auto t0 = Clock::now();
    Cost c;
    batch(c);
    c.wall = std::chrono::duration<double>(Clock::now() - t0).count();
    const Usage u1 = Usage::now();
    c.cpu = (u1.user - u0.user) + (u1.sys - u0.sys);
    c.sys = u1.sys - u0.sys;
    c.faults = u1.minflt - u0.minflt;
    c.starts = worker_threads_started() - started;
    return c;
}

int scaling(int max_threads, double seconds) {
    const std::vector<GameState> roots = positions(4);
    Config cfg;
    make_config(2, 2, cfg);
    const unsigned hw = std::thread::hardware_concurrency();
    std::printf("%u hardware threads; ISMCTS default options, 2 players; %.1f s per time-limited row\n", hw, seconds);
    std::printf("%7s | %-43s | %-26s | %-38s | %-15s\n", "", "time-limited search", "10,000 iterations/thread",
                "agent search, 10,000 iterations", "simulate");
    std::printf("%7s | %10s %6s %5s %8s %9s | %10s %6s %8s | %9s %6s %9s %10s | %9s %5s\n", "threads", "iter/s", "x1",
                "cores", "cpu us/it", "sys", "iter/s", "x1", "cpu us/it", "ms/search", "x1", "faults/s.", "starts/s.",
                "games/s", "x1");
    double limited1 = 0, weak1 = 0, agent1 = 0, sim1 = 0;
    const auto search = [&](Cost& c, int threads, std::uint64_t iterations, double time_limit, int rounds) {
        for (int k = 0; k < rounds; ++k) {
            SearchOptions o;
            o.iterations = iterations;
            o.time_limit = time_limit;
            o.threads = threads;
            o.seed = 11 + static_cast<std::uint64_t>(k);
            o.max_nodes = 100000000;
            c.iterations += ismcts(roots[static_cast<std::size_t>(k) % roots.size()], o).iterations;
            ++c.searches;
        }
    };
    for (int threads = 1;; threads = threads * 2 > max_threads && threads < max_threads ? max_threads : threads * 2) {
        {  // warm-up: the pool's threads and the allocator's first use are not part of any row
            SearchOptions o;
            o.iterations = 100 * static_cast<std::uint64_t>(threads);
            o.threads = threads;
            ismcts(roots[0], o);
        }
        const Cost limited = measure([&](Cost& c) { search(c, threads, 0, seconds / static_cast<double>(roots.size()), 4); });
        const Cost weak = measure([&](Cost& c) { search(c, threads, 10000 * static_cast<std::uint64_t>(threads), 0, 4); });
        const Cost agent = measure([&](Cost& c) { search(c, threads, 10000, 0, 20); });
        // simulate: about `seconds` of games at the rate of the first row.
        const std::int64_t games = sim1 > 0 ? static_cast<std::int64_t>(sim1 * threads * seconds) : 20000;
        const SimulateResult sr = simulate(games, cfg, 3, threads, 1000, nullptr);
        const auto rate = [](const Cost& c) { return static_cast<double>(c.iterations) / c.wall; };
        const auto cpu_us = [](const Cost& c) { return 1e6 * c.cpu / static_cast<double>(c.iterations); };
        const double agent_ms = 1e3 * agent.wall / agent.searches;
        const double sim = static_cast<double>(sr.games) / sr.seconds;
        if (threads == 1) {
            limited1 = rate(limited);
            weak1 = rate(weak);
            agent1 = agent_ms;
            sim1 = sim;
        }
        std::printf("%7d | %10.0f %6.2f %5.2f %8.3f %8.1f%% | %10.0f %6.2f %8.3f | %9.3f %6.2f %9.1f %10.2f | %9.0f %5.2f\n",
                    threads, rate(limited), rate(limited) / limited1, limited.cpu / limited.wall, cpu_us(limited),
                    limited.cpu > 0 ? 100 * limited.sys / limited.cpu : 0.0, rate(weak), rate(weak) / weak1,
                    cpu_us(weak), agent_ms, agent1 / agent_ms, static_cast<double>(agent.faults) / agent.searches,
                    static_cast<double>(agent.starts) / agent.searches, sim, sim / sim1);
        std::fflush(stdout);
        if (threads >= max_threads) break;
    }
    return 0;
}

// `count` searches of `iterations` iterations each (time_limit seconds each instead when
// iterations is 0) with `threads` threads, the positions in turn: wall and CPU time per search
// and per iteration, the system time's share, minor page faults and context switches per search.
int searches(int threads, std::uint64_t iterations, int count, double time_limit) {
    const std::vector<GameState> roots = positions(4);
    SearchOptions o;
    o.threads = threads;
    o.iterations = iterations;
    o.time_limit = iterations == 0 ? time_limit : 0;
    std::uint64_t total = 0;
    {  // one search first: the allocator's and the threads' first-use costs are not per search
        o.seed = 1;
        total += ismcts(roots[0], o).iterations;
    }
    total = 0;
    const std::uint64_t started0 = worker_threads_started();
    const Usage u0 = Usage::now();
    const auto t0 = Clock::now();
    for (int k = 0; k < count; ++k) {
        o.seed = 11 + static_cast<std::uint64_t>(k);
        total += ismcts(roots[static_cast<std::size_t>(k) % roots.size()], o).iterations;
    }
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    const Usage u1 = Usage::now();
    const std::uint64_t started = worker_threads_started() - started0;
    const double cpu = (u1.user - u0.user) + (u1.sys - u0.sys);
    const double n = count;
    std::printf("threads %3d  searches %5d  iterations/search %9.0f  wall %8.3f ms/search  %10.0f iterations/s  "
                "cores %5.2f  cpu %6.3f us/iteration  sys %5.1f%%  minor faults %8.1f/search  ctx switches %6.1f+%6.1f/search  "
                "thread starts %5.2f/search\n",
                threads, count, static_cast<double>(total) / n, 1e3 * wall / n, static_cast<double>(total) / wall,
                cpu / wall, 1e6 * cpu / static_cast<double>(total), cpu > 0 ? 100.0 * (u1.sys - u0.sys) / cpu : 0.0,
                static_cast<double>(u1.minflt - u0.minflt) / n, static_cast<double>(u1.nvcsw - u0.nvcsw) / n,
                static_cast<double>(u1.nivcsw - u0.nivcsw) / n, static_cast<double>(started) / n);
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
    if (std::strcmp(mode, "searches") == 0) {
        const int threads = argc > 2 ? std::atoi(argv[2]) : 1;
        const std::uint64_t iterations = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 10000;
        const int count = argc > 4 ? std::atoi(argv[4]) : 100;
        const double seconds = argc > 5 ? std::atof(argv[5]) : 0.1;
        return searches(threads < 1 ? 1 : threads, iterations, count < 1 ? 1 : count, seconds);
    }
    std::fprintf(stderr, "usage: %s scaling [max_threads] [seconds] | fixed [iterations] [games]\n", argv[0]);
    return 2;
}
