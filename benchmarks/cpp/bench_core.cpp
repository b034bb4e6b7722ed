// Micro-benchmark of the C++ core's hot primitives (built only with -DSEQUENCE_BUILD_BENCH=ON):
//
//   cmake -S . -B build/bench -DSEQUENCE_BUILD_BENCH=ON && cmake --build build/bench -j2
//   build/bench/sequence_bench [games]          # wall-clock ns per turn
//   build/bench/sequence_bench [games] sim      # simulate() alone (for perf stat / perf record)
//
// Deterministic instruction counts with callgrind (valgrind cannot decode AVX-512, so build for
// x86-64-v3 there); every phase is a noinline function, so the inclusive counts split by phase:
//   cmake -S . -B build/cg -DSEQUENCE_BUILD_BENCH=ON -DSEQUENCE_NATIVE=OFF -DCMAKE_CXX_FLAGS="-march=x86-64-v3 -g"
//   valgrind --tool=callgrind --callgrind-out-file=cg.out build/cg/sequence_bench 300
//   callgrind_annotate --inclusive=yes cg.out | grep phase_
// Branch mispredictions per run, from cachegrind's simulated predictor (for VMs without
// hardware counters, where perf stat cannot count branch-misses):
//   valgrind --tool=cachegrind --cache-sim=no --branch-sim=yes build/cg/sequence_bench 3000 sim
//
// Random 2-player games (uniform over the full legal list, seeded, turn cap 1000):
//   full    legal_moves(MoveList) + pick + apply_move, per applied move, per turn and per game
//   apply   apply_move alone, replaying the recorded move ids from copies of the deal
//   detect  sequence detection: declare_options() for the team to move on every empty cell of
//           recorded positions (mostly rejections, like a playout's placements)
//   hit     declare_options() on placements that do complete a line (the accept path)
//   dead    dead_cards() of the player to move
//   copy    GameState copy (sizeof(GameState) bytes)
// and the random-playout path of simulate() (uniform over playout.hpp's slots, not over the list):
//   sim     simulate(games, 2 players, 1 thread, turn cap 1000): games/s and ns per turn, deal included
//   sdeal   the deal simulate() uses (simulate_new_game), per game
//   gdeal   new_game(), the docs/rng.md deal of Game, per game (for comparison)
//   pick    random_legal_move() alone on the positions of simulate's games
//   papply  apply_move() alone replaying simulate's moves
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sequence/playout.hpp"
#include "sequence/rng.hpp"
#include "sequence/rules.hpp"
#include "sequence/simulate.hpp"

using namespace sequence;
using Clock = std::chrono::steady_clock;

namespace {

volatile std::uint64_t g_sink;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Recorded {
    GameState start;
    std::vector<MoveId> moves;
};

struct Counts {
    std::uint64_t applies = 0, turns = 0;
};

SEQUENCE_NOINLINE Counts phase_full(std::vector<Recorded>& rec, const Config& cfg) {
    Counts c;
    static MoveList list;
    SplitMix64 pick(12345);
    for (std::size_t g = 0; g < rec.size(); ++g) {
        GameState s = new_game(cfg, static_cast<std::uint64_t>(g), 1000);
        rec[g].start = s;
        while (!is_over(s)) {
            list.size = 0;
            legal_moves(s, list);
            const MoveId m = list.moves[pick.below(static_cast<std::uint32_t>(list.size))];
            rec[g].moves.push_back(m);
            apply_move(s, m);
            ++c.applies;
        }
        c.turns += s.turn;
    }
    return c;
}

SEQUENCE_NOINLINE std::uint64_t phase_apply(const std::vector<Recorded>& rec) {
    std::uint64_t sum = 0;
    for (const Recorded& r : rec) {
        GameState s = r.start;
        for (MoveId m : r.moves) apply_move(s, m);
        sum += s.turn;
    }
    return sum;
}

SEQUENCE_NOINLINE std::uint64_t phase_detect(const std::vector<GameState>& positions, int reps,
                                                     std::uint64_t& calls) {
    std::uint64_t sum = 0;
    for (int r = 0; r < reps; ++r)
        for (const GameState& s : positions) {
            const int team = team_of(s, s.current_player);
            DeclareOptions opt;
            for (int cell : empty_cells(s)) {
                declare_options(s, team, cell, opt);
                sum += opt.codes[0][0] + opt.codes[1][0] + opt.codes[2][0] + opt.codes[3][0];
                ++calls;
            }
        }
    return sum;
}

SEQUENCE_NOINLINE std::uint64_t phase_hit(const std::vector<std::pair<const GameState*, int>>& hits, int reps) {
    std::uint64_t sum = 0;
    for (int r = 0; r < reps; ++r)
        for (const auto& h : hits) {
            DeclareOptions opt;
            declare_options(*h.first, team_of(*h.first, h.first->current_player), h.second, opt);
            sum += opt.codes[0][0] + opt.codes[1][0] + opt.codes[2][0] + opt.codes[3][0];
        }
    return sum;
}

SEQUENCE_NOINLINE std::uint64_t phase_dead(const std::vector<GameState>& positions, int reps) {
    std::uint64_t sum = 0;
    for (int r = 0; r < reps; ++r)
        for (const GameState& s : positions) {
            Card out[kMaxHand];
            sum += dead_cards(s, s.current_player, out);
        }
    return sum;
}

SEQUENCE_NOINLINE std::uint64_t phase_copy(const std::vector<GameState>& positions, int reps) {
    GameState dst;
    std::uint64_t sum = 0;
    for (int r = 0; r < reps; ++r)
        for (const GameState& s : positions) {
            std::memcpy(&dst, &s, sizeof s);
            g_sink = dst.turn;
            sum += dst.turn;
        }
    return sum;
}

SEQUENCE_NOINLINE SimulateResult phase_sim(std::int64_t games, const Config& cfg) {
    return simulate(games, cfg, 1, 1, 1000, nullptr);
}

SEQUENCE_NOINLINE std::uint64_t phase_sdeal(int games, const Config& cfg) {
    std::uint64_t sum = 0;
    for (int g = 0; g < games; ++g) {
        GameState s = simulate_new_game(cfg, simulate_deal_seed(1, g), 1000);
        sum += s.hands[0][0] + s.current_player;
    }
    return sum;
}

SEQUENCE_NOINLINE std::uint64_t phase_gdeal(int games, const Config& cfg) {
    std::uint64_t sum = 0;
    for (int g = 0; g < games; ++g) {
        GameState s = new_game(cfg, simulate_deal_seed(1, g), 1000);
        sum += s.hands[0][0] + s.current_player;
    }
    return sum;
}

// simulate()'s games, recorded: the positions before each move and the moves.
struct Playouts {
    std::vector<GameState> starts;
    std::vector<GameState> positions;  // a sample (the first games), for pick
    std::vector<std::vector<MoveId>> moves;
    std::uint64_t turns = 0, applies = 0;
};
Playouts record_playouts(int games, const Config& cfg, int keep) {
    Playouts r;
    r.moves.resize(games);
    for (int g = 0; g < games; ++g) {
        GameState s = simulate_new_game(cfg, simulate_deal_seed(1, g), 1000);
        r.starts.push_back(s);
        SplitMix64 rng(simulate_move_seed(1, g));
        while (!is_over(s)) {
            const MoveId m = random_legal_move(s, rng);
            if (g < keep) r.positions.push_back(s);
            r.moves[g].push_back(m);
            apply_move(s, m);
            ++r.applies;
        }
        r.turns += s.turn;
    }
    return r;
}

SEQUENCE_NOINLINE std::uint64_t phase_pick(const std::vector<GameState>& positions, int reps) {
    std::uint64_t sum = 0;
    SplitMix64 rng(7);
    for (int r = 0; r < reps; ++r)
        for (const GameState& s : positions) sum += random_legal_move(s, rng);
    return sum;
}

SEQUENCE_NOINLINE std::uint64_t phase_papply(const Playouts& p) {
    std::uint64_t sum = 0;
    for (std::size_t g = 0; g < p.starts.size(); ++g) {
        GameState s = p.starts[g];
        for (MoveId m : p.moves[g]) apply_move(s, m);
        sum += s.turn;
    }
    return sum;
}

}  // namespace

int main(int argc, char** argv) {
    const int games = argc > 1 ? std::atoi(argv[1]) : 20000;
    Config cfg;
    make_config(2, 2, cfg);
    std::uint64_t checksum = 0;
    if (argc > 2 && std::strcmp(argv[2], "sim") == 0) {  // simulate() only, for perf stat / perf record
        const auto t = Clock::now();
        const SimulateResult sim = phase_sim(games, cfg);
        const double sec = seconds_since(t);
        std::printf("sim    (simulate, 1 thread)  %7.1f ns/turn  %9.0f games/s  (%.1f turns/game, deal included)\n",
                    sec * 1e9 / sim.total_turns, sim.games / sec, double(sim.total_turns) / sim.games);
        std::printf("       wins %lld / %lld, draws %lld, turns %lld\n", static_cast<long long>(sim.wins[0]),
                    static_cast<long long>(sim.wins[1]), static_cast<long long>(sim.draws),
                    static_cast<long long>(sim.total_turns));
        return 0;
    }

    std::vector<Recorded> rec(games);
    auto t0 = Clock::now();
    const Counts c = phase_full(rec, cfg);
    const double full = seconds_since(t0);

    t0 = Clock::now();
    checksum += phase_apply(rec);
    const double apply = seconds_since(t0);

    // A few games' positions (~1600, stays in L2) for the per-call phases, repeated.
    std::vector<GameState> positions;
    std::vector<std::pair<const GameState*, int>> hits;
    const int keep = games < 20 ? games : 20;
    const int reps = games >= 2000 ? 50 : 1;
    for (int g = 0; g < keep; ++g) {
        GameState s = rec[g].start;
        for (MoveId m : rec[g].moves) {
            positions.push_back(s);
            apply_move(s, m);
        }
    }
    for (const GameState& s : positions) {
        MoveList list;
        legal_moves(s, list);
        for (MoveId m : list)
            if ((m >> 15) != 0) hits.emplace_back(&s, Move::from_id(m).cell);
    }

    std::uint64_t detect_calls = 0;
    t0 = Clock::now();
    checksum += phase_detect(positions, reps, detect_calls);
    const double detect = seconds_since(t0);

    t0 = Clock::now();
    checksum += phase_hit(hits, reps * 20);
    const double hit = seconds_since(t0);

    t0 = Clock::now();
    checksum += phase_dead(positions, reps);
    const double dead = seconds_since(t0);

    t0 = Clock::now();
    checksum += phase_copy(positions, reps);
    const double copy = seconds_since(t0);
    g_sink = checksum;

    t0 = Clock::now();
    const SimulateResult sim = phase_sim(games, cfg);
    const double sim_s = seconds_since(t0);

    t0 = Clock::now();
    checksum += phase_sdeal(games, cfg);
    const double sdeal = seconds_since(t0);

    t0 = Clock::now();
    checksum += phase_gdeal(games, cfg);
    const double gdeal = seconds_since(t0);

    const Playouts play = record_playouts(games, cfg, keep);
    t0 = Clock::now();
    checksum += phase_pick(play.positions, reps);
    const double pick = seconds_since(t0);

    t0 = Clock::now();
    checksum += phase_papply(play);
    const double papply = seconds_since(t0);

    const double n_pos = double(reps) * positions.size();
    std::printf("games %d, applied moves %llu, turns %llu (%.1f turns/game), sizeof(GameState) %zu\n", games,
                static_cast<unsigned long long>(c.applies), static_cast<unsigned long long>(c.turns),
                double(c.turns) / games, sizeof(GameState));
    std::printf("full   (legal_moves + apply) %7.1f ns/move  %7.1f ns/turn  %9.0f games/s\n", full * 1e9 / c.applies,
                full * 1e9 / c.turns, games / full);
    std::printf("apply  (apply_move alone)    %7.1f ns/move  %7.1f ns/turn\n", apply * 1e9 / c.applies,
                apply * 1e9 / c.turns);
    std::printf("detect (declare_options)     %7.1f ns/call, any empty cell (%llu calls)\n",
                detect * 1e9 / detect_calls, static_cast<unsigned long long>(detect_calls));
    std::printf("hit    (declare_options)     %7.1f ns/call, a placement that completes a line (%zu cells)\n",
                hit * 1e9 / (double(reps) * 20 * hits.size()), hits.size());
    std::printf("dead   (dead_cards)          %7.1f ns/call\n", dead * 1e9 / n_pos);
    std::printf("copy   (memcpy GameState)    %7.1f ns/copy\n", copy * 1e9 / n_pos);
    std::printf("sim    (simulate, 1 thread)  %7.1f ns/turn  %9.0f games/s  (%.1f turns/game, deal included)\n",
                sim_s * 1e9 / sim.total_turns, sim.games / sim_s, double(sim.total_turns) / sim.games);
    std::printf("sdeal  (simulate_new_game)   %7.1f ns/game\n", sdeal * 1e9 / games);
    std::printf("gdeal  (new_game, docs/rng)  %7.1f ns/game\n", gdeal * 1e9 / games);
    std::printf("pick   (random_legal_move)   %7.1f ns/call\n", pick * 1e9 / (double(reps) * play.positions.size()));
    std::printf("papply (apply_move, playout) %7.1f ns/move  (%.1f moves/game)\n", papply * 1e9 / play.applies,
                double(play.applies) / games);
    return 0;
}
