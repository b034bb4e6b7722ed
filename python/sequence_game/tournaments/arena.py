"""An arena (the lichess kind): play as many games as you like in a fixed time, paired again as
soon as a game ends, and score by streaks.

Scoring (:func:`arena_points`): a win is 2 points, a draw 1, a loss 0. Two wins in a row set an
entrant *on fire*: while on fire every game scores double (a win 4, a draw 2) until a game is not
won. A win by an entrant who went berserk (half its time and no increment, :func:`berserk_clock`)
scores one point more, if the game lasted at least :data:`BERSERK_MIN_TURNS` turns of theirs, so
a win on a no-show or a resignation at once earns no bonus. A forfeit scores like the result it
gives but never starts or feeds a streak.

>>> [g.points for g in arena_points([ArenaResult(1.0), ArenaResult(1.0), ArenaResult(1.0),
...                                   ArenaResult(0.5), ArenaResult(1.0, berserk=True, turns=9)])]
[2, 2, 4, 2, 3]

Standings: points, then the tournament **performance** (:func:`performance`, lichess's tie-break):
the mean, over the games played, of the opponent's rating plus :data:`PERFORMANCE_SPREAD` for a
win, minus it for a loss (a draw: the opponent's rating), so of two entrants tied on points the one
who scored them against stronger opponents, or in fewer games, is ahead. Forfeits are left out: no
one played them.

>>> performance([ArenaResult(1.0, opponent_rating=600), ArenaResult(0.5, opponent_rating=700),
...              ArenaResult(0.0, opponent_rating=500), ArenaResult(1.0, forfeit=True, opponent_rating=900)])
600.0

Pairing (:func:`arena_pairs`): the entrants waiting for a game (not playing, not paused) sorted by
points, then rating; the first meets the nearest below it that was not its last opponent (when
someone else is waiting), and so on down.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence, Tuple

__all__ = [
    "BERSERK_MIN_TURNS",
    "PERFORMANCE_SPREAD",
    "ArenaResult",
    "ScoredGame",
    "Waiting",
    "arena_pairs",
    "arena_points",
    "berserk_clock",
    "on_fire",
    "performance",
]

#: the fewest turns of the berserk entrant's own for the bonus (lichess asks for seven moves)
BERSERK_MIN_TURNS = 7
#: the rating points a win adds to the opponent's rating in a game's performance, and a loss takes
#: away: the Elo scale's 400 (the linear performance rating)
PERFORMANCE_SPREAD = 400.0


@dataclass(frozen=True)
class ArenaResult:
    """One finished game of one entrant: ``score`` 1, 0.5 or 0; ``berserk`` whether it halved its
    clock; ``turns`` how many turns it played; ``forfeit`` decided without play;
    ``opponent_rating`` the opponent's rating (for :func:`performance`; None: not known)."""

    score: float
    berserk: bool = False
    turns: int = 0
    forfeit: bool = False
    opponent_rating: Optional[float] = None

    def __post_init__(self) -> None:
        if self.score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game's score is 1, 0.5 or 0, not {self.score!r}")
        if self.turns < 0:
            raise ValueError(f"turns counts the turns played, 0 or more, not {self.turns}")


@dataclass(frozen=True)
class ScoredGame:
    """What one game gave: ``points``, and whether it was played on fire (``doubled``)."""

    points: int
    doubled: bool
    berserk_bonus: bool


def arena_points(results: Iterable[ArenaResult]) -> List[ScoredGame]:
    """The points of each of an entrant's games, in the order played."""
    scored = []
    wins_in_row = 0
    for r in results:
        doubled = wins_in_row >= 2 and not r.forfeit
        base = {1.0: 2, 0.5: 1, 0.0: 0}[r.score] * (2 if doubled else 1)
        bonus = r.score == 1.0 and r.berserk and r.turns >= BERSERK_MIN_TURNS and not r.forfeit
        scored.append(ScoredGame(base + (1 if bonus else 0), doubled, bonus))
        wins_in_row = wins_in_row + 1 if r.score == 1.0 and not r.forfeit else 0
    return scored


def on_fire(results: Sequence[ArenaResult]) -> bool:
    """Whether the entrant's next game scores double: its last two games were wins played."""
    return len(results) >= 2 and all(r.score == 1.0 and not r.forfeit for r in results[-2:])


def performance(results: Iterable[ArenaResult]) -> Optional[float]:
    """The entrant's tournament performance over its games played (see the module), None when it
    played none (forfeits are not played; nor is a game whose opponent's rating is not known)."""
    played = [r for r in results if not r.forfeit and r.opponent_rating is not None]
    if not played:
        return None
    return sum(float(r.opponent_rating or 0.0) + PERFORMANCE_SPREAD * (2.0 * r.score - 1.0)
               for r in played) / len(played)


def berserk_clock(base_seconds: float, increment: float) -> Tuple[float, float]:
    """The clock of an entrant gone berserk, ``(seconds, increment)``: half its time and no
    increment, as on lichess (a 5+3 clock becomes 2:30+0)."""
    if not base_seconds > 0:
        raise ValueError(f"a clock's time is a positive number of seconds, not {base_seconds!r}")
    if not increment >= 0:
        raise ValueError(f"a clock's increment is 0 or more seconds, not {increment!r}")
    return base_seconds / 2.0, 0.0


@dataclass(frozen=True)
class Waiting:
    """An entrant waiting for a game: its points and rating, whom it last played, and how many
    games it sat at the first seat (the one that sat there less often does now)."""

    id: str
    points: int
    rating: float
    last_opponent: Optional[str] = None
    firsts: int = 0
    games: int = 0


def arena_pairs(waiting: Sequence[Waiting]) -> List[Tuple[str, str]]:
    """The games to start now, ``(first, second)``: see the module. With an odd number waiting the
    lowest is left for the next one free."""
    ids = [w.id for w in waiting]
    if len(set(ids)) != len(ids):
        raise ValueError(f"an entrant waits once, not twice: {sorted(ids)}")
    left = sorted(waiting, key=lambda w: (-w.points, -w.rating, w.id))
    pairs = []
    while len(left) >= 2:
        top = left.pop(0)
        k = next((n for n, w in enumerate(left)
                  if w.id != top.last_opponent and w.last_opponent != top.id), 0)
        other = left.pop(k)
        # the one that had the first seat in fewer of its games has it now; then the higher-placed
        if (other.firsts - other.games / 2) < (top.firsts - top.games / 2):
            pairs.append((other.id, top.id))
        else:
            pairs.append((top.id, other.id))
    return pairs
