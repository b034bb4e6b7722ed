"""The opening of a game at a table of people (as on lichess): Abort, and the first move's grace.

At a table where two or more persons play (two or more join links; not a hot seat, not one person
against the AI), casual or rated, the game may be **aborted** by any person at the table until
every human seat has made its first move: the game ends with no winner and no loser, changes no
rating, and its record says so (``ending`` ``"aborted"``). Resign is for after that. AI seats are
not waited on: they play as usual.

At such a table with a time control (a turn timer or a game clock), each human seat's first move
has a **grace** of :data:`FIRST_MOVE_SECONDS` that is not taken from its clock (its clock does not
run, no turn timer runs, no increment comes); past it the game is aborted (``why``
``"no-first-move"``): the seat that did not come does not lose, and the time control's AI never
plays a first move for it. A first move is a play or a pass: a dead-card trade and the card played
after it are one turn (R5), so the grace runs on through a trade. A restart of the server gives the
seat to move a whole grace again (nothing of it is stored: as with the clocks, the time the server
was down is charged to nobody). A tournament's tables have their own rule for a player that does
not come (docs/club.md, "No-shows"): they have neither (``TableOptions.abortable``).
"""

from __future__ import annotations

from typing import Set

from ..errors import NotNowError
from .table import Table

__all__ = ["FIRST_MOVE_SECONDS", "can_abort", "check_abort", "grace_seat", "moved_seats", "of_people"]

FIRST_MOVE_SECONDS = 30.0  # lichess gives a first move about as long


def of_people(table: Table) -> bool:
    """Whether two or more persons play at ``table``: human seats behind two or more join links (an
    open seat is a person still to come); a hot seat is one screen, one person."""
    if table.options.hot_seat:
        return False
    links = {s.token_hash for s in table.seats if s.kind == "human" and not s.open}
    return len(links) + sum(1 for s in table.seats if s.open) >= 2


def moved_seats(table: Table) -> Set[int]:
    """The seats that made a move themselves: a play or a pass (a dead-card trade is half of a turn,
    R5), not one the time control's AI made for them (the record's ``timeouts``)."""
    timeouts = set(table.record.timeouts)
    return {p for n, (p, text) in enumerate(zip(table.movers, table.record.moves), start=1)
            if n not in timeouts and not text.startswith("trade ")}


def can_abort(table: Table) -> bool:
    """Whether the game at ``table`` may be aborted now: a game of people going on, every seat taken,
    some human seat without its first move."""
    if table.over or not table.options.abortable or not of_people(table) or any(s.open for s in table.seats):
        return False
    return bool(set(table.humans) - moved_seats(table))


def check_abort(table: Table) -> None:
    """Refuse an abort that may not be made (409 saying why)."""
    if can_abort(table):
        return
    if table.over:
        raise NotNowError("the game is over")
    if not table.options.abortable:
        raise NotNowError("a tournament's game is not aborted: a player that does not come loses it as a no-show")
    if not of_people(table):
        raise NotNowError("Abort is for a game between people (two or more join links): against the computer, "
                          "just leave or resign")
    if any(s.open for s in table.seats):
        raise NotNowError("the table is waiting for players: nothing to abort until every seat is taken")
    raise NotNowError("every player has made a first move: the game can no longer be aborted (resign instead, "
                      "two teams)")


def grace_seat(table: Table, seat: int) -> bool:
    """Whether ``seat``'s turn now is its first move's grace rather than its time control."""
    timed = table.options.clock is not None or bool(table.options.turn_seconds)
    return (timed and table.seats[seat].kind == "human" and seat not in moved_seats(table)
            and can_abort(table))
