// A cheap static evaluation of a position for the search: per team, the completed sequences (R7)
// and the open five-cell windows (no chip of another team) weighted by how many of their cells the
// team already holds (chips and corners), turned into a reward in [0, 1] per team. Reads only the
// board and the sequences (public information, R9): never a hand or the draw pile.
#pragma once

#include <cmath>
#include <cstdint>

#include "sequence/board.hpp"
#include "sequence/state.hpp"

namespace sequence {

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

namespace detail {
struct WindowTable {
    std::uint64_t lo[kWindowCount];
    std::uint64_t hi[kWindowCount];
    std::uint8_t corners[kWindowCount];  // corner cells in the window (0 or 1)
};
constexpr WindowTable build_window_table() {
    WindowTable t{};
    for (int w = 0; w < kWindowCount; ++w) {
        t.lo[w] = window_mask(w).lo();
        t.hi[w] = window_mask(w).hi();
        int c = 0;
        for (int k = 0; k < kWindowLength; ++k) c += is_corner(window_cell(w, k));
        t.corners[w] = static_cast<std::uint8_t>(c);
    }
    return t;
}
inline constexpr WindowTable kWindowTable = build_window_table();
inline int pop2(std::uint64_t a, std::uint64_t b) { return __builtin_popcountll(a) + __builtin_popcountll(b); }
}  // namespace detail

// Static score of every team (out[t] for t < teams): sequences * weights.sequence plus the open
// window weights. A few hundred instructions: one pass over the 192 windows.
inline void team_scores(const GameState& s, const EvalWeights& wt, float out[kMaxTeams]) {
    using detail::kWindowTable;
    using detail::pop2;
    const int teams = s.config.teams;
    // R7: a window sharing two or more cells with one of the team's sequences can never become a
    // new sequence of that team (the cells of each team's sequences, corners included).
    Bitboard seq_cells[kMaxTeams];
    bool has_seq[kMaxTeams] = {false, false, false};
    int seqs[kMaxTeams] = {0, 0, 0};
    for (int i = 0; i < s.sequence_count; ++i) {
        const int t = s.sequences[i].team;
        seq_cells[t] |= window_mask(s.sequences[i].window);
        has_seq[t] = true;
        ++seqs[t];
    }
    float acc[kMaxTeams] = {0.0f, 0.0f, 0.0f};
    Bitboard threats[kMaxTeams];
    const auto open_window = [&](int t, int w, int held) {
        if (has_seq[t] && pop2(kWindowTable.lo[w] & seq_cells[t].lo(), kWindowTable.hi[w] & seq_cells[t].hi()) > 1) return;
        if (held < kWindowLength - 1) acc[t] += wt.window[held];
        else if (held == kWindowLength - 1) threats[t] |= window_mask(w) & ~(s.chips[t] | corners());
    };
    if (teams == 2) {
        const std::uint64_t a_lo = s.chips[0].lo(), a_hi = s.chips[0].hi();
        const std::uint64_t b_lo = s.chips[1].lo(), b_hi = s.chips[1].hi();
        for (int w = 0; w < kWindowCount; ++w) {
            const std::uint64_t m_lo = kWindowTable.lo[w], m_hi = kWindowTable.hi[w];
            const int a = pop2(m_lo & a_lo, m_hi & a_hi);
            const int b = pop2(m_lo & b_lo, m_hi & b_hi);
            if (a != 0 && b != 0) continue;
            const int c = kWindowTable.corners[w];
            if (b == 0 && a + c > 0) open_window(0, w, a + c);
            if (a == 0 && b + c > 0) open_window(1, w, b + c);
        }
    } else {
        for (int w = 0; w < kWindowCount; ++w) {
            const std::uint64_t m_lo = kWindowTable.lo[w], m_hi = kWindowTable.hi[w];
            int n[kMaxTeams];
            int holders = 0;
            for (int t = 0; t < teams; ++t) {
                n[t] = pop2(m_lo & s.chips[t].lo(), m_hi & s.chips[t].hi());
                holders += n[t] != 0;
            }
            if (holders > 1) continue;
            const int c = kWindowTable.corners[w];
            for (int t = 0; t < teams; ++t) {
                if (n[t] + c == 0 || (holders == 1 && n[t] == 0)) continue;
                open_window(t, w, n[t] + c);
            }
        }
    }
    for (int t = 0; t < teams; ++t) acc[t] += wt.window[kWindowLength - 1] * static_cast<float>(threats[t].count());
    if (wt.two_eyed != 0.0f || wt.one_eyed != 0.0f)
        for (int p = 0; p < s.config.players; ++p) {
            const int t = team_of(s, p);
            for (int i = 0; i < s.hand_count[p]; ++i) {
                const int card = s.hands[p][i];
                if (is_two_eyed_jack(card)) acc[t] += wt.two_eyed;
                else if (is_one_eyed_jack(card)) acc[t] += wt.one_eyed;
            }
        }
    for (int t = 0; t < teams; ++t) out[t] = acc[t] + wt.sequence * static_cast<float>(seqs[t]);
}

// Rewards in [0, 1] per team summing to 1 (out[t] for t < teams). A finished game scores exactly
// (1 for the winner, 1/teams each for a draw); otherwise the scores of team_scores() go through a
// softmax with temperature weights.scale (for two teams: the logistic of the score difference).
inline void evaluate_rewards(const GameState& s, const EvalWeights& wt, float out[kMaxTeams]) {
    const int teams = s.config.teams;
    if (s.winner >= 0) {
        for (int t = 0; t < teams; ++t) out[t] = t == s.winner ? 1.0f : 0.0f;
        return;
    }
    if (s.is_draw) {
        for (int t = 0; t < teams; ++t) out[t] = 1.0f / static_cast<float>(teams);
        return;
    }
    float sc[kMaxTeams];
    team_scores(s, wt, sc);
    const float inv = 1.0f / wt.scale;
    if (teams == 2) {
        const float r = 1.0f / (1.0f + std::exp((sc[1] - sc[0]) * inv));
        out[0] = r;
        out[1] = 1.0f - r;
        return;
    }
    float hi = sc[0];
    for (int t = 1; t < teams; ++t) hi = sc[t] > hi ? sc[t] : hi;
    float sum = 0.0f;
    for (int t = 0; t < teams; ++t) sum += out[t] = std::exp((sc[t] - hi) * inv);
    for (int t = 0; t < teams; ++t) out[t] /= sum;
}

}  // namespace sequence
