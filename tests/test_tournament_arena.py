"""The arena's scoring and pairing (sequence_game.tournaments.arena, docs/club.md): 2 a win, double
on a streak of two wins, berserk's clock and extra point, the performance tie-break, pairing the
free by score."""

from __future__ import annotations

import pytest
from sequence_game.tournaments import (
    BERSERK_MIN_TURNS,
    PERFORMANCE_SPREAD,
    ArenaResult,
    Waiting,
    arena_pairs,
    arena_points,
    berserk_clock,
    on_fire,
    performance,
)

W, D, L = ArenaResult(1.0, turns=20), ArenaResult(0.5, turns=20), ArenaResult(0.0, turns=20)


def points(results):
    return [g.points for g in arena_points(results)]


def test_a_win_is_two_a_draw_one_a_loss_nothing():
    assert points([W, L, D, L]) == [2, 0, 1, 0]


def test_two_wins_in_a_row_double_the_next_games_until_one_is_not_won():
    assert points([W, W, W, W, L, W, W, W]) == [2, 2, 4, 4, 0, 2, 2, 4]
    # a draw on fire counts double and puts the fire out
    assert points([W, W, D, W]) == [2, 2, 2, 2]
    assert [g.doubled for g in arena_points([W, W, W, L])] == [False, False, True, True]


def test_on_fire_says_whether_the_next_game_counts_double():
    assert not on_fire([W]) and on_fire([L, W, W]) and not on_fire([W, W, D])


def test_berserk_adds_a_point_to_a_win_that_lasted():
    berserk_win = ArenaResult(1.0, berserk=True, turns=BERSERK_MIN_TURNS)
    assert points([berserk_win]) == [3]
    assert points([W, W, berserk_win]) == [2, 2, 5]  # on fire: 4, plus the berserk point
    # too short a game, a draw, a loss: no bonus
    assert points([ArenaResult(1.0, berserk=True, turns=BERSERK_MIN_TURNS - 1)]) == [2]
    assert points([ArenaResult(0.5, berserk=True, turns=30), ArenaResult(0.0, berserk=True, turns=30)]) == [1, 0]


def test_a_forfeit_scores_its_result_but_starts_no_streak_and_earns_no_bonus():
    forfeit_win = ArenaResult(1.0, berserk=True, turns=0, forfeit=True)
    assert points([forfeit_win, W, W]) == [2, 2, 2]
    assert points([W, W, forfeit_win, W]) == [2, 2, 2, 2]


def test_the_berserk_clock_halves_the_time_and_removes_the_increment():
    # lichess: a 5+3 clock gone berserk is 2:30+0
    assert berserk_clock(300, 3) == (150.0, 0.0)
    assert berserk_clock(600, 0) == (300.0, 0.0)
    with pytest.raises(ValueError, match="positive number"):
        berserk_clock(0, 3)
    with pytest.raises(ValueError, match="0 or more"):
        berserk_clock(300, -1)


def test_the_performance_is_the_mean_of_opponent_rating_plus_or_minus_400():
    # a win over 600: 1000; a draw with 700: 700; a loss to 500: 100; the forfeit is not played
    results = [ArenaResult(1.0, opponent_rating=600), ArenaResult(0.5, opponent_rating=700),
               ArenaResult(0.0, opponent_rating=500), ArenaResult(1.0, forfeit=True, opponent_rating=900)]
    assert performance(results) == pytest.approx((1000 + 700 + 100) / 3)
    assert PERFORMANCE_SPREAD == 400
    # the same points against stronger opponents perform better
    assert performance([ArenaResult(1.0, opponent_rating=650)]) > performance([ArenaResult(1.0, opponent_rating=300)])
    # the same points in fewer games perform better
    assert performance([ArenaResult(1.0, opponent_rating=500)]) > performance(
        [ArenaResult(1.0, opponent_rating=500), ArenaResult(0.0, opponent_rating=500)])
    # nothing played: no performance
    assert performance([]) is None
    assert performance([ArenaResult(1.0, forfeit=True, opponent_rating=500)]) is None


def test_bad_results_are_refused():
    with pytest.raises(ValueError, match=r"1, 0\.5 or 0"):
        ArenaResult(2.0)
    with pytest.raises(ValueError, match="0 or more"):
        ArenaResult(1.0, turns=-1)
    with pytest.raises(ValueError, match="waits once"):
        arena_pairs([Waiting("a", 0, 500), Waiting("a", 0, 500)])


def test_the_free_are_paired_with_the_nearest_score():
    waiting = [Waiting("low", 0, 900), Waiting("top", 10, 400), Waiting("mid", 6, 500), Waiting("next", 8, 450)]
    pairs = arena_pairs(waiting)
    assert {frozenset(p) for p in pairs} == {frozenset(("top", "next")), frozenset(("mid", "low"))}


def test_the_last_opponent_is_skipped_when_someone_else_waits():
    waiting = [Waiting("a", 4, 500, last_opponent="b"), Waiting("b", 4, 500, last_opponent="a"), Waiting("c", 0, 500)]
    pairs = arena_pairs(waiting)
    assert len(pairs) == 1 and set(pairs[0]) == {"a", "c"}
    # the two alone: they meet again rather than wait for nobody
    assert {frozenset(p) for p in arena_pairs(waiting[:2])} == {frozenset(("a", "b"))}


def test_the_one_that_moved_first_less_often_moves_first():
    waiting = [Waiting("a", 4, 500, firsts=3, games=4), Waiting("b", 2, 500, firsts=1, games=4)]
    assert arena_pairs(waiting) == [("b", "a")]
    assert arena_pairs([Waiting("x", 0, 500), Waiting("y", 0, 400)]) == [("x", "y")]


def test_an_odd_one_waits_for_the_next_game_to_end():
    pairs = arena_pairs([Waiting(k, 0, r) for k, r in (("a", 600), ("b", 500), ("c", 400))])
    assert pairs == [("a", "b")]
