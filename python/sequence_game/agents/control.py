"""What every agent of the package offers an app around one decision: a :class:`Limit` per call,
the awaitable forms, and :meth:`AgentBase.stop` (a search's "move now").

An app runs the AI off its UI thread. ``await agent.select_move_async(game, limit=...)`` copies the
game on the calling thread (the app may keep using and changing its own game meanwhile) and runs the
decision on a worker thread; the compiled searches release the GIL while they run, so the event loop
and other Python threads keep going. Cancelling the awaiting task stops the search it started, and
``agent.stop()`` (from any thread) ends every search the agent is running: each returns the best move
found so far.

>>> import asyncio, sequence_game
>>> from sequence_game.agents import GreedyAgent
>>> g = sequence_game.Game(players=2, seed=4)
>>> asyncio.run(GreedyAgent(seed=1).select_move_async(g)) in g.legal_moves()
True
>>> Limit(time=0.5)
Limit(time=0.5, iterations=None)
"""

from __future__ import annotations

import asyncio
import math
import threading
from dataclasses import dataclass
from typing import Any, Callable, Optional, Set, TypeVar

from .. import _core
from .._args import plain_int
from ..errors import short_repr
from ..move import Move

__all__ = ["AgentBase", "Limit", "check_limit"]

_T = TypeVar("_T")
_MAX_SECONDS = 1e6  # the core's OptionLimits::kMaxSeconds (cpp/include/sequence/search/options.hpp)


@dataclass(frozen=True)
class Limit:
    """The budget of one decision (like python-chess's ``engine.Limit``): ``time`` in seconds (a
    number > 0), ``iterations`` (an int >= 1), or both (whichever comes first). At least one is set.

    Given to ``select_move(game, limit=...)`` or ``analyze(game, limit=...)`` it replaces the agent's
    own budget for that call only: the fields it leaves ``None`` are no limit (``Limit(time=0.3)`` on
    the ``hard`` preset searches 0.3 s, however many iterations that is). Agents that answer at once
    (``GreedyAgent``, ``RandomAgent``) accept and ignore it.

    >>> Limit(iterations=0)
    Traceback (most recent call last):
    ...
    ValueError: Limit iterations must be an int >= 1 (playouts of the search), not 0
    """

    time: Optional[float] = None
    iterations: Optional[int] = None

    def __post_init__(self) -> None:
        if self.time is None and self.iterations is None:
            raise ValueError("a Limit sets time (seconds), iterations or both, e.g. Limit(time=0.5)")
        if self.time is not None:
            t = self.time
            if isinstance(t, bool) or not isinstance(t, (int, float)):
                raise TypeError(f"Limit time must be a number of seconds, not {type(t).__name__} {short_repr(t)}")
            if not (math.isfinite(t) and 0 < t <= _MAX_SECONDS):
                raise ValueError(f"Limit time must be seconds > 0 and at most {_MAX_SECONDS:g}, not {short_repr(t)}")
            object.__setattr__(self, "time", float(t))
        if self.iterations is not None:
            n = plain_int(self.iterations)
            if n is None:
                raise TypeError(f"Limit iterations must be an int, not {type(self.iterations).__name__} "
                                f"{short_repr(self.iterations)}")
            if not 1 <= n < 2**63:
                raise ValueError(f"Limit iterations must be an int >= 1 (playouts of the search), not {n}")
            object.__setattr__(self, "iterations", n)


def check_limit(limit: object) -> Optional[Limit]:
    """``limit`` if it is a :class:`Limit` or None; ``TypeError`` naming what was given else."""
    if limit is None or isinstance(limit, Limit):
        return limit
    raise TypeError(f"limit must be a sequence_game.agents.Limit (e.g. Limit(time=0.5)) or None, "
                    f"not {type(limit).__name__} {short_repr(limit)}")


class AgentBase:
    """The decision surface every agent of the package shares (subclasses define
    ``_decide(game, limit, stop)`` and ``analyze``).

    - ``select_move(game, limit=None)``: the move, the game unchanged.
    - ``await select_move_async(game, limit=None)`` / ``await analyze_async(game, limit=None)``: the
      same on a worker thread, on a copy of the game made before the call returns control.
      Cancelling the task stops its search.
    - ``stop()``: ends every search this agent is running now (thread-safe); each returns its best
      move so far. A no-op for agents that answer at once, and when nothing runs.
    """

    _stops_lock: threading.Lock
    _stops: Set[Any]

    def _running(self) -> Set[Any]:
        # Created on first use so that subclasses need not call a base __init__.
        stops: Optional[Set[Any]] = self.__dict__.get("_stops")
        if stops is None:
            self.__dict__.setdefault("_stops_lock", threading.Lock())
            stops = self.__dict__.setdefault("_stops", set())
        return stops

    def _with_stop(self, flag: Any, run: Callable[[], _T]) -> _T:
        """``run()`` while :meth:`stop` can raise ``flag`` (registered by the caller's thread before
        the work is handed to another, so a ``stop()`` right after the call is not missed)."""
        try:
            return run()
        finally:
            with self._stops_lock:
                self._running().discard(flag)

    def _register(self) -> Any:
        """A new ``_core.StopFlag`` that :meth:`stop` raises until the work holding it ends."""
        flag = _core.StopFlag()
        running = self._running()
        with self._stops_lock:
            running.add(flag)
        return flag

    def stop(self) -> None:
        """End every search this agent is running now, from any thread: each returns the best move
        it has found so far (``select_move``), or its statistics so far with ``interrupted`` set
        (``analyze``). Searches started later are not affected."""
        running = self._running()
        with self._stops_lock:
            for flag in running:
                flag.set()

    def select_move(self, game: Any, limit: Optional[Limit] = None) -> Move:
        """The agent's move for the player to move; ``limit`` (a :class:`Limit`) replaces the
        agent's budget for this call. The game is not changed."""
        checked = check_limit(limit)
        flag = self._register()
        return self._with_stop(flag, lambda: self._decide(game, checked, flag))

    def _decide(self, game: Any, limit: Optional[Limit], stop: Optional[Any]) -> Move:  # pragma: no cover
        raise NotImplementedError

    def analyze(self, game: Any, limit: Optional[Limit] = None) -> Any:  # pragma: no cover - per agent
        raise NotImplementedError

    async def select_move_async(self, game: Any, limit: Optional[Limit] = None) -> Move:
        """``select_move`` on a worker thread (the event loop's default executor), on a copy of
        ``game`` taken now. Cancelling the awaiting task stops the search (its thread ends at the
        next iteration) and raises ``CancelledError`` as usual. A subclass that overrides
        ``select_move`` has that method called (with ``limit`` only when one is given)."""
        checked = check_limit(limit)
        snapshot = game.copy()
        flag = self._register()
        if type(self).select_move is not AgentBase.select_move:
            # A subclass's own select_move decides (stop() reaches it only if it calls the base's).
            own = self.select_move
            decide: Callable[[], Move] = (lambda: own(snapshot)) if checked is None else (lambda: own(snapshot, checked))
        else:
            decide = lambda: self._decide(snapshot, checked, flag)  # noqa: E731
        return await _in_thread(flag, lambda: self._with_stop(flag, decide))

    async def analyze_async(self, game: Any, limit: Optional[Limit] = None) -> Any:
        """``analyze`` on a worker thread, on a copy of ``game`` taken now; cancelling the task
        stops the search."""
        checked = check_limit(limit)
        snapshot = game.copy()
        flag = self._register()
        return await _in_thread(flag, lambda: self._with_stop(flag, lambda: self._analyze(snapshot, checked, flag)))

    def _analyze(self, game: Any, limit: Optional[Limit], stop: Any) -> Any:
        return self.analyze(game, limit)

    def analysis(self, game: Any, limit: Optional[Limit] = None, every: Optional[float] = None) -> Any:
        """A streaming analysis of ``game`` (:class:`~sequence_game.agents.analysis.Analysis`): an
        iterator and an async iterator of results so far. An agent that answers at once gives one,
        its :meth:`analyze`; the searches give one about every ``every`` seconds (see
        :mod:`~sequence_game.agents.analysis`)."""
        from .analysis import Analysis, check_every

        checked = check_limit(limit)
        check_every(every)
        snapshot = game.copy()
        if snapshot.is_over:
            self.analyze(snapshot, checked)  # its own "the game is over" error
        return Analysis(self, snapshot, None, 1, 1, lambda g, seconds, iterations, flag: self.analyze(g, checked),
                        single=True)


async def _in_thread(flag: Any, work: Callable[[], _T]) -> _T:
    """``work()`` in the loop's default executor; a cancelled await raises ``flag`` first, so the
    thread's search ends soon instead of running on unseen."""
    future = asyncio.get_running_loop().run_in_executor(None, work)
    try:
        return await future
    except asyncio.CancelledError:
        flag.set()
        raise
