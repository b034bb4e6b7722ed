#include "sequence/search/greedy_playout.hpp"

#include <cassert>

#include "sequence/board.hpp"
#include "sequence/playout.hpp"
#include "sequence/rules.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

MoveId greedy_move(const GameState& s, SplitMix64& rng, const HeuristicWeights& weights, std::uint32_t epsilon) {
    assert(!is_over(s));
    if (epsilon != 0 && rng.below(65536) < epsilon) return random_legal_move(s, rng);
    const int p = s.current_player;
    const int team = team_of(s, p);
    const Card* hand = s.hands[p];
    const int n = s.hand_count[p];
    const Bitboard empty = empty_cells(s);
    if (!s.traded_this_turn)
        for (int i = 0; i < n; ++i)
            if (!is_jack(hand[i]) && (card_cells(hand[i]) & empty).none()) return Move::trade(hand[i]).id();
    MoveScorer sc(s, weights);
    const Bitboard completion = completion_cells(s, team);
    double best = -1e300;
    MoveId best_id = 0;
    bool any = false;
    int prev = -1;
    const auto consider_place = [&](int card, int cell) {
        int declares = 0;
        if (completion.test(cell)) declares = random_declares(s, team, cell, rng);
        const double v = sc.place_score(card, cell, declares ? declared_count(static_cast<MoveId>(declares) << 15) : 0);
        if (v > best) {
            best = v;
            best_id = Move::place(card, cell, declares).id();
            any = true;
        }
    };
    for (int i = 0; i < n; ++i) {
        const int card = hand[i];
        if (card == prev) continue;
        prev = card;
        if (is_one_eyed_jack(card)) {
            const Bitboard removable = removable_cells(s, team);
            for (int cell : removable) {
                const double v = sc.remove[cell] - weights.one_eyed_cost;
                if (v > best) {
                    best = v;
                    best_id = Move::remove(card, cell).id();
                    any = true;
                }
            }
        } else if (is_two_eyed_jack(card)) {
            // Only cells that can beat the best so far (the jack's cost aside) are worth a look.
            for (int cell : empty)
                if (sc.place[cell] - weights.two_eyed_cost > best || completion.test(cell)) consider_place(card, cell);
        } else {
            for (int cell : card_cells(card) & empty) consider_place(card, cell);
        }
    }
    if (!any) return random_legal_move(s, rng);
    return best_id;
}

int greedy_playout(GameState& s, SplitMix64& rng, std::uint32_t turn_limit, const HeuristicWeights& weights,
                   std::uint32_t epsilon) {
    while (!is_over(s) && s.turn < turn_limit) apply_move(s, greedy_move(s, rng, weights, epsilon));
    return s.winner;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
