"""What the environments share: seat names, the team result as rewards, the turn cap, rendering,
the ``opponents=`` argument, observation scaling and the message for a missing extra. Pure Python:
no framework is imported here."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, NoReturn, Optional, Union

import numpy as np

from .._args import is_int
from ..game import Game
from ..observation import OBSERVATION_SCALE

if TYPE_CHECKING:
    from ..vector import VectorGame

#: The default turn cap of the environments: long enough that random games seldom reach it
#: (a random 2-team game lasts ~80 turns; 3-team games occasionally run into the thousands),
#: short enough that an episode always ends. Reaching it is a draw reported as truncation.
DEFAULT_MAX_TURNS = 1000


def require(extra: str, package: str, error: ImportError) -> NoReturn:
    """Raise the ImportError that tells the user which extra installs ``package``."""
    raise ImportError(
        f"{package} is not installed: it comes with the {extra!r} extra of sequence-game; "
        f"install it with: pip install 'sequence-game[{extra}]'"
    ) from error


def agent_names(players: int) -> List[str]:
    """``player_0`` .. ``player_{n-1}``: seat order (R2, R4)."""
    return [f"player_{p}" for p in range(players)]


def team_rewards(game: Game) -> List[float]:
    """Each seat's result once the game is over: +1 for every member of the winning team, -1 for
    every other player, 0 for everyone in a draw (R8, R5 stalemate, the turn cap)."""
    if game.winner is None:
        return [0.0] * game.players
    return [1.0 if game.team_of(p) == game.winner else -1.0 for p in range(game.players)]


def truncated(game: Game) -> bool:
    """True if the game ended by reaching its turn cap (a draw that is not a stalemate, R5)."""
    return game.is_draw and game.passes < game.players and game.max_turns is not None and game.turn >= game.max_turns


#: The render modes of the environments: the text board, printed or returned, and the board as an
#: RGB image (what video recorders and Stable-Baselines3's ``make_vec_env`` ask for).
RENDER_MODES = ("human", "ansi", "rgb_array")


def check_render_mode(render_mode: Optional[str]) -> Optional[str]:
    """``render_mode`` if it is None or one of ``RENDER_MODES``, else ``ValueError``."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode {render_mode!r} is not supported: choose None, "
                         + ", ".join(repr(m) for m in RENDER_MODES))
    return render_mode


# rgb_array colours: empty cell, corner (R1: every team's), the three teams' chips (R2), and how
# much darker a chip of a completed sequence is drawn (R7: it can never be removed).
_EMPTY, _CORNER = (236, 226, 198), (120, 120, 120)
_TEAM_COLOURS = ((40, 90, 200), (40, 150, 60), (200, 50, 40))
_CELL_PIXELS = 24


def board_image(game: Game) -> np.ndarray:
    """The board as an RGB image, ``uint8 (240, 240, 3)``: one 24-pixel square per cell (row 0 at
    the top), a chip as a disc in its team's colour, darker once locked in a sequence (R7)."""
    n = _CELL_PIXELS
    yy, xx = np.mgrid[0:n, 0:n]
    disc = (yy - (n - 1) / 2) ** 2 + (xx - (n - 1) / 2) ** 2 <= (0.4 * n) ** 2
    image = np.empty((10 * n, 10 * n, 3), dtype=np.uint8)
    board = game.board
    for cell in range(100):
        r, c = divmod(cell, 10)
        tile = image[r * n:(r + 1) * n, c * n:(c + 1) * n]
        code = int(board[r, c])
        tile[:] = _CORNER if code == 3 else _EMPTY
        if 0 <= code < 3:
            colour = np.array(_TEAM_COLOURS[code], dtype=np.float32)
            tile[disc] = (colour * (0.6 if game._is_locked(cell) else 1.0)).astype(np.uint8)
        tile[0, :] = tile[:, 0] = (90, 80, 60)  # grid lines
    return image


def render(game: Game, render_mode: Optional[str], warn: Callable[[str], None]) -> Union[str, np.ndarray, None]:
    """The environments' ``render()``: ``"ansi"`` returns the text board (``str(game)``),
    ``"human"`` prints it, ``"rgb_array"`` returns ``board_image(game)``; without a render mode,
    ``warn`` says how to choose one."""
    if render_mode is None:
        warn("render() was called without a render_mode: pass render_mode='ansi', 'human' or 'rgb_array'")
        return None
    if render_mode == "rgb_array":
        return board_image(game)
    text = str(game)
    if render_mode == "ansi":
        return text
    print(text)
    return None


#: The seat policies the core plays itself (``sequence_game.VectorGame``); any other agent or spec
#: is played in Python.
CORE_OPPONENTS = ("random", "greedy")


def seat_opponents(opponents: Any, players: int, seat: Optional[int], where: str) -> Dict[int, Any]:
    """The one spelling of ``opponents=``: an agent or agent spec for every seat but ``seat``, or a
    ``{seat: agent or spec}`` dict; returns ``{seat: agent or spec}``. A list with one entry per
    other seat (seat order) is still read, with a ``DeprecationWarning``. ``where`` names the
    caller in messages. Specs are checked (``ValueError`` for an unknown name or option)."""
    from ..agents import agent_from_spec

    if isinstance(opponents, Mapping):
        table = dict(opponents)
        for s in table:
            if not is_int(s) or not 0 <= s < players:
                raise ValueError(f"{where}: opponents seat {s!r} is not a seat 0..{players - 1}")
        if seat is not None and seat in table:
            raise ValueError(f"{where}: seat {seat} is the learning seat; opponents names the other seats")
    elif isinstance(opponents, (list, tuple)):
        others = [p for p in range(players) if p != seat]
        if len(opponents) != len(others):
            raise ValueError(f"{where}: give opponents as one agent or spec for all, or a dict "
                             f"{{seat: agent or spec}}, not a list of {len(opponents)}")
        warnings.warn(f"{where}: a list of opponents is deprecated; pass a dict {{seat: agent or spec}}, "
                      f"e.g. {dict(zip(others, opponents))!r}", DeprecationWarning, stacklevel=3)
        table = dict(zip(others, opponents))
    else:
        table = {p: opponents for p in range(players) if p != seat}
    for s, spec in table.items():
        if isinstance(spec, str):
            agent_from_spec(spec)  # ValueError now for an unknown name or option
        elif not callable(getattr(spec, "select_move", None)):
            raise TypeError(f"{where}: opponent of seat {s} is an agent (with select_move(game)) or an agent spec "
                            f"such as 'greedy', not {spec!r}")
    return {int(s): table[s] for s in sorted(table)}


def core_seats(table: Mapping[int, Any]) -> Optional[Dict[int, str]]:
    """``table`` as ``VectorGame`` opponents if the core plays every one of them (plain
    ``"random"``/``"greedy"`` specs, no options), else None."""
    out = {}
    for s, spec in table.items():
        name = spec.strip().lower() if isinstance(spec, str) else None
        if name not in CORE_OPPONENTS:
            return None
        out[s] = name
    return out


#: The one ``reset(options=...)`` key of the per-game environments: deal ``Game(seed=game_seed)``.
RESET_OPTIONS = ("game_seed",)


def game_seed_option(options: Any, where: str, strict: bool = True) -> Optional[int]:
    """The ``game_seed`` of ``reset(options=...)`` (None if not given); ``TypeError``/``ValueError``
    for options that are not a dict, unknown keys (a misspelt key would otherwise be ignored
    silently) and a seed that is not an int in ``0 .. 2**64 - 1``. ``strict=False``: unknown keys
    are ignored with a ``UserWarning`` (PettingZoo's ``api_test`` resets with a made-up option)."""
    from .._args import check_seed

    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise TypeError(f"{where}: reset options must be a dict such as {{'game_seed': 7}}, not {options!r}")
    unknown = sorted(map(repr, set(options) - set(RESET_OPTIONS)))
    if unknown and not strict:
        warnings.warn(f"{where}: reset option(s) {', '.join(unknown)} ignored; the one option is 'game_seed' "
                      "(deal Game(seed=game_seed))", stacklevel=3)
    elif unknown:
        raise ValueError(f"{where}: unknown reset option(s) {', '.join(unknown)}; the one option is 'game_seed' "
                         "(deal Game(seed=game_seed))")
    if "game_seed" not in options:
        return None
    seed = options["game_seed"]
    if isinstance(seed, np.integer) and not isinstance(seed, np.bool_):
        seed = int(seed)  # a seed read from VectorGame.seeds() (uint64)
    if seed is None:
        raise TypeError(f"{where}: game_seed must be an int in 0 .. 2**64 - 1, not None")
    return check_seed(seed, f"{where}: game_seed")


def scale_observations(obs: np.ndarray) -> np.ndarray:
    """Divide observations (one or a batch) in place by ``OBSERVATION_SCALE`` (docs/observation.md)."""
    obs *= _INVERSE_SCALE
    return obs


_INVERSE_SCALE = (1.0 / OBSERVATION_SCALE).astype(np.float32)


class LegalCache:
    """The legal-action masks and lists of a ``VectorGame``'s games, written by the core in one pass
    and kept until the games change (``VectorGame.version``): a batched environment's masks (for
    the learner) and ``sample_actions`` (for a baseline) then cost one pass per step."""

    def __init__(self, game: VectorGame) -> None:
        from ..actions import ACTION_COUNT
        from ..vector import MAX_LEGAL_ACTIONS

        self.game = game
        n = game.num_games
        self.masks = np.empty((n, ACTION_COUNT), dtype=bool)
        self.lists = (np.empty((n, MAX_LEGAL_ACTIONS), dtype=np.int16), np.empty(n, dtype=np.int32))
        self._version: Optional[int] = None

    def update(self) -> LegalCache:
        """Write the masks and lists if the games changed since the last call; returns self."""
        if self._version != self.game.version:
            self.game.legal_masks(out=self.masks, lists=self.lists)
            self._version = self.game.version
        return self

    def sample(self, rng: np.random.Generator) -> np.ndarray:
        """One uniformly random legal action per game, from the lists (``VectorGame.sample_actions``)."""
        return self.game.sample_actions(rng, legal=self.update().lists)


class BatchSeeds:
    """The seeds of a batched environment's resets: ``first`` (the constructor's ``seed``, or a
    fresh one) deals the constructor's games and those of the first reset without a seed, so the
    deals a learner's first ``reset()`` plays are the constructor's; a reset with seed ``s`` deals
    ``s`` itself (``VectorGame(n, seed=s)``'s games); every later reset without one deals the next
    draw of a stream seeded by the last seed given."""

    def __init__(self, seed: Optional[int]) -> None:
        from .._args import check_seed
        from ..seeds import fresh_seed

        checked = check_seed(seed)
        self.first = fresh_seed() if checked is None else checked
        self._pending: Optional[int] = self.first
        self._stream = np.random.default_rng(self.first)

    def next(self, seed: Optional[int]) -> int:
        """The ``VectorGame`` seed of the next reset (``seed``: the one the reset was given)."""
        from .._args import check_seed

        checked = check_seed(seed)
        if checked is not None:
            self._pending = None
            self._stream = np.random.default_rng(checked)
            return checked
        if self._pending is not None:
            chosen, self._pending = self._pending, None
            return chosen
        return int(self._stream.integers(0, 2**64, dtype=np.uint64))

