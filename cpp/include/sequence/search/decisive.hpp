// Decisive moves: a move that wins at once (R8) is the only one the searches consider. When a
// placement's declared sequences (R7) complete the count its team needs, nothing else can be
// better, so the tree searches (ismcts.hpp, puct.hpp) cut a node's moves to it and the rollout
// search (rollout.hpp) plays it without search: the tree never explores the alternatives of a won
// position, and opponents always take their wins. Inline: the trees test every node they walk.
#pragma once

#include "sequence/isa.hpp"
#include "sequence/move.hpp"
#include "sequence/rules.hpp"
#include "sequence/search/heuristic.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// The sequences the team of the player to move of st still needs to win (R8; >= 1 in a game that
// is not over).
inline int sequences_needed(const GameState& st) {
    return st.config.sequences_to_win - team_sequences(st, team_of(st, st.current_player));
}

// Whether the legal move m wins at once for a team that needs `need` (>= 1) more sequences: a
// placement declaring at least that many (R7, R8).
inline bool wins_at_once(MoveId m, int need) {
    return (m & 3) == static_cast<MoveId>(MoveKind::Place) && (m >> 15) != 0 && declared_count(m) >= need;
}

// Cuts the legal moves of st's player to move to the first that wins at once, if one does.
inline void keep_decisive(const GameState& st, MoveList& legal) {
    const int need = sequences_needed(st);
    for (int i = 0; i < legal.size; ++i) {
        const MoveId m = legal.moves[i];
        if (wins_at_once(m, need)) {
            legal.moves[0] = m;
            legal.size = 1;
            return;
        }
    }
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
