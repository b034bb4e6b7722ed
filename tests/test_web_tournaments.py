"""Tournaments on the server (web/tournaments, docs/club.md "Tournaments"): entry, teams,
withdrawal, no-shows, the Swiss's rounds and the arena's games as data, and their rows in the
SQLite file across a restart and from an older database."""

from __future__ import annotations

import sqlite3

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("openskill")
pytest.importorskip("argon2")

from sequence_game.web.club.store import ClubStore
from sequence_game.web.errors import InvalidRequestError, NotAllowedError
from sequence_game.web.tournaments import TGame, Tournament, TournamentStore, check_settings


def swiss(rounds=3, team_size=1, **settings):
    return Tournament("t1", "swiss", "Club night", "alice", {"rounds": rounds, "team_size": team_size,
                                                              "rated": True, **settings}, starts=100.0, created=50.0)


def arena(**settings):
    return Tournament("t2", "arena", "Blitz arena", "alice", {"minutes": 30, "team_size": 1, "berserk": True,
                                                               **settings}, starts=100.0, created=50.0)


def four(t):
    for k, (name, rating) in enumerate([("alice", 700), ("bob", 600), ("carol", 500), ("dave", 400)]):
        t.join(name, name.title(), rating, now=60.0 + k)
    return t


def play_round(t, results, now):
    """Pair the next round and give its games ``results`` (first's score each)."""
    made = t.next_round(now)
    for g, r in zip([g for g in made if not g.bye], results):
        t.result(g, r, now + 1)
    return made


# -------------------------------------------------------------------------- entry

def test_settings_are_checked_with_what_would_be_right():
    check_settings("swiss", 3, None, 1)
    check_settings("arena", None, 5, 2)
    for args, message in [(("league", 3, None, 1), "kind must be"), (("swiss", 0, None, 1), "1 to 15 rounds"),
                          (("swiss", True, None, 1), "1 to 15 rounds"), (("arena", None, 0, 1), "more than 0"),
                          (("arena", None, float("nan"), 1), "more than 0"), (("swiss", 3, None, 3), "team_size")]:
        with pytest.raises(InvalidRequestError, match=message):
            check_settings(*args)


def test_joining_twice_is_refused_and_a_swiss_closes_its_entries_when_it_starts():
    t = four(swiss())
    with pytest.raises(NotAllowedError, match="already"):
        t.join("bob", "Bob", 600, 70.0)
    t.status = "running"
    with pytest.raises(NotAllowedError, match="entries are closed"):
        t.join("erin", "Erin", 500, 70.0)


def test_a_team_is_in_once_both_partners_named_each_other():
    t = swiss(team_size=2)
    with pytest.raises(InvalidRequestError, match="name your partner"):
        t.join("alice", "Alice", 700, 1.0)
    (e,) = t.join("alice", "Alice", 700, 1.0, partner=("bob", "Bob", 500))
    assert e.state == "pending" and t.active() == []
    with pytest.raises(NotAllowedError, match="named you as partner"):
        t.join("bob", "Bob", 500, 2.0, partner=("carol", "Carol", 600))
    (e,) = t.join("bob", "Bob", 500, 2.0, partner=("alice", "Alice", 700))
    assert e.state == "in" and e.accounts == ["alice", "bob"] and e.rating == 600.0
    assert e.label == "Alice & Bob"


def test_a_withdrawn_player_rejoins_an_arena_but_not_a_started_swiss():
    t = four(arena())
    t.status = "running"
    t.withdraw("bob")
    assert "bob" not in {e.id for e in t.active()}
    t.join("bob", "Bob", 600, 80.0)
    assert "bob" in {e.id for e in t.active()}
    s = four(swiss())
    s.status = "running"
    s.withdraw("bob")
    with pytest.raises(NotAllowedError, match="takes no one back"):
        s.join("bob", "Bob", 600, 80.0)


# -------------------------------------------------------------------------- the Swiss

def test_a_swiss_of_four_over_three_rounds_meets_everyone_once():
    t = four(swiss())
    t.status = "running"
    for r in range(3):
        play_round(t, [1.0, 0.0], now=100.0 + 10 * r)
        assert t.round_over()
    met = {frozenset((g.first, g.second)) for g in t.games}
    assert len(met) == 6  # a round robin: each of the 6 pairs exactly once
    table = t.standings()
    assert [r["rank"] for r in table] == [1, 2, 3, 4]
    assert sum(r["points"] for r in table) == 6.0


def test_withdrawn_players_are_paired_no_more_and_their_results_stand():
    t = four(swiss())
    t.status = "running"
    first = play_round(t, [1.0, 1.0], 100.0)
    winners = {g.first for g in first}
    quitter = next(iter(winners))
    t.withdraw(quitter)
    second = t.next_round(110.0)
    assert all(quitter not in (g.first, g.second) for g in second)
    assert any(g.bye for g in second)  # three left: one has the bye
    row = next(r for r in t.standings() if r["entrant"] == quitter)
    assert row["points"] == 1.0 and row["state"] == "withdrawn"


def test_two_no_shows_withdraw_a_player():
    t = four(swiss())
    t.status = "running"
    for r in range(2):
        made = t.next_round(100.0 + r)
        g = next(g for g in made if "dave" in (g.first, g.second))
        dave_first = g.first == "dave"
        changed = t.result(g, 0.0 if dave_first else 1.0, 101.0 + r, forfeit=True)
        assert [e.id for e in changed] == ["dave"]
        for other in made:
            if other.playing:
                t.result(other, 0.5, 101.0 + r)
    assert t.entrants["dave"].no_shows == 2 and t.entrants["dave"].state == "withdrawn"


# -------------------------------------------------------------------------- the arena

def test_an_arena_no_show_is_paused_so_nobody_waits_for_it_again():
    t = four(arena())
    t.status = "running"
    made = t.arena_next(100.0)
    g = next(g for g in made if "dave" in (g.first, g.second))
    changed = t.result(g, 0.0 if g.first == "dave" else 1.0, 101.0, forfeit=True)
    assert [e.id for e in changed] == ["dave"] and t.entrants["dave"].paused
    for other in made:
        if other.playing:
            t.result(other, 1.0, 101.0, turns=(10, 10))
    again = t.arena_next(102.0)
    assert len(again) == 1 and all("dave" not in (x.first, x.second) for x in again)
    # back (Play on): paired again; a second no-show withdraws it
    t.set_paused("dave", False)
    t.result(again[0], 1.0, 103.0, turns=(10, 10))
    (back,) = [x for x in t.arena_next(104.0) if "dave" in (x.first, x.second)]
    t.result(back, 0.0 if back.first == "dave" else 1.0, 105.0, forfeit=True)
    assert t.entrants["dave"].state == "withdrawn"

def test_the_arena_pairs_the_free_and_scores_streaks():
    t = four(arena())
    t.status = "running"
    made = t.arena_next(100.0)
    assert len(made) == 2 and not t.arena_next(100.0)  # everyone is playing
    for g in made:
        t.result(g, 1.0, 101.0, turns=(10, 10))
    t.set_paused("carol", True)
    again = t.arena_next(102.0)
    assert all("carol" not in (g.first, g.second) for g in again)
    assert len(again) == 1  # three free: one pair, one waits
    g = again[0]
    t.go_berserk(g.first)
    with pytest.raises(NotAllowedError, match="already"):
        t.go_berserk(g.first)
    t.result(g, 1.0, 103.0, turns=(12, 11))
    scores = t.arena_scores()
    # a winner of both games: 2 + 2, plus the berserk point
    assert scores[g.first] == (5 if t.arena_results(g.first)[0].score == 1.0 else 3)
    rows = t.standings()
    assert rows[0]["points"] >= rows[-1]["points"]


def test_arena_ties_on_points_go_by_performance_not_wins_then_rating():
    t = arena()
    for k, (name, rating) in enumerate([("x", 700), ("y", 400), ("p", 300), ("q", 650)]):
        t.join(name, name.upper(), rating, now=60.0 + k)
    t.status = "running"
    made = [TGame(1, 0, 0, "x", "p", 100.0), TGame(2, 0, 0, "y", "q", 100.0)]
    t.games.extend(made)
    for g in made:
        t.result(g, 1.0, 101.0, turns=(10, 10))
    rows = {r["entrant"]: r for r in t.standings()}
    # x and y both won once (2 points, one win): y beat a 650, x a 300, so y performed better
    # (1050 against 700) and is ahead although x is rated higher; likewise p (lost to a 700:
    # 300) is ahead of q (lost to a 400: 0)
    assert [r["entrant"] for r in t.standings()] == ["y", "x", "p", "q"]
    assert [rows[i]["performance"] for i in "yxpq"] == [1050, 700, 300, 0]
    # nothing played: below every performance, then by rating
    t.join("z", "Z", 900, now=70.0)
    assert [r["entrant"] for r in t.standings()][-1] == "z"
    assert next(r for r in t.standings() if r["entrant"] == "z")["performance"] is None


def test_only_the_creator_starts_early_and_only_with_two_in():
    t = swiss()
    t.join("alice", "Alice", 700, now=60.0)
    with pytest.raises(NotAllowedError, match="only the tournament's creator"):
        t.start_early("bob", 70.0)
    with pytest.raises(NotAllowedError, match="at least 2 entrants in; it has 1"):
        t.start_early("alice", 70.0)
    t.join("bob", "Bob", 600, now=61.0)
    t.start_early("alice", 70.0)
    assert t.starts == 70.0
    t.status = "running"
    with pytest.raises(NotAllowedError, match="started already"):
        t.start_early("alice", 71.0)
    # teams: only complete ones count
    teams = swiss(team_size=2)
    teams.join("alice", "Alice", 700, 1.0, partner=("bob", "Bob", 500))
    teams.join("bob", "Bob", 500, 2.0, partner=("alice", "Alice", 700))
    teams.join("carol", "Carol", 600, 3.0, partner=("dave", "Dave", 400))
    with pytest.raises(NotAllowedError, match=r"\(complete teams\); it has 1"):
        teams.start_early("alice", 70.0)
    teams.join("dave", "Dave", 400, 4.0, partner=("carol", "Carol", 600))
    teams.start_early("alice", 70.0)


def test_an_aborted_game_scores_nothing_and_is_no_meeting():
    t = swiss(rounds=3)
    t.join("alice", "Alice", 700, now=60.0)
    t.join("bob", "Bob", 600, now=61.0)
    t.status = "running"
    (g,) = t.next_round(100.0)
    t.abort(g, 101.0)
    assert g.aborted and not g.playing and t.round_over()
    assert t.result(g, 1.0, 102.0) == [] and g.result is None  # a late result changes nothing
    rows = t.standings()
    assert [(r["points"], r["games"]) for r in rows] == [(0.0, 0), (0.0, 0)]
    (again,) = t.next_round(110.0)  # no meeting: the two are paired again
    assert {again.first, again.second} == {"alice", "bob"}
    # an arena: no points either way, and a streak goes on past it
    a = four(arena())
    a.status = "running"
    for n in range(3):
        game = TGame(len(a.games) + 1, 0, 0, "alice", "bob", 100.0 + n)
        a.games.append(game)
        if n == 1:
            a.abort(game, 101.0 + n)
        else:
            a.result(game, 1.0, 101.0 + n, turns=(10, 10))
    rows = {r["entrant"]: r for r in a.standings()}
    assert rows["alice"]["sheet"] == [2, 2] and rows["bob"]["sheet"] == [0, 0]
    assert rows["alice"]["fire"] and rows["alice"]["games"] == 2


def test_pauses_and_berserk_are_the_arenas():
    t = four(swiss())
    with pytest.raises(InvalidRequestError, match="only an arena"):
        t.set_paused("bob", True)
    with pytest.raises(InvalidRequestError, match="berserk"):
        t.go_berserk("bob")


def test_closing_files_places_and_points():
    t = four(swiss(rounds=1))
    t.status = "running"
    play_round(t, [1.0, 1.0], 100.0)
    t.close(120.0)
    places = sorted((e.place, e.points) for e in t.entrants.values())
    assert places == [(1, 1.0), (2, 1.0), (3, 0.0), (4, 0.0)]


# -------------------------------------------------------------------------- the rows

def save_all(store, t):
    store.save(t.row(), [e.row() for e in t.entrants.values()], [g.row() for g in t.games])


def test_a_tournament_reads_back_as_it_was_written_after_a_restart(tmp_path):
    path = tmp_path / "club.sqlite"
    store = TournamentStore(path)
    t = four(swiss())
    t.status = "running"
    play_round(t, [1.0, 0.5], 100.0)
    t.next_round(110.0)  # the second round in progress
    save_all(store, t)
    store.close()
    again = TournamentStore(path)  # the server restarted
    back = Tournament.from_rows(again.load("t1"))
    assert back.row() == t.row()
    assert [g.row() for g in back.games] == [g.row() for g in t.games]
    assert {k: e.row() for k, e in back.entrants.items()} == {k: e.row() for k, e in t.entrants.items()}
    assert not back.round_over() and back.round == 2
    assert back.standings() == t.standings()
    # the round in progress goes on: its results come in and the third round is paired as before the restart
    for a, b in zip([g for g in back.games if g.playing], [g for g in t.games if g.playing]):
        back.result(a, 1.0, 120.0)
        t.result(b, 1.0, 120.0)
    assert [(g.first, g.second) for g in back.next_round(130.0)] == [(g.first, g.second) for g in t.next_round(130.0)]
    assert again.ids(("running",)) == ["t1"]
    again.close()


def test_a_player_page_lists_finished_tournaments_with_place_and_points(tmp_path):
    store = TournamentStore(tmp_path / "club.sqlite")
    t = four(swiss(rounds=1))
    t.status = "running"
    play_round(t, [1.0, 1.0], 100.0)
    t.close(120.0)
    save_all(store, t)
    (row,) = store.results_of("bob")
    assert row["name"] == "Club night" and row["entrants"] == 4 and row["place"] in (1, 2, 3, 4)
    assert store.results_of("nobody") == []
    # a key that is a prefix of another's is not confused with it (the accounts are JSON strings)
    assert store.results_of("bo") == []
    assert store.finished(10) == ["t1"]


def test_an_older_database_gains_the_tournament_tables_and_keeps_its_rows(tmp_path):
    path = tmp_path / "old.sqlite"
    old = ClubStore(path)  # a file from before tournaments: the club's tables only
    old.write(("INSERT INTO accounts (key, name, hash, created, mu, sigma) VALUES (?,?,?,?,?,?)",
               ("alice", "alice", "x", "2026-01-01", 25.0, 8.3)))
    old.close()
    with sqlite3.connect(path) as db:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "tournaments" not in names
    store = TournamentStore(path)
    assert store.ids(("upcoming", "running")) == []
    assert store.one("SELECT name FROM accounts WHERE key = 'alice'") == ("alice",)
    save_all(store, four(swiss()))
    assert store.load("t1")["name"] == "Club night" and store.load("nope") is None
    store.close()


def test_an_older_database_gains_the_no_show_column_and_reads_its_games_back(tmp_path):
    from sequence_game.web.tournaments.store import _SCHEMA

    path = tmp_path / "old.sqlite"
    ClubStore(path).close()
    older = "\n".join(line for line in _SCHEMA.splitlines() if not line.lstrip().startswith("no_show "))
    assert older != _SCHEMA
    with sqlite3.connect(path) as db:  # the tournaments' tables as a server before the column made them
        db.executescript(older)
    t = four(arena())
    t.status = "running"
    made = t.arena_next(100.0)
    store = ClubStore(path)
    store.write(("INSERT INTO tournaments VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                 ("t2", "arena", "Blitz arena", "alice", '{"minutes": 30}', 100.0, "running", 0, 1900.0, 50.0, None)),
                ("INSERT INTO tournament_games VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                 ("t2", 1, 0, 0, made[0].first, made[0].second, "tab1", None, 0, "[]", "[0,0]", 100.0, None)))
    store.close()
    store = TournamentStore(path)
    (g,) = Tournament.from_rows(store.load("t2")).games
    assert (g.first, g.table_id, g.no_show, g.playing) == (made[0].first, "tab1", None, True)
    g.no_show = 1  # a no-show called: kept across the next opening
    store.save(t.row(), games=[g.row()])
    store.close()
    again = TournamentStore(path)  # opening it once more adds nothing twice
    assert [x.no_show for x in Tournament.from_rows(again.load("t2")).games] == [1]
    again.close()
