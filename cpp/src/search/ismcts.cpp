#include "sequence/search/ismcts.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <thread>

#include "sequence/playout.hpp"
#include "sequence/rules.hpp"

namespace sequence {

// ------------------------------------------------------------------ observation, determinization

Observation observe(const GameState& s, int player) {
    Observation o;
    std::memset(static_cast<void*>(&o.pub), 0, sizeof(GameState));
    GameState& d = o.pub;
    o.player = player;
    // Public (R9): board, sequences, discard piles, hand sizes, draw pile size, counters.
    for (int t = 0; t < kMaxTeams; ++t) d.chips[t] = s.chips[t];
    d.locked = s.locked;
    d.turn = s.turn;
    d.max_turns = s.max_turns;
    d.config = s.config;
    d.current_player = s.current_player;
    d.dealer = s.dealer;
    d.passes = s.passes;
    d.winner = s.winner;
    d.is_draw = s.is_draw;
    d.traded_this_turn = s.traded_this_turn;
    d.last_draw_player = s.last_draw_player;
    d.sequence_count = s.sequence_count;
    for (int i = 0; i < s.sequence_count; ++i) d.sequences[i] = s.sequences[i];
    d.draw_size = s.draw_size;
    // The discard log (the top end of cards, and its owners), and nothing of the draw pile's
    // region or of the unspecified bytes and nibbles past the log.
    const int discards = s.discard_size;
    d.discard_size = s.discard_size;
    std::memcpy(d.cards + kDeckSize - discards, s.cards + kDeckSize - discards, discards);
    for (int i = 0; i < kDeckSize / 2; ++i) {  // byte i: discard i (low nibble), discard i + 52 (high)
        const std::uint8_t keep = (i < discards ? 0x0F : 0) | (i + kDeckSize / 2 < discards ? 0xF0 : 0);
        d.discard_owner_nibbles[i] = static_cast<std::uint8_t>(s.discard_owner_nibbles[i] & keep);
    }
    for (int p = 0; p < kMaxPlayers; ++p) d.hand_count[p] = s.hand_count[p];
    // The player's own hand, and its own last draw.
    for (int i = 0; i < s.hand_count[player]; ++i) d.hands[player][i] = s.hands[player][i];
    if (s.last_draw_player == player) d.last_draw_card = s.last_draw_card;
    // Hidden, left zero: other hands, the draw pile's cards, rng, seed, has_seed.
    return o;
}

GameState determinize(const Observation& obs, SplitMix64& rng) {
    GameState d = obs.pub;
    const int me = obs.player;
    int count[kCardKinds];
    for (int c = 0; c < kCardKinds; ++c) count[c] = kCopiesPerCard;
    for (int i = 0; i < d.hand_count[me]; ++i) --count[d.hands[me][i]];
    for (int i = 0; i < d.discard_size; ++i) --count[discard_card(d, i)];
    Card unseen[kDeckSize];
    int n = 0;
    for (int c = 0; c < kCardKinds; ++c)
        for (int k = 0; k < count[c]; ++k) unseen[n++] = static_cast<Card>(c);
    shuffle_halves(unseen, n, rng);
    int next = 0;
    for (int p = 0; p < d.config.players; ++p) {
        if (p == me) continue;
        Card* hand = d.hands[p];
        int size = d.hand_count[p];
        if (size > n - next) size = d.hand_count[p] = static_cast<std::uint8_t>(n - next);  // inconsistent input only
        for (int i = 0; i < size; ++i) {  // insertion: hands stay ascending
            const Card card = unseen[next++];
            int j = i;
            for (; j > 0 && hand[j - 1] > card; --j) hand[j] = hand[j - 1];
            hand[j] = card;
        }
    }
    // Inconsistent input only: no more cards than are unseen, and the draw pile stays clear of
    // the discard log.
    if (d.draw_size > n - next) d.draw_size = static_cast<std::uint8_t>(n - next);
    if (d.draw_size > kDeckSize - d.discard_size) d.draw_size = static_cast<std::uint8_t>(kDeckSize - d.discard_size);
    for (int i = 0; i < d.draw_size; ++i) set_draw_pile_card(d, i, unseen[next++]);
    d.rng = rng.next();  // the world's own reshuffles (R6)
    if (d.last_draw_player != me) d.last_draw_player = -1;  // its card is unknown; only R10 reads it
    return d;
}

GameState determinize(const GameState& observed, int player, SplitMix64& rng) {
    return determinize(observe(observed, player), rng);
}

// ------------------------------------------------------------------ the tree

namespace {

using Clock = std::chrono::steady_clock;

// log(n) for UCB's exploration term: a table for the small counts nearly every node has (logf was
// 5% of an iteration), the library beyond.
struct LogTable {
    static constexpr std::uint32_t kSize = 4096;
    float v[kSize];
    LogTable() {
        v[0] = 0.0f;
        for (std::uint32_t n = 1; n < kSize; ++n) v[n] = std::log(static_cast<float>(n));
    }
    float operator()(std::uint32_t n) const { return n < kSize ? v[n] : std::log(static_cast<float>(n)); }
};
const LogTable kLog;

// One tree node: the move that leads to it from its parent, stored as an index-linked child list.
struct Node {
    MoveId move;
    std::int32_t first_child;
    std::int32_t next_sibling;
    std::uint32_t visits;
    std::uint32_t avail;  // ISMCTS availability: iterations in which the parent was reached and this move was legal
    float value;          // sum of rewards for `team`
    std::uint8_t team;    // team of the player who made `move`
};

// Per-thread scratch: the legal list of the current tree node and a stamped hash from move id to
// its index in that list (no clearing between nodes).
struct Scratch {
    static constexpr int kHashBits = 11;
    static constexpr int kHashSize = 1 << kHashBits;  // >= 2 x kMoveListCapacity
    MoveList list;
    std::uint8_t found[kMoveListCapacity];
    float prior[kMoveListCapacity];  // heuristic score of each legal move mapped to [0, 1]
    MoveId key[kHashSize];
    std::int16_t index[kHashSize];
    std::uint32_t stamp[kHashSize] = {};
    std::uint32_t now = 0;

    static std::uint32_t slot(MoveId id) { return (id * 0x9E3779B1u) >> (32 - kHashBits); }

    void fill() {
        if (++now == 0) {
            std::fill(stamp, stamp + kHashSize, 0u);
            now = 1;
        }
        for (int i = 0; i < list.size; ++i) {
            std::uint32_t h = slot(list.moves[i]);
            while (stamp[h] == now) h = (h + 1) & (kHashSize - 1);
            stamp[h] = now;
            key[h] = list.moves[i];
            index[h] = static_cast<std::int16_t>(i);
        }
        std::fill(found, found + list.size, std::uint8_t{0});
    }
    int find(MoveId id) const {
        for (std::uint32_t h = slot(id); stamp[h] == now; h = (h + 1) & (kHashSize - 1))
            if (key[h] == id) return index[h];
        return -1;
    }
};

// Decisive moves: when a move of the list wins at once (its declared sequences complete the
// team's count, R8), the list is cut to that move, so the tree never explores the alternatives
// of a won position (and opponents always take their wins).
inline void keep_decisive(const GameState& st, MoveList& legal) {
    const int need = st.config.sequences_to_win - team_sequences(st, team_of(st, st.current_player));
    for (int i = 0; i < legal.size; ++i) {
        const MoveId m = legal.moves[i];
        if ((m & 3) == static_cast<MoveId>(MoveKind::Place) && (m >> 15) != 0 && declared_count(m) >= need) {
            legal.moves[0] = m;
            legal.size = 1;
            return;
        }
    }
}

struct TreeOutput {
    std::vector<MoveStats> root;  // value holds the reward sum here
    std::uint64_t iterations = 0;
    std::uint64_t nodes = 0;
    bool interrupted = false;
};

struct TreeJob {
    const Observation* obs;
    const GameState* truth;  // non-null only when cheating
    const SearchOptions* options;
    std::uint64_t iterations;  // 0 = none
    std::uint64_t node_budget;
    bool has_deadline;
    Clock::time_point deadline;
    std::uint64_t seed;
};

void run_tree(const TreeJob& job, TreeOutput& out) {
    const SearchOptions& o = *job.options;
    const int teams = job.obs->pub.config.teams;
    const float draw_reward = 1.0f / static_cast<float>(teams);
    const float c = static_cast<float>(o.exploration);
    const std::uint32_t root_turn = job.obs->pub.turn;
    std::vector<Node> nodes;
    std::size_t reserve = static_cast<std::size_t>(job.node_budget);
    if (job.iterations != 0 && job.iterations + 1 < reserve) reserve = static_cast<std::size_t>(job.iterations + 1);
    nodes.reserve(reserve);
    nodes.push_back(Node{0, -1, -1, 0, 0, 0.0f, 0});
    auto scratch = std::make_unique<Scratch>();
    Scratch& sc = *scratch;
    SplitMix64 rng(job.seed);
    std::vector<std::int32_t> path;
    path.reserve(256);
    MoveScorer scorer;
    const float pw = static_cast<float>(o.prior_weight);
    const std::uint32_t epsilon = static_cast<std::uint32_t>(std::min(1.0, std::max(0.0, o.playout_epsilon)) * 65536.0);

    std::uint64_t it = 0;
    for (;; ++it) {
        if (job.iterations != 0 && it >= job.iterations) break;
        if ((it & 15) == 0) {
            if (o.stop != nullptr && o.stop->load(std::memory_order_relaxed)) {
                out.interrupted = true;
                break;
            }
            if (job.has_deadline && Clock::now() >= job.deadline) break;
        }
        GameState st = job.truth != nullptr ? *job.truth : determinize(*job.obs, rng);
        path.clear();
        path.push_back(0);
        std::int32_t node = 0;
        while (!is_over(st)) {
            MoveList& legal = sc.list;
            legal.size = 0;
            legal.overflow = false;
            legal_moves(st, legal);
            if (o.decisive) keep_decisive(st, legal);
            sc.fill();
            const bool use_prior = o.ordered_expansion || o.prior_weight > 0;
            if (use_prior) {
                // The heuristic (heuristic.hpp) of every legal move, log-scaled and mapped to [0, 1].
                scorer.build(st, o.heuristic);
                float lo = 1e30f, hi = -1e30f;
                for (int i = 0; i < legal.size; ++i) {
                    const double h = scorer.score(legal.moves[i]);
                    const float g = static_cast<float>(h >= 0 ? std::log1p(h) : -std::log1p(-h));
                    sc.prior[i] = g;
                    lo = g < lo ? g : lo;
                    hi = g > hi ? g : hi;
                }
                const float span = hi > lo ? 1.0f / (hi - lo) : 0.0f;
                for (int i = 0; i < legal.size; ++i) sc.prior[i] = (sc.prior[i] - lo) * span;
            }
            int legal_children = 0;
            std::int32_t best = -1;
            float best_score = -1e30f;
            std::uint32_t log_of = 0;  // one-entry memo: siblings usually share an availability
            float log_avail = 0.0f;
            for (std::int32_t ch = nodes[node].first_child; ch >= 0; ch = nodes[ch].next_sibling) {
                Node& n = nodes[ch];
                const int i = sc.find(n.move);
                if (i < 0) continue;  // not legal in this determinization
                sc.found[i] = 1;
                ++legal_children;
                ++n.avail;
                if (n.avail != log_of) {
                    log_of = n.avail;
                    log_avail = kLog(n.avail);
                }
                const float inv = 1.0f / static_cast<float>(n.visits);
                float score = n.value * inv + c * std::sqrt(log_avail * inv);
                if (o.prior_weight > 0) score += pw * sc.prior[i] / (static_cast<float>(n.visits) + 1.0f);
                if (score > best_score) {
                    best_score = score;
                    best = ch;
                }
            }
            const int untried = legal.size - legal_children;
            bool widen = untried > 0 && nodes.size() < job.node_budget;
            if (widen && o.widen_base > 0 && legal_children > 0) {
                const double v = static_cast<double>(nodes[node].visits);
                widen = legal_children < o.widen_base + o.widen_coef * std::pow(v, o.widen_exponent);
            }
            if (widen) {
                int i = 0;
                if (o.ordered_expansion) {  // the best untried move by heuristic, ties at random
                    float top = -1.0f;
                    std::uint32_t ties = 0;
                    for (int k = 0; k < legal.size; ++k) {
                        if (sc.found[k]) continue;
                        if (sc.prior[k] > top) {
                            top = sc.prior[k];
                            i = k;
                            ties = 1;
                        } else if (sc.prior[k] == top && rng.below(++ties) == 0) {
                            i = k;
                        }
                    }
                } else {  // a uniformly random untried move
                    int r = static_cast<int>(rng.below(static_cast<std::uint32_t>(untried)));
                    for (;; ++i)
                        if (!sc.found[i] && r-- == 0) break;
                }
                const MoveId m = legal.moves[i];
                const auto id = static_cast<std::int32_t>(nodes.size());
                nodes.push_back(Node{m, -1, nodes[node].first_child, 0, 1, 0.0f,
                                     static_cast<std::uint8_t>(team_of(st, st.current_player))});
                nodes[node].first_child = id;
                apply_move(st, m);
                path.push_back(id);
                break;
            }
            if (best < 0) break;  // pool full and nothing tried here: play out from this node
            apply_move(st, nodes[best].move);
            path.push_back(best);
            node = best;
        }
        if (!is_over(st)) {
            // Stop where the root player's team is to move again (the same point of the round for
            // every leaf), so that the static evaluation has no bias between odd and even depths.
            std::uint32_t limit = st.turn + o.playout_turns;
            if (o.evaluate && o.align_playouts) {
                const std::uint32_t players = st.config.players;
                limit += (players - (limit - root_turn) % players) % players;
            }
            if (o.greedy_playouts) greedy_playout(st, rng, limit, o.heuristic, epsilon);
            else if (o.informed_playouts) informed_playout(st, rng, limit, o.policy);
            else random_playout(st, rng, limit);
        }
        float reward[kMaxTeams];
        if (o.evaluate) {
            evaluate_rewards(st, o.weights, reward);
        } else {
            for (int t = 0; t < teams; ++t) reward[t] = st.winner < 0 ? draw_reward : (t == st.winner ? 1.0f : 0.0f);
        }
        ++nodes[0].visits;
        for (std::size_t k = 1; k < path.size(); ++k) {
            Node& n = nodes[path[k]];
            ++n.visits;
            n.value += reward[n.team];
        }
    }
    out.iterations = it;
    out.nodes = nodes.size();
    for (std::int32_t ch = nodes[0].first_child; ch >= 0; ch = nodes[ch].next_sibling)
        out.root.push_back(MoveStats{nodes[ch].move, nodes[ch].visits, static_cast<double>(nodes[ch].value)});
}

}  // namespace

std::size_t search_node_bytes() { return sizeof(Node); }

SearchResult ismcts(const GameState& root, const SearchOptions& options) {
    const auto start = Clock::now();
    SearchResult result;
    const int threads = std::max(1, options.threads);
    const Observation obs = observe(root, root.current_player);
    TreeJob base{};
    base.obs = &obs;
    base.truth = options.cheat ? &root : nullptr;  // TEST ONLY: the cheating search reads the true state
    base.options = &options;
    base.has_deadline = options.time_limit > 0;
    base.deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.time_limit));
    base.node_budget = std::max<std::uint64_t>(1, options.max_nodes / static_cast<std::uint64_t>(threads));

    std::vector<TreeJob> jobs(static_cast<std::size_t>(threads), base);
    std::vector<TreeOutput> outs(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) {
        TreeJob& j = jobs[static_cast<std::size_t>(t)];
        j.seed = SplitMix64(options.seed + static_cast<std::uint64_t>(t) * 0x9E3779B97F4A7C15ull).next();
        if (options.iterations != 0) {
            j.iterations = options.iterations / threads + (static_cast<std::uint64_t>(t) < options.iterations % threads);
            if (j.iterations == 0) j.iterations = 1;
        }
    }
    if (threads == 1) {
        run_tree(jobs[0], outs[0]);
    } else {
        std::vector<std::thread> pool;
        pool.reserve(static_cast<std::size_t>(threads));
        for (int t = 0; t < threads; ++t)
            pool.emplace_back(run_tree, std::cref(jobs[static_cast<std::size_t>(t)]), std::ref(outs[static_cast<std::size_t>(t)]));
        for (auto& th : pool) th.join();
    }

    // Merge the root children of every tree.
    std::vector<MoveStats> merged;
    for (const TreeOutput& out : outs) {
        result.iterations += out.iterations;
        result.nodes += out.nodes;
        result.interrupted = result.interrupted || out.interrupted;
        for (const MoveStats& m : out.root) {
            auto it = std::find_if(merged.begin(), merged.end(), [&](const MoveStats& x) { return x.move == m.move; });
            if (it == merged.end()) merged.push_back(m);
            else {
                it->visits += m.visits;
                it->value += m.value;
            }
        }
    }
    for (MoveStats& m : merged) m.value = m.visits ? m.value / static_cast<double>(m.visits) : 0.0;
    std::sort(merged.begin(), merged.end(), [](const MoveStats& a, const MoveStats& b) {
        return a.visits != b.visits ? a.visits > b.visits : a.move < b.move;
    });
    result.moves = std::move(merged);
    if (!result.moves.empty()) result.best = result.moves.front().move;
    else {  // no iteration ran (stopped at once): any legal move, the first
        std::vector<MoveId> legal;
        legal_moves(obs.pub, legal);  // the player's own moves depend only on public info and its hand
        if (!legal.empty()) result.best = legal.front();
    }
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
}

}  // namespace sequence
