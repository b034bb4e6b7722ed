"""Load test of ``sequence-game serve`` (docs/web.md, "Load"): 50 concurrent tables of simulated
clients playing random legal moves over websockets for 60 s against a real server process.

Off by default (it takes a minute and both cores): ``SEQUENCE_WEB_LOAD=1 python -m pytest
tests/test_web_load.py -s``. ``SEQUENCE_WEB_LOAD_TABLES`` / ``_SECONDS`` change the size.

The clients reach the server as through a reverse proxy (``serve --trusted-proxy 127.0.0.1``),
each table's with its own ``X-Forwarded-For`` address, so the per-client limits (docs/security.md)
see 50 clients, not one. ``test_hostile_mix`` runs the same tables while attackers from a few
other addresses flood the server: table creations as fast as they are answered, websockets to
every table up to their caps (half of them never reading), and analyses of the longest budget,
sixteen at a time per seat, and signed-in accounts flooding the people doors (follows, blocks,
profile saves, challenges made and withdrawn, their people list and the leaderboard). In both runs
four accounts also play an arena as long as the run (docs/club.md, "Tournaments"), which must end
with every game scored: they are honest players, so they load the plain run as they load the
hostile one, and the ratio of the two runs' latencies is the attack's alone. The attackers and the
arena's players run in processes of their own: this process's event loop only plays and times the
honest tables (``_lag_probe`` reports how late it woke). The honest moves must keep their latency
and none may be lost.

Every table has two seats; four in five are two simulated humans, one in five a simulated human
against the ``easy`` AI. A simulated human waits a random 0.05-0.25 s "thinking" time on its turn,
then sends a random legal move with the version it saw. The latency of a human move is from
sending it to receiving the state that contains it. A table whose game ends is replaced by a new
one. At the end every stored record must replay (legal moves, the recorded result) to exactly the
final position the clients saw, with exactly the moves they saw acknowledged: nothing lost,
nothing played twice.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
import urllib.request

import pytest
from sequence_game import GameRecord
from sequence_game.web.limits import ServerLimits
from web_support import free_port, start_server

pytestmark = [
    pytest.mark.load,
    pytest.mark.skipif(os.environ.get("SEQUENCE_WEB_LOAD") != "1", reason="load test: set SEQUENCE_WEB_LOAD=1"),
]

TABLES = int(os.environ.get("SEQUENCE_WEB_LOAD_TABLES", "50"))
SECONDS = float(os.environ.get("SEQUENCE_WEB_LOAD_SECONDS", "60"))
THINK = (0.05, 0.25)
AI_SECONDS_MAX = ServerLimits().max_ai_seconds  # the longest analysis a client may ask for
SETTLE = 2.0  # seconds without a message after the deadline: the table is quiet


def _cpu_seconds(pid: int, thread: int = 0) -> float:
    """User + system CPU seconds of a process, or of its thread ``thread`` (Linux /proc; NaN elsewhere)."""
    try:
        with open(f"/proc/{pid}/task/{thread}/stat" if thread else f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def _cpu_wait_seconds(pid: int, thread: int) -> float:
    """Seconds thread ``thread`` of process ``pid`` was ready to run but waited for a CPU (Linux
    schedstat; NaN elsewhere): on a shared machine a late answer is often this wait, not work."""
    try:
        with open(f"/proc/{pid}/task/{thread}/schedstat") as f:
            return int(f.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return float("nan")


class Stats:
    def __init__(self) -> None:
        self.latencies: list = []
        self.when: list = []
        self.errors: list = []
        self.final: dict = {}  # table id -> (version, move count, board, turn, over) of the newest state seen
        self.acked: dict = {}  # (table id, seat) -> the seat's moves as the server acknowledged them, in order
        self.games = 0
        self.humans: dict = {}  # table id -> its human seats


def _address(k: int, group: int = 1) -> str:
    """The client address of simulated client ``k`` (as a trusted proxy reports it)."""
    return f"10.{group}.{k // 250}.{k % 250 + 1}"


async def _post(base: str, body: dict, client: str, path: str = "/api/tables", token: str = "") -> dict:
    def call() -> dict:
        headers = {"Content-Type": "application/json", "X-Forwarded-For": client}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        req = urllib.request.Request(base + path, data=json.dumps(body).encode(), headers=headers)
        with urllib.request.urlopen(req) as r:
            return json.load(r)

    return await asyncio.get_running_loop().run_in_executor(None, call)


async def _seat(ws_url: str, token: str, table: str, stats: Stats, deadline: float, rng: random.Random,
                done: asyncio.Event, client: str) -> None:
    from websockets.asyncio.client import connect

    async with connect(ws_url, max_size=2**22, additional_headers={"X-Forwarded-For": client}) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        sent = None  # (version, time) of our move in flight
        while True:
            # after the deadline nobody sends; read on until the table is quiet (an AI may still answer)
            late = time.monotonic() > deadline
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=SETTLE if late else 10)
            except asyncio.TimeoutError:
                if not late:
                    stats.errors.append(f"{table}: no message for 10 s")
                return
            msg = json.loads(raw)
            if msg["type"] == "error":
                stats.errors.append(f"{table}: {msg['detail']}")
                sent = None
                continue
            if msg["type"] != "state":
                continue
            view = msg["view"]
            seat = view["seat"]
            if view["version"] >= stats.final.get(table, (-1,))[0]:
                stats.final[table] = (view["version"], view["moves"], view["state"]["board"], view["state"]["turn"],
                                      view["over"])
            if sent is not None and view["version"] > sent[0]:
                stats.latencies.append(time.perf_counter() - sent[1])
                stats.when.append(sent[1])
                last = view["last_move"] if view["version"] == sent[0] + 1 else None
                if last is None or last["player"] != seat:
                    stats.errors.append(f"{table}: the state after our move {sent[2]} is not that move: {last}")
                else:
                    stats.acked.setdefault((table, seat), []).append(last["move"])
                sent = None
            if view["over"]:
                done.set()
                return
            if view["legal"] and time.monotonic() < deadline and sent is None:
                await asyncio.sleep(rng.uniform(*THINK))
                move = rng.choice(view["legal"])
                sent = (view["version"], time.perf_counter(), move)
                await ws.send(json.dumps({"type": "move", "move": move, "version": view["version"]}))


async def _table_loop(base: str, k: int, stats: Stats, deadline: float) -> None:
    rng = random.Random(k)
    while time.monotonic() < deadline:
        with_ai = k % 5 == 4
        seats = [{"kind": "human"}, {"kind": "ai", "ai": "easy"} if with_ai else {"kind": "human"}]
        client = _address(k)
        t = await _post(base, {"players": 2, "seats": seats}, client)
        stats.humans[t["table"]] = [0] if with_ai else [0, 1]
        ws_url = base.replace("http", "ws") + f"/api/tables/{t['table']}/ws"
        done = asyncio.Event()
        await asyncio.gather(*(_seat(ws_url, s["token"], t["table"], stats, deadline, rng, done, client)
                               for s in t["seats"]))
        if done.is_set():
            stats.games += 1


class Arena:
    """A running arena of four accounts beside the tables (the hostile mix): what it ended as."""

    def __init__(self) -> None:
        self.final: dict = {}
        self.moves = 0
        self.errors: list = []
        self.cpu = float("nan")  # the arena's process's CPU seconds


async def _arena(base: str, seconds: float, arena: Arena) -> None:
    """Four accounts sign up, announce and join an arena lasting the run, and play every game it
    pairs them in with random legal moves over HTTP until it closes."""
    import httpx

    names = [f"arena{k}" for k in range(4)]
    clients = [httpx.AsyncClient(base_url=base, timeout=60, headers={"Origin": base, "X-Forwarded-For": _address(k, 70)})
               for k in range(4)]
    try:
        for c, name in zip(clients, names):
            r = await c.post("/api/accounts", json={"name": name, "password": "a long password"})
            assert r.status_code == 201, r.text
        r = await clients[0].post("/api/tournaments", json={
            "kind": "arena", "name": "Load arena", "starts": time.time() + 2, "minutes": seconds / 60,
            "clock": {"seconds": 600}, "rated": True})
        assert r.status_code == 201, r.text
        tid = r.json()["tournament"]
        for c in clients:
            assert (await c.post(f"/api/tournaments/{tid}/join", json={})).status_code == 200
        rng = random.Random(70)

        async def play(c) -> None:
            # as the simulated humans: a think time before each move, and between moves a long-poll
            # of the table (it answers at the next change), never a busy loop
            while True:
                seat = (await c.get(f"/api/tournaments/{tid}/seat")).json()["seat"]
                if seat is None:
                    if (await c.get(f"/api/tournaments/{tid}")).json()["status"] == "finished":
                        return
                    await asyncio.sleep(0.5)
                    continue
                table = seat["url"].split("/table/")[1].split("#")[0]
                auth = {"Authorization": f"Bearer {seat['token']}"}
                view = (await c.get(f"/api/tables/{table}", headers=auth)).json()
                while not view["over"]:
                    if view["legal"]:
                        await asyncio.sleep(rng.uniform(*THINK))
                        r = await c.post(f"/api/tables/{table}/moves",
                                         json={"move": rng.choice(view["legal"]), "version": view["version"]},
                                         headers=auth)
                        if r.status_code == 200:
                            arena.moves += 1
                        elif r.status_code not in (409, 429):
                            arena.errors.append(f"arena move: {r.status_code} {r.text[:120]}")
                    view = (await c.get(f"/api/tables/{table}", headers=auth,
                                        params={"after_version": view["version"], "wait": 10})).json()

        await asyncio.wait_for(asyncio.gather(*(play(c) for c in clients)), timeout=seconds + 300)
        arena.final = (await clients[0].get(f"/api/tournaments/{tid}")).json()
    finally:
        for c in clients:
            await c.aclose()


class Attack:
    """What the attackers did and what they were answered (by status)."""

    def __init__(self) -> None:
        self.answers: dict = {}
        self.sockets = 0
        self.refused_sockets = 0
        self.errors: list = []

    def answer(self, what: str, status: int) -> None:
        key = f"{what} {status}"
        self.answers[key] = self.answers.get(key, 0) + 1
        if status >= 500 and status != 503:
            self.errors.append(key)


async def _flood_creations(http, attack: Attack, deadline: float, client: str) -> None:
    import httpx

    while time.monotonic() < deadline:
        try:
            r = await http.post("/api/tables", json={"players": 2}, headers={"X-Forwarded-For": client})
        except httpx.TimeoutException:
            attack.answer("create", 0)  # no answer in 60 s: counted as an error below
            attack.errors.append("create: no answer in 60 s")
            continue
        except httpx.HTTPError as e:  # the attacker's own connection dropped (a keep-alive race): noted, not fatal
            attack.answer(f"create {type(e).__name__}", 0)
            continue
        attack.answer("create", r.status_code)
        if r.status_code == 429:
            await asyncio.sleep(0.01)


async def _flood_sockets(http, base: str, attack: Attack, deadline: float, client: str, read: bool) -> None:
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus, WebSocketException

    async def hold(table: str) -> None:
        url = base.replace("http", "ws") + f"/api/tables/{table}/ws"
        try:
            async with connect(url, max_size=2**22, additional_headers={"X-Forwarded-For": client}) as ws:
                await ws.send(json.dumps({"type": "hello", "token": None}))
                await ws.recv()  # the state
                attack.sockets += 1
                while time.monotonic() < deadline:
                    if read:
                        await asyncio.wait_for(ws.recv(), timeout=max(0.01, deadline - time.monotonic()))
                    else:
                        await asyncio.sleep(0.5)
        except InvalidStatus:  # refused in the handshake: over the caps
            attack.refused_sockets += 1
        except (WebSocketException, OSError, asyncio.TimeoutError):
            return

    held: set = set()
    import httpx

    while time.monotonic() < deadline:
        try:
            r = await http.get("/api/tables?finished=false", headers={"X-Forwarded-For": client})
        except httpx.HTTPError as e:  # the attacker's own connection: noted, not fatal to the attack
            attack.answer(f"lobby {type(e).__name__}", 0)
            await asyncio.sleep(1.0)
            continue
        lobby = r.json() if r.status_code == 200 else []
        attack.answer("lobby", r.status_code)
        for summary in lobby:
            if len(held) < 100:
                task = asyncio.create_task(hold(summary["table"]))
                held.add(task)
                task.add_done_callback(held.discard)
        await asyncio.sleep(1.0)


async def _flood_analyses(http, attack: Attack, deadline: float, client: str) -> None:
    headers = {"X-Forwarded-For": client}
    while time.monotonic() < deadline:
        r = await http.post("/api/tables", json={"players": 2, "hints": True, "seats": [{"kind": "human"}, {"kind": "human"}]},
                            headers=headers)
        if r.status_code == 201:
            break
        attack.answer("create (for analyses)", r.status_code)
        await asyncio.sleep(1)
    else:
        return
    t = r.json()
    view = (await http.get(f"/api/tables/{t['table']}",
                           headers={**headers, "Authorization": f"Bearer {t['seats'][0]['token']}"})).json()
    token = next(s["token"] for s in t["seats"] if s["seat"] == view["state"]["current_player"])

    async def ask() -> None:
        import httpx

        while time.monotonic() < deadline:
            try:
                # the longest analysis the schema allows: a longer one is refused (422) before any work
                r = await http.post(f"/api/tables/{t['table']}/analysis", json={"seconds": AI_SECONDS_MAX},
                                    headers={**headers, "Authorization": f"Bearer {token}"})
            except httpx.HTTPError as e:  # queued behind the other attackers' analyses, or a dropped connection
                attack.answer(f"analysis {type(e).__name__}", 0)
                continue
            attack.answer("analysis", r.status_code)
            if r.status_code == 429:
                await asyncio.sleep(0.05)

    await asyncio.gather(*(ask() for _ in range(16)))


async def _flood_people(base: str, attack: Attack, deadline: float, client: str, k: int) -> None:
    """Two accounts of one address: every people door as fast as it is answered (docs/club.md)."""
    import httpx

    headers = {"X-Forwarded-For": client, "Origin": base}
    async with httpx.AsyncClient(base_url=base, timeout=60, headers=headers) as me, \
            httpx.AsyncClient(base_url=base, timeout=60, headers=headers) as other:
        names = [f"flood{k}a", f"flood{k}b"]
        for http, name in zip((me, other), names):
            r = await http.post("/api/accounts", json={"name": name, "password": "password1"})
            attack.answer("sign-up", r.status_code)
            if r.status_code != 201:
                return
        doors = [("PUT", f"/api/people/follows/{names[1]}", None), ("DELETE", f"/api/people/follows/{names[1]}", None),
                 ("PUT", "/api/profile", {"bio": "x" * 300, "country": "y" * 40}),
                 ("PUT", f"/api/people/blocks/{names[1]}", None), ("DELETE", f"/api/people/blocks/{names[1]}", None),
                 ("POST", "/api/challenges", {"to": names[1], "rated": True}), ("GET", "/api/people", None),
                 ("GET", "/api/leaderboard?limit=100", None), ("GET", f"/api/players/{names[1]}", None)]
        n = 0
        while time.monotonic() < deadline:
            method, path, body = doors[n % len(doors)]
            n += 1
            try:
                r = await me.request(method, path, json=body)
            except httpx.HTTPError as e:
                attack.answer(f"people {type(e).__name__}", 0)
                continue
            attack.answer(f"people {method} {path.split('/')[2]}", r.status_code)
            if method == "POST" and r.status_code == 201:  # declined by the other account: the next one is open again
                await other.post(f"/api/challenges/{r.json()['id']}/decline")
            if r.status_code == 429:
                await asyncio.sleep(0.05)


def _ready() -> None:
    """A helper process, its interpreter started and its modules imported, says so and waits for the
    go (``_start``). Starting a Python process is the test harness's cost, not the server's: on the
    two cores the server shares with it, it would otherwise fall in the honest tables' first seconds."""
    importlib.import_module("httpx")
    print("ready", flush=True)
    sys.stdin.readline()


def _play_arena(base: str, seconds: float) -> None:
    """The arena's players, in a process of their own like the attackers: the honest clients' event
    loop, which times their moves, then does nothing else. Prints what the arena ended as, as JSON."""
    _ready()
    arena = Arena()
    asyncio.run(_arena(base, seconds, arena))
    print(json.dumps([arena.final, arena.moves, arena.errors, time.process_time()]))


#: the kinds of flood ``_attack`` runs (docs/web.md, "Load")
ATTACK_KINDS = ("creations", "sockets", "analyses", "people")


def _attack_kinds() -> list:
    """The floods ``SEQUENCE_WEB_LOAD_ATTACKS`` names (all by default, ``none`` for none); a name
    that is not a kind is refused, so a typo cannot quietly drop a flood from the hostile run."""
    text = os.environ.get("SEQUENCE_WEB_LOAD_ATTACKS", ",".join(ATTACK_KINDS)).strip()
    kinds = [] if text == "none" else [k.strip() for k in text.split(",")]
    unknown = [k for k in kinds if k not in ATTACK_KINDS]
    if unknown:
        raise ValueError(f"SEQUENCE_WEB_LOAD_ATTACKS={text!r}: {', '.join(map(repr, unknown))} "
                         f"is not a kind of flood; expected a comma-separated list of {', '.join(ATTACK_KINDS)}, or none")
    return kinds


def _attack(base: str, seconds: float) -> None:
    """The attackers (run in their own process: their CPU is not the honest clients'); prints what
    they were answered as JSON."""
    import httpx

    os.nice(int(os.environ.get("SEQUENCE_WEB_LOAD_ATTACKER_NICE", "0")))

    attack = Attack()
    _ready()
    deadline = time.monotonic() + seconds

    async def run() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=60,
                                     limits=httpx.Limits(max_connections=300, max_keepalive_connections=300)) as http:
            kinds = _attack_kinds()
            await asyncio.gather(
                *(_flood_creations(http, attack, deadline, _address(a, 66)) for a in range(4) if "creations" in kinds),
                *(_flood_sockets(http, base, attack, deadline, _address(a, 67), read=a % 2 == 0)
                  for a in range(2) if "sockets" in kinds),
                *(_flood_analyses(http, attack, deadline, _address(a, 68)) for a in range(8) if "analyses" in kinds),
                *(_flood_people(base, attack, deadline, _address(a, 69), a) for a in range(2) if "people" in kinds))

    asyncio.run(run())
    print(json.dumps([attack.answers, attack.sockets, attack.refused_sockets, attack.errors, time.process_time()]))


#: how often the clients' event loop is probed for lag (_lag_probe)
PROBE = 0.005


async def _lag_probe(deadline: float, lags: list) -> None:
    """How late the measuring event loop wakes a PROBE-second sleep, until the deadline: a state
    frame that arrived while the loop was busy is timed late by as much."""
    while time.monotonic() < deadline:
        t = time.perf_counter()
        await asyncio.sleep(PROBE)
        lags.append(time.perf_counter() - t - PROBE)


def _spawn(function: str, base: str) -> subprocess.Popen:
    """``function(base, SECONDS)`` of this module in a fresh interpreter (a fork of this threaded one
    could inherit a held lock), its standard input and output piped."""
    code = (f"import sys; sys.path.insert(0, {os.path.dirname(__file__)!r}); import test_web_load; "
            f"test_web_load.{function}({base!r}, {SECONDS!r})")
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def _start(helpers: dict) -> None:
    """Wait until every helper process is ready (``_ready``), then start them all."""
    for helper in helpers.values():
        line = helper.stdout.readline()
        assert line.strip() == "ready", f"a helper process ({helper.args[-1][-60:]}) did not start: {line!r}"
    for helper in helpers.values():
        helper.stdin.write("go\n")
        helper.stdin.flush()


def _answer(helper: subprocess.Popen, timeout: float) -> list:
    """The JSON a helper process printed last, once it ended well."""
    out = helper.communicate(timeout=timeout)[0]
    assert helper.returncode == 0 and out.strip(), \
        f"a helper process ({helper.args[-1][-60:]}) failed (status {helper.returncode}); see its traceback above"
    return json.loads(out.splitlines()[-1])


def _run(tmp_path, hostile: bool) -> float:
    db = tmp_path / "load.sqlite3"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    if hostile:
        _attack_kinds()  # a misspelt kind fails here, before the run
    # both runs play an arena beside the tables, as long as the run
    server = start_server(db, port, "--trusted-proxy", "127.0.0.1", "--limit", f"min_arena_minutes={SECONDS / 60}")
    arena = Arena()
    attack = Attack()
    helpers: dict = {}  # the arena's process, and in the hostile mix the attackers'
    attacker_cpu = float("nan")
    try:
        stats = Stats()
        lags: list = []
        helpers = {name: _spawn(name, base) for name in ("_play_arena", "_attack") if hostile or name != "_attack"}
        _start(helpers)
        deadline = time.monotonic() + SECONDS

        async def run() -> None:
            await asyncio.gather(*(_table_loop(base, k, stats, deadline) for k in range(TABLES)),
                                 _lag_probe(deadline, lags))

        started = time.monotonic()
        client_cpu = time.process_time()
        asyncio.run(run())
        client_cpu = time.process_time() - client_cpu
        elapsed = time.monotonic() - started
        server_cpu = _cpu_seconds(server.pid)
        loop_cpu = _cpu_seconds(server.pid, server.pid)  # the main thread runs the event loop
        loop_wait = _cpu_wait_seconds(server.pid, server.pid)
        if hostile:
            (attack.answers, attack.sockets, attack.refused_sockets, attack.errors,
             attacker_cpu) = _answer(helpers["_attack"], 120)
        arena.final, arena.moves, arena.errors, arena.cpu = _answer(helpers["_play_arena"], SECONDS + 300)
    finally:
        for helper in helpers.values():
            if helper.poll() is None:
                helper.kill()
        stopping = time.monotonic()
        server.terminate()
        server.wait(60)
        print(f"\nthe server stopped {time.monotonic() - stopping:.1f} s after SIGTERM")

    lat = sorted(stats.latencies)
    assert lat, "no move was played"

    def pct(q: float) -> float:
        return 1000 * lat[min(len(lat) - 1, int(q * len(lat)))]

    moves = 0
    with sqlite3.connect(db) as con:
        rows = [r for r in con.execute("SELECT id, record FROM tables").fetchall() if r[0] in stats.humans]
    assert {r[0] for r in rows} == set(stats.final), "every table the clients played is stored"
    for table_id, text in rows:
        record = GameRecord.from_json(text)
        game = record.replay()  # every move legal, the result as recorded
        _, count, board, turn, over = stats.final[table_id]
        assert len(record.moves) == count, f"{table_id}: {len(record.moves)} moves stored, the clients saw {count}"
        assert game.to_dict()["board"] == board and game.turn == turn and game.is_over == over
        by_seat: dict = {}
        before = None
        for step in record.positions():  # who played each stored move
            if before is not None:
                by_seat.setdefault(before.current_player, []).append(str(step.move))
            before = step.game
        for seat in stats.humans[table_id]:
            got, acked = by_seat.get(seat, []), stats.acked.get((table_id, seat), [])
            assert got == acked, f"{table_id} seat {seat}: stored moves differ from the acknowledged ones"
        moves += len(record.moves)
    with open("/proc/cpuinfo") as f:
        cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    print(f"\nload{' (hostile mix)' if hostile else ''}: {TABLES} tables, {elapsed:.0f} s, {stats.games} games "
          f"finished, {len(rows)} tables, {moves} moves stored, {len(lat)} human moves timed "
          f"({len(lat) / elapsed:.0f}/s); latency p50 {pct(0.5):.1f} ms, p90 {pct(0.9):.1f} ms, p99 {pct(0.99):.1f} ms, "
          f"max {1000 * lat[-1]:.1f} ms; errors {len(stats.errors)}; CPU time: server {server_cpu:.1f} s (its event loop's thread {loop_cpu:.1f} s, "
          f"and {loop_wait:.1f} s more ready but waiting for a CPU), clients "
          f"{client_cpu:.1f} s; CPU {cpu}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    # when the slow moves came: in the run's first seconds (the tables' and the floods' onset) or later
    t0 = min(stats.when)
    spans = []
    for first, last, label in ((0, 3, "0-3 s"), (3, 10, "3-10 s"), (10, float("inf"), "after 10 s")):
        span = sorted(x for x, t in zip(stats.latencies, stats.when) if first <= t - t0 < last)
        if span:
            spans.append(f"{label}: {len(span)} moves, p99 {1000 * span[int(0.99 * len(span))]:.1f} ms")
    print("the moves sent " + "; ".join(spans))
    lags.sort()
    print(f"the clients' event loop woke late by p50 {1000 * lags[len(lags) // 2]:.2f} ms, p99 "
          f"{1000 * lags[int(0.99 * len(lags))]:.2f} ms, max {1000 * lags[-1]:.1f} ms "
          f"({len(lags)} sleeps of {1000 * PROBE:g} ms)")
    if hostile:
        print(f"attack: {dict(sorted(attack.answers.items()))}; sockets held {attack.sockets}, "
              f"refused {attack.refused_sockets}; the attackers' own CPU time {attacker_cpu:.1f} s")
    assert not stats.errors, stats.errors[:5]
    assert not attack.errors, attack.errors[:5]
    # the arena ran to its end (under attack in the hostile mix): every game scored, the standings add up
    t = arena.final
    print(f"arena: {len(t['games'])} games, {arena.moves} moves, points "
          f"{sorted(r['points'] for r in t['standings'])}; its players' own CPU time {arena.cpu:.1f} s")
    assert not arena.errors, arena.errors[:5]
    assert t["status"] == "finished" and t["games"] and all(g["result"] is not None for g in t["games"])
    assert sum(r["games"] for r in t["standings"]) == 2 * len(t["games"])
    assert sum(r["wins"] for r in t["standings"]) + sum(r["draws"] for r in t["standings"]) / 2 == len(t["games"])
    return pct(0.99)


def test_fifty_tables_for_sixty_seconds(tmp_path):
    assert _run(tmp_path, hostile=False) < 50, "p99 human-move latency must stay under 50 ms"


def test_hostile_mix(tmp_path):
    assert _run(tmp_path, hostile=True) < 100, "p99 human-move latency under attack must stay under 100 ms"
