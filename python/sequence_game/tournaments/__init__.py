"""Tournaments for a club night: the Swiss pairing and its standings, and the arena's scoring and
pairing. Pure rules over ids, ratings and results: the server (``sequence_game.web``) keeps the
tournaments, starts their games and feeds the results back (docs/club.md).

Modules: :mod:`.swiss` (a simplified Dutch system), :mod:`.standings` (Buchholz,
Sonneborn-Berger, direct encounter), :mod:`.arena` (streaks, berserk, performance, pairing the free).
"""

from __future__ import annotations

from .arena import (
    BERSERK_MIN_TURNS,
    PERFORMANCE_SPREAD,
    ArenaResult,
    ScoredGame,
    Waiting,
    arena_pairs,
    arena_points,
    berserk_clock,
    on_fire,
    performance,
)
from .standings import Standing, standings
from .swiss import BYE_POINTS, Entrant, Game, Pairing, allocate_seats, pair_round, pairing_order, scores

__all__ = [
    "BERSERK_MIN_TURNS",
    "BYE_POINTS",
    "NO_SHOWS_TO_WITHDRAW",
    "PERFORMANCE_SPREAD",
    "ArenaResult",
    "Entrant",
    "Game",
    "Pairing",
    "ScoredGame",
    "Standing",
    "Waiting",
    "allocate_seats",
    "arena_pairs",
    "arena_points",
    "berserk_clock",
    "on_fire",
    "pair_round",
    "pairing_order",
    "performance",
    "scores",
    "standings",
]

#: first-move no-shows (a game lost for not moving in the grace) after which an entrant is withdrawn
NO_SHOWS_TO_WITHDRAW = 2
