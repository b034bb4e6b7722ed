#include "sequence/game.hpp"

namespace sequence {

MoveError Game::play(MoveId id) {
    const MoveError e = check_move(state_, id);
    if (e != MoveError::None) return e;
    history_.push_back(state_);
    apply_move(state_, id);
    return e;
}

RefereeError Game::table_talk_penalty(int team, const int cards[kMaxPlayers]) {
    const GameState before = state_;
    const RefereeError e = sequence::table_talk_penalty(state_, team, cards);
    if (e == RefereeError::None) history_.push_back(before);
    return e;
}

RefereeError Game::missed_draw(int player) {
    const GameState before = state_;
    const RefereeError e = sequence::missed_draw(state_, player);
    if (e == RefereeError::None) history_.push_back(before);
    return e;
}

bool Game::undo() {
    if (history_.empty()) return false;
    state_ = history_.back();
    history_.pop_back();
    return true;
}

}  // namespace sequence
