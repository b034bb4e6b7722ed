"""``RuleBasedAgent``: the plain rules of thumb of someone who has just read the rules (R5, R7, R8).

The reference opponent of the level ladder (:mod:`.levels`): ``level:1`` must lose most games to it.

>>> from sequence_game.reference import Game
>>> g = Game(players=2, seed=5)
>>> RuleBasedAgent(seed=1).select_move(g) in g.legal_moves()
True
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING, Any, List, Optional, Tuple

from .._args import check_seed
from ..board import windows_through
from ..cards import JACKS
from ..move import Move
from .base import game_over_message, no_legal_move, spec_name
from .control import AgentBase, Limit, StopToken, check_game, check_limit, check_stop
from .greedy import _Context
from .search import MoveStats, SearchResult

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["RuleBasedAgent", "rule_key"]

# The priority of a move, highest first (the first item of ``rule_key``).
_WIN, _SEQUENCE, _BLOCK, _EXTEND, _REMOVE = 4, 3, 2, 1, 0


def rule_key(ctx: _Context, move: Move) -> Tuple[int, int, int, int]:
    """How a beginner ranks a placement or a removal, compared as a tuple (larger is better):

    1. the priority: win the game (R8) > complete a sequence (R7) > block another team's four in a
       row (its one empty cell, or with a one-eyed jack one of its chips, R5) > extend an own line >
       any other removal;
    2. a card that is not a jack before a jack (jacks are kept for when they matter);
    3. the longest own open line through the cell after the move (chips and corners);
    4. how many own open lines of that length the cell is on.
    """
    assert move.cell is not None
    r, c = move.cell
    cell = 10 * r + c
    me = ctx.team
    normal = int(move.card not in JACKS)
    if move.kind == "remove":
        owner = ctx.board[cell]
        fours = sum(1 for w in windows_through(cell)
                    if ctx.open_for(w, owner) and ctx.usable(w, owner) and ctx.held(w, owner) >= 4)
        return (_BLOCK if fours else _REMOVE, normal, 0, fours)
    if move.declares:
        done = ctx.seq_count[me] + len(move.declares)
        return (_WIN if done >= ctx.need else _SEQUENCE, normal, 5, len(move.declares))
    best, count, blocks = 0, 0, False
    for w in windows_through(cell):
        if ctx.open_for(w, me) and ctx.usable(w, me):
            k = min(ctx.held(w, me) + 1, 5)
            if k > best:
                best, count = k, 1
            elif k == best:
                count += 1
        for other in range(ctx.teams):
            if other != me and ctx.counts[w][other] and ctx.open_for(w, other) and ctx.usable(w, other) \
                    and ctx.held(w, other) >= 4:
                blocks = True
    return (_BLOCK if blocks else _EXTEND, normal, best, count)


class RuleBasedAgent(AgentBase):
    """A player who follows a few plain rules and nothing else (R9: it reads only what its player
    may see):

    1. trade a dead card (free, R5); pass only when nothing else is legal;
    2. win if a placement completes the last sequence needed (R8), else complete a sequence (R7);
    3. block any other team's four in a row: a chip on its empty cell, or, when no card reaches
       that cell, a one-eyed jack on one of its chips;
    4. otherwise extend its own longest open line (a five-cell window with no other team's chip),
       with a card that is not a jack whenever one extends a line as well;
    5. ties are broken by the seeded generator, so a fixed seed gives a fixed game.

    It looks one move deep and never weighs one line against another beyond their length, so the
    search and the heuristic (``greedy``) beat it; ``level:1`` (:mod:`.levels`) loses to it.

    ``seed``: None (random) or an int in ``0 .. 2**64 - 1``.

    >>> RuleBasedAgent(seed=4).name
    'rules:seed=4'
    """

    def __init__(self, seed: Optional[int] = None) -> None:
        self.seed = check_seed(seed)
        self.name = spec_name("rules", seed=seed)
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return f"RuleBasedAgent(seed={self.seed!r})"

    def _ranked(self, game: GameBase) -> List[Tuple[Tuple[int, int, int, int], Move]]:
        moves: List[Move] = game.legal_moves()
        if not moves:
            raise ValueError("the game is over: there is no move to choose")
        ctx = _Context(game)
        out: List[Tuple[Tuple[int, int, int, int], Move]] = []
        seen = set()
        for m in moves:
            if m.kind == "trade":
                out.append(((9, 1, 0, 0), m))
            elif m.kind == "pass":
                out.append(((-1, 0, 0, 0), m))
            elif (m.kind, m.card, m.cell) not in seen:  # one of the placements that differ in declares
                seen.add((m.kind, m.card, m.cell))
                out.append((rule_key(ctx, m), m))
        return out

    def _decide(self, game: GameBase, limit: Optional[Limit], stop: Any) -> Move:
        if game.is_over:
            raise no_legal_move(game)
        ranked = self._ranked(game)
        best = max(k for k, _ in ranked)
        top = [m for k, m in ranked if k == best]
        return top[0] if len(top) == 1 else top[self._rng.randrange(len(top))]

    def analyze(self, game: GameBase, limit: Optional[Limit] = None, stop: Optional[StopToken] = None) -> SearchResult:
        """The moves as the rules rank them, best first (``value``: the priority, 0..4, with a dead
        card's trade first as 9 and a pass -1); ``move`` is the first. The generator is not used."""
        check_game(game, "analyze")
        check_limit(limit)
        check_stop(stop)
        start = time.perf_counter()
        if game.is_over:
            raise ValueError(game_over_message(game, "analyze"))
        ranked = self._ranked(game)
        order = sorted(range(len(ranked)), key=lambda i: (tuple(-x for x in ranked[i][0]), i))
        stats = tuple(MoveStats(ranked[i][1], 0, float(ranked[i][0][0])) for i in order)
        return SearchResult(move=stats[0].move, moves=stats, iterations=0,
                            seconds=time.perf_counter() - start, nodes=0)
