"""Tournaments over HTTP (docs/club.md "Tournaments", docs/security.md): a whole Swiss of four
accounts over three rounds with a restart in the middle, an arena (and one across a restart),
the creator's early start, berserk's clock, no-shows, teams of two, and the doors' refusals:
guests, other sites, other accounts' seats, the per-account cap."""

from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")
pytest.importorskip("openskill")

from sequence_game.web.tournaments.service import TournamentSettings
from test_web_accounts import _CLIENTS, FAST, Browser, _disable, make_app, sign_up
from web_support import auth, wait_for

NAMES = ("alice", "bob", "carol", "dave")
QUICK = TournamentSettings(tick_seconds=0.05, round_pause_seconds=0.05, min_arena_minutes=0.01, grace_seconds=60.0)


def app_at(path, settings=QUICK):
    return make_app(str(path), settings=FAST, tournaments=settings)


def members(app, names=NAMES, new=True):
    out = {}
    for name in names:
        b = Browser(app)
        if new:
            sign_up(b, name)
        else:
            r = b.post("/api/session", json={"name": name, "password": "password1"})
            assert r.status_code == 200, r.text
        out[name] = b
    return out


def announce(b, kind="swiss", **body):
    spec = {"kind": kind, "name": "Club night", "starts": time.time(), "clock": {"seconds": 600, "increment": 0},
            "rated": True, **({"rounds": 3} if kind == "swiss" else {"minutes": 0.05}), **body}
    r = b.post("/api/tournaments", json=spec)
    assert r.status_code == 201, r.text
    return r.json()["tournament"]


def tournament(b, tid):
    r = b.get(f"/api/tournaments/{tid}")
    assert r.status_code == 200, r.text
    return r.json()


def seat_of(b, tid):
    r = b.get(f"/api/tournaments/{tid}/seat")
    assert r.status_code == 200, r.text
    return r.json()


def finish_game(people, tid, loser):
    """``loser``'s game: every seat moves once (a played, rated game), then ``loser`` resigns."""
    seats = {name: seat_of(b, tid) for name, b in people.items()}
    table = seats[loser]["table"]
    at = {s["seat"]["seat"]: s["seat"]["token"] for s in seats.values() if s["table"] == table}
    b = people[loser]
    for _ in range(len(at)):
        view = b.get(f"/api/tables/{table}").json()
        p = view["state"]["current_player"]
        mine = b.get(f"/api/tables/{table}", headers=auth(at[p])).json()
        r = b.post(f"/api/tables/{table}/moves", json={"move": mine["legal"][0]}, headers=auth(at[p]))
        assert r.status_code == 200, r.text
    mine = seats[loser]["seat"]
    r = b.post(f"/api/tables/{table}/resign", json={}, headers=auth(mine["token"]))
    assert r.status_code == 200, r.text
    return table


def play_round(people, tid, round_no):
    """Wait for round ``round_no``'s pairing, then in each game the lower-rated... the second seat loses."""
    wait_for(lambda: tournament(people["alice"], tid)["round"] == round_no
             and all(g["table"] for g in tournament(people["alice"], tid)["games"] if g["round"] == round_no))
    t = tournament(people["alice"], tid)
    games = [g for g in t["games"] if g["round"] == round_no]
    for g in games:
        finish_game(people, tid, g["second"])
    wait_for(lambda: all(g["result"] is not None for g in tournament(people["alice"], tid)["games"]
                         if g["round"] == round_no))
    return games


def test_a_swiss_of_four_over_three_rounds_with_a_restart_in_the_middle(tmp_path):
    path = tmp_path / "club.sqlite"
    app = app_at(path)
    people = members(app)
    tid = announce(people["alice"], starts=time.time() + 3600)
    for b in people.values():
        assert b.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    # the lobby lists it as announced
    listed = people["bob"].get("/api/tournaments").json()["tournaments"]
    assert [(t["tournament"], t["status"], t["entrants"]) for t in listed] == [(tid, "upcoming", 4)]
    # start it now (the creator's start time is an hour away: the test moves it)
    app.state.tournaments.live[tid].starts = time.time()
    ratings_before = {n: people[n].get(f"/api/players/{n}").json()["rating"] for n in NAMES}

    r1 = play_round(people, tid, 1)
    t = tournament(people["alice"], tid)
    assert sorted(r["points"] for r in t["standings"]) == [0, 0, 1, 1]
    winners1 = {g["first"] for g in r1}
    assert {r["entrant"] for r in t["standings"][:2]} == winners1

    # the second round is paired and under way; the server restarts in the middle of it
    wait_for(lambda: tournament(people["alice"], tid)["round"] == 2
             and all(g["table"] for g in tournament(people["alice"], tid)["games"] if g["round"] == 2))
    before = tournament(people["alice"], tid)
    _CLIENTS.pop(id(app)).__exit__(None, None, None)
    app = app_at(path)
    people = members(app, new=False)
    after = tournament(people["alice"], tid)
    assert after["standings"] == before["standings"] and after["games"] == before["games"]
    assert after["status"] == "running" and after["round"] == 2
    play_round(people, tid, 2)  # the round in progress goes on: the seats get new links
    play_round(people, tid, 3)
    wait_for(lambda: tournament(people["alice"], tid)["status"] == "finished")
    t = tournament(people["alice"], tid)
    met = {frozenset((g["first"], g["second"])) for g in t["games"]}
    assert len(met) == 6  # four players, three rounds: everyone met everyone once
    assert [r["rank"] for r in t["standings"]] == [1, 2, 3, 4]
    assert sum(r["points"] for r in t["standings"]) == 6
    # rated: every rating moved, as rated games move them
    ratings_after = {n: people[n].get(f"/api/players/{n}").json()["rating"] for n in NAMES}
    assert all(ratings_after[n] != ratings_before[n] for n in NAMES)
    # results on each player's page, places as in the standings
    for row in t["standings"]:
        (mine,) = people["alice"].get(f"/api/players/{row['entrant']}/tournaments").json()
        assert (mine["tournament"], mine["place"], mine["points"], mine["entrants"]) == (tid, row["rank"],
                                                                                         row["points"], 4)
    listed = people["bob"].get("/api/tournaments").json()["tournaments"]
    assert [(x["tournament"], x["status"]) for x in listed] == [(tid, "finished")]


def test_an_arena_pairs_again_at_once_and_ends_on_time(tmp_path):
    app = app_at(tmp_path / "club.sqlite")
    people = members(app)
    # a minute, ended by hand below: the pairings before must not depend on the machine's speed
    tid = announce(people["alice"], kind="arena", minutes=1.0)
    for b in people.values():
        assert b.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    wait_for(lambda: len([g for g in tournament(people["alice"], tid)["games"] if g["table"]]) == 2)
    t = tournament(people["alice"], tid)
    first_games = t["games"]
    # alice's opponent goes berserk before moving, then alice loses: the berserker wins 2 + ... no
    # bonus (a win needs seven turns of its own for the berserk point)
    g = next(g for g in first_games if "alice" in (g["first"], g["second"]))
    other = g["second"] if g["first"] == "alice" else g["first"]
    assert people[other].post(f"/api/tournaments/{tid}/berserk", json={}).status_code == 204
    table = app.state.service.tables[g["table"]]
    seats_of_other = [p for p, s in enumerate(table.seats) if s.account == other]
    assert all(table.options.clock_state["left"][p] == 300.0 for p in seats_of_other)
    finish_game(people, tid, "alice")
    # alice is paired again as soon as another game ends
    rest = next(x for x in first_games if "alice" not in (x["first"], x["second"]))
    finish_game(people, tid, rest["second"])
    wait_for(lambda: len([x for x in tournament(people["alice"], tid)["games"] if x["result"] is None]) == 2)
    t = tournament(people["alice"], tid)
    points = {r["entrant"]: r["points"] for r in t["standings"]}
    assert points[other] == 2 and points["alice"] == 0
    # a pause: no new game after this one
    assert people["alice"].post(f"/api/tournaments/{tid}/pause", json={"paused": True}).status_code == 200
    app.state.tournaments.live[tid].ends = time.time()  # its time is up: no new pairing from now on
    for x in [x for x in tournament(people["alice"], tid)["games"] if x["result"] is None]:
        finish_game(people, tid, x["second"])
    wait_for(lambda: tournament(people["alice"], tid)["status"] == "finished", timeout=30)
    final = tournament(people["alice"], tid)
    assert final["standings"][0]["points"] >= final["standings"][-1]["points"]


def test_only_its_creator_starts_a_tournament_early_once_two_are_in(tmp_path):
    app = app_at(tmp_path / "club.sqlite")
    people = members(app, ("alice", "bob", "carol"))
    tid = announce(people["alice"], starts=time.time() + 3600)
    assert Browser(app).post(f"/api/tournaments/{tid}/start", json={}).json()["error"] == "NeedsAccountError"
    r = people["alice"].post(f"/api/tournaments/{tid}/start", json={})
    assert r.status_code == 403 and "it has 0" in r.json()["detail"]
    for name in ("alice", "bob"):
        assert people[name].post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    r = people["bob"].post(f"/api/tournaments/{tid}/start", json={})
    assert r.status_code == 403 and "only the tournament's creator" in r.json()["detail"]
    assert tournament(people["bob"], tid)["status"] == "upcoming"
    r = people["alice"].post(f"/api/tournaments/{tid}/start", json={})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "running" and r.json()["starts"] <= time.time()
    # the first round is paired at once, not at the announced hour
    wait_for(lambda: any(g["table"] for g in tournament(people["bob"], tid)["games"]), timeout=5)
    (g,) = tournament(people["bob"], tid)["games"]
    assert {g["first"], g["second"]} == {"alice", "bob"}
    assert people["carol"].post(f"/api/tournaments/{tid}/join", json={}).status_code == 403  # entries closed
    r = people["alice"].post(f"/api/tournaments/{tid}/start", json={})
    assert r.status_code == 403 and "started already" in r.json()["detail"]
    assert people["alice"].post("/api/tournaments/nope/start", json={}).status_code == 404
    # an arena started early runs its minutes from then
    aid = announce(people["bob"], kind="arena", minutes=30, starts=time.time() + 3600)
    for name in ("bob", "carol"):
        assert people[name].post(f"/api/tournaments/{aid}/join", json={}).status_code == 200
    r = people["bob"].post(f"/api/tournaments/{aid}/start", json={})
    assert r.status_code == 200, r.text
    assert abs(r.json()["ends"] - (time.time() + 30 * 60)) < 60


def play_once(b, table, tokens):
    """The seat to move plays its first legal move."""
    p = b.get(f"/api/tables/{table}").json()["state"]["current_player"]
    mine = b.get(f"/api/tables/{table}", headers=auth(tokens[p])).json()
    r = b.post(f"/api/tables/{table}/moves", json={"move": mine["legal"][0]}, headers=auth(tokens[p]))
    assert r.status_code == 200, r.text


def test_berserk_halves_the_time_and_removes_the_increment_across_a_restart(tmp_path):
    path = tmp_path / "club.sqlite"
    app = app_at(path)
    people = members(app, ("alice", "bob"))
    tid = announce(people["alice"], kind="arena", minutes=5, clock={"seconds": 600, "increment": 30})
    for b in people.values():
        assert b.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    wait_for(lambda: any(g["table"] for g in tournament(people["alice"], tid)["games"]))
    table = tournament(people["alice"], tid)["games"][0]["table"]
    seat = {n: seat_of(b, tid)["seat"] for n, b in people.items()}
    alice, bob = seat["alice"]["seat"], seat["bob"]["seat"]
    tokens = {s["seat"]: s["token"] for s in seat.values()}
    assert people["bob"].post(f"/api/tournaments/{tid}/berserk", json={}).status_code == 204
    clock = people["bob"].get(f"/api/tables/{table}").json()["clock"]
    assert clock["left"][bob] <= 300 < clock["left"][alice]
    assert (clock["increments"][bob], clock["increments"][alice]) == (0, 30)
    # a move each: bob's clock gains nothing, alice's gains its 30 s (each move took far less)
    play_once(people["bob"], table, tokens)
    play_once(people["bob"], table, tokens)
    clock = people["bob"].get(f"/api/tables/{table}").json()["clock"]
    assert clock["left"][bob] <= 300 and clock["left"][alice] > 600
    r = people["alice"].post(f"/api/tournaments/{tid}/berserk", json={})
    assert r.status_code == 403 and "before your first move" in r.json()["detail"]
    # the server restarts: the berserk clock comes back as it was
    _CLIENTS.pop(id(app)).__exit__(None, None, None)
    app = app_at(path)
    people = members(app, ("alice", "bob"), new=False)
    clock = people["bob"].get(f"/api/tables/{table}").json()["clock"]
    assert (clock["increments"][bob], clock["increments"][alice]) == (0, 30) and clock["left"][bob] <= 300
    assert tournament(people["bob"], tid)["games"][0]["berserk"] == ["bob"]


def test_an_arena_goes_on_across_a_restart_and_ends_on_time(tmp_path):
    path = tmp_path / "club.sqlite"
    app = app_at(path)
    people = members(app)
    tid = announce(people["alice"], kind="arena", minutes=1.0)  # ended by hand once four games were paired
    for b in people.values():
        assert b.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    wait_for(lambda: len([g for g in tournament(people["alice"], tid)["games"] if g["table"]]) == 2)
    first = tournament(people["alice"], tid)["games"]
    finish_game(people, tid, first[0]["second"])
    # its two are paired again at once (nobody else is free): two games are being played
    wait_for(lambda: len([g for g in tournament(people["alice"], tid)["games"]
                          if g["result"] is None and g["table"]]) == 2)
    before = tournament(people["alice"], tid)
    _CLIENTS.pop(id(app)).__exit__(None, None, None)
    app = app_at(path)
    people = members(app, new=False)
    after = tournament(people["alice"], tid)
    assert (after["status"], after["ends"], after["standings"], after["games"]) == (
        "running", before["ends"], before["standings"], before["games"])
    # the games in progress go on (their seats get new links) and count
    for g in [g for g in after["games"] if g["result"] is None]:
        finish_game(people, tid, g["second"])
    wait_for(lambda: len(tournament(people["alice"], tid)["games"]) >= 4)  # and pairs again after the restart
    app.state.tournaments.live[tid].ends = time.time()  # its time is up: no new pairing from now on
    for g in [g for g in tournament(people["alice"], tid)["games"] if g["result"] is None]:
        wait_for(lambda: all(x["table"] for x in tournament(people["alice"], tid)["games"]))
        finish_game(people, tid, g["second"])
    wait_for(lambda: tournament(people["alice"], tid)["status"] == "finished", timeout=30)
    final = tournament(people["alice"], tid)
    assert all(g["result"] is not None for g in final["games"]) and len(final["games"]) >= 4
    # every game counted: two points a win, streaks aside, each game has one winner
    assert sum(r["wins"] for r in final["standings"]) == len(final["games"])
    for row in final["standings"]:
        (mine,) = people["alice"].get(f"/api/players/{row['entrant']}/tournaments").json()
        assert (mine["place"], mine["points"]) == (row["rank"], row["points"])


def test_an_aborted_tournament_game_scores_nothing_and_the_two_may_meet_again(tmp_path):
    app = app_at(tmp_path / "club.sqlite")
    people = members(app, ("alice", "bob"))
    tid = announce(people["alice"], rounds=2, starts=time.time() + 3600)
    for b in people.values():
        assert b.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    assert people["alice"].post(f"/api/tournaments/{tid}/start", json={}).status_code == 200
    wait_for(lambda: any(g["table"] for g in tournament(people["alice"], tid)["games"]))
    (g,) = tournament(people["alice"], tid)["games"]
    mine = seat_of(people["bob"], tid)["seat"]
    # a tournament's table refuses Abort: a player that does not come loses as a no-show
    r = people["bob"].post(f"/api/tables/{g['table']}/abort", json={}, headers=auth(mine["token"]))
    assert r.status_code == 409 and "no-show" in r.json()["detail"]
    # but a table an older server stored, before that rule, reads back abortable: it is aborted
    app.state.service.tables[g["table"]].options.abortable = True
    r = people["bob"].post(f"/api/tables/{g['table']}/abort", json={}, headers=auth(mine["token"]))
    assert r.status_code == 200, r.text
    wait_for(lambda: tournament(people["alice"], tid)["games"][0]["aborted"])
    t = tournament(people["alice"], tid)
    assert t["games"][0]["result"] is None and not t["games"][0]["forfeit"]
    assert [(r["points"], r["games"]) for r in t["standings"]] == [(0.0, 0), (0.0, 0)]
    # nobody met: the next round pairs the same two again
    wait_for(lambda: tournament(people["alice"], tid)["round"] == 2
             and len(tournament(people["alice"], tid)["games"]) == 2)
    second = tournament(people["alice"], tid)["games"][1]
    assert {second["first"], second["second"]} == {"alice", "bob"} and second["result"] is None


def test_an_account_the_operator_disables_is_paired_no_more_and_its_results_stand(tmp_path, capsys):
    db = str(tmp_path / "club.sqlite")
    app = app_at(db)
    people = members(app)
    tid = announce(people["alice"], kind="arena", minutes=5)
    for b in people.values():
        assert b.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    wait_for(lambda: len([g for g in tournament(people["alice"], tid)["games"] if g["table"]]) == 2)
    games = tournament(people["alice"], tid)["games"]
    _disable(db, "dave", capsys)
    others = {n: b for n, b in people.items() if n != "dave"}
    with_dave = next(g for g in games if "dave" in (g["first"], g["second"]))
    rival = with_dave["second"] if with_dave["first"] == "dave" else with_dave["first"]
    mine = seat_of(people[rival], tid)["seat"]
    r = people[rival].post(f"/api/tables/{with_dave['table']}/resign", json={}, headers=auth(mine["token"]))
    assert r.status_code == 200, r.text
    rest = next(g for g in games if g is not with_dave)
    finish_game(others, tid, rest["second"])
    # the three left are paired again; dave is withdrawn before any pairing, its win stands
    wait_for(lambda: len([g for g in tournament(people["alice"], tid)["games"] if g["table"]]) == 3)
    t = tournament(people["alice"], tid)
    assert all("dave" not in (g["first"], g["second"]) for g in t["games"][2:])
    row = next(r for r in t["standings"] if r["entrant"] == "dave")
    assert (row["state"], row["points"], row["games"]) == ("withdrawn", 2.0, 1)


def test_a_player_who_never_moves_loses_and_is_withdrawn_after_two(tmp_path):
    app = app_at(tmp_path / "club.sqlite", TournamentSettings(tick_seconds=0.05, round_pause_seconds=0.05,
                                                              grace_seconds=0.3))
    people = members(app, ("alice", "bob"))
    tid = announce(people["alice"], rounds=3, starts=time.time() + 3600)
    for b in people.values():
        assert b.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    app.state.tournaments.live[tid].starts = time.time()  # the test starts it now
    # nobody moves: whoever is to move first (the cut's, R4) loses each game on the grace. A
    # forfeit is no meeting, so the two meet again; the second no-show of one withdraws it, and
    # with one entrant left the Swiss ends
    wait_for(lambda: tournament(people["alice"], tid)["status"] == "finished", timeout=30)
    t = tournament(people["alice"], tid)
    assert t["games"] and all(g["forfeit"] for g in t["games"])
    losers = [g["first"] if g["result"] == 0 else g["second"] for g in t["games"]]
    assert all(g["result"] in (0, 1) for g in t["games"])
    twice = next(k for k in range(len(losers)) if losers[:k + 1].count(losers[k]) == 2)
    assert len(losers) == twice + 1  # no game after the second no-show
    states = {r["entrant"]: r["state"] for r in t["standings"]}
    assert states[losers[twice]] == "withdrawn" and list(states.values()).count("withdrawn") == 1


def test_teams_of_two_sit_at_their_teams_seats(tmp_path):
    app = app_at(tmp_path / "club.sqlite")
    people = members(app)
    tid = announce(people["alice"], team_size=2, rounds=1, starts=time.time() + 3600)
    for me, partner in (("alice", "bob"), ("bob", "alice"), ("carol", "dave"), ("dave", "carol")):
        r = people[me].post(f"/api/tournaments/{tid}/join", json={"partner": partner})
        assert r.status_code == 200, r.text
    app.state.tournaments.live[tid].starts = time.time()
    wait_for(lambda: any(g["table"] for g in tournament(people["alice"], tid)["games"]))
    (g,) = tournament(people["alice"], tid)["games"]
    table = app.state.service.tables[g["table"]]
    first = g["first"].split("+")
    assert [s.account for s in table.seats][0::2] == first  # team 0: seats 0 and 2 (R2)
    seats = {n: seat_of(b, tid) for n, b in people.items()}
    assert len({s["seat"]["seat"] for s in seats.values()}) == 4


def test_the_doors_refuse_guests_other_sites_other_accounts_and_too_many(tmp_path):
    app = app_at(tmp_path / "club.sqlite", TournamentSettings(max_open_per_account=1))
    people = members(app, ("alice", "bob"))
    guest = Browser(app)
    body = {"kind": "swiss", "name": "x", "starts": time.time() + 60, "rounds": 3, "clock": {"seconds": 60}}
    assert guest.post("/api/tournaments", json=body).json()["error"] == "NeedsAccountError"
    no_origin = Browser(app, origin=None)
    no_origin.cookies = people["alice"].cookies
    assert no_origin.post("/api/tournaments", json=body).status_code == 403  # CSRF: not from our pages
    for bad, code in [({**body, "kind": "league"}, 422), ({**body, "rounds": 99}, 422),
                      ({**body, "starts": time.time() + 90 * 86400}, 422), ({**body, "name": "\x00"}, 422),
                      ({**body, "kind": "arena", "minutes": 0.001, "rounds": None}, 422)]:
        r = people["alice"].post("/api/tournaments", json=bad)
        assert r.status_code == code, (bad, r.text)
    tid = announce(people["alice"], starts=time.time() + 3600)
    r = people["alice"].post("/api/tournaments", json=body)
    assert r.status_code == 403 and "most one account" in r.json()["detail"]
    assert people["bob"].post(f"/api/tournaments/{tid}/withdraw", json={}).status_code == 403
    assert people["bob"].get(f"/api/tournaments/{tid}/seat").json() == {"table": None, "seat": None}
    assert guest.get(f"/api/tournaments/{tid}/seat").status_code == 401
    assert guest.get("/api/tournaments/nope").status_code == 404
    assert guest.get(f"/api/tournaments/{'x' * 65}").status_code == 422
    page = guest.get(f"/tournaments/{tid}")
    assert page.status_code == 200 and "tournament.js" in page.text


def test_serve_limit_sets_the_tournaments_settings(monkeypatch, capsys, tmp_path):
    """The tournaments' settings are set with ``serve --limit`` like every other limit; a bad one
    is one line, exit status 2."""
    import uvicorn
    from sequence_game.cli import main
    from sequence_game.web import app as app_module

    seen = []
    real_create_app = app_module.create_app
    monkeypatch.setattr(app_module, "create_app", lambda *a, **k: seen.append(k) or real_create_app(*a, **k))
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: None)  # nothing is bound
    db = str(tmp_path / "t.sqlite3")
    main(["serve", "--no-browser", "--db", db, "--limit", "grace_seconds=30", "--limit", "max_open_per_account=5",
          "--limit", "signup_burst=10"])
    t = seen[-1]["tournaments"]
    assert (t.grace_seconds, t.max_open_per_account, t.max_open) == (30.0, 5, TournamentSettings().max_open)
    assert seen[-1]["club"].signup_burst == 10
    for bad, says in [("grace_seconds=0", "positive finite"), ("max_entrants=2.5", "expected an integer"),
                      ("tick_seconds=1", "grace_seconds")]:
        count = len(seen)
        assert main(["serve", "--no-browser", "--db", db, "--limit", bad]) == 2, bad
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1, (bad, err)
        assert len(seen) == count


def test_a_no_show_the_server_stopped_before_scoring_is_a_forfeit_after_the_restart(tmp_path):
    """The no-show's table resigned it, and the server stopped before the tournament heard of the
    end: after the restart the game is still the no-show's forfeit, so the player stays paused (in
    an arena, nobody is paired with it) until it presses Play on, which holds across a restart."""
    path = tmp_path / "club.sqlite"
    app = app_at(path, TournamentSettings(tick_seconds=0.05, min_arena_minutes=0.01, grace_seconds=0.3))
    service = app.state.tournaments
    service.game_over = lambda table: None  # the server stops before the tournament hears the end
    service._catch_up = lambda t: None
    people = members(app, ("alice", "bob"))
    tid = announce(people["alice"], kind="arena", minutes=5)
    for b in people.values():
        assert b.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    wait_for(lambda: any(g["table"] for g in tournament(people["alice"], tid)["games"]))
    (g,) = tournament(people["alice"], tid)["games"]
    # nobody moves: the seat to move first (the cut's, R4) is called a no-show and resigned
    wait_for(lambda: people["alice"].get(f"/api/tables/{g['table']}").json()["over"], timeout=30)
    record = people["alice"].get(f"/api/tables/{g['table']}/record").json()
    seats = people["alice"].get(f"/api/tables/{g['table']}").json()["seats"]
    loser = seats[record["resigned"]]["account"]
    assert tournament(people["alice"], tid)["games"][0]["result"] is None  # not scored yet
    _CLIENTS.pop(id(app)).__exit__(None, None, None)
    app = app_at(path)
    people = members(app, ("alice", "bob"), new=False)
    wait_for(lambda: tournament(people["alice"], tid)["games"][0]["result"] is not None)
    time.sleep(0.5)  # ten ticks of the scheduler: a pairing would have been made
    t = tournament(people["alice"], tid)
    (g,) = t["games"]
    assert g["forfeit"] and g["result"] == (0 if g["first"] == loser else 1)
    rows = {r["entrant"]: r for r in t["standings"]}
    assert rows[loser]["paused"] and rows[loser]["state"] == "in"
    # Play on: paired again, and the pause stays ended after another restart
    assert people[loser].post(f"/api/tournaments/{tid}/pause", json={"paused": False}).status_code == 200
    wait_for(lambda: len(tournament(people["alice"], tid)["games"]) == 2)
    _CLIENTS.pop(id(app)).__exit__(None, None, None)
    app = app_at(path)
    people = members(app, ("alice", "bob"), new=False)
    t = tournament(people["alice"], tid)
    assert not {r["entrant"]: r["paused"] for r in t["standings"]}[loser] and t["games"][1]["result"] is None


def test_a_first_move_that_lands_as_the_no_show_is_called_stands(tmp_path):
    """The player moves in the moment between the scheduler's look (no move yet, the grace over)
    and the table's resignation: the move stands and nobody is resigned for it."""
    import dataclasses

    app = app_at(tmp_path / "club.sqlite", TournamentSettings(tick_seconds=0.05, min_arena_minutes=0.01,
                                                              grace_seconds=0.3))
    service, tables = app.state.tournaments, app.state.service
    real, moved = tables.resign, []

    async def moves_first(table, seats, **kw):
        (p,) = seats
        if not moved:  # the player's move reaches the table first, and no further no-show is called
            service.settings = dataclasses.replace(service.settings, grace_seconds=600.0)
            await tables.play(table, seats, str(table.game.legal_moves()[0]))
            moved.append(p)
        return await real(table, seats, **kw)

    tables.resign = moves_first
    people = members(app, ("alice", "bob"))
    tid = announce(people["alice"], kind="arena", minutes=5)
    for b in people.values():
        assert b.post(f"/api/tournaments/{tid}/join", json={}).status_code == 200
    wait_for(lambda: bool(moved), timeout=30)
    time.sleep(0.3)  # six ticks of the scheduler
    (g,) = tournament(people["alice"], tid)["games"]
    view = people["alice"].get(f"/api/tables/{g['table']}").json()
    assert not view["over"] and view["moves"] == 1 and view["history"][0][0] == moved[0]
    assert g["result"] is None and not g["forfeit"]
