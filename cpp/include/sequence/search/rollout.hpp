// Rollout search with common random numbers: a one-ply policy improvement over the move heuristic
// (heuristic.hpp, GreedyAgent's scoring) for games of hidden cards and heavy luck.
//
// The player to move sees only observe(state, player) (ismcts.hpp). The search keeps the
// `candidates` root moves the heuristic rates highest (a move that wins at once, R8, decisive.hpp, is played
// without search), then repeatedly samples one world (determinize(): the unseen cards dealt at
// random into the other hands and the draw pile) and plays *every* candidate in that same world,
// each followed by the same heuristic playout (greedy_move(), same generator seed) for `horizon`
// turns, scored by the static evaluation (evaluate.hpp) or the result if the game ends. Because
// all candidates meet the same cards, the luck of the deal cancels out of their comparison (common
// random numbers): a difference in mean reward comes from the move, so far fewer samples separate
// the moves than when each move draws its own worlds (as ISMCTS's iterations do).
//
// With `halving` (sequential halving; a research build's option: it measured no gain,
// docs/research/ceilings.md) the budget is spent in ceil(log2(candidates)) rounds of
// equal size: in each round the candidates still in play meet the same fresh worlds, and after it
// the worse half by mean reward over every world they met is dropped (ties keep the heuristic's
// order), so the last two are compared on many more worlds than a fixed split would give them and
// little is spent on moves that are clearly worse. Every candidate still in play has met exactly
// the same worlds, so each comparison stays one of common random numbers. A time budget alone is
// split the same way (each round the remaining time over the remaining rounds).
#pragma once

#include "sequence/isa.hpp"
#include "sequence/search/ismcts.hpp"
#include "sequence/search/options.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// Searches for the current player of `root` (requires !is_over(root)); reads only
// observe(root, player) (and the public part of `before`). result.moves holds every candidate
// with the worlds it was played in (visits) and its mean reward over them, best first: most
// worlds first (with `halving`, the candidates that stayed longest), then best mean, then the
// heuristic's order; `iterations` counts playouts; `nodes` is 0 (no tree). Deterministic for a
// given seed, iteration budget and thread count (with no time limit). The stop flag and the
// deadline are checked before every candidate's playout; a world counts only when every candidate
// in play has been played in it, and a stop ends the search with the candidates then in play.
// Allocates per search and per round, never per world or playout. Throws as ismcts() does.
// `peek`: a test hook (options.hpp).
//
// `before` (the position before the last change, or nullptr) is read only by opponent modelling,
// a research build's option (RolloutOptions' inference_strength and inference_tries, as the
// inference of hidden cards that measured no gain, docs/research/inference.md). When that change was another player's play (a placement
// or removal, seen on the board and their discard pile, with no R6 reshuffle in between), worlds
// are weighted by how well the hand they deal that player explains the play, under the model
// "plays (near) the heuristic's best move": a world in which the player could have made a much
// better move (say, block a four or complete a sequence) but did not is unlikely. Only
// observe(before, player)'s public fields are read. Worlds are drawn by rejection: up to
// `inference_tries` samples per world, accepted with probability exp(-inference_strength *
// shortfall), shortfall = the log-scaled score of the best move the hand allowed minus that of
// the move made (never below 0).
SearchResult rollout_search(const GameState& root, const RolloutOptions& options, const GameState* before = nullptr,
                            Peek peek = Peek::None);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
