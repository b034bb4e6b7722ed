"""What an agent's ``analyze(game)`` reports (:class:`SearchResult`, one :class:`MoveStats` per
move), shared by the searches, the agents that answer at once and the streaming analysis."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

from ..move import Move

__all__ = ["MoveStats", "SearchResult"]


@dataclass(frozen=True)
class MoveStats:
    """One move of an analysis. For a search: how often it was searched and its mean reward for
    the mover's team in [0, 1] (1 win, 0 loss, ``1/teams`` a draw; evaluated positions in between).
    For ``GreedyAgent``: ``visits`` 0 and ``value`` the heuristic's score (unbounded, higher is
    better: ``score_moves``). For ``RandomAgent``: ``visits`` 0 and ``value`` the chance it plays
    the move."""

    move: Move
    visits: int
    value: float


@dataclass(frozen=True)
class SearchResult:
    """What an agent's ``analyze(game)`` found (like python-chess's ``engine.PlayResult``): the
    hint of every agent.

    ``move`` is the agent's choice (for a search, the move ``select_move`` plays); ``moves`` every
    move considered with its statistics (the agent documents their order); ``iterations`` the
    playouts run, ``seconds`` the time taken, ``nodes`` the tree nodes used (0 for the rollout
    search, which builds no tree, and for the agents that do not search); ``interrupted`` whether
    ``agent.stop()`` (or a cancelled task) ended the search before its budget.
    """

    move: Move
    moves: Tuple[MoveStats, ...]
    iterations: int
    seconds: float
    nodes: int
    interrupted: bool = False
