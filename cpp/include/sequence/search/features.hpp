// The features of a position for the learned evaluation, per team, and the linear model over them
// (a logistic regression fitted on self-play positions: python/sequence_game/training/). Each
// team's row reads only public information (the board, the sequences, the discard log, whose turn
// it is) and the hands of that team's own players: never another team's hand or the draw pile
// (R9). In the search the state is a determinized world, whose other hands are a sample of the
// unseen cards (ismcts.hpp); for training the extractor reads the real state of a finished
// self-play game's positions, and the label is that game's result.
//
// The board features are bit-parallel over all 192 windows (window_lanes.hpp), like the hand-set
// evaluation's (evaluate.hpp); the card features loop over the (at most 7) cards of a hand and the
// handful of threat cells. No allocation, no I/O: the search calls this at every playout leaf.
#pragma once

#include <cstdint>

#include "sequence/isa.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// The per-team features, in the order of the feature vector (eval_feature_name() gives the names
// the weights file uses). "Open" window: no chip of another team and not sharing two cells with
// one of the team's sequences (R7: it can still become a new sequence of the team); it holds k of
// its five cells (the team's chips and corners).
enum EvalFeature : int {
    kFeatSequences = 0,   // completed sequences (R7, R8)
    kFeatOpen1,           // open windows holding 1 cell
    kFeatOpen2,           // ... 2 cells
    kFeatOpen3,           // ... 3 cells
    kFeatOpen4,           // ... 4 cells (windows, not cells: see kFeatThreats)
    kFeatThreats,         // distinct empty cells that complete an open window holding 4
    kFeatMultiThreat,     // max(threats - 1, 0): more threats than one block can answer
    kFeatSharedWindows,   // open windows holding 3 or 4 that share one cell with a team sequence (R7)
    kFeatThreatsInHand,   // distinct threat cells whose card a player of the team holds
    kFeatCanComplete,     // 1 if the team can complete a sequence from its hands (a threat card or a two-eyed jack)
    kFeatCompleteOnMove,  // kFeatCanComplete and a player of the team is to move
    kFeatThreatCopiesUnseen,  // per threat cell: copies of its card neither discarded nor in the team's hands
    kFeatTwoEyed,         // two-eyed jacks in the team's hands (R5: wild placement)
    kFeatOneEyed,         // one-eyed jacks in the team's hands (R5: removal)
    kFeatDeadCards,       // dead cards in the team's hands (both cells taken, R5: trade them)
    kFeatRemovable,       // the team's chips another team may remove (not locked, R5, R7) inside its open windows holding 3 or 4
    kFeatToMove,          // 1 if a player of the team is to move (tempo)
    kEvalFeatures
};

// The name of feature i (0 <= i < kEvalFeatures), as the weights file spells it.
const char* eval_feature_name(int i);

// The features of every team of s: out[t][i] for t < s.config.teams (the other rows untouched).
void eval_features(const GameState& s, float out[kMaxTeams][kEvalFeatures]);

// The learned model: a linear score per team, score_t = sum_i weight[i] * feature[t][i]; the
// reward of team t is the softmax of the scores (for two teams: the logistic of the difference,
// which is what the fit estimates: P(team 0 wins) = sigma(score_0 - score_1)).
struct LearnedWeights {
    float weight[kEvalFeatures] = {};  // all zero: every unfinished position is even (1 / teams each)
};

// Rewards in [0, 1] per team summing to 1 (out[t] for t < teams): exact for a finished game (1 for
// the winner, 1 / teams each for a draw), else the model's softmax over the teams' scores.
void learned_rewards(const GameState& s, const LearnedWeights& w, float out[kMaxTeams]);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
