"""Rematch: after the game, a new table with the same seats, made once."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any, Awaitable, Callable, Dict, FrozenSet, Optional

from ..errors import NotNowError, TableError
from .lifecycle import Lifecycle
from .table import Table

__all__ = ["Rematcher"]


class Rematcher:
    """``tell(table, message)``: a message to every connection of a table; ``broadcast(table)``: its
    new view to each."""

    def __init__(self, life: Lifecycle, tell: Callable[[Table, Dict[str, Any]], None],
                 broadcast: Callable[[Table], None]) -> None:
        self.life = life
        self._tell, self._broadcast = tell, broadcast
        self._lock = asyncio.Lock()  # one rematch made at a time (two players may ask together)
        #: refuses a rematch that may not be made (the club: a disabled account at the table)
        self.check: Optional[Callable[[Table], Awaitable[None]]] = None

    async def rematch(self, table: Table, seats: FrozenSet[int], client: Optional[str] = None) -> Table:
        """After the game: a new table with the same seats (the same people keep their links'
        tokens, the AIs their strength), the same options (but casual: a rematch is unrated,
        docs/club.md) and a new deal. Made once, in the
        database: asked twice (by both players, through any copy of the finished table, from any
        server process sharing the database), the second ask gets the same new table."""
        if not table.over:
            raise NotNowError("a rematch comes after the game: this one is still going")
        if self.check is not None and table.options.rematch is None:
            await self.check(table)
        async with self._lock:
            live = self.life.tables.get(table.id)
            copies = [table] if live is None or live is table else [table, live]
            known = next((t.options.rematch for t in copies if t.options.rematch is not None), None)
            new: Optional[Table] = None
            if known is not None:
                try:
                    new = await self.life.get_async(known)
                except TableError:
                    new = None  # expired: make a new one
            if new is None:
                g = table.game
                # a rematch is unrated: one player's ask makes it, and a rating needs every player
                # to have chosen to play (until rematches are offers that every player accepts)
                options = replace(table.options, rematch=None, rematch_of=table.id, rated=False)
                new, _ = await self.life.create(g.players, g.teams, [], options, hints=table.options.hints,
                                                client=client, same_seats=table.seats)
            for t in copies:
                if t.options.rematch != new.id:
                    t.options = replace(t.options, rematch=new.id)
                    self._tell(t, {"type": "rematch", "table": new.id})
                    self._broadcast(t)
        return new
