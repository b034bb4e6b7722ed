// Playouts, simulate, determinization and ISMCTS: random_legal_move is always legal, determinize
// conserves the cards and reads only the observation, the search returns legal moves.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <new>
#include <stdexcept>
#include <thread>
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "helpers.hpp"
#include "sequence/parallel.hpp"
#include "sequence/playout.hpp"
#include "sequence/search/greedy_playout.hpp"
#include "sequence/rng.hpp"
#include "sequence/search/decisive.hpp"
#include "sequence/search/ismcts.hpp"
#include "sequence/search/puct.hpp"
#include "sequence/search/rollout.hpp"
#include "sequence/simulate.hpp"
#include "test.hpp"

using namespace sequence;
using namespace test;

namespace {

const int kSplits[][2] = {{2, 2}, {3, 3}, {4, 2}, {6, 2}, {6, 3}, {8, 2}, {9, 3}, {10, 2}, {12, 2}, {12, 3}};

Config config_of(int players, int teams) {
    Config c;
    make_config(players, teams, c);
    return c;
}

bool same_world(const GameState& a, const GameState& b) {
    return std::memcmp(a.hands, b.hands, sizeof a.hands) == 0 &&
           std::memcmp(a.hand_count, b.hand_count, sizeof a.hand_count) == 0 && a.draw_size == b.draw_size &&
           std::memcmp(a.cards, b.cards, a.draw_size) == 0 && a.rng == b.rng &&  // the draw pile
           a.discard_size == b.discard_size &&
           std::memcmp(a.cards + kDeckSize - a.discard_size, b.cards + kDeckSize - a.discard_size, a.discard_size) == 0 &&
           a.chips[0] == b.chips[0] && a.chips[1] == b.chips[1] && a.chips[2] == b.chips[2] &&
           a.current_player == b.current_player && a.turn == b.turn;
}

// The state with every hidden card of `player`'s view permuted (other hands and the draw pile,
// keeping sizes), a different generator state, and every unspecified byte of the card storage
// (hand slots past the counts, the gap between the draw pile and the discard log, owner nibbles
// past the log) overwritten.
GameState scramble_hidden(const GameState& s, int player, SplitMix64& rng) {
    GameState t = s;
    Card hidden[kDeckSize];
    int n = 0;
    for (int p = 0; p < s.config.players; ++p)
        if (p != player)
            for (int i = 0; i < s.hand_count[p]; ++i) hidden[n++] = s.hands[p][i];
    for (int i = 0; i < s.draw_size; ++i) hidden[n++] = draw_pile_card(s, i);
    shuffle(hidden, n, rng);
    int k = 0;
    for (int p = 0; p < s.config.players; ++p)
        if (p != player) {
            for (int i = 0; i < s.hand_count[p]; ++i) t.hands[p][i] = hidden[k++];
            std::sort(t.hands[p], t.hands[p] + t.hand_count[p]);
        }
    for (int i = 0; i < s.draw_size; ++i) set_draw_pile_card(t, i, hidden[k++]);
    for (int p = 0; p < kMaxPlayers; ++p)
        for (int i = t.hand_count[p]; i < kHandSlot; ++i) t.hands[p][i] = static_cast<Card>(rng.next());
    for (int i = t.draw_size; i < kDeckSize - t.discard_size; ++i) t.cards[i] = static_cast<Card>(rng.next());
    for (int i = t.discard_size; i < kDeckSize; ++i) {  // low nibbles: discards 0..51, high: 52..103
        std::uint8_t& b = t.discard_owner_nibbles[i % (kDeckSize / 2)];
        const int shift = i < kDeckSize / 2 ? 0 : 4;
        b = static_cast<std::uint8_t>((b & (0xF0 >> shift)) | ((rng.next() & 0xF) << shift));
    }
    t.rng = rng.next();
    t.seed = rng.next();
    if (t.last_draw_player >= 0 && t.last_draw_player != player) t.last_draw_player = -1;
    return t;
}

}  // namespace

TEST(search_random_legal_move_is_always_legal) {
    for (const auto& split : kSplits) {
        const Config cfg = config_of(split[0], split[1]);
        for (std::uint64_t seed = 0; seed < 12; ++seed) {
            GameState s = new_game(cfg, seed * 977 + split[0], 400);
            SplitMix64 rng(seed);
            while (!is_over(s)) {
                const MoveId m = random_legal_move(s, rng);
                const MoveError e = check_move(s, m);
                CHECK(e == MoveError::None);
                if (e != MoveError::None) break;
                apply_move(s, m);
            }
        }
    }
}

TEST(search_playout_step_matches_random_legal_move_and_apply_move) {
    // random_playout's turn (hands kept as card-id sets and free cell counts, updated move by
    // move) gives the same move and generator state as the stateless random_legal_move, and
    // leaves the same state as apply_move, every turn of whole games of every split, through
    // trades, removals, sequences, reshuffles (R6) and passes.
    for (const auto& split : kSplits) {
        const Config cfg = config_of(split[0], split[1]);
        for (std::uint64_t seed = 0; seed < 8; ++seed) {
            GameState fast = new_game(cfg, seed * 131 + split[0], 600);
            GameState plain = fast;
            PlayoutHands hands(fast);
            SplitMix64 rng(seed + 17);
            while (!is_over(plain)) {
                SplitMix64 copy = rng;
                const MoveId m = random_legal_move(plain, copy);
                apply_move(plain, m);
                CHECK_EQ(random_playout_step(fast, hands, rng), m);
                CHECK_EQ(rng.state(), copy.state());
                GameState synced = fast;
                hands.write_hands(synced);
                CHECK(to_position(synced) == to_position(plain));
                // The sets the next pick reads, kept move by move.
                CHECK(hands.empty == empty_cells(plain));
                for (int t = 0; t < cfg.teams; ++t)
                    CHECK_EQ(int(hands.unlocked_total - hands.unlocked[t]), removable_cells(plain, t).count());
                if (!(to_position(synced) == to_position(plain)) || rng.state() != copy.state()) break;
            }
            const PlayoutHands fresh(plain);
            for (int p = 0; p < cfg.players; ++p) {
                CHECK_EQ(hands.seat[p].ids, fresh.seat[p].ids);
                CHECK_EQ(hands.seat[p].dups, fresh.seat[p].dups);
                CHECK(hands.seat[p].cells == fresh.seat[p].cells);
            }
            CHECK_EQ(hands.dead_ids, fresh.dead_ids);
            CHECK(hands.empty == empty_cells(plain));
            CHECK(fresh.empty == empty_cells(plain));
            for (int t = 0; t < cfg.teams; ++t) {
                CHECK_EQ(int(hands.unlocked_total - hands.unlocked[t]), removable_cells(plain, t).count());
                CHECK_EQ(int(fresh.unlocked_total - fresh.unlocked[t]), removable_cells(plain, t).count());
            }
            for (int p = 0; p < cfg.players; ++p) {
                CHECK_EQ(int(hands.seat[p].team), team_of(plain, p));
                CHECK_EQ(int(hands.seat[p].next), (p + 1) % cfg.players);
            }
            CHECK_EQ(hands.last_turn, 599u);  // max_turns 600
            for (int c = 0; c < kCardKinds; ++c)
                if (!is_jack(c)) CHECK_EQ(int(hands.free[c]), int(fresh.free[c]));
        }
    }
}

TEST(search_random_playout_is_random_legal_move_and_apply_move) {
    // random_playout() ends in the state of the random_legal_move + apply_move loop, hands written
    // back, with the same generator state; also when stopped by a turn limit.
    for (const auto& split : kSplits) {
        const Config cfg = config_of(split[0], split[1]);
        for (std::uint64_t seed = 0; seed < 4; ++seed)
            for (std::uint32_t limit : {25u, UINT32_MAX}) {
                GameState fast = new_game(cfg, seed * 977 + split[1], 0);
                GameState plain = fast;
                SplitMix64 rng(seed), copy(seed);
                const int winner = random_playout(fast, rng, limit);
                while (!is_over(plain) && plain.turn < limit) apply_move(plain, random_legal_move(plain, copy));
                CHECK_EQ(winner, int(plain.winner));
                CHECK_EQ(rng.state(), copy.state());
                CHECK(to_position(fast) == to_position(plain));
            }
    }
}

namespace {

// Hands out games 0 .. games-1 (dealt by new_game from per-game seeds) to random_playouts() and
// keeps each finished game's final position, hands written back.
struct RecordingFeed final : PlayoutFeed {
    Config cfg;
    int games;
    int handed = 0;
    std::vector<Position> finals;
    std::vector<int> order;
    RecordingFeed(const Config& c, int g) : cfg(c), games(g), finals(static_cast<std::size_t>(g)) {}
    static GameState game(const Config& cfg, int i) { return new_game(cfg, 7919u * static_cast<std::uint64_t>(i) + 3, 400); }
    bool next(GameState& s, PlayoutHands& hands, SplitMix64& rng) override {
        if (handed == games) return false;
        s = game(cfg, handed);
        s.seed = static_cast<std::uint64_t>(handed);  // the game's index (play never reads it), read back in finished()
        hands = PlayoutHands(s);
        rng = SplitMix64(static_cast<std::uint64_t>(handed) + 101);
        ++handed;
        return true;
    }
    void finished(const GameState& s, const PlayoutHands& hands) override {
        GameState out = s;
        hands.write_hands(out);
        const int i = static_cast<int>(out.seed);
        out.seed = game(cfg, i).seed;
        order.push_back(i);
        finals[static_cast<std::size_t>(i)] = to_position(out);
    }
};

}  // namespace

TEST(search_random_playouts_play_each_game_as_random_playout_alone) {
    // Games played side by side, a turn of each in turn, end exactly as random_playout() plays
    // each alone, for every split and number of lanes, whatever order they finish in.
    bool interleaved = false;
    for (const auto& split : kSplits) {
        const Config cfg = config_of(split[0], split[1]);
        constexpr int kGames = 9;
        std::vector<Position> alone;
        for (int i = 0; i < kGames; ++i) {
            GameState s = RecordingFeed::game(cfg, i);
            SplitMix64 rng(static_cast<std::uint64_t>(i) + 101);
            random_playout(s, rng, UINT32_MAX);
            alone.push_back(to_position(s));
        }
        const auto check = [&](RecordingFeed& feed) {
            CHECK_EQ(int(feed.order.size()), kGames);
            for (int i = 0; i < kGames; ++i) CHECK(feed.finals[static_cast<std::size_t>(i)] == alone[static_cast<std::size_t>(i)]);
        };
        RecordingFeed one(cfg, kGames), two(cfg, kGames), three(cfg, kGames), four(cfg, kGames);
        random_playouts<1>(one);
        random_playouts<2>(two);
        random_playouts<3>(three);
        random_playouts<4>(four);
        check(one);
        check(two);
        check(three);
        check(four);
        interleaved = interleaved || two.order != one.order;
    }
    CHECK(interleaved);  // the lanes did interleave: games of different lengths finished out of order
}

TEST(search_simulate_totals_are_those_of_random_playout_game_by_game) {
    // simulate() (its own deal, games side by side in lanes) sums exactly what random_playout()
    // gives on simulate_new_game() game by game, with the moves' generator of simulate_move_seed().
    for (const auto& split : kSplits) {
        const Config cfg = config_of(split[0], split[1]);
        for (std::uint32_t cap : {0u, 60u}) {
            SimulateResult expect;
            for (int i = 0; i < 150; ++i) {
                GameState s = simulate_new_game(cfg, simulate_deal_seed(5, i), cap);
                SplitMix64 rng(simulate_move_seed(5, i));
                const int winner = random_playout(s, rng, UINT32_MAX);
                ++expect.games;
                if (winner >= 0) ++expect.wins[static_cast<std::size_t>(winner)];
                else ++expect.draws;
                expect.total_turns += s.turn;
            }
            for (int threads : {1, 2}) {
                const SimulateResult got = simulate(150, cfg, 5, threads, cap, nullptr);
                CHECK_EQ(got.games, expect.games);
                CHECK(got.wins == expect.wins);
                CHECK_EQ(got.draws, expect.draws);
                CHECK_EQ(got.total_turns, expect.total_turns);
            }
        }
    }
}

namespace {

// random_legal_move()'s contract (playout.hpp) written out the slow way, from legal_moves(): the
// slots listed one by one in the documented order, one drawn with rng.below(slots), then a
// placement's declares drawn among its declare_options() combinations (direction 0 the lowest
// digit) only when there are several. The playout's fast pick must give the same move and leave
// the generator in the same state, so that simulate()'s results stay those of this definition.
MoveId slow_random_legal_move(const GameState& s, SplitMix64& rng) {
    std::vector<MoveId> legal;
    legal_moves(s, legal);
    const auto has = [&](MoveKind kind, int card, int cell) {
        return std::any_of(legal.begin(), legal.end(), [&](MoveId id) {
            const Move m = Move::from_id(id);
            return m.kind == kind && m.card == card && (kind == MoveKind::Trade || m.cell == cell);
        });
    };
    struct Slot { MoveKind kind; int card, cell; };
    std::vector<Slot> slots;
    for (int cell = 0; cell < kCells; ++cell)  // 1. normal cards, by cell
        if (!is_corner(cell) && has(MoveKind::Place, card_at(cell), cell)) slots.push_back({MoveKind::Place, card_at(cell), cell});
    // 2. two-eyed jack ids ascending, each on every cell; then one-eyed ids on every chip
    const int two_eyed[2] = {std::min(kJackDiamonds, kJackClubs), std::max(kJackDiamonds, kJackClubs)};
    const int one_eyed[2] = {std::min(kJackSpades, kJackHearts), std::max(kJackSpades, kJackHearts)};
    for (int card : two_eyed)
        for (int cell = 0; cell < kCells; ++cell)
            if (has(MoveKind::Place, card, cell)) slots.push_back({MoveKind::Place, card, cell});
    for (int card : one_eyed)
        for (int cell = 0; cell < kCells; ++cell)
            if (has(MoveKind::Remove, card, cell)) slots.push_back({MoveKind::Remove, card, cell});
    const bool any_play = !slots.empty();
    for (int card = 0; card < kCardKinds; ++card)  // 3. trades
        if (has(MoveKind::Trade, card, 0)) slots.push_back({MoveKind::Trade, card, 0});
    if (!any_play) slots.push_back({MoveKind::Pass, 0, 0});  // 4. a pass, only without any play
    const Slot pick = slots[rng.below(static_cast<std::uint32_t>(slots.size()))];
    switch (pick.kind) {
        case MoveKind::Pass: return Move::pass().id();
        case MoveKind::Trade: return Move::trade(pick.card).id();
        case MoveKind::Remove: return Move::remove(pick.card, pick.cell).id();
        case MoveKind::Place: break;
    }
    DeclareOptions opt;
    declare_options(s, team_of(s, s.current_player), pick.cell, opt);
    std::uint32_t combos = 1;
    for (int d = 0; d < kDirections; ++d) combos *= opt.count[d];
    std::uint32_t k = combos > 1 ? rng.below(combos) : 0;
    int declares = 0;
    for (int d = 0; d < kDirections; ++d) {
        declares = with_declare(declares, d, opt.codes[d][k % opt.count[d]]);
        k /= opt.count[d];
    }
    return Move::place(pick.card, pick.cell, declares).id();
}

}  // namespace

TEST(search_random_legal_move_is_its_slot_enumeration) {
    // The same move and generator state as the slow enumeration, in whole games of every split
    // (placements with declares choices, trades, removals, passes and R6 reshuffles included).
    for (const auto& split : kSplits) {
        const Config cfg = config_of(split[0], split[1]);
        for (std::uint64_t seed = 0; seed < 6; ++seed) {
            GameState s = new_game(cfg, seed * 7919 + split[0], 500);
            SplitMix64 rng(seed * 3 + 1);
            while (!is_over(s)) {
                SplitMix64 slow_rng = rng;
                const MoveId fast = random_legal_move(s, rng);
                const MoveId slow = slow_random_legal_move(s, slow_rng);
                CHECK_EQ(fast, slow);
                CHECK_EQ(rng.state(), slow_rng.state());
                if (fast != slow) break;
                apply_move(s, fast);
            }
        }
    }
}

TEST(search_random_legal_move_covers_every_slot) {
    // From one position, every legal move is eventually drawn (placements up to declares).
    GameState s = new_game(config_of(2, 2), 5, 0);
    std::vector<MoveId> legal;
    legal_moves(s, legal);
    SplitMix64 rng(1);
    std::vector<MoveId> seen;
    for (int i = 0; i < 20000; ++i) seen.push_back(random_legal_move(s, rng));
    for (MoveId m : legal) CHECK(std::find(seen.begin(), seen.end(), m) != seen.end());
}

TEST(search_random_legal_move_trades_and_pass) {
    // Only dead cards: both trades and no play -> trades + pass, each drawn.
    Position pos = make_position(2, 2, {{card("2S"), card("3S")}, {card("4S")}});
    for (int cell : {at(0, 1), at(8, 6), at(0, 2), at(8, 5)}) pos.board[cell] = 1;
    GameState s = load(pos);
    std::vector<MoveId> legal;
    legal_moves(s, legal);
    CHECK_EQ(legal.size(), std::size_t(3));
    SplitMix64 rng(3);
    int counts[3] = {};
    for (int i = 0; i < 3000; ++i) {
        const MoveId m = random_legal_move(s, rng);
        const auto it = std::find(legal.begin(), legal.end(), m);
        CHECK(it != legal.end());
        if (it != legal.end()) ++counts[it - legal.begin()];
    }
    for (int c : counts) CHECK(c > 800);
}

TEST(search_determinize_conserves_cards_and_reads_only_the_observation) {
    for (const auto& split : kSplits) {
        GameState s = new_game(config_of(split[0], split[1]), 11 + split[0], 0);
        SplitMix64 play(7);
        for (int step = 0; step < 60 && !is_over(s); ++step) {
            apply_move(s, random_legal_move(s, play));
            if (step % 15 != 14) continue;
            const int me = s.current_player;
            SplitMix64 r1(99), r2(99), mix(step);
            const GameState a = determinize(s, me, r1);
            check_cards_conserved(a);
            for (int p = 0; p < s.config.players; ++p) CHECK_EQ(a.hand_count[p], s.hand_count[p]);
            CHECK_EQ(a.draw_size, s.draw_size);
            CHECK(std::equal(a.hands[me], a.hands[me] + a.hand_count[me], s.hands[me]));
            // Same observation (hidden parts scrambled) -> the same world.
            const GameState hidden = scramble_hidden(s, me, mix);
            // Byte-identical observations (ismcts.hpp). scramble_hidden drops another player's last
            // draw, which observe() keeps as public: put it back, with a different (hidden) card.
            GameState same_public = hidden;
            same_public.last_draw_player = s.last_draw_player;
            if (s.last_draw_player != me) same_public.last_draw_card = static_cast<Card>(s.last_draw_card ^ 1);
            const Observation oa = observe(s, me), ob = observe(same_public, me);
            CHECK(std::memcmp(static_cast<const void*>(&oa.pub), static_cast<const void*>(&ob.pub), sizeof(GameState)) == 0);
            const GameState b = determinize(hidden, me, r2);
            CHECK(same_world(a, b));
            // And the legal moves of the player are those of the true state.
            std::vector<MoveId> la, ls;
            legal_moves(a, la);
            legal_moves(s, ls);
            CHECK(la == ls);
        }
    }
}

TEST(search_ismcts_returns_a_legal_move) {
    for (const auto& split : kSplits) {
        GameState s = new_game(config_of(split[0], split[1]), 3 + split[0], 0);
        SplitMix64 play(5);
        for (int step = 0; step < 30 && !is_over(s); ++step) apply_move(s, random_legal_move(s, play));
        if (is_over(s)) continue;
        SearchOptions o;
        o.iterations = 300;
        o.seed = 1;
        const SearchResult r = ismcts(s, o);
        CHECK(check_move(s, r.best) == MoveError::None);
        CHECK_EQ(r.iterations, std::uint64_t(300));
        CHECK(r.nodes <= 301);
        std::uint64_t visits = 0;
        for (const MoveStats& m : r.moves) visits += m.visits;
        CHECK_EQ(visits, std::uint64_t(300));
        // Deterministic, and independent of hidden information.
        SplitMix64 mix(4);
        const SearchResult again = ismcts(scramble_hidden(s, s.current_player, mix), o);
        CHECK_EQ(again.best, r.best);
        CHECK_EQ(again.moves.size(), r.moves.size());
        for (std::size_t i = 0; i < std::min(r.moves.size(), again.moves.size()); ++i)
            CHECK(again.moves[i].move == r.moves[i].move && again.moves[i].visits == r.moves[i].visits &&
                  again.moves[i].value == r.moves[i].value);
    }
}

TEST(search_ismcts_respects_max_nodes_and_threads) {
    const GameState s = new_game(config_of(2, 2), 42, 0);
    SearchOptions o;
    o.iterations = 2000;
    o.max_nodes = 50;
    o.threads = 2;
    const SearchResult r = ismcts(s, o);
    CHECK(r.nodes <= 50);
    CHECK_EQ(r.iterations, std::uint64_t(2000));
    CHECK(check_move(s, r.best) == MoveError::None);
}

TEST(search_simulate_is_thread_independent) {
    const Config cfg = config_of(2, 2);
    const SimulateResult a = simulate(40, cfg, 9, 1, 1000, nullptr);
    const SimulateResult b = simulate(40, cfg, 9, 2, 1000, nullptr);
    CHECK_EQ(a.games, std::int64_t(40));
    CHECK_EQ(a.wins[0] + a.wins[1] + a.draws, std::int64_t(40));
    CHECK(a.wins == b.wins);
    CHECK_EQ(a.draws, b.draws);
    CHECK_EQ(a.total_turns, b.total_turns);
}

// ------------------------------------------------------------------ evaluation and informed playouts

TEST(search_evaluation_rewards_are_a_distribution_and_favour_the_better_board) {
    for (const auto& split : kSplits) {
        GameState s = new_game(config_of(split[0], split[1]), 21 + split[0], 0);
        SplitMix64 play(3);
        const EvalWeights w;
        for (int step = 0; step < 80 && !is_over(s); ++step) {
            apply_move(s, random_legal_move(s, play));
            float r[kMaxTeams] = {};
            evaluate_rewards(s, w, r);
            float sum = 0;
            for (int t = 0; t < s.config.teams; ++t) {
                CHECK(r[t] >= 0.0f && r[t] <= 1.0f);
                sum += r[t];
            }
            CHECK(sum > 0.999f && sum < 1.001f);
        }
    }
    // Team 0 with four in a row (an open threat) against a lone chip of team 1.
    Position pos = make_position(2, 2, {{card("2H")}, {card("3H")}});
    for (int c = 1; c <= 4; ++c) pos.board[at(4, c)] = 0;
    pos.board[at(8, 8)] = 1;
    const GameState s = load(pos);
    float sc[kMaxTeams] = {}, r[kMaxTeams] = {};
    team_scores(s, EvalWeights{}, sc);
    CHECK(sc[0] > sc[1]);
    evaluate_rewards(s, EvalWeights{}, r);
    CHECK(r[0] > 0.8f);
    // The same line blocked at both ends is worth much less.
    pos.board[at(4, 0)] = 1;
    pos.board[at(4, 5)] = 1;
    float blocked[kMaxTeams] = {};
    team_scores(load(pos), EvalWeights{}, blocked);
    CHECK(blocked[0] < sc[0] - EvalWeights{}.window[4]);
}

TEST(search_learned_evaluation_reads_only_its_team_and_the_search_does_not_peek) {
    // Every split: each team's feature row is unchanged when the cards that team cannot see are
    // re-dealt (R9), the learned rewards are a distribution, and an ISMCTS scored by them reports
    // the same statistics for the re-dealt state.
    LearnedWeights w;
    for (int i = 0; i < kEvalFeatures; ++i) w.weight[i] = 0.1f * static_cast<float>(i % 5) - 0.15f;
    for (const auto& split : kSplits) {
        GameState s = new_game(config_of(split[0], split[1]), 31 + split[0], 0);
        SplitMix64 play(12);
        for (int step = 0; step < 40 && !is_over(s); ++step) apply_move(s, random_legal_move(s, play));
        if (is_over(s)) continue;
        const int me = s.current_player, team = team_of(s, me);
        SplitMix64 mix(3);
        const GameState hidden = scramble_hidden(s, me, mix);
        float fa[kMaxTeams][kEvalFeatures], fb[kMaxTeams][kEvalFeatures];
        eval_features(s, fa);
        eval_features(hidden, fb);
        if (s.config.teams == s.config.players)  // one player a team: the row reads no hidden card
            for (int i = 0; i < kEvalFeatures; ++i) CHECK_EQ(fa[team][i], fb[team][i]);
        float r[kMaxTeams] = {};
        learned_rewards(s, w, r);
        float sum = 0;
        for (int t = 0; t < s.config.teams; ++t) {
            CHECK(r[t] >= 0.0f && r[t] <= 1.0f);
            sum += r[t];
        }
        CHECK(sum > 0.999f && sum < 1.001f);
#if SEQUENCE_RESEARCH
        SearchOptions o;
        o.iterations = 400;
        o.seed = 2;
        o.evaluation = Evaluation::Learned;
        o.learned = w;
        const SearchResult a = ismcts(s, o), b = ismcts(hidden, o);
        CHECK(check_move(s, a.best) == MoveError::None);
        CHECK_EQ(a.best, b.best);
        CHECK_EQ(a.moves.size(), b.moves.size());
        for (std::size_t i = 0; i < std::min(a.moves.size(), b.moves.size()); ++i)
            CHECK(a.moves[i].move == b.moves[i].move && a.moves[i].visits == b.moves[i].visits &&
                  a.moves[i].value == b.moves[i].value);
#endif
    }
}

TEST(search_informed_move_is_always_legal) {
    for (const auto& split : kSplits) {
        const Config cfg = config_of(split[0], split[1]);
        for (int candidates : {0, 1, 3}) {
            PlayoutPolicy pol;
            pol.candidates = candidates;
            for (std::uint64_t seed = 0; seed < 6; ++seed) {
                GameState s = new_game(cfg, seed * 131 + split[0], 400);
                SplitMix64 rng(seed);
                while (!is_over(s)) {
                    const MoveId m = informed_move(s, rng, pol);
                    const MoveError e = check_move(s, m);
                    CHECK(e == MoveError::None);
                    if (e != MoveError::None) break;
                    apply_move(s, m);
                }
            }
        }
    }
}

TEST(search_informed_move_wins_and_blocks) {
    // Team 0's four on row 1 cols 0..3 (6C 5C 4C 3C), gap (1, 4) = 2C; team 1's four on row 5
    // cols 1..4 (TS 8C 7H 2H), gaps (5, 0) = TC and (5, 5) = 3H.
    const auto with_hand = [](std::vector<int> hand0) {
        Position pos = make_position(2, 2, {std::move(hand0), {card("2D"), card("9H")}});
        for (int c = 0; c <= 3; ++c) pos.board[at(1, c)] = 0;
        for (int c = 1; c <= 4; ++c) pos.board[at(5, c)] = 1;
        return load(pos);
    };
    SplitMix64 rng(1);
    const PlayoutPolicy pol;
    // The mover completes its own line first.
    GameState s = with_hand({card("2C"), card("3H")});
    for (int i = 0; i < 20; ++i) {
        const Move m = Move::from_id(informed_move(s, rng, pol));
        CHECK(m.kind == MoveKind::Place && m.cell == at(1, 4) && m.declares != 0);
    }
    // Without the winning card, it blocks with the card of a gap.
    s = with_hand({card("3H"), card("5S")});
    for (int i = 0; i < 20; ++i) {
        const Move m = Move::from_id(informed_move(s, rng, pol));
        CHECK(m.kind == MoveKind::Place && m.cell == at(5, 5));
    }
    // With only a one-eyed jack, it removes a chip of that line.
    s = with_hand({card("5S"), card("JS")});
    for (int i = 0; i < 20; ++i) {
        const Move m = Move::from_id(informed_move(s, rng, pol));
        CHECK(m.kind == MoveKind::Remove && row_of(m.cell) == 5 && col_of(m.cell) >= 1 && col_of(m.cell) <= 4);
    }
}

TEST(search_ismcts_takes_a_win_at_any_budget) {
    Position pos = make_position(2, 2, {{card("2C"), card("5S")}, {card("2D"), card("9H")}});
    for (int c = 0; c <= 3; ++c) pos.board[at(1, c)] = 0;
    for (int c = 5; c <= 9; ++c) pos.board[at(4, c)] = 0;
    pos.sequences.push_back(PositionSequence{0, {at(4, 5), at(4, 6), at(4, 7), at(4, 8), at(4, 9)}});
    const GameState s = load(pos);
    SearchOptions o;
    o.iterations = 20;
    o.seed = 3;
    const SearchResult r = ismcts(s, o);
    const Move m = Move::from_id(r.best);
    CHECK(m.kind == MoveKind::Place && m.cell == at(1, 4));
    CHECK_EQ(r.moves.size(), std::size_t(1));  // the decisive move is the only one searched
}

TEST(search_decisive_keeps_only_a_move_that_wins_at_once) {
    // R8: team 0 holds a sequence and needs one more; the 2C on (1,4) completes row 1 (R7).
    Position pos = make_position(2, 2, {{card("2C"), card("5S")}, {card("2D"), card("9H")}});
    for (int c = 0; c <= 3; ++c) pos.board[at(1, c)] = 0;
    for (int c = 5; c <= 9; ++c) pos.board[at(4, c)] = 0;
    pos.sequences.push_back(PositionSequence{0, {at(4, 5), at(4, 6), at(4, 7), at(4, 8), at(4, 9)}});
    const GameState s = load(pos);
    CHECK_EQ(sequences_needed(s), 1);
    MoveList legal;
    legal_moves(s, legal);
    CHECK(legal.size > 1);
    int winners = 0;
    for (int i = 0; i < legal.size; ++i) winners += wins_at_once(legal.moves[i], sequences_needed(s));
    CHECK_EQ(winners, 1);
    keep_decisive(s, legal);
    CHECK_EQ(legal.size, 1);
    const Move m = Move::from_id(legal.moves[0]);
    CHECK(m.kind == MoveKind::Place && m.cell == at(1, 4));
    // A first sequence does not win a two-team game (R8 asks for two): nothing is cut.
    Position first = pos;
    first.sequences.clear();
    for (int c = 5; c <= 9; ++c) first.board[at(4, c)] = kBoardEmpty;
    const GameState f = load(first);
    CHECK_EQ(sequences_needed(f), 2);
    MoveList all;
    legal_moves(f, all);
    const int before = all.size;
    keep_decisive(f, all);
    CHECK_EQ(all.size, before);
}

TEST(search_greedy_move_is_always_legal_and_takes_wins_first) {
    HeuristicWeights w;
    for (const auto& split : kSplits) {
        const Config cfg = config_of(split[0], split[1]);
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            GameState s = new_game(cfg, seed, 400);
            SplitMix64 rng(seed);
            for (std::uint32_t eps : {0u, 8000u}) {
                GameState g = s;
                while (!is_over(g)) {
                    const MoveId m = greedy_move(g, rng, w, eps);
                    CHECK(check_move(g, m) == MoveError::None);
                    if (eps == 0) {  // never below the heuristic's best legal play
                        std::vector<MoveId> legal;
                        legal_moves(g, legal);
                        const MoveScorer sc(g, w);
                        double best = -1e300;
                        bool trade = false;
                        for (MoveId x : legal) {
                            trade = trade || Move::from_id(x).kind == MoveKind::Trade;
                            best = std::max(best, sc.score(x));
                        }
                        if (trade) CHECK(Move::from_id(m).kind == MoveKind::Trade);
                        else if (Move::from_id(m).kind != MoveKind::Pass) CHECK(sc.score(m) >= best - 1e-6);
                    }
                    apply_move(g, m);
                }
            }
        }
    }
}

TEST(search_rollout_search_is_legal_deterministic_and_reads_no_hidden_card) {
    // Every split (and in the research build, with sequential halving too): a legal best move,
    // candidates ranked by worlds met and then by mean reward, the same statistics for the same
    // seed, and none of it changes when the hidden cards of the root AND of the position before
    // the last play (the opponent-modelling evidence) are re-dealt (R9).
#if SEQUENCE_RESEARCH
    for (const bool halving : {false, true}) {
#else
    for (const bool halving : {false}) {
#endif
        for (const auto& split : kSplits) {
            GameState s = new_game(config_of(split[0], split[1]), 13 + split[0], 0);
            SplitMix64 play(8);
            GameState before = s;
            for (int step = 0; step < 24 && !is_over(s); ++step) {
                before = s;
                apply_move(s, random_legal_move(s, play));
            }
            if (is_over(s)) continue;
            RolloutOptions o;
            o.iterations = 120;
            o.time_limit = 0;  // no deadline: deterministic
            o.seed = 2;
            o.candidates = halving ? 6 : 4;
            o.horizon = 30;
#if SEQUENCE_RESEARCH
            o.halving = halving;
#endif
            const SearchResult r = rollout_search(s, o, &before);
            CHECK(check_move(s, r.best) == MoveError::None);
            CHECK(r.moves.size() >= 1 && r.moves.size() <= static_cast<std::size_t>(o.candidates));
            CHECK_EQ(r.best, r.moves.front().move);
            for (std::size_t i = 1; i < r.moves.size(); ++i)
                CHECK(r.moves[i - 1].visits > r.moves[i].visits ||
                      (r.moves[i - 1].visits == r.moves[i].visits && r.moves[i - 1].value >= r.moves[i].value));
            SplitMix64 mix(6);
            const GameState hidden_now = scramble_hidden(s, s.current_player, mix);
            const GameState hidden_before = scramble_hidden(before, s.current_player, mix);
            const SearchResult again = rollout_search(hidden_now, o, &hidden_before);
            CHECK_EQ(again.best, r.best);
            CHECK_EQ(again.moves.size(), r.moves.size());
            for (std::size_t i = 0; i < std::min(r.moves.size(), again.moves.size()); ++i)
                CHECK(again.moves[i].move == r.moves[i].move && again.moves[i].visits == r.moves[i].visits &&
                      again.moves[i].value == r.moves[i].value);
            // Threads split the worlds; the iteration count stays.
            o.threads = 2;
            const SearchResult two = rollout_search(s, o, &before);
            CHECK(check_move(s, two.best) == MoveError::None);
            CHECK_EQ(two.iterations, r.iterations);
        }
    }
}

#if SEQUENCE_RESEARCH
TEST(search_rollout_halving_spends_the_rounds_on_the_better_half) {
    // 8 candidates, 3 rounds of 1,200 playouts: 8 x 150 worlds, then 4 x 300, then 2 x 600. The
    // two kept to the end met 1,050 worlds, the two dropped after the second round met 450 and
    // the four dropped after the first met 150; each group's means were the better half of the round before.
    GameState s = new_game(config_of(2, 2), 31, 0);
    SplitMix64 play(3);
    for (int step = 0; step < 16; ++step) apply_move(s, random_legal_move(s, play));
    RolloutOptions o;
    o.iterations = 3600;
    o.time_limit = 0;
    o.seed = 5;
    o.candidates = 8;
    o.horizon = 10;
    o.halving = true;
    const SearchResult r = rollout_search(s, o);
    CHECK_EQ(r.moves.size(), std::size_t(8));
    CHECK_EQ(r.iterations, std::uint64_t(3600));
    const std::uint64_t expect[8] = {1050, 1050, 450, 450, 150, 150, 150, 150};
    for (std::size_t i = 0; i < 8; ++i) CHECK_EQ(r.moves[i].visits, expect[i]);
    CHECK_EQ(r.best, r.moves.front().move);
    CHECK(r.moves[0].value >= r.moves[1].value);
    // Without halving the same budget gives every candidate 450 worlds.
    o.halving = false;
    const SearchResult flat = rollout_search(s, o);
    for (const MoveStats& m : flat.moves) CHECK_EQ(m.visits, std::uint64_t(450));
    // A time budget alone is split between the rounds too: it ends in time, with whole worlds.
    o.halving = true;
    o.iterations = 0;
    o.time_limit = 0.05;
    const auto t0 = std::chrono::steady_clock::now();
    const SearchResult timed = rollout_search(s, o);
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(check_move(s, timed.best) == MoveError::None);
    CHECK(spent < 2.0);  // generous: a loaded machine
    CHECK(timed.moves.front().visits >= timed.moves.back().visits);
    CHECK_EQ(timed.moves[0].visits, timed.moves[1].visits);
}
#endif

TEST(search_rollout_search_takes_a_win_and_blocks_a_lost_game) {
    // Team 0 (to move) completes its second sequence at (1,4): played without search.
    Position pos = make_position(2, 2, {{card("2C"), card("5S")}, {card("2D"), card("9H")}});
    for (int c = 0; c <= 3; ++c) pos.board[at(1, c)] = 0;
    for (int c = 5; c <= 9; ++c) pos.board[at(4, c)] = 0;
    pos.sequences.push_back(PositionSequence{0, {at(4, 5), at(4, 6), at(4, 7), at(4, 8), at(4, 9)}});
    RolloutOptions o;
    o.iterations = 50;
    o.time_limit = 0;
    const SearchResult win = rollout_search(load(pos), o);
    CHECK(Move::from_id(win.best).kind == MoveKind::Place && Move::from_id(win.best).cell == at(1, 4));
    CHECK_EQ(win.moves.size(), std::size_t(1));
    // Seen from player 1 instead, holding the 2C printed on (1,4): team 0 wins next turn with the
    // other 2C or a two-eyed jack unless (1,4) is taken. All but three of the other cards are on
    // the discard piles, so every 5-card hand player 1 can imagine for player 0 holds a winner, and
    // the search blocks.
    Position block = make_position(2, 2, {{card("JC"), card("JC"), card("JD"), card("JD"), card("2C")},
                                          {card("2C"), card("2D"), card("5S"), card("9H")}});
    block.discards[0].assign(block.draw_pile.begin() + 3, block.draw_pile.end());
    block.draw_pile.resize(3);
    for (int c = 0; c <= 3; ++c) block.board[at(1, c)] = 0;
    for (int c = 5; c <= 9; ++c) block.board[at(4, c)] = 0;
    block.sequences.push_back(PositionSequence{0, {at(4, 5), at(4, 6), at(4, 7), at(4, 8), at(4, 9)}});
    block.current_player = 1;
    const GameState b = load(block);
    o.iterations = 400;
    o.candidates = 8;
    const SearchResult r = rollout_search(b, o);
    CHECK(Move::from_id(r.best).kind == MoveKind::Place && Move::from_id(r.best).cell == at(1, 4));
}

namespace {

// Straightforward versions of the bit-parallel window code, one window at a time.
Bitboard completion_cells_one_by_one(const GameState& s, int team) {
    Bitboard out;
    const Bitboard own = s.chips[team] | corners();
    for (int w = 0; w < kWindowCount; ++w) {
        const Bitboard m = window_mask(w);
        if ((m & own).count() == kWindowLength - 1) out |= m & ~own & ~occupied(s);
    }
    return out;
}

void team_scores_one_by_one(const GameState& s, const EvalWeights& wt, float out[kMaxTeams]) {
    for (int t = 0; t < s.config.teams; ++t) {
        const Bitboard own = s.chips[t] | corners();
        const Bitboard other = occupied(s) & ~s.chips[t];
        float acc = 0.0f;
        Bitboard threats;
        for (int w = 0; w < kWindowCount; ++w) {
            const Bitboard m = window_mask(w);
            if ((m & other).any()) continue;
            bool usable = true;  // R7: at most one cell shared with each of the team's sequences
            for (int i = 0; i < s.sequence_count; ++i)
                if (s.sequences[i].team == t && (m & window_mask(s.sequences[i].window)).count() > 1) usable = false;
            if (!usable) continue;
            const int held = (m & own).count();
            if (held >= 1 && held <= 3) acc += wt.window[held];
            if (held == 4) threats |= m & ~own;
        }
        acc += wt.window[4] * static_cast<float>(threats.count());
        acc += wt.sequence * static_cast<float>(team_sequences(s, t));
        for (int p = 0; p < s.config.players; ++p)
            if (team_of(s, p) == t)
                for (int i = 0; i < s.hand_count[p]; ++i) {
                    if (is_two_eyed_jack(s.hands[p][i])) acc += wt.two_eyed;
                    else if (is_one_eyed_jack(s.hands[p][i])) acc += wt.one_eyed;
                }
        out[t] = acc;
    }
}

}  // namespace

TEST(search_window_lanes_match_one_window_at_a_time) {
    // completion_cells (rules) and team_scores (evaluation) over random games of every split,
    // sequences and R7 overlaps included, against the one-window-at-a-time definitions.
    const EvalWeights wt;
    int positions = 0, with_sequences = 0, with_threats = 0;
    for (const auto& split : kSplits) {
        for (std::uint64_t seed = 0; seed < 12; ++seed) {
            GameState s = new_game(config_of(split[0], split[1]), 500 + seed * 7 + split[0], 0);
            SplitMix64 play(seed);
            while (!is_over(s)) {
                for (int t = 0; t < s.config.teams; ++t) {
                    const Bitboard gaps = completion_cells(s, t);
                    CHECK(gaps == completion_cells_one_by_one(s, t));
                    with_threats += gaps.any();
                }
                float fast[kMaxTeams], slow[kMaxTeams];
                team_scores(s, wt, fast);
                team_scores_one_by_one(s, wt, slow);
                for (int t = 0; t < s.config.teams; ++t) CHECK(std::fabs(fast[t] - slow[t]) <= 1e-3f * (1.0f + std::fabs(slow[t])));
                ++positions;
                with_sequences += s.sequence_count > 0;
                apply_move(s, random_legal_move(s, play));
            }
        }
    }
    CHECK(positions > 10000 && with_sequences > 1000 && with_threats > 1000);
}

TEST(parallel_a_failing_worker_stops_its_siblings_and_the_caller_gets_its_exception) {
    for (int workers : {1, 2, 4, 8}) {
        for (int failing = 0; failing < workers; ++failing) {
            StopSignal stop(nullptr, 0.0);
            std::atomic<int> finished{0};
            bool caught = false;
            try {
                run_workers(workers, stop, [&](int t) {
                    if (t == failing) throw std::bad_alloc();
                    while (!stop.should_stop()) std::this_thread::yield();  // runs until told to stop
                    ++finished;
                });
            } catch (const std::bad_alloc&) {
                caught = true;
            }
            CHECK(caught);
            CHECK_EQ(finished.load(), workers - 1);  // every sibling stopped and was joined
            CHECK(!stop.interrupted());
        }
    }
    // Without a failure every worker runs once, with its own index.
    StopSignal stop(nullptr, 0.0);
    std::atomic<int> mask{0};
    run_workers(5, stop, [&](int t) { mask |= 1 << t; });
    CHECK_EQ(mask.load(), 31);
}

TEST(parallel_worker_pool_runs_every_part_once_per_job_and_passes_on_a_failure) {
    for (int workers : {1, 2, 3, 8}) {
        WorkerPool pool(workers);
        CHECK(pool.size() >= 1 && pool.size() <= workers);
        for (int job = 0; job < 50; ++job) {  // the same threads, job after job
            std::vector<std::atomic<int>> runs(static_cast<std::size_t>(pool.size()));
            pool.run([&](int k) { ++runs[static_cast<std::size_t>(k)]; });
            for (const auto& r : runs) CHECK_EQ(r.load(), 1);
        }
        for (int failing = 0; failing < pool.size(); ++failing) {
            std::atomic<int> finished{0};
            bool caught = false;
            try {
                pool.run([&](int k) {
                    if (k == failing) throw std::runtime_error("part failed");
                    ++finished;
                });
            } catch (const std::runtime_error&) {
                caught = true;
            }
            CHECK(caught);
            CHECK_EQ(finished.load(), pool.size() - 1);  // the others ran to the end before run() threw
        }
        std::atomic<int> mask{0};
        pool.run([&](int k) { mask |= 1 << k; });  // still usable after a failure
        CHECK_EQ(mask.load(), (1 << pool.size()) - 1);
    }
}

TEST(parallel_run_workers_reuses_its_threads_across_calls) {
    StopSignal warm(nullptr, 0.0);
    run_workers(6, warm, [](int) {});  // the pool has at least 5 idle threads from here on
    const std::uint64_t before = worker_threads_started();
    for (int call = 0; call < 200; ++call) {
        const int workers = 1 + call % 6;
        StopSignal stop(nullptr, 0.0);
        std::vector<std::atomic<int>> runs(static_cast<std::size_t>(workers));
        run_workers(workers, stop, [&](int t) { ++runs[static_cast<std::size_t>(t)]; });
        for (const auto& r : runs) CHECK_EQ(r.load(), 1);
    }
    CHECK_EQ(worker_threads_started(), before);  // no thread started by a call the idle threads cover
    // A pooled job (the bindings' search thread) running run_workers() itself, job after job: its
    // thread is back in the pool when wait_for() says finished, so the next job finds it idle.
    for (int call = 0; call < 50; ++call) {
        std::atomic<int> parts{0};
        PooledJob job([&] {
            StopSignal stop(nullptr, 0.0);
            run_workers(5, stop, [&](int) { ++parts; });
        });
        while (!job.wait_for(std::chrono::milliseconds(1))) {
        }
        CHECK_EQ(parts.load(), 5);
    }
    {
        std::atomic<bool> ran{false};
        {
            PooledJob job([&] {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
                ran = true;
            });
            CHECK(!job.wait_for(std::chrono::milliseconds(0)) || ran.load());
        }  // the destructor waits for the job
        CHECK(ran.load());
    }
    // Searches of up to 6 threads, one after another, start none either.
    SearchOptions o;
    o.iterations = 60;
    o.threads = 6;
    ismcts(new_game(config_of(2, 2), 3, 0), o);
    Config cfg = config_of(2, 2);
    simulate(100, cfg, 1, 6, 1000, nullptr);
    CHECK_EQ(worker_threads_started(), before);
}

TEST(parallel_run_workers_from_several_threads_at_once_and_nested) {
    // Callers on 4 threads at once, each worker of theirs calling run_workers again: every part
    // runs exactly once, whatever the pool hands to whom.
    std::atomic<long> parts{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; ++c)
        callers.emplace_back([&, c] {
            for (int call = 0; call < 30; ++call) {
                StopSignal stop(nullptr, 0.0);
                run_workers(1 + (c + call) % 4, stop, [&](int) {
                    StopSignal inner(nullptr, 0.0);
                    run_workers(3, inner, [&](int) { ++parts; });
                });
            }
        });
    for (std::thread& t : callers) t.join();
    long expected = 0;
    for (int c = 0; c < 4; ++c)
        for (int call = 0; call < 30; ++call) expected += 3 * (1 + (c + call) % 4);
    CHECK_EQ(parts.load(), expected);
}

TEST(parallel_a_forked_child_runs_workers_with_a_pool_of_its_own) {
#if (defined(__unix__) || defined(__APPLE__)) && !defined(__SANITIZE_THREAD__)  // TSan refuses threads after fork
    StopSignal warm(nullptr, 0.0);
    run_workers(4, warm, [](int) {});  // the parent's pool has threads; the child has none of them
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        alarm(20);  // a hang (waiting on a thread that is not there) fails the test instead
        std::atomic<int> mask{0};
        StopSignal stop(nullptr, 0.0);
        run_workers(4, stop, [&](int t) { mask |= 1 << t; });
        SearchOptions o;
        o.iterations = 200;
        o.threads = 3;
        const SearchResult r = ismcts(new_game(config_of(2, 2), 5, 0), o);
        _exit(mask.load() == 15 && r.iterations == 200 ? 0 : 1);
    }
    CHECK(pid > 0);
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
#endif
}

TEST(search_threaded_ismcts_is_the_merge_of_its_single_thread_trees) {
    // Tree t of a T-thread search is the single-thread search with worker_seed(seed, t)'s seed,
    // worker_share() of the iterations and max_nodes / T nodes: the root statistics of the
    // threaded search are the sums of theirs (visits exact, values to rounding), and a repeat of
    // the threaded search is identical to the bit.
    const GameState s = new_game(config_of(2, 2), 77, 0);
    for (int threads : {2, 3, 5}) {
        SearchOptions o;
        o.iterations = 1001;
        o.threads = threads;
        o.seed = 12;
        o.max_nodes = 30000;
        const SearchResult r = ismcts(s, o);
        const SearchResult again = ismcts(s, o);
        CHECK_EQ(again.moves.size(), r.moves.size());
        for (std::size_t i = 0; i < std::min(r.moves.size(), again.moves.size()); ++i)
            CHECK(again.moves[i].move == r.moves[i].move && again.moves[i].visits == r.moves[i].visits &&
                  again.moves[i].value == r.moves[i].value);
        std::vector<MoveStats> sum;
        std::uint64_t nodes = 0;
        for (int t = 0; t < threads; ++t) {
            SearchOptions one = o;
            one.threads = 1;
            one.seed = o.seed + static_cast<std::uint64_t>(t) * 0x9E3779B97F4A7C15ull;  // worker_seed(seed', 0) = worker_seed(seed, t)
            CHECK_EQ(worker_seed(one.seed, 0), worker_seed(o.seed, t));
            one.iterations = worker_share(o.iterations, threads, t);
            one.max_nodes = o.max_nodes / static_cast<std::uint64_t>(threads);
            const SearchResult part = ismcts(s, one);
            nodes += part.nodes;
            for (const MoveStats& m : part.moves) {
                auto it = std::find_if(sum.begin(), sum.end(), [&](const MoveStats& x) { return x.move == m.move; });
                if (it == sum.end()) sum.push_back(MoveStats{m.move, 0, 0.0}), it = sum.end() - 1;
                it->visits += m.visits;
                it->value += m.value * static_cast<double>(m.visits);
            }
        }
        CHECK_EQ(r.nodes, nodes);
        CHECK_EQ(r.moves.size(), sum.size());
        for (const MoveStats& m : r.moves) {
            const auto it = std::find_if(sum.begin(), sum.end(), [&](const MoveStats& x) { return x.move == m.move; });
            CHECK(it != sum.end());
            if (it == sum.end()) continue;
            CHECK_EQ(m.visits, it->visits);
            CHECK(std::fabs(m.value - it->value / static_cast<double>(it->visits)) < 1e-5);
        }
        for (std::size_t i = 1; i < r.moves.size(); ++i)  // visits descending, ties by id
            CHECK(r.moves[i - 1].visits > r.moves[i].visits ||
                  (r.moves[i - 1].visits == r.moves[i].visits && r.moves[i - 1].move < r.moves[i].move));
    }
}

TEST(parallel_worker_seeds_and_shares) {
    CHECK_EQ(worker_seed(5, 0), SplitMix64(5).next());
    CHECK(worker_seed(5, 1) != worker_seed(5, 0));
    for (std::uint64_t total : {0ull, 1ull, 7ull, 1000ull})
        for (int workers : {1, 3, 8}) {
            std::uint64_t sum = 0;
            for (int t = 0; t < workers; ++t) {
                sum += worker_share(total, workers, t);
                CHECK(worker_share(total, workers, t) <= total / workers + 1);
            }
            CHECK_EQ(sum, total);
        }
}

TEST(search_options_are_checked_with_their_bounds) {
    const GameState s = new_game(config_of(2, 2), 42, 0);
    const auto refuses = [&](auto options, const char* name) {
        try {
            check_options(options);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what()).find(name) != std::string::npos;
        }
        return false;
    };
    SearchOptions o;
    check_options(o);  // the defaults are valid
    { auto x = o; x.iterations = 0; x.time_limit = 0; CHECK(refuses(x, "budget")); }
    { auto x = o; x.time_limit = 1e300; CHECK(refuses(x, "time_limit")); }
    { auto x = o; x.time_limit = -1; CHECK(refuses(x, "time_limit")); }
    { auto x = o; x.threads = 0; CHECK(refuses(x, "threads")); }
    { auto x = o; x.threads = kMaxThreads + 1; CHECK(refuses(x, "threads")); }
    { auto x = o; x.exploration = std::nan(""); CHECK(refuses(x, "exploration")); }
    { auto x = o; x.exploration = 1e30; CHECK(refuses(x, "exploration")); }
    { auto x = o; x.max_nodes = 1; x.threads = 2; CHECK(refuses(x, "max_nodes")); }
    { auto x = o; x.max_nodes = std::uint64_t{1} << 40; CHECK(refuses(x, "max_nodes")); }
    { auto x = o; x.weights.scale = 0; CHECK(refuses(x, "scale")); }
    { auto x = o; x.weights.window[2] = -1; CHECK(refuses(x, "window2")); }
#if SEQUENCE_RESEARCH
    { auto x = o; x.inference_plays = 0; CHECK(refuses(x, "inference_plays")); }
    { auto x = o; x.expansion_candidates = -1; CHECK(refuses(x, "expansion_candidates")); }
#endif
    { auto x = o; x.policy.candidates = 65; CHECK(refuses(x, "playout_candidates")); }
    { auto x = o; x.policy.block_chance = 257; CHECK(refuses(x, "playout_block_chance")); }
    { auto x = o; x.policy.block = -0.5f; CHECK(refuses(x, "playout_block")); }
    { auto x = o; x.policy.two_eyed_cost = std::nanf(""); CHECK(refuses(x, "playout_two_eyed_cost")); }
    { auto x = o; x.policy.one_eyed_cost = 1e30f; CHECK(refuses(x, "playout_one_eyed_cost")); }
    RolloutOptions r;
    check_options(r);
    { auto x = r; x.candidates = 0; CHECK(refuses(x, "candidates")); }
#if SEQUENCE_RESEARCH
    { auto x = r; x.inference_strength = 1e300; CHECK(refuses(x, "inference_strength")); }
    { auto x = r; x.inference_tries = 0; CHECK(refuses(x, "inference_tries")); }
#endif
    { auto x = r; x.horizon = 0; CHECK(refuses(x, "horizon")); }
    // The net search's options: the same limits (SearchLimits), one thread, and its own settings.
    NetSearchOptions n;
    check_options(n);
    CHECK_EQ(n.iterations, std::uint64_t{800});
    { auto x = n; x.iterations = 0; CHECK(refuses(x, "budget")); }
    { auto x = n; x.iterations = 0; x.time_limit = 0.5; check_options(x); }
    { auto x = n; x.time_limit = 1e300; CHECK(refuses(x, "time_limit")); }
    { auto x = n; x.threads = 2; CHECK(refuses(x, "one thread")); }
    { auto x = n; x.c_puct = 0; CHECK(refuses(x, "c_puct")); }
    { auto x = n; x.mix = 1.5; CHECK(refuses(x, "mix")); }
    { auto x = n; x.max_nodes = 10; CHECK(refuses(x, "max_nodes")); }
    // The searches check too, before any work.
    bool thrown = false;
    try {
        SearchOptions bad;
        bad.threads = 0;
        ismcts(s, bad);
    } catch (const std::invalid_argument&) {
        thrown = true;
    }
    CHECK(thrown);
}

TEST(search_rollout_deadline_is_checked_inside_a_world) {
    // Many candidates played to the end of the game: one world takes far longer than the limit.
    GameState s = new_game(config_of(2, 2), 7, 0);
    RolloutOptions o;
    o.iterations = 0;
    o.time_limit = 0.01;
    o.candidates = 1024;
    o.threads = 2;
    const auto t0 = std::chrono::steady_clock::now();
    const SearchResult r = rollout_search(s, o);
    const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(check_move(s, r.best) == MoveError::None);
    CHECK(spent < 2.0);  // generous: one playout past the deadline, on a loaded machine
    for (const MoveStats& m : r.moves) CHECK_EQ(m.visits, r.moves.front().visits);  // whole worlds only
}
