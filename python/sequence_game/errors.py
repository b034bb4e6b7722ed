"""Exceptions. All are ``ValueError`` subclasses, so ``except ValueError`` catches every bad input."""

from __future__ import annotations

import unicodedata
from itertools import islice
from typing import Iterable, Optional, Set


class InvalidMoveError(ValueError):
    """A move that is malformed in any position: bad text, a one-eyed jack placing a chip, ..."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in the current position.

    The message names the move, why it is illegal, and what would be legal instead.
    """


class AmbiguousMoveError(IllegalMoveError):
    """A placement written without ``declares`` that could declare its sequences in several ways (R7)."""


class AgentMoveError(ValueError):
    """An agent chose a move that is not legal (or not a move). ``agent``, ``player``, ``move`` say which."""

    def __init__(self, message: str, agent: str, player: int, move: object) -> None:
        super().__init__(message)
        self.agent = agent
        self.player = player
        self.move = move


# ---------------------------------------------------------------------------------------------
# Input echoed in messages. A message names the input that was wrong, but the input may be
# hostile: nested a million levels deep (the built-in repr raises RecursionError), 100 MB long,
# an int of a million digits (str() refuses it), or an object whose __repr__/__len__/__iter__
# lie or raise. ``short_repr`` is the one way messages show input.

_REPR_LIMIT = 80  # characters of a whole short_repr
_REPR_DEPTH = 3  # container levels shown
_REPR_ITEMS = 6  # items shown per container
_REPR_TEXT = 40  # characters shown of a string
_REPR_INT_DIGITS = 30  # larger ints are shown by their size

# Types of the package whose repr is small and bounded (Move), shown as they are. They register
# themselves (bounded_repr) so that this module, which every other imports, imports none of them.
_BOUNDED_REPR_TYPES: Set[type] = set()


def bounded_repr(cls: type) -> type:
    """Mark ``cls`` (a class of this package with a small, bounded repr) as shown by its repr in
    error messages (:func:`short_repr`)."""
    _BOUNDED_REPR_TYPES.add(cls)
    return cls


def printable(text: str) -> str:
    """``text`` safe for a terminal or a log line: control and format characters (escape sequences,
    bidi overrides, NUL, ...) each become ``?``. For anything read from a file, a client or standard
    input.

    >>> printable("red\x1b[31m\u202egreen")
    'red?[31m?green'
    """
    return "".join("?" if unicodedata.category(ch)[0] == "C" else ch for ch in text)


def short_repr(value: object, limit: int = _REPR_LIMIT) -> str:
    """A repr of ``value`` for an error message: at most ``limit`` characters, and it never raises.

    Built-in values are shown like ``repr`` up to a few levels, items and characters; subclasses
    of them through the built-in type's own methods (their overrides are not called); any other
    object by its type name, except this package's own small values.

    >>> short_repr([[[[[1]]]]])
    '[[[[...]]]]'
    >>> short_repr("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (100 characters)"
    >>> short_repr(10**100)
    '<int of 333 bits>'
    """
    try:
        text = _short(value, _REPR_DEPTH)
    except Exception:  # noqa: BLE001 - a hostile __len__, __iter__, __repr__, ...: say only what it is
        text = f"<{_type_name(value)} object>"
    if len(text) > limit:
        text = text[: max(limit - 3, 0)] + "..."
    return text


def _type_name(value: object) -> str:
    name = type(value).__name__
    return name if len(name) <= 40 else name[:37] + "..."


def _short(value: object, depth: int) -> str:
    if value is None or value is True or value is False:
        return repr(value)
    text = _short_builtin(value, depth)
    if text is None:
        if type(value) in _BOUNDED_REPR_TYPES or type(value).__module__ == "numpy":
            text = repr(value)
            return text if len(text) <= _REPR_LIMIT else text[: _REPR_LIMIT - 3] + "..."
        return f"<{_type_name(value)} object>"
    if type(value) not in (bool, int, float, str, bytes, list, tuple, dict, set, frozenset):
        text = f"{_type_name(value)}({text})"  # a subclass, shown through its base type
    return text


def _short_builtin(value: object, depth: int) -> Optional[str]:
    """``value`` read through the built-in type it is an instance of, or None for other objects."""
    if isinstance(value, bool):
        return repr(bool(value))
    if isinstance(value, int):
        number = int.__index__(value)
        bits = number.bit_length()
        return repr(number) if bits <= _REPR_INT_DIGITS * 10 // 3 else f"<int of {bits} bits>"
    if isinstance(value, float):
        return float.__repr__(value)
    if isinstance(value, str):
        size = str.__len__(value)
        more = f"... ({size} characters)" if size > _REPR_TEXT else ""
        return repr(str.__getitem__(value, slice(0, _REPR_TEXT))) + more
    if isinstance(value, bytes):
        size = bytes.__len__(value)
        more = f"... ({size} bytes)" if size > _REPR_TEXT else ""
        return repr(bytes.__getitem__(value, slice(0, _REPR_TEXT))) + more
    items: Iterable[str]
    if isinstance(value, dict):
        size, left, right = dict.__len__(value), "{", "}"
        items = (f"{_short(k, depth - 1)}: {_short(v, depth - 1)}" for k, v in dict.items(value))
    elif isinstance(value, (list, tuple)):
        size = list.__len__(value) if isinstance(value, list) else tuple.__len__(value)
        left, right = ("[", "]") if isinstance(value, list) else ("(", ")")
        elements = list.__iter__(value) if isinstance(value, list) else tuple.__iter__(value)
        items = (_short(v, depth - 1) for v in elements)
    elif isinstance(value, (set, frozenset)):
        size = set.__len__(value) if isinstance(value, set) else frozenset.__len__(value)
        if size == 0:
            return "set()" if isinstance(value, set) else "frozenset()"
        left, right = "{", "}"
        members = set.__iter__(value) if isinstance(value, set) else frozenset.__iter__(value)
        items = (_short(v, depth - 1) for v in members)
    else:
        return None
    if size == 0:
        return left + right
    if depth == 0:
        return left + "..." + right
    parts = list(islice(items, _REPR_ITEMS))
    if size > _REPR_ITEMS:
        parts.append(f"... ({size} items)")
    text = left + ", ".join(parts) + ("," if isinstance(value, tuple) and size == 1 else "") + right
    return f"frozenset({text})" if isinstance(value, frozenset) else text
