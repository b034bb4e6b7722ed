"""A table's game clocks as data: the spec checked, each seat's time left, the public view
(``clock.py`` runs them; ``views.py`` shows them)."""

from __future__ import annotations

import math
import time
from typing import Any, Dict, List, Optional

from ..errors import InvalidRequestError
from .table import Table

__all__ = ["AT_ZERO", "CLOCK_KINDS", "check_clock", "clock_left", "clock_view", "increment_of"]

CLOCK_KINDS = ("fischer", "bank")
AT_ZERO = ("ai", "lose")
MIN_CLOCK_SECONDS, MAX_CLOCK_SECONDS = 10.0, 86400.0  # a seat's time for the game: ten seconds to a day
MAX_INCREMENT = 3600.0



def check_clock(clock: Optional[Dict[str, Any]], teams: int) -> Optional[Dict[str, Any]]:
    """``clock`` as a table stores it, checked (ValueError saying what is wrong); None: no clock."""
    if clock is None:
        return None
    kind, at_zero = clock.get("kind"), clock.get("at_zero", "ai")
    seconds: Any = clock.get("seconds")
    increment: Any = clock.get("increment", 0.0)
    if kind not in CLOCK_KINDS:
        raise InvalidRequestError(f"clock.kind must be one of {', '.join(CLOCK_KINDS)}, not {kind!r}")
    if at_zero not in AT_ZERO:
        raise InvalidRequestError(f"clock.at_zero must be one of {', '.join(AT_ZERO)}, not {at_zero!r}")
    if not _number(seconds) or not MIN_CLOCK_SECONDS <= seconds <= MAX_CLOCK_SECONDS:
        raise InvalidRequestError(f"clock.seconds must be from {MIN_CLOCK_SECONDS:g} to {MAX_CLOCK_SECONDS:g}, "
                                  f"not {seconds!r}")
    if not _number(increment) or not 0 <= increment <= MAX_INCREMENT:
        raise InvalidRequestError(f"clock.increment must be from 0 to {MAX_INCREMENT:g}, not {increment!r}")
    if at_zero == "lose" and teams != 2:
        raise InvalidRequestError("clock.at_zero 'lose' is for two-team games: with three teams the game would "
                                  "go on without a team (as with resigning); choose 'ai'")
    return {"kind": kind, "seconds": float(seconds), "increment": float(increment), "at_zero": at_zero}


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def clock_left(table: Table) -> Optional[List[float]]:
    """The seats' time left, as stored (None: no usable clock; a damaged stored state starts full)."""
    clock = table.options.clock
    if clock is None:
        return None
    state = table.options.clock_state
    if state is None:
        state = table.options.clock_state = {}
    left = state.get("left")
    n = len(table.seats)
    if not (isinstance(left, list) and len(left) == n and all(_number(x) and x >= 0 for x in left)):
        left = state["left"] = [float(clock["seconds"])] * n
    return left


def increment_of(table: Table, seat: int) -> float:
    """The seconds ``seat``'s clock gains (after each of its moves, or at the start of each of its
    turns for a bank): the clock's increment, or none for a seat listed in the clock state's
    ``no_increment`` (an arena player gone berserk, docs/club.md)."""
    clock = table.options.clock
    if clock is None or seat in ((table.options.clock_state or {}).get("no_increment") or ()):
        return 0.0
    return float(clock["increment"])


def clock_view(table: Table) -> Optional[Dict[str, Any]]:
    """The clock as every viewer sees it (public): the spec, each seat's time left (None for an AI
    seat) and increment, the seat whose clock runs, and the seat that lost on time."""
    left = clock_left(table)
    clock, running = table.options.clock, table.clock_running
    if left is None or clock is None:
        return None
    shown: List[Optional[float]] = [None if s.kind == "ai" else round(x, 2) for s, x in zip(table.seats, left)]
    if running is not None and not table.over:
        seat, began = running
        shown[seat] = round(max(0.0, left[seat] - (time.monotonic() - began)), 2)
    state = table.options.clock_state or {}
    return {**clock, "left": shown, "increments": [increment_of(table, p) for p in range(len(table.seats))],
            "running": None if running is None or table.over else running[0], "flagged": state.get("flagged")}
