"""Finding a game (web/seeks.py, routers/seeks.py): play the computer, seeks posted, listed,
accepted, cancelled and expired, quick pairing, the caps, hostile input; no answer carries a hand
or another's token (R9)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from sequence_game.web import create_app
from sequence_game.web.limits import ServerLimits
from web_support import BASE, auth, service_of, serving

LIMITS = ServerLimits(create_burst=100, create_per_minute=600.0, max_tables_per_client=100)


@pytest.fixture
def client():
    with TestClient(create_app(ai_pause=0, limits=LIMITS), base_url=BASE) as c:
        yield c


def _post(client, **body):
    r = client.post("/api/seeks", json=body)
    assert r.status_code == 201, r.text
    return r.json()


def test_play_the_computer_in_one_click(client):
    r = client.post("/api/play-computer", json={"level": 2, "seat": 1, "name": "Ann"})
    assert r.status_code == 201, r.text
    data = r.json()
    (link,) = data["seats"]
    assert link["seat"] == 1
    view = client.get(f"/api/tables/{data['table']}", headers=auth(link["token"])).json()
    assert [s["kind"] for s in view["seats"]] == ["ai", "human"] and view["seats"][0]["ai"] == "level:2"
    assert view["seats"][1]["name"] == "Ann" and view["you"] == [1]


@pytest.mark.parametrize("body, words", [
    ({"level": 0}, "level"), ({"level": 9}, "level"), ({"level": "3"}, "level"),
    ({"players": 3, "seat": 3}, "seat"), ({"players": 2, "seat": 2}, "from 0 to 1"),
    ({"turn_seconds": 30, "clock": {"kind": "bank", "seconds": 60}}, "not both"),
    ({"name": "x" * 33}, "name"), ({"extra": 1}, "extra"),
])
def test_play_the_computer_refuses_bad_input(client, body, words):
    r = client.post("/api/play-computer", json=body)
    assert r.status_code == 422 and words in r.json()["detail"], r.text


def test_a_seek_accepted_from_the_lobby_seats_both_players(client):
    posted = _post(client, players=2, name="Ann", clock={"kind": "fischer", "seconds": 300, "increment": 3})
    listed = client.get("/api/seeks").json()
    (line,) = listed["seeks"]
    assert line["seek"] == posted["seek"] and line["name"] == "Ann" and line["clock"]["increment"] == 3
    assert line["rating"] is None  # a guest has no rating
    assert "token" not in json.dumps(listed)  # no poster's token, no address
    r = client.post(f"/api/seeks/{posted['seek']}/accept", json={"name": "Bob"})
    assert r.status_code == 201, r.text
    mine = r.json()
    assert mine["seat"] == 1
    status = client.get(f"/api/seeks/{posted['seek']}", headers=auth(posted["token"])).json()
    assert status["status"] == "accepted" and status["seat"]["seat"] == 0
    table = status["table"]
    view = client.get(f"/api/tables/{table}", headers=auth(status["seat"]["token"])).json()
    assert [s["name"] for s in view["seats"]] == ["Ann", "Bob"] and view["you"] == [0]
    assert view["clock"]["kind"] == "fischer" and view["teams"] == 2
    assert client.get("/api/seeks").json()["seeks"] == []  # off the list
    again = client.post(f"/api/seeks/{posted['seek']}/accept", json={})
    assert again.status_code == 409 and "accepted" in again.json()["detail"]


def test_a_larger_seek_leaves_the_other_seats_open(client):
    posted = _post(client, players=4)
    r = client.post(f"/api/seeks/{posted['seek']}/accept", json={})
    table = client.get(f"/api/seeks/{posted['seek']}", headers=auth(posted["token"])).json()["table"]
    view = client.get(f"/api/tables/{table}").json()
    assert [s["open"] for s in view["seats"]] == [False, False, True, True] and r.status_code == 201
    assert view["legal"] == []  # waiting for players


def test_only_the_poster_reads_its_seek_and_cancels_it(client):
    posted = _post(client)
    sid = posted["seek"]
    assert client.get(f"/api/seeks/{sid}").status_code == 401
    assert client.get(f"/api/seeks/{sid}", headers=auth("x" * 32)).status_code == 403
    assert client.get(f"/api/seeks/{sid}", headers=auth("x" * 500)).status_code == 403
    assert client.delete(f"/api/seeks/{sid}").status_code == 401
    assert client.delete(f"/api/seeks/{sid}", headers=auth(posted["token"])).status_code == 204
    assert client.get(f"/api/seeks/{sid}", headers=auth(posted["token"])).json()["status"] == "cancelled"
    assert client.post(f"/api/seeks/{sid}/accept", json={}).status_code == 409
    assert client.get("/api/seeks/nosuch", headers=auth(posted["token"])).status_code == 404


def test_the_poster_cannot_accept_its_own_seek(client):
    posted = _post(client)
    r = client.post(f"/api/seeks/{posted['seek']}/accept", json={}, headers=auth(posted["token"]))
    assert r.status_code == 403 and "your own seek" in r.json()["detail"]


def test_a_seek_expires_when_its_poster_stops_asking_and_after_its_time(client):
    board = client.app.state.seeks
    posted = _post(client)
    seek = board.seeks[posted["seek"]]
    board.expire(now=seek.seen + LIMITS.seek_idle_seconds + 1)  # the poster's page was closed
    assert seek.status == "expired" and client.get("/api/seeks").json()["seeks"] == []
    posted = _post(client)
    seek = board.seeks[posted["seek"]]
    seek.seen += LIMITS.seek_seconds  # asked all along, but open too long
    board.expire(now=seek.created + LIMITS.seek_seconds + 1)
    assert seek.status == "expired"
    assert client.post(f"/api/seeks/{posted['seek']}/accept", json={}).status_code == 409


def test_quick_pairing_matches_compatible_seeks_only(client):
    first = client.post("/api/seeks/quick", json={"players": 2, "turn_seconds": 30, "name": "Ann"}).json()
    assert first["status"] == "waiting"
    other = client.post("/api/seeks/quick", json={"players": 2, "turn_seconds": 60}).json()
    assert other["status"] == "waiting"  # another time control: no match
    own = client.post("/api/seeks/quick", json={"players": 2, "turn_seconds": 30},
                      headers=auth(first["seek"]["token"])).json()
    assert own["status"] == "waiting"  # never paired with one's own seek
    paired = client.post("/api/seeks/quick", json={"players": 2, "turn_seconds": 30, "name": "Bob"}).json()
    assert paired["status"] == "paired" and paired["seat"]["seat"] == 1
    status = client.get(f"/api/seeks/{first['seek']['seek']}", headers=auth(first["seek"]["token"])).json()
    assert status["status"] == "accepted"
    view = client.get(f"/api/tables/{status['table']}").json()
    assert [s["name"] for s in view["seats"]] == ["Ann", "Bob"] and view["turn_seconds"] == 30


def test_rated_seeks_need_an_account(client):
    r = client.post("/api/seeks", json={"rated": True})
    assert r.status_code == 403 and "account" in r.json()["detail"]
    assert client.post("/api/seeks/quick", json={"rated": True}).status_code == 403


def test_a_rated_seek_cannot_be_taken_by_a_guest(client):
    board = client.app.state.seeks
    seek, _ = board.post("10.0.0.9", 2, 2, True, None, None, None, None, "Rated")
    r = client.post(f"/api/seeks/{seek.id}/accept", json={})
    assert r.status_code == 403 and "account" in r.json()["detail"]


@pytest.mark.parametrize("body, words", [
    ({"players": 5}, "players"), ({"players": 6, "teams": 4}, "teams"), ({"players": 4, "teams": 3}, "teams"),
    ({"rating_min": 1500, "rating_max": 1000}, "rating_min"), ({"rating_min": -1}, "rating_min"),
    ({"turn_seconds": 30, "clock": {"kind": "fischer", "seconds": 60}}, "not both"),
    ({"players": 3, "clock": {"kind": "fischer", "seconds": 60, "at_zero": "lose"}}, "two-team"),
    ({"name": "<b>" * 20}, "name"), ({"rated": "yes"}, "rated"), ({"token": "x"}, "token"),
])
def test_hostile_seeks_are_refused_with_a_reason(client, body, words):
    r = client.post("/api/seeks", json=body)
    assert r.status_code == 422 and words in r.json()["detail"], r.text
    assert client.get("/api/seeks").json()["seeks"] == []


def test_seek_flooding_is_capped_per_address():
    limits = ServerLimits(max_seeks_per_client=2, create_burst=100, create_per_minute=600.0)
    with TestClient(create_app(ai_pause=0, limits=limits), base_url=BASE) as client:
        for _ in range(2):
            _post(client)
        r = client.post("/api/seeks", json={})
        assert r.status_code == 429 and "open seeks" in r.json()["detail"]


def test_seek_posting_spends_the_creation_quota():
    with TestClient(create_app(ai_pause=0, limits=ServerLimits(create_burst=2, create_per_minute=1.0)),
                    base_url=BASE) as client:
        assert client.post("/api/seeks", json={}).status_code == 201
        assert client.post("/api/play-computer", json={}).status_code == 201
        r = client.post("/api/seeks", json={})
        assert r.status_code == 429 and "too many new tables" in r.json()["detail"]


def test_the_server_wide_seek_cap():
    limits = ServerLimits(max_seeks=2, create_burst=100, create_per_minute=600.0)
    with TestClient(create_app(ai_pause=0, limits=limits), base_url=BASE) as client:
        board = client.app.state.seeks
        board.post("10.0.0.1", 2, 2, False, None, None, None, None, "a")
        board.post("10.0.0.2", 2, 2, False, None, None, None, None, "b")
        assert client.post("/api/seeks", json={}).status_code == 503


def test_the_lobby_long_polls_the_list(client):
    version = client.get("/api/seeks").json()["version"]
    r = client.get(f"/api/seeks?after_version={version}&wait=0.2")
    assert r.status_code == 200 and r.json()["version"] == version  # nothing changed: answered after the wait
    _post(client)
    r = client.get(f"/api/seeks?after_version={version}&wait=5")
    assert r.json()["version"] > version and len(r.json()["seeks"]) == 1
    assert not service_of(client).sockets  # the long-poll's place was given back
    ahead = client.get(f"/api/seeks?after_version={r.json()['version'] + 1}")
    assert ahead.status_code == 422 and "ahead" in ahead.json()["detail"]


def test_no_seek_answer_carries_a_hand(client):
    posted = _post(client)
    link = client.post(f"/api/seeks/{posted['seek']}/accept", json={}).json()
    status = client.get(f"/api/seeks/{posted['seek']}", headers=auth(posted["token"])).json()
    for answer in (posted, link, status, client.get("/api/seeks").json()):
        text = json.dumps(answer)
        assert "hands" not in text and "legal" not in text and "seed" not in text


def test_the_seek_endpoints_are_in_the_openapi_document(client):
    paths = client.get("/openapi.json").json()["paths"]
    for path in ("/api/seeks", "/api/seeks/quick", "/api/seeks/{seek_id}", "/api/seeks/{seek_id}/accept",
                 "/api/play-computer"):
        assert path in paths


def test_the_client_finds_a_game_over_http(tmp_path):
    """sequence_game.client: every seek endpoint through the typed client, on a real server."""
    pytest.importorskip("uvicorn")
    from sequence_game.client import Client, ClientError

    with serving(create_app(ai_pause=0, limits=LIMITS)) as url:
        client = Client(url)
        created = client.play_computer(level=1, seat=0)
        assert created.seats[0].seat == 0
        posted = client.post_seek(2, name="Ann", turn_seconds=60)
        listed = client.seeks()
        assert [s.name for s in listed.seeks] == ["Ann"] and listed.seeks[0].turn_seconds == 60
        mine = client.with_token(posted.token)
        assert mine.seek(posted.seek).status == "open"
        waiting = client.quick_pairing(2, turn_seconds=30)
        assert waiting.status == "waiting" and waiting.seek is not None
        client.with_token(waiting.seek.token).cancel_seek(waiting.seek.seek)
        link = client.accept_seek(posted.seek, name="Bob")
        status = mine.seek(posted.seek, wait=1)
        assert status.status == "accepted" and status.seat is not None and status.table is not None
        assert client.with_token(link.token).table(status.table).you == [1]
        with pytest.raises(ClientError) as e:
            client.accept_seek(posted.seek)
        assert e.value.status == 409


def _restart(path, **kw):
    """A new app on the database file ``path``: the server after a restart."""
    return TestClient(create_app(path, ai_pause=0, limits=LIMITS, **kw), base_url=BASE)


def test_open_seeks_come_back_after_a_restart(tmp_path):
    import time

    db = tmp_path / "tables.sqlite3"
    with _restart(db) as c:
        kept = _post(c, players=4, name="Ann", clock={"kind": "fischer", "seconds": 300, "increment": 3})
        cancelled = _post(c, name="Cy")
        taken = _post(c, name="Di")
        assert c.delete(f"/api/seeks/{cancelled['seek']}", headers=auth(cancelled["token"])).status_code == 204
        assert c.post(f"/api/seeks/{taken['seek']}/accept", json={"name": "Bob"}).status_code == 201
        before = c.get("/api/seeks").json()["seeks"]
    with _restart(db) as c:
        after = c.get("/api/seeks").json()["seeks"]
        assert [s["seek"] for s in after] == [kept["seek"]]  # neither the cancelled nor the taken one
        assert {k: v for k, v in after[0].items() if k != "age"} == {k: v for k, v in before[0].items() if k != "age"}
        assert after[0]["age"] >= before[0]["age"]  # its time counts from when it was posted
        seek = c.app.state.seeks.seeks[kept["seek"]]
        assert time.monotonic() - seek.seen < 30  # idle time counts from the restart
        # the poster's page goes on with the token it kept; another player takes the seek
        status = c.get(f"/api/seeks/{kept['seek']}", headers=auth(kept["token"])).json()
        assert status["status"] == "open"
        r = c.post(f"/api/seeks/{kept['seek']}/accept", json={"name": "Eve"})
        assert r.status_code == 201, r.text
        status = c.get(f"/api/seeks/{kept['seek']}", headers=auth(kept["token"])).json()
        assert status["status"] == "accepted" and status["seat"]["seat"] == 0
    with _restart(db) as c:  # taken after the restart: gone for good
        assert c.get("/api/seeks").json()["seeks"] == []


def test_a_seek_that_expired_while_the_server_was_down_does_not_come_back(tmp_path):
    import sqlite3

    db = tmp_path / "tables.sqlite3"
    with _restart(db) as c:
        old = _post(c, name="Old")
        young = _post(c, name="Young")
    with sqlite3.connect(db) as con:  # posted seek_seconds and a minute ago
        con.execute("UPDATE seeks SET created = created - ? WHERE id = ?", (LIMITS.seek_seconds + 60, old["seek"]))
    with _restart(db) as c:
        assert [s["name"] for s in c.get("/api/seeks").json()["seeks"]] == ["Young"]
        assert c.get(f"/api/seeks/{old['seek']}", headers=auth(old["token"])).status_code == 404
        assert c.get(f"/api/seeks/{young['seek']}", headers=auth(young["token"])).json()["status"] == "open"
    with sqlite3.connect(db) as con:  # the expired row was deleted
        assert [r[0] for r in con.execute("SELECT name FROM seeks")] == ["Young"]


def test_a_seeks_row_holds_no_token_and_a_bad_row_is_dropped(tmp_path):
    import sqlite3

    db = tmp_path / "tables.sqlite3"
    with _restart(db) as c:
        posted = _post(c, name="Ann")
        _post(c, name="Bad")
    with sqlite3.connect(db) as con:
        dump = "\n".join(con.iterdump())
        assert posted["token"] not in dump
        con.execute("UPDATE seeks SET clock = '[1, 2' WHERE name = 'Bad'")
    with _restart(db) as c:
        assert [s["name"] for s in c.get("/api/seeks").json()["seeks"]] == ["Ann"]


def test_an_older_database_gains_the_seeks_table(tmp_path):
    import sqlite3

    db = tmp_path / "tables.sqlite3"
    with _restart(db) as c:
        table = c.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "ai", "ai": "random"}]})
        assert table.status_code == 201
    with sqlite3.connect(db) as con:  # a file written before seeks, chat and reports were kept
        for name in ("seeks", "chat", "reports"):
            con.execute(f"DROP TABLE {name}")
    with _restart(db) as c:
        assert c.get(f"/api/tables/{table.json()['table']}").status_code == 200
        posted = _post(c, name="Ann")
    with _restart(db) as c:
        assert [s["seek"] for s in c.get("/api/seeks").json()["seeks"]] == [posted["seek"]]
