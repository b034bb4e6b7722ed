// Random playouts: a uniformly random legal move drawn without building a move list, and a
// random game continued to its end (or a turn limit); the cheap informed policy of the search's
// playouts. The hot path of search and simulate. The heuristic's playout policy belongs to the
// search layer (search/greedy_playout.hpp).
#pragma once

#include <cstdint>

#include "sequence/move.hpp"
#include "sequence/rng.hpp"
#include "sequence/state.hpp"

namespace sequence {

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

// What a playout's random_legal_move() would otherwise recompute from the board every turn: per
// normal card id, how many of its two cells are empty, and the set of dead card ids (R5: both
// cells covered). Built once from the board and kept up to date move by move: a placement fills
// the cell of the card printed there, a removal empties it.
struct FreeCells {
    std::uint8_t count[kCardKinds];  // jacks: 0, unused
    std::uint64_t dead_ids;          // bit = card id
    explicit FreeCells(const GameState& s);
    // Updates for move `id` just applied (trades and passes change no cell).
    void after(MoveId id) {
        const Move m = Move::from_id(id);
        if (m.kind == MoveKind::Place) {
            const int c = card_at(m.cell);
            dead_ids |= static_cast<std::uint64_t>(--count[c] == 0) << c;
        } else if (m.kind == MoveKind::Remove) {
            const int c = card_at(m.cell);
            ++count[c];
            dead_ids &= ~(std::uint64_t{1} << c);
        }
    }
};
// The same move as random_legal_move(s, rng), from the same generator state, with free current
// for s.
MoveId random_legal_move(const GameState& s, const FreeCells& free, SplitMix64& rng);

// Plays random_legal_move() until the game is over or s.turn >= turn_limit. Returns the winning
// team, or -1 (drawn, or stopped by the limit).
int random_playout(GameState& s, SplitMix64& rng, std::uint32_t turn_limit);

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

}  // namespace sequence
