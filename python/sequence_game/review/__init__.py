"""The review of a game: every team's chance of winning along the game, and every decision graded as
a chess site grades it, all from one calibrated estimator (:mod:`sequence_game.review.estimator`,
docs/review.md).

* **The curve** (``GameReview.curve``): after the deal and after every entry of the record, every
  team's chance of winning as a spectator sees it (the public view: the board, the discards, whose
  turn; never a hand, R9). The chances sum to 1; the last point is the result.
* **A decision** is valued in the mover's view (public information and the mover's own hand): every
  legal move is played on a copy and the position after it is valued for the mover's team, with the
  card drawn after the move left out (the mover did not see it when deciding). ``before`` is the
  best move's value, ``after`` the played move's, ``loss = before - after`` (never negative: the
  played move is one of the moves valued). A loss of at least the model's thresholds
  (:data:`TIERS`, chosen from measured noise by the fit) makes the move an inaccuracy, a mistake or a
  blunder; ``accuracy`` per move is the chess sites' curve of the loss in points, averaged per player.
* **Not graded**: a forced move (one legal move), a dead-card trade (R4) and referee entries (R10).
* **Events**: a resignation or a game stopped at its turn cap is an event after the last move, scored
  by the result; it blames no move. A move a turn timer played for a player (``timeouts``) is an
  event too, not graded.

The estimator reads no hidden card and searches nothing, so a review is deterministic (the same
record, the same model: the same review) and bounded: one valuation per legal move of every decision
(about 50 microseconds each, docs/review.md).

>>> from sequence_game.agents import GreedyAgent
>>> from sequence_game.records import play_game
>>> record = play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], players=2, seed=3, max_turns=8)
>>> review = review_game(record)
>>> len(review.moves) == len(record.moves), all(abs(sum(c) - 1) < 1e-9 for c in review.curve)
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .._core import heuristic_scores
from ..actions import move_id as _move_id
from ..move import Move
from ..records import GameRecord
from .estimator import (
    Ratings,
    WinChanceModel,
    core_state,
    entry_qualities,
    load_win_chance_model,
    move_qualities,
    play_quality,
    seat_ratings,
)
from .threats import GameLike, move_notes, note_text

__all__ = ["METHOD", "TIERS", "GameReview", "ReviewedMove", "analyze", "curve", "move_values", "review_game",
           "tier_of", "win_chance", "win_chances"]

#: The review's method, stored with every review (a review made another way is not reused).
METHOD = "win-chance/5"


def _tiers(model: WinChanceModel) -> Tuple[Tuple[str, float], ...]:
    g = model.grading
    return (("blunder", g.get("blunder", 0.15)), ("mistake", g.get("mistake", 0.10)),
            ("inaccuracy", g.get("inaccuracy", 0.05)))


#: ``(tier, minimum loss)``, worst first: the packaged model's thresholds (its ``grading`` field,
#: chosen by the fit from the measured noise of the estimator: docs/review.md).
TIERS: Tuple[Tuple[str, float], ...]
try:
    TIERS = _tiers(load_win_chance_model())
except FileNotFoundError:  # pragma: no cover - only while the fit writes the first model file
    TIERS = _tiers(WinChanceModel({}, {}))


def tier_of(loss: float, tiers: Sequence[Tuple[str, float]] = TIERS) -> Optional[str]:
    """The tier of a move that lost ``loss`` (0..1) of its team's chance, or None."""
    for name, least in tiers:
        if loss >= least - 1e-12:
            return name
    return None


def move_accuracy(loss: float) -> float:
    """A move's accuracy in percent from the chance it lost (the chess sites' curve on win-percentage
    points: 100 for the best move, about 65 for a 10-point loss, 0 from about 80 points)."""
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * 100.0 * loss) - 3.1669))


def win_chances(game: GameLike, viewer: Optional[int] = None, model: Optional[WinChanceModel] = None,
                ratings: Ratings = None) -> List[float]:
    """Every team's chance of winning ``game`` (a :class:`sequence_game.Game`), summing to 1: in the
    public view (a spectator's: no hand is read, R9), or with ``viewer`` in that player's view (the
    public information and its own hand). Exact for a finished game. ``ratings``: every seat's
    measured rating when known (``estimator.seat_ratings(agent specs)``; None: unknown, as for a
    person)."""
    return (model or load_win_chance_model()).chances(game, viewer, ratings=ratings)


def win_chance(game: GameLike, team: int, viewer: Optional[int] = None, model: Optional[WinChanceModel] = None,
               ratings: Ratings = None) -> float:
    """``team``'s chance of winning ``game`` (see :func:`win_chances`): the public view by default,
    ``viewer=p`` for player ``p``'s view.

    >>> from sequence_game import Game
    >>> g = Game(players=2, seed=3)
    >>> abs(win_chance(g, 0) + win_chance(g, 1) - 1) < 1e-9
    True
    """
    state = core_state(game)
    if isinstance(team, bool) or not isinstance(team, int) or not 0 <= team < state.teams:
        raise ValueError(f"team must be from 0 to {state.teams - 1}, not {team!r}")
    return win_chances(game, viewer, model, ratings)[team]


def analyze(game: GameLike, model: Optional[WinChanceModel] = None, ratings: Ratings = None) -> Dict[str, Any]:
    """The ``analyze`` field for apps: ``{"chances": [...], "view": "public", "rated": bool}`` for
    ``game``, read from public information only (offer it to spectators of finished or AI-only
    games and in replays, never at a table where people are playing). ``ratings``: as
    :func:`win_chances` (``rated`` says whether they were read: all known, two teams)."""
    model = model or load_win_chance_model()
    chances = win_chances(game, None, model, ratings)
    return {"chances": [round(p, 4) for p in chances], "view": "public",
            "rated": model.uses_ratings(core_state(game).teams, ratings), "method": METHOD}


def curve(record: GameRecord, model: Optional[WinChanceModel] = None, ratings: Ratings = None) -> List[List[float]]:
    """Every team's chance of winning in the public view after the deal and after every entry of
    ``record`` (each list sums to 1; the last is the result of a finished game, a resignation
    included): the review's graph alone, without grading (a live evaluation bar for replays and
    AI-only games; about 10 microseconds a position). ``ratings``: every seat's (None: from the
    record's agents when all are rated AI specs, else unknown)."""
    if not isinstance(record, GameRecord):
        raise TypeError(f"curve needs a GameRecord, not {type(record).__name__}")
    model = model or load_win_chance_model()
    ratings = seat_ratings(record.agents) if ratings is None else ratings
    steps = list(record.positions())
    played = _played(steps)
    points = [list(_rounded(model.chances(step.game, ratings=ratings, quality=play_quality(step.game, q))))
              for step, q in zip(steps, played)]
    if record.resigned is not None and record.result is not None:
        points.append([1.0 if t == record.result["winner"] else 0.0 for t in range(record.teams)])
    return points


def move_values(game: GameLike, model: Optional[WinChanceModel] = None,
                played: Optional[Sequence[Tuple[int, float]]] = None) -> Dict[int, float]:
    """The mover's team's chance after each legal move of ``game`` (move id -> chance), in the
    mover's view without the card drawn after the move; exact when the move ends the game. The
    teams' play quality is that before the move (``played``: the moves' qualities so far, None:
    from ``game``'s history), so a candidate is never judged by how it looks itself."""
    model = model or load_win_chance_model()
    state = core_state(game)
    mover = state.current_player
    team = mover % state.teams  # R2
    values: Dict[int, float] = {}
    before = move_qualities(state) if played is None else played
    for mid in state.legal_moves():
        after = state.copy()
        after.play(mid)
        values[mid] = model.chances(after, viewer=mover, hide_last_draw=True,
                                    quality=play_quality(after, before))[team]
    return values


@dataclass(frozen=True)
class ReviewedMove:
    """One entry of a reviewed game (``index`` counts from 1). ``kind``: ``"move"`` (graded),
    ``"forced"`` (one legal move), ``"trade"`` (a dead-card trade, R4), ``"timeout"`` (played by a
    turn timer) or ``"referee"`` (R10); the others are not graded (``before``/``after``/``loss`` None). ``chances``: every team's chance
    after the entry in the public view (the curve). ``notes``: the threats that decide at this move
    (:func:`.threats.move_notes`: a cell that wins, a double threat, a block made or missed), each
    its parts and its ``text`` (:func:`.threats.note_text`)."""

    index: int
    player: int
    team: int
    move: str
    kind: str
    before: Optional[float]
    after: Optional[float]
    best: Optional[str]
    loss: Optional[float]
    tier: Optional[str]
    accuracy: Optional[float]
    chances: Tuple[float, ...]
    notes: Tuple[Dict[str, Any], ...] = ()


@dataclass(frozen=True)
class GameReview:
    """The review of a whole game: one :class:`ReviewedMove` per entry, the public curve (the deal,
    then after every entry: every team's chances), the events after the last move (resignation,
    turn cap), the result and a summary per player (accuracy, count of each tier)."""

    teams: int
    moves: Tuple[ReviewedMove, ...]
    curve: Tuple[Tuple[float, ...], ...]
    events: Tuple[Dict[str, Any], ...]
    players: Tuple[Dict[str, Any], ...]
    result: Optional[Dict[str, Any]]
    tiers: Tuple[Tuple[str, float], ...]

    def to_dict(self) -> Dict[str, Any]:
        """Plain data (JSON-ready)."""
        return {"method": METHOD, "teams": self.teams, "tiers": dict(self.tiers),
                "moves": [dict(asdict(m), chances=list(m.chances), notes=[dict(n) for n in m.notes]) for m in self.moves],
                "curve": [list(c) for c in self.curve], "events": [dict(e) for e in self.events],
                "players": [dict(p) for p in self.players], "result": self.result}


def _played(steps: Sequence[Any]) -> List[List[Tuple[int, float]]]:
    """The moves' qualities before each step's position (:func:`~.estimator.play_quality`), from
    one walk over the last position's history."""
    entries = entry_qualities(steps[-1].game)
    out = []
    for step in steps:
        n = core_state(step.game).history_size
        out.append([e for e in entries[:n] if e is not None])
    return out


def _rounded(values: Sequence[float]) -> Tuple[float, ...]:
    out = [round(v, 4) for v in values]
    out[-1] = round(1.0 - sum(out[:-1]), 4)  # the rounded chances still sum to 1
    return tuple(out)


def review_game(record: GameRecord, model: Optional[WinChanceModel] = None,
                progress: Optional[Callable[[int, int], None]] = None,
                timeouts: Optional[Sequence[int]] = None, ratings: Ratings = None) -> GameReview:
    """Review ``record`` (a finished or unfinished :class:`~sequence_game.GameRecord`) with
    ``model`` (None: the packaged estimator). ``progress(done, total)`` is called after each entry.
    ``timeouts``: the numbers (from 1) of the moves a turn timer played for a player who did not
    move in time (None: the record's own ``timeouts``, kept by the web's tables): shown as
    ``"timeout"`` entries and events, not graded (not the player's choice). ``ratings``: every
    seat's rating for the curve (None: from the record's agents when all are rated AI specs; a
    person's is unknown); decisions are graded without ratings (a move is judged the same whoever
    plays it).
    Raises ``ValueError`` for a record that does not replay or a timeout that is not a move of it."""
    if not isinstance(record, GameRecord):
        raise TypeError(f"review_game needs a GameRecord, not {type(record).__name__}")
    timed_out = set()
    for n in record.timeouts if timeouts is None else timeouts:
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= len(record.moves):
            raise ValueError(f"timeouts must be move numbers from 1 to {len(record.moves)}, not {n!r}")
        timed_out.add(n)
    model = model or load_win_chance_model()
    ratings = seat_ratings(record.agents) if ratings is None else ratings
    tiers = _tiers(model)
    steps = list(record.positions())  # the deal, then the game after each entry (each a copy)
    qualities = _played(steps)
    total = len(record.moves)
    curve = [_rounded(model.chances(steps[0].game, ratings=ratings, quality=play_quality(steps[0].game, qualities[0])))]
    moves: List[ReviewedMove] = []
    for k in range(total):
        game, entry = steps[k].game, steps[k + 1].move
        player = game.current_player
        team = player % record.teams  # R2
        chances = _rounded(model.chances(steps[k + 1].game, ratings=ratings,
                                         quality=play_quality(steps[k + 1].game, qualities[k + 1])))
        curve.append(chances)
        text = record.moves[k]
        common: Dict[str, Any] = {"index": k + 1, "player": player, "team": team, "move": text, "chances": chances}
        if k + 1 in timed_out:
            moves.append(ReviewedMove(kind="timeout", before=None, after=None, best=None, loss=None, tier=None,
                                      accuracy=None, **common))
        elif not isinstance(entry, Move):
            moves.append(ReviewedMove(kind="referee", before=None, after=None, best=None, loss=None, tier=None,
                                      accuracy=None, **common))
        elif entry.kind == "trade":
            moves.append(ReviewedMove(kind="trade", before=None, after=None, best=None, loss=None, tier=None,
                                      accuracy=None, **common))
        else:
            values = move_values(game, model, qualities[k])
            common["notes"] = tuple(dict(n, text=note_text(n)) for n in move_notes(game, _move_id(entry)))
            if len(values) == 1:
                moves.append(ReviewedMove(kind="forced", before=None, after=None, best=None, loss=None, tier=None,
                                          accuracy=None, **common))
            else:
                played = values[_move_id(entry)]
                equal = [m for m in values if values[m] >= max(values.values()) - model.grading.get("equal", 0.0)]
                if _move_id(entry) in equal:  # as good as the best, within the estimator's noise
                    best_id, best_text, before = _move_id(entry), text, played
                else:
                    best_id = _best(values, equal, game)
                    before, best_text = values[best_id], str(_move_text(best_id))
                loss = max(0.0, before - played)
                moves.append(ReviewedMove(kind="move", before=round(before, 4), after=round(played, 4), best=best_text,
                                          loss=round(loss, 4), tier=tier_of(loss, tiers),
                                          accuracy=round(move_accuracy(loss), 1), **common))
        if progress is not None:
            progress(k + 1, total)
    events: List[Dict[str, Any]] = [{"kind": "timeout", "after": n - 1, "player": moves[n - 1].player,
                                     "move": moves[n - 1].move} for n in sorted(timed_out)]
    result = None if record.result is None else dict(record.result)
    if result is not None:
        final = tuple(1.0 if t == result["winner"] else 0.0 for t in range(record.teams)) \
            if result["winner"] is not None else _rounded([1.0 / record.teams] * record.teams)
        if record.resigned is not None:
            events.append({"kind": "resignation", "after": total, "player": record.resigned,
                           "team": record.resigned % record.teams, "winner": result["winner"]})
            curve.append(final)
        elif result["is_draw"] and record.max_turns is not None and result["turns"] >= record.max_turns:
            events.append({"kind": "turn-cap", "after": total, "turns": result["turns"], "winner": None})
    players = []
    for p in range(record.players):
        graded = [m for m in moves if m.player == p and m.kind == "move"]
        acc = [m.accuracy for m in graded if m.accuracy is not None]
        players.append({"player": p, "team": p % record.teams, "graded": len(graded),
                        "accuracy": round(sum(acc) / len(acc), 1) if acc else None,
                        **{name: sum(m.tier == name for m in graded) for name, _ in reversed(tiers)}})
    return GameReview(teams=record.teams, moves=tuple(moves), curve=tuple(curve), events=tuple(events),
                      players=tuple(players), result=result, tiers=tiers)


def _best(values: Dict[int, float], equal: Sequence[int], game: GameLike) -> int:
    """The best move named: among the moves ``equal`` to the best (within the model's
    ``grading.equal`` of its value: the estimator's noise), the one-ply heuristic's favourite (a
    strong player's choice among moves the estimator cannot tell apart), then a move that is not a
    trade (a trade keeps the turn: worth as much as the best move after it, never better), the
    higher value, the lowest id."""
    scores = dict(heuristic_scores(core_state(game)))
    return max(equal, key=lambda m: (scores.get(m, -math.inf), _move_text(m).kind != "trade", values[m], -m))


def _move_text(move_id: int) -> Move:
    from ..game import move_from_id
    return move_from_id(move_id)
