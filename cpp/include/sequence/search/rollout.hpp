// Rollout search with common random numbers: a one-ply policy improvement over the move heuristic
// (heuristic.hpp, GreedyAgent's scoring) for games of hidden cards and heavy luck.
//
// The player to move sees only observe(state, player) (ismcts.hpp). The search keeps the
// `candidates` root moves the heuristic rates highest (a move that wins at once, R8, is played
// without search), then repeatedly samples one world (determinize(): the unseen cards dealt at
// random into the other hands and the draw pile) and plays *every* candidate in that same world,
// each followed by the same heuristic playout (greedy_move(), same generator seed) for `horizon`
// turns, scored by the static evaluation (evaluate.hpp) or the result if the game ends. Because
// all candidates meet the same cards, the luck of the deal cancels out of their comparison (common
// random numbers): a difference in mean reward comes from the move, so far fewer samples separate
// the moves than when each move draws its own worlds (as ISMCTS's iterations do).
#pragma once

#include <atomic>
#include <cstdint>

#include "sequence/search/evaluate.hpp"
#include "sequence/search/heuristic.hpp"
#include "sequence/search/ismcts.hpp"
#include "sequence/state.hpp"

namespace sequence {

struct RolloutOptions {
    std::uint64_t iterations = 0;  // playouts, all threads together; 0 = none
    double time_limit = 0;         // seconds; <= 0 = none. At least one budget must be set.
    int threads = 1;               // worlds are split between threads
    std::uint64_t seed = 0;
    int candidates = 8;            // root moves searched (the heuristic's best)
    std::uint32_t horizon = 200;   // playout turns after the root move (then the evaluation); 200: to the end
    double epsilon = 0.0;          // chance of a random legal move per playout turn (greedy_move)
    HeuristicWeights heuristic;
    EvalWeights weights;
    // TEST ONLY, to measure what hidden information is worth: 0 = honest (sample every unseen
    // card); 1 = the other hands are read from the true state, only the draw pile is sampled;
    // 2 = the true state (hands, draw pile order and generator) is the one world.
    int reveal = 0;
    double inference_strength = 0.0;  // 0 = no opponent modelling (the default: no measurable gain yet)
    int inference_tries = 32;
    const std::atomic<bool>* stop = nullptr;  // polled; when raised the search returns early
};

// Opponent modelling from public evidence: `before` is the position before the last change (or
// nullptr). When that change was another player's play (a placement or removal, seen on the board
// and their discard pile, with no R6 reshuffle in between), worlds are weighted by how well the
// hand they deal that player explains the play, under the model "plays (near) the heuristic's
// best move": a world in which the player could have made a much better move (say, block a four
// or complete a sequence) but did not is unlikely. Only observe(before, player)'s public fields
// are read. Worlds are drawn by rejection: up to `inference_tries` samples per world, accepted with
// probability exp(-inference_strength * shortfall), shortfall = the log-scaled score of the best
// move the hand allowed minus that of the move made (never below 0).
// Searches for the current player of `root` (requires !is_over(root)); reads only
// observe(root, player) (and the public part of `before`). result.moves holds every candidate with its playouts (visits) and mean
// reward; `iterations` counts playouts; `nodes` is 0 (no tree). Deterministic for a given seed,
// iteration budget and thread count (with no time limit).
SearchResult rollout_search(const GameState& root, const RolloutOptions& options, const GameState* before = nullptr);

}  // namespace sequence
