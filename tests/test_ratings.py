"""Ratings for team games (web/club/ratings.py, docs/club.md): openskill's Plackett-Luce over every
table shape, the ladder's scale, provisional ratings."""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone

import pytest

pytest.importorskip("openskill")
pytest.importorskip("argon2")
pytest.importorskip("fastapi")

from hypothesis import given, settings
from hypothesis import strategies as st
from sequence_game.game_setup import VALID_PLAYERS, check_players_teams
from sequence_game.web.club import ratings

NEW = (ratings.MU0, ratings.SIGMA0)


def shapes():
    """Every table shape the rules allow (R2): (players, teams)."""
    out = []
    for players in VALID_PLAYERS:
        for teams in (2, 3):
            try:
                out.append(check_players_teams(players, teams))
            except ValueError:
                pass
    return sorted(set(out))


@pytest.mark.parametrize("players, teams", shapes())
def test_every_table_shape_is_rated_the_winners_up_the_others_down(players, teams):
    table = [[NEW for _ in range(t, players, teams)] for t in range(teams)]
    after = ratings.rate(table, winner=0)
    assert [len(t) for t in after] == [len(t) for t in table]
    assert all(mu > ratings.MU0 for mu, _ in after[0])
    assert all(mu < ratings.MU0 for team in after[1:] for mu, _ in team)
    assert all(sigma < ratings.SIGMA0 for team in after for _, sigma in team)
    # teammates of equal ratings change alike; in three teams both losers are tied second
    assert len({round(mu, 9) for mu, _ in after[0]}) == 1
    if teams == 3:
        assert [[round(mu, 9) for mu, _ in t] for t in after[1:]] == [[round(mu, 9) for mu, _ in after[1]]] * 2


def test_a_draw_between_equals_changes_no_mu_and_settles_sigma():
    after = ratings.rate([[NEW], [NEW]], winner=None)
    assert all(math.isclose(mu, ratings.MU0) for team in after for mu, _ in team)
    assert all(sigma < ratings.SIGMA0 for team in after for _, sigma in team)


def test_beating_a_stronger_team_gains_more():
    strong, weak = (30.0, 4.0), (20.0, 4.0)
    upset = ratings.rate([[weak], [strong]], winner=0)[0][0][0] - weak[0]
    expected = ratings.rate([[strong], [weak]], winner=0)[0][0][0] - strong[0]
    assert upset > expected > 0


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 3).flatmap(lambda teams: st.tuples(
    st.just(teams), st.integers(0, teams - 1),
    st.lists(st.lists(st.tuples(st.floats(0, 50), st.floats(1, 8.34)), min_size=1, max_size=6),
             min_size=teams, max_size=teams))))
def test_property_a_win_never_lowers_a_winner_nor_raises_a_two_team_loser(case):
    """(In three teams the losers tie for second: one tied with a much stronger team may gain a
    little, as from a draw with it; docs/club.md.)"""
    teams, winner, table = case
    after = ratings.rate(table, winner)
    tau = ratings.MODEL.tau  # openskill widens sigma by tau before each game (ratings drift)
    for t, (old, new) in enumerate(zip(table, after)):
        for (mu0, s0), (mu1, s1) in zip(old, new):
            if t == winner:
                assert mu1 >= mu0 - 1e-9
            elif teams == 2:
                assert mu1 <= mu0 + 1e-9
            assert s1 <= math.hypot(s0, tau) + 1e-9 and math.isfinite(mu1)


def test_the_display_scale_is_the_ladders_elo():
    assert ratings.display(ratings.MU0) == ratings.START == 500
    # two settled ratings d mu apart: Plackett-Luce's win chance is Elo's for d * ELO_PER_MU points
    c = math.sqrt(2) * ratings.MODEL.beta
    for d in (0.5, 2.0, 5.0):
        pl = 1 / (1 + math.exp(-d / c))
        elo = 1 / (1 + 10 ** (-(d * ratings.ELO_PER_MU) / 400))
        assert math.isclose(pl, elo, rel_tol=1e-12)
    assert 29 < ratings.ELO_PER_MU < 30
    assert ratings.display(ratings.MU0 + 1) - ratings.display(ratings.MU0) == round(ratings.ELO_PER_MU)


def test_a_new_rating_is_provisional_until_about_a_dozen_games():
    a = b = NEW
    assert ratings.provisional(a[1])
    games = 0
    while ratings.provisional(a[1]):
        [[a], [b]] = ratings.rate([[a], [b]], winner=games % 2)
        games += 1
    assert 8 <= games <= 16


def test_bad_shapes_and_winners_are_refused():
    with pytest.raises(ValueError, match="2 or 3 teams"):
        ratings.rate([[NEW]], winner=0)
    with pytest.raises(ValueError, match="2 or 3 teams"):
        ratings.rate([[NEW], []], winner=0)
    with pytest.raises(ValueError, match="winner must be a team from 0 to 1"):
        ratings.rate([[NEW], [NEW]], winner=2)


def _finished(table_id, accounts, teams, winner, movers=None, rated=True, ai=None):
    """A finished table as Club.game_over reads it (seat p in team p % teams)."""
    from types import SimpleNamespace

    from sequence_game.web.tables.table import Seat

    seats = [Seat("ai", ai, f"AI {p}") if a is None else Seat("human", None, a, "h", account=a.lower())
             for p, a in enumerate(accounts)]
    return SimpleNamespace(
        id=table_id, seats=seats, created="2026-01-01T00:00:00Z", movers=list(range(len(seats))) if movers is None else movers,
        options=SimpleNamespace(rated=rated, clock_state=None, to_dict=lambda: {"clock": None, "turn_seconds": None}),
        game=SimpleNamespace(teams=teams, players=len(seats)),
        record=SimpleNamespace(result={"winner": winner, "is_draw": winner is None, "turns": 40}, resigned=None,
                               finished="2026-01-01T01:00:00Z", timeouts=[], ending=None,
                               aborted=None))


@pytest.fixture
def club():
    pytest.importorskip("argon2")
    from sequence_game.web.club import Club, ClubSettings

    c = Club(":memory:", ClubSettings(hash_overrides=(("time_cost", 1), ("memory_cost", 8), ("parallelism", 1))))
    for name in ("Ann", "Ben", "Cat", "Dan", "Eve", "Fay"):
        c.accounts.create(name, "password1")
    yield c
    c.close()


def test_a_three_team_game_raises_the_winner_and_lowers_both_others(club):
    club.game_over(_finished("t3", ["Ann", "Ben", "Cat"], teams=3, winner=2))
    change = {r["name"]: r["change"] for r in club.rating_changes("t3")}
    assert change["Cat"] > 0 > change["Ann"] and change["Ann"] == change["Ben"]
    outcomes = {k: club.player(club.accounts.get(k))["games"][0]["outcome"] for k in ("ann", "cat")}
    assert outcomes == {"ann": "loss", "cat": "win"}


def test_three_teams_of_two_and_a_draw(club):
    club.game_over(_finished("t6", ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"], teams=3, winner=1))
    change = {r["name"]: r["change"] for r in club.rating_changes("t6")}
    assert change["Ben"] > 0 and change["Eve"] > 0  # seats 1 and 4: team 1
    assert all(change[n] < 0 for n in ("Ann", "Dan", "Cat", "Fay"))
    club.game_over(_finished("d", ["Ann", "Ben"], teams=2, winner=None))
    assert all(r["counted"] for r in club.rating_changes("d"))
    assert club.player(club.accounts.get("ann"))["games"][0]["outcome"] == "draw"


def test_the_player_page_gives_every_time_as_iso_8601_utc_and_says_what_counted(club):
    """One time format on the player page: the account's ``created``, each game's ``finished`` and
    each history point's ``at`` are ISO 8601 UTC text; a counted game says so, with its change."""
    iso = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$")
    before = datetime.now(timezone.utc) - timedelta(seconds=5)
    club.game_over(_finished("r1", ["Ann", "Ben"], teams=2, winner=0))
    page = club.player(club.accounts.get("ann"))
    (point,) = page["history"]
    times = [page["created"], page["games"][0]["finished"], point["at"]]
    assert all(isinstance(t, str) and iso.match(t) for t in times), times
    assert before <= datetime.fromisoformat(point["at"].replace("Z", "+00:00")) <= datetime.now(timezone.utc)
    (game,) = page["games"]
    assert (game["rated"], game["counted"], game["why"]) == (True, True, None)
    assert game["change"] == point["change"] > 0


def test_what_is_filed_but_not_rated(club):
    club.game_over(_finished("ai", ["Ann", None], teams=2, winner=0, ai="easy"))
    club.game_over(_finished("casual", ["Ann", "Ben"], teams=2, winner=0, rated=False))
    club.game_over(_finished("aborted", ["Ann", "Ben"], teams=2, winner=0, movers=[0]))
    club.game_over(_finished("twice", ["Ann", "Ann"], teams=2, winner=0))
    for t in ("ai", "casual", "aborted", "twice"):
        assert club.rating_changes(t) == []
    games = {g["table"]: g for g in club.player(club.accounts.get("ann"))["games"]}
    assert set(games) == {"ai", "casual", "aborted", "twice"}
    # each says whether its table was rated, that it did not count, and why
    assert {t: (g["rated"], g["counted"], g["why"], g["change"]) for t, g in games.items()} == {
        "ai": (True, False, "not every seat was an account", None),
        "casual": (False, False, "the table was created casual", None),
        "aborted": (True, False, "a seat never moved (an aborted game)", None),
        "twice": (True, False, "an account held two seats", None)}
    assert club.accounts.get("ann").games == 0
    from sequence_game.agents.levels import level_of, packaged_ratings

    easy = level_of("easy")  # its level and the rating the package ships for it
    assert club.player(club.accounts.get("ann"))["vs_ai"][0] == {
        "ai": easy.name, "wins": 1, "losses": 0, "draws": 0, "level": easy.number,  # "easy" is a level's alias
        "rating": float(packaged_ratings()[easy.name]["rating"])}
    club.game_over(_finished("ai", ["Ann", None], teams=2, winner=1, ai="easy"))  # filed once
    assert club.player(club.accounts.get("ann"))["vs_ai"][0]["wins"] == 1
