#include "sequence/simulate.hpp"

#include <chrono>
#include <cstring>
#include <mutex>
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
    std::atomic<std::int64_t> next{0};
    std::mutex merge;
    SimulateResult total;

    auto worker = [&]() {
        SimulateResult local;
        for (;;) {
            if (stop != nullptr && stop->load(std::memory_order_relaxed)) break;
            const std::int64_t i = next.fetch_add(1, std::memory_order_relaxed);
            if (i >= games) break;
            GameState s = simulate_new_game(config, simulate_deal_seed(seed, i), max_turns);
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
