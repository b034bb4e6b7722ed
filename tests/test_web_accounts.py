"""Accounts, sessions and rated tables over HTTP (docs/club.md): the security of each new door
(docs/security.md): password hashing, session fixation, CSRF, brute force, enumeration, names as
text, a guest acting as an account, rating manipulation, and the operator's switch and command."""

from __future__ import annotations

import os
import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")
pytest.importorskip("openskill")

import httpx
from fastapi.testclient import TestClient
from sequence_game.web.app import create_app
from sequence_game.web.club import ClubSettings
from sequence_game.web.club.accounts import HASH_PARAMETERS, hasher
from sequence_game.web.club.sessions import COOKIE
from web_support import BASE, auth, wait_for

#: cheap argon2 for the tests that are not about hashing (the real parameters are tested below)
CHEAP = (("time_cost", 1), ("memory_cost", 8), ("parallelism", 1))
FAST = ClubSettings(hash_overrides=CHEAP, signup_burst=100)
ORIGIN = {"Origin": BASE}


_CLIENTS: dict = {}


def make_app(path=":memory:", settings=FAST, **kw):
    return create_app(path, ai_pause=0, club=settings, **kw)


def close_clients():
    """Close the clients :class:`Browser` shares per app (conftest.py calls this after every test)."""
    while _CLIENTS:
        _CLIENTS.popitem()[1].__exit__(None, None, None)


class Browser:
    """One person's browser: its own cookie jar, the Origin of the site's own pages (``origin``
    None: a client that is not a browser), over one TestClient per app (its lifespan runs once)."""

    def __init__(self, app, base=BASE, origin=BASE):
        if id(app) not in _CLIENTS:
            _CLIENTS[id(app)] = TestClient(app, base_url=BASE).__enter__()
        self.client, self.base, self.origin = _CLIENTS[id(app)], base, origin
        self.cookies = httpx.Cookies()

    def __enter__(self):
        return self

    def set_cookie(self, value):
        """The browser's session cookie is now ``value`` (planted, stolen or forged)."""
        self.cookies = httpx.Cookies()
        self.cookies.set(COOKIE, value, domain="127.0.0.1")

    def __exit__(self, *exc):
        return None

    def request(self, method, path, headers=None, **kw):
        c = self.client
        c.cookies = httpx.Cookies(self.cookies)
        r = c.request(method, self.base + path, headers={**({"Origin": self.origin} if self.origin else {}),
                                                          **(headers or {})}, **kw)
        self.cookies = httpx.Cookies(c.cookies)
        return r

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)

    def put(self, path, **kw):
        return self.request("PUT", path, **kw)


def browser(app, base=BASE):
    """A client that behaves like the site's own pages: it sends their Origin."""
    return Browser(app, base)


def sign_up(client, name, password="password1"):
    r = client.post("/api/accounts", json={"name": name, "password": password})
    assert r.status_code == 201, r.text
    return r


def rated_table(creator, joiners, players=2):
    r = creator.post("/api/tables", json={"players": players, "rated": True, "seats": [{"kind": "human"}] + [
        {"kind": "human", "open": True}] * (players - 1)})
    assert r.status_code == 201, r.text
    table, tokens = r.json()["table"], {0: r.json()["seats"][0]["token"]}
    for c in joiners:
        j = c.post(f"/api/tables/{table}/join", json={})
        assert j.status_code == 201, j.text
        tokens[j.json()["seat"]] = j.json()["token"]
    return table, tokens


def play_round_then_resign(client, table, tokens, resigner):
    """Every seat makes one move (a game no seat aborted), then ``resigner`` resigns."""
    for _ in range(len(tokens)):
        v = client.get(f"/api/tables/{table}").json()
        p = v["state"]["current_player"]
        mine = client.get(f"/api/tables/{table}", headers=auth(tokens[p])).json()
        r = client.post(f"/api/tables/{table}/moves", json={"move": mine["legal"][0]}, headers=auth(tokens[p]))
        assert r.status_code == 200, r.text
    r = client.post(f"/api/tables/{table}/resign", json={}, headers=auth(tokens[resigner]))
    assert r.status_code == 200, r.text


@pytest.fixture
def app():
    return make_app()


# ------------------------------------------------------------------ password hashing


def test_passwords_are_argon2id_with_the_documented_parameters(tmp_path):
    assert HASH_PARAMETERS["time_cost"] == 3 and HASH_PARAMETERS["memory_cost"] == 65536
    assert HASH_PARAMETERS["parallelism"] == 4 and HASH_PARAMETERS["salt_len"] == 16
    app = make_app(tmp_path / "db.sqlite3", settings=ClubSettings())  # the server's own parameters
    with browser(app) as c:
        sign_up(c, "alice", "correct horse")
    store = app.state.club.store
    (stored,) = store.one("SELECT hash FROM accounts WHERE key = 'alice'")
    assert stored.startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert "correct horse" not in stored
    # the same password twice: two salts, two hashes
    assert hasher().hash("correct horse") != hasher().hash("correct horse")


def test_a_hash_with_weaker_parameters_is_replaced_at_login(tmp_path):
    path = tmp_path / "db.sqlite3"
    with browser(make_app(path)) as c:  # made with the cheap parameters
        sign_up(c, "alice")
    app = make_app(path, settings=ClubSettings(hash_overrides=(("time_cost", 2), ("memory_cost", 16),
                                                               ("parallelism", 1))))
    with browser(app) as c:
        assert c.post("/api/session", json={"name": "alice", "password": "password1"}).status_code == 200
    (stored,) = app.state.club.store.one("SELECT hash FROM accounts WHERE key = 'alice'")
    assert stored.startswith("$argon2id$v=19$m=16,t=2,p=1$")


def test_bad_names_and_passwords_are_refused_in_one_line(app):
    with browser(app) as c:
        for name, password, what in [("<script>x</script>", "password1", "name:"), ("ab", "password1", "name:"),
                                     ("alice", "short", "password:"), ("al ice", "password1", "name:")]:
            r = c.post("/api/accounts", json={"name": name, "password": password})
            assert r.status_code == 422 and r.json()["detail"].startswith(what), r.text
            assert "\n" not in r.json()["detail"]
        r = c.post("/api/accounts", json={"name": "alice", "password": "x" * 300})
        assert r.status_code == 422
        sign_up(c, "Alice")
        r = c.post("/api/accounts", json={"name": "ALICE", "password": "password2"})
        assert r.status_code == 422 and "taken" in r.json()["detail"]


# ------------------------------------------------------------------ the session cookie


def test_the_cookie_is_httponly_samesite_lax_and_secure_only_over_https(app):
    with browser(app) as c:
        cookie = sign_up(c, "alice").headers["set-cookie"]
    assert f"{COOKIE}=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" not in cookie
    with browser(app, "https://127.0.0.1") as c:
        cookie = sign_up(c, "bob").headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Secure" in cookie


def test_login_makes_a_new_session_id_and_ends_the_planted_one(app):
    with browser(app) as victim, browser(app) as attacker:
        sign_up(attacker, "mallory")
        planted = attacker.cookies[COOKIE]  # the attacker's own valid session, set in the victim's browser
        sign_up(victim, "alice")
        victim.set_cookie(planted)
        assert victim.get("/api/session").json()["name"] == "mallory"
        r = victim.post("/api/session", json={"name": "alice", "password": "password1"})
        assert r.status_code == 200 and r.json()["name"] == "alice"
        fresh = victim.cookies[COOKIE]
        assert fresh != planted
        assert victim.get("/api/session").json()["name"] == "alice"
        # the planted id was ended at the login: it signs nobody in any more
        with browser(app) as other:
            other.set_cookie(planted)
            assert other.get("/api/session").json()["name"] is None
        # an id the attacker made up is never adopted either
        victim.set_cookie("made-up-by-the-attacker")
        victim.post("/api/session", json={"name": "alice", "password": "password1"})
        assert victim.cookies[COOKIE] != "made-up-by-the-attacker"


def test_logout_ends_the_session_on_the_server(app):
    with browser(app) as c:
        sign_up(c, "alice")
        sid = c.cookies[COOKIE]
        assert c.delete("/api/session").status_code == 204
        assert c.get("/api/session").json()["name"] is None
    with browser(app) as thief:  # a copy of the old cookie is worth nothing
        thief.set_cookie(sid)
        assert thief.get("/api/session").json()["name"] is None


def test_the_database_keeps_only_a_hash_of_the_session_id(app):
    with browser(app) as c:
        sign_up(c, "alice")
        sid = c.cookies[COOKIE]
    rows = app.state.club.store.fetch("SELECT hash FROM sessions")
    assert rows and all(sid not in h for (h,) in rows)


# ------------------------------------------------------------------ CSRF


def test_a_write_signed_in_by_the_cookie_needs_this_servers_origin(app):
    seats = [{"kind": "human"}, {"kind": "ai", "ai": "random"}]
    with browser(app) as c:
        sign_up(c, "alice")
        cookie = c.cookies[COOKIE]
    with Browser(app, origin=None) as bare:  # no Origin header
        bare.set_cookie(cookie)
        r = bare.post("/api/tables", json={"players": 2, "seats": seats})
        assert r.status_code == 403 and "Origin" in r.json()["detail"]
        assert bare.delete("/api/session").status_code == 403
        r = bare.post("/api/tables", json={"players": 2, "seats": seats}, headers={"Origin": "https://evil.example"})
        assert r.status_code == 403
        r = bare.post("/api/tables", json={"players": 2, "seats": seats}, headers=ORIGIN)
        assert r.status_code == 201
        # the session survived the refused logout
        assert bare.get("/api/session").json()["name"] == "alice"
    with Browser(app, origin=None) as bot:  # no cookie, no Origin: a guest as before (bots, scripts)
        assert bot.post("/api/tables", json={"players": 2, "seats": seats}).status_code == 201


def test_login_from_another_sites_page_is_refused(app):
    with browser(app) as c:
        sign_up(c, "alice")
    with Browser(app, origin=None) as c:
        r = c.post("/api/session", json={"name": "alice", "password": "password1"},
                   headers={"Origin": "https://evil.example"})
        assert r.status_code == 403 and COOKIE not in c.cookies


# ------------------------------------------------------------------ brute force and enumeration


def test_login_attempts_per_name_are_limited_even_from_many_addresses():
    app = make_app(settings=ClubSettings(hash_overrides=CHEAP, name_burst=3, name_per_hour=1.0, login_burst=100))
    with browser(app) as c:
        sign_up(c, "alice")
    club = app.state.club
    for i in range(3):
        with browser(app) as c:
            club.login_by_address.buckets.clear()  # as if each came from an address of its own
            assert c.post("/api/session", json={"name": "alice", "password": f"guess{i:04d}"}).status_code == 401
    with browser(app) as c:
        r = c.post("/api/session", json={"name": "ALICE", "password": "password1"})  # even the right one
        assert r.status_code == 429 and "try again in" in r.json()["detail"]
        # another account is not locked by it
        assert c.post("/api/session", json={"name": "bob", "password": "password1"}).status_code == 401


def test_login_attempts_per_address_are_limited():
    app = make_app(settings=ClubSettings(hash_overrides=CHEAP, login_burst=4, login_per_hour=1.0))
    with browser(app) as c:
        codes = [c.post("/api/session", json={"name": f"user{i}", "password": "password1"}).status_code
                 for i in range(6)]
    assert codes == [401] * 4 + [429] * 2


def test_a_signed_in_player_changes_the_password_and_the_other_sessions_end(app):
    with browser(app) as a, browser(app) as other, browser(app) as guest:
        sign_up(a, "alice")
        assert other.post("/api/session", json={"name": "alice", "password": "password1"}).status_code == 200
        old_cookie = a.cookies.get(COOKIE)
        change = {"old": "password1", "new": "password2"}
        r = a.request("PUT", "/api/session/password", json={**change, "old": "not it at all"})
        assert r.status_code == 401 and "old password is wrong" in r.json()["detail"], r.text
        r = a.request("PUT", "/api/session/password", json={**change, "new": "short"})
        assert r.status_code == 422, r.text
        r = a.request("PUT", "/api/session/password", json=change)
        assert r.status_code == 200 and r.json()["name"] == "alice", r.text
        assert a.cookies.get(COOKIE) != old_cookie  # a new session id for this browser
        assert a.get("/api/session").json()["name"] == "alice"
        assert other.get("/api/session").json()["name"] is None  # every other session ended
        assert guest.post("/api/session", json={"name": "alice", "password": "password1"}).status_code == 401
        assert guest.post("/api/session", json={"name": "alice", "password": "password2"}).status_code == 200
        r = Browser(app).request("PUT", "/api/session/password", json=change)  # a guest has no password
        assert r.status_code == 401, r.text
    with browser(app) as a:
        sign_up(a, "bob")
        no_origin = Browser(app, origin=None)
        no_origin.cookies = a.cookies
        r = no_origin.request("PUT", "/api/session/password", json={"old": "password1", "new": "password3"})
        assert r.status_code == 403, r.text  # CSRF: the cookie's write must come from the server's pages


def test_password_changes_are_limited_like_logins():
    app = make_app(settings=ClubSettings(hash_overrides=CHEAP, signup_burst=10, name_burst=3, name_per_hour=1.0,
                                         login_burst=100))
    with browser(app) as a:
        sign_up(a, "alice")
        codes = [a.request("PUT", "/api/session/password", json={"old": f"guess{i:04d}", "new": "password2"}).status_code
                 for i in range(4)]
        assert codes == [401] * 3 + [429]
        # the right old password is refused too while the account's attempts are spent, as a login's
        r = a.request("PUT", "/api/session/password", json={"old": "password1", "new": "password2"})
        assert r.status_code == 429 and "try again in" in r.json()["detail"]


def test_sign_ups_per_address_are_limited():
    app = make_app(settings=ClubSettings(hash_overrides=CHEAP, signup_burst=2, signup_per_hour=1.0))
    with browser(app) as c:
        sign_up(c, "alice")
        sign_up(c, "bob")
        r = c.post("/api/accounts", json={"name": "carol", "password": "password1"})
        assert r.status_code == 429


def test_a_taken_name_spends_no_sign_up():
    app = make_app(settings=ClubSettings(hash_overrides=CHEAP, signup_burst=2, signup_per_hour=1.0))
    with browser(app) as c:
        sign_up(c, "zed01")
        for name in ("zed01", "ZED01", "Zed01"):  # taken: not an acceptable name (docs/security.md)
            r = c.post("/api/accounts", json={"name": name, "password": "password1"})
            assert r.status_code == 422 and "taken" in r.json()["detail"], r.text
        sign_up(c, "zed02")  # the second sign-up of the burst is still there
        r = c.post("/api/accounts", json={"name": "zed03", "password": "password1"})
        assert r.status_code == 429


def test_a_name_taken_while_its_password_is_hashed_gives_the_sign_up_back():
    app = make_app(settings=ClubSettings(hash_overrides=CHEAP, signup_burst=1, signup_per_hour=1.0))
    club = app.state.club
    create = club.accounts.create

    def raced(name, password):  # another sign-up takes the name between the check and the insert
        create(name, "password9")
        return create(name, password)

    club.accounts.create = raced
    with browser(app) as c:
        r = c.post("/api/accounts", json={"name": "zed01", "password": "password1"})
        assert r.status_code == 422 and "taken" in r.json()["detail"], r.text
        club.accounts.create = create
        sign_up(c, "zed02")  # the one sign-up of the address was given back


def test_unknown_name_and_wrong_password_get_the_same_answer_after_the_same_work(app):
    club = app.state.club
    with browser(app) as c:
        sign_up(c, "alice")
        club.accounts.set_disabled("alice", False)
        calls = []
        verify = club.accounts._verify

        def counted(stored, password):
            calls.append(stored == club.accounts.dummy)
            return verify(stored, password)

        club.accounts._verify = counted
        wrong = c.post("/api/session", json={"name": "alice", "password": "not-her-password"})
        unknown = c.post("/api/session", json={"name": "nobody", "password": "not-her-password"})
        odd = c.post("/api/session", json={"name": "<b>", "password": "not-her-password"})
    assert wrong.status_code == unknown.status_code == odd.status_code == 401
    assert wrong.json() == unknown.json() == odd.json() == {"detail": "wrong name or password",
                                                            "error": "NeedsAccountError"}
    assert wrong.headers.get("set-cookie") is None and unknown.headers.get("set-cookie") is None
    assert calls == [False, True, True]  # one argon2 verification each: the real hash, then the dummy's


def test_unknown_name_takes_as_long_as_a_wrong_password_with_the_real_parameters():
    app = make_app(settings=ClubSettings())
    with browser(app) as c:
        sign_up(c, "alice")
        app.state.club.login_by_address.burst = app.state.club.login_by_name.burst = 1000.0

        def timed(name):
            # the process's CPU time (every thread's, the hashing one included), not the wall clock:
            # what the server spends does not depend on what else the machine runs
            start = time.process_time()
            assert c.post("/api/session", json={"name": name, "password": "wrong password"}).status_code == 401
            return time.process_time() - start

        timed("nobody")  # the dummy hash is made once, at the first unknown name
        wrong, unknown = [], []
        for _ in range(5):  # interleaved, so a slow spell of the machine falls on both
            wrong.append(timed("alice"))
            unknown.append(timed("nobody"))
        wrong_median, unknown_median = sorted(wrong)[2], sorted(unknown)[2]
    assert 0.5 < unknown_median / wrong_median < 2.0, (unknown, wrong)


def test_a_disabled_account_says_so_only_to_its_right_password(app):
    with browser(app) as c:
        sign_up(c, "alice")
        app.state.club.accounts.set_disabled("alice", True)
        assert c.get("/api/session").json()["name"] is None  # its sessions ended
        wrong = c.post("/api/session", json={"name": "alice", "password": "bad password"})
        right = c.post("/api/session", json={"name": "alice", "password": "password1"})
        assert wrong.json()["detail"] == "wrong name or password"
        assert right.status_code == 401 and "disabled" in right.json()["detail"]
        assert c.get("/api/players").json() == []
        assert c.get("/api/players/alice").status_code == 404


# ------------------------------------------------------------------ names as text, guests


def test_names_reach_the_pages_as_json_text_only(app):
    hostile = '<img src=x onerror="alert(x)">'
    with browser(app) as c:
        sign_up(c, "alice")
        r = c.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "human", "name": hostile}]})
        table, tokens = r.json()["table"], {s["seat"]: s["token"] for s in r.json()["seats"]}
        play_round_then_resign(c, table, tokens, 1)
        r = c.get("/api/players/alice")
        assert r.headers["content-type"].startswith("application/json")
        assert r.json()["games"][0]["seats"][1]["name"] == hostile  # stored as given, shown as text by the page
        page = c.get("/players/alice")
        assert page.headers["content-type"].startswith("text/html") and hostile not in page.text
        assert hostile not in c.get("/players/%3Cimg%20src=x%3E").text  # the page never echoes the path


def test_a_guest_cannot_act_as_an_account(app):
    with browser(app) as alice, browser(app) as guest:
        sign_up(alice, "alice")
        table, _ = rated_table(alice, [])
        r = guest.post(f"/api/tables/{table}/join", json={})
        assert r.status_code == 401 and "signed-in accounts" in r.json()["detail"]
        r = guest.post(f"/api/tables/{table}/join", json={"account": "alice"})
        assert r.status_code == 422  # no field of a request names an account
        guest.set_cookie("forged-session-id")
        assert guest.get("/api/session").json()["name"] is None
        assert guest.post(f"/api/tables/{table}/join", json={}).status_code == 401
        r = guest.post("/api/tables", json={"players": 2, "rated": True,
                                            "seats": [{"kind": "human"}, {"kind": "human", "open": True}]})
        assert r.status_code == 401
        # a guest under an account's name at a casual table is still a guest: nothing is filed for alice
        r = guest.post("/api/tables", json={"players": 2, "seats": [{"kind": "human", "name": "alice"},
                                                                    {"kind": "human", "name": "x"}]})
        t2, tokens = r.json()["table"], {s["seat"]: s["token"] for s in r.json()["seats"]}
        v = guest.get(f"/api/tables/{t2}").json()
        assert [s["account"] for s in v["seats"]] == [None, None]
        play_round_then_resign(guest, t2, tokens, 0)
        assert alice.get("/api/players/alice").json()["games"] == []


ROOKIE = "alice (500?)"  # a guest posing as a provisional account


def test_a_guests_name_may_not_look_rated_at_any_door(app):
    with browser(app) as c:
        r = c.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "human", "open": True}]})
        table = r.json()["table"]
        posted = post_seek(c)
        for path, body in [
            ("/api/tables", {"players": 2, "seats": [{"kind": "human", "name": ROOKIE}, {"kind": "ai"}]}),
            (f"/api/tables/{table}/join", {"name": ROOKIE}),
            ("/api/seeks", {"name": ROOKIE}),
            ("/api/seeks/quick", {"name": "alice [1200]"}),
            (f"/api/seeks/{posted['seek']}/accept", {"name": "alice \uff08\uff15\uff10\uff10\uff09"}),  # full-width
            ("/api/play-computer", {"name": "bob (7)"}),
        ]:
            r = c.post(path, json=body)
            assert r.status_code == 422 and "number in brackets" in r.json()["detail"], (path, r.text)
        assert c.post("/api/seeks", json={"name": "alice (the cat)"}).status_code == 201  # other brackets are text


def test_an_accounts_seat_and_seek_are_told_from_a_guests_everywhere(app):
    with browser(app) as a, Browser(app, origin=None) as guest:
        sign_up(a, "alice")
        mine = post_seek(a)
        post_seek(guest, name="alice")
        seeks = {s["seek"]: s for s in guest.get("/api/seeks").json()["seeks"]}
        assert (seeks[mine["seek"]]["account"], seeks[mine["seek"]]["rating"]) == ("alice", 500)
        (other,) = [s for k, s in seeks.items() if k != mine["seek"]]
        assert (other["name"], other["account"], other["rating"]) == ("alice", None, None)
        # a table: the account at seat 0, a guest calling itself alice at seat 1
        r = a.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "human", "open": True}]})
        table, tokens = r.json()["table"], {0: r.json()["seats"][0]["token"]}
        j = guest.post(f"/api/tables/{table}/join", json={"name": "alice"})
        tokens[1] = j.json()["token"]
        lobby = next(t for t in guest.get("/api/tables").json() if t["table"] == table)
        assert [(s["name"], s["account"]) for s in lobby["seats"]] == [("alice", "alice"), ("alice", None)]
        view = guest.get(f"/api/tables/{table}").json()
        assert [(s["name"], s["account"]) for s in view["seats"]] == [("alice", "alice"), ("alice", None)]
        # the chat says whose message it is
        frames = []
        with _CLIENTS[id(app)].websocket_connect(f"ws://127.0.0.1/api/tables/{table}/ws") as ws:
            ws.send_json({"type": "hello", "token": tokens[1], "chat": True})
            while ws.receive_json()["type"] != "chat-log":
                pass
            ws.send_json({"type": "chat", "text": "it is me"})
            while not frames:
                frame = ws.receive_json()
                if frame["type"] == "chat":
                    frames.append(frame)
        assert (frames[0]["from"], frames[0]["account"]) == ("alice", None)
        # the end: the result's text marks the guest, the replay and the player page name the accounts
        play_round_then_resign(guest, table, tokens, 1)
        text = guest.get(f"/api/tables/{table}").json()["result"]["text"]
        assert "alice (guest) resigned" in text and text.endswith("Winner: alice."), text
        assert guest.get(f"/api/tables/{table}/replay").json()["accounts"] == ["alice", None]
        (done,) = [t for t in guest.get("/api/tables?finished=true").json() if t["table"] == table]
        assert [s["account"] for s in done["seats"]] == ["alice", None] and done["result"]["text"] == text
        game = a.get("/api/players/alice").json()["games"][0]
        assert [(s["name"], s["account"]) for s in game["seats"]] == [("alice", "alice"), ("alice", None)]


def test_a_signed_in_creator_takes_the_first_seat_under_the_account_name(app):
    with browser(app) as c:
        sign_up(c, "Alice")
        r = c.post("/api/tables", json={"players": 2, "seats": [{"kind": "human", "name": "Queen"},
                                                                {"kind": "ai", "ai": "random"}]})
        v = c.get(f"/api/tables/{r.json()['table']}").json()
    assert (v["seats"][0]["name"], v["seats"][0]["account"]) == ("Alice", "alice")


# ------------------------------------------------------------------ rated games


def test_a_rated_game_changes_both_ratings_and_is_filed_with_the_game(tmp_path):
    path = tmp_path / "db.sqlite3"
    app = make_app(path)
    with browser(app) as a, browser(app) as b:
        sign_up(a, "alice")
        sign_up(b, "bob")
        table, tokens = rated_table(a, [b])
        v = a.get(f"/api/tables/{table}").json()
        assert [(s["name"], s["account"]) for s in v["seats"]] == [("alice", "alice"), ("bob", "bob")]
        assert a.get(f"/api/tables/{table}/ratings").json() == []  # not over yet
        assert [t["rated"] for t in a.get("/api/tables").json() if t["table"] == table] == [True]
        play_round_then_resign(a, table, tokens, 0)
        changes = {r["name"]: r for r in a.get(f"/api/tables/{table}/ratings").json()}
        assert changes["alice"]["change"] < 0 < changes["bob"]["change"]
        assert changes["alice"]["before"] == changes["bob"]["before"] == 500
        assert all(r["counted"] and r["provisional"] for r in changes.values())
    # stored: a restarted server shows the same
    with browser(make_app(path)) as c:
        bob = c.get("/api/players/BOB").json()
        assert bob["rating"] == changes["bob"]["after"] and bob["rated_games"] == 1
        assert bob["history"][0]["table"] == table
        game = bob["games"][0]
        assert game["outcome"] == "win" and game["rated"] and game["how"] == "resigned"
        assert game["replay"] == f"/replay/{table}" and game["review"] == f"/review/{table}"
        assert [p["name"] for p in c.get("/api/players").json()] == ["bob", "alice"]


def test_a_two_against_two_rated_game_rates_all_four():
    app = make_app()
    with browser(app) as a, browser(app) as b, browser(app) as c, browser(app) as d:
        for client, name in zip((a, b, c, d), ("ann", "ben", "cat", "dan")):
            sign_up(client, name)
        table, tokens = rated_table(a, [b, c, d], players=4)
        play_round_then_resign(a, table, tokens, 1)  # seat 1 (team 1) resigns: team 0 (seats 0, 2) wins
        changes = {r["name"]: r["change"] for r in a.get(f"/api/tables/{table}/ratings").json()}
    assert changes["ann"] > 0 and changes["cat"] > 0 and changes["ben"] < 0 and changes["dan"] < 0


def test_rated_games_between_the_same_accounts_count_three_times_a_day(app):
    with browser(app) as a, browser(app) as b:
        sign_up(a, "alice")
        sign_up(b, "bob")
        counted = []
        for i in range(4):
            table, tokens = rated_table(a, [b])
            play_round_then_resign(a, table, tokens, i % 2)
            rows = a.get(f"/api/tables/{table}/ratings").json()
            counted.append(all(r["counted"] for r in rows))
            if not counted[-1]:
                assert all(r["change"] == 0 and "at most 3 count" in r["why"] for r in rows)
        assert counted == [True, True, True, False]
        page = a.get("/api/players/alice").json()
        assert page["rated_games"] == 3 and len(page["games"]) == 4 and len(page["history"]) == 3
        newest = page["games"][0]  # the fourth: rated, not counted, and why
        assert newest["rated"] and not newest["counted"] and "at most 3 count" in newest["why"]
        assert all(g["counted"] and g["why"] is None for g in page["games"][1:])


def test_an_aborted_rated_game_changes_no_rating(app):
    with browser(app) as a, browser(app) as b:
        sign_up(a, "alice")
        sign_up(b, "bob")
        table, tokens = rated_table(a, [b])
        assert a.post(f"/api/tables/{table}/resign", json={}, headers=auth(tokens[0])).status_code == 200
        assert a.get(f"/api/tables/{table}/ratings").json() == []
        game = a.get("/api/players/alice").json()["games"][0]
        assert (game["rated"], game["counted"], game["change"]) == (True, False, None)  # a rated table's game
        # resigning before every first move aborts the game (tables/opening.py): nobody's loss
        assert (game["outcome"], game["how"]) == ("aborted", "aborted")
        assert game["why"] == "the game was aborted before every player's first move"


@pytest.mark.parametrize("players", [2, 4])
def test_a_rated_table_without_seats_opens_every_other_seat_to_accounts(app, players):
    """``{"players": N, "rated": true}``: the creator's seat and N-1 open seats (no AI sits at a
    rated table), which accounts join; the game is rated."""
    with browser(app) as a, browser(app) as b, Browser(app, origin=None) as guest:
        sign_up(a, "alice")
        r = a.post("/api/tables", json={"players": players, "rated": True})
        assert r.status_code == 201, r.text
        table, links = r.json()["table"], r.json()["seats"]
        assert [link["seat"] for link in links] == [0]
        seats = a.get(f"/api/tables/{table}").json()["seats"]
        assert [(s["kind"], s["open"]) for s in seats] == [("human", False)] + [("human", True)] * (players - 1)
        assert seats[0]["account"] == "alice"
        assert guest.post(f"/api/tables/{table}/join", json={}).status_code == 401  # accounts only
        sign_up(b, "bob")
        j = b.post(f"/api/tables/{table}/join", json={})
        assert j.status_code == 201 and j.json()["seat"] == 1, j.text
        assert guest.post("/api/tables", json={"players": 2, "rated": True}).status_code == 401
        # seats given still say what they say: an AI seat is refused at a rated table
        r = a.post("/api/tables", json={"players": 2, "rated": True,
                                        "seats": [{"kind": "human"}, {"kind": "ai", "ai": "easy"}]})
        assert r.status_code == 403 and "every seat of a rated table is a person" in r.json()["detail"]
    if players == 2:  # and the game it makes is rated
        with browser(app) as c:
            play_round_then_resign(c, table, {0: links[0]["token"], 1: j.json()["token"]}, 1)
            assert [row["counted"] for row in c.get(f"/api/tables/{table}/ratings").json()] == [True, True]


def test_the_lobby_holds_the_rules_of_a_rated_table_the_route_only_translates(app):
    """Who may create which table is the lobby's rule (web/lobby.py), asked without HTTP: a guest's
    rated table and a rated table with an AI seat are refused there, before the creation quota is
    spent or a table is made; a signed-in account's rated table is made with its seat."""
    import asyncio

    from sequence_game.web import models
    from sequence_game.web.club.web import NeedsAccountError
    from sequence_game.web.errors import NotAllowedError

    with browser(app) as a:  # the app's lifespan runs from here
        sign_up(a, "alice")
        lobby, service = app.state.lobby, app.state.service
        alice = app.state.club.accounts.get("alice")
        tables, address = len(service.tables), "192.0.2.7"
        with pytest.raises(NeedsAccountError, match="created by a signed-in account"):
            asyncio.run(lobby.create_table(models.CreateTable(players=2, rated=True), address, None, BASE))
        with_ai = models.CreateTable(players=2, rated=True, seats=[models.SeatSpec(kind="human"),
                                                                   models.SeatSpec(kind="ai", ai="easy")])
        with pytest.raises(NotAllowedError, match="every seat of a rated table is a person"):
            asyncio.run(lobby.create_table(with_ai, address, alice, BASE))
        assert address not in lobby.quota.buckets and len(service.tables) == tables
        r = a.post("/api/tables", json={"players": 2, "rated": True})  # the route answers what the lobby made
        assert r.status_code == 201 and len(service.tables) == tables + 1
        assert a.get(f"/api/tables/{r.json()['table']}").json()["seats"][0]["account"] == "alice"


@pytest.mark.parametrize("time_control", [{"turn_seconds": 30},
                                          {"clock": {"kind": "fischer", "seconds": 60, "at_zero": "ai"}}])
def test_a_seat_that_never_comes_to_its_first_move_aborts_the_game_and_nothing_is_rated(app, time_control):
    """The time control's AI never plays a first move (tables/opening.py): a seat that does not come
    has its grace run out, and the game is aborted, rated for nobody."""
    with browser(app) as a, browser(app) as b:
        sign_up(a, "alice")
        sign_up(b, "bob")
        r = a.post("/api/tables", json={"players": 2, "rated": True, **time_control,
                                        "seats": [{"kind": "human"}, {"kind": "human", "open": True}]})
        assert r.status_code == 201, r.text
        table_id, token0 = r.json()["table"], r.json()["seats"][0]["token"]
        assert b.post(f"/api/tables/{table_id}/join", json={}).status_code == 201  # bob joins, never plays
        table = app.state.service.tables[table_id]
        if table.game.current_player == 0:  # alice moves herself
            mine = a.get(f"/api/tables/{table_id}", headers=auth(token0)).json()
            assert a.post(f"/api/tables/{table_id}/moves", json={"move": mine["legal"][0]},
                          headers=auth(token0)).status_code == 200
        _grace_out(app, a, table_id)
        assert table.record.aborted == {"seat": 1, "why": "no-first-move"} and table.record.timeouts == []
        assert a.get(f"/api/tables/{table_id}/ratings").json() == []
        for name in ("alice", "bob"):
            page = a.get(f"/api/players/{name}").json()
            assert page["rating"] == 500 and page["rated_games"] == 0 and page["games"][0]["counted"] is False
            assert page["games"][0]["why"] == "the game was aborted: a player did not make a first move in time"


def _grace_out(app, client, table_id):
    """The first move's grace of the seat to move runs out now."""
    service = app.state.service
    table = service.tables[table_id]

    async def run_out():  # the same grace, started again 0.05 s long
        table.clock.cancel()
        table.clock = table.grace = None
        service.clock.grace_seconds = 0.05
        service.start_clock(table, table.game.current_player)

    client.client.portal.call(run_out)
    wait_for(lambda: table.over)


def test_a_rematch_of_a_rated_table_is_rated_only_once_every_player_accepted(app):
    with browser(app) as a, browser(app) as b:
        sign_up(a, "alice")
        sign_up(b, "bob")
        table, tokens = rated_table(a, [b])
        play_round_then_resign(a, table, tokens, 0)
        assert a.get(f"/api/tables/{table}").json()["rated"] is True
        r = a.post(f"/api/tables/{table}/rematch", headers=auth(tokens[0]))  # asked by alice alone: an offer
        assert r.status_code == 202 and r.json()["table"] is None and r.json()["offer"]["rated"] is True, r.text
        assert [t for t in a.get("/api/tables").json() if t["table"] != table and not t["over"]] == []  # no table yet
        r = b.post(f"/api/tables/{table}/rematch", headers=auth(tokens[1]))  # bob's consent
        assert r.status_code == 201, r.text
        again = r.json()["table"]
        view = a.get(f"/api/tables/{again}").json()
        assert view["rated"] is True and [s["account"] for s in view["seats"]] == ["alice", "bob"]
        before = {n: a.get(f"/api/players/{n}").json()["rating"] for n in ("alice", "bob")}
        play_round_then_resign(a, again, tokens, 1)
        assert len(a.get(f"/api/tables/{again}/ratings").json()) == 2
        after = {n: a.get(f"/api/players/{n}").json()["rating"] for n in ("alice", "bob")}
        assert after["alice"] > before["alice"] and after["bob"] < before["bob"]  # bob resigned the rematch
        assert a.get("/api/players/alice").json()["games"][0]["counted"] is True


def test_the_lists_show_players_ratings_clocks_and_moves(app):
    """The lobby's games in play name their players with their ratings, clock and moves; each game
    on a player page keeps its time control, move count and the others' ratings as it began."""
    with browser(app) as a, browser(app) as b:
        sign_up(a, "alice")
        sign_up(b, "bob")
        clock = {"kind": "fischer", "seconds": 180, "increment": 2, "at_zero": "lose"}
        r = a.post("/api/tables", json={"players": 2, "rated": True, "clock": clock})
        assert r.status_code == 201, r.text
        table, tokens = r.json()["table"], {0: r.json()["seats"][0]["token"]}
        j = b.post(f"/api/tables/{table}/join", json={})
        tokens[j.json()["seat"]] = j.json()["token"]
        line = next(t for t in a.get("/api/tables").json() if t["table"] == table)
        assert [(s["account"], s["rating"], s["provisional"]) for s in line["seats"]] == [
            ("alice", 500, True), ("bob", 500, True)]
        assert line["time_control"] == {"kind": "fischer", "seconds": 180.0, "increment": 2.0} and line["moves"] == 0
        play_round_then_resign(a, table, tokens, 1)
        line = next(t for t in a.get("/api/tables").json() if t["table"] == table)
        assert line["moves"] == 2 and line["time_control"]["kind"] == "fischer"  # read from the stored row
        game = a.get("/api/players/alice").json()["games"][0]
        assert game["moves"] == 2 and game["time_control"] == {"kind": "fischer", "seconds": 180.0, "increment": 2.0}
        assert [s["rating"] for s in game["seats"]] == [500, 500]  # as the game began, before its change
        assert a.get("/api/players/alice").json()["rating"] > 500
        casual = a.post("/api/tables", json={"players": 2, "turn_seconds": 60,
                                              "seats": [{"kind": "human"}, {"kind": "ai", "ai": "random"}]}).json()
        line = next(t for t in a.get("/api/tables").json() if t["table"] == casual["table"])
        assert line["time_control"] == {"kind": "turn", "seconds": 60.0, "increment": 0.0}
        assert [s["rating"] for s in line["seats"]] == [a.get("/api/players/alice").json()["rating"], None]


def test_rated_tables_are_for_accounts_only_one_seat_each_no_ai(app):
    with browser(app) as a:
        sign_up(a, "alice")
        for body, fragment in [
            ({"seats": [{"kind": "human"}, {"kind": "ai", "ai": "easy"}]}, "unrated"),
            ({"seats": [{"kind": "human"}, {"kind": "human"}]}, "open"),
            ({"seats": [{"kind": "human"}, {"kind": "human", "open": True}], "max_turns": 10}, "max_turns"),
            ({"hot_seat": True}, "every other seat open"),
        ]:
            r = a.post("/api/tables", json={"players": 2, "rated": True, **body})
            assert r.status_code == 403 and fragment in r.json()["detail"], r.text
        table, _ = rated_table(a, [])
        r = a.post(f"/api/tables/{table}/join", json={})
        assert r.status_code == 409 and "one seat" in r.json()["detail"]


def test_a_rated_table_gives_no_engine_help_at_creation_or_at_any_route(app):
    from sequence_game.web.tables.table import TableOptions

    with browser(app) as a, browser(app) as b:
        sign_up(a, "alice")
        sign_up(b, "bob")
        r = a.post("/api/tables", json={"players": 2, "rated": True, "hints": True,
                                        "seats": [{"kind": "human"}, {"kind": "human", "open": True}]})
        assert r.status_code == 403 and "no hint or analysis" in r.json()["detail"], r.text
        table_id, tokens = rated_table(a, [b])
        table = app.state.service.tables[table_id]
        assert a.get(f"/api/tables/{table_id}").json()["hints"] is False
        # a table stored as rated with hints on (an older row, a bug elsewhere) still gives none
        table.options.hints = True
        assert TableOptions.from_dict({"rated": True, "hints": True}).hints is False
        token = auth(tokens[table.game.current_player])
        for path, body in (("hint", None), ("analysis", {"seconds": 0.05}), ("analysis/stream", {"seconds": 0.05})):
            r = a.post(f"/api/tables/{table_id}/{path}", json=body, headers=token)
            assert r.status_code == 403 and "rated table" in r.json()["detail"], (path, r.text)
        with _CLIENTS[id(app)].websocket_connect(f"ws://127.0.0.1/api/tables/{table_id}/ws") as ws:
            ws.send_json({"type": "hello", "token": tokens[table.game.current_player]})
            assert ws.receive_json()["type"] == "state"
            for frame in ({"type": "hint"}, {"type": "analysis", "seconds": 0.05}):
                ws.send_json(frame)
                reply = ws.receive_json()
                while reply["type"] not in ("error", "hint", "analysis"):
                    reply = ws.receive_json()
                assert reply["type"] == "error" and reply["error"] == "NotAllowedError", reply


def test_games_against_the_ai_are_unrated_and_counted_per_level(app):
    with browser(app) as a:
        sign_up(a, "alice")
        r = a.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "ai", "ai": "random"}]})
        table, token = r.json()["table"], r.json()["seats"][0]["token"]
        deadline = time.monotonic() + 10
        while True:  # the deal may give the AI the first move: wait for ours
            mine = a.get(f"/api/tables/{table}", headers=auth(token)).json()
            if mine["legal"] or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        assert a.post(f"/api/tables/{table}/moves", json={"move": mine["legal"][0]}, headers=auth(token)).status_code == 200
        assert a.post(f"/api/tables/{table}/resign", json={}, headers=auth(token)).status_code == 200
        page = a.get("/api/players/alice").json()
    assert page["rated_games"] == 0 and page["history"] == []
    assert page["vs_ai"] == [{"ai": "random", "wins": 0, "losses": 1, "draws": 0, "level": None, "rating": 0.0}]
    from sequence_game.agents.levels import packaged_ratings

    shipped = float(packaged_ratings()["level:1"]["rating"])  # the ladder the package ships
    assert {"name": "level:1", "level": 1, "rating": shipped} in page["ai_levels"]


# ------------------------------------------------------------------ the operator


def test_no_accounts_switches_every_door_off_and_guests_play_as_before():
    app = make_app(accounts=False)
    with browser(app) as c:
        assert c.get("/api/session").json() == {"accounts": False, "name": None, "rating": None,
                                                "provisional": None}
        assert c.post("/api/accounts", json={"name": "alice", "password": "password1"}).status_code == 404
        assert c.post("/api/session", json={"name": "alice", "password": "password1"}).status_code == 404
        assert c.get("/api/players").json() == []
        r = c.post("/api/tables", json={"players": 2, "rated": True,
                                        "seats": [{"kind": "human"}, {"kind": "human", "open": True}]})
        assert r.status_code == 403 and "switched off" in r.json()["detail"]
        r = c.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "ai", "ai": "random"}]})
        assert r.status_code == 201


def test_what_is_not_found_is_named_for_what_was_asked_for(app):
    """A 404 names the missing thing: a player, a seek, a table; and a server without accounts says
    that, not that some table is missing."""
    with browser(app) as c:
        sign_up(c, "alice")
        assert c.get("/api/players/alice").status_code == 200
        for path, error, words in [("/api/players/nosuchname", "NoSuchPlayerError", "no player named 'nosuchname'"),
                                   ("/api/seeks/nosuchseek", "NoSuchSeekError", "no seek 'nosuchseek'"),
                                   ("/api/tables/nosuchtable", "NoSuchTableError", "no table 'nosuchtable'"),
                                   ("/api/tables/nosuchtable/ratings", "NoSuchTableError", "no table 'nosuchtable'")]:
            r = c.get(path)
            assert (r.status_code, r.json()["error"]) == (404, error) and words in r.json()["detail"], (path, r.text)
        r = c.delete("/api/seeks/nosuchseek", headers=auth("x" * 32))
        assert (r.status_code, r.json()["error"]) == (404, "NoSuchSeekError"), r.text
    with browser(make_app(accounts=False)) as c:
        for method, path in [("POST", "/api/accounts"), ("POST", "/api/session"), ("DELETE", "/api/session")]:
            r = c.request(method, path, json={"name": "alice", "password": "password1"})
            assert (r.status_code, r.json()["error"]) == (404, "AccountsOffError"), (path, r.text)
            assert "switched off" in r.json()["detail"]
        r = c.get("/api/players/alice")
        assert (r.status_code, r.json()["error"]) == (404, "NoSuchPlayerError"), r.text
        r = c.get("/api/tables/nosuchtable/ratings")
        assert (r.status_code, r.json()["error"]) == (404, "NoSuchTableError"), r.text


def test_the_accounts_command_works_on_the_servers_database(tmp_path, monkeypatch, capsys):
    import io

    from sequence_game.cli import main

    db = str(tmp_path / "tables.sqlite3")
    monkeypatch.setattr("sys.stdin", io.StringIO("first password\n"))
    assert main(["accounts", "create", "carol", "--db", db]) == 0
    app = make_app(db, settings=ClubSettings())  # the command hashes with the real parameters
    with browser(app) as c:
        assert c.post("/api/session", json={"name": "carol", "password": "first password"}).status_code == 200
        assert main(["accounts", "disable", "carol", "--db", db]) == 0
        assert c.get("/api/session").json()["name"] is None
        assert main(["accounts", "enable", "carol", "--db", db]) == 0
        monkeypatch.setattr("sys.stdin", io.StringIO("second password\n"))
        assert main(["accounts", "reset-password", "carol", "--db", db]) == 0
        assert c.post("/api/session", json={"name": "carol", "password": "first password"}).status_code == 401
        assert c.post("/api/session", json={"name": "carol", "password": "second password"}).status_code == 200
    capsys.readouterr()
    assert main(["accounts", "disable", "nobody", "--db", db]) != 0
    assert "no account named 'nobody'" in capsys.readouterr().err


def _disable(db, name, capsys):
    """``sequence-game accounts disable NAME``: the operator's command (its own connection to the file)."""
    from sequence_game.cli import main

    assert main(["accounts", "disable", name, "--db", db]) == 0
    capsys.readouterr()


def test_disabling_an_account_closes_its_seeks_at_once_in_the_running_server(tmp_path, capsys):
    db = str(tmp_path / "tables.sqlite3")
    app = make_app(db)
    with browser(app) as a, browser(app) as b:
        sign_up(a, "alice")
        sign_up(b, "bob")
        rated = post_seek(a, rated=True)
        quick = post_seek(a, "/api/seeks/quick", turn_seconds=30)["seek"]
        casual = post_seek(a)
        assert len(b.get("/api/seeks").json()["seeks"]) == 3
        _disable(db, "alice", capsys)
        assert a.get("/api/session").json()["name"] is None  # her session ended
        r = b.post(f"/api/seeks/{rated['seek']}/accept", json={})
        assert r.status_code == 403 and "disabled" in r.json()["detail"], r.text
        assert rated["seek"] not in [s["seek"] for s in b.get("/api/seeks").json()["seeks"]]
        paired = post_seek(b, "/api/seeks/quick", turn_seconds=30)  # never paired with her seek
        assert paired["status"] == "waiting", paired
        b.delete(f"/api/seeks/{paired['seek']['seek']}", headers=auth(paired["seek"]["token"]))
        # the seek nobody touched leaves the lobby by itself, and it can no longer be taken
        wait_for(lambda: b.get("/api/seeks").json()["seeks"] == [], timeout=10)
        for seek in (rated, quick, casual):
            status = a.get(f"/api/seeks/{seek['seek']}", headers=auth(seek["token"])).json()["status"]
            assert status == "cancelled", (seek, status)
        assert b.post(f"/api/seeks/{casual['seek']}/accept", json={}).status_code == 409
        assert app.state.service.tables == {}  # no table was made with her


def test_disabling_an_account_closes_its_forming_tables_and_moves_no_rating(tmp_path, capsys):
    db = str(tmp_path / "tables.sqlite3")
    app = make_app(db)
    with browser(app) as a, browser(app) as c, browser(app) as d:
        for client, name in ((a, "alice"), (c, "carol"), (d, "dave")):
            sign_up(client, name)
        forming, _ = rated_table(a, [])  # waits for a second account
        playing, tokens = rated_table(a, [c])  # under way: both have moved
        for _ in range(2):
            p = a.get(f"/api/tables/{playing}").json()["state"]["current_player"]
            mine = a.get(f"/api/tables/{playing}", headers=auth(tokens[p])).json()
            assert a.post(f"/api/tables/{playing}/moves", json={"move": mine["legal"][0]},
                          headers=auth(tokens[p])).status_code == 200
        casual, casual_tokens = rated_table(a, [d])
        app.state.service.tables[casual].options.rated = False
        play_round_then_resign(a, casual, casual_tokens, 1)
        before = {n: a.get(f"/api/players/{n}").json()["rating"] for n in ("alice", "carol")}
        _disable(db, "alice", capsys)
        r = d.post(f"/api/tables/{forming}/join", json={})
        assert r.status_code == 403 and "alice" in r.json()["detail"] and "disabled" in r.json()["detail"], r.text
        r = d.post(f"/api/tables/{casual}/rematch", headers=auth(casual_tokens[1]))
        assert r.status_code == 403 and "disabled" in r.json()["detail"], r.text
        # the forming table closes by itself: out of the lobby, its link answers 410
        wait_for(lambda: forming not in [t["table"] for t in d.get("/api/tables").json()], timeout=10)
        assert d.get(f"/api/tables/{forming}").status_code == 410
        # the game under way goes on, but its end moves no rating
        assert c.post(f"/api/tables/{playing}/resign", json={}, headers=auth(tokens[1])).status_code == 200
        assert c.get(f"/api/tables/{playing}/ratings").json() == []
        assert c.get("/api/players/carol").json()["rating"] == before["carol"]
    (mu, sigma, games) = app.state.club.store.one("SELECT mu, sigma, games FROM accounts WHERE key = 'alice'")
    from sequence_game.web.club import ratings

    assert ratings.display(mu) == before["alice"] and games == 0


def test_password_hashing_waits_its_turn_on_the_event_loop_and_a_full_queue_is_refused():
    import asyncio
    import threading

    from sequence_game.web.club import Club
    from sequence_game.web.errors import ServerFullError

    club = Club(":memory:", ClubSettings(hash_overrides=CHEAP, max_hashing=1, max_hash_queue=2))
    gate, running = threading.Event(), []

    def slow():
        running.append(threading.current_thread().name)
        gate.wait(10)
        return len(running)

    async def main():
        first = asyncio.ensure_future(club.hashing(slow))
        second = asyncio.ensure_future(club.hashing(slow))
        for _ in range(1000):  # the first starts (its thread is niced: it may be late on a busy machine)
            if running:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        assert len(running) == 1  # one turn: the second waits on the loop, holding no thread
        with pytest.raises(ServerFullError, match="too many passwords"):
            await club.hashing(slow)
        gate.set()
        return await first, await second

    assert asyncio.run(main()) == (1, 2)
    club.close()


@pytest.mark.skipif(not hasattr(os, "setpriority") or not hasattr(threading, "get_native_id"),
                    reason="per-thread priorities: Linux")
def test_password_hashing_runs_below_the_event_loops_priority():
    """argon2 holds a core for about 0.2 s a hash: a burst of sign-ups at the event loop's priority
    took both cores of a 2-vCPU machine and every move waited (docs/security.md, "Passwords")."""
    import asyncio

    from sequence_game.web import club as club_module
    from sequence_game.web.club import Club

    club = Club(":memory:", ClubSettings(hash_overrides=CHEAP))
    try:
        def niceness():
            return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

        loop_niceness = niceness()
        hashing_niceness = asyncio.run(club.hashing(niceness))
        assert hashing_niceness > loop_niceness or loop_niceness == 19
        assert hashing_niceness == min(19, loop_niceness + club_module.HASHING_NICENESS)
        assert niceness() == loop_niceness  # the caller's thread keeps its own
    finally:
        club.close()


# ------------------------------------------------------------------ rated seeks and play the computer


def post_seek(client, path="/api/seeks", **body):
    r = client.post(path, json=body)
    assert r.status_code == 201, r.text
    return r.json()


def seek_table(poster, posted):
    """The table of the poster's accepted seek and the poster's seat token."""
    status = poster.get(f"/api/seeks/{posted['seek']}", headers=auth(posted["token"])).json()
    assert status["status"] == "accepted", status
    return status["table"], status["seat"]["token"]


def test_a_rated_seek_accepted_from_the_lobby_rates_both_accounts(app):
    with browser(app) as a, browser(app) as b:
        sign_up(a, "alice")
        sign_up(b, "bob")
        start = a.get("/api/players/alice").json()["rating"]
        posted = post_seek(a, players=2, rated=True, name="not-my-name")
        (line,) = b.get("/api/seeks").json()["seeks"]
        assert line["rated"] and (line["name"], line["rating"], line["provisional"]) == ("alice", start, True)  # under the account's name
        r = b.post(f"/api/seeks/{posted['seek']}/accept", json={"name": "someone"})
        assert r.status_code == 201, r.text
        table, token0 = seek_table(a, posted)
        view = a.get(f"/api/tables/{table}").json()
        assert app.state.service.tables[table].options.rated is True
        assert [(s["name"], s["account"]) for s in view["seats"]] == [("alice", "alice"), ("bob", "bob")]
        play_round_then_resign(a, table, {0: token0, 1: r.json()["token"]}, resigner=1)
        changes = {c["name"]: c for c in a.get(f"/api/tables/{table}/ratings").json()}
        assert changes["alice"]["change"] > 0 > changes["bob"]["change"] and changes["alice"]["counted"]
        alice, bob = a.get("/api/players/alice").json(), a.get("/api/players/bob").json()
    assert alice["rating"] > start > bob["rating"] and alice["rated_games"] == bob["rated_games"] == 1
    assert alice["games"][0]["table"] == table and alice["games"][0]["rated"] is True


def test_a_guest_cannot_post_accept_or_quick_pair_a_rated_seek(app):
    with browser(app) as a, browser(app) as guest:
        sign_up(a, "alice")
        for path in ("/api/seeks", "/api/seeks/quick"):
            r = guest.post(path, json={"rated": True})
            assert r.status_code == 403 and "needs an account: sign in" in r.json()["detail"], r.text
        posted = post_seek(a, rated=True)
        r = guest.post(f"/api/seeks/{posted['seek']}/accept", json={})
        assert r.status_code == 403 and "rated game needs an account: sign in" in r.json()["detail"]
        assert guest.get("/api/seeks").json()["seeks"][0]["seek"] == posted["seek"]  # still open


def test_without_accounts_a_rated_seek_or_a_rating_range_is_refused_in_one_line():
    app = make_app(accounts=False)
    with browser(app) as c:
        for path in ("/api/seeks", "/api/seeks/quick"):
            r = c.post(path, json={"rated": True})
            assert r.status_code == 403 and "switched off" in r.json()["detail"], r.text
        r = c.post("/api/seeks", json={"rating_min": 1000})
        assert r.status_code == 422 and "nobody has a rating" in r.json()["detail"]
        posted = post_seek(c, name="Ann")  # casual seeks are as before
        assert c.post(f"/api/seeks/{posted['seek']}/accept", json={"name": "Bob"}).status_code == 201


def test_a_rating_range_admits_the_accounts_in_it_and_no_guest(app):
    with browser(app) as a, browser(app) as b, browser(app) as guest:
        sign_up(a, "alice")
        sign_up(b, "bob")
        rating = b.get("/api/session").json()["rating"]
        above = post_seek(a, rating_min=rating + 1)
        r = b.post(f"/api/seeks/{above['seek']}/accept", json={})
        assert r.status_code == 403 and f"rated {rating + 1} or more, and yours is {rating}" in r.json()["detail"]
        r = guest.post(f"/api/seeks/{above['seek']}/accept", json={})
        assert r.status_code == 403 and "a guest has no rating: sign in" in r.json()["detail"]
        b.delete(f"/api/seeks/{above['seek']}", headers=auth(above["token"]))
        around = post_seek(a, rating_min=rating - 50, rating_max=rating + 50)
        r = b.post(f"/api/seeks/{around['seek']}/accept", json={})
        assert r.status_code == 201, r.text
        # quick pairing checks both ranges: the waiting seek's and the asker's own
        waiting = post_seek(a, "/api/seeks/quick", rating_max=rating + 50)
        assert waiting["status"] == "waiting"
        assert post_seek(b, "/api/seeks/quick", rating_min=rating + 1)["status"] == "waiting"  # alice is below
        assert post_seek(guest, "/api/seeks/quick")["status"] == "waiting"  # a range admits no guest
        assert post_seek(b, "/api/seeks/quick", rating_max=rating)["status"] == "paired"


def test_quick_pairing_of_two_rated_seeks_makes_a_rated_table_never_with_ones_own(app):
    with browser(app) as a, browser(app) as b:
        sign_up(a, "alice")
        sign_up(b, "bob")
        first = post_seek(a, "/api/seeks/quick", rated=True, turn_seconds=30)
        assert first["status"] == "waiting"
        own = post_seek(a, "/api/seeks/quick", rated=True, turn_seconds=30)
        assert own["status"] == "waiting"  # the same account is never paired with itself, token or not
        r = a.post(f"/api/seeks/{first['seek']['seek']}/accept", json={})
        assert r.status_code == 403 and "your account posted it" in r.json()["detail"]
        a.delete(f"/api/seeks/{own['seek']['seek']}", headers=auth(own["seek"]["token"]))
        casual = post_seek(b, "/api/seeks/quick", turn_seconds=30)
        assert casual["status"] == "waiting"  # rated and casual seeks are different games
        b.delete(f"/api/seeks/{casual['seek']['seek']}", headers=auth(casual["seek"]["token"]))
        paired = post_seek(b, "/api/seeks/quick", rated=True, turn_seconds=30)
        assert paired["status"] == "paired"
        table, _ = seek_table(a, first["seek"])
        view = a.get(f"/api/tables/{table}").json()
    assert app.state.service.tables[table].options.rated is True and view["turn_seconds"] == 30
    assert [s["account"] for s in view["seats"]] == ["alice", "bob"]


def test_a_casual_seek_between_an_account_and_a_guest_records_the_account_unrated(app):
    with browser(app) as a, browser(app) as guest:
        sign_up(a, "alice")
        posted = post_seek(guest, name="Gus")
        r = a.post(f"/api/seeks/{posted['seek']}/accept", json={})
        table, token0 = seek_table(guest, posted)
        view = a.get(f"/api/tables/{table}").json()
        assert app.state.service.tables[table].options.rated is False
        assert [(s["name"], s["account"]) for s in view["seats"]] == [("Gus", None), ("alice", "alice")]
        play_round_then_resign(a, table, {0: token0, 1: r.json()["token"]}, resigner=0)
        page = a.get("/api/players/alice").json()
    assert page["rated_games"] == 0 and page["games"][0]["outcome"] == "win" and not page["games"][0]["rated"]


def test_play_the_computer_signed_in_counts_in_the_record_against_that_level(app):
    with browser(app) as a:
        sign_up(a, "alice")
        r = a.post("/api/play-computer", json={"level": 2, "seat": 0, "name": "ignored"})
        assert r.status_code == 201, r.text
        table, token = r.json()["table"], r.json()["seats"][0]["token"]
        view = a.get(f"/api/tables/{table}", headers=auth(token)).json()
        assert not app.state.service.tables[table].options.rated
        assert (view["seats"][0]["name"], view["seats"][0]["account"]) == ("alice", "alice")
        assert a.post(f"/api/tables/{table}/resign", json={}, headers=auth(token)).status_code == 200
        page = a.get("/api/players/alice").json()
    assert page["rated_games"] == 0 and page["history"] == []
    (line,) = page["vs_ai"]
    assert (line["ai"], line["level"], line["losses"], line["wins"]) == ("level:2", 2, 1, 0)


def test_the_strongest_level_has_its_row_under_any_of_its_names(app):
    with browser(app) as a:
        sign_up(a, "alice")
        tables = [a.post("/api/play-computer", json={"level": 8, "seat": 0}).json()]
        for name in ("hard", "max"):
            tables.append(a.post("/api/tables", json={"players": 2, "seats": [
                {"kind": "human"}, {"kind": "ai", "ai": name}]}).json())
        for r in tables:
            assert a.post(f"/api/tables/{r['table']}/resign", json={},
                          headers=auth(r["seats"][0]["token"])).status_code == 200
        page = a.get("/api/players/alice").json()
    from sequence_game.agents.levels import packaged_ratings

    shipped = float(packaged_ratings()["level:8"]["rating"])
    assert page["vs_ai"] == [{"ai": "level:8", "wins": 0, "losses": 3, "draws": 0, "level": 8, "rating": shipped}]


def test_a_rated_game_lost_on_time_is_rated_like_a_resignation(app):
    import asyncio

    with browser(app) as a, browser(app) as b:
        sign_up(a, "alice")
        sign_up(b, "bob")
        posted = post_seek(a, rated=True, clock={"kind": "fischer", "seconds": 60, "at_zero": "lose"})
        token1 = b.post(f"/api/seeks/{posted['seek']}/accept", json={}).json()["token"]
        table_id, token0 = seek_table(a, posted)
        tokens = {0: token0, 1: token1}
        for _ in range(2):  # each seat moves once: not an aborted game
            p = a.get(f"/api/tables/{table_id}").json()["state"]["current_player"]
            mine = a.get(f"/api/tables/{table_id}", headers=auth(tokens[p])).json()
            assert a.post(f"/api/tables/{table_id}/moves", json={"move": mine["legal"][0]},
                          headers=auth(tokens[p])).status_code == 200
        service = app.state.service
        table = service.tables[table_id]
        p = table.game.current_player

        async def run_out():  # the running clock, with 0.2 s left
            table.clock.cancel()
            table.clock, table.clock_running = None, None
            table.options.clock_state["left"][p] = 0.2
            service.clock.start(table, p, asyncio.get_running_loop())

        a.client.portal.call(run_out)
        deadline = time.monotonic() + 20
        while not a.get(f"/api/tables/{table_id}/ratings").json() and time.monotonic() < deadline:
            time.sleep(0.05)
        changes = {c["name"]: c for c in a.get(f"/api/tables/{table_id}/ratings").json()}
        loser, winner = ("alice", "bob") if p == 0 else ("bob", "alice")
        page = a.get(f"/api/players/{loser}").json()
    assert changes[winner]["change"] > 0 > changes[loser]["change"] and changes[loser]["counted"]
    assert page["games"][0]["outcome"] == "loss" and page["games"][0]["how"] == "time"


def test_seek_requests_signed_in_by_the_cookie_need_this_servers_origin(app):
    with browser(app) as c:
        sign_up(c, "alice")
        cookie = c.cookies[COOKIE]
    with Browser(app, origin=None) as bare:  # another site's page cannot post or take seeks as alice
        bare.set_cookie(cookie)
        for path, body in (("/api/seeks", {"rated": True}), ("/api/seeks/quick", {"rated": True}),
                           ("/api/play-computer", {"level": 1})):
            r = bare.post(path, json=body)
            assert r.status_code == 403 and "Origin" in r.json()["detail"], (path, r.text)
        assert bare.post("/api/seeks", json={"rated": True}, headers=ORIGIN).status_code == 201


def test_a_report_names_the_writers_account_and_the_operator_disables_it(tmp_path, capsys):
    from sequence_game.cli import main

    db = str(tmp_path / "tables.sqlite3")
    app = make_app(db)
    with browser(app) as ann, Browser(app) as bob:
        sign_up(ann, "ann")
        sign_up(bob, "bob")
        table, tokens = rated_table(ann, [bob])
        client = _CLIENTS[id(app)]
        socks = []
        for p in (0, 1):
            ws = client.websocket_connect(f"ws://127.0.0.1/api/tables/{table}/ws")
            sock = ws.__enter__()
            sock.send_json({"type": "hello", "token": tokens[p], "chat": True})
            while sock.receive_json()["type"] != "chat-log":  # in the chat before anyone writes
                pass
            socks.append((ws, sock))
        socks[0][1].send_json({"type": "chat", "text": "you are hopeless"})
        frame = {}
        while frame.get("type") != "chat":
            frame = socks[1][1].receive_json()
        socks[1][1].send_json({"type": "report", "message": frame["id"]})
        while frame.get("type") != "reported":
            frame = socks[1][1].receive_json()
        for ws, _ in socks:
            ws.__exit__(None, None, None)
    _CLIENTS.pop(id(app)).__exit__(None, None, None)  # the server stops: its queued writes are done
    capsys.readouterr()
    assert main(["accounts", "reports", "--db", db]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert line.split("\t")[4:] == ["ann (account: ann)", "you are hopeless"]
    assert line.split("\t")[3].startswith("bob (")
    assert main(["accounts", "disable", "ann", "--db", db]) == 0
    assert main(["accounts", "reports", "close", line.split("\t")[0], "--db", db]) == 0
    assert "ann is disabled" in capsys.readouterr().out


def test_a_rated_seek_does_not_come_back_on_a_server_restarted_without_accounts(tmp_path):
    db = tmp_path / "tables.sqlite3"
    app = make_app(db)
    with browser(app) as c:
        sign_up(c, "ann")
        rated = c.post("/api/seeks", json={"rated": True}).json()["seek"]
        ranged = c.post("/api/seeks", json={"rating_min": 100}).json()["seek"]
        casual = c.post("/api/seeks", json={}).json()["seek"]
        assert [s["seek"] for s in c.get("/api/seeks").json()["seeks"]] == [rated, ranged, casual]
    _CLIENTS.pop(id(app)).__exit__(None, None, None)
    with TestClient(make_app(db, accounts=False), base_url=BASE) as c:  # nobody could take the first two
        assert [s["seek"] for s in c.get("/api/seeks").json()["seeks"]] == [casual]
    with TestClient(make_app(db), base_url=BASE) as c:  # deleted, not hidden
        assert [s["seek"] for s in c.get("/api/seeks").json()["seeks"]] == [casual]
