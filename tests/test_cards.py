"""R1: the board layout, the cards, ``cells_of`` and card parsing."""

from collections import Counter

import pytest
import sequence_game
from helpers import CORNERS, empty_rows
from sequence_game import BOARD_LAYOUT, cells_of
from sequence_game.cards import CARD_NAMES, parse_card

# docs/rules.md R1, copied verbatim (so a change to the shared table is caught here).
R1_TEXT = """
*  2S 3S 4S 5S 6S 7S 8S 9S *
6C 5C 4C 3C 2C AH KH QH TH TS
7C AS 2D 3D 4D 5D 6D 7D 9H QS
8C KS 6C 5C 4C 3C 2C 8D 8H KS
9C QS 7C 6H 5H 4H AH 9D 7H AS
TC TS 8C 7H 2H 3H KH TD 6H 2D
QC 9S 9C 8H 9H TH QH QD 5H 3D
KC 8S TC QC KC AC AD KD 4H 4D
AC 7S 6S 5S 4S 3S 2S 2H 3H 5D
*  AD KD QD TD 9D 8D 7D 6D *
"""
NON_JACKS = [c for c in CARD_NAMES if c[0] != "J"]


def test_r1_board_layout_matches_rules_text():
    expected = tuple(tuple(row.split()) for row in R1_TEXT.strip().splitlines())
    assert expected == BOARD_LAYOUT
    assert len(BOARD_LAYOUT) == 10 and all(len(row) == 10 for row in BOARD_LAYOUT)


def test_r1_the_layout_is_shared_by_both_implementations():
    import sequence_game.reference as ref

    assert ref.BOARD_LAYOUT is sequence_game.BOARD_LAYOUT
    assert ref.cells_of is sequence_game.cells_of
    assert ref.Move is sequence_game.Move
    assert ref.IllegalMoveError is sequence_game.IllegalMoveError


def test_r1_corners_are_exactly_the_four_corner_cells():
    stars = [(r, c) for r in range(10) for c in range(10) if BOARD_LAYOUT[r][c] == "*"]
    assert sorted(stars) == sorted(CORNERS)


def test_r1_each_non_jack_card_is_on_exactly_two_cells():
    counts = Counter(x for row in BOARD_LAYOUT for x in row if x != "*")
    assert set(counts) == set(NON_JACKS)
    assert len(NON_JACKS) == 48
    assert all(n == 2 for n in counts.values())


def test_r1_no_jack_is_on_the_board():
    assert not any(x.startswith("J") for row in BOARD_LAYOUT for x in row)


@pytest.mark.parametrize("card", NON_JACKS)
def test_r1_cells_of_names_the_two_printed_cells_sorted(card):
    cells = cells_of(card)
    assert len(cells) == 2 and list(cells) == sorted(cells)
    assert all(BOARD_LAYOUT[r][c] == card for r, c in cells)


@pytest.mark.parametrize("jack", ["JS", "JH", "JD", "JC"])
def test_r1_cells_of_a_jack_is_empty(jack):
    assert cells_of(jack) == ()


def test_r1_cells_of_known_examples():
    assert cells_of("7H") == ((4, 8), (5, 3))
    assert cells_of("2S") == ((0, 1), (8, 6))
    assert cells_of("AS") == ((2, 1), (4, 9))


@pytest.mark.parametrize(
    "text, canonical",
    [("10d", "TD"), ("10D", "TD"), ("td", "TD"), ("7h", "7H"), (" qs ", "QS"), ("JC", "JC"), ("as", "AS")],
)
def test_r1_card_parsing_accepts_10_and_lower_case(text, canonical):
    assert parse_card(text) == canonical
    assert cells_of(text) == cells_of(canonical)


@pytest.mark.parametrize("bad", ["", "1D", "11D", "7X", "ZZ", "7", "7HH", "joker"])
def test_r1_card_parsing_refuses_non_cards_with_a_helpful_message(bad):
    with pytest.raises(ValueError) as e:
        parse_card(bad)
    assert "not a card" in str(e.value) and "7H" in str(e.value)


@pytest.mark.parametrize("bad", [None, 7, ("7", "H"), b"7H"])
def test_r1_card_parsing_refuses_non_strings_with_type_error(bad):
    with pytest.raises(TypeError):
        parse_card(bad)


def test_r1_the_deck_is_two_of_each_of_52_cards(Game):
    g = Game(players=2, seed=3)
    d = g.to_dict()
    cards = Counter(c for h in d["hands"] for c in h) + Counter(d["draw_pile"])
    assert sum(cards.values()) == 104
    assert cards == Counter(dict.fromkeys(CARD_NAMES, 2))


def test_r1_empty_board_shows_corners_only(Game, position):
    g = position(hands=[["7H"], ["9C"]])
    for r in range(10):
        for c in range(10):
            assert g.cell((r, c)) == ("*" if (r, c) in CORNERS else ".")
    b = g.board
    assert b.shape == (10, 10) and str(b.dtype) == "int8"
    assert [(r, c) for r in range(10) for c in range(10) if b[r, c] == 3] == list(CORNERS)
    assert int((b == -1).sum()) == 96
    assert g.to_dict()["board"] == empty_rows()


def test_r1_board_codes_for_team_chips(Game, position):
    rows = empty_rows()
    rows[4] = "..BGR....."
    g = position(players=3, board=rows, hands=[[], [], []])
    assert [g.cell((4, c)) for c in (2, 3, 4, 5)] == ["B", "G", "R", "."]
    assert g.cell("c5") == "B"
    assert list(g.board[4, 2:6]) == [0, 1, 2, -1]
    b = g.board
    try:  # a copy or a read-only view: writing to it must not change the game
        b[4, 5] = 0
    except ValueError:
        pass
    assert g.cell((4, 5)) == "."
