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

``--summary`` reads a finished (or stopped) match instead of playing: the keeper's score counted by
deal (each deal from both seats, so the deal's luck cancels out of the comparison), the deals one
side won from both seats and their sign test, how often each side spent a two-eyed jack freely, and
the loss the review (:func:`sequence_game.review.move_values`) gives the search's free spends
(:func:`summarize`).

The keeper is not one of the package's agents: it is an experiment. It gained a little over this
search (+19 Elo in 1,000 games) and nothing measured over the rollout search that plays ``hard``
(docs/measurements.md has the match).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Set

import numpy as np

from ..agents import Limit, agent_from_spec
from ..board import WINDOWS
from ..cards import TWO_EYED_JACKS
from ..move import Move

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["JackKeeper", "main", "summarize", "wild_jack_spent_freely"]

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


def summarize(path: str, resamples: int = 20000, review: bool = True) -> Dict[str, Any]:
    """A jack match's results file (:func:`main`) summed up by deal: the keeper's score (contender 0)
    with a 95% interval from a bootstrap over deals and the Elo difference of its ends; the deals won
    from both seats by either side and the sign test (:func:`sequence_game.arena.stats.sign_test`);
    each side's two-eyed jacks spent a game, and spent freely (:func:`wild_jack_spent_freely`); with
    ``review``, the review's loss (the best move's value less the spend's, mover's view) at every
    free spend of the other side, and how much of it the model's ``grading.equal`` and inaccuracy
    threshold cover. Raises ``ValueError`` for a file that is not a two-player match's results."""
    from ..actions import move_id
    from ..arena.results import read_results
    from ..arena.stats import elo_difference, sign_test
    from ..game import Game
    from ..review import move_values
    from ..review.estimator import load_win_chance_model

    header, games = read_results(path)
    if header.get("players") != 2 or len(header.get("names") or []) != 2:
        raise ValueError(f"{path!r} is not a two-player match between two contenders")
    deals: Dict[int, List[float]] = {}
    for g in games:
        deals.setdefault(int(g["seed"]), []).append(0.5 if g["is_draw"] else float(g["winner_contender"] == 0))
    paired = np.array([np.mean(v) for v in deals.values() if len(v) == 2])
    if paired.size == 0:
        raise ValueError(f"{path!r} has no deal played from both seats yet")
    rng = np.random.default_rng(0)
    boot = rng.choice(paired, size=(resamples, paired.size)).mean(axis=1)
    lo, hi = (float(v) for v in np.percentile(boot, [2.5, 97.5]))
    both = int((paired == 1.0).sum()), int((paired == 0.0).sum())
    out: Dict[str, Any] = {
        "games": len(games), "deals": int(paired.size), "score": round(float(paired.mean()), 4),
        "interval": [round(lo, 4), round(hi, 4)],
        "elo": [round(elo_difference(v), 1) for v in (float(paired.mean()), lo, hi)],
        "keeper_won_both": both[0], "search_won_both": both[1], "sign_test_p": round(sign_test(*both), 4)}
    model = load_win_chance_model() if review else None
    spent, free = [0, 0], [0, 0]
    losses: List[float] = []
    for g in games:
        game = Game(players=2, seed=int(g["seed"]), max_turns=header.get("max_turns"))
        for text in g["moves"]:
            move = game.parse_move(text)
            side = int(g["contenders"][game.current_player % 2])
            if move.kind == "place" and move.card in TWO_EYED_JACKS:
                spent[side] += 1
                if wild_jack_spent_freely(game, move):
                    free[side] += 1
                    if model is not None and side == 1:
                        values = move_values(game, model)
                        losses.append(max(values.values()) - values[move_id(move)])
            game.play(move)
    n = max(1, len(games))
    out["two_eyed_a_game"] = [round(v / n, 3) for v in spent]
    out["free_spends_a_game"] = [round(v / n, 3) for v in free]
    if model is not None and losses:
        a = np.asarray(losses)
        out["review_loss_of_a_free_spend"] = {
            "spends": int(a.size), "mean": round(float(a.mean()), 4), "median": round(float(np.median(a)), 4),
            "p90": round(float(np.percentile(a, 90)), 4),
            "within_equal": round(float((a <= model.grading.get("equal", 0.0)).mean()), 3),
            "inaccuracy_or_worse": round(float((a >= model.grading["inaccuracy"]).mean()), 3)}
    return out


def main(argv: Optional[List[str]] = None) -> int:
    from ..arena import match

    parser = argparse.ArgumentParser(prog="python -m sequence_game.training.jack_match",
                                     description="The search against the search keeping its two-eyed jacks.")
    parser.add_argument("--games", type=int, default=1000, help="games (an even number: each deal twice)")
    parser.add_argument("--iterations", type=int, default=5000, help="each search's iterations a move")
    parser.add_argument("--seed", type=int, default=4601, help="the match seed")
    parser.add_argument("--results", required=True, help="JSON-lines results file (resumed when it exists)")
    parser.add_argument("--summary", action="store_true",
                        help="play nothing: sum the results file up by deal, with the review's loss of a free spend")
    args = parser.parse_args(argv)
    if args.summary:
        try:
            print(json.dumps(summarize(args.results), indent=1))
        except ValueError as e:
            parser.exit(2, f"{parser.prog}: error: {e}\n")
        return 0
    iters = args.iterations
    keeper = ("keeps two-eyed jacks", lambda: JackKeeper(iters))
    spender = ("search", f"mcts-v1:iterations={iters}")
    result = match([keeper, spender], games=args.games, seed=args.seed, results=args.results, resume=True,
                   progress=True)
    print(result)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
