// Random games for every player count and team split, checking invariants after every change:
// 104 cards conserved, hands sorted and bounded, the legal list ordered, unique and exactly what
// check_move() accepts, undo restores, and to_position/from_position round-trips.
#include <algorithm>
#include <tuple>

#include "helpers.hpp"
#include "sequence/game.hpp"
#include "sequence/rng.hpp"
#include "test.hpp"

using namespace sequence;
using namespace test;

namespace {

// The docs/notation.md order key of a move.
std::tuple<int, int, int, std::vector<std::vector<int>>> key(MoveId id) {
    const Move m = Move::from_id(id);
    return {int(m.kind), m.card, m.cell, declared(id)};
}

void check_invariants(const GameState& s) {
    for (int p = 0; p < s.config.players; ++p) CHECK(s.hand_count[p] <= s.config.hand_size);
    check_cards_conserved(s);
    CHECK((s.chips[0] & s.chips[1]).none() && (s.chips[0] & s.chips[2]).none() && (s.chips[1] & s.chips[2]).none());
    CHECK((occupied(s) & corners()).none());
    CHECK(s.locked.subset_of(occupied(s)));

    const std::vector<MoveId> ms = moves(s);
    MoveList list;
    CHECK(legal_moves(s, list));
    CHECK(std::equal(ms.begin(), ms.end(), list.begin(), list.end()));
    CHECK_EQ(ms.empty(), is_over(s));
    for (std::size_t i = 0; i < ms.size(); ++i) {
        CHECK(check_move(s, ms[i]) == MoveError::None);
        if (i > 0) CHECK(key(ms[i - 1]) < key(ms[i]));
    }
    // Near misses of legal ids are legal only if listed.
    SplitMix64 r(s.rng ^ s.turn);
    for (int k = 0; k < 20 && !ms.empty(); ++k) {
        MoveId m = ms[r.below(std::uint32_t(ms.size()))] ^ (1u << r.below(27));
        CHECK_EQ(check_move(s, m) == MoveError::None, contains(ms, m));
    }
    std::string error;
    const auto back = from_position(to_position(s), error);
    CHECK(back.has_value());
    if (back) CHECK(to_position(*back) == to_position(s));
}

// Plays one game to the end (or max_turns); returns the number of changes made.
int play_random_game(int players, int teams, std::uint64_t seed, std::uint32_t max_turns, int stats[3]) {
    Config cfg;
    CHECK(make_config(players, teams, cfg));
    Game g(new_game(cfg, seed, max_turns));
    SplitMix64 chooser(seed * 7919 + 1);
    std::vector<Position> trail{to_position(g.state())};
    while (!is_over(g.state())) {
        check_invariants(g.state());
        const std::vector<MoveId> ms = moves(g.state());
        const std::uint32_t pick = chooser.below(100);
        const GameState& s = g.state();
        if (pick < 2 && s.last_draw_player >= 0) {
            CHECK(g.missed_draw(s.last_draw_player) == RefereeError::None);
        } else if (pick < 4) {
            int cards[kMaxPlayers];
            std::fill(cards, cards + kMaxPlayers, -1);
            const int team = int(chooser.below(cfg.teams));
            bool all = true;
            for (int p = team; p < players; p += cfg.teams) {
                if (s.hand_count[p] == 0) all = false;
                else cards[p] = s.hands[p][chooser.below(s.hand_count[p])];
            }
            CHECK((g.table_talk_penalty(team, cards) == RefereeError::None) == all);
        } else {
            CHECK(g.play(ms[chooser.below(std::uint32_t(ms.size()))]) == MoveError::None);
        }
        if (g.history_size() + 1 != trail.size()) trail.push_back(to_position(g.state()));
    }
    check_invariants(g.state());
    stats[g.state().winner >= 0 ? 0 : g.state().passes >= players ? 1 : 2]++;
    const int changes = int(g.history_size());
    CHECK_EQ(int(trail.size()), changes + 1);
    // Undo walks back through every recorded state to the deal.
    for (int i = changes; i > 0; --i) {
        CHECK(to_position(g.state()) == trail[i]);
        CHECK(g.undo());
    }
    CHECK(to_position(g.state()) == trail[0]);
    CHECK(!g.undo());
    return changes;
}

}  // namespace

TEST(random_games_every_player_count_keep_invariants) {
    const int splits[][2] = {{2, 2}, {3, 3}, {4, 2}, {6, 2}, {6, 3}, {8, 2}, {9, 3}, {10, 2}, {12, 2}, {12, 3}};
    long total = 0;
    for (const auto& split : splits) {
        int stats[3] = {};
        for (std::uint64_t seed = 0; seed < 12; ++seed)
            total += play_random_game(split[0], split[1], seed, seed % 3 == 0 ? 60 : 0, stats);
        std::printf("  %2d players %d teams: %d won, %d stalemates, %d capped\n", split[0], split[1], stats[0],
                    stats[1], stats[2]);
    }
    std::printf("  %ld changes checked\n", total);
}
