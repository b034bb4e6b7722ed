// Many complete games of uniformly random legal moves (random_legal_move), for throughput
// measurement and statistics of random play.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "sequence/isa.hpp"
#include "sequence/state.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

struct SimulateResult {
    std::int64_t games = 0;                 // games completed (fewer than asked only if stopped)
    std::array<std::int64_t, kMaxTeams> wins{};  // per team
    std::int64_t draws = 0;                 // stalemates (R5) and turn caps
    std::int64_t total_turns = 0;           // sum of GameState::turn at the end of each game
    double seconds = 0;
    bool interrupted = false;               // stop was raised before every game was played
};

// The seeds of game i of a run with seed `seed`: the deal uses the (i+1)-th output of
// SplitMix64(seed) (i.e. SplitMix64(seed + i * 0x9E3779B97F4A7C15).next()), the random moves a
// SplitMix64 seeded with one further mix of that value. So every game depends only on (seed, i),
// never on which thread plays it, and the totals are identical for any thread count.
std::uint64_t simulate_deal_seed(std::uint64_t seed, std::int64_t game);
std::uint64_t simulate_move_seed(std::uint64_t seed, std::int64_t game);

// The deal of one simulate() game (docs/rng.md, "simulate()"): not Game's deal (new_game()), a
// cheaper one with the same distribution, reproducible per seed. The fresh deck is shuffled once
// (Fisher-Yates from the back, two swaps per SplitMix64(seed) output: Lemire's method on each 32-bit
// half), the dealer is drawn uniformly (below(players)) instead of cut for (R4), then the cards are
// dealt from the top starting at the dealer's left and the seat after the dealer moves first, as in
// new_game(). The state's rng continues from the deal's generator (R6 reshuffles as in Game).
GameState simulate_new_game(const Config& config, std::uint64_t seed, std::uint32_t max_turns);

// Plays `games` games (config from make_config(); max_turns > 0 caps each game: a draw) on
// `threads` workers (parallel.hpp; requires games >= 0 and 1 <= threads <= kMaxThreads), which claim
// blocks of game indices from a shared counter. `stop` (may be null) is polled between games; when
// raised, the games finished so far are reported. A worker that fails (std::bad_alloc) or cannot
// be started stops the others and the exception reaches the caller (run_workers()).
SimulateResult simulate(std::int64_t games, const Config& config, std::uint64_t seed, int threads,
                        std::uint32_t max_turns, const std::atomic<bool>* stop);

}  // namespace SEQUENCE_ISA
}  // namespace sequence
