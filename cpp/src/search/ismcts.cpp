#include "sequence/search/ismcts.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <memory>

#include "sequence/parallel.hpp"
#include "sequence/playout.hpp"
#include "sequence/rules.hpp"
#include "sequence/search/decisive.hpp"
#if SEQUENCE_RESEARCH
#include "sequence/search/inference.hpp"
#endif

namespace sequence {
inline namespace SEQUENCE_ISA {
#if !SEQUENCE_RESEARCH
class InferenceModel;  // inference.hpp, a research build's only
#endif
}  // namespace SEQUENCE_ISA
}  // namespace sequence

namespace sequence {
inline namespace SEQUENCE_ISA {

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

int unseen_cards(const Observation& obs, Card out[kDeckSize]) {
    const GameState& d = obs.pub;
    int count[kCardKinds];
    for (int c = 0; c < kCardKinds; ++c) count[c] = kCopiesPerCard;
    for (int i = 0; i < d.hand_count[obs.player]; ++i) --count[d.hands[obs.player][i]];
    for (int i = 0; i < d.discard_size; ++i) --count[discard_card(d, i)];
    int n = 0;
    for (int c = 0; c < kCardKinds; ++c)
        for (int k = 0; k < count[c]; ++k) out[n++] = static_cast<Card>(c);
    return n;
}

GameState deal_world(const Observation& obs, const Card* cards, int n, SplitMix64& rng) {
    GameState d = obs.pub;
    const int me = obs.player;
    int next = 0;
    for (int p = 0; p < d.config.players; ++p) {
        if (p == me) continue;
        Card* hand = d.hands[p];
        int size = d.hand_count[p];
        if (size > n - next) size = d.hand_count[p] = static_cast<std::uint8_t>(n - next);  // inconsistent input only
        for (int i = 0; i < size; ++i) {  // insertion: hands stay ascending
            const Card card = cards[next++];
            int j = i;
            for (; j > 0 && hand[j - 1] > card; --j) hand[j] = hand[j - 1];
            hand[j] = card;
        }
    }
    // Inconsistent input only: no more cards than are unseen, and the draw pile stays clear of
    // the discard log.
    if (d.draw_size > n - next) d.draw_size = static_cast<std::uint8_t>(n - next);
    if (d.draw_size > kDeckSize - d.discard_size) d.draw_size = static_cast<std::uint8_t>(kDeckSize - d.discard_size);
    for (int i = 0; i < d.draw_size; ++i) set_draw_pile_card(d, i, cards[next++]);
    d.rng = rng.next();  // the world's own reshuffles (R6)
    if (d.last_draw_player != me) d.last_draw_player = -1;  // its card is unknown; only R10 reads it
    return d;
}

GameState determinize(const Observation& obs, SplitMix64& rng) {
    Card unseen[kDeckSize];
    const int n = unseen_cards(obs, unseen);
    shuffle_halves(unseen, n, rng);
    return deal_world(obs, unseen, n, rng);
}

GameState determinize(const GameState& observed, int player, SplitMix64& rng) {
    return determinize(observe(observed, player), rng);
}

// ------------------------------------------------------------------ the tree

namespace {

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
// Built on first use, not at load: loading the module must run no code of an instruction-set path
// the processor may lack (every path's copy is loaded, cpu.hpp).
const LogTable& log_table() {
    static const LogTable table;
    return table;
}

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

// The root statistics of one tree, for the merge.
struct alignas(kCacheLine) TreeOutput {
    std::vector<MoveStats> root;  // value holds the reward sum here
    std::uint64_t iterations = 0;
    std::uint64_t nodes = 0;
};

// One thread's tree and everything its iterations write. Allocated by the thread that uses it
// (its node pool, scratch and generator live on that thread's memory), so that trees of different
// threads share no cache line.
class Tree {
public:
    Tree(const Observation& obs, const GameState* truth, Peek peek, const InferenceModel* inference, const SearchOptions& o,
         std::uint64_t node_budget, std::uint64_t seed)
        : obs_(obs), truth_(truth), peek_(peek), inference_(inference), o_(o), node_budget_(node_budget), rng_(seed),
          scratch_(std::make_unique<Scratch>()), c_(static_cast<float>(o.exploration)) {
        assert(node_budget >= 1 && node_budget <= OptionLimits::kMaxNodes);
        nodes_.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(node_budget, kInitialNodes)));
        nodes_.push_back(Node{0, -1, -1, 0, 0, 0.0f, 0});
        path_.reserve(256);
    }

    // One iteration: a world, select/expand down the tree, a playout, the reward backpropagated.
    void iterate() {
        GameState st = truth_ != nullptr ? (peek_ == Peek::All ? *truth_ : hands_revealed_world()) : world();
        path_.clear();
        path_.push_back(0);
        descend(st);
        if (!is_over(st)) playout(st);
        float reward[kMaxTeams];
        score(st, reward);
        backpropagate(reward);
    }

    // A determinization of the observation (research build: drawn on the inference's evidence when
    // there is some).
    GameState world() {
#if SEQUENCE_RESEARCH
        if (inference_ != nullptr) return inference_->sample(obs_, rng_);
#endif
        return determinize(obs_, rng_);
    }

    // TEST ONLY (Peek::Hands): the true state with its draw pile shuffled and a sampled generator,
    // so that only the hands are read from the truth.
    GameState hands_revealed_world() {
        GameState st = *truth_;
        // Sorted first: the world must not depend on the true pile's order, only on its cards.
        Card pile[kDeckSize];
        for (int i = 0; i < st.draw_size; ++i) pile[i] = draw_pile_card(st, i);
        std::sort(pile, pile + st.draw_size);
        shuffle(pile, st.draw_size, rng_);
        for (int i = 0; i < st.draw_size; ++i) set_draw_pile_card(st, i, pile[i]);
        st.rng = rng_.next();
        return st;
    }

    void report(TreeOutput& out, std::uint64_t iterations) const {
        out.iterations = iterations;
        out.nodes = nodes_.size();
        for (std::int32_t ch = nodes_[0].first_child; ch >= 0; ch = nodes_[ch].next_sibling)
            out.root.push_back(MoveStats{nodes_[ch].move, nodes_[ch].visits, static_cast<double>(nodes_[ch].value)});
    }

private:
    // Nodes reserved up front (about 1.5 MB); beyond that the pool grows as the tree does, so a
    // large max_nodes costs memory only when the tree reaches it.
    static constexpr std::uint64_t kInitialNodes = 1 << 16;

    // Walks from the root, applying each chosen move to st and appending its node to path_: at
    // every node, select() among the children legal in st; stop after expand() adds a child (a
    // legal move not yet tried there, while the pool has room), at the end
    // of the game, or when nothing is tried and nothing may be added (the pool is full).
    void descend(GameState& st) {
        std::int32_t node = 0;
        while (!is_over(st)) {
            legal_here(st);
            int legal_children = 0;
            const std::int32_t best = select(node, legal_children);
            if (may_expand(legal_children)) {
                expand(node, st, legal_children);
                return;
            }
            if (best < 0) return;
            apply_move(st, nodes_[best].move);
            path_.push_back(best);
            node = best;
        }
    }

    // The legal moves of st into the scratch list (cut to a decisive move, R8, if there is one),
    // hashed for find().
    void legal_here(const GameState& st) {
        Scratch& sc = *scratch_;
        MoveList& legal = sc.list;
        legal.size = 0;
        legal.overflow = false;
        legal_moves(st, legal);
        if (o_.decisive) keep_decisive(st, legal);
        sc.fill();
    }

    // The child of `node` with the highest availability-corrected UCB among those legal in this world (marked found in the scratch; their availability counts
    // up), or -1 if none is. legal_children returns how many are legal.
    std::int32_t select(std::int32_t node, int& legal_children) {
        Scratch& sc = *scratch_;
        std::int32_t best = -1;
        float best_score = -1e30f;
        std::uint32_t log_of = 0;  // one-entry memo: siblings usually share an availability
        float log_avail = 0.0f;
        const LogTable& log = log_table();
        for (std::int32_t ch = nodes_[node].first_child; ch >= 0; ch = nodes_[ch].next_sibling) {
            Node& n = nodes_[ch];
            const int i = sc.find(n.move);
            if (i < 0) continue;  // not legal in this determinization
            sc.found[i] = 1;
            ++legal_children;
            ++n.avail;
            if (n.avail != log_of) {
                log_of = n.avail;
                log_avail = log(n.avail);
            }
            const float inv = 1.0f / static_cast<float>(n.visits);
            const float score = n.value * inv + c_ * std::sqrt(log_avail * inv);
            if (score > best_score) {
                best_score = score;
                best = ch;
            }
        }
        return best;
    }

    // Whether `node` gets a new child now: an untried legal move exists and the pool has room.
    bool may_expand(int legal_children) const {
        return scratch_->list.size > legal_children && nodes_.size() < node_budget_;
    }

    // Adds one untried legal move of st as a child of `node` (uniformly at random; research build:
    // the learned evaluation's best of a sample with expansion_candidates), applies it to st and
    // appends it to path_. Requires may_expand(legal_children).
    void expand(std::int32_t node, GameState& st, int legal_children) {
        const MoveList& legal = scratch_->list;
        const int untried = legal.size - legal_children;
        assert(untried > 0);
#if SEQUENCE_RESEARCH
        const int i = o_.expansion_candidates > 1 && untried > 1 ? learned_pick(st, untried) : random_untried(untried);
#else
        const int i = random_untried(untried);
#endif
        const MoveId m = legal.moves[i];
        assert(nodes_.size() < node_budget_);
        const auto id = static_cast<std::int32_t>(nodes_.size());
        nodes_.push_back(Node{m, -1, nodes_[node].first_child, 0, 1, 0.0f,
                              static_cast<std::uint8_t>(team_of(st, st.current_player))});
        nodes_[node].first_child = id;
        apply_move(st, m);
        path_.push_back(id);
    }

    // The index in the scratch list of an untried move (not found at this node) chosen uniformly.
    int random_untried(int untried) {
        const Scratch& sc = *scratch_;
        int r = static_cast<int>(rng_.below(static_cast<std::uint32_t>(untried)));
        int i = 0;
        for (;; ++i)
            if (!sc.found[i] && r-- == 0) break;
        return i;
    }

#if SEQUENCE_RESEARCH
    // The expansion prior: of min(expansion_candidates, untried) untried moves drawn at random
    // (with replacement), the one whose successor the learned evaluation scores best for the
    // mover's team (first drawn on ties).
    int learned_pick(const GameState& st, int untried) {
        const int team = team_of(st, st.current_player);
        const int draws = std::min(o_.expansion_candidates, untried);
        int best_i = -1;
        float best = -1.0f;
        for (int k = 0; k < draws; ++k) {
            const int i = random_untried(untried);
            GameState next = st;
            apply_move(next, scratch_->list.moves[i]);
            float r[kMaxTeams];
            learned_rewards(next, o_.learned, r);
            if (r[team] > best) {
                best = r[team];
                best_i = i;
            }
        }
        return best_i;
    }
#endif

    // Continues st past the leaf with the informed playout (playout.hpp) for playout_turns turns,
    // then to where the root player is to move again (the same point of the round for every
    // leaf), so that the evaluation has no bias between odd and even depths. Requires !is_over(st).
    void playout(GameState& st) {
        assert(!is_over(st));
        std::uint32_t limit = st.turn + o_.playout_turns;
        const std::uint32_t players = st.config.players;
        limit += (players - (limit - obs_.pub.turn) % players) % players;
        informed_playout(st, rng_, limit, o_.policy);
    }

    // Rewards in [0, 1] per team: exact for a finished game (evaluate_rewards() scores it so),
    // else the hand-set static evaluation (research build: or the learned one).
    void score(const GameState& st, float reward[kMaxTeams]) const {
#if SEQUENCE_RESEARCH
        if (o_.evaluation == Evaluation::Learned) {
            learned_rewards(st, o_.learned, reward);
            return;
        }
#endif
        evaluate_rewards(st, o_.weights, reward);
    }

    // Every node of path_ gets a visit and the reward of the team that made its move.
    void backpropagate(const float reward[kMaxTeams]) {
        ++nodes_[0].visits;
        for (std::size_t k = 1; k < path_.size(); ++k) {
            Node& n = nodes_[path_[k]];
            ++n.visits;
            n.value += reward[n.team];
        }
    }

    const Observation& obs_;
    const GameState* truth_;  // non-null only when peeking
    const Peek peek_;
    // Read only by the research build; the product build keeps the field so both share one layout.
    [[maybe_unused]] const InferenceModel* inference_;  // non-null only with inference and some evidence
    const SearchOptions& o_;
    const std::uint64_t node_budget_;
    SplitMix64 rng_;
    std::unique_ptr<Scratch> scratch_;
    std::vector<Node> nodes_;
    std::vector<std::int32_t> path_;
    const float c_;
};

}  // namespace

std::size_t search_node_bytes() { return sizeof(Node); }

SearchResult ismcts(const GameState& root, const SearchOptions& options, const std::vector<PublicChange>* history,
                    Peek peek) {
    check_options(options);
    assert(!is_over(root));
    SearchResult result;
    const int threads = options.threads;
    const Observation obs = observe(root, root.current_player);
    // TEST ONLY: a peeking search reads the true state (Peek::All: all of it; Peek::Hands: the hands).
    const GameState* truth = peek != Peek::None ? &root : nullptr;
#if SEQUENCE_RESEARCH
    std::unique_ptr<InferenceModel> model;
    if (options.inference != InferenceKind::Off && history != nullptr && truth == nullptr) {
        model = std::make_unique<InferenceModel>(obs, *history, options);
        if (!model->has_evidence()) model.reset();
    }
    const InferenceModel* inference = model.get();
#else
    (void)history;  // read only by the research build's inference
    const InferenceModel* inference = nullptr;
#endif
    const std::uint64_t node_budget = std::max<std::uint64_t>(1, options.max_nodes / static_cast<std::uint64_t>(threads));
    StopSignal stop(options.stop, options.time_limit);
    std::vector<TreeOutput> outs(static_cast<std::size_t>(threads));

    run_workers(threads, stop, [&](int t) {
        std::uint64_t budget = 0;  // 0 = none
        if (options.iterations != 0) budget = std::max<std::uint64_t>(1, worker_share(options.iterations, threads, t));
        Tree tree(obs, truth, peek, inference, options, node_budget, worker_seed(options.seed, t));
        std::uint64_t it = 0;
        for (; budget == 0 || it < budget; ++it) {
            if ((it & 15) == 0 && stop.should_stop()) break;
            tree.iterate();
        }
        tree.report(outs[static_cast<std::size_t>(t)], it);
    });

    // Merge the root children of every tree: all of them sorted by move (stable: each move's
    // trees stay in thread order, so its sums are added in the same order for any run), then
    // each run of one move summed: O(n log n) in the trees' root children together, where a
    // linear search of the merged list per child would cost O(threads x moves^2), a few percent
    // of an agent's short search on 16 threads.
    std::vector<MoveStats> all;
    std::size_t children = 0;
    for (const TreeOutput& out : outs) children += out.root.size();
    all.reserve(children);
    for (const TreeOutput& out : outs) {
        result.iterations += out.iterations;
        result.nodes += out.nodes;
        all.insert(all.end(), out.root.begin(), out.root.end());
    }
    std::stable_sort(all.begin(), all.end(), [](const MoveStats& a, const MoveStats& b) { return a.move < b.move; });
    std::vector<MoveStats> merged;
    for (const MoveStats& m : all) {
        if (!merged.empty() && merged.back().move == m.move) {
            merged.back().visits += m.visits;
            merged.back().value += m.value;
        } else {
            merged.push_back(m);
        }
    }
    result.interrupted = stop.interrupted();
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
    result.seconds = stop.elapsed();
    return result;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
