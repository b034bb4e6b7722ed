"""Agents: players that choose a move for the side to move.

An agent is any object with ``select_move(game) -> Move`` (see :class:`Agent`). It is asked only
when ``game.current_player`` is its seat and must return one of ``game.legal_moves()`` (a move's
text, or a placement without ``declares`` when only one choice exists, is accepted too). It must
look only at what that player may see (R9: its own hand, the board, the sequences, discard piles,
hand sizes, the draw pile's size), never at other hands or the order of the draw pile, unless it
says it cheats. It must not change the game it is given (use ``game.copy()`` to search).

Agents here:

- :class:`RandomAgent` -- uniform over ``legal_moves()``, reproducible per seed.
- :class:`GreedyAgent` -- a one-ply heuristic (win, block, extend open lines, save jacks).
- ``MCTSAgent`` -- the C++ Monte Carlo tree search, imported lazily from ``sequence_game.mcts``.

:func:`agent_from_spec` builds an agent from a short text such as ``"greedy"``,
``"random:seed=3"`` or ``"mcts:time=0.5,threads=2"`` (the command line uses it).

>>> from sequence_game.reference import Game
>>> g = Game(players=2, seed=5)
>>> move = GreedyAgent(seed=1).select_move(g)
>>> move in g.legal_moves()
True
"""

from __future__ import annotations

import importlib
import random
from typing import Any, Callable, Dict, List, Optional, Protocol, Sequence, Tuple, runtime_checkable

from .cards import BOARD_LAYOUT, CORNER, TWO_EYED_JACKS
from .config import sequences_to_win
from .move import Move

__all__ = [
    "Agent",
    "GreedyAgent",
    "RandomAgent",
    "agent_from_spec",
    "agent_name",
    "register_agent",
]


@runtime_checkable
class Agent(Protocol):
    """Anything that picks a move: ``select_move(game) -> Move``.

    An agent may also have a ``name`` attribute (a short text used in game records and match
    tables); :func:`agent_name` falls back to the class name.
    """

    def select_move(self, game: Any) -> Move:  # pragma: no cover - protocol
        ...


def agent_name(agent: object) -> str:
    """The display name of an agent: its ``name`` attribute, else its class name."""
    name = getattr(agent, "name", None)
    if isinstance(name, str) and name:
        return name
    return type(agent).__name__


def _spec_name(base: str, **params: object) -> str:
    shown = [f"{k}={v}" for k, v in params.items() if v is not None]
    return base + (":" + ",".join(shown) if shown else "")


def _no_legal_move(game: Any) -> ValueError:
    if game.is_over:
        return ValueError("the game is over: there is no move to select")
    return ValueError("no legal move in this position")  # pragma: no cover - the rules always give one


# --------------------------------------------------------------------------- random


class RandomAgent:
    """Picks uniformly among ``game.legal_moves()``; the same seed gives the same choices.

    >>> from sequence_game.reference import Game
    >>> g = Game(players=2, seed=3)
    >>> RandomAgent(seed=7).select_move(g) == RandomAgent(seed=7).select_move(g)
    True
    """

    def __init__(self, seed: Optional[int] = None) -> None:
        self.seed = seed
        self.name = _spec_name("random", seed=seed)
        self._rng = random.Random(seed)

    def select_move(self, game: Any) -> Move:
        moves = game.legal_moves()
        if not moves:
            raise _no_legal_move(game)
        return moves[self._rng.randrange(len(moves))]

    def __repr__(self) -> str:
        return f"RandomAgent(seed={self.seed!r})"


# --------------------------------------------------------------------------- greedy

# Board geometry: every five-cell window (R7 "line"), as cell indices 10*row+col, and for every
# cell the windows through it.
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
_WINDOWS: List[Tuple[int, ...]] = []
for _dr, _dc in _DIRECTIONS:
    for _r in range(10):
        for _c in range(10):
            _er, _ec = _r + 4 * _dr, _c + 4 * _dc
            if 0 <= _er < 10 and 0 <= _ec < 10:
                _WINDOWS.append(tuple(10 * (_r + i * _dr) + (_c + i * _dc) for i in range(5)))
_WINDOWS_THROUGH: List[List[int]] = [[] for _ in range(100)]
for _w, _cells in enumerate(_WINDOWS):
    for _i in _cells:
        _WINDOWS_THROUGH[_i].append(_w)
_CORNER_CELLS = frozenset(10 * r + c for r in range(10) for c in range(10) if BOARD_LAYOUT[r][c] == CORNER)
_WINDOW_CORNERS = [sum(1 for i in cells if i in _CORNER_CELLS) for cells in _WINDOWS]
del _dr, _dc, _r, _c, _er, _ec, _w, _cells, _i

# Heuristic weights (see GreedyAgent). Indexed by how many of a window's five cells the team holds
# (its chips plus corners) before the move.
_EXTEND = (1.0, 4.0, 16.0, 80.0, 80.0)  # own open window through the cell we place on
_BLOCK = (0.0, 1.0, 5.0, 40.0)  # opponent open window (< 4 held) that our chip spoils
_WIN = 1e9  # the move wins the game (R8)
_BLOCK_WIN = 1e7  # spoils an opponent window that would win them the game next turn
_SEQUENCE = 1e6  # each sequence the move completes without winning yet
_BLOCK_SEQUENCE = 2e4  # spoils an opponent window that would give them a (non-winning) sequence
_TWO_EYED_COST = 70.0  # what a wild jack is worth keeping
_ONE_EYED_COST = 50.0  # what an anti-wild jack is worth keeping
_REOPEN = 0.5  # share of the value of our own windows that a removal re-opens


class GreedyAgent:
    """A one-ply heuristic player that uses only what its player may see (R9).

    Every legal move gets a score from one snapshot of the board (the move is never played):

    1. **Win now** if a placement completes the sequences still needed (R8).
    2. **Block**: a chip on the gap of an opponent's four-of-five open line (or, with a one-eyed
       jack, removing a chip of such a line) scores just below a win when that line would win
       the opponent the game, and above everything else but completing a sequence otherwise.
    3. **Extend** own lines: for each five-cell window through the cell holding no opponent chip
       (and sharing at most one cell with each of our sequences, R7), a weight that grows
       steeply with how many of its cells we already hold (chips and corners); plus a smaller
       credit for spoiling the opponents' open windows through that cell.
    4. **Jacks are kept**: a two-eyed jack pays a cost that only completing or nearly completing
       a line (or a block) outweighs, so a normal card doing about as well is played instead;
       a one-eyed jack pays a cost that only removing a chip of a dangerous line outweighs.
    5. A **dead card** is always traded first (it is free, R5); a pass is made when nothing else
       is legal.

    Among placements that differ only in which sequences they declare (R7), the first in
    ``legal_moves()`` order is taken. Ties between different moves are broken by the seeded RNG,
    so a fixed seed gives a fixed choice. Reads: ``legal_moves()``, ``board``, ``sequences``,
    ``current_player``, ``teams`` -- never another hand or the draw pile.
    """

    def __init__(self, seed: Optional[int] = None) -> None:
        self.seed = seed
        self.name = _spec_name("greedy", seed=seed)
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"GreedyAgent(seed={self.seed!r})"

    def select_move(self, game: Any) -> Move:
        moves = game.legal_moves()
        if not moves:
            raise _no_legal_move(game)
        for m in moves:  # a dead card is free to trade (R5 step 1); legal_moves lists trades first
            if m.kind == "trade":
                return m
        if len(moves) == 1:
            return moves[0]
        scored = self.score_moves(game, moves)
        best = max(s for s, _ in scored)
        top = [m for s, m in scored if s >= best - 1e-9]
        return top[0] if len(top) == 1 else top[self._rng.randrange(len(top))]

    # The evaluation is public so that tests and other agents (e.g. as a playout or prior policy)
    # can use it.
    def score_moves(self, game: Any, moves: Optional[Sequence[Move]] = None) -> List[Tuple[float, Move]]:
        """``(score, move)`` for each distinct play among ``moves`` (default: the legal moves).

        Placements that differ only in ``declares`` appear once (the first of them).
        """
        if moves is None:
            moves = game.legal_moves()
        ctx = _Context(game)
        out: List[Tuple[float, Move]] = []
        seen = set()
        for m in moves:
            if m.kind in ("trade", "pass"):
                out.append((0.0 if m.kind == "pass" else 1e3, m))
                continue
            key = (m.kind, m.card, m.cell)
            if key in seen:
                continue
            seen.add(key)
            out.append((ctx.score(m), m))
        return out


class _Context:
    """One decision's snapshot of the public position, seen from the player to move."""

    def __init__(self, game: Any) -> None:
        teams = game.teams
        self.team = game.current_player % teams
        self.teams = teams
        self.need = sequences_to_win(teams)
        raw = game.board
        try:
            board = [int(v) for v in raw.ravel()]
        except AttributeError:  # a plain nested list
            board = [int(v) for row in raw for v in row]
        self.board = board
        seqs = game.sequences
        self.seq_count = [0] * teams
        seq_cells: List[List[frozenset]] = [[] for _ in range(teams)]
        locked = set()
        for t, cells in seqs:
            self.seq_count[t] += 1
            idx = frozenset(10 * r + c for r, c in cells)
            seq_cells[t].append(idx)
            locked |= idx
        self.locked = locked
        self._seq_cells = seq_cells
        # Per window: chip counts per team, and whether it may still become a new sequence of each
        # team (R7: at most one cell shared with each of that team's sequences).
        n = len(_WINDOWS)
        self.counts = counts = [[0] * teams for _ in range(n)]
        for w, cells in enumerate(_WINDOWS):
            row = counts[w]
            for i in cells:
                v = board[i]
                if 0 <= v < 3:
                    row[v] += 1
        self._usable: Dict[Tuple[int, int], bool] = {}

    def usable(self, w: int, team: int) -> bool:
        """Whether window ``w`` may still become a new sequence of ``team`` as far as R7 overlap goes."""
        key = (w, team)
        u = self._usable.get(key)
        if u is None:
            cells = _WINDOWS[w]
            u = all(sum(1 for i in cells if i in s) <= 1 for s in self._seq_cells[team])
            self._usable[key] = u
        return u

    def held(self, w: int, team: int) -> int:
        return self.counts[w][team] + _WINDOW_CORNERS[w]

    def open_for(self, w: int, team: int) -> bool:
        """No other team's chip in the window (the cell being examined aside)."""
        row = self.counts[w]
        return all(row[t] == 0 for t in range(self.teams) if t != team)

    def _threat(self, other: int) -> float:
        """The value of spoiling one opponent four-of-five line."""
        return _BLOCK_WIN if self.seq_count[other] + 1 >= self.need else _BLOCK_SEQUENCE

    def score(self, move: Move) -> float:
        r, c = move.cell  # type: ignore[misc]
        cell = 10 * r + c
        me = self.team
        if move.kind == "remove":
            return self._score_remove(cell) - _ONE_EYED_COST
        score = 0.0
        if move.declares:
            done = self.seq_count[me] + len(move.declares)
            score += _WIN if done >= self.need else _SEQUENCE * len(move.declares)
        for w in _WINDOWS_THROUGH[cell]:
            row = self.counts[w]
            # our own line through the cell
            if self.open_for(w, me) and self.usable(w, me):
                score += _EXTEND[min(self.held(w, me), 4)]
            # opponents' lines our chip spoils (the cell is empty, so it is not counted in theirs)
            for other in range(self.teams):
                if other == me or row[other] == 0 or not self.open_for(w, other) or not self.usable(w, other):
                    continue
                k = self.held(w, other)
                score += self._threat(other) if k >= 4 else _BLOCK[k]
        if move.card in TWO_EYED_JACKS:
            score -= _TWO_EYED_COST
        return score

    def _score_remove(self, cell: int) -> float:
        me = self.team
        owner = self.board[cell]
        score = 0.0
        for w in _WINDOWS_THROUGH[cell]:
            row = self.counts[w]
            if self.open_for(w, owner) and self.usable(w, owner):
                k = self.held(w, owner)  # counts the chip being removed
                score += self._threat(owner) if k >= 4 else _BLOCK[k]
            # our line that only this chip was spoiling
            others = sum(row[t] for t in range(self.teams) if t != me)
            if others == 1 and self.usable(w, me):
                score += _REOPEN * _EXTEND[min(self.held(w, me), 3)]
        return score


# --------------------------------------------------------------------------- specs

_Factory = Callable[..., Any]
_REGISTRY: Dict[str, Tuple[_Factory, Dict[str, str]]] = {}


def register_agent(name: str, factory: _Factory, aliases: Optional[Dict[str, str]] = None) -> None:
    """Make ``name`` usable in :func:`agent_from_spec`.

    ``factory(**params)`` builds the agent; ``aliases`` maps short spec keys to parameter names
    (``{"time": "time_limit"}``).
    """
    _REGISTRY[name.lower()] = (factory, dict(aliases or {}))


def _compiled_agent(module: str, cls_name: str, label: str) -> _Factory:
    """A factory for an agent of the compiled core, imported when first built (with a clear
    ValueError when the core is not built)."""

    def factory(**params: Any) -> Any:
        try:
            cls = getattr(importlib.import_module(f".{module}", __package__), cls_name)
        except ImportError as e:
            raise ValueError(
                f"the {label} agent is not available ({e}); build the compiled core "
                "(pip install .) or choose 'random' or 'greedy'"
            ) from None
        return cls(**params)

    return factory


register_agent("random", RandomAgent)
register_agent("greedy", GreedyAgent)
_BUDGET_KEYS = {"time": "time_limit", "iters": "iterations", "t": "time_limit"}
register_agent("mcts", _compiled_agent("mcts", "MCTSAgent", "MCTS"), _BUDGET_KEYS)
register_agent("rollout", _compiled_agent("rollout", "RolloutAgent", "rollout"), _BUDGET_KEYS)


def _parse_value(text: str) -> Any:
    low = text.strip().lower()
    if low in ("none", "null"):
        return None
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    for conv in (int, float):
        try:
            return conv(low)
        except ValueError:
            pass
    return text.strip()


def agent_from_spec(spec: str, **defaults: Any) -> Any:
    """Build an agent from text: ``"name"`` or ``"name:key=value,key=value"``.

    Names: ``random``, ``greedy`` (key ``seed``), ``mcts`` and ``rollout`` (keys
    ``iterations``/``iters``, ``time``/``time_limit`` in seconds, ``threads``, ``seed`` and anything
    else ``MCTSAgent`` / ``RolloutAgent`` takes). Values are read as int, float, true/false or none where they look like one.
    ``defaults`` are keyword arguments used when the spec does not set them (the arena passes a
    derived ``seed`` so that matches are reproducible). The agent's ``name`` is set to the spec.

    >>> agent_from_spec("random:seed=3").seed
    3
    >>> agent_from_spec("greedy").name
    'greedy'
    """
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec is text like 'greedy' or 'mcts:time=0.5', not {spec!r}")
    text = spec.strip()
    name, _, rest = text.partition(":")
    name = name.strip().lower()
    if name not in _REGISTRY:
        raise ValueError(
            f"unknown agent {name!r} in spec {spec!r}: choose one of {', '.join(sorted(_REGISTRY))} "
            "(e.g. 'greedy', 'random:seed=3', 'mcts:time=0.5,threads=2')"
        )
    factory, aliases = _REGISTRY[name]
    params: Dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq or not key:
            raise ValueError(f"agent spec {spec!r}: write options as key=value separated by commas, not {item!r}")
        params[aliases.get(key, key)] = _parse_value(value)
    given = dict(params)
    for k, v in defaults.items():
        params.setdefault(k, v)
    try:
        agent = factory(**params)
    except TypeError as e:
        raise ValueError(f"agent spec {spec!r}: {e}") from None
    display = name + (":" + ",".join(f"{k}={v}" for k, v in given.items()) if given else "")
    try:
        agent.name = display
    except AttributeError:  # pragma: no cover - an agent with a read-only name keeps its own
        pass
    return agent


def __getattr__(name: str) -> Any:
    if name == "MCTSAgent":  # lazy: needs the compiled core
        from .mcts import MCTSAgent

        return MCTSAgent
    if name == "RolloutAgent":
        from .rollout import RolloutAgent

        return RolloutAgent
    raise AttributeError(f"module 'sequence_game.agents' has no attribute {name!r}")
