"""``RolloutAgent``: determinized rollout search with common random numbers, in the compiled core.

The search (``cpp/include/sequence/search/rollout.hpp``) improves on the move heuristic of
:class:`~sequence_game.agents.GreedyAgent` by looking ahead. It keeps the ``candidates`` moves the
heuristic rates highest (a move that wins at once, R8, is played without search), then over and over
samples one *world* -- the cards the player cannot see (R9: the other hands and the draw pile) dealt
at random -- and plays every candidate in that same world, each followed by the same heuristic
playout for ``horizon`` turns (to the end of the game by default), scored 1 for a win, 0 for a loss
and ``1/teams`` for a draw (a position still open at the horizon gets the static evaluation of
``evaluate.hpp``). The candidate with the best mean is played.

Why not a tree: Sequence is a game of heavy luck. When each move is tried in worlds of its own (as the
iterations of :class:`~sequence_game.agents.MCTSAgent` do), the luck of the deal swamps the difference
between moves; when all candidates meet the *same* cards (common random numbers) the luck cancels out
of their comparison. In practice, at one second a move :class:`~sequence_game.agents.MCTSAgent` is the
stronger player (``docs/agents.md``); this agent's shared deals make it the tool for measuring what
hidden information is worth (``reveal``) and the base for opponent modelling.

Opponent modelling (``inference_strength``): the last play of another player is evidence about the
hand it was made from. A sampled world in which that player could have made a much better move --
completed a sequence, blocked a four -- but did not is unlikely, so worlds are drawn by rejection,
each accepted with probability ``exp(-inference_strength * shortfall)`` (the shortfall on a log scale
of the heuristic's scores). Only public information is read: the board before and after that play
and the card it put on the discard pile. Off by default: at 40 games per setting against
GreedyAgent no gain could be measured (benchmarks/README.md, "Strength").

>>> import sequence_game
>>> g = sequence_game.Game(players=2, seed=4)
>>> RolloutAgent(iterations=200, seed=1).select_move(g) in g.legal_moves()
True
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from .. import _core
from .._args import is_int as _is_int
from ..game import Game
from .search import SearchAgent, check_number

__all__ = ["RolloutAgent"]

DEFAULT_TIME_LIMIT = 1.0


class RolloutAgent(SearchAgent):
    """Determinized rollout search with common random numbers (see the module docstring).

    Parameters:
        iterations: playouts per move (all candidates and threads together), an int >= 1.
        time_limit: seconds per move, a number > 0. With both, whichever comes first; with
            neither, ``time_limit=1.0``.
        threads: 1..256 threads (the worlds are split between them).
        seed: None (random) or an int in ``0 .. 2**64 - 1``; with an iteration budget and no time
            limit, a seeded agent makes the same moves.
        candidates: how many of the heuristic's best moves are compared (1..1024, default 8).
        horizon: playout turns after the candidate move (default 200: to the end of the game).
        epsilon: the chance (0..1) of a random legal move at each playout turn (default 0).
        inference_strength: opponent modelling from the last play (>= 0; default 0 = off, 3 tested).
        reveal: TEST ONLY, for measuring what hidden information is worth: 1 reads the other
            hands from the true state (only the draw pile is sampled), 2 searches the true state.
    """

    agent_label = "RolloutAgent"

    def __init__(self, iterations: Optional[int] = None, time_limit: Optional[float] = None, threads: int = 1,
                 seed: Optional[int] = None, candidates: int = 8, horizon: int = 200, epsilon: float = 0.0,
                 inference_strength: float = 0.0, reveal: int = 0) -> None:
        self._init_budget(iterations, time_limit, threads, seed, default_time_limit=DEFAULT_TIME_LIMIT)
        for label, value, lo, hi in (("candidates", candidates, 1, 1024), ("horizon", horizon, 1, 2**31 - 1),
                                     ("reveal", reveal, 0, 2)):
            if not _is_int(value):
                raise TypeError(f"{label} must be an int, not {type(value).__name__} {value!r}")
            if not lo <= value <= hi:
                raise ValueError(f"{label} must be from {lo} to {hi}, not {value}")
        self.candidates = candidates
        self.horizon = horizon
        self.epsilon = check_number("epsilon", epsilon, upper=1)
        self.inference_strength = check_number("inference_strength", inference_strength)
        self.reveal = reveal
        shown = [f"iterations={self.iterations}" if self.iterations is not None else None,
                 f"time={self.time_limit}" if self.time_limit is not None else None,
                 f"threads={threads}" if threads != 1 else None,
                 f"seed={seed}" if seed is not None else None,
                 f"reveal={reveal}" if reveal else None]
        self.name = "rollout:" + ",".join(s for s in shown if s)

    def __repr__(self) -> str:
        return (f"RolloutAgent(iterations={self.iterations!r}, time_limit={self.time_limit!r}, threads={self.threads}, "
                f"seed={self.seed!r}, candidates={self.candidates}, horizon={self.horizon}, epsilon={self.epsilon}, "
                f"inference_strength={self.inference_strength}, reveal={self.reveal})")

    def _search(self, game: Game) -> Dict[str, Any]:
        return _core.rollout_search(game._state, self.iterations, self.time_limit, self.threads,
                                    self._rng.getrandbits(64), self.candidates, self.horizon, self.epsilon,
                                    self.reveal, self.inference_strength)

    def analyze(self, game: Any) -> Dict[str, Any]:
        """Search the position and report every candidate: ``{"moves": [{"move", "visits",
        "value"}, ...] (best mean first), "best", "iterations", "seconds"}``. ``visits`` is the
        number of deals the move was played in (the same for every candidate) and ``value`` its
        mean reward for the mover's team in [0, 1]."""
        return super().analyze(game)
