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

import math
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Optional, Set, Tuple, TypeVar

from .. import _core
from .._args import plain_int
from ..errors import short_repr
from ..move import Move
from ._worker import in_thread
from .analysis import Analysis, check_every

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["AgentBase", "Limit", "StopToken", "budget_for", "check_game", "check_limit", "check_stop"]

_T = TypeVar("_T")
_MAX_SECONDS = 1e6  # the core's OptionLimits::kMaxSeconds (cpp/include/sequence/search/options.hpp)
_MAX_ITERATIONS = 2**62  # OptionLimits::kMaxIterations


@dataclass(frozen=True)
class Limit:
    """The budget of one decision (like python-chess's ``engine.Limit``): ``time`` in seconds (a
    number > 0), ``iterations`` (an int >= 1), or both (whichever comes first). At least one is set.

    Given to ``select_move(game, limit=...)``, ``analyze`` or ``analysis``, it changes the agent's
    own budget for that call only, field by field: a field it sets replaces the agent's, a field it
    leaves ``None`` keeps the agent's. So a per-call limit never drops a cap it does not name:
    ``Limit(iterations=10**12)`` on the ``hard`` preset still stops at hard's time cap, and
    ``Limit(time=0.3)`` on ``hard`` at 0.3 s or hard's 6,000 playouts, whichever comes first. To
    lift a cap, name it: ``time=math.inf`` is no time cap, a large ``iterations`` (up to
    ``2**62``) no iteration cap (a search needs one of the two). One exception: ``analysis``
    given a time alone searches that time, without the agent's iteration budget. Agents that
    answer at once (``GreedyAgent``, ``RandomAgent``) accept and ignore it.

    >>> Limit(iterations=0)
    Traceback (most recent call last):
    ...
    ValueError: Limit iterations must be an int from 1 to 2**62 (playouts of the search), not 0
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
            if not (t == math.inf or (math.isfinite(t) and 0 < t <= _MAX_SECONDS)):
                raise ValueError(f"Limit time must be seconds > 0 and at most {_MAX_SECONDS:g} (or math.inf: no time "
                                 f"cap), not {short_repr(t)}")
            object.__setattr__(self, "time", float(t))
        if self.iterations is not None:
            n = plain_int(self.iterations)
            if n is None:
                raise TypeError(f"Limit iterations must be an int, not {type(self.iterations).__name__} "
                                f"{short_repr(self.iterations)}")
            if not 1 <= n <= _MAX_ITERATIONS:
                raise ValueError(f"Limit iterations must be an int from 1 to 2**62 (playouts of the search), not "
                                 f"{short_repr(n)}")
            object.__setattr__(self, "iterations", n)


def budget_for(limit: Optional[Limit], time_limit: Optional[float], iterations: Optional[int],
               ) -> Tuple[Optional[float], Optional[int]]:
    """``(time_limit, iterations)`` of one call: the agent's own, each field ``limit`` sets replacing
    it (``time=math.inf``: no time cap); ``ValueError`` when that leaves no budget at all."""
    if limit is None:
        return time_limit, iterations
    if limit.time is not None:
        time_limit = None if math.isinf(limit.time) else limit.time
    if limit.iterations is not None:
        iterations = limit.iterations
    if time_limit is None and iterations is None:
        raise ValueError(f"{limit} lifts the time cap of an agent that has no iteration budget: a search needs one; "
                         "give iterations too")
    return time_limit, iterations


class StopToken:
    """Ends one decision from any thread, and only that one: pass it as ``stop=`` to
    ``select_move``, ``analyze``, their async forms or ``analysis``, and ``token.set()`` (a "move
    now" button) makes that call return what it has found so far, while the same agent's other
    searches (other sessions of a shared agent) go on. A token stays set: make one per decision.

    >>> token = StopToken()
    >>> token.set()
    >>> token.is_set
    True
    """

    __slots__ = ("_flag",)

    def __init__(self) -> None:
        self._flag = _core.StopFlag()

    def set(self) -> None:
        """End the decision this token was given to (thread-safe; the GIL is not needed)."""
        self._flag.set()

    @property
    def is_set(self) -> bool:
        return bool(self._flag.is_set)

    def __repr__(self) -> str:
        return f"StopToken({'set' if self.is_set else 'not set'})"


def check_stop(stop: object) -> Optional[StopToken]:
    """``stop`` if it is a :class:`StopToken` or None; ``TypeError`` naming what was given else."""
    if stop is None or isinstance(stop, StopToken):
        return stop
    raise TypeError(f"stop must be a sequence_game.agents.StopToken (token = StopToken(); token.set() ends the "
                    f"call) or None, not {type(stop).__name__} {short_repr(stop)}")


def check_game(game: object, call: str) -> None:
    """``TypeError`` unless ``game`` is a game (a ``sequence_game.Game`` or anything with its
    ``legal_moves``), saying what was passed: ``select_move("7H@d6")`` is a move, not a game."""
    from ..gamebase import GameBase

    kind = type(game)
    if isinstance(game, GameBase) or callable(getattr(kind, "legal_moves", None)):
        return
    if not isinstance(game, (str, bytes, Move)) and hasattr(kind, "__getattr__"):
        return  # a proxy (a test's watched game): its attributes are its own business, not read here
    hint = "; to play a move, game.play(move)" if isinstance(game, (str, Move)) else ""
    raise TypeError(f"{call} takes the game to move in (a sequence_game.Game), not {type(game).__name__} "
                    f"{short_repr(game)}{hint}")


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

    def _register(self, token: Optional[StopToken] = None) -> Any:
        """A ``_core.StopFlag`` (``token``'s own, else a new one) that :meth:`stop` raises until the
        work holding it ends."""
        flag = _core.StopFlag() if token is None else token._flag
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

    def select_move(self, game: GameBase, limit: Optional[Limit] = None, stop: Optional[StopToken] = None) -> Move:
        """The agent's move for the player to move; ``limit`` (a :class:`Limit`) changes the
        agent's budget for this call, ``stop`` (a :class:`StopToken`) ends this call alone. The
        game is not changed."""
        check_game(game, "select_move")
        checked = check_limit(limit)
        flag = self._register(check_stop(stop))
        return self._with_stop(flag, lambda: self._decide(game, checked, flag))

    def _decide(self, game: GameBase, limit: Optional[Limit], stop: Optional[Any]) -> Move:  # pragma: no cover
        raise NotImplementedError

    def analyze(self, game: GameBase, limit: Optional[Limit] = None,
                stop: Optional[StopToken] = None) -> Any:  # pragma: no cover - per agent
        raise NotImplementedError

    async def select_move_async(self, game: GameBase, limit: Optional[Limit] = None,
                                stop: Optional[StopToken] = None) -> Move:
        """``select_move`` on a worker thread (the event loop's default executor), on a copy of
        ``game`` taken now. Cancelling the awaiting task stops the search (its thread ends at the
        next iteration) and raises ``CancelledError`` as usual. A subclass that overrides
        ``select_move`` has that method called (with ``limit`` only when one is given)."""
        check_game(game, "select_move_async")
        checked = check_limit(limit)
        token = check_stop(stop)
        snapshot = game.copy()
        flag = self._register(token)
        if type(self).select_move is not AgentBase.select_move:
            # A subclass's own select_move decides (stop() reaches it only if it calls the base's).
            own = self.select_move
            decide: Callable[[], Move] = (lambda: own(snapshot)) if checked is None else (lambda: own(snapshot, checked))
        else:
            decide = lambda: self._decide(snapshot, checked, flag)  # noqa: E731
        return await in_thread(flag, lambda: self._with_stop(flag, decide))

    async def analyze_async(self, game: GameBase, limit: Optional[Limit] = None, stop: Optional[StopToken] = None) -> Any:
        """``analyze`` on a worker thread, on a copy of ``game`` taken now; cancelling the task
        stops the search."""
        check_game(game, "analyze_async")
        checked = check_limit(limit)
        token = check_stop(stop)
        snapshot = game.copy()
        flag = self._register(token)
        return await in_thread(flag, lambda: self._with_stop(flag, lambda: self._analyze(snapshot, checked, flag)))

    def _analyze(self, game: GameBase, limit: Optional[Limit], stop: Any) -> Any:
        return self.analyze(game, limit)

    def analysis(self, game: GameBase, limit: Optional[Limit] = None, every: Optional[float] = None,
                 stop: Optional[StopToken] = None) -> Any:
        """A streaming analysis of ``game`` (:class:`~sequence_game.agents.analysis.Analysis`): an
        iterator and an async iterator of results so far. An agent that answers at once gives one,
        its :meth:`analyze`; the searches give one about every ``every`` seconds (see
        :mod:`~sequence_game.agents.analysis`)."""
        check_game(game, "analysis")
        checked = check_limit(limit)
        check_every(every)
        check_stop(stop)
        snapshot = game.copy()
        if snapshot.is_over:
            self.analyze(snapshot, checked)  # its own "the game is over" error
        return Analysis(self, snapshot, None, 1, 1, lambda g, seconds, iterations, flag: self.analyze(g, checked),
                        single=True)
