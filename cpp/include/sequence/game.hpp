// Game: a GameState plus an undo history of snapshots. Every change that succeeds (a move or a
// referee call) pushes the state before it; undo() pops one. Refused changes leave both untouched.
#pragma once

#include <cstddef>
#include <vector>

#include "sequence/rules.hpp"
#include "sequence/state.hpp"

namespace sequence {

class Game {
public:
    explicit Game(const GameState& state) : state_(state) {}

    const GameState& state() const { return state_; }
    std::size_t history_size() const { return history_.size(); }
    // The state before the last successful change, or nullptr if there is none.
    const GameState* previous() const { return history_.empty() ? nullptr : &history_.back(); }

    // Plays a move if legal (see check_move()); returns the reason otherwise.
    MoveError play(MoveId id);
    // R10 referee calls (see rules.hpp).
    RefereeError table_talk_penalty(int team, const int cards[kMaxPlayers]);
    RefereeError missed_draw(int player);
    // Reverts the last successful change. Returns false if there is none.
    bool undo();

private:
    GameState state_;
    std::vector<GameState> history_;
};

}  // namespace sequence
