"""A Swiss tournament's standings: points, then Buchholz, then Sonneborn-Berger, then the direct
encounter, then the pairing number (FIDE Handbook C.07, the tie-break regulations).

* **Buchholz**: the sum of the opponents' points. A round without a game (a bye, a forfeit won or
  lost) counts as a game against an opponent with the entrant's own points: the "dummy opponent"
  of C.07 article 16, so a bye neither helps nor hurts.
* **Sonneborn-Berger**: the points of each opponent beaten, plus half the points of each opponent
  drawn; games not played add nothing.
* **Direct encounter** (C.07 article 6): among entrants still tied on points, Buchholz and
  Sonneborn-Berger who have *all* played each other, the points they scored in those games; when
  some of them never met, it separates no one.

>>> from sequence_game.tournaments.swiss import Entrant, Game
>>> people = [Entrant("a", 600), Entrant("b", 500), Entrant("c", 400)]
>>> games = [Game(1, "a", "b", 1.0), Game(2, "c", "a", 0.0), Game(3, "b", "c", 0.5)]
>>> byes = {1: "c", 2: "b", 3: "a"}
>>> [(r.id, r.points, r.buchholz, r.sonneborn_berger) for r in standings(people, games, byes)]
[('a', 3.0, 6.0, 3.0), ('b', 1.5, 6.0, 0.75), ('c', 1.5, 6.0, 0.75)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Mapping, Sequence

from .swiss import Entrant, Game, pairing_order, scores

__all__ = ["Standing", "standings"]


@dataclass(frozen=True)
class Standing:
    """One line of the table: ``rank`` from 1 (tied entrants share none: the tie-breaks or the
    pairing number separate them all)."""

    rank: int
    id: str
    points: float
    buchholz: float
    sonneborn_berger: float
    direct: float
    games: int
    wins: int
    draws: int
    losses: int
    byes: int


def standings(entrants: Sequence[Entrant], games: Sequence[Game], byes: Mapping[int, str],
              rounds_played: int | None = None) -> List[Standing]:
    """The table of every entrant (withdrawn ones too) after the finished games of ``games`` and
    ``byes``; ``rounds_played`` (default: the latest round with a finished game or a bye) is how
    many rounds a missed one counts as unplayed for Buchholz."""
    ids = [e.id for e in entrants]
    done = [g for g in games if g.result is not None]
    points = scores(ids, done, byes)
    if rounds_played is None:
        rounds_played = max([g.round for g in done] + list(byes), default=0)
    number = {i: n for n, i in enumerate(pairing_order(entrants))}
    bh: Dict[str, float] = dict.fromkeys(ids, 0.0)
    sb: Dict[str, float] = dict.fromkeys(ids, 0.0)
    tally: Dict[str, List[int]] = {i: [0, 0, 0] for i in ids}
    played_rounds: Dict[str, int] = dict.fromkeys(ids, 0)
    for g in done:
        for side in (g.first, g.second):
            if side not in bh:
                continue
            mine = g.score_of(side)
            assert mine is not None
            tally[side][0 if mine == 1 else 1 if mine == 0.5 else 2] += 1
            if g.forfeit:
                continue
            played_rounds[side] += 1
            other = points.get(g.opponent(side), 0.0)
            bh[side] += other
            sb[side] += mine * other
    for i in ids:  # the dummy opponent of every round without a game
        bh[i] += max(0, rounds_played - played_rounds[i]) * points[i]
    key = {i: (points[i], bh[i], sb[i]) for i in ids}
    direct = dict.fromkeys(ids, 0.0)
    groups: Dict[tuple[float, float, float], List[str]] = {}
    for i in ids:
        groups.setdefault(key[i], []).append(i)
    for tied in groups.values():
        if len(tied) < 2:
            continue
        among = [g for g in done if not g.forfeit and g.first in tied and g.second in tied]
        met = {frozenset((g.first, g.second)) for g in among}
        if len(met) < len(tied) * (len(tied) - 1) // 2:
            continue  # not all of them met: the direct encounter separates no one
        for g in among:
            for side in (g.first, g.second):
                s = g.score_of(side)
                assert s is not None
                direct[side] += s
    order = sorted(ids, key=lambda i: (-points[i], -bh[i], -sb[i], -direct[i], number[i]))
    byes_of = {i: sum(1 for who in byes.values() if who == i) for i in ids}
    return [Standing(rank, i, points[i], bh[i], sb[i], direct[i], sum(tally[i]), tally[i][0], tally[i][1],
                     tally[i][2], byes_of[i]) for rank, i in enumerate(order, 1)]
