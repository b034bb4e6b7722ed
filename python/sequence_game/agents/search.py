"""What the two compiled-core search agents share: options checked once at construction (by the
core's ``SearchOptions`` / ``RolloutOptions``), the seeded generator, ``select_move``/``analyze``
around one search call, and the typed result.

Subclasses (:class:`~sequence_game.agents.MCTSAgent`, :class:`~sequence_game.agents.RolloutAgent`)
set ``agent_label``, ``spec_label`` and ``_run(game, seed, options, stop) -> _core.SearchResult``.
"""

from __future__ import annotations

import copy
import math
import random
from typing import TYPE_CHECKING, Any, Dict, List, Literal, Optional

from .. import _core
from .._args import check_seed, seed_or_random
from ..game import Game, move_from_id
from ..move import Move
from .analysis import Analysis, check_every
from .base import game_over_message
from .control import AgentBase, Limit, StopToken, budget_for, check_game, check_limit, check_stop
from .results import MoveStats, SearchResult

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["MoveStats", "SearchAgent", "SearchResult"]


def core_game(game: GameBase, agent: str) -> Game:
    """``game`` as a compiled-core Game for a search (a reference Game is converted by its state)."""
    if isinstance(game, Game):
        return game
    to_dict = getattr(game, "to_dict", None)
    if to_dict is None:
        raise TypeError(f"{agent} needs a sequence_game.Game, not {type(game).__name__}")
    converted: Game = Game.from_dict(to_dict())  # e.g. a sequence_game.reference.Game (no history)
    return converted


def budget(iterations: Optional[int], time_limit: Optional[float]) -> Dict[str, Any]:
    """The budget keywords of an options struct: none when neither is given (the struct's default
    budget), else both (None = no budget of that kind)."""
    if iterations is None and time_limit is None:
        return {}
    return {"iterations": iterations, "time_limit": time_limit}


def hint_generator(seed: int) -> random.Random:
    """The generator of an agent's hints (``analyze``), apart from the one its moves draw from, so
    that asking for a hint never changes the moves a seeded agent makes."""
    return random.Random(f"hint:{seed}")


class SearchAgent(AgentBase):
    """A search of the compiled core as an agent. ``options`` (the core's options struct, checked
    when built) holds every search parameter; they read as attributes of the agent too
    (``agent.threads``)."""

    agent_label = "SearchAgent"
    spec_label = "search"
    options: Any
    #: How analysis() ranks the merged moves: "visits" (a tree), "value" (best mean) or
    #: "visits-value" (most visits, then best mean: sequential halving's survivors first).
    _rank = "visits"
    #: The searches' test hook ``peek`` (agents/_peeking.py): "none" for every agent that plays (R9).
    _peek: Literal["none", "hands", "all"] = "none"

    def _init_search(self, options: Any, seed: Optional[int]) -> None:
        self.options = options
        self.seed = check_seed(seed)
        base = seed_or_random(seed)
        self._rng = random.Random(base)
        self._hint_rng = hint_generator(base)
        shown: List[Optional[str]] = [f"iterations={options.iterations}" if options.iterations is not None else None,
                 f"time={options.time_limit}" if options.time_limit is not None else None,
                 f"threads={options.threads}" if options.threads != 1 else None,
                 f"seed={seed}" if seed is not None else None]
        shown += self._spec_extras()
        text = ",".join(s for s in shown if s)
        self.name = self.spec_label + (":" + text if text else "")

    def _spec_extras(self) -> List[Optional[str]]:
        return []

    def __getattr__(self, name: str) -> Any:
        options = self.__dict__.get("options")
        if options is not None and name in type(options).fields:
            return getattr(options, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self.options, k)!r}" for k in type(self.options).fields if k != "seed")
        return f"{type(self).__name__}({fields}, seed={self.seed!r})"

    def _run(self, game: Game, seed: int, options: Any, stop: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _options_for(self, limit: Optional[Limit]) -> Any:
        """The agent's options, or a copy with the budget of ``limit``: each field it sets replaces
        the agent's, each it leaves None keeps it (``time=math.inf`` lifts the time cap)."""
        if limit is None:
            return self.options
        time_limit, iterations = budget_for(limit, self.options.time_limit, self.options.iterations)
        options = copy.copy(self.options)
        # Each field is checked as it is set (a search needs a budget): the one given goes first.
        if time_limit is not None:
            options.time_limit = time_limit
            options.iterations = iterations
        else:
            options.iterations = iterations
            options.time_limit = None
        return options

    def _decide(self, game: GameBase, limit: Optional[Limit], stop: Any) -> Move:
        """The search's best move for the player to move (the game is not changed)."""
        g = core_game(game, self.agent_label)
        if g.is_over:
            raise ValueError(game_over_message(g))
        ids = g._state.legal_moves()
        if len(ids) == 1:  # nothing to decide
            return move_from_id(ids[0])
        return move_from_id(self._run(g, self._rng.getrandbits(64), self._options_for(limit), stop).best)

    def analyze(self, game: GameBase, limit: Optional[Limit] = None, stop: Optional[StopToken] = None) -> SearchResult:
        """Search the position and report what was found (:class:`SearchResult`). ``limit``
        changes the agent's budget for this call (:class:`Limit`), ``stop`` ends this call alone
        (:class:`StopToken`). The search draws its seed from the agent's hint generator, never
        from the one its moves use: a hint does not change what a seeded agent plays next."""
        check_game(game, "analyze")
        checked = check_limit(limit)
        flag = self._register(check_stop(stop))
        return self._with_stop(flag, lambda: self._analyze(game, checked, flag))

    def analysis(self, game: GameBase, limit: Optional[Limit] = None, every: Optional[float] = None,
                 stop: Optional[StopToken] = None) -> Analysis:
        """Search the position and yield what was found so far, about every ``every`` seconds
        (default 0.25; for a budget of iterations alone, every ``every`` iterations, default a
        tenth of them) until the budget is spent or the analysis is stopped: an iterator and an
        async iterator of :class:`SearchResult` (:class:`~sequence_game.agents.analysis.Analysis`).
        The budget is the agent's with ``limit`` laid over it as for :meth:`analyze`, but for one
        case: a ``limit`` of a (finite) time alone searches that time, without the agent's
        iteration budget (an analysis pane asked for that long, as over HTTP). The game is copied
        now. The slices draw their seeds from the agent's hint generator."""
        check_game(game, "analysis")
        checked = check_limit(limit)
        step = check_every(every)
        token = check_stop(stop)
        g = core_game(game, self.agent_label)
        if g.is_over:
            raise ValueError(game_over_message(g, "analyze"))
        snapshot = g.copy()
        options = self._options_for(checked)
        if checked is not None and checked.iterations is None and checked.time is not None \
                and not math.isinf(checked.time):
            options = copy.copy(options)  # the time asked for, with no iteration budget to cut it short
            options.time_limit = checked.time
            options.iterations = None

        def run(position: Game, seconds: Optional[float], iterations: Optional[int], flag: Any) -> Any:
            sliced = copy.copy(options)
            if seconds is not None:  # each field is checked as it is set: the one given goes first
                sliced.time_limit = seconds
                sliced.iterations = iterations
            else:
                sliced.iterations = iterations
                sliced.time_limit = None
            return self._run(position, self._hint_rng.getrandbits(64), sliced, flag)

        return Analysis(self, snapshot, options.time_limit, options.iterations, step, run,
                        rank=self._rank, token=token)

    def _analyze(self, game: GameBase, limit: Optional[Limit], stop: Any) -> SearchResult:
        g = core_game(game, self.agent_label)
        if g.is_over:
            raise ValueError(game_over_message(g, "analyze"))
        r = self._run(g, self._hint_rng.getrandbits(64), self._options_for(limit), stop)
        return SearchResult(
            move=move_from_id(r.best),
            moves=tuple(MoveStats(move_from_id(m), v, val) for m, v, val in r.moves),
            iterations=r.iterations,
            seconds=r.seconds,
            nodes=r.nodes,
            interrupted=r.interrupted,
        )


#: Bytes of one search tree node (``max_nodes`` * this is the most a search's trees take).
NODE_BYTES: int = _core.SEARCH_NODE_BYTES
