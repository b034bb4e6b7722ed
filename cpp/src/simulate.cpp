#include "sequence/simulate.hpp"

#include <cassert>
#include <cstring>
#include <vector>

#include "sequence/parallel.hpp"
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
    assert(games >= 0 && threads >= 1 && threads <= kMaxThreads);
    if (games < threads) threads = static_cast<int>(games < 1 ? 1 : games);
    StopSignal signal(stop, 0.0);
    // Workers claim blocks of game indices from one counter on a cache line of its own (no read
    // of the run's parameters or results shares the line every claim writes), and a block keeps
    // the claims rare: with 16 threads a per-game claim would bounce that line between cores
    // every ~100 ns. A block is small enough to keep the split even (a game is ~3 us) and the
    // stop flag prompt (polled before every game). Every worker sums into its own cache line;
    // the totals do not depend on which worker plays which game, since game i depends only on
    // (seed, i).
    constexpr std::int64_t kBlock = 64;
    struct alignas(kCacheLine) Counter {
        std::atomic<std::int64_t> next{0};
    } counter;
    struct alignas(kCacheLine) Totals {
        SimulateResult r;
    };
    std::vector<Totals> totals(static_cast<std::size_t>(threads));

    run_workers(threads, signal, [&](int t) {
        SimulateResult local;
        for (;;) {
            const std::int64_t first = counter.next.fetch_add(kBlock, std::memory_order_relaxed);
            if (first >= games) break;
            const std::int64_t end = first + kBlock < games ? first + kBlock : games;
            for (std::int64_t i = first; i < end; ++i) {
                if (signal.should_stop()) {
                    totals[static_cast<std::size_t>(t)].r = local;
                    return;
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
        totals[static_cast<std::size_t>(t)].r = local;
    });

    SimulateResult total;
    for (const Totals& part : totals) {
        total.games += part.r.games;
        for (int t = 0; t < kMaxTeams; ++t) total.wins[t] += part.r.wins[t];
        total.draws += part.r.draws;
        total.total_turns += part.r.total_turns;
    }
    total.interrupted = total.games < games;
    total.seconds = signal.elapsed();
    return total;
}

}  // namespace sequence
