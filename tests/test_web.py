"""The web server (sequence_game.web) through the ASGI test client: the HTTP API, the websocket
protocol, who sees what (R9), persistence and restarts, and refusals of bad input."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from sequence_game import Game, GameRecord
from sequence_game.web import create_app
from sequence_game.web import tables as web_tables
from sequence_game.web.limits import ServerLimits
from sequence_game.web.tables import Connection, public_observation
from web_support import BASE, auth, new_table, service_of, wait_for

VIEW_KEYS = {"table", "version", "players", "teams", "to_win", "seats", "you", "seat", "hot_seat", "hand_hidden",
             "state", "legal", "moves", "history", "last_move", "thinking", "can_undo", "over", "result",
             "hints", "rated", "can_abort", "can_resign", "rematch", "rematch_allowed", "rematch_offer",
             "turn_seconds", "turn_left", "grace_left", "clock", "chances"}


WS = "ws://127.0.0.1"


@pytest.fixture
def client():
    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        yield c


def human_to_move(table):
    """The game is over, or a human seat is to move and no AI is searching."""
    g = table.game
    return g.is_over or (table.thinking is None and table.seats[g.current_player].kind == "human")


def read_live(read, timeout=20.0):
    """``read()`` of a game the server's thread may be using at this moment (it may still be sending
    the views of the last change): the game's documented RuntimeError means busy, so try again."""
    end = time.monotonic() + timeout
    while True:
        try:
            return read()
        except RuntimeError:
            if time.monotonic() > end:
                raise
            time.sleep(0.005)


# --------------------------------------------------------------------------- creating and reading


def test_create_table_defaults_one_human_against_ai(client):
    tid, tokens = new_table(client, players=2, seed=11)
    assert list(tokens) == [0]
    assert len(tokens[0]) >= 32  # secrets.token_urlsafe(24): 192 bits, unguessable
    view = client.get(f"/api/tables/{tid}", headers=auth(tokens[0])).json()
    assert set(view) == VIEW_KEYS
    assert [s["kind"] for s in view["seats"]] == ["human", "ai"]
    assert view["seat"] == 0 and view["you"] == [0]


def test_join_link_carries_the_token_in_the_fragment(client):
    r = client.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "human"}]})
    links = r.json()["seats"]
    assert len(links) == 2 and links[0]["token"] != links[1]["token"]
    for link in links:
        assert link["url"].endswith(f"/table/{r.json()['table']}#seat={link['token']}")
    assert "#" not in r.json()["spectate_url"]


def test_r9_seat_sees_exactly_its_observation_and_spectator_public(client):
    tid, tokens = new_table(client, players=3, seed=4, seats=[{"kind": "human"}] * 3)
    game = service_of(client).tables[tid].game
    for p, token in tokens.items():
        view = client.get(f"/api/tables/{tid}", headers=auth(token)).json()
        assert view["state"] == json.loads(json.dumps(game.observation(p)))
        assert view["state"]["hands"][p] == game.hand(p)
        assert all(isinstance(h, int) for q, h in enumerate(view["state"]["hands"]) if q != p)
        assert (view["legal"] != []) == (game.current_player == p)  # legal moves only to the seat to move
    spectator = client.get(f"/api/tables/{tid}").json()
    assert spectator["you"] == [] and spectator["seat"] is None and spectator["legal"] == []
    assert spectator["state"] == json.loads(json.dumps(public_observation(game)))
    assert all(isinstance(h, int) for h in spectator["state"]["hands"])
    assert "seed" not in json.dumps(spectator) and "rng" not in spectator["state"]


def test_bad_tokens_and_missing_tables(client):
    tid, _ = new_table(client, players=2, seed=1)
    assert client.get(f"/api/tables/{tid}", headers=auth("x" * 40)).status_code == 403
    assert client.post(f"/api/tables/{tid}/moves", json={"move": "pass"}).status_code == 401
    r = client.get("/api/tables/nope")
    assert r.status_code == 404 and r.json() == {"detail": "no table 'nope'", "error": "NoSuchTableError"}
    r = client.post(f"/api/tables/{tid}/moves", json={"move": "pass"}, headers=auth("y" * 300))
    assert r.status_code == 403


@pytest.mark.parametrize("body, fragment", [
    ({"players": 5}, "R2"),
    ({"players": 6, "teams": 4}, "teams"),
    ({"players": 2, "seats": [{"kind": "human"}]}, "2 players need 2 seats"),
    ({"players": 2, "seats": [{"kind": "human"}, {"kind": "robot"}]}, "kind"),
    ({"players": 2, "seats": [{"kind": "human"}, {"kind": "ai", "ai": "godlike"}]}, "ai"),
    ({"players": 2, "seed": -1}, "seed"),
    ({"players": 2, "color": "blue"}, "Extra inputs"),
    ({"players": 2, "moves": ["7H@a1"]}, "move 0"),
    ({"players": "two"}, "players"),
])
def test_create_table_refuses_bad_input_with_a_message(client, body, fragment):
    r = client.post("/api/tables", json=body)
    assert r.status_code == 422, r.text
    assert fragment in r.json()["detail"]
    assert service_of(client).tables == {}


def test_request_body_size_is_limited(client):
    r = client.post("/api/tables", content=b"{" + b" " * 300_000 + b"}", headers={"Content-Type": "application/json"})
    assert r.status_code == 413


# --------------------------------------------------------------------------- moves over HTTP


def test_moves_illegal_malformed_and_stale_are_refused_with_the_engine_message(client):
    tid, tokens = new_table(client, players=2, seed=3, seats=[{"kind": "human"}, {"kind": "human"}])
    table = service_of(client).tables[tid]
    p = table.game.current_player
    me, other = auth(tokens[p]), auth(tokens[1 - p])
    reference = Game.from_dict(table.game.to_dict())
    try:
        reference.play("pass")
    except ValueError as e:
        expected = str(e)
    r = client.post(f"/api/tables/{tid}/moves", json={"move": "pass"}, headers=me)
    assert (r.status_code, r.json()) == (409, {"detail": expected, "error": "IllegalMoveError"})
    r = client.post(f"/api/tables/{tid}/moves", json={"move": "banana"}, headers=me)
    assert r.status_code == 422 and r.json()["error"] == "InvalidMoveError"
    r = client.post(f"/api/tables/{tid}/moves", json={"move": "x" * 65}, headers=me)
    assert r.status_code == 422
    move = str(table.game.legal_moves()[0])
    r = client.post(f"/api/tables/{tid}/moves", json={"move": move}, headers=other)
    assert r.status_code == 409 and "not your turn" in r.json()["detail"]
    assert table.version == 0 and table.game.turn == 0  # nothing changed
    r = client.post(f"/api/tables/{tid}/moves", json={"move": move, "version": 0}, headers=me)
    assert r.status_code == 200 and r.json()["move"] == move and r.json()["view"]["version"] == 1
    # the same click again (a resend) is refused, not played twice
    r = client.post(f"/api/tables/{tid}/moves", json={"move": move, "version": 0}, headers=me)
    assert r.status_code == 409 and "changed since you saw it" in r.json()["detail"]
    assert table.record.moves == [move]


def test_ai_answers_and_undo_takes_back_the_human_and_ai_moves(client):
    tid, tokens = new_table(client, players=2, seed=8, seats=[{"kind": "human"}, {"kind": "ai", "ai": "easy"}])
    table = service_of(client).tables[tid]
    h = auth(tokens[0])
    wait_for(lambda: table.game.current_player == 0)
    before = table.game.observation(0)
    n = len(table.history)
    move = str(table.game.legal_moves()[0])
    assert client.post(f"/api/tables/{tid}/moves", json={"move": move}, headers=h).status_code == 200
    wait_for(lambda: table.game.current_player == 0 and len(table.history) == n + 2)  # the AI answered
    assert table.history[-1][0] == 1
    # the table's record is the game's own history (GameRecord.from_game), whoever moved
    assert table.record.moves == [str(e) for e in table.game.history] == [str(m) for _, m in table.history]
    assert table.record.to_dict() == GameRecord.from_game(table.game, agents=table.record.agents,
                                                          started=table.record.started).to_dict()
    r = client.post(f"/api/tables/{tid}/undo", headers=h)
    assert r.status_code == 200 and r.json()["undone"] == 2
    # the position seat 0 saw before its move, with the cards it cannot see dealt afresh (R9)
    assert table.game.observation(0) == before and len(table.record.moves) == n
    assert table.record.moves == [str(e) for _, e in table.history] and len(table.movers) == n
    assert table.record.replay().to_dict() == table.game.to_dict()  # the redeal is in the record


def test_undo_is_only_for_games_against_the_ai(client):
    tid, tokens = new_table(client, players=2, seed=8, seats=[{"kind": "human"}, {"kind": "human"}])
    table = service_of(client).tables[tid]
    p = table.game.current_player
    client.post(f"/api/tables/{tid}/moves", json={"move": str(table.game.legal_moves()[0])}, headers=auth(tokens[p]))
    r = client.post(f"/api/tables/{tid}/undo", headers=auth(tokens[p]))
    assert r.status_code == 409 and "against the AI" in r.json()["detail"]
    assert table.game.turn == 1


def test_hint_and_analysis_only_for_the_seat_to_move(client):
    tid, tokens = new_table(client, players=2, seed=2, seats=[{"kind": "human"}, {"kind": "human"}], hints=True)
    table = service_of(client).tables[tid]
    p = table.game.current_player
    legal = {str(m) for m in table.game.legal_moves()}
    r = client.post(f"/api/tables/{tid}/hint", headers=auth(tokens[p]))
    assert r.status_code == 200 and r.json()["move"] in legal
    # the other seat would learn about this seat's hand from a hint or an analysis (R9)
    assert client.post(f"/api/tables/{tid}/hint", headers=auth(tokens[1 - p])).status_code == 409
    assert client.post(f"/api/tables/{tid}/analysis", json={"seconds": 0.05},
                       headers=auth(tokens[1 - p])).status_code == 409
    r = client.post(f"/api/tables/{tid}/analysis", json={"seconds": 0.05}, headers=auth(tokens[p]))
    assert r.status_code == 200
    a = r.json()
    assert a["best"] in legal and a["iterations"] > 0
    assert {m["move"] for m in a["moves"]} <= legal and all(0 <= m["value"] <= 1 for m in a["moves"])
    assert client.post(f"/api/tables/{tid}/analysis", json={"seconds": 0}, headers=auth(tokens[p])).status_code == 422


def test_ai_searches_run_off_the_event_loop(client, monkeypatch):
    """A blocked AI search at one table does not stop another table's human move (it runs in the
    thread pool, not on the event loop)."""
    release = threading.Event()
    threads = []
    service = service_of(client)
    real = service.ai.agent

    class Blocking:
        def __init__(self, agent):
            self.agent = agent

        def select_move(self, game):
            threads.append(threading.current_thread().name)
            release.wait(30)
            return self.agent.select_move(game)

    # this server's AI only: a server of another test still stopping in this process keeps its own
    monkeypatch.setattr(service.ai, "agent", lambda t, s: Blocking(real(t, s)))
    tid_ai, _ = new_table(client, players=2, seed=5, seats=[{"kind": "ai", "ai": "random"}] * 2)
    ai_table = service_of(client).tables[tid_ai]
    wait_for(lambda: threads)
    assert ai_table.thinking is not None
    tid, tokens = new_table(client, players=2, seed=6, seats=[{"kind": "human"}, {"kind": "human"}])
    table = service_of(client).tables[tid]
    p = table.game.current_player
    move = str(table.game.legal_moves()[0])
    r = client.post(f"/api/tables/{tid}/moves", json={"move": move}, headers=auth(tokens[p]))
    assert r.status_code == 200 and ai_table.game.turn == 0  # served while the search still runs
    release.set()
    wait_for(lambda: ai_table.game.turn >= 1)
    assert threads[0].startswith("sequence-ai")


# --------------------------------------------------------------------------- websockets


def test_websocket_protocol_and_refusals(client):
    tid, tokens = new_table(client, players=2, seed=9, seats=[{"kind": "human"}, {"kind": "human"}])
    table = service_of(client).tables[tid]
    p = table.game.current_player
    with client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as ws:
        ws.send_json({"type": "hello", "token": tokens[p]})
        first = ws.receive_json()
        assert first["type"] == "state" and first["view"]["seat"] == p
        ws.send_text("not json")
        assert ws.receive_json()["error"] == "BadMessageError"
        ws.send_text(json.dumps({"type": "move", "move": "pass", "extra": 1}))
        assert "bad message" in ws.receive_json()["detail"]
        ws.send_text(json.dumps({"type": "move", "move": "7H@a1", "pad": "x" * 5000}))
        assert "over 4096 bytes" in ws.receive_json()["detail"]
        ws.send_json({"type": "move", "move": "pass"})
        err = ws.receive_json()
        assert err["error"] == "IllegalMoveError" and "passing is only" in err["detail"]
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
        move = str(table.game.legal_moves()[0])
        ws.send_json({"type": "move", "move": move, "version": 0})
        msg = ws.receive_json()
        assert msg["view"]["version"] == 1 and msg["view"]["last_move"] == {"player": p, "move": move}
    with client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as ws:  # a spectator cannot move
        ws.send_json({"type": "hello", "token": None})
        assert ws.receive_json()["view"]["you"] == []
        ws.send_json({"type": "move", "move": "pass"})
        assert ws.receive_json()["detail"] == "spectators cannot move"
    with client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as ws:  # a wrong token is refused
        ws.send_json({"type": "hello", "token": "z" * 32})
        assert "is not the token of any seat" in ws.receive_json()["detail"]
    with client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as ws:  # hello first
        ws.send_json({"type": "ping"})
        assert "hello" in ws.receive_json()["detail"]


def _check_message(msg, seats, game, table):
    """R9 for one message: the state is exactly what ``seats`` may see, nothing else carries game data."""
    text = json.dumps(msg)
    assert '"seed"' not in text and '"rng"' not in text
    if msg["type"] != "state":
        return
    view = msg["view"]
    assert set(view) == VIEW_KEYS
    state = view["state"]
    if len(seats) == 1:
        (p,) = seats
        assert state == json.loads(json.dumps(game.observation(p)))
        to_move = game.current_player == p and not game.is_over
        assert view["legal"] == ([str(m) for m in game.legal_moves()] if to_move else [])
    else:
        assert state == json.loads(json.dumps(public_observation(game)))
        assert view["legal"] == []
    assert isinstance(state["draw_pile"], int)
    for q, hand in enumerate(state["hands"]):
        assert isinstance(hand, int) or (len(seats) == 1 and q in seats)
    assert view["moves"] == len(table.history)
    assert view["history"] == [[q, str(m)] for q, m in table.history][-web_tables.HISTORY_TAIL:]


@pytest.mark.parametrize("players, seed", [(2, 21), (4, 22), (3, 23)])
def test_r9_every_message_to_every_seat_over_whole_games(client, monkeypatch, players, seed):
    """Whole games with human seats on websockets, an AI seat and a spectator: every message the
    server sends is checked at the moment it is sent against the live game (R9), and every message
    a browser receives is checked again for hidden data."""
    checked = []
    real_send = Connection.send_text
    svc = service_of(client)

    def spying_send(self, text):
        table = next(t for t in svc.tables.values() if self in t.connections)
        _check_message(json.loads(text), self.seats, table.game, table)
        checked.append(self.seats)
        real_send(self, text)

    monkeypatch.setattr(Connection, "send_text", spying_send)
    seats = [{"kind": "human"}] * (players - 1) + [{"kind": "ai", "ai": "random"}]
    tid, tokens = new_table(client, players=players, seed=seed, seats=seats)
    table = svc.tables[tid]
    rng = random.Random(seed)
    sockets = {}
    try:
        for p, token in [*tokens.items(), (None, None)]:
            ws = client.websocket_connect(f"{WS}/api/tables/{tid}/ws").__enter__()
            ws.send_json({"type": "hello", "token": token})
            sockets[p] = ws
        while not table.game.is_over:
            wait_for(lambda: human_to_move(table))
            if table.game.is_over:
                break
            p = table.game.current_player
            move = rng.choice(read_live(table.game.legal_moves))
            version = table.version
            sockets[p].send_json({"type": "move", "move": str(move), "version": version})
            wait_for(lambda v=version: table.version > v)
        final = table.version
        for p, ws in sockets.items():
            while True:  # every message this browser got, up to the final state
                msg = ws.receive_json()
                text = json.dumps(msg)
                assert '"seed"' not in text and '"rng"' not in text and '"draw_pile": [' not in text
                if msg["type"] == "state":
                    hands = msg["view"]["state"]["hands"]
                    assert all(isinstance(h, int) for q, h in enumerate(hands) if q != p)
                    if msg["view"]["version"] == final and msg["view"]["over"]:
                        break
    finally:
        for ws in sockets.values():
            ws.__exit__(None, None, None)
    assert table.game.is_over
    assert set(checked) >= {frozenset([p]) for p in tokens} | {frozenset()}
    assert len(checked) >= len(sockets) * table.version  # every change reached every connection


def test_hot_seat_hides_the_hand_between_turns(client):
    tid, tokens = new_table(client, players=2, seed=13, hot_seat=True, seats=[{"kind": "human"}, {"kind": "human"}])
    assert list(tokens) == [0]  # one link for the whole screen
    table = service_of(client).tables[tid]
    with client.websocket_connect(f"{WS}/api/tables/{tid}/ws") as ws:
        ws.send_json({"type": "hello", "token": tokens[0]})
        view = ws.receive_json()["view"]
        assert view["hand_hidden"] and view["seat"] is None
        assert all(isinstance(h, int) for h in view["state"]["hands"]) and view["legal"] == []
        move = str(table.game.legal_moves()[0])
        ws.send_json({"type": "move", "move": move})
        assert "show your hand first" in ws.receive_json()["detail"]
        ws.send_json({"type": "reveal"})
        view = ws.receive_json()["view"]
        p = table.game.current_player
        assert view["seat"] == p and view["state"]["hands"][p] == table.game.hand(p) and not view["hand_hidden"]
        ws.send_json({"type": "move", "move": move, "version": view["version"]})
        view = ws.receive_json()["view"]
        assert view["hand_hidden"] and view["seat"] is None  # the next player must ask again


# --------------------------------------------------------------------------- persistence


def _play_some(client, tid, tokens, table, n, rng):
    for _ in range(n):
        wait_for(lambda: human_to_move(table))
        if table.game.is_over:
            return
        p = table.game.current_player
        r = client.post(f"/api/tables/{tid}/moves", json={"move": str(rng.choice(table.game.legal_moves()))},
                        headers=auth(tokens[p]))
        assert r.status_code == 200, r.text


def test_restart_resumes_unfinished_tables_from_the_database(tmp_path):
    db = tmp_path / "tables.sqlite3"
    rng = random.Random(1)
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        tid, tokens = new_table(c, players=2, seed=31, seats=[{"kind": "human"}, {"kind": "ai", "ai": "easy"}])
        table = service_of(c).tables[tid]
        _play_some(c, tid, tokens, table, 6, rng)
        wait_for(lambda: table.thinking is None and table.game.current_player == 0)
        state, history, version = table.game.to_dict(), list(table.history), table.version
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        table = service_of(c).tables[tid]
        assert table.game.to_dict() == state and table.history == history and table.version == version
        view = c.get(f"/api/tables/{tid}", headers=auth(tokens[0])).json()  # the join link still works
        assert view["seat"] == 0 and view["legal"]
        # One turn of the human's (a play, not a dead-card trade, which keeps the turn), then the AI's turn:
        # the AI resumed too. The AI may trade a dead card (R5) before it plays, so count turns, not moves.
        turn = table.game.turn
        move = rng.choice([m for m in table.game.legal_moves() if m.kind != "trade"])
        assert c.post(f"/api/tables/{tid}/moves", json={"move": str(move)}, headers=auth(tokens[0])).status_code == 200
        wait_for(lambda: table.game.turn == turn + 2 and table.thinking is None)
        assert table.game.current_player == 0 and table.history[-1][0] == 1


def test_finished_game_record_download_replay_and_cli(tmp_path, client):
    tid, _ = new_table(client, players=2, seed=41, seats=[{"kind": "ai", "ai": "easy"}] * 2)
    table = service_of(client).tables[tid]
    assert client.get(f"/api/tables/{tid}/record").status_code == 409  # the seed stays secret until the end
    wait_for(lambda: table.game.is_over, timeout=60)
    r = client.get(f"/api/tables/{tid}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    record = GameRecord.from_json(r.text)
    assert record.replay().to_dict() == table.game.to_dict()
    assert record.agents == ["easy", "easy"] and record.result["turns"] == table.game.turn
    replay = client.get(f"/api/tables/{tid}/replay").json()
    assert len(replay["steps"]) == len(record.moves) + 1
    assert replay["steps"][-1]["state"]["board"] == table.game.to_dict()["board"]
    path = tmp_path / "game.json"
    path.write_text(r.text)
    from sequence_game.cli import main

    assert main(["replay", str(path), "--no-color"]) == 0
    listed = client.get("/api/tables", params={"finished": True}).json()
    assert [t["table"] for t in listed] == [tid] and listed[0]["over"]


def test_continue_a_saved_game_from_its_moves(client):
    from sequence_game.agents import RandomAgent
    from sequence_game.records import play_game

    rec = play_game([RandomAgent(seed=1), RandomAgent(seed=2)], players=2, seed=77)
    cut = rec.moves[:-1]
    last_player = GameRecord(players=2, teams=2, seed=77, moves=cut).replay().current_player
    seats = [{"kind": "human"} if p == last_player else {"kind": "ai", "ai": "easy"} for p in range(2)]
    tid, tokens = new_table(client, players=2, seed=77, seats=seats, moves=cut)
    r = client.post(f"/api/tables/{tid}/moves", json={"move": rec.moves[-1]}, headers=auth(tokens[last_player]))
    assert r.status_code == 200 and r.json()["view"]["over"]
    assert r.json()["view"]["result"]["winner"] == rec.result["winner"]


def test_openapi_documents_the_api(client):
    spec = client.get("/openapi.json").json()
    for path in ("/api/tables", "/api/tables/{table_id}", "/api/tables/{table_id}/moves", "/api/tables/{table_id}/hint",
                 "/api/tables/{table_id}/analysis", "/api/tables/{table_id}/undo", "/api/tables/{table_id}/record"):
        assert path in spec["paths"], path
    assert "CreateTable" in spec["components"]["schemas"] and "HTTPBearer" in spec["components"]["securitySchemes"]
    assert client.get("/docs").status_code == 200


def test_presets_come_from_the_agent_registry(client):
    """One home for the AI strengths: the API enum, GET /api/presets and the seats' agents are the
    ladder's eight levels (agents/levels.py; easy, medium and hard under those names), `rules` and
    `random`, each with its packaged rating (agents/data/ladder.json)."""
    from sequence_game.agents.levels import LEVELS, packaged_ratings
    from sequence_game.agents.presets import PRESETS
    from sequence_game.web.tables import AI_PRESETS

    listed = client.get("/api/presets").json()
    assert [p["level"] for p in listed] == [1, 2, 3, 4, 5, 6, 7, 8, None, None]
    assert [p["name"] for p in listed] == ["level:1", "level:2", "level:3", "level:4", "level:5", "easy", "medium",
                                           "hard", "rules", "random"]
    ratings = packaged_ratings()
    assert [p["rating"] for p in listed[:8]] == [ratings[lv.name]["rating"] for lv in LEVELS]
    # every name a seat may ask for: those listed, the other names of levels 6, 7, 8 and max
    assert set(AI_PRESETS) == {p["name"] for p in listed} | {"max", "level:6", "level:7", "level:8"}
    enum = str(client.get("/openapi.json").json()["components"]["schemas"]["SeatSpec"]["properties"]["ai"])
    assert all(repr(name) in enum for name in AI_PRESETS), enum  # every preset in the documented enum
    # a search preset is cut to the table's think time; the heuristic ones need none
    tid, _ = new_table(client, players=4, seed=3, ai_seconds=0.5,
                       seats=[{"kind": "human"}] + [{"kind": "ai", "ai": n} for n in ("easy", "hard", "max")])
    rec = service_of(client).tables[tid].record
    assert rec.agents == ["human", "easy", "hard:time=0.5", f"max:time={min(PRESETS['hard'].time_cap, 0.5):g}"]
    r = client.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "ai", "ai": "expert"}]})
    assert r.status_code == 422


def test_pages_and_board_svg_are_served(client):
    for path in ("/", "/table/abc", "/replay/abc", "/static/table.js", "/static/board.js", "/static/style.css"):
        assert client.get(path).status_code == 200, path
    svg = client.get("/board.svg").text
    assert svg.startswith("<svg") and svg.count('class="cell"') == 100


def test_serve_without_the_web_extra_names_it(monkeypatch, capsys):
    from sequence_game import web
    from sequence_game.cli import main

    monkeypatch.setattr(web, "missing_dependencies", lambda: ["fastapi"])
    assert main(["serve", "--no-browser"]) == 1
    assert 'pip install "sequence-game[web]"' in capsys.readouterr().err


def test_serve_command_starts_the_server(tmp_path):
    """``sequence-game serve`` as a user runs it: a real uvicorn on a free loopback port."""
    import socket
    import subprocess
    import sys
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "serve.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "sequence_game", "serve", "--no-browser", "--port", str(port),
                             "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        end = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tables") as r:
                    assert json.load(r) == []
                break
            except OSError:
                assert time.monotonic() < end and proc.poll() is None, "serve did not start"
                time.sleep(0.1)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as r:
            assert b"New table" in r.read()
    finally:
        proc.terminate()
        out = proc.communicate(timeout=20)[0]
    assert f"serving on http://127.0.0.1:{port}/" in out and str(db) in out
    assert db.exists()


def test_the_server_freezes_what_lives_and_still_frees_cycles(monkeypatch):
    """``serve`` freezes the collector's objects every few seconds, so a full collection walks only
    what is newer (docs/measurements.md, "Capacity of one server process"); the periodic collection
    over everything still frees a reference cycle that became garbage after it was frozen."""
    import gc
    import weakref

    from sequence_game.web import serve as serve_module

    class Node:
        pass

    monkeypatch.setattr(serve_module, "FREEZE_SECONDS", 0.02)
    monkeypatch.setattr(serve_module, "FREEZES_PER_FULL_COLLECTION", 10**9)  # no full collection yet
    gc.unfreeze()  # what an earlier test's serve() froze: the count below is the keeper's
    gc.collect()
    cycle = Node()
    cycle.self = cycle  # freed only by the collector
    freed = threading.Event()
    watch = weakref.ref(cycle, lambda _: freed.set())
    stop = threading.Event()
    keeper = threading.Thread(target=serve_module._keep_full_collections_short, args=(stop,), daemon=True)
    try:
        keeper.start()
        end = time.monotonic() + 30
        while gc.get_freeze_count() == 0:
            assert time.monotonic() < end, "nothing was frozen"
            time.sleep(0.01)
        del cycle
        gc.collect()  # a collection of the unfrozen objects: the frozen cycle is not among them
        assert watch() is not None, "the frozen cycle was collected: it was not frozen"
        monkeypatch.setattr(serve_module, "FREEZES_PER_FULL_COLLECTION", 1)  # the next one looks at everything
        assert freed.wait(30), "the cycle was never freed: the full collection did not come"
    finally:
        stop.set()
        keeper.join(30)
        gc.unfreeze()


def test_serve_builds_every_route_before_it_answers(monkeypatch, tmp_path):
    """FastAPI builds an included router's routes when the first request reaches it, tens of
    milliseconds on the event loop (docs/web.md, "Load"); ``serve`` builds them all before it
    answers anyone, so no request, whichever router it reaches first, builds one."""
    import fastapi.routing
    import uvicorn
    from sequence_game.cli import main

    lazy = getattr(fastapi.routing, "_EffectiveRouteContext", None)
    if lazy is None:
        pytest.skip("this FastAPI builds its routes when they are included")
    answers = {}

    def run(server) -> None:
        def refuse(*args, **kwargs):
            raise AssertionError("a route was built while a request waited")

        monkeypatch.setattr(lazy, "from_api_route", classmethod(refuse))
        with TestClient(server.config.app, base_url=BASE) as c:
            for path in ("/api/presets", "/api/leaderboard", "/api/tournaments", "/api/players/nobody"):
                answers[path] = c.get(path).status_code

    monkeypatch.setattr(uvicorn.Server, "run", run)
    main(["serve", "--no-browser", "--db", str(tmp_path / "t.sqlite3")])
    assert answers == {"/api/presets": 200, "/api/leaderboard": 200, "/api/tournaments": 200,
                       "/api/players/nobody": 404}


def test_serve_limit_option_sets_the_server_limits(monkeypatch, capsys, tmp_path):
    """``serve --limit NAME=VALUE`` changes one ServerLimits field; a bad name, value or bound is
    one line naming what is settable, exit status 2, and no server."""
    import uvicorn
    from sequence_game.cli import main
    from sequence_game.web import app as app_module

    seen = []
    real_create_app = app_module.create_app
    monkeypatch.setattr(app_module, "create_app", lambda *a, **k: seen.append(k["limits"]) or real_create_app(*a, **k))
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)  # nothing is bound
    db = str(tmp_path / "t.sqlite3")
    main(["serve", "--no-browser", "--db", db, "--limit", "idle_seconds=3600", "--limit", "max-tables-per-client=5"])
    assert seen[-1].idle_seconds == 3600.0 and seen[-1].max_tables_per_client == 5
    assert seen[-1].abandoned_seconds == 15 * 60  # the others keep their defaults
    for bad, says in [("idle_seconds", "expected NAME=VALUE"), ("speed=3", "max_tables_per_client"),
                      ("max_tables=2.5", "expected an integer"), ("max_ai_seconds=fast", "expected a number"),
                      ("max_tables=0", "at least 1"), ("idle_seconds=inf", "positive finite"),
                      ("allowed_hosts=x", "NAME one of")]:
        count = len(seen)
        assert main(["serve", "--no-browser", "--db", db, "--limit", bad]) == 2, bad
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1, (bad, err)
        assert len(seen) == count  # refused before any app was made


def test_serve_limit_option_sets_the_clubs_limits_too(monkeypatch, capsys, tmp_path):
    """The club's limits (sign-ups, logins, password hashing) are set with ``serve --limit`` like
    every other limit; a bad one is one line, exit status 2."""
    import uvicorn
    from sequence_game.cli import main
    from sequence_game.web import app as app_module
    from sequence_game.web.club import ClubSettings

    seen = []
    real_create_app = app_module.create_app
    monkeypatch.setattr(app_module, "create_app", lambda *a, **k: seen.append(k) or real_create_app(*a, **k))
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)  # nothing is bound
    db = str(tmp_path / "t.sqlite3")
    main(["serve", "--no-browser", "--db", db, "--limit", "signup_burst=10", "--limit", "login-per-hour=60",
          "--limit", "idle_seconds=3600"])
    club, limits = seen[-1]["club"], seen[-1]["limits"]
    assert (club.signup_burst, club.login_per_hour, club.name_burst) == (10, 60.0, ClubSettings().name_burst)
    assert limits.idle_seconds == 3600.0
    for bad, says in [("signup_burst=0", "at least 1"), ("signup_burst=2.5", "expected an integer"),
                      ("name_per_hour=-1", "positive finite"), ("hash_overrides=1", "signup_burst"),
                      ("speed=3", "signup_burst")]:
        count = len(seen)
        assert main(["serve", "--no-browser", "--db", db, "--limit", bad]) == 2, bad
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1, (bad, err)
        assert len(seen) == count


def test_serve_warns_when_listening_beyond_this_machine(monkeypatch, capsys, tmp_path):
    import uvicorn
    from sequence_game.web.serve import serve

    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)  # nothing is bound
    assert serve(host="0.0.0.0", port=8123, db=str(tmp_path / "t.sqlite3"), open_browser=False) == 2
    assert "--allowed-host" in capsys.readouterr().err  # an open server names the hosts it answers to
    serve(host="0.0.0.0", port=8123, db=str(tmp_path / "t.sqlite3"), open_browser=False,
          allowed_hosts=["games.example.org"])
    assert "warning: serving on 0.0.0.0" in capsys.readouterr().err
    serve(host="127.0.0.1", port=8123, db=str(tmp_path / "t.sqlite3"), open_browser=False)
    assert "warning" not in capsys.readouterr().err


def test_serving_leaves_the_root_logger_alone(monkeypatch, tmp_path):
    """``serve`` logs through the package's own logger, to standard error as it is at each record:
    a host program's (or pytest's) root logger is not reconfigured, and a stream swapped and closed
    after the server started is never written to."""
    import io
    import logging
    import sys

    import uvicorn
    from sequence_game.web.serve import serve

    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)
    root = list(logging.getLogger().handlers)
    mine = logging.StreamHandler(io.StringIO())  # a handler of the host program: never closed by serving
    logging.getLogger("host").addHandler(mine)
    swapped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", swapped)
    serve(host="127.0.0.1", port=8123, db=str(tmp_path / "t.sqlite3"), open_browser=False)
    assert logging.getLogger().handlers == root
    logging.getLogger("host").warning("still open")
    assert mine.stream.getvalue() == "still open\n"
    logging.getLogger("host").removeHandler(mine)
    logging.getLogger("sequence_game.web").warning("to the stream of now")
    assert "to the stream of now" in swapped.getvalue()
    monkeypatch.undo()
    swapped.close()
    logging.getLogger("sequence_game.web").warning("after the old stream closed")  # no ValueError


def test_a_full_server_forgets_finished_tables_first(client):
    service_of(client).limits = ServerLimits(max_tables=2)
    tid, _ = new_table(client, players=2, seed=41, seats=[{"kind": "ai", "ai": "random"}] * 2)
    table = service_of(client).tables[tid]
    wait_for(lambda: table.game.is_over, timeout=60)
    new_table(client, players=2, seed=1)
    new_table(client, players=2, seed=2)  # the finished table made room
    assert tid not in service_of(client).tables
    assert client.get(f"/api/tables/{tid}").json()["over"]  # still served from the store
    (listed,) = [t for t in client.get("/api/tables").json() if t["table"] == tid]  # read from its row
    assert listed["over"] and listed["turn"] == table.game.turn
    assert listed["result"]["text"].startswith(("Team", "Draw"))
    r = client.post("/api/tables", json={"players": 2})
    assert r.status_code == 503 and "try again later" in r.json()["detail"]


def test_every_ai_written_in_python_runs_in_a_worker_process():
    """A Python agent holds the GIL while it thinks: run in the server's event loop, it would stall
    every table. Every seat preset built on one (the levels and presets included) runs in a worker
    process; the compiled searches run in threads."""
    from sequence_game.agents import GreedyAgent, HumanLikeAgent, RuleBasedAgent, agent_from_spec
    from sequence_game.web.presets import AI_PRESETS, runs_in_process, seat_spec

    for name in AI_PRESETS:
        spec = seat_spec(name, 2.0)
        python = isinstance(agent_from_spec(spec), (GreedyAgent, HumanLikeAgent, RuleBasedAgent))
        assert runs_in_process(spec) == python, (name, spec)
