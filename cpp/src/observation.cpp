#include "sequence/observation.hpp"

#include <algorithm>
#include <cassert>

namespace sequence {

namespace {

void write_plane(float* plane, Bitboard cells) {
    for (int cell : cells) plane[cell] = 1.0f;
}

}  // namespace

void write_observation(const GameState& s, const PendingPlacement& pending, int observer, float* out) {
    const int players = s.config.players, teams = s.config.teams;
    assert(observer >= 0 && observer < players);
    std::fill(out, out + kObservationSize, 0.0f);
    const int team = team_of(s, observer);

    // Team-relative chips: relative team k is team (team + k) mod teams, the order seats play in.
    for (int k = 0; k < teams; ++k) write_plane(out + (kPlaneOwnChips + k) * kCells, s.chips[(team + k) % teams]);
    write_plane(out + kPlaneLocked * kCells, s.locked);
    write_plane(out + kPlaneCorners * kCells, corners());
    if (pending.active()) {
        const Move m = Move::from_id(pending.move);
        out[kPlanePendingCell * kCells + m.cell] = 1.0f;
        std::uint8_t windows[2 * kDirections];
        const int n = declared_windows(m.cell, m.declares, windows);
        for (int i = 0; i < n; ++i) write_plane(out + kPlanePendingDeclared * kCells, window_mask(windows[i]));
        out[kObsPendingCard + m.card] = 1.0f;
    }

    for (int i = 0; i < s.hand_count[observer]; ++i) out[kObsHand + s.hands[observer][i]] += 1.0f;
    for (int i = 0; i < s.discard_size; ++i) out[kObsDiscards + discard_card(s, i)] += 1.0f;  // R9: public
    for (int k = 0; k < players; ++k) out[kObsHandSizes + k] = s.hand_count[(observer + k) % players];
    out[kObsDrawPile] = s.draw_size;
    for (int i = 0; i < s.sequence_count; ++i)
        out[kObsSequences + (s.sequences[i].team - team + teams) % teams] += 1.0f;
    out[kObsTradedThisTurn] = s.traded_this_turn;
    out[kObsTurn] = static_cast<float>(s.turn);
    out[kObsMaxTurns] = static_cast<float>(s.max_turns);
    if (!is_over(s)) out[kObsToMove + (s.current_player - observer + players) % players] = 1.0f;
    out[kObsPlayers] = players;
    out[kObsTeams] = teams;
    out[kObsPasses] = s.passes;
}

}  // namespace sequence
