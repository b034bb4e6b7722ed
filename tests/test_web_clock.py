"""Game clocks of a table's human seats (web/tables/clock.py): Fischer and time bank, what happens
at zero (the AI moves, or the team loses on time), and a restart that charges nobody the downtime."""

from __future__ import annotations

import asyncio
import time

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from sequence_game.web import create_app
from web_support import BASE, auth, new_table, service_of, wait_for

TWO_HUMANS = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]


@pytest.fixture
def client():
    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        yield c


def _play_first_legal(client, tid, tokens):
    view = client.get(f"/api/tables/{tid}").json()
    p = view["state"]["current_player"]
    mine = client.get(f"/api/tables/{tid}", headers=auth(tokens[p])).json()
    r = client.post(f"/api/tables/{tid}/moves", json={"move": mine["legal"][0]}, headers=auth(tokens[p]))
    assert r.status_code == 200, r.text
    return p, r.json()["view"]


def _past_first_moves(client, tid, tokens):
    """Each seat makes its first move: a table of people gives a first move a grace off the clock
    (tables/opening.py), so the clocks run from the second move on. Returns the last view."""
    view = None
    for _ in range(len(tokens)):
        _, view = _play_first_legal(client, tid, tokens)
    return view


def _run_out(client, table, seat, seconds=0.2):
    """Let ``seat``'s clock run out in ``seconds`` (the same clock, with less time left)."""
    service = service_of(client)

    async def shorten():
        table.clock.cancel()
        table.clock, table.clock_running = None, None
        table.options.clock_state["left"][seat] = seconds
        service.clock.start(table, seat, asyncio.get_running_loop())

    client.portal.call(shorten)


def test_a_fischer_clock_runs_for_the_seat_to_move_and_adds_the_increment(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS,
                            clock={"kind": "fischer", "seconds": 60, "increment": 5})
    _past_first_moves(client, tid, tokens)  # the first moves' graces cost nothing and add nothing
    view = client.get(f"/api/tables/{tid}").json()
    clock = view["clock"]
    p = view["state"]["current_player"]
    assert clock["kind"] == "fischer" and clock["at_zero"] == "ai" and clock["running"] == p
    assert clock["left"][1 - p] == 60 and 55 < clock["left"][p] <= 60
    assert view["turn_seconds"] is None and view["turn_left"] is not None  # the deadline of the running clock
    assert view["grace_left"] is None
    mover, after = _play_first_legal(client, tid, tokens)
    left = after["clock"]["left"]
    assert 60 < left[mover] <= 65  # 60, less the time the move took, plus 5
    assert after["clock"]["running"] == 1 - mover


def test_a_time_bank_adds_its_increment_at_the_start_of_a_turn_never_past_the_bank(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS,
                            clock={"kind": "bank", "seconds": 60, "increment": 10})
    table = service_of(client).tables[tid]
    _past_first_moves(client, tid, tokens)
    p = table.game.current_player
    assert table.options.clock_state["left"][p] == 60  # a full bank stays full
    mover, after = _play_first_legal(client, tid, tokens)
    assert after["clock"]["left"][mover] < 60  # no increment after the move: the bank was used
    table.options.clock_state["left"][mover] = 30.0
    other, _ = _play_first_legal(client, tid, tokens)  # the other seat moves; mover's turn starts: +10
    assert 35 < client.get(f"/api/tables/{tid}").json()["clock"]["left"][mover] <= 40


def test_at_zero_the_ai_moves_for_the_seat(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS, clock={"kind": "fischer", "seconds": 60})
    table = service_of(client).tables[tid]
    _past_first_moves(client, tid, tokens)
    p = table.game.current_player
    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as ws:
        ws.send_json({"type": "hello", "token": None})
        assert ws.receive_json()["type"] == "state"
        _run_out(client, table, p)
        wait_for(lambda: table.version == 3)
        frames = []
        while not any(f["type"] == "timeout" for f in frames) and len(frames) < 10:
            frames.append(ws.receive_json())
    assert any(f["type"] == "timeout" and f["seat"] == p for f in frames)
    assert table.movers == [p, 1 - p, p] and table.record.timeouts == [3] and not table.over
    assert table.options.clock_state["left"][p] == 0.0  # its next turn is played at once too


def test_at_zero_with_lose_the_team_loses_on_time(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS,
                            clock={"kind": "fischer", "seconds": 60, "at_zero": "lose"})
    table = service_of(client).tables[tid]
    _past_first_moves(client, tid, tokens)
    p = table.game.current_player
    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as ws:
        ws.send_json({"type": "hello", "token": tokens[1 - p]})
        assert ws.receive_json()["type"] == "state"
        _run_out(client, table, p)
        frames = []
        while not any(f["type"] == "flag" for f in frames) and len(frames) < 10:
            frames.append(ws.receive_json())
    assert {"type": "flag", "seat": p} in frames
    wait_for(lambda: table.over)
    view = client.get(f"/api/tables/{tid}").json()
    assert view["over"] and view["result"]["winner"] == 1 - p % 2 and view["result"]["resigned"] == p
    assert "ran out of time" in view["result"]["text"] and view["clock"]["flagged"] == p
    assert view["clock"]["running"] is None
    record = client.get(f"/api/tables/{tid}/record").json()
    assert record["resigned"] == p and record["result"]["winner"] == 1 - p % 2


@pytest.mark.parametrize("clock, words", [
    ({"kind": "fischer", "seconds": 60, "at_zero": "lose"}, "two-team"),  # three teams: see the body below
    ({"kind": "sudden", "seconds": 60}, "kind"),
    ({"kind": "fischer", "seconds": 5}, "seconds"),
    ({"kind": "fischer", "seconds": 1e9}, "seconds"),
    ({"kind": "fischer", "seconds": 60, "increment": -1}, "increment"),
    ({"kind": "fischer", "seconds": "60"}, "seconds"),
    ({"kind": "fischer", "seconds": True}, "seconds"),
    ({"kind": "fischer", "seconds": 60, "owner": "me"}, "owner"),
    ({"kind": "fischer"}, "seconds"),
])
def test_bad_clocks_are_refused_with_a_reason(client, clock, words):
    body = {"players": 3, "clock": clock} if words == "two-team" else {"players": 2, "clock": clock}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 422, r.text
    assert words in r.json()["detail"]


def test_one_time_control_per_table(client):
    r = client.post("/api/tables", json={"players": 2, "turn_seconds": 30, "clock": {"kind": "bank", "seconds": 60}})
    assert r.status_code == 422 and "not both" in r.json()["detail"]


def test_a_restart_charges_nobody_the_time_the_server_was_down(tmp_path):
    db = tmp_path / "t.sqlite3"
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as client:
        tid, tokens = new_table(client, players=2, seats=TWO_HUMANS,
                                clock={"kind": "fischer", "seconds": 100, "increment": 2})
        _past_first_moves(client, tid, tokens)
        mover, after = _play_first_legal(client, tid, tokens)
        stored = after["clock"]["left"][mover]
        table = service_of(client).tables[tid]
        wait_for(lambda: service_of(client).store.get(tid).options.get("clock_state", {}).get("left", [0, 0])[mover]
                 == table.options.clock_state["left"][mover])
    time.sleep(1.0)  # the server is down: nobody's clock runs
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as client:
        view = client.get(f"/api/tables/{tid}").json()
        assert abs(view["clock"]["left"][mover] - stored) < 0.05
        assert 95 < view["clock"]["left"][1 - mover] <= 100  # the seat to move starts its turn again
        assert view["clock"]["running"] == 1 - mover


def test_the_clock_view_is_public_and_carries_no_hand(client):
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS, clock={"kind": "bank", "seconds": 60, "increment": 5})
    clock = client.get(f"/api/tables/{tid}").json()["clock"]
    assert set(clock) == {"kind", "seconds", "increment", "at_zero", "left", "increments", "running", "flagged"}
    assert clock["increments"] == [5.0, 5.0]  # each seat's own: the table's (an arena's berserk: none)


def test_ai_seats_have_no_clock(client):
    tid, _ = new_table(client, players=2, seats=[{"kind": "human"}, {"kind": "ai", "ai": "random"}],
                       clock={"kind": "fischer", "seconds": 60})
    left = client.get(f"/api/tables/{tid}").json()["clock"]["left"]
    assert left[1] is None and left[0] is not None


def _dead_card_position():
    """A seed and the moves after which seat 0 (a human, against an AI) is to move holding a dead
    card (R5 step 1): found by playing the first legal move that is not a trade."""
    from sequence_game.records import default_game_class

    Game = default_game_class()
    for seed in range(100):
        g, moves = Game(players=2, seed=seed), []
        while not g.is_over:
            legal = g.legal_moves()
            if g.current_player == 0 and any(m.kind == "trade" for m in legal):
                return seed, moves
            move = next(m for m in legal if m.kind != "trade")
            g.play(move)
            moves.append(str(move))
    raise AssertionError("no dead card in 100 deals")


@pytest.fixture
def slow_ai():
    """A server whose AI seats wait 10 s before moving: the human seat's next turn does not start
    while a test reads its clock."""
    with TestClient(create_app(ai_pause=10), base_url=BASE) as c:
        yield c


def _at_a_dead_card(client, **time_control):
    """A table (seat 0 human, seat 1 AI) whose seat 0 is to move holding a dead card, with
    ``time_control``; the table and seat 0's token and trade."""
    seed, moves = _dead_card_position()
    tid, tokens = new_table(client, players=2, seed=seed, moves=moves,
                            seats=[{"kind": "human"}, {"kind": "ai", "ai": "random"}], **time_control)
    table = service_of(client).tables[tid]
    assert table.game.current_player == 0
    trade = next(str(m) for m in table.game.legal_moves() if m.kind == "trade")
    return table, tokens[0], trade


def _move(client, table, token, text):
    r = client.post(f"/api/tables/{table.id}/moves", json={"move": text}, headers=auth(token))
    assert r.status_code == 200, r.text


def _then_play(client, table, token):
    """Seat 0 plays after its trade: the same turn goes on (R5), and ends with the card played."""
    turn = table.game.turn
    assert table.game.current_player == 0
    _move(client, table, token, next(str(m) for m in table.game.legal_moves() if m.kind != "trade"))
    assert table.game.turn == turn + 1


def test_r5_a_trade_then_a_play_is_one_turn_with_one_fischer_increment(slow_ai):
    client = slow_ai
    table, token, trade = _at_a_dead_card(client, clock={"kind": "fischer", "seconds": 60, "increment": 30})
    _move(client, table, token, trade)
    _then_play(client, table, token)
    left = table.options.clock_state["left"][0]
    assert 85 < left <= 90  # 60, less the time the turn took, plus one increment (not two: 120)


def test_r5_a_trade_then_a_play_is_one_turn_with_one_bank_increment(slow_ai):
    client = slow_ai
    table, token, trade = _at_a_dead_card(client, clock={"kind": "bank", "seconds": 60, "increment": 10})
    table.options.clock_state["left"][0] = 30.0  # the turn's increment came already (the bank was full)
    _move(client, table, token, trade)
    assert table.options.clock_state["left"][0] == 30.0  # the clock runs on: nothing charged, nothing added
    _then_play(client, table, token)
    assert 25 < table.options.clock_state["left"][0] <= 30  # not 40: no second start of a turn


def test_r5_a_trade_does_not_restart_the_turn_timer(slow_ai):
    client = slow_ai
    table, token, trade = _at_a_dead_card(client, turn_seconds=30)
    deadline = table.deadline
    time.sleep(0.05)
    _move(client, table, token, trade)
    assert table.deadline == deadline and table.clock is not None  # the same timer runs on


def test_r5_at_time_out_the_ai_plays_the_whole_turn_for_the_seat(slow_ai):
    client = slow_ai
    table, token, trade = _at_a_dead_card(client, clock={"kind": "bank", "seconds": 60, "increment": 10})
    before, turn = len(table.movers), table.game.turn
    _run_out(client, table, 0)
    wait_for(lambda: table.game.turn > turn or table.over)
    made = len(table.movers) - before
    assert made >= 1 and table.movers[before:] == [0] * made
    assert table.record.timeouts[-made:] == list(range(before + 1, before + made + 1))
