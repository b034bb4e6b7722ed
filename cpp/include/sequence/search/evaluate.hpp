// A cheap static evaluation of a position for the search: per team, the completed sequences (R7)
// and the open five-cell windows (no chip of another team) weighted by how many of their cells the
// team already holds (chips and corners), turned into a reward in [0, 1] per team. Reads only the
// board and the sequences (public information, R9): never a hand or the draw pile.
#pragma once

#include <cmath>
#include <cstdint>

#include "sequence/board.hpp"
#include "sequence/isa.hpp"
#include "sequence/state.hpp"
#include "sequence/window_lanes.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

struct EvalWeights {
    // An open window of the team (no other team's chip, and not sharing two cells with one of the
    // team's sequences, R7) holding k = 1..3 of its five cells: window[k]. window[0] is unused.
    // window[4] is the value of each distinct *threat*: an empty cell that completes an open
    // window holding four (several windows with the same gap are one threat).
    float window[kWindowLength] = {0.0f, 1.0f, 4.0f, 15.0f, 50.0f};
    float sequence = 150.0f;  // each completed sequence
    // Jacks in the hands of a team's players (in a search: a determinized world, where the other
    // hands are a sample of the unseen cards). Makes the search keep its jacks for good use.
    float two_eyed = 30.0f;
    float one_eyed = 20.0f;
    float scale = 80.0f;      // logistic temperature: reward = sigma((own - other) / scale); large enough
                              // that a sequence ahead does not saturate the reward (sigma(150/80) = 0.87)
};

// Static score of every team (out[t] for t < teams): sequences * weights.sequence plus the open
// window weights. Bit-parallel over all 192 windows (window_lanes.hpp): per team, the windows with
// no other team's chip are counted by how many of their cells the team holds (bit-sliced), and
// R7's rule (a window sharing two cells with one of the team's sequences can never be a new
// sequence of that team) masks windows out the same way.
inline void team_scores(const GameState& s, const EvalWeights& wt, float out[kMaxTeams]) {
    const int teams = s.config.teams;
    Bitboard seq_cells[kMaxTeams];  // the cells of each team's sequences, corners included
    int seqs[kMaxTeams] = {0, 0, 0};
    for (int i = 0; i < s.sequence_count; ++i) {
        const int t = s.sequences[i].team;
        seq_cells[t] |= window_mask(s.sequences[i].window);
        ++seqs[t];
    }
    const Bitboard occ = occupied(s);
    for (int t = 0; t < teams; ++t) {
        WindowLanes own[kWindowLength], other[kWindowLength];
        window_cells(s.chips[t] | corners(), own);
        window_cells(occ & ~s.chips[t], other);
        WindowLanes open = kWindowStarts & ~(other[0] | other[1] | other[2] | other[3] | other[4]);
        if (seqs[t] > 0) {
            WindowLanes shared[kWindowLength];
            window_cells(seq_cells[t], shared);
            const WindowCounts n = count_window_cells(shared);
            open = open & ~(n.twos | n.fours);  // at most one shared cell
        }
        const WindowCounts held = count_window_cells(own);
        float acc = wt.sequence * static_cast<float>(seqs[t]);
        for (int k = 1; k < kWindowLength - 1; ++k) acc += wt.window[k] * static_cast<float>((open & held.equal(k)).count());
        // Threats: the distinct empty cells that complete an open window holding four.
        const WindowLanes four = open & held.equal(kWindowLength - 1);
        Bitboard threats;
        for (int i = 0; i < kWindowLength; ++i) threats |= window_cell_board(four & ~own[i], i);
        acc += wt.window[kWindowLength - 1] * static_cast<float>(threats.count());
        out[t] = acc;
    }
    if (wt.two_eyed != 0.0f || wt.one_eyed != 0.0f)
        for (int p = 0; p < s.config.players; ++p) {
            const int t = team_of(s, p);
            for (int i = 0; i < s.hand_count[p]; ++i) {
                const int card = s.hands[p][i];
                if (is_two_eyed_jack(card)) out[t] += wt.two_eyed;
                else if (is_one_eyed_jack(card)) out[t] += wt.one_eyed;
            }
        }
}

// The exact rewards of a finished game (1 for the winner, 1/teams each for a draw) into out[t] for
// t < teams; returns false, writing nothing, while the game goes on.
inline bool terminal_rewards(const GameState& s, float out[kMaxTeams]) {
    const int teams = s.config.teams;
    if (s.winner >= 0) {
        for (int t = 0; t < teams; ++t) out[t] = t == s.winner ? 1.0f : 0.0f;
        return true;
    }
    if (s.is_draw) {
        for (int t = 0; t < teams; ++t) out[t] = 1.0f / static_cast<float>(teams);
        return true;
    }
    return false;
}

// Rewards in [0, 1] per team summing to 1 from per-team scores: the softmax of score * inv_scale
// (for two teams: the logistic of the score difference). Shared by the hand-set evaluation below
// and the learned one (features.hpp).
inline void softmax_rewards(int teams, const float sc[kMaxTeams], float inv_scale, float out[kMaxTeams]) {
    if (teams == 2) {
        const float r = 1.0f / (1.0f + std::exp((sc[1] - sc[0]) * inv_scale));
        out[0] = r;
        out[1] = 1.0f - r;
        return;
    }
    float hi = sc[0];
    for (int t = 1; t < teams; ++t) hi = sc[t] > hi ? sc[t] : hi;
    float e[kMaxTeams];
    float sum = 0.0f;
    for (int t = 0; t < teams; ++t) sum += e[t] = std::exp((sc[t] - hi) * inv_scale);
    for (int t = 0; t < teams; ++t) out[t] = e[t] / sum;
}

// Rewards in [0, 1] per team summing to 1 (out[t] for t < teams). A finished game scores exactly
// (terminal_rewards()); otherwise the scores of team_scores() go through softmax_rewards() with
// temperature weights.scale.
inline void evaluate_rewards(const GameState& s, const EvalWeights& wt, float out[kMaxTeams]) {
    if (terminal_rewards(s, out)) return;
    float sc[kMaxTeams];
    team_scores(s, wt, sc);
    softmax_rewards(s.config.teams, sc, 1.0f / wt.scale, out);
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
