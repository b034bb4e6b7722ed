"""A Gymnasium ``VectorEnv`` over ``sequence_game.VectorGame``: every sub-environment is a game in
the compiled core, stepped in one call (needs the ``[rl]`` extra: ``pip install
'sequence-game[rl]'``).

One learning seat against built-in opponents played inside the core (``opponent="random"`` or
``"greedy"``), or self-play (``opponent=None``), where the caller supplies the action of whichever
seat is to move in each game (``infos["player"]``).

>>> import numpy as np
>>> from sequence_game.envs.vector import SequenceVectorEnv
>>> env = SequenceVectorEnv(8, opponent="greedy", seed=1)
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
tensors (docs/observation.md, float32); the legal-action mask is ``infos["action_mask"]`` and
``action_masks()`` (the convention of maskable-PPO implementations); actions are the 5253 actions of
docs/action-space.md (R7 declare actions are follow-up steps of the same seat). Rewards: +1 when
the learning seat's team wins, -1 when another team wins, 0 otherwise (self-play: from the view of
the seat that acted; ``infos["team_rewards"]`` has every team's). A game that ends is re-dealt in
the same step (``metadata["autoreset_mode"] = SAME_STEP``): its final observation is
``infos["final_obs"][i]`` and the returned observation is already the next game's. An illegal
action raises ``sequence_game.IllegalMoveError`` naming the games, and no game changes.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

import numpy as np

try:
    import gymnasium
    from gymnasium.vector import AutoresetMode, VectorEnv
except ImportError as e:  # pragma: no cover - exercised without the extra
    raise ImportError(
        "sequence_game.envs.vector needs gymnasium: install the [rl] extra: pip install 'sequence-game[rl]'"
    ) from e

from .._args import check_seed, is_int
from ..actions import ACTION_COUNT
from ..observation import OBSERVATION_SIZE
from ..seeds import fresh_seed
from ..vector import OPPONENTS, VectorGame

__all__ = ["SequenceVectorEnv"]


class SequenceVectorEnv(VectorEnv):
    """``num_envs`` games of Sequence as one Gymnasium vector environment (see the module doc).

    ``players``/``teams`` (R2) and ``max_turns`` (a capped game is truncated) as ``Game``;
    ``seat``: the learning seat (ignored in self-play); ``opponent``: ``"random"``, ``"greedy"``
    (GreedyAgent's scoring in C++) or None for self-play; ``threads``: core worker threads (the
    results do not depend on it); ``seed``: the first ``reset()``'s seed (None: random).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012 - VectorEnv's attribute

    def __init__(self, num_envs: int, players: int = 2, teams: Optional[int] = None, seat: int = 0,
                 opponent: Optional[str] = "greedy", max_turns: Optional[int] = None, threads: int = 1,
                 seed: Optional[int] = None) -> None:
        if opponent is not None and opponent not in OPPONENTS:
            raise ValueError(f"opponent must be one of {', '.join(map(repr, OPPONENTS))} or None (self-play), "
                             f"not {opponent!r}")
        if not is_int(players):
            raise TypeError(f"players must be an int, not {type(players).__name__}")
        if not is_int(seat):
            raise TypeError(f"seat must be an int, not {type(seat).__name__}")
        if opponent is not None and not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not a seat 0..{players - 1}")
        seed = check_seed(seed)
        self._seeds = np.random.default_rng(fresh_seed() if seed is None else seed)
        first = int(self._seeds.integers(0, 2**63))
        opponents = None if opponent is None else {p: opponent for p in range(players) if p != seat}
        self.game = VectorGame(num_envs, players=players, teams=teams, seed=first, max_turns=max_turns,
                               threads=threads, opponents=opponents)
        self.num_envs = self.game.num_games
        self.seat = None if opponent is None else seat
        self.opponent = opponent
        self.single_observation_space = gymnasium.spaces.Box(0.0, np.inf, (OBSERVATION_SIZE,), np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(ACTION_COUNT)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, self.num_envs)
        self._observers = None if self.seat is None else np.full(self.num_envs, self.seat, dtype=np.int32)
        self._obs = np.empty((self.num_envs, OBSERVATION_SIZE), dtype=np.float32)
        self._masks = np.empty((self.num_envs, ACTION_COUNT), dtype=bool)

    def _observe(self) -> Tuple[np.ndarray, Dict[str, Any]]:
        self.game.observations(out=self._obs, players=self._observers)
        self.game.legal_masks(out=self._masks)
        infos = {"action_mask": self._masks.copy(), "player": self.game.current_players()}
        return self._obs.copy(), infos

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Deal every game anew: from ``seed`` if given, else from the next seed of the stream the
        constructor's seed started. Returns ``(observations, infos)``."""
        if seed is not None and not is_int(seed):
            raise TypeError("seed must be one int for all games (game i's deal depends on (seed, i)), "
                            f"not {type(seed).__name__}")
        if seed is not None:
            self._seeds = np.random.default_rng(check_seed(seed))
        self.game.reset(int(self._seeds.integers(0, 2**63)))
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
            infos["final_obs"] = np.full(self.num_envs, None, dtype=object)
            infos["_final_obs"] = ended
            for row, i in enumerate(np.flatnonzero(ended)):
                infos["final_obs"][i] = final[row]
        return obs, rewards.astype(np.float32), terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """The legal-action mask of every game now, ``bool (num_envs, 5253)``."""
        return self.game.legal_masks()

    def sample_actions(self, rng: np.random.Generator) -> np.ndarray:
        """One uniformly random legal action per game (a baseline policy)."""
        return self.game.sample_actions(rng, legal=self.game.legal_actions())
