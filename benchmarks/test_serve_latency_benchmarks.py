"""The AI's reply time as ``sequence-game serve`` runs it (pytest-benchmark; not in the default test
run): the server started with the command a user types, in its own process, with its default
``ai_pause`` (the least time an AI move takes, so people can follow the play; docs/web.md) and with
``--limit ai_pause=0`` (the documented setting for bots and measurements).

    python -m pytest benchmarks/test_serve_latency_benchmarks.py --benchmark-only -q -s
    python benchmarks/test_serve_latency_benchmarks.py [--moves 40]       # a table for docs/measurements.md

A table of one human seat and one AI seat (``easy``, ``medium``); the human seat plays greedy moves
from its own view. Two clients of the same table: the browser's way, the table's websocket, timed
from sending the ``move`` frame to the ``state`` frame with the AI's move; and a bot's way, the
standard-library client, from ``POST /api/tables/{id}/moves`` to the long-poll
(``GET /api/tables/{id}?after_version=N``) answering with the AI's move. Median and p90 of each.
The ``easy`` and ``medium`` AIs run in worker processes, which the server starts at its first AI
move: that first reply is timed apart (a row of its own), then ten more replies warm the server
up untimed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, Iterator, List, Optional, Sequence

import pytest

pytest.importorskip("sequence_game._core")

from sequence_game.agents import GreedyAgent

PRESETS = ("easy", "medium")
#: (label, extra ``serve`` arguments)
SETTINGS = (("default ai_pause (0.4 s)", ()), ("--limit ai_pause=0", ("--limit", "ai_pause=0")))


class Serve:
    """``sequence-game serve`` in a subprocess on a free loopback port, as a user starts it."""

    def __init__(self, extra: Sequence[str] = ()) -> None:
        from sequence_game.client import Client, ClientError

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self._dir = tempfile.TemporaryDirectory()
        # this one address creates every table of the run
        self.proc = subprocess.Popen([sys.executable, "-m", "sequence_game", "serve", "--no-browser", "--port",
                                      str(port), "--db", os.path.join(self._dir.name, "tables.sqlite3"),
                                      "--limit", "create_burst=200", *extra],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{port}"
        end = time.monotonic() + 60
        while True:
            try:
                Client(self.url, retries=0).presets()
                return
            except ClientError:
                if self.proc.poll() is not None or time.monotonic() > end:
                    self.close()
                    raise RuntimeError("sequence-game serve did not start") from None
                time.sleep(0.1)

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:  # pragma: no cover
            self.proc.kill()
            self.proc.wait()
        self._dir.cleanup()


def _tables(url: str, preset: str, seed: int) -> Iterator[Any]:
    from sequence_game.client import Client

    while True:
        yield Client(url).create_table(players=2, seats=[{"kind": "human"}, {"kind": "ai", "ai": preset}],
                                       seed=seed)
        seed += 1


def time_websocket(url: str, preset: str, moves: int, seed: int = 0) -> List[float]:
    """From sending the human seat's ``move`` frame to the ``state`` frame with the AI's move."""
    from sequence_game.client import TableView
    from websockets.sync.client import connect

    out: List[float] = []
    human = GreedyAgent(seed=seed)
    for created in _tables(url, preset, seed):
        with connect(f"ws://{url.split('://', 1)[1]}/api/tables/{created.table}/ws") as ws:
            ws.send(json.dumps({"type": "hello", "token": created.seats[0].token}))
            sent: Optional[float] = None
            moved_at = -1  # the version of our last move: one move per version
            while len(out) < moves:
                frame = json.loads(ws.recv(timeout=120))
                if frame["type"] == "error":
                    raise RuntimeError(f"the server refused a move: {frame['detail']}")
                if frame["type"] != "state":
                    continue
                view = TableView.from_json(frame["view"])
                if view.over:
                    break
                last = view.last_move
                if sent is not None and last is not None and last["player"] == 1:
                    out.append(time.perf_counter() - sent)
                    sent = None
                if view.legal and view.version != moved_at:  # our turn (again after a dead card's trade)
                    move = str(human.select_move(view.game(seed=view.version)))
                    sent, moved_at = time.perf_counter(), view.version
                    ws.send(json.dumps({"type": "move", "move": move, "version": view.version}))
        if len(out) >= moves:
            return out
    raise AssertionError("unreachable")  # pragma: no cover


def time_bot(url: str, preset: str, moves: int, seed: int = 0) -> List[float]:
    """From ``POST .../moves`` (the bot's move) to the long-poll answering with the AI's move."""
    from sequence_game.client import Client

    out: List[float] = []
    human = GreedyAgent(seed=seed)
    for created in _tables(url, preset, seed):
        me = Client(url, token=created.seats[0].token)
        view = me.table(created.table)
        sent: Optional[float] = None
        while not view.over and len(out) < moves:
            if not view.legal:  # the AI's turn
                view = me.wait(created.table, after_version=view.version)
                continue
            last = view.last_move
            if sent is not None and last is not None and last["player"] == 1:
                out.append(time.perf_counter() - sent)
            move = str(human.select_move(view.game(seed=view.version)))  # (again after a dead card's trade)
            sent = time.perf_counter()
            view = me.play(created.table, move, version=view.version)
        if len(out) >= moves:
            return out
    raise AssertionError("unreachable")  # pragma: no cover


def quantiles(samples: List[float]) -> Dict[str, float]:
    """Median and p90 (nearest rank) in milliseconds."""
    s = sorted(samples)
    p90 = s[min(len(s) - 1, int(0.9 * len(s) + 0.5) - 1)]
    return {"median_ms": 1000 * statistics.median(s), "p90_ms": 1000 * p90, "n": len(s)}


@pytest.fixture(scope="module", params=[extra for _, extra in SETTINGS], ids=["default_pause", "no_pause"])
def served(request):
    pytest.importorskip("uvicorn", reason="the [web] extra is not installed")
    pytest.importorskip("websockets")
    server = Serve(request.param)
    time_bot(server.url, "easy", 10)  # the first AI move starts the worker processes: not timed here
    yield server.url
    server.close()


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("how", [time_websocket, time_bot], ids=["websocket", "bot"])
def test_ai_reply_as_serve_runs_it(benchmark, served, preset, how):
    samples = benchmark.pedantic(how, args=(served, preset, 8), rounds=1, iterations=1)
    benchmark.extra_info.update(quantiles(samples))


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
    parser.add_argument("--moves", type=int, default=40, help="AI replies timed per row")
    args = parser.parse_args(argv)
    print(f"CPU: {_cpu()}, {os.cpu_count()} logical cores; Python {platform.python_version()}; "
          f"load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "")
    print("| server | preset | client | replies | median ms | p90 ms |\n|---|---|---|---|---|---|")
    for label, extra in SETTINGS:
        server = Serve(extra)
        try:
            first = time_bot(server.url, "easy", 1)
            print(f"| {label} | easy | the first reply after the start (the worker processes start) | 1 | "
                  f"{1000 * first[0]:.1f} | - |", flush=True)
            time_bot(server.url, "easy", 10, seed=100)  # warm up, untimed
            for preset in PRESETS:
                for name, how in (("websocket", time_websocket), ("bot (POST + long-poll)", time_bot)):
                    q = quantiles(how(server.url, preset, args.moves))
                    print(f"| {label} | {preset} | {name} | {q['n']} | {q['median_ms']:.1f} | {q['p90_ms']:.1f} |",
                          flush=True)
        finally:
            server.close()


if __name__ == "__main__":
    main()
