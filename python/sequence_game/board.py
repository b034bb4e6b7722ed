"""The board (R1) as tables: the Python mirror of ``cpp/include/sequence/board.hpp``.

One home for the board's geometry in Python: which card each cell shows, the corners, the four
line directions and every five-cell line ("window", R7) with, per cell and direction, the windows
through that cell. Cells are indices ``10 * row + col`` (row 0 at the top) unless a function says
``(row, col)``. Windows are numbered as in the core (by their lowest cell, then by step
1 < 9 < 10 < 11), so window ids and their order agree on both sides; ``tests/test_board.py``
checks these tables against the compiled core's.

>>> LAYOUT[0][:3], card_name_at(cell_index(5, 3))
(('*', '2S', '3S'), '7H')
>>> WINDOWS[0], len(WINDOWS)
((0, 1, 2, 3, 4), 192)
>>> [WINDOWS[w] for w in windows_through(0)]
[(0, 1, 2, 3, 4), (0, 10, 20, 30, 40), (0, 11, 22, 33, 44)]
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

ROWS = COLS = 10
CELLS = ROWS * COLS
CORNER = "*"  # the layout's mark for a corner (a free space for every team, R1)

#: R1, row 0 at the top: the card printed on each cell, ``"*"`` for the four corners.
LAYOUT: Tuple[Tuple[str, ...], ...] = tuple(
    tuple(row.split())
    for row in (
        "*  2S 3S 4S 5S 6S 7S 8S 9S *",
        "6C 5C 4C 3C 2C AH KH QH TH TS",
        "7C AS 2D 3D 4D 5D 6D 7D 9H QS",
        "8C KS 6C 5C 4C 3C 2C 8D 8H KS",
        "9C QS 7C 6H 5H 4H AH 9D 7H AS",
        "TC TS 8C 7H 2H 3H KH TD 6H 2D",
        "QC 9S 9C 8H 9H TH QH QD 5H 3D",
        "KC 8S TC QC KC AC AD KD 4H 4D",
        "AC 7S 6S 5S 4S 3S 2S 2H 3H 5D",
        "*  AD KD QD TD 9D 8D 7D 6D *",
    )
)


def cell_index(row: int, col: int) -> int:
    """The index ``10 * row + col`` of a cell."""
    return COLS * row + col


def cell_of_index(index: int) -> Tuple[int, int]:
    """The ``(row, col)`` of a cell index."""
    return divmod(index, COLS)


def card_name_at(index: int) -> str:
    """The card printed on a cell (its text, e.g. ``"7H"``), ``"*"`` for a corner."""
    return LAYOUT[index // COLS][index % COLS]


#: The four corner cells, ascending.
CORNER_CELLS: Tuple[int, ...] = tuple(i for i in range(CELLS) if card_name_at(i) == CORNER)
#: The 96 cells that take chips (every cell but the corners), ascending.
PLAYABLE_CELLS: Tuple[int, ...] = tuple(i for i in range(CELLS) if card_name_at(i) != CORNER)

#: The two cells (ascending) of every card printed on the board, by card text; jacks are not printed.
CELLS_OF_NAME: Dict[str, Tuple[int, ...]] = {}
for _i in PLAYABLE_CELLS:
    CELLS_OF_NAME[card_name_at(_i)] = CELLS_OF_NAME.get(card_name_at(_i), ()) + (_i,)

#: The four line directions as ``(row step, col step)``, in the order of the move-id declares code
#: (docs/notation.md): east, south, south-east, south-west.
DIRECTIONS: Tuple[Tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))
#: The cell-index step of each direction.
DIRECTION_STEPS: Tuple[int, ...] = tuple(COLS * dr + dc for dr, dc in DIRECTIONS)

WINDOW_LENGTH = 5  # R7: a sequence is five cells in a line
Window = Tuple[int, int, int, int, int]  # a window's five cell indices, ascending


def _build_windows() -> Tuple[Tuple[Window, ...], Tuple[Tuple[Tuple[Optional[int], ...], ...], ...]]:
    # The core's numbering: by start cell, then direction in step order 1 < 9 < 10 < 11.
    step_order = sorted(range(len(DIRECTIONS)), key=lambda d: DIRECTION_STEPS[d])
    windows: List[Window] = []
    at: List[List[List[Optional[int]]]] = [[[None] * WINDOW_LENGTH for _ in DIRECTIONS] for _ in range(CELLS)]
    for start in range(CELLS):
        r, c = cell_of_index(start)
        for d in step_order:
            dr, dc = DIRECTIONS[d]
            if not (0 <= r + 4 * dr < ROWS and 0 <= c + 4 * dc < COLS):
                continue
            cells = tuple(cell_index(r + k * dr, c + k * dc) for k in range(WINDOW_LENGTH))
            for k, cell in enumerate(cells):
                at[cell][d][k] = len(windows)
            c0, c1, c2, c3, c4 = sorted(cells)
            windows.append((c0, c1, c2, c3, c4))
    return tuple(windows), tuple(tuple(tuple(ks) for ks in dirs) for dirs in at)


#: Every five-cell line of the board (192), each as its cells ascending, in the core's window order.
#: ``WINDOW_AT[cell][d][k]``: the window in direction ``d`` that starts ``k`` steps before ``cell``
#: (so it holds ``cell``), or None where it would leave the board.
WINDOWS, WINDOW_AT = _build_windows()
#: The id of each window by its cells (ascending).
WINDOW_IDS: Dict[Tuple[int, ...], int] = {cells: w for w, cells in enumerate(WINDOWS)}
_THROUGH: Tuple[Tuple[int, ...], ...] = tuple(
    tuple(sorted(w for dirs in WINDOW_AT[cell] for w in dirs if w is not None)) for cell in range(CELLS)
)
del _i


def windows_through(index: int) -> Tuple[int, ...]:
    """The ids of every window that holds the cell, ascending (at most 20)."""
    return _THROUGH[index]


def ray(index: int, direction: int, sign: int) -> Tuple[int, ...]:
    """Up to four cells stepping from a cell along ``sign * DIRECTIONS[direction]``, nearest first.

    >>> ray(cell_index(0, 8), 0, +1), ray(0, 2, +1)
    ((9,), (11, 22, 33, 44))
    """
    return _RAYS[index][direction][sign > 0]


def _ray(index: int, direction: int, sign: int) -> Tuple[int, ...]:
    r, c = cell_of_index(index)
    dr, dc = DIRECTIONS[direction]
    out = []
    for step in range(1, WINDOW_LENGTH):
        pr, pc = r + sign * step * dr, c + sign * step * dc
        if not (0 <= pr < ROWS and 0 <= pc < COLS):
            break
        out.append(cell_index(pr, pc))
    return tuple(out)


_RAYS = tuple(tuple((_ray(i, d, -1), _ray(i, d, +1)) for d in range(len(DIRECTIONS))) for i in range(CELLS))
