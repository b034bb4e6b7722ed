"""The tuning tool (sequence_game.training.tune): settings and specs, the sequential screen with
early stopping, SPSA, and the command line. Tiny budgets: this checks the machinery, not strength."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sequence_game._core")

from sequence_game.agents import agent_from_spec
from sequence_game.arena import summary
from sequence_game.training.tune import (
    Param,
    candidate_spec,
    main,
    parse_param,
    parse_setting,
    screen,
    spsa,
)


def test_candidate_spec_lays_changes_over_the_base():
    spec = candidate_spec("mcts:iters=500,exploration=0.2", {"exploration": 0.4, "weights.threat": 70})
    assert spec == "mcts:iters=500,exploration=0.4,weights=1/4/15/70/150/80/30/20"
    a = agent_from_spec(spec)
    assert (a.exploration, a.weights.threat, a.weights.scale, a.iterations) == (0.4, 70.0, 80.0, 500)
    # A weight change starts from the base's own weights, not the defaults.
    spec2 = candidate_spec("mcts:weights=2/4/15/50/150/60/30/20", {"weights.window1": 3})
    assert agent_from_spec(spec2).weights.scale == 60.0 and agent_from_spec(spec2).weights.window1 == 3.0
    assert candidate_spec("mcts-v1:iters=100", {}) == "mcts-v1:iters=100"


@pytest.mark.parametrize("base, changes, words", [
    ("mcts:iters=100", {"weights.bogus": 1}, "unknown evaluation weight 'bogus'"),
    ("mcts:iters=100", {"exploration": -1}, "exploration"),
    ("mcts:iters=100", {"playout_block_chance": 999}, "playout_block_chance"),
])
def test_candidate_spec_refuses_bad_settings(base, changes, words):
    with pytest.raises(ValueError, match=words):
        candidate_spec(base, changes)


def test_parse_setting_and_param():
    assert parse_setting("") == {}
    assert parse_setting("a=1, b=0.5,c=true,d=x") == {"a": 1, "b": 0.5, "c": True, "d": "x"}
    with pytest.raises(ValueError, match="key=value"):
        parse_setting("exploration")
    p = parse_param("exploration=0.2:0.05:1")
    assert p == Param("exploration", 0.2, 0.05, 1.0, False)
    assert p.value(2.0) == 1.0 and p.value(-1) == 0.05
    assert parse_param("playout_turns=6:1:30:int").value(7.6) == 8
    for bad in ("exploration", "x=1:2", "x=5:0:1", "x=a:0:1", "x=1:0:2:float", "x=0:1:1"):
        with pytest.raises(ValueError):
            parse_param(bad)


def test_screen_plays_logs_and_stops_a_clearly_worse_candidate(tmp_path):
    log = tmp_path / "log.jsonl"
    # random against greedy loses nearly every game: after the first batch its interval is below 1/2.
    out = screen("random", "greedy", [""], games=12, batch=4, seed=5, workers=1, directory=str(tmp_path),
                 log=str(log))
    assert len(out) == 1 and out[0].games == 4 and out[0].stopped.startswith("stopped")
    assert out[0].wins + out[0].losses + out[0].draws == 4
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert [x["games"] for x in lines] == [4] and lines[0]["kind"] == "screen"
    # The results file is the arena's: its summary agrees with the screen.
    r = summary(out[0].results)
    assert (r.games, r.wins[0]) == (4, out[0].wins)


def test_screen_extends_a_match_on_the_same_deals(tmp_path):
    a = screen("mcts:iters=30", "greedy", ["exploration=0.5"], games=4, batch=2, seed=9, workers=1,
               directory=str(tmp_path / "a"), early_stop=False)
    b = screen("mcts:iters=30", "greedy", ["exploration=0.5"], games=4, batch=4, seed=9, workers=1,
               directory=str(tmp_path / "b"), early_stop=False)
    assert a[0].spec == "mcts:iters=30,exploration=0.5"
    # Batches resume one match: the same games as one batch of all of them.
    assert (a[0].wins, a[0].losses, a[0].draws) == (b[0].wins, b[0].losses, b[0].draws)
    assert summary(a[0].results).outcomes == summary(b[0].results).outcomes


def test_spsa_moves_within_bounds_and_logs_every_round(tmp_path):
    log = tmp_path / "spsa.jsonl"
    params = [parse_param("exploration=0.2:0.05:1"), parse_param("playout_turns=6:1:20:int")]
    out = spsa("mcts:iters=20", params, rounds=2, perturbations=2, pairs=1, seed=3, workers=1, log=str(log))
    assert 0.05 <= out["values"]["exploration"] <= 1 and 1 <= out["values"]["playout_turns"] <= 20
    assert isinstance(out["values"]["playout_turns"], int)
    agent_from_spec(out["spec"])
    rounds = [json.loads(x) for x in log.read_text().splitlines()]
    assert [r["round"] for r in rounds] == [0, 1]
    assert all(len(r["matches"]) == 2 and all(0 <= s <= 1 for s in r["scores"]) for r in rounds)
    again = spsa("mcts:iters=20", params, rounds=2, perturbations=2, pairs=1, seed=3, workers=1)
    assert again == out  # reproducible: iteration budgets and derived seeds


def test_command_line(tmp_path, capsys):
    assert main(["screen", "--base", "mcts:iters=20", "--opponent", "greedy", "--try", "exploration=0.3",
                 "--games", "2", "--batch", "2", "--seed", "1", "--workers", "1", "--dir", str(tmp_path)]) == 0
    assert "exploration=0.3" in capsys.readouterr().out
    assert main(["screen", "--base", "mcts:iters=20", "--opponent", "greedy", "--try", "weights.nope=1",
                 "--dir", str(tmp_path)]) == 2
    assert "unknown evaluation weight" in capsys.readouterr().err
    assert main(["spsa", "--base", "mcts:iters=20", "--param", "exploration=9:0:1"]) == 2
