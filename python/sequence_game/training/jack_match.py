"""Is spending a two-eyed jack early right? A match that settles it.

Players are taught to keep the wild jacks (``JD``, ``JC``, R5) for the cell that wins or blocks;
the search spends them freely. This match plays the search (``mcts-v1``, which was the ``hard`` preset's
agent, at a fixed iteration budget) against the same search made to keep its two-eyed jacks
(:class:`JackKeeper`): it runs the same analysis and plays the search's choice, unless that choice
puts a chip with a two-eyed jack on a cell that neither completes a sequence (R7) nor takes a cell
where another team would complete one (a block); then it plays the most-visited move that spends no
two-eyed jack, if there is one (else the jack: it is the only sensible move).

The games are the arena's (:func:`sequence_game.arena.match`): seats alternate over shared deals
(each deal played twice, each side in each seat), every game streamed to a results file and the
match resumable::

    nice -n 19 python -m sequence_game.training.jack_match --games 1000 --iterations 5000 \\
        --results build/jack-match.jsonl

The keeper is not one of the package's agents: it is an experiment, not an option that measured a
gain (docs/measurements.md has the match).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from typing import TYPE_CHECKING, Any, List, Optional, Set

import numpy as np

from ..agents import Limit, agent_from_spec
from ..board import WINDOWS
from ..cards import TWO_EYED_JACKS
from ..move import Move

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["JackKeeper", "main", "wild_jack_spent_freely"]

_WINDOW_CELLS = np.asarray(WINDOWS, dtype=np.int64)


def _completion_cells(state: Any, team: int) -> Set[int]:
    """Empty cells where a chip of ``team`` fills a line of four of its chips and corners (R7)."""
    cells = np.asarray(state.board(), dtype=np.int64).reshape(-1)[_WINDOW_CELLS]
    own = ((cells == team) | (cells == 3)).sum(axis=1)
    empty = cells == -1
    near = (own == 4) & (empty.sum(axis=1) == 1)
    return {int(c) for c in _WINDOW_CELLS[near][empty[near]].tolist()}


def wild_jack_spent_freely(game: GameBase, move: Move) -> bool:
    """Whether ``move`` spends a two-eyed jack on a cell that neither completes a sequence for the
    mover's team nor blocks another team's (R5, R7)."""
    if move.kind != "place" or move.card not in TWO_EYED_JACKS or move.cell is None:
        return False
    if move.declares:
        return False
    state = getattr(game, "_state", game)
    cell = 10 * move.cell[0] + move.cell[1]
    mine = state.current_player % state.teams
    return not any(cell in _completion_cells(state, t) for t in range(state.teams) if t != mine)


class JackKeeper:
    """The search, keeping its two-eyed jacks (see the module docstring)."""

    _seeds = itertools.count(1)

    def __init__(self, iterations: int = 5000, seed: Optional[int] = None) -> None:
        self.iterations = iterations
        seed = next(self._seeds) if seed is None else seed
        self.search = agent_from_spec(f"mcts-v1:iterations={iterations},seed={seed}")

    def __repr__(self) -> str:
        return f"JackKeeper(iterations={self.iterations})"

    def select_move(self, game: GameBase) -> Move:
        result = self.search.analyze(game, limit=Limit(iterations=self.iterations))
        chosen: Move = result.move
        if not wild_jack_spent_freely(game, chosen):
            return chosen
        for stats in sorted(result.moves, key=lambda s: -s.visits):
            m: Move = stats.move
            if m.kind in ("place", "remove") and m.card not in TWO_EYED_JACKS:
                return m
        return chosen


def main(argv: Optional[List[str]] = None) -> int:
    from ..arena import match

    parser = argparse.ArgumentParser(prog="python -m sequence_game.training.jack_match",
                                     description="The search against the search keeping its two-eyed jacks.")
    parser.add_argument("--games", type=int, default=1000, help="games (an even number: each deal twice)")
    parser.add_argument("--iterations", type=int, default=5000, help="each search's iterations a move")
    parser.add_argument("--seed", type=int, default=4601, help="the match seed")
    parser.add_argument("--results", required=True, help="JSON-lines results file (resumed when it exists)")
    args = parser.parse_args(argv)
    iters = args.iterations
    keeper = ("keeps two-eyed jacks", lambda: JackKeeper(iters))
    spender = ("search", f"mcts-v1:iterations={iters}")
    result = match([keeper, spender], games=args.games, seed=args.seed, results=args.results, resume=True,
                   progress=True)
    print(result)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
