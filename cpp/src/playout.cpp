#include "sequence/playout.hpp"

#include <algorithm>
#include <cassert>
#include <climits>
#include <cstring>

#include "sequence/board.hpp"
#include "sequence/rules.hpp"
#include "turn.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

namespace {

// The cells of the four segments through each cell (the cells a window through it can use).
struct SegmentUnion {
    Bitboard cells[kCells];
    constexpr SegmentUnion() : cells() {
        for (int c = 0; c < kCells; ++c)
            for (int d = 0; d < kDirections; ++d) cells[c] |= segment(c, d);
    }
};
inline constexpr SegmentUnion kSegmentUnion{};

#if SEQUENCE_HAS_BMI2
// Per cell, how full_lanes() gathers the four segments through it (board.hpp: at most 9 cells
// in a line, centred on the cell) into one word, a 16-bit lane per direction: the pext masks of
// each segment's two halves, where the high half's cells go in the lane (after the low half's),
// and the cell's own bit in every lane (it counts as placed).
struct SegmentGather {
    std::uint64_t lo[kDirections] = {}, hi[kDirections] = {};
    std::uint64_t centre = 0;
    std::uint8_t hi_shift[kDirections] = {};
    std::uint8_t centre_at[kDirections] = {};  // the cell's place in each lane
};
struct SegmentGathers {
    SegmentGather cell[kCells];
    constexpr SegmentGathers() : cell() {
        const auto bits = [](std::uint64_t x) {
            int n = 0;
            for (; x; x &= x - 1) ++n;
            return n;
        };
        for (int c = 0; c < kCells; ++c)
            for (int d = 0; d < kDirections; ++d) {
                const Bitboard seg = segment(c, d);
                SegmentGather& g = cell[c];
                g.lo[d] = seg.lo();
                g.hi[d] = seg.hi();
                g.hi_shift[d] = static_cast<std::uint8_t>(bits(seg.lo()));
                // The cell's place in the line: the segment cells below it.
                const int below = c < 64 ? bits(seg.lo() & ((std::uint64_t{1} << c) - 1))
                                         : bits(seg.lo()) + bits(seg.hi() & ((std::uint64_t{1} << (c - 64)) - 1));
                g.centre |= std::uint64_t{1} << (16 * d + below);
                g.centre_at[d] = static_cast<std::uint8_t>(below);
            }
    }
};
inline constexpr SegmentGathers kSegmentGathers{};

#if SEQUENCE_HAS_AVX512_VBMI
// full_lanes()'s gather in two instructions (AVX-512 VBMI + BITALG): byte j of the 64-byte vector
// is lane bit j (16 * d + place), where vpermt2b first puts the byte of the board that holds that
// lane bit's cell (the board's 16 bytes, zero bytes past them, or a byte of ones for the cell
// itself and the corners, which count as placed) and vpshufbitqmb then takes the cell's bit of it.
// The same word as the pext gather, bit for bit (draw_declares() reads it).
struct alignas(64) SegmentShuffle {
    std::uint8_t byte[kCells][64] = {};  // vpermt2b index: < 16 a board byte, 63 zero, 64 ones
    std::uint8_t bit[kCells][64] = {};   // vpshufbitqmb index: 8 * (j % 8) + the cell's bit in its byte
    constexpr SegmentShuffle() {
        for (int c = 0; c < kCells; ++c)
            for (int j = 0; j < 64; ++j) {
                byte[c][j] = 63;
                bit[c][j] = static_cast<std::uint8_t>(8 * (j % 8));
            }
        for (int c = 0; c < kCells; ++c)
            for (int d = 0; d < kDirections; ++d) {
                int place = 0;
                for (int x = 0; x < kCells; ++x) {
                    if (!segment(c, d).test(x)) continue;
                    const int j = 16 * d + place++;
                    const bool ones = x == c || corners().test(x);
                    byte[c][j] = static_cast<std::uint8_t>(ones ? 64 : x >> 3);
                    bit[c][j] = static_cast<std::uint8_t>(8 * (j % 8) + (ones ? 0 : x & 7));
                }
            }
    }
};
inline constexpr SegmentShuffle kSegmentShuffle{};
#endif
#endif

// The five-cell windows through cell that lie in own once cell is added: nonzero exactly when a
// placement on cell can declare a sequence (R7). Exact and branch-free with BMI2: each direction's
// segment is gathered into a bit line, one 16-bit lane per direction (SegmentGather), and five
// consecutive set bits in a lane are a full window (every run of five inside a segment contains
// its centre): bit 16 * d + i of the result is the window of direction d starting at place i of
// the lane. No pre-filter there: the gather is a few dozen independent instructions, cheaper than
// a branch that would go either way at random (about half the placements of a game pass a cheap
// count). Without BMI2 the result only says whether there is one (1 or 0).
inline std::uint64_t full_lanes(Bitboard own, int cell) {
#if SEQUENCE_HAS_BMI2 && SEQUENCE_HAS_AVX512_VBMI
    const __m512i board = _mm512_zextsi128_si512(_mm_set_epi64x(static_cast<long long>(own.hi()), static_cast<long long>(own.lo())));
    const __m512i bytes = _mm512_permutex2var_epi8(board, _mm512_load_si512(kSegmentShuffle.byte[cell]), _mm512_set1_epi8(-1));
    const std::uint64_t lines = _mm512_bitshuffle_epi64_mask(bytes, _mm512_load_si512(kSegmentShuffle.bit[cell]));
    const std::uint64_t pairs = lines & lines >> 1;
    return pairs & pairs >> 2 & lines >> 4;
#elif SEQUENCE_HAS_BMI2
    const SegmentGather& g = kSegmentGathers.cell[cell];
    std::uint64_t lines = g.centre;
    for (int d = 0; d < kDirections; ++d)
        lines |= (bits::pext64(own.lo(), g.lo[d]) | bits::pext64(own.hi(), g.hi[d]) << g.hi_shift[d]) << (16 * d);
    return lines & lines >> 1 & lines >> 2 & lines >> 3 & lines >> 4;
#else
    // A window needs four cells of own besides cell in one segment, so fewer than four in all
    // four segments together rule every window out: most placements stop here.
    if ((kSegmentUnion.cells[cell] & own).count() < kWindowLength - 1) return 0;
    // Without pext (portable builds) a cell-by-cell gather costs more than testing the (at most
    // 20) windows through cell directly: a window is full when no cell of it is missing.
    const Bitboard with = own | cell_bit(cell);
    const std::uint64_t miss_lo = ~with.lo(), miss_hi = ~with.hi();
    for (int d = 0; d < kDirections; ++d)
        for (int k = 0; k < kWindowLength; ++k) {
            const int w = window_at(cell, d, k);
            if (w == kNoWindow) continue;
            const Bitboard m = window_mask(w);
            if (((m.lo() & miss_lo) | (m.hi() & miss_hi)) == 0) return 1;
        }
    return 0;
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

namespace {

// A declares code drawn uniformly among the declare_options() combinations of a placement whose
// full_lanes() are `lanes` (nonzero).
SEQUENCE_NOINLINE int draw_declares(const GameState& s, int team, int cell, std::uint64_t lanes, SplitMix64& rng) {
    DeclareOptions opt;
#if SEQUENCE_HAS_BMI2
    // The lanes in declare_options_from()'s terms: window_at(cell, d, k) starts k steps before the
    // cell, at place centre_at[d] - k of lane d, so the five bits k = 0..4 are that lane's places
    // centre_at[d] down to centre_at[d] - 4 (those that exist): in the bit-reversed word (lane d
    // at bits 16 * (3 - d) .. + 15, place i at 15 - i) they are in ascending order. Branch-free
    // (a loop bounded by centre_at[d] mispredicts).
    const SegmentGather& g = kSegmentGathers.cell[cell];
    std::uint64_t rev = lanes;
    rev = (rev >> 1 & 0x5555555555555555ull) | (rev & 0x5555555555555555ull) << 1;
    rev = (rev >> 2 & 0x3333333333333333ull) | (rev & 0x3333333333333333ull) << 2;
    rev = (rev >> 4 & 0x0F0F0F0F0F0F0F0Full) | (rev & 0x0F0F0F0F0F0F0F0Full) << 4;
    rev = bits::bswap64(rev);
    std::uint32_t full = 0;
    for (int d = 0; d < kDirections; ++d) {
        const int c = g.centre_at[d];
        const std::uint32_t five = static_cast<std::uint32_t>(rev >> (16 * (kDirections - 1 - d) + 15 - c));
        full |= (five & ((2u << c) - 1) & 0x1F) << (kWindowLength * d);
    }
    declare_options_from(s, team, cell, full, opt);
#else
    (void)lanes;
    declare_options(s, team, cell, opt);
#endif
    std::uint32_t combos = 1;
    for (int d = 0; d < kDirections; ++d) combos *= opt.count[d];
    int declares = 0;
    if (combos == 1) {  // the usual case: no choice, and no division below
        for (int d = 0; d < kDirections; ++d) declares = with_declare(declares, d, opt.codes[d][0]);
        return declares;
    }
    std::uint32_t k = rng.below(combos);
    for (int d = 0; d < kDirections; ++d) {
        declares = with_declare(declares, d, opt.codes[d][k % opt.count[d]]);
        k /= opt.count[d];
    }
    return declares;
}

}  // namespace

int random_declares(const GameState& s, int team, int cell, SplitMix64& rng) {
    const Bitboard own = s.chips[team] | corners();
    // The informed policies call this on moves already chosen, in code full of other branches:
    // the cheap count (fewer than four own cells near cell rule every window out) pays there.
    if ((kSegmentUnion.cells[cell] & own).count() < kWindowLength - 1) return 0;
    const std::uint64_t lanes = full_lanes(own, cell);
    return lanes != 0 ? draw_declares(s, team, cell, lanes, rng) : 0;
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

// The n-th lowest cell of b (requires n < b.count()), without a branch on the half: the cell is
// random, so that branch would mispredict about one time in three. (Masks rather than ?: so that
// the compiler keeps it branch-free.)
inline int select_cell(Bitboard b, unsigned n) {
    const unsigned low = static_cast<unsigned>(detail::popcount64(b.lo()));
    const std::uint64_t high = 0 - static_cast<std::uint64_t>(n >= low);  // all ones: the cell is in hi
    const std::uint64_t word = b.lo() ^ ((b.lo() ^ b.hi()) & high);
    return detail::select64(word, static_cast<int>(n - (low & static_cast<unsigned>(high)))) + static_cast<int>(64 & high);
}

// The lowest and the highest id of a set of one or two jack ids, by the draw's index k among
// per_id slots each: k < per_id is the lowest id's, else the highest id's (then k - per_id).
// Branch-free (no division by per_id); the card is meaningless for an empty set (never used then,
// but computed without a zero count).
struct JackSlot {
    int card;
    unsigned k;
};
inline JackSlot jack_slot(std::uint64_t ids, unsigned k, unsigned per_id) {
    const bool second = k >= per_id;
    return {second ? 63 - bits::clz64(ids | 1) : bits::ctz64(ids | std::uint64_t{1} << 63), k - (second ? per_id : 0)};
}

// How many ids of one jack kind (a set of at most two ids) a hand holds: one POPCNT, else two
// tests (portable builds: a SWAR count of the whole word costs a dozen instructions).
inline unsigned jacks_held(std::uint64_t jack_ids) {
#if SEQUENCE_FAST_POPCOUNT
    return static_cast<unsigned>(detail::popcount64(jack_ids));
#else
    return static_cast<unsigned>(jack_ids != 0) + static_cast<unsigned>((jack_ids & (jack_ids - 1)) != 0);
#endif
}

// Another team's unlocked chip: neither empty, a corner, the team's own nor locked (R5, R7).
inline Bitboard removable_of(const GameState& s, int team, Bitboard empty) {
    return ~(empty | corners() | s.chips[team] | s.locked);
}

// The slots of random_legal_move()'s contract, enumerated as
//   1. normal placements: the empty cells of the hand's normal cards, ascending (each cell is
//      printed on one card id, so a cell is exactly one (card id, cell) slot);
//   2. for each two-eyed jack id held, ascending: every empty cell; then for each one-eyed jack id
//      held: every removable chip (R5, R7);
//   3. the distinct dead card ids held (dead_ids), if no trade was made this turn (R5 step 1);
//   4. a pass, only when 1 and 2 are empty.
// ids: the hand's distinct card ids; cells: the cells of its normal cards; dead_ids: its dead ids;
// team: the mover's team; empty: empty_cells(s).
// Moves go to sink.place(card, cell, declares), sink.remove(card, cell), sink.trade(card) or
// sink.pass(), whose result is returned: picking and playing a move share one branch on its kind.

// The slot r of the removes, trades and pass (r counted from the first remove).
template <class Sink>
SEQUENCE_ALWAYS_INLINE MoveId choose_other(const GameState& s, unsigned r, std::uint64_t ids,
                                                          std::uint64_t dead_ids, int team, Bitboard empty, Sink&& sink) {
    const Bitboard removable = removable_of(s, team, empty);
    const unsigned n_removable = static_cast<unsigned>(removable.count());
    const std::uint64_t one_eyed = ids & kOneEyedIds;
    const unsigned n_remove = jacks_held(one_eyed) * n_removable;
    if (r < n_remove) {
        const JackSlot jack = jack_slot(one_eyed, r, n_removable);
        return sink.remove(jack.card, select_cell(removable, jack.k));
    }
    r -= n_remove;
    const std::uint64_t trades = s.traded_this_turn ? 0 : dead_ids;
    if (r < static_cast<unsigned>(detail::popcount64(trades))) return sink.trade(detail::select64(trades, static_cast<int>(r)));
    return sink.pass();
}

// Draws the move uniformly over the slots; the placements here, the other slots by
// other(r) = choose_other(s, r, ...) (the playout keeps those out of line: inlined, their values
// would hold registers the placements need).
// n_removable: removable_of(s, team, empty).count().
template <class Sink, class Other>
SEQUENCE_ALWAYS_INLINE MoveId choose_move(const GameState& s, SplitMix64& rng, std::uint64_t ids,
                                                         Bitboard cells, std::uint64_t dead_ids, int team,
                                                         Bitboard empty, unsigned n_removable, Sink&& sink, Other&& other) {
    const Bitboard places = cells & empty;
    const unsigned n_places = static_cast<unsigned>(places.count());
    const unsigned n_empty = static_cast<unsigned>(empty.count());
    const std::uint64_t two_eyed = ids & kTwoEyedIds;
    const unsigned n_wild = jacks_held(two_eyed) * n_empty;
    const unsigned n_remove = jacks_held(ids & kOneEyedIds) * n_removable;
    const unsigned n_placements = n_places + n_wild;
    const unsigned plays = n_placements + n_remove;
    // (A mask, not a branch: a trade is made in one turn of twenty.)
    const std::uint64_t trades = dead_ids & (static_cast<std::uint64_t>(s.traded_this_turn) - 1);
    const unsigned n_trades = static_cast<unsigned>(detail::popcount64(trades));
    const unsigned options = plays + n_trades + (plays == 0);
    const unsigned r = rng.below(options);
    if (SEQUENCE_LIKELY(r < n_placements)) {
        int cell, card;
        if (r < n_places) {
            cell = select_cell(places, r);
            card = card_at(cell);
        } else {
            const JackSlot jack = jack_slot(two_eyed, r - n_places, n_empty);
            cell = select_cell(empty, jack.k);
            card = jack.card;
        }
        const std::uint64_t lanes = full_lanes(s.chips[team] | corners(), cell);
        const int declares = lanes != 0 ? draw_declares(s, team, cell, lanes, rng) : 0;
        return sink.place(card, cell, declares);
    }
    return other(r - n_placements);
}

// choose_move()'s sink that only names the move.
struct MoveIds {
    static MoveId place(int card, int cell, int declares) { return Move::place(card, cell, declares).id(); }
    static MoveId remove(int card, int cell) { return Move::remove(card, cell).id(); }
    static MoveId trade(int card) { return Move::trade(card).id(); }
    static MoveId pass() { return Move::pass().id(); }
};

// The turn procedure's hand store (turn.hpp) for one turn of a playout: the board-side sets in
// PlayoutHands, the mover's hand sets in locals (stored back by put_back()), which the compiler
// keeps in registers: in PlayoutHands, every byte the turn stores to s could alias them, and they
// would go through memory at each step. Only the mover's hand changes in a turn.
struct TurnHands {
    PlayoutHands& all;
    std::uint64_t ids, dups;  // the mover's PlayoutHands::Seat sets
    Bitboard cells;
    int next_seat;
    int count_change = 0;  // of the mover's hand_count, added by put_back(): -1 then +1 cancel out

    TurnHands(PlayoutHands& hands, int mover)
        : all(hands), ids(hands.seat[mover].ids), dups(hands.seat[mover].dups), cells(hands.seat[mover].cells),
          next_seat(hands.seat[mover].next) {}
    void remove(GameState&, int, int card) {
        const std::uint64_t bit = std::uint64_t{1} << card;
        const std::uint64_t gone = bit & ~dups;  // the id leaves unless a second copy stays
        dups &= ~bit;
        toggle(card, gone);
        --count_change;
    }
    void insert(GameState&, int, int card) {
        const std::uint64_t bit = std::uint64_t{1} << card;
        const std::uint64_t fresh = bit & ~ids;
        dups |= bit & ids;
        toggle(card, fresh);
        ++count_change;
    }
    // Flips card's id in the sets (and its cells) when `change` (0 or the id's bit) is set: one
    // time in twenty it is not (a second copy is held or kept). A mask, not a branch: in registers,
    // the masked flip costs less than the branch's mispredictions.
    void toggle(int card, std::uint64_t change) {
        ids ^= change;
        const std::uint64_t flip = 0 - static_cast<std::uint64_t>(change != 0);
        const Bitboard c = card_cells(card);
        cells = cells ^ Bitboard(c.lo() & flip, c.hi() & flip);
    }
    void placed(int team, int cell) { all.placed(team, cell); }
    void clearing(const GameState& s, int cell) { all.clearing(s, cell); }
    void locked(const GameState& s) { all.locked(s); }
    bool has_dead_card(const GameState&, int) const { return (ids & all.dead_ids) != 0; }
    int next(const GameState&, int) const { return next_seat; }
    bool at_turn_cap(const GameState& s) const { return s.turn > all.last_turn; }
    void put_back(GameState& s, int mover) const {
        if (count_change != 0) s.hand_count[mover] = static_cast<std::uint8_t>(s.hand_count[mover] + count_change);
        PlayoutHands::Seat& seat = all.seat[mover];
        seat.ids = ids;
        seat.dups = dups;
        seat.cells = cells;
    }
};

// choose_move()'s sink of a playout: plays the move (turn.hpp) with the hands in PlayoutHands.
struct PlayMove {
    GameState& s;
    PlayoutHands& hands;
    int p, team;  // the mover and its team
    MoveId place(int card, int cell, int declares) {
        TurnHands turn_hands(hands, p);
        turn::place(s, turn_hands, p, team, card, cell, declares);
        turn_hands.put_back(s, p);
        return Move::place(card, cell, declares).id();
    }
    MoveId remove(int card, int cell) {
        TurnHands turn_hands(hands, p);
        turn::remove(s, turn_hands, p, team, card, cell);
        turn_hands.put_back(s, p);
        return Move::remove(card, cell).id();
    }
    MoveId trade(int card) {
        TurnHands turn_hands(hands, p);
        turn::trade(s, turn_hands, p, card);
        turn_hands.put_back(s, p);
        return Move::trade(card).id();
    }
    MoveId pass() {
        TurnHands turn_hands(hands, p);
        turn::pass(s, turn_hands, p);
        return Move::pass().id();
    }
};

SEQUENCE_NOINLINE MoveId playout_other(GameState& s, PlayoutHands& hands, int p, int team, unsigned r) {
    const std::uint64_t ids = hands.seat[p].ids;
    return choose_other(s, r, ids, ids & hands.dead_ids, team, hands.empty, PlayMove{s, hands, p, team});
}

SEQUENCE_ALWAYS_INLINE MoveId playout_step(GameState& s, PlayoutHands& hands, SplitMix64& rng) {
    const int p = s.current_player;
    const PlayoutHands::Seat& seat = hands.seat[p];
    const std::uint64_t ids = seat.ids;
    const Bitboard cells = seat.cells;
    const int team = seat.team;
    return choose_move(s, rng, ids, cells, ids & hands.dead_ids, team, hands.empty,
                       static_cast<unsigned>(hands.unlocked_total - hands.unlocked[team]), PlayMove{s, hands, p, team}, [&](unsigned r) { return playout_other(s, hands, p, team, r); });
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
    const int team = team_of(s, p);
    const Bitboard empty = empty_cells(s);
    return choose_move(s, rng, h.ids, h.cells, dead, team, empty,
                       static_cast<unsigned>(removable_of(s, team, empty).count()), MoveIds{},
                       [&](unsigned r) { return choose_other(s, r, h.ids, dead, team, empty, MoveIds{}); });
}

PlayoutHands::PlayoutHands(const GameState& s) : PlayoutHands(before_deal(s)) {
    for (int p = 0; p < s.config.players; ++p) {
        std::uint64_t held = 0;
        for (int i = 0; i < s.hand_count[p]; ++i) {
            const std::uint64_t bit = std::uint64_t{1} << s.hands[p][i];
            seat[p].dups |= held & bit;
            held |= bit;
        }
        seat[p].ids = held;
        const HandSets h = hand_sets(s.hands[p], s.hand_count[p]);
        seat[p].cells = h.cells;
    }
    if (occupied(s).none()) return;  // a fresh deal: every normal card has both cells free
    empty = empty_cells(s);
    count_unlocked(s);
    for (int c = 0; c < kCardKinds; ++c) {
        if (is_jack(c)) continue;
        free[c] = static_cast<std::uint8_t>((card_cells(c) & empty).count());
        if (free[c] == 0) dead_ids |= std::uint64_t{1} << c;
    }
}

void PlayoutHands::count_unlocked(const GameState& s) {
    unlocked_total = 0;
    for (int t = 0; t < kMaxTeams; ++t) {
        unlocked[t] = static_cast<std::uint8_t>((s.chips[t] & ~s.locked).count());
        unlocked_total = static_cast<std::uint8_t>(unlocked_total + unlocked[t]);
    }
}

PlayoutHands PlayoutHands::before_deal(const GameState& s) {
    PlayoutHands h{};
    h.empty = ~corners();
    std::memset(h.free, 2, sizeof h.free);  // every normal card has both cells free
    for (int c = kJackSpades; c <= kJackClubs; ++c) h.free[c] = 0;
    for (int p = 0; p < s.config.players; ++p) {
        h.seat[p].team = static_cast<std::uint8_t>(team_of(s, p));
        h.seat[p].next = static_cast<std::uint8_t>(turn::StateHands::next(s, p));
    }
    h.last_turn = last_uncapped_turn(s);
    return h;
}

void PlayoutHands::write_hands(GameState& s) const {
    for (int p = 0; p < s.config.players; ++p) {
        int n = 0;
        for (std::uint64_t rest = seat[p].ids; rest; rest &= rest - 1) {
            const int card = detail::lsb64(rest);
            s.hands[p][n++] = static_cast<Card>(card);
            if (seat[p].dups >> card & 1) s.hands[p][n++] = static_cast<Card>(card);
        }
        assert(n == s.hand_count[p]);
    }
}

MoveId random_playout_step(GameState& s, PlayoutHands& hands, SplitMix64& rng) { return playout_step(s, hands, rng); }

int random_playout(GameState& s, SplitMix64& rng, std::uint32_t turn_limit) {
    PlayoutHands hands(s);
    while (!is_over(s) && s.turn < turn_limit) playout_step(s, hands, rng);
    hands.write_hands(s);
    return s.winner;
}

template <int Lanes>
void random_playouts(PlayoutFeed& feed) {
    struct Lane {
        GameState s;
        PlayoutHands hands;
        SplitMix64 rng{0};
        bool live = false;
    };
    Lane lane[Lanes];
    int lives = 0;
    const auto start = [&](Lane& l) { return l.live = feed.next(l.s, l.hands, l.rng); };
    for (Lane& l : lane) lives += start(l);
    while (lives > 0) {
        for (Lane& l : lane) {
            if (!l.live) continue;
            playout_step(l.s, l.hands, l.rng);
            if (SEQUENCE_UNLIKELY(is_over(l.s))) {
                feed.finished(l.s, l.hands);
                lives -= !start(l);
            }
        }
    }
}
template void random_playouts<1>(PlayoutFeed&);
template void random_playouts<2>(PlayoutFeed&);
template void random_playouts<3>(PlayoutFeed&);
template void random_playouts<4>(PlayoutFeed&);

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

}  // namespace SEQUENCE_ISA
}  // namespace sequence
