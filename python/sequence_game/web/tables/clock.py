"""The turn timer of a table's human seats (its ``turn_seconds``)."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable, Dict

from ...agents import agent_from_spec
from ...move import Move
from ...seeds import fresh_seed
from ..errors import TableError
from .ai import Change
from .table import Next, StaleError, Table

__all__ = ["Clock"]


class Clock:
    """A human seat that has not moved when its turn runs out gets one move played for it by the
    ``medium`` AI (the heuristic, at once), so a table is never stuck on someone who left, and play
    goes on; everyone is told (a ``timeout`` message). A restart of the server gives the seat to
    move a whole turn again. ``tables``: the live tables; ``change``: ``Changes.change``;
    ``tell(table, message)``: a message to every connection of the table."""

    def __init__(self, tables: Dict[str, Table], change: Change,
                 tell: Callable[[Table, Dict[str, Any]], None]) -> None:
        self.tables, self._change, self._tell = tables, change, tell

    def start(self, table: Table, seat: int, loop: asyncio.AbstractEventLoop) -> None:
        """Start the timer of ``seat``, the human to move (nothing without a timer, or if it runs)."""
        seconds = table.options.turn_seconds
        if not seconds or table.clock is not None:
            return
        table.deadline = time.time() + seconds
        table.clock = loop.create_task(self._time_out(table, seat, table.version, seconds))

    @staticmethod
    def stop(table: Table) -> None:
        """Stop the running timer (the turn it timed is over)."""
        if table.clock is not None:
            table.clock.cancel()
            table.clock = None
        table.deadline = None

    async def _time_out(self, table: Table, seat: int, version: int, seconds: float) -> None:
        await asyncio.sleep(seconds)
        agent = agent_from_spec("medium", seed=fresh_seed())

        def make() -> Next[Move]:
            if table.version != version or table.over or self.tables.get(table.id) is not table:
                raise StaleError()
            game = table.game.copy()
            move = game.parse_move(str(agent.select_move(game.copy())))
            game.play(move)
            return Next(game, [*table.movers, seat], table.prefix, table.record.redeals, move, timeout=True)

        if table.clock is asyncio.current_task():
            # this turn's clock has run out: the change below starts the next seat's clock
            table.clock, table.deadline = None, None
        try:
            move = await self._change(table, make)
        except (StaleError, TableError):
            return
        self._tell(table, {"type": "timeout", "seat": seat, "move": str(move)})
