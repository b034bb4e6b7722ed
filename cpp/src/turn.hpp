// The turn procedure of R5-R8 (discard, place/remove, declare, win check, draw with the R6
// reshuffle, turn cap, next seat) as one template over where the hands are kept. apply_move()
// (rules.cpp) plays it on GameState's own hands; a random playout (playout.cpp) plays the same
// code on hands kept as card-id sets, which its move picker reads directly. Internal to the core:
// the public entry point is apply_move().
#pragma once

#include <algorithm>
#include <type_traits>

#include "sequence/isa.hpp"
#include "sequence/move.hpp"
#include "sequence/rules.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {
namespace turn {

// What the turn procedure asks of a hand store `Hands`:
//   void remove(GameState& s, int player, int card);  // one copy, which the hand holds
//   void insert(GameState& s, int player, int card);  // the hand holds < kMaxHand cards
//   void placed(int team, int cell);                  // team put a chip on the empty cell
//   void clearing(const GameState& s, int cell);      // the unlocked chip on cell is about to go
//   void locked(const GameState& s);                  // sequences were just recorded (R7)
//   bool has_dead_card(const GameState& s, int player) const;  // R5
//   int next(const GameState& s, int player) const;            // the seat after player
//   bool at_turn_cap(const GameState& s) const;                // the turn just counted hit the cap
// Both hand calls keep s.hand_count[player] up to date.

// GameState's hands (ascending bytes): apply_move().
struct StateHands {
    static void remove(GameState& s, int player, int card) { hand_remove(s, player, card); }
    static void insert(GameState& s, int player, int card) { hand_insert(s, player, card); }
    static void placed(int, int) {}
    static void clearing(const GameState&, int) {}
    static void locked(const GameState&) {}
    static bool has_dead_card(const GameState& s, int player) {
        for (int i = 0; i < s.hand_count[player]; ++i)
            if (is_dead_card(s, s.hands[player][i])) return true;
        return false;
    }
    static int next(const GameState& s, int player) { return player + 1 == s.config.players ? 0 : player + 1; }
    static bool at_turn_cap(const GameState& s) { return s.turn > last_uncapped_turn(s); }
};

// Adds cell to the set: one byte or-ed in memory. The cell is random in a game, so a branch on
// the half mispredicts, and cell_bit()'s masks become a dozen vector instructions; x86 and the
// other little-endian targets hold cell c in bit c % 8 of byte c / 8 of the two words.
inline void add_chip(Bitboard& chips, int cell) {
#if SEQUENCE_LITTLE_ENDIAN
    static_assert(sizeof(Bitboard) == 16 && std::is_standard_layout_v<Bitboard>, "two little-endian words");
    reinterpret_cast<unsigned char*>(&chips)[cell >> 3] |= static_cast<unsigned char>(1u << (cell & 7));
#else
    chips |= cell_bit(cell);
#endif
}

// R6: the discard piles, gathered in seat order each oldest first, shuffled into the draw pile
// (rules.cpp; rare, kept out of line).
void reshuffle(GameState& s);

// Draws the top card into player's hand (R6 reshuffle first if the pile is empty).
// Returns the card, or -1 if nothing could be drawn.
template <class Hands>
SEQUENCE_ALWAYS_INLINE int draw_card(GameState& s, Hands& hands, int player) {
    if (SEQUENCE_UNLIKELY(s.draw_size == 0)) {
        reshuffle(s);
        if (s.draw_size == 0) return -1;
    }
    const int card = draw_pile_card(s, --s.draw_size);
    hands.insert(s, player, card);
    return card;
}

// Ends player's completed turn: a draw at the turn cap, else the next seat moves.
template <class Hands>
inline void end_turn(GameState& s, const Hands& hands, int player) {
    if (SEQUENCE_UNLIKELY(hands.at_turn_cap(s))) s.is_draw = true;
    else s.current_player = static_cast<std::uint8_t>(hands.next(s, player));
}

// Steps 4-7 of a play (R5, R6, R8): counters, win check, draw, turn cap and next seat.
// new_sequences: the play declared sequences. Only then can the team reach the winning count:
// a game in progress never has a team at it (R8 ends the game at once; from_position refuses it).
template <class Hands>
SEQUENCE_ALWAYS_INLINE void finish_play(GameState& s, Hands& hands, int player, int team, bool new_sequences) {
    s.passes = 0;
    ++s.turn;
    s.traded_this_turn = false;
    if (SEQUENCE_UNLIKELY(new_sequences) && team_sequences(s, team) >= s.config.sequences_to_win) {  // R8: the game ends before the draw
        s.winner = static_cast<std::int8_t>(team);
        return;
    }
    const int card = draw_card(s, hands, player);
    s.last_draw_player = static_cast<std::int8_t>(card < 0 ? -1 : player);
    s.last_draw_card = static_cast<Card>(card < 0 ? 0 : card);
    end_turn(s, hands, player);
}

// R7: records and locks the sequences a placement declares.
SEQUENCE_NOINLINE void record_sequences(GameState& s, int team, int cell, int declares);

// The four kinds of move, each legal in s (apply_move()'s contract), hands kept in `hands`. p is
// s.current_player and team team_of(s, p), read once by the caller (every byte stored in a turn
// may alias s for the compiler, which would read them again after each).
template <class Hands>
SEQUENCE_ALWAYS_INLINE void place(GameState& s, Hands& hands, int p, int team, int card, int cell, int declares) {
    hands.remove(s, p, card);
    push_discard(s, card, p);
    add_chip(s.chips[team], cell);
    hands.placed(team, cell);
    if (SEQUENCE_UNLIKELY(declares != 0)) {
        record_sequences(s, team, cell, declares);
        hands.locked(s);
    }
    finish_play(s, hands, p, team, declares != 0);
}
template <class Hands>
SEQUENCE_ALWAYS_INLINE void remove(GameState& s, Hands& hands, int p, int team, int card, int cell) {
    hands.remove(s, p, card);
    push_discard(s, card, p);
    hands.clearing(s, cell);
    const Bitboard keep = ~cell_bit(cell);
    for (Bitboard& chips : s.chips) chips &= keep;
    finish_play(s, hands, p, team, false);
}
template <class Hands>
SEQUENCE_ALWAYS_INLINE void trade(GameState& s, Hands& hands, int p, int card) {  // R5 step 1: the same player then plays
    hands.remove(s, p, card);
    push_discard(s, card, p);
    draw_card(s, hands, p);
    s.traded_this_turn = true;
    s.last_draw_player = -1;
}
template <class Hands>
inline void pass(GameState& s, Hands& hands, int p) {  // R5: a full round of counted passes is a stalemate
    const bool counts = !s.traded_this_turn && !hands.has_dead_card(s, p);
    s.passes = counts ? static_cast<std::uint8_t>(s.passes + 1) : 0;
    ++s.turn;
    s.traded_this_turn = false;
    if (s.passes >= s.config.players) s.is_draw = true;
    else end_turn(s, hands, p);
}

// Plays move id (legal in s) with the hands kept in `hands`.
template <class Hands>
inline void play(GameState& s, Hands& hands, MoveId id) {
    const Move m = Move::from_id(id);
    const int p = s.current_player;
    switch (m.kind) {
        case MoveKind::Place: return place(s, hands, p, team_of(s, p), m.card, m.cell, m.declares);
        case MoveKind::Remove: return remove(s, hands, p, team_of(s, p), m.card, m.cell);
        case MoveKind::Trade: return trade(s, hands, p, m.card);
        case MoveKind::Pass: return pass(s, hands, p);
    }
}

}  // namespace turn
}  // namespace SEQUENCE_ISA
}  // namespace sequence
