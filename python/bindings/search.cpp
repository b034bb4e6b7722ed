// Search and simulation for Python: _core.mcts_search (ISMCTS), _core.rollout_search (rollout search
// with common random numbers), _core.net_search (the network-guided search; all three
// cpp/include/sequence/search, options bound in search_options.cpp) and _core.simulate (random games). All release the GIL while they run on worker threads
// (run_interruptible()); a worker's exception reaches Python (std::bad_alloc as MemoryError, a thread
// that could not start as RuntimeError), and Ctrl-C raises KeyboardInterrupt.
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <future>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

#include "bindings.hpp"
#include "search_options.hpp"
#include "sequence/game.hpp"
#include "sequence/parallel.hpp"
#if SEQUENCE_RESEARCH
#include "sequence/search/inference.hpp"
#endif
#include "sequence/search/ismcts.hpp"
#include "sequence/search/puct.hpp"
#include "sequence/search/rollout.hpp"
#include "sequence/simulate.hpp"

namespace sequence_bindings {
inline namespace SEQUENCE_ISA {

namespace {

using namespace sequence;

bool interpreter_finalizing() {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing() != 0;
#else
    return _Py_IsFinalizing() != 0;
#endif
}

// Whether the calling thread (holding the GIL) is Python's main thread, the only one that runs
// signal handlers.
bool on_main_thread() {
    const auto main_ident = py::module_::import("threading").attr("main_thread")().attr("ident").cast<unsigned long>();
    return PyThread_get_thread_ident() == main_ident;
}

// Runs fn() on another thread with the GIL released, waking every 50 ms to run Python's signal
// handlers: on Ctrl-C the stop flag is raised, the work is waited for and KeyboardInterrupt is
// raised. Only the main thread runs signal handlers, so any other thread takes the GIL back once,
// when the work is done: a thread of low CPU priority (the web server's analyses run in the idle
// class) that took it every 50 ms could lose its core while holding it, and every other thread,
// the event loop's included, would wait for the GIL until the scheduler gave that thread a core
// again. When the interpreter starts to exit while this thread waits (a daemon thread, or a
// Ctrl-C that interrupted Thread.join), the work is stopped and waited for too.
//
// The GIL is released and taken back with the plain C calls rather than a scoped guard: taking it
// back while the interpreter exits ends this thread by unwinding its stack, and an unwind that
// passes through a destructor (noexcept) would std::terminate the process.
//
// A failure of the work reaches Python with what to do about it: std::bad_alloc as MemoryError,
// a thread that could not be started (parallel.hpp's ThreadStartError, or this function's own
// thread) as RuntimeError.
//
// The other thread is one of the core's worker pool (parallel.hpp: PooledJob), kept from call to
// call rather than started for each. The job is waited for on every way out, an unwinding of this
// thread included (its destructor): fn's captures and `stop` (the caller's) outlive the work.
template <class F>
auto run_interruptible(std::atomic<bool>& stop, F fn) -> decltype(fn()) {
    using Result = decltype(fn());
    std::packaged_task<Result()> task(std::move(fn));
    std::future<Result> done = task.get_future();
    std::unique_ptr<PooledJob> job;  // declared after task: destroyed (waited for) first
    const bool main_thread = on_main_thread();
    PyThreadState* thread_state = PyEval_SaveThread();
    try {
        job = std::make_unique<PooledJob>([&task] { task(); });
    } catch (const std::exception& e) {  // std::system_error: no thread could be started
        PyEval_RestoreThread(thread_state);
        throw std::runtime_error(std::string("could not start a worker thread (") + e.what() + ")");
    }
    for (;;) {
        const bool ready = job->wait_for(std::chrono::milliseconds(50));
        if (!ready && interpreter_finalizing()) {
            stop.store(true);
            job->wait();
        } else if (!ready && !main_thread) {
            continue;
        }
        PyEval_RestoreThread(thread_state);
        if (ready) break;
        if (PyErr_CheckSignals() != 0) {  // KeyboardInterrupt (or another signal handler's error)
            stop.store(true);
            thread_state = PyEval_SaveThread();
            job->wait();
            PyEval_RestoreThread(thread_state);
            throw py::error_already_set();  // the signal's error wins over the work's own
        }
        thread_state = PyEval_SaveThread();
    }
    try {
        return done.get();  // rethrows the work's exception
    } catch (const std::bad_alloc&) {
        PyErr_SetString(PyExc_MemoryError,
                        "out of memory in the worker threads: lower max_nodes or threads (or raise the memory limit)");
        throw py::error_already_set();
    }
}

// A stop flag Python holds (_core.StopFlag): raised from any thread, it ends a search that was given
// it between two iterations, which then returns what it found so far (an app's "move now" button, a
// cancelled asyncio task). Shared, so the flag outlives the search even if Python drops it first.
struct StopFlag {
    std::atomic<bool> raised{false};
};
using StopFlagPtr = std::shared_ptr<StopFlag>;

// The flag a search polls: the caller's, else one of its own (raised only by Ctrl-C).
StopFlagPtr stop_flag(const py::handle& stop) {
    if (stop.is_none()) return std::make_shared<StopFlag>();
    if (!py::isinstance<StopFlag>(stop))
        throw py::type_error(std::string("stop must be a _core.StopFlag or None, not ") + Py_TYPE(stop.ptr())->tp_name);
    return stop.cast<StopFlagPtr>();
}

// The test hook `peek` (options.hpp): "none" (every search a player runs), "hands" or "all".
Peek peek_arg(const py::handle& v) {
    if (!py::isinstance<py::str>(v))
        throw py::type_error(std::string("peek must be 'none', 'hands' or 'all', not ") + Py_TYPE(v.ptr())->tp_name);
    const std::string s = v.cast<std::string>();
    if (s == "none") return Peek::None;
    if (s == "hands") return Peek::Hands;
    if (s == "all") return Peek::All;
    throw py::value_error("peek must be 'none', 'hands' or 'all', not '" + s.substr(0, 40) + "'");
}

// The game's state, which a search copies (the game itself is never touched).
const GameState& searchable(const Game& game) {
    if (is_over(game.state())) throw py::value_error("the game is over: there is no move to search");
    return game.state();
}

SearchResult mcts_search(const Game& game, SearchOptions options, const py::handle& seed, const py::handle& stop_arg,
                         const py::handle& peek_name) {
    const GameState root = searchable(game);
    const Peek peek = peek_arg(peek_name);
    if (!seed.is_none()) options.seed = uint64_arg(seed, "seed");
    check_options(options);
    const StopFlagPtr flag = stop_flag(stop_arg);
    std::atomic<bool>& stop = flag->raised;
    options.stop = &stop;
#if SEQUENCE_RESEARCH
    // The public moves of the game so far (inference.hpp), read through observe() only (R9).
    std::vector<PublicChange> history;
    if (options.inference != InferenceKind::Off && peek == Peek::None)
        history = public_history(game, root.current_player, options.inference_plays);
    return run_interruptible(stop, [root, options, history = std::move(history), peek]() {
        return ismcts(root, options, history.empty() ? nullptr : &history, peek);
    });
#else
    return run_interruptible(stop, [root, options, peek]() { return ismcts(root, options, nullptr, peek); });
#endif
}

SearchResult rollout_search_py(const Game& game, RolloutOptions options, const py::handle& seed,
                               const py::handle& stop_arg, const py::handle& peek_name) {
    const GameState root = searchable(game);
    const Peek peek = peek_arg(peek_name);
    if (!seed.is_none()) options.seed = uint64_arg(seed, "seed");
    check_options(options);
    const StopFlagPtr flag = stop_flag(stop_arg);
    std::atomic<bool>& stop = flag->raised;
    options.stop = &stop;
    const bool has_before = game.previous() != nullptr;
    const GameState before = has_before ? *game.previous() : root;
    return run_interruptible(stop, [root, before, has_before, options, peek]() {
        return rollout_search(root, options, has_before ? &before : nullptr, peek);
    });
}

SearchResult net_search_py(const Game& game, const std::shared_ptr<Net>& net, NetSearchOptions options,
                           const py::handle& seed, const py::handle& stop_arg) {
    const GameState root = searchable(game);
    if (!seed.is_none()) options.seed = uint64_arg(seed, "seed");
    check_options(options);
    const StopFlagPtr flag = stop_flag(stop_arg);
    std::atomic<bool>& stop = flag->raised;
    options.stop = &stop;
    return run_interruptible(stop, [root, net, options]() { return net_search(root, *net, options); });
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
    const int th = static_cast<int>(int_in_range(threads, "threads", 1, kMaxThreads));
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
    init_search_options(m);
    py::class_<SearchResult>(m, "SearchResult",
                             "A search's result (cpp/include/sequence/search/ismcts.hpp): best, moves [(move_id, visits, "
                             "mean value)], iterations, seconds, nodes, interrupted.")
        .def_readonly("best", &SearchResult::best)
        .def_property_readonly("moves",
                               [](const SearchResult& r) {
                                   py::list out;
                                   for (const MoveStats& s : r.moves) out.append(py::make_tuple(s.move, s.visits, s.value));
                                   return out;
                               })
        .def_readonly("iterations", &SearchResult::iterations)
        .def_readonly("seconds", &SearchResult::seconds)
        .def_readonly("nodes", &SearchResult::nodes)
        .def_readonly("interrupted", &SearchResult::interrupted);
    py::class_<StopFlag, StopFlagPtr>(m, "StopFlag",
                                      "A flag that ends a search early from any thread (mcts_search/rollout_search/"
                                      "net_search stop=): the search returns its best move so far, with interrupted set.")
        .def(py::init<>())
        .def("set", [](StopFlag& f) { f.raised.store(true); }, "Raise the flag (thread-safe; the GIL is not needed).")
        .def_property_readonly("is_set", [](const StopFlag& f) { return f.raised.load(); });
    m.attr("SEARCH_NODE_BYTES") = search_node_bytes();
    m.def("mcts_search", &mcts_search, py::arg("state"), py::arg("options"), py::arg("seed") = py::none(),
          py::arg("stop") = py::none(), py::arg("peek") = "none",
          "Information-set MCTS for the player to move (cpp/include/sequence/search/ismcts.hpp) with these "
          "SearchOptions (seed: overrides options.seed; stop: a StopFlag that ends it early; peek: a test hook that "
          "breaks R9, 'hands' or 'all' to read the true hands or state, agents/_peeking.py). Moves in the result: "
          "visits descending. Releases the GIL; Ctrl-C raises KeyboardInterrupt (and raises stop); MemoryError when a "
          "tree cannot grow.");
    m.def("rollout_search", &rollout_search_py, py::arg("state"), py::arg("options"), py::arg("seed") = py::none(),
          py::arg("stop") = py::none(), py::arg("peek") = "none",
          "Rollout search with common random numbers (cpp/include/sequence/search/rollout.hpp) with these "
          "RolloutOptions (seed: overrides options.seed; stop: a StopFlag that ends it early; peek: a test hook, as "
          "mcts_search's). Moves in the result: best "
          "mean first. Releases the GIL; Ctrl-C raises KeyboardInterrupt (and raises stop).");
    m.def("net_search", &net_search_py, py::arg("state"), py::arg("net"), py::arg("options"), py::arg("seed") = py::none(),
          py::arg("stop") = py::none(),
          "The network-guided information-set search (cpp/include/sequence/search/puct.hpp) of this Net with these "
          "NetSearchOptions (seed: overrides options.seed; stop: a StopFlag that ends it early). Moves in the result: "
          "visits descending. Releases the GIL; Ctrl-C raises KeyboardInterrupt (and raises stop).");
    m.def("heuristic_scores", &heuristic_scores, py::arg("state"),
          "[(move_id, score)] for every legal move of the player to move: the search's move heuristic "
          "(cpp/include/sequence/search/heuristic.hpp), a port of GreedyAgent.score_moves.");
    m.def("simulate", &simulate_games, py::arg("games"), py::arg("players"), py::arg("teams"), py::arg("seed"),
          py::arg("threads") = 1, py::arg("max_turns") = py::none(),
          "Plays games of uniformly random legal moves; {games, wins[team], draws, total_turns, seconds}. "
          "Releases the GIL; Ctrl-C raises KeyboardInterrupt.");
    m.def("worker_threads_started", &worker_threads_started,
          "Threads the core's worker pool (cpp/include/sequence/parallel.hpp) has started in this process: the "
          "pool keeps them for later searches and simulate runs, so a repeat with as many threads starts none.");
}

}  // namespace SEQUENCE_ISA
}  // namespace sequence_bindings
