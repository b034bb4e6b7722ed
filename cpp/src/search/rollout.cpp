#include "sequence/search/rollout.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <vector>

#include "sequence/parallel.hpp"
#include "sequence/playout.hpp"
#include "sequence/rules.hpp"
#include "sequence/search/decisive.hpp"
#include "sequence/search/greedy_playout.hpp"

namespace sequence {
inline namespace SEQUENCE_ISA {

namespace {

struct Candidate {
    MoveId move;
    double heuristic;
};

#if SEQUENCE_RESEARCH
// Opponent modelling (research build: RolloutOptions::inference_strength, rollout.hpp).

// Log scale for heuristic scores (which span 1 to 1e9): differences become ratios.
inline double log_score(double x) { return x >= 0 ? std::log1p(x) : -std::log1p(-x); }

// What the last play of another player tells about the hand it was made from (see rollout.hpp).
struct Evidence {
    bool valid = false;
    int player = 0;
    int card = 0;          // the card they played (now on their discard pile)
    double made = 0;       // log score of the play they made
    MoveScorer scorer;     // the heuristic on the position before the play (public fields only)
    double best_wild = 0;  // log score of the best two-eyed jack placement then
    double best_remove = 0;  // of the best one-eyed jack removal then
    Bitboard empty;        // empty cells then
};

// Reads the evidence from the public parts of `before` and `now` (observations of the searcher).
Evidence read_evidence(const GameState& before, const GameState& now, const HeuristicWeights& wt) {
    Evidence e;
    const int p = before.current_player;
    if (now.turn != before.turn + 1 || now.discard_size != before.discard_size + 1) return e;  // a pass, a trade, a reshuffle
    const Bitboard was = occupied(before), is = occupied(now);
    const Bitboard placed = is & ~was, removed = was & ~is;
    if (placed.count() + removed.count() != 1) return e;
    e.player = p;
    e.card = discard_card(now, now.discard_size - 1);
    e.scorer.build(before, wt);
    e.empty = empty_cells(before);
    if (placed.any()) {
        const int cell = placed.select(0);
        e.made = log_score(e.scorer.place_score(e.card, cell, now.sequence_count - before.sequence_count));
    } else {
        e.made = log_score(e.scorer.remove[removed.select(0)] - wt.one_eyed_cost);
    }
    double wild = -1e300, remove = -1e300;
    for (int cell : e.empty) wild = std::max(wild, e.scorer.place[cell] - wt.two_eyed_cost);
    const Bitboard removable = removable_cells(before, team_of(before, p));
    for (int cell : removable) remove = std::max(remove, e.scorer.remove[cell] - wt.one_eyed_cost);
    e.best_wild = wild > -1e300 ? log_score(wild) : -1e300;
    e.best_remove = remove > -1e300 ? log_score(remove) : -1e300;
    e.valid = true;
    return e;
}

// exp(-strength * shortfall) for the hand `hand` (the hand the play was made from).
double explains(const Evidence& e, const Card* hand, int n, double strength) {
    double best = -1e300;
    for (int i = 0; i < n; ++i) {
        const int c = hand[i];
        if (is_two_eyed_jack(c)) best = std::max(best, e.best_wild);
        else if (is_one_eyed_jack(c)) best = std::max(best, e.best_remove);
        else
            for (int cell : card_cells(c) & e.empty) best = std::max(best, log_score(e.scorer.place[cell]));
    }
    const double shortfall = best - e.made;
    return shortfall <= 0 ? 1.0 : std::exp(-strength * shortfall);
}

// The likelihood of the evidence for a world: the played card was in the hand before, and any one
// of the cards now held may be the one drawn after the play (averaged over which).
double likelihood(const Evidence& e, const GameState& world, double strength) {
    const int n = world.hand_count[e.player];
    const Card* now = world.hands[e.player];
    if (n == 0) return 1.0;
    double sum = 0;
    Card hand[kMaxHand];
    for (int d = 0; d < n; ++d) {  // now[d] was drawn: the hand before = now - now[d] + card
        int k = 0;
        for (int i = 0; i < n; ++i)
            if (i != d) hand[k++] = now[i];
        hand[k++] = static_cast<Card>(e.card);
        sum += explains(e, hand, k, strength);
    }
    return sum / n;
}

// Draws a world by rejection on the evidence of the last play (see rollout.hpp).
GameState inferred_world(const Observation& obs, const Evidence& evidence, const RolloutOptions& o, SplitMix64& rng) {
    GameState world = determinize(obs, rng);
    double best_l = -1;
    GameState best = world;
    for (int t = 0; t < o.inference_tries; ++t) {
        if (t > 0) world = determinize(obs, rng);
        const double l = likelihood(evidence, world, o.inference_strength);
        if (l > best_l) {
            best_l = l;
            best = world;
        }
        if (rng.below(1u << 20) < l * (1u << 20)) break;
    }
    return best;
}
#endif

// One world for the candidates to meet: a determinization of the observation, or with the test
// hook `peek` the true hands with a shuffled draw pile (Peek::Hands) or the true state itself
// (Peek::All).
GameState sample_world(const Observation& obs, const GameState& root, Peek peek, SplitMix64& rng) {
    if (peek == Peek::All) return root;
    if (peek == Peek::Hands) {
        GameState world = root;
        shuffle(draw_pile_data(world), world.draw_size, rng);
        world.rng = rng.next();
        return world;
    }
    return determinize(obs, rng);
}

#if SEQUENCE_RESEARCH
// Drops the candidates that spend a two-eyed jack (R5) on a cell that neither completes a sequence
// of the mover's team (R7) nor takes a cell where another team would complete one, when another
// play or a trade remains (RolloutOptions::keep_two_eyed: players keep the wild jacks for the cells
// that decide; it measured no gain for this search, docs/research/ceilings.md).
void keep_two_eyed_jacks(const GameState& pub, std::vector<Candidate>& cands) {
    Bitboard decisive;
    for (int t = 0; t < pub.config.teams; ++t) decisive |= completion_cells(pub, t);
    const auto spends = [&](const Candidate& c) {
        const Move m = Move::from_id(c.move);
        return m.kind == MoveKind::Place && is_two_eyed_jack(m.card) && !decisive.test(m.cell);
    };
    const bool other = std::any_of(cands.begin(), cands.end(), [&](const Candidate& c) {
        return !spends(c) && Move::from_id(c.move).kind != MoveKind::Pass;
    });
    if (other) cands.erase(std::remove_if(cands.begin(), cands.end(), spends), cands.end());
}
#endif

// One worker's sums for one round, on a cache line of its own (written once, at the end of the
// round), and its generator, which carries on from round to round.
struct alignas(kCacheLine) WorkerOutput {
    std::vector<double> reward;  // per candidate in play this round
    std::uint64_t worlds = 0;
    SplitMix64 rng{0};
};

#if SEQUENCE_RESEARCH
// Rounds of sequential halving for `keep` candidates: ceil(log2(keep)); 1 without halving.
int rounds_for(std::size_t keep, bool halving) {
    int rounds = 1;
    if (halving)
        while ((std::size_t{1} << rounds) < keep) ++rounds;
    return rounds;
}
#endif

}  // namespace

SearchResult rollout_search(const GameState& root, const RolloutOptions& o, const GameState* before, Peek peek) {
    check_options(o);
    assert(!is_over(root));
    StopSignal stop(o.stop, o.time_limit);
    SearchResult result;
    const int me = root.current_player;
    const Observation obs = observe(root, me);
    const int team = team_of(root, me);

    std::vector<MoveId> legal;
    legal_moves(obs.pub, legal);  // the player's own moves depend only on public info and its hand
    const MoveScorer scorer(obs.pub, o.heuristic);
    std::vector<Candidate> cands;
    for (MoveId m : legal) cands.push_back({m, scorer.score(m)});
    std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) { return a.heuristic > b.heuristic; });
    const bool wins_now = !cands.empty() && wins_at_once(cands[0].move, sequences_needed(obs.pub));
#if SEQUENCE_RESEARCH
    if (o.keep_two_eyed && !wins_now) keep_two_eyed_jacks(obs.pub, cands);
#endif
    const std::size_t keep = wins_now ? 1 : std::min<std::size_t>(cands.size(), static_cast<std::size_t>(std::max(1, o.candidates)));
    cands.resize(keep);
#if SEQUENCE_RESEARCH
    Evidence evidence;
    if (before != nullptr && o.inference_strength > 0 && peek == Peek::None) {
        const Observation then = observe(*before, me);
        if (then.pub.current_player != me) evidence = read_evidence(then.pub, obs.pub, o.heuristic);
    }
#else
    (void)before;  // read only by the research build's opponent modelling
#endif

    if (keep > 1) {
        const int threads = o.threads;
#if SEQUENCE_RESEARCH
        const int rounds = rounds_for(keep, o.halving);
#else
        const int rounds = 1;
#endif
        const auto epsilon = static_cast<std::uint32_t>(o.epsilon * 65536.0);
        std::vector<WorkerOutput> outs(static_cast<std::size_t>(threads));
        for (int t = 0; t < threads; ++t) outs[static_cast<std::size_t>(t)].rng = SplitMix64(worker_seed(o.seed, t));
        std::vector<std::size_t> alive(keep);  // candidates in play (indices into cands), best first
        for (std::size_t c = 0; c < keep; ++c) alive[c] = c;
        std::vector<double> total(keep, 0.0);        // reward summed over the worlds each candidate met
        std::vector<std::uint64_t> visits(keep, 0);  // the worlds each candidate met
        std::uint64_t playouts = 0;
        bool stopped = false;
        for (int round = 0; round < rounds && !stopped; ++round) {
            const std::size_t m = alive.size();
            // This round's worlds: an equal share of the playouts (0 = until the stop); with a time
            // budget alone and several rounds, an equal share of the time left.
            const std::uint64_t worlds_round =
                o.iterations != 0 ? std::max<std::uint64_t>(1, o.iterations / static_cast<std::uint64_t>(rounds) / m) : 0;
            const double round_time = o.iterations == 0 && rounds > 1 && o.time_limit > 0
                                          ? std::max(0.0, o.time_limit - stop.elapsed()) / (rounds - round)
                                          : 0.0;
            StopSignal round_stop(nullptr, round_time);  // no deadline when round_time is 0
            run_workers(threads, stop, [&](int t) {
                WorkerOutput& out = outs[static_cast<std::size_t>(t)];
                out.worlds = 0;
                out.reward.clear();
                const std::uint64_t budget = o.iterations != 0 ? worker_share(worlds_round, threads, t) : 0;  // 0 = none
                if (o.iterations != 0 && budget == 0) return;
                SplitMix64 rng = out.rng;  // carried on from the last round; stored back at the end
                std::vector<double> sum(m, 0.0), played(m, 0.0);
                std::uint64_t worlds = 0;
                const auto halt = [&] { return stop.should_stop() || round_stop.should_stop(); };
                // A world counts only when every candidate in play has been played in it (common
                // random numbers); the stop and the deadline are checked before each candidate's
                // playout, so a long world (many candidates, long playouts) cannot overrun them.
                while (budget == 0 || worlds < budget) {
                    if (halt()) break;
#if SEQUENCE_RESEARCH
                    const GameState world =
                        evidence.valid ? inferred_world(obs, evidence, o, rng) : sample_world(obs, root, peek, rng);
#else
                    const GameState world = sample_world(obs, root, peek, rng);
#endif
                    const std::uint64_t playout_seed = rng.next();
                    float reward[kMaxTeams];
                    std::size_t c = 0;
                    for (; c < m; ++c) {
                        if (c > 0 && halt()) break;
                        GameState st = world;
                        apply_move(st, cands[alive[c]].move);
                        SplitMix64 play(playout_seed);
                        if (!is_over(st)) greedy_playout(st, play, st.turn + o.horizon, o.heuristic, epsilon);
                        evaluate_rewards(st, o.weights, reward);
                        played[c] = reward[team];
                    }
                    if (c < m) break;  // stopped inside the world: it is dropped
                    for (std::size_t k = 0; k < m; ++k) sum[k] += played[k];
                    ++worlds;
                }
                out.reward = std::move(sum);
                out.worlds = worlds;
                out.rng = rng;
            });
            std::uint64_t worlds = 0;
            for (const WorkerOutput& out : outs) {
                worlds += out.worlds;
                for (std::size_t k = 0; k < out.reward.size() && out.worlds != 0; ++k) total[alive[k]] += out.reward[k];
            }
            for (std::size_t k = 0; k < m; ++k) visits[alive[k]] += worlds;
            playouts += worlds * m;
            stopped = stop.should_stop();
            if (stopped || round + 1 == rounds) break;
            // Every candidate in play met the same worlds: the sums rank them (ties: the heuristic's order).
            std::sort(alive.begin(), alive.end(), [&](std::size_t a, std::size_t b) {
                return total[a] != total[b] ? total[a] > total[b] : a < b;
            });
            alive.resize((m + 1) / 2);
        }
        result.interrupted = stop.interrupted();
        result.iterations = playouts;
        for (std::size_t c = 0; c < keep; ++c)
            result.moves.push_back(MoveStats{cands[c].move, visits[c], visits[c] ? total[c] / static_cast<double>(visits[c]) : 0.0});
        // Most worlds (the last in play), then best mean; ties (and no world at all) keep the heuristic's order.
        std::stable_sort(result.moves.begin(), result.moves.end(), [](const MoveStats& a, const MoveStats& b) {
            return a.visits != b.visits ? a.visits > b.visits : a.value > b.value;
        });
    } else if (keep == 1) {
        result.moves.push_back(MoveStats{cands[0].move, 0, 0.0});
    }
    if (!result.moves.empty()) result.best = result.moves.front().move;
    result.seconds = stop.elapsed();
    return result;
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence
