// Search and simulation for Python: _core.mcts_search (ISMCTS), _core.rollout_search (rollout search
// with common random numbers; both cpp/include/sequence/search) and
// _core.simulate (random games). Both release the GIL while they run on worker threads; the calling
// thread wakes every 50 ms to run PyErr_CheckSignals, and on Ctrl-C raises the stop flag, waits for
// the workers and re-raises KeyboardInterrupt.
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <future>
#include <string>

#include "bindings.hpp"
#include "sequence/game.hpp"
#include "sequence/search/ismcts.hpp"
#include "sequence/search/rollout.hpp"
#include "sequence/simulate.hpp"

namespace {

using namespace sequence;

template <class F>
auto run_interruptible(std::atomic<bool>& stop, F fn) -> decltype(fn()) {
    using Result = decltype(fn());
    std::future<Result> done;
    {
        py::gil_scoped_release release;
        done = std::async(std::launch::async, std::move(fn));
    }
    for (;;) {
        bool ready;
        {
            py::gil_scoped_release release;
            ready = done.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready;
        }
        if (ready) break;
        if (PyErr_CheckSignals() != 0) {  // KeyboardInterrupt (or another signal handler's error)
            stop.store(true);
            {
                py::gil_scoped_release release;
                done.wait();
            }
            throw py::error_already_set();
        }
    }
    return done.get();
}

double number_arg(const py::handle& value, const std::string& name) {
    if (PyBool_Check(value.ptr()) || !(PyLong_Check(value.ptr()) || PyFloat_Check(value.ptr())))
        throw py::type_error(name + " must be a number");
    return value.cast<double>();
}

// The budget arguments both searches take (SearchOptions and RolloutOptions share their names).
template <class Options>
void read_budget(const py::handle& iterations, const py::handle& time_limit, const py::handle& threads,
                 const py::handle& seed, Options& o) {
    o.iterations = iterations.is_none() ? 0 : static_cast<std::uint64_t>(int_in_range(iterations, "iterations", 1, LLONG_MAX));
    o.time_limit = time_limit.is_none() ? 0.0 : number_arg(time_limit, "time_limit");
    if (!time_limit.is_none() && !(o.time_limit > 0 && o.time_limit < 1e9))
        throw py::value_error("time_limit must be a positive number of seconds");
    if (o.iterations == 0 && o.time_limit <= 0) throw py::value_error("give iterations or time_limit (or both)");
    o.threads = static_cast<int>(int_in_range(threads, "threads", 1, 256));
    o.seed = uint64_arg(seed, "seed");
}

// A search's result as the dict both searches return to Python.
py::dict search_result(const SearchResult& r) {
    py::list moves;
    for (const MoveStats& m : r.moves) moves.append(py::make_tuple(m.move, m.visits, m.value));
    py::dict out;
    out["best"] = r.best;
    out["moves"] = moves;
    out["iterations"] = r.iterations;
    out["seconds"] = r.seconds;
    out["nodes"] = r.nodes;
    out["interrupted"] = r.interrupted;
    return out;
}

py::dict mcts_search(const Game& game, const py::handle& iterations, const py::handle& time_limit,
                     const py::handle& threads, const py::handle& seed, const py::handle& exploration,
                     const py::handle& max_nodes, const py::handle& playout_turns, bool cheat, bool evaluate,
                     bool informed_playouts, const py::handle& weights, int playout_candidates,
                     bool align_playouts, double prior_weight, double widen_base, double widen_coef,
                     double widen_exponent, bool ordered_expansion, bool greedy_playouts, double playout_epsilon) {
    const GameState& s = game.state();
    if (is_over(s)) throw py::value_error("the game is over: there is no move to search");
    SearchOptions o;
    read_budget(iterations, time_limit, threads, seed, o);
    o.exploration = number_arg(exploration, "exploration");
    if (!(o.exploration >= 0 && o.exploration < 1e6)) throw py::value_error("exploration must be >= 0");
    o.max_nodes = static_cast<std::uint64_t>(int_in_range(max_nodes, "max_nodes", o.threads, LLONG_MAX));
    o.playout_turns = static_cast<std::uint32_t>(int_in_range(playout_turns, "playout_turns", 1, INT_MAX));
    o.cheat = cheat;
    o.evaluate = evaluate;
    o.informed_playouts = informed_playouts;
    if (playout_candidates < 0 || playout_candidates > 64) throw py::value_error("playout_candidates must be 0..64");
    o.policy.candidates = playout_candidates;
    o.align_playouts = align_playouts;
    for (double x : {prior_weight, widen_base, widen_coef, widen_exponent, playout_epsilon})
        if (!(x >= 0 && x < 1e9)) throw py::value_error("prior_weight, widen_* and playout_epsilon must be finite numbers >= 0");
    if (playout_epsilon > 1) throw py::value_error("playout_epsilon must be from 0 to 1");
    o.prior_weight = prior_weight;
    o.widen_base = widen_base;
    o.widen_coef = widen_coef;
    o.widen_exponent = widen_exponent;
    o.ordered_expansion = ordered_expansion;
    o.greedy_playouts = greedy_playouts;
    o.playout_epsilon = playout_epsilon;
    if (!weights.is_none()) {  // evaluate.hpp: window1..window4, sequence, scale, two_eyed, one_eyed
        const auto w = weights.cast<std::vector<double>>();
        if (w.size() != 8)
            throw py::value_error("weights must be 8 numbers: window1..window4, sequence, scale, two_eyed, one_eyed");
        for (double x : w)
            if (!(x >= 0 && x < 1e9)) throw py::value_error("weights must be finite numbers >= 0");
        if (!(w[5] > 0)) throw py::value_error("the weights' scale must be > 0");
        for (int k = 1; k < kWindowLength; ++k) o.weights.window[k] = static_cast<float>(w[static_cast<std::size_t>(k - 1)]);
        o.weights.sequence = static_cast<float>(w[4]);
        o.weights.scale = static_cast<float>(w[5]);
        o.weights.two_eyed = static_cast<float>(w[6]);
        o.weights.one_eyed = static_cast<float>(w[7]);
    }
    std::atomic<bool> stop{false};
    o.stop = &stop;
    const GameState root = s;  // the search works on a copy: the game is never touched
    py::dict out = search_result(run_interruptible(stop, [root, o]() { return ismcts(root, o); }));
    out["bytes_per_node"] = search_node_bytes();
    return out;
}

py::dict rollout_search_py(const Game& game, const py::handle& iterations, const py::handle& time_limit,
                           const py::handle& threads, const py::handle& seed, const py::handle& candidates,
                           const py::handle& horizon, double epsilon, int reveal, double inference_strength) {
    const GameState& s = game.state();
    if (is_over(s)) throw py::value_error("the game is over: there is no move to search");
    RolloutOptions o;
    read_budget(iterations, time_limit, threads, seed, o);
    o.candidates = static_cast<int>(int_in_range(candidates, "candidates", 1, 1024));
    o.horizon = static_cast<std::uint32_t>(int_in_range(horizon, "horizon", 1, INT_MAX));
    if (!(epsilon >= 0 && epsilon <= 1)) throw py::value_error("epsilon must be from 0 to 1");
    o.epsilon = epsilon;
    o.reveal = reveal;
    o.inference_strength = inference_strength;
    std::atomic<bool> stop{false};
    o.stop = &stop;
    const GameState root = s;
    const bool has_before = game.previous() != nullptr;
    const GameState before = has_before ? *game.previous() : s;
    return search_result(run_interruptible(stop, [root, before, has_before, o]() {
        return rollout_search(root, o, has_before ? &before : nullptr);
    }));
}

// The heuristic score (search/heuristic.hpp) of every legal move of the player to move.
py::list heuristic_scores(const Game& game) {
    const GameState& s = game.state();
    py::list out;
    if (is_over(s)) return out;
    std::vector<MoveId> legal;
    legal_moves(s, legal);
    HeuristicWeights w;
    const MoveScorer sc(s, w);
    for (MoveId m : legal) out.append(py::make_tuple(m, sc.score(m)));
    return out;
}

py::dict simulate_games(const py::handle& games, const py::handle& players, const py::handle& teams,
                        const py::handle& seed, const py::handle& threads, const py::handle& max_turns) {
    const std::int64_t n = int_in_range(games, "games", 0, LLONG_MAX);
    const int p = static_cast<int>(int_in_range(players, "players", 0, 64));
    const int t = static_cast<int>(int_in_range(teams, "teams", 0, 64));
    Config cfg;
    if (!make_config(p, t, cfg))
        throw py::value_error(std::to_string(p) + " players cannot play as " + std::to_string(t) + " teams (R2)");
    const std::uint64_t sd = uint64_arg(seed, "seed");
    const int th = static_cast<int>(int_in_range(threads, "threads", 1, 256));
    const std::uint32_t cap = max_turns.is_none() ? 0 : static_cast<std::uint32_t>(int_in_range(max_turns, "max_turns", 1, INT_MAX));
    std::atomic<bool> stop{false};
    const SimulateResult r = run_interruptible(stop, [=, &stop]() { return simulate(n, cfg, sd, th, cap, &stop); });
    py::list wins;
    for (int k = 0; k < cfg.teams; ++k) wins.append(r.wins[k]);
    py::dict out;
    out["games"] = r.games;
    out["wins"] = wins;
    out["draws"] = r.draws;
    out["total_turns"] = r.total_turns;
    out["seconds"] = r.seconds;
    return out;
}

}  // namespace

void init_search(py::module_& m) {
    m.def("mcts_search", &mcts_search, py::arg("state"), py::arg("iterations"), py::arg("time_limit"),
          py::arg("threads") = 1, py::arg("seed") = 0, py::arg("exploration") = 0.2,
          py::arg("max_nodes") = 1000000, py::arg("playout_turns") = 6, py::arg("cheat") = false,
          py::arg("evaluate") = true, py::arg("informed_playouts") = true, py::arg("weights") = py::none(),
          py::arg("playout_candidates") = 1, py::arg("align_playouts") = true, py::arg("prior_weight") = 0.0,
          py::arg("widen_base") = 0.0, py::arg("widen_coef") = 1.0, py::arg("widen_exponent") = 0.4,
          py::arg("ordered_expansion") = false, py::arg("greedy_playouts") = false, py::arg("playout_epsilon") = 0.3,
          "Information-set MCTS for the player to move (cpp/include/sequence/search/ismcts.hpp). Returns "
          "{best, moves: [(move_id, visits, mean value)] by visits, iterations, seconds, nodes, "
          "bytes_per_node, interrupted}. Releases the GIL; Ctrl-C raises KeyboardInterrupt.");
    m.def("rollout_search", &rollout_search_py, py::arg("state"), py::arg("iterations"), py::arg("time_limit"),
          py::arg("threads") = 1, py::arg("seed") = 0, py::arg("candidates") = 8, py::arg("horizon") = 200,
          py::arg("epsilon") = 0.0, py::arg("reveal") = 0, py::arg("inference_strength") = 0.0,
          "Rollout search with common random numbers (cpp/include/sequence/search/rollout.hpp). Returns {best, "
          "moves: [(move_id, worlds, mean value)] best mean first, iterations, seconds, nodes, interrupted}. Releases "
          "the GIL; Ctrl-C raises KeyboardInterrupt.");
    m.def("heuristic_scores", &heuristic_scores, py::arg("state"),
          "[(move_id, score)] for every legal move of the player to move: the search's move heuristic "
          "(cpp/include/sequence/search/heuristic.hpp), a port of GreedyAgent.score_moves.");
    m.def("simulate", &simulate_games, py::arg("games"), py::arg("players"), py::arg("teams"), py::arg("seed"),
          py::arg("threads") = 1, py::arg("max_turns") = py::none(),
          "Plays games of uniformly random legal moves; {games, wins[team], draws, total_turns, seconds}. "
          "Releases the GIL; Ctrl-C raises KeyboardInterrupt.");
}
