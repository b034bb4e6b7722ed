"""The two-eyed jack match's keeper (sequence_game.training.jack_match): which jack moves it keeps."""

from __future__ import annotations

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
