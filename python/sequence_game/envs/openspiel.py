"""Sequence for OpenSpiel: the game ``python_sequence`` (docs/environments.md).

Importing this module registers the game with ``pyspiel``:

>>> import pyspiel
>>> import sequence_game.envs.openspiel
>>> game = pyspiel.load_game("python_sequence", {"players": 4})
>>> game.num_players(), game.num_distinct_actions(), game.observation_tensor_size()
(4, 5253, 890)
>>> state = game.new_initial_state()
>>> state.is_chance_node()
True

- Parameters: ``players`` (2-12, R2), ``teams`` (0 = the default for that count), ``max_turns``
  (the turn cap, default 1000; reaching it is a draw).
- Imperfect information, sequential; a team's members share its result (+1 win, -1 loss, 0 draw),
  so ``game.get_type().utility`` is ``ZERO_SUM`` for two teams and ``GENERAL_SUM`` for three
  (a win then sums to -players/3, a draw to 0: no constant sum). Terminal rewards.
- Chance: the deal is the engine's seeded deal (docs/rng.md, R4) and every later draw and R6
  reshuffle follows from it; its 64-bit seed is drawn at the start by 8 chance nodes of 256
  equally likely outcomes (one byte each), so ``random_sim_test``'s serialization by history
  replays the same game. ``dealt_state(game, s)`` (the outcomes ``seed_outcomes(s)``: the bytes of
  ``s``, little-endian) deals ``Game(seed=s)``, as the other environments' ``game_seed`` does.
- Actions: the 5253 actions of docs/action-space.md (a dead-card trade and the R7 declare actions
  keep the same player to move).
- Observation tensor: docs/observation.md (890 floats, team-relative, only what the player may see,
  R9). Observation string: the text board, the player's hand and the public counts. Information
  state, string and tensor: perfect recall, the player's own deal and draws and every action since
  the deal; the tensor (``recall_layout``: 2 x 6 x max_turns + players + 7 floats) holds them as
  numbers (action + 1, card index + 1), exact for tabular and hashing use, not a network input:
  learn from the observation tensor (``rl_environment.Environment(...,
  observation_type=ObservationType.OBSERVATION)``).
- Serialization: ``state.serialize()`` is JSON text of the game's parameters and the state's
  history (the eight chance outcomes, then every action), nothing else: no pickle, no copy of the
  engine's position. ``game.deserialize_state(text)`` replays that history through the rules and
  refuses anything else (another game's parameters, an illegal action, other keys or types) with
  a ``ValueError``. The chance outcomes are the deal's seed, so the text holds every card the
  state holds, hidden ones and the draw pile's order included: it is the whole state (as
  OpenSpiel's own card games' histories hold every card dealt), not any player's view, which is
  ``information_state_string``. ``pyspiel.serialize_game_and_state`` /
  ``deserialize_game_and_state`` and pickling a state are OpenSpiel's own paths, which pickle
  the Python attributes of any Python game: give them trusted text only.
- ``resample_from_infostate(player, sampler)`` re-deals exactly the cards ``player`` cannot see
  (the other hands, the draw pile's order, the future reshuffles), keeping every hand size; the
  world it returns has ``player``'s information state, so information-set search
  (``open_spiel.python.algorithms.ismcts.ISMCTSBot``) runs on it. The resampled state carries the
  original's history for its strings; its play from there on is that of the re-dealt world.

OpenSpiel's C++ ``ISMCTSBot`` and ``MCTSBot`` crash on any game written in Python (OpenSpiel's
own Python games included), so use the Python bots (``open_spiel.python.algorithms``) here.
:class:`AgentBot` wraps any of this package's agents as a ``pyspiel.Bot``.
"""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from . import _common

try:
    import pyspiel
except ImportError as _error:  # pragma: no cover - exercised by the missing-extra test in a subprocess
    _common.require("openspiel", "open-spiel (pyspiel)", _error)

from ..actions import ACTION_COUNT, PASS_ACTION, TRADE_ACTION_BASE, describe_action
from ..cards import CARD_NAMES
from ..errors import short_repr
from ..game import Game
from ..game_setup import HAND_SIZE, check_players_teams
from ..move import Move
from ..observation import LAYOUT, OBSERVATION_SIZE, field_slice

__all__ = ["AgentBot", "SequenceGame", "SequenceState", "action_sequence", "dealt_state", "ismcts_bot", "recall_layout",
           "seed_outcomes"]

SEED_BYTES = 8  # chance nodes drawing the deal's seed, one byte each
STATE_FORMAT = "python_sequence-state/1"  # SequenceState.serialize()
_MAX_ACTIONS_PER_TURN = 6  # one trade (R5) + one placement + up to four declares (R7)
_resample_counter = itertools.count()
_CARD_INDEX = {name: i for i, name in enumerate(CARD_NAMES)}

_GAME_TYPE = pyspiel.GameType(
    short_name="python_sequence",
    long_name="Python Sequence",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=12,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 2, "teams": 0, "max_turns": _common.DEFAULT_MAX_TURNS},
)
#: The type of a two-team game (``game.get_type()``): the same but zero-sum.
_ZERO_SUM_TYPE = pyspiel.GameType(**{
    **{name: getattr(_GAME_TYPE, name) for name in (
        "short_name", "long_name", "dynamics", "chance_mode", "information", "reward_model",
        "max_num_players", "min_num_players", "provides_information_state_string",
        "provides_information_state_tensor", "provides_observation_string", "provides_observation_tensor",
        "parameter_specification")},
    "utility": pyspiel.GameType.Utility.ZERO_SUM,
})


class SequenceGame(pyspiel.Game):
    """The OpenSpiel game: parameters ``players``, ``teams`` (0: R2's default), ``max_turns``."""

    def __init__(self, params: Optional[Dict[str, Any]] = None) -> None:
        params = dict(params or {})
        players = int(params.get("players", 2))
        teams = int(params.get("teams", 0)) or None
        self.players, self.teams = check_players_teams(players, teams)
        self.max_turns = int(params.get("max_turns", _common.DEFAULT_MAX_TURNS))
        if self.max_turns < 1:
            raise ValueError(f"max_turns must be at least 1 (OpenSpiel needs a bounded game), not {self.max_turns}")
        # Two teams: every win is +1 to one team's members and -1 to as many others (R2 makes the
        # teams equal), a draw 0 to all, so the returns always sum to 0. Three teams: a win sums
        # to -players/3 and a draw to 0, so no constant sum.
        zero_sum = self.teams == 2
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_COUNT,
            max_chance_outcomes=256,
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=SEED_BYTES + _MAX_ACTIONS_PER_TURN * self.max_turns,
        )
        super().__init__(_ZERO_SUM_TYPE if zero_sum else _GAME_TYPE, info,
                         {"players": self.players, "teams": self.teams, "max_turns": self.max_turns})

    def new_initial_state(self) -> SequenceState:
        return SequenceState(self)

    def deserialize_state(self, text: Any) -> SequenceState:
        """The state of ``SequenceState.serialize()``'s text, rebuilt by replaying its history
        through the rules; ``ValueError`` (``TypeError`` for a non-string) for anything else."""
        if not isinstance(text, str):
            raise TypeError(f"deserialize_state takes the text of SequenceState.serialize(), not {type(text).__name__}")
        longest = self.max_game_length()
        if len(text) > 200 + 6 * longest:  # a history of at most max_game_length actions of <= 4 digits
            raise ValueError(f"deserialize_state: {len(text)} characters is longer than any state of this game")
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):
            data = None
        if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
            raise ValueError(f"deserialize_state: not a {STATE_FORMAT} state (the JSON text of SequenceState.serialize())")
        want = {"format", "players", "teams", "max_turns", "history"}
        if set(data) != want:
            raise ValueError(f"deserialize_state: the keys must be {', '.join(sorted(want))}, "
                             f"not {', '.join(sorted(map(short_repr, data)))}")
        mine = {"players": self.players, "teams": self.teams, "max_turns": self.max_turns}
        for key, value in mine.items():
            if type(data[key]) is not int or data[key] != value:
                raise ValueError(f"deserialize_state: a state of a game with {key}={short_repr(data[key])}, "
                                 f"this game has {key}={value}")
        history = data["history"]
        if not isinstance(history, list) or len(history) > longest:
            raise ValueError(f"deserialize_state: history must be a list of at most {longest} actions")
        state = self.new_initial_state()
        for i, action in enumerate(history):
            if type(action) is not int:
                raise ValueError(f"deserialize_state: history[{i}] is {short_repr(action)}, not an action (an int)")
            if state.is_terminal():
                raise ValueError(f"deserialize_state: history[{i}]: the game is over before this action")
            if action not in state.legal_actions():
                what = "a chance outcome 0..255" if state.is_chance_node() else "legal here"
                raise ValueError(f"deserialize_state: history[{i}]: {action} is not {what}")
            state.apply_action(action)
        return state

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> SequenceObserver:
        perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return SequenceObserver(perfect_recall, params, self)


class SequenceState(pyspiel.State):
    """A state: the seed bytes drawn so far, then a ``sequence_game.Game`` and each player's
    private record (own deal and draws) beside the public record of actions."""

    def __init__(self, game: SequenceGame) -> None:
        super().__init__(game)
        # Plain values, not the game object: OpenSpiel clones states by copying their attributes.
        self._players, self._teams, self._max_turns = game.players, game.teams, game.max_turns
        self._seed_bytes: List[int] = []
        self.game: Optional[Game] = None
        self._public: List[str] = []  # every player action, as text (all are public, R9)
        self._private: List[List[str]] = [[] for _ in range(self._players)]  # own deal and draws
        # The same as numbers, for the perfect-recall information state tensor: every player
        # action, each player's dealt cards in hand order and (action index, card) of its draws.
        self._actions: List[int] = []
        self._dealt: List[List[int]] = [[] for _ in range(self._players)]
        self._draws: List[List[Tuple[int, int]]] = [[] for _ in range(self._players)]

    # ---------------------------------------------------------------- the pyspiel.State protocol

    def current_player(self) -> int:
        if self.game is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.game.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        return self.game.current_player

    def _legal_actions(self, player: int) -> List[int]:
        assert self.game is not None and player == self.game.current_player
        return self.game.legal_actions()

    def chance_outcomes(self) -> List[Tuple[int, float]]:
        return [(b, 1.0 / 256) for b in range(256)]

    def _apply_action(self, action: int) -> None:
        if self.game is None:
            self._seed_bytes.append(int(action))
            if len(self._seed_bytes) == SEED_BYTES:
                self._deal(int.from_bytes(bytes(self._seed_bytes), "little"))
            return
        game = self.game
        player = game.current_player
        before = Counter(game.hand(player))
        pending = game.pending_placement
        game.play_action(int(action))
        self._public.append(f"p{player} {describe_action(int(action))}")
        self._actions.append(int(action))
        if game.pending_placement is None:  # a move was played: record what its player drew
            played = Counter(_card_played(int(action), pending))
            for card in sorted((Counter(game.hand(player)) - (before - played)).elements()):
                self._private[player].append(f"drew {card}")
                self._draws[player].append((len(self._actions) - 1, _CARD_INDEX[card]))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed byte {len(self._seed_bytes)}: {action}"
        return describe_action(action)

    def is_terminal(self) -> bool:
        return self.game is not None and self.game.is_over

    def returns(self) -> List[float]:
        if self.game is None or not self.game.is_over:
            return [0.0] * self._players
        return _common.team_rewards(self.game)

    def __str__(self) -> str:
        if self.game is None:
            return f"dealing: seed bytes {self._seed_bytes}"
        return str(self.game)

    def serialize(self) -> str:
        """The game's parameters and this state's history as JSON text (see the module docstring);
        ``SequenceGame.deserialize_state`` replays it."""
        return json.dumps({"format": STATE_FORMAT, "players": self._players, "teams": self._teams,
                           "max_turns": self._max_turns, "history": [int(a) for a in self.history()]},
                          separators=(",", ":"))

    def __reduce__(self) -> Tuple[Any, Tuple[Dict[str, int], str]]:
        # Python's pickle of a state carries the same text (not OpenSpiel's pickled attributes).
        return _load_state, ({"players": self._players, "teams": self._teams, "max_turns": self._max_turns},
                             self.serialize())

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> SequenceState:
        """A world ``player_id`` cannot tell from this one: every card that player cannot see (the
        other hands and the draw pile) dealt again at random, every hand size kept, and a fresh
        generator for later reshuffles (R6)."""
        state = self.clone()
        if self.game is None or self.game.is_over:
            return state
        rng = random.Random(f"{probability_sampler()}/{next(_resample_counter)}")
        d = self.game.to_dict()
        hidden = [c for p, h in enumerate(d["hands"]) if p != player_id for c in h] + list(d["draw_pile"])
        rng.shuffle(hidden)
        hands = []
        for p, h in enumerate(d["hands"]):
            if p == player_id:
                hands.append(list(h))
            else:
                hands.append(hidden[: len(h)])
                hidden = hidden[len(h):]
        d.update(hands=hands, draw_pile=hidden, rng=rng.getrandbits(64), seed=None, last_draw=None)
        world = Game.from_dict(d)
        world._pending = self.game._pending  # a placement waiting for its declares is public
        state.game = world
        return state

    # ---------------------------------------------------------------- internals

    def _deal(self, seed: int) -> None:
        self.game = Game(players=self._players, teams=self._teams, seed=seed, max_turns=self._max_turns)
        for p in range(self._players):
            self._private[p].append("dealt " + " ".join(self.game.hand(p)))
            self._dealt[p] = [_CARD_INDEX[c] for c in self.game.hand(p)]

    def information_string(self, player: int) -> str:
        """The perfect-recall information state string of ``player``."""
        if self.game is None:
            return f"p{player} dealing"
        return "\n".join([f"p{player} of {self._players}"] + self._private[player] + self._public)


def recall_layout(players: int, max_turns: int) -> List[Tuple[str, int]]:
    """The fields of the perfect-recall information state tensor, in order, with their sizes: the
    player (one-hot), its dealt cards in hand order (card index + 1, ``cards.CARD_NAMES``; 0 past
    the hand, R3), every player action so far in order (action + 1; 0 after the last), and for
    each action the card this player drew after it (card index + 1, 0 for none)."""
    actions = _MAX_ACTIONS_PER_TURN * max_turns
    return [("player", players), ("deal", max(HAND_SIZE.values())), ("actions", actions), ("draws", actions)]


class SequenceObserver:
    """The PyObserver of OpenSpiel. Observation: the observation tensor of docs/observation.md and
    text. Information state (``perfect_recall``): the tensor of ``recall_layout`` and the text of
    ``SequenceState.information_string``, both exactly the player's deal, draws and every action."""

    def __init__(self, perfect_recall: bool, params: Any, game: Optional[SequenceGame] = None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.perfect_recall = perfect_recall
        if perfect_recall:
            assert game is not None
            layout = recall_layout(game.players, game.max_turns)
            self.tensor = np.zeros(sum(n for _, n in layout), np.float32)
            self.dict, start = {}, 0
            for name, n in layout:
                self.dict[name] = self.tensor[start:start + n]
                start += n
        else:
            self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
            self.dict = {name: self.tensor[field_slice(name)] for name in LAYOUT}

    def set_from(self, state: SequenceState, player: int) -> None:
        if self.perfect_recall:
            self.tensor.fill(0)
            self.dict["player"][player] = 1.0
            for field, values in (("deal", state._dealt[player]), ("actions", state._actions)):
                self.dict[field][:len(values)] = np.asarray(values, dtype=np.float32) + 1
            for index, card in state._draws[player]:
                self.dict["draws"][index] = card + 1
        elif state.game is None:
            self.tensor.fill(0)
        else:
            state.game.observation_tensor(player, out=self.tensor)

    def string_from(self, state: SequenceState, player: int) -> str:
        if self.perfect_recall:
            return state.information_string(player)
        game = state.game
        if game is None:
            return f"p{player} dealing"
        discards = Counter(c for p in range(game.players) for c in game.discards(p))
        pending = game.pending_placement
        return "\n".join([
            str(game),
            f"p{player} hand: {' '.join(game.hand(player))}",
            "hand sizes: " + " ".join(str(len(game.hand(p))) for p in range(game.players)),
            f"draw pile: {game.draw_pile_size}; traded this turn: {game.traded_this_turn}",
            "discarded: " + " ".join(f"{c}x{discards[c]}" for c in CARD_NAMES if discards[c]),
            f"pending: {pending}" if pending is not None else "pending: none",
        ])


def seed_outcomes(game_seed: int) -> List[int]:
    """The eight chance outcomes that deal ``Game(seed=game_seed)``: its bytes, little-endian."""
    from .._args import check_seed

    if game_seed is None:
        raise TypeError("game_seed must be an int in 0 .. 2**64 - 1, not None")
    return list(int(check_seed(game_seed, "game_seed") or 0).to_bytes(SEED_BYTES, "little"))


def dealt_state(game: Any, game_seed: int) -> SequenceState:
    """A new state of ``game`` (``python_sequence``) past its chance nodes, dealt as
    ``Game(players, teams, seed=game_seed, max_turns)``: the same deal as the other environments'
    ``game_seed`` and ``VectorGame.seeds()``."""
    state = game.new_initial_state()
    for outcome in seed_outcomes(game_seed):
        state.apply_action(outcome)
    return state


def _load_state(params: Dict[str, int], text: str) -> SequenceState:
    game = pyspiel.load_game("python_sequence", params)
    return game.deserialize_state(text)


def _card_played(action: int, pending: Optional[Move]) -> List[str]:
    """The card a move's last action puts on its player's discard pile ([] for a pass)."""
    if pending is not None:
        assert pending.card is not None  # a pending placement has its card
        return [pending.card]
    if action == PASS_ACTION:
        return []
    if action >= TRADE_ACTION_BASE:
        return [CARD_NAMES[action - TRADE_ACTION_BASE]]
    return [CARD_NAMES[action // 100]]


# ---------------------------------------------------------------- this package's agents as bots


def action_sequence(game: Game, move: Move) -> List[int]:
    """The actions that play ``move`` (a legal move) in ``game``: its first action, then the
    declare actions of its sequences (docs/action-space.md)."""
    from ..actions import action_of_move, window_of_action
    from ..board import WINDOWS

    probe: Game = game.copy()
    out = [action_of_move(move)]
    probe.play_action(out[0])
    wanted = {tuple(10 * r + c for r, c in seq) for seq in move.declares}
    while probe.pending_placement is not None:
        action = next(a for a in probe.legal_actions()
                      if (w := window_of_action(a)) is not None and WINDOWS[w] in wanted)
        probe.play_action(action)
        out.append(action)
    return out


class AgentBot(pyspiel.Bot):
    """Any agent of ``sequence_game.agents`` (``select_move(game)``) as an OpenSpiel bot."""

    def __init__(self, agent: Any) -> None:
        pyspiel.Bot.__init__(self)
        self.agent = agent
        self._queue: List[int] = []

    def step(self, state: SequenceState) -> int:
        game = state.game
        assert game is not None
        if not self._queue or game.pending_placement is None:
            self._queue = action_sequence(game, self.agent.select_move(game))
        return self._queue.pop(0)

    def restart_at(self, state: Any) -> None:
        self._queue = []

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass


def ismcts_bot(game: Any, max_simulations: int, seed: int = 0, uct_c: float = 2.0) -> Any:
    """OpenSpiel's Python ``ISMCTSBot`` with random-rollout evaluation, set up for this game
    (``allow_inconsistent_action_sets``: hands differ between sampled worlds) and usable by
    ``evaluate_bots``: OpenSpiel's class does not implement ``restart_at``/``inform_action``,
    which ``evaluate_bots`` calls; it keeps no state between moves, so they do nothing here."""
    from open_spiel.python.algorithms import ismcts, mcts

    class _ISMCTSBot(ismcts.ISMCTSBot):
        def restart_at(self, state: Any) -> None:
            self.reset()

        def inform_action(self, state: Any, player_id: int, action: int) -> None:
            pass

    rs = np.random.RandomState(seed)
    return _ISMCTSBot(game, mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs), uct_c=uct_c,
                      max_simulations=max_simulations, random_state=rs, allow_inconsistent_action_sets=True)


pyspiel.register_game(_GAME_TYPE, SequenceGame)
