"""Ratings for team games: openskill's Plackett-Luce model (Weng-Lin), docs/club.md.

How each table shape is rated: every seat is a player with a rating (mu, sigma); the seats of a
team (seat ``p`` is in team ``p % teams``, R2) form one openskill team, so a team's strength is the
sum of its players' and each player's change is weighted by their own uncertainty. The winning team
ranks first; the other team (or, in a three-team game, both others, tied) rank second; a draw ranks
every team first. One model covers 1 against 1, 2 against 2 ... 6 against 6 and 3 teams of 1 to 4.

The display rating is ``mu`` on the ladder's Elo scale: for two settled ratings, Plackett-Luce gives
the side ahead by ``d`` mu the win probability that Elo gives a lead of ``d * ELO_PER_MU`` points
(``400 / (ln 10 * sqrt(2) * beta)``, about 29.5), and a new account starts at :data:`START` (between
ladder levels 4 and 5). A rating whose ``sigma`` is above :data:`PROVISIONAL_SIGMA` (about a dozen
games) is provisional, shown with a "?".

>>> [round(r[0][0], 2) for r in rate([[(25.0, 25 / 3)], [(25.0, 25 / 3)]], winner=0)]
[27.64, 22.36]
>>> display(25.0)
500
"""

from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

from openskill.models import PlackettLuce

__all__ = [
    "ELO_PER_MU",
    "MAX_SAME_ACCOUNTS",
    "MODEL",
    "PROVISIONAL_SIGMA",
    "SAME_ACCOUNTS_WINDOW",
    "START",
    "display",
    "provisional",
    "ranks",
    "rate",
]

MODEL = PlackettLuce()  # mu 25, sigma 25/3, beta 25/6: openskill's defaults
MU0, SIGMA0 = float(MODEL.mu), float(MODEL.sigma)
ELO_PER_MU = 400.0 / (math.log(10) * math.sqrt(2) * float(MODEL.beta))
START = 500.0  #: the display rating of a new account (the ladder's random = 0; level 5 = 443, level 6 = 546)
PROVISIONAL_SIGMA = 6.0  #: above this uncertainty a rating is provisional
#: rated games among the same accounts that count in any 24 hours; more are played and stored, unrated
MAX_SAME_ACCOUNTS = 3
SAME_ACCOUNTS_WINDOW = 24 * 3600.0

Rating = Tuple[float, float]  # (mu, sigma)


def display(mu: float) -> int:
    """``mu`` on the ladder's Elo scale."""
    return round(START + ELO_PER_MU * (mu - MU0))


def provisional(sigma: float) -> bool:
    return sigma > PROVISIONAL_SIGMA


def ranks(teams: int, winner: Optional[int]) -> List[int]:
    """openskill's ranks (lower is better) of ``teams`` teams: the winner first, the others tied
    second; ``winner`` None (a draw): all tied."""
    if winner is None:
        return [0] * teams
    if not 0 <= winner < teams:
        raise ValueError(f"winner must be a team from 0 to {teams - 1} or None, not {winner}")
    return [0 if t == winner else 1 for t in range(teams)]


def rate(teams: Sequence[Sequence[Rating]], winner: Optional[int]) -> List[List[Rating]]:
    """The ratings after a game of these teams (each a list of its players' ``(mu, sigma)``)."""
    if not 2 <= len(teams) <= 3 or any(not team for team in teams):
        raise ValueError(f"a game has 2 or 3 teams of at least one player, not {[len(t) for t in teams]}")
    model_teams = [[MODEL.rating(mu=mu, sigma=sigma) for mu, sigma in team] for team in teams]
    rated = MODEL.rate(model_teams, ranks=[float(r) for r in ranks(len(teams), winner)])
    return [[(float(r.mu), float(r.sigma)) for r in team] for team in rated]
