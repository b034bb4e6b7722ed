"""Exceptions. All are ``ValueError`` subclasses, so ``except ValueError`` catches every bad input."""

from __future__ import annotations


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
    except Exception:  # a hostile __len__, __iter__, __index__, ...: say only what it is
        text = f"<{_type_name(value)} object>"
    if len(text) > limit:
        text = text[: max(limit - 3, 0)] + "..."
    return text


def _type_name(value: object) -> str:
    name = type(value).__name__
    return name if len(name) <= 40 else name[:37] + "..."


_BRACKETS = {list: "[]", tuple: "()", set: "{}", frozenset: "{}", dict: "{}"}


def _short(value: object, depth: int) -> str:
    if value is None or value is True or value is False:
        return repr(value)
    base = next((t for t in (bool, int, float, str, bytes, list, tuple, dict, frozenset, set) if isinstance(value, t)), None)
    if base is None:
        from .move import Move  # a small immutable value with a bounded repr

        if type(value) is Move or type(value).__module__ == "numpy":
            text = repr(value)
            return text if len(text) <= _REPR_LIMIT else text[: _REPR_LIMIT - 3] + "..."
        return f"<{_type_name(value)} object>"
    if base is bool:
        text = repr(bool(value))
    elif base is int:
        number = int.__index__(value)  # type: ignore[arg-type]
        text = repr(number) if number.bit_length() <= _REPR_INT_DIGITS * 10 // 3 else f"<int of {number.bit_length()} bits>"
    elif base is float:
        text = float.__repr__(value)  # type: ignore[arg-type]
    elif base in (str, bytes):
        size = base.__len__(value)  # type: ignore[attr-defined]
        text = repr(base.__getitem__(value, slice(0, _REPR_TEXT)))  # type: ignore[attr-defined]
        if size > _REPR_TEXT:
            text += f"... ({size} characters)" if base is str else f"... ({size} bytes)"
    else:
        left, right = _BRACKETS[base]
        size = base.__len__(value)  # type: ignore[attr-defined]
        if size == 0:
            text = {set: "set()", frozenset: "frozenset()"}.get(base, left + right)
        elif depth == 0:
            text = left + "..." + right
        else:
            items = dict.items(value) if base is dict else base.__iter__(value)  # type: ignore
            parts = []
            for item in items:
                if len(parts) == _REPR_ITEMS:
                    parts.append(f"... ({size} items)")
                    break
                if base is dict:
                    parts.append(f"{_short(item[0], depth - 1)}: {_short(item[1], depth - 1)}")
                else:
                    parts.append(_short(item, depth - 1))
            text = left + ", ".join(parts) + ("," if base is tuple and size == 1 else "") + right
            if base is frozenset:
                text = f"frozenset({text})"
    if type(value) is not base:
        text = f"{_type_name(value)}({text})"
    return text
