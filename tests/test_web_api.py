"""The HTTP API as a bot developer reads it (docs/web.md, the OpenAPI document): typed views that
match what the server sends field for field, a description on every operation, the websocket's
frames and the event stream in the document, hint-then-move order on the websocket, the long-poll,
the request bounds and messages, and /docs and /redoc served without a CDN. The event stream and
the long-poll against a live server are in tests/test_bot.py."""

from __future__ import annotations

import re
import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from sequence_game.web import create_app, models
from web_support import BASE, auth, first_moves, new_table


@pytest.fixture
def client():
    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        yield c


def two_humans(client, seed=3, **body):
    return new_table(client, players=2, seed=seed, seats=[{"kind": "human"}, {"kind": "human"}], **body)


def _exact(view):
    """The typed model reads the view and writes back exactly the same JSON: no field is untyped,
    none is dropped by the response model."""
    assert models.TableView.model_validate(view).model_dump(mode="json") == view


# --------------------------------------------------------------------------- the document


def test_every_operation_has_a_summary_and_a_description(client):
    doc = client.get("/openapi.json").json()
    ops = [(m, p, op) for p, item in doc["paths"].items() for m, op in item.items()]
    assert len(ops) >= 12
    missing = [f"{m} {p}" for m, p, op in ops if not op.get("summary") or not op.get("description")]
    assert not missing, missing


def test_the_view_and_its_responses_are_typed_in_the_document(client):
    doc = client.get("/openapi.json").json()
    schemas = doc["components"]["schemas"]
    view = schemas["TableView"]
    assert set(view["properties"]) == set(models.TableView.model_fields)
    assert set(schemas["Observation"]["properties"]) >= {"board", "hands", "draw_pile", "current_player", "player"}
    for name in ("MoveResponse", "UndoResponse"):
        assert schemas[name]["properties"]["view"]["$ref"].endswith("/TableView")
    get = doc["paths"]["/api/tables/{table_id}"]["get"]
    assert get["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("/TableView")
    assert {p["name"] for p in get["parameters"]} >= {"after_version", "wait"}
    # every property of every response model has a type (no bare "any")
    for name in ("TableView", "Observation", "SeatView", "Result", "HintResponse", "TableSummary"):
        for field, spec in schemas[name]["properties"].items():
            assert any(k in spec for k in ("type", "$ref", "anyOf", "oneOf", "const", "enum")), (name, field)


def test_the_websocket_and_the_stream_are_in_the_document(client):
    doc = client.get("/openapi.json").json()
    ws = doc["paths"]["/api/tables/{table_id}/ws"]["get"]
    for word in ("hello", "error", "no `state` follows", "hint", "version", "4000"):
        assert word in ws["description"]
    server = {ref["$ref"].rsplit("/", 1)[1] for ref in ws["x-server-frames"]["oneOf"]}
    assert server == {"StateFrame", "PresenceFrame", "HintFrame", "AnalysisInfo", "RematchFrame", "RematchOfferFrame",
                      "TimeoutFrame", "ErrorFrame", "PongFrame", "FlagFrame", "ChatFrame", "ChatLogFrame", "ReportedFrame",
                      "SpectatorsFrame"}
    assert "version" in doc["components"]["schemas"]["HintFrame"]["properties"]
    assert len(ws["x-client-frames"]["oneOf"]) == 6  # move, the simple ones, hello, analysis, chat, report
    stream = doc["paths"]["/api/tables/{table_id}/stream"]["get"]
    lines = stream["responses"]["200"]["content"]["application/x-ndjson"]["schema"]
    assert {ref["$ref"].rsplit("/", 1)[1] for ref in lines["oneOf"]} == {"StateFrame", "PresenceFrame", "RematchFrame",
                                                                    "RematchOfferFrame", "TimeoutFrame", "FlagFrame"}
    assert "rematch" in {p["name"] for p in stream["parameters"]}  # a seat's stream may follow the rematch offers
    assert client.get("/api/tables/abc/ws").status_code == 426


def test_the_ai_think_time_has_one_range(client):
    doc = client.get("/openapi.json").json()
    ai_seconds = doc["components"]["schemas"]["CreateTable"]["properties"]["ai_seconds"]
    assert ai_seconds["maximum"] == client.app.state.limits.max_ai_seconds == models.AI_SECONDS_MAX
    assert ai_seconds["minimum"] == models.AI_SECONDS_MIN
    r = client.post("/api/tables", json={"players": 2, "ai_seconds": 30})
    assert r.status_code == 422 and f"less than or equal to {models.AI_SECONDS_MAX:g}" in r.json()["detail"]


def test_analysis_without_a_body_names_the_body(client):
    table, tokens = two_humans(client)
    r = client.post(f"/api/tables/{table}/analysis", headers=auth(tokens[1]))
    assert r.status_code == 422 and "request body" in r.json()["detail"] and "{}" in r.json()["detail"]


def test_docs_and_redoc_load_nothing_from_another_host(client):
    for page in ("/docs", "/redoc"):
        text = client.get(page).text
        assert not re.findall(r"https?://", text), page
        assets = re.findall(r'"(/docs-assets/[^"]+)"', text)
        assert any(a.endswith(".js") for a in assets)
        for asset in assets:
            r = client.get(asset)
            assert r.status_code == 200 and len(r.content) > 1000, asset


# --------------------------------------------------------------------------- the views


def test_views_match_their_model_field_for_field(client):
    table, tokens = new_table(client, players=2, seed=4, seats=[{"kind": "human"}, {"kind": "ai", "ai": "easy"}])
    me = auth(tokens[0])
    for _ in range(40):
        view = client.get(f"/api/tables/{table}", headers=me).json()
        _exact(view)
        _exact(client.get(f"/api/tables/{table}").json())  # a spectator's
        if view["over"]:
            break
        if view["legal"]:
            r = client.post(f"/api/tables/{table}/moves", headers=me,
                            json={"move": view["legal"][0], "version": view["version"]})
            assert r.status_code == 200, r.text
            _exact(r.json()["view"])
        else:
            client.get(f"/api/tables/{table}?after_version={view['version']}&wait=5", headers=me)
    r = client.post(f"/api/tables/{table}/undo", headers=me)
    if r.status_code == 200:
        _exact(r.json()["view"])


def test_a_finished_games_view_and_summary_are_typed(client):
    from sequence_game import play_game

    record = play_game(["greedy"], seed=6)
    table, tokens = new_table(client, players=2, seed=6, moves=record.moves, seats=[{"kind": "human"}, {"kind": "ai"}])
    view = client.get(f"/api/tables/{table}", headers=auth(tokens[0])).json()
    assert view["over"] and view["result"]["turns"] == record.result["turns"]
    _exact(view)
    rows = client.get("/api/tables").json()
    for row in rows:
        assert models.TableSummary.model_validate(row).model_dump(mode="json") == row


# --------------------------------------------------------------------------- long-poll


def test_long_poll_answers_at_the_next_change(client):
    table, tokens = two_humans(client)
    mover = client.get(f"/api/tables/{table}").json()["state"]["current_player"]
    first = client.get(f"/api/tables/{table}", headers=auth(tokens[mover])).json()
    assert client.get(f"/api/tables/{table}?after_version=0&wait=0.2").json()["version"] == 0  # waited, unchanged
    out = {}

    def poll():
        t = time.perf_counter()
        out["view"] = client.get(f"/api/tables/{table}?after_version=0&wait=30",
                                 headers=auth(tokens[1 - mover])).json()
        out["seconds"] = time.perf_counter() - t

    waiter = threading.Thread(target=poll)
    waiter.start()
    time.sleep(0.3)
    assert "view" not in out  # still waiting
    client.post(f"/api/tables/{table}/moves", headers=auth(tokens[mover]), json={"move": first["legal"][0]})
    waiter.join(timeout=30)
    assert out["view"]["version"] == 1 and out["view"]["legal"] and out["seconds"] < 29
    # a past version answers at once; a version from the future is refused
    assert client.get(f"/api/tables/{table}?after_version=0&wait=30").json()["version"] == 1
    r = client.get(f"/api/tables/{table}?after_version=7")
    assert r.status_code == 422 and "ahead" in r.json()["detail"]


def test_a_long_poll_on_a_resigned_table_answers_at_once(client):
    """A resigned game is over like a won one (``Table.over``): a long-poll at its last version
    answers at once instead of holding a connection slot for the whole wait."""
    table, tokens = two_humans(client)
    first_moves(client, table, tokens)  # resigned, not aborted (test_web_abort.py)
    r = client.post(f"/api/tables/{table}/resign", headers=auth(tokens[0]))
    assert r.status_code == 200 and r.json()["view"]["over"]
    version = r.json()["view"]["version"]
    t = time.perf_counter()
    view = client.get(f"/api/tables/{table}?after_version={version}&wait=20", headers=auth(tokens[1])).json()
    assert view["over"] and view["result"]["resigned"] == 0 and time.perf_counter() - t < 5


def test_waiting_long_polls_count_against_the_clients_connections():
    from sequence_game.web.limits import ServerLimits

    with TestClient(create_app(ai_pause=0, limits=ServerLimits(max_sockets_per_client=1)), base_url=BASE) as c:
        table, tokens = two_humans(c)
        out = {}
        waiter = threading.Thread(target=lambda: out.setdefault(
            "first", c.get(f"/api/tables/{table}?after_version=0&wait=5")))
        waiter.start()
        for _ in range(400):  # until the first long-poll is waiting
            if c.app.state.service.sockets:
                break
            time.sleep(0.01)
        second = c.get(f"/api/tables/{table}?after_version=0&wait=5")
        assert second.status_code == 429 and "waiting requests" in second.json()["detail"]
        waiter.join(timeout=30)
        assert out["first"].status_code == 200 and c.app.state.service.sockets == {}
        assert c.get(f"/api/tables/{table}?after_version=0&wait=0.1").status_code == 200  # free again


# --------------------------------------------------------------------------- websocket order


def test_hint_then_move_on_the_websocket_is_answered_in_order(client):
    table, tokens = two_humans(client, seed=12, ai_seconds=0.05, hints=True)
    mover = client.get(f"/api/tables/{table}").json()["state"]["current_player"]
    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{table}/ws") as ws:
        ws.send_json({"type": "hello", "token": tokens[mover]})
        view = ws.receive_json()["view"]
        assert view["version"] == 0 and view["legal"]
        ws.send_json({"type": "hint"})
        ws.send_json({"type": "move", "move": view["legal"][0], "version": 0})
        frames = []
        while not any(f["type"] == "state" and f["view"]["version"] == 1 for f in frames):
            frames.append(ws.receive_json())
        kinds = [f["type"] for f in frames if f["type"] != "presence"]
        assert kinds[0] == "hint" and "error" not in kinds, frames
        hint = frames[kinds.index("hint")]
        assert hint["version"] == 0 and hint["move"] in view["legal"]
        models.HintFrame.model_validate(hint)
        # an error frame is not followed by a state: the next frame answers the next message
        ws.send_json({"type": "move", "move": "pass"})
        error = ws.receive_json()
        assert error["type"] == "error"
        models.ErrorFrame.model_validate(error)
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}


def test_hint_over_http_names_its_version(client):
    table, tokens = two_humans(client, seed=13, ai_seconds=0.05, hints=True)
    mover = client.get(f"/api/tables/{table}").json()["state"]["current_player"]
    r = client.post(f"/api/tables/{table}/hint", headers=auth(tokens[mover]))
    assert r.status_code == 200 and r.json()["version"] == 0
    models.HintResponse.model_validate(r.json())


# --------------------------------------------------------------------------- what an app developer meets


def test_a_wrong_token_is_told_what_was_sent_and_what_is_wrong(client):
    """A bot sends a bearer token, not a join link: the refusal names what was sent and why it
    does not fit, over HTTP and at the websocket's hello."""
    table, tokens = two_humans(client)
    other, _ = two_humans(client)
    r = client.get(f"/api/tables/{other}", headers=auth(tokens[0]))
    assert r.status_code == 403
    assert r.json()["detail"].startswith(f"the bearer token (32 characters) is not the token of any seat of table {other}")
    r = client.get(f"/api/tables/{table}", headers=auth("x" * 200))
    assert r.status_code == 403 and r.json()["detail"].startswith("the bearer token is 200 characters; a seat token is")
    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{other}/ws") as ws:
        ws.send_json({"type": "hello", "token": tokens[0]})
        frame = ws.receive_json()
    assert frame["type"] == "error" and frame["detail"].startswith("the hello's token (32 characters) is not")


def test_ai_pause_is_a_server_setting_zero_allowed():
    """``serve --limit ai_pause=0`` is accepted (the AI answers at once, for bots and measurements);
    the default pause is 0.4 s; create_app(ai_pause=...) sets the same limit."""
    from sequence_game.web.limits import ServerLimits

    assert ServerLimits().ai_pause == 0.4
    assert ServerLimits().with_settings(["ai_pause=0"]).ai_pause == 0
    with pytest.raises(ValueError, match="ai_pause must be from 0 to 10"):
        ServerLimits().with_settings(["ai_pause=11"])
    with TestClient(create_app(limits=ServerLimits(ai_pause=0)), base_url=BASE) as c:
        assert c.app.state.service.ai.ai_pause == 0
    with TestClient(create_app(ai_pause=0.1), base_url=BASE) as c:
        assert c.app.state.service.ai.ai_pause == 0.1 and c.app.state.limits.ai_pause == 0.1


def test_the_documented_request_ranges_are_the_ones_the_server_enforces():
    """docs/security.md's ranges of the think times are the models' (the request bounds) and the
    limits' (what the server cuts them to): one truth, checked here."""
    import re
    from pathlib import Path

    from sequence_game.web import models
    from sequence_game.web.limits import ServerLimits
    from sequence_game.web.tables.table import MAX_TURN_SECONDS, MIN_TURN_SECONDS

    text = (Path(__file__).resolve().parent.parent / "docs" / "security.md").read_text(encoding="utf-8")

    def documented(field):
        low, high = re.search(rf"`{field}` ([0-9.,]+)-([0-9.,]+)", text).groups()
        return float(low.replace(",", "")), float(high.replace(",", ""))

    def declared(model, field):
        metadata = model.model_fields[field].metadata
        return (next(m.ge for m in metadata if hasattr(m, "ge")), next(m.le for m in metadata if hasattr(m, "le")))

    assert documented("ai_seconds") == declared(models.CreateTable, "ai_seconds")
    assert documented("seconds") == declared(models.AnalyzeRequest, "seconds")
    assert documented("ai_seconds")[1] == ServerLimits().max_ai_seconds
    assert documented("turn_seconds") == declared(models.CreateTable, "turn_seconds") == (MIN_TURN_SECONDS,
                                                                                           MAX_TURN_SECONDS)
