#include "sequence/actions.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <vector>

#include "sequence/cpu.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

namespace {

DeclareOptions options_of(const GameState& s, const Move& m) {
    DeclareOptions opt;
    declare_options(s, team_of(s, s.current_player), m.cell, opt);
    return opt;
}

int next_direction(const DeclareOptions& opt, const Move& m) {
    for (int d = 0; d < kDirections; ++d)
        if (opt.count[d] > 1 && m.declare(d) == kDeclareNone) return d;
    return -1;
}

// The declare actions of direction d: a direction with a choice offers single windows only (the
// pair of 9 in a row is the one maximal choice where it exists, R7).
template <class Visit>
void visit_declare_actions(const DeclareOptions& opt, int cell, int d, Visit visit) {
    for (int i = 0; i < opt.count[d]; ++i) {
        const int code = opt.codes[d][i];
        assert(code >= 1 && code <= kWindowLength);
        visit(code, declare_action(window_at(cell, d, code - 1)));
    }
}

}  // namespace

bool is_valid_pending(const GameState& s, const PendingPlacement& p) {
    if (!p.active()) return true;
    if (is_over(s)) return false;
    const Move m = Move::from_id(p.move);
    if (m.kind != MoveKind::Place || Move::place(m.card, m.cell, m.declares).id() != p.move || m.cell >= kCells) return false;
    const DeclareOptions opt = options_of(s, m);
    int first = 0;
    for (int d = 0; d < kDirections; ++d) first = with_declare(first, d, opt.codes[d][0]);
    if (check_move(s, Move::place(m.card, m.cell, first).id()) != MoveError::None) return false;
    bool open = false;  // a direction with a choice is still undecided
    for (int d = 0; d < kDirections; ++d) {
        const int code = m.declare(d);
        if (opt.count[d] == 1) {
            if (code != opt.codes[d][0]) return false;
        } else if (code == kDeclareNone) {
            open = true;
        } else if (open || std::find(opt.codes[d], opt.codes[d] + opt.count[d], code) == opt.codes[d] + opt.count[d]) {
            return false;
        }
    }
    return open;
}

namespace {

// Adds the cells of board as actions base + cell (base = card * kCells: the card's 100 cell actions).
inline void add_cells(std::uint64_t (&bits)[kActionWords], int base, Bitboard board) {
    const int w = base >> 6, shift = base & 63;
    const std::uint64_t lo = board.lo(), hi = board.hi();  // hi: cells 64..99, 36 bits
    if (shift == 0) {
        bits[w] |= lo;
        bits[w + 1] |= hi;
        return;
    }
    bits[w] |= lo << shift;
    bits[w + 1] |= lo >> (64 - shift) | hi << shift;
    if (shift > 64 - (kCells - 64)) bits[w + 2] |= hi >> (64 - shift);  // cells past the word's end
}

inline void add_action(std::uint64_t (&bits)[kActionWords], int a) { bits[a >> 6] |= std::uint64_t{1} << (a & 63); }

}  // namespace

int legal_action_bits(const GameState& s, const PendingPlacement& p, std::uint64_t (&bits)[kActionWords],
                      std::int16_t* list, int capacity) {
    std::memset(bits, 0, sizeof bits);
    if (is_over(s)) return 0;
    int n = 0;
    const auto put = [&](int a) {  // the list in ascending order, up to capacity
        if (n < capacity) list[n] = static_cast<std::int16_t>(a);
        ++n;
    };
    if (!list) capacity = 0;
    if (p.active()) {  // declare actions (rare): listed from the bit set
        const Move m = Move::from_id(p.move);
        const DeclareOptions opt = options_of(s, m);
        const int d = next_direction(opt, m);
        if (d < 0) return 0;
        visit_declare_actions(opt, m.cell, d, [&](int, int action) { add_action(bits, action); });
        for (int k = 0; k < kActionWords; ++k)
            for (std::uint64_t w = bits[k]; w != 0; w &= w - 1) put(64 * k + bits::ctz64(w));
        return n;
    }
    // The actions of legal_moves() (rules.hpp), one per (card id, cell) and per trade: a normal
    // card or two-eyed jack on each cell of placement_cells (every such placement has at least one
    // declares choice, R7), a one-eyed jack on each removable chip, a trade of each dead card
    // while none was made this turn (R5 step 1), and a pass only without a placement or removal.
    // Ascending: card ids ascending (the hand is sorted), cells ascending, then trades, then pass.
    const int player = s.current_player;
    const Card* hand = s.hands[player];
    const int count = s.hand_count[player];
    const Bitboard occ = occupied(s);
    const Bitboard empty = ~(occ | corners());
    const Bitboard removable = removable_cells(s, team_of(s, player));
    std::uint64_t trades = 0;  // bit = card id
    bool any_play = false;
    for (int i = 0; i < count; ++i) {
        const int card = hand[i];
        if (i > 0 && hand[i - 1] == card) continue;  // each card id once (the hand is ascending)
        Bitboard where;
        if (is_one_eyed_jack(card)) {
            where = removable;
        } else if (is_two_eyed_jack(card)) {
            where = empty;
        } else {
            where = card_cells(card) & empty;
            if (!s.traded_this_turn && card_cells(card).subset_of(occ)) trades |= std::uint64_t{1} << card;  // dead (R5)
        }
        if (where.none()) continue;
        any_play = true;
        const int base = card * kCells;
        add_cells(bits, base, where);
        if (capacity == 0) {
            n += where.count();
            continue;
        }
        for (std::uint64_t w = where.lo(); w != 0; w &= w - 1) put(base + bits::ctz64(w));
        for (std::uint64_t w = where.hi(); w != 0; w &= w - 1) put(base + 64 + bits::ctz64(w));
    }
    for (std::uint64_t w = trades; w != 0; w &= w - 1) {
        const int a = kTradeActionBase + bits::ctz64(w);
        add_action(bits, a);
        put(a);
    }
    if (!any_play) {
        add_action(bits, kPassAction);
        put(kPassAction);
    }
    return n;
}

namespace {

#if SEQUENCE_HAS_AVX2
// 32 bytes: byte j = bit j of word (1 or 0). Each byte of the word is spread over 8 bytes (a shuffle
// within each 128-bit half, which both hold the broadcast word), then bit j % 8 is picked.
inline __m256i spread_bits(std::uint32_t word) {
    const __m256i w = _mm256_set1_epi32(static_cast<int>(word));
    const __m256i byte_of = _mm256_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                             2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
    const __m256i bit = _mm256_set1_epi64x(0x8040201008040201ll);
    return _mm256_min_epu8(_mm256_and_si256(_mm256_shuffle_epi8(w, byte_of), bit), _mm256_set1_epi8(1));
}
#else
// The 8 bytes of each byte value: byte j = bit j (1 or 0).
struct ByteBools {
    std::uint64_t v[256];
    constexpr ByteBools() : v() {
        for (int b = 0; b < 256; ++b)
            for (int j = 0; j < 8; ++j) v[b] |= static_cast<std::uint64_t>((b >> j) & 1) << (8 * j);
    }
};
constexpr ByteBools kByteBools{};
#endif

}  // namespace

void action_bits_to_mask(const std::uint64_t (&bits)[kActionWords], std::uint8_t* mask) {
    // Whole words (64 bytes each) but the last, which holds kActionCount % 64 actions. Most words
    // of a mask are zero: those are two plain stores.
    constexpr int kWhole = kActionCount / 64;
    for (int k = 0; k < kWhole; ++k) {
        std::uint8_t* out = mask + 64 * k;
        const std::uint64_t w = bits[k];
#if SEQUENCE_HAS_AVX2
        if (w == 0) {
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_setzero_si256());
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32), _mm256_setzero_si256());
            continue;
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), spread_bits(static_cast<std::uint32_t>(w)));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 32), spread_bits(static_cast<std::uint32_t>(w >> 32)));
#else
        for (int j = 0; j < 8; ++j) std::memcpy(out + 8 * j, &kByteBools.v[(w >> (8 * j)) & 0xFF], 8);
#endif
    }
    for (int a = 64 * kWhole; a < kActionCount; ++a) mask[a] = (bits[kWhole] >> (a & 63)) & 1;
}

int legal_action_mask(const GameState& s, const PendingPlacement& p, std::uint8_t* mask) {
    std::uint64_t bits[kActionWords];
    const int n = legal_action_bits(s, p, bits);
    action_bits_to_mask(bits, mask);
    return n;
}

int legal_actions(const GameState& s, const PendingPlacement& p, int* out) {
    std::uint8_t mask[kActionCount];
    legal_action_mask(s, p, mask);
    int n = 0;
    for (int a = 0; a < kActionCount; ++a)
        if (mask[a]) out[n++] = a;
    return n;
}

ActionOutcome resolve_action(const GameState& s, PendingPlacement& p, int action, MoveId& move) {
    if (is_over(s) || action < 0 || action >= kActionCount) return ActionOutcome::Illegal;
    if (p.active()) {  // only a declare action of the next direction with a choice
        const int window = window_of_action(action);
        if (window < 0) return ActionOutcome::Illegal;
        const Move m = Move::from_id(p.move);
        const DeclareOptions opt = options_of(s, m);
        const int d = next_direction(opt, m);
        if (d < 0) return ActionOutcome::Illegal;
        int chosen = kDeclareNone;
        visit_declare_actions(opt, m.cell, d, [&](int code, int a) { if (a == action) chosen = code; });
        if (chosen == kDeclareNone) return ActionOutcome::Illegal;
        const Move next = Move::place(m.card, m.cell, with_declare(m.declares, d, chosen));
        if (next_direction(opt, next) >= 0) {
            p.move = next.id();
            return ActionOutcome::Pending;
        }
        assert(check_move(s, next.id()) == MoveError::None);
        move = next.id();
        p = PendingPlacement{};
        return ActionOutcome::Move;
    }
    Move m;
    if (action == kPassAction) {
        m = Move::pass();
    } else if (action >= kTradeActionBase) {
        m = Move::trade(action - kTradeActionBase);
    } else {
        const int card = action / kCells, cell = action % kCells;
        if (is_corner(cell)) return ActionOutcome::Illegal;  // a declare action, and nothing is pending
        if (is_one_eyed_jack(card)) {
            m = Move::remove(card, cell);
        } else {
            // A placement: legal with the first declares choice of every direction, pending if any
            // direction has a choice (its code stays 0 until its declare action).
            m = Move::place(card, cell);
            const DeclareOptions opt = options_of(s, m);
            int first = 0, fixed = 0;
            bool choice = false;
            for (int d = 0; d < kDirections; ++d) {
                first = with_declare(first, d, opt.codes[d][0]);
                if (opt.count[d] == 1) fixed = with_declare(fixed, d, opt.codes[d][0]);
                else choice = true;
            }
            if (check_move(s, Move::place(card, cell, first).id()) != MoveError::None) return ActionOutcome::Illegal;
            if (choice) {
                p.move = Move::place(card, cell, fixed).id();
                return ActionOutcome::Pending;
            }
            m = Move::place(card, cell, first);
        }
    }
    if (check_move(s, m.id()) != MoveError::None) return ActionOutcome::Illegal;
    move = m.id();
    return ActionOutcome::Move;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
