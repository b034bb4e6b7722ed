"""What a refused request costs the server (pytest-benchmark; not in the default test run): the
CPU time of the server's event-loop thread per refusal, for the requests a flood is made of
(docs/security.md, "Floods"), against ``sequence-game serve`` in its own process.

    python -m pytest benchmarks/test_refusal_benchmarks.py --benchmark-only -q -s
    python benchmarks/test_refusal_benchmarks.py [--requests 2000]    # the table in docs/security.md

- a table creation past the address's quota (429);
- an analysis while the same seat's analysis runs (429; the running one is a 5 s search in the
  idle scheduling class, whose thread is not counted);
- a table websocket past the address's cap of connections, refused in its handshake (429), by
  ``serve``'s HTTP protocol before uvicorn hands it to the websocket library, and for comparison
  the same refused by the app's gate after the hand-over (the app under uvicorn's own protocol);
- a signed-in account's change to its people (a follow) past its ``people_burst`` changes (429),
  and, for comparison, a routed request that is answered: the people list of that account.

The server's thread CPU comes from ``/proc`` (Linux only; the module skips elsewhere), read before
and after ``--requests`` refusals sent one after another from one keep-alive connection.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import time
from typing import Any, AsyncIterator, Dict, List, Tuple

import pytest

pytest.importorskip("sequence_game._core")
pytest.importorskip("httpx")
pytest.importorskip("websockets")
pytest.importorskip("fastapi")
if not os.path.exists("/proc/self/task"):
    pytest.skip("the server's thread CPU is read from /proc (Linux)", allow_module_level=True)

from sequence_game.web.limits import ServerLimits
from test_serve_latency_benchmarks import Serve


def _thread_cpu(pid: int) -> float:
    """User + system CPU seconds of the main thread of process ``pid``."""
    with open(f"/proc/{pid}/task/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve() -> Serve:
    """``sequence-game serve`` behind a trusted proxy (the clients name their own addresses), with
    the default creation quota (the benchmark of the AI's reply time raises it)."""
    return Serve(("--trusted-proxy", "127.0.0.1", "--limit", f"create_burst={ServerLimits().create_burst}"))


async def _costs(url: str, pid: int, requests: int) -> Dict[str, float]:
    """Milliseconds of the server thread's CPU per refusal, by kind."""
    import httpx

    out: Dict[str, float] = {}
    async with httpx.AsyncClient(base_url=url, timeout=60) as http:
        creator = {"X-Forwarded-For": "10.0.0.1"}
        while (await http.post("/api/tables", json={"players": 2}, headers=creator)).status_code != 429:
            pass
        before = _thread_cpu(pid)
        for _ in range(requests):
            assert (await http.post("/api/tables", json={"players": 2}, headers=creator)).status_code == 429
        out["table creation past the quota"] = 1000 * (_thread_cpu(pid) - before) / requests

        asker = {"X-Forwarded-For": "10.0.0.2"}
        t = (await http.post("/api/tables", json={"players": 2, "hints": True,
                                                  "seats": [{"kind": "human"}, {"kind": "human"}]},
                             headers=asker)).json()
        view = (await http.get(f"/api/tables/{t['table']}",
                               headers={**asker, "Authorization": f"Bearer {t['seats'][0]['token']}"})).json()
        token = next(s["token"] for s in t["seats"] if s["seat"] == view["state"]["current_player"])
        ask = {**asker, "Authorization": f"Bearer {token}"}
        path = f"/api/tables/{t['table']}/analysis"
        running = asyncio.ensure_future(http.post(path, json={"seconds": 5}, headers=ask))
        await asyncio.sleep(0.5)  # the running analysis is admitted: every request below is refused
        before, started = _thread_cpu(pid), time.monotonic()
        refused = 0
        while refused < requests and time.monotonic() - started < 4:  # within the running analysis
            assert (await http.post(path, json={"seconds": 5}, headers=ask)).status_code == 429
            refused += 1
        out["analysis while the seat's runs"] = 1000 * (_thread_cpu(pid) - before) / refused
        await running

        out.update(await _socket_costs(url, pid, requests, t["table"]))

    base = {"X-Forwarded-For": "10.0.0.4", "Origin": url}  # the cookie's writes carry this server's Origin
    async with httpx.AsyncClient(base_url=url, timeout=60, headers=base) as me:
        for name in ("bench-b", "bench-a"):  # the last one signed up is signed in
            assert (await me.post("/api/accounts", json={"name": name, "password": "a long password"})).status_code == 201
        while (await me.put("/api/people/follows/bench-b")).status_code != 429:
            pass
        before = _thread_cpu(pid)
        for _ in range(requests):
            assert (await me.put("/api/people/follows/bench-b")).status_code == 429
        out["people change past the account's changes"] = 1000 * (_thread_cpu(pid) - before) / requests
        before = _thread_cpu(pid)
        for _ in range(requests):
            assert (await me.get("/api/people")).status_code == 200
        out["(answered: the account's people list)"] = 1000 * (_thread_cpu(pid) - before) / requests
    return out


class _Crowd:
    """Websockets of one address to ``table`` up to its cap, held open; :meth:`cost` sends more."""

    def __init__(self, url: str, pid: int, table: str) -> None:
        self.url, self.pid = url.replace("http", "ws") + f"/api/tables/{table}/ws", pid
        self.held: List[Any] = []

    async def __aenter__(self) -> _Crowd:
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus

        while True:
            try:
                ws = await connect(self.url, additional_headers=_CROWD)
            except InvalidStatus:
                return self
            await ws.send(json.dumps({"type": "hello", "token": None}))
            await ws.recv()
            self.held.append(ws)

    async def __aexit__(self, *exc: Any) -> None:
        for ws in self.held:
            await ws.close()

    async def cost(self, requests: int) -> float:
        """Milliseconds of the server thread's CPU per websocket refused in its handshake, its
        address past its cap."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus

        before = _thread_cpu(self.pid)
        for _ in range(requests):
            try:
                await (await connect(self.url, additional_headers=_CROWD)).close()
                raise AssertionError("a websocket past the cap was accepted")
            except InvalidStatus as e:
                assert e.response.status_code == 429
        return 1000 * (_thread_cpu(self.pid) - before) / requests


_CROWD = {"X-Forwarded-For": "10.0.0.3"}

#: the app under serve's uvicorn configuration but uvicorn's own HTTP protocol: a websocket past its
#: cap is refused by the app's gate, after uvicorn hands the connection to its websocket library
_AFTER_HAND_OVER = """
import logging, sys, uvicorn
from sequence_game.web import create_app
from sequence_game.web.serve import _build_routes, server_config
app = create_app(sys.argv[1])
config = server_config(app, "127.0.0.1", int(sys.argv[2]), logging.WARNING, ["127.0.0.1"])
config.http = "httptools"
config.load()
_build_routes(app)
uvicorn.Server(config).run()
"""


@contextlib.asynccontextmanager
async def _after_hand_over() -> AsyncIterator[Tuple[str, int, str]]:
    """The app of ``_AFTER_HAND_OVER`` in its own process: its URL, its pid and a table."""
    import socket
    import subprocess
    import sys
    import tempfile

    import httpx

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen([sys.executable, "-c", _AFTER_HAND_OVER, os.path.join(tmp, "t.sqlite3"), str(port)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}"
            async with httpx.AsyncClient(base_url=url, timeout=60) as http:
                for _ in range(600):
                    try:
                        r = await http.post("/api/tables", json={"players": 2}, headers={"X-Forwarded-For": "10.0.0.2"})
                        break
                    except httpx.TransportError:
                        await asyncio.sleep(0.1)
                else:
                    raise RuntimeError("the server did not start")
            yield url, proc.pid, r.json()["table"]
        finally:
            proc.terminate()
            proc.wait(timeout=20)


async def _socket_costs(url: str, pid: int, requests: int, table: str) -> Dict[str, float]:
    """A websocket past its address's cap, refused by ``serve`` (before the hand-over) and by the
    app after it, in three rounds taken in turns (a busy machine's drift falls on both)."""
    rounds: Dict[str, List[float]] = {_EARLY: [], _HANDED_OVER: []}
    async with _after_hand_over() as (other_url, other_pid, other_table), \
            _Crowd(url, pid, table) as early, _Crowd(other_url, other_pid, other_table) as late:
        for _ in range(3):
            rounds[_EARLY].append(await early.cost(max(1, requests // 3)))
            rounds[_HANDED_OVER].append(await late.cost(max(1, requests // 3)))
    return {kind: sum(costs) / len(costs) for kind, costs in rounds.items()}


_EARLY = "websocket past the address's cap"
_HANDED_OVER = "(the same websocket refused by the app, after uvicorn's hand-over)"


@pytest.fixture(scope="module")
def served():
    s = serve()
    yield s
    s.close()


def test_refusals_are_cheap(benchmark, served):
    costs = benchmark.pedantic(lambda: asyncio.run(_costs(served.url, served.proc.pid, 500)), rounds=1, iterations=1)
    benchmark.extra_info.update(costs)
    # a refusal costs the event loop well under a millisecond (a routed one cost 0.3-0.6 ms before
    # the early refusals): the flood's requests cannot take the loop from the moves of the others
    refusals = {what: ms for what, ms in costs.items() if not what.startswith("(")}
    assert refusals and all(ms < 1.0 for ms in refusals.values()), costs


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def main(argv: Any = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=2000, help="refusals of each kind (default 2000)")
    args = parser.parse_args(argv)
    served = serve()
    try:
        costs = asyncio.run(_costs(served.url, served.proc.pid, args.requests))
    finally:
        served.close()

    print(f"server CPU per refusal ({args.requests} of each; {_cpu()}, {os.cpu_count()} cores)")
    print("| request refused | server CPU |\n|---|---|")
    for kind, ms in costs.items():
        print(f"| {kind} | {ms:.2f} ms |")


if __name__ == "__main__":
    main()
