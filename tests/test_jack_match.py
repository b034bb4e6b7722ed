"""The two-eyed jack match's keeper (sequence_game.training.jack_match): which jack moves it keeps."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sequence_game._core")

from sequence_game import Game
from sequence_game.move import Move
from sequence_game.training.jack_match import JackKeeper, wild_jack_spent_freely


def _game(chips: dict, hand: list) -> Game:
    from sequence_game.cards import parse_cell

    rows = [list("*........*"), *(list("..........") for _ in range(8)), list("*........*")]
    for name, team in chips.items():
        r, c = parse_cell(name)
        rows[r][c] = team
    return Game.from_dict({"format": "sequence-game/1", "players": 2, "teams": 2, "board": ["".join(r) for r in rows],
                           "hands": [hand, ["2S", "3S", "4S", "5S", "6S", "7S", "8S"]], "current_player": 0})


def test_a_wild_jack_on_an_idle_cell_is_spent_freely_but_not_a_block_or_a_sequence():
    """R5, R7: green holds c7-f7; JD on g7 blocks it, JD on a5 neither blocks nor completes."""
    g = _game({"c7": "G", "d7": "G", "e7": "G", "f7": "G", "b7": "B"}, ["JD", "2D", "3D", "4D", "5D", "6D", "7D"])
    assert wild_jack_spent_freely(g, Move("place", "JD", (4, 0)))
    assert not wild_jack_spent_freely(g, Move("place", "JD", (6, 6)))  # g7: green would complete c7-g7
    assert not wild_jack_spent_freely(g, Move("place", "2D", (2, 2)))  # not a jack
    done = _game({"a3": "B", "a4": "B", "a5": "B", "a6": "B"}, ["JC", "2D", "3D", "4D", "5D", "6D", "7D"])
    completing = next(m for m in done.legal_moves() if m.card == "JC" and m.declares)
    assert not wild_jack_spent_freely(done, completing)  # it completes a sequence (R7)


def test_the_keeper_plays_a_legal_move_and_keeps_a_wild_jack_it_could_spend_freely():
    g = _game({"e5": "G", "f5": "B"}, ["JD", "2D", "3D", "4D", "5D", "6D", "7D"])
    move = JackKeeper(iterations=300, seed=1).select_move(g)
    assert move in g.legal_moves() and not wild_jack_spent_freely(g, move)


def test_the_summary_counts_by_deal_and_the_keeper_never_spends_a_wild_jack_freely(tmp_path, capsys):
    from sequence_game.training.jack_match import main, summarize

    path = str(tmp_path / "jacks.jsonl")
    assert main(["--games", "4", "--iterations", "60", "--results", path]) == 0
    s = summarize(path, resamples=200)
    assert s["games"] == 4 and s["deals"] == 2  # each deal from both seats
    assert s["keeper_won_both"] + s["search_won_both"] <= 2 and 0.0 <= s["interval"][0] <= s["score"] <= s["interval"][1] <= 1.0
    assert s["free_spends_a_game"][0] == 0.0  # the keeper spends a two-eyed jack only to complete or block (R5, R7)
    assert s["free_spends_a_game"][1] <= s["two_eyed_a_game"][1]
    loss = s.get("review_loss_of_a_free_spend")
    assert loss is None or (loss["spends"] == round(4 * s["free_spends_a_game"][1]) and loss["mean"] >= 0.0)
    capsys.readouterr()
    assert main(["--summary", "--results", path]) == 0
    assert json.loads(capsys.readouterr().out)["deals"] == 2


def test_the_summary_of_a_file_that_is_not_a_match_is_a_one_line_error(tmp_path, capsys):
    from sequence_game.training.jack_match import main

    with pytest.raises(SystemExit) as e:
        main(["--summary", "--results", str(tmp_path / "missing.jsonl")])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "cannot read results file" in err
