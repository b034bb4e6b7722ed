"""The post-game review (sequence_game.review): the AI's view of every move, at a fixed budget."""

from __future__ import annotations

import pytest
from sequence_game import GameRecord
from sequence_game.agents import GreedyAgent
from sequence_game.records import play_game
from sequence_game.review import MISTAKE, review_game

pytest.importorskip("sequence_game._core")


def _greedy_record(seed: int) -> GameRecord:
    return play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], players=2, seed=seed)


def test_the_same_record_budget_and_seed_give_the_same_review():
    rec = _greedy_record(3)
    a, b = review_game(rec, iterations=300, seed=7), review_game(rec, iterations=300, seed=7)
    assert a == b and a.to_dict() == b.to_dict()
    assert [m.move for m in a.moves] == rec.moves
    assert [m.index for m in a.moves] == list(range(1, len(rec.moves) + 1))


def test_every_chance_is_a_probability_and_the_last_move_is_scored_by_the_result():
    rec = _greedy_record(4)
    review = review_game(rec, iterations=300, seed=1)
    for m in review.moves:
        assert 0.0 <= m.before <= 1.0
        assert m.after is None or 0.0 <= m.after <= 1.0
    last = review.moves[-1]
    assert rec.result is not None and rec.result["winner"] is not None
    assert last.after == (1.0 if last.team == rec.result["winner"] else 0.0)


def test_a_missed_win_is_marked_with_the_winning_move_preferred():
    """R8: a move that completes the last sequence wins at once; playing anything else there loses
    that certain win, and the review marks it."""
    for seed in range(3, 40):
        rec = _greedy_record(seed)
        if rec.result is None or rec.result["winner"] is None:
            continue
        game = GameRecord(players=2, teams=2, seed=seed, moves=rec.moves[:-1]).replay()
        winning = rec.moves[-1]
        others = [str(m) for m in game.legal_moves() if not str(m).startswith(winning.split()[0])]
        if not others:
            continue
        # the same game, with the winning placement replaced by another move (the game goes on)
        missed = GameRecord(players=2, teams=2, seed=seed, moves=[*rec.moves[:-1], others[0]])
        review = review_game(missed, iterations=1000, seed=2)
        move = review.moves[-1]
        assert move.before > 0.95, move  # the search finds the win
        assert move.best.split()[0] == winning.split()[0]
        assert move.loss is not None and move.loss >= MISTAKE and move.mistake
        return
    pytest.fail("no greedy game in seeds 3..39 with an alternative to its winning move")


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "100", 10**7])
def test_a_bad_budget_is_refused_by_name(bad):
    with pytest.raises((ValueError, TypeError), match="iterations"):
        review_game(_greedy_record(3), iterations=bad)


def test_the_review_command_prints_every_move_and_refuses_a_bad_budget(tmp_path):
    import json
    import subprocess
    import sys

    path = tmp_path / "game.json"
    _greedy_record(3).save(path)
    run = [sys.executable, "-m", "sequence_game", "review", str(path), "--iterations", "200"]
    proc = subprocess.run([*run, "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["iterations"] == 200 and [m["move"] for m in data["moves"]] == _greedy_record(3).moves
    assert data == review_game(_greedy_record(3), iterations=200, seed=0).to_dict()
    bad = subprocess.run([*run[:-1], "0"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "iterations must be from 1 to 1000000, not 0" in bad.stderr
