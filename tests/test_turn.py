"""R5: a turn. Placing, two-eyed jacks, one-eyed jacks, dead-card trades, passes and the stalemate."""

import pytest
from helpers import CORNERS, board_rows, cell, line
from sequence_game import IllegalMoveError, InvalidMoveError, Move


def _snapshot_unchanged(g, fn, exc=IllegalMoveError, hint=None):
    before = g.to_dict()
    legal = [str(m) for m in g.legal_moves()]
    with pytest.raises(exc) as e:
        fn()
    assert g.to_dict() == before
    assert [str(m) for m in g.legal_moves()] == legal
    if hint is not None:
        assert hint in str(e.value), str(e.value)
    return str(e.value)


# ----------------------------------------------------------------------------- placing a normal card


def test_r5_normal_card_lists_both_empty_cells(Game, position):
    g = position(hands=[["7H"], ["9C"]])
    assert [str(m) for m in g.legal_moves()] == ["7H@i5", "7H@d6"]


def test_r5_normal_card_play_places_chip_discards_and_draws(Game, position):
    g = position(hands=[["7H"], ["9C"]])
    g.play("7H@d6")
    assert g.cell("d6") == "B" and g.cell("i5") == "."
    assert g.discards(0) == ["7H"]
    assert g.hand(0) == ["2S"]  # the default draw pile is ascending: 2S is on top
    assert g.draw_pile_size == 101
    assert (g.current_player, g.turn, g.passes, g.traded_this_turn) == (1, 1, 0, False)
    assert g.to_dict()["last_draw"] == {"player": 0, "card": "2S"}
    assert g.sequences == [] and not g.is_over


def test_r5_play_accepts_move_objects_and_any_spelling(Game, position):
    g = position(hands=[["TH"], ["9C"]])
    g.play(Move("place", "10h", (1, 8)))
    assert g.cell((1, 8)) == "B"
    g2 = position(hands=[["TH"], ["9C"]])
    g2.play("10h@I2")
    assert g2.to_dict() == g.to_dict()


def test_r5_normal_card_with_one_cell_covered_goes_on_the_other(Game, position):
    g = position(board={"d6": "G"}, hands=[["7H"], ["9C"]])
    assert [str(m) for m in g.legal_moves()] == ["7H@i5"]
    _snapshot_unchanged(g, lambda: g.play("7H@d6"), hint="already covered")


def test_r5_two_copies_of_a_card_give_one_move_per_cell(Game, position):
    g = position(hands=[["7H", "7H"], ["9C"]])
    assert [str(m) for m in g.legal_moves()] == ["7H@i5", "7H@d6"]
    g.play("7H@i5")
    assert g.hand(0) == ["2S", "7H"]


def test_r5_card_goes_only_on_its_printed_cells(Game, position):
    g = position(hands=[["7H"], ["9C"]])
    msg = _snapshot_unchanged(g, lambda: g.play("7H@a2"), hint="printed on")
    assert "i5" in msg and "d6" in msg


def test_r5_cannot_play_a_card_not_in_hand(Game, position):
    g = position(hands=[["7H"], ["9C"]])
    _snapshot_unchanged(g, lambda: g.play("9C@a5"), hint="does not hold")
    _snapshot_unchanged(g, lambda: g.play("JD@e5"), hint="does not hold")


# ----------------------------------------------------------------------------- two-eyed jacks


@pytest.mark.parametrize("jack", ["JD", "JC"])
def test_r5_two_eyed_jack_places_on_any_empty_cell(Game, position, jack):
    chips = {"a2": "B", "e5": "G", "j9": "G"}
    g = position(board=chips, hands=[[jack], ["9C"]])
    cells = sorted(m.cell for m in g.legal_moves())
    expected = sorted((r, c) for r in range(10) for c in range(10)
                      if (r, c) not in CORNERS and (r, c) not in {cell(x) for x in chips})
    assert len(cells) == 93 and cells == expected
    assert all(m.kind == "place" and m.card == jack for m in g.legal_moves())
    g.play(f"{jack}@f6")
    assert g.cell("f6") == "B" and g.discards(0) == [jack]


def test_r5_two_eyed_jack_refused_on_covered_cell_and_corner(Game, position):
    g = position(board={"e5": "G"}, hands=[["JD"], ["9C"]])
    _snapshot_unchanged(g, lambda: g.play("JD@e5"), hint="already covered")
    _snapshot_unchanged(g, lambda: g.play("JD@a1"), hint="corner")


def test_r5_two_eyed_jack_on_a_full_board_has_no_play(Game, position):
    rows = ["".join("*" if (r, c) in CORNERS else "BG"[(r + c) % 2] for c in range(10)) for r in range(10)]
    g = position(board=rows, hands=[["JD"], ["9C"]])
    assert g.legal_moves() == [Move("pass")]


# ----------------------------------------------------------------------------- one-eyed jacks


def _removal_position(position, hand=("JS",)):
    g_locked = line((7, 0), (0, 1))  # a8..e8: a completed sequence of team 1
    board = board_rows(B=["c3", "d3"], G=["d4", "e4"] + g_locked)
    return position(board=board, hands=[list(hand), ["5C"]],
                    sequences=[{"team": 1, "cells": [list(x) for x in g_locked]}])


@pytest.mark.parametrize("jack", ["JS", "JH"])
def test_r5_one_eyed_jack_removes_only_unlocked_chips_of_other_teams(Game, position, jack):
    g = _removal_position(position, hand=[jack])
    assert [str(m) for m in g.legal_moves()] == [f"{jack}xd4", f"{jack}xe4"]


def test_r5_one_eyed_jack_removal_places_no_chip_and_frees_the_cell(Game, position):
    g = _removal_position(position)
    g.play("JSxd4")
    assert g.cell("d4") == "." and g.discards(0) == ["JS"]
    d = g.to_dict()
    assert sum(row.count("B") for row in d["board"]) == 2  # nothing placed
    assert sum(row.count("G") for row in d["board"]) == 6
    assert g.hand(0) == ["2S"] and g.current_player == 1 and g.turn == 1
    # the freed cell is open to everyone: 5C is printed on d4 (and b2)
    assert "5C@d4" in [str(m) for m in g.legal_moves()]


@pytest.mark.parametrize(
    "move, hint",
    [("JSxa1", "corner"), ("JSxj10", "corner"), ("JSxc3", "own team"), ("JSxa8", "completed sequence"),
     ("JSxc8", "completed sequence"), ("JSxe5", "empty")],
)
def test_r5_one_eyed_jack_refusals(Game, position, move, hint):
    g = _removal_position(position)
    _snapshot_unchanged(g, lambda: g.play(move), hint=hint)


def test_r5_one_eyed_jack_with_nothing_removable_means_pass(Game, position):
    g = position(board={"c3": "B", "d3": "B"}, hands=[["JH"], ["5C"]])
    assert g.legal_moves() == [Move("pass")]


def test_r5_teammates_chips_are_own_team(Game, position):
    # 4 players, 2 teams: player 2 (team 0) cannot remove team 0's chips, only team 1's
    g = position(players=4, board={"c3": "B", "d3": "G"}, hands=[["9C"], ["9C"], ["JS"], ["5C"]],
                 current_player=2)
    assert [str(m) for m in g.legal_moves()] == ["JSxd3"]


# ----------------------------------------------------------------------------- dead cards


def test_r5_dead_card_can_be_traded_once_then_play(Game, position):
    # 7H (i5, d6) and 8H (i4, d7) both dead: covered by chips of either team
    g = position(board={"i5": "B", "d6": "G", "i4": "G", "d7": "G"}, hands=[["7H", "8H", "9C"], ["5C"]])
    assert [str(m) for m in g.legal_moves()] == ["trade 7H", "trade 8H", "9C@a5", "9C@c7"]
    size = g.draw_pile_size
    g.play("trade 7H")
    assert g.discards(0) == ["7H"]
    assert g.hand(0) == ["2S", "8H", "9C"]  # drew the top card
    assert g.draw_pile_size == size - 1
    assert (g.current_player, g.turn, g.traded_this_turn) == (0, 0, True)  # same player, same turn
    assert g.to_dict()["last_draw"] is None
    assert all(m.kind != "trade" for m in g.legal_moves())  # at most once a turn
    _snapshot_unchanged(g, lambda: g.play("trade 8H"), hint="already traded")
    g.play("2S@b1")
    assert (g.current_player, g.turn, g.traded_this_turn) == (1, 1, False)
    g.play("5C@b2")
    assert g.current_player == 0 and "trade 8H" in [str(m) for m in g.legal_moves()]  # a new turn


def test_r5_dead_card_cannot_be_played(Game, position):
    g = position(board={"i5": "B", "d6": "G"}, hands=[["7H", "9C"], ["5C"]])
    _snapshot_unchanged(g, lambda: g.play("7H@d6"), hint="both cells of 7H are covered; trade it as a dead card")


def test_r5_live_card_cannot_be_traded(Game, position):
    g = position(board={"i5": "B"}, hands=[["7H", "9C"], ["5C"]])
    msg = _snapshot_unchanged(g, lambda: g.play("trade 7H"), hint="not a dead card")
    assert "d6" in msg


def test_r5_two_copies_of_a_dead_card_give_one_trade(Game, position):
    g = position(board={"i5": "B", "d6": "G"}, hands=[["7H", "7H", "9C"], ["5C"]])
    assert [str(m) for m in g.legal_moves()].count("trade 7H") == 1


def test_r5_jacks_are_never_dead(Game, position):
    g = position(board={"i5": "B", "d6": "B"}, hands=[["JH", "JS"], ["5C"]])
    assert g.legal_moves() == [Move("pass")]
    with pytest.raises(InvalidMoveError):
        g.play("trade JH")


def test_r5_dead_card_holder_with_no_play_may_trade_or_pass(Game, position):
    g = position(board={"i5": "B", "d6": "B"}, hands=[["7H"], ["5C"]])
    assert [str(m) for m in g.legal_moves()] == ["trade 7H", "pass"]


# ----------------------------------------------------------------------------- passes and the stalemate


def test_r5_pass_only_without_a_legal_play(Game, position):
    g = position(hands=[["7H"], ["9C"]])
    assert Move("pass") not in g.legal_moves()
    _snapshot_unchanged(g, lambda: g.play("pass"), hint="legal play")


def test_r5_pass_discards_and_draws_nothing(Game, position):
    g = position(hands=[["JH"], ["9C"]])
    before = g.to_dict()
    g.play("pass")
    after = g.to_dict()
    assert after["hands"] == before["hands"] and after["discards"] == before["discards"]
    assert after["draw_pile"] == before["draw_pile"] and after["board"] == before["board"]
    assert (g.current_player, g.turn, g.passes) == (1, 1, 1)


def test_r5_stalemate_after_a_full_round_of_counting_passes(Game, position):
    g = position(hands=[["JH"], ["JS"]])
    g.play("pass")
    assert not g.is_over and g.passes == 1 and g.current_player == 1
    assert g.legal_moves() == [Move("pass")]
    g.play("pass")
    assert g.is_over and g.is_draw and g.winner is None
    assert g.passes == 2 and g.turn == 2
    assert g.legal_moves() == []


def test_r5_stalemate_needs_every_player_three_players(Game, position):
    g = position(players=3, hands=[["JH"], ["JS"], ["JH"]])
    g.play("pass")
    g.play("pass")
    assert not g.is_over and g.passes == 2 and g.current_player == 2
    g.play("pass")
    assert g.is_draw and g.is_over


def test_r5_a_play_resets_the_pass_count(Game, position):
    g = position(players=3, hands=[["JH"], ["JS"], ["9C"]])
    g.play("pass")
    g.play("pass")
    assert g.passes == 2
    g.play("9C@a5")
    assert g.passes == 0 and not g.is_over


def test_r5_pass_while_holding_a_dead_card_does_not_count(Game, position):
    # 7H is dead (covered by team 0, which player 0's JH cannot remove); player 1 holds it
    g = position(board={"i5": "B", "d6": "B"}, hands=[["JH"], ["7H"]])
    g.play("pass")
    assert g.passes == 1
    assert [str(m) for m in g.legal_moves()] == ["trade 7H", "pass"]
    g.play("pass")  # player 1 could still trade: this pass does not count toward a stalemate
    assert g.passes == 0 and not g.is_over
    g.play("pass")
    assert g.passes == 1 and not g.is_over and g.current_player == 1


def test_r5_pass_after_a_trade_does_not_count(Game, position):
    g = position(board={"i5": "B", "d6": "B"}, hands=[["7H"], ["JS"]], draw_top=["JH"], passes=1,
                 current_player=0)
    g.play("trade 7H")
    assert g.hand(0) == ["JH"] and g.traded_this_turn
    assert g.legal_moves() == [Move("pass")]  # JH cannot remove team 0's own chips
    g.play("pass")
    assert g.passes == 0 and not g.is_over and g.turn == 1 and g.current_player == 1
    assert not g.traded_this_turn


def test_r5_seats_play_in_order(Game, position):
    g = position(players=3, hands=[["9C"], ["9C"], ["5C"]], current_player=1)
    assert g.dealer == 0
    seen = []
    for m in ("9C@a5", "5C@b2", "9C@c7"):
        seen.append(g.current_player)
        g.play(m)
    assert seen == [1, 2, 0] and g.current_player == 1


def test_r5_legal_move_order_is_documented(Game, position):
    g = position(board={"i5": "G", "d6": "G", "c3": "G"}, hands=[["JS", "9C", "7H", "2S", "JD"], ["5C"]])
    moves = g.legal_moves()
    assert moves == sorted(moves, key=Move.sort_key)
    kinds = [m.kind for m in moves]
    assert kinds[0] == "trade" and kinds[-1] == "remove"
    assert [str(m) for m in moves if m.kind != "place"] == ["trade 7H", "JSxc3", "JSxi5", "JSxd6"]
