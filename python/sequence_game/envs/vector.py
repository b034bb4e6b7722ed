"""A Gymnasium ``VectorEnv`` over ``sequence_game.VectorGame``: every sub-environment is a game in
the compiled core, stepped in one call (needs the ``[rl]`` extra: ``pip install
'sequence-game[rl]'``).

One learning seat against opponents played inside the core (``opponents="random"``, ``"greedy"``
or ``"net"`` for every other seat, a callable over batched observations, or a dict ``{seat:
opponent}``; see the class doc), or self-play (``opponents=None``,
or a dict that leaves several seats to the caller), where the caller supplies the action of
whichever of its seats is to move in each game (``infos["player"]``).

>>> import numpy as np
>>> from sequence_game.envs.vector import SequenceVectorEnv
>>> env = SequenceVectorEnv(8, opponents="greedy", seed=1)
>>> obs, infos = env.reset(seed=1)
>>> obs.shape, infos["action_mask"].shape
((8, 890), (8, 5253))
>>> rng = np.random.default_rng(0)
>>> for _ in range(50):
...     actions = env.sample_actions(rng)            # random legal actions (numpy)
...     obs, rewards, terminated, truncated, infos = env.step(actions)
>>> rewards.shape, terminated.dtype
((8,), dtype('bool'))

Conventions: observations are the learning seat's (self-play: the seat to move) observation
tensors (docs/observation.md, float32; ``normalize=True``: divided by
``sequence_game.observation.OBSERVATION_SCALE``); the legal-action mask is ``infos["action_mask"]`` and
``action_masks()`` (the convention of maskable-PPO implementations); actions are the 5253 actions of
docs/action-space.md (R7 declare actions are follow-up steps of the same seat). Rewards: +1 when
the learning seat's team wins, -1 when another team wins, 0 otherwise (self-play: from the view of
the seat that acted; ``infos["team_rewards"]`` has every team's). A game that ends is re-dealt in
the same step (``metadata["autoreset_mode"] = SAME_STEP``): its final observation is
``infos["final_obs"][i]`` and the returned observation is already the next game's. An illegal
action raises ``sequence_game.IllegalMoveError`` naming the games, and no game changes.

Stable-Baselines3 takes no Gymnasium ``VectorEnv``: ``sequence_game.envs.sb3.SequenceVecEnv`` is
this environment as an SB3 ``VecEnv``.
"""

from __future__ import annotations

import warnings
from typing import Any, Dict, Mapping, Optional, Tuple

import numpy as np

try:
    import gymnasium
    from gymnasium.vector import AutoresetMode, VectorEnv
except ImportError as e:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "sequence_game.envs.vector needs gymnasium: install the [rl] extra: pip install 'sequence-game[rl]'"
    ) from e

from .._args import is_int
from ..actions import ACTION_COUNT
from ..observation import OBSERVATION_HIGH, OBSERVATION_SCALE, OBSERVATION_SIZE
from ..vector import OPPONENTS, VectorGame, opponent_spec
from . import _common

__all__ = ["SequenceVectorEnv"]


_UNSET: Any = object()


def core_opponents(opponents: Any, players: int, seat: int, where: str) -> Dict[int, Any]:
    """``opponents=`` of the batched environments as ``VectorGame`` opponents: None (self-play), one
    opponent for every seat but ``seat``, or a ``{seat: opponent}`` dict; an opponent is one of
    ``OPPONENTS``, a network spec (``"net:weights=PATH,temperature=T"``, ``"policy:PATH.sqnet"``)
    or a callable over batched observations (``VectorGame``)."""
    from ..agents import agent_from_spec

    if opponents is None:
        return {}
    if not is_int(players):
        raise TypeError(f"players must be an int, not {type(players).__name__}")
    if not is_int(seat):
        raise TypeError(f"seat must be an int, not {type(seat).__name__}")
    if not isinstance(opponents, Mapping) and not 0 <= seat < players:
        raise ValueError(f"seat {seat} is not a seat 0..{players - 1}")
    one = isinstance(opponents, str) or (callable(opponents) and not hasattr(opponents, "select_move"))
    if not one and not isinstance(opponents, Mapping):
        raise TypeError(f"{where}: opponents is one of {', '.join(map(repr, OPPONENTS))}, a network spec, a callable "
                        "(observations, masks) -> actions for every seat but `seat`, a dict {seat: opponent} or "
                        f"None (self-play), not {opponents!r}")
    if one:
        table: Dict[int, Any] = {p: opponents for p in range(players) if p != seat}
    else:
        table = dict(opponents)
        for s in table:
            if not is_int(s) or not 0 <= s < players:
                raise ValueError(f"{where}: opponents seat {s!r} is not a seat 0..{players - 1}")
    out: Dict[int, Any] = {}
    for s, spec in sorted(table.items()):
        if isinstance(spec, str):
            agent_from_spec(spec)  # ValueError now for an unknown name or option
        try:
            out[int(s)] = opponent_spec(spec, f"{where}: opponent of seat {s}")
        except (TypeError, ValueError) as e:
            raise type(e)(f"{e}; other agents (any agent spec or object) play in "
                          "sequence_game.envs.gymnasium.SequenceEnv, gymnasium.make_vec for many games") from None
    return out


def scaled_policy(f: Any) -> Any:
    """``f`` given scaled observations (``normalize=True``): the rows it gets are its own copy.
    A callable that ``takes_deals`` (``VectorGame``) still gets them."""

    def policy(observations: np.ndarray, masks: np.ndarray, **deals: Any) -> Any:
        return f(_common.scale_observations(observations), masks, **deals)

    policy.takes_deals = bool(getattr(f, "takes_deals", False))  # type: ignore[attr-defined]
    return policy


def normalized_opponents(table: Dict[int, Any]) -> Dict[int, Any]:
    """``table`` for an environment with ``normalize=True``: a callable opponent sees what the
    learning seat sees, scaled observations, except a saved policy (``raw_observations``:
    ``load_policy``, ``"policy:PATH"``), which scales raw ones itself as its model learned: scaled
    once, never twice."""
    return {s: scaled_policy(p) if callable(p) and not getattr(p, "raw_observations", False) else p
            for s, p in table.items()}


class SequenceVectorEnv(VectorEnv):
    """``num_envs`` games of Sequence as one Gymnasium vector environment (see the module doc).

    ``players``/``teams`` (R2) and ``max_turns`` (a capped game is truncated; default 1000, the
    cap of every environment; None: no cap) as ``Game``;
    ``seat``: the learning seat when ``opponents`` is one policy for the others; ``opponents``:
    ``"random"``, ``"greedy"`` (GreedyAgent's scoring in C++), ``"net"`` (the shipped network, in
    C++), ``"net:weights=PATH,temperature=T"`` or ``"policy:PATH.sqnet"`` (another network), a
    callable ``f(observations, masks) -> actions`` over the games where an opponent seat is to move
    (``VectorGame``; with ``normalize=True`` it gets scaled observations), a dict ``{seat:
    opponent}``, or None for self-play; ``threads``: core worker threads (the results do not depend
    on it); ``seed``: the constructor's and the first ``reset()``'s deals are ``VectorGame(num_envs,
    seed=seed)``'s (None: a fresh seed); ``normalize``: scaled
    observations. ``opponent=`` is the former spelling of ``opponents=`` (deprecated).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012 - VectorEnv's attribute

    def __init__(self, num_envs: int, players: int = 2, teams: Optional[int] = None, seat: int = 0,
                 opponents: Any = "greedy", max_turns: Optional[int] = _common.DEFAULT_MAX_TURNS,
                 threads: int = 1, seed: Optional[int] = None, normalize: bool = False,
                 opponent: Optional[str] = _UNSET) -> None:
        if opponent is not _UNSET:
            warnings.warn("SequenceVectorEnv(opponent=...) is deprecated: pass opponents=..., which also takes "
                          "a {seat: policy} dict", DeprecationWarning, stacklevel=2)
            opponents = opponent
        if not isinstance(normalize, bool):
            raise TypeError(f"normalize must be True or False, not {normalize!r}")
        table = core_opponents(opponents, players, seat, "SequenceVectorEnv")
        if normalize:
            table = normalized_opponents(table)
        self._seeds = _common.BatchSeeds(seed)
        self.game = VectorGame(num_envs, players=players, teams=teams, seed=self._seeds.first, max_turns=max_turns,
                               threads=threads, opponents=table or None)
        self.num_envs = self.game.num_games
        callers = self.game.caller_seats
        #: The learning seat, or None when several seats are the caller's (self-play).
        self.seat: Optional[int] = callers[0] if len(callers) == 1 else None
        self.opponents = table
        self.normalize = normalize
        high = (OBSERVATION_HIGH / OBSERVATION_SCALE if normalize else OBSERVATION_HIGH).astype(np.float32)
        self.single_observation_space = gymnasium.spaces.Box(0.0, high, (OBSERVATION_SIZE,), np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(ACTION_COUNT)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self._observers = None if self.seat is None else np.full(self.num_envs, self.seat, dtype=np.int32)
        self._obs = np.empty((self.num_envs, OBSERVATION_SIZE), dtype=np.float32)
        self._legal = _common.LegalCache(self.game)

    @property
    def opponent(self) -> Optional[str]:
        """Deprecated: the policy of every other seat (None in self-play); see ``opponents``."""
        warnings.warn("SequenceVectorEnv.opponent is deprecated: read opponents ({seat: policy})",
                      DeprecationWarning, stacklevel=2)
        policies = set(self.opponents.values())
        return policies.pop() if len(policies) == 1 else None

    def _observe(self) -> Tuple[np.ndarray, Dict[str, Any]]:
        self.game.observations(out=self._obs, players=self._observers)
        if self.normalize:
            _common.scale_observations(self._obs)
        infos = {"action_mask": self._legal.update().masks.copy(), "player": self.game.current_players()}
        return self._obs.copy(), infos

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Deal every game anew: ``reset(seed=s)`` deals the games of ``VectorGame(num_envs,
        seed=s)``; without a seed, the first reset deals the constructor's games again (its
        ``seed``) and each later one the next seed of a stream seeded by the last seed given
        (``_common.BatchSeeds``). Returns ``(observations, infos)``. Game ``i`` is then
        ``Game(seed=self.game.seeds()[i], max_turns=...)``, which the per-game environments deal
        with ``reset(options={"game_seed": ...})``; no option is taken here (a dict is refused)."""
        if options:
            raise ValueError(f"SequenceVectorEnv.reset takes no options, not {sorted(options)!r}: game i is dealt "
                             "from (seed, i); env.game.seeds()[i] is its Game seed")
        if seed is not None and not is_int(seed):
            raise TypeError("seed must be one int for all games (game i's deal depends on (seed, i)), "
                            f"not {type(seed).__name__}")
        self.game.reset(self._seeds.next(seed))
        return self._observe()

    def step(self, actions: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """Play one action per game; returns ``(observations, rewards, terminations, truncations,
        infos)`` as the module doc describes."""
        actions = np.asarray(actions)
        acting = self.game.current_players()
        team_rewards, terminated, truncated = self.game.step(actions)
        seats = acting if self.seat is None else np.full(self.num_envs, self.seat)
        rewards = team_rewards[np.arange(self.num_envs), seats % self.game.teams]
        obs, infos = self._observe()
        infos["team_rewards"] = team_rewards
        ended = terminated | truncated
        if ended.any():
            final = self.game.final_observations(players=self._observers)
            if self.normalize:
                _common.scale_observations(final)
            infos["final_obs"] = np.full(self.num_envs, None, dtype=object)
            infos["_final_obs"] = ended
            for row, i in enumerate(np.flatnonzero(ended)):
                infos["final_obs"][i] = final[row]
        return obs, rewards.astype(np.float32), terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """The legal-action mask of every game now, ``bool (num_envs, 5253)``."""
        return self._legal.update().masks.copy()

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """One uniformly random legal action per game (``int64 (num_envs,)``, a baseline policy),
        drawn from ``rng`` in numpy."""
        return self._legal.sample(rng)
