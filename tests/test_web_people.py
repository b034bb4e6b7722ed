"""People to play with (web/club/people.py, docs/club.md): follows and presence, challenges (accepted,
declined, withdrawn, expired, limited), blocks (no challenge, no chat), profiles as plain text, the
leaderboard, and all of it kept across a restart and in a database of an older version."""

from __future__ import annotations

import dataclasses
import sqlite3
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")
pytest.importorskip("openskill")

from fastapi.testclient import TestClient
from sequence_game.web.club import ClubSettings
from sequence_game.web.club.people import MAX_BIO, MAX_COUNTRY
from test_web_accounts import FAST, browser, make_app, play_round_then_resign, sign_up
from web_support import BASE, auth


def people_app(path=":memory:", **settings):
    return make_app(path, dataclasses.replace(FAST, **settings))


def three(app):
    a, b, c = browser(app), browser(app), browser(app)
    for who, name in ((a, "alice"), (b, "bob"), (c, "carol")):
        sign_up(who, name)
    return a, b, c


def challenge(maker, to, **game):
    r = maker.post("/api/challenges", json={"to": to, **game})
    assert r.status_code == 201, r.text
    return r.json()


# ------------------------------------------------------------------ follows and presence


def test_following_shows_who_is_online_and_where_they_play():
    app = people_app()
    a, b, c = three(app)
    assert a.put("/api/people/follows/BOB").status_code == 204
    assert a.put("/api/people/follows/bob").status_code == 204  # twice is once
    assert a.put("/api/people/follows/carol").status_code == 204
    people = a.get("/api/people").json()
    assert [f["name"] for f in people["following"]] == ["bob", "carol"]
    assert all(f["online"] and f["playing"] == [] for f in people["following"])  # both signed up just now
    # bob plays carol (a challenge accepted): both are playing at that table, which anyone may watch
    ch = challenge(b, "carol")
    seat = c.post(f"/api/challenges/{ch['id']}/accept").json()
    table = seat["url"].split("/table/")[1].split("#")[0]
    following = a.get("/api/people").json()["following"]
    assert [(f["name"], [t["table"] for t in f["playing"]]) for f in following] == [("bob", [table]),
                                                                                    ("carol", [table])]
    page = a.get("/api/players/bob").json()
    assert page["presence"]["playing"][0]["players"] == ["bob", "carol"]
    assert page["relation"] == {"following": True, "blocked": False}
    assert a.get(f"/api/tables/{table}").status_code == 200  # watched without a seat
    # a guest reads presence on a player page, but has no people of its own
    guest = browser(app)
    assert guest.get("/api/players/bob").json()["relation"] is None
    assert guest.get("/api/people").status_code == 401
    assert a.delete("/api/people/follows/carol").status_code == 204
    assert [f["name"] for f in a.get("/api/people").json()["following"]] == ["bob"]


def test_an_account_not_seen_lately_is_offline():
    app = people_app(online_seconds=60.0)
    a, b, _c = three(app)
    a.put("/api/people/follows/bob")
    # bob's last request two minutes ago: moved back on the monotonic clock rather than waited for,
    # so a slow machine cannot stretch the window between the two requests below
    app.state.club.people.seen["bob"] -= 120.0
    assert a.get("/api/people").json()["following"][0]["online"] is False
    b.get("/api/session")  # any request with bob's cookie
    assert a.get("/api/people").json()["following"][0]["online"] is True


def test_follow_refuses_oneself_an_unknown_name_a_guest_and_another_sites_page():
    app = people_app()
    a, _b, _c = three(app)
    assert a.put("/api/people/follows/alice").status_code == 422
    assert a.put("/api/people/follows/nobody").status_code == 404
    assert browser(app).put("/api/people/follows/bob").status_code == 401
    a.origin = None  # the cookie without this server's Origin: refused, not done for the account
    assert a.put("/api/people/follows/bob").status_code == 403


# ------------------------------------------------------------------ challenges


def test_a_challenge_accepted_makes_the_rated_table_only_then():
    app = people_app()
    a, b, _c = three(app)
    service = app.state.service
    before = len(service.tables)
    ch = challenge(a, "bob", players=2, rated=True, clock={"kind": "fischer", "seconds": 180, "increment": 2,
                                                           "at_zero": "lose"})
    assert ch["status"] == "open" and ch["yours"] and ch["maker"] == "alice" and ch["target"] == "bob"
    assert len(service.tables) == before  # nothing made before the answer
    incoming = b.get("/api/people").json()["challenges"]["incoming"]
    assert [(c["id"], c["rated"], c["clock"]["seconds"]) for c in incoming] == [(ch["id"], True, 180)]
    seat = b.post(f"/api/challenges/{ch['id']}/accept")
    assert seat.status_code == 201, seat.text
    table = seat.json()["url"].split("/table/")[1].split("#")[0]
    view = b.get(f"/api/tables/{table}").json()
    assert [(s["name"], s["account"]) for s in view["seats"]] == [("alice", "alice"), ("bob", "bob")]
    assert [t["rated"] for t in b.get("/api/tables").json() if t["table"] == table] == [True]
    assert view["clock"] is not None
    # the maker's page finds its own seat in the challenge; the target never reads it
    mine = a.get(f"/api/challenges/{ch['id']}").json()
    assert mine["status"] == "accepted" and mine["table"] == table and mine["seat"]["seat"] == 0
    assert b.get(f"/api/challenges/{ch['id']}").json()["seat"] is None
    tokens = {0: mine["seat"]["token"], 1: seat.json()["token"]}
    assert a.get(f"/api/tables/{table}", headers=auth(tokens[0])).json()["you"] == [0]
    # taken once
    assert b.post(f"/api/challenges/{ch['id']}/accept").status_code == 409
    play_round_then_resign(a, table, tokens, 0)
    assert {r["name"]: r["counted"] for r in a.get(f"/api/tables/{table}/ratings").json()} == {"alice": True,
                                                                                                "bob": True}


def test_a_challenge_declined_withdrawn_or_expired_makes_nothing():
    app = people_app(challenge_seconds=3.0)  # long enough for the first two to be answered before
    a, b, c = three(app)
    tables = len(app.state.service.tables)
    one = challenge(a, "bob")
    assert a.post(f"/api/challenges/{one['id']}/decline").status_code == 403  # the maker withdraws, not declines
    r = b.post(f"/api/challenges/{one['id']}/decline")
    assert r.status_code == 200 and r.json()["status"] == "declined"
    assert a.get("/api/people").json()["challenges"]["outgoing"][0]["status"] == "declined"
    assert b.post(f"/api/challenges/{one['id']}/accept").status_code == 409
    two = challenge(a, "bob")
    assert b.delete(f"/api/challenges/{two['id']}").status_code == 403  # only its maker withdraws it
    assert a.delete(f"/api/challenges/{two['id']}").json()["status"] == "withdrawn"
    assert b.get("/api/people").json()["challenges"]["incoming"] == []
    three_ = challenge(a, "carol")
    time.sleep(3.1)
    assert c.post(f"/api/challenges/{three_['id']}/accept").status_code == 409
    assert a.get(f"/api/challenges/{three_['id']}").json()["status"] == "expired"
    assert len(app.state.service.tables) == tables
    # nobody else reads a challenge
    assert c.get(f"/api/challenges/{one['id']}").status_code == 404


def test_open_challenges_are_limited_per_account_per_pair_and_per_target():
    app = people_app(max_challenges_out=2, max_challenges_in=2)
    a, b, c = three(app)
    d, e = browser(app), browser(app)
    sign_up(d, "dave")
    sign_up(e, "erin")
    challenge(a, "bob")
    r = a.post("/api/challenges", json={"to": "bob"})
    assert r.status_code == 409 and "already have an open challenge" in r.json()["detail"]
    challenge(a, "carol")
    r = a.post("/api/challenges", json={"to": "dave"})
    assert r.status_code == 429 and "2 open challenges" in r.json()["detail"]
    challenge(c, "bob")
    r = d.post("/api/challenges", json={"to": "bob"})
    assert r.status_code == 429 and "bob has 2 open challenges" in r.json()["detail"]
    # a bad game is refused before anything is kept
    assert e.post("/api/challenges", json={"to": "bob", "players": 5}).status_code == 422
    assert e.post("/api/challenges", json={"to": "bob", "turn_seconds": 60, "clock": {
        "kind": "fischer", "seconds": 60}}).status_code == 422


def test_changes_of_one_account_are_rate_limited():
    app = people_app(people_burst=3, people_per_hour=1.0)
    a, _b, _c = three(app)
    for _ in range(3):
        assert a.put("/api/people/follows/bob").status_code == 204
    r = a.put("/api/people/follows/carol")
    assert r.status_code == 429 and "try again" in r.json()["detail"]


def test_a_flood_of_changes_past_them_is_refused_before_routing(monkeypatch):
    """Once a route refused a session's change (429), its next changes within a second are refused
    from memory (web/gate.py) with the route's own answer, without looking the session up again;
    a session that ended is judged by the route again (401), so is a request without Origin."""
    app = people_app(people_burst=1, people_per_hour=1.0)
    a, _b, _c = three(app)
    sessions = app.state.club.sessions
    lookups = []
    looked_up = sessions.account_of
    monkeypatch.setattr(sessions, "account_of", lambda sid: lookups.append(sid) or looked_up(sid))
    assert a.put("/api/people/follows/bob").status_code == 204
    first = a.put("/api/people/follows/carol")
    assert first.status_code == 429 and len(lookups) == 2
    for call in (lambda: a.delete("/api/people/follows/bob"), lambda: a.put("/api/profile", json={"bio": "x"}),
                 lambda: a.put("/api/people/blocks/carol"), lambda: a.post("/api/challenges", json={"to": "bob"}),
                 lambda: a.delete("/api/challenges/abc"), lambda: a.post("/api/challenges/abc/decline")):
        r = call()
        assert (r.status_code, r.json()) == (429, first.json())
    assert len(lookups) == 2  # none of them reached the route
    assert a.get("/api/people").status_code == 200 and len(lookups) == 3  # a read is routed
    # the same cookie without the Origin of this server's pages: the route refuses it (403)
    no_origin = TestClient(app, base_url=BASE, cookies=dict(a.cookies))
    assert no_origin.put("/api/people/follows/bob").status_code == 403
    monkeypatch.setattr(type(sessions), "SPENT_SECONDS", 0.0)  # what the route found is a second old
    assert a.put("/api/people/follows/bob").status_code == 429 and len(lookups) == 5
    monkeypatch.setattr(type(sessions), "SPENT_SECONDS", 60.0)
    assert a.delete("/api/session").status_code == 204  # logged out: the session is forgotten
    assert a.put("/api/people/follows/bob").status_code == 401


# ------------------------------------------------------------------ blocks


def test_a_block_stops_challenges_both_ways_and_closes_the_open_ones():
    app = people_app()
    a, b, _c = three(app)
    open_one = challenge(b, "alice")
    mine = challenge(a, "bob")
    assert a.put("/api/people/blocks/bob").status_code == 204
    assert a.get(f"/api/challenges/{open_one['id']}").json()["status"] == "declined"
    assert a.get(f"/api/challenges/{mine['id']}").json()["status"] == "withdrawn"
    r = b.post("/api/challenges", json={"to": "alice"})
    assert r.status_code == 403 and "does not take challenges from you" in r.json()["detail"]
    r = a.post("/api/challenges", json={"to": "bob"})
    assert r.status_code == 403 and "unblock" in r.json()["detail"]
    assert a.get("/api/people").json()["blocked"] == ["bob"]
    assert a.get("/api/players/bob").json()["relation"] == {"following": False, "blocked": True}
    assert b.get("/api/players/alice").json()["relation"]["blocked"] is False  # bob is not told
    assert a.delete("/api/people/blocks/bob").status_code == 204
    challenge(b, "alice")


def _chat_socket(client, table, token):
    ws = client.websocket_connect(f"ws://127.0.0.1/api/tables/{table}/ws")
    sock = ws.__enter__()
    sock.send_json({"type": "hello", "token": token, "chat": True})
    assert sock.receive_json()["type"] == "state"
    return ws, sock


def _frames_until_pong(sock):
    sock.send_json({"type": "ping"})
    return list(iter(sock.receive_json, {"type": "pong"}))


def test_a_blockers_pages_never_get_the_blocked_accounts_chat():
    app = people_app()
    a, b, _c = three(app)
    ch = challenge(a, "bob")
    seat_b = b.post(f"/api/challenges/{ch['id']}/accept").json()
    table = seat_b["url"].split("/table/")[1].split("#")[0]
    seat_a = a.get(f"/api/challenges/{ch['id']}").json()["seat"]
    client = a.client
    wa, sa = _chat_socket(client, table, seat_a["token"])
    wb, sb = _chat_socket(client, table, seat_b["token"])
    try:
        sb.send_json({"type": "chat", "text": "before the block"})
        assert "before the block" in [f.get("text") for f in _frames_until_pong(sa)]
        assert a.put("/api/people/blocks/bob").status_code == 204
        sb.send_json({"type": "chat", "text": "you cannot read this"})
        assert "you cannot read this" in [f.get("text") for f in _frames_until_pong(sb)]  # bob reads his own
        assert "you cannot read this" not in [f.get("text") for f in _frames_until_pong(sa)]
        sa.send_json({"type": "chat", "text": "alice still talks"})
        assert "alice still talks" in [f.get("text") for f in _frames_until_pong(sb)]
    finally:
        wa.__exit__(None, None, None)
        wb.__exit__(None, None, None)
    # a page of alice's that connects later gets none of bob's messages in the history either
    wa, sa = _chat_socket(client, table, seat_a["token"])
    try:
        log = next(f for f in iter(sa.receive_json, None) if f["type"] == "chat-log")
        assert [m["text"] for m in log["messages"]] == ["alice still talks"]
    finally:
        wa.__exit__(None, None, None)


# ------------------------------------------------------------------ profiles and the leaderboard


def test_a_profile_is_plain_text_bounded_and_refuses_control_characters():
    app = people_app()
    a, b, _c = three(app)
    r = a.put("/api/profile", json={"bio": "  I like <b>two-eyed</b> jacks.\nAnd blue.  ", "country": " Chile "})
    assert r.status_code == 200 and r.json() == {"bio": "I like <b>two-eyed</b> jacks.\nAnd blue.", "country": "Chile"}
    assert b.get("/api/players/alice").json()["profile"]["bio"].startswith("I like <b>")  # kept as text
    for body, field in (({"bio": "x" * (MAX_BIO + 1)}, "bio"), ({"country": "y" * (MAX_COUNTRY + 1)}, "country"),
                        ({"country": "Ch\u202eile"}, "country"), ({"bio": "a\x00b"}, "bio"),
                        ({"bio": "tab\there"}, "bio")):
        r = a.put("/api/profile", json=body)
        assert r.status_code == 422 and r.json()["detail"].startswith(field), r.text
    assert a.get("/api/players/alice").json()["profile"]["country"] == "Chile"  # nothing changed
    assert a.put("/api/profile", json={"bio": 5}).status_code == 422
    assert a.put("/api/profile", json={"bio": "", "country": ""}).json() == {"bio": "", "country": ""}


def test_the_leaderboard_puts_provisional_ratings_apart():
    app = people_app()
    a, b, c = three(app)
    club = app.state.club
    # settled ratings (sigma at most ratings.PROVISIONAL_SIGMA), a provisional one, one never rated
    club.store.write(("UPDATE accounts SET mu = 30, sigma = 4, games = 20 WHERE key = 'alice'", ()),
                     ("UPDATE accounts SET mu = 28, sigma = 5, games = 15 WHERE key = 'bob'", ()),
                     ("UPDATE accounts SET mu = 40, sigma = 7, games = 2 WHERE key = 'carol'", ()))
    d = browser(app)
    sign_up(d, "dave")
    board = d.get("/api/leaderboard").json()
    assert [(r["rank"], r["name"], r["provisional"]) for r in board["settled"]] == [(1, "alice", False),
                                                                                     (2, "bob", False)]
    assert [(r["name"], r["provisional"]) for r in board["provisional"]] == [("carol", True)]
    assert board["settled"][0]["rating"] > board["settled"][1]["rating"]
    assert len(d.get("/api/leaderboard?limit=1").json()["settled"]) == 1
    assert d.get("/api/leaderboard?limit=0").status_code == 422


def test_without_accounts_the_doors_are_closed_and_the_leaderboard_empty():
    app = make_app(accounts=False)
    g = browser(app)
    assert g.get("/api/leaderboard").json() == {"settled": [], "provisional": []}
    assert g.get("/api/people").status_code == 404
    assert g.put("/api/people/follows/bob").status_code == 404
    assert g.post("/api/challenges", json={"to": "bob"}).status_code == 404


# ------------------------------------------------------------------ across a restart


def test_a_restart_loses_no_follow_block_profile_or_challenge(tmp_path):
    path = tmp_path / "db.sqlite3"
    app = people_app(path)
    a, b, c = three(app)
    a.put("/api/people/follows/bob")
    a.put("/api/people/blocks/carol")
    a.put("/api/profile", json={"bio": "hi", "country": "Peru"})
    ch = challenge(a, "bob", players=4, rated=True)
    cookies = {n: w.cookies for n, w in (("a", a), ("b", b), ("c", c))}
    app2 = people_app(path)
    a2, b2, c2 = browser(app2), browser(app2), browser(app2)
    a2.cookies, b2.cookies, c2.cookies = cookies["a"], cookies["b"], cookies["c"]
    people = a2.get("/api/people").json()
    assert [f["name"] for f in people["following"]] == ["bob"] and people["blocked"] == ["carol"]
    assert a2.get("/api/players/alice").json()["profile"] == {"bio": "hi", "country": "Peru"}
    assert c2.post("/api/challenges", json={"to": "alice"}).status_code == 403  # the block held
    assert [x["id"] for x in b2.get("/api/people").json()["challenges"]["incoming"]] == [ch["id"]]
    seat = b2.post(f"/api/challenges/{ch['id']}/accept")
    assert seat.status_code == 201 and seat.json()["seat"] == 1
    table = seat.json()["url"].split("/table/")[1].split("#")[0]
    view = b2.get(f"/api/tables/{table}").json()
    assert [s["open"] for s in view["seats"]] == [False, False, True, True]


def test_an_acceptance_cut_short_by_a_restart_is_open_again(tmp_path):
    path = tmp_path / "db.sqlite3"
    app = people_app(path)
    a, b, _c = three(app)
    ch = challenge(a, "bob")
    me = app.state.club.accounts.get("bob")
    app.state.club.people.take(me, ch["id"])  # the server stopped before the table was made
    assert a.get(f"/api/challenges/{ch['id']}").json()["status"] == "accepting"
    app2 = people_app(path)
    b2 = browser(app2)
    b2.cookies = b.cookies
    assert b2.post(f"/api/challenges/{ch['id']}/accept").status_code == 201


def test_a_database_of_an_older_version_gains_the_tables_and_keeps_its_accounts(tmp_path):
    path = tmp_path / "old.sqlite3"
    app = people_app(path)
    a, _b, _c = three(app)
    app.state.club.close()
    db = sqlite3.connect(path)
    for t in ("follows", "blocks", "profiles", "challenges"):
        db.execute(f"DROP TABLE {t}")  # as a server of the version before them left it
    db.commit()
    db.close()
    app2 = people_app(path)
    a2 = browser(app2)
    a2.cookies = a.cookies
    assert a2.get("/api/session").json()["name"] == "alice"
    assert a2.put("/api/people/follows/bob").status_code == 204
    assert challenge(a2, "carol")["status"] == "open"


def test_club_settings_for_people_are_checked_and_settable():
    with pytest.raises(ValueError, match="max_challenges_out"):
        ClubSettings(max_challenges_out=0)
    assert ClubSettings().with_settings(["challenge_seconds=30"]).challenge_seconds == 30.0


# ------------------------------------------------------------------ the domain without HTTP


class _Seat:
    def __init__(self, name, account=None):
        self.name, self.account = name, account


class _Table:
    def __init__(self, tid, seats, over=False, present=None, rated=False):
        self.id, self.seats, self.over, self.present = tid, seats, over, present or {}
        self.options = type("Options", (), {"rated": rated})()


@pytest.fixture
def club():
    from sequence_game.web.club import Club

    c = Club(":memory:", dataclasses.replace(FAST, online_seconds=60.0, max_presence=4))
    yield c
    c.close()


def _accounts(club, *names):
    return [club.accounts.create(n, "password1") for n in names]


def test_presence_reads_the_live_unfinished_tables_and_a_connected_seat(club):
    _ann, _bob, _cyd = _accounts(club, "ann", "bob", "cyd")
    tables = [_Table("t1", [_Seat("ann", "ann"), _Seat("bob", "bob")], present={1: 1}),
              _Table("t2", [_Seat("ann", "ann"), _Seat("x")], over=True),  # a finished game is not play
              _Table("t3", [_Seat("cyd", "cyd"), _Seat(None)], rated=True)]
    club.people.tables = lambda: tables
    got = club.people.presence(["ann", "bob", "cyd"], now=1000.0)
    assert [t["table"] for t in got["ann"]["playing"]] == ["t1"] and got["ann"]["online"] is False
    assert got["bob"]["online"] is True  # his seat's connection is open
    assert got["cyd"]["playing"] == [{"table": "t3", "players": ["cyd", None], "rated": True}]
    club.people.saw("ann", now=1000.0)
    assert club.people.presence(["ann"], now=1059.0)["ann"]["online"] is True
    assert club.people.presence(["ann"], now=1061.0)["ann"]["online"] is False


def test_presence_in_memory_is_bounded(club):
    for k in range(50):
        club.people.saw(f"acct{k}", now=float(k))
        assert len(club.people.seen) <= club.settings.max_presence + 1
    assert "acct49" in club.people.seen  # the newest is kept


def test_follow_and_block_caps_and_the_in_memory_blocks_follow_the_rows(club):
    me, *_others = _accounts(club, "me1", "oth1", "oth2", "oth3")
    people = club.people
    people.settings = dataclasses.replace(club.settings, max_follows=2, max_blocks=1)
    people.follow(me, "oth1")
    people.follow(me, "oth2")
    people.follow(me, "oth2")  # followed already: no new row, no refusal
    with pytest.raises(ValueError, match="you follow 2 players"):
        people.follow(me, "oth3")
    people.block(me, "oth1")
    with pytest.raises(ValueError, match="you block 1 players"):
        people.block(me, "oth2")
    assert people.blocks("me1", "oth1") and not people.blocks("oth1", "me1") and not people.blocks(None, "oth1")
    people.unblock(me, "OTH1")
    assert not people.blocks("me1", "oth1")
    assert club.store.fetch("SELECT COUNT(*) FROM blocks") == [(0,)]


def test_a_challenge_and_a_seek_refuse_the_same_impossible_games_each_by_its_name():
    """A challenge's game is checked as a seek's is (one check, web/lobby.py): both a turn timer
    and a clock, a player count the rules do not allow; nothing is made."""
    app = people_app()
    a, _, _ = three(app)
    both = {"turn_seconds": 30, "clock": {"kind": "fischer", "seconds": 300, "increment": 2}}
    r = a.post("/api/challenges", json={"to": "bob", **both})
    assert r.status_code == 422 and r.json()["detail"].startswith("a challenge has one time control"), r.text
    r = a.post("/api/seeks", json=both)
    assert r.status_code == 422 and r.json()["detail"].startswith("a seek has one time control"), r.text
    r = a.post("/api/challenges", json={"to": "bob", "players": 3, "teams": 2})
    assert r.status_code == 422 and "teams" in r.json()["detail"], r.text
    assert a.get("/api/people").json()["challenges"]["outgoing"] == []
