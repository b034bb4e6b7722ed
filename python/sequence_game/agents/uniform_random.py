"""``RandomAgent``: a uniformly random legal move."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Optional

from .._args import check_seed
from ..move import Move
from .base import game_over_message, no_legal_move, spec_name
from .control import AgentBase, Limit, StopToken, check_game, check_limit, check_stop
from .search import MoveStats, SearchResult

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["RandomAgent"]


class RandomAgent(AgentBase):
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

    def _decide(self, game: GameBase, limit: Optional[Limit], stop: Any) -> Move:
        moves: list[Move] = game.legal_moves()
        if not moves:
            raise no_legal_move(game)
        return moves[self._rng.randrange(len(moves))]

    def analyze(self, game: GameBase, limit: Optional[Limit] = None, stop: Optional[StopToken] = None) -> SearchResult:
        """Every legal move with the chance this agent plays it (``value``, all equal; ``visits``
        0), in ``legal_moves()`` order; ``move`` is the first: a random player has no preference,
        so its hint is no advice. The generator is not used. ``limit`` is accepted and ignored."""
        check_game(game, "analyze")
        check_limit(limit)
        check_stop(stop)
        moves: list[Move] = game.legal_moves()
        if not moves:
            raise ValueError(game_over_message(game, "analyze"))
        share = 1.0 / len(moves)
        return SearchResult(move=moves[0], moves=tuple(MoveStats(m, 0, share) for m in moves),
                            iterations=0, seconds=0.0, nodes=0)

    def __repr__(self) -> str:
        return f"RandomAgent(seed={self.seed!r})"
