"""The learned player: a policy-value network (docs/research/learned-player.md) evaluated in the
compiled core, as two agents.

- :class:`NetAgent` (spec ``net``): one network evaluation per move, from the player's observation
  tensor only (R9); the most probable legal move, or a move sampled at ``temperature``.
- :class:`NetSearchAgent` (spec ``net-search``): the information-set search guided by the network
  (``cpp/include/sequence/search/puct.hpp``): PUCT priors from its policy and its values at the
  leaves, the network called from the seat to move's view of each sampled world. ``time=`` and
  ``iterations=`` as for ``mcts`` (default 800 iterations).

``weights=`` names a weights file (:mod:`sequence_game.netfile`); the default is the network the
package ships (``agents/data/net.sqnet``), loaded once per file and shared.

>>> import sequence_game
>>> g = sequence_game.Game(players=2, seed=3)
>>> NetAgent().select_move(g) in g.legal_moves()
True
>>> NetSearchAgent(iterations=50, seed=1).select_move(g) in g.legal_moves()
True
"""

from __future__ import annotations

import math
import os
import random
from typing import TYPE_CHECKING, Any, Dict, Optional, Tuple

from .. import _core
from .._args import check_seed, is_int, seed_or_random
from ..game import move_from_id
from ..move import Move
from .base import game_over_message, spec_name
from .control import AgentBase, Limit, StopToken, check_game, check_limit, check_stop
from .search import MoveStats, SearchResult, core_game, hint_generator

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["DEFAULT_WEIGHTS", "NetAgent", "NetSearchAgent", "load_net"]

#: The network the package ships.
DEFAULT_WEIGHTS = os.path.join(os.path.dirname(__file__), "data", "net.sqnet")
_CACHE: Dict[str, Any] = {}


def load_net(weights: Optional[str] = None) -> Any:
    """The core's ``Net`` for a weights file (the shipped one by default), loaded once per path.
    ``ValueError`` for a damaged or foreign file, ``FileNotFoundError`` for a missing one."""
    if weights is not None and not isinstance(weights, (str, os.PathLike)):
        raise TypeError(f"weights must be a path to a .sqnet file, not {type(weights).__name__}")
    path = os.path.abspath(os.fspath(weights) if weights is not None else DEFAULT_WEIGHTS)
    if path not in _CACHE:
        if os.path.isdir(path):
            raise FileNotFoundError(f"no network weights file at {path}: that is a folder (give a .sqnet file)")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no network weights file at {path}")
        try:
            _CACHE[path] = _core.Net(path)
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
    return _CACHE[path]


def _seed_rng(seed: Optional[int]) -> random.Random:
    return random.Random(seed_or_random(seed))


class NetAgent(AgentBase):
    """The raw network: one evaluation per move. ``temperature`` 0 (the default) plays the most
    probable legal move (ties: lowest move id); above 0 it samples from the policy sharpened or
    flattened by it, with the agent's seeded generator."""

    def __init__(self, weights: Optional[str] = None, temperature: float = 0.0, seed: Optional[int] = None) -> None:
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not (
                0 <= temperature <= 100):
            raise ValueError(f"temperature must be a number in 0..100, not {temperature!r}")
        self.seed = check_seed(seed)
        self.weights = weights
        self.temperature = float(temperature)
        self._net = load_net(weights)
        self._rng = _seed_rng(seed)
        self.name = spec_name("net", temperature=temperature or None, seed=seed)

    def policy(self, game: GameBase) -> Tuple[Tuple[int, ...], Tuple[float, ...], Tuple[float, ...]]:
        """``(legal move ids, the network's probability of each, win probability per team)`` for
        the player to move."""
        return self._policy(game, "select")

    def _policy(self, game: GameBase, what: str) -> Tuple[Tuple[int, ...], Tuple[float, ...], Tuple[float, ...]]:
        g = core_game(game, "NetAgent")
        if g.is_over:
            raise ValueError(game_over_message(g, what))
        ids, probs, value = _core.net_policy(g._state, self._net)
        return tuple(ids), tuple(probs), tuple(value)

    def _decide(self, game: GameBase, limit: Optional[Limit], stop: Optional[Any]) -> Move:
        ids, probs, _ = self.policy(game)
        if self.temperature == 0:
            best = max(range(len(ids)), key=lambda i: (probs[i], -ids[i]))
            return move_from_id(ids[best])
        weights = [math.exp(math.log(max(p, 1e-30)) / self.temperature) for p in probs]
        return move_from_id(self._rng.choices(ids, weights=weights)[0])

    def analyze(self, game: GameBase, limit: Optional[Limit] = None, stop: Optional[StopToken] = None) -> SearchResult:
        """The policy as a :class:`SearchResult`: every legal move with its probability (as
        ``value``, highest first) and no visits. One evaluation: ``stop`` has nothing to end."""
        check_game(game, "analyze")
        check_limit(limit)
        check_stop(stop)
        ids, probs, _ = self._policy(game, "analyze")
        order = sorted(range(len(ids)), key=lambda i: (-probs[i], ids[i]))
        moves = tuple(MoveStats(move_from_id(ids[i]), 0, float(probs[i])) for i in order)
        return SearchResult(moves[0].move, moves, 0, 0.0, 0)


class NetSearchAgent(AgentBase):
    """The network-guided information-set search (PUCT). ``iterations`` and/or ``time_limit``
    (seconds) bound it (default 800 iterations); ``c_puct`` weighs the priors; one thread.
    ``mix`` (0..1) is the share of each leaf's value taken from a short informed playout of
    ``playout_turns`` turns scored by the hand-set static evaluation (mcts's leaf), the rest from
    the network's value head; the default 1 (the network's policy as priors, mcts's leaf values)
    measured strongest (docs/research/learned-player.md)."""

    def __init__(self, iterations: Optional[int] = None, time_limit: Optional[float] = None,
                 seed: Optional[int] = None, weights: Optional[str] = None, c_puct: float = 1.5,
                 max_nodes: Optional[int] = None, mix: float = 1.0, playout_turns: int = 6) -> None:
        if iterations is None and time_limit is None:
            iterations = 800
        if iterations is not None and (not is_int(iterations) or iterations < 1):
            raise ValueError(f"iterations must be an int >= 1, not {iterations!r}")
        if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                       or not 0 < time_limit <= 86400):
            raise ValueError(f"time must be seconds in (0, 86400], not {time_limit!r}")
        if isinstance(c_puct, bool) or not isinstance(c_puct, (int, float)) or not 0 < c_puct <= 100:
            raise ValueError(f"c_puct must be a number in (0, 100], not {c_puct!r}")
        if isinstance(mix, bool) or not isinstance(mix, (int, float)) or not 0 <= mix <= 1:
            raise ValueError(f"mix must be a number in 0..1, not {mix!r}")
        if not is_int(playout_turns) or not 0 <= playout_turns <= 1000:
            raise ValueError(f"playout_turns must be an int in 0..1000, not {playout_turns!r}")
        self.seed = check_seed(seed)
        self.mix = float(mix)
        self.playout_turns = int(playout_turns)
        self.iterations = iterations
        self.time_limit = time_limit
        self.c_puct = float(c_puct)
        self.max_nodes = max_nodes
        self.weights = weights
        self._net = load_net(weights)
        self._rng = _seed_rng(seed)
        self._hint_rng = hint_generator(seed if seed is not None else self._rng.getrandbits(64))
        self.name = spec_name("net-search", iterations=iterations, time=time_limit,
                              c_puct=c_puct if c_puct != 1.5 else None, mix=mix if mix != 1.0 else None, seed=seed)

    def _search(self, game: GameBase, limit: Optional[Limit], seed: int, what: str = "select") -> Any:
        g = core_game(game, "NetSearchAgent")
        if g.is_over:
            raise ValueError(game_over_message(g, what))
        iterations, time_limit = self.iterations, self.time_limit
        if limit is not None:
            iterations, time_limit = limit.iterations, limit.time
        return g, _core.net_search(g._state, self._net, iterations, time_limit, self.c_puct, seed, self.max_nodes,
                                   self.mix, self.playout_turns)

    def _decide(self, game: GameBase, limit: Optional[Limit], stop: Optional[Any]) -> Move:
        g = core_game(game, "NetSearchAgent")
        if not g.is_over:
            ids = g._state.legal_moves()
            if len(ids) == 1:
                return move_from_id(ids[0])
        _, r = self._search(game, limit, self._rng.getrandbits(64))
        return move_from_id(r.best)

    def analyze(self, game: GameBase, limit: Optional[Limit] = None, stop: Optional[StopToken] = None) -> SearchResult:
        """The root statistics (visits order) of a search seeded from the hint generator. The search
        runs to its budget: ``stop`` is accepted for the common interface but does not end it early."""
        check_game(game, "analyze")
        check_limit(limit)
        check_stop(stop)
        _, r = self._search(game, limit, self._hint_rng.getrandbits(64), "analyze")
        moves = tuple(MoveStats(move_from_id(m), int(v), float(q)) for m, v, q in r.moves)
        return SearchResult(move_from_id(r.best), moves, int(r.iterations), float(r.seconds), int(r.nodes),
                            bool(r.interrupted))
