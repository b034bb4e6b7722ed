"""The seeded generator and the shuffle, exactly as docs/rng.md specifies.

The C++ core (``cpp/include/sequence/rng.hpp``) implements the same algorithm, so the same seed
and the same moves give the same game in both, bit for bit ("Digital conventions" in docs/rules.md).

>>> g = SplitMix64(0)
>>> [hex(g.next()) for _ in range(3)]
['0xe220a8397b1dcdaf', '0x6e789e6aa1b965f4', '0x6c45d188009454f']
"""

from __future__ import annotations

from typing import List, TypeVar

T = TypeVar("T")

MASK64 = (1 << 64) - 1


class SplitMix64:
    """SplitMix64: one unsigned 64-bit state ``s``; all arithmetic modulo 2**64 (docs/rng.md "Generator")."""

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        if not 0 <= state <= MASK64:
            raise ValueError(f"a SplitMix64 state is an int from 0 to 2**64 - 1, not {state}")
        self.state = state

    def next(self) -> int:
        """The next 64-bit output; advances the state."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)`` for ``1 <= n < 2**32``: Lemire's multiply-and-reject, exact."""
        if not 1 <= n < 2**32:
            raise ValueError(f"below(n) needs 1 <= n < 2**32, not {n}")
        m = self.next() * n  # the 128-bit product
        low = m & MASK64
        if low < n:
            threshold = ((1 << 64) - n) % n
            while low < threshold:
                m = self.next() * n
                low = m & MASK64
        return m >> 64

    def shuffle(self, a: List[T]) -> None:
        """Fisher-Yates from the back, in place: for i = len-1 .. 1, swap a[i] and a[below(i + 1)]."""
        for i in range(len(a) - 1, 0, -1):
            j = self.below(i + 1)
            a[i], a[j] = a[j], a[i]
