"""The web server against a hostile client (docs/security.md): every request field bounded before
any work, per-client limits on tables and sockets, one hint or analysis per seat, AI moves never
behind analyses, websocket fan-out that does not grow with the audience, Host and Origin checks, and
no process outliving the server."""

from __future__ import annotations

import asyncio
import json
import os
import py_compile
import signal
import subprocess
import sys
import textwrap
import threading
import time
import urllib.request

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from sequence_game.web import create_app
from sequence_game.web import tables as web_tables
from sequence_game.web.limits import ServerLimits
from sequence_game.web.tables import Connection
from starlette.testclient import WebSocketDenialResponse
from starlette.websockets import WebSocketDisconnect
from web_support import BASE, auth, free_port, new_table, serving, wait_for

WS = "ws://127.0.0.1"


def make_client(limits=None, address="10.0.0.1", **kwargs):
    return TestClient(create_app(ai_pause=0, limits=limits, **kwargs), base_url=BASE, client=(address, 5000))


@pytest.fixture
def client():
    with make_client() as c:
        yield c


HUMANS = [{"kind": "human"}, {"kind": "human"}]


# --------------------------------------------------------------------------- every field bounded


def _request_schemas(schema):
    """The schemas of every request body and parameter of the OpenAPI document, resolved."""
    components = schema["components"]["schemas"]

    def resolve(s):
        return components[s["$ref"].rsplit("/", 1)[1]] if "$ref" in s else s

    out = []
    seen = set()

    def walk(name, s):
        s = resolve(s)
        for key in ("anyOf", "oneOf", "allOf"):
            for sub in s.get(key, []):
                walk(name, sub)
        if s.get("type") == "object":
            if id(s) in seen:
                return
            seen.add(id(s))
            for field, sub in s.get("properties", {}).items():
                walk(f"{name}.{field}", sub)
        elif s.get("type") == "array":
            out.append((name, s))
            walk(f"{name}[]", s["items"])
        elif "type" in s or "enum" in s or "const" in s:
            out.append((name, s))

    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            for p in op.get("parameters", []):
                if p["in"] != "header":
                    walk(f"{method} {path} {p['name']}", p["schema"])
            body = op.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                walk(f"{method} {path}", body["schema"])
    return out


def test_every_request_field_has_bounds_in_the_schema(client):
    """A number has a minimum and a maximum, a text a maximum length, a list a maximum size: the
    request is refused before any work proportional to what it sends."""
    fields = _request_schemas(client.get("/openapi.json").json())
    assert len(fields) > 10
    unbounded = []
    for name, s in fields:
        kind = s.get("type")
        if "enum" in s or "const" in s or kind in ("boolean", "null"):
            continue
        if kind in ("integer", "number") and not (
                ("minimum" in s or "exclusiveMinimum" in s) and ("maximum" in s or "exclusiveMaximum" in s)):
            unbounded.append(name)
        if kind == "string" and "maxLength" not in s:
            unbounded.append(name)
        if kind == "array" and "maxItems" not in s:
            unbounded.append(name)
    assert not unbounded, unbounded


@pytest.mark.parametrize("body, fragment", [
    ({"players": 10**7}, "players: Input should be less than or equal to 12"),
    ({"players": -(10**7)}, "players: Input should be greater than or equal to 2"),
    ({"players": 6, "teams": 10**9}, "teams: Input should be less than or equal to 3"),
    ({"players": 2, "moves": ["7H@a1" * 1000]}, "moves.0: String should have at most 64 characters"),
    ({"players": 2, "seats": [{"kind": "human"}] * 13}, "seats: List should have at most 12 items"),
    ({"players": 2, "seed": False}, "seed"),  # no coercion: false is not the seed 0 (found by schemathesis)
    ({"players": "2"}, "players: Input should be a valid integer"),
    ({"players": 2, "hot_seat": 1}, "hot_seat: Input should be a valid boolean"),
])
def test_fields_out_of_their_bounds_are_refused_by_the_schema(client, body, fragment):
    r = client.post("/api/tables", json=body)
    assert r.status_code == 422 and fragment in r.json()["detail"], r.text
    assert client.app.state.service.tables == {}


def test_numbers_out_of_range_in_moves_and_analysis(client):
    tid, tokens = new_table(client, players=2, seed=1, seats=HUMANS)
    p = client.app.state.service.tables[tid].game.current_player
    r = client.post(f"/api/tables/{tid}/moves", json={"move": "pass", "version": 2**80}, headers=auth(tokens[p]))
    assert r.status_code == 422 and "version" in r.json()["detail"]
    for raw in (b'{"seconds": NaN}', b'{"seconds": Infinity}', b'{"seconds": 1e400}'):
        r = client.post(f"/api/tables/{tid}/analysis", content=raw,
                        headers={**auth(tokens[p]), "Content-Type": "application/json"})
        assert r.status_code == 422, (raw, r.text)
    r = client.get("/api/tables/" + "x" * 100)
    assert r.status_code == 422 and "table_id" in r.json()["detail"]


# --------------------------------------------------------------------------- table creation per client


def test_table_creation_is_rate_limited_per_client():
    limits = ServerLimits(create_burst=3, create_per_minute=1)
    app = create_app(ai_pause=0, limits=limits)
    with TestClient(app, base_url=BASE, client=("10.0.0.1", 1)) as a, \
            TestClient(app, base_url=BASE, client=("10.0.0.2", 1)) as b:
        for _ in range(3):
            new_table(a, players=2, seats=HUMANS)
        r = a.post("/api/tables", json={"players": 2, "seats": HUMANS})
        assert r.status_code == 429 and "try again in" in r.json()["detail"], r.text
        assert r.json()["error"] == "BusyError"
        new_table(b, players=2, seats=HUMANS)  # another address is not affected


def test_no_single_client_can_hold_the_table_cap():
    limits = ServerLimits(max_tables=3, max_tables_per_client=2)
    app = create_app(ai_pause=0, limits=limits)
    with TestClient(app, base_url=BASE, client=("10.0.0.1", 1)) as a, \
            TestClient(app, base_url=BASE, client=("10.0.0.2", 1)) as b:
        new_table(a, players=2, seats=HUMANS)
        new_table(a, players=2, seats=HUMANS)
        r = a.post("/api/tables", json={"players": 2, "seats": HUMANS})
        assert r.status_code == 429 and "unfinished tables" in r.json()["detail"], r.text
        new_table(b, players=2, seats=HUMANS)  # room is left for everyone else


def test_a_finished_table_frees_its_clients_share():
    limits = ServerLimits(max_tables_per_client=1)
    with make_client(limits) as c:
        tid, _ = new_table(c, players=2, seed=41, seats=[{"kind": "ai", "ai": "random"}] * 2)
        table = c.app.state.service.tables[tid]
        wait_for(lambda: table.game.is_over, timeout=60)
        new_table(c, players=2, seats=HUMANS)
        assert c.post("/api/tables", json={"players": 2, "seats": HUMANS}).status_code == 429


# --------------------------------------------------------------------------- hints and analyses


class _Gate:
    """Makes every analysis (or hint) block until released, counting those that started."""

    def __init__(self, monkeypatch):
        self.release = threading.Event()
        self.started = []
        real = web_tables.ai.agent_from_spec
        gate = self

        def blocking(spec, seed=None):
            agent = real(spec, seed=seed)
            if spec.startswith("mcts:time="):  # a hint or analysis (the AI seats here are 'random')
                inner_analyze, inner_select = agent.analyze, agent.select_move

                def analyze(game):
                    gate.started.append(threading.current_thread().name)
                    gate.release.wait(30)
                    return inner_analyze(game)

                def select_move(game):
                    gate.started.append(threading.current_thread().name)
                    gate.release.wait(30)
                    return inner_select(game)

                agent.analyze, agent.select_move = analyze, select_move
            return agent

        monkeypatch.setattr(web_tables.ai, "agent_from_spec", blocking)


def test_one_hint_or_analysis_at_a_time_per_seat(client, monkeypatch):
    gate = _Gate(monkeypatch)
    tid, tokens = new_table(client, players=2, seed=2, seats=HUMANS, hints=True)
    p = client.app.state.service.tables[tid].game.current_player
    results = []
    first = threading.Thread(target=lambda: results.append(
        client.post(f"/api/tables/{tid}/analysis", json={"seconds": 0.05}, headers=auth(tokens[p]))))
    first.start()
    try:
        wait_for(lambda: gate.started)
        for path, body in (("analysis", {"seconds": 0.05}), ("hint", None)):
            r = client.post(f"/api/tables/{tid}/{path}", json=body, headers=auth(tokens[p]))
            assert r.status_code == 429 and "running already" in r.json()["detail"], r.text
        with client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as ws:  # the same seat over its socket
            ws.send_json({"type": "hello", "token": tokens[p]})
            assert ws.receive_json()["type"] == "state"
            ws.send_json({"type": "hint"})
            msg = ws.receive_json()
            assert msg["type"] == "error" and msg["error"] == "BusyError"
    finally:
        gate.release.set()
        first.join(30)
    assert results[0].status_code == 200
    r = client.post(f"/api/tables/{tid}/hint", headers=auth(tokens[p]))  # the seat may ask again
    assert r.status_code == 200
    assert gate.started[0].startswith("sequence-analysis")


def test_repeated_refusals_are_answered_before_routing(monkeypatch):
    """A flood of requests the server refuses (creations past the quota, sockets past the cap,
    analyses while the seat's runs) is answered from memory before routing (web/gate.py), at a
    fraction of a routed request's cost: the proof is a request the route would refuse for its
    malformed body or unknown table (422, 404) answered 429 with the route's own message."""
    gate = _Gate(monkeypatch)
    limits = ServerLimits(create_burst=2, create_per_minute=1, max_sockets_per_client=1)
    with make_client(limits) as c:
        tid, tokens = new_table(c, players=2, seed=2, seats=HUMANS, hints=True)
        new_table(c, players=2, seats=HUMANS)
        r = c.post("/api/tables", content=b"{not json")
        assert r.status_code == 429 and "too many new tables" in r.json()["detail"], r.text
        r = c.post(f"/api/tables/{tid}/join", json={"seat": 99})
        assert r.status_code == 429 and r.json()["error"] == "BusyError", r.text

        p = c.app.state.service.tables[tid].game.current_player
        results = []
        first = threading.Thread(target=lambda: results.append(
            c.post(f"/api/tables/{tid}/analysis", json={"seconds": 0.05}, headers=auth(tokens[p]))))
        first.start()
        try:
            wait_for(lambda: gate.started)
            r = c.post(f"/api/tables/{tid}/analysis", json={"seconds": 10**9}, headers=auth(tokens[p]))
            assert r.status_code == 429 and "running already" in r.json()["detail"], r.text
            # the other seat, a wrong token: not the running seat's request, so the route judges it
            r = c.post(f"/api/tables/{tid}/analysis", json={"seconds": 0.05}, headers=auth(tokens[1 - p]))
            assert r.status_code == 409, r.text
            r = c.post(f"/api/tables/{tid}/analysis", json={"seconds": 0.05}, headers=auth("x" * 32))
            assert r.status_code == 403, r.text
        finally:
            gate.release.set()
            first.join(30)
        assert results[0].status_code == 200

        with c.websocket_connect(f"{WS}/api/tables/{tid}/ws") as ws:  # the address's one socket
            ws.send_json({"type": "hello", "token": None})
            assert ws.receive_json()["type"] == "state"
            got, body = _denied(c, "no-such-table")
            assert got == 429 and "your address already has 1" in body["detail"], body
        wait_for(lambda: not c.app.state.service.sockets)
        assert _denied(c, "no-such-table")[0] == 404  # under its cap, the route answers


def test_analyses_are_capped_per_client_and_per_server(monkeypatch):
    """Each analysis holds a search thread: one address may have two running or queued, the server
    sixteen (here one and two), so no client fills the queue everyone else waits in."""
    gate = _Gate(monkeypatch)
    app = create_app(ai_pause=0, limits=ServerLimits(max_analyses_per_client=1, max_analyses=2))
    clients = [TestClient(app, base_url=BASE, client=(f"10.0.0.{k}", 1)) for k in (1, 2, 3)]
    with clients[0] as a, clients[1] as b, clients[2] as c:
        tables = []
        for cl in (a, a, b, c):
            tid, tokens = new_table(cl, players=2, seed=2, seats=HUMANS, hints=True)
            p = a.app.state.service.tables[tid].game.current_player
            tables.append((cl, f"/api/tables/{tid}/analysis", auth(tokens[p])))
        threads = []

        def ask(k):
            cl, path, headers = tables[k]
            threads.append(threading.Thread(target=cl.post, args=(path,), kwargs={"json": {"seconds": 0.05},
                                                                                 "headers": headers}))
            threads[-1].start()

        try:
            ask(0)
            wait_for(lambda: len(gate.started) == 1)
            cl, path, headers = tables[1]  # the same address, another table
            r = cl.post(path, json={"seconds": 0.05}, headers=headers)
            assert r.status_code == 429 and "your address already has 1" in r.json()["detail"], r.text
            ask(2)  # another address: queued behind the first (one analysis thread)
            wait_for(lambda: sum(a.app.state.service.asking_by_client.values()) == 2)
            cl, path, headers = tables[3]
            r = cl.post(path, json={"seconds": 0.05}, headers=headers)
            assert r.status_code == 503 and "the server already runs 2" in r.json()["detail"], r.text
        finally:
            gate.release.set()
            for t in threads:
                t.join(30)
        assert a.app.state.service.asking_by_client == {}


def test_an_ai_move_never_waits_behind_analyses(monkeypatch):
    """With one thread for AI moves, an analysis that holds its thread does not delay another
    table's AI (the AI moves have their own pool)."""
    gate = _Gate(monkeypatch)
    with make_client(ServerLimits(ai_workers=1, analysis_workers=1)) as c:
        tid, tokens = new_table(c, players=2, seed=2, seats=HUMANS, hints=True)
        p = c.app.state.service.tables[tid].game.current_player
        asking = threading.Thread(target=lambda: c.post(f"/api/tables/{tid}/analysis", json={"seconds": 0.05},
                                                        headers=auth(tokens[p])))
        asking.start()
        try:
            wait_for(lambda: gate.started)
            ai_tid, _ = new_table(c, players=2, seed=5, seats=[{"kind": "ai", "ai": "random"}] * 2)
            ai_table = c.app.state.service.tables[ai_tid]
            wait_for(lambda: ai_table.game.turn >= 3, timeout=10)
            assert not gate.release.is_set() and len(gate.started) == 1  # the analysis still runs
        finally:
            gate.release.set()
            asking.join(30)


# --------------------------------------------------------------------------- websockets


def _spy(monkeypatch):
    """Every text queued for every connection: ``sent[conn]`` is its list of messages."""
    sent = {}
    real = Connection.send_text

    def spy(self, text):
        sent.setdefault(self, []).append(text)
        real(self, text)

    monkeypatch.setattr(Connection, "send_text", spy)
    return sent


def test_a_connect_does_not_resend_views_to_every_socket(client, monkeypatch):
    sent = _spy(monkeypatch)
    tid, tokens = new_table(client, players=2, seed=3, seats=HUMANS)
    socks = []
    try:
        for _ in range(5):
            ws = client.websocket_connect(f"{WS}/api/tables/{tid}/ws").__enter__()
            ws.send_json({"type": "hello", "token": None})
            assert ws.receive_json()["type"] == "state"
            socks.append(ws)
        table = client.app.state.service.tables[tid]
        conns = set(table.connections)
        assert len(conns) == 5
        before = {c: len(sent[c]) for c in conns}
        # another spectator: the others hear nothing (presence is about seats)
        ws = client.websocket_connect(f"{WS}/api/tables/{tid}/ws").__enter__()
        ws.send_json({"type": "hello", "token": None})
        assert ws.receive_json()["type"] == "state"
        socks.append(ws)
        assert {c: len(sent[c]) for c in conns} == before
        # a seat comes online: the others get one small presence message, not a view
        ws = client.websocket_connect(f"{WS}/api/tables/{tid}/ws").__enter__()
        ws.send_json({"type": "hello", "token": tokens[0]})
        assert ws.receive_json()["view"]["seats"][0]["connected"] is True
        socks.append(ws)
        for c in conns:
            new = sent[c][before[c]:]
            assert [json.loads(t) for t in new] == [{"type": "presence", "connected": [True, False]}]
        for s in socks[:-1]:  # what the browsers got
            assert s.receive_json() == {"type": "presence", "connected": [True, False]}
    finally:
        for s in socks:
            s.__exit__(None, None, None)


def test_a_change_is_serialized_once_for_every_spectator(client, monkeypatch):
    sent = _spy(monkeypatch)
    tid, tokens = new_table(client, players=2, seed=3, seats=HUMANS)
    table = client.app.state.service.tables[tid]
    socks = []
    try:
        for _ in range(4):
            ws = client.websocket_connect(f"{WS}/api/tables/{tid}/ws").__enter__()
            ws.send_json({"type": "hello", "token": None})
            ws.receive_json()
            socks.append(ws)
        conns = list(table.connections)
        before = {c: len(sent[c]) for c in conns}
        p = table.game.current_player
        move = str(table.game.legal_moves()[0])
        assert client.post(f"/api/tables/{tid}/moves", json={"move": move}, headers=auth(tokens[p])).status_code == 200
        wait_for(lambda: all(len(sent[c]) > before[c] for c in conns))
        texts = [sent[c][before[c]] for c in conns]
        assert all(t is texts[0] for t in texts)  # one json.dumps for all of them
        assert json.loads(texts[0])["view"]["last_move"]["move"] == move
    finally:
        for s in socks:
            s.__exit__(None, None, None)


def _denied(client, tid):
    """A websocket to ``tid`` refused in its handshake: the HTTP status and the error body."""
    with pytest.raises(WebSocketDenialResponse) as denied, client.websocket_connect(f"{WS}/api/tables/{tid}/ws"):
        pass
    return denied.value.status_code, denied.value.json()


@pytest.mark.parametrize("limits, spread, error, status", [
    (ServerLimits(max_sockets_per_table=3), False, "this table already has 3", 503),
    (ServerLimits(max_sockets_per_client=3), True, "your address already has 3", 429),
    (ServerLimits(max_sockets=3), True, "the server already has 3", 503),
])
def test_websocket_caps(limits, spread, error, status):
    """Three sockets (on one table, or spread over two), then a fourth is refused in its handshake
    with the HTTP status and the error body: never accepted, never counted."""
    with make_client(limits) as c:
        tid, _ = new_table(c, players=2, seats=HUMANS)
        other, _ = new_table(c, players=2, seats=HUMANS)
        service = c.app.state.service
        socks = []
        try:
            for k in range(3):
                ws = c.websocket_connect(f"{WS}/api/tables/{other if spread and k == 2 else tid}/ws").__enter__()
                ws.send_json({"type": "hello", "token": None})
                assert ws.receive_json()["type"] == "state"
                socks.append(ws)
            counted = dict(service.sockets)
            got, body = _denied(c, tid)
            assert got == status and error in body["detail"], body
            assert service.sockets == counted and len(service.tables[tid].connections) == 2 + (not spread)
        finally:
            for s in socks:
                s.__exit__(None, None, None)
        # the count goes down when sockets close: a new one is served again
        wait_for(lambda: not service.sockets)
        assert service.tables[tid].admitted == 0
        with c.websocket_connect(f"{WS}/api/tables/{tid}/ws") as ws:
            ws.send_json({"type": "hello", "token": None})
            assert ws.receive_json()["type"] == "state"


def test_a_websocket_waiting_to_say_hello_holds_its_place():
    """A socket is counted from its handshake: one that never says hello still holds a place, so a
    client cannot open more than its cap by not saying hello; a refused hello gives the place back."""
    with make_client(ServerLimits(max_sockets_per_client=2)) as c:
        tid, _ = new_table(c, players=2, seats=HUMANS)
        service = c.app.state.service
        with c.websocket_connect(f"{WS}/api/tables/{tid}/ws"), c.websocket_connect(f"{WS}/api/tables/{tid}/ws"):
            wait_for(lambda: service.sockets.get("10.0.0.1") == 2)
            assert _denied(c, tid)[0] == 429
        wait_for(lambda: not service.sockets)
        with c.websocket_connect(f"{WS}/api/tables/{tid}/ws") as ws:  # a wrong token: refused at the hello
            ws.send_json({"type": "hello", "token": "z" * 32})
            assert "is not the token of any seat" in ws.receive_json()["detail"]
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
            assert closed.value.code == 4403
        wait_for(lambda: not service.sockets and service.tables[tid].admitted == 0)


@pytest.mark.parametrize("expired", [False, True])
def test_a_websocket_to_no_live_table_is_refused_in_the_handshake(client, expired):
    service = client.app.state.service
    tid = "nosuch"
    if expired:
        tid, _ = new_table(client, players=2, seats=HUMANS)
        assert client.portal.call(service.sweep, time.monotonic() + 10**7) == [tid]
    status, body = _denied(client, tid)
    assert (status, body["error"]) == ((410, "TableExpiredError") if expired else (404, "NoSuchTableError"))
    assert not service.sockets


def test_a_refused_websocket_is_never_accepted():
    """At the ASGI level: a refusal is the handshake's HTTP response (the denial-response extension),
    or without that extension a close before any accept (the server answers it 403); no accept, no
    frame, nothing counted."""
    app = create_app(ai_pause=0)

    async def attempt(extensions):
        sent = []
        messages = [{"type": "websocket.connect"}]

        async def receive():
            return messages.pop(0) if messages else {"type": "websocket.disconnect", "code": 1000}

        async def send(message):
            sent.append(message)

        scope = {"type": "websocket", "asgi": {"version": "3.0"}, "scheme": "ws", "http_version": "1.1",
                 "path": "/api/tables/nosuch/ws", "raw_path": b"/api/tables/nosuch/ws", "root_path": "",
                 "query_string": b"", "headers": [(b"host", b"127.0.0.1")], "client": ("10.0.0.9", 5000),
                 "server": ("127.0.0.1", 80), "subprotocols": [], "extensions": extensions, "app": app}
        await app(scope, receive, send)
        return sent

    sent = asyncio.run(attempt({"websocket.http.response": {}}))
    assert [m["type"] for m in sent] == ["websocket.http.response.start", "websocket.http.response.body"]
    assert sent[0]["status"] == 404 and json.loads(sent[1]["body"])["error"] == "NoSuchTableError"
    sent = asyncio.run(attempt({}))
    assert sent == [{"type": "websocket.close", "code": 4404, "reason": ""}]
    assert not app.state.service.sockets


def test_uvicorn_refuses_in_the_handshake_with_the_status():
    """Through a real uvicorn server (its websocket implementation as ``serve`` picks it) and
    websocket client: the refusal is the handshake's HTTP response, with its status and the JSON
    error body."""
    pytest.importorskip("uvicorn")
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    app = create_app(ai_pause=0, limits=ServerLimits(max_sockets_per_client=1))
    with serving(app) as url:
        base = f"{url.replace('http', 'ws', 1)}/api/tables"

        def refusal(tid):
            with pytest.raises(InvalidStatus) as refused:
                connect(f"{base}/{tid}/ws", open_timeout=10).close()
            return refused.value.response.status_code, json.loads(refused.value.response.body)

        status, body = refusal("nosuch")
        assert status == 404 and body["error"] == "NoSuchTableError", body
        with urllib.request.urlopen(urllib.request.Request(
                f"{url}/api/tables", data=json.dumps({"players": 2, "seats": HUMANS}).encode(),
                headers={"Content-Type": "application/json"})) as r:
            tid = json.loads(r.read())["table"]
        with connect(f"{base}/{tid}/ws", open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "token": None}))
            assert json.loads(ws.recv(timeout=10))["type"] == "state"
            status, body = refusal(tid)
            assert status == 429 and "your address already has 1" in body["detail"], body


# --------------------------------------------------------------------------- Host and Origin


@pytest.mark.parametrize("host, ok", [
    ("127.0.0.1", True), ("127.0.0.1:8000", True), ("localhost:8000", True), ("[::1]:8000", True),
    ("evil.example", False), ("127.0.0.1.evil.example", False), ("localhost.evil.example:8000", False), ("", False),
])
def test_a_loopback_server_answers_only_to_loopback_names(client, host, ok):
    r = client.get("/api/presets", headers={"Host": host})
    assert (r.status_code == 200) == ok, r.text
    if not ok:
        assert r.status_code == 400 and "host name" in r.json()["detail"]


def test_cross_origin_websockets_and_writes_are_refused(client):
    tid, tokens = new_table(client, players=2, seats=HUMANS)
    with pytest.raises(WebSocketDenialResponse) as denied, \
            client.websocket_connect(f"{WS}/api/tables/{tid}/ws", headers={"Origin": "http://evil.example"}):
        pass
    assert denied.value.status_code == 403
    r = client.post("/api/tables", json={"players": 2}, headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "another site" in r.json()["detail"]
    # the server's own page
    with client.websocket_connect(f"{WS}/api/tables/{tid}/ws", headers={"Origin": "http://127.0.0.1"}) as ws:
        ws.send_json({"type": "hello", "token": tokens[0]})
        assert ws.receive_json()["type"] == "state"
    assert client.post("/api/tables", json={"players": 2}, headers={"Origin": "http://127.0.0.1"}).status_code == 201


def test_allowed_hosts_replace_the_loopback_names():
    app = create_app(ai_pause=0, limits=ServerLimits(allowed_hosts=("games.example.org", "*.example.net")))
    with TestClient(app, base_url="http://games.example.org") as c:
        assert c.get("/api/presets").status_code == 200
        assert c.get("/api/presets", headers={"Host": "a.example.net"}).status_code == 200
        assert c.get("/api/presets", headers={"Host": "127.0.0.1"}).status_code == 400
        assert c.get("/api/presets", headers={"Host": "example.org"}).status_code == 400


# --------------------------------------------------------------------------- nothing outlives the server


def test_no_ai_turn_goes_on_once_the_server_stops(monkeypatch, caplog):
    """An AI move being written when the server stops is written (a told move is a stored move),
    and no AI turn starts after it: nothing runs into the stopped threads."""
    writing, release = threading.Event(), threading.Event()
    real = web_tables.TableStore.update_game

    def slow(store, *args):
        writing.set()
        assert release.wait(10)
        return real(store, *args)

    monkeypatch.setattr(web_tables.TableStore, "update_game", slow)
    ai = [{"kind": "ai", "ai": "random"}, {"kind": "ai", "ai": "random"}]
    with make_client() as c:
        tid, _ = new_table(c, players=2, seed=1, seats=ai)
        service = c.app.state.service
        assert writing.wait(10)
        table = service.tables[tid]
        threading.Timer(0.2, release.set).start()  # close() waits for the write under way
    assert table.version == 1 and table.search is None and not service.ai.turns
    assert not [r for r in caplog.records if r.levelname == "ERROR"], caplog.text


def _descendants(pid):
    """Every process below ``pid`` (Linux /proc)."""
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tids:
            try:
                with open(f"/proc/{p}/task/{t}/children") as f:
                    kids = [int(k) for k in f.read().split()]
            except OSError:
                continue
            for k in kids:
                if k not in out:
                    out.add(k)
                    todo.append(k)
    return out


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads the process tree from /proc (Linux)")
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_no_process_outlives_the_server(tmp_path, sig):
    """``serve`` with AI seats that run in worker processes, stopped mid-game: within seconds no
    process it started is left (workers, the multiprocessing resource tracker), even when the
    server is killed without a chance to clean up."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "sequence_game", "serve", "--no-browser", "--port", str(port),
         "--db", str(tmp_path / "t.sqlite3"), "--ai-workers", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        end = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/api/presets").read()
                break
            except OSError:
                assert time.monotonic() < end and server.poll() is None, "serve did not start"
                time.sleep(0.1)
        body = json.dumps({"players": 2, "seats": [{"kind": "ai", "ai": "easy"}] * 2}).encode()
        req = urllib.request.Request(base + "/api/tables", data=body, headers={"Content-Type": "application/json"})
        table = json.load(urllib.request.urlopen(req))["table"]
        end = time.monotonic() + 60
        while json.load(urllib.request.urlopen(f"{base}/api/tables/{table}"))["moves"] < 2:
            assert time.monotonic() < end, "the AI did not move"
            time.sleep(0.1)
        children = _descendants(server.pid)
        assert children, "the AI ran in worker processes"
        server.send_signal(sig)
        server.wait(30)
        end = time.monotonic() + 10
        while any(_alive(p) for p in children) and time.monotonic() < end:
            time.sleep(0.1)
        left = [p for p in children if _alive(p)]
        assert not left, f"processes left after {sig.name}: {left}"
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)


def _serve(tmp_path, *args):
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "sequence_game", "serve", "--no-browser", "--port", str(port),
         "--db", str(tmp_path / "t.sqlite3"), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    end = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(base + "/api/presets").read()
            return server, base
        except OSError:
            assert time.monotonic() < end and server.poll() is None, "serve did not start"
            time.sleep(0.05)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="reads the process tree from /proc (Linux)")
@pytest.mark.parametrize("when", ["starting", "busy", "starting", "busy"])
def test_sigterm_stops_the_ai_workers_cleanly_with_nothing_leaked(tmp_path, when):
    """A busy server stopped by SIGTERM (its AI worker processes starting, or playing) winds its
    pool down before it exits: the multiprocessing resource tracker finds no semaphore left over,
    and the server's stderr has no warning."""
    server, base = _serve(tmp_path, "--ai-workers", "2", "--limit", "ai_pause=0")
    try:
        body = json.dumps({"players": 2, "seats": [{"kind": "ai", "ai": "easy"}, {"kind": "ai", "ai": "level:3"}]})
        for _ in range(3):
            req = urllib.request.Request(base + "/api/tables", data=body.encode(),
                                         headers={"Content-Type": "application/json"})
            table = json.load(urllib.request.urlopen(req))["table"]
        end = time.monotonic() + 60
        if when == "starting":  # the workers exist and are still importing the package
            while len(_descendants(server.pid)) < 3:  # the resource tracker and the two workers
                assert time.monotonic() < end, "no AI worker process started"
                time.sleep(0.01)
        else:
            while json.load(urllib.request.urlopen(f"{base}/api/tables/{table}"))["moves"] < 4:
                assert time.monotonic() < end, "the AI did not move"
                time.sleep(0.05)
        server.send_signal(signal.SIGTERM)
        _, err = server.communicate(timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate(timeout=10)
    assert "leaked" not in err and "resource_tracker" not in err, err[-3000:]
    assert "Traceback" not in err, err[-3000:]


def test_one_address_cannot_hold_every_review_slot_and_a_review_is_bounded_by_its_length(monkeypatch):
    """Reviews have per-client shares like every server-wide pool: one address running a review
    leaves the other slots to other addresses; a game longer than max_review_moves is not reviewed."""
    from sequence_game import play_game
    from sequence_game.web import reviews

    release, started = threading.Event(), []

    def held_review(record, **kwargs):
        started.append(record)
        release.wait(30)
        raise RuntimeError("stopped by the test")

    monkeypatch.setattr(reviews, "review_game", held_review)
    moves = play_game(["greedy"], seed=6).moves
    limits = ServerLimits(max_reviews=2, max_review_moves=len(moves), create_burst=20)
    app = create_app(ai_pause=0, limits=limits)
    finished = {"players": 2, "seed": 6, "moves": moves, "seats": [{"kind": "ai", "ai": "random"}] * 2}
    try:
        with TestClient(app, base_url=BASE, client=("10.0.0.1", 1)) as a, \
                TestClient(app, base_url=BASE, client=("10.0.0.2", 1)) as b, \
                TestClient(app, base_url=BASE, client=("10.0.0.3", 1)) as c:
            games = [new_table(a, **finished)[0] for _ in range(4)]
            assert a.post(f"/api/tables/{games[0]}/review").status_code == 202
            r = a.post(f"/api/tables/{games[1]}/review")
            assert r.status_code == 429 and "your address already has 1 review" in r.json()["detail"], r.text
            assert b.post(f"/api/tables/{games[1]}/review").status_code == 202  # another address: its own share
            r = c.post(f"/api/tables/{games[2]}/review")
            assert r.status_code == 503 and r.json()["error"] == "ServerFullError", r.text  # the server's cap
            assert a.post(f"/api/tables/{games[0]}/review").json()["status"] == "running"  # its own: progress
            # "greedy" without a seed breaks ties at random: keep the one game that is long enough
            longer = next(g for g in (play_game(["greedy"], seed=s) for s in range(7, 40)) if len(g.moves) > len(moves))
            tid, _ = new_table(c, **{**finished, "seed": longer.seed, "moves": longer.moves})
            r = c.post(f"/api/tables/{tid}/review")
            assert r.status_code == 413 and f"at most {len(moves)} moves" in r.json()["detail"], r.text
    finally:
        release.set()


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux's")
def test_analyses_run_in_the_idle_scheduling_class(client, monkeypatch):
    """An analysis thread runs under SCHED_IDLE: it gets a core only when the event loop and the
    AI threads leave it idle, so an honest player's latency does not depend on others' analyses."""
    real, seen = web_tables.ai.agent_from_spec, []

    def recording(spec, seed=None):
        agent = real(spec, seed=seed)
        inner = agent.analyze

        def analyze(game):
            seen.append(os.sched_getscheduler(0))
            return inner(game)

        agent.analyze = analyze
        return agent

    monkeypatch.setattr(web_tables.ai, "agent_from_spec", recording)
    tid, tokens = new_table(client, players=2, seats=HUMANS, hints=True)
    p = client.app.state.service.tables[tid].game.current_player
    r = client.post(f"/api/tables/{tid}/analysis", json={"seconds": 0.05}, headers=auth(tokens[p]))
    assert r.status_code == 200 and seen == [os.SCHED_IDLE], (r.text, seen)


def _run_script(tmp_path, name, code, *args):
    script = tmp_path / name
    script.write_text(textwrap.dedent(code))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.run([sys.executable, *(args or (str(script),))], capture_output=True, text=True, timeout=120,
                          env=env, cwd=tmp_path)


UNGUARDED_SERVER = """
    import sys
    from sequence_game.web import create_app

    def build():
        return create_app(ai_pause=0)


    app = build() if sys.argv[1:] == ["nested"] else create_app(ai_pause=0)  # no main guard
    print("STARTED", flush=True)  # then uvicorn.run(app)
"""


@pytest.mark.parametrize("how", ["top", "nested"])
def test_a_server_script_without_the_main_guard_fails_at_start_up_saying_to_add_it(tmp_path, how):
    """Without the guard every AI worker process (spawn) would import the script again and die, and
    a table with an AI seat that thinks in a worker would wait for ever: the script stops at once,
    before any server starts, with a message saying what to add."""
    proc = _run_script(tmp_path, "myserver.py", UNGUARDED_SERVER, "myserver.py", how)
    assert proc.returncode != 0 and "STARTED" not in proc.stdout, proc.stdout + proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("RuntimeError: create_app() was called from the top level of "), last
    assert "myserver.py (line 9)" in last and "'if __name__ == \"__main__\":'" in last, last


def test_a_guarded_server_script_starts_and_its_ai_workers_run(tmp_path):
    """The guard, in any of its usual spellings, lets the script start, and a worker process that
    imports it again runs (it does not start a server)."""
    proc = _run_script(tmp_path, "guarded.py", """
        import concurrent.futures, multiprocessing
        from sequence_game.web import create_app

        def main():
            app = create_app()
            pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
            print("RAN", pool.submit(int, 7).result(timeout=60), flush=True)

        if "__main__" == __name__ and True:
            main()
    """)
    assert proc.returncode == 0 and proc.stdout.strip() == "RAN 7", proc.stdout + proc.stderr


def test_a_compiled_script_without_the_main_guard_fails_once_in_the_workers_with_a_clear_message(tmp_path):
    """Where the script's source cannot be read (a compiled script), the start-up check cannot see
    the guard: each spawned worker that imports the script again refuses create_app with one
    message saying what to do, instead of a server starting in the worker."""
    source = tmp_path / "myserver.py"
    source.write_text(textwrap.dedent("""
        import concurrent.futures, multiprocessing
        from sequence_game.web import create_app

        app = create_app()  # no `if __name__ == "__main__":` guard
        pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        try:
            pool.submit(int, 1).result(timeout=60)
            print("RAN")
        except concurrent.futures.process.BrokenProcessPool:
            print("BROKEN")
    """))
    compiled = tmp_path / "myserver.pyc"
    py_compile.compile(str(source), cfile=str(compiled), doraise=True)
    source.unlink()
    proc = _run_script(tmp_path, "unused.py", "", str(compiled))
    assert proc.stdout.strip() == "BROKEN", proc.stdout + proc.stderr
    assert "RuntimeError: create_app() was called while an AI worker process was starting" in proc.stderr
    assert "'if __name__ == \"__main__\":'" in proc.stderr
