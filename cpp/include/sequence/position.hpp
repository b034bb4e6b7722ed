// Position: the state format of docs/state-format.md in plain ints (card ids, cell indices), the
// form in which the binding passes a state to and from Python. Not on any hot path.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sequence/isa.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

constexpr int kBoardEmpty = -1;   // Position::board codes; 0..2 are team chips
constexpr int kBoardCorner = 3;

struct PositionSequence {
    int team = 0;
    std::array<int, 5> cells{};  // ascending cell indices
};

inline bool operator==(const PositionSequence& a, const PositionSequence& b) {
    return a.team == b.team && a.cells == b.cells;
}

struct Position {
    int players = 0;
    int teams = 0;
    std::optional<std::uint64_t> seed;
    std::optional<int> max_turns;
    std::array<int, kCells> board{};            // index 10 * row + col
    std::vector<PositionSequence> sequences;    // in the order formed
    std::vector<std::vector<int>> hands;        // ascending card ids
    std::vector<std::vector<int>> discards;     // oldest first
    std::vector<int> draw_pile;                 // top (next drawn) first
    int current_player = 0;
    int dealer = 0;
    int turn = 0;
    bool traded_this_turn = false;
    int passes = 0;
    std::optional<int> winner;
    bool is_draw = false;
    std::uint64_t rng = 0;
    std::optional<std::pair<int, int>> last_draw;  // (player, card)
};

// The board code of a cell: kBoardEmpty, a team 0..2 or kBoardCorner.
int board_code(const GameState& s, int cell);

// The Position of a state. Every field is determined by the state.
Position to_position(const GameState& s);

// Builds the state of a Position. Returns std::nullopt and sets error to a message naming the
// field if the position is inconsistent: invalid player count or team split (R2), board codes,
// sequences that are not lines of the team's chips and corners or overlap a same-team sequence in
// more than one cell (R7), more than kMaxSequences sequences, hands larger than R3, a deck that is
// not two of each card (R1), out-of-range seats, turn, passes or max_turns, a winner that disagrees
// with the sequences (R8), a game both won and drawn, or (while the game is on) a last_draw card
// not in that player's hand. Hands are sorted. Any accepted position is safe to play on.
std::optional<GameState> from_position(const Position& pos, std::string& error);

// Field-by-field equality: two positions are the same game state.
bool operator==(const Position& a, const Position& b);
inline bool operator!=(const Position& a, const Position& b) { return !(a == b); }

}  // namespace SEQUENCE_ISA
}  // namespace sequence
