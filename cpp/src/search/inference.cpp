#include "sequence/search/inference.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "sequence/rules.hpp"
#include "sequence/search/heuristic.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

namespace {

constexpr float kUnplayable = -1e30f;

// Log scale for heuristic scores (which span 1 to 1e9): differences become ratios.
inline double log_score(double x) { return x >= 0 ? std::log1p(x) : -std::log1p(-x); }

inline std::uint64_t card_bit(int card) { return std::uint64_t{1} << card; }

// The other seats that still need turns, and whether any does.
bool wants_more(const int turns[kMaxPlayers], int players, int observer, int plays) {
    for (int p = 0; p < players; ++p)
        if (p != observer && turns[p] < plays) return true;
    return false;
}

// Per empty cell: the heuristic's value (heuristic.hpp) of a chip of the mover's team there,
// including the sequence it would complete (R7; a win when it is the last one needed, R8).
void place_values(const GameState& s, const MoveScorer& sc, const HeuristicWeights& w, double out[kCells]) {
    const int team = sc.team;
    const Bitboard corner = corners();
    const Bitboard empty = empty_cells(s);
    Bitboard others;
    for (int t = 0; t < s.config.teams; ++t)
        if (t != team) others |= s.chips[t];
    Bitboard completes;
    for (int win = 0; win < kWindowCount; ++win) {
        const Bitboard m = window_mask(win);
        if ((m & others).any()) continue;
        const Bitboard open = m & empty;
        if (open.count() != 1 || (m & (s.chips[team] | corner)).count() != kWindowLength - 1) continue;
        bool usable = true;  // R7: at most one cell shared with each of the team's sequences
        for (int i = 0; i < s.sequence_count; ++i)
            if (s.sequences[i].team == team && (m & window_mask(s.sequences[i].window)).count() > 1) usable = false;
        if (usable) completes |= open;
    }
    const double bonus = sc.need <= 1 ? w.win : w.sequence;
    for (int cell = 0; cell < kCells; ++cell) out[cell] = sc.place[cell] + (completes.test(cell) ? bonus : 0.0);
}

// The evidence of one play, trade or pass made from `before` (an observation), `after` being the
// observation right after it.
InferenceEvent read_event(const GameState& before, const GameState& after, MoveId id, const HeuristicWeights& w) {
    InferenceEvent e;
    const int p = before.current_player;
    const Move m = Move::from_id(id);
    e.card = m.card;
    e.drew = after.hand_count[p] >= before.hand_count[p];
    const Bitboard empty = empty_cells(before);
    const Bitboard removable = removable_cells(before, team_of(before, p));
    for (int c = 0; c < kCardKinds; ++c) {
        if (is_two_eyed_jack(c) ? empty.any() : is_one_eyed_jack(c) ? removable.any() : (card_cells(c) & empty).any())
            e.playable |= card_bit(c);
        else if (!is_jack(c))
            e.dead |= card_bit(c);  // R5: both cells covered
    }
    switch (m.kind) {
        case MoveKind::Pass: e.kind = InferenceEvent::Kind::Pass; e.drew = false; return e;
        case MoveKind::Trade: e.kind = InferenceEvent::Kind::Trade; return e;
        case MoveKind::Place:
        case MoveKind::Remove: break;
    }
    e.kind = InferenceEvent::Kind::Play;
    e.first_step = !before.traded_this_turn;
    if (m.kind == MoveKind::Place && is_two_eyed_jack(m.card)) e.plain = card_bit(card_at(m.cell));
    const MoveScorer sc(before, w);
    double place[kCells];
    place_values(before, sc, w, place);
    e.made = static_cast<float>(log_score(sc.score(id)));
    double wild = -1e300, remove = -1e300;
    for (int cell : empty) wild = std::max(wild, place[cell] - w.two_eyed_cost);
    for (int cell : removable) remove = std::max(remove, sc.remove[cell] - w.one_eyed_cost);
    for (int c = 0; c < kCardKinds; ++c) {
        double best = -1e300;
        if (is_two_eyed_jack(c)) best = wild;
        else if (is_one_eyed_jack(c)) best = remove;
        else
            for (int cell : card_cells(c) & empty) best = std::max(best, place[cell]);
        e.best[c] = best > -1e300 ? static_cast<float>(log_score(best)) : kUnplayable;
    }
    return e;
}

// Chooses `size` cards of pool[from .. n) uniformly into pool[from .. from + size) (a partial
// Fisher-Yates shuffle).
inline void choose(Card* pool, int from, int n, int size, SplitMix64& rng) {
    for (int i = from; i < from + size; ++i) {
        const int j = i + static_cast<int>(rng.below(static_cast<std::uint32_t>(n - i)));
        std::swap(pool[i], pool[j]);
    }
}

}  // namespace

std::vector<PublicChange> public_history(const Game& game, int observer, int plays) {
    std::vector<PublicChange> out;
    const int players = game.state().config.players;
    int turns[kMaxPlayers] = {};
    for (std::size_t i = game.history_size(); i-- > 0 && wants_more(turns, players, observer, plays);) {
        const Change& change = game.change(i);
        PublicChange pc;
        pc.before = observe(game.state_before(i), observer).pub;  // R9: the only read of a past state
        if (change.kind != Change::Kind::Move) {
            pc.referee = true;
            out.push_back(pc);
            break;
        }
        pc.move = change.move;
        if (Move::from_id(change.move).kind != MoveKind::Trade) ++turns[pc.before.current_player];
        out.push_back(pc);
    }
    std::reverse(out.begin(), out.end());
    return out;
}

InferenceModel::InferenceModel(const Observation& root, const std::vector<PublicChange>& history, const SearchOptions& o)
    : strength_(o.inference_strength), margin_(o.inference_margin), tries_(o.inference_tries) {
    const int players = root.pub.config.players;
    const HeuristicWeights heuristic;  // GreedyAgent's scoring, as the model of a sensible player
    int turns[kMaxPlayers] = {};
    for (std::size_t i = history.size(); i-- > 0 && wants_more(turns, players, root.player, o.inference_plays);) {
        const PublicChange& pc = history[i];
        if (pc.referee) break;  // R10: the hands before a referee call are not reconstructed
        const GameState& after = i + 1 < history.size() ? history[i + 1].before : root.pub;
        const int p = pc.before.current_player;
        if (p == root.player || p >= players || turns[p] >= o.inference_plays) continue;
        events_[p].push_back(read_event(pc.before, after, pc.move, heuristic));
        if (events_[p].back().kind != InferenceEvent::Kind::Trade) ++turns[p];
        has_evidence_ = true;
    }
}

double InferenceModel::likelihood(int player, const Card* hand, int n, SplitMix64& rng) const {
    const std::vector<InferenceEvent>& events = events_[player];
    constexpr int kCapacity = kMaxHand + 2 * OptionLimits::kMaxInferencePlays + 2;
    Card h[kCapacity];
    int m = std::min(n, kMaxHand);
    std::copy(hand, hand + m, h);
    double shortfall = 0;
    for (const InferenceEvent& e : events) {
        // Back across the change: the hand before it = the hand after - the card drawn + the card
        // discarded (R5). The drawn card is any card of the hand after, uniformly.
        if (e.drew) {
            if (m == 0) break;  // inconsistent sizes: no more evidence
            h[static_cast<int>(rng.below(static_cast<std::uint32_t>(m)))] = h[m - 1];
            --m;
        }
        if (e.kind == InferenceEvent::Kind::Pass) {
            std::uint64_t held = 0;
            for (int i = 0; i < m; ++i) held |= card_bit(h[i]);
            if (held & e.playable) shortfall += kInferencePass;
            continue;
        }
        if (m >= kCapacity) break;
        h[m++] = e.card;
        if (e.kind == InferenceEvent::Kind::Trade) continue;
        float best = kUnplayable;
        std::uint64_t held = 0;
        for (int i = 0; i < m; ++i) {
            best = std::max(best, e.best[h[i]]);
            held |= card_bit(h[i]);
        }
        const double gap = static_cast<double>(best) - e.made - margin_;
        if (gap > 0) shortfall += gap;
        if (e.first_step && (held & e.dead)) shortfall += kInferenceUntradedDead;
        if (held & e.plain) shortfall += kInferenceJackForPlain;
    }
    return std::exp(-strength_ * shortfall);
}

GameState InferenceModel::sample(const Observation& obs, SplitMix64& rng) const {
    if (!has_evidence_) return determinize(obs, rng);
    const GameState& d = obs.pub;
    Card unseen[kDeckSize];
    const int n = unseen_cards(obs, unseen);
    int next = 0;
    for (int p = 0; p < d.config.players; ++p) {
        if (p == obs.player) continue;
        const int size = std::min<int>(d.hand_count[p], n - next);  // (smaller on inconsistent input only)
        choose(unseen, next, n, size, rng);
        if (!events_[p].empty()) {
            // Rejection (see inference.hpp): accept with probability = likelihood; else keep the
            // most likely proposal.
            Card best[kMaxHand];
            double best_l = -1;
            for (int t = 0;; ++t) {
                const double l = likelihood(p, unseen + next, size, rng);
                if (rng.below(1u << 24) < l * (1u << 24)) break;  // accepted: the proposal stays
                if (l > best_l) {
                    best_l = l;
                    std::copy(unseen + next, unseen + next + size, best);
                }
                if (t + 1 >= tries_) {  // give up: bring the most likely proposal to the front
                    for (int i = 0; i < size; ++i)
                        for (int j = next + i; j < n; ++j)
                            if (unseen[j] == best[i]) {
                                std::swap(unseen[next + i], unseen[j]);
                                break;
                            }
                    break;
                }
                choose(unseen, next, n, size, rng);
            }
        }
        next += size;
    }
    // The draw pile: the rest, shuffled (its order is no evidence).
    shuffle_halves(unseen + next, n - next, rng);
    return deal_world(obs, unseen, n, rng);
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
