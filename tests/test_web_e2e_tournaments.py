"""End-to-end, tournaments (docs/club.md, "Tournaments"): a Swiss of four accounts over three rounds
and an arena of four, in Chromium, the standings checked after every game, the server restarted in
the middle of the Swiss, axe on every new page, screenshots to ``$SEQUENCE_WEB_SCREENSHOTS``."""

# ruff: noqa: F811  (the fixtures of test_web_e2e_club.py are imported, then named as test arguments)
from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("argon2")
pytest.importorskip("playwright.sync_api")

from sequence_game.web import create_app
from sequence_game.web.limits import ServerLimits
from sequence_game.web.tournaments.service import TournamentSettings
from test_web_e2e import axe_report
from test_web_e2e_club import (  # noqa: F401  (browser, people: the fixtures)
    SETTINGS,
    browser,
    get,
    people,
    play_moves,
    shot,
    sign_up,
)
from web_support import free_port, start_uvicorn, stop_uvicorn

pytestmark = pytest.mark.e2e

NAMES = ("alice", "bob", "carol", "dave")
QUICK = TournamentSettings(tick_seconds=0.1, round_pause_seconds=0.5, min_arena_minutes=0.01, grace_seconds=120.0)


class Server:
    """``serve`` in a thread over one database file, which a test may restart."""

    def __init__(self, path):
        self.path, self.port = path, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.start()

    def start(self):
        limits = ServerLimits(create_burst=200, create_per_minute=600.0, max_tables_per_client=200)
        self.app = create_app(self.path, ai_pause=0.2, limits=limits, club=SETTINGS, tournaments=QUICK)
        self.srv, self.thread = start_uvicorn(self.app, self.port)

    def stop(self):
        stop_uvicorn(self.srv, self.thread)

    def restart(self):
        self.stop()
        self.start()


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path / "tables.sqlite3")
    yield s
    s.stop()


def wait(predicate, timeout=30.0):
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.1)


def announce(server, page, kind, name, **fields):
    page.goto(server.url + "/")
    page.wait_for_selector("#tournamentform:not([hidden])")
    page.fill("#tn-name", name)
    page.select_option("#tn-kind", kind)
    if kind == "swiss":
        page.fill("#tn-rounds", str(fields.get("rounds", 3)))
    else:
        page.fill("#tn-minutes", str(fields["minutes"]))
    page.fill("#tn-in", "5")
    page.fill("#tn-clock", "10")
    if fields.get("teams"):
        page.select_option("#tn-team", "2")
    assert not axe_report(page, serious_only=True)
    shot(page, f"tournament-{'teams' if fields.get('teams') else kind}-01-announce")
    page.click("#tn-create")
    page.wait_for_url("**/tournaments/**")
    return page.url.rstrip("/").split("/tournaments/")[1]


def join_all(server, persons, tid):
    for p in persons.values():
        p.page.goto(f"{server.url}/tournaments/{tid}")
        p.page.click("#t-join")
        p.page.wait_for_selector("#t-withdraw:not([hidden])")
    wait(lambda: len(get(server.url, f"/api/tournaments/{tid}")["standings"]) == 4)


def start_now(server, tid):
    # the announced start is minutes away: the test moves it to now (the scheduler starts it)
    server.app.state.tournaments.live[tid].starts = time.time()


def shown_points(page):
    """The standings as the page shows them: {name: points} (the names' links)."""
    out = {}
    for row in page.locator("#t-standings tr").all():
        cells = row.locator("td").all()
        out[cells[1].locator("a").first.inner_text()] = float(cells[3].inner_text())
    return out


def check_standings(server, persons, tid):
    """Every page shows what the server says."""
    want = {r["names"][0]: r["points"] for r in get(server.url, f"/api/tournaments/{tid}")["standings"]}
    for p in persons.values():
        p.page.goto(f"{server.url}/tournaments/{tid}")
        p.page.wait_for_selector("#t-standings tr td a")
        wait(lambda: shown_points(p.page) == want)


def play_and_resign(server, persons, tid, table, names, moves, loser):
    """Each of ``names`` opens its seat of ``table`` from the tournament's page, ``moves`` moves are
    made in turn, each on the page of the seat to move, then ``loser`` resigns; returns each name's
    page."""
    pages = {}
    for name in names:
        page = persons[name].page
        page.goto(f"{server.url}/tournaments/{tid}")
        page.wait_for_selector("#t-game:not([hidden]) a")
        page.click("#t-game a")
        page.wait_for_url(f"**/table/{table}#**")
        pages[name] = page
    seats = {s["account"]: p for p, s in enumerate(get(server.url, f"/api/tables/{table}")["seats"])}
    play_moves(server.url, table, {seats[n]: pages[n] for n in pages}, moves)
    page = pages[loser]
    page.wait_for_selector("#resign:not([hidden])")
    page.click("#resign")
    page.click("#resign-yes")
    return pages


def play_game(server, persons, tid, loser):
    """``loser``'s game from the tournament's page: both open their seat, one move each, then
    ``loser`` resigns at the table."""
    t = get(server.url, f"/api/tournaments/{tid}")
    row = next(r for r in t["standings"] if r["entrant"] == loser)
    table, other = row["table"], row["opponent"]
    pages = play_and_resign(server, persons, tid, table, (loser, other), moves=2, loser=loser)
    pages[loser].wait_for_selector("dialog#gameover[open]")
    wait(lambda: any(g["table"] == table and g["result"] is not None
                     for g in get(server.url, f"/api/tournaments/{tid}")["games"]))


def round_games(server, tid, n):
    wait(lambda: get(server.url, f"/api/tournaments/{tid}")["round"] == n
         and all(g["table"] for g in get(server.url, f"/api/tournaments/{tid}")["games"] if g["round"] == n))
    return [g for g in get(server.url, f"/api/tournaments/{tid}")["games"] if g["round"] == n]


def test_a_swiss_of_four_over_three_rounds_with_a_restart(server, people):
    persons = {}
    for name in NAMES:
        persons[name] = people()
        sign_up(server.url, persons[name].page, name)
    tid = announce(server, persons["alice"].page, "swiss", "Friday Swiss")
    join_all(server, persons, tid)
    page = persons["alice"].page
    page.goto(f"{server.url}/tournaments/{tid}")
    page.wait_for_selector("#t-standings tr td a")
    assert not axe_report(page, serious_only=True)
    shot(page, "tournament-swiss-02-joined")
    start_now(server, tid)
    for n in (1, 2, 3):
        games = round_games(server, tid, n)
        if n == 2:  # the server restarts with the second round under way
            server.restart()
            for p in persons.values():
                p.page.goto(f"{server.url}/tournaments/{tid}")
            games = round_games(server, tid, 2)
        for g in games:
            play_game(server, persons, tid, g["second"])
            check_standings(server, persons, tid)
        shot(persons["bob"].page, f"tournament-swiss-0{n + 2}-round-{n}")
    wait(lambda: get(server.url, f"/api/tournaments/{tid}")["status"] == "finished")
    t = get(server.url, f"/api/tournaments/{tid}")
    assert len({frozenset((g["first"], g["second"])) for g in t["games"]}) == 6
    check_standings(server, persons, tid)
    page = persons["carol"].page
    page.goto(f"{server.url}/tournaments/{tid}")
    page.wait_for_function("document.getElementById('t-status').textContent.length > 0")
    assert not axe_report(page, serious_only=True)
    shot(page, "tournament-swiss-06-finished")
    # carol's page lists the tournament with her place
    place = next(r["rank"] for r in t["standings"] if r["entrant"] == "carol")
    page.goto(f"{server.url}/players/carol")
    page.wait_for_selector("#tournaments tr td a")
    assert f"{place} of 4" in page.inner_text("#tournaments")
    assert not axe_report(page, serious_only=True)
    shot(page, "tournament-swiss-07-player-page")
    # the lobby lists it, finished
    page.goto(server.url + "/")
    page.wait_for_selector("#tournaments tr td a")
    assert "Friday Swiss" in page.inner_text("#tournaments")


def test_an_arena_of_four(server, people):
    persons = {}
    for name in NAMES:
        persons[name] = people()
        sign_up(server.url, persons[name].page, name)
    tid = announce(server, persons["alice"].page, "arena", "Blitz arena", minutes=0.75)
    join_all(server, persons, tid)
    start_now(server, tid)
    wait(lambda: len([g for g in get(server.url, f"/api/tournaments/{tid}")["games"] if g["table"]]) == 2)
    first = get(server.url, f"/api/tournaments/{tid}")["games"]
    for g in first:
        play_game(server, persons, tid, g["second"])
        check_standings(server, persons, tid)
    points = {r["entrant"]: r["points"] for r in get(server.url, f"/api/tournaments/{tid}")["standings"]}
    assert sorted(points.values()) == [0, 0, 2, 2]
    page = persons["alice"].page
    page.goto(f"{server.url}/tournaments/{tid}")
    page.wait_for_selector("#t-standings tr td a")
    assert not axe_report(page, serious_only=True)
    shot(page, "tournament-arena-02-running")
    # time runs out: the games being played are finished and count, then it closes
    t = get(server.url, f"/api/tournaments/{tid}")
    wait(lambda: time.time() > t["ends"], timeout=60)
    for g in [g for g in get(server.url, f"/api/tournaments/{tid}")["games"] if g["result"] is None]:
        wait(lambda: all(x["table"] for x in get(server.url, f"/api/tournaments/{tid}")["games"]))
        play_game(server, persons, tid, g["second"])
    wait(lambda: get(server.url, f"/api/tournaments/{tid}")["status"] == "finished")
    check_standings(server, persons, tid)
    page.goto(f"{server.url}/tournaments/{tid}")
    page.wait_for_selector("#t-standings tr td a")
    assert not axe_report(page, serious_only=True)
    shot(page, "tournament-arena-03-finished")


def play_team_game(server, persons, tid, table, loser):
    """The four seats of ``table`` open their links from the tournament's page and each moves once
    in turn (a game played, which nobody may abort any more), then ``loser`` resigns for its team."""
    pages = play_and_resign(server, persons, tid, table, persons, moves=4, loser=loser)
    for page in pages.values():
        page.wait_for_selector("dialog#gameover[open]")


def test_teams_of_two_join_on_the_page_start_early_and_play_their_game(server, people):
    persons = {}
    for name in NAMES:
        persons[name] = people()
        sign_up(server.url, persons[name].page, name)
    tid = announce(server, persons["alice"].page, "swiss", "Pairs night", rounds=1, teams=True)
    creator = persons["alice"].page
    # each names its partner on the page; a team is in once both named each other (R2: a team of two)
    for me, partner in (("alice", "bob"), ("bob", "alice"), ("carol", "dave"), ("dave", "carol")):
        page = persons[me].page
        page.goto(f"{server.url}/tournaments/{tid}")
        page.wait_for_selector("#t-partner-label:not([hidden])")
        page.fill("#t-partner", partner)
        page.click("#t-join")
        page.wait_for_selector("#t-withdraw:not([hidden])")  # a member of a team, complete or not
        assert page.is_hidden("#t-join")
        if me == "carol":  # one team in, one waiting for its second member: not enough to start
            assert "carol & dave" in page.inner_text("#t-pending")
            creator.goto(f"{server.url}/tournaments/{tid}")
            creator.wait_for_selector("#t-start:not([hidden])")
            assert creator.is_disabled("#t-start") and creator.is_visible("#t-start-hint")
    # only the creator is offered the early start, once the two teams are in
    assert persons["bob"].page.is_hidden("#t-start")
    creator.goto(f"{server.url}/tournaments/{tid}")
    creator.wait_for_selector("#t-start:not([hidden]):not([disabled])")
    assert creator.is_hidden("#t-start-hint")
    assert not axe_report(creator, serious_only=True)
    shot(creator, "tournament-teams-02-ready-to-start")
    creator.click("#t-start")
    creator.wait_for_function("document.getElementById('t-status').textContent.includes(' 1 of 1 is being played')")
    creator.wait_for_selector("#t-game:not([hidden]) a")
    assert creator.is_hidden("#t-start")
    (g,) = get(server.url, f"/api/tournaments/{tid}")["games"]
    assert {g["first"], g["second"]} == {"alice+bob", "carol+dave"}
    table = get(server.url, f"/api/tables/{g['table']}")
    # each team's two accounts sit at its team's seats (R2: seats 0 and 2, 1 and 3)
    assert [s["account"] for s in table["seats"]][0::2] == g["first"].split("+")
    assert [s["account"] for s in table["seats"]][1::2] == g["second"].split("+")
    assert not axe_report(creator, serious_only=True)
    shot(creator, "tournament-teams-03-started")
    loser = g["second"].split("+")[1]
    play_team_game(server, persons, tid, g["table"], loser)
    wait(lambda: get(server.url, f"/api/tournaments/{tid}")["status"] == "finished")
    t = get(server.url, f"/api/tournaments/{tid}")
    assert [(r["entrant"], r["points"]) for r in t["standings"]] == [(g["first"], 1.0), (g["second"], 0.0)]
    check_standings(server, persons, tid)
    page = persons[loser].page
    page.goto(f"{server.url}/tournaments/{tid}")
    page.wait_for_selector("#t-standings tr td a")
    assert not axe_report(page, serious_only=True)
    shot(page, "tournament-teams-04-standings")
    # both members of each team have the tournament on their page, with the team's place
    for name in NAMES:
        place = 1 if name in g["first"].split("+") else 2
        page.goto(f"{server.url}/players/{name}")
        page.wait_for_selector("#tournaments tr td a")
        assert f"{place} of 2" in page.inner_text("#tournaments")
