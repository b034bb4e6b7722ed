#include "sequence/search/features.hpp"

#include <cmath>

#include "sequence/board.hpp"
#include "sequence/search/evaluate.hpp"
#include "sequence/window_lanes.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

namespace {

constexpr const char* kFeatureNames[kEvalFeatures] = {
    "sequences",     "open1",          "open2",         "open3",
    "open4",         "threats",        "multi_threat",  "shared_windows",
    "threats_in_hand", "can_complete", "complete_on_move", "threat_copies_unseen",
    "two_eyed",      "one_eyed",       "dead_cards",    "removable",
    "to_move",
};

// The union of cell i of the windows in w over i = 0..4: every cell of those windows.
inline Bitboard cells_of_windows(const WindowLanes& w) {
    Bitboard b;
    for (int i = 0; i < kWindowLength; ++i) b |= window_cell_board(w, i);
    return b;
}

}  // namespace

const char* eval_feature_name(int i) { return i >= 0 && i < kEvalFeatures ? kFeatureNames[i] : ""; }

void eval_features(const GameState& s, float out[kMaxTeams][kEvalFeatures]) {
    const int teams = s.config.teams;
    Bitboard seq_cells[kMaxTeams];  // the cells of each team's sequences, corners included
    int seqs[kMaxTeams] = {0, 0, 0};
    for (int i = 0; i < s.sequence_count; ++i) {
        const int t = s.sequences[i].team;
        seq_cells[t] |= window_mask(s.sequences[i].window);
        ++seqs[t];
    }
    // Public card counting (R9): copies of each card in the discard log.
    std::uint8_t discarded[kCardKinds] = {};
    for (int i = 0; i < s.discard_size; ++i) ++discarded[discard_card(s, i)];
    // The team's hands: copies of each card (as 2-bit counts in two masks), jacks, dead cards.
    std::uint64_t held_once[kMaxTeams] = {0, 0, 0}, held_twice[kMaxTeams] = {0, 0, 0};
    int two_eyed[kMaxTeams] = {0, 0, 0}, one_eyed[kMaxTeams] = {0, 0, 0}, dead[kMaxTeams] = {0, 0, 0};
    const Bitboard occ = occupied(s);
    for (int p = 0; p < s.config.players; ++p) {
        const int t = team_of(s, p);
        for (int i = 0; i < s.hand_count[p]; ++i) {
            const int card = s.hands[p][i];
            if (is_two_eyed_jack(card)) ++two_eyed[t];
            else if (is_one_eyed_jack(card)) ++one_eyed[t];
            else if ((card_cells(card) & ~occ).none()) ++dead[t];  // R5: a dead card
            const std::uint64_t bit = std::uint64_t{1} << card;
            held_twice[t] |= held_once[t] & bit;
            held_once[t] |= bit;
        }
    }
    const int mover = team_of(s, s.current_player);
    for (int t = 0; t < teams; ++t) {
        float* f = out[t];
        WindowLanes own[kWindowLength], other[kWindowLength];
        window_cells(s.chips[t] | corners(), own);
        window_cells(occ & ~s.chips[t], other);
        WindowLanes open = kWindowStarts & ~(other[0] | other[1] | other[2] | other[3] | other[4]);
        WindowLanes shares_one = {};  // windows sharing exactly one cell with a team sequence
        if (seqs[t] > 0) {
            WindowLanes shared[kWindowLength];
            window_cells(seq_cells[t], shared);
            const WindowCounts n = count_window_cells(shared);
            open = open & ~(n.twos | n.fours);  // R7: at most one shared cell
            shares_one = n.ones;
        }
        const WindowCounts held = count_window_cells(own);
        f[kFeatSequences] = static_cast<float>(seqs[t]);
        for (int k = 1; k < kWindowLength; ++k)
            f[kFeatOpen1 + k - 1] = static_cast<float>((open & held.equal(k)).count());
        const WindowLanes four = open & held.equal(kWindowLength - 1);
        const WindowLanes three_or_four = (open & held.equal(kWindowLength - 2)) | four;
        f[kFeatSharedWindows] = static_cast<float>((three_or_four & shares_one).count());
        Bitboard threats;
        for (int i = 0; i < kWindowLength; ++i) threats |= window_cell_board(four & ~own[i], i);
        const int n_threats = threats.count();
        f[kFeatThreats] = static_cast<float>(n_threats);
        f[kFeatMultiThreat] = static_cast<float>(n_threats > 1 ? n_threats - 1 : 0);
        int in_hand = 0, unseen = 0;
        for (const int cell : threats) {
            const int card = card_at(cell);
            const std::uint64_t bit = std::uint64_t{1} << card;
            const int mine = ((held_once[t] & bit) != 0) + ((held_twice[t] & bit) != 0);
            in_hand += mine > 0;
            unseen += kCopiesPerCard - discarded[card] - mine;
        }
        f[kFeatThreatsInHand] = static_cast<float>(in_hand);
        f[kFeatThreatCopiesUnseen] = static_cast<float>(unseen);
        const bool can_complete = in_hand > 0 || (n_threats > 0 && two_eyed[t] > 0);
        f[kFeatCanComplete] = can_complete ? 1.0f : 0.0f;
        f[kFeatToMove] = t == mover ? 1.0f : 0.0f;
        f[kFeatCompleteOnMove] = can_complete && t == mover ? 1.0f : 0.0f;
        f[kFeatTwoEyed] = static_cast<float>(two_eyed[t]);
        f[kFeatOneEyed] = static_cast<float>(one_eyed[t]);
        f[kFeatDeadCards] = static_cast<float>(dead[t]);
        const Bitboard exposed = s.chips[t] & ~s.locked;  // R5, R7: what a one-eyed jack may take
        f[kFeatRemovable] = exposed.none() || three_or_four.count() == 0
                                ? 0.0f
                                : static_cast<float>((cells_of_windows(three_or_four) & exposed).count());
    }
}

void learned_rewards(const GameState& s, const LearnedWeights& w, float out[kMaxTeams]) {
    if (terminal_rewards(s, out)) return;
    const int teams = s.config.teams;
    float f[kMaxTeams][kEvalFeatures];
    eval_features(s, f);
    float sc[kMaxTeams];
    for (int t = 0; t < teams; ++t) {
        float acc = 0.0f;
        for (int i = 0; i < kEvalFeatures; ++i) acc += w.weight[i] * f[t][i];
        sc[t] = acc;
    }
    softmax_rewards(teams, sc, 1.0f, out);  // the model's scores are already in logits
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
