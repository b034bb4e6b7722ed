// Helpers to build positions by hand for rule tests, and shared state checks.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "sequence/board.hpp"
#include "sequence/position.hpp"
#include "sequence/rules.hpp"
#include "test.hpp"

namespace test {

using namespace sequence;

inline int card(const char* text) { return parse_card(text); }
inline int at(int row, int col) { return cell_index(row, col); }

// A position with the given hands, an empty board and every other card in the draw pile
// (ascending ids, so the next card drawn is the lowest remaining).
inline Position make_position(int players, int teams, const std::vector<std::vector<int>>& hands) {
    Position pos;
    pos.players = players;
    pos.teams = teams;
    for (int cell = 0; cell < kCells; ++cell) pos.board[cell] = is_corner(cell) ? kBoardCorner : kBoardEmpty;
    pos.hands = hands;
    pos.discards.assign(players, {});
    int count[kCardKinds] = {};
    for (const auto& h : hands)
        for (int c : h) ++count[c];
    for (int c = 0; c < kCardKinds; ++c)
        for (int k = count[c]; k < kCopiesPerCard; ++k) pos.draw_pile.push_back(c);
    return pos;
}

// Moves cards from the draw pile to a player's discard pile (to keep the deck complete).
inline void add_discards(Position& pos, int player, const std::vector<int>& cards) {
    for (int c : cards) {
        auto it = std::find(pos.draw_pile.begin(), pos.draw_pile.end(), c);
        pos.draw_pile.erase(it);
        pos.discards[player].push_back(c);
    }
}

inline GameState load(const Position& pos) {
    std::string error;
    auto s = from_position(pos, error);
    if (!s) std::fprintf(stderr, "from_position: %s\n", error.c_str());
    return s ? *s : GameState{};
}

inline std::vector<MoveId> moves(const GameState& s) {
    std::vector<MoveId> v;
    legal_moves(s, v);
    return v;
}

inline bool contains(const std::vector<MoveId>& v, MoveId m) { return std::find(v.begin(), v.end(), m) != v.end(); }

// The moves placing card on cell, whatever they declare.
inline std::vector<MoveId> placements(const GameState& s, int card, int cell) {
    std::vector<MoveId> v;
    for (MoveId m : moves(s)) {
        const Move mv = Move::from_id(m);
        if (mv.kind == MoveKind::Place && mv.card == card && mv.cell == cell) v.push_back(m);
    }
    return v;
}

// The sorted cell tuples a move declares.
inline std::vector<std::vector<int>> declared(MoveId id) {
    const Move m = Move::from_id(id);
    std::uint8_t w[2 * kDirections];
    const int n = declared_windows(m.cell, m.declares, w);
    std::vector<std::vector<int>> out;
    for (int i = 0; i < n; ++i) {
        std::vector<int> cells;
        for (int k = 0; k < kWindowLength; ++k) cells.push_back(window_cell(w[i], k));
        out.push_back(cells);
    }
    return out;
}

// R1: every one of the 104 cards is in exactly one place (a hand, the draw pile or a discard
// pile), and every hand is sorted.
inline void check_cards_conserved(const GameState& s) {
    int count[kCardKinds] = {};
    for (int p = 0; p < s.config.players; ++p) {
        CHECK(std::is_sorted(s.hands[p], s.hands[p] + s.hand_count[p]));
        for (int i = 0; i < s.hand_count[p]; ++i) ++count[s.hands[p][i]];
    }
    CHECK(s.draw_size + s.discard_size <= kDeckSize);
    for (int i = 0; i < s.draw_size; ++i) ++count[draw_pile_card(s, i)];
    for (int i = 0; i < s.discard_size; ++i) ++count[discard_card(s, i)];
    for (int c = 0; c < kCardKinds; ++c) CHECK_EQ(count[c], 2);
}

}  // namespace test
