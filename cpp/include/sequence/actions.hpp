// The fixed action space (docs/action-space.md): every legal move as a short sequence of integer
// actions in 0 .. kActionCount-1, the same for every position and player count, so that a policy
// network has one output layer and a legal-action mask.
//
//   card * 100 + cell     (cell not a corner)  place card on cell; for a one-eyed jack, remove the chip
//   5200 + card                                trade the dead card (R5 step 1)
//   5252                                       pass (R5, no legal play)
//   card * 100 + corner   (card < 48)          declare window 4 * card + k (corner k in 0, 9, 90, 99)
//
// A placement that can declare its sequences in several ways (R7: which five of six to eight in a
// row) is a placement action followed by one declare action per direction with a choice (east,
// south, south-east, south-west order), all by the same player. Until the last of them the game is
// unchanged; the pending placement is the action layer's state (PendingPlacement), kept beside the
// GameState so that the rules core and its hot paths stay move-based.
//
// The corner slots are free for declares because no card is ever placed on or removed from a
// corner (R5): 48 cards x 4 corners >= 192 windows.
#pragma once

#include <cstdint>

#include "sequence/board.hpp"
#include "sequence/isa.hpp"
#include "sequence/move.hpp"
#include "sequence/rules.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

constexpr int kCellActions = kCardKinds * kCells;         // 5200: card * 100 + cell
constexpr int kTradeActionBase = kCellActions;            // 5200 + card
constexpr int kPassAction = kTradeActionBase + kCardKinds;  // 5252
constexpr int kActionCount = kPassAction + 1;             // 5253
constexpr int kCornerCount = 4;
constexpr int kCornerCells[kCornerCount] = {0, 9, 90, 99};

static_assert(kWindowCount <= kCornerCount * kCardKinds, "every window has a corner slot");

// The declare action of a window (0 .. kWindowCount-1): the corner slot 4 * card + k.
constexpr int declare_action(int window) {
    return (window / kCornerCount) * kCells + kCornerCells[window % kCornerCount];
}
// The window a declare action names, or -1 if action is not a declare action.
constexpr int window_of_action(int action) {
    if (action < 0 || action >= kCellActions) return -1;
    const int card = action / kCells, cell = action % kCells;
    for (int k = 0; k < kCornerCount; ++k)
        if (cell == kCornerCells[k]) {
            const int window = kCornerCount * card + k;
            return window < kWindowCount ? window : -1;
        }
    return -1;
}

// The action that starts a move: its cell action for a placement or removal (the declares of a
// placement are chosen by the declare actions that follow), its trade or pass action otherwise.
// Requires a well-formed move id (any legal move).
constexpr int action_of_move(MoveId id) {
    const Move m = Move::from_id(id);
    switch (m.kind) {
        case MoveKind::Trade: return kTradeActionBase + m.card;
        case MoveKind::Pass: return kPassAction;
        default: return m.card * kCells + m.cell;
    }
}

// A placement whose sequences (R7) the player is still choosing: the placement move id with the
// declares code of every direction decided so far (the directions without a choice are filled in
// at once, the others stay 0 until their declare action). The action layer's only state.
struct PendingPlacement {
    static constexpr MoveId kNone = ~MoveId{0};
    MoveId move = kNone;
    constexpr bool active() const { return move != kNone; }
};

// True if p is a state the actions can reach from s: nothing pending, or a legal placement of the
// current player with every direction without a choice filled in, the directions with a choice
// decided in order up to one still open (the check for a PendingPlacement from outside).
bool is_valid_pending(const GameState& s, const PendingPlacement& p);

// 64-bit words of a set of actions: bit a % 64 of word a / 64 (little-endian words, so that the
// bytes of the words are the bit-packed mask, bit a % 8 of byte a / 8).
constexpr int kActionWords = (kActionCount + 63) / 64;

// The legal actions as a bit set (bits past kActionCount are 0). The same set as
// legal_action_mask(), built from the hand's placement and removal boards (no move list: every
// placement on a cell is one cell action, whatever its declares choices). Nothing is legal once
// the game is over; with a pending placement, only its declare actions. If list is not null, the
// same actions are also written there ascending, the first `capacity` of them. No allocation.
// Returns the number of legal actions.
int legal_action_bits(const GameState& s, const PendingPlacement& p, std::uint64_t (&bits)[kActionWords],
                      std::int16_t* list = nullptr, int capacity = 0);

// mask[a] = bit a of bits (1 or 0) for the kActionCount actions: the byte mask of a bit set.
void action_bits_to_mask(const std::uint64_t (&bits)[kActionWords], std::uint8_t* mask);

// Sets mask[a] to 1 for every legal action and to 0 for the others (kActionCount bytes). Nothing
// is legal once the game is over. With a pending placement, only its declare actions are legal.
// No allocation. Returns the number of legal actions.
int legal_action_mask(const GameState& s, const PendingPlacement& p, std::uint8_t* mask);

// Writes the legal actions, ascending, to out (room for kActionCount); returns how many.
int legal_actions(const GameState& s, const PendingPlacement& p, int* out);

enum class ActionOutcome : std::uint8_t {
    Illegal,  // not legal now: s and p unchanged
    Pending,  // a placement with a declares choice started or advanced: p updated, nothing to play
    Move,     // a complete legal move: move set, p cleared; the caller applies it (Game::play, apply_move)
};

// Resolves one action against s (which is not changed) and the pending placement p.
ActionOutcome resolve_action(const GameState& s, PendingPlacement& p, int action, MoveId& move);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
