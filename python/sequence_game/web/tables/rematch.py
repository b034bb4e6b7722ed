"""Rematch: after the game, an offer that every other person at the table accepts or declines;
the new table (same seats, new deal) exists only once every person accepted, and is made once.

An offer (``TableOptions.rematch_offer``, kept in the table's row so a restart keeps it) names the
seat that made it, the seats that accepted, when it expires and whether the rematch is rated (a
rated table's rematch is rated: everyone accepting it is the consent a rating needs, docs/club.md).
A person is a seat's join link: seats behind one link (a hot seat) answer together, and a table of
one person (against the AI) gets its rematch at the first ask. An offer ends when the maker
withdraws it, another person declines it, it is :data:`OFFER_SECONDS` old, or a person at the table
leaves (every page of their seat closed for :data:`LEAVE_SECONDS`); everyone is told how.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Dict, FrozenSet, List, Literal, Optional, Set

from ..errors import NotNowError, TableError
from .table import Table

if TYPE_CHECKING:  # lifecycle.py reads views.py, which reads the offers here
    from .lifecycle import Lifecycle

__all__ = ["LEAVE_SECONDS", "OFFER_SECONDS", "Rematcher", "current_offer", "offer_view", "people"]

log = logging.getLogger("sequence_game.web")

OFFER_SECONDS = 60.0  # an offer nobody answered in a minute ends (lichess-like)
LEAVE_SECONDS = 3.0  # a seat's pages all closed this long (not a reload) has left: its table's offer ends

#: ``save(table_id, offer or None)``: store a table's offer beside its options (``TableStore.set_option``)
Save = Callable[[str, Optional[Dict[str, Any]]], Awaitable[None]]


def people(table: Table) -> List[FrozenSet[int]]:
    """The persons at ``table``: its human seats grouped by join link (a hot seat's seats are one
    person, who answers for them all)."""
    by_link: Dict[Optional[str], Set[int]] = {}
    for p in table.humans:
        by_link.setdefault(table.seats[p].token_hash, set()).add(p)
    return [frozenset(g) for g in by_link.values()]


def current_offer(table: Table, now: Optional[float] = None) -> Optional[Dict[str, Any]]:
    """The table's rematch offer if one is open (an offer past its time is no offer, also when no
    timer ended it: after a restart)."""
    offer = table.options.rematch_offer
    if offer is None or table.options.rematch is not None:
        return None
    return offer if float(offer.get("expires", 0.0)) > (time.time() if now is None else now) else None


class Rematcher:
    """``tell(table, message)``: a message to every connection of a table; ``broadcast(table)``: its
    new view to each; ``save``: stores an offer; ``check(table)``: refuses a rematch that may not be
    made (the club: a disabled account at the table)."""

    def __init__(self, life: Lifecycle, tell: Callable[[Table, Dict[str, Any]], None],
                 broadcast: Callable[[Table], None], save: Optional[Save] = None,
                 check: Optional[Callable[[Table], Awaitable[None]]] = None) -> None:
        self.life = life
        self._tell, self._broadcast, self._save = tell, broadcast, save
        self._lock = asyncio.Lock()  # one offer or rematch changed at a time (two players may ask together)
        self._timers: Dict[str, asyncio.TimerHandle] = {}
        self._closed = False
        self.check = check

    def close(self) -> None:
        """The server stops: no offer ends by a timer from now on (its row keeps it, with its time)."""
        self._closed = True
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()

    def _copies(self, table: Table) -> List[Table]:
        """``table`` and the copy in memory, if that is another (a finished table read from its row
        for a request, beside the one its sockets share)."""
        live = self.life.tables.get(table.id)
        return [table] if live is None or live is table else [live, table]

    async def rematch(self, table: Table, seats: FrozenSet[int], client: Optional[str] = None) -> Optional[Table]:
        """``seats`` (a person's) offer a rematch, or accept the open offer. Returns the new table
        once every person accepted (the same seats and tokens, the same options, a new deal; made
        once, in the database: asked again, by anyone, through any copy of the finished table or
        from another server process sharing the database, the same table), else None: the offer
        waits for the others (``current_offer``)."""
        if not table.over:
            raise NotNowError("a rematch comes after the game: this one is still going")
        if self.check is not None and table.options.rematch is None:
            await self.check(table)
        async with self._lock:
            copies = self._copies(table)
            made = await self._made(copies)
            if made is not None:
                return made
            t = copies[0]
            mine = frozenset().union(*(g for g in people(t) if g & seats))
            open_offer = current_offer(t)
            offer: Dict[str, Any]
            if open_offer is None:
                offer = {"by": min(mine), "accepted": sorted(mine), "expires": time.time() + OFFER_SECONDS,
                         "rated": t.options.rated}
            else:
                offer = {**open_offer, "accepted": sorted(set(open_offer["accepted"]) | mine)}
            if set(offer["accepted"]) >= set(t.humans):
                return await self._make(copies, bool(offer["rated"]) and t.options.rated, client)
            if offer != open_offer:
                await self._set(copies, offer)
            if open_offer is None or t.id not in self._timers:  # it ends by itself after its time
                self._arm(t.id, float(offer["expires"]) - time.time())
            return None

    async def decline(self, table: Table, seats: FrozenSet[int]) -> Literal["declined", "withdrawn"]:
        """``seats`` end the open offer: "withdrawn" by its maker, "declined" by anyone else."""
        async with self._lock:
            copies = self._copies(table)
            offer = current_offer(copies[0])
            if offer is None:
                raise NotNowError("there is no rematch offer to answer at this table (none was made, or it ended)")
            how: Literal["declined", "withdrawn"] = "withdrawn" if offer["by"] in seats else "declined"
            await self._end(copies, how, min(seats))
            return how

    def left(self, table: Table, seats: FrozenSet[int]) -> None:
        """Every page of ``seats`` closed: unless one comes back within :data:`LEAVE_SECONDS` (a
        reload), the open offer ends ("left")."""
        if self._closed or current_offer(table) is None or not any(table.seats[p].kind == "human" for p in seats):
            return  # a server that stops closes every page: nobody left
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        loop.call_later(LEAVE_SECONDS, lambda: _spawn(self._left(table, seats)))

    async def _left(self, table: Table, seats: FrozenSet[int]) -> None:
        async with self._lock:
            copies = self._copies(table)  # a page back since (a reload) may be on a new copy in memory
            if self._closed or current_offer(copies[0]) is None or any(p in t.present for t in copies for p in seats):
                return
            await self._end(copies, "left", min(seats))

    def _arm(self, table_id: str, seconds: float) -> None:
        old = self._timers.pop(table_id, None)
        if old is not None:
            old.cancel()
        if self._closed:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timers[table_id] = loop.call_later(max(0.0, seconds), lambda: _spawn(self._expire(table_id)))

    async def _expire(self, table_id: str) -> None:
        self._timers.pop(table_id, None)
        try:
            table = await self.life.get_async(table_id)
        except TableError:
            return
        async with self._lock:
            copies = self._copies(table)
            offer = copies[0].options.rematch_offer
            if offer is None or copies[0].options.rematch is not None:
                return
            left = float(offer["expires"]) - time.time()
            if left > 0:  # the loop's clock ran ahead of the wall clock the offer is timed by
                self._arm(table_id, left + 0.05)
                return
            await self._end(copies, "expired", None)

    async def _made(self, copies: List[Table]) -> Optional[Table]:
        """The rematch already made for this table, if it still exists."""
        known = next((t.options.rematch for t in copies if t.options.rematch is not None), None)
        if known is None:
            return None
        try:
            return await self.life.get_async(known)
        except TableError:
            return None  # expired: a new offer makes a new one

    async def _make(self, copies: List[Table], rated: bool, client: Optional[str]) -> Table:
        table = copies[0]
        g = table.game
        options = replace(table.options, rematch=None, rematch_of=table.id, rated=rated, rematch_offer=None,
                          clock_state=None)
        new, _ = await self.life.create(g.players, g.teams, [], options, hints=table.options.hints,
                                        client=client, same_seats=table.seats)
        timer = self._timers.pop(table.id, None)
        if timer is not None:
            timer.cancel()
        for t in copies:
            if t.options.rematch != new.id:
                t.options = replace(t.options, rematch=new.id, rematch_offer=None)
                self._tell(t, {"type": "rematch", "table": new.id})
                self._broadcast(t)
        return new

    async def _set(self, copies: List[Table], offer: Optional[Dict[str, Any]]) -> None:
        """Store ``offer`` as the table's (None: no offer), then tell everyone."""
        if self._save is not None:
            await self._save(copies[0].id, offer)
        for t in copies:
            t.options = replace(t.options, rematch_offer=offer)
            self._tell(t, {"type": "rematch-offer", "offer": offer_view(t), "ended": None, "seat": None})
            self._broadcast(t)

    async def _end(self, copies: List[Table], how: str, seat: Optional[int]) -> None:
        if self._save is not None:
            await self._save(copies[0].id, None)
        timer = self._timers.pop(copies[0].id, None)
        if timer is not None:
            timer.cancel()
        for t in copies:
            t.options = replace(t.options, rematch_offer=None)
            self._tell(t, {"type": "rematch-offer", "offer": None, "ended": how, "seat": seat})
            self._broadcast(t)


def offer_view(table: Table) -> Optional[Dict[str, Any]]:
    """The open offer as everyone sees it (public: who offered, who accepted, who is still to
    answer, rated or not, the seconds left), or None."""
    offer = current_offer(table)
    if offer is None:
        return None
    accepted = [int(p) for p in offer["accepted"]]
    return {"by": int(offer["by"]), "accepted": accepted, "waiting": [p for p in table.humans if p not in accepted],
            "rated": bool(offer["rated"]), "expires_in": round(max(0.0, float(offer["expires"]) - time.time()), 1)}


_tasks: Set[asyncio.Task[None]] = set()  # running timer tasks, kept so they are not collected mid-way


def _spawn(coro: Awaitable[None]) -> None:
    async def run() -> None:
        try:
            await coro
        except Exception:  # a timer's end of an offer that failed (a full disk): the offer lapses by itself
            log.exception("a rematch offer could not be ended")

    task = asyncio.get_running_loop().create_task(run())
    _tasks.add(task)
    task.add_done_callback(_tasks.discard)
