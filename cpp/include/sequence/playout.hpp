// Random playouts: a uniformly random legal move drawn without building a move list, and a
// random game continued to its end (or a turn limit). The hot path of search and simulate.
#pragma once

#include <cstdint>

#include "sequence/move.hpp"
#include "sequence/rng.hpp"
#include "sequence/state.hpp"

namespace sequence {

// A random legal move of the current player. Requires !is_over(s). No heap allocation, no move
// list: the options are counted with popcounts and the n-th one is picked.
//
// "Uniform" here means: uniform over the *slots* of the position, where the slots are
//   - one per (distinct card id in hand, cell) play: a normal card and each of its empty cells,
//     a two-eyed jack and each empty cell, a one-eyed jack and each removable chip (another
//     team's, not locked: R5, R7) -- two copies of one card id give one set of slots;
//   - one per distinct dead card id, if no trade was made this turn (R5 step 1);
//   - one pass, only when there is no play at all (R5).
// A placement whose declares choice (R7) is not unique gets one slot, and the choice among its
// declare_options() combinations is then made uniformly. So this is exactly uniform over
// legal_moves() except that the declares variants of one placement share one slot.
MoveId random_legal_move(const GameState& s, SplitMix64& rng);

// Plays random_legal_move() until the game is over or s.turn >= turn_limit. Returns the winning
// team, or -1 (drawn, or stopped by the limit).
int random_playout(GameState& s, SplitMix64& rng, std::uint32_t turn_limit);

// A declares code for team placing on the empty cell, chosen uniformly among the declare_options()
// combinations (0 when the placement forms no sequence, the common case, found without calling
// declare_options()).
int random_declares(const GameState& s, int team, int cell, SplitMix64& rng);

}  // namespace sequence
