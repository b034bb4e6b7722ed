#include "sequence/vector_game.hpp"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>
#include <cstring>

#include "sequence/playout.hpp"
#include "sequence/rules.hpp"
#include "sequence/search/greedy_playout.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

namespace {
constexpr std::uint64_t kGameGamma = 0x9E3779B97F4A7C15ull;     // SplitMix64's increment
constexpr std::uint64_t kEpisodeGamma = 0xD1B54A32D192ED03ull;  // another odd constant: games and episodes mix apart
constexpr std::uint64_t kPolicySalt = 0xA0761D6478BD642Full;    // the built-in seats' stream, apart from the deal's
}  // namespace

std::uint64_t episode_seed(std::uint64_t seed, std::int64_t game, std::int64_t episode) {
    const std::uint64_t g = SplitMix64(seed + static_cast<std::uint64_t>(game) * kGameGamma).next();
    return SplitMix64(g + static_cast<std::uint64_t>(episode) * kEpisodeGamma).next();
}

VectorGame::VectorGame(int games, const Config& config, std::uint64_t seed, std::uint32_t max_turns, int threads,
                       const std::array<SeatPolicy, kMaxPlayers>& seats, NetSeats net)
    : config_(config), max_turns_(max_turns), threads_(threads < 1 ? 1 : threads), seats_(seats),
      games_(static_cast<std::size_t>(games)), net_(std::move(net)) {
    if (threads_ > 1 && games > 1) pool_ = std::make_unique<WorkerPool>(std::min(threads_, games));
    if (std::find(seats_.begin(), seats_.end(), SeatPolicy::Net) != seats_.end()) {
        assert(net_.net);
        const int workers = pool_ ? pool_->size() : 1;
        for (int k = 0; k < workers; ++k) {
            scratch_.push_back(std::make_unique<NetScratch>());
            scratch_.back()->ws = net_.net->workspace();
        }
    }
    reset(seed);
}

template <class Fn>
void VectorGame::parallel(Fn&& fn) const {
    const int n = size();
    const int t = pool_ ? std::min(pool_->size(), n) : 1;
    if (t <= 1) {
        fn(0, n, 0);
        return;
    }
    // Contiguous ranges of equal size (games cost alike on average), one per worker. A worker
    // the system refused to start is simply not in the pool, so every game is always covered
    // (step() is all or nothing).
    const auto begin = [n, t](int k) { return static_cast<int>(static_cast<std::int64_t>(n) * k / t); };
    pool_->run([&](int k) {
        if (k < t) fn(begin(k), begin(k + 1), k);
    });
}

void VectorGame::deal(int i, std::int64_t episode, int worker) {
    Slot& g = games_[i];
    g.episode = episode;
    g.episode_seed = episode_seed(seed_, i, episode);
    g.state = new_game(config_, g.episode_seed, max_turns_);
    g.pending = PendingPlacement{};
    g.rng = SplitMix64(g.episode_seed ^ kPolicySalt);
    advance_builtin(g, worker);
}

MoveId VectorGame::net_move(Slot& g, NetScratch& sc) const {
    // net_policy() reads the seat to move's observation only (R9); the choice is NetAgent's.
    float value[kMaxTeams];
    const int n = net_policy(g.state, *net_.net, sc.ws, sc.policy, sc.moves, sc.probs, kMoveListCapacity, value);
    assert(n > 0);
    if (net_.temperature <= 0.0) {
        int best = 0;
        for (int i = 1; i < n; ++i)
            if (sc.probs[i] > sc.probs[best] || (sc.probs[i] == sc.probs[best] && sc.moves[i] < sc.moves[best])) best = i;
        return sc.moves[best];
    }
    // Weights p ** (1 / T) relative to the most probable move's (no overflow or all-zero
    // underflow at any temperature), drawn with the game's own generator: the draw depends on
    // this game alone, never on the thread count.
    float top = 0.0f;
    for (int i = 0; i < n; ++i) top = std::max(top, sc.probs[i]);
    const double log_top = std::log(std::max(static_cast<double>(top), 1e-30));
    double total = 0.0;
    for (int i = 0; i < n; ++i) {
        const double w = std::exp((std::log(std::max(static_cast<double>(sc.probs[i]), 1e-30)) - log_top) /
                                  net_.temperature);
        sc.probs[i] = static_cast<float>(w);
        total += w;
    }
    const double u = static_cast<double>(g.rng.next() >> 11) * 0x1.0p-53 * total;
    double acc = 0.0;
    for (int i = 0; i < n; ++i) {
        acc += sc.probs[i];
        if (u < acc) return sc.moves[i];
    }
    return sc.moves[n - 1];
}

void VectorGame::advance_builtin(Slot& g, int worker) {
    GameState& s = g.state;
    // A built-in seat never ends a fresh deal before a Caller seat moves (the binding requires
    // max_turns 0 or >= players), so every dealt game waits for a Caller seat.
    while (!is_over(s)) {
        const SeatPolicy policy = seats_[s.current_player];
        if (policy == SeatPolicy::Caller) return;
        MoveId m;
        if (policy == SeatPolicy::Random)
            m = random_legal_move(s, g.rng);
        else if (policy == SeatPolicy::Greedy)
            m = greedy_move(s, g.rng, weights_, 0);
        else
            m = net_move(g, *scratch_[static_cast<std::size_t>(worker)]);
        apply_move(s, m);
    }
}

void VectorGame::reset(std::uint64_t seed) {
    seed_ = seed;
    parallel([this](int begin, int end, int worker) {
        for (int i = begin; i < end; ++i) {
            deal(i, 0, worker);
            games_[i].ended = false;
            games_[i].final_player = -1;
        }
    });
}

void VectorGame::current_players(std::int32_t* out) const {
    for (int i = 0; i < size(); ++i) out[i] = games_[i].state.current_player;
}

void VectorGame::observations(float* out, const std::int32_t* observers) const {
    parallel([&](int begin, int end, int) {
        for (int i = begin; i < end; ++i) {
            const Slot& g = games_[i];
            const int observer = observers ? observers[i] : g.state.current_player;
            write_observation(g.state, g.pending, observer, out + static_cast<std::size_t>(i) * kObservationSize);
        }
    });
}

int VectorGame::final_observations(float* out, const std::int32_t* observers) const {
    int row = 0;
    for (int i = 0; i < size(); ++i) {
        const Slot& g = games_[i];
        if (!g.ended) continue;
        const int observer = observers ? observers[i] : g.final_player;
        write_observation(g.final_state, PendingPlacement{}, observer, out + static_cast<std::size_t>(row) * kObservationSize);
        ++row;
    }
    return row;
}

void VectorGame::legal(const LegalOutput& out) const {
    static_assert(kActionWords * 8 >= kPackedMaskBytes, "the bit set holds the packed mask");
    parallel([&](int begin, int end, int) {
        std::uint64_t bits[kActionWords];
        for (int i = begin; i < end; ++i) {
            std::int16_t* list = out.actions ? out.actions + static_cast<std::size_t>(i) * kMaxLegalActions : nullptr;
            if (list) std::memset(list, 0xFF, sizeof(std::int16_t) * kMaxLegalActions);  // -1 past the count
            const int n = legal_action_bits(games_[i].state, games_[i].pending, bits, list, kMaxLegalActions);
            assert(n <= kMaxLegalActions);
            if (list) out.counts[i] = n < kMaxLegalActions ? n : kMaxLegalActions;
            if (out.packed)  // little-endian words: bit a lands in byte a / 8, bit a % 8
                std::memcpy(out.packed + static_cast<std::size_t>(i) * kPackedMaskBytes, bits, kPackedMaskBytes);
            if (out.mask) action_bits_to_mask(bits, out.mask + static_cast<std::size_t>(i) * kActionCount);
        }
    });
}

namespace {

// floor(u * n) for u in [0, 1), kept in 0 .. n - 1 whatever u is (NaN included).
std::int64_t draw_index(double u, int n) {
    const double x = u * n;
    return x > 0.0 ? (x < n ? static_cast<std::int64_t>(x) : n - 1) : 0;
}

// The index of the k-th set entry (0-based, ascending) of one row of a byte mask of kActionCount
// entries, and the row's count of set entries through *count; -1 if k >= count. The row is read
// once, 8 bytes at a time (most of a row is zero: a seat has at most 201 legal actions among 5253),
// and the indices of its set entries are kept on the stack, so a row changed by another thread
// while it is read still gives an index of this pass.
std::int64_t kth_set_byte(const std::uint8_t* row, double u, int* count) {
    constexpr int kWords = kActionCount / 8;
    constexpr std::uint64_t kLow = 0x0101010101010101ull;
    std::int16_t found[kActionCount];
    int n = 0;
    for (int w = 0; w < kWords; ++w) {
        if (w % 8 == 0 && w + 8 <= kWords) {  // 64 zero bytes at once: most of a row
            std::uint64_t block[8];
            std::memcpy(block, row + 8 * w, 64);
            std::uint64_t any = 0;
            for (const std::uint64_t b : block) any |= b;
            if (any == 0) {
                w += 7;
                continue;
            }
        }
        std::uint64_t x;
        std::memcpy(&x, row + 8 * w, 8);
        if (x == 0) continue;
        // Bit 0 of each byte: that byte is nonzero (a numpy bool is 0 or 1, but any nonzero byte is True).
        x |= x >> 4;
        x |= x >> 2;
        x |= x >> 1;
        x &= kLow;
        while (x) {
            found[n++] = static_cast<std::int16_t>(8 * w + (__builtin_ctzll(x) >> 3));
            x &= x - 1;
        }
    }
    for (int a = 8 * kWords; a < kActionCount; ++a)
        if (row[a]) found[n++] = static_cast<std::int16_t>(a);
    *count = n;
    if (n == 0) return -1;
    std::int64_t k = draw_index(u, n);
    return found[k];
}

// The same for a bit-packed row (kPackedMaskBytes bytes, bit a % 8 of byte a / 8).
std::int64_t kth_set_bit(const std::uint8_t* row, double u, int* count) {
    constexpr int kWords = kPackedMaskBytes / 8;
    std::uint64_t words[kWords + 1] = {};
    std::memcpy(words, row, kPackedMaskBytes);
    // Bits past the last action (the packed row's padding) are not actions.
    constexpr int kTail = kActionCount - 64 * kWords;
    if (kTail < 64) words[kWords] &= (std::uint64_t{1} << kTail) - 1;
    int n = 0;
    for (const std::uint64_t w : words) n += __builtin_popcountll(w);
    *count = n;
    if (n == 0) return -1;
    std::int64_t k = draw_index(u, n);
    for (int w = 0; w <= kWords; ++w) {
        std::uint64_t x = words[w];
        const int c = __builtin_popcountll(x);
        if (k >= c) {
            k -= c;
            continue;
        }
        for (; k > 0; --k) x &= x - 1;
        return 64 * w + __builtin_ctzll(x);
    }
    return -1;  // not reached: k < n
}

}  // namespace

int VectorGame::sample_masks(const std::uint8_t* masks, bool packed, const double* uniforms, std::int64_t* out) const {
    static_assert(kPackedMaskBytes * 8 >= kActionCount && kPackedMaskBytes / 8 * 64 <= kActionCount,
                  "the packed row's whole words hold actions only");
    const std::size_t stride = packed ? kPackedMaskBytes : kActionCount;
    std::atomic<int> empty{0};
    parallel([&](int begin, int end, int) {
        int none = 0;
        for (int i = begin; i < end; ++i) {
            int count = 0;
            const std::uint8_t* row = masks + static_cast<std::size_t>(i) * stride;
            out[i] = packed ? kth_set_bit(row, uniforms[i], &count) : kth_set_byte(row, uniforms[i], &count);
            none += count == 0;
        }
        empty.fetch_add(none, std::memory_order_relaxed);
    });
    return empty.load();
}

void VectorGame::save() {
    saved_ = games_;
    saved_seed_ = seed_;
}

void VectorGame::restore() {
    if (saved_.size() != games_.size()) return;  // nothing saved
    games_.swap(saved_);
    seed_ = saved_seed_;
}

std::vector<IllegalAction> VectorGame::step(const std::int64_t* actions, const StepOutput& out) {
    return step(actions, out, nullptr, false);
}

std::vector<IllegalAction> VectorGame::step(const std::int64_t* actions, const StepOutput& out,
                                            const std::uint8_t* active, bool keep_ended) {
    const int teams = config_.teams;
    // Check every action first (resolve_action() does not change the game): a refused batch
    // changes nothing.
    parallel([&](int begin, int end, int) {
        for (int i = begin; i < end; ++i) {
            if (active && !active[i]) continue;
            Slot& g = games_[i];
            const std::int64_t a = actions[i];
            g.next_pending = g.pending;
            g.outcome = a < 0 || a >= kActionCount
                ? ActionOutcome::Illegal
                : resolve_action(g.state, g.next_pending, static_cast<int>(a), g.move);
        }
    });
    std::vector<IllegalAction> illegal;
    for (int i = 0; i < size(); ++i)
        if ((!active || active[i]) && games_[i].outcome == ActionOutcome::Illegal) illegal.push_back({i, actions[i]});
    if (!illegal.empty()) return illegal;

    parallel([&](int begin, int end, int worker) {
        for (int i = begin; i < end; ++i) {
            if (active && !active[i]) continue;
            Slot& g = games_[i];
            float* reward = out.rewards ? out.rewards + static_cast<std::size_t>(i) * teams : nullptr;
            if (reward)
                for (int t = 0; t < teams; ++t) reward[t] = 0.0f;
            bool terminated = false, truncated = false;
            if (!keep_ended) g.ended = false;
            if (g.outcome == ActionOutcome::Pending) {  // a declares choice still open (R7): nothing played
                g.pending = g.next_pending;
            } else {
                const int player = g.state.current_player;
                apply_move(g.state, g.move);
                g.pending = PendingPlacement{};
                advance_builtin(g, worker);
                const GameState& s = g.state;
                if (is_over(s)) {
                    terminated = s.winner >= 0 || s.passes >= s.config.players;  // R8 win, R5 stalemate
                    truncated = !terminated;                                     // the turn cap
                    if (reward && s.winner >= 0)
                        for (int t = 0; t < teams; ++t) reward[t] = t == s.winner ? 1.0f : -1.0f;
                    g.final_state = s;
                    g.final_player = static_cast<std::int8_t>(player);
                    g.ended = true;
                    deal(i, g.episode + 1, worker);
                }
            }
            if (out.terminated) out.terminated[i] = terminated;
            if (out.truncated) out.truncated[i] = truncated;
        }
    });
    return illegal;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
