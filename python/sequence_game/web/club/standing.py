"""What a disabled account may no longer do in the running server (docs/club.md, "The operator").

``sequence-game accounts disable NAME`` is another process: it changes the account's row in the
server's SQLite file, and the server learns of it from the file. Its sessions end at their next
request (``sessions.py`` reads the row each time); the rest is here:

- every act that would start a game with the account reads the file at that moment: accepting its
  seek or being paired with it (the seek closes instead), joining a table where it sits, a rematch
  of such a table: refused, 403;
- its open seeks, and the tables still waiting for players where it holds a seat (a rated table
  being formed, an open challenge), close within :data:`POLL_SECONDS`: the lobby no longer lists
  them, and the people at such a table are told why;
- a game it played to the end changes no rating (``Club.game_over``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Iterable, List, Optional, Set

from ..errors import NotAllowedError
from ..seeks import Seek, SeekBoard
from ..tables import Table, TableService

if TYPE_CHECKING:
    from . import Club

__all__ = ["POLL_SECONDS", "Standing"]

log = logging.getLogger("sequence_game.web")

#: how often the server looks for disabled accounts among its open seeks and forming tables
POLL_SECONDS = 1.0
DISABLED = "disabled by the server's operator"


class Standing:
    """Keeps the open seeks and the tables being formed in line with the accounts in the file. It
    is made before the table service, which refuses a rematch through :meth:`check_table`; the
    sweep is given the service when it starts."""

    def __init__(self, club: Club, board: SeekBoard) -> None:
        self.club, self.board = club, board
        self._task: Optional[asyncio.Task[None]] = None

    async def disabled(self, keys: Iterable[Optional[str]]) -> Set[str]:
        wanted = {k for k in keys if k}
        return await asyncio.to_thread(self.club.accounts.disabled_among, wanted) if wanted else set()

    async def check_seek(self, seek: Seek) -> None:
        """Refuse (403) to take the open ``seek`` if its poster's account is disabled; the seek closes."""
        if seek.status == "open" and seek.account is not None and await self.disabled([seek.account[0]]):
            self.board.cancel(seek)
            raise NotAllowedError(f"this seek's account ({seek.account[1]}) is {DISABLED}: it is closed")

    async def check_table(self, table: Table) -> None:
        """Refuse (403) to start a game (a join, a rematch) with a disabled account at ``table``."""
        gone = await self.disabled(s.account for s in table.seats)
        if gone:
            names = ", ".join(s.name for s in table.seats if s.account in gone)
            raise NotAllowedError(f"an account of this table ({names}) is {DISABLED}: no game starts with it")

    async def sweep(self, service: TableService) -> None:
        """Close the open seeks of disabled accounts and the tables being formed where one sits."""
        seeks = [s for s in self.board.open_seeks() if s.account is not None]
        forming = [t for t in service.tables.values()
                   if not t.over and any(s.open for s in t.seats) and any(s.account for s in t.seats)]
        gone = await self.disabled([s.account[0] for s in seeks if s.account is not None]
                                   + [s.account for t in forming for s in t.seats])
        if not gone:
            return
        for seek in seeks:
            if seek.account is not None and seek.account[0] in gone:
                self.board.cancel(seek)
        closing: List[Table] = [t for t in forming if not t.lock.locked() and any(s.account in gone for s in t.seats)]
        if closing:
            await service.close_tables(closing, f"this table is closed: an account at it was {DISABLED}")

    def start(self, service: TableService) -> None:
        """Sweep ``service``'s forming tables and the seeks every :data:`POLL_SECONDS` (in the event loop)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._forever(service))

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None

    async def _forever(self, service: TableService) -> None:
        while True:
            await asyncio.sleep(POLL_SECONDS)
            try:
                await self.sweep(service)
            except ValueError as e:  # a read the database refused (StoreError): the next look tries again
                log.error("looking for disabled accounts failed: %s", e)
