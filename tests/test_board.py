"""R1 and R7 geometry: ``sequence_game.board`` (the Python tables) agrees with the compiled core's
``board.hpp`` and with the independent test model (``helpers``), and every module uses it."""

import pytest
from helpers import CORNERS as MODEL_CORNERS
from helpers import DIRECTIONS as MODEL_DIRECTIONS
from sequence_game import board
from sequence_game.cards import BOARD_LAYOUT, CARD_IDS, CARD_NAMES, CORNERS, card_at, cells_of


@pytest.fixture(scope="module")
def core():
    return pytest.importorskip("sequence_game._core")


def test_r1_layout_matches_the_core(core):
    assert [CARD_IDS.get(board.card_name_at(i), -1) for i in range(board.CELLS)] == core.BOARD  # -1: corner
    for card in range(52):
        assert tuple(board.CELLS_OF_NAME.get(CARD_NAMES[card], ())) == tuple(core.cells_of(card))


def test_r7_windows_match_the_core(core):
    assert list(board.WINDOWS) == [tuple(core.window_cells(w)) for w in range(len(board.WINDOWS))]
    python_table = [[list(ks) for ks in dirs] for dirs in board.WINDOW_AT]
    assert python_table == [[list(ks) for ks in dirs] for dirs in core.WINDOW_AT]
    assert tuple(core.DIRECTION_STEPS) == board.DIRECTION_STEPS


def test_r1_corners_and_cards():
    assert [board.cell_of_index(i) for i in board.CORNER_CELLS] == sorted(MODEL_CORNERS)
    assert len(board.PLAYABLE_CELLS) == 96 and not set(board.PLAYABLE_CELLS) & set(board.CORNER_CELLS)
    # every normal card is printed twice, jacks never (R1)
    assert sorted(board.CELLS_OF_NAME) == sorted(n for n in CARD_NAMES if n[0] != "J")
    assert all(len(cells) == 2 for cells in board.CELLS_OF_NAME.values())
    assert BOARD_LAYOUT is board.LAYOUT and tuple(map(board.cell_of_index, board.CORNER_CELLS)) == CORNERS
    for name, cells in board.CELLS_OF_NAME.items():
        assert cells_of(name) == tuple(map(board.cell_of_index, cells))
        assert all(card_at(board.cell_of_index(i)) == name for i in cells)


def test_r7_windows_are_every_line_of_five():
    expected = set()
    for r in range(10):
        for c in range(10):
            for dr, dc in MODEL_DIRECTIONS:
                cells = [(r + k * dr, c + k * dc) for k in range(5)]
                if all(0 <= x < 10 and 0 <= y < 10 for x, y in cells):
                    expected.add(tuple(sorted(10 * x + y for x, y in cells)))
    assert set(board.WINDOWS) == expected and len(board.WINDOWS) == len(expected) == 192
    assert list(board.WINDOWS) == sorted(board.WINDOWS, key=lambda w: (w[0], w[1] - w[0]))  # the core's order
    assert all(board.WINDOW_IDS[w] == i for i, w in enumerate(board.WINDOWS))


def test_r7_window_at_and_rays():
    for cell in range(board.CELLS):
        through = set()
        for d, (dr, dc) in enumerate(board.DIRECTIONS):
            for k in range(5):
                w = board.WINDOW_AT[cell][d][k]
                r, c = board.cell_of_index(cell)
                cells = [(r + (i - k) * dr, c + (i - k) * dc) for i in range(5)]
                on = all(0 <= x < 10 and 0 <= y < 10 for x, y in cells)
                assert (w is not None) == on
                if on:
                    assert board.WINDOWS[w] == tuple(sorted(10 * x + y for x, y in cells))
                    through.add(w)
            for sign in (-1, 1):
                ray = board.ray(cell, d, sign)
                assert len(ray) <= 4
                assert ray == tuple(cell + sign * board.DIRECTION_STEPS[d] * s for s in range(1, len(ray) + 1))
        assert board.windows_through(cell) == tuple(sorted(through))
