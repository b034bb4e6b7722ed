"""The AI's time per move at each level and preset, as an app sees it (pytest-benchmark; not in the default
test run), through the Python API and through the HTTP API, and the HTTP round trip of one move.

    python -m pytest benchmarks/test_preset_benchmarks.py --benchmark-only -q -s
    python benchmarks/test_preset_benchmarks.py [--positions 40] [--http]     # a table for docs/measurements.md
    python benchmarks/test_preset_benchmarks.py --agents hard:time=none net-search:iters=4000   # any specs
    python benchmarks/test_preset_benchmarks.py --cpu --agents hard:time=none rollout:iters=6000   # CPU time

Python API: ``agent_from_spec(preset).select_move(game)`` on the same positions for every preset
(mid-game positions of greedy self-play, every stage of the game, positions with one legal move left
out: those take no time). HTTP API (``--http``): an in-process ``uvicorn`` server with
``ai_pause=0``; the AI's time is from the ``state`` frame with the human seat's move to the one
with the AI's move on the table's websocket, and the round trip of a move is ``POST /api/tables/{id}/moves``
between two human seats, against ``Game.play`` of the same move. Median and p90 of each.
"""

from __future__ import annotations

import argparse
import platform
import socket
import statistics
import threading
import time
from typing import Any, Callable, Dict, List

import pytest

sequence_game = pytest.importorskip("sequence_game")
pytest.importorskip("sequence_game._core")

from sequence_game import Game  # noqa: E402
from sequence_game.agents import GreedyAgent, agent_from_spec  # noqa: E402
from sequence_game.agents.levels import LEVELS  # noqa: E402
from sequence_game.agents.presets import DIFFICULTIES  # noqa: E402

#: Every level through Python: levels 1 to 5, then the presets (levels 6, 7 and 8).
LEVEL_SPECS = tuple(lv.name for lv in LEVELS if lv.spec not in DIFFICULTIES) + DIFFICULTIES


def positions(count: int = 40, seed: int = 0) -> List[Game]:
    """``count`` positions with a choice to make, spread over whole greedy games."""
    out: List[Game] = []
    game_seed = seed
    while len(out) < count:
        g = Game(players=2, seed=game_seed)
        a, b = GreedyAgent(seed=game_seed), GreedyAgent(seed=game_seed + 1)
        ply = 0
        while not g.is_over and len(out) < count:
            if ply % 7 == 3 and len(g.legal_moves()) > 1:
                out.append(g.copy())
            g.play((a if g.current_player == 0 else b).select_move(g))
            ply += 1
        game_seed += 1
    return out


def quantiles(samples: List[float]) -> Dict[str, float]:
    """Median, p90 (nearest rank) and mean in milliseconds (the mean compares budgets: equal time per
    move means equal means over the same positions)."""
    s = sorted(samples)
    p90 = s[min(len(s) - 1, int(0.9 * len(s) + 0.5) - 1)]
    return {"median_ms": 1000 * statistics.median(s), "p90_ms": 1000 * p90, "mean_ms": 1000 * statistics.fmean(s),
            "n": len(s)}


def time_python(preset: str, games: List[Game], clock: Callable[[], float] = time.perf_counter) -> List[float]:
    """Seconds of ``clock`` (the wall clock; ``time.process_time`` for the CPU time of every thread
    of this process, which other load on the machine does not change) per ``select_move``."""
    agent = agent_from_spec(preset, seed=1)
    agent.select_move(games[0])  # warm: imports, the worker pool
    out = []
    for g in games:
        t = clock()
        agent.select_move(g)
        out.append(clock() - t)
    return out


@pytest.mark.parametrize("preset", LEVEL_SPECS)
def test_preset_time_per_move_python(benchmark, preset):
    games = positions(12)
    agent = agent_from_spec(preset, seed=1)
    cycle = iter(range(10**9))
    benchmark.pedantic(lambda: agent.select_move(games[next(cycle) % len(games)]), rounds=len(games), iterations=1)
    benchmark.extra_info.update(quantiles(time_python(preset, games)))


# --------------------------------------------------------------------------- over HTTP


class LiveServer:
    """The web app on a free loopback port in a thread (uvicorn), ``ai_pause=0``."""

    def __init__(self) -> None:
        import uvicorn
        from sequence_game.web.app import create_app

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        config = uvicorn.Config(create_app(":memory:", ai_pause=0.0), host="127.0.0.1", port=self.port,
                                log_level="warning", access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        while not self.server.started:
            time.sleep(0.01)
        self.url = f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def _wait(client: Any, table: str, version: int) -> Any:
    while True:
        view = client.table(table)
        if view.version > version or view.over:
            return view
        time.sleep(0.002)


def time_http_ai(url: str, preset: str, moves: int, seed: int = 0) -> List[float]:
    """The AI seat's time per move as the human seat sees it, on the table's websocket (no polling):
    from the frame with the human's move to the frame with the AI's."""
    import json

    from sequence_game.client import Client, TableView
    from websockets.sync.client import connect

    out: List[float] = []
    human = GreedyAgent(seed=seed)
    while len(out) < moves:
        created = Client(url).create_table(players=2, seats=[{"kind": "human"}, {"kind": "ai", "ai": preset}],
                                           seed=seed, ai_seconds=5)
        with connect(f"ws://{url.split('://', 1)[1]}/api/tables/{created.table}/ws") as ws:
            ws.send(json.dumps({"type": "hello", "token": created.seats[0].token}))
            mine_at = None
            while len(out) < moves:
                frame = json.loads(ws.recv(timeout=120))
                if frame["type"] != "state":
                    continue
                view = TableView.from_json(frame["view"])
                if view.over:
                    break
                last = view.last_move
                if mine_at is not None and last is not None and last["player"] == 1:
                    out.append(time.perf_counter() - mine_at)
                    mine_at = None
                if last is not None and last["player"] == 0 and not view.legal:
                    mine_at = time.perf_counter()  # our move is on the table: the AI thinks now
                if view.legal:
                    move = str(human.select_move(view.game(seed=view.version)))
                    ws.send(json.dumps({"type": "move", "move": move, "version": view.version}))
        seed += 1
    return out


def time_http_round_trip(url: str, moves: int, seed: int = 0) -> Dict[str, List[float]]:
    """``POST .../moves`` between two human seats, ``GET`` of the view, and ``Game.play`` of a
    greedy game of the same length. A table of two people is dealt by the server (no seed, R9): each
    seat chooses its move from its own view."""
    from sequence_game.client import Client

    post: List[float] = []
    get: List[float] = []
    local: List[float] = []
    while len(post) < moves:
        created = Client(url).create_table(players=2, seats=[{"kind": "human"}, {"kind": "human"}])
        seats = [Client(url, token=s.token) for s in sorted(created.seats, key=lambda s: s.seat)]
        game = Game(players=2, seed=seed)
        view = seats[0].table(created.table)
        agent = GreedyAgent(seed=seed)
        while not view.over and not game.is_over and len(post) < moves:
            mover = seats[view.state["current_player"]]
            mine = mover.table(created.table)
            move = agent.select_move(mine.game(seed=mine.version))
            t = time.perf_counter()
            mover.play(created.table, str(move))
            post.append(time.perf_counter() - t)
            local_move = agent.select_move(game)
            t = time.perf_counter()
            game.play(local_move)
            local.append(time.perf_counter() - t)
            t = time.perf_counter()
            view = mover.table(created.table)
            get.append(time.perf_counter() - t)
        seed += 1
    return {"post_move": post, "get_view": get, "game_play": local}


@pytest.fixture(scope="module")
def live_server():
    pytest.importorskip("uvicorn", reason="the [web] extra is not installed")
    server = LiveServer()
    yield server.url
    server.close()


def test_http_round_trip_per_move(benchmark, live_server):
    result = benchmark.pedantic(time_http_round_trip, args=(live_server, 60), rounds=1, iterations=1)
    for name, samples in result.items():
        benchmark.extra_info[name] = quantiles(samples)


@pytest.mark.parametrize("preset", DIFFICULTIES)
def test_preset_time_per_move_http(benchmark, live_server, preset):
    samples = benchmark.pedantic(time_http_ai, args=(live_server, preset, 12), rounds=1, iterations=1)
    benchmark.extra_info.update(quantiles(samples))


# --------------------------------------------------------------------------- the table


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:  # pragma: no cover - not Linux
        pass
    return platform.processor() or platform.machine()


def main(argv: Any = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--http", action="store_true", help="also through the HTTP API and the round trip")
    parser.add_argument("--agents", nargs="+", metavar="SPEC", help="time these agent specs instead of the levels")
    parser.add_argument("--cpu", action="store_true",
                        help="CPU time of this process (time.process_time) instead of the wall clock: on a loaded "
                             "machine, the way to compare budgets")
    args = parser.parse_args(argv)
    import os

    print(f"CPU: {_cpu()}, {os.cpu_count()} logical cores; Python {platform.python_version()}")
    games = positions(args.positions)

    def row(what: str, how: str, q: Dict[str, float]) -> None:
        print(f"| {what} | {how} | {q['n']} | {q['median_ms']:.2f} | {q['p90_ms']:.2f} | {q['mean_ms']:.2f} |")

    print("| preset | through | moves | median ms | p90 ms | mean ms |\n|---|---|---|---|---|---|")
    for preset in args.agents or LEVEL_SPECS:
        row(preset, "Python (CPU)" if args.cpu else "Python",
            quantiles(time_python(preset, games, time.process_time if args.cpu else time.perf_counter)))
    if args.http:
        server = LiveServer()
        try:
            for preset in DIFFICULTIES:
                row(preset, "HTTP", quantiles(time_http_ai(server.url, preset, args.positions)))
            for name, samples in time_http_round_trip(server.url, 4 * args.positions).items():
                row(name, "HTTP" if name != "game_play" else "Python", quantiles(samples))
        finally:
            server.close()


if __name__ == "__main__":
    main()
