#include "sequence/playout.hpp"

#include <climits>
#include <cstring>

#include "sequence/board.hpp"
#include "sequence/rules.hpp"

namespace sequence {

namespace {

// True if some five-cell window through cell lies in own once cell is added: only then can a
// placement on cell declare a sequence (R7). Exact and branch-free: each direction's segment
// (board.hpp, at most 9 cells centred on cell) is gathered into a bit line, one 16-bit lane per
// direction, and five consecutive set bits in a lane are a full window (every run of five inside a
// segment contains its centre).
// The cells of the four segments through each cell (the cells a window through it can use).
struct SegmentUnion {
    Bitboard cells[kCells];
    constexpr SegmentUnion() : cells() {
        for (int c = 0; c < kCells; ++c)
            for (int d = 0; d < kDirections; ++d) cells[c] |= segment(c, d);
    }
};
inline constexpr SegmentUnion kSegmentUnion{};

inline bool may_complete(Bitboard own, int cell) {
    // A window needs four cells of own besides cell in one segment, so fewer than four in all
    // four segments together rule every window out: most placements stop here, before the gather.
    if ((kSegmentUnion.cells[cell] & own).count() < kWindowLength - 1) return false;
    // own | Bitboard::of(cell) without a branch on the half (it mispredicts here: cell is random).
    const std::uint64_t bit = std::uint64_t{1} << (cell & 63), in_hi = -static_cast<std::uint64_t>(cell >= 64);
    const Bitboard with = own | Bitboard(bit & ~in_hi, bit & in_hi);
#if defined(__BMI2__)
    std::uint64_t lines = 0;
    for (int d = 0; d < kDirections; ++d) {
        const Bitboard seg = segment(cell, d);
        const std::uint64_t line = _pext_u64(with.lo(), seg.lo()) |
                                   _pext_u64(with.hi(), seg.hi()) << detail::popcount64(seg.lo());
        lines |= line << (16 * d);
    }
    return (lines & lines >> 1 & lines >> 2 & lines >> 3 & lines >> 4) != 0;
#else
    // Without pext (portable builds) a cell-by-cell gather costs more than testing the (at most
    // 20) windows through cell directly: a window is full when no cell of it is missing.
    const std::uint64_t miss_lo = ~with.lo(), miss_hi = ~with.hi();
    for (int d = 0; d < kDirections; ++d)
        for (int k = 0; k < kWindowLength; ++k) {
            const int w = window_at(cell, d, k);
            if (w == kNoWindow) continue;
            const Bitboard m = window_mask(w);
            if (((m.lo() & miss_lo) | (m.hi() & miss_hi)) == 0) return true;
        }
    return false;
#endif
}

// Per card id (64 entries: indexes past the 52 ids read empty entries): the two cells of a normal
// card (none for a jack), and which ids are jacks of each kind (R5).
struct PickTables {
    Bitboard normal_cells[64];
};
constexpr PickTables build_pick() {
    PickTables t{};
    for (int c = 0; c < kCardKinds; ++c)
        if (!is_jack(c)) t.normal_cells[c] = Bitboard(card_cells(c).lo(), card_cells(c).hi());
    return t;
}
constexpr std::uint64_t kTwoEyedIds = std::uint64_t{1} << kJackDiamonds | std::uint64_t{1} << kJackClubs;
constexpr std::uint64_t kOneEyedIds = std::uint64_t{1} << kJackSpades | std::uint64_t{1} << kJackHearts;
inline constexpr PickTables kPick = build_pick();

}  // namespace

int random_declares(const GameState& s, int team, int cell, SplitMix64& rng) {
    if (!may_complete(s.chips[team] | corners(), cell)) return 0;
    DeclareOptions opt;
    declare_options(s, team, cell, opt);
    std::uint32_t combos = 1;
    for (int d = 0; d < kDirections; ++d) combos *= opt.count[d];
    std::uint32_t k = combos > 1 ? rng.below(combos) : 0;
    int declares = 0;
    for (int d = 0; d < kDirections; ++d) {
        declares = with_declare(declares, d, opt.codes[d][k % opt.count[d]]);
        k /= opt.count[d];
    }
    return declares;
}

namespace {

// The current player's hand as sets: its distinct card ids (bit = id) and the cells of its normal
// cards. Fixed trip count (unrolled, no branch); positions past the hand hold stale bytes, which
// are replaced by an id past the deck (no bit, no cells).
struct HandSets {
    std::uint64_t ids;
    Bitboard cells;
};
inline HandSets hand_sets(const Card* hand, int n) {
    HandSets h{0, Bitboard()};
    for (int i = 0; i < kMaxHand; ++i) {
        const int card = i < n ? hand[i] : 63;
        h.ids |= (std::uint64_t{1} << card) & ~(std::uint64_t{1} << 63);
        h.cells |= kPick.normal_cells[card];
    }
    return h;
}

// Draws the move uniformly over the slots of random_legal_move()'s contract, enumerated as
//   1. normal placements: the empty cells of the hand's normal cards, ascending (each cell is
//      printed on one card id, so a cell is exactly one (card id, cell) slot);
//   2. for each two-eyed jack id held, ascending: every empty cell; then for each one-eyed jack id
//      held: every removable chip (R5, R7);
//   3. the distinct dead card ids held (dead_ids), if no trade was made this turn (R5 step 1);
//   4. a pass, only when 1 and 2 are empty.
inline MoveId choose_move(const GameState& s, SplitMix64& rng, const HandSets& h, std::uint64_t dead_ids) {
    const int p = s.current_player;
    const int team = team_of(s, p);
    const Bitboard occ = occupied(s);
    const Bitboard empty = ~(occ | corners());
    const Bitboard removable = removable_cells(s, team);
    const Bitboard places = h.cells & empty;
    const int n_places = places.count();
    const int n_empty = empty.count();
    const int n_removable = removable.count();
    const std::uint64_t two_eyed = h.ids & kTwoEyedIds, one_eyed = h.ids & kOneEyedIds;
    const int n_wild = detail::popcount64(two_eyed) * n_empty;
    const int n_remove = detail::popcount64(one_eyed) * n_removable;
    const int plays = n_places + n_wild + n_remove;
    const std::uint64_t trades = s.traded_this_turn ? 0 : dead_ids;
    const int options = plays + detail::popcount64(trades) + (plays == 0);
    int r = static_cast<int>(rng.below(static_cast<std::uint32_t>(options)));
    int card, cell;
    if (__builtin_expect(r < n_places, 1)) {
        cell = places.select(r);
        card = card_at(cell);
    } else if ((r -= n_places) < n_wild) {
        card = detail::select64(two_eyed, r / n_empty);
        cell = empty.select(r % n_empty);
    } else if ((r -= n_wild) < n_remove) {
        return Move::remove(detail::select64(one_eyed, r / n_removable), removable.select(r % n_removable)).id();
    } else if ((r -= n_remove) < detail::popcount64(trades)) {
        return Move::trade(detail::select64(trades, r)).id();
    } else {
        return Move::pass().id();
    }
    const int declares = may_complete(s.chips[team] | corners(), cell) ? random_declares(s, team, cell, rng) : 0;
    return Move::place(card, cell, declares).id();
}

}  // namespace

MoveId random_legal_move(const GameState& s, SplitMix64& rng) {
    const int p = s.current_player;
    const HandSets h = hand_sets(s.hands[p], s.hand_count[p]);
    const Bitboard occ = occupied(s);
    std::uint64_t dead = 0;
    for (int i = 0; i < s.hand_count[p]; ++i) {
        const int card = s.hands[p][i];
        if (!is_jack(card) && card_cells(card).subset_of(occ)) dead |= std::uint64_t{1} << card;  // R5
    }
    return choose_move(s, rng, h, dead);
}

FreeCells::FreeCells(const GameState& s) : count(), dead_ids(0) {
    const Bitboard empty = empty_cells(s);
    for (int c = 0; c < kCardKinds; ++c) {
        if (is_jack(c)) continue;
        count[c] = static_cast<std::uint8_t>((card_cells(c) & empty).count());
        if (count[c] == 0) dead_ids |= std::uint64_t{1} << c;
    }
}

MoveId random_legal_move(const GameState& s, const FreeCells& free, SplitMix64& rng) {
    const HandSets h = hand_sets(s.hands[s.current_player], s.hand_count[s.current_player]);
    return choose_move(s, rng, h, h.ids & free.dead_ids);
}

int random_playout(GameState& s, SplitMix64& rng, std::uint32_t turn_limit) {
    FreeCells free(s);
    while (!is_over(s) && s.turn < turn_limit) {
        const MoveId m = random_legal_move(s, free, rng);
        apply_move(s, m);
        free.after(m);
    }
    return s.winner;
}

namespace {

// The local value of team placing on the empty cell (PlayoutPolicy::window, block).
inline float place_value(const GameState& s, int team, int cell, const PlayoutPolicy& pol) {
    const Bitboard own = s.chips[team] | corners();
    const Bitboard opp = occupied(s) & ~s.chips[team];
    float v = 0.0f;
    for (int d = 0; d < kDirections; ++d) {
        if ((segment(cell, d) & (own | opp)).none()) {  // an empty line: every window scores window[1]
            for (int k = 0; k < kWindowLength; ++k) v += window_at(cell, d, k) != kNoWindow ? pol.window[1] : 0.0f;
            continue;
        }
        for (int k = 0; k < kWindowLength; ++k) {
            const int w = window_at(cell, d, k);
            if (w == kNoWindow) continue;
            const Bitboard m = window_mask(w);
            const int o = (m & opp).count();
            if (o == 0) {
                const int n = (m & own).count();
                v += pol.window[n + 1] - pol.window[n];
            } else if ((m & own).none()) {
                v += pol.block * pol.window[o + (m & corners()).count()];
            }
        }
    }
    return v;
}

// The local value of removing the chip on cell (of another team than `team`).
inline float remove_value(const GameState& s, int team, int cell, const PlayoutPolicy& pol) {
    int owner = 0;
    while (!s.chips[owner].test(cell)) ++owner;
    const Bitboard theirs = s.chips[owner] | corners();
    const Bitboard others = occupied(s) & ~s.chips[owner];
    (void)team;
    float v = 0.0f;
    for (int d = 0; d < kDirections; ++d)
        for (int k = 0; k < kWindowLength; ++k) {
            const int w = window_at(cell, d, k);
            if (w == kNoWindow) continue;
            const Bitboard m = window_mask(w);
            if ((m & others).any()) continue;
            v += pol.window[(m & theirs).count()];
        }
    return v;
}

inline int pick(Bitboard b, SplitMix64& rng) {
    return b.select(static_cast<int>(rng.below(static_cast<std::uint32_t>(b.count()))));
}

}  // namespace

MoveId informed_move(const GameState& s, SplitMix64& rng, const PlayoutPolicy& pol) {
    const int p = s.current_player;
    const int team = team_of(s, p);
    const int teams = s.config.teams;
    const Card* hand = s.hands[p];
    const int n = s.hand_count[p];
    const Bitboard empty = empty_cells(s);
    bool two_eyed = false, one_eyed = false;
    Bitboard normal_cells;  // the empty cells of the normal cards in hand
    int two_eyed_card = 0, one_eyed_card = 0, dead = -1;
    for (int i = 0; i < n; ++i) {
        const int card = hand[i];
        if (is_two_eyed_jack(card)) {
            two_eyed = true;
            two_eyed_card = card;
        } else if (is_one_eyed_jack(card)) {
            one_eyed = true;
            one_eyed_card = card;
        } else {
            const Bitboard c = card_cells(card) & empty;
            if (c.none()) dead = card;
            normal_cells |= c;
        }
    }
    // 1. Complete a sequence.
    const Bitboard mine = completion_cells(s, team);
    if (mine.any()) {
        const Bitboard by_card = mine & normal_cells;
        for (int cell : by_card) {
            const int declares = random_declares(s, team, cell, rng);
            if (declares != 0) return Move::place(card_at(cell), cell, declares).id();
        }
        if (two_eyed)
            for (int cell : mine) {
                const int declares = random_declares(s, team, cell, rng);
                if (declares != 0) return Move::place(two_eyed_card, cell, declares).id();
            }
    }
    // 2. Block another team's completion.
    if (pol.block_chance >= 256 || rng.below(256) < pol.block_chance) {
        for (int o = 0; o < teams; ++o) {
            if (o == team) continue;
            const Bitboard theirs = completion_cells(s, o);
            if (theirs.none()) continue;
            const Bitboard by_card = theirs & normal_cells;
            if (by_card.any()) {
                const int cell = pick(by_card, rng);
                return Move::place(card_at(cell), cell, random_declares(s, team, cell, rng)).id();
            }
            if (one_eyed) {
                // An unlocked chip of a line of o that misses only a cell of `theirs`.
                const Bitboard own = s.chips[o] | corners();
                for (int gap : theirs)
                    for (int d = 0; d < kDirections; ++d)
                        for (int k = 0; k < kWindowLength; ++k) {
                            const int w = window_at(gap, d, k);
                            if (w == kNoWindow) continue;
                            const Bitboard rest = window_mask(w) & ~Bitboard::of(gap);
                            if (!rest.subset_of(own)) continue;
                            const Bitboard removable = rest & s.chips[o] & ~s.locked;
                            if (removable.any()) return Move::remove(one_eyed_card, pick(removable, rng)).id();
                        }
            }
            if (two_eyed) {
                const int cell = pick(theirs, rng);
                return Move::place(two_eyed_card, cell, random_declares(s, team, cell, rng)).id();
            }
        }
    }
    // 3. A dead card is free to trade (R5 step 1).
    if (dead >= 0 && !s.traded_this_turn) return Move::trade(dead).id();
    if (pol.candidates <= 0) return random_legal_move(s, rng);
    // 4. The best of a few random plays.
    const Bitboard removable = removable_cells(s, team);
    MoveId best = 0;
    float best_value = -1e30f;
    bool any = false;
    for (int c = 0; c < pol.candidates; ++c) {
        const int card = hand[rng.below(static_cast<std::uint32_t>(n))];
        if (is_one_eyed_jack(card)) {
            if (removable.none()) continue;
            const int cell = pick(removable, rng);
            const float v = remove_value(s, team, cell, pol) - pol.one_eyed_cost;
            if (v > best_value) {
                best_value = v;
                best = Move::remove(card, cell).id();
                any = true;
            }
            continue;
        }
        const Bitboard where = is_two_eyed_jack(card) ? empty : card_cells(card) & empty;
        if (where.none()) continue;
        const int cell = pick(where, rng);
        const float v = place_value(s, team, cell, pol) - (is_two_eyed_jack(card) ? pol.two_eyed_cost : 0.0f);
        if (v > best_value) {
            best_value = v;
            best = Move::place(card, cell).id();  // declares below
            any = true;
        }
    }
    if (!any) return random_legal_move(s, rng);
    const Move m = Move::from_id(best);
    if (m.kind == MoveKind::Place) return Move::place(m.card, m.cell, random_declares(s, team, m.cell, rng)).id();
    return best;
}

int informed_playout(GameState& s, SplitMix64& rng, std::uint32_t turn_limit, const PlayoutPolicy& policy) {
    while (!is_over(s) && s.turn < turn_limit) apply_move(s, informed_move(s, rng, policy));
    return s.winner;
}

}  // namespace sequence
