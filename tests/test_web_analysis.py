"""The streaming analysis over HTTP (``POST /api/tables/{id}/analysis/stream``, NDJSON) and over the
websocket (``analysis`` and ``stop`` frames): updates as the search goes, to the asking seat alone
(R9), stopped by a closed stream, a ``stop`` frame or a change of the table, within the per-seat and
per-client caps, in the analysis threads."""

from __future__ import annotations

import json
import os
import threading
import time

import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed")

from fastapi.testclient import TestClient
from sequence_game.web import create_app
from sequence_game.web import tables as web_tables
from sequence_game.web.limits import ServerLimits
from web_support import BASE, auth, new_table, wait_for

WS = "ws://127.0.0.1"
HUMANS = [{"kind": "human"}, {"kind": "human"}]


def make_client(limits=None, address="10.0.0.1"):
    return TestClient(create_app(ai_pause=0, limits=limits), base_url=BASE, client=(address, 5000))


@pytest.fixture
def client():
    with make_client() as c:
        yield c


def _table(client, **options):
    tid, tokens = new_table(client, players=2, seats=HUMANS, hints=True, **options)
    table = client.app.state.service.tables[tid]
    return tid, tokens, table, table.game.current_player


def _path(tid):
    return f"/api/tables/{tid}/analysis/stream"


def _idle(client):
    """No hint or analysis is counted and no analysis job runs or waits."""
    service = client.app.state.service
    queue = service.ai.analysis_queue
    return not service.asking_by_client and queue.running == 0 and queue.waiting == 0


def test_the_stream_gives_updates_until_the_budget_is_spent(client):
    tid, tokens, table, p = _table(client)
    with client.stream("POST", _path(tid), json={"seconds": 0.3, "every": 0.1}, headers=auth(tokens[p])) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in r.iter_lines() if line]
    assert len(lines) >= 2 and all(x["type"] == "analysis" for x in lines)
    assert [x["done"] for x in lines] == [False] * (len(lines) - 1) + [True]
    assert not lines[-1]["interrupted"]
    iterations = [x["iterations"] for x in lines]
    assert iterations == sorted(iterations) and iterations[0] > 0
    legal = {str(m) for m in table.game.legal_moves()}
    for x in lines:
        assert x["version"] == table.version and x["best"] in legal
        assert x["best"] == x["moves"][0]["move"]
        assert sum(m["visits"] for m in x["moves"]) <= x["iterations"]
        assert all(m["move"] in legal and 0 <= m["value"] <= 1 for m in x["moves"])
    assert 0.2 <= lines[-1]["seconds"] <= 2.0  # the 0.3 s budget, not the default (a slow machine adds some)
    assert _idle(client)


def test_closing_the_stream_stops_the_search(client):
    """A 5 s analysis whose reader goes away after the first update: the search thread is free again
    long before the budget, and the seat may ask again."""
    tid, tokens, table, p = _table(client)
    started = time.monotonic()
    with client.stream("POST", _path(tid), json={"seconds": 5, "every": 0.05}, headers=auth(tokens[p])) as r:
        first = json.loads(next(r.iter_lines()))
        assert first["type"] == "analysis" and not first["done"]
    wait_for(lambda: _idle(client), timeout=3)
    assert time.monotonic() - started < 3
    r = client.post(f"/api/tables/{tid}/hint", headers=auth(tokens[p]))
    assert r.status_code == 200, r.text


def test_a_move_ends_the_analysis_of_the_old_position(client):
    """The table changes (here an undo-free change: the seat plays) while its analysis runs: the
    stream ends at once with an interrupted last update for the position it analysed."""
    tid, tokens, table, p = _table(client)
    version = table.version
    move = str(table.game.legal_moves()[0])
    with client.stream("POST", _path(tid), json={"seconds": 5, "every": 0.05}, headers=auth(tokens[p])) as r:
        lines = r.iter_lines()
        assert json.loads(next(lines))["type"] == "analysis"
        started = time.monotonic()
        played = client.post(f"/api/tables/{tid}/moves", json={"move": move}, headers=auth(tokens[p]))
        assert played.status_code == 200, played.text
        rest = [json.loads(line) for line in lines if line]
    assert time.monotonic() - started < 2
    assert rest and rest[-1]["done"] and rest[-1]["interrupted"] and rest[-1]["version"] == version
    wait_for(lambda: _idle(client), timeout=3)


@pytest.mark.parametrize("who, status", [("other", 409), ("spectator", 401)])
def test_only_the_seat_to_move_may_ask(client, who, status):
    tid, tokens, table, p = _table(client)
    headers = auth(tokens[1 - p]) if who == "other" else {}
    r = client.post(_path(tid), json={}, headers=headers)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json") and r.json()["detail"]


def test_a_table_without_hints_refuses_it(client):
    tid, tokens = new_table(client, players=2, seats=HUMANS)
    p = client.app.state.service.tables[tid].game.current_player
    r = client.post(_path(tid), json={}, headers=auth(tokens[p]))
    assert r.status_code == 403 and "hints off" in r.json()["detail"], r.text


@pytest.mark.parametrize("body, words", [({"seconds": 0}, "seconds"), ({"seconds": 61}, "seconds"),
                                         ({"every": 0.001}, "every"), ({"every": "1"}, "every"),
                                         ({"seconds": 1, "depth": 3}, "depth")])
def test_a_bad_body_is_a_422_naming_the_field(client, body, words):
    tid, tokens, table, p = _table(client)
    r = client.post(_path(tid), json=body, headers=auth(tokens[p]))
    assert r.status_code == 422 and words in r.text, r.text


def test_one_analysis_at_a_time_per_seat_and_the_hint_waits_too(client):
    tid, tokens, table, p = _table(client)
    with client.stream("POST", _path(tid), json={"seconds": 5, "every": 0.05}, headers=auth(tokens[p])) as r:
        next(r.iter_lines())
        for path, body in (("analysis/stream", {}), ("analysis", {"seconds": 0.05}), ("hint", None)):
            again = client.post(f"/api/tables/{tid}/{path}", json=body, headers=auth(tokens[p]))
            assert again.status_code == 429 and "running already" in again.json()["detail"], again.text
    wait_for(lambda: _idle(client), timeout=3)


def test_streams_count_against_the_per_client_cap():
    with make_client(ServerLimits(max_analyses_per_client=1)) as c:
        first, second = _table(c), _table(c)
        tid, tokens, _, p = first
        with c.stream("POST", _path(tid), json={"seconds": 5, "every": 0.05}, headers=auth(tokens[p])) as r:
            next(r.iter_lines())
            tid2, tokens2, _, p2 = second
            refused = c.post(_path(tid2), json={}, headers=auth(tokens2[p2]))
            assert refused.status_code == 429 and "your address already has 1" in refused.json()["detail"]
        wait_for(lambda: _idle(c), timeout=3)


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="SCHED_IDLE is Linux's")
def test_the_slices_run_in_the_idle_analysis_threads(client, monkeypatch):
    real, seen = web_tables.ai._next_info, []

    def recording(analysis):
        seen.append((threading.current_thread().name, os.sched_getscheduler(0)))
        return real(analysis)

    monkeypatch.setattr(web_tables.ai, "_next_info", recording)
    tid, tokens, table, p = _table(client)
    with client.stream("POST", _path(tid), json={"seconds": 0.2, "every": 0.1}, headers=auth(tokens[p])) as r:
        assert [json.loads(line) for line in r.iter_lines() if line][-1]["done"]
    assert seen and all(name.startswith("sequence-analysis") and policy == os.SCHED_IDLE for name, policy in seen)


# --------------------------------------------------------------------------- the websocket


def _hello(ws, token):
    ws.send_json({"type": "hello", "token": token})
    assert ws.receive_json()["type"] == "state"


def _next(ws):
    """The next frame that is not a ``presence`` (the other connections come and go)."""
    while (frame := ws.receive_json())["type"] == "presence":
        pass
    return frame


def _until_pong(ws):
    """Every frame up to the answer of a ping sent now."""
    ws.send_json({"type": "ping"})
    frames = []
    while (frame := ws.receive_json())["type"] != "pong":
        frames.append(frame)
    return frames


def test_the_websocket_streams_to_the_asking_seat_alone_and_stop_ends_it(client):
    """R9: the analysis reads the asking seat's hand, so the other seat and a spectator, connected
    all along, never get an analysis frame; a ``stop`` frame ends the search at once."""
    tid, tokens, table, p = _table(client)
    with client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as me, \
            client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as other, \
            client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as watcher:
        _hello(me, tokens[p])
        _hello(other, tokens[1 - p])
        _hello(watcher, None)
        me.send_json({"type": "analysis", "seconds": 5, "every": 0.05})
        frames = [_next(me)]
        assert frames[0]["type"] == "analysis" and not frames[0]["done"]
        stopped = time.monotonic()
        me.send_json({"type": "stop"})
        while not frames[-1].get("done"):
            frames.append(_next(me))
        assert time.monotonic() - stopped < 2
        assert frames[-1]["interrupted"] and frames[-1]["seconds"] < 4
        assert all(f["type"] == "analysis" and f["version"] == table.version for f in frames)
        wait_for(lambda: _idle(client), timeout=3)
        for ws in (other, watcher):
            assert all(f["type"] != "analysis" for f in _until_pong(ws))
        me.send_json({"type": "stop"})  # nothing running: nothing to do, no frame
        assert all(f["type"] == "presence" for f in _until_pong(me))


def test_a_closed_websocket_stops_its_analysis(client):
    tid, tokens, table, p = _table(client)
    with client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as me:
        _hello(me, tokens[p])
        me.send_json({"type": "analysis", "seconds": 5, "every": 0.05})
        assert _next(me)["type"] == "analysis"
    started = time.monotonic()
    wait_for(lambda: _idle(client), timeout=3)
    assert time.monotonic() - started < 2


def test_the_websocket_refuses_spectators_and_other_seats_and_a_second_analysis(client):
    tid, tokens, table, p = _table(client)
    with client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as watcher:
        _hello(watcher, None)
        watcher.send_json({"type": "analysis"})
        frame = watcher.receive_json()
        assert frame["type"] == "error" and frame["error"] == "NotAllowedError" and "spectators" in frame["detail"]
    with client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as other:
        _hello(other, tokens[1 - p])
        other.send_json({"type": "analysis", "seconds": 1})
        frame = other.receive_json()
        assert frame["type"] == "error" and "seat to move" in frame["detail"]
    with client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as me:
        _hello(me, tokens[p])
        me.send_json({"type": "analysis", "seconds": 5, "every": 0.05})
        assert me.receive_json()["type"] == "analysis"
        me.send_json({"type": "analysis", "seconds": 1})
        while (frame := me.receive_json())["type"] == "analysis":
            pass
        assert frame["type"] == "error" and frame["error"] == "BusyError" and "stop" in frame["detail"]
        me.send_json({"type": "analysis", "every": 0})
        while (frame := me.receive_json())["type"] == "analysis":
            pass
        assert frame["type"] == "error" and frame["error"] == "BadMessageError" and "every" in frame["detail"]


def test_the_openapi_document_describes_the_stream_and_its_frames(client):
    doc = client.get("/openapi.json").json()
    op = doc["paths"]["/api/tables/{table_id}/analysis/stream"]["post"]
    line = op["responses"]["200"]["content"]["application/x-ndjson"]["schema"]
    refs = {x["$ref"].rsplit("/", 1)[-1] for x in line["oneOf"]}
    assert refs == {"AnalysisInfo", "ErrorFrame"}
    info = doc["components"]["schemas"]["AnalysisInfo"]["properties"]
    assert {"best", "moves", "iterations", "seconds", "done", "interrupted", "version"} <= set(info)
    assert op["responses"]["429"]["content"].keys() == {"application/json"}
    ws = doc["paths"]["/api/tables/{table_id}/ws"]["get"]
    assert "#/components/schemas/AnalysisInfo" in json.dumps(ws["x-server-frames"])
    assert "#/components/schemas/AnalysisMsg" in json.dumps(ws["x-client-frames"])
