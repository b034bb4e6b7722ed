"""Tournaments on the server (docs/club.md, "Tournaments"): ``model.py`` (a tournament as data and
its changes), ``store.py`` (its rows in the server's SQLite file). The pairing, tie-breaks and
arena scoring are ``sequence_game.tournaments``'.
"""

from __future__ import annotations

from .model import KINDS, Entrant, TGame, Tournament, check_settings
from .store import TournamentStore

__all__ = ["KINDS", "Entrant", "TGame", "Tournament", "TournamentStore", "check_settings"]
