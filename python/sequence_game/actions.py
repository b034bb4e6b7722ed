"""Move ids and the fixed action space: the Python mirror of ``cpp/include/sequence/move.hpp`` and
``cpp/include/sequence/actions.hpp`` (docs/notation.md "Move ids", docs/action-space.md).

One definition per language: the C++ headers for the core, this module for Python (the pure-Python
reference, the environments, decoding for people); ``tests/test_actions.py`` checks that the two
agree on every move id and every action.

The action space numbers every step of a move by one integer in ``0 .. ACTION_COUNT - 1``:

>>> describe_action(CARD_IDS["7H"] * 100 + 53), describe_action(TRADE_ACTION_BASE + 1), describe_action(PASS_ACTION)
('7H@d6', 'trade 2H', 'pass')
>>> w = WINDOW_IDS[(0, 1, 2, 3, 4)]; describe_action(declare_action(w))
'declare a1-e1'

A placement that can declare its sequences in several ways (R7) is its placement action and then
one declare action per direction with a choice; ``legal_action_mask`` and ``resolve_action`` below
follow such a pending placement exactly as the core does.
"""

from __future__ import annotations

from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ._args import plain_int
from .board import CORNER_CELLS, DIRECTION_STEPS, WINDOW_AT, WINDOW_IDS, WINDOWS  # noqa: F401 (public here too)
from .cards import CARD_IDS, CARD_NAMES, ONE_EYED_JACKS, cell_name
from .errors import InvalidMoveError, short_repr
from .move import KINDS, Move

# ----------------------------------------------------------------------------------- move ids

# The declares code's directions are board.DIRECTIONS (east, south, south-east, south-west).
_STEP_DIRECTION = {step: d for d, step in enumerate(DIRECTION_STEPS)}  # cell-index step of a window -> direction
DECLARE_NONE, DECLARE_PAIR, DECLARE_BITS = 0, 6, 3


def _window_cells(cell: int, direction: int, back: int) -> Optional[Tuple[int, ...]]:
    """The window in ``direction`` starting ``back`` steps before ``cell``; None off the board."""
    window = WINDOW_AT[cell][direction][back] if 0 <= cell < len(WINDOW_AT) and 0 <= back < 5 else None
    return None if window is None else WINDOWS[window]


def plain_move_id(move_id: object) -> int:
    """``move_id`` as a plain int; ``TypeError`` for a non-int (bools included)."""
    value = plain_int(move_id)
    if value is None:
        raise TypeError(f"a move id is an int (docs/notation.md), not {type(move_id).__name__} {short_repr(move_id)}")
    return value


def move_from_id(move_id: int) -> Move:
    """The ``Move`` a core move id stands for (docs/notation.md, "Move ids").

    Each move has exactly one id; any other int (bits above 26, fields its kind does not use, a
    card, cell or declares code that does not exist) is an ``InvalidMoveError`` (a ``ValueError``),
    though its low bits may look like a move: callers cache both ways on what this returns.

    >>> str(move_from_id(3)), str(move_from_id(1 | 29 << 2 | 53 << 8))
    ('pass', '9H@d6')
    >>> move_from_id(3 | 1 << 30)
    Traceback (most recent call last):
    ...
    sequence_game.errors.InvalidMoveError: 1073741827 is not the id of any move (docs/notation.md "Move ids")
    """
    value = plain_move_id(move_id)
    try:
        move = _decode(value) if 0 <= value < 2**27 else None
    except InvalidMoveError:  # a cell or window off the board, a one-eyed jack placing, ...
        move = None
    if move is None or _encode(move) != value:
        raise InvalidMoveError(f'{short_repr(value)} is not the id of any move (docs/notation.md "Move ids")')
    return move


def _decode(move_id: int) -> Optional[Move]:
    if (move_id >> 2) & 63 >= len(CARD_NAMES) and move_id & 3 != 3:
        return None
    kind = KINDS[move_id & 3]
    if kind == "pass":
        return Move("pass")
    card = CARD_NAMES[(move_id >> 2) & 63]
    if kind == "trade":
        return Move("trade", card)
    index = (move_id >> 8) & 127
    declares = []
    for d in range(4):
        v = (move_id >> (15 + DECLARE_BITS * d)) & 7
        for back in () if v == DECLARE_NONE else (4, 0) if v == DECLARE_PAIR else (v - 1,):
            cells = _window_cells(index, d, back)
            if cells is None:  # a declared window off the board: not a move's id
                return None
            declares.append([divmod(i, 10) for i in cells])
    return Move(kind, card, divmod(index, 10), declares)


def move_id(move: Move) -> int:
    """The core move id of a ``Move`` (the inverse of ``move_from_id``).

    >>> m = Move.parse("2H@e6 =a6-e6 =e6-i6"); move_from_id(move_id(m)) == m
    True
    """
    kind = KINDS.index(move.kind)
    if move.kind == "pass":
        return kind
    assert move.card is not None  # every kind but a pass has a card (Move checks it)
    out = kind | CARD_IDS[move.card] << 2
    if move.kind == "trade":
        return out
    assert move.cell is not None  # place and remove have a cell
    r, c = move.cell
    index = 10 * r + c
    codes = [DECLARE_NONE] * 4
    for seq in move.declares:
        cells = [10 * x + y for x, y in seq]
        d = _STEP_DIRECTION[cells[1] - cells[0]]
        code = cells.index(index) + 1
        codes[d] = DECLARE_PAIR if codes[d] != DECLARE_NONE else code
    for d, code in enumerate(codes):
        out |= code << (15 + DECLARE_BITS * d)
    return out | index << 8


_encode = move_id


def _declare_code(move_id: int, direction: int) -> int:
    return (move_id >> (15 + DECLARE_BITS * direction)) & 7


def _with_declare(move_id: int, direction: int, code: int) -> int:
    shift = 15 + DECLARE_BITS * direction
    return (move_id & ~(7 << shift)) | code << shift


# ----------------------------------------------------------------------------------- actions

CELL_ACTIONS = 52 * 100
#: Trades of a dead card: ``TRADE_ACTION_BASE + card_id`` (R5 step 1).
TRADE_ACTION_BASE = CELL_ACTIONS
#: The pass (R5: only with no legal play).
PASS_ACTION = TRADE_ACTION_BASE + 52
#: Size of the action space (docs/action-space.md).
ACTION_COUNT = PASS_ACTION + 1
# The declare actions use the slots ``card * 100 + corner`` of board.CORNER_CELLS (no chip ever goes
# there); windows are board.WINDOWS, numbered as the core numbers them (board.hpp).


def declare_action(window: int) -> int:
    """The action that declares window ``window`` (an index of ``WINDOWS``) as a sequence."""
    if not 0 <= window < len(WINDOWS):
        raise ValueError(f"window {window} out of range 0..{len(WINDOWS) - 1}")
    return (window // 4) * 100 + CORNER_CELLS[window % 4]


def window_of_action(action: int) -> Optional[int]:
    """The window a declare action names, or None if ``action`` is not a declare action."""
    if not 0 <= action < CELL_ACTIONS or action % 100 not in CORNER_CELLS:
        return None
    window = 4 * (action // 100) + CORNER_CELLS.index(action % 100)
    return window if window < len(WINDOWS) else None


def action_of_move_id(move_id: int) -> int:
    """The action that starts a move: for a placement its cell action (declares follow as actions)."""
    kind = move_id & 3
    if kind == 3:
        return PASS_ACTION
    card = (move_id >> 2) & 63
    if kind == 0:
        return TRADE_ACTION_BASE + card
    return card * 100 + ((move_id >> 8) & 127)


def action_of_move(move: Move) -> int:
    """The action that starts ``move`` (see ``action_of_move_id``)."""
    return action_of_move_id(move_id(move))


def describe_action(action: int) -> str:
    """The action in words: a move's text without declares, or ``declare <first>-<last>``.

    >>> describe_action(36 * 100 + 44)
    'JSxe5'
    """
    if not 0 <= action < ACTION_COUNT:
        raise ValueError(f"action {action} out of range 0..{ACTION_COUNT - 1}")
    if action == PASS_ACTION:
        return "pass"
    if action >= TRADE_ACTION_BASE:
        return f"trade {CARD_NAMES[action - TRADE_ACTION_BASE]}"
    window = window_of_action(action)
    if window is not None:
        cells = WINDOWS[window]
        return f"declare {cell_name(divmod(cells[0], 10))}-{cell_name(divmod(cells[-1], 10))}"
    if action % 100 in CORNER_CELLS:
        return f"unused {action}"
    card = CARD_NAMES[action // 100]
    return f"{card}{'x' if card in ONE_EYED_JACKS else '@'}{cell_name(divmod(action % 100, 10))}"


# ----------------------------------------------------------------------------------- the action layer
# The same steps as cpp/src/actions.cpp, computed from the list of legal move ids, so that the
# pure-Python reference plays the action space too and the two can be compared.

def _placement_choices(move_ids: Iterable[int], placement: int) -> List[int]:
    """The legal ids of one placement (its card and cell): one per declares choice (R7)."""
    key = placement & 0x7FFF
    return [m for m in move_ids if m & 0x7FFF == key]


def _next_direction(choices: Sequence[int], pending: int) -> int:
    """The first direction with a choice that ``pending`` has not decided, or -1."""
    for d in range(4):
        if len({_declare_code(m, d) for m in choices}) > 1 and _declare_code(pending, d) == DECLARE_NONE:
            return d
    return -1


def _declare_options(choices: Sequence[int], pending: int, direction: int) -> Dict[int, int]:
    """Declare action -> code, for the choices that agree with everything ``pending`` decided."""
    cell = (pending >> 8) & 127
    out = {}
    for m in choices:
        if all(_declare_code(pending, d) in (DECLARE_NONE, _declare_code(m, d)) for d in range(4)):
            code = _declare_code(m, direction)
            window = WINDOW_AT[cell][direction][code - 1]
            assert window is not None  # a legal placement's windows lie on the board
            out[declare_action(window)] = code
    return out


def legal_actions(move_ids: Sequence[int], pending: Optional[int] = None) -> List[int]:
    """The legal actions, ascending, given the legal move ids and the pending placement (or None)."""
    if pending is None:
        return sorted({action_of_move_id(m) for m in move_ids})
    choices = _placement_choices(move_ids, pending)
    d = _next_direction(choices, pending)
    return [] if d < 0 else sorted(_declare_options(choices, pending, d))


def resolve_action(move_ids: Sequence[int], pending: Optional[int], action: int) -> Optional[Tuple[str, int]]:
    """``("move", id)``, ``("pending", placement)`` or None (illegal), as ``_core.Game.resolve_action``."""
    if pending is not None:
        choices = _placement_choices(move_ids, pending)
        d = _next_direction(choices, pending)
        code = _declare_options(choices, pending, d).get(action) if d >= 0 else None
        if code is None:
            return None
        pending = _with_declare(pending, d, code)
        if _next_direction(choices, pending) >= 0:
            return ("pending", pending)
        return ("move", pending)
    starting = [m for m in move_ids if action_of_move_id(m) == action]
    if not starting:
        return None
    if len(starting) == 1:
        return ("move", starting[0])
    placement = starting[0] & 0x7FFF
    for d in range(4):  # the directions without a choice are filled in at once
        codes = {_declare_code(m, d) for m in starting}
        if len(codes) == 1:
            placement = _with_declare(placement, d, codes.pop())
    return ("pending", placement)
