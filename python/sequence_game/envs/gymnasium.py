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
  or agent spec for all (default ``"greedy"``), or a dict ``{seat: agent or spec}`` naming every
  other seat. When every opponent is a plain ``"random"`` or ``"greedy"`` spec the core plays them
  (``sequence_game.VectorGame``'s built-in seats: the C++ port of ``GreedyAgent``'s scoring),
  without a Python call per opponent move; other specs (``"mcts:iterations=200"``, ...) are built
  anew at every ``reset(seed=...)`` with seeds derived from it, so an episode is reproducible;
  agent objects keep their own seeding.
- Observation ``Box(890,) float32`` (docs/observation.md, the learning seat's view, R9); with
  ``normalize=True`` divided by ``sequence_game.observation.OBSERVATION_SCALE``.
- Actions ``Discrete(5253)`` (docs/action-space.md). The legal ones: ``action_masks()`` (the method
  maskable-PPO implementations call; through ``gymnasium.make``'s wrappers reach it as
  ``env.unwrapped.action_masks()`` or ``env.get_wrapper_attr("action_masks")()``) and
  ``info["action_mask"]`` (bool). After a dead-card trade (R5) or a placement that still has its
  sequences to choose (R7 declare actions) the learning seat moves again before the opponents.
- Reward 0 until the game ends, then +1 if the seat's team won, -1 if it lost, 0 for a draw (R8).
  ``info``: ``action_mask``, ``turn`` (completed turns), and ``winner`` (the winning team) once a
  team has won.
  ``terminated`` on a win or a stalemate (R5), ``truncated`` at the turn cap ``max_turns``
  (default 1000).
- An illegal action: with ``illegal="lose"`` (the default) it ends the episode at once with
  reward -1 and ``terminated`` (``info["illegal_action"]`` is True; the game is not changed), which
  is what ``gymnasium.utils.env_checker.check_env`` sees when it samples unmasked actions; with
  ``illegal="raise"`` it raises ``sequence_game.IllegalMoveError`` and changes nothing.
- ``render_mode``: ``"ansi"`` (``render()`` returns the text board), ``"human"`` (the board is
  printed after every step, once the opponents replied; ``render()`` returns None, Gymnasium's
  convention) or ``"rgb_array"`` (the board as an image, ``uint8 (240, 240, 3)``).
- In worker processes started with ``spawn`` (Stable-Baselines3's ``SubprocVecEnv``) nothing has
  imported this module unless the main script does so at its top level, and Gymnasium 1.x reads
  no entry points that could register the id: give SB3's ``make_vec_env`` (or
  ``gymnasium.make_vec``) the class ``SequenceEnv`` or the id ``SPAWN_ID``,
  ``"sequence_game.envs.gymnasium:sequence_game/Sequence-v0"``, with which ``gymnasium.make``
  imports this module first: written out as text it works from a script that never imports
  ``sequence_game``.
- ``reset(options={"game_seed": s})`` deals ``Game(seed=s)``; ``game_seed`` is the seed of the
  current deal (docs/environments.md, seeds in every form).
"""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

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
from ..observation import LAYOUT, OBSERVATION_HIGH, OBSERVATION_SCALE, OBSERVATION_SIZE
from ..vector import VectorGame, seed_dealing

__all__ = ["ENV_ID", "SPAWN_ID", "SequenceEnv"]

#: The id this module registers with Gymnasium.
ENV_ID = "sequence_game/Sequence-v0"
#: The same id with the module that registers it: ``gymnasium.make`` imports the module first, so
#: it works in a fresh process (``SubprocVecEnv`` workers started with ``spawn``) and from a script
#: that never imports this package (docs/environments.md).
SPAWN_ID = f"{__name__}:{ENV_ID}"
_TURN = LAYOUT["turn"][0]

OpponentLike = Union[str, Any]


class SequenceEnv(gymnasium.Env):
    """One seat of a game of Sequence; the other seats are played by ``opponents`` (see the module doc)."""

    metadata = {"render_modes": list(_common.RENDER_MODES), "render_fps": 1}  # noqa: RUF012 (Gymnasium's attribute)

    def __init__(self, players: int = 2, teams: Optional[int] = None, seat: int = 0,
                 opponents: Union[OpponentLike, Mapping[int, OpponentLike], Sequence[OpponentLike]] = "greedy",
                 max_turns: Optional[int] = _common.DEFAULT_MAX_TURNS, illegal: str = "lose",
                 render_mode: Optional[str] = None, normalize: bool = False) -> None:
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
        self.render_mode = _common.check_render_mode(render_mode)
        if not isinstance(normalize, bool):
            raise TypeError(f"normalize must be True or False, not {normalize!r}")
        self.normalize = normalize
        self._opponent_specs = _common.seat_opponents(opponents, self.players, seat, "SequenceEnv")
        unnamed = [p for p in range(self.players) if p != seat and p not in self._opponent_specs]
        if unnamed:
            raise ValueError(f"SequenceEnv: opponents names no agent for seat(s) {unnamed}: the learning seat is {seat}, "
                             "every other seat needs an opponent")
        core = _common.core_seats(self._opponent_specs)
        # VectorGame's built-in seats need room to reach the caller's seat before the cap.
        self._core_seats = core if core and (self.max_turns is None or self.max_turns >= self.players) else None
        #: Seat -> the agent playing it (the spec's name for seats the core plays).
        self.opponents: Dict[int, Any] = {}
        high = OBSERVATION_HIGH / OBSERVATION_SCALE if normalize else OBSERVATION_HIGH
        self.observation_space = spaces.Box(0.0, high.astype(np.float32), (OBSERVATION_SIZE,), np.float32)
        self.action_space = spaces.Discrete(ACTION_COUNT)
        self._py_game: Optional[Game] = None
        self._vg: Optional[VectorGame] = None
        self._obs = np.zeros((1, OBSERVATION_SIZE), dtype=np.float32)
        self._mask = np.zeros((1, ACTION_COUNT), dtype=bool)
        self._seat_row = np.full(1, seat, dtype=np.int32)
        self._done = True
        self._ended = False  # the core's game ended (its final position is kept until reset)
        self._winner: Optional[int] = None
        #: The seed of the current deal, ``Game(players, teams, seed=game_seed, max_turns)`` (None
        #: before ``reset()``).
        self.game_seed: Optional[int] = None

    @property
    def game(self) -> Optional[Game]:
        """The game (None before ``reset()``). When the core plays the opponents: a copy, taken now,
        of the position (of the final one once the episode is over)."""
        if self._vg is None:
            return self._py_game
        return self._vg.copy_game(0, final=self._ended)

    # ---------------------------------------------------------------- the Gymnasium API

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Deal a new game and play the opponents until the learning seat is to move. The deal is
        ``Game(seed=game_seed)``: ``options={"game_seed": g}`` chooses it (any other option is
        refused), else it is drawn from ``self.np_random`` (seeded by ``seed``, Gymnasium's
        convention); ``self.game_seed`` is the one dealt."""
        chosen = _common.game_seed_option(options, "SequenceEnv.reset")
        super().reset(seed=seed)
        drawn = int(self.np_random.integers(0, 2**63))  # drawn either way: later draws do not depend on options
        game_seed = drawn if chosen is None else chosen
        self.game_seed = game_seed
        self._winner, self._ended = None, False
        if self._core_seats is not None:
            # VectorGame game 0 deals Game(seed=episode_seed(s, 0, 0)): s is chosen to deal game_seed.
            if self._vg is None:
                self._vg = VectorGame(1, players=self.players, teams=self.teams, seed=seed_dealing(game_seed),
                                      max_turns=self.max_turns, opponents=self._core_seats)
            else:
                self._vg.reset(seed_dealing(game_seed))
            self.opponents = dict(self._core_seats)
            self._done = False
            self._observe_core()
            return self._observation(), self._info()
        self._py_game = Game(players=self.players, teams=self.teams, seed=game_seed, max_turns=self.max_turns)
        self.opponents = {}
        for p, spec in self._opponent_specs.items():
            self.opponents[p] = (agent_from_spec(spec, seed=int(self.np_random.integers(0, 2**63)))
                                 if isinstance(spec, str) else spec)
        self._play_opponents()
        self._done = self._py_game.is_over
        return self._observation(), self._info()

    def step(self, action: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        if self._vg is None:
            self._game()
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        a = int(action) if isinstance(action, (int, np.integer)) and not isinstance(action, bool) else action
        legal = is_int(a) and 0 <= a < ACTION_COUNT and bool(self.action_masks()[a])
        if not legal and self.illegal == "lose":
            self._done = True
            self._winner = _ILLEGAL
            info = self._info()
            info["illegal_action"] = True
            return self._observation(), -1.0, True, False, info
        if self._vg is not None:
            return self._step_core(a)
        game = self._game()
        game.play_action(a)  # IllegalMoveError / TypeError / ValueError here under illegal="raise"
        self._play_opponents()
        reward, terminated, truncated = 0.0, False, False
        if game.is_over:
            truncated = _common.truncated(game)
            terminated = not truncated
            reward = _common.team_rewards(game)[self.seat]
            self._done = True
        if self.render_mode == "human":
            self._print_board()
        return self._observation(), reward, terminated, truncated, self._info()

    def _step_core(self, a: Any) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        vg = self._vg
        assert vg is not None
        if not is_int(a):
            raise TypeError(f"an action is an int 0..{ACTION_COUNT - 1} (docs/action-space.md), not {a!r}")
        rewards, terminated, truncated = vg.step(np.array([a], dtype=np.int64))  # IllegalMoveError (illegal="raise")
        ended = bool(terminated[0] or truncated[0])
        reward = 0.0
        if ended:
            self._done, self._ended = True, True
            reward = float(rewards[0, self.seat % self.teams])
            won = np.flatnonzero(rewards[0] > 0)
            self._winner = int(won[0]) if len(won) else None
            vg.final_observations(out=self._obs, players=self._seat_row)
            self._mask[:] = False
        else:
            self._observe_core()
        if self.render_mode == "human":
            self._print_board()
        return self._observation(), reward, bool(terminated[0]), bool(truncated[0]), self._info()

    def _observe_core(self) -> None:
        vg = self._vg
        assert vg is not None
        vg.observations(out=self._obs, players=self._seat_row)
        vg.legal_masks(out=self._mask)

    def action_masks(self) -> np.ndarray:
        """The legal actions now (bool, ``ACTION_COUNT``): all False once the episode is over."""
        if self._vg is not None:
            return self._mask[0].copy() if not self._done else np.zeros(ACTION_COUNT, dtype=bool)
        game = self._game()
        if self._done or game.is_over or game.current_player != self.seat:
            return np.zeros(ACTION_COUNT, dtype=bool)
        return game.legal_mask()

    def render(self) -> Union[str, np.ndarray, None]:
        """``"ansi"``: the text board; ``"rgb_array"``: the board image; ``"human"``: None, since
        ``step`` already printed the board (Gymnasium's continuous rendering: ``check_env``, which
        resets and renders every declared mode, then prints nothing)."""
        if self.render_mode == "human":
            return None
        return _common.render(self._game(), self.render_mode, gymnasium.logger.warn)

    def _print_board(self) -> None:
        _common.render(self._game(), "human", gymnasium.logger.warn)

    def close(self) -> None:
        self._py_game = None
        self._vg = None

    # ---------------------------------------------------------------- internals

    def _play_opponents(self) -> None:
        game = self._game()
        while not game.is_over and game.current_player != self.seat:
            game.play(self.opponents[game.current_player].select_move(game))

    def _observation(self) -> np.ndarray:
        obs = self._obs[0].copy() if self._vg is not None else self._game().observation_tensor(self.seat)
        return _common.scale_observations(obs) if self.normalize else obs

    def _info(self) -> Dict[str, Any]:
        # "winner" only once a team has won: an info key holds one type in every step, which
        # Gymnasium's vector envs need to stack the infos of their games.
        if self._vg is not None:
            # The raw turn count is in the observation (docs/observation.md), written by the core.
            info = {"action_mask": self.action_masks(), "turn": int(self._obs[0, _TURN])}
            winner = None if self._winner is _ILLEGAL else self._winner
        else:
            game = self._game()
            info = {"action_mask": self.action_masks(), "turn": game.turn}
            winner = game.winner
        if winner is not None:
            info["winner"] = winner
        return info

    def _game(self) -> Game:
        game = self.game
        if game is None:
            raise RuntimeError("call reset() before using the environment")
        return game


#: Marks an episode ended by an illegal action (the game itself did not end).
_ILLEGAL: Any = object()


if ENV_ID not in gymnasium.registry:
    # The vector entry point: gymnasium.make_vec(ENV_ID, n, vectorization_mode="vector_entry_point")
    # steps the n games in one core call (SequenceVectorEnv) instead of n per-game envs.
    gymnasium.register(ENV_ID, entry_point=f"{__name__}:SequenceEnv",
                       vector_entry_point="sequence_game.envs.vector:SequenceVectorEnv")
