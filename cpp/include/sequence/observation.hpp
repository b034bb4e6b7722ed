// The observation tensor (docs/observation.md): what one player may see (R9), as kObservationSize
// floats in a fixed layout, written into a caller's buffer with no allocation, so that a batched
// game can fill one row per game.
//
// Team-relative: the observer's team comes first and the other teams follow in seat order from
// the observer (the team of the next seat to play, then the one after), and seats are numbered
// from the observer, so that one network can play any seat.
//
// Layout: kObservationPlanes planes of kCells cells (cell = 10 * row + col), then the features.
#pragma once

#include "sequence/actions.hpp"
#include "sequence/isa.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// Planes (1 or 0 per cell).
enum ObservationPlane : int {
    kPlaneOwnChips = 0,       // the observer's team's chips
    kPlaneNextTeamChips,      // the team of the next seat after the observer's team
    kPlaneThirdTeamChips,     // the third team (0 with two teams)
    kPlaneLocked,             // chips of completed sequences (R7: never removable)
    kPlaneCorners,            // the four corners (R1: count for every team)
    kPlanePendingCell,        // the cell of a placement whose sequences are being chosen (actions.hpp)
    kPlanePendingDeclared,    // the cells of the sequences that pending placement has declared so far
    kObservationPlanes,
};

// Features after the planes: offsets and sizes.
constexpr int kObsHand = kObservationPlanes * kCells;         // 52: copies of each card in the observer's hand
constexpr int kObsDiscards = kObsHand + kCardKinds;           // 52: copies of each card in all discard piles (public)
constexpr int kObsHandSizes = kObsDiscards + kCardKinds;      // 12: cards in hand, seat observer + k (0 past the players)
constexpr int kObsDrawPile = kObsHandSizes + kMaxPlayers;     // 1: cards in the draw pile
constexpr int kObsSequences = kObsDrawPile + 1;               // 3: sequences per team, observer's team first
constexpr int kObsTradedThisTurn = kObsSequences + kMaxTeams; // 1: the player to move already traded (R5)
constexpr int kObsTurn = kObsTradedThisTurn + 1;              // 1: completed turns
constexpr int kObsMaxTurns = kObsTurn + 1;                    // 1: the turn cap, 0 = none
constexpr int kObsToMove = kObsMaxTurns + 1;                  // 12: one-hot seat to move, from the observer (0 when over)
constexpr int kObsPlayers = kObsToMove + kMaxPlayers;         // 1: number of players
constexpr int kObsTeams = kObsPlayers + 1;                    // 1: number of teams
constexpr int kObsPasses = kObsTeams + 1;                     // 1: consecutive passes toward a stalemate (R5)
constexpr int kObsPendingCard = kObsPasses + 1;               // 52: one-hot card of the pending placement
constexpr int kObservationSize = kObsPendingCard + kCardKinds;

static_assert(kObservationSize == 890, "update docs/observation.md with the layout");

// Writes the observation of seat observer (0 <= observer < players) into out[0 .. kObservationSize).
// Reads only what observer may see (R9): the board, sequences, discard piles, counts, and
// observer's own hand; never another hand, the draw pile's order or the generator.
void write_observation(const GameState& s, const PendingPlacement& pending, int observer, float* out);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
