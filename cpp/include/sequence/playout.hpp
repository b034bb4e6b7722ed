// Random playouts: a uniformly random legal move drawn without building a move list, and a
// random game continued to its end (or a turn limit); the cheap informed policy of the search's
// playouts. The hot path of search and simulate. The heuristic's playout policy belongs to the
// search layer (search/greedy_playout.hpp).
#pragma once

#include <cstdint>

#include "sequence/isa.hpp"
#include "sequence/move.hpp"
#include "sequence/rng.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// A random legal move of the current player. Requires !is_over(s). No heap allocation, no move
// list: the options are counted with popcounts and the n-th one is picked.
//
// "Uniform" here means: uniform over the *slots* of the position, where the slots are
//   - one per (distinct card id in hand, cell) play: a normal card and each of its empty cells,
//     a two-eyed jack and each empty cell, a one-eyed jack and each removable chip (another
//     team's, not locked: R5, R7) -- two copies of one card id give one set of slots;
//   - one per distinct dead card id, if no trade was made this turn (R5 step 1);
//   - one pass, only when there is no play at all (R5).
// A placement whose declares choice (R7) is not unique gets one slot, and the choice among its
// declare_options() combinations is then made uniformly. So this is exactly uniform over
// legal_moves() except that the declares variants of one placement share one slot.
MoveId random_legal_move(const GameState& s, SplitMix64& rng);

// What a random playout keeps beside its GameState so that each turn's pick reads sets instead of
// recomputing them: every hand as card-id sets (the distinct ids, the ids held twice, the cells
// of its normal cards); the empty cells; per normal card id, how many of its two cells are empty,
// with the set of dead card ids (R5: both cells covered); and the game's fixed facts a turn reads
// (each seat's team and next seat, R2; the last turn before the cap). The playout's turn procedure
// (turn.hpp, through playout.cpp's TurnHands) keeps them up to date move by move (each drawn,
// played and traded card; each chip placed or removed). While a playout runs, the hands live
// here: GameState's hand bytes are stale until write_hands().
struct PlayoutHands {
    // Per seat, side by side (a turn reads and writes them through one pointer).
    struct Seat {
        std::uint64_t ids;   // bit = card id held (one or two copies)
        std::uint64_t dups;  // bit = card id held twice
        Bitboard cells;      // the cells of the hand's normal card ids
        std::uint8_t team;   // team_of(s, seat)
        std::uint8_t next;   // the seat after it (R5 turn order)
    };
    Seat seat[kMaxPlayers];
    Bitboard empty;                   // empty_cells(s)
    std::uint8_t unlocked[kMaxTeams];  // each team's chips that no sequence has locked (R7)
    std::uint8_t unlocked_total;       // their sum: removable_cells(s, t).count() is unlocked_total - unlocked[t]
    std::uint64_t dead_ids;           // bit = normal card id with both cells covered (R5)
    std::uint8_t free[kCardKinds];    // empty cells of each normal card id (jacks: 0, unused)
    std::uint32_t last_turn;          // last_uncapped_turn(s): past it a completed turn ends the game

    PlayoutHands() = default;  // empty sets: assign from PlayoutHands(s) before use
    // From s's hands, board, config and turn cap.
    explicit PlayoutHands(const GameState& s);
    // Empty hands on an empty board, s's config and turn cap (a deal to come: deal() each hand).
    static PlayoutHands before_deal(const GameState& s);
    // Writes the hands into s as GameState keeps them (ascending bytes; hand_count is kept up to
    // date throughout a playout, at the end of each turn).
    void write_hands(GameState& s) const;

    // A deal: player's empty hand receives `count` cards, cards[0], cards[-stride], cards[-2 * stride]
    // ..., and s.hand_count[player] is set.
    void deal(GameState& s, int player, const Card* cards, int count, int stride) {
        std::uint64_t held = 0, twice = 0;
        Bitboard where;
        for (int i = 0; i < count; ++i) {
            const int card = cards[-i * stride];
            const std::uint64_t bit = std::uint64_t{1} << card;
            twice |= held & bit;
            held |= bit;
            where = where | card_cells(card);  // jacks have none
        }
        seat[player].ids = held;
        seat[player].dups = twice;
        seat[player].cells = where;
        s.hand_count[player] = static_cast<std::uint8_t>(count);
    }

    // team put a chip on the empty cell / the unlocked chip on cell is about to be taken off: the
    // empty cells, the unlocked counts and the free count of the card printed there. (The cell's
    // bit is flipped as one byte in memory: the cell is random, so a branch on the board's half
    // would mispredict, turn.hpp add_chip().)
    void placed(int team, int cell) {
        flip_empty(cell);
        ++unlocked[team];
        ++unlocked_total;
        const int c = card_at(cell);
        dead_ids |= static_cast<std::uint64_t>(--free[c] == 0) << c;
    }
    void clearing(const GameState& s, int cell) {
        flip_empty(cell);
        // The chip's team: not the mover's, random between the others (no branch on it).
        const int owner = s.chips[0].test(cell) ? 0 : s.chips[1].test(cell) ? 1 : 2;
        --unlocked[owner];
        --unlocked_total;
        const int c = card_at(cell);
        ++free[c];
        dead_ids &= ~(std::uint64_t{1} << c);
    }
    // Sequences were recorded: chips were locked (R7).
    void locked(const GameState& s) { count_unlocked(s); }

private:
    void count_unlocked(const GameState& s);
    void flip_empty(int cell) {
#if SEQUENCE_LITTLE_ENDIAN
        reinterpret_cast<unsigned char*>(&empty)[cell >> 3] ^= static_cast<unsigned char>(1u << (cell & 7));
#else
        empty = empty ^ cell_bit(cell);
#endif
    }
};

// One turn of a random playout: random_legal_move()'s move for s (the same move and generator
// state as random_legal_move(s, rng) on s with hands written back), applied with s's hands kept in
// hands. Requires !is_over(s) and hands built from s and kept by every earlier step. Returns the
// move.
MoveId random_playout_step(GameState& s, PlayoutHands& hands, SplitMix64& rng);

// Plays random_legal_move() until the game is over or s.turn >= turn_limit. Returns the winning
// team, or -1 (drawn, or stopped by the limit).
int random_playout(GameState& s, SplitMix64& rng, std::uint32_t turn_limit);

// Where random_playouts() takes its games from and gives them back.
class PlayoutFeed {
public:
    // Sets s, its hands and rng to the next game to play (hands as PlayoutHands(s) would be; s's
    // hand bytes may be stale); false when there is none left.
    virtual bool next(GameState& s, PlayoutHands& hands, SplitMix64& rng) = 0;
    // s played to its end (is_over(s)); its hand bytes are stale, the hands are in `hands`
    // (hands.write_hands() puts them back).
    virtual void finished(const GameState& s, const PlayoutHands& hands) = 0;

protected:
    ~PlayoutFeed() = default;
};

// random_playout() of every game feed.next() gives (no turn limit beyond the state's own), each
// game exactly as random_playout() plays it alone, until feed.next() returns false. LANES games
// are played at once, a turn of each in turn, because one turn is a chain of dependent steps (the
// draw, the pick, the move, the next count) that leaves most of the core idle: the turns of other
// games fill it. Games finish in an order that depends on their lengths.
template <int Lanes>
void random_playouts(PlayoutFeed& feed);

// The search's playout policy (informed_move()): cheap enough for every playout turn.
struct PlayoutPolicy {
    std::uint32_t block_chance = 256;  // out of 256: how often step 2 (block) is tried
    // Step 4: how many random plays are drawn and compared by their local value (1 = a random
    // play); 0 = plain random_legal_move() (uniform over slots) for step 4.
    int candidates = 1;
    // Local value of a placement: per five-cell window through the cell, window[k + 1] - window[k]
    // for an own open window holding k cells, block * window[k] for a window only other teams hold.
    float window[6] = {0.0f, 1.0f, 4.0f, 16.0f, 60.0f, 60.0f};
    float block = 0.6f;
    float two_eyed_cost = 40.0f;  // a two-eyed jack is played only where it is worth this much more
    float one_eyed_cost = 30.0f;
};

// One playout move for the current player (requires !is_over(s); reads only s, in a search a
// determinized world):
//   1. complete a sequence if the mover can (a normal card on one of its team's completion cells,
//      or a two-eyed jack on any; declares drawn as random_declares());
//   2. else (with probability block_chance/256) block another team's completion cell: take it with
//      a normal card, or remove an unlocked chip of that line with a one-eyed jack, or take it with
//      a two-eyed jack;
//   3. else trade a dead card if one is held and no trade was made this turn (R5: it is free);
//   4. else draw `candidates` random plays (a card of the hand uniformly, then one of its cells or
//      chips uniformly) and make the one of highest local value (jacks pay their cost);
//      with no play at all, random_legal_move() (a pass).
MoveId informed_move(const GameState& s, SplitMix64& rng, const PlayoutPolicy& policy);

// Plays informed_move() until the game is over or s.turn >= turn_limit; returns as
// random_playout().
int informed_playout(GameState& s, SplitMix64& rng, std::uint32_t turn_limit, const PlayoutPolicy& policy);

// A declares code for team placing on the empty cell, chosen uniformly among the declare_options()
// combinations (0 when the placement forms no sequence, the common case, found without calling
// declare_options()).
int random_declares(const GameState& s, int team, int cell, SplitMix64& rng);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
