// The move heuristic (heuristic.hpp, GreedyAgent's scoring) as a playout policy for the searches.
#pragma once

#include <cstdint>

#include "sequence/isa.hpp"
#include "sequence/move.hpp"
#include "sequence/rng.hpp"
#include "sequence/search/heuristic.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// The heuristic as a playout policy (requires !is_over(s)): with
// probability epsilon (out of 65536) random_legal_move(); else a dead card is traded first (R5,
// free), else the play of highest MoveScorer score (a placement on a completion cell declares
// random_declares(); ties go to the first found), else random_legal_move() (a pass).
MoveId greedy_move(const GameState& s, SplitMix64& rng, const HeuristicWeights& weights, std::uint32_t epsilon);
// Plays greedy_move() until the game is over or s.turn >= turn_limit; returns as random_playout().
int greedy_playout(GameState& s, SplitMix64& rng, std::uint32_t turn_limit, const HeuristicWeights& weights,
                   std::uint32_t epsilon);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
