#include "sequence/game.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

MoveError Game::play(MoveId id) {
    const MoveError e = check_move(state_, id);
    if (e != MoveError::None) return e;
    Change change;
    change.move = id;
    history_.push_back({state_, change});
    apply_move(state_, id);
    return e;
}

RefereeError Game::table_talk_penalty(int team, const int cards[kMaxPlayers]) {
    const GameState before = state_;
    const RefereeError e = sequence::table_talk_penalty(state_, team, cards);
    if (e != RefereeError::None) return e;
    Change change;
    change.kind = Change::Kind::TableTalkPenalty;
    change.team = static_cast<std::int8_t>(team);
    for (int p = 0; p < state_.config.players; ++p) change.cards[p] = static_cast<std::int8_t>(cards[p]);
    history_.push_back({before, change});
    return e;
}

RefereeError Game::missed_draw(int player) {
    const GameState before = state_;
    const RefereeError e = sequence::missed_draw(state_, player);
    if (e != RefereeError::None) return e;
    Change change;
    change.kind = Change::Kind::MissedDraw;
    change.player = static_cast<std::int8_t>(player);
    history_.push_back({before, change});
    return e;
}

bool Game::undo() {
    if (history_.empty()) return false;
    state_ = history_.back().before;
    history_.pop_back();
    return true;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
