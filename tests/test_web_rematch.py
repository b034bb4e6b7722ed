"""A rematch is an offer (docs/web.md, "Rematch"): every other person at the table accepts or
declines it; its maker withdraws it; it ends after its time or when a person leaves; the new table
exists only once everyone accepted, and an open offer outlives a restart of the server."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from sequence_game.web import create_app
from sequence_game.web.store import TableStore
from sequence_game.web.tables import rematch as rematch_module
from web_support import BASE, auth, new_table, service_of

TWO_HUMANS = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]


@pytest.fixture
def client():
    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        yield c


def _over(client):
    """A finished game between two people (Ann resigned)."""
    tid, tokens = new_table(client, players=2, seats=TWO_HUMANS)
    assert client.post(f"/api/tables/{tid}/resign", headers=auth(tokens[0])).status_code == 200
    return tid, tokens


def _next(ws, kind):
    """The next frame of type ``kind`` (the states between are skipped)."""
    while (msg := ws.receive_json())["type"] != kind:
        pass
    return msg


def _rematches(client, tid):
    return [row.id for row in service_of(client).store.load_all() if row.options.get("rematch_of") == tid]


def test_an_offer_waits_for_every_other_person_and_only_then_makes_the_table(client):
    tid, tokens = _over(client)
    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as bob:
        bob.send_json({"type": "hello", "token": tokens[1]})
        assert _next(bob, "state")["view"]["rematch_offer"] is None
        r = client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0]))
        assert r.status_code == 202, r.text
        offer = r.json()["offer"]
        assert r.json()["table"] is None and offer["by"] == 0 and offer["accepted"] == [0] and offer["waiting"] == [1]
        assert offer["rated"] is False and 55 < offer["expires_in"] <= 60
        frame = _next(bob, "rematch-offer")
        assert frame["offer"]["waiting"] == [1] and frame["ended"] is None
        assert _next(bob, "state")["view"]["rematch_offer"]["by"] == 0  # Bob's page shows it
        # asked again by its maker: still an offer, no table
        assert client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0])).status_code == 202
        assert _rematches(client, tid) == []
        assert client.get(f"/api/tables/{tid}").json()["rematch_offer"]["accepted"] == [0]  # public, as the seats
        bob.send_json({"type": "rematch"})  # Bob accepts on his socket
        new = _next(bob, "rematch")["table"]
    assert _rematches(client, tid) == [new]
    view = client.get(f"/api/tables/{tid}").json()
    assert view["rematch"] == new and view["rematch_offer"] is None
    for seat, token in tokens.items():
        assert client.get(f"/api/tables/{new}", headers=auth(token)).json()["you"] == [seat]
    r = client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0]))  # made once
    assert r.status_code == 201 and r.json()["table"] == new


def test_an_offer_declined_or_withdrawn_ends_without_a_table(client):
    tid, tokens = _over(client)
    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as ann:
        ann.send_json({"type": "hello", "token": tokens[0]})
        _next(ann, "state")
        assert client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0])).status_code == 202
        assert _next(ann, "rematch-offer")["offer"]["by"] == 0
        r = client.delete(f"/api/tables/{tid}/rematch", headers=auth(tokens[1]))
        assert r.status_code == 200 and r.json() == {"ended": "declined"}, r.text
        assert _next(ann, "rematch-offer") == {"type": "rematch-offer", "offer": None, "ended": "declined", "seat": 1}
        assert client.get(f"/api/tables/{tid}").json()["rematch_offer"] is None
        r = client.delete(f"/api/tables/{tid}/rematch", headers=auth(tokens[1]))
        assert r.status_code == 409 and "no rematch offer" in r.json()["detail"]
        ann.send_json({"type": "rematch"})  # a new offer, by Ann's socket; she withdraws it on it
        assert _next(ann, "rematch-offer")["offer"]["by"] == 0
        ann.send_json({"type": "decline"})
        assert _next(ann, "rematch-offer") == {"type": "rematch-offer", "offer": None, "ended": "withdrawn", "seat": 0}
    assert _rematches(client, tid) == []
    assert client.delete(f"/api/tables/{tid}/rematch").status_code == 401  # a spectator answers nothing
    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as fan:
        fan.send_json({"type": "hello", "token": None})
        _next(fan, "state")
        fan.send_json({"type": "decline"})
        assert _next(fan, "error")["error"] == "NotAllowedError"


def test_an_offer_expires_unanswered(client, monkeypatch):
    monkeypatch.setattr(rematch_module, "OFFER_SECONDS", 0.3)
    tid, tokens = _over(client)
    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as bob:
        bob.send_json({"type": "hello", "token": tokens[1]})
        _next(bob, "state")
        assert client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0])).status_code == 202
        assert _next(bob, "rematch-offer")["offer"] is not None
        assert _next(bob, "rematch-offer") == {"type": "rematch-offer", "offer": None, "ended": "expired", "seat": None}
    assert client.get(f"/api/tables/{tid}").json()["rematch_offer"] is None
    assert client.delete(f"/api/tables/{tid}/rematch", headers=auth(tokens[1])).status_code == 409
    assert client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[1])).status_code == 202  # too late: a new offer
    assert _rematches(client, tid) == []


def test_an_offer_ends_when_a_person_leaves_but_not_on_a_reload(client, monkeypatch):
    monkeypatch.setattr(rematch_module, "LEAVE_SECONDS", 1.5)  # the reload below must fit in it
    tid, tokens = _over(client)
    url = f"ws://127.0.0.1/api/tables/{tid}/ws"
    with client.websocket_connect(url) as ann:
        ann.send_json({"type": "hello", "token": tokens[0]})
        _next(ann, "state")
        with client.websocket_connect(url) as bob:
            bob.send_json({"type": "hello", "token": tokens[1]})
            _next(bob, "state")
            assert client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0])).status_code == 202
        with client.websocket_connect(url) as bob:  # a reload: Bob is back within the grace
            bob.send_json({"type": "hello", "token": tokens[1]})
            _next(bob, "state")
            time.sleep(2.0)  # past LEAVE_SECONDS: the timer would have ended the offer by now
            assert client.get(f"/api/tables/{tid}").json()["rematch_offer"]["waiting"] == [1]
        frame = _next(ann, "rematch-offer")  # Bob's page closed for good
        assert frame["offer"] is not None  # the offer as it was made, then its end
        assert _next(ann, "rematch-offer") == {"type": "rematch-offer", "offer": None, "ended": "left", "seat": 1}
    assert client.get(f"/api/tables/{tid}").json()["rematch_offer"] is None
    assert _rematches(client, tid) == []


def test_a_table_of_one_person_gets_its_rematch_at_once_and_a_hot_seat_answers_as_one(client):
    tid, tokens = new_table(client, players=2, seats=[{"kind": "human"}, {"kind": "ai", "ai": "random"}])
    client.post(f"/api/tables/{tid}/resign", headers=auth(tokens[0]))
    assert client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0])).status_code == 201
    tid, tokens = new_table(client, players=2, hot_seat=True, seats=TWO_HUMANS)
    client.post(f"/api/tables/{tid}/resign", headers=auth(tokens[0]))
    assert client.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0])).status_code == 201


def test_an_open_offer_outlives_a_restart_with_the_time_it_had(tmp_path):
    db = tmp_path / "t.sqlite3"
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        tid, tokens = _over(c)
        assert c.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0])).status_code == 202
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        offer = c.get(f"/api/tables/{tid}").json()["rematch_offer"]
        assert offer["by"] == 0 and offer["waiting"] == [1] and offer["expires_in"] <= 60
        r = c.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[1]))
        assert r.status_code == 201, r.text
        assert _rematches(c, tid) == [r.json()["table"]]
    # an offer whose time passed while the server was down is no offer
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        tid, tokens = _over(c)
        assert c.post(f"/api/tables/{tid}/rematch", headers=auth(tokens[0])).status_code == 202
    store = TableStore(db)
    store.set_option(tid, "rematch_offer", {**store.get(tid).options["rematch_offer"], "expires": time.time() - 1})
    store.close()
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        assert c.get(f"/api/tables/{tid}").json()["rematch_offer"] is None
        assert c.delete(f"/api/tables/{tid}/rematch", headers=auth(tokens[1])).status_code == 409


def test_a_damaged_stored_offer_is_no_offer(client):
    tid, tokens = _over(client)
    assert tid not in service_of(client).tables  # nobody watches it: it is read from its row
    service_of(client).store.set_option(tid, "rematch_offer", {"by": "x", "accepted": None})
    assert client.get(f"/api/tables/{tid}").json()["rematch_offer"] is None
