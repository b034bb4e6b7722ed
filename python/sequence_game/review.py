"""A finished game reviewed by the AI: the mover's team's chance of winning before and after every
move, and the moves that cost at least :data:`MISTAKE` of it, each with the move the AI preferred.

Each position is searched by :class:`~sequence_game.agents.MCTSAgent` at a fixed iteration budget,
from the mover's seat and with only what the mover could see then (the search samples the hidden
cards; it never reads them), so the review is the AI's view of the decision the player faced, and
the same record, budget and seed always give the same review.

* ``before`` is the value of the AI's preferred move at the position: the mover's team's chance with
  good play.
* ``after`` is that chance once the move is made: the played move's own value in the same search,
  so both numbers come from one point of view (each search rates the side to move a little lower
  than the other side's search rates its opponent, so values from two searches do not subtract
  cleanly). A move the search hardly tried (fewer than :data:`MIN_VISITS` visits: often a blunder it
  saw no reason to explore) is read from the next position's search instead: the same team's value
  when it moves again (after a dead-card trade, R4), ``1 - value`` of the other team with two teams;
  with three teams it stays unknown (one opponent's chance does not give the mover's). The last move
  of a finished game is scored by the result itself.
* ``loss = before - after``; a move other than the preferred one with ``loss >= MISTAKE`` is marked.

>>> from sequence_game import GameRecord
>>> from sequence_game.agents import GreedyAgent
>>> from sequence_game.records import play_game
>>> record = play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], players=2, seed=3, max_turns=8)
>>> review = review_game(record, iterations=200, seed=1)
>>> len(review.moves) == len(record.moves), all(0 <= m.before <= 1 for m in review.moves)
(True, True)
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, Optional, Tuple

from ._args import check_seed
from .move import Move
from .records import GameRecord
from .seeds import derive_seed

__all__ = ["MIN_VISITS", "MISTAKE", "REVIEW_ITERATIONS", "GameReview", "ReviewedMove", "review_game"]

#: The search budget of a review, per position (iterations: the same review on every machine).
REVIEW_ITERATIONS = 2000
#: A move that costs its team at least this much of its chance of winning is marked (10 points).
MISTAKE = 0.10
#: A played move searched fewer times than this is valued from the next position's search.
MIN_VISITS = 20


@dataclass(frozen=True)
class ReviewedMove:
    """One move of a reviewed game (``index`` counts from 1)."""

    index: int
    player: int
    team: int
    move: str
    before: float
    after: Optional[float]
    best: str
    loss: Optional[float]
    mistake: bool


@dataclass(frozen=True)
class GameReview:
    """The review of a whole game: its budget and seed, and one :class:`ReviewedMove` per move."""

    iterations: int
    seed: int
    moves: Tuple[ReviewedMove, ...]

    def to_dict(self) -> Dict[str, Any]:
        """Plain data (JSON-ready)."""
        return {"iterations": self.iterations, "seed": self.seed, "mistake": MISTAKE,
                "moves": [asdict(m) for m in self.moves]}


def review_game(record: GameRecord, iterations: int = REVIEW_ITERATIONS, seed: int = 0,
                progress: Optional[Callable[[int, int], None]] = None) -> GameReview:
    """Review ``record`` (a finished or unfinished :class:`~sequence_game.GameRecord`): one search of
    ``iterations`` per position, seeded from ``seed`` and the move number. ``progress(done, total)``
    is called after each position. Referee entries (R10) are replayed, not reviewed. Raises
    ``ValueError`` for a record that does not replay."""
    from .agents import MCTSAgent  # the compiled core's search

    if isinstance(iterations, bool) or not isinstance(iterations, int) or not 1 <= iterations <= 1_000_000:
        raise ValueError(f"iterations must be an int from 1 to 1000000, not {iterations!r}")
    check_seed(seed)
    steps = list(record.positions())  # the deal, then the game after each entry (each a copy)
    total = len(record.moves)
    # per searched position k (the game before entry k): (player, team, value of the best move,
    # best move, root values of the moves searched at least MIN_VISITS times)
    searched: Dict[int, Tuple[int, int, float, str, Dict[str, float]]] = {}

    def search(k: int) -> None:
        game = steps[k].game
        player = game.current_player
        result = MCTSAgent(iterations=iterations, seed=derive_seed(seed, k)).analyze(game)
        roots = {str(m.move): m.value for m in result.moves if m.visits >= MIN_VISITS}
        best = str(result.move)
        value = next((m.value for m in result.moves if str(m.move) == best), 0.0)
        searched[k] = (player, game.team_of(player), value, best, roots)

    for k in range(total):
        if isinstance(steps[k + 1].move, Move):  # referee entries (R10) are no one's decision
            search(k)
        if progress is not None:
            progress(k + 1, total)
    if total and not steps[total].game.is_over:
        search(total)  # values the last move if its own search hardly tried it
    moves = []
    for k, (player, team, before, best, roots) in sorted(searched.items()):
        if k == total:
            continue
        text = record.moves[k]
        after = _after(k, team, record, searched, roots.get(text))
        loss = None if after is None else before - after
        moves.append(ReviewedMove(index=k + 1, player=player, team=team, move=text, before=before, after=after,
                                  best=best, loss=loss, mistake=loss is not None and loss >= MISTAKE and text != best))
    return GameReview(iterations=iterations, seed=seed, moves=tuple(moves))


def _after(k: int, team: int, record: GameRecord, searched: Dict[int, Tuple[int, int, float, str, Dict[str, float]]],
           played_value: Optional[float]) -> Optional[float]:
    if k + 1 == len(record.moves) and record.result is not None:
        result = record.result
        if result["winner"] is None:
            return 1.0 / record.teams
        return 1.0 if result["winner"] == team else 0.0
    if played_value is not None:
        return played_value
    if k + 1 not in searched:
        return None
    _, next_team, next_value, _, _ = searched[k + 1]
    if next_team == team:
        return next_value
    if record.teams == 2:
        return 1.0 - next_value
    return None
