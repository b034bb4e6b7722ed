"""sequence_game.simulate: many random games in the compiled core."""

from __future__ import annotations

import pytest

sequence_game = pytest.importorskip("sequence_game")
pytest.importorskip("sequence_game._core")

from sequence_game import simulate  # noqa: E402


def test_reproducible_per_seed_and_totals_add_up():
    a = simulate(60, seed=5)
    b = simulate(60, seed=5)
    c = simulate(60, seed=6)
    keys = ("games", "wins", "draws", "mean_turns")
    assert [a[k] for k in keys] == [b[k] for k in keys]
    assert [a[k] for k in keys] != [c[k] for k in keys]
    assert a["games"] == 60 and sum(a["wins"]) + a["draws"] == 60
    assert len(a["wins"]) == 2 and a["mean_turns"] > 0
    assert a["seconds"] >= 0 and a["games_per_second"] > 0


def test_thread_count_does_not_change_the_result():
    one = simulate(50, players=4, seed=2, threads=1)
    two = simulate(50, players=4, seed=2, threads=2)
    five = simulate(50, players=4, seed=2, threads=5)
    for k in ("games", "wins", "draws", "mean_turns"):
        assert one[k] == two[k] == five[k]


@pytest.mark.parametrize("players, teams", [(3, None), (6, 3), (9, None), (12, 2), (12, 3)])
def test_every_player_count(players, teams):
    r = simulate(10, players=players, teams=teams, seed=1)
    assert len(r["wins"]) == (teams or (3 if players in (3, 9) else 2))
    assert sum(r["wins"]) + r["draws"] == 10


def test_turn_cap_makes_draws():
    r = simulate(20, seed=1, max_turns=5)
    assert r["draws"] == 20 and r["mean_turns"] == 5


def test_zero_games():
    r = simulate(0)
    assert r["games"] == 0 and r["wins"] == [0, 0] and r["draws"] == 0 and r["mean_turns"] == 0


@pytest.mark.parametrize("kwargs, error", [
    ({"games": -1}, ValueError),
    ({"games": 1.0}, TypeError),
    ({"games": True}, TypeError),
    ({"games": 1, "players": 5}, ValueError),
    ({"games": 1, "players": 4, "teams": 3}, ValueError),
    ({"games": 1, "threads": 0}, ValueError),
    ({"games": 1, "threads": 257}, ValueError),
    ({"games": 1, "threads": "2"}, TypeError),
    ({"games": 1, "seed": -1}, ValueError),
    ({"games": 1, "seed": None}, TypeError),
    ({"games": 1, "max_turns": 0}, ValueError),
])
def test_invalid_arguments(kwargs, error):
    with pytest.raises(error):
        simulate(**kwargs)
