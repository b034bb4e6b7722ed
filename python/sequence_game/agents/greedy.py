"""``GreedyAgent``: a one-ply heuristic over what its player may see (R9).

>>> from sequence_game.reference import Game
>>> g = Game(players=2, seed=5)
>>> move = GreedyAgent(seed=1).select_move(g)
>>> move in g.legal_moves()
True
"""

from __future__ import annotations

import math
import random
import time
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from .._args import check_seed
from ..board import CORNER_CELLS, WINDOWS, windows_through
from ..cards import TWO_EYED_JACKS
from ..game_setup import sequences_to_win
from ..move import Move
from .base import game_over_message, no_legal_move, spec_name
from .control import AgentBase, Limit, StopToken, check_game, check_limit, check_stop
from .search import MoveStats, SearchResult

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["GreedyAgent"]

# Board geometry (board.py): every five-cell window (R7 "line") and, per window, its corners.
_WINDOW_CORNERS = [sum(1 for i in cells if i in CORNER_CELLS) for cells in WINDOWS]

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
#: A best score at least this high is a win, a sequence or a block of one (R7, R8) (a one-eyed
#: jack's removal of a four's chip scores _BLOCK_SEQUENCE minus its cost): with ``temperature`` the
#: agent still plays it, never a softer choice.
_FORCED = _BLOCK_SEQUENCE / 2


class GreedyAgent(AgentBase):
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

    Teams (R2, R7): the board holds chips by team, so a teammate's chips extend this player's
    lines and are never "blocked" or removed (a one-eyed jack removes only another team's chip,
    R5), and a teammate's four is completed, not spoiled.

    A weaker player for beginners (the ``easy`` preset, ``agents/presets.py``): with
    ``temperature > 0`` the move is drawn among the ``candidates`` best-scoring distinct moves with
    probability proportional to ``exp((score - best) / temperature)``, so only moves nearly as good
    as the best are likely. Forced moves stay exact: when the best move wins, completes a sequence
    or blocks one (score >= 10,000), it is played. Dead cards are still traded first.

    Parameters:
        seed: None (random) or an int in ``0 .. 2**64 - 1``; a fixed seed gives fixed choices.
        temperature: 0 (default: always a best move) or a number > 0, in score units (an own open
            window holding two cells adds 16, three add 80).
        candidates: how many of the best moves a ``temperature`` draw may pick, 1..64 (default 3).

    Hints: :meth:`analyze` ranks the moves it scored (a dead-card trade first, as it plays it),
    without drawing from the generator its moves use. It is a one-ply judgement: the ``easy`` and
    ``medium`` presets' hint is the heuristic's top move, not the best move of the position (ask
    ``hard`` for that), and ``easy`` itself often plays another of its five best.

    >>> GreedyAgent(seed=2, temperature=10).name
    'greedy:seed=2,temperature=10'
    """

    def __init__(self, seed: Optional[int] = None, temperature: float = 0.0, candidates: int = 3) -> None:
        self.seed = check_seed(seed)
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise TypeError(f"temperature must be a number >= 0, not {type(temperature).__name__} {temperature!r}")
        if not (math.isfinite(temperature) and temperature >= 0):
            raise ValueError(f"temperature must be a finite number >= 0 (0 = always a best move), not {temperature!r}")
        if isinstance(candidates, bool) or not isinstance(candidates, int):
            raise TypeError(f"candidates must be an int from 1 to 64, not {type(candidates).__name__} {candidates!r}")
        if not 1 <= candidates <= 64:
            raise ValueError(f"candidates must be an int from 1 to 64, not {candidates}")
        self.temperature = float(temperature)
        self.candidates = candidates
        self.name = spec_name("greedy", seed=seed, temperature=temperature or None,
                              candidates=candidates if temperature and candidates != 3 else None)
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        extra = f", temperature={self.temperature!r}, candidates={self.candidates!r}" if self.temperature else ""
        return f"GreedyAgent(seed={self.seed!r}{extra})"

    def _decide(self, game: GameBase, limit: Optional[Limit], stop: Any) -> Move:
        moves: List[Move] = game.legal_moves()
        if not moves:
            raise no_legal_move(game)
        for m in moves:  # a dead card is free to trade (R5 step 1); legal_moves lists trades first
            if m.kind == "trade":
                return m
        if len(moves) == 1:
            return moves[0]
        scored = self.score_moves(game, moves)
        best = max(s for s, _ in scored)
        if self.temperature > 0 and best < _FORCED:
            return self._soft_choice(scored, best)
        top = [m for s, m in scored if s >= best - 1e-9]
        return top[0] if len(top) == 1 else top[self._rng.randrange(len(top))]

    def analyze(self, game: GameBase, limit: Optional[Limit] = None, stop: Optional[StopToken] = None) -> SearchResult:
        """Every distinct play ranked as the heuristic sees it: a :class:`SearchResult` whose
        ``moves`` are a dead-card trade first (always played first, R5), then best score first
        (ties: ``legal_moves()`` order), each ``MoveStats(move, visits=0, value=score)``, and whose
        ``move`` is the first of them: what ``temperature=0`` plays (up to ties, which
        ``select_move`` breaks at random). The agent's generator is not used, so a hint never
        changes its later moves. ``limit`` is accepted and ignored (the heuristic answers at once).
        """
        check_game(game, "analyze")
        check_limit(limit)
        check_stop(stop)
        start = time.perf_counter()
        moves: List[Move] = game.legal_moves()
        if not moves:
            raise ValueError(game_over_message(game, "analyze"))
        scored = self.score_moves(game, moves)
        order = sorted(range(len(scored)), key=lambda i: (scored[i][1].kind != "trade", -scored[i][0], i))
        stats = tuple(MoveStats(scored[i][1], 0, float(scored[i][0])) for i in order)
        return SearchResult(move=stats[0].move, moves=stats, iterations=0,
                            seconds=time.perf_counter() - start, nodes=0)

    def _soft_choice(self, scored: List[Tuple[float, Move]], best: float) -> Move:
        """One of the ``candidates`` best moves, drawn with weights ``exp((score - best) / T)``
        (ties in score keep ``legal_moves()`` order, so a seed fixes the draw)."""
        ranked = sorted(range(len(scored)), key=lambda i: -scored[i][0])[: self.candidates]
        weights = [math.exp((scored[i][0] - best) / self.temperature) for i in ranked]
        pick = self._rng.random() * sum(weights)
        for i, w in zip(ranked, weights):
            pick -= w
            if pick < 0:
                return scored[i][1]
        return scored[ranked[-1]][1]  # pragma: no cover - rounding at the top end

    # The evaluation is public so that tests and other agents (e.g. as a playout or prior policy)
    # can use it.
    def score_moves(self, game: GameBase, moves: Optional[Sequence[Move]] = None) -> List[Tuple[float, Move]]:
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

    def __init__(self, game: GameBase) -> None:
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
        seq_cells: List[List[frozenset[int]]] = [[] for _ in range(teams)]
        locked: set[int] = set()
        for t, cells in seqs:
            self.seq_count[t] += 1
            idx = frozenset(10 * r + c for r, c in cells)
            seq_cells[t].append(idx)
            locked |= idx
        self.locked = locked
        self._seq_cells = seq_cells
        # Per window: chip counts per team, and whether it may still become a new sequence of each
        # team (R7: at most one cell shared with each of that team's sequences).
        n = len(WINDOWS)
        self.counts = counts = [[0] * teams for _ in range(n)]
        for w, window in enumerate(WINDOWS):
            row = counts[w]
            for i in window:
                v = board[i]
                if 0 <= v < 3:
                    row[v] += 1
        self._usable: Dict[Tuple[int, int], bool] = {}

    def usable(self, w: int, team: int) -> bool:
        """Whether window ``w`` may still become a new sequence of ``team`` as far as R7 overlap goes."""
        key = (w, team)
        u = self._usable.get(key)
        if u is None:
            cells = WINDOWS[w]
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
        assert move.cell is not None  # legal placements and removals only (select_move)
        r, c = move.cell
        cell = 10 * r + c
        me = self.team
        if move.kind == "remove":
            return self._score_remove(cell) - _ONE_EYED_COST
        score = 0.0
        if move.declares:
            done = self.seq_count[me] + len(move.declares)
            score += _WIN if done >= self.need else _SEQUENCE * len(move.declares)
        for w in windows_through(cell):
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
        for w in windows_through(cell):
            row = self.counts[w]
            if self.open_for(w, owner) and self.usable(w, owner):
                k = self.held(w, owner)  # counts the chip being removed
                score += self._threat(owner) if k >= 4 else _BLOCK[k]
            # our line that only this chip was spoiling
            others = sum(row[t] for t in range(self.teams) if t != me)
            if others == 1 and self.usable(w, me):
                score += _REOPEN * _EXTEND[min(self.held(w, me), 3)]
        return score
