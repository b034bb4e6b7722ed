#include "sequence/search/rollout.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "sequence/playout.hpp"
#include "sequence/rules.hpp"

namespace sequence {

namespace {

using Clock = std::chrono::steady_clock;

struct Candidate {
    MoveId move;
    double heuristic;
};

struct WorkerOutput {
    std::vector<double> reward;  // per candidate
    std::uint64_t worlds = 0;
    bool interrupted = false;
};

}  // namespace

SearchResult rollout_search(const GameState& root, const RolloutOptions& o) {
    const auto start = Clock::now();
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
    const int need = obs.pub.config.sequences_to_win - team_sequences(obs.pub, team);
    const bool wins_now = !cands.empty() && Move::from_id(cands[0].move).kind == MoveKind::Place &&
                          declared_count(cands[0].move) >= need;
    const std::size_t keep = wins_now ? 1 : std::min<std::size_t>(cands.size(), static_cast<std::size_t>(std::max(1, o.candidates)));
    cands.resize(keep);
    const auto n = static_cast<std::uint64_t>(keep);

    if (keep > 1) {
        const int threads = std::max(1, o.threads);
        const bool has_deadline = o.time_limit > 0;
        const Clock::time_point deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.time_limit));
        std::vector<WorkerOutput> outs(static_cast<std::size_t>(threads));
        auto work = [&](int t) {
            WorkerOutput& out = outs[static_cast<std::size_t>(t)];
            out.reward.assign(keep, 0.0);
            std::uint64_t worlds_budget = 0;  // 0 = none
            if (o.iterations != 0) {
                const std::uint64_t worlds = std::max<std::uint64_t>(1, o.iterations / n);
                worlds_budget = worlds / threads + (static_cast<std::uint64_t>(t) < worlds % threads);
                if (worlds_budget == 0) return;
            }
            SplitMix64 rng(SplitMix64(o.seed + static_cast<std::uint64_t>(t) * 0x9E3779B97F4A7C15ull).next());
            const std::uint32_t epsilon = static_cast<std::uint32_t>(std::min(1.0, std::max(0.0, o.epsilon)) * 65536.0);
            for (;;) {
                if (worlds_budget != 0 && out.worlds >= worlds_budget) break;
                if (o.stop != nullptr && o.stop->load(std::memory_order_relaxed)) {
                    out.interrupted = true;
                    break;
                }
                if (has_deadline && Clock::now() >= deadline) break;
                const GameState world = determinize(obs, rng);
                const std::uint64_t playout_seed = rng.next();
                for (std::size_t c = 0; c < keep; ++c) {
                    GameState st = world;
                    apply_move(st, cands[c].move);
                    SplitMix64 play(playout_seed);
                    if (!is_over(st)) greedy_playout(st, play, st.turn + o.horizon, o.heuristic, epsilon);
                    float reward[kMaxTeams];
                    evaluate_rewards(st, o.weights, reward);
                    out.reward[c] += reward[team];
                }
                ++out.worlds;
            }
        };
        if (threads == 1) {
            work(0);
        } else {
            std::vector<std::thread> pool;
            for (int t = 0; t < threads; ++t) pool.emplace_back(work, t);
            for (auto& th : pool) th.join();
        }
        std::uint64_t worlds = 0;
        std::vector<double> total(keep, 0.0);
        for (const WorkerOutput& out : outs) {
            worlds += out.worlds;
            result.interrupted = result.interrupted || out.interrupted;
            for (std::size_t c = 0; c < out.reward.size(); ++c) total[c] += out.reward[c];
        }
        result.iterations = worlds * n;
        for (std::size_t c = 0; c < keep; ++c)
            result.moves.push_back(MoveStats{cands[c].move, worlds, worlds ? total[c] / static_cast<double>(worlds) : 0.0});
        // Best mean reward; ties (and no world at all) keep the heuristic's order.
        std::stable_sort(result.moves.begin(), result.moves.end(),
                         [](const MoveStats& a, const MoveStats& b) { return a.value > b.value; });
    } else if (keep == 1) {
        result.moves.push_back(MoveStats{cands[0].move, 0, 0.0});
    }
    if (!result.moves.empty()) result.best = result.moves.front().move;
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
}

}  // namespace sequence
