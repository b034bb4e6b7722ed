"""``Move``: a small immutable value shared by the core and the reference (docs/notation.md).

>>> m = Move.parse("7h@D6")
>>> m
Move('place', '7H', (5, 3))
>>> str(m)
'7H@d6'
>>> str(Move("place", "2H", (5, 4), declares=[[(5, 0), (5, 1), (5, 2), (5, 3), (5, 4)]]))
'2H@e6 =a6-e6'
>>> Move.parse("pass") == Move("pass")
True
"""

from __future__ import annotations

from itertools import islice
from typing import Iterable, Optional, Sequence, Tuple, Type

from .cards import (
    CARD_IDS,
    ONE_EYED_JACKS,
    TWO_EYED_JACKS,
    Cell,
    cell_name,
    check_cell,
    parse_card,
    parse_cell,
)
from .errors import InvalidMoveError, bounded_repr, short_repr

KINDS = ("trade", "place", "remove", "pass")  # also the order of legal_moves() (docs/notation.md)
_KIND_ORDER = {k: i for i, k in enumerate(KINDS)}

#: A placement declares at most two sequences per direction (nine in a row, R7), four directions.
MAX_DECLARES = 8
#: Longer text is refused before it is parsed: the longest move is about 80 characters.
MAX_TEXT = 256

Sequence5 = Tuple[Cell, Cell, Cell, Cell, Cell]


def line_cells(first: Cell, last: Cell) -> Optional[Sequence5]:
    """The five cells from ``first`` to ``last`` if they span a straight line of five (R7), sorted."""
    dr, dc = last[0] - first[0], last[1] - first[1]
    if (abs(dr), abs(dc)) not in ((0, 4), (4, 0), (4, 4)):
        return None
    sr, sc = (dr > 0) - (dr < 0), (dc > 0) - (dc < 0)
    a, b, c, d, e = sorted((first[0] + i * sr, first[1] + i * sc) for i in range(5))
    return a, b, c, d, e


def _check_sequence(seq: Iterable[object], cell: Cell) -> Sequence5:
    try:
        cells = sorted(check_cell(c) for c in seq)
    except (TypeError, ValueError):
        raise InvalidMoveError(
            f"a declared sequence is five (row, col) cells on the board, not {short_repr(seq)}"
        ) from None
    line = line_cells(cells[0], cells[-1]) if len(cells) == 5 else None
    if line is None or line != tuple(cells):
        raise InvalidMoveError(
            f"declared sequence {short_repr(seq)} is not five cells in a straight line (R7)"
        )
    if cell not in line:
        raise InvalidMoveError(
            f"declared sequence {_seq_text(line)} does not pass through the placed cell "
            f"{cell_name(cell)}: a placement only forms sequences through its own chip (R7)"
        )
    return line


def _seq_text(seq: Sequence[Cell]) -> str:
    return f"{cell_name(seq[0])}-{cell_name(seq[-1])}"


@bounded_repr  # a small immutable value: error messages show it as it is
class Move:
    """One move: ``Move(kind, card=None, cell=None, declares=())``.

    ``kind`` is ``"place"``, ``"remove"``, ``"trade"`` or ``"pass"``. Immutable and hashable; equal
    by value. ``declares`` is kept sorted, each sequence as its five sorted cells.
    """

    __slots__ = ("_hash", "card", "cell", "declares", "kind")

    kind: str
    card: Optional[str]
    cell: Optional[Cell]
    declares: Tuple[Sequence5, ...]
    _hash: int

    def __init__(
        self,
        kind: str,
        card: Optional[str] = None,
        cell: object = None,
        declares: Iterable[Iterable[Cell]] = (),
    ) -> None:
        if isinstance(kind, str):
            kind = str.__str__(kind)  # a plain str: a subclass's own __eq__/__hash__ take no part
        if type(kind) is not str or kind not in _KIND_ORDER:
            raise InvalidMoveError(
                f"unknown move kind {short_repr(kind)}: use one of 'place', 'remove', 'trade', 'pass'"
            )
        if kind == "pass":
            if card is not None or cell is not None:
                raise InvalidMoveError("a pass takes no card and no cell: Move('pass')")
        else:
            if card is None:
                raise InvalidMoveError(f"a {kind} move needs a card")
            try:
                card = parse_card(card)
            except (TypeError, ValueError) as e:
                raise InvalidMoveError(str(e)) from None
        checked_cell: Optional[Cell] = None
        if kind in ("place", "remove"):
            if cell is None:
                raise InvalidMoveError(f"a {kind} move needs a cell, e.g. (5, 3) or 'd6'")
            try:
                checked_cell = check_cell(cell)
            except (TypeError, ValueError) as e:
                raise InvalidMoveError(str(e)) from None
        elif cell is not None:
            raise InvalidMoveError(f"a {kind} move takes no cell")
        if kind == "place" and card in ONE_EYED_JACKS and checked_cell is not None:
            raise InvalidMoveError(
                f"{card} is a one-eyed jack: it removes a chip (e.g. '{card}x{cell_name(checked_cell)}'), "
                "it cannot place one (R5)"
            )
        if kind == "remove" and card not in ONE_EYED_JACKS:
            raise InvalidMoveError(
                f"only a one-eyed jack (JH, JS) removes a chip, not {card} (R5)"
            )
        if kind == "trade" and (card in ONE_EYED_JACKS or card in TWO_EYED_JACKS):
            raise InvalidMoveError(f"{card} is a jack: jacks are never dead cards (R5)")
        if isinstance(declares, (str, bytes)):
            raise InvalidMoveError("declares is a list of sequences, each five (row, col) cells")
        try:
            decl_list = list(islice(declares, MAX_DECLARES + 1))
        except TypeError:
            raise InvalidMoveError(
                f"declares is a list of sequences, each five (row, col) cells, not {short_repr(declares)}"
            ) from None
        if decl_list and kind != "place":
            raise InvalidMoveError("only a placement declares sequences (R7)")
        if len(decl_list) > MAX_DECLARES:
            raise InvalidMoveError(f"a placement declares at most {MAX_DECLARES} sequences (two per direction, R7)")
        decl = tuple(sorted(_check_sequence(s, checked_cell) for s in decl_list)) if checked_cell else ()
        if len(set(decl)) != len(decl):
            raise InvalidMoveError("the same sequence is declared twice")
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "cell", checked_cell)
        object.__setattr__(self, "declares", decl)
        object.__setattr__(self, "_hash", hash((kind, card, checked_cell, decl)))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Move is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("Move is immutable")

    def __reduce__(self) -> Tuple[Type[Move], Tuple[str, Optional[str], Optional[Cell], Tuple[Sequence5, ...]]]:
        return (Move, (self.kind, self.card, self.cell, self.declares))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return (
            self.kind == other.kind
            and self.card == other.card
            and self.cell == other.cell
            and self.declares == other.declares
        )

    def __hash__(self) -> int:
        return self._hash

    def sort_key(self) -> Tuple[int, int, int, Tuple[Tuple[int, ...], ...]]:
        """The key that orders ``legal_moves()`` (docs/notation.md)."""
        return (
            _KIND_ORDER[self.kind],
            CARD_IDS[self.card] if self.card else -1,
            self.cell[0] * 10 + self.cell[1] if self.cell else -1,
            tuple(tuple(r * 10 + c for r, c in seq) for seq in self.declares),
        )

    def __lt__(self, other: Move) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return self.sort_key() < other.sort_key()

    def __str__(self) -> str:
        if self.kind == "pass":
            return "pass"
        if self.kind == "trade":
            return f"trade {self.card}"
        assert self.cell is not None  # place and remove name a cell
        sep = "@" if self.kind == "place" else "x"
        text = f"{self.card}{sep}{cell_name(self.cell)}"
        for seq in self.declares:
            text += f" ={_seq_text(seq)}"
        return text

    def __repr__(self) -> str:
        args = [repr(self.kind)]
        if self.card is not None:
            args.append(repr(self.card))
        if self.cell is not None:
            args.append(repr(self.cell))
        if self.declares:
            args.append(f"declares={self.declares!r}")
        return f"Move({', '.join(args)})"

    def with_declares(self, declares: Iterable[Iterable[Cell]]) -> Move:
        """The same placement declaring ``declares`` instead."""
        return Move(self.kind, self.card, self.cell, declares)

    @classmethod
    def parse(cls, text: str) -> Move:
        """Parse the text notation: ``"7H@d6"``, ``"JSxe5"``, ``"trade 7H"``, ``"pass"``,
        ``"2H@e6 =a6-e6 =e6-i6"``. Raises ``InvalidMoveError`` (a ``ValueError``) naming the forms.

        >>> Move.parse("trade 10c")
        Move('trade', 'TC')
        """
        if not isinstance(text, str):
            raise TypeError(f"Move.parse takes text like '7H@d6', not {type(text).__name__}")
        text = str.__str__(text)  # a plain str: a subclass's own methods take no part
        if len(text) > MAX_TEXT or text.count("=") > MAX_DECLARES:
            raise InvalidMoveError(
                f"{short_repr(text)} is not a move: a move text is at most {MAX_TEXT} characters and declares "
                f"at most {MAX_DECLARES} sequences (two per direction, R7)"
            )
        if not text.isascii():  # case mapping turns look-alikes into ASCII ("\u212a" lowers to "k")
            raise InvalidMoveError(f"{short_repr(text)} is not a move: a move is written in ASCII letters and digits")
        tokens = text.replace("=", " =").split()
        if not tokens:
            raise InvalidMoveError(_FORMS_HELP.format(text=short_repr(text)))
        head = tokens[0].lower()
        if head == "pass":
            if len(tokens) != 1:
                raise InvalidMoveError(f"{short_repr(text)}: 'pass' takes nothing after it")
            return cls("pass")
        if head == "trade":
            if len(tokens) != 2:
                raise InvalidMoveError(f"{short_repr(text)}: write 'trade' and one card, e.g. 'trade 7H'")
            return cls("trade", tokens[1])
        if "@" in head:
            kind, (card, cell) = "place", head.split("@", 1)
        elif "x" in head:
            kind, (card, cell) = "remove", head.rsplit("x", 1)
        else:
            raise InvalidMoveError(_FORMS_HELP.format(text=short_repr(text)))
        try:
            cell_t = parse_cell(cell)
        except ValueError as e:
            raise InvalidMoveError(f"{short_repr(text)}: {e}") from None
        declares = []
        for tok in tokens[1:]:
            if not tok.startswith("=") or tok.count("-") != 1:
                raise InvalidMoveError(
                    f"{short_repr(text)}: after the move write each declared sequence as '=first-last', "
                    "e.g. '2H@e6 =a6-e6'"
                )
            a, b = tok[1:].split("-")
            try:
                first, last = parse_cell(a), parse_cell(b)
            except ValueError as e:
                raise InvalidMoveError(f"{short_repr(text)}: {e}") from None
            seq = line_cells(first, last)
            if seq is None:
                raise InvalidMoveError(
                    f"{short_repr(text)}: {tok[1:]} is not five cells in a straight line (R7)"
                )
            declares.append(seq)
        return cls(kind, card, cell_t, declares)


_FORMS_HELP = (
    "{text} is not a move: write '7H@d6' (place), 'JSxe5' (remove with a one-eyed jack), "
    "'trade 7H' (dead card) or 'pass'"
)


def as_move(move: object) -> Move:
    """A ``Move`` from a ``Move`` or its text; ``TypeError`` for anything else."""
    if isinstance(move, Move):
        return move
    if isinstance(move, str):
        return Move.parse(move)
    raise TypeError(f"a move is a Move or its text like '7H@d6', not {short_repr(move)}")
