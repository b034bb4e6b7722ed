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

// A uniform integer in [0, n) from a 32-bit random x: Lemire's multiply-and-reject on 32 bits,
// exact; more() supplies further 32-bit randoms in the rare rejection case. Requires 1 <= n < 2^32.
template <class More>
inline std::uint32_t below32(std::uint32_t x, std::uint32_t n, More&& more) {
    std::uint64_t m = std::uint64_t{x} * n;
    if (__builtin_expect(static_cast<std::uint32_t>(m) < n, 0)) {
        const std::uint32_t threshold = (0u - n) % n;  // (2^32 - n) mod n
        while (static_cast<std::uint32_t>(m) < threshold) m = std::uint64_t{more()} * n;
    }
    return static_cast<std::uint32_t>(m >> 32);
}

// Fisher-Yates from the back, with both 32-bit halves of each SplitMix64 output used (two swaps per
// next() call). For simulate()'s deal only; Game shuffles as docs/rng.md specifies.
inline void shuffle_halves(Card* a, int n, SplitMix64& rng) {
    auto more = [&rng]() { return static_cast<std::uint32_t>(rng.next() >> 32); };
    int i = n - 1;
    for (; i >= 2; i -= 2) {
        const std::uint64_t x = rng.next();
        std::swap(a[i], a[below32(static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(i + 1), more)]);
        std::swap(a[i - 1], a[below32(static_cast<std::uint32_t>(x >> 32), static_cast<std::uint32_t>(i), more)]);
    }
    if (i == 1) std::swap(a[1], a[below32(static_cast<std::uint32_t>(rng.next()), 2, more)]);
}

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
    shuffle_halves(pile, kDeckSize, rng);
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
