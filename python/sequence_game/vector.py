"""``VectorGame``: many games stepped together in the compiled core, for reinforcement learning.

One ``step(actions)`` plays one action in every game (the fixed action space of
docs/action-space.md, R7 declares choices included as follow-up actions of the same player); the
observations (docs/observation.md) and legal-action masks of all games are written by the core
into numpy arrays, with the GIL released and no per-game Python call:

>>> import numpy as np
>>> from sequence_game import VectorGame
>>> vg = VectorGame(4, players=2, seed=1)
>>> masks = vg.legal_masks()                      # (4, 5253) bool
>>> rng = np.random.default_rng(0)
>>> for _ in range(300):
...     actions = vg.sample_actions(rng, masks)   # one random legal action per game
...     rewards, terminated, truncated = vg.step(actions)
...     masks = vg.legal_masks(out=masks)
>>> vg.observations().shape, rewards.shape
((4, 890), (4, 2))

Game ``i``'s ``k``-th episode is dealt exactly as ``Game(players, teams, seed=vg.seeds()[i],
max_turns)``: the same actions give the same game, move for move, and every game depends only on
``(seed, i)``, whatever ``threads`` is. A game that ends is re-dealt in the same step (its result is
in that step's ``rewards``/``terminated``/``truncated``; ``final_observations()`` and
``copy_game(i, final=True)`` show the position it ended in).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

import numpy as np

from . import _core
from ._args import check_seed, is_int
from .actions import ACTION_COUNT, describe_action
from .errors import IllegalMoveError
from .game import Game
from .game_setup import check_max_turns, check_players_teams
from .observation import OBSERVATION_SIZE

if TYPE_CHECKING:  # typing.TypeGuard is Python 3.10+; only the type checker needs it
    from typing_extensions import TypeGuard

__all__ = ["MAX_LEGAL_ACTIONS", "OPPONENTS", "PACKED_MASK_BYTES", "IllegalActionsError", "VectorGame", "seed_dealing"]

#: Built-in seat policies (played inside the core): ``"random"`` (uniformly random legal moves,
#: declares included), ``"greedy"`` (GreedyAgent's move scoring, in C++) and ``"net"`` (the
#: shipped policy-value network, the ``net`` agent's move; ``"net:weights=PATH,temperature=T"``
#: and ``"policy:PATH.sqnet"`` name another weights file and a sampling temperature).
OPPONENTS = ("random", "greedy", "net")
_SEAT_CODE = {"random": 1, "greedy": 2, "net": 3}
_CALLER = 0

#: An opponent played by the caller's code: ``f(observations, masks) -> actions`` over the games
#: whose seat to move is one of its seats (float32 ``(n, OBSERVATION_SIZE)``, bool ``(n,
#: ACTION_COUNT)``, returns n int actions).
BatchPolicy = Callable[[np.ndarray, np.ndarray], Any]
_OPPONENT_FORMS = ("'random', 'greedy', 'net', 'net:weights=PATH,temperature=T', 'policy:PATH.sqnet', a saved policy "
                   "'policy:PATH.npz|.zip|.onnx' or a callable (observations[n, 890] float32, masks[n, 5253] bool) "
                   "-> actions[n]")


def _net_spec(spec: str) -> Tuple[str, Optional[str], float]:
    """``(canonical spec, weights path or None, temperature)`` of a network opponent spec:
    ``net``, ``net:weights=PATH,temperature=T`` or ``policy:PATH.sqnet[,temperature=T]``."""
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    weights: Optional[str] = None
    temperature: Any = 0.0
    for n, item in enumerate(filter(None, (x.strip() for x in rest.split(",")))):
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if name == "policy" and n == 0 and not eq:
            weights = item
        elif eq and key == "weights" and name == "net":
            weights = value.strip()
        elif eq and key == "temperature":
            try:
                temperature = float(value)
            except ValueError:
                temperature = value.strip()
        elif eq and key == "sample" and name == "policy":
            if value.strip().lower() in ("true", "yes", "on", "1"):
                temperature = 1.0 if temperature == 0.0 else temperature
        else:
            raise ValueError(f"opponent {spec!r}: a network opponent takes weights=PATH (net), a .sqnet path "
                             f"(policy:PATH.sqnet) and temperature=T, not {item!r}")
    if name == "policy" and (weights is None or not weights.lower().endswith(".sqnet")):
        raise ValueError(f"opponent {spec!r}: the core plays a policy file only as a network weights file "
                         "(policy:PATH.sqnet); other saved policies are played in Python (opponent_spec)")
    if isinstance(temperature, bool) or not isinstance(temperature, float) or not 0.0 <= temperature <= 100.0:
        raise ValueError(f"opponent {spec!r}: temperature must be a number in 0..100, not {temperature!r}")
    if weights is not None:
        weights = os.path.abspath(weights)
    parts = ([f"weights={weights}"] if weights is not None else []) + (
        [f"temperature={temperature:g}"] if temperature else [])
    return "net" + (":" + ",".join(parts) if parts else ""), weights, temperature


def _saved_policy(spec: str, where: str) -> BatchPolicy:
    """The batched callable of a saved-policy spec, ``"policy:PATH.npz|.zip|.onnx[,sample=...]"``:
    ``PolicyAgent(...).policy``, which takes a batch of raw observations in one forward pass and
    scales them itself as its model learned (``sequence_game.agents.policy.load_policy``)."""
    from .agents import agent_from_spec  # the agents package is loaded only when a policy plays

    try:
        agent = agent_from_spec(spec)
    except (ValueError, TypeError) as e:
        raise type(e)(f"{where}: {e}") from None
    return agent.policy  # type: ignore[no-any-return]


def opponent_spec(policy: Any, where: str = "opponents") -> Union[str, BatchPolicy]:
    """A ``VectorGame`` opponent checked and in its canonical form: ``"random"``, ``"greedy"``, a
    network spec (``"net"``, ``"net:weights=/abs/path,temperature=T"``) or the callable itself.
    ``ValueError``/``TypeError`` naming the accepted forms otherwise."""
    if isinstance(policy, str):
        text = policy.strip().lower()
        if text in ("random", "greedy"):
            return text
        name, _, rest = text.partition(":")
        if name.strip() == "policy" and not rest.strip():
            raise ValueError(f"{where}: a policy opponent names its file: 'policy:PATH' with a .sqnet, .npz, .zip "
                             f"or .onnx file, not {policy!r}")
        if name.strip() == "policy" and not rest.split(",", 1)[0].strip().endswith(".sqnet"):
            return _saved_policy(policy, where)
        if name.strip() in ("net", "policy"):
            return _net_spec(policy)[0]
        raise ValueError(f"{where}: the core plays only {_OPPONENT_FORMS}, not {policy!r}")
    if callable(policy) and not callable(getattr(policy, "select_move", None)):
        return policy  # type: ignore[no-any-return]
    raise TypeError(f"{where}: an opponent of the batched games is {_OPPONENT_FORMS}, not {policy!r}")
#: Bytes per game of a bit-packed mask (``legal_masks(packed=True)``): action ``a`` is bit ``a % 8``
#: of byte ``a // 8`` (``numpy.unpackbits(..., bitorder="little")``).
PACKED_MASK_BYTES = _core.PACKED_MASK_BYTES
#: Room per game in ``legal_actions()`` (a seat never has more than 201 legal actions).
MAX_LEGAL_ACTIONS = _core.MAX_LEGAL_ACTIONS

_Players = Union[None, int, np.ndarray]

_MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15  # SplitMix64's increment (docs/rng.md)


def _unshift(z: int, k: int) -> int:
    """The inverse of ``z ^ (z >> k)`` on 64 bits."""
    out = z
    for _ in range(64 // k):
        out = z ^ (out >> k)
    return out


def _unmix(z: int) -> int:
    """The inverse of SplitMix64's output function (docs/rng.md): a bijection of 64-bit ints."""
    z = _unshift(z, 31)
    z = (z * pow(0x94D049BB133111EB, -1, 1 << 64)) & _MASK64
    z = _unshift(z, 27)
    z = (z * pow(0xBF58476D1CE4E5B9, -1, 1 << 64)) & _MASK64
    return _unshift(z, 30)


def seed_dealing(game_seed: int) -> int:
    """The ``VectorGame`` seed whose game 0 deals ``Game(seed=game_seed)`` as its first episode:
    the inverse of ``episode_seed(seed, 0, 0)`` (two SplitMix64 outputs, each a bijection), so that
    the per-game environments deal a chosen ``Game`` seed with opponents played in the core.

    >>> from sequence_game import _core
    >>> _core.episode_seed(seed_dealing(12345), 0, 0)
    12345
    """
    checked = check_seed(game_seed)
    if checked is None:
        raise TypeError("game_seed must be an int in 0 .. 2**64 - 1")
    return (_unmix((_unmix(checked) - _GAMMA) & _MASK64) - _GAMMA) & _MASK64


def _is_int(x: object) -> TypeGuard[Union[int, np.integer[Any]]]:
    """``is_int`` that also takes numpy integers (game indices and seats often come from arrays)."""
    return is_int(x) or (isinstance(x, np.integer) and not isinstance(x, np.bool_))


class IllegalActionsError(IllegalMoveError):
    """A ``VectorGame.step`` batch with illegal actions (nothing was played): ``games`` and
    ``actions`` list every refused game and the action it was given."""

    def __init__(self, message: str, games: List[int], actions: List[int]) -> None:
        super().__init__(message)
        self.games = games
        self.actions = actions


class VectorGame:
    """``num_games`` independent games of Sequence in the compiled core.

    ``players``, ``teams`` (R2), ``seed`` and ``max_turns`` (None: no cap; a capped game is a draw,
    reported as truncated) are those of ``Game``. ``threads`` worker threads share each call's
    games (the results do not depend on it). ``opponents`` maps seats to built-in policies played
    inside the core (``"random"``, ``"greedy"``, ``"net"``: the network's most probable legal
    move, from its seat's observation only, R9; ``"net:weights=PATH,temperature=T"`` or
    ``"policy:PATH.sqnet"`` for another weights file or moves sampled at a temperature, drawn from
    each game's own generator; every network seat of one VectorGame plays the same network) or to
    a callable ``f(observations, masks) -> actions`` over the games where one of its seats is to
    move (``float32 (n, OBSERVATION_SIZE)`` observations of the seat to move, ``bool (n,
    ACTION_COUNT)`` masks, ``n`` legal actions back; one with a true ``takes_deals`` attribute is
    also given ``deals=``, each row's deal seed: ``sequence_game.envs.pool.PolicyPool.opponent()``
    keys its choice of snapshot on it), a saved policy among them: ``"policy:PATH.npz"`` (``.zip``, ``.onnx``; options as the agent spec)
    or ``sequence_game.agents.policy.load_policy(PATH)``, one forward pass per sub-step. After
    every step and reset the opponents move until a seat of the caller is to move, so ``step``
    only ever receives the caller's seats' actions. With no opponents (self-play) the caller plays
    every seat.

    Errors: bad arguments raise ``TypeError``/``ValueError`` naming the argument; a batch with
    illegal actions raises one ``IllegalMoveError`` (a ``ValueError``) naming every refused game and
    action, and no game changes. A callable opponent that returns the wrong shape, a non-integer
    dtype or an illegal action raises one ``ValueError`` (an exception it raises itself passes
    through), and the call that ran it (``step`` or ``reset``) changes no game.
    """

    def __init__(self, num_games: int, players: int = 2, teams: Optional[int] = None, seed: int = 0,
                 max_turns: Optional[int] = None, threads: int = 1,
                 opponents: Optional[Mapping[int, Union[str, BatchPolicy]]] = None) -> None:
        if not _is_int(num_games):
            raise TypeError(f"num_games must be an int, not {type(num_games).__name__}")
        if not 1 <= num_games <= 1 << 24:
            raise ValueError(f"num_games must be in 1..{1 << 24}, not {num_games}")
        if not _is_int(threads):
            raise TypeError(f"threads must be an int, not {type(threads).__name__}")
        if not 1 <= threads <= 256:
            raise ValueError(f"threads must be in 1..256, not {threads}")
        players, teams = check_players_teams(players, teams)
        checked_seed = check_seed(seed)
        if checked_seed is None:
            raise TypeError("seed must be an int in 0 .. 2**64 - 1 (VectorGame games are reproducible)")
        max_turns = check_max_turns(max_turns)
        if opponents is not None and not isinstance(opponents, Mapping):
            raise TypeError(f"opponents must be a dict {{seat: opponent}} or None, not {type(opponents).__name__}")
        seats = [_CALLER] * players
        self._opponents: Dict[int, Union[str, BatchPolicy]] = {}
        self._callables: Dict[int, BatchPolicy] = {}
        nets: Dict[str, Tuple[int, Optional[str], float]] = {}
        for seat, given in dict(opponents or {}).items():
            if not _is_int(seat) or not 0 <= seat < players:
                raise ValueError(f"opponents: seat {seat!r} is not a seat 0..{players - 1}")
            policy = opponent_spec(given, f"opponents: seat {seat}")
            if isinstance(policy, str):
                if policy.startswith("net"):
                    _, weights, temperature = _net_spec(policy)
                    nets.setdefault(policy, (int(seat), weights, temperature))
                seats[seat] = _SEAT_CODE[policy.split(":", 1)[0]]
            else:
                self._callables[int(seat)] = policy
            self._opponents[int(seat)] = policy
        if len(self._opponents) == players:
            raise ValueError("opponents: every seat is an opponent; at least one seat must be played by the caller")
        if self._opponents and max_turns is not None and max_turns < players:
            raise ValueError(f"max_turns must be at least players ({players}) when opponents are built in, "
                             f"not {max_turns}")
        if len(nets) > 1:
            shown = "; ".join(f"seat {s}: {spec!r}" for spec, (s, _, _) in nets.items())
            raise ValueError(f"opponents: the network seats of one VectorGame play one network at one temperature, "
                             f"not {shown}")
        net = None
        temperature = 0.0
        if nets:
            from .agents.net import load_net  # the agents package is loaded only when a network plays

            _, weights, temperature = next(iter(nets.values()))
            net = load_net(weights)
        self._core = _core.VectorGame(num_games, players, teams, checked_seed, max_turns or 0, threads,
                                      [_CALLER if s in self._callables else c for s, c in enumerate(seats)],
                                      net, temperature)
        self.num_games = int(num_games)
        self.players = players
        self.teams = teams
        self.max_turns = max_turns
        self.threads = int(threads)
        self._rewards = np.zeros((num_games, teams), dtype=np.float32)
        self._uniforms = np.empty(num_games, dtype=np.float64)  # sample_actions' draws, reused
        self._version = 0
        if self._callables:
            self._guarded(self._play_callables)

    def __repr__(self) -> str:
        opp = f", opponents={self._opponents}" if self._opponents else ""
        return (f"VectorGame({self.num_games}, players={self.players}, teams={self.teams}, seed={self.seed}, "
                f"max_turns={self.max_turns}, threads={self.threads}{opp})")

    def __len__(self) -> int:
        return self.num_games

    @property
    def seed(self) -> int:
        """The seed of the last reset (or of the constructor)."""
        return int(self._core.seed)

    @property
    def version(self) -> int:
        """Counts the calls that changed the games (``step``, ``reset``): what was read from the
        games (masks, action lists) is still current while it is unchanged."""
        return self._version

    @property
    def opponents(self) -> Dict[int, Union[str, BatchPolicy]]:
        """The opponents' seats: ``{seat: "random" | "greedy" | network spec | callable}`` (a copy;
        network specs in their canonical form, e.g. ``"net"``)."""
        return dict(self._opponents)

    @property
    def caller_seats(self) -> Tuple[int, ...]:
        """The seats whose actions ``step`` takes."""
        return tuple(p for p in range(self.players) if p not in self._opponents)

    # ------------------------------------------------------------------ callable opponents

    def _guarded(self, play: Callable[[], None]) -> None:
        """Runs ``play`` (which steps the core) so that an exception anywhere in it leaves every game
        as it was before: the core copies the games aside first and brings the copy back."""
        try:
            play()
        except BaseException:
            self._core.restore()
            raise

    def _play_callables(self, totals: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None) -> None:
        """Callable opponents move, one action per game and sub-step, until a seat of the caller is
        to move in every game; the sub-steps' results are added into ``totals`` (a game ends at
        most once in a call: a fresh deal cannot end before the caller's seat moves)."""
        groups: Dict[int, Tuple[BatchPolicy, List[int]]] = {}
        for seat, f in self._callables.items():
            groups.setdefault(id(f), (f, []))[1].append(seat)
        n = self.num_games
        rewards = np.empty((n, self.teams), dtype=np.float32)
        terminated = np.empty(n, dtype=bool)
        truncated = np.empty(n, dtype=bool)
        actions = np.zeros(n, dtype=np.int64)
        active = np.zeros(n, dtype=bool)
        while True:
            moved = False
            for f, seats in groups.values():
                players = self.current_players()
                rows = np.flatnonzero(np.isin(players, seats))
                if not len(rows):
                    continue
                moved = True
                obs = self.observations()[rows]
                masks = self.legal_masks()[rows]
                chosen = self._callable_actions(f, seats, rows, obs, masks)
                actions[:] = 0
                actions[rows] = chosen
                active[:] = False
                active[rows] = True
                refused = self._core.step(actions, rewards, terminated, truncated, active, True)
                if refused is not None:  # pragma: no cover - the masks were checked above
                    raise self._illegal(*refused)
                if totals is not None:
                    totals[0][rows] += rewards[rows]
                    totals[1][rows] |= terminated[rows]
                    totals[2][rows] |= truncated[rows]
            if not moved:
                return

    def _callable_actions(self, f: BatchPolicy, seats: List[int], rows: np.ndarray, obs: np.ndarray,
                          masks: np.ndarray) -> np.ndarray:
        """``f``'s actions for the games ``rows``, checked: one ``ValueError`` naming what is wrong."""
        who = f"the opponent callable of seat{'s' if len(seats) > 1 else ''} {', '.join(map(str, seats))}"
        # A callable with a true `takes_deals` (a pool's opponent) also gets each row's deal seed,
        # the key of its game's episode, to keep one choice for a whole game.
        if getattr(f, "takes_deals", False):
            out = np.asarray(f(obs, masks, deals=self.seeds()[rows]))  # type: ignore[call-arg]
        else:
            out = np.asarray(f(obs, masks))
        if out.shape != (len(rows),) and out.shape != (len(rows), 1):
            raise ValueError(f"{who} returned shape {out.shape} for {len(rows)} games: return one action per row "
                             f"of the observations, shape ({len(rows)},)")
        if out.dtype.kind not in "iu":
            raise ValueError(f"{who} returned dtype {out.dtype}: return integer actions (e.g. int64) in "
                             f"0..{ACTION_COUNT - 1}")
        out = out.reshape(-1)
        bad = np.flatnonzero((out < 0) | (out >= ACTION_COUNT))
        if not len(bad):
            bad = np.flatnonzero(~masks[np.arange(len(rows)), out.astype(np.int64)])
        if len(bad):
            k = int(bad[0])
            a = int(out[k])
            what = describe_action(a) if 0 <= a < ACTION_COUNT else f"out of range 0..{ACTION_COUNT - 1}"
            raise ValueError(f"{who} returned an illegal action in {len(bad)} of {len(rows)} games, e.g. row {k} "
                             f"(game {int(rows[k])}): action {a} ({what}); choose where the mask is True. "
                             "Nothing was played")
        return out.astype(np.int64)

    # ------------------------------------------------------------------ state, written into arrays

    def reset(self, seed: Optional[int] = None) -> None:
        """Deal episode 0 of every game again, from ``seed`` (default: the current seed)."""
        checked = check_seed(seed)
        if self._callables:
            self._core.save()
        self._core.reset(self.seed if checked is None else checked)
        if self._callables:
            self._guarded(self._play_callables)
        self._version += 1

    def current_players(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """The seat to move in each game: ``int32`` of shape ``(num_games,)``."""
        out = np.empty(self.num_games, dtype=np.int32) if out is None else out
        self._core.current_players(out)
        return out

    def episodes(self) -> np.ndarray:
        """How many episodes each game has finished since the last reset (``int64``)."""
        out = np.empty(self.num_games, dtype=np.int64)
        self._core.episodes(out)
        return out

    def seeds(self) -> np.ndarray:
        """The deal seed of each game's current episode (``uint64``): ``Game(players, teams,
        seed=seeds[i], max_turns)`` is dealt exactly as game ``i`` was."""
        out = np.empty(self.num_games, dtype=np.uint64)
        self._core.seeds(out)
        return out

    def _observers(self, players: _Players) -> Optional[np.ndarray]:
        if players is None:
            return None
        if _is_int(players):
            if not 0 <= players < self.players:
                raise ValueError(f"players: {players} is not a seat 0..{self.players - 1}")
            return np.full(self.num_games, players, dtype=np.int32)
        arr = np.asarray(players)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"players must be None, an int or an integer array, not dtype {arr.dtype}")
        if arr.ndim == 1:
            # Checked before the cast to int32, which would wrap 2**32 + 1 to seat 1; the core
            # checks the shape and the seats again, on its own copy.
            bad = np.flatnonzero((arr < 0) | (arr >= self.players))
            if len(bad):
                i = int(bad[0])
                raise ValueError(f"players[{i}] = {int(arr[i])} is not a seat 0..{self.players - 1}")
        return np.ascontiguousarray(arr, dtype=np.int32)

    def observations(self, out: Optional[np.ndarray] = None, players: _Players = None) -> np.ndarray:
        """Each game's observation tensor (docs/observation.md; ``float32``, shape ``(num_games,
        OBSERVATION_SIZE)``) as seen by ``players``: None for each game's seat to move, a seat for
        all games, or one seat per game. Only what that seat may see (R9). ``out``: an array of
        that dtype and shape to write into (returned)."""
        out = np.empty((self.num_games, OBSERVATION_SIZE), dtype=np.float32) if out is None else out
        self._core.observations(out, self._observers(players))
        return out

    def final_observations(self, out: Optional[np.ndarray] = None, players: _Players = None) -> np.ndarray:
        """The observations of the final positions of the games that ended on the last ``step``,
        one row per ended game in ascending game order (``np.flatnonzero(terminated | truncated)``).
        ``players``: as ``observations``, indexed by game; None: the seat whose action ended it."""
        rows = self._core.ended_count()
        out = np.empty((rows, OBSERVATION_SIZE), dtype=np.float32) if out is None else out
        self._core.final_observations(out, self._observers(players))
        return out

    def legal_masks(self, out: Optional[np.ndarray] = None, packed: bool = False,
                    lists: Optional[Tuple[np.ndarray, np.ndarray]] = None) -> np.ndarray:
        """The legal actions of each game's seat to move (docs/action-space.md): ``bool`` of shape
        ``(num_games, ACTION_COUNT)``, or with ``packed=True`` ``uint8`` of shape ``(num_games,
        PACKED_MASK_BYTES)`` (action ``a`` is bit ``a % 8`` of byte ``a // 8``). ``out``: an array
        of that dtype and shape to write into (returned). ``lists``: the ``(actions, counts)``
        arrays of ``legal_actions()`` to fill in the same pass."""
        if packed:
            out = np.empty((self.num_games, PACKED_MASK_BYTES), dtype=np.uint8) if out is None else out
        else:
            out = np.empty((self.num_games, ACTION_COUNT), dtype=bool) if out is None else out
        actions, counts = (None, None) if lists is None else lists
        self._core.legal(None if packed else out, out if packed else None, actions, counts)
        return out

    def legal_actions(self, out: Optional[np.ndarray] = None,
                      counts: Optional[np.ndarray] = None) -> Tuple[np.ndarray, np.ndarray]:
        """The legal actions of each game as lists: ``(actions, counts)``, ``actions`` ``int16`` of
        shape ``(num_games, MAX_LEGAL_ACTIONS)`` holding game ``i``'s legal actions ascending in
        ``actions[i, :counts[i]]`` (then -1), ``counts`` ``int32``. Cheaper than a mask to choose
        from when a policy only scores the legal actions."""
        out = np.empty((self.num_games, MAX_LEGAL_ACTIONS), dtype=np.int16) if out is None else out
        counts = np.empty(self.num_games, dtype=np.int32) if counts is None else counts
        self._core.legal(None, None, out, counts)
        return out, counts

    # ------------------------------------------------------------------ stepping

    def step(self, actions: Any) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Play ``actions[i]`` for the seat to move in every game ``i``; returns ``(rewards,
        terminated, truncated)``: ``float32 (num_games, teams)`` (+1 the winning team, -1 the
        others, 0 otherwise, by absolute team; R8), and ``bool (num_games,)``: the game was won
        (R8) or stalemated (R5) / reached the turn cap. Games that ended are re-dealt at once.

        An action that starts a placement with a choice of sequences (R7) leaves that game waiting
        for the same player's declare actions (nothing played, reward 0). ``IllegalMoveError`` if
        any action is not legal, naming every such game; then no game changes.
        """
        arr = np.asarray(actions)
        if arr.dtype.kind not in "iu":
            raise TypeError(f"actions must be an integer array, not dtype {arr.dtype}")
        if arr.shape != (self.num_games,):
            raise ValueError(f"actions must have shape ({self.num_games},), one per game, not {arr.shape}")
        if arr.dtype == np.uint64 and arr.size and int(arr.max()) > np.iinfo(np.int64).max:
            # The cast to int64 would wrap these to negative numbers: refuse them as they are.
            games = [int(g) for g in np.flatnonzero(arr > np.iinfo(np.int64).max)]
            raise self._illegal(games, [int(arr[g]) for g in games])
        arr = np.ascontiguousarray(arr, dtype=np.int64)
        rewards = np.empty((self.num_games, self.teams), dtype=np.float32)
        terminated = np.empty(self.num_games, dtype=bool)
        truncated = np.empty(self.num_games, dtype=bool)
        if self._callables:
            self._core.save()
        refused = self._core.step(arr, rewards, terminated, truncated)
        if refused is not None:
            raise self._illegal(*refused)
        if self._callables:
            self._guarded(lambda: self._play_callables((rewards, terminated, truncated)))
        self._version += 1
        return rewards, terminated, truncated

    def _illegal(self, games: List[int], actions: List[int]) -> IllegalActionsError:
        shown = []
        for g, a in list(zip(games, actions))[:8]:
            what = describe_action(a) if 0 <= a < ACTION_COUNT else f"out of range 0..{ACTION_COUNT - 1}"
            waiting = self._core.pending(g)
            note = " while a placement waits for its declare actions" if waiting is not None else ""
            shown.append(f"game {g}: action {a} ({what}){note}")
        more = f", and {len(games) - 8} more" if len(games) > 8 else ""
        return IllegalActionsError(
            f"illegal actions in {len(games)} of {self.num_games} games, nothing was played: "
            + "; ".join(shown) + more + " (legal_masks() shows the legal ones; docs/action-space.md)",
            list(games), list(actions))

    def sample_actions(self, rng: np.random.Generator, masks: Optional[np.ndarray] = None,
                       legal: Optional[Tuple[np.ndarray, np.ndarray]] = None,
                       out: Optional[np.ndarray] = None) -> np.ndarray:
        """One uniformly random legal action per game (``int64 (num_games,)``): from ``masks`` (bool
        ``(num_games, ACTION_COUNT)`` as ``legal_masks()`` writes them, or their packed ``uint8``
        form), drawn in the core (one pass over each row, split over the ``threads``, the GIL
        released); else from ``legal`` (the ``(actions, counts)`` of ``legal_actions()``, in numpy);
        else from fresh lists. ``rng`` gives one ``rng.random()`` draw per game, ``u``, and the
        action is the ``floor(u * count)``-th True entry of the row in ascending order: the same
        action from a mask and from the lists of the same position, whatever ``threads`` is. A mask
        you narrowed (a False where the game has a legal action) is honoured; a row with no True
        entry is a ``ValueError``. ``out``: an ``int64 (num_games,)`` array to write into
        (returned); without it a fresh array is returned."""
        if not isinstance(rng, np.random.Generator):
            raise TypeError("rng must be a numpy.random.Generator (numpy.random.default_rng(seed)), "
                            f"not {type(rng).__name__}")
        n = self.num_games
        if out is None:
            out = np.empty(n, dtype=np.int64)
        elif not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.shape != (n,):
            raise ValueError(f"out must be an int64 numpy array of shape ({n},), not "
                             f"{getattr(out, 'dtype', type(out).__name__)} {getattr(out, 'shape', '')}")
        if legal is None and masks is None:
            legal = self.legal_actions()
        uniforms = rng.random(n, out=self._uniforms)
        if legal is not None:
            actions, counts = legal
            k = (uniforms * counts).astype(np.int64)
            out[:] = actions[np.arange(n), k]
            return out
        if not isinstance(masks, np.ndarray):
            raise TypeError(f"masks must be a numpy bool array (legal_masks()), not {type(masks).__name__}")
        if masks.dtype != bool and masks.dtype != np.uint8:
            raise TypeError(f"masks must be bool (legal_masks()) or packed uint8 (legal_masks(packed=True)), "
                            f"not dtype {masks.dtype}")
        packed = masks.dtype == np.uint8
        if not masks.flags.c_contiguous:
            masks = np.ascontiguousarray(masks)
        empty = self._core.sample(masks, packed, uniforms, out)
        if empty:
            row = int(np.flatnonzero(out < 0)[0])
            raise ValueError(f"masks: {empty} of {n} rows have no legal action (no True entry), e.g. row {row}; "
                             "every game has one (legal_masks() writes them)")
        return out

    # ------------------------------------------------------------------ inspection

    def _index(self, i: object) -> int:
        if not _is_int(i):
            raise TypeError(f"game index must be an int, not {type(i).__name__}")
        index = int(i)
        if not -self.num_games <= index < self.num_games:
            raise IndexError(f"game index {i} out of range for {self.num_games} games")
        return index % self.num_games

    def copy_game(self, i: int, final: bool = False) -> Game:
        """An independent ``Game`` copy of game ``i`` (no undo history), with the placement waiting
        for its declare actions if there is one. ``final=True``: the position game ``i`` ended in
        on the last step (``ValueError`` if it did not end then)."""
        i = self._index(i)
        if final:
            state = self._core.final_state(i)
            if state is None:
                raise ValueError(f"game {i} did not end on the last step; final=True needs one that did")
            return Game._wrap(state)
        game = Game._wrap(self._core.state(i))
        game._pending = self._core.pending(i)
        return game
