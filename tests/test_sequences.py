"""R7: sequences. Five in a row in every direction, corners, 6..9 in a row, sharing, several at once."""

import pytest
from helpers import board_rows, line, moves_at, seq
from sequence_game import AmbiguousMoveError, IllegalMoveError, Move


def _seqdict(team, cells):
    return {"team": team, "cells": [list(c) for c in seq(cells)]}


def _row5(*cols):
    return [(5, c) for c in cols]


def _decls(moves):
    return sorted(m.declares for m in moves)


# ----------------------------------------------------------------------------- five in a row


@pytest.mark.parametrize(
    "start, direction, k",
    [((5, 0), (0, 1), 4), ((5, 0), (0, 1), 2), ((2, 3), (1, 0), 2), ((2, 3), (1, 0), 4), ((2, 1), (1, 1), 0),
     ((3, 3), (1, 1), 3), ((1, 7), (1, -1), 3), ((4, 6), (1, -1), 0)],
    ids=["east-end", "east-middle", "south-middle", "south-end", "southeast-start", "southeast", "southwest",
         "southwest-start"],
)
@pytest.mark.parametrize("player", [0, 1])
def test_r7_five_in_a_row_in_every_direction(Game, position, start, direction, k, player):
    cells = line(start, direction)
    target = cells[k]
    letter = "BG"[player]
    g = position(board=board_rows(**{letter: [c for c in cells if c != target]}), hands=[["JD"], ["JC"]],
                 current_player=player)
    jack = ["JD", "JC"][player]
    assert moves_at(g, target) == [Move("place", jack, target, declares=[cells])]
    g.play(Move("place", jack, target))  # declares left empty: filled in (one choice)
    assert g.sequences == [(player, seq(cells))]
    assert g.to_dict()["sequences"] == [_seqdict(player, cells)]
    assert all(g.locked(c) for c in cells)
    assert not g.locked((0, 5)) and not g.is_over  # 2 teams need two sequences (R8)


def test_r7_four_in_a_row_is_not_a_sequence(Game, position):
    g = position(board=board_rows(B=_row5(0, 1, 2)), hands=[["2H"], ["9C"]])
    assert [str(m) for m in g.legal_moves()] == ["2H@e6", "2H@h9"]  # 2H is on e6 (5,4) and h9 (8,7)
    g.play("2H@e6")
    assert g.sequences == []


def test_r7_placement_with_a_card_declares_in_notation(Game, position):
    g = position(board=board_rows(B=_row5(0, 1, 2, 3)), hands=[["2H"], ["9C"]])
    assert [str(m) for m in g.legal_moves()] == ["2H@e6 =a6-e6", "2H@h9"]
    assert Move.parse("2H@e6") not in g.legal_moves()  # a sequence-forming placement must declare it
    assert g.is_legal("2H@e6") and g.parse_move("2H@e6") == Move.parse("2H@e6 =a6-e6")
    g.play("2H@e6")
    assert g.sequences == [(0, seq(_row5(0, 1, 2, 3, 4)))]


def test_r7_wrong_declares_are_refused(Game, position):
    g = position(board=board_rows(B=_row5(0, 1, 2, 3) + [(6, 4), (7, 4)]), hands=[["2H"], ["9C"]])
    before = g.to_dict()
    with pytest.raises(IllegalMoveError) as e:
        g.play("2H@e6 =e6-e10")  # a line through e6, but not the team's five
    assert "2H@e6 =a6-e6" in str(e.value)
    assert g.to_dict() == before


def test_r7_opponent_chip_blocks_the_line(Game, position):
    g = position(board=board_rows(B=_row5(0, 1, 3), G=_row5(2)), hands=[["2H"], ["9C"]])
    g.play("2H@e6")
    assert g.sequences == []


# ----------------------------------------------------------------------------- corners


@pytest.mark.parametrize(
    "chips, card, target, window",
    [
        ([(0, 1), (0, 2), (0, 3)], "5S", (0, 4), line((0, 0), (0, 1))),  # a1-e1 with the corner
        ([(1, 9), (2, 9), (3, 9)], "AS", (4, 9), line((0, 9), (1, 0))),  # j1-j5
        ([(6, 6), (7, 7), (8, 8)], "3H", (5, 5), line((5, 5), (1, 1))),  # f6-j10 diagonal
        ([(9, 1), (9, 2), (9, 3)], "TD", (9, 4), line((9, 0), (0, 1))),  # a10-e10
        ([(8, 1), (7, 2), (6, 3)], "2H", (5, 4), line((9, 0), (-1, 1))),  # a10-e6 anti-diagonal
    ],
)
@pytest.mark.parametrize("player", [0, 1])
def test_r7_corner_counts_for_every_team(Game, position, chips, card, target, window, player):
    letter = "BG"[player]
    hands = [[card], ["9C"]] if player == 0 else [["9C"], [card]]
    g = position(board=board_rows(**{letter: chips}), hands=hands, current_player=player)
    (m,) = moves_at(g, target)
    assert m.declares == (seq(window),)
    g.play(m)
    assert g.sequences == [(player, seq(window))]


def test_r7_two_teams_share_a_corner(Game, position):
    top = line((0, 0), (0, 1))
    g = position(board=board_rows(B=top, G=[(1, 0), (2, 0), (3, 0)]), hands=[["2S"], ["9C"]],
                 sequences=[_seqdict(0, top)], current_player=1)
    g.play("9C@a5")  # 9C is on a5 (4, 0) and c7
    col = line((0, 0), (1, 0))
    assert g.sequences == [(0, seq(top)), (1, seq(col))]
    assert not g.is_over


def test_r7_same_team_reuses_a_corner_as_its_one_shared_cell(Game, position):
    top = line((0, 0), (0, 1))
    g = position(board=board_rows(B=top + [(1, 0), (2, 0), (3, 0)]), hands=[["9C"], ["2S"]],
                 sequences=[_seqdict(0, top)])
    g.play("9C@a5")
    assert g.sequences[-1] == (0, seq(line((0, 0), (1, 0))))
    assert g.winner == 0  # two sequences (R8)


def test_r7_corner_counts_for_the_third_team(Game, position):
    g = position(players=3, board=board_rows(R=[(9, 1), (9, 2), (9, 3)]), hands=[["9C"], ["9C"], ["TD"]],
                 current_player=2)
    g.play("TD@e10")
    assert g.sequences == [(2, seq(line((9, 0), (0, 1))))]
    assert g.winner == 2


# ----------------------------------------------------------------------------- 6, 7, 8, 9, 10 in a row


@pytest.mark.parametrize(
    "cols, target, starts",
    [
        ((0, 1, 2, 3, 5), 4, [0, 1]),  # 6 in a row
        ((0, 1, 2, 4, 5, 6), 3, [0, 1, 2]),  # 7 in a row
        ((0, 1, 2, 3, 5, 6, 7), 4, [0, 1, 2, 3]),  # 8 in a row
        ((0, 1, 2, 3, 4, 5, 6), 7, [3]),  # 8 in a row, placed at its end
        ((1, 2, 3, 4, 5, 6, 7, 8), 0, [0]),  # 9 in a row, placed at its end
        ((0, 1, 2, 4, 5, 6, 7, 8), 3, [0, 1, 2, 3]),  # 9 in a row, placed off the middle: one sequence
    ],
)
def test_r7_six_to_eight_in_a_row_is_one_sequence_and_a_choice_of_five(Game, position, cols, target, starts):
    g = position(board=board_rows(B=_row5(*cols)), hands=[["JD"], ["JS"]])
    t = (5, target)
    got = moves_at(g, t)
    assert _decls(got) == sorted((seq(_row5(*range(s, s + 5))),) for s in starts)
    assert len(set(got)) == len(got) == len(starts)  # distinct legal moves


def test_r7_ambiguous_hand_built_move_is_refused_listing_choices(Game, position):
    g = position(board=board_rows(B=_row5(0, 1, 2, 3, 5)), hands=[["JD"], ["JS"]])
    before = g.to_dict()
    with pytest.raises(AmbiguousMoveError) as e:
        g.play(Move("place", "JD", (5, 4)))
    assert isinstance(e.value, IllegalMoveError)
    assert "JD@e6 =a6-e6" in str(e.value) and "JD@e6 =b6-f6" in str(e.value)
    assert g.to_dict() == before
    assert not g.is_legal("JD@e6")
    with pytest.raises(AmbiguousMoveError):
        g.play("JD@e6")


def test_r7_unchosen_chip_of_a_long_row_stays_unlocked_and_removable(Game, position):
    g = position(board=board_rows(B=_row5(0, 1, 2, 3, 5)), hands=[["JD"], ["JS"]])
    g.play("JD@e6 =b6-f6")
    assert g.sequences == [(0, seq(_row5(1, 2, 3, 4, 5)))]
    assert not g.locked((5, 0)) and all(g.locked((5, c)) for c in range(1, 6))
    assert [str(m) for m in g.legal_moves() if m.kind == "remove"] == ["JSxa6"]  # player 1's turn
    g.play("JSxa6")
    assert g.cell("a6") == "." and g.sequences == [(0, seq(_row5(1, 2, 3, 4, 5)))]


def test_r7_the_other_choice_of_five(Game, position):
    g = position(board=board_rows(B=_row5(0, 1, 2, 3, 5)), hands=[["JD"], ["JS"]])
    g.play("JD@e6 =a6-e6")
    assert g.sequences == [(0, seq(_row5(0, 1, 2, 3, 4)))]
    assert not g.locked((5, 5))
    assert [str(m) for m in g.legal_moves() if m.kind == "remove"] == ["JSxf6"]


def test_r7_nine_in_a_row_is_two_sequences(Game, position):
    g = position(board=board_rows(B=_row5(0, 1, 2, 3, 5, 6, 7, 8)), hands=[["2H"], ["9C"]])
    assert [str(m) for m in g.legal_moves()] == ["2H@e6 =a6-e6 =e6-i6", "2H@h9"]
    g.play("2H@e6")
    assert sorted(g.sequences) == [(0, seq(_row5(0, 1, 2, 3, 4))), (0, seq(_row5(4, 5, 6, 7, 8)))]
    assert g.winner == 0  # both count (R8)


def test_r7_nine_in_a_row_vertical_through_the_middle(Game, position):
    col = [(r, 4) for r in range(9)]
    g = position(board=board_rows(G=[c for c in col if c != (4, 4)]), hands=[["9C"], ["JC"]], current_player=1)
    (m,) = moves_at(g, (4, 4))
    assert m.declares == tuple(sorted([seq(col[:5]), seq(col[4:])]))
    g.play(m)
    assert g.winner == 1 and len(g.sequences) == 2


def test_r7_ten_in_a_row_still_two_sequences_sharing_the_placed_chip(Game, position):
    g = position(board=board_rows(B=_row5(0, 1, 2, 3, 4, 6, 7, 8, 9)), hands=[["JD"], ["JS"]])
    (m,) = moves_at(g, (5, 5))
    assert m.declares == (seq(_row5(1, 2, 3, 4, 5)), seq(_row5(5, 6, 7, 8, 9)))


# ----------------------------------------------------------------------------- sharing with existing sequences


def test_r7_new_sequence_may_share_one_cell_with_an_existing_one(Game, position):
    old = _row5(0, 1, 2, 3, 4)
    g = position(board=board_rows(B=old + _row5(5, 6, 7)), hands=[["JD"], ["JS"]], sequences=[_seqdict(0, old)])
    (m,) = moves_at(g, (5, 8))
    assert m.declares == (seq(_row5(4, 5, 6, 7, 8)),)
    g.play(m)
    assert g.sequences == [(0, seq(old)), (0, seq(_row5(4, 5, 6, 7, 8)))]
    assert g.winner == 0


def test_r7_new_sequence_may_not_share_two_cells_with_an_existing_one(Game, position):
    old = _row5(0, 1, 2, 3, 4)
    g = position(board=board_rows(B=old + _row5(5, 6)), hands=[["JD"], ["JS"]], sequences=[_seqdict(0, old)])
    (m,) = moves_at(g, (5, 7))
    assert m.declares == ()  # d6-h6 would share d6 and e6
    with pytest.raises(IllegalMoveError):
        g.play("JD@h6 =d6-h6")
    g.play(m)
    assert g.sequences == [(0, seq(old))] and not g.is_over
    assert not g.locked((5, 7)) and not g.locked((5, 5))


def test_r7_existing_sequence_limits_the_choice_of_five(Game, position):
    old = _row5(0, 1, 2, 3, 4)
    g = position(board=board_rows(B=old + _row5(5, 6, 7, 9)), hands=[["JD"], ["JS"]], sequences=[_seqdict(0, old)])
    assert _decls(moves_at(g, (5, 8))) == [(seq(_row5(4, 5, 6, 7, 8)),), (seq(_row5(5, 6, 7, 8, 9)),)]


def test_r7_crossing_an_existing_sequence_at_one_cell(Game, position):
    old = _row5(0, 1, 2, 3, 4)
    g = position(board=board_rows(B=old + [(1, 4), (2, 4), (3, 4)]), hands=[["JD"], ["JS"]],
                 sequences=[_seqdict(0, old)])
    (m,) = moves_at(g, (4, 4))
    assert m.declares == (seq(line((1, 4), (1, 0))),)


def test_r7_other_teams_sequences_do_not_limit(Game, position):
    old = line((0, 0), (0, 1))  # team 1's a1-e1 uses the corner
    g = position(board=board_rows(G=old, B=[(1, 0), (2, 0), (3, 0)]), hands=[["9C"], ["2S"]],
                 sequences=[_seqdict(1, old)])
    g.play("9C@a5")
    assert g.sequences[-1] == (0, seq(line((0, 0), (1, 0))))


# ----------------------------------------------------------------------------- several at once


def test_r7_one_placement_forms_sequences_in_two_directions(Game, position):
    horiz, vert = _row5(0, 1, 2, 3, 4), line((1, 4), (1, 0))
    g = position(board=board_rows(B=[c for c in horiz + vert if c != (5, 4)]), hands=[["2H"], ["9C"]])
    (m,) = moves_at(g, (5, 4))
    assert m.declares == tuple(sorted([seq(horiz), seq(vert)]))
    assert str(m) == "2H@e6 =e2-e6 =a6-e6"
    g.play("2H@e6")
    assert sorted(g.sequences) == sorted([(0, seq(horiz)), (0, seq(vert))])
    assert g.winner == 0


def test_r7_must_declare_every_sequence_the_placement_forms(Game, position):
    horiz, vert = _row5(0, 1, 2, 3, 4), line((1, 4), (1, 0))
    g = position(board=board_rows(B=[c for c in horiz + vert if c != (5, 4)]), hands=[["2H"], ["9C"]])
    before = g.to_dict()
    with pytest.raises(IllegalMoveError) as e:
        g.play("2H@e6 =a6-e6")
    assert "2H@e6 =e2-e6 =a6-e6" in str(e.value)
    assert g.to_dict() == before


def test_r7_three_directions_with_a_choice(Game, position):
    horiz = _row5(0, 1, 2, 3, 4, 5)  # 6 long: two choices
    vert = line((1, 4), (1, 0))
    diag = line((1, 0), (1, 1))  # a2, b3, c4, d5, e6
    chips = [c for c in horiz + vert + diag if c != (5, 4)]
    g = position(players=3, board=board_rows(B=chips), hands=[["JD"], ["9C"], ["9C"]])
    got = moves_at(g, (5, 4))
    assert _decls(got) == sorted(
        tuple(sorted([seq(h), seq(vert), seq(diag)])) for h in (_row5(0, 1, 2, 3, 4), _row5(1, 2, 3, 4, 5))
    )
    g.play(got[0])
    assert len(g.sequences) == 3 and g.winner == 0


# ----------------------------------------------------------------------------- removals and locks


def test_r7_removals_never_form_sequences(Game, position):
    five = line((7, 0), (0, 1))  # an undeclared five of team 0 on the board
    g = position(board=board_rows(B=five + _row5(0, 1, 3, 4), G=_row5(2)), hands=[["JS", "QC"], ["9C"]])
    g.play("JSxc6")
    assert g.sequences == [] and g.cell("c6") == "."
    g.play("9C@a5")
    g.play("QC@a7")  # a placement elsewhere does not claim the old line either
    assert g.sequences == []


def test_r7_only_placements_through_the_new_chip_form_sequences(Game, position):
    g = position(board=board_rows(B=_row5(0, 1, 3, 4), G=_row5(2)), hands=[["JS", "8C"], ["9C"]])
    g.play("JSxc6")
    g.play("9C@a5")
    g.play("8C@c6")  # 8C is printed on c6 (5, 2) and c4
    assert g.sequences == [(0, seq(_row5(0, 1, 2, 3, 4)))]


def test_r7_chips_of_a_sequence_formed_in_play_are_locked(Game, position):
    g = position(board=board_rows(B=_row5(0, 1, 2, 3), G=[(0, 5)]), hands=[["2H"], ["JH"]])
    g.play("2H@e6")
    assert [str(m) for m in g.legal_moves()] == ["pass"]  # nothing of team 0 is removable now
    with pytest.raises(IllegalMoveError) as e:
        g.play("JHxa6")
    assert "completed sequence" in str(e.value)


def test_r7_locked_cells_report(Game, position):
    old = _row5(0, 1, 2, 3, 4)
    g = position(board=board_rows(B=old + [(6, 6)]), hands=[["9C"], ["JS"]], sequences=[_seqdict(0, old)])
    assert [g.locked(c) for c in old] == [True] * 5
    assert not g.locked((6, 6)) and not g.locked((2, 2))
