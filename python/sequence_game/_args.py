"""Checks and defaults for arguments used across the package: ints, seeds.

>>> is_int(3), is_int(True), is_int(3.0)
(True, False, False)
>>> check_seed(7), check_seed(None)
(7, None)
>>> 0 <= seed_or_random(None) < 2**64, seed_or_random(5)
(True, 5)
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Optional

from .errors import short_repr
from .seeds import SEED_LIMIT, fresh_seed

if TYPE_CHECKING:  # typing.TypeGuard is Python 3.10+; only the type checker needs it
    from typing_extensions import TypeGuard

def is_int(value: object) -> TypeGuard[int]:
    """True for an ``int`` that is not a ``bool`` (``True`` is not a count or a seat)."""
    return isinstance(value, int) and not isinstance(value, bool)


def plain_int(value: object) -> Optional[int]:
    """``value`` as a plain ``int`` if it is an int (bools are not), else ``None``.

    An ``int`` subclass is normalised with ``operator.index`` first, so its own comparison,
    hashing or formatting methods take no part in the checks that follow.

    >>> plain_int(True) is None, type(plain_int(type("Seat", (int,), {})(3)))
    (True, <class 'int'>)
    """
    if type(value) is int:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return operator.index(value)
    return None


def check_seed(seed: object, name: str = "seed") -> Optional[int]:
    """A seed is None or an int in ``0 .. 2**64 - 1`` (docs/rng.md); ``TypeError``/``ValueError`` else.

    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed -1 is out of range: use an int from 0 to 2**64 - 1
    """
    if seed is None:
        return None
    number = plain_int(seed)
    if number is None:
        raise TypeError(f"{name} must be an int or None, not {type(seed).__name__} {short_repr(seed)}")
    if not 0 <= number < SEED_LIMIT:
        raise ValueError(f"{name} {short_repr(number)} is out of range: use an int from 0 to 2**64 - 1")
    return number


def seed_or_random(seed: object, name: str = "seed") -> int:
    """``check_seed(seed)``, or a fresh seed (:func:`sequence_game.seeds.fresh_seed`) for ``None``:
    the seed a game or agent uses."""
    checked = check_seed(seed, name)
    return fresh_seed() if checked is None else checked
