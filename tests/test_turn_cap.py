"""The turn cap (docs/rules.md "Digital conventions"): reaching ``max_turns`` ends the game in a draw."""

import pytest
from helpers import board_rows, line, seq
from sequence_game import IllegalMoveError


def test_turn_cap_ends_in_a_draw(Game):
    g = Game(players=2, seed=1, max_turns=3)
    assert g.max_turns == 3 and g.to_dict()["max_turns"] == 3
    for k in range(3):
        assert not g.is_over
        plays = [m for m in g.legal_moves() if m.kind in ("place", "remove", "pass")]
        g.play(plays[0])
        assert g.turn == k + 1
    assert g.is_over and g.is_draw and g.winner is None
    assert g.legal_moves() == []
    with pytest.raises(IllegalMoveError):
        g.play("pass")


def test_turn_cap_last_mover_still_draws_and_keeps_the_turn(Game, position):
    g = position(hands=[["7H"], ["9C"]], turn=4, max_turns=5)
    g.play("7H@d6")
    assert g.is_draw and g.turn == 5
    assert g.hand(0) == ["2S"]  # the draw happens before the cap is checked
    assert g.current_player == 0  # the game stopped: play does not pass on


def test_turn_cap_reached_by_a_pass(Game, position):
    g = position(hands=[["JH"], ["9C"]], turn=6, max_turns=7)
    g.play("pass")
    assert g.is_draw and g.turn == 7 and g.passes == 1


def test_turn_cap_trades_do_not_count(Game, position):
    g = position(board={"i5": "B", "d6": "B"}, hands=[["7H", "9C"], ["5C"]], turn=0, max_turns=1)
    g.play("trade 7H")
    assert not g.is_over and g.turn == 0
    g.play("9C@a5")
    assert g.is_draw


def test_turn_cap_a_win_on_the_last_turn_is_a_win(Game, position):
    row = line((7, 0), (0, 1))
    g = position(players=3, board=board_rows(B=row[:4]), hands=[["KC"], ["9C"], ["5C"]], turn=2, max_turns=3)
    g.play("KC@e8")
    assert g.winner == 0 and not g.is_draw and g.sequences == [(0, seq(row))]


def test_turn_cap_none_means_no_cap(Game):
    g = Game(players=2, seed=1)
    assert g.max_turns is None and g.to_dict()["max_turns"] is None


def test_turn_cap_survives_copy_and_round_trip(Game):
    g = Game(players=3, seed=9, max_turns=4)
    g.play(g.legal_moves()[0])
    assert g.copy().max_turns == 4
    assert Game.from_dict(g.to_dict()).max_turns == 4
    h = Game.from_dict(g.to_dict())
    while not h.is_over:
        h.play(next(m for m in h.legal_moves() if m.kind != "trade"))
    assert h.turn == 4 and (h.is_draw or h.winner is not None)


@pytest.mark.parametrize("cap, exc", [(0, ValueError), (-3, ValueError), (1.5, TypeError), ("5", TypeError),
                                      (True, TypeError)])
def test_turn_cap_invalid_values_are_refused(Game, cap, exc):
    with pytest.raises(exc) as e:
        Game(players=2, seed=1, max_turns=cap)
    assert "max_turns" in str(e.value)


def test_turn_cap_undo_reopens_the_game(Game):
    g = Game(players=2, seed=1, max_turns=1)
    before = g.to_dict()
    g.play(next(m for m in g.legal_moves() if m.kind != "trade"))
    assert g.is_draw
    g.undo()
    assert g.to_dict() == before and not g.is_over
