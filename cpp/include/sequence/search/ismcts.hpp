// Information-set Monte Carlo tree search (single-observer ISMCTS with determinization: Cowling,
// Powley & Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012).
//
// The searching player P sees only what R9 makes public plus its own hand. The search reads the
// game exclusively through an Observation built once at the root (observe()), which holds only
// that information; every iteration deals the unseen cards at random (determinize()), walks one
// tree of move ids with availability-corrected UCB, finishes with a short playout (informed_move(),
// playout.hpp) scored by a static evaluation (evaluate.hpp) and backpropagates the reward per team.
// Optionally (SearchOptions, off by default) the move heuristic of heuristic.hpp (GreedyAgent's
// one-ply scoring) guides the tree (ordered expansion, progressive widening and bias) and the
// playouts (greedy_move()).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sequence/move.hpp"
#include "sequence/playout.hpp"
#include "sequence/rng.hpp"
#include "sequence/search/evaluate.hpp"
#include "sequence/search/heuristic.hpp"
#include "sequence/state.hpp"

namespace sequence {

// What `player` may know (R9): the board, chips, locked cells and sequences, every discard pile,
// every hand size, the draw pile size, the turn counters, and the player's own hand. Built by
// copying the state and zeroing everything hidden: other hands' cards, the draw pile's cards,
// the generator state and seed (which would predict the R6 reshuffle) and another player's
// last drawn card. Two states that differ only in hidden information give byte-identical
// observations.
struct Observation {
    GameState pub;
    int player = 0;
};
Observation observe(const GameState& s, int player);

// One random world consistent with the observation: the unseen cards (two decks minus the
// player's hand minus every discard pile; chips are not cards) are shuffled with rng and dealt to
// the other players' hands (same sizes, sorted) and the draw pile (same size). The generator
// state of the world comes from rng too. Reads nothing but obs.
GameState determinize(const Observation& obs, SplitMix64& rng);
// determinize(observe(observed, player), rng).
GameState determinize(const GameState& observed, int player, SplitMix64& rng);

struct SearchOptions {
    std::uint64_t iterations = 0;  // total over all threads; 0 = no iteration budget
    double time_limit = 0;         // seconds; <= 0 = none. At least one budget must be set.
    int threads = 1;               // root parallelism: one tree per thread
    std::uint64_t seed = 0;
    double exploration = 0.2;      // UCB constant c (rewards are in [0, 1])
    std::uint64_t max_nodes = 1000000;  // total over all trees (root nodes included)
    std::uint32_t playout_turns = 6;  // playouts stop this many turns past the leaf (see align_playouts)
    // How a playout that stops before the end of the game scores: true = evaluate_rewards()
    // (evaluate.hpp), false = a draw (1/teams each).
    bool evaluate = true;
    // With evaluate: extend each playout (by less than one round) so that it stops with the root
    // player to move, which keeps the evaluation unbiased between odd and even tree depths.
    bool align_playouts = true;
    bool informed_playouts = true;  // informed_move() (playout.hpp) instead of random_legal_move()
    PlayoutPolicy policy;
    // At every tree node, a move that wins at once (R8) is the only one considered.
    bool decisive = true;
    EvalWeights weights;
    // The move heuristic (heuristic.hpp, GreedyAgent's scoring) as a prior at every tree node (off
    // by default: in 2-player matches against GreedyAgent it measured no stronger than the plain
    // search at equal iterations, and costs iterations; see agents/mcts.py):
    //  - ordered expansion: the untried move of highest heuristic score is expanded first (ties
    //    at random) instead of a uniformly random one;
    //  - progressive widening: a node gets a new child only while its children legal in this
    //    determinization number fewer than widen_base + widen_coef * visits^widen_exponent
    //    (widen_base <= 0: no widening; 2, 1, 0.4 is the tested setting);
    //  - progressive bias: UCB + prior_weight * h / (visits + 1), h the heuristic score mapped to
    //    [0, 1] over the node's legal moves (log scale; 0.5 tested).
    bool ordered_expansion = false;
    double widen_base = 0.0;
    double widen_coef = 1.0;
    double widen_exponent = 0.4;
    double prior_weight = 0.0;
    HeuristicWeights heuristic;
    // Playouts by greedy_move() (playout.hpp): the heuristic's best move, a random legal move with
    // probability playout_epsilon. Takes precedence over informed_playouts. About 5x slower.
    bool greedy_playouts = false;
    double playout_epsilon = 0.3;
    bool cheat = false;            // TEST ONLY: search the true state (no determinization)
    const std::atomic<bool>* stop = nullptr;  // polled; when raised the search returns early
};

struct MoveStats {
    MoveId move = 0;
    std::uint64_t visits = 0;
    double value = 0;  // mean reward for the root player's team in [0, 1] (1 win, 0 loss, 1/teams draw)
};

struct SearchResult {
    MoveId best = 0;                // most visits, ties: lowest id
    std::vector<MoveStats> moves;   // root children, visits descending (ties: id ascending)
    std::uint64_t iterations = 0;
    double seconds = 0;
    std::uint64_t nodes = 0;        // tree nodes used, all trees
    bool interrupted = false;       // the stop flag ended the search
};

// Bytes of one tree node.
std::size_t search_node_bytes();

// Searches for the current player of `root` (requires !is_over(root)). Only observe(root, player)
// is read unless options.cheat. Deterministic for a given seed, iteration budget and thread count
// (with no time limit).
SearchResult ismcts(const GameState& root, const SearchOptions& options);

}  // namespace sequence
