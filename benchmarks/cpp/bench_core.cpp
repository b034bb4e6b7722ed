// Micro-benchmark of the C++ core's hot primitives (built only with -DSEQUENCE_BUILD_BENCH=ON):
//
//   cmake -S . -B build/bench -DSEQUENCE_BUILD_BENCH=ON && cmake --build build/bench -j2
//   build/bench/sequence_bench [games]          # wall-clock ns per turn
//
// Deterministic instruction counts with callgrind (valgrind cannot decode AVX-512, so build for
// x86-64-v3 there); every phase is a noinline function, so the inclusive counts split by phase:
//   cmake -S . -B build/cg -DSEQUENCE_BUILD_BENCH=ON -DSEQUENCE_NATIVE=OFF -DCMAKE_CXX_FLAGS="-march=x86-64-v3 -g"
//   valgrind --tool=callgrind --callgrind-out-file=cg.out build/cg/sequence_bench 300
//   callgrind_annotate --inclusive=yes cg.out | grep phase_
//
// Random 2-player games (uniform over the full legal list, seeded, turn cap 1000):
//   full    legal_moves(MoveList) + pick + apply_move, per applied move, per turn and per game
//   apply   apply_move alone, replaying the recorded move ids from copies of the deal
//   detect  sequence detection: declare_options() for the team to move on every empty cell of
//           recorded positions (mostly rejections, like a playout's placements)
//   hit     declare_options() on placements that do complete a line (the accept path)
//   dead    dead_cards() of the player to move
//   copy    GameState copy (sizeof(GameState) bytes)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sequence/rng.hpp"
#include "sequence/rules.hpp"

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

__attribute__((noinline)) Counts phase_full(std::vector<Recorded>& rec, const Config& cfg) {
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

__attribute__((noinline)) std::uint64_t phase_apply(const std::vector<Recorded>& rec) {
    std::uint64_t sum = 0;
    for (const Recorded& r : rec) {
        GameState s = r.start;
        for (MoveId m : r.moves) apply_move(s, m);
        sum += s.turn;
    }
    return sum;
}

__attribute__((noinline)) std::uint64_t phase_detect(const std::vector<GameState>& positions, int reps,
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

__attribute__((noinline)) std::uint64_t phase_hit(const std::vector<std::pair<const GameState*, int>>& hits, int reps) {
    std::uint64_t sum = 0;
    for (int r = 0; r < reps; ++r)
        for (const auto& h : hits) {
            DeclareOptions opt;
            declare_options(*h.first, team_of(*h.first, h.first->current_player), h.second, opt);
            sum += opt.codes[0][0] + opt.codes[1][0] + opt.codes[2][0] + opt.codes[3][0];
        }
    return sum;
}

__attribute__((noinline)) std::uint64_t phase_dead(const std::vector<GameState>& positions, int reps) {
    std::uint64_t sum = 0;
    for (int r = 0; r < reps; ++r)
        for (const GameState& s : positions) {
            Card out[kMaxHand];
            sum += dead_cards(s, s.current_player, out);
        }
    return sum;
}

__attribute__((noinline)) std::uint64_t phase_copy(const std::vector<GameState>& positions, int reps) {
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

}  // namespace

int main(int argc, char** argv) {
    const int games = argc > 1 ? std::atoi(argv[1]) : 20000;
    Config cfg;
    make_config(2, 2, cfg);
    std::uint64_t checksum = 0;

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
    return 0;
}
