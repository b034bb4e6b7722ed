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
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple

from .. import _core
from .._args import check_seed, seed_or_random
from ..game import Game, move_from_id
from ..move import Move
from .base import game_over_message, spec_name
from .control import AgentBase, Limit, StopToken, check_game, check_limit, check_stop
from .search import MoveStats, SearchAgent, SearchResult, budget, core_game

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


class NetSearchAgent(SearchAgent):
    """The network-guided information-set search (PUCT). ``iterations`` and/or ``time_limit``
    (seconds) bound it (default 800 iterations); ``c_puct`` weighs the priors; one thread.
    ``mix`` (0..1) is the share of each leaf's value taken from a short informed playout of
    ``playout_turns`` turns scored by the hand-set static evaluation (mcts's leaf), the rest from
    the network's value head; the default 1 (the network's policy as priors, mcts's leaf values)
    measured strongest (docs/research/learned-player.md). Every parameter is checked when the
    agent is built and kept in ``options``, a ``_core.NetSearchOptions`` (the limits are those of
    the other searches' options)."""

    agent_label = "NetSearchAgent"
    spec_label = "net-search"

    def __init__(self, iterations: Optional[int] = None, time_limit: Optional[float] = None,
                 seed: Optional[int] = None, weights: Optional[str] = None, c_puct: float = 1.5,
                 max_nodes: Optional[int] = None, mix: float = 1.0, playout_turns: int = 6) -> None:
        nodes = {} if max_nodes is None else {"max_nodes": max_nodes}
        options = _core.NetSearchOptions(**budget(iterations, time_limit), c_puct=c_puct, mix=mix,
                                         playout_turns=playout_turns, **nodes)
        self.weights = weights
        self._net = load_net(weights)
        self._init_search(options, seed)

    def _spec_extras(self) -> List[Optional[str]]:
        o = self.options
        return [f"c_puct={o.c_puct:g}" if o.c_puct != 1.5 else None, f"mix={o.mix:g}" if o.mix != 1.0 else None]

    def _run(self, game: Game, seed: int, options: Any, stop: Any) -> Any:
        return _core.net_search(game._state, self._net, options, seed, stop)
