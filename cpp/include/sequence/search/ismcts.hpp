// Information-set Monte Carlo tree search (single-observer ISMCTS with determinization: Cowling,
// Powley & Whitehouse, "Information Set Monte Carlo Tree Search", IEEE TCIAIG 2012).
//
// The searching player P sees only what R9 makes public plus its own hand. The search reads the
// game exclusively through an Observation built once at the root (observe()), which holds only
// that information; every iteration deals the unseen cards at random (determinize()), walks one
// tree of move ids with availability-corrected UCB, finishes with a short playout (informed_move(),
// playout.hpp) scored by a static evaluation (evaluate.hpp) and backpropagates the reward per team.
// Optionally (SearchOptions in options.hpp, off by default) the move heuristic of heuristic.hpp (GreedyAgent's
// one-ply scoring) guides the tree (ordered expansion, progressive widening and bias) and the
// playouts (greedy_move(), greedy_playout.hpp).
//
// The iteration is OpenSpiel's is_mcts.cc shape: select (UCB among the children legal in this
// world) until a node has an untried legal move, expand one child there, play out, backpropagate.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "sequence/isa.hpp"
#include "sequence/move.hpp"
#include "sequence/rng.hpp"
#include "sequence/search/options.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

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
// The pieces of determinize(), for samplers that choose the hands another way (inference.hpp):
// the unseen cards into out, ascending, returning how many; and a world dealt from cards[0 .. n)
// in order: the other players' hands (seat order, observed sizes, sorted), then the draw pile
// (bottom first), then the generator state from rng.
int unseen_cards(const Observation& obs, Card out[kDeckSize]);
GameState deal_world(const Observation& obs, const Card* cards, int n, SplitMix64& rng);
// determinize(observe(observed, player), rng).
GameState determinize(const GameState& observed, int player, SplitMix64& rng);

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

struct PublicChange;  // inference.hpp

// Searches for the current player of `root` (requires !is_over(root)). Only observe(root, player)
// is read unless `peek` (a test hook, options.hpp), and `history` (public_history() of the game for that player, oldest
// first, ending at root; may be null) only with options.inference (inference.hpp). Deterministic for a given seed, iteration budget and thread count
// (with no time limit). Throws std::invalid_argument for options that check_options() refuses,
// std::bad_alloc when a tree cannot grow, ThreadStartError (parallel.hpp) when a thread cannot be
// started; the other threads are stopped and joined first.
SearchResult ismcts(const GameState& root, const SearchOptions& options,
                    const std::vector<PublicChange>* history = nullptr, Peek peek = Peek::None);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
