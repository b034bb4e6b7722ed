"""The review's measurement tool (sequence_game.training.measure_review): the search choices it keeps
and how often the search agrees with itself."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sequence_game._core")

from sequence_game import play_game
from sequence_game.agents import GreedyAgent
from sequence_game.training.measure_review import search_choices, search_consistency

SPEC = "rollout:iterations=48,horizon=4,time=none"


def test_search_choices_are_kept_by_spec_and_resumed(tmp_path):
    record = play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], players=2, seed=3)
    path = tmp_path / "choices.jsonl"
    path.write_text(json.dumps({"key": "0:0", "move": 1, "spec": "mcts-v1:iterations=5"}) + "\n")
    first = search_choices([record], str(path), SPEC)
    assert first and all(k.startswith("0:") for k in first)
    lines = path.read_text().splitlines()
    assert len(lines) == 1 + len(first) and all(json.loads(line)["spec"] == SPEC for line in lines[1:])
    again = search_choices([record], str(path), SPEC)
    assert again == first and len(path.read_text().splitlines()) == len(lines)  # nothing searched twice
    assert search_choices([record], str(path), "mcts-v1:iterations=5", more=False) == {"0:0": 1}


def test_search_consistency_is_one_for_the_same_seed_and_counts_the_sampled_decisions(tmp_path):
    record = play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], players=2, seed=4)
    choices = search_choices([record], str(tmp_path / "c.jsonl"), SPEC)
    same = search_consistency([record], choices, SPEC, every=5, offset=0)
    assert same["decisions"] == len(range(0, len(choices), 5)) and same["rate"] == 1.0
    other = search_consistency([record], choices, SPEC, every=5, offset=7)
    assert other["decisions"] == same["decisions"] and 0.0 <= other["rate"] <= 1.0
    assert other["interval"][0] <= other["rate"] <= other["interval"][1]


def test_the_keeper_goes_with_the_information_set_search(tmp_path, capsys):
    from sequence_game.training.measure_review import main

    with pytest.raises(SystemExit):
        main(["agreement", "--file", str(tmp_path / "none.jsonl"), "--keeper"])
    assert "--search mcts-v1" in capsys.readouterr().err


def test_a_match_results_file_is_read_as_its_games_replayed_with_their_seats(tmp_path, capsys):
    from sequence_game.arena import match
    from sequence_game.arena.results import read_results
    from sequence_game.training.measure_review import _records, main

    path = str(tmp_path / "match.jsonl")
    match(["random", "level:1"], games=2, seed=5, results=path)
    _, games = read_results(path)
    records = _records(path)
    assert [r.moves for r in records] == [g["moves"] for g in games]
    assert [r.agents for r in records] == [g["agents"] for g in games]
    assert [r.result["winner"] for r in records] == [g["winner"] for g in games]
    assert main(["calibration", "--file", path, "--rated"]) == 0  # every seat is rated on the ladder
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 2 and out["positions"] == sum(len(g["moves"]) for g in games)


def test_candidate_agreement_counts_the_searchs_choices_among_the_heuristics_best(tmp_path):
    from sequence_game.training.measure_review import candidate_agreement

    record = play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], players=2, seed=6)
    choices = search_choices([record], str(tmp_path / "c.jsonl"), SPEC)
    out = candidate_agreement([record], choices, tops=(None, 1), margins=(0.0, 1.0))
    n = out["decisions"]
    assert 0 < n <= len(choices)
    # a margin of 1 makes every move an equal: the heuristic's favourite is named, whatever the pool
    favourite = out["choice_is_heuristic_favourite"]["agree"]
    assert out["top=all margin=1"]["agree"] == out["top=1 margin=0"]["agree"] == favourite
    assert out["choice_in_heuristic_top8"]["agree"] >= favourite
    for v in out.values():
        if isinstance(v, dict):
            assert v["interval"][0] <= v["rate"] <= v["interval"][1]
