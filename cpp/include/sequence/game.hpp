// Game: a GameState plus its history: every change that succeeded (a move or an R10 referee call)
// in the order made, each with the state before it, so that undo() takes the last one back and
// the history can be read (the moves since the deal, as python-chess's move_stack and OpenSpiel's
// History()). Refused changes leave the state and the history untouched.
#pragma once

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sequence/isa.hpp"
#include "sequence/rules.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// One change of a game: a move, or a referee call (R10) with what it was called with.
struct Change {
    enum class Kind : std::uint8_t { Move, TableTalkPenalty, MissedDraw };
    Kind kind = Kind::Move;
    MoveId move = 0;           // Kind::Move: the move played
    std::int8_t team = -1;     // Kind::TableTalkPenalty: the penalised team
    std::int8_t player = -1;   // Kind::MissedDraw: whose last draw went back
    // Kind::TableTalkPenalty: the card each member of the team discarded, -1 for other seats.
    std::int8_t cards[kMaxPlayers] = {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1};
};

class Game {
public:
    // A game at state with an empty history (a fresh deal, or a loaded position).
    explicit Game(const GameState& state) : state_(state) {}

    const GameState& state() const { return state_; }
    // The changes since the state the game was made with, oldest first.
    std::size_t history_size() const { return history_.size(); }
    // Change i of the history (0 = the oldest). Requires i < history_size().
    const Change& change(std::size_t i) const {
        assert(i < history_.size());
        return history_[i].change;
    }
    // The state before change i (0 = the oldest). Requires i < history_size().
    const GameState& state_before(std::size_t i) const {
        assert(i < history_.size());
        return history_[i].before;
    }
    // The state before the last change, or nullptr if the history is empty.
    const GameState* previous() const { return history_.empty() ? nullptr : &history_.back().before; }

    // Plays a move if legal (see check_move()); returns the reason otherwise.
    MoveError play(MoveId id);
    // R10 referee calls (see rules.hpp).
    RefereeError table_talk_penalty(int team, const int cards[kMaxPlayers]);
    RefereeError missed_draw(int player);
    // Takes back the last change: the state returns to what it was before it. Returns false (and
    // changes nothing) if the history is empty.
    bool undo();

private:
    struct Entry {
        GameState before;
        Change change;
    };
    GameState state_;
    std::vector<Entry> history_;
};

}  // namespace SEQUENCE_ISA
}  // namespace sequence
