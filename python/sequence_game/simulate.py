"""``simulate``: many games of uniformly random legal moves in the compiled core.

>>> r = simulate(20, seed=1)
>>> r["games"], sum(r["wins"]) + r["draws"]
(20, 20)
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from ._args import check_seed
from .errors import short_repr
from .game_setup import check_max_turns, check_players_teams

__all__ = ["simulate"]


def simulate(games: int, players: int = 2, teams: Optional[int] = None, seed: int = 0, threads: int = 1,
             max_turns: Optional[int] = 1000) -> Dict[str, Any]:
    """Play ``games`` complete games with uniformly random legal moves on ``threads`` threads.

    Game ``i`` is dealt and played from seeds derived from ``(seed, i)`` only, so the result is the
    same for a given seed whatever the number of threads. ``max_turns`` caps each game (a draw when
    reached; None for no cap). The move choice is uniform over (card, cell) plays, dead-card trades
    and the pass (``cpp/include/sequence/playout.hpp``).

    Returns ``{"games", "wins" (a list per team), "draws", "mean_turns", "seconds",
    "games_per_second"}``. Ctrl-C stops the run and raises ``KeyboardInterrupt``.
    """
    if not isinstance(games, int) or isinstance(games, bool):
        raise TypeError(f"games must be an int, not {type(games).__name__} {short_repr(games)}")
    if games < 0:
        raise ValueError(f"games must be >= 0, not {games}")
    players, teams = check_players_teams(players, teams)
    checked_seed = check_seed(seed)
    if checked_seed is None:
        raise TypeError("seed must be an int from 0 to 2**64 - 1")
    if not isinstance(threads, int) or isinstance(threads, bool):
        raise TypeError(f"threads must be an int, not {type(threads).__name__} {short_repr(threads)}")
    if not 1 <= threads <= 256:
        raise ValueError(f"threads must be from 1 to 256, not {threads}")
    max_turns = check_max_turns(max_turns)
    from . import _core

    r = _core.simulate(games, players, teams, checked_seed, threads, max_turns)
    n = r["games"]
    seconds = r["seconds"]
    return {
        "games": n,
        "wins": list(r["wins"]),
        "draws": r["draws"],
        "mean_turns": r["total_turns"] / n if n else 0.0,
        "seconds": seconds,
        "games_per_second": n / seconds if seconds > 0 else 0.0,
    }
