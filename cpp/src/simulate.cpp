#include "sequence/simulate.hpp"

#include <cassert>
#include <cstring>
#include <vector>

#include "sequence/parallel.hpp"
#include "sequence/playout.hpp"
#include "sequence/rng.hpp"
#include "sequence/rules.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

namespace {
constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ull;
constexpr std::uint64_t kMoveSalt = 0xA0761D6478BD642Full;
// Games a worker plays side by side (random_playouts): two fill the core that one turn's chain of
// dependent steps leaves idle; more only add register and cache pressure (docs/measurements.md
// has the speed; benchmarks/README.md how to compare builds).
constexpr int kLanes = 2;
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

namespace {

// A game of a config and turn cap before its deal: the start of every deal of simulate(), built
// once (a copy is cheaper than building the state and the empty hands again for each game).
struct Undealt {
    GameState s;
    PlayoutHands hands;
    Undealt(const Config& config, std::uint32_t max_turns)
        : s(undealt_game(config, 0, max_turns)), hands(PlayoutHands::before_deal(s)) {}
};

// simulate_new_game()'s deal with the hands dealt into `hands`; s's hand bytes are left stale, as
// during a playout (playout.hpp).
void deal(const Undealt& undealt, std::uint64_t seed, GameState& s, PlayoutHands& hands) {
    s = undealt.s;
    s.seed = seed;
    hands = undealt.hands;
    const int n = s.config.players;
    SplitMix64 rng(seed);
    // The draw pile (bottom first) is the fresh deck, shuffled once: all kDeckSize slots of the
    // shared card array (the discard log is empty); the slots of the dealt cards, above the
    // pile's top, are then left as unspecified bytes.
    Card* pile = draw_pile_data(s);
    std::memcpy(pile, kFreshDeck.cards, kDeckSize);
    shuffle_halves(pile, kDeckSize, rng);  // rng.hpp
    s.dealer = static_cast<std::uint8_t>(rng.below(static_cast<std::uint32_t>(n)));
    // Dealt one card at a time from the top (the end of the pile), starting at the dealer's left:
    // the k-th seat from there gets every n-th card from the k-th from the top.
    for (int k = 0, p = s.dealer; k < n; ++k) {
        p = p + 1 == n ? 0 : p + 1;
        hands.deal(s, p, pile + kDeckSize - 1 - k, s.config.hand_size, n);
    }
    s.draw_size = static_cast<std::uint8_t>(kDeckSize - n * s.config.hand_size);
    s.current_player = static_cast<std::uint8_t>(s.dealer + 1 == n ? 0 : s.dealer + 1);
    s.rng = rng.state();  // the R6 reshuffles continue the docs/rng.md generator from here
}

}  // namespace

GameState simulate_new_game(const Config& config, std::uint64_t seed, std::uint32_t max_turns) {
    GameState s;
    PlayoutHands hands;
    deal(Undealt(config, max_turns), seed, s, hands);
    hands.write_hands(s);
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
        // Game indices from the shared counter, kBlock at a time, into the interleaved playouts.
        struct Feed final : PlayoutFeed {
            const Undealt undealt;
            std::uint64_t seed;
            std::int64_t games;
            Counter& counter;
            StopSignal& signal;
            std::int64_t next_game = 0, block_end = 0;
            SimulateResult local;
            Feed(const Config& c, std::uint64_t sd, std::uint32_t mt, std::int64_t g, Counter& ctr, StopSignal& sig)
                : undealt(c, mt), seed(sd), games(g), counter(ctr), signal(sig) {}
            bool next(GameState& s, PlayoutHands& hands, SplitMix64& rng) override {
                if (next_game == block_end) {
                    next_game = counter.next.fetch_add(kBlock, std::memory_order_relaxed);
                    if (next_game >= games) {
                        block_end = next_game;
                        return false;
                    }
                    block_end = next_game + kBlock < games ? next_game + kBlock : games;
                }
                if (signal.should_stop()) {
                    block_end = next_game;
                    return false;
                }
                const std::int64_t i = next_game++;
                deal(undealt, simulate_deal_seed(seed, i), s, hands);
                rng = SplitMix64(simulate_move_seed(seed, i));
                return true;
            }
            void finished(const GameState& s, const PlayoutHands&) override {  // only the result counts
                ++local.games;
                if (s.winner >= 0) ++local.wins[s.winner];
                else ++local.draws;
                local.total_turns += s.turn;
            }
        } feed(config, seed, max_turns, games, counter, signal);
        random_playouts<kLanes>(feed);
        totals[static_cast<std::size_t>(t)].r = feed.local;
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

}  // namespace SEQUENCE_ISA
}  // namespace sequence
