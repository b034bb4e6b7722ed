"""What the two compiled-core search agents share: the budget arguments, the seeded generator and
``select_move``/``analyze`` around one search call.

Subclasses (:class:`~sequence_game.agents.MCTSAgent`, :class:`~sequence_game.agents.RolloutAgent`)
set ``agent_label`` and implement ``_search(game) -> dict`` (the ``_core`` search's result) and
``_report(result) -> dict`` (their extra ``analyze`` fields).
"""

from __future__ import annotations

import math
import os
import random
from typing import Any, Dict, Optional

from .._args import is_int as _is_int
from ..game import Game, move_from_id
from ..move import Move


def is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def core_game(game: Any, agent: str) -> Game:
    """``game`` as a compiled-core Game for a search (a reference Game is converted by its state)."""
    if isinstance(game, Game):
        return game
    to_dict = getattr(game, "to_dict", None)
    if to_dict is None:
        raise TypeError(f"{agent} needs a sequence_game.Game, not {type(game).__name__}")
    return Game.from_dict(to_dict())  # e.g. a sequence_game.reference.Game (no history)


def check_number(label: str, value: object, upper: Optional[float] = None) -> float:
    """A finite number >= 0 (and <= upper): the float, else TypeError/ValueError naming it."""
    if not is_number(value):
        raise TypeError(f"{label} must be a number, not {type(value).__name__}")
    if not (value >= 0 and math.isfinite(value)):  # type: ignore[operator]
        raise ValueError(f"{label} must be a finite number >= 0, not {value}")
    if upper is not None and value > upper:  # type: ignore[operator]
        raise ValueError(f"{label} must be from 0 to {upper}, not {value}")
    return float(value)  # type: ignore[arg-type]


class SearchAgent:
    agent_label = "SearchAgent"

    def _init_budget(self, iterations: Optional[int], time_limit: Optional[float], threads: int,
                     seed: Optional[int], default_iterations: Optional[int] = None,
                     default_time_limit: Optional[float] = None) -> None:
        """Checks and stores iterations, time_limit (one default when both are None), threads, seed."""
        if iterations is not None:
            if not _is_int(iterations):
                raise TypeError(f"iterations must be an int or None, not {type(iterations).__name__} {iterations!r}")
            if iterations < 1:
                raise ValueError(f"iterations must be at least 1 (or None), not {iterations}")
        if time_limit is not None:
            if not is_number(time_limit):
                raise TypeError(f"time_limit must be a number of seconds or None, not {type(time_limit).__name__}")
            if not (time_limit > 0 and math.isfinite(time_limit)):
                raise ValueError(f"time_limit must be a positive number of seconds, not {time_limit}")
        if iterations is None and time_limit is None:
            iterations, time_limit = default_iterations, default_time_limit
        if not _is_int(threads):
            raise TypeError(f"threads must be an int, not {type(threads).__name__} {threads!r}")
        if not 1 <= threads <= 256:
            raise ValueError(f"threads must be from 1 to 256, not {threads}")
        if seed is not None:
            if not _is_int(seed):
                raise TypeError(f"seed must be an int or None, not {type(seed).__name__} {seed!r}")
            if not 0 <= seed < 2**64:
                raise ValueError(f"seed {seed} is out of range: use an int from 0 to 2**64 - 1")
        self.iterations = iterations
        self.time_limit = float(time_limit) if time_limit is not None else None
        self.threads = threads
        self.seed = seed
        self._rng = random.Random(seed if seed is not None else int.from_bytes(os.urandom(8), "little"))

    def _search(self, game: Game) -> Dict[str, Any]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _report(self, result: Dict[str, Any]) -> Dict[str, Any]:
        return {}

    def select_move(self, game: Any) -> Move:
        """The search's best move for the player to move (the game is not changed)."""
        g = core_game(game, self.agent_label)
        if g.is_over:
            raise ValueError("the game is over: there is no move to select")
        ids = g._state.legal_moves()
        if len(ids) == 1:  # nothing to decide
            return move_from_id(ids[0])
        return move_from_id(self._search(g)["best"])

    def analyze(self, game: Any) -> Dict[str, Any]:
        """Search the position and report ``{"moves": [{"move", "visits", "value"}, ...], "best",
        "iterations", "seconds", ...}`` (``value``: the move's mean reward for the mover's team in
        [0, 1]; the subclass documents its order and extra fields)."""
        g = core_game(game, self.agent_label)
        if g.is_over:
            raise ValueError("the game is over: there is no move to select")
        r = self._search(g)
        out = {
            "moves": [{"move": move_from_id(m), "visits": v, "value": val} for m, v, val in r["moves"]],
            "best": move_from_id(r["best"]),
            "iterations": r["iterations"],
            "seconds": r["seconds"],
        }
        out.update(self._report(r))
        return out
