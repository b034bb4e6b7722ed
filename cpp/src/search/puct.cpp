#include "sequence/search/puct.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "sequence/actions.hpp"
#include "sequence/observation.hpp"
#include "sequence/parallel.hpp"
#include "sequence/rules.hpp"
#include "sequence/playout.hpp"
#include "sequence/search/decisive.hpp"
#include "sequence/search/evaluate.hpp"
#include "sequence/search/heuristic.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

namespace {

// The network's probabilities for moves[0 .. n) of the player to move of s (their first actions'
// softmax over the distinct first actions, shared equally by moves with the same one) and its
// value per absolute team. Reads s only through write_observation() for that player (R9).
using PolicyScratch = NetPolicyScratch;

void policy_of(const GameState& s, const Net& net, NetWorkspace& ws, PolicyScratch& sc, const MoveId* moves, int n,
               float* probs, float value[kMaxTeams]) {
    const int me = s.current_player;
    write_observation(s, PendingPlacement{}, me, sc.obs);
    int distinct = 0;
    for (int i = 0; i < n; ++i) {
        const int a = action_of_move(moves[i]);
        int k = 0;
        while (k < distinct && sc.actions[k] != a) ++k;  // few moves share an action: R7 only
        if (k == distinct) {
            sc.actions[distinct] = a;
            sc.share[distinct] = 0;
            ++distinct;
        }
        sc.action_of[i] = k;
        ++sc.share[k];
    }
    float rel[kNetValueOutputs];
    net.evaluate(sc.obs, sc.actions, distinct, sc.logits, rel, ws);
    softmax(sc.logits, distinct, sc.logits);
    for (int i = 0; i < n; ++i) probs[i] = sc.logits[sc.action_of[i]] / static_cast<float>(sc.share[sc.action_of[i]]);
    const int teams = s.config.teams, mine = team_of(s, me);
    for (int t = 0; t < kMaxTeams; ++t) value[t] = 0.0f;
    for (int k = 0; k < teams; ++k) value[(mine + k) % teams] = rel[k];  // relative team k (observation.hpp)
}

struct Node {
    MoveId move;
    std::int32_t first_child;
    std::int32_t next_sibling;
    std::uint32_t visits;
    std::uint32_t avail;
    float value;   // reward sum for `team`
    float prior;
    float fpu;     // the network's value at this node for the team to move here (its children's Q before a visit)
    std::uint8_t team;  // the team that made `move`
};

class Tree {
public:
    Tree(const Observation& obs, const Net& net, const NetSearchOptions& o)
        : obs_(obs), net_(net), o_(o), rng_(o.seed), ws_(net.workspace()), sc_(new PolicyScratch),
          draw_(1.0f / static_cast<float>(obs.pub.config.teams)) {
        nodes_.reserve(1 << 14);
        nodes_.push_back(Node{0, -1, -1, 0, 0, 0.0f, 1.0f, draw_, 0});
        path_.reserve(256);
    }

    void iterate() {
        GameState st = determinize(obs_, rng_);
        path_.clear();
        path_.push_back(0);
        std::int32_t node = 0;
        float reward[kMaxTeams];
        for (;;) {
            if (is_over(st)) {
                for (int t = 0; t < st.config.teams; ++t)
                    reward[t] = st.winner < 0 ? draw_ : (t == st.winner ? 1.0f : 0.0f);
                break;
            }
            legal_.size = 0;
            legal_.overflow = false;
            legal_moves(st, legal_);
            if (o_.decisive) keep_decisive(st, legal_);
            const int n = legal_.size;
            std::sort(legal_.moves, legal_.moves + n);
            std::fill(found_, found_ + n, std::uint8_t{0});
            const float fpu = nodes_[node].fpu;
            const float c = static_cast<float>(o_.c_puct);
            std::int32_t best = -1;
            float best_score = -1e30f;
            int legal_children = 0;
            for (std::int32_t ch = nodes_[node].first_child; ch >= 0; ch = nodes_[ch].next_sibling) {
                Node& x = nodes_[ch];
                const MoveId* at = std::lower_bound(legal_.moves, legal_.moves + n, x.move);
                if (at == legal_.moves + n || *at != x.move) continue;  // not legal in this world
                found_[at - legal_.moves] = 1;
                ++legal_children;
                ++x.avail;
                const float q = x.visits ? x.value / static_cast<float>(x.visits) : fpu;
                const float u = c * x.prior * std::sqrt(static_cast<float>(x.avail)) / (1.0f + static_cast<float>(x.visits));
                if (q + u > best_score) {
                    best_score = q + u;
                    best = ch;
                }
            }
            const bool missing = legal_children < n;
            if (missing && nodes_.size() + static_cast<std::size_t>(n) <= o_.max_nodes) {
                expand(node, st, reward);
                if (o_.mix > 0) blend_playout(st, reward);
                break;
            }
            if (best < 0) {  // the pool is full and nothing here was tried: the network's value
                policy_of(st, net_, ws_, *sc_, legal_.moves, n, probs_, reward);
                break;
            }
            apply_move(st, nodes_[best].move);
            path_.push_back(best);
            node = best;
        }
        ++nodes_[0].visits;
        for (std::size_t k = 1; k < path_.size(); ++k) {
            Node& x = nodes_[path_[k]];
            ++x.visits;
            x.value += reward[x.team];
        }
    }

    void report(SearchResult& r) const {
        for (std::int32_t ch = nodes_[0].first_child; ch >= 0; ch = nodes_[ch].next_sibling) {
            const Node& x = nodes_[ch];
            r.moves.push_back(MoveStats{x.move, x.visits, x.visits ? x.value / static_cast<double>(x.visits) : 0.0});
        }
        r.nodes = nodes_.size();
    }

private:
    // reward = (1 - mix) * reward + mix * (a short informed playout from st, aligned to end with
    // the root seat to move, scored by the static evaluation).
    void blend_playout(GameState& st, float reward[kMaxTeams]) {
        std::uint32_t limit = st.turn + static_cast<std::uint32_t>(o_.playout_turns);
        const std::uint32_t players = st.config.players;
        limit += (players - (limit - obs_.pub.turn) % players) % players;
        informed_playout(st, rng_, limit, policy_);
        float r[kMaxTeams];
        evaluate_rewards(st, weights_, r);
        const float m = static_cast<float>(o_.mix);
        for (int t = 0; t < st.config.teams; ++t) reward[t] = (1.0f - m) * reward[t] + m * r[t];
    }

    // The network at st (the seat to move's view): priors for this world's legal moves that have
    // no child at `node` yet, and the reward of the iteration.
    void expand(std::int32_t node, const GameState& st, float reward[kMaxTeams]) {
        const int n = legal_.size;
        policy_of(st, net_, ws_, *sc_, legal_.moves, n, probs_, reward);
        const int mover = team_of(st, st.current_player);
        if (nodes_[node].visits == 0) nodes_[node].fpu = reward[mover];
        for (int i = 0; i < n; ++i) {
            if (found_[i]) continue;
            const auto id = static_cast<std::int32_t>(nodes_.size());
            nodes_.push_back(Node{legal_.moves[i], -1, nodes_[node].first_child, 0, 1, 0.0f, probs_[i], draw_,
                                  static_cast<std::uint8_t>(mover)});
            nodes_[node].first_child = id;
        }
    }

    const Observation& obs_;
    const Net& net_;
    const NetSearchOptions& o_;
    SplitMix64 rng_;
    NetWorkspace ws_;
    std::unique_ptr<PolicyScratch> sc_;
    const float draw_;
    std::vector<Node> nodes_;
    std::vector<std::int32_t> path_;
    const PlayoutPolicy policy_{};
    const EvalWeights weights_{};
    MoveList legal_;
    std::uint8_t found_[kMoveListCapacity];
    float probs_[kMoveListCapacity];
};

}  // namespace

void check_options(const NetSearchOptions& o) {
    check_limits(o);
    if (o.threads != 1)
        throw std::invalid_argument("threads must be 1 (the net search runs one thread), not " + std::to_string(o.threads));
    if (!(o.c_puct > 0) || o.c_puct > 100)
        throw std::invalid_argument("c_puct must be in (0, 100], not " + std::to_string(o.c_puct));
    if (!(o.mix >= 0 && o.mix <= 1))
        throw std::invalid_argument("mix must be in 0..1, not " + std::to_string(o.mix));
    if (o.playout_turns < 0 || o.playout_turns > 1000)
        throw std::invalid_argument("playout_turns must be in 0..1000, not " + std::to_string(o.playout_turns));
    if (o.max_nodes < 1024 || o.max_nodes > (1ull << 28))
        throw std::invalid_argument("max_nodes must be in 1024..268435456, not " + std::to_string(o.max_nodes));
}

int net_policy(const GameState& s, const Net& net, NetWorkspace& ws, NetPolicyScratch& scratch, MoveId* moves,
               float* probs, int capacity, float value[kMaxTeams]) {
    scratch.legal.size = 0;  // legal_moves() appends
    scratch.legal.overflow = false;
    legal_moves(s, scratch.legal);
    const int n = std::min(scratch.legal.size, capacity);
    std::copy(scratch.legal.moves, scratch.legal.moves + n, moves);
    policy_of(s, net, ws, scratch, moves, n, probs, value);
    return n;
}

int net_policy(const GameState& s, const Net& net, NetWorkspace& ws, MoveId* moves, float* probs, int capacity,
               float value[kMaxTeams]) {
    auto sc = std::make_unique<NetPolicyScratch>();
    return net_policy(s, net, ws, *sc, moves, probs, capacity, value);
}

SearchResult net_search(const GameState& root, const Net& net, const NetSearchOptions& options) {
    check_options(options);
    assert(!is_over(root));
    SearchResult result;
    const Observation obs = observe(root, root.current_player);
    StopSignal stop(options.stop, options.time_limit);
    Tree tree(obs, net, options);
    std::uint64_t it = 0;
    for (; options.iterations == 0 || it < options.iterations; ++it) {
        if ((it & 15) == 0 && stop.should_stop()) break;
        tree.iterate();
    }
    result.iterations = it;
    tree.report(result);
    std::sort(result.moves.begin(), result.moves.end(), [](const MoveStats& a, const MoveStats& b) {
        return a.visits != b.visits ? a.visits > b.visits : a.move < b.move;
    });
    if (!result.moves.empty()) result.best = result.moves.front().move;
    else {
        std::vector<MoveId> legal;
        legal_moves(obs.pub, legal);
        if (!legal.empty()) result.best = legal.front();
    }
    result.interrupted = stop.interrupted();
    result.seconds = stop.elapsed();
    return result;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
