"""Sequence as a PettingZoo ``AECEnv`` and ``ParallelEnv`` (docs/environments.md), 2-12 players in
every team split (R2).

>>> from sequence_game.envs.pettingzoo import env
>>> e = env(players=4)
>>> e.reset(seed=1)
>>> e.agent_selection in e.agents, int(e.action_space("player_0").n)
(True, 5253)
>>> obs, reward, terminated, truncated, info = e.last()
>>> obs["observation"].shape, obs["action_mask"].dtype
((890,), dtype('int8'))

- Agents ``player_0`` .. ``player_{n-1}`` (seats; seat ``p`` plays for team ``p mod teams``).
- Actions ``Discrete(5253)`` (docs/action-space.md): a dead-card trade (R5) and a placement whose
  sequences are still to be chosen (R7 declare actions) keep the same agent selected.
- Observations ``{"observation": Box(890,) float32, "action_mask": Box(5253,) int8}``
  (docs/observation.md): what that seat may see (R9), team-relative; the mask is all zeros for
  an agent that is not to move.
- Rewards per team when the game ends, to every member: +1 win, -1 loss, 0 draw (R8).
- ``terminations`` at a win or a stalemate (R5); ``truncations`` at the turn cap (a draw),
  ``max_turns`` (default 1000).
- ``render_mode``: ``"ansi"`` (the text board as a string), ``"human"`` (printed) or
  ``"rgb_array"`` (the board as an image, ``uint8 (240, 240, 3)``).
- Illegal actions: ``env()`` (``illegal="lose"``) ends the game with reward -1 for the offender
  and 0 for everyone else, as PettingZoo's ``TerminateIllegalWrapper`` does for its classic games;
  ``raw_env()`` (``illegal="raise"``) raises ``sequence_game.IllegalMoveError`` and changes nothing.
- ``parallel_env()``: the same game as a ``ParallelEnv``. Every live agent is in each step's
  observations, rewards and ends, and ``step(actions)`` plays the action of the one agent to move
  (the one whose ``action_mask`` has a legal action); the other agents' entries are ignored (any
  value: PettingZoo's samplers give 0 for an all-zero mask) and may be left out. All agents leave
  ``agents`` together when the game ends.
"""

from __future__ import annotations

from typing import Any, ClassVar, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np

from . import _common

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
    from pettingzoo.utils import wrappers
except ImportError as _error:  # pragma: no cover - exercised by the missing-extra test in a subprocess
    _common.require("rl", "pettingzoo", _error)

from .._args import check_seed
from ..actions import ACTION_COUNT
from ..errors import IllegalMoveError
from ..game import Game
from ..game_setup import check_max_turns, check_players_teams
from ..observation import OBSERVATION_HIGH, OBSERVATION_SIZE
from ..seeds import fresh_seed

__all__ = ["SequenceAECEnv", "SequenceParallelEnv", "env", "parallel_env", "raw_env"]


def env(**kwargs: Any) -> AECEnv:
    """The environment as PettingZoo's classic games give it: an illegal action ends the game with
    reward -1 for the offender (``illegal="lose"``), and PettingZoo's ``OrderEnforcingWrapper``.

    (The illegal-action rule is built in rather than added with PettingZoo's
    ``TerminateIllegalWrapper`` and ``AssertOutOfBoundsWrapper``: same behaviour, without two
    more layers of attribute forwarding on every step.)"""
    kwargs.setdefault("illegal", "lose")
    return _OrderEnforcing(raw_env(**kwargs))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with ``last()`` answered by the environment itself
    (after the same reset check), not by ``AECEnv.last`` reading six attributes through
    ``__getattr__``, and ``step()`` checking ``agents`` directly: most of the wrapper's cost per step."""

    def last(self, observe: bool = True) -> Any:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action: Any) -> None:
        if self._has_reset and self.env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)  # PettingZoo's errors and warnings for these cases


def raw_env(**kwargs: Any) -> SequenceAECEnv:
    """The unwrapped environment (default ``illegal="raise"``: ``IllegalMoveError``, nothing changed)."""
    return SequenceAECEnv(**kwargs)


class SequenceAECEnv(AECEnv):
    """Sequence for ``players`` seats in ``teams`` teams (R2), one agent per seat."""

    metadata: ClassVar[Dict[str, Any]] = {
        "render_modes": list(_common.RENDER_MODES), "name": "sequence_v0", "is_parallelizable": False, "render_fps": 1,
    }

    def __init__(self, players: int = 2, teams: Optional[int] = None,
                 max_turns: Optional[int] = _common.DEFAULT_MAX_TURNS, illegal: str = "raise",
                 render_mode: Optional[str] = None) -> None:
        super().__init__()
        if illegal not in ("raise", "lose"):
            raise ValueError(
                f"illegal must be 'raise' (IllegalMoveError) or 'lose' (reward -1, the game ends), not {illegal!r}")
        self.illegal = illegal
        self.players, self.teams = check_players_teams(players, teams)
        self.max_turns = check_max_turns(max_turns)
        self.render_mode = _common.check_render_mode(render_mode)
        self.possible_agents = _common.agent_names(self.players)
        self.agents = list(self.possible_agents)
        self._seats = {a: p for p, a in enumerate(self.possible_agents)}
        observation = spaces.Box(0.0, OBSERVATION_HIGH, (OBSERVATION_SIZE,), np.float32)
        self.observation_spaces = {
            a: spaces.Dict({"observation": observation, "action_mask": spaces.Box(0, 1, (ACTION_COUNT,), np.int8)})
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(ACTION_COUNT) for a in self.possible_agents}
        self._seeds = np.random.default_rng(fresh_seed())
        self.game: Optional[Game] = None
        #: The seed of the current deal, ``Game(players, teams, seed=game_seed, max_turns)``.
        self.game_seed: Optional[int] = None
        self._illegal_end = False

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ---------------------------------------------------------------- the AEC protocol

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        """Deal a new game, ``Game(seed=game_seed)``. ``seed`` is that game seed and seeds the deals
        of later resets without one; ``options={"game_seed": g}`` deals ``Game(seed=g)`` (any other
        option is ignored with a ``UserWarning``: PettingZoo's ``api_test`` passes one); without
        either the deal is random. ``self.game_seed`` is the one dealt."""
        chosen = _common.game_seed_option(options, "raw_env.reset", strict=False)
        if seed is not None:
            self._seeds = np.random.default_rng(check_seed(seed))
        game_seed = seed if seed is not None else int(self._seeds.integers(0, 2**63))
        game_seed = game_seed if chosen is None else chosen
        self.game_seed = game_seed
        self.game = Game(players=self.players, teams=self.teams, seed=game_seed, max_turns=self.max_turns)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]
        self._illegal_end = False

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        game = self._game()
        seat = self._seats[agent]
        if self._illegal_end or game.is_over or seat != game.current_player:
            mask = np.zeros(ACTION_COUNT, dtype=np.int8)
        else:
            mask = game.legal_mask().view(np.int8)  # 0/1 bytes: a view, no copy
        return {"observation": game.observation_tensor(seat), "action_mask": mask}

    def step(self, action: Optional[int]) -> None:
        """Play ``action`` for ``agent_selection``; ``None`` for an agent that is done."""
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        game = self._game()
        self._cumulative_rewards[self.agent_selection] = 0.0  # last() gave it to the agent now acting
        self._clear_rewards()
        a = int(action) if isinstance(action, (int, np.integer)) and not isinstance(action, bool) else action
        try:
            game.play_action(a)  # type: ignore[arg-type]  # any object: a non-int is refused (TypeError), nothing changed
        except (IllegalMoveError, TypeError, ValueError):
            if self.illegal == "raise":
                raise
            gymnasium.logger.warn(f"illegal action {action!r} by {self.agent_selection}: the game ends, "
                                  "reward -1 for that agent (illegal='lose')")
            self._illegal_end = True
            self.rewards[self.agent_selection] = -1.0
            for agent in self.agents:
                self.terminations[agent] = True
            self._accumulate_rewards()
            return
        if game.is_over:
            over = _common.truncated(game)
            for agent, reward in zip(self.possible_agents, _common.team_rewards(game)):
                self.rewards[agent] = reward
                self.terminations[agent] = not over
                self.truncations[agent] = over
        else:  # the same agent after a trade (R5) or while declaring (R7)
            self.agent_selection = self.possible_agents[game.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Union[str, np.ndarray, None]:
        """``"ansi"``: the text board (``str(game)``); ``"human"``: the same, printed;
        ``"rgb_array"``: the board as an image."""
        return _common.render(self._game(), self.render_mode, gymnasium.logger.warn)

    def close(self) -> None:
        self.game = None

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game


def parallel_env(**kwargs: Any) -> SequenceParallelEnv:
    """The game as a PettingZoo ``ParallelEnv`` (default ``illegal="lose"``, as ``env()``)."""
    kwargs.setdefault("illegal", "lose")
    return SequenceParallelEnv(**kwargs)


class SequenceParallelEnv(ParallelEnv):
    """Sequence for ``players`` seats in ``teams`` teams (R2) as a ``ParallelEnv``: one agent per
    seat, the game turn by turn (see the module doc). The arguments are ``raw_env``'s; the
    observations, masks, rewards, ends, reset seeds and render modes are the ``AECEnv``'s."""

    metadata: ClassVar[Dict[str, Any]] = {
        "render_modes": list(_common.RENDER_MODES), "name": "sequence_v0", "render_fps": 1,
    }

    def __init__(self, players: int = 2, teams: Optional[int] = None,
                 max_turns: Optional[int] = _common.DEFAULT_MAX_TURNS, illegal: str = "lose",
                 render_mode: Optional[str] = None) -> None:
        # The AEC env holds the game, the spaces and the seeding; this class steps it a whole
        # ParallelEnv step at a time.
        self._aec = SequenceAECEnv(players=players, teams=teams, max_turns=max_turns, illegal=illegal,
                                   render_mode=render_mode)
        self.possible_agents = list(self._aec.possible_agents)
        self.agents: List[str] = []
        self.render_mode = self._aec.render_mode
        self.observation_spaces = self._aec.observation_spaces
        self.action_spaces = self._aec.action_spaces

    @property
    def game(self) -> Optional[Game]:
        """The game (None before ``reset()``)."""
        return self._aec.game

    @property
    def game_seed(self) -> Optional[int]:
        """The seed of the current deal, ``Game(players, teams, seed=game_seed, max_turns)``."""
        return self._aec.game_seed

    @property
    def agent_selection(self) -> str:
        """The agent to move (the one whose action ``step`` plays)."""
        return self._aec.agent_selection

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def _observe(self) -> Dict[str, Dict[str, np.ndarray]]:
        return {a: self._aec.observe(a) for a in self.agents}

    def reset(self, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, Any], Dict[str, Dict[str, Any]]]:
        """Deal a new game as ``raw_env().reset`` does; returns every agent's observation and info."""
        self._aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        return self._observe(), {a: {} for a in self.agents}

    def step(self, actions: Mapping[str, Any]) -> Tuple[Dict[str, Any], Dict[str, float], Dict[str, bool],
                                                        Dict[str, bool], Dict[str, Dict[str, Any]]]:
        """Play ``actions[agent_selection]``; the other agents' entries are ignored."""
        if not self.agents:
            raise RuntimeError("the game is over (agents is empty): call reset()")
        if not isinstance(actions, Mapping):
            raise TypeError(f"actions must be a dict {{agent: action}}, not {type(actions).__name__}")
        mover = self._aec.agent_selection
        if mover not in actions:
            raise ValueError(f"actions has no action for {mover}, the agent to move (its action_mask has the "
                             "legal ones); the other agents' entries are ignored")
        live = list(self.agents)
        self._aec.step(actions[mover])
        ended = self._aec.game is None or self._aec._illegal_end or self._aec._game().is_over
        observations = {a: self._aec.observe(a) for a in live}
        rewards = {a: float(self._aec.rewards[a]) for a in live}
        terminated = {a: bool(self._aec.terminations[a]) for a in live}
        truncated = {a: bool(self._aec.truncations[a]) for a in live}
        infos: Dict[str, Dict[str, Any]] = {a: {} for a in live}
        if ended:
            self.agents = []
        return observations, rewards, terminated, truncated, infos

    def render(self) -> Union[str, np.ndarray, None]:
        """As ``raw_env().render()``."""
        return self._aec.render()

    def close(self) -> None:
        self._aec.close()
