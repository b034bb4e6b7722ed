"""Thread safety and resource bounds (docs/hardening.md).

* One ``Game`` per thread is safe, on both implementations, and gives the same games as playing
  them one after another.
* One ``Game`` hammered from several threads never corrupts: every call either works, or raises
  the guard's ``RuntimeError`` ("being changed by another thread"), or a clean ``ValueError``
  (the move listed a moment ago is no longer legal). ``to_dict()`` is always a consistent
  position (``Game.from_dict`` accepts it) and the undo history still walks back to the deal.
* ``MCTSAgent`` and ``simulate`` with several threads, several searches at once from Python
  threads, a search running while another thread plays on the same game; ``max_nodes`` and
  ``time_limit`` hold (the latter under CPU load); Ctrl-C (SIGINT) interrupts ``simulate`` and a
  search promptly, leaving no worker thread behind. The core's worker threads are kept from call
  to call (a repeated search starts none) and a forked child searches with threads of its own. These skip with the reason while the search
  module (``sequence_game.agents.mcts``, ``sequence_game.simulate``) is not built.
"""

from __future__ import annotations

import importlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
import sequence_game
from conftest import load_game_class

BUSY = "being changed by another thread"


def _module(name):
    try:
        return importlib.import_module(name), None
    except ImportError as e:  # a core built without the search bindings
        return None, f"{type(e).__name__}: {e}"


mcts, MCTS_ERROR = _module("sequence_game.agents.mcts")
simulate_mod, SIMULATE_ERROR = _module("sequence_game.simulate")
needs_mcts = pytest.mark.skipif(
    mcts is None, reason=f"sequence_game.agents.mcts (MCTSAgent) is not available yet: {MCTS_ERROR}")
needs_simulate = pytest.mark.skipif(
    simulate_mod is None, reason=f"sequence_game.simulate is not available yet: {SIMULATE_ERROR}")

IMPLS = ["core", "reference"]


def game_class(name):
    return load_game_class(name)


@pytest.fixture
def fast_switching():
    """Make the interpreter switch threads every microsecond, so races actually happen."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def random_game(cls, seed, players=2, turns=60):
    g = cls(players=players, seed=seed)
    rng = random.Random(seed)
    while not g.is_over and g.turn < turns:
        g.play(rng.choice(g.legal_moves()))
    return g.to_dict()


# --------------------------------------------------------------------------- the guard


@pytest.mark.parametrize("impl", IMPLS)
def test_guard_refuses_a_change_while_another_is_under_way(impl):
    g = game_class(impl)(players=2, seed=3)
    before = g.to_dict()
    move = g.legal_moves()[0]
    g._guard.acquire()  # as if another thread were inside play()
    try:
        for call in (lambda: g.play(move), g.undo, g.legal_moves, lambda: g.is_legal(move),
                     lambda: g.parse_move(str(move)), lambda: g.missed_draw(0),
                     lambda: g.table_talk_penalty(0, {0: g.hand(0)[0]})):
            with pytest.raises(RuntimeError, match=BUSY):
                call()
    finally:
        g._guard.release()
    assert g.to_dict() == before
    g.play(move)  # free again
    assert g.turn == 1


@pytest.mark.parametrize("impl", IMPLS)
def test_to_dict_refuses_a_snapshot_torn_by_a_concurrent_change(impl):
    g = game_class(impl)(players=2, seed=3)
    g._version += 1  # odd: a change is under way
    with pytest.raises(RuntimeError, match=BUSY):
        g.to_dict()
    g._version += 1
    assert sequence_game.Game.from_dict(g.to_dict()).to_dict() == g.to_dict()


@pytest.mark.parametrize("impl", IMPLS)
def test_guard_is_released_after_errors(impl):
    g = game_class(impl)(players=2, seed=3)
    for bad in ("pass", "nonsense", 42, "JD@a1"):
        with pytest.raises((ValueError, TypeError)):
            g.play(bad)
    with pytest.raises(ValueError):
        g.undo()
    assert not g._guard.locked()
    g.play(g.legal_moves()[0])


# --------------------------------------------------------------------------- one game per thread


@pytest.mark.parametrize("impl", IMPLS)
def test_one_game_per_thread_is_safe_and_deterministic(impl, fast_switching):
    cls = game_class(impl)
    seeds = list(range(6))
    expected = {s: random_game(cls, s, players=2 + (s % 2)) for s in seeds}
    results, errors = {}, []

    def worker(s):
        try:
            results[s] = random_game(cls, s, players=2 + (s % 2))
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(s,)) for s in seeds]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results == expected


# --------------------------------------------------------------------------- one game, many threads


@pytest.mark.parametrize("impl", IMPLS)
def test_one_game_hammered_from_threads_fails_loudly_never_corrupts(impl, fast_switching):
    cls = game_class(impl)
    g = cls(players=4, seed=11)
    deal = g.to_dict()
    stop = time.monotonic() + 1.5
    counts = {"ok": 0, "busy": 0, "illegal": 0, "snapshots": 0}
    unexpected = []
    lock = threading.Lock()

    def count(key):
        with lock:
            counts[key] += 1

    def player(seed):
        rng = random.Random(seed)
        while time.monotonic() < stop and not unexpected:
            try:
                if g.is_over or rng.random() < 0.15:
                    g.undo()
                else:
                    moves = g.legal_moves()
                    if moves:
                        g.play(rng.choice(moves))
                count("ok")
            except RuntimeError as e:
                assert BUSY in str(e)
                count("busy")
            except ValueError:  # the other thread moved first: the listed move is stale
                count("illegal")
            except BaseException as e:  # noqa: BLE001
                unexpected.append(e)

    def reader():
        while time.monotonic() < stop and not unexpected:
            try:
                d = g.to_dict()
            except RuntimeError as e:
                assert BUSY in str(e)
                count("busy")
                continue
            except BaseException as e:  # noqa: BLE001
                unexpected.append(e)
                continue
            try:
                # validated by the strict loader of the other implementation too
                load_game_class("reference").from_dict(d)
                count("snapshots")
            except BaseException as e:  # noqa: BLE001
                unexpected.append(AssertionError(f"corrupted to_dict from a concurrent read: {e!r}"))

    threads = [threading.Thread(target=player, args=(s,)) for s in (1, 2, 3)] + [threading.Thread(target=reader)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not unexpected, unexpected[:3]
    assert counts["ok"] > 0 and counts["snapshots"] > 0, counts
    # The game is intact: it round-trips, and its undo history walks back to the deal.
    d = g.to_dict()
    assert cls.from_dict(d).to_dict() == d
    while True:
        try:
            g.undo()
        except ValueError:
            break
    assert g.to_dict() == deal
    assert not g._guard.locked()


def _race(seconds, changer, reader, pause=0.0):
    """Run ``changer`` in a thread and ``reader`` here for ``seconds``; the exceptions neither
    expected (the guard's RuntimeError) nor returned."""
    stop = time.monotonic() + seconds
    unexpected = []

    def change():
        while time.monotonic() < stop and not unexpected:
            try:
                changer()
                if pause:
                    time.sleep(pause)  # the guard free now and then, so that guarded reads get through
            except RuntimeError as e:
                if BUSY not in str(e):
                    unexpected.append(e)
            except BaseException as e:  # noqa: BLE001
                unexpected.append(e)

    t = threading.Thread(target=change)
    t.start()
    reads = 0
    try:
        while time.monotonic() < stop and not unexpected:
            try:
                reader()
                reads += 1
            except RuntimeError as e:
                if BUSY not in str(e):
                    unexpected.append(e)
            except BaseException as e:  # noqa: BLE001
                unexpected.append(e)
    finally:
        t.join()
    return reads, unexpected


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("how", ["copy", "deepcopy", "copy.copy"])
def test_copy_during_a_change_is_whole_or_refused(impl, how, fast_switching):
    """H2 (docs/hardening.md): a copy taken while another thread plays is a whole position (it
    loads, all 104 cards) or the guard's RuntimeError, never a torn game."""
    import copy

    g = game_class(impl)(players=4, seed=5)
    rng = random.Random(5)
    take = {"copy": lambda: g.copy(), "deepcopy": lambda: copy.deepcopy(g), "copy.copy": lambda: copy.copy(g)}[how]

    def change():
        if g.is_over or g.turn > 30:
            g.undo()
        else:
            g.play(rng.choice(g.legal_moves()))

    def read():
        d = take().to_dict()
        cards = sum(map(len, d["hands"])) + sum(map(len, d["discards"])) + len(d["draw_pile"])
        assert cards == 104, f"a torn copy holds {cards} cards"
        load_game_class("reference").from_dict(d)

    reads, unexpected = _race(1.0, change, read, pause=0.0002)
    assert not unexpected, unexpected[:3]
    assert reads > 0


@pytest.mark.parametrize("impl", IMPLS)
def test_str_reads_each_property_once(impl):
    """H6, deterministically: a game whose properties change between any two reads (as another
    thread's play or undo can make them) still renders; each read describes one position."""
    base = game_class(impl)
    flips = {"n": 0}

    class Flickering(base):
        def _flip(self, real, other):
            flips["n"] += 1
            return real if flips["n"] % 2 else other

        winner = property(lambda self: self._flip(0, None))
        current_player = property(lambda self: self._flip(1, 0))
        is_draw = property(lambda self: self._flip(False, True))

    g = Flickering.from_dict(base(players=2, seed=3).to_dict())
    for _ in range(4):
        text = str(g)
        assert text.splitlines()[-1].split(" | ")[1] in {"team 0 (blue) won", "drawn", "player 1 (green) to move",
                                                           "player 0 (blue) to move"}
        repr(g)


@pytest.mark.parametrize("impl", IMPLS)
def test_str_while_a_winning_move_is_played_and_undone(impl, fast_switching):
    """H6: ``str``/``repr`` read while another thread plays and undoes a winning move describe one
    of the two positions (or raise the guard's RuntimeError), never TypeError."""
    from helpers import board_rows, line, seq

    row6, row8 = line((5, 0), (0, 1)), line((7, 0), (0, 1))
    g = game_class(impl).from_dict({
        "players": 2, "hands": [["KC", "QS"], ["9C"]], "board": board_rows(B=row6 + row8[:4]),
        "sequences": [{"team": 0, "cells": [list(c) for c in seq(row6)]}],
    })

    def change():
        g.play("KC@e8")
        g.undo()

    texts = set()

    def read():
        texts.add(str(g).splitlines()[-1].split(" | ")[1])
        for _ in range(50):  # the status line alone: the narrow window between its reads
            texts.add(repr(g).split(" turn=")[1].split(" ", 1)[1][:-1])

    reads, unexpected = _race(1.0, change, read)
    assert not unexpected, unexpected[:3]
    assert reads > 0 and texts <= {"player 0 (blue) to move", "team 0 (blue) won"}


# --------------------------------------------------------------------------- search and simulate


@needs_simulate
def test_simulate_threads_agree_and_run_in_parallel_python_threads():
    simulate = simulate_mod.simulate
    one = simulate(60, players=2, seed=5, threads=1)
    four = simulate(60, players=2, seed=5, threads=4)
    assert (one["games"], one["wins"], one["draws"]) == (four["games"], four["wins"], four["draws"])
    out, errors = [None] * 3, []

    def run(i):
        try:
            out[i] = simulate(60, players=2, seed=5, threads=2)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all((r["games"], r["wins"], r["draws"]) == (one["games"], one["wins"], one["draws"]) for r in out)


@needs_mcts
def test_repeated_searches_and_simulate_start_no_threads():
    """The core's worker pool (parallel.hpp) keeps its threads: once a search with 4 threads has
    run, searches, rollout searches and simulate runs with up to 4 threads start no thread
    (each of them one pooled thread more than before: the bindings' search thread included)."""
    from sequence_game import _core
    from sequence_game.agents import RolloutAgent

    g = sequence_game.Game(players=2, seed=1)
    first = mcts.MCTSAgent(iterations=100, threads=4, seed=1).analyze(g)
    before = _core.worker_threads_started()
    for seed in range(5):
        again = mcts.MCTSAgent(iterations=100, threads=4, seed=1).analyze(g)
        assert [(m.move, m.visits) for m in again.moves] == [(m.move, m.visits) for m in first.moves]
        RolloutAgent(iterations=64, threads=3, seed=seed).select_move(g)
        simulate_mod.simulate(40, players=2, seed=seed, threads=4)
    assert _core.worker_threads_started() == before


def _voluntary_switches() -> int:
    with open("/proc/thread-self/status") as f:
        return int(next(line for line in f if line.startswith("voluntary_ctxt_switches")).split()[1])


@needs_mcts
@pytest.mark.skipif(not os.path.exists("/proc/thread-self/status"), reason="Linux /proc counts a thread's switches")
def test_a_search_off_the_main_thread_leaves_the_gil_alone_until_it_is_done():
    """Only the main thread runs signal handlers, so a search called from another thread does not
    take the GIL back before its work is done: a thread of low CPU priority (the web server's
    analyses) that took it every 50 ms could lose its core holding it and stall every other thread,
    the event loop's included (docs/web.md, "Load"). While such a search runs, the main thread runs
    Python without a pause: each time the other thread asks for the GIL, the main thread has to
    hand it over and wait (a voluntary context switch): 7-15 times in 1.6 s with a check every 50 ms,
    never without it."""
    started = threading.Event()

    def run():
        started.set()
        mcts.MCTSAgent(time_limit=2.5, seed=1).analyze(sequence_game.Game(players=2, seed=1))

    t = threading.Thread(target=run)
    t.start()
    started.wait()
    time.sleep(0.3)  # the search is under way, the GIL released
    before = _voluntary_switches()
    end = time.monotonic() + 1.6
    while time.monotonic() < end:
        pass
    handed_over = _voluntary_switches() - before
    t.join(60)
    assert handed_over < 3, f"the main thread handed the GIL over {handed_over} times in 1.6 s"


_PRIORITY_CHILD = textwrap.dedent(
    """
    import json, os, threading
    import sequence_game
    from sequence_game.agents import MCTSAgent

    def cpu_by_thread():
        out = {}
        for tid in os.listdir("/proc/self/task"):
            if int(tid) != os.getpid():
                with open(f"/proc/self/task/{tid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                out[int(tid)] = int(fields[11]) + int(fields[12])
        return out

    def searched_on(call):
        before = cpu_by_thread()
        call()
        grown = [tid for tid, cpu in cpu_by_thread().items() if cpu > before.get(tid, 0)]
        return sorted({os.sched_getscheduler(tid) for tid in grown})

    def search():
        MCTSAgent(time_limit=0.3, seed=1).analyze(sequence_game.Game(players=2, seed=1))

    def idle():
        os.sched_setscheduler(threading.get_native_id(), os.SCHED_IDLE, os.sched_param(0))
        search()

    first = threading.Thread(target=idle)
    first.start()
    first.join()
    print(json.dumps({"ran_on": searched_on(search), "normal": os.SCHED_OTHER}), flush=True)
    """
)


@needs_mcts
@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE") or not os.path.exists("/proc/self/task"),
                    reason="Linux's per-thread scheduling classes")
def test_pool_threads_keep_to_the_priority_of_their_callers():
    """The core's pool threads keep the CPU priority of the thread that started them (an
    unprivileged thread cannot raise its own again), so a search is handed only to threads of its
    caller's priority: after a search asked from a thread in the idle scheduling class (as the web
    server's analyses are), a search asked from an ordinary thread (an AI's move) runs on an
    ordinary thread, not on the idle one, where any other work of the machine would starve it."""
    out = subprocess.run([sys.executable, "-c", _PRIORITY_CHILD], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.splitlines()[-1])
    assert got["ran_on"] == [got["normal"]], got


_FORK_CHILD = textwrap.dedent(
    """
    import os, sys
    import sequence_game
    from sequence_game.agents import MCTSAgent
    g = sequence_game.Game(players=2, seed=1)
    parent = MCTSAgent(iterations=400, threads=3, seed=1).analyze(g)  # the pool has threads now
    pid = os.fork()
    if pid == 0:  # the pool's threads did not survive the fork: the child's search starts its own
        child = MCTSAgent(iterations=400, threads=3, seed=1).analyze(g)
        same = [(m.move, m.visits) for m in child.moves] == [(m.move, m.visits) for m in parent.moves]
        os._exit(0 if same else 1)
    _, status = os.waitpid(pid, 0)
    print("child", os.waitstatus_to_exitcode(status), flush=True)
    """
)


@needs_mcts
@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="fork() is POSIX")
def test_a_forked_child_searches_with_threads_of_its_own():
    out = subprocess.run([sys.executable, "-c", _FORK_CHILD], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "child 0" in out.stdout, (out.stdout, out.stderr[-2000:])


@needs_mcts
def test_parallel_agents_on_different_games_match_sequential():
    MCTSAgent = mcts.MCTSAgent
    games = [sequence_game.Game.from_dict(random_game(sequence_game.Game, s, turns=10)) for s in range(4)]

    def pick(i):
        return MCTSAgent(iterations=400, threads=2, seed=i).select_move(games[i])

    expected = [pick(i) for i in range(4)]
    got, errors = [None] * 4, []

    def run(i):
        try:
            got[i] = pick(i)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert got == expected


@needs_mcts
def test_search_while_another_thread_plays_on_the_same_game():
    """The search copies the root under the GIL; the game may move on meanwhile (the answer is
    then for the position when the search started)."""
    g = sequence_game.Game(players=2, seed=21)
    start = g.to_dict()
    result, errors = [], []

    def search():
        try:
            result.append(mcts.MCTSAgent(time_limit=0.4, threads=2, seed=1).select_move(g))
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    t = threading.Thread(target=search)
    t.start()
    rng = random.Random(0)
    played = 0
    while t.is_alive() and not g.is_over and played < 40:
        try:
            g.play(rng.choice(g.legal_moves()))
            played += 1
        except RuntimeError:
            pass
        time.sleep(0.005)
    t.join()
    assert not errors
    assert result[0] in sequence_game.Game.from_dict(start).legal_moves()
    assert sequence_game.Game.from_dict(g.to_dict()).to_dict() == g.to_dict()


@needs_mcts
@pytest.mark.parametrize("max_nodes", [2, 50, 333])
def test_search_never_exceeds_max_nodes(max_nodes):
    g = sequence_game.Game(players=2, seed=8)
    report = mcts.MCTSAgent(iterations=3000, threads=2, seed=3, options={"max_nodes": max_nodes}).analyze(g)
    assert report.nodes <= max_nodes
    assert report.iterations == 3000


@needs_mcts
def test_time_limit_holds_under_cpu_load():
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    stop = threading.Event()

    def burn():  # and a Python thread competing for the GIL
        x = 0
        while not stop.is_set():
            x += 1

    t = threading.Thread(target=burn)
    t.start()
    try:
        g = sequence_game.Game(players=4, seed=2)
        for limit in (0.2, 0.5):
            t0 = time.monotonic()
            report = mcts.MCTSAgent(time_limit=limit, threads=2, seed=1).analyze(g)
            elapsed = time.monotonic() - t0
            assert elapsed < limit + 0.5, (limit, elapsed)
            assert report.iterations > 0
    finally:
        stop.set()
        t.join()
        for b in burners:
            b.kill()
            b.wait()


_INTERRUPT_CHILD = textwrap.dedent(
    """
    import signal, sys, threading, time
    # Ctrl-C must reach this process even when it was started with SIGINT ignored (nohup, a
    # background job of a script, some CI runners): install Python's handler explicitly.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    kind = sys.argv[1]
    if kind == "rollout":
        import sequence_game
        from sequence_game.agents import RolloutAgent
        g = sequence_game.Game(players=2, seed=1)
        run = lambda: RolloutAgent(time_limit=600, threads=2, candidates=1024, seed=1).select_move(g)
        again = lambda: RolloutAgent(iterations=50, threads=2, seed=1).select_move(g)
    elif kind == "simulate":
        from sequence_game.simulate import simulate
        run = lambda: simulate(10**12, players=2, seed=1, threads=2)
        again = lambda: simulate(10, players=2, seed=1, threads=2)
    else:
        import sequence_game
        from sequence_game.agents import MCTSAgent
        g = sequence_game.Game(players=2, seed=1)
        run = lambda: MCTSAgent(time_limit=600, threads=2, seed=1).select_move(g)
        again = lambda: MCTSAgent(iterations=50, threads=2, seed=1).select_move(g)
    print("ready", flush=True)
    t0 = time.monotonic()
    try:
        run()
        print("finished without interruption", flush=True)
        sys.exit(3)
    except KeyboardInterrupt:
        print("interrupted %.2f" % (time.monotonic() - t0), flush=True)
    again()  # still usable afterwards
    print("threads %d" % threading.active_count(), flush=True)
    """
)


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("inherited", ["default", "ignored"])
@pytest.mark.parametrize("kind", [
    pytest.param("simulate", marks=needs_simulate),
    pytest.param("search", marks=needs_mcts),
    pytest.param("rollout", marks=needs_mcts),
])
def test_ctrl_c_interrupts_promptly_without_leaking_threads(kind, inherited):
    """Ctrl-C stops simulate, MCTS and the rollout search (inside a long world of 1024 candidates)
    within moments, whatever SIGINT disposition the process inherited."""
    child = subprocess.Popen([sys.executable, "-c", _INTERRUPT_CHILD, kind], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             preexec_fn=_ignore_sigint if inherited == "ignored" else None)
    try:
        assert child.stdout.readline().strip() == "ready"
        time.sleep(0.5)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=20)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == 0, (out, err)
    assert time.monotonic() - sent < 10
    lines = out.split()
    assert "interrupted" in lines, out
    assert "threads 1" in out, out  # no worker thread left behind


# --------------------------------------------------------------------------- exits and resource limits

_EXIT_CHILD = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import sequence_game
    from sequence_game.agents import MCTSAgent, RolloutAgent
    kind, scenario = sys.argv[1], sys.argv[2]
    g = sequence_game.Game(players=2, seed=1)
    def run():
        if kind == "mcts":
            MCTSAgent(time_limit=3, threads=2, seed=1).select_move(g)
        elif kind == "rollout":
            RolloutAgent(time_limit=3, threads=2, seed=1).select_move(g)
        else:
            sequence_game.simulate(100_000 if scenario == "join" else 10**12, threads=2)
    t = threading.Thread(target=run, daemon=scenario != "join")
    t.start()
    time.sleep(0.3)
    if scenario == "exit":  # the interpreter exits while the daemon thread searches
        print("exiting", flush=True)
        sys.exit(0)
    threading.Timer(0.2, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
    try:
        t.join()
    except KeyboardInterrupt:
        print("interrupted", flush=True)
    sys.exit(0)
    """
)


@needs_mcts
@pytest.mark.parametrize("scenario", ["exit", "join", "join-daemon"])
@pytest.mark.parametrize("kind", ["mcts", "rollout", "simulate"])
def test_exit_while_a_thread_searches_is_clean(kind, scenario):
    """A search or simulate still running in a (daemon) thread when the interpreter exits, or a
    Ctrl-C that interrupts Thread.join on it, ends the process normally: no abort (SIGABRT)."""
    out = subprocess.run([sys.executable, "-c", _EXIT_CHILD, kind, scenario], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr[-2000:])
    assert "terminate called" not in out.stderr


_LIMIT_CHILD = textwrap.dedent(
    """
    import resource, sys
    import sequence_game
    from sequence_game.agents import MCTSAgent, RolloutAgent, agent_from_spec
    kind, slack_mb, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    g = sequence_game.Game(players=2, seed=1)
    def vm_bytes():
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (vm_bytes() + slack_mb * 2**20, hard))  # the soft limit only
    try:
        if kind == "mcts":
            MCTSAgent(time_limit=1.5, threads=threads, seed=1, options={"max_nodes": 2**31 - 1}).select_move(g)
        elif kind == "spec":
            agent_from_spec(f"mcts:time=1.5,threads={threads},max_nodes=2000000000,seed=1").select_move(g)
        elif kind == "rollout":
            RolloutAgent(time_limit=0.5, threads=threads, seed=1).select_move(g)
        else:
            sequence_game.simulate(20000, threads=threads)
        print("completed", flush=True)
    except (MemoryError, RuntimeError) as e:
        print("refused", type(e).__name__, str(e)[:200], flush=True)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    MCTSAgent(iterations=200, threads=2, seed=1).select_move(g)  # the process is still usable
    print("usable", flush=True)
    """
)


@needs_mcts
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
@pytest.mark.parametrize("threads, slack_mb",
                         [(256, 300), (64, 100), (2, 12), (2, 17), (2, 18), (2, 19), (2, 40), (4, 64)])
@pytest.mark.parametrize("kind", ["mcts", "spec", "rollout", "simulate"])
def test_thread_or_memory_exhaustion_raises_instead_of_aborting(kind, threads, slack_mb):
    """Under an address-space limit, thread stacks (threads=256) or the trees of a search with a
    huge max_nodes cannot all be had: the search or simulate raises RuntimeError/MemoryError (or
    completes), every started worker is joined first, and the process carries on."""
    out = subprocess.run([sys.executable, "-c", _LIMIT_CHILD, kind, str(slack_mb), str(threads)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr[-2000:])
    assert "usable" in out.stdout and ("completed" in out.stdout or "refused" in out.stdout), out.stdout
    if threads == 256 and slack_mb == 300:  # 256 stacks of 8 MB cannot fit in 300 MB
        assert "refused RuntimeError" in out.stdout and "use fewer threads" in out.stdout, out.stdout
    if "refused MemoryError" in out.stdout:  # a worker's std::bad_alloc, with what to do about it
        assert "lower max_nodes or threads" in out.stdout, out.stdout


_WORKER_OOM_CHILD = textwrap.dedent(
    """
    import ctypes, sys
    import sequence_game
    from sequence_game.agents import MCTSAgent
    threads = int(sys.argv[1])
    shim = ctypes.CDLL(None)  # the LD_PRELOADed library is in the process's global scope
    shim.fail_worker_mallocs_after.argtypes = [ctypes.c_double]
    g = sequence_game.Game(players=2, seed=1)
    # The pool's threads start here and stay, idle: the search below reuses them, so no thread
    # starts while allocations fail (that would be a refused start, not the case under test).
    MCTSAgent(iterations=50, threads=threads, seed=1).select_move(g)
    shim.fail_worker_mallocs_after(0.05)  # the worker threads are searching by then
    try:
        MCTSAgent(time_limit=3, threads=threads, seed=1, options={"max_nodes": 2**31 - 1}).select_move(g)
        print("completed", flush=True)
    except MemoryError as e:
        print("refused MemoryError", str(e)[:200], flush=True)
    shim.fail_worker_mallocs_after(-1)
    MCTSAgent(iterations=200, threads=threads, seed=1).select_move(g)  # the process is still usable
    print("usable", flush=True)
    """
)


@needs_mcts
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="LD_PRELOAD and __libc_malloc are glibc's")
@pytest.mark.parametrize("threads", [1, 2, 4])
def test_memory_running_out_on_worker_threads_raises_instead_of_aborting(threads, tmp_path):
    """Every allocation on the worker threads fails once they are searching: the search raises
    MemoryError and the process carries on. glibc allocates a thread's block of libstdc++'s
    thread-locals (the exception state) lazily and aborts if it cannot, so each worker thread must
    have set that block up before it searches, not at its first std::bad_alloc."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("needs a C compiler to build the allocation-failure library")
    shim = tmp_path / "fail_worker_malloc.so"
    subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-o", str(shim),
                    str(Path(__file__).parent / "native" / "fail_worker_malloc.c")], check=True)
    env = dict(os.environ, LD_PRELOAD=str(shim))
    out = subprocess.run([sys.executable, "-c", _WORKER_OOM_CHILD, str(threads)], env=env,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, (out.returncode, out.stdout, out.stderr[-2000:])
    assert "cannot allocate memory for thread-local data" not in out.stderr
    assert "refused MemoryError" in out.stdout and "lower max_nodes or threads" in out.stdout, out.stdout
    assert "usable" in out.stdout, out.stdout


@needs_mcts
@pytest.mark.parametrize("candidates, threads", [(1024, 1), (1024, 4), (64, 8)])
def test_rollout_time_limit_holds_with_many_candidates(candidates, threads):
    """The rollout search checks its deadline inside a world (before every candidate's playout),
    so one world of many candidates played to the end cannot overrun time_limit by much."""
    g = sequence_game.Game(players=2, seed=3)
    from sequence_game.agents import RolloutAgent

    t0 = time.monotonic()
    RolloutAgent(time_limit=0.05, threads=threads, candidates=candidates, seed=1).select_move(g)
    elapsed = time.monotonic() - t0
    assert elapsed < 0.05 + 0.75, elapsed  # generous: one playout per thread past the deadline, on a shared machine
