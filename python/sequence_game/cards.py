"""Cards, cells and the board layout (R1), shared by the core and the reference.

A card is a 2-character string (``"7H"``, ``"TD"``, ``"JC"``); internally a card id
``4 * rank + suit`` (docs/rng.md). A cell is a ``(row, col)`` tuple, row 0 at the top; its text
form is a column letter and a row number (``(0, 0)`` is ``"a1"``).

>>> cells_of("7H")
((4, 8), (5, 3))
>>> cell_name((5, 3)), parse_cell("d6")
('d6', (5, 3))
"""

from __future__ import annotations

from itertools import islice
from typing import Tuple

from ._args import plain_int
from .board import CELLS_OF_NAME, CORNER_CELLS, LAYOUT, cell_of_index
from .errors import short_repr

Cell = Tuple[int, int]

RANKS = "23456789TJQKA"
SUITS = "SHDC"
#: The suit of each suit letter as a symbol, for display (the text form stays ``S H D C``).
SUIT_SYMBOLS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
CARD_NAMES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
CARD_IDS: dict[str, int] = {name: i for i, name in enumerate(CARD_NAMES)}

TWO_EYED_JACKS = frozenset({"JD", "JC"})  # wild: place on any empty cell (R1, R5)
ONE_EYED_JACKS = frozenset({"JH", "JS"})  # anti-wild: remove an unlocked chip (R1, R5)
JACKS = TWO_EYED_JACKS | ONE_EYED_JACKS

# R1: the layout, its corners and the cells of each card live in board.py (the board's one home).
BOARD_LAYOUT = LAYOUT
CORNERS: tuple[Cell, ...] = tuple(cell_of_index(i) for i in CORNER_CELLS)

_CELLS_OF: dict[str, tuple[Cell, ...]] = {
    name: tuple(cell_of_index(i) for i in CELLS_OF_NAME.get(name, ())) for name in CARD_NAMES
}


def parse_card(text: object) -> str:
    """The canonical form of a card: ``"10d"`` -> ``"TD"``.

    Raises ``TypeError`` for a non-string and ``ValueError`` for text that is not a card.

    >>> parse_card("10d")
    'TD'
    """
    if not isinstance(text, str):
        raise TypeError(f"a card is a string like '7H' or 'TD', not {short_repr(text)}")
    t = _ascii_text(text).upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if t not in CARD_IDS:
        raise ValueError(
            f"{short_repr(text)} is not a card: write a rank {' '.join(RANKS)} (or 10) and a suit "
            f"{' '.join(SUITS)}, e.g. '7H', 'TD', 'JC'"
        )
    return t


def card_id(card: str) -> int:
    """The id ``4 * rank + suit`` of a card (any accepted spelling)."""
    return CARD_IDS[parse_card(card)]


def card_name(cid: int) -> str:
    """The canonical text of a card id."""
    return CARD_NAMES[cid]


def card_sort_key(card: str) -> int:
    """Sort key for the canonical hand order: by rank ``2..A``, then suit ``S H D C``."""
    return CARD_IDS[card]


def rank_of(card: str) -> int:
    """Rank index 0..12 (``2`` .. ``A``); aces high, as in the dealer cut (R4)."""
    return CARD_IDS[card] // 4


def is_jack(card: str) -> bool:
    return card in JACKS


def cells_of(card: str) -> tuple[Cell, ...]:
    """The two cells of a normal card (R1), sorted; ``()`` for a jack.

    >>> cells_of("JD")
    ()
    """
    return _CELLS_OF[parse_card(card)]


def card_at(cell: Cell) -> str:
    """The card printed on a cell, ``"*"`` for a corner."""
    r, c = check_cell(cell)
    return BOARD_LAYOUT[r][c]


def is_corner(cell: Cell) -> bool:
    return cell in CORNERS


def check_cell(cell: object) -> Cell:
    """Validate a ``(row, col)`` cell (or its text, ``"d6"``) and return it as a tuple of plain ints."""
    if isinstance(cell, str):
        return parse_cell(cell)
    if isinstance(cell, (tuple, list)):
        # The items through the built-in type's own iterator: a subclass's __len__/__iter__ may lie.
        items = list(islice(tuple.__iter__(cell) if isinstance(cell, tuple) else list.__iter__(cell), 3))
        if len(items) == 2:
            r, c = plain_int(items[0]), plain_int(items[1])
            if r is not None and c is not None:
                if not (0 <= r < 10 and 0 <= c < 10):
                    raise ValueError(f"cell {short_repr((r, c))} is off the board: row and col must be 0..9")
                return (r, c)
    raise TypeError(f"a cell is a (row, col) tuple of two ints or text like 'd6', not {short_repr(cell)}")


def cell_name(cell: Cell) -> str:
    """Text form of a cell: column letter ``a``..``j`` + row number ``1``..``10``."""
    r, c = cell
    return "abcdefghij"[c] + str(r + 1)


def parse_cell(text: str) -> Cell:
    """Parse ``"d6"`` -> ``(5, 3)``; ``ValueError`` names the accepted form (ASCII only: no
    look-alike letters or digits from other scripts)."""
    if not isinstance(text, str):
        raise TypeError(f"a cell text is a string like 'd6', not {short_repr(text)}")
    t = _ascii_text(text).lower()
    if len(t) in (2, 3) and t[0] in "abcdefghij" and t[1:].isdigit() and 1 <= int(t[1:]) <= 10:
        return (int(t[1:]) - 1, "abcdefghij".index(t[0]))
    raise ValueError(
        f"{short_repr(text)} is not a cell: write a column letter a-j and a row number 1-10, e.g. 'd6'"
    )


def _ascii_text(text: str) -> str:
    """``text`` as a plain str without surrounding ASCII whitespace, or ``""`` if it holds anything
    but ASCII: ``"7ſ".upper()`` is ``"7S"`` and ``"K"`` (Kelvin) lowers to ``"k"``, so case
    mapping must only ever see ASCII."""  # noqa: RUF002 - the long s is the point
    t = str.__str__(text).strip(" \t\r\n\f\v")
    return t if t.isascii() else ""
