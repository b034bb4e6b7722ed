// The network-guided information-set search (docs/research/learned-player.md): ISMCTS with
// determinization (ismcts.hpp: observe(), determinize()) where the policy-value network (net.hpp)
// gives PUCT priors and the values at the leaves, in place of random expansion, playouts and the
// static evaluation.
//
// Each iteration deals one world consistent with the searching seat's observation (R9), walks the
// tree choosing among the children legal in that world by
//     Q + c_puct * P * sqrt(avail) / (1 + N)
// (availability-corrected, as ISMCTS's UCB: avail counts the iterations in which the child was
// legal), and stops at the first node where a legal move of this world has no child yet: there
// the network is evaluated once, from the observation of the seat to move in that world (never
// from anything that seat cannot see), its policy over this world's legal actions becomes the
// priors of the missing children and its value, per team, the iteration's reward. A finished game
// scores exactly (1 win, 0 loss, 1/teams draw). Unvisited children take their parent's network
// value as Q (first-play urgency). A move that wins at once (R8) is the only one considered.
// With mix > 0 the leaf value blends in mcts's playout-and-evaluation value (NetSearchOptions).
#pragma once

#include <cstdint>

#include "sequence/isa.hpp"
#include "sequence/net.hpp"
#include "sequence/observation.hpp"
#include "sequence/rules.hpp"
#include "sequence/search/ismcts.hpp"
#include "sequence/search/options.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// The caller's limits (SearchLimits, options.hpp: the budget, 800 iterations by default, the seed
// and the stop flag; one thread) and the net search's own settings.
struct NetSearchOptions : SearchLimits {
    NetSearchOptions() { iterations = 800; }
    double c_puct = 1.5;
    std::uint64_t max_nodes = 1u << 21;  // once full, iterations stop growing the tree
    bool decisive = true;                // a move that wins at once is the only one considered (decisive.hpp)
    // The leaf value's share from a short informed playout scored by the hand-set static
    // evaluation (playout.hpp, evaluate.hpp: mcts's leaf), the rest from the network (AlphaGo's
    // mixing lambda): 0 = the network alone, 1 = the playout alone (the measured best: the
    // network's policy as priors, docs/research/learned-player.md).
    double mix = 1.0;
    int playout_turns = 6;  // with mix > 0; extended to end where the root seat is to move
};

// Throws std::invalid_argument naming the first option out of its bounds and the bounds
// (check_limits() first; threads must be 1).
void check_options(const NetSearchOptions& o);

// Searches for the current player of root (requires !is_over(root)); reads only
// observe(root, root.current_player). One thread; deterministic for a seed and iteration budget.
SearchResult net_search(const GameState& root, const Net& net, const NetSearchOptions& options);

// The network's move probabilities for the player to move of s, from its observation only:
// moves[i] (the legal moves, as legal_moves() orders them) gets probs[i]; moves that share their
// first action (R7 declares choices) share its probability equally. value[t] is the win
// probability of absolute team t. Returns the number of moves.
int net_policy(const GameState& s, const Net& net, NetWorkspace& ws, MoveId* moves, float* probs, int capacity,
               float value[kMaxTeams]);

// net_policy()'s working memory: one per thread, kept and reused, so that a caller evaluating
// many positions (VectorGame's network seats) allocates nothing per call.
struct NetPolicyScratch {
    MoveList legal;
    float obs[kObservationSize];
    int actions[kMoveListCapacity];
    int action_of[kMoveListCapacity];  // index of each move's action in actions
    int share[kMoveListCapacity];
    float logits[kMoveListCapacity];
};
// The same, with the caller's scratch: no allocation.
int net_policy(const GameState& s, const Net& net, NetWorkspace& ws, NetPolicyScratch& scratch, MoveId* moves,
               float* probs, int capacity, float value[kMaxTeams]);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
