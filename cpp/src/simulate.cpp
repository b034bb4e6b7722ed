#include "sequence/simulate.hpp"

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "sequence/playout.hpp"
#include "sequence/rng.hpp"
#include "sequence/rules.hpp"

namespace sequence {

namespace {
constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ull;
constexpr std::uint64_t kMoveSalt = 0xA0761D6478BD642Full;
}  // namespace

std::uint64_t simulate_deal_seed(std::uint64_t seed, std::int64_t game) {
    return SplitMix64(seed + static_cast<std::uint64_t>(game) * kGamma).next();
}

std::uint64_t simulate_move_seed(std::uint64_t seed, std::int64_t game) {
    return SplitMix64(simulate_deal_seed(seed, game) ^ kMoveSalt).next();
}

SimulateResult simulate(std::int64_t games, const Config& config, std::uint64_t seed, int threads,
                        std::uint32_t max_turns, const std::atomic<bool>* stop) {
    const auto start = std::chrono::steady_clock::now();
    if (threads < 1) threads = 1;
    if (games < threads) threads = static_cast<int>(games < 1 ? 1 : games);
    std::atomic<std::int64_t> next{0};
    std::mutex merge;
    SimulateResult total;

    auto worker = [&]() {
        SimulateResult local;
        for (;;) {
            if (stop != nullptr && stop->load(std::memory_order_relaxed)) break;
            const std::int64_t i = next.fetch_add(1, std::memory_order_relaxed);
            if (i >= games) break;
            GameState s = new_game(config, simulate_deal_seed(seed, i), max_turns);
            SplitMix64 rng(simulate_move_seed(seed, i));
            const int winner = random_playout(s, rng, UINT32_MAX);
            ++local.games;
            if (winner >= 0) ++local.wins[winner];
            else ++local.draws;
            local.total_turns += s.turn;
        }
        std::lock_guard<std::mutex> lock(merge);
        total.games += local.games;
        for (int t = 0; t < kMaxTeams; ++t) total.wins[t] += local.wins[t];
        total.draws += local.draws;
        total.total_turns += local.total_turns;
    };

    if (threads == 1) {
        worker();
    } else {
        std::vector<std::thread> pool;
        pool.reserve(threads);
        for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
        for (auto& th : pool) th.join();
    }
    total.interrupted = total.games < games;
    total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return total;
}

}  // namespace sequence
