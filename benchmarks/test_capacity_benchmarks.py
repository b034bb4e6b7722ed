"""How many active tables one ``sequence-game serve`` process holds with an honest p99 move latency
under 100 ms (docs/measurements.md, "Capacity of one server process").

An active table: two humans, each moving every 10 s (a turn takes about 5 s), two spectators (table
websockets in the chat, reading every frame) and a chat message a minute. The server runs as a user
starts it (its own process, a database file), the clients in this process; each table's four
websockets come from an address of their own through ``--trusted-proxy`` (as the load test's,
tests/test_web_load.py, whose client helpers this reuses), so the per-client limits see one client
per table. The table count rises in steps; at each step, after a warm-up, every human move of a
window is timed from sending it to receiving the state that holds it, and the step's p99 is read.
The capacity is the largest step up to which every step's p99 is under 100 ms with no error. A game that ends is
replaced by a new table, so the count holds.

    SEQUENCE_CAPACITY=1 python -m pytest benchmarks/test_capacity_benchmarks.py -s -p no:cacheprovider
    python benchmarks/test_capacity_benchmarks.py [--steps 50,100,200] [--warmup 30] [--seconds 60]
    python -m pytest benchmarks --benchmark-disable -q    # CI: three tables for a few seconds

Without ``SEQUENCE_CAPACITY=1`` the pytest run is tiny (three tables, short thinking): it checks
the machinery, not the machine. Honest: the clients share the machine (their CPU time is printed
beside the server's), and a step is timed only after its tables are all playing.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))  # the load test's client helpers

MOVE_SECONDS = 10.0  #: each human moves this often (two humans: a turn every MOVE_SECONDS / 2)
CHAT_SECONDS = 60.0  #: a chat message per table this often
TARGET_MS = 100.0
STOP_MS = 10 * TARGET_MS  #: the ramp stops at a step this slow (or with an error)
FULL = os.environ.get("SEQUENCE_CAPACITY") == "1"


class Step:
    """What one window of a step measured."""

    def __init__(self) -> None:
        self.latencies: List[float] = []
        self.errors: List[str] = []
        self.chats = 0
        self.frames = 0  # frames the spectators read


class Clients:
    """The simulated tables: ``tables(n)`` keeps ``n`` playing; ``step`` collects the window."""

    def __init__(self, base: str, turn: float) -> None:
        self.base, self.turn = base, turn
        self.step = Step()
        self.tasks: List[asyncio.Task[None]] = []
        self.playing = 0  # tables whose four websockets said hello

    async def tables(self, n: int) -> None:
        while len(self.tasks) < n:
            k = len(self.tasks)
            self.tasks.append(asyncio.create_task(self._table(k)))
            await asyncio.sleep(0.02)  # a ramp, not a burst of creations

    async def _table(self, k: int) -> None:
        """Table ``k``'s people: two players and two spectators, then the next table once it ends."""
        from test_web_load import _address, _post

        rng = random.Random(k)
        client = _address(k, 3)
        counted = False
        while True:
            try:
                created = await _post(self.base, {"players": 2, "seats": [{"kind": "human"}] * 2}, client)
            except OSError as e:
                self.step.errors.append(f"create: {e}")
                await asyncio.sleep(1)
                continue
            ws = self.base.replace("http", "ws") + f"/api/tables/{created['table']}/ws"
            watchers = [asyncio.create_task(self._spectator(ws, client)) for _ in range(2)]
            players = [asyncio.create_task(self._player(ws, s["token"], client, rng, rng.uniform(0, CHAT_SECONDS)))
                       for s in created["seats"]]
            if not counted:
                counted = True
                self.playing += 1
            try:
                done, _ = await asyncio.wait(players + watchers, return_when=asyncio.FIRST_COMPLETED)  # game over
                for task in done:
                    if task.exception() is not None:  # a socket closed or silent for a minute
                        self.step.errors.append(f"{created['table']}: {task.exception()!r}")
            finally:  # the game is over, or the run: this table's people go
                for task in players + watchers:
                    task.cancel()
                await asyncio.gather(*players, *watchers, return_exceptions=True)

    async def _player(self, url: str, token: str, client: str, rng: random.Random, chat_first: float) -> None:
        from websockets.asyncio.client import connect

        next_chat = time.monotonic() + chat_first
        async with connect(url, max_size=2**22, additional_headers={"X-Forwarded-For": client}) as ws:
            await ws.send(json.dumps({"type": "hello", "token": token, "chat": True}))
            sent: Optional[tuple] = None
            moved_at = -1
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), timeout=60))
                if msg["type"] == "error":
                    self.step.errors.append(msg["detail"])
                    sent = None
                    continue
                if msg["type"] != "state":
                    continue
                view = msg["view"]
                if sent is not None and view["version"] > sent[0]:
                    if sent[2] is self.step:  # moves sent in an earlier window are not this one's
                        self.step.latencies.append(time.perf_counter() - sent[1])
                    sent = None
                if view["over"]:
                    return
                if view["legal"] and sent is None and view["version"] != moved_at:
                    await asyncio.sleep(rng.uniform(0.9, 1.1) * self.turn)  # thinking
                    if time.monotonic() >= next_chat and view["seat"] == 0:
                        await ws.send(json.dumps({"type": "chat", "text": "nice one"}))
                        next_chat += CHAT_SECONDS
                        self.step.chats += 1
                    move = rng.choice(view["legal"])
                    sent, moved_at = (view["version"], time.perf_counter(), self.step), view["version"]
                    await ws.send(json.dumps({"type": "move", "move": move, "version": view["version"]}))

    async def _spectator(self, url: str, client: str) -> None:
        from websockets.asyncio.client import connect

        async with connect(url, max_size=2**22, additional_headers={"X-Forwarded-For": client}) as ws:
            await ws.send(json.dumps({"type": "hello", "token": None, "chat": True}))
            while True:
                await ws.recv()  # read, as a page does, and drop
                self.step.frames += 1


def quantile(samples: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` quantile of ``samples``, in milliseconds."""
    s = sorted(samples)
    return 1000 * s[min(len(s) - 1, max(0, int(q * len(s) + 0.5) - 1))]


async def ramp(steps: Sequence[int], warmup: float, seconds: float, turn: float,
               out=print) -> List[Dict[str, Any]]:  # type: ignore[no-untyped-def]
    """Run ``serve`` and raise the table count through ``steps``; one row per step measured, until
    a step's p99 reaches :data:`STOP_MS` or it has errors."""
    from test_web_load import _cpu_seconds
    from web_support import free_port, start_server

    most = max(steps)
    rows: List[Dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as d:
        port = free_port()
        server = start_server(Path(d) / "capacity.sqlite3", port, "--trusted-proxy", "127.0.0.1",
                              "--limit", f"max_tables={most + 100}", "--limit", f"max_sockets={4 * most + 100}")
        clients = Clients(f"http://127.0.0.1:{port}", turn)
        try:
            for n in steps:
                await clients.tables(n)
                end = time.monotonic() + 120
                while clients.playing < n and time.monotonic() < end:
                    await asyncio.sleep(0.2)
                await asyncio.sleep(warmup)
                # the clients stand for browsers on other machines: a full collection of their own
                # (hundreds of ms with thousands of sockets) must not be timed as the server's latency
                gc.collect()
                gc.freeze()
                clients.step = Step()
                cpu0, mine0, t0 = _cpu_seconds(server.pid), time.process_time(), time.monotonic()
                await asyncio.sleep(seconds)
                step, elapsed = clients.step, time.monotonic() - t0
                clients.step = Step()
                lat = step.latencies
                row = {"tables": n, "moves": len(lat), "errors": len(step.errors), "chats": step.chats,
                       "p50_ms": quantile(lat, 0.5) if lat else float("nan"),
                       "p99_ms": quantile(lat, 0.99) if lat else float("nan"),
                       "max_ms": 1000 * max(lat) if lat else float("nan"),
                       "server_cpu": (_cpu_seconds(server.pid) - cpu0) / elapsed,
                       "client_cpu": (time.process_time() - mine0) / elapsed,
                       "load": os.getloadavg()[0], "first_error": step.errors[0] if step.errors else ""}
                rows.append(row)
                out(f"| {n} | {row['moves']} | {row['p50_ms']:.1f} | {row['p99_ms']:.1f} | {row['max_ms']:.1f} | "
                    f"{row['errors']} | {row['server_cpu']:.2f} | {row['client_cpu']:.2f} | {row['load']:.1f} |")
                if not lat or row["p99_ms"] >= STOP_MS or step.errors:
                    break  # past saturation (a shared machine's noise alone may put one step over the target)
        finally:
            for task in clients.tasks:
                task.cancel()
            await asyncio.gather(*clients.tasks, return_exceptions=True)
            server.terminate()
            server.wait(60)
            gc.unfreeze()
    return rows


def capacity(rows: Sequence[Dict[str, Any]]) -> int:
    """The largest table count up to which every step's p99 was under the target with no error (0:
    not even the first step's)."""
    held = 0
    for r in rows:
        if not r["moves"] or r["p99_ms"] >= TARGET_MS or r["errors"]:
            break
        held = r["tables"]
    return held


HEADER = ("| tables | moves timed | p50 ms | p99 ms | max ms | errors | server CPU (cores) | clients CPU (cores) "
          "| load average |\n|---|---|---|---|---|---|---|---|---|")


def test_capacity_of_one_server_process(benchmark):
    pytest.importorskip("uvicorn", reason="the [web] extra is not installed")
    pytest.importorskip("websockets")
    if FULL:
        steps, warmup, seconds, turn = (10, 25, 50, 100, 200, 400, 800), 30.0, 60.0, MOVE_SECONDS / 2
    else:  # the machinery, quickly: three tables moving fast
        steps, warmup, seconds, turn = (3,), 1.0, 4.0, 0.2
    print("\n" + HEADER)
    rows = benchmark.pedantic(lambda: asyncio.run(ramp(steps, warmup, seconds, turn)), rounds=1, iterations=1)
    benchmark.extra_info.update({"capacity": capacity(rows), "steps": rows})
    print(f"capacity: {capacity(rows)} active tables with p99 under {TARGET_MS:g} ms")
    assert rows and rows[0]["moves"] > 0 and rows[0]["errors"] == 0, rows


def main(argv: Any = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="10,25,50,100,200,400,800", help="table counts, rising")
    parser.add_argument("--warmup", type=float, default=30.0, help="seconds at each step before timing")
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds timed at each step")
    args = parser.parse_args(argv)
    from test_serve_latency_benchmarks import _cpu

    print(f"CPU: {_cpu()}, {os.cpu_count()} logical cores; an active table: two humans moving every "
          f"{MOVE_SECONDS:g} s each, two spectators, a chat message every {CHAT_SECONDS:g} s", flush=True)
    print(HEADER, flush=True)
    rows = asyncio.run(ramp([int(x) for x in args.steps.split(",")], args.warmup, args.seconds, MOVE_SECONDS / 2,
                            out=lambda line: print(line, flush=True)))
    print(f"capacity: {capacity(rows)} active tables with p99 under {TARGET_MS:g} ms "
          f"(median p50 over the steps {statistics.median(r['p50_ms'] for r in rows):.1f} ms)")


if __name__ == "__main__":
    main()
