#include "sequence/playout.hpp"

#include "sequence/board.hpp"
#include "sequence/rules.hpp"

namespace sequence {

namespace {

// near[cell][dir]: the cells within four steps of cell along direction dir (cell excluded).
struct NearTable {
    Bitboard near[kCells][kDirections];
};
constexpr NearTable build_near() {
    NearTable t{};
    for (int cell = 0; cell < kCells; ++cell)
        for (int d = 0; d < kDirections; ++d) {
            Bitboard m;
            for (int k = 0; k < kWindowLength; ++k) {
                const int w = window_at(cell, d, k);
                if (w != kNoWindow) m |= window_mask(w);
            }
            m.reset(cell);
            t.near[cell][d] = m;
        }
    return t;
}
inline constexpr NearTable kNear = build_near();

// True if some five-cell window through cell lies in own once cell is added: only then can a
// placement on cell declare a sequence (R7). A pre-filter for declare_options(): a direction
// needs four of its neighbouring cells in own before its windows are examined.
inline bool may_complete(Bitboard own, int cell) {
    const Bitboard with = own | Bitboard::of(cell);
    for (int d = 0; d < kDirections; ++d) {
        if ((own & kNear.near[cell][d]).count() < kWindowLength - 1) continue;
        for (int k = 0; k < kWindowLength; ++k) {
            const int w = window_at(cell, d, k);
            if (w != kNoWindow && window_mask(w).subset_of(with)) return true;
        }
    }
    return false;
}

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

MoveId random_legal_move(const GameState& s, SplitMix64& rng) {
    const int p = s.current_player;
    const int team = team_of(s, p);
    const Card* hand = s.hands[p];
    const int n = s.hand_count[p];
    const Bitboard occ = occupied(s);
    const Bitboard empty = ~(occ | corners());
    const Bitboard removable = occ & ~s.chips[team] & ~s.locked;
    const int n_empty = empty.count();
    const int n_removable = removable.count();

    int plays[kMaxHand];
    Card cards[kMaxHand];
    int k = 0, total_plays = 0, trades = 0;
    for (int i = 0; i < n; ++i) {
        const int card = hand[i];
        if (i > 0 && hand[i - 1] == card) continue;  // one set of slots per card id
        int c;
        if (is_one_eyed_jack(card)) c = n_removable;
        else if (is_two_eyed_jack(card)) c = n_empty;
        else {
            c = (card_cells(card) & empty).count();
            // A normal card is never on a corner, so no empty cell means both are covered: dead (R5).
            if (c == 0) ++trades;
        }
        cards[k] = static_cast<Card>(card);
        plays[k] = c;
        ++k;
        total_plays += c;
    }
    if (s.traded_this_turn) trades = 0;
    const int options = total_plays + trades + (total_plays == 0 ? 1 : 0);
    int r = static_cast<int>(rng.below(static_cast<std::uint32_t>(options)));
    if (r < total_plays) {
        int j = 0;
        while (r >= plays[j]) r -= plays[j++];
        const int card = cards[j];
        if (is_one_eyed_jack(card)) return Move::remove(card, removable.select(r)).id();
        const Bitboard where = is_two_eyed_jack(card) ? empty : card_cells(card) & empty;
        const int cell = where.select(r);
        return Move::place(card, cell, random_declares(s, team, cell, rng)).id();
    }
    r -= total_plays;
    if (r < trades) {
        for (int j = 0; j < k; ++j)
            if (plays[j] == 0 && !is_jack(cards[j]) && r-- == 0) return Move::trade(cards[j]).id();
    }
    return Move::pass().id();
}

int random_playout(GameState& s, SplitMix64& rng, std::uint32_t turn_limit) {
    while (!is_over(s) && s.turn < turn_limit) apply_move(s, random_legal_move(s, rng));
    return s.winner;
}

}  // namespace sequence
