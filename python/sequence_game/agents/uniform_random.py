"""``RandomAgent``: a uniformly random legal move."""

from __future__ import annotations

import random
from typing import Any, Optional

from .._args import check_seed
from ..move import Move
from .base import no_legal_move, spec_name

__all__ = ["RandomAgent"]


class RandomAgent:
    """Picks uniformly among ``game.legal_moves()``; the same seed gives the same choices.

    ``seed`` is None (different choices every run) or an int from 0 to 2**64 - 1.

    >>> from sequence_game.reference import Game
    >>> g = Game(players=2, seed=3)
    >>> RandomAgent(seed=7).select_move(g) == RandomAgent(seed=7).select_move(g)
    True
    """

    def __init__(self, seed: Optional[int] = None) -> None:
        self.seed = check_seed(seed)
        self.name = spec_name("random", seed=seed)
        self._rng = random.Random(seed)

    def select_move(self, game: Any) -> Move:
        moves: list[Move] = game.legal_moves()
        if not moves:
            raise no_legal_move(game)
        return moves[self._rng.randrange(len(moves))]

    def __repr__(self) -> str:
        return f"RandomAgent(seed={self.seed!r})"
