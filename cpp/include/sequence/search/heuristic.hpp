// A one-ply move heuristic for the search: the C++ port of GreedyAgent's move scoring
// (python/sequence_game/agents/greedy.py, _Context.score), used as the tree's prior (expansion order,
// progressive widening and bias) and as the playout policy. Reads only the board and the
// sequences (public information, R9) plus the move itself.
//
// Scores, from the mover's view (the weights are GreedyAgent's):
//   - a placement declaring sequences: win (R8) 1e9, else 1e6 per sequence;
//   - per five-cell window through the placed cell: extend[held] for an own open window (no other
//     team's chip, sharing at most one cell with each own sequence, R7), and for an opponent's open
//     window holding k cells block[k] (k < 4) or the threat value (k = 4: 1e7 if that sequence
//     would win them the game, else 2e4);
//   - a removal (one-eyed jack): the same block values for the owner's windows through the chip,
//     plus reopen * extend[held] for own windows that only this chip was spoiling, minus 50;
//   - a two-eyed jack costs 70; a trade scores 1e3 (GreedyAgent always trades first); a pass 0.
#pragma once

#include <cstdint>

#include "sequence/board.hpp"
#include "sequence/isa.hpp"
#include "sequence/move.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

struct HeuristicWeights {
    double extend[kWindowLength] = {1.0, 4.0, 16.0, 80.0, 80.0};
    double block[kWindowLength - 1] = {0.0, 1.0, 5.0, 40.0};
    double win = 1e9;
    double block_win = 1e7;
    double sequence = 1e6;
    double block_sequence = 2e4;
    double two_eyed_cost = 70.0;
    double one_eyed_cost = 50.0;
    double reopen = 0.5;
    double trade = 1e3;
};

// The per-cell values of one position for its current player: place[cell] for a chip of the
// mover's team on an empty cell (declares and jack costs aside), remove[cell] for removing the chip
// on cell (another team's; the one-eyed cost aside). One pass over the 192 windows.
struct MoveScorer {
    double place[kCells];
    double remove[kCells];
    int team = 0;
    int need = 0;      // sequences the mover's team still needs to win (R8)
    const HeuristicWeights* w = nullptr;

    MoveScorer() = default;
    MoveScorer(const GameState& s, const HeuristicWeights& weights) { build(s, weights); }
    void build(const GameState& s, const HeuristicWeights& weights);

    // The score of a legal move of the current player.
    double score(MoveId id) const;
    // The score of a placement of card on cell declaring `declared` sequences.
    double place_score(int card, int cell, int declared) const;
};

// The number of sequences a declares code names (R7: 0, 1 per direction, 2 for kDeclarePair).
inline int declared_count(MoveId id) {
    const int declares = static_cast<int>(id >> 15);
    int n = 0;
    for (int d = 0; d < kDirections; ++d) {
        const int code = (declares >> (kDeclareBits * d)) & 7;
        n += code == kDeclarePair ? 2 : code != 0;
    }
    return n;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence

// ------------------------------------------------------------------ implementation (inline: hot path)

namespace sequence {
inline namespace SEQUENCE_ISA {

inline void MoveScorer::build(const GameState& s, const HeuristicWeights& wt) {
    w = &wt;
    const int teams = s.config.teams;
    const int me = team_of(s, s.current_player);
    team = me;
    int seqs[kMaxTeams] = {0, 0, 0};
    for (int i = 0; i < s.sequence_count; ++i) ++seqs[s.sequences[i].team];
    need = s.config.sequences_to_win - seqs[me];
    double threat[kMaxTeams];
    for (int t = 0; t < teams; ++t)
        threat[t] = seqs[t] + 1 >= s.config.sequences_to_win ? wt.block_win : wt.block_sequence;
    for (int c = 0; c < kCells; ++c) place[c] = remove[c] = 0.0;
    const Bitboard empty = empty_cells(s);
    const Bitboard corner = corners();
    // R7: a window sharing two cells with one of a team's sequences can never be a new sequence of it.
    const auto usable = [&](int t, const Bitboard& m) {
        for (int i = 0; i < s.sequence_count; ++i)
            if (s.sequences[i].team == t && (m & window_mask(s.sequences[i].window)).count() > 1) return false;
        return true;
    };
    for (int win = 0; win < kWindowCount; ++win) {
        const Bitboard m = window_mask(win);
        int n[kMaxTeams] = {0, 0, 0};
        int total = 0;
        for (int t = 0; t < teams; ++t) total += n[t] = (m & s.chips[t]).count();
        const int c = (m & corner).count();
        // A chip of ours on an empty cell of the window.
        double pv = 0.0;
        if (total == n[me] && usable(me, m)) pv += wt.extend[n[me] + c < 4 ? n[me] + c : 4];
        for (int o = 0; o < teams; ++o) {
            if (o == me || n[o] == 0 || total != n[o] || !usable(o, m)) continue;
            const int k = n[o] + c;
            pv += k >= 4 ? threat[o] : wt.block[k];
        }
        if (pv != 0.0)
            for (int cell : m & empty) place[cell] += pv;
        // Removing a chip of another team o from the window.
        for (int o = 0; o < teams; ++o) {
            if (o == me || n[o] == 0) continue;
            double rv = 0.0;
            if (total == n[o] && usable(o, m)) {
                const int k = n[o] + c;
                rv += k >= 4 ? threat[o] : wt.block[k];
            }
            if (total - n[me] == 1 && usable(me, m)) rv += wt.reopen * wt.extend[n[me] + c < 3 ? n[me] + c : 3];
            if (rv != 0.0)
                for (int cell : m & s.chips[o]) remove[cell] += rv;
        }
    }
}

inline double MoveScorer::place_score(int card, int cell, int declared) const {
    double v = place[cell];
    if (declared > 0) v += declared >= need ? w->win : w->sequence * declared;
    if (is_two_eyed_jack(card)) v -= w->two_eyed_cost;
    return v;
}

inline double MoveScorer::score(MoveId id) const {
    const Move m = Move::from_id(id);
    switch (m.kind) {
        case MoveKind::Trade: return w->trade;
        case MoveKind::Pass: return 0.0;
        case MoveKind::Remove: return remove[m.cell] - w->one_eyed_cost;
        case MoveKind::Place: break;
    }
    return place_score(m.card, m.cell, declared_count(id));
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
