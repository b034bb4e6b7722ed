"""Seeds: the one place the package derives a seed from another, and draws a fresh one.

Every seed is an int in ``0 .. 2**64 - 1`` (docs/rng.md). A seed that a result depends on is
*derived* (:func:`derive_seed`), so that one seed given by the user fixes a whole match, self-play
run or demo and any part of it can be replayed alone: game ``i`` of a match, seat ``p``'s agent in a
game. A seed nothing is to reproduce (a server's AI, ``seed=None``) is *fresh* (:func:`fresh_seed`),
from the operating system's random source.

>>> derive_seed(7, 0) == derive_seed(7, 0) != derive_seed(7, 1)
True
>>> 0 <= fresh_seed() < SEED_LIMIT
True
"""

from __future__ import annotations

import os

__all__ = ["SEED_LIMIT", "derive_seed", "fresh_seed"]

#: Seeds are unsigned 64-bit ints (docs/rng.md).
SEED_LIMIT = 2**64

_MASK = SEED_LIMIT - 1


def derive_seed(seed: int, index: int) -> int:
    """A 64-bit seed for item ``index`` (>= 0) derived from ``seed``: the SplitMix64 finaliser of a
    mix of both, so that nearby seeds and indices give unrelated seeds. Stable across versions:
    recorded matches and datasets are replayed from it.

    >>> derive_seed(0, 0)
    12017391262430322909
    """
    z = (seed * 0x9E3779B97F4A7C15 + (index + 1) * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def fresh_seed() -> int:
    """A fresh 64-bit seed from the operating system's random source (``os.urandom``)."""
    return int.from_bytes(os.urandom(8), "little")
