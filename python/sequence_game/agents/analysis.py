"""Streaming analysis: ``agent.analysis(game, limit=...)`` yields what the search has found so far,
again and again until its budget is spent or it is stopped (as python-chess's ``engine.analysis()``
yields a UCI engine's ``info`` lines).

>>> import sequence_game
>>> from sequence_game.agents import Limit, MCTSAgent
>>> g = sequence_game.Game(players=2, seed=4)
>>> infos = list(MCTSAgent(seed=1).analysis(g, limit=Limit(iterations=3000), every=1000))
>>> [info.iterations for info in infos]
[1000, 2000, 3000]
>>> infos[-1].move == infos[-1].moves[0].move and infos[-1].move in g.legal_moves()
True

How it runs: the search goes in slices (``every``: seconds, or iterations for a budget of
iterations alone), each slice a search of its own tree, and each ``info`` sums the root statistics
of the slices so far: visits added, values averaged by visits, as the search's threads already
merge their trees (root parallelism, ``agents/mcts.py``). So the last ``info`` is a search of the
whole budget, made of several trees rather than one; a seeded agent's stream is reproducible when
the budget is iterations alone. The search holds no lock and no GIL while a slice runs; between two
``info`` the caller's code runs (in ``for``, the search waits for it).

The stream ends when the budget (the agent's, or the per-call ``limit``, docs/api.md) is spent,
when :meth:`Analysis.stop` or ``agent.stop()`` is called (from any thread: the running slice ends
at its next iteration and its ``info``, ``interrupted`` set, is the last), or when the caller
leaves the loop (``break``; the ``with`` form stops it on the way out).
"""

from __future__ import annotations

import dataclasses
import math
import threading
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from ..errors import short_repr
from ._worker import in_thread
from .results import MoveStats, SearchResult

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["Analysis", "check_every"]

#: Seconds between two ``info`` of a time-limited analysis when ``every`` is not given.
DEFAULT_EVERY = 0.25
_MAX_SECONDS = 1e6


def check_every(every: object) -> Optional[float]:
    """``every`` as a number > 0 (or None: the default); ``TypeError``/``ValueError`` saying what
    was given and what is expected."""
    if every is None:
        return None
    if isinstance(every, bool) or not isinstance(every, (int, float)):
        raise TypeError(f"every must be a number (seconds between two infos, or iterations for a budget of "
                        f"iterations alone), not {type(every).__name__} {short_repr(every)}")
    if not (math.isfinite(every) and 0 < every <= _MAX_SECONDS):
        raise ValueError(f"every must be > 0 and at most {_MAX_SECONDS:g}, not {short_repr(every)}")
    return float(every)


class Analysis:
    """A running analysis (``agent.analysis(game, limit=None, every=None)``): an iterator and an
    async iterator of :class:`~sequence_game.agents.SearchResult`, each the search so far (``move``
    the best so far, ``moves`` every candidate's visits and value, ``iterations`` and ``seconds``
    of search so far, ``nodes`` the tree nodes built); ``interrupted`` is set on the last one when
    it was stopped.

    ::

        for info in agent.analysis(game, limit=Limit(time=5)):
            show(info.move, info.moves[:3], info.iterations)      # about every 0.25 s
            if done_looking: break

        async for info in agent.analysis(game, limit=Limit(time=5)):
            await send(info)                                       # the event loop keeps going

    ``stop()`` ends it from any thread (so does a ``StopToken`` given as ``stop=``, or
    ``agent.stop()``); ``info`` is the latest result (None before the first).
    ``with`` / ``async with`` stop it on the way out. The game is copied when the analysis is made:
    the caller may change its own game meanwhile.
    """

    def __init__(self, agent: Any, game: GameBase, time_limit: Optional[float], iterations: Optional[int],
                 every: Optional[float], run: Callable[[Any, Optional[float], Optional[int], Any], Any],
                 rank: str = "visits", single: bool = False, token: Any = None) -> None:
        self._agent = agent
        self._token = token  # the caller's StopToken: every slice polls its flag
        self._single = single  # an agent that answers at once: one info, its analyze() as it is
        self._game = game
        self._time = time_limit
        self._iterations = iterations
        if every is None:
            every = DEFAULT_EVERY if time_limit is not None or iterations is None else float(max(1, -(-iterations // 10)))
        self._by_iterations = time_limit is None and iterations is not None
        if self._by_iterations:
            if not float(every).is_integer():
                raise ValueError(f"every must be a whole number of iterations >= 1 for a budget of iterations alone, "
                                 f"not {short_repr(every)}")
            self._every: float = float(every)
        else:
            self._every = every
        self._run = run
        self._rank = rank
        self._lock = threading.Lock()
        self._flag: Any = None
        self._stopped = False
        self._done = False
        self._busy = False
        self._stats: Dict[int, List[float]] = {}  # move id -> [visits, value * visits]
        self._moves: Dict[int, Any] = {}
        self._iterations_done = 0
        self._seconds = 0.0
        self._nodes = 0
        self._first_best: Optional[int] = None
        self.info: Optional[SearchResult] = None

    # ------------------------------------------------------------------ control

    def stop(self) -> None:
        """End the analysis from any thread: a running slice ends at its next iteration and its
        ``info`` (``interrupted`` set) is the last; between slices, the stream ends."""
        with self._lock:
            self._stopped = True
            if self._flag is not None:
                self._flag.set()

    @property
    def done(self) -> bool:
        """Whether the stream has ended (budget spent or stopped)."""
        return self._done

    def __enter__(self) -> Analysis:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> Analysis:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        state = "done" if self._done else "running"
        return f"<Analysis {state}: {self._iterations_done} iterations, {self._seconds:.3f} s>"

    # ------------------------------------------------------------------ iteration

    def __iter__(self) -> Analysis:
        return self

    def __next__(self) -> SearchResult:
        flag, budget = self._begin()
        if flag is None:
            raise StopIteration
        return self._agent._with_stop(flag, lambda: self._slice(flag, budget))  # type: ignore[no-any-return]

    def __aiter__(self) -> Analysis:
        return self

    async def __anext__(self) -> SearchResult:
        import asyncio  # an awaiting caller has it loaded already

        flag, budget = self._begin()
        if flag is None:
            raise StopAsyncIteration
        try:
            return await in_thread(flag, lambda: self._agent._with_stop(flag, lambda: self._slice(flag, budget)))
        except asyncio.CancelledError:
            self.stop()
            raise

    def _begin(self) -> Tuple[Any, Tuple[Optional[float], Optional[int]]]:
        """The next slice's stop flag (registered with the agent, so that ``agent.stop()`` reaches it)
        and budget; None when the stream has ended."""
        with self._lock:
            if self._busy:
                raise RuntimeError("this analysis is already running a slice in another thread or task: "
                                   "iterate it from one place")
            if self._stopped or self._done:
                if not self._done and self.info is not None:  # stopped between two slices
                    self.info = dataclasses.replace(self.info, interrupted=True)
                self._done = True
                return None, (None, None)
            if self._by_iterations:
                assert self._iterations is not None
                budget: Tuple[Optional[float], Optional[int]] = (
                    None, int(min(self._every, self._iterations - self._iterations_done)))
            else:
                seconds = self._every if self._time is None else min(self._every, self._time - self._seconds)
                left = None if self._iterations is None else self._iterations - self._iterations_done
                budget = (max(seconds, 1e-3), left)
            self._flag = self._agent._register(self._token)
            self._busy = True
            return self._flag, budget

    def _slice(self, flag: Any, budget: Tuple[Optional[float], Optional[int]]) -> SearchResult:
        try:
            r = self._run(self._game, budget[0], budget[1], flag)
        except BaseException:
            with self._lock:
                self._done, self._busy, self._flag = True, False, None
            raise
        with self._lock:
            self._busy, self._flag = False, None
            if self._single:
                self._done, self.info = True, r
                return self.info
            interrupted = bool(r.interrupted) or flag.is_set or self._stopped
            self._merge(r)
            spent = ((self._iterations is not None and self._iterations_done >= self._iterations)
                     or (self._time is not None and self._seconds >= self._time - 1e-3))
            self._done = interrupted or spent
            if interrupted:
                self._stopped = True
            self.info = self._result(interrupted)
            return self.info

    def _merge(self, r: Any) -> None:
        from ..game import move_from_id

        if self._first_best is None:
            self._first_best = r.best
        for move, visits, value in r.moves:
            stats = self._stats.setdefault(move, [0.0, 0.0])
            stats[0] += visits
            stats[1] += value * visits
            if move not in self._moves:
                self._moves[move] = move_from_id(move)
        self._iterations_done += r.iterations
        self._seconds += r.seconds
        self._nodes += r.nodes

    def _result(self, interrupted: bool) -> SearchResult:
        from ..game import move_from_id

        def value(move: int) -> float:
            visits, total = self._stats[move]
            return total / visits if visits else 0.0

        if self._rank == "value":  # the rollout search: best mean first (ties: most visits, lowest id)
            order = sorted(self._stats, key=lambda m: (-value(m), -self._stats[m][0], m))
        elif self._rank == "visits-value":  # sequential halving: the last in play first, then best mean
            order = sorted(self._stats, key=lambda m: (-self._stats[m][0], -value(m), m))
        else:  # the tree search: most visits first (ties: lowest core move id), as the core ranks them
            order = sorted(self._stats, key=lambda m: (-self._stats[m][0], m))
        moves = tuple(MoveStats(self._moves[m], int(self._stats[m][0]), value(m)) for m in order)
        best = moves[0].move if moves else move_from_id(self._first_best or 0)
        return SearchResult(move=best, moves=moves, iterations=self._iterations_done, seconds=self._seconds,
                            nodes=self._nodes, interrupted=interrupted)
