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
    std::uint32_t horizon = 20;    // playout turns after the root move (then the evaluation)
    double epsilon = 0.0;          // chance of a random legal move per playout turn (greedy_move)
    HeuristicWeights heuristic;
    EvalWeights weights;
    const std::atomic<bool>* stop = nullptr;  // polled; when raised the search returns early
};

// Searches for the current player of `root` (requires !is_over(root)); reads only
// observe(root, player). result.moves holds every candidate with its playouts (visits) and mean
// reward; `iterations` counts playouts; `nodes` is 0 (no tree). Deterministic for a given seed,
// iteration budget and thread count (with no time limit).
SearchResult rollout_search(const GameState& root, const RolloutOptions& options);

}  // namespace sequence
