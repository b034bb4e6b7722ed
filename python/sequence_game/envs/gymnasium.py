"""Sequence as a Gymnasium ``Env``: one seat against fixed opponents (docs/environments.md).

Importing this module registers ``sequence_game/Sequence-v0``:

>>> import gymnasium
>>> import sequence_game.envs.gymnasium
>>> env = gymnasium.make("sequence_game/Sequence-v0", opponents="random")
>>> obs, info = env.reset(seed=3)
>>> obs.shape, info["action_mask"].shape, int(env.action_space.n)
((890,), (5253,), 5253)
>>> obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].nonzero()[0][0]))

- The learning seat is ``seat`` (default 0); every other seat is played by ``opponents``: one agent
  or agent spec for all (default ``"greedy"``: ``GreedyAgent``), or a list with one per other seat
  in seat order. Specs (``"random"``, ``"greedy"``, ``"mcts:iterations=200"``, ...) are built anew
  at every ``reset(seed=...)`` with seeds derived from it, so an episode is reproducible; agent
  objects keep their own seeding.
- Observation ``Box(890,) float32`` (docs/observation.md, the learning seat's view, R9).
- Actions ``Discrete(5253)`` (docs/action-space.md). The legal ones: ``env.action_masks()`` (the
  method maskable-PPO implementations call) and ``info["action_mask"]`` (bool). After a dead-card
  trade (R5) or a placement that still has its sequences to choose (R7 declare actions) the
  learning seat moves again before the opponents.
- Reward 0 until the game ends, then +1 if the seat's team won, -1 if it lost, 0 for a draw (R8).
  ``terminated`` on a win or a stalemate (R5), ``truncated`` at the turn cap ``max_turns``
  (default 1000).
- An illegal action: with ``illegal="lose"`` (the default) it ends the episode at once with
  reward -1 and ``terminated`` (``info["illegal_action"]`` is True; the game is not changed), which
  is what ``gymnasium.utils.env_checker.check_env`` sees when it samples unmasked actions; with
  ``illegal="raise"`` it raises ``sequence_game.IllegalMoveError`` and changes nothing.
- ``render_mode``: ``"ansi"`` (the text board) or ``"human"`` (printed).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _common

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as _error:  # pragma: no cover - exercised by the missing-extra test in a subprocess
    _common.require("rl", "gymnasium", _error)

from .._args import is_int
from ..actions import ACTION_COUNT
from ..agents import agent_from_spec
from ..game import Game
from ..game_setup import check_max_turns, check_players_teams
from ..observation import OBSERVATION_HIGH, OBSERVATION_SIZE

__all__ = ["ENV_ID", "SequenceEnv"]

#: The id this module registers with Gymnasium.
ENV_ID = "sequence_game/Sequence-v0"

OpponentLike = Union[str, Any]


class SequenceEnv(gymnasium.Env):
    """One seat of a game of Sequence; the other seats are played by ``opponents``."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012 (Gymnasium's attribute)

    def __init__(self, players: int = 2, teams: Optional[int] = None, seat: int = 0,
                 opponents: Union[OpponentLike, Sequence[OpponentLike]] = "greedy",
                 max_turns: Optional[int] = _common.DEFAULT_MAX_TURNS, illegal: str = "lose",
                 render_mode: Optional[str] = None) -> None:
        self.players, self.teams = check_players_teams(players, teams)
        if not is_int(seat):
            raise TypeError(f"seat must be an int, not {type(seat).__name__} {seat!r}")
        if not 0 <= seat < self.players:
            raise ValueError(f"seat {seat} does not exist: seats are 0..{self.players - 1}")
        self.seat = seat
        self.max_turns = check_max_turns(max_turns)
        if illegal not in ("lose", "raise"):
            raise ValueError(
                f"illegal must be 'lose' (reward -1, terminated) or 'raise' (IllegalMoveError), not {illegal!r}")
        self.illegal = illegal
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not supported: choose None, 'human' or 'ansi'")
        self.render_mode = render_mode
        self._opponent_specs = self._check_opponents(opponents)
        self.opponents: Dict[int, Any] = {}
        self.observation_space = spaces.Box(0.0, OBSERVATION_HIGH, (OBSERVATION_SIZE,), np.float32)
        self.action_space = spaces.Discrete(ACTION_COUNT)
        self.game: Optional[Game] = None
        self._done = True

    def _check_opponents(self, opponents: Any) -> List[OpponentLike]:
        others = self.players - 1
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != others:
                raise ValueError(f"opponents: give one agent or spec for all, or a list of {others} "
                                 f"(one per other seat), not {len(opponents)}")
            specs = list(opponents)
        else:
            specs = [opponents] * others
        for spec in specs:
            if isinstance(spec, str):
                agent_from_spec(spec)  # ValueError now for an unknown name or option
            elif not callable(getattr(spec, "select_move", None)):
                raise TypeError(f"an opponent is an agent (with select_move(game)) or an agent spec such as "
                                f"'greedy', not {spec!r}")
        return specs

    # ---------------------------------------------------------------- the Gymnasium API

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Deal a new game (from ``self.np_random``, seeded by ``seed``) and play the opponents
        until the learning seat is to move."""
        super().reset(seed=seed)
        game_seed = int(self.np_random.integers(0, 2**63))
        self.game = Game(players=self.players, teams=self.teams, seed=game_seed, max_turns=self.max_turns)
        seats = [p for p in range(self.players) if p != self.seat]
        self.opponents = {}
        for p, spec in zip(seats, self._opponent_specs):
            self.opponents[p] = (agent_from_spec(spec, seed=int(self.np_random.integers(0, 2**63)))
                                 if isinstance(spec, str) else spec)
        self._play_opponents()
        self._done = self.game.is_over
        return self._observation(), self._info()

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        game = self._game()
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        a = int(action) if isinstance(action, (int, np.integer)) and not isinstance(action, bool) else action
        if self.illegal == "raise" or (is_int(a) and 0 <= a < ACTION_COUNT and game.legal_mask()[a]):
            game.play_action(a)  # IllegalMoveError / TypeError / ValueError here under illegal="raise"
        else:
            self._done = True
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), -1.0, True, False, info
        self._play_opponents()
        reward, terminated, truncated = 0.0, False, False
        if game.is_over:
            truncated = _common.truncated(game)
            terminated = not truncated
            reward = _common.team_rewards(game)[self.seat]
            self._done = True
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The legal actions now (bool, ``ACTION_COUNT``): all False once the episode is over."""
        game = self._game()
        if self._done or game.is_over or game.current_player != self.seat:
            return np.zeros(ACTION_COUNT, dtype=bool)
        return game.legal_mask()

    def render(self) -> Optional[str]:
        return _common.render(self._game(), self.render_mode, gymnasium.logger.warn)

    def close(self) -> None:
        self.game = None

    # ---------------------------------------------------------------- internals

    def _play_opponents(self) -> None:
        game = self._game()
        while not game.is_over and game.current_player != self.seat:
            game.play(self.opponents[game.current_player].select_move(game))

    def _observation(self) -> np.ndarray:
        return self._game().observation_tensor(self.seat)

    def _info(self) -> Dict[str, Any]:
        game = self._game()
        return {"action_mask": self.action_masks(), "turn": game.turn, "winner": game.winner}

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game


if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point=f"{__name__}:SequenceEnv")
