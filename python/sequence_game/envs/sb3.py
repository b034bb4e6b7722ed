"""``SequenceVecEnv``: the batched games of ``sequence_game.VectorGame`` as a Stable-Baselines3
``VecEnv`` (SB3 accepts no Gymnasium ``VectorEnv``; needs the ``[train]`` extra: ``pip install
'sequence-game[train]'``).

One learning seat against opponents the core plays (``opponents="random"``, ``"greedy"``, ``"net"``,
``"net:weights=PATH,temperature=T"``, ``"policy:PATH.sqnet"`` or a callable ``f(observations,
masks) -> actions`` over batched observations for every other seat, or a dict ``{seat: opponent}``
naming every seat but one; ``sequence_game.envs.vector.SequenceVectorEnv`` has the details). What SB3
expects of a ``VecEnv``:

- ``reset()`` returns the observations (docs/observation.md, the learning seat's view, float32;
  ``normalize=True``: divided by ``sequence_game.observation.OBSERVATION_SCALE``); ``seed(s)``
  takes effect at the next ``reset()``, which deals the games of ``VectorGame(num_envs, seed=s)``;
  the first ``reset()`` without ``seed(s)`` deals the constructor's games (its ``seed``) again.
- ``step(actions)`` returns ``(observations, rewards, dones, infos)``; a game that ends is re-dealt
  in the same step (SB3's autoreset): ``infos[i]["terminal_observation"]`` is its final
  observation and ``infos[i]["TimeLimit.truncated"]`` is True when the turn cap ended it. Rewards:
  +1 when the learning seat's team wins, -1 when another team wins, 0 otherwise (R8).
- ``action_masks()`` (bool ``(num_envs, 5253)``, a copy) and ``env_method("action_masks")`` (one
  read-only row per game, valid until the next step): what sb3-contrib's ``MaskablePPO`` reads. ``sample_actions(rng)``: one random legal action
  per game, as on every batched form. An illegal action raises
  ``sequence_game.IllegalMoveError`` naming the games, and no game changes.

>>> from sequence_game.envs.sb3 import SequenceVecEnv
>>> venv = SequenceVecEnv(4, opponents="greedy", seed=1)
>>> obs = venv.reset()
>>> obs.shape, venv.action_masks().shape
((4, 890), (4, 5253))
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Type, Union

import numpy as np

from . import _common

try:
    import gymnasium
    from stable_baselines3.common.vec_env import VecEnv
    from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn
except ImportError as _error:  # pragma: no cover - exercised without the extra
    _common.require("train", "stable-baselines3", _error)

from ..actions import ACTION_COUNT
from ..observation import OBSERVATION_HIGH, OBSERVATION_SCALE, OBSERVATION_SIZE
from ..vector import VectorGame
from .vector import core_opponents, normalized_opponents

__all__ = ["SequenceVecEnv"]


class SequenceVecEnv(VecEnv):
    """``num_envs`` games of Sequence in the core as one SB3 ``VecEnv`` (see the module doc).

    ``players``/``teams`` (R2), ``max_turns`` (default 1000, the cap of every environment; None: no
    cap; a capped game is truncated), ``seat``
    (the learning seat when ``opponents`` is one policy), ``opponents``, ``threads`` (core worker
    threads; the results do not depend on it), ``seed`` (None: random), ``normalize``.
    """

    def __init__(self, num_envs: int, players: int = 2, teams: Optional[int] = None, seat: int = 0,
                 opponents: Union[str, Mapping[int, Any], Any] = "greedy",
                 max_turns: Optional[int] = _common.DEFAULT_MAX_TURNS,
                 threads: int = 1, seed: Optional[int] = None, normalize: bool = False) -> None:
        if opponents is None:
            raise ValueError("SequenceVecEnv: opponents is needed (one learning seat against the core's seats); "
                             "self-play is sequence_game.envs.vector.SequenceVectorEnv(opponents=None)")
        if not isinstance(normalize, bool):
            raise TypeError(f"normalize must be True or False, not {normalize!r}")
        table = core_opponents(opponents, players, seat, "SequenceVecEnv")
        if normalize:
            table = normalized_opponents(table)
        self._stream = _common.BatchSeeds(seed)
        self.game = VectorGame(num_envs, players=players, teams=teams, seed=self._stream.first,
                               max_turns=max_turns, threads=threads, opponents=table)
        callers = self.game.caller_seats
        if len(callers) != 1:
            raise ValueError(f"SequenceVecEnv: opponents must name every seat but the learning one; seats "
                             f"{list(callers)} are left to the caller")
        #: The learning seat.
        self.seat = callers[0]
        self.opponents = table
        self.normalize = normalize
        self.render_mode: Optional[str] = None
        n = self.game.num_games
        self._observers = np.full(n, self.seat, dtype=np.int32)
        self._team = self.seat % self.game.teams
        self._obs = np.empty((n, OBSERVATION_SIZE), dtype=np.float32)
        self._legal = _common.LegalCache(self.game)
        self._actions = np.zeros(n, dtype=np.int64)
        high = (OBSERVATION_HIGH / OBSERVATION_SCALE if normalize else OBSERVATION_HIGH).astype(np.float32)
        super().__init__(n, gymnasium.spaces.Box(0.0, high, (OBSERVATION_SIZE,), np.float32),
                         gymnasium.spaces.Discrete(ACTION_COUNT))

    def _observe(self) -> np.ndarray:
        self.game.observations(out=self._obs, players=self._observers)
        if self.normalize:
            _common.scale_observations(self._obs)
        return self._obs.copy()

    def reset(self) -> VecEnvObs:
        """Deal every game anew: after ``seed(s)``, the games of ``VectorGame(num_envs, seed=s)``;
        else the first reset deals the constructor's games again (SB3's first ``reset()`` plays the
        constructor's ``seed``) and each later one the next seed of a stream seeded by the last
        seed given."""
        given = [o for o in self._options if o]
        if given:  # VecEnv.set_options(): nothing to set here, and a silently ignored option misleads
            raise ValueError(f"SequenceVecEnv.reset takes no options, not {sorted(given[0])!r}: game i is dealt "
                             "from (seed, i); venv.game.seeds()[i] is its Game seed")
        self.game.reset(self._stream.next(self._seeds[0]))
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._observe()

    def step_async(self, actions: np.ndarray) -> None:
        arr = np.asarray(actions)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"actions must be integers (docs/action-space.md), not dtype {arr.dtype}")
        self._actions[:] = arr.reshape(self.num_envs)

    def step_wait(self) -> VecEnvStepReturn:
        team_rewards, terminated, truncated = self.game.step(self._actions)
        rewards = np.ascontiguousarray(team_rewards[:, self._team])
        dones = terminated | truncated
        obs = self._observe()
        infos: List[Dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = self.game.final_observations(players=self._observers)
            if self.normalize:
                _common.scale_observations(final)
            for row, i in enumerate(np.flatnonzero(dones)):
                infos[i]["terminal_observation"] = final[row]
                infos[i]["TimeLimit.truncated"] = bool(truncated[i])
        return obs, rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game now, bool ``(num_envs, 5253)``."""
        return self._legal.update().masks.copy()

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """One uniformly random legal action per game (``int64 (num_envs,)``, a baseline policy),
        drawn from ``rng`` in numpy: ``venv.step(venv.sample_actions(rng))``."""
        return self._legal.sample(rng)

    def close(self) -> None:
        pass

    # SB3 reaches per-environment attributes and methods through these; every game shares this
    # object's, and the one method offered per game is action_masks (what MaskablePPO calls).

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> List[Any]:
        value = getattr(self, attr_name)  # AttributeError for what this VecEnv does not have
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"SequenceVecEnv: the games share their settings; {attr_name!r} cannot be set per game")

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> List[Any]:
        if method_name != "action_masks":
            raise AttributeError(f"SequenceVecEnv: the one per-game method is 'action_masks', not {method_name!r}")
        # Read-only views of the masks kept for this step, not copies: sb3-contrib stacks the rows at
        # once (a copy of its own), and a fresh 5253-byte row per game each step cost it more than
        # the step itself. A row kept past the next step shows that step's mask.
        masks = self._legal.update().masks.view()
        masks.flags.writeable = False
        return [masks[i] for i in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: Type[gymnasium.Wrapper[Any, Any, Any, Any]],
                       indices: VecEnvIndices = None) -> List[bool]:
        return [False for _ in self._get_indices(indices)]

    def get_images(self) -> Sequence[Optional[np.ndarray]]:
        """The boards of the games as RGB images (``uint8 (240, 240, 3)``)."""
        return [_common.board_image(self.game.copy_game(i)) for i in range(self.num_envs)]
