#include "sequence/simulate.hpp"

#include <chrono>
#include <cstring>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
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

namespace {

constexpr struct FreshDeck {
    Card cards[kDeckSize];
    constexpr FreshDeck() : cards() {
        for (int i = 0; i < kDeckSize; ++i) cards[i] = static_cast<Card>(i % kCardKinds);
    }
} kFreshDeck;

}  // namespace

GameState simulate_new_game(const Config& config, std::uint64_t seed, std::uint32_t max_turns) {
    GameState s = undealt_game(config, seed, max_turns);
    const int n = config.players;
    SplitMix64 rng(seed);
    // The draw pile (bottom first) is the fresh deck, shuffled once: all kDeckSize slots of the
    // shared card array (the discard log is empty); the slots of the dealt cards, above the
    // pile's top, are then left as unspecified bytes.
    Card* pile = draw_pile_data(s);
    std::memcpy(pile, kFreshDeck.cards, kDeckSize);
    shuffle_halves(pile, kDeckSize, rng);  // rng.hpp
    s.dealer = static_cast<std::uint8_t>(rng.below(static_cast<std::uint32_t>(n)));
    // Dealt one card at a time from the top (the end of the pile), starting at the dealer's left.
    int top = kDeckSize;
    for (int round = 0; round < config.hand_size; ++round) {
        int p = s.dealer;
        for (int k = 0; k < n; ++k) {
            p = p + 1 == n ? 0 : p + 1;
            hand_insert(s, p, pile[--top]);
        }
    }
    s.draw_size = static_cast<std::uint8_t>(top);
    s.current_player = static_cast<std::uint8_t>(s.dealer + 1 == n ? 0 : s.dealer + 1);
    s.rng = rng.state();  // the R6 reshuffles continue the docs/rng.md generator from here
    return s;
}

SimulateResult simulate(std::int64_t games, const Config& config, std::uint64_t seed, int threads,
                        std::uint32_t max_turns, const std::atomic<bool>* stop) {
    const auto start = std::chrono::steady_clock::now();
    if (threads < 1) threads = 1;
    if (games < threads) threads = static_cast<int>(games < 1 ? 1 : games);
    // Workers claim blocks of games from one counter. The counter has a cache line of its own
    // (no thread's read of the run's parameters or results shares the line every claim writes),
    // and a block keeps the claims rare: with 16 threads a per-game claim would bounce that line
    // between cores every ~100 ns. A block is small enough to keep the split even (a game is
    // ~3 us) and the stop flag prompt (polled before every game).
    constexpr std::int64_t kBlock = 64;
    struct alignas(64) Counter {
        std::atomic<std::int64_t> next{0};
    } counter;
    std::mutex merge;
    SimulateResult total;

    auto worker = [&counter, &merge, &total, games, config, seed, max_turns, stop]() {
        SimulateResult local;  // on this worker's own stack: no line shared while playing
        bool stopped = false;
        while (!stopped) {
            const std::int64_t first = counter.next.fetch_add(kBlock, std::memory_order_relaxed);
            if (first >= games) break;
            const std::int64_t last = first + kBlock < games ? first + kBlock : games;
            for (std::int64_t i = first; i < last; ++i) {
                if (stop != nullptr && stop->load(std::memory_order_relaxed)) {
                    stopped = true;
                    break;
                }
                GameState s = simulate_new_game(config, simulate_deal_seed(seed, i), max_turns);
                SplitMix64 rng(simulate_move_seed(seed, i));
                const int winner = random_playout(s, rng, UINT32_MAX);
                ++local.games;
                if (winner >= 0) ++local.wins[winner];
                else ++local.draws;
                local.total_turns += s.turn;
            }
        }
        std::lock_guard<std::mutex> lock(merge);  // once per thread
        total.games += local.games;
        for (int t = 0; t < kMaxTeams; ++t) total.wins[t] += local.wins[t];
        total.draws += local.draws;
        total.total_turns += local.total_turns;
    };

    if (threads == 1) {
        worker();
    } else {
        // Games are claimed, not assigned: if the system refuses a thread, the ones running (or
        // this thread, if none could start) play its share.
        std::vector<std::thread> pool;
        pool.reserve(threads);
        for (int t = 0; t < threads; ++t) {
            try {
                pool.emplace_back(worker);
            } catch (const std::system_error&) {
                break;
            }
        }
        if (pool.empty()) worker();
        for (auto& th : pool) th.join();
    }
    total.interrupted = total.games < games;
    total.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return total;
}

}  // namespace sequence
