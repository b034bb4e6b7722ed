"""What players expect at a web table, beyond the rules: the hint option, resigning, a rematch,
turn timers, the public move list for browsing, plain messages, and the AI's post-game review."""

from __future__ import annotations

import asyncio
import re

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from sequence_game import Game, GameRecord
from sequence_game import review as review_module
from sequence_game.web import create_app
from sequence_game.web.limits import ServerLimits
from web_support import BASE, auth, first_moves, new_table, service_of, wait_for

TWO_HUMANS = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]


@pytest.fixture
def client():
    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        yield c


# --------------------------------------------------------------------------- hints


def test_hints_are_off_by_default_between_people_and_on_against_the_ai(client):
    tid, tokens = new_table(client, players=2, seed=2, seats=TWO_HUMANS)
    p = service_of(client).tables[tid].game.current_player
    view = client.get(f"/api/tables/{tid}", headers=auth(tokens[p])).json()
    assert view["hints"] is False
    for path, body in (("hint", None), ("analysis", {"seconds": 0.05})):
        r = client.post(f"/api/tables/{tid}/{path}", json=body, headers=auth(tokens[p]))
        assert r.status_code == 403 and "no hints at this table" in r.json()["detail"], r.text
    tid, tokens = new_table(client, players=2, seed=2, seats=[{"kind": "human"}, {"kind": "ai", "ai": "easy"}])
    assert client.get(f"/api/tables/{tid}", headers=auth(tokens[0])).json()["hints"] is True


def test_the_hint_option_is_the_tables_choice(client):
    tid, _ = new_table(client, players=2, seed=2, seats=TWO_HUMANS, hints=True)
    assert client.get(f"/api/tables/{tid}").json()["hints"] is True
    tid, tokens = new_table(client, players=2, seed=2, seats=[{"kind": "human"}, {"kind": "ai"}], hints=False)
    assert client.get(f"/api/tables/{tid}").json()["hints"] is False


# --------------------------------------------------------------------------- messages people read


def test_messages_count_seats_as_the_api_does_and_name_the_player(client):
    """API messages name a seat by the index the API uses (from 0), as in the JSON."""
    tid, tokens = new_table(client, players=2, seed=2, seats=TWO_HUMANS)
    table = service_of(client).tables[tid]
    p = table.game.current_player
    r = client.post(f"/api/tables/{tid}/moves", json={"move": "pass"}, headers=auth(tokens[1 - p]))
    who = TWO_HUMANS[p]["name"]
    assert r.status_code == 409 and f"{who} (seat {p}) is to move" in r.json()["detail"]
    r = client.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "ai", "ai": "nope"}]})
    assert r.status_code == 422
    tid, _ = new_table(client, players=6, seats=[{"kind": "human"}, {"kind": "human", "open": True}]
                       + [{"kind": "ai", "ai": "random"}] * 4)
    r = client.post(f"/api/tables/{tid}/join", json={"seat": 5})
    assert r.status_code == 409 and r.json()["detail"] == "seat 5 is not open; the open seats (counted from 0) are 1"
    r = client.post("/api/tables", json={"players": 2, "hot_seat": True,
                                         "seats": [{"kind": "human"}, {"kind": "human", "open": True}]})
    assert r.status_code == 422 and r.json()["detail"].startswith("seats[1]: a hot-seat table has no open seats")


def test_the_result_text_counts_the_turns_its_turns_field_and_the_rules_count():
    """R5: a play or a pass is a turn, a dead-card trade is not. The result's text says the number
    its ``turns`` holds (the view's ``turn`` too); the move list has the trade as an entry of its
    own, so it is longer by the trades."""
    # two people's table: the server deals it (R9), so games are played until one holds a trade;
    # up to 40 tables from one address, past the default creation limit
    limits = ServerLimits(create_burst=40)
    with TestClient(create_app(ai_pause=0, limits=limits), base_url=BASE) as client:
        _the_result_text_counts_the_turns(client)


def _the_result_text_counts_the_turns(client):
    for _ in range(40):
        tid, tokens = new_table(client, players=2, seats=TWO_HUMANS)
        table = service_of(client).tables[tid]
        while not table.over:
            p = table.game.current_player
            r = client.post(f"/api/tables/{tid}/moves", json={"move": str(table.game.legal_moves()[0])},
                            headers=auth(tokens[p]))
            assert r.status_code == 200, r.text
        moves = [m["move"] for m in client.get(f"/api/tables/{tid}/moves").json()["moves"]]
        trades = sum(m.startswith("trade") for m in moves)
        if trades:
            break
    assert trades >= 1, "no dead-card trade in 40 deals: moves and turns never differed"
    view = client.get(f"/api/tables/{tid}").json()
    result, turns = view["result"], view["result"]["turns"]
    assert turns == table.game.turn == view["state"]["turn"] == len(moves) - trades
    assert f" after {turns} turns. " in result["text"], result["text"]
    lobby = {t["table"]: t for t in client.get("/api/tables").json()}[tid]
    assert lobby["turn"] == turns and lobby["result"]["text"] == result["text"]


def test_people_count_seats_from_one_and_programs_from_zero(client):
    """docs/http-api.md, "Numbering and counts": seat 1 of the API is *Player 2* to people, in the
    default names and the result's text, beside ``"resigned": 1``."""
    tid, tokens = new_table(client, players=2, seed=3, seats=[{"kind": "human"}, {"kind": "human"}])
    assert [s["name"] for s in client.get(f"/api/tables/{tid}").json()["seats"]] == ["Player 1", "Player 2"]
    first_moves(client, tid, tokens)  # a game between people: resigned, not aborted
    r = client.post(f"/api/tables/{tid}/resign", headers=auth(tokens[1]))
    assert r.status_code == 200 and r.json()["resigned"] == 1, r.text
    result = client.get(f"/api/tables/{tid}").json()["result"]
    assert (result["resigned"], result["winner"], result["turns"]) == (1, 0, 2)
    assert result["text"].startswith("Team blue wins after 2 turns, Player 2 (guest) resigned."), result["text"]


def test_the_result_names_the_winners_without_brackets_in_brackets(client):
    tid, tokens = new_table(client, players=2, seed=3, seats=[{"kind": "human", "name": "Ann"},
                                                             {"kind": "ai", "ai": "easy"}])
    client.post(f"/api/tables/{tid}/resign", headers=auth(tokens[0]))
    text = client.get(f"/api/tables/{tid}").json()["result"]["text"]
    # the AI may have moved first (the deal decides who starts): the count is not the point here
    # a person without an account is marked as a guest (docs/club.md, "Names"); an AI is not
    assert re.fullmatch(r"Team green wins after (0 turns|1 turn), Ann \(guest\) resigned\. Winner: AI 2 \(easy\)\.",
                        text), text


# --------------------------------------------------------------------------- the public move list


def test_the_move_list_is_public_and_complete(client):
    # the random AI: a game long enough to pass the view's 40-entry tail (a stronger AI, seeded afresh
    # for each table, might win before that against this seat's first legal moves)
    tid, tokens = new_table(client, players=2, seed=4, seats=[{"kind": "human"}, {"kind": "ai", "ai": "random"}])
    table = service_of(client).tables[tid]
    for _ in range(30):  # past the view's 40-entry tail: the list is whole
        wait_for(lambda: table.over or (table.thinking is None and table.game.current_player == 0))
        if table.over:
            break
        r = client.post(f"/api/tables/{tid}/moves", json={"move": str(table.game.legal_moves()[0])},
                        headers=auth(tokens[0]))
        assert r.status_code == 200, r.text
    wait_for(lambda: table.over or (table.thinking is None and table.game.current_player == 0))
    got = client.get(f"/api/tables/{tid}/moves").json()  # as a spectator: nothing here is hidden (R9)
    assert got["moves"] == [{"player": p, "move": str(m)} for p, m in table.history]
    assert len(got["moves"]) > 40 and got["version"] == table.version
    assert "seed" not in str(got) and "hands" not in str(got)


# --------------------------------------------------------------------------- resigning


def test_resigning_ends_a_two_team_game_for_the_other_team(client):
    tid, tokens = new_table(client, players=2, seed=5, seats=TWO_HUMANS)
    table = service_of(client).tables[tid]
    first_moves(client, tid, tokens)  # before every first move, resigning aborts (test_web_abort.py)
    assert client.post(f"/api/tables/{tid}/resign").status_code == 401  # a spectator has no team
    r = client.post(f"/api/tables/{tid}/resign", headers=auth(tokens[1]))
    assert r.status_code == 200, r.text
    assert r.json()["resigned"] == 1
    view = r.json()["view"]
    assert view["over"] and view["result"]["winner"] == 0 and view["result"]["resigned"] == 1
    assert "Bob (guest) resigned" in view["result"]["text"] and not view["can_resign"] and not view["legal"]
    assert client.post(f"/api/tables/{tid}/resign", headers=auth(tokens[0])).status_code == 409
    p = table.game.current_player
    assert client.post(f"/api/tables/{tid}/moves", json={"move": "pass"}, headers=auth(tokens[p])).status_code == 409
    # the record says so and replays: the moves lead to a game still going, resigned by seat 1
    record = GameRecord.from_json(client.get(f"/api/tables/{tid}/record").text)
    assert record.resigned == 1 and record.result["winner"] == 0
    assert not record.replay().is_over


def test_three_teams_cannot_resign(client):
    seats = [{"kind": "human"}, {"kind": "ai", "ai": "easy"}, {"kind": "ai", "ai": "easy"}]
    tid, tokens = new_table(client, players=3, seed=5, seats=seats)
    assert client.get(f"/api/tables/{tid}", headers=auth(tokens[0])).json()["can_resign"] is False
    r = client.post(f"/api/tables/{tid}/resign", headers=auth(tokens[0]))
    assert r.status_code == 409 and "two-team" in r.json()["detail"]


def test_a_resigned_game_survives_a_restart(tmp_path):
    db = tmp_path / "t.sqlite3"
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        tid, tokens = new_table(c, players=2, seed=6, seats=TWO_HUMANS)
        first_moves(c, tid, tokens)
        assert c.post(f"/api/tables/{tid}/resign", headers=auth(tokens[0])).status_code == 200
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        view = c.get(f"/api/tables/{tid}").json()
        assert view["over"] and view["result"]["winner"] == 1 and view["result"]["resigned"] == 0
        assert any(t["table"] == tid and t["over"] for t in c.get("/api/tables").json())


# --------------------------------------------------------------------------- rematch


def test_a_rematch_keeps_the_seats_deals_anew_and_is_made_once(client):
    tid, tokens = new_table(client, players=2, seed=7, seats=TWO_HUMANS, hints=True)
    assert client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0])).status_code == 409  # not over
    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as ws:
        ws.send_json({"type": "hello", "token": tokens[1]})
        assert ws.receive_json()["type"] == "state"
        assert client.post(f"/api/tables/{tid}/resign", headers=auth(tokens[0])).status_code == 200
        r = client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0]))
        assert r.status_code == 202 and r.json()["table"] is None, r.text  # an offer: Bob has not accepted
        r = client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[1]))
        assert r.status_code == 201, r.text
        new = r.json()["table"]
        while (msg := ws.receive_json())["type"] != "rematch":
            pass
        assert msg == {"type": "rematch", "table": new}
    assert client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[1])).json()["table"] == new
    assert client.get(f"/api/tables/{tid}").json()["rematch"] == new
    old, again = service_of(client).get(tid), service_of(client).tables[new]
    assert again.game.seed != old.game.seed or again.game.to_dict() != old.game.to_dict()
    assert [(s.kind, s.name) for s in again.seats] == [(s.kind, s.name) for s in old.seats]
    assert again.options.hints is True and again.options.rematch_of == tid
    for seat, token in tokens.items():  # the same links' tokens open the same seats there
        assert client.get(f"/api/tables/{new}", headers=auth(token)).json()["you"] == [seat]
    assert client.post(f"/api/tables/{tid}/rematch").status_code == 401


# --------------------------------------------------------------------------- turn timers


def test_a_turn_timer_has_the_ai_move_for_a_seat_that_ran_out_of_time(client):
    tid, tokens = new_table(client, players=2, seed=8, seats=TWO_HUMANS, turn_seconds=10)
    service = service_of(client)
    table = service.tables[tid]
    first_moves(client, tid, tokens)  # a first move has its grace instead (test_web_abort.py)
    view = client.get(f"/api/tables/{tid}").json()
    assert view["turn_seconds"] == 10 and 0 < view["turn_left"] <= 10 and view["grace_left"] is None
    assert client.post("/api/tables", json={"players": 2, "turn_seconds": 5}).status_code == 422
    p = table.game.current_player

    async def shorten():  # the same clock with a short turn, so the test need not wait ten seconds
        table.clock.cancel()
        table.clock = None
        table.options.turn_seconds = 0.3
        service.clock.start(table, p, asyncio.get_running_loop())

    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as ws:
        ws.send_json({"type": "hello", "token": None})
        assert ws.receive_json()["type"] == "state"
        client.portal.call(shorten)
        wait_for(lambda: table.version == 3)
        msgs = []
        while not any(m["type"] == "timeout" for m in msgs) and len(msgs) < 10:
            msgs.append(ws.receive_json())
    timeout = next(m for m in msgs if m["type"] == "timeout")
    assert timeout["seat"] == p and table.movers[2:] == [p] and timeout["move"] == str(table.game.history[2])
    assert table.game.current_player != p and table.clock is not None  # the next seat's clock runs


def test_no_timer_without_the_option(client):
    tid, _ = new_table(client, players=2, seed=8, seats=TWO_HUMANS)
    view = client.get(f"/api/tables/{tid}").json()
    assert view["turn_seconds"] is None and view["turn_left"] is None
    assert service_of(client).tables[tid].clock is None


# --------------------------------------------------------------------------- the post-game review


def test_the_review_is_for_finished_games_computed_once_and_stored(tmp_path):
    """A finished game's review is computed once and served again after a restart (the same
    method: the win-chance estimator)."""
    db = tmp_path / "t.sqlite3"
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        tid, tokens = new_table(c, players=2, seed=9, seats=TWO_HUMANS)
        table = service_of(c).tables[tid]
        for _ in range(6):
            c.post(f"/api/tables/{tid}/moves", json={"move": str(table.game.legal_moves()[0])},
                   headers=auth(tokens[table.game.current_player]))
        # before the end: no review (it would tell each player about the other's choices)
        assert c.get(f"/api/tables/{tid}/review").status_code == 409
        assert c.post(f"/api/tables/{tid}/review").status_code == 409
        c.post(f"/api/tables/{tid}/resign", headers=auth(tokens[0]))
        r = c.get(f"/api/tables/{tid}/review")
        assert r.status_code == 404 and r.json()["status"] == "none"
        r = c.post(f"/api/tables/{tid}/review")
        assert r.status_code == 202 and r.json()["status"] in ("running", "ready")
        wait_for(lambda: c.get(f"/api/tables/{tid}/review").json()["status"] == "ready", timeout=60)
        review = c.get(f"/api/tables/{tid}/review").json()["review"]
        assert [m["move"] for m in review["moves"]] == [str(m) for m in table.game.history]
        assert review["method"] == review_module.METHOD and review["events"][0]["kind"] == "resignation"
        assert all(m["before"] is None or 0 <= m["before"] <= 1 for m in review["moves"])
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:  # stored beside the record
        assert c.get(f"/api/tables/{tid}/review").json() == {"status": "ready", "review": review,
                                                            "done": None, "total": None, "detail": None}


# --------------------------------------------------------------------------- the lobby: open seats, history


def test_an_open_seat_is_listed_in_the_lobby_and_taken_by_the_first_to_join(tmp_path):
    db = tmp_path / "t.sqlite3"
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        tid, tokens = new_table(c, players=2, seed=10, seats=[{"kind": "human", "name": "Ann"},
                                                               {"kind": "human", "open": True}])
        assert list(tokens) == [0]  # no link is made for the open seat
        listed = next(t for t in c.get("/api/tables?finished=false").json() if t["table"] == tid)
        assert [s["open"] for s in listed["seats"]] == [False, True]
        assert c.post(f"/api/tables/{tid}/join", json={"seat": 0}).status_code == 409  # not open
        r = c.post(f"/api/tables/{tid}/join", json={"name": "Bob"})
        assert r.status_code == 201, r.text
        joined = r.json()
        assert joined["seat"] == 1 and joined["url"].endswith(f"/table/{tid}#seat={joined['token']}")
        view = c.get(f"/api/tables/{tid}", headers=auth(joined["token"])).json()
        assert view["you"] == [1] and view["seats"][1]["name"] == "Bob" and not view["seats"][1]["open"]
        r = c.post(f"/api/tables/{tid}/join", json={})
        assert r.status_code == 409 and "no open seat" in r.json()["detail"]
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:  # the taken seat is stored
        assert c.get(f"/api/tables/{tid}", headers=auth(joined["token"])).json()["you"] == [1]


def test_hot_seat_tables_have_no_open_seats(client):
    r = client.post("/api/tables", json={"players": 2, "hot_seat": True,
                                         "seats": [{"kind": "human"}, {"kind": "human", "open": True}]})
    assert r.status_code == 422 and "open seats" in r.json()["detail"]


def test_the_finished_games_come_a_page_at_a_time(client):
    ids = []
    for seed in range(5):
        tid, tokens = new_table(client, players=2, seed=seed, seats=TWO_HUMANS)
        client.post(f"/api/tables/{tid}/resign", headers=auth(tokens[0]))
        ids.append(tid)
    first = [t["table"] for t in client.get("/api/tables?finished=true&limit=2").json()]
    rest = [t["table"] for t in client.get("/api/tables?finished=true&limit=10&offset=2").json()]
    assert sorted(first + rest) == sorted(ids) and not set(first) & set(rest)
    assert client.get("/api/tables?limit=0").status_code == 422


def _finished_table(c):
    """A finished game between a human seat and an AI, created from its saved moves: not in memory."""
    from sequence_game import play_game

    record = play_game(["greedy"], seed=6)
    tid, tokens = new_table(c, players=2, seed=6, moves=record.moves,
                            seats=[{"kind": "human"}, {"kind": "ai", "ai": "random"}])
    assert tid not in service_of(c).tables
    return tid, tokens[0]


def test_a_rematch_is_made_once_in_the_database_whatever_copies_ask(tmp_path):
    """Race harness: two servers on one database, a finished table that has left memory, and many
    rematch requests at once through both: every answer names the same one new table."""
    import threading

    db, limits = tmp_path / "t.sqlite3", ServerLimits(create_burst=100)
    with TestClient(create_app(db, ai_pause=0, limits=limits), base_url=BASE) as a, \
            TestClient(create_app(db, ai_pause=0, limits=limits), base_url=BASE) as b:
        for _ in range(4):
            tid, token = _finished_table(a)
            start, answers = threading.Barrier(8), []

            def ask(c):
                start.wait()
                answers.append(c.post(f"/api/tables/{tid}/rematch", headers=auth(token)))

            threads = [threading.Thread(target=ask, args=(c,)) for c in [a, b] * 4]
            for t in threads:
                t.start()
            for t in threads:
                t.join(30)
            assert [r.status_code for r in answers] == [201] * 8, [r.text for r in answers]
            made = {r.json()["table"] for r in answers}
            assert len(made) == 1
            stored = [row for row in service_of(a).store.load_all() if row.options.get("rematch_of") == tid]
            assert [row.id for row in stored] == list(made)


def test_every_socket_of_a_finished_game_follows_to_the_one_rematch(client):
    """Sockets opened on a finished table share one copy of it: a rematch asked over HTTP (or on
    either socket) reaches both, and asking again on the other socket answers the same table."""
    tid, token = _finished_table(client)
    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as one, \
            client.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as two:
        for ws in (one, two):
            ws.send_json({"type": "hello", "token": token})
            assert ws.receive_json()["type"] == "state"
        new = client.post(f"/api/tables/{tid}/rematch", headers=auth(token)).json()["table"]
        for ws in (one, two):
            assert ws.receive_json() == {"type": "rematch", "table": new}
            assert ws.receive_json()["view"]["rematch"] == new
        two.send_json({"type": "rematch"})  # made already: nothing new to tell
        two.send_json({"type": "ping"})
        assert two.receive_json() == {"type": "pong"}
    assert client.post(f"/api/tables/{tid}/rematch", headers=auth(token)).json()["table"] == new


# --------------------------------------------------------------------------- who chooses the deal (R9)

SHARED_BODIES = [
    {"players": 2, "seats": [{"kind": "human"}, {"kind": "human", "open": True}]},
    {"players": 2, "seats": [{"kind": "human"}, {"kind": "human"}]},
    {"players": 4, "seats": [{"kind": "human"}, {"kind": "ai"}, {"kind": "human"}, {"kind": "ai"}]},
]


@pytest.mark.parametrize("body", SHARED_BODIES)
def test_a_table_others_may_sit_at_refuses_a_creator_chosen_deal(client, body):
    """The creator of a table where someone else may sit cannot choose its deal: a seed, or saved
    moves (which replay from the creator's seed), is refused with a message saying why and what
    to do."""
    r = client.post("/api/tables", json={**body, "seed": 7})
    assert r.status_code == 422 and r.json()["error"] == "InvalidRequestError"
    assert r.json()["detail"].startswith("seed: a table where someone other than its creator may sit")
    assert "leave out seed" in r.json()["detail"]
    r = client.post("/api/tables", json={**body, "moves": ["pass"]})
    assert r.status_code == 422 and r.json()["detail"].startswith("moves: ")
    assert service_of(client).tables == {}


def test_a_creator_may_choose_the_deal_where_only_they_sit(client):
    for body in ({"players": 2, "seats": [{"kind": "human"}, {"kind": "ai"}]},
                 {"players": 2, "hot_seat": True, "seats": [{"kind": "human"}, {"kind": "human"}]}):
        tid, _ = new_table(client, **body, seed=7)
        assert service_of(client).tables[tid].game.to_dict() == Game(players=2, seed=7).to_dict()


def test_the_stranger_joining_an_open_seat_gets_a_hand_the_creator_cannot_predict(client):
    """Every field the creator controls the same, table after table: the hand of whoever joins the
    open seat differs (dealt from the server's entropy), and matches no deal of a seed the creator
    could have sent with another table."""
    body = {"players": 2, "seats": [{"kind": "human", "name": "Creator"}, {"kind": "human", "open": True}],
            "max_turns": 500}
    assert client.post("/api/tables", json={**body, "seed": 1}).status_code == 422  # the one field that chose it
    hands, piles = set(), set()
    for _ in range(4):
        r = client.post("/api/tables", json=body)
        assert r.status_code == 201, r.text
        tid = r.json()["table"]
        join = client.post(f"/api/tables/{tid}/join", json={"name": "Stranger"})
        assert join.status_code == 201, join.text
        view = client.get(f"/api/tables/{tid}", headers=auth(join.json()["token"])).json()
        hand = tuple(view["state"]["hands"][join.json()["seat"]])
        hands.add(hand)
        piles.add(tuple(service_of(client).tables[tid].game.to_dict()["draw_pile"]))
    assert len(hands) == 4 and len(piles) == 4
    guessable = {tuple(Game(players=2, seed=s, max_turns=500).to_dict()["hands"][1]) for s in range(64)}
    assert not hands & guessable


@pytest.mark.parametrize("level", ["level:1", "level:4", "level:8"])
def test_a_level_plays_at_a_table(client, level):
    """A seat of each kind of level: the weak human-like levels (Python, in a worker process) and a
    search level (in a thread, its time cut to the table's budget) move on their turn."""
    tid, _ = new_table(client, players=2, seed=4, ai_seconds=0.5,
                       seats=[{"kind": "ai", "ai": level}, {"kind": "ai", "ai": "easy"}])
    table = service_of(client).tables[tid]
    wait_for(lambda: len(table.movers) >= 2, timeout=60)
    assert table.record.agents[0].startswith("hard" if level == "level:8" else "humanlike")
    if level == "level:8":
        assert table.record.agents[0] == "hard:time=0.5"
