"""The time controls of a table's human seats: the turn timer (``turn_seconds``) or a game clock
per seat (``options.clock``), docs/web.md, "Game clocks" in "At the table".

- **Turn timer**: each turn of a human seat has ``turn_seconds``; when they run out the ``medium``
  AI plays the rest of that turn for the seat and the game goes on.
- **Fischer clock** (``kind="fischer"``): each human seat has ``seconds`` for the whole game; its
  clock runs while it is to move, and ``increment`` seconds are added after each of its turns.
- **Time bank** (``kind="bank"``, as on Board Game Arena): each human seat has a bank of
  ``seconds``; at the start of each of its turns ``increment`` seconds are added to it, never past
  ``seconds``; its clock runs while it is to move.

A seat listed in the clock state's ``no_increment`` gains nothing (an arena player gone berserk,
docs/club.md, "Tournaments").

A turn is timed as one whatever it holds: a dead-card trade and the card played after it (R5) are
one turn, with one increment and one turn timer.

At zero, as the table chose (``at_zero``): ``"ai"``, the ``medium`` AI plays the turn for the seat
at once (and at once on each later turn while the seat has no time; the increment still comes);
``"lose"``, the seat's team loses on time, as a resignation does (two teams only: with three, the
game would go on without a team, as with resigning; the record keeps it as ``resigned``, the
table's ``clock_state`` says it was the clock). AI seats have no clock (their think time is
``ai_seconds``). The rules (docs/rules.md, R1-R10) have no clock: a time control is a convention
of the table, like resigning.

At a table of people, each human seat's first move has a grace instead (``opening.py``): no clock
runs and no turn timer; past it the game is aborted, and the AI never plays a first move for a seat.

A restart of the server is fair: each seat's time left is stored after every change of the game,
and the seat to move starts its turn again with the time it had when the turn began; the time the
server was down is charged to nobody.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Callable, Coroutine, Dict, Optional, Tuple

from ...agents import agent_from_spec
from ...move import Move
from ...seeds import fresh_seed
from ..errors import TableError
from .ai import Change
from .clockstate import CLOCK_KINDS, check_clock, clock_left, clock_view, increment_of
from .opening import FIRST_MOVE_SECONDS, can_abort, grace_seat, moved_seats
from .table import Next, StaleError, Table

__all__ = ["CLOCK_KINDS", "Clock", "check_clock", "clock_view"]

log = logging.getLogger("sequence_game.web")

#: ``save(table_id, clock_state)``: store a table's clock state (``TableStore.set_clock``) off the loop
Save = Callable[[str, Dict[str, Any]], Coroutine[Any, Any, None]]


class Clock:
    """A human seat that has not moved when its time runs out (its turn timer, or its game clock at
    zero with ``at_zero="ai"``) gets one move played for it by the ``medium`` AI (the heuristic, at
    once), so a table is never stuck on someone who left, and play goes on; everyone is told (a
    ``timeout`` message). With ``at_zero="lose"`` its team loses on time (a ``flag`` message).
    ``tables``: the live tables; ``change``: ``Changes.change``; ``tell(table, message)``: a
    message to every connection of the table; ``save``: stores a table's clock state."""

    def __init__(self, tables: Dict[str, Table], change: Change,
                 tell: Callable[[Table, Dict[str, Any]], None], save: Optional[Save] = None) -> None:
        self.tables, self._change, self._tell, self._save = tables, change, tell, save
        self.grace_seconds = FIRST_MOVE_SECONDS  # a first move's grace (opening.py)

    def start(self, table: Table, seat: int, loop: asyncio.AbstractEventLoop) -> None:
        """Start the timer of ``seat``, the human to move (nothing without a time control, or if it
        runs): its first move's grace at a table of people (``opening.py``), else its time control."""
        if table.clock is not None:
            return
        if grace_seat(table, seat):
            table.grace = seat
            table.deadline = time.time() + self.grace_seconds
            table.clock_turn = turn = (seat, table.game.turn)
            table.clock = loop.create_task(self._grace_out(table, turn, self.grace_seconds))
            return
        left = clock_left(table)
        if left is not None and table.options.clock is not None:
            clock = table.options.clock
            if clock["kind"] == "bank":  # BGA: time added at the start of the turn, the bank capped
                left[seat] = min(float(clock["seconds"]), left[seat] + increment_of(table, seat))
            seconds = left[seat]
            table.clock_running = (seat, time.monotonic())
        else:
            seconds = table.options.turn_seconds or 0.0
            if not seconds:
                return
        table.deadline = time.time() + seconds
        table.clock_turn = turn = (seat, table.game.turn)
        table.clock = loop.create_task(self._time_out(table, turn, seconds))

    def changed(self, table: Table) -> None:
        """After a change of the game: the turn that was timed is over (:meth:`stop`), unless its
        seat is still to move in the same turn, as after a dead-card trade (R5: the trade and the
        card played after it are one turn), whose time control runs on: no second increment, no
        fresh turn timer."""
        g = table.game
        if table.clock is not None and not table.over and table.clock_turn == (g.current_player, g.turn):
            return
        self.stop(table)

    def stop(self, table: Table) -> None:
        """Stop the running timer (the turn it timed is over): a game clock is charged the time the
        turn took (Fischer: plus the increment if the seat moved) and stored."""
        if table.clock is not None:
            table.clock.cancel()
            table.clock = None
        table.deadline, table.clock_turn, table.grace = None, None, None
        running, table.clock_running = table.clock_running, None
        left = clock_left(table)
        if running is None or left is None or table.options.clock is None:
            return
        seat, began = running
        left[seat] = max(0.0, left[seat] - (time.monotonic() - began))
        moved = bool(table.movers) and table.movers[-1] == seat
        if table.options.clock["kind"] == "fischer" and moved and not table.over:
            left[seat] += increment_of(table, seat)
        self.store(table)

    def store(self, table: Table) -> None:
        """Write the table's clock state (in order with the other writes: the one database thread)."""
        if self._save is None or table.options.clock_state is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(self._save(table.id, dict(table.options.clock_state)))
        task.add_done_callback(_logged)

    async def _grace_out(self, table: Table, turn: Tuple[int, int], seconds: float) -> None:
        """``turn``'s seat did not make its first move within its grace: the game is aborted (nobody
        loses; opening.py)."""
        await asyncio.sleep(seconds)
        seat = turn[0]

        def make() -> Next[None]:
            g = table.game
            if ((g.current_player, g.turn) != turn or table.over or self.tables.get(table.id) is not table
                    or seat in moved_seats(table) or not can_abort(table)):
                raise StaleError()  # it moved in time
            return Next(g.copy(), list(table.movers), table.prefix, table.record.redeals, None,
                        aborted={"seat": seat, "why": "no-first-move"})

        if table.clock is asyncio.current_task():
            table.clock, table.deadline = None, None
        try:
            await self._change(table, make)
        except (StaleError, TableError):
            return

    async def _time_out(self, table: Table, turn: Tuple[int, int], seconds: float) -> None:
        await asyncio.sleep(seconds)
        seat = turn[0]
        clock = table.options.clock
        lose = clock is not None and clock["at_zero"] == "lose"
        agent = None if lose else agent_from_spec("medium", seed=fresh_seed())

        def make() -> Next[Optional[Move]]:
            g = table.game
            if (g.current_player, g.turn) != turn or table.over or self.tables.get(table.id) is not table:
                raise StaleError()  # the seat moved in time (a trade alone leaves its turn running)
            if agent is None:  # the seat's team loses on time (two teams, check_clock)
                if table.options.clock_state is not None:
                    table.options.clock_state["flagged"] = seat
                return Next(table.game.copy(), list(table.movers), table.prefix, table.record.redeals, None,
                            resigned=seat)
            # the rest of the seat's turn: a dead-card trade is followed by the card played (R5)
            game, played = g.copy(), []
            while not game.is_over and (game.current_player, game.turn) == turn:
                move = game.parse_move(str(agent.select_move(game.copy())))
                game.play(move)
                played.append(move)
            return Next(game, [*table.movers, *[seat] * len(played)], table.prefix, table.record.redeals,
                        played[-1], timeouts=len(played))

        if table.clock is asyncio.current_task():
            # this turn's clock has run out: the change below starts the next seat's clock
            table.clock, table.deadline = None, None
        try:
            move = await self._change(table, make)
        except (StaleError, TableError):
            if table.options.clock_state is not None and not table.over:
                table.options.clock_state.pop("flagged", None)
            return
        if move is None:
            self._tell(table, {"type": "flag", "seat": seat})
        else:
            self._tell(table, {"type": "timeout", "seat": seat, "move": str(move)})


def _logged(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("a table's clock was not stored: %s", task.exception())
