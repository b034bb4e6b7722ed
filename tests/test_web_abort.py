"""Abort and the first move's grace at a table of people (web/tables/opening.py, docs/club.md,
"Abort"): who may abort and until when, what an aborted game says everywhere (the record, the view,
the lobby, the player page, the event stream), the grace that is not taken from the clock and
aborts past its end, and their siblings: the turn timer, a table without a time control, AI seats,
a restart, a rematch, a tournament's tables and the bot API."""

from __future__ import annotations

import contextlib
import json
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from sequence_game.records import GameRecord
from sequence_game.web import create_app
from web_support import BASE, auth, new_table, service_of, wait_for

TWO_HUMANS = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]
FISCHER = {"kind": "fischer", "seconds": 60, "increment": 5}


@pytest.fixture
def client():
    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        yield c


def _view(client, tid, token=None):
    return client.get(f"/api/tables/{tid}", headers=auth(token) if token else {}).json()


def _move(client, tid, tokens):
    """The seat to move plays its first legal move; returns that seat."""
    p = _view(client, tid)["state"]["current_player"]
    legal = _view(client, tid, tokens[p])["legal"]
    r = client.post(f"/api/tables/{tid}/moves", json={"move": legal[0]}, headers=auth(tokens[p]))
    assert r.status_code == 200, r.text
    return p


def test_each_person_may_abort_until_every_first_move_then_resign(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS)
    for p in (0, 1):
        v = _view(client, tid, tokens[p])
        assert v["can_abort"] and not v["can_resign"]  # the page offers Abort, not Resign, from move 0
    assert not _view(client, tid)["can_abort"]  # a spectator aborts nothing
    mover = _move(client, tid, tokens)
    assert _view(client, tid, tokens[mover])["can_abort"]  # the other seat has not moved yet
    _move(client, tid, tokens)
    v = _view(client, tid, tokens[0])
    assert not v["can_abort"] and v["can_resign"]
    r = client.post(f"/api/tables/{tid}/abort", headers=auth(tokens[0]))
    assert r.status_code == 409 and "first move" in r.json()["detail"], r.text


def test_an_aborted_game_has_no_winner_and_says_so_everywhere(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS)
    mover = _move(client, tid, tokens)
    r = client.post(f"/api/tables/{tid}/abort", headers=auth(tokens[mover]))  # the seat that moved may abort too
    assert r.status_code == 200, r.text
    assert r.json()["aborted"] == mover
    v = r.json()["view"]
    assert v["over"] and not v["can_abort"] and not v["can_resign"] and v["chances"] is None
    res = v["result"]
    assert res["winner"] is None and not res["is_draw"] and res["resigned"] is None
    assert res["aborted"] == {"seat": mover, "why": "abort"}
    assert "aborted" in res["text"] and "Nobody wins or loses" in res["text"]
    record = client.get(f"/api/tables/{tid}/record").json()
    assert record["ending"] == "aborted" and record["aborted"] == {"seat": mover, "why": "abort"}
    assert record["result"] == {"winner": None, "is_draw": False, "turns": 1} and "resigned" not in record
    rec = GameRecord.from_dict(record)
    assert not rec.replay().is_over and "aborted" in str(rec)  # the moves replay to a game still going
    row = next(t for t in client.get("/api/tables?finished=true").json() if t["table"] == tid)
    assert row["result"]["aborted"] == {"seat": mover, "why": "abort"}  # the lobby's finished games
    again = client.post(f"/api/tables/{tid}/abort", headers=auth(tokens[1 - mover]))
    assert again.status_code == 409 and "over" in again.json()["detail"]


def test_a_record_with_a_damaged_ending_is_refused():
    good = {"format": "sequence-game-record/1", "players": 2, "teams": 2, "seed": 1, "moves": [],
            "result": {"winner": None, "is_draw": False, "turns": 0}, "ending": "aborted",
            "aborted": {"seat": 1, "why": "abort"}}
    assert GameRecord.from_dict(good).aborted == {"seat": 1, "why": "abort"}
    for bad, words in ((dict(good, ending="lost"), "'ending'"), (dict(good, aborted=None), "'aborted'"),
                       (dict(good, aborted={"seat": 5, "why": "abort"}), "aborted.seat"),
                       (dict(good, aborted={"seat": 0, "why": "bored"}), "'aborted'"),
                       (dict(good, result={"winner": 0, "is_draw": False, "turns": 0}), "aborted game"),
                       ({k: v for k, v in good.items() if k != "ending"}, "needs 'ending'")):
        with pytest.raises(ValueError, match=words):
            GameRecord.from_dict(bad)
    # a record that says aborted, but whose moves end the game by the rules, does not replay
    with pytest.raises(ValueError, match="aborted"):
        GameRecord.from_dict(dict(good, result={"winner": None, "is_draw": False, "turns": 3})).replay()


def test_resigning_before_every_first_move_aborts_as_on_lichess(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS)
    r = client.post(f"/api/tables/{tid}/resign", headers=auth(tokens[1]))
    assert r.status_code == 200, r.text
    res = r.json()["view"]["result"]
    assert res["aborted"] == {"seat": 1, "why": "abort"} and res["winner"] is None and res["resigned"] is None


def test_no_abort_against_the_computer_nor_at_a_hot_seat(client):
    tid, tokens = new_table(client, players=2, seats=[{"kind": "human"}, {"kind": "ai", "ai": "random"}])
    v = _view(client, tid, tokens[0])
    assert not v["can_abort"] and v["can_resign"]
    r = client.post(f"/api/tables/{tid}/abort", headers=auth(tokens[0]))
    assert r.status_code == 409 and "between people" in r.json()["detail"]
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS, hot_seat=True)
    assert not _view(client, tid, tokens[0])["can_abort"]
    assert client.post(f"/api/tables/{tid}/abort", headers=auth(tokens[0])).status_code == 409
    # a spectator has no seat to abort for
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS)
    assert client.post(f"/api/tables/{tid}/abort").status_code == 401


def test_the_websocket_aborts_too(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS)
    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as ws:
        ws.send_json({"type": "hello", "token": tokens[0]})
        assert ws.receive_json()["view"]["can_abort"]
        ws.send_json({"type": "abort"})
        while not (msg := ws.receive_json())["view"]["over"]:
            pass
    assert msg["view"]["result"]["aborted"] == {"seat": 0, "why": "abort"}


def test_the_first_move_has_a_grace_not_taken_from_the_clock(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS, clock=FISCHER)
    v = _view(client, tid)
    p = v["state"]["current_player"]
    assert v["clock"]["running"] is None and v["clock"]["left"] == [60, 60]  # no clock runs in the grace
    assert 25 < v["grace_left"] <= 30 and v["turn_left"] is not None
    time.sleep(0.3)
    mover = _move(client, tid, tokens)
    assert mover == p
    v = _view(client, tid)
    assert v["clock"]["left"][mover] == 60  # the grace cost nothing, and brought no increment
    assert v["clock"]["running"] is None and v["grace_left"] is not None  # now the other seat's grace
    _move(client, tid, tokens)
    v = _view(client, tid)
    assert v["grace_left"] is None and v["clock"]["running"] == mover  # every first move made: clocks run
    assert 55 < v["clock"]["left"][mover] <= 60 and v["clock"]["left"][1 - mover] == 60


@pytest.mark.parametrize("control", [{"clock": FISCHER}, {"clock": dict(FISCHER, at_zero="lose")},
                                     {"turn_seconds": 10}])
def test_past_the_grace_the_game_is_aborted_not_lost_nor_played_by_the_ai(client, control):
    service_of(client).clock.grace_seconds = 0.2
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS, **control)
    table = service_of(client).tables[tid]
    p = table.game.current_player
    wait_for(lambda: table.over)
    v = _view(client, tid)
    assert v["result"]["aborted"] == {"seat": p, "why": "no-first-move"} and v["result"]["winner"] is None
    assert "did not make a first move" in v["result"]["text"]
    assert table.movers == [] and table.record.timeouts == []  # the AI played nothing for the seat
    if "clock" in control:
        assert v["clock"]["left"] == [60, 60] and v["clock"]["flagged"] is None


def test_the_second_seats_grace_runs_out_after_the_first_moved(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS, clock=FISCHER)
    table = service_of(client).tables[tid]
    mover = _move(client, tid, tokens)  # within the usual grace, however slow the machine
    assert not table.over and table.grace == 1 - mover
    client.portal.call(_shorten_grace, service_of(client), table, 0.2)  # the second seat's, now 0.2 s
    wait_for(lambda: table.over)
    assert table.record.aborted == {"seat": 1 - mover, "why": "no-first-move"}


def test_ai_seats_are_not_waited_on(client):
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "ai": "random"},
             {"kind": "human", "name": "Bob"}, {"kind": "ai", "ai": "random"}]
    tid, tokens = new_table(client, players=4, teams=2, seats=seats, clock=FISCHER)
    table = service_of(client).tables[tid]

    def human_to_move():
        wait_for(lambda: table.seats[table.game.current_player].kind == "human" and table.clock is not None)
        return table.game.current_player

    first = human_to_move()  # the deal decides who starts (R4): an AI seat played at once, no grace
    assert table.grace == first and _view(client, tid, tokens[first])["can_abort"]
    _move(client, tid, tokens)
    second = human_to_move()
    assert second == 2 - first and table.grace == second and table.movers[-1] % 2 == 1  # the AI moved between
    assert _view(client, tid, tokens[first])["can_abort"]  # the other person has not moved yet
    _move(client, tid, tokens)
    p = human_to_move()
    v = _view(client, tid, tokens[p])
    assert not v["can_abort"] and v["can_resign"] and v["clock"]["running"] == p and table.grace is None


def test_a_restart_in_the_grace_gives_the_seat_a_whole_grace_again(tmp_path):
    db = tmp_path / "t.sqlite3"
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        tid, tokens = new_table(c, players=2, seats=TWO_HUMANS, clock=FISCHER)
        mover = _move(c, tid, tokens)
        assert _view(c, tid)["grace_left"] is not None
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        v = _view(c, tid, tokens[1 - mover])
        assert 25 < v["grace_left"] <= 30 and v["clock"]["running"] is None and v["clock"]["left"] == [60, 60]
        assert v["can_abort"] and not v["can_resign"]  # recomputed from the stored moves
        table = service_of(c).tables[tid]
        c.portal.call(_shorten_grace, service_of(c), table, 0.1)  # past it: aborted, as before the restart
        wait_for(lambda: table.over)
        assert table.record.aborted == {"seat": 1 - mover, "why": "no-first-move"}


async def _shorten_grace(service, table, seconds):
    """The running grace again, ``seconds`` long (in the server's event loop)."""
    table.clock.cancel()
    table.clock = table.grace = None
    service.clock.grace_seconds = seconds
    service.start_clock(table, table.game.current_player)


def test_a_rematch_of_an_aborted_game_is_an_offer_with_a_fresh_grace(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS, clock=FISCHER)
    assert client.post(f"/api/tables/{tid}/abort", headers=auth(tokens[0])).status_code == 200
    assert _view(client, tid, tokens[0])["rematch_allowed"]
    assert client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0])).status_code == 202  # an offer
    r = client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[1]))
    assert r.status_code == 201, r.text
    new = r.json()["table"]
    v = _view(client, new, tokens[0])
    assert v["can_abort"] and 25 < v["grace_left"] <= 30 and v["clock"]["left"] == [60, 60]


def test_the_event_stream_ends_with_the_abort_and_a_bot_can_abort(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS)
    with client.stream("GET", f"/api/tables/{tid}/stream", headers=auth(tokens[1])) as stream:
        lines = stream.iter_lines()
        first = json.loads(next(lines))
        assert first["view"]["can_abort"]
        assert client.post(f"/api/tables/{tid}/abort", headers=auth(tokens[1])).status_code == 200
        states = [json.loads(line) for line in lines if line.strip()]
    assert states[-1]["view"]["over"] and states[-1]["view"]["result"]["aborted"]["why"] == "abort"


@contextlib.contextmanager
def _rated_table_of_alice_and_bob():
    """Accounts alice and bob signed in at a rated table without a clock: (alice's browser, the
    table, the seats' tokens)."""
    pytest.importorskip("argon2")
    pytest.importorskip("openskill")
    from test_web_accounts import browser, make_app, rated_table, sign_up

    app = make_app()
    with browser(app) as a, browser(app) as b:
        sign_up(a, "alice")
        sign_up(b, "bob")
        table, tokens = rated_table(a, [b])
        yield a, table, tokens


def test_an_aborted_rated_game_counts_for_nobody(tmp_path):
    with _rated_table_of_alice_and_bob() as (a, table, tokens):
        assert a.get(f"/api/tables/{table}", headers=auth(tokens[0])).json()["can_abort"]
        _move(a.client, table, tokens)
        assert a.post(f"/api/tables/{table}/abort", headers=auth(tokens[1])).status_code == 200
        assert a.get(f"/api/tables/{table}/ratings").json() == []
        for name in ("alice", "bob"):
            page = a.get(f"/api/players/{name}").json()
            game = page["games"][0]
            assert page["rating"] == 500 and page["rated_games"] == 0
            assert (game["outcome"], game["how"], game["rated"], game["counted"], game["change"]) == \
                ("aborted", "aborted", True, False, None)
            assert game["why"] == "the game was aborted before every player's first move"


def test_without_a_clock_the_one_waiting_for_a_first_move_may_abort_and_nothing_counts():
    """A rated table of people without a time control: nothing runs out (no grace, no timer), so a
    person who sits and never moves would hold the other forever. The one who moved may abort
    while the other has not, as on lichess: nobody wins, no rating changes."""
    with _rated_table_of_alice_and_bob() as (a, table, tokens):
        waiting = _move(a.client, table, tokens)
        v = a.get(f"/api/tables/{table}", headers=auth(tokens[waiting])).json()
        assert v["state"]["current_player"] == 1 - waiting and v["can_abort"] and not v["can_resign"]
        assert (v["clock"], v["turn_seconds"], v["grace_left"], v["turn_left"]) == (None, None, None, None)
        live = service_of(a.client).tables[table]
        assert (live.grace, live.clock, live.deadline) == (None, None, None)  # nothing will end the wait
        r = a.post(f"/api/tables/{table}/abort", headers=auth(tokens[waiting]))
        assert r.status_code == 200 and r.json()["aborted"] == waiting, r.text
        record = a.get(f"/api/tables/{table}/record").json()
        assert (record["ending"], record["aborted"], record["result"]["winner"]) == (
            "aborted", {"seat": waiting, "why": "abort"}, None)
        row = next(t for t in a.get("/api/tables?finished=true").json() if t["table"] == table)
        assert row["result"]["aborted"] == {"seat": waiting, "why": "abort"}  # the lobby's finished games
        assert a.get(f"/api/tables/{table}/ratings").json() == []
        for name in ("alice", "bob"):
            page = a.get(f"/api/players/{name}").json()
            assert (page["rating"], page["games"][0]["outcome"], page["games"][0]["counted"]) == (500, "aborted", False)


def test_a_tournament_game_is_not_aborted_its_no_show_rule_stands(tmp_path):
    """A tournament's table: no Abort and no grace; its own no-show rule (a forfeit after
    ``grace_seconds``) decides a first move that does not come (docs/club.md, "No-shows"), so an
    arena's or a Swiss's game always ends with a score."""
    pytest.importorskip("argon2")
    pytest.importorskip("openskill")
    from sequence_game.web.tournaments.service import TournamentSettings
    from test_web_tournament_api import announce, app_at, members, seat_of, tournament

    app = app_at(tmp_path / "club.sqlite", TournamentSettings(tick_seconds=0.05, grace_seconds=600.0, min_arena_minutes=0.01))
    people = members(app, ("alice", "bob"))
    tid = announce(people["alice"], kind="arena", minutes=5)
    for b in people.values():
        assert b.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    wait_for(lambda: any(g["table"] for g in tournament(people["alice"], tid)["games"]))
    seat = seat_of(people["alice"], tid)
    table_id, token = seat["table"], seat["seat"]["token"]
    v = people["alice"].get(f"/api/tables/{table_id}", headers=auth(token)).json()
    assert not v["can_abort"] and v["can_resign"] and v["grace_left"] is None
    assert v["clock"]["running"] == v["state"]["current_player"]  # its clock runs from move 0, as before
    r = people["alice"].post(f"/api/tables/{table_id}/abort", headers=auth(token))
    assert r.status_code == 409 and "tournament" in r.json()["detail"], r.text
