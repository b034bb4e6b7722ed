// GameState: the whole state of a game as one fixed-size, trivially copyable value (no pointers),
// so copying is a memcpy and undo is a stack of copies.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sequence/bitboard.hpp"
#include "sequence/board.hpp"
#include "sequence/cards.hpp"
#include "sequence/isa.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

constexpr int kMaxPlayers = 12;   // R2
// Turns are counted in 32 bits and reported as a signed int: a game without a turn cap still ends
// in a draw when turn reaches this bound (docs/state-format.md), so the counter never wraps.
constexpr std::uint32_t kTurnLimit = 2147483647u;
constexpr int kMaxTeams = 3;      // R2
constexpr int kMaxHand = 7;       // R3: the largest hand
constexpr int kHandSlot = 8;      // bytes per hand in GameState (one 64-bit word)
// A game stops as soon as a team has enough sequences (R8), so before the last placement each
// team holds at most one; one placement adds at most 8 (a pair in each of 4 directions, R7):
// 2 teams: 1 + 1 + 8 = 10, 3 teams: 0 + 8 = 8.
constexpr int kMaxSequences = 16;

// Players, teams and hand size of a game (R2, R3, R8).
struct Config {
    std::uint8_t players = 0;
    std::uint8_t teams = 0;
    std::uint8_t hand_size = 0;
    std::uint8_t sequences_to_win = 0;
};

// R3: the hand size for a player count, or 0 if the count is not valid (R2).
int hand_size_for(int players);
// R2: the default number of teams for a player count, or 0 if the count is not valid.
int default_teams(int players);
// R2: true if players may play as teams (6 and 12 players: 2 or 3 teams).
bool is_valid_split(int players, int teams);
// Builds the Config of a valid split (R2, R3, R8). Returns false (out untouched) if
// !is_valid_split(players, teams).
bool make_config(int players, int teams, Config& out);

// One completed sequence (R7): the team that formed it and its window (board.hpp).
struct SequenceEntry {
    std::uint8_t team;
    std::uint8_t window;
};

struct GameState {
    Bitboard chips[kMaxTeams];  // chips of each team (corners are never chips)
    Bitboard locked;            // chips of completed sequences: never removable (R7)
    std::uint64_t rng = 0;      // SplitMix64 state (docs/rng.md)
    std::uint64_t seed = 0;     // the seed the game was dealt from, if has_seed
    std::uint32_t turn = 0;     // completed plays and passes (not trades)
    std::uint32_t max_turns = 0;  // turn cap, 0 = none
    Config config;
    std::uint8_t current_player = 0;
    std::uint8_t dealer = 0;
    std::uint8_t passes = 0;      // consecutive passes counting toward a stalemate (R5)
    std::int8_t winner = -1;      // winning team (R8) or -1
    bool is_draw = false;         // stalemate (R5) or turn cap
    bool traded_this_turn = false;  // R5 step 1 already used this turn
    bool has_seed = false;
    std::int8_t last_draw_player = -1;  // the last end-of-turn draw (R10 missed_draw), -1 = none
    std::uint8_t last_draw_card = 0;
    std::uint8_t sequence_count = 0;
    std::uint8_t draw_size = 0;     // cards in the draw pile: cards[0 .. draw_size)
    std::uint8_t discard_size = 0;  // cards in the discard log: cards[kDeckSize - discard_size .. kDeckSize)
    // Each hand ascending by card id in the first hand_count[p] bytes of an 8-byte slot, so that a
    // hand is one 64-bit word (hand_remove/hand_insert); the bytes past the count are unspecified.
    // (hand_count follows hands so that the struct has no padding.)
    alignas(8) Card hands[kMaxPlayers][kHandSlot] = {};
    std::uint8_t hand_count[kMaxPlayers] = {};
    SequenceEntry sequences[kMaxSequences] = {};  // in the order formed
    // The draw pile and the discard log share one array: every card is in exactly one place (a
    // hand, the draw pile or a discard pile), so draw_size + discard_size <= kDeckSize and the two
    // never overlap. The draw pile grows up from cards[0], bottom first: the top card (drawn next)
    // is cards[draw_size - 1]. The discard log grows down from the other end: discard i (0 = the
    // oldest) is cards[kDeckSize - 1 - i]. The log holds all discard piles; a player's pile is the
    // subsequence of their cards (owner in discard_owner_nibbles), which keeps every pile in order
    // in a fixed-size array. Bytes between the two regions are unspecified. Read and write through
    // the accessors below.
    Card cards[kDeckSize] = {};
    // The owner (seat, < kMaxPlayers <= 16) of discard i, one nibble each: discard i < kDeckSize / 2
    // in the low nibble of byte i, discard i >= kDeckSize / 2 in the high nibble of byte
    // i - kDeckSize / 2 (so that the first half of the log is written with plain byte stores).
    // Nibbles of discards past discard_size are unspecified.
    std::uint8_t discard_owner_nibbles[kDeckSize / 2] = {};
};

static_assert(kMaxPlayers <= 16, "a seat fits in a nibble");
static_assert(kDeckSize % 2 == 0 && kDeckSize <= 255, "draw_size and discard_size are bytes");
static_assert(sizeof(GameState) == 400, "GameState has no padding (update docs/benchmarks if this changes)");

// ------------------------------------------------------------------ the draw pile and discard log
// No bounds checks: callers keep i < draw_size (draw pile) or i < discard_size (discard log), and
// draw_size + discard_size <= kDeckSize.

// Card i of the draw pile, 0 = the bottom, draw_size - 1 = the top (drawn next).
inline Card draw_pile_card(const GameState& s, int i) { return s.cards[i]; }
// Sets card i of the draw pile (bottom first). Does not change draw_size.
inline void set_draw_pile_card(GameState& s, int i, Card card) { s.cards[i] = card; }
// The draw pile as a pointer to its bottom card, for bulk writes of cards[0 .. draw_size).
inline Card* draw_pile_data(GameState& s) { return s.cards; }
// Discard i of the log, 0 = the oldest.
inline Card discard_card(const GameState& s, int i) { return s.cards[kDeckSize - 1 - i]; }
// The seat that discarded discard i of the log.
inline int discard_owner(const GameState& s, int i) {
    return i < kDeckSize / 2 ? s.discard_owner_nibbles[i] & 0xF : s.discard_owner_nibbles[i - kDeckSize / 2] >> 4;
}
// All kDeckSize owner nibbles as bytes: owner[i] = discard_owner(s, i) for i < discard_size, the
// rest unspecified.
// Eight nibbles at a time (SWAR), as it runs in cold code, which the compiler does not vectorize.
inline void discard_owners(const GameState& s, std::uint8_t (&owner)[kDeckSize]) {
    constexpr int kHalf = kDeckSize / 2;
    static_assert(kHalf % 4 == 0, "whole 4-byte words");
    constexpr std::uint64_t kLow = 0x0F0F0F0F0F0F0F0Full;
    int j = 0;
    for (; j + 8 <= kHalf; j += 8) {
        std::uint64_t w;
        std::memcpy(&w, s.discard_owner_nibbles + j, 8);
        const std::uint64_t lo = w & kLow, hi = (w >> 4) & kLow;
        std::memcpy(owner + j, &lo, 8);
        std::memcpy(owner + kHalf + j, &hi, 8);
    }
    for (; j < kHalf; j += 4) {
        std::uint32_t w;
        std::memcpy(&w, s.discard_owner_nibbles + j, 4);
        const std::uint32_t lo = w & 0x0F0F0F0Fu, hi = (w >> 4) & 0x0F0F0F0Fu;
        std::memcpy(owner + j, &lo, 4);
        std::memcpy(owner + kHalf + j, &hi, 4);
    }
}
// Appends card, discarded by seat owner (< kMaxPlayers), to the discard log. Requires
// draw_size + discard_size < kDeckSize (always true while the card is in a hand).
inline void push_discard(GameState& s, int card, int owner) {
    assert(s.draw_size + s.discard_size < kDeckSize && owner >= 0 && owner < kMaxPlayers);
    const std::size_t i = s.discard_size++;  // (size_t: no zero extension in the addressing)
    s.cards[kDeckSize - 1 - i] = static_cast<Card>(card);
    if (i < kDeckSize / 2) {
        s.discard_owner_nibbles[i] = static_cast<std::uint8_t>(owner);  // high nibble: discard i + 52, past the log
    } else {
        std::uint8_t& b = s.discard_owner_nibbles[i - kDeckSize / 2];
        b = static_cast<std::uint8_t>((b & 0x0F) | (owner << 4));
    }
}

static_assert(std::is_trivially_copyable_v<GameState>, "GameState is copied with memcpy");
static_assert(std::is_standard_layout_v<GameState>);

// R2: seat p plays for team p mod T.
inline int team_of(const GameState& s, int player) {
    return player < s.config.teams ? player : player % s.config.teams;  // skips a division in 2-3 player games
}
// True once the game is won (R8) or drawn (R5 stalemate, turn cap).
inline bool is_over(const GameState& s) { return s.winner >= 0 || s.is_draw; }
// The last turn number a game may complete without reaching its turn cap: max_turns - 1, with
// max_turns 0 (no cap) wrapping to UINT32_MAX, and kTurnLimit the bound of every game (a min:
// branch-free).
inline std::uint32_t last_uncapped_turn(const GameState& s) { return std::min(s.max_turns - 1u, kTurnLimit - 1u); }
// Cells holding a chip of any team.
inline Bitboard occupied(const GameState& s) { return s.chips[0] | s.chips[1] | s.chips[2]; }
// Cells that can take a chip: neither a chip nor a corner (R5).
inline Bitboard empty_cells(const GameState& s) { return ~(occupied(s) | corners()); }
// Cells a one-eyed jack of team may empty: another team's chip that no sequence has locked (R5, R7).
inline Bitboard removable_cells(const GameState& s, int team) { return occupied(s) & ~s.chips[team] & ~s.locked; }
// The number of sequences a team has completed.
inline int team_sequences(const GameState& s, int team) {
    int n = 0;
    for (int i = 0; i < s.sequence_count; ++i) n += s.sequences[i].team == team;
    return n;
}
// True if player holds at least one copy of card.
inline bool hand_contains(const GameState& s, int player, int card) {
    for (int i = 0; i < s.hand_count[player]; ++i)
        if (s.hands[player][i] == card) return true;
    return false;
}
namespace detail {
// A hand as one little-endian 64-bit word (byte i = hands[player][i]).
constexpr std::uint64_t kOnes = 0x0101010101010101ull;
constexpr std::uint64_t kHighs = 0x8080808080808080ull;
inline std::uint64_t load_hand(const Card* hand) {
    std::uint64_t w;
    std::memcpy(&w, hand, sizeof w);
    return w;
}
inline void store_hand(Card* hand, std::uint64_t w) { std::memcpy(hand, &w, sizeof w); }
// The bytes below byte i: mask of bytes 0..i-1 (i in 0..8). One bzhi with BMI2 (which keeps all 64
// bits for an index of 64), else a compare.
inline std::uint64_t bytes_below(int i) {
#if SEQUENCE_HAS_BMI2
    return bits::bzhi64(~std::uint64_t{0}, static_cast<unsigned>(8 * i));
#else
    return i >= 8 ? ~std::uint64_t{0} : (std::uint64_t{1} << (8 * i)) - 1;
#endif
}
}  // namespace detail

static_assert(kMaxHand < kHandSlot && kHandSlot == 8, "a hand fits in one 64-bit word with a spare byte");

// Removes one copy of card from the hand, keeping it ascending. Requires hand_contains().
// Branch-free: finds the first byte equal to card (SWAR) and shifts the bytes above it down.
inline void hand_remove(GameState& s, int player, int card) {
    assert(hand_contains(s, player, card));
    using namespace detail;
    Card* hand = s.hands[player];
    const std::uint64_t w = load_hand(hand);
    const std::uint64_t x = w ^ (kOnes * static_cast<std::uint64_t>(card));
    // The lowest byte of x that is zero is the first copy of card (bytes above may misreport).
    const std::uint64_t zero = (x - kOnes) & ~x & kHighs;
    const int i = bits::ctz64(zero) >> 3;
    const std::uint64_t below = bytes_below(i);
    store_hand(hand, (w & below) | ((w >> 8) & ~below));
    --s.hand_count[player];
}
// Adds card to the hand, keeping it ascending (after any equal card). Requires
// hand_count[player] < kMaxHand. Branch-free: counts the smaller-or-equal cards (SWAR).
inline void hand_insert(GameState& s, int player, int card) {
    assert(s.hand_count[player] < kMaxHand && is_valid_card(card));
    using namespace detail;
    Card* hand = s.hands[player];
    const int n = s.hand_count[player]++;
    const std::uint64_t w = load_hand(hand);
    // Card ids are < 64, so byte + (127 - card) sets the byte's high bit iff byte > card, no carry.
    const std::uint64_t greater = (w + kOnes * static_cast<std::uint64_t>(127 - card)) & kHighs & bytes_below(n);
    const int i = n - detail::popcount64(greater);
    const std::uint64_t below = bytes_below(i);
    store_hand(hand, (w & below) | (static_cast<std::uint64_t>(card) << (8 * i)) | ((w << 8) & ~bytes_below(i + 1)));
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
