// Micro-benchmark of VectorGame (cpp/include/sequence/vector_game.hpp), the C++ side of
// sequence_game.VectorGame, built with -DSEQUENCE_BUILD_BENCH=ON:
//
//   cmake -S . -B build/bench -DSEQUENCE_BUILD_BENCH=ON && cmake --build build/bench -j2
//   build/bench/sequence_bench_vector [games] [steps] [threads]
//
// Steps 2-player games with random legal actions (chosen from the action lists, as the Python
// benchmark does in numpy) and reports ns per game-step for each phase: step alone, the
// observations, the byte masks, the packed masks, the action lists. Deterministic instruction
// counts (valgrind cannot decode AVX-512: build for x86-64-v3 as bench_core.cpp says):
//   valgrind --tool=callgrind --callgrind-out-file=cg.out build/cg/sequence_bench_vector 256 200
//   callgrind_annotate --inclusive=yes cg.out | grep phase_
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sequence/vector_game.hpp"

using namespace sequence;
using Clock = std::chrono::steady_clock;

namespace {

struct Buffers {
    std::vector<float> obs, rewards;
    std::vector<std::uint8_t> mask, packed, terminated, truncated;
    std::vector<std::int16_t> actions;
    std::vector<std::int32_t> counts;
    std::vector<std::int64_t> chosen;
    explicit Buffers(int n)
        : obs(static_cast<std::size_t>(n) * kObservationSize), rewards(static_cast<std::size_t>(n) * kMaxTeams),
          mask(static_cast<std::size_t>(n) * kActionCount), packed(static_cast<std::size_t>(n) * kPackedMaskBytes),
          terminated(n), truncated(n), actions(static_cast<std::size_t>(n) * kMaxLegalActions), counts(n), chosen(n) {}
};

SEQUENCE_NOINLINE void phase_lists(const VectorGame& vg, Buffers& b) {
    VectorGame::LegalOutput out;
    out.actions = b.actions.data();
    out.counts = b.counts.data();
    vg.legal(out);
}
SEQUENCE_NOINLINE void phase_masks(const VectorGame& vg, Buffers& b) {
    VectorGame::LegalOutput out;
    out.mask = b.mask.data();
    vg.legal(out);
}
SEQUENCE_NOINLINE void phase_packed(const VectorGame& vg, Buffers& b) {
    VectorGame::LegalOutput out;
    out.packed = b.packed.data();
    vg.legal(out);
}
SEQUENCE_NOINLINE void phase_observations(const VectorGame& vg, Buffers& b) {
    vg.observations(b.obs.data(), nullptr);
}
SEQUENCE_NOINLINE void phase_step(VectorGame& vg, Buffers& b, SplitMix64& rng) {
    for (int i = 0; i < vg.size(); ++i)
        b.chosen[i] = b.actions[static_cast<std::size_t>(i) * kMaxLegalActions + rng.below(static_cast<std::uint32_t>(b.counts[i]))];
    StepOutput out{b.rewards.data(), b.terminated.data(), b.truncated.data()};
    if (!vg.step(b.chosen.data(), out).empty()) std::abort();
}

}  // namespace

int main(int argc, char** argv) {
    const int games = argc > 1 ? std::atoi(argv[1]) : 1024;
    const int steps = argc > 2 ? std::atoi(argv[2]) : 1000;
    const int threads = argc > 3 ? std::atoi(argv[3]) : 1;
    Config cfg;
    make_config(2, 2, cfg);
    std::array<SeatPolicy, kMaxPlayers> seats{};
    VectorGame vg(games, cfg, 1, 0, threads, seats);
    Buffers b(games);
    SplitMix64 rng(7);
    double t[5] = {};
    for (int s = 0; s < steps; ++s) {
        auto t0 = Clock::now();
        phase_lists(vg, b);
        auto t1 = Clock::now();
        phase_masks(vg, b);
        auto t2 = Clock::now();
        phase_packed(vg, b);
        auto t3 = Clock::now();
        phase_observations(vg, b);
        auto t4 = Clock::now();
        phase_step(vg, b, rng);
        auto t5 = Clock::now();
        t[0] += std::chrono::duration<double>(t1 - t0).count();
        t[1] += std::chrono::duration<double>(t2 - t1).count();
        t[2] += std::chrono::duration<double>(t3 - t2).count();
        t[3] += std::chrono::duration<double>(t4 - t3).count();
        t[4] += std::chrono::duration<double>(t5 - t4).count();
    }
    const double per = 1e9 / (static_cast<double>(games) * steps);
    std::printf("games %d, steps %d, threads %d (ns per game-step)\n", games, steps, threads);
    std::printf("  lists         %7.1f\n  byte masks    %7.1f\n  packed masks  %7.1f\n  observations  %7.1f\n  step          %7.1f\n",
                t[0] * per, t[1] * per, t[2] * per, t[3] * per, t[4] * per);
    std::printf("  step+lists+masks+observations: %.0f steps/s;  step+lists: %.0f steps/s\n",
                1e9 / ((t[0] + t[1] + t[3] + t[4]) * per), 1e9 / ((t[0] + t[4]) * per));
    return 0;
}
