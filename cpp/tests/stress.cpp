// sequence_stress: a sanitizer driver for the C++ core (docs/hardening.md).
//
//   sequence_stress [games=3000] [seed=1] [threads=2] [searches=-1]
//
// Plays `games` random games spread over every player count and team split (R2: 2, 3, 4, 6, 6/3,
// 8, 9, 10, 12, 12/3) on `threads` std::threads and checks, after every change: the 104 cards are
// conserved (R1), hands sorted and bounded (R3), chips disjoint and off the corners, the legal list
// agrees between both legal_moves() overloads and with check_move(), near-miss and random move ids
// are refused without touching the state, to_position/from_position round-trips, random referee
// calls (R10, valid and invalid) and copies leave the original alone, and undo (sequence::Game)
// walks back exactly through every recorded state to the deal. Every few turns a corrupted
// Position (out-of-range ints, wrong sizes, huge lists, bad cards) is fed to from_position(): it
// must refuse it or return a state that is safe to play on.
//
// When the search and simulate code is compiled in (cpp/include/sequence/search/ismcts.hpp,
// simulate.hpp), it then runs threaded ISMCTS searches (iteration budgets, time limits, node caps,
// a stop flag raised from another thread, two searches at once), rollout searches (with the last
// play as evidence, every peek level) and threaded simulate() runs
// (totals identical for any thread count, interruption). `searches` defaults to max(4, games/500).
//
// Exits 1 on the first 20 findings (each printed with the game's seed), 0 when clean. Built as the
// `sequence_stress` target with -DSEQUENCE_BUILD_TESTS=ON; meant to run under
// -DSEQUENCE_SANITIZE="address;undefined" and -DSEQUENCE_SANITIZE=thread.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "sequence/board.hpp"
#include "sequence/game.hpp"
#include "sequence/position.hpp"
#include "sequence/rng.hpp"
#include "sequence/rules.hpp"
#include "sequence/state.hpp"

#if __has_include("sequence/playout.hpp")
#include "sequence/playout.hpp"
#define SEQUENCE_STRESS_PLAYOUT 1
#endif
#if __has_include("sequence/simulate.hpp")
#include "sequence/simulate.hpp"
#define SEQUENCE_STRESS_SIMULATE 1
#endif
#if __has_include("sequence/search/ismcts.hpp")
#include "sequence/search/ismcts.hpp"
#include "sequence/search/rollout.hpp"
#define SEQUENCE_STRESS_SEARCH 1
#endif

using namespace sequence;

namespace {

constexpr int kSplits[][2] = {{2, 2}, {3, 3}, {4, 2}, {6, 2}, {6, 3}, {8, 2}, {9, 3}, {10, 2}, {12, 2}, {12, 3}};
constexpr int kSplitCount = sizeof(kSplits) / sizeof(kSplits[0]);
constexpr int kMaxFindings = 20;

std::atomic<int> g_findings{0};
std::mutex g_print;

// Where a finding happened, printed with it so it can be replayed (game index => seed).
struct Where {
    long long game = -1;
    int players = 0, teams = 0;
    unsigned turn = 0;
};
thread_local Where t_where;

void finding(const char* file, int line, const char* what) {
    const int n = ++g_findings;
    if (n > kMaxFindings) return;
    std::lock_guard<std::mutex> lock(g_print);
    std::fprintf(stderr, "FINDING %d at %s:%d: %s [game %lld, %d players %d teams, turn %u]\n", n, file, line, what,
                 t_where.game, t_where.players, t_where.teams, t_where.turn);
}

#define EXPECT(cond)                                           \
    do {                                                       \
        if (!(cond)) finding(__FILE__, __LINE__, #cond);       \
    } while (0)

struct Counters {
    long long games = 0, turns = 0, changes = 0, undos = 0, copies = 0, round_trips = 0;
    long long referee_ok = 0, referee_refused = 0, illegal_probes = 0;
    long long corrupt_accepted = 0, corrupt_refused = 0, won = 0, drawn = 0, capped = 0, unfinished = 0;
    long long searches = 0, search_iterations = 0, simulated = 0;

    void add(const Counters& o) {
        games += o.games; turns += o.turns; changes += o.changes; undos += o.undos; copies += o.copies;
        round_trips += o.round_trips; referee_ok += o.referee_ok; referee_refused += o.referee_refused;
        illegal_probes += o.illegal_probes; corrupt_accepted += o.corrupt_accepted;
        corrupt_refused += o.corrupt_refused; won += o.won; unfinished += o.unfinished; drawn += o.drawn; capped += o.capped;
        searches += o.searches; search_iterations += o.search_iterations; simulated += o.simulated;
    }
};

std::uint64_t mix(std::uint64_t seed, std::uint64_t i) {
    SplitMix64 r(seed ^ (i * 0xD1B54A32D192ED03ull));
    r.next();
    return r.next();
}

// Field-wise equality of the meaningful part of two states (padding and unused slots ignored).
bool same_state(const GameState& a, const GameState& b) {
    if (!(a.chips[0] == b.chips[0] && a.chips[1] == b.chips[1] && a.chips[2] == b.chips[2] && a.locked == b.locked))
        return false;
    if (std::tie(a.rng, a.seed, a.turn, a.max_turns, a.config.players, a.config.teams, a.config.hand_size,
                 a.config.sequences_to_win, a.current_player, a.dealer, a.passes, a.winner, a.is_draw,
                 a.traded_this_turn, a.has_seed, a.last_draw_player, a.last_draw_card, a.sequence_count, a.draw_size,
                 a.discard_size) !=
        std::tie(b.rng, b.seed, b.turn, b.max_turns, b.config.players, b.config.teams, b.config.hand_size,
                 b.config.sequences_to_win, b.current_player, b.dealer, b.passes, b.winner, b.is_draw,
                 b.traded_this_turn, b.has_seed, b.last_draw_player, b.last_draw_card, b.sequence_count, b.draw_size,
                 b.discard_size))
        return false;
    for (int p = 0; p < kMaxPlayers; ++p) {
        if (a.hand_count[p] != b.hand_count[p]) return false;
        if (!std::equal(a.hands[p], a.hands[p] + std::min<int>(a.hand_count[p], kMaxHand), b.hands[p])) return false;
    }
    for (int i = 0; i < a.sequence_count && i < kMaxSequences; ++i)
        if (a.sequences[i].team != b.sequences[i].team || a.sequences[i].window != b.sequences[i].window) return false;
    for (int i = 0; i < a.draw_size; ++i)
        if (draw_pile_card(a, i) != draw_pile_card(b, i)) return false;
    for (int i = 0; i < a.discard_size; ++i)
        if (discard_card(a, i) != discard_card(b, i) || discard_owner(a, i) != discard_owner(b, i)) return false;
    return true;
}

bool contains(const std::vector<MoveId>& v, MoveId m) { return std::find(v.begin(), v.end(), m) != v.end(); }

// The structural invariants of any reachable or accepted state.
void check_invariants(const GameState& s) {
    EXPECT(s.config.players >= 2 && s.config.players <= kMaxPlayers);
    EXPECT(s.config.teams >= 2 && s.config.teams <= kMaxTeams);
    EXPECT(s.current_player < s.config.players && s.dealer < s.config.players);
    EXPECT(s.winner >= -1 && s.winner < s.config.teams);
    EXPECT(!(s.winner >= 0 && s.is_draw));
    EXPECT(s.sequence_count <= kMaxSequences);
    EXPECT(s.draw_size + s.discard_size <= kDeckSize);  // the pile and the log share cards[]
    int count[kCardKinds] = {};
    bool cards_ok = true;
    for (int p = 0; p < s.config.players && p < kMaxPlayers; ++p) {
        EXPECT(s.hand_count[p] <= s.config.hand_size);
        EXPECT(std::is_sorted(s.hands[p], s.hands[p] + std::min<int>(s.hand_count[p], kMaxHand)));
        for (int i = 0; i < s.hand_count[p] && i < kMaxHand; ++i) {
            if (s.hands[p][i] >= kCardKinds) cards_ok = false;
            else ++count[s.hands[p][i]];
        }
    }
    for (int i = 0; i < s.draw_size && i < kDeckSize; ++i) {
        if (draw_pile_card(s, i) >= kCardKinds) cards_ok = false;
        else ++count[draw_pile_card(s, i)];
    }
    for (int i = 0; i < s.discard_size && i < kDeckSize; ++i) {
        if (discard_card(s, i) >= kCardKinds || discard_owner(s, i) >= s.config.players) cards_ok = false;
        else ++count[discard_card(s, i)];
    }
    EXPECT(cards_ok);
    bool two_each = true;
    for (int c = 0; c < kCardKinds; ++c) two_each = two_each && count[c] == kCopiesPerCard;
    EXPECT(two_each);  // R1: 104 cards, two of each, wherever they are
    EXPECT((s.chips[0] & s.chips[1]).none() && (s.chips[0] & s.chips[2]).none() && (s.chips[1] & s.chips[2]).none());
    EXPECT((occupied(s) & corners()).none());
    EXPECT(s.locked.subset_of(occupied(s)));
    if (s.config.teams == 2) EXPECT(s.chips[2].none());
    if (s.last_draw_player >= 0) EXPECT(s.last_draw_player < s.config.players && s.last_draw_card < kCardKinds);
}

// Legal moves: both overloads agree, every listed id passes check_move(), none once over.
void check_legal(const GameState& s, const std::vector<MoveId>& ms, MoveList& list) {
    list.size = 0;  // legal_moves() appends
    list.overflow = false;
    const bool fits = legal_moves(s, list);
    EXPECT(fits == !list.overflow);
    if (fits) EXPECT(std::equal(ms.begin(), ms.end(), list.begin(), list.end()));
    else EXPECT(list.size == kMoveListCapacity && std::equal(list.begin(), list.end(), ms.begin()));
    EXPECT(ms.empty() == is_over(s));
    bool all_ok = true;
    for (MoveId m : ms) all_ok = all_ok && check_move(s, m) == MoveError::None;
    EXPECT(all_ok);
    EXPECT(std::adjacent_find(ms.begin(), ms.end()) == ms.end());
}

// Random and near-miss ids: legal exactly when listed; a refused play leaves the game alone.
void probe_illegal(Game& g, const std::vector<MoveId>& ms, SplitMix64& rng, Counters& c) {
    const GameState before = g.state();
    const std::size_t history = g.history_size();
    for (int k = 0; k < 4; ++k) {
        MoveId m;
        const std::uint32_t how = rng.below(4);
        if (how == 0 || ms.empty()) m = static_cast<MoveId>(rng.next());
        else if (how == 1) m = static_cast<MoveId>(rng.next()) & ((1u << 27) - 1);
        else m = ms[rng.below(std::uint32_t(ms.size()))] ^ (1u << rng.below(32));
        const bool listed = contains(ms, m);
        const MoveError e = check_move(g.state(), m);
        EXPECT((e == MoveError::None) == listed);
        if (!listed) {
            EXPECT(g.play(m) != MoveError::None);
            ++c.illegal_probes;
        }
    }
    EXPECT(g.history_size() == history);
    EXPECT(same_state(g.state(), before));
}

// A random int that is often just outside a valid range, sometimes far outside.
int wild_int(SplitMix64& rng, long long lo, long long hi) {
    const auto clamp = [](long long v) { return int(std::max<long long>(INT_MIN, std::min<long long>(INT_MAX, v))); };
    switch (rng.below(8)) {
        case 0: return clamp(lo - 1);
        case 1: return clamp(hi + 1);
        case 2: return INT_MIN + int(rng.below(3));
        case 3: return INT_MAX - int(rng.below(3));
        case 4: return -int(rng.below(300));
        case 5: return int(rng.below(300));
        default: {
            const long long span = std::max(1LL, std::min(1LL << 30, hi - lo + 1));
            return clamp(lo + (long long)rng.below(std::uint32_t(span)));
        }
    }
}

std::vector<int>& pick_list(std::vector<std::vector<int>>& lists, SplitMix64& rng) {
    if (lists.empty()) lists.emplace_back();
    return lists[rng.below(std::uint32_t(lists.size()))];
}

void corrupt(Position& p, SplitMix64& rng) {
    const int mutations = 1 + int(rng.below(3));
    for (int k = 0; k < mutations; ++k) {
        switch (rng.below(20)) {
            case 0: p.players = wild_int(rng, 2, 12); break;
            case 1: p.teams = wild_int(rng, 2, 3); break;
            case 2: p.board[rng.below(kCells)] = wild_int(rng, -1, 3); break;
            case 3: {  // a random "sequence"
                PositionSequence seq;
                seq.team = wild_int(rng, 0, 2);
                const int start = int(rng.below(kCells));
                const int step = int(rng.below(12));
                for (int i = 0; i < 5; ++i) seq.cells[i] = rng.below(6) == 0 ? wild_int(rng, 0, 99) : start + i * step;
                p.sequences.push_back(seq);
                break;
            }
            case 4:
                if (!p.sequences.empty()) {
                    auto& seq = p.sequences[rng.below(std::uint32_t(p.sequences.size()))];
                    if (rng.below(2)) seq.team = wild_int(rng, 0, 2);
                    else seq.cells[rng.below(5)] = wild_int(rng, 0, 99);
                }
                break;
            case 5: pick_list(p.hands, rng).push_back(wild_int(rng, 0, 51)); break;
            case 6: {
                auto& h = pick_list(p.hands, rng);
                if (!h.empty()) h.erase(h.begin() + rng.below(std::uint32_t(h.size())));
                break;
            }
            case 7:
                if (rng.below(2)) p.hands.emplace_back();
                else if (!p.hands.empty()) p.hands.pop_back();
                break;
            case 8: pick_list(p.discards, rng).push_back(wild_int(rng, 0, 51)); break;
            case 9:
                if (rng.below(2)) p.discards.emplace_back();
                else if (!p.discards.empty()) p.discards.pop_back();
                break;
            case 10: p.draw_pile.push_back(wild_int(rng, 0, 51)); break;
            case 11:
                if (!p.draw_pile.empty()) p.draw_pile.erase(p.draw_pile.begin() + rng.below(std::uint32_t(p.draw_pile.size())));
                break;
            case 12: {  // a huge list
                std::vector<int>& target = rng.below(2) ? p.draw_pile : pick_list(p.discards, rng);
                const int n = 200 + int(rng.below(2000));
                for (int i = 0; i < n; ++i) target.push_back(int(rng.below(kCardKinds)));
                break;
            }
            case 13: p.current_player = wild_int(rng, 0, (long long)p.players - 1); break;
            case 14: p.dealer = wild_int(rng, 0, (long long)p.players - 1); break;
            case 15: p.turn = wild_int(rng, 0, 400); break;
            case 16: p.passes = wild_int(rng, 0, p.players); break;
            case 17:
                if (rng.below(2)) p.winner = wild_int(rng, 0, 2);
                else p.winner.reset();
                p.is_draw = rng.below(3) == 0;
                p.traded_this_turn = rng.below(3) == 0;
                break;
            case 18:
                if (rng.below(2)) p.max_turns = wild_int(rng, 1, 400);
                else p.max_turns.reset();
                p.rng = rng.next();
                break;
            default:
                if (rng.below(3)) p.last_draw = std::make_pair(wild_int(rng, 0, (long long)p.players - 1), wild_int(rng, 0, 51));
                else p.last_draw.reset();
                break;
        }
    }
}

// A corrupted copy of the position must be refused, or give a state that is safe to play on.
void fuzz_position(const Position& good, SplitMix64& rng, Counters& c) {
    Position p = good;
    corrupt(p, rng);
    std::string error;
    const auto s = from_position(p, error);
    if (!s) {
        EXPECT(!error.empty());
        ++c.corrupt_refused;
        return;
    }
    ++c.corrupt_accepted;
    check_invariants(*s);
    Game g(*s);
    std::vector<MoveId> ms;
    MoveList list;
    for (int k = 0; k < 6 && !is_over(g.state()); ++k) {
        legal_moves(g.state(), ms);
        check_legal(g.state(), ms, list);
        if (ms.empty()) break;
        EXPECT(g.play(ms[rng.below(std::uint32_t(ms.size()))]) == MoveError::None);
        check_invariants(g.state());
        ms.clear();
    }
    while (g.undo()) {}
    EXPECT(same_state(g.state(), *s));
}

void referee_call(Game& g, SplitMix64& rng, Counters& c) {
    const GameState& s = g.state();
    const int players = s.config.players, teams = s.config.teams;
    RefereeError e;
    if (rng.below(2)) {
        // Usually the player who just drew; sometimes anyone, or out of range.
        const int player = rng.below(2) && s.last_draw_player >= 0 ? s.last_draw_player : int(rng.below(players + 4)) - 2;
        const int last = s.last_draw_player;  // s is g's live state: read it before the call
        e = g.missed_draw(player);
        if (player < 0 || player >= players || player != last) EXPECT(e != RefereeError::None);
    } else {
        int cards[kMaxPlayers];
        std::fill(cards, cards + kMaxPlayers, -1);
        const int team = rng.below(8) == 0 ? int(rng.below(teams + 4)) - 2 : int(rng.below(teams));
        bool valid = team >= 0 && team < teams && !is_over(s);
        for (int p = 0; p < players; ++p) {
            const bool member = team >= 0 && team < teams && p % teams == team;
            if (member && s.hand_count[p] > 0 && rng.below(10) != 0) {
                cards[p] = s.hands[p][rng.below(s.hand_count[p])];
            } else if (member || rng.below(20) == 0) {
                cards[p] = int(rng.below(kCardKinds));
                if (!(member && hand_contains(s, p, cards[p]))) valid = false;
            }
        }
        const GameState before = s;
        e = g.table_talk_penalty(team, cards);
        if (valid) EXPECT(e == RefereeError::None);
        if (e == RefereeError::None) {
            for (int p = team; p < players; p += teams) EXPECT(g.state().hand_count[p] + 1 == before.hand_count[p]);
        }
    }
    if (e == RefereeError::None) ++c.referee_ok;
    else ++c.referee_refused;
}

void play_game(long long index, std::uint64_t seed, Counters& c) {
    SplitMix64 rng(mix(seed, std::uint64_t(index)));
    const int players = kSplits[index % kSplitCount][0], teams = kSplits[index % kSplitCount][1];
    t_where = {index, players, teams, 0};
    Config cfg;
    EXPECT(make_config(players, teams, cfg));
    const std::uint32_t max_turns = rng.below(4) == 0 ? 1 + rng.below(250) : 0;
    const std::uint64_t deal_seed = rng.next();
    Game g(new_game(cfg, deal_seed, max_turns));
    const GameState deal = g.state();
    std::vector<GameState> trail;  // the state before each change still in the history
    std::vector<MoveId> ms;
    MoveList list;
#ifdef SEQUENCE_STRESS_PLAYOUT
    SplitMix64 playout_rng(rng.next());
#endif
    int steps = 0;
    while (!is_over(g.state()) && ++steps < 2000) {
        const GameState& s = g.state();
        t_where.turn = s.turn;
        check_invariants(s);
        ms.clear();
        legal_moves(s, ms);
        check_legal(s, ms, list);
        if (ms.empty()) break;
        if (rng.below(4) == 0) probe_illegal(g, ms, rng, c);
#ifdef SEQUENCE_STRESS_PLAYOUT
        EXPECT(contains(ms, random_legal_move(s, playout_rng)));
#endif
        // Position round trip.
        const Position pos = to_position(s);
        std::string error;
        const auto back = from_position(pos, error);
        EXPECT(back.has_value());
        if (back) EXPECT(to_position(*back) == pos);
        ++c.round_trips;
        if (rng.below(16) == 0) fuzz_position(pos, rng, c);

        const GameState before = s;
        const std::size_t history = g.history_size();
        const std::uint32_t action = rng.below(100);
        if (action < 4) {
            referee_call(g, rng, c);
        } else if (action < 9 && history > 0) {
            const int n = 1 + int(rng.below(std::min<std::uint32_t>(6, std::uint32_t(history))));
            for (int i = 0; i < n; ++i) {
                EXPECT(g.undo());
                EXPECT(same_state(g.state(), trail.back()));
                trail.pop_back();
                ++c.undos;
            }
            continue;
        } else if (action < 11) {
            // A copy is independent: play on it, the original does not move.
            Game copy = g;
            ++c.copies;
            std::vector<MoveId> cm;
            for (int k = 0; k < 5 && !is_over(copy.state()); ++k) {
                cm.clear();
                legal_moves(copy.state(), cm);
                EXPECT(copy.play(cm[rng.below(std::uint32_t(cm.size()))]) == MoveError::None);
            }
            EXPECT(to_position(g.state()) == pos);
            EXPECT(g.history_size() == history);
            if (copy.history_size() > 0) {  // and the copy's history is its own
                EXPECT(copy.undo());
            }
            EXPECT(to_position(g.state()) == pos);
            continue;
        } else {
            EXPECT(g.play(ms[rng.below(std::uint32_t(ms.size()))]) == MoveError::None);
        }
        // trail[i] is the state before change i of the history.
        if (g.history_size() == history + 1) {
            trail.push_back(before);
            ++c.changes;
        } else {
            EXPECT(g.history_size() == history);  // a refused referee call changes nothing
            EXPECT(same_state(g.state(), before));
        }
        EXPECT(trail.size() == g.history_size());
    }
    const GameState& end = g.state();
    t_where.turn = end.turn;
    check_invariants(end);
    ms.clear();
    legal_moves(end, ms);
    EXPECT(ms.empty() == is_over(end));
    if (!is_over(end)) {
        // R5 has no bound on a game without a turn cap: a full board where everyone trades dead
        // cards and passes (those passes do not count toward a stalemate) can cycle for ever.
        ++c.unfinished;
        if (std::getenv("SEQUENCE_STRESS_VERBOSE")) {
            std::lock_guard<std::mutex> lock(g_print);
            std::fprintf(stderr, "unfinished game %lld: turn %u, %d chips, passes %d, draw pile %d\n", index, end.turn,
                         occupied(end).count(), end.passes, end.draw_size);
        }
    } else if (end.winner >= 0) ++c.won;
    else if (max_turns && end.turn >= max_turns) ++c.capped;
    else ++c.drawn;
    c.turns += end.turn;
    ++c.games;
    // Undo walks back through every recorded state to the deal.
    EXPECT(g.history_size() == trail.size());
    while (g.history_size() > 0 && !trail.empty()) {
        EXPECT(g.undo());
        EXPECT(same_state(g.state(), trail.back()));
        trail.pop_back();
        ++c.undos;
    }
    EXPECT(trail.empty() && same_state(g.state(), deal));
    EXPECT(!g.undo());
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

#ifdef SEQUENCE_STRESS_SEARCH
// A mid-game position of a random split (never over).
GameState random_position(SplitMix64& rng) {
    const int k = int(rng.below(kSplitCount));
    Config cfg;
    make_config(kSplits[k][0], kSplits[k][1], cfg);
    for (;;) {
        GameState s = new_game(cfg, rng.next(), 0);
        const int plies = int(rng.below(60));
        std::vector<MoveId> ms;
        for (int i = 0; i < plies && !is_over(s); ++i) {
            ms.clear();
            legal_moves(s, ms);
            apply_move(s, ms[rng.below(std::uint32_t(ms.size()))]);
        }
        if (!is_over(s)) return s;
    }
}

void check_search(const GameState& s, const SearchOptions& o, const SearchResult& r) {
    std::vector<MoveId> ms;
    legal_moves(s, ms);
    EXPECT(contains(ms, r.best));
    EXPECT(r.nodes <= o.max_nodes);
    if (o.iterations && !o.stop && o.time_limit <= 0) EXPECT(r.iterations == o.iterations || r.nodes >= o.max_nodes);
    if (o.iterations) EXPECT(r.iterations <= o.iterations);
    std::uint64_t visits = 0;
    bool legal = true;
    for (const MoveStats& m : r.moves) {
        visits += m.visits;
        legal = legal && contains(ms, m.move);
        EXPECT(m.value >= 0 && m.value <= 1);
    }
    EXPECT(legal);
    EXPECT(visits <= r.iterations);
}

void run_searches(int searches, std::uint64_t seed, int threads, Counters& c) {
    SplitMix64 rng(mix(seed, 0x5EA7C4ull));
    for (int i = 0; i < searches; ++i) {
        t_where = {-1 - i, 0, 0, 0};
        const GameState s = random_position(rng);
        t_where.players = s.config.players;
        t_where.teams = s.config.teams;
        t_where.turn = s.turn;
        SearchOptions o;
        o.threads = 1 + int(rng.below(std::uint32_t(std::max(1, threads))));
        o.seed = rng.next();
        o.iterations = 50 + rng.below(400);
        Peek peek = Peek::None;
        switch (i % 4) {
            case 0: break;  // plain iteration budget
            case 1: o.max_nodes = 20 + rng.below(200); break;  // node cap hit
            case 2: o.iterations = 0; o.time_limit = 0.02; break;  // time limit only
            default: peek = Peek::All; o.playout_turns = 1 + rng.below(30); break;
        }
        const SearchResult r = ismcts(s, o, nullptr, peek);
        check_search(s, o, r);
        if (o.time_limit > 0) EXPECT(r.seconds < o.time_limit + 1.0);
        ++c.searches;
        c.search_iterations += std::int64_t(r.iterations);
        // The rollout search on the position after one more play, with that play as the
        // opponent-modelling evidence half of the time (a research build's option).
        GameState after = s;
        apply_move(after, random_legal_move(after, rng));
        if (!is_over(after)) {
            RolloutOptions ro;
            ro.threads = o.threads;
            ro.seed = rng.next();
            ro.iterations = i % 4 == 2 ? 0 : 20 + rng.below(200);
            ro.time_limit = i % 4 == 2 ? 0.02 : 0.0;
            ro.candidates = 1 + int(rng.below(12));
            ro.horizon = 1 + rng.below(60);
#if SEQUENCE_RESEARCH
            ro.inference_strength = i % 2 ? 3.0 : 0.0;
#endif
            const Peek ro_peek = static_cast<Peek>(rng.below(3));
            const SearchResult rr = rollout_search(after, ro, &s, ro_peek);
            std::vector<MoveId> ms;
            legal_moves(after, ms);
            EXPECT(contains(ms, rr.best));
            for (const MoveStats& m : rr.moves) EXPECT(contains(ms, m.move) && m.value >= 0 && m.value <= 1);
            if (ro.iterations) EXPECT(rr.iterations <= ro.iterations + std::uint64_t(ro.candidates));
            ++c.searches;
            c.search_iterations += std::int64_t(rr.iterations);
        }
    }
    // A stop flag raised from another thread ends a long search early.
    {
        t_where = {-1000, 0, 0, 0};
        const GameState s = random_position(rng);
        std::atomic<bool> stop{false};
        SearchOptions o;
        o.threads = std::max(1, threads);
        o.iterations = 0;  // no iteration budget: only the flag (or the 30 s deadline) ends it
        o.time_limit = 30;
        o.seed = 7;
        o.stop = &stop;
        std::thread stopper([&] {
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
            stop = true;
        });
        const auto t0 = std::chrono::steady_clock::now();
        const SearchResult r = ismcts(s, o);
        stopper.join();
        EXPECT(r.interrupted);
        EXPECT(seconds_since(t0) < 5);
        check_search(s, o, r);
        ++c.searches;
        c.search_iterations += std::int64_t(r.iterations);
    }
    // Two searches at once (no shared mutable state between them), same seed: same answer.
    {
        t_where = {-2000, 0, 0, 0};
        const GameState s = random_position(rng);
        SearchOptions o;
        o.threads = std::max(1, threads);
        o.iterations = 300;
        o.seed = 11;
        SearchResult a, b;
        std::thread ta([&] { a = ismcts(s, o); });
        std::thread tb([&] { b = ismcts(s, o); });
        ta.join();
        tb.join();
        check_search(s, o, a);
        check_search(s, o, b);
        EXPECT(a.best == b.best && a.iterations == b.iterations);
        c.searches += 2;
        c.search_iterations += std::int64_t(a.iterations + b.iterations);
    }
}
#endif

#ifdef SEQUENCE_STRESS_SIMULATE
void run_simulate(long long games, std::uint64_t seed, int threads, Counters& c) {
    for (int k = 0; k < kSplitCount; k += 3) {
        t_where = {-3000 - k, kSplits[k][0], kSplits[k][1], 0};
        Config cfg;
        make_config(kSplits[k][0], kSplits[k][1], cfg);
        const SimulateResult one = simulate(games, cfg, seed + k, 1, 300, nullptr);
        const SimulateResult many = simulate(games, cfg, seed + k, std::max(2, threads), 300, nullptr);
        EXPECT(one.games == games && many.games == games);
        EXPECT(one.wins == many.wins && one.draws == many.draws && one.total_turns == many.total_turns);
        std::int64_t total = one.draws;
        for (auto w : one.wins) total += w;
        EXPECT(total == games);
        EXPECT(!one.interrupted && !many.interrupted);
        c.simulated += one.games + many.games;
    }
    // Interrupted from another thread: stops early, reports the finished games.
    t_where = {-4000, 2, 2, 0};
    Config cfg;
    make_config(2, 2, cfg);
    std::atomic<bool> stop{false};
    std::thread stopper([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        stop = true;
    });
    const SimulateResult r = simulate(100000000, cfg, seed, std::max(2, threads), 0, &stop);
    stopper.join();
    EXPECT(r.interrupted && r.games < 100000000);
    std::int64_t total = r.draws;
    for (auto w : r.wins) total += w;
    EXPECT(total == r.games);
    c.simulated += r.games;
}
#endif

long long arg(int argc, char** argv, int i, long long fallback) {
    if (argc <= i) return fallback;
    char* end = nullptr;
    const long long v = std::strtoll(argv[i], &end, 10);
    if (!end || *end || v < -1) {
        std::fprintf(stderr, "usage: sequence_stress [games=3000] [seed=1] [threads=2] [searches=-1 (auto)]\n");
        std::exit(2);
    }
    return v;
}

}  // namespace

int main(int argc, char** argv) {
    const long long games = arg(argc, argv, 1, 3000);
    const std::uint64_t seed = std::uint64_t(arg(argc, argv, 2, 1));
    const int threads = int(std::max(1LL, std::min(64LL, arg(argc, argv, 3, 2))));
    long long searches = arg(argc, argv, 4, -1);
    if (searches < 0) searches = std::max(4LL, games / 500);

    const auto t0 = std::chrono::steady_clock::now();
    std::atomic<long long> next{0};
    std::vector<Counters> per_thread(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            for (long long i; (i = next++) < games && g_findings < kMaxFindings;) play_game(i, seed, per_thread[t]);
        });
    }
    for (auto& th : pool) th.join();
    Counters total;
    for (const auto& c : per_thread) total.add(c);
    const double game_seconds = seconds_since(t0);
    std::printf("games: %lld (%lld won, %lld stalemates, %lld turn caps, %lld stopped after 2000 steps) over %d splits "
                "on %d threads, %.1f s\n",
                total.games, total.won, total.drawn, total.capped, total.unfinished, kSplitCount, threads, game_seconds);
    std::printf("  turns %lld, changes %lld, undos %lld, copies %lld, position round trips %lld\n", total.turns,
                total.changes, total.undos, total.copies, total.round_trips);
    std::printf("  referee calls %lld accepted / %lld refused, illegal ids probed %lld\n", total.referee_ok,
                total.referee_refused, total.illegal_probes);
    std::printf("  corrupted positions %lld refused / %lld accepted and played on\n", total.corrupt_refused,
                total.corrupt_accepted);

#ifdef SEQUENCE_STRESS_SEARCH
    const auto t1 = std::chrono::steady_clock::now();
    run_searches(int(searches), seed, threads, total);
    std::printf("searches: %lld searches, ISMCTS and rollout (%lld iterations), %.1f s\n", total.searches, total.search_iterations,
                seconds_since(t1));
#else
    std::printf("searches: skipped (sequence/search/ismcts.hpp not present)\n");
#endif
#ifdef SEQUENCE_STRESS_SIMULATE
    const auto t2 = std::chrono::steady_clock::now();
    run_simulate(std::max(20LL, std::min(2000LL, games / 50)), seed, threads, total);
    std::printf("simulate: %lld games, %.1f s\n", total.simulated, seconds_since(t2));
#else
    std::printf("simulate: skipped (sequence/simulate.hpp not present)\n");
#endif
    const int findings = g_findings;
    std::printf("%s: %d finding(s), %.1f s total\n", findings ? "FAILED" : "OK", findings, seconds_since(t0));
    return findings ? 1 : 0;
}
