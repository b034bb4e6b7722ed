"""Rematch: after the game, a new table with the same seats, made once."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any, Awaitable, Callable, Dict, FrozenSet, Optional

from ..errors import NotNowError, TableError
from ..store import StoreError, TableStore
from .lifecycle import Lifecycle
from .table import Table

__all__ = ["Rematcher"]

log = logging.getLogger("sequence_game.web")


class Rematcher:
    """``tell(table, message)``: a message to every connection of a table; ``broadcast(table)``: its
    new view to each."""

    def __init__(self, store: TableStore, life: Lifecycle, db: Callable[..., Awaitable[Any]],
                 tell: Callable[[Table, Dict[str, Any]], None], broadcast: Callable[[Table], None]) -> None:
        self.store, self.life, self.db = store, life, db
        self._tell, self._broadcast = tell, broadcast
        self._lock = asyncio.Lock()  # one rematch made at a time (two players may ask together)

    async def rematch(self, table: Table, seats: FrozenSet[int], client: Optional[str] = None) -> Table:
        """After the game: a new table with the same seats (the same people keep their links'
        tokens, the AIs their strength), the same options and a new deal. Asked twice (by both
        players), it is made once: the second ask gets the same new table."""
        if not table.over:
            raise NotNowError("a rematch comes after the game: this one is still going")
        async with self._lock:
            existing = table.options.rematch
            if existing is not None:
                try:
                    return await self.life.get_async(existing)
                except TableError:
                    pass  # expired: make a new one
            g = table.game
            options = replace(table.options, rematch=None, rematch_of=table.id)
            new, _ = await self.life.create(g.players, g.teams, [], options, hints=table.options.hints,
                                            client=client, same_seats=table.seats)
            options = replace(table.options, rematch=new.id)
            try:
                await self.db(self.store.set_options, table.id, options.to_dict())
            except StoreError as e:
                log.error("table %s: the rematch link was not stored: %s", table.id, e)
            table.options = options
        self._tell(table, {"type": "rematch", "table": new.id})
        self._broadcast(table)
        return new
