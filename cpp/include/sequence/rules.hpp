// The rules (R2-R10, docs/rules.md): dealing, legal moves, applying a move, sequences, end of game
// and the referee calls. Every function here is deterministic except through GameState::rng, which only
// the deal and the R6 reshuffle consume (docs/rng.md).
#pragma once

#include <cstdint>
#include <vector>

#include "sequence/isa.hpp"
#include "sequence/move.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// Capacity of a MoveList. Without declares choices a position has at most 214 legal moves: the
// hand holds at most 7 cards, so at most 7 trades, 2 placements per normal card and, for the jacks,
// 2 x 96 since two-eyed jacks only take empty cells and one-eyed jacks only occupied ones, plus
// one pass. Declares choices (R7) multiply a placement by up to 4^4 in contrived positions, so
// no small bound covers every loadable position: a MoveList records overflow instead, and the
// std::vector overload of legal_moves() always returns the full list.
constexpr int kMoveListCapacity = 1024;

// A fixed-capacity list of move ids: no heap allocation on the hot path.
struct MoveList {
    MoveId moves[kMoveListCapacity];
    int size = 0;
    bool overflow = false;  // more legal moves existed than fit; the first kMoveListCapacity are kept

    void push(MoveId m) {
        if (size < kMoveListCapacity) moves[size++] = m;
        else overflow = true;
    }
    const MoveId* begin() const { return moves; }
    const MoveId* end() const { return moves + size; }
};

// Why a move id is not legal in a position (the binding turns these into messages).
enum class MoveError : std::uint8_t {
    None,
    GameOver,          // the game is won or drawn: no move is legal
    Malformed,         // not a well-formed id (unused fields set, card or cell out of range)
    CardNotInHand,
    WrongCardForKind,  // trade of a jack, placement with a one-eyed jack, removal without one (R5)
    AlreadyTraded,     // R5 step 1 at most once a turn
    NotDeadCard,       // R5 step 1 needs both cells covered
    CornerCell,        // corners never take or lose a chip (R5)
    CellNotOnCard,     // a normal card places only on its own two cells (R5)
    CellOccupied,
    NoChipToRemove,    // a one-eyed jack removes another team's chip (R5)
    OwnChip,
    LockedChip,        // chips of a completed sequence stay (R7)
    WrongDeclares,     // declares is not one of the maximal choices (R7)
    PlayAvailable,     // pass only without a legal play (R5)
};
const char* describe(MoveError e);

enum class RefereeError : std::uint8_t {
    None,
    GameOver,           // referee calls are refused once the game is over
    BadTeam,            // team out of range
    BadPlayer,          // player out of range
    NotTeamMember,      // a card was named for a player outside the team
    MissingCard,        // a member of the team has no card named
    CardNotInHand,
    NoLastDraw,         // nothing to take back (R10 missed_draw)
    NotLastDrawPlayer,  // the last draw was someone else's
};
const char* describe(RefereeError e);

// An undealt game: the config, seed and turn cap set, an empty board, no cards anywhere. The start
// of new_game() and of simulate's cheaper deal.
GameState undealt_game(const Config& config, std::uint64_t seed, std::uint32_t max_turns);

// Deals a new game (R2-R4, docs/rng.md): cut for the dealer, shuffle, deal from the dealer's left;
// the player left of the dealer moves first. max_turns 0 means no turn cap.
// Requires config from make_config().
GameState new_game(const Config& config, std::uint64_t seed, std::uint32_t max_turns);

// Appends every legal move of the current player to out, in the order of docs/notation.md:
// (kind trade < place < remove < pass, card id, cell, declares). Nothing once is_over(s).
// When there is no placement and no removal: the open trades plus one pass (R5).
// Returns false if out overflowed (out.overflow is set; the listed moves are the first ones).
bool legal_moves(const GameState& s, MoveList& out);
// The same, complete whatever the count; allocates.
void legal_moves(const GameState& s, std::vector<MoveId>& out);

// Whether id is the id() of a move that names things that exist, in any position: below 2^27,
// a pass exactly Move::pass().id(); otherwise a card id 0..51; a trade with cell and declares zero,
// a removal with declares zero, a placement or removal on a cell 0..99, and each declares code of
// a placement 0..kDeclarePair naming windows that lie on the board. Every other 32-bit value
// decodes (Move::from_id) to the same move as some well-formed id, so code that maps ids to moves
// and back (the binding's move caches) must check this first. Whether the card may make the kind
// of move (R5) depends on nothing but the id too, but is reported as WrongCardForKind.
bool is_well_formed(MoveId id);

// MoveError::None if id is legal for the current player, else the first reason it is not
// (Malformed exactly when !is_well_formed(id), unless the game is over).
MoveError check_move(const GameState& s, MoveId id);

// Plays a move (the turn procedure of R5-R8: discard, place/remove, declare sequences, win check,
// draw with the R6 reshuffle, turn cap, next player). Requires check_move(s, id) == None.
void apply_move(GameState& s, MoveId id);
// check_move() then apply_move(); s is unchanged on error.
MoveError play_move(GameState& s, MoveId id);

// R5: a normal card both of whose cells hold a chip (any team). Jacks are never dead.
bool is_dead_card(const GameState& s, int card);
// The distinct dead cards in a player's hand, ascending; returns how many were written to out.
int dead_cards(const GameState& s, int player, Card out[kMaxHand]);

// The declares choices (R7, docs/notation.md) of team placing on an empty cell, per direction:
// count[d] codes, each 0 (no sequence), 1..5 (one window) or kDeclarePair. Every legal placement
// takes one code per direction; every direction has at least one code.
struct DeclareOptions {
    std::uint8_t count[kDirections];
    std::uint8_t codes[kDirections][kWindowLength];
};
// Fast: a pre-filter per direction (fewer than five own cells within four steps) skips the windows.
void declare_options(const GameState& s, int team, int cell, DeclareOptions& out);
// declare_options() from the windows through cell already known to lie in the team's chips and
// corners once cell is added: bit kWindowLength * d + k of `full` stands for window_at(cell, d, k).
// (The random playout finds them bit-parallel.) R7's one-shared-cell rule is applied here.
void declare_options_from(const GameState& s, int team, int cell, std::uint32_t full, DeclareOptions& out);

// R7 pre-filter, a few instructions: false if no line of five through cell can hold only team's
// chips and corners once team places on cell (then every declares code is 0). True does not
// promise a sequence (the line may have a gap or be blocked by R7's one-shared-cell rule).
inline bool may_complete_sequence(const GameState& s, int team, int cell) {
    const Bitboard own = s.chips[team] | corners() | Bitboard::of(cell);
    for (int d = 0; d < kDirections; ++d)
        if ((segment(cell, d) & own).count() >= kWindowLength) return true;
    return false;
}

// The empty cells where a placement by team fills the last gap of some five-cell line of its
// chips and corners (bit-parallel, ~100 instructions for the whole board). Every placement that
// can declare a sequence (R7) is on one of these cells; most cells of the set do declare one.
Bitboard completion_cells(const GameState& s, int team);
// The windows a declares code names for a placement on cell, ascending (the order sequences are
// recorded in). Returns how many (at most 8). Requires each direction code to name windows on the
// board (true for every legal move).
int declared_windows(int cell, int declares, std::uint8_t out[2 * kDirections]);

// R10 table talk: every member of team discards the card cards[player] from hand (seat order),
// nothing is drawn. cards[p] must be -1 for players outside the team. Refused (s unchanged) when
// the game is over or a card is missing, misplaced or not in its player's hand. Afterwards
// last_draw is cleared if its card has left that player's hand.
RefereeError table_talk_penalty(GameState& s, int team, const int cards[kMaxPlayers]);

// R10 loss of a card: the last end-of-turn draw, if it was player's, goes back on top of the draw
// pile (drawn next); last_draw is cleared. Refused (s unchanged) when the game is over, no draw can
// be taken back or it was another player's.
RefereeError missed_draw(GameState& s, int player);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
