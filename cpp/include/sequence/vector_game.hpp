// VectorGame: many independent games stepped together, for reinforcement learning (the model:
// EnvPool, pgx). One call plays one action in every game, with the fixed action space of
// actions.hpp (R7 declares choices as follow-up actions of the same player), and writes the
// observations (observation.hpp) and legal-action masks of all games into caller buffers, with no
// allocation per step.
//
// Games and seeds. Game i's k-th episode (k = 0, 1, ... counted from the last reset()) is dealt by
// new_game() from episode_seed(seed, i, k), exactly as sequence_game.Game(players, teams,
// seed=episode_seed(...), max_turns) deals it, and its built-in seats (below) draw from a
// generator seeded from the same value. So every game depends only on (seed, i) and the actions it
// is given, never on the thread count or on the other games.
//
// Built-in seats. A seat can be played inside the core by a random policy (random_legal_move(),
// playout.hpp) or a greedy one (greedy_move(), search/greedy_playout.hpp: the C++ port of GreedyAgent's scoring,
// search/heuristic.hpp), or the policy-value network (net.hpp: the most probable legal move of
// net_policy(), search/puct.hpp, as the `net` agent plays it, ties to the lowest move id; or, at a
// temperature above 0, a move drawn from the policy with the game's built-in generator). A network
// seat reads only its own observation (R9). After every step and reset, built-in seats move until a seat played by
// the caller is to move, so the caller only ever sees its own seats' turns.
//
// Episode ends and automatic reset. A step that ends a game (a win, R8; a stalemate, R5; the turn
// cap) reports the result, keeps the final position (final_state()) and deals the game's next
// episode at once, as Gymnasium's vector environments do with their same-step autoreset.
//
// Thread safety: one VectorGame is used by one thread at a time (the Python binding enforces it);
// the work of one call is split over `threads` worker threads (started with the VectorGame and
// kept), each game on exactly one of them.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "sequence/actions.hpp"
#include "sequence/isa.hpp"
#include "sequence/net.hpp"
#include "sequence/observation.hpp"
#include "sequence/parallel.hpp"
#include "sequence/rng.hpp"
#include "sequence/search/heuristic.hpp"
#include "sequence/search/puct.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

// Who plays a seat of a VectorGame.
enum class SeatPolicy : std::uint8_t {
    Caller,  // the caller's actions, through step()
    Random,  // random_legal_move() (playout.hpp): uniform over its slots, declares included
    Greedy,  // greedy_move() with no exploration (GreedyAgent's scoring, search/heuristic.hpp)
    Net,     // the network given to the constructor (net.hpp), from the seat's observation only (R9)
};

// The network seats' player: one network for every Net seat of a VectorGame, and the temperature
// of its moves (0: the most probable legal move; above 0, up to 100: drawn with probability
// proportional to p ** (1 / temperature)).
struct NetSeats {
    std::shared_ptr<const Net> net;
    double temperature = 0.0;
};

// Bytes per game of a bit-packed legal-action mask: bit a % 8 of byte a / 8 (little-endian bit
// order, numpy.unpackbits(..., bitorder="little")).
constexpr int kPackedMaskBytes = (kActionCount + 7) / 8;

// Room per game in legal_action_lists(). A seat to move has at most 201 legal actions: a hand of at
// most 7 cards (R3) holds at most 2 two-eyed and 2 one-eyed jack ids, whose actions cover each
// empty cell (two-eyed) or each removable chip (one-eyed) once per id, at most 2 x 96 together,
// plus 2 placements and 1 trade for each of the other 3 cards; a pending placement has at most 5.
constexpr int kMaxLegalActions = 256;

// The seed of game `game`'s episode `episode` in a VectorGame seeded with `seed`: two SplitMix64
// mixes (docs/rng.md generator), so that nearby seeds, games and episodes give unrelated deals.
std::uint64_t episode_seed(std::uint64_t seed, std::int64_t game, std::int64_t episode);

// An action refused by step(): the game and the action it was given.
struct IllegalAction {
    int game;
    std::int64_t action;
};

// What step() writes, one row per game (any pointer may be null: not written).
struct StepOutput {
    float* rewards = nullptr;            // [games x teams]: +1 the winning team, -1 the others, 0 a draw or no end
    std::uint8_t* terminated = nullptr;  // [games]: won (R8) or stalemate (R5)
    std::uint8_t* truncated = nullptr;   // [games]: the turn cap (max_turns) ended it
};

class VectorGame {
public:
    // Requires 1 <= games, config from make_config(), 1 <= threads, and at least one Caller seat
    // in seats (checked by the binding). max_turns 0 means no cap.
    // net is required if a seat is SeatPolicy::Net (checked by the binding).
    VectorGame(int games, const Config& config, std::uint64_t seed, std::uint32_t max_turns, int threads,
               const std::array<SeatPolicy, kMaxPlayers>& seats, NetSeats net = {});

    int size() const { return static_cast<int>(games_.size()); }
    const Config& config() const { return config_; }
    std::uint32_t max_turns() const { return max_turns_; }
    int threads() const { return threads_; }
    std::uint64_t seed() const { return seed_; }
    SeatPolicy seat(int player) const { return seats_[player]; }

    // Deals episode 0 of every game from `seed` (built-in seats move first where they are to play).
    void reset(std::uint64_t seed);

    // The position of game i (requires 0 <= i < size()) and the placement waiting for its declare
    // actions there (actions.hpp), its episode number and seed.
    const GameState& state(int i) const { return games_[i].state; }
    const PendingPlacement& pending(int i) const { return games_[i].pending; }
    std::int64_t episode(int i) const { return games_[i].episode; }
    std::uint64_t current_seed(int i) const { return games_[i].episode_seed; }
    // True if game i ended on the last step(); then final_state(i) is the position it ended in and
    // final_player(i) the seat whose action ended it.
    bool ended(int i) const { return games_[i].ended; }
    const GameState& final_state(int i) const { return games_[i].final_state; }
    int final_player(int i) const { return games_[i].final_player; }

    // out[i] = the seat to move in game i.
    void current_players(std::int32_t* out) const;
    // Writes kObservationSize floats per game (write_observation()): game i as seen by
    // observers[i], or by its current player if observers is null. Requires valid seats.
    void observations(float* out, const std::int32_t* observers) const;
    // The same for the final positions of the games that ended on the last step, one row each in
    // ascending game order (observers[i] or, if null, the seat whose action ended game i; observers
    // is indexed by game, not by row). Returns the number of rows written.
    int final_observations(float* out, const std::int32_t* observers) const;
    // The legal actions of each game's seat to move (legal_action_mask()), in any of three forms:
    // `mask` kActionCount bytes per game (1 legal, 0 not); `packed` kPackedMaskBytes per game, bit
    // a % 8 of byte a / 8; `actions` the legal actions ascending in kMaxLegalActions int16 per
    // game (the rest -1) with their number in counts[i], for choosing among them without a mask
    // scan. Null pointers are not written; one pass per game fills all that are asked for.
    struct LegalOutput {
        std::uint8_t* mask = nullptr;
        std::uint8_t* packed = nullptr;
        std::int16_t* actions = nullptr;
        std::int32_t* counts = nullptr;  // required with actions
    };
    void legal(const LegalOutput& out) const;

    // One action per game drawn from the caller's masks, rows of `masks` (kActionCount bytes a
    // game, nonzero legal) or, with `packed`, of kPackedMaskBytes a game (bit a % 8 of byte a / 8):
    // out[i] = the k-th set entry of row i in ascending order, k = floor(uniforms[i] * count) with
    // count the row's set entries (k clamped below count), or -1 for a row with none. Reads only the
    // masks and uniforms, never the games, so a mask the caller narrowed is honoured; the rows are
    // split over the worker threads and out[i] does not depend on their number. Returns how many
    // rows had no set entry.
    int sample_masks(const std::uint8_t* masks, bool packed, const double* uniforms, std::int64_t* out) const;

    // Plays actions[i] (any int64; only 0 .. kActionCount-1 can be legal) in every game i. If any
    // action is illegal, nothing changes: the refused (game, action) pairs are returned, ascending
    // by game, and out is not written. Else the actions are played, built-in seats move, games
    // that ended are reported in out and re-dealt, and the returned list is empty.
    std::vector<IllegalAction> step(const std::int64_t* actions, const StepOutput& out);
    // The same for the games with active[i] != 0 only (null: all). The other games are not
    // touched: their position, ended flag and final position stay, and their rows of out are not
    // written. With keep_ended, an active game that does not end now keeps the ended flag and final
    // position of an earlier step (one call of the binding's caller-played opponents spans several
    // steps; a game ends at most once in it).
    std::vector<IllegalAction> step(const std::int64_t* actions, const StepOutput& out, const std::uint8_t* active,
                                    bool keep_ended);

    // Copies every game aside (save) and brings the copy back (restore): a batch that fails part
    // way (a caller-played opponent's refused action) then changes nothing. The copy's memory is
    // kept for the next save.
    void save();
    void restore();

private:
    // One game; a cache line of its own start so that threads working on neighbouring games never
    // write the same line.
    struct alignas(64) Slot {
        GameState state;
        PendingPlacement pending;
        SplitMix64 rng{0};  // the built-in seats' generator
        std::int64_t episode = 0;
        std::uint64_t episode_seed = 0;
        bool ended = false;
        std::int8_t final_player = -1;
        GameState final_state;
        // step()'s resolution of this game's action, between its check and play phases.
        ActionOutcome outcome = ActionOutcome::Illegal;
        PendingPlacement next_pending;
        MoveId move = 0;
    };

    // One worker's memory for the network seats (allocated with the VectorGame, reused).
    struct NetScratch {
        NetWorkspace ws;
        NetPolicyScratch policy;
        MoveId moves[kMoveListCapacity];
        float probs[kMoveListCapacity];
    };

    void deal(int i, std::int64_t episode, int worker);
    // Built-in seats move until a Caller seat is to move or the game is over.
    void advance_builtin(Slot& g, int worker);
    MoveId net_move(Slot& g, NetScratch& scratch) const;
    // Runs fn(begin, end, worker) over [0, size()) split into contiguous ranges, one per worker of
    // pool_ (worker: 0 .. workers-1, the index of the range and of its NetScratch).
    template <class Fn>
    void parallel(Fn&& fn) const;

    Config config_;
    std::uint32_t max_turns_;
    int threads_;
    std::uint64_t seed_ = 0;
    std::array<SeatPolicy, kMaxPlayers> seats_;
    HeuristicWeights weights_;
    std::vector<Slot> games_;
    std::vector<Slot> saved_;  // save()'s copy
    std::uint64_t saved_seed_ = 0;
    NetSeats net_;
    std::vector<std::unique_ptr<NetScratch>> scratch_;  // one per worker when a seat is Net
    // The threads of every call, started once (null with one thread): a step of a few hundred
    // games takes about as long as starting a thread.
    std::unique_ptr<WorkerPool> pool_;
};

}  // namespace SEQUENCE_ISA
}  // namespace sequence
