"""Seeks: a player posts the game they want, another accepts it from the lobby, or quick pairing
matches two compatible seeks (docs/web.md, "Finding a game").

A seek is held in memory and, while it is open, in the server's database too (``social.py``): a
restart brings back every open seek that has not expired. Its poster holds a secret token: with it
the poster's page asks about the seek (``GET /api/seeks/{id}``, a long-poll), which keeps the seek
open; a seek whose poster has not asked for ``ServerLimits.seek_idle_seconds`` (the page was
closed) expires, and every seek expires ``seek_seconds`` after it was posted, the time the server
was down included. After a restart the idle time counts from the restart: the poster's page could
not ask while the server was down, and its next long-poll reaches the seek again. Accepting one creates the table with the poster at seat 0 and the accepter at
seat 1 (opponents: seat p plays for team p mod teams, R2); further seats of a larger table are open
seats that anyone joins from the lobby ("waiting for players" until they are taken). The poster's
seat link reaches the poster only, in the answer to its token.

A seek remembers its poster's account (signed in when it was posted) and that account's rating: the
table's seats record the accounts of poster and accepter, and a rating range admits accounts whose
rating lies in it, never a guest (docs/club.md, "Rated seeks").

Caps (docs/security.md): ``max_seeks`` open seeks on the server, ``max_seeks_per_client`` from one
address, and posting spends the address's creation quota like creating a table.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Protocol, Tuple

from .errors import BusyError, NeedsSeatError, NoSuchSeekError, NotAllowedError, NotNowError, ServerFullError
from .limits import ServerLimits
from .tables import token_hash

__all__ = ["Seek", "SeekBoard", "SeekKeeper"]

log = logging.getLogger("sequence_game.web")

KEEP_CLOSED = 300.0  # seconds a taken, cancelled or expired seek still answers its poster


@dataclass
class Seek:
    """One seek: the game wanted (``players``, ``teams``, ``rated``, the time control, the rating
    range), who posted it (``name``, ``client``: the address, for the caps), its token's hash."""

    id: str
    token_hash: str
    client: str
    players: int
    teams: int
    rated: bool
    turn_seconds: Optional[float]
    clock: Optional[Dict[str, Any]]
    rating_min: Optional[int]
    rating_max: Optional[int]
    name: str
    created: float = field(default_factory=time.monotonic)
    seen: float = field(default_factory=time.monotonic)  # the poster last asked about it
    status: str = "open"  # open, accepted, cancelled, expired
    closed: Optional[float] = None
    table: Optional[str] = None
    poster_token: Optional[str] = None  # the poster's seat token, once accepted (sent to the poster only)
    account: Optional[Tuple[str, str]] = None  # the poster's account (key, name); None: a guest
    rating: Optional[int] = None  # that account's displayed rating when the seek was posted
    provisional: Optional[bool] = None  # and whether it was provisional (docs/club.md)
    posted: float = field(default_factory=time.time)  # when, in seconds since the epoch (kept across restarts)

    def game(self) -> Tuple[Any, ...]:
        """What two seeks must agree on to be paired."""
        clock = None if self.clock is None else tuple(sorted(self.clock.items()))
        return (self.players, self.teams, self.rated, self.turn_seconds, clock)

    def admits(self, rating: Optional[float]) -> bool:
        """Whether a player of ``rating`` (None: a guest, who has none) falls in the seek's range. A
        seek without a range admits everyone; a range admits accounts whose rating is in it and no
        guest: a poster who asks for opponents of a strength cannot know a guest's."""
        return in_range(rating, self.rating_min, self.rating_max)


def in_range(rating: Optional[float], low: Optional[int], high: Optional[int]) -> bool:
    """Whether ``rating`` lies in ``low``..``high`` (None: no bound); no range admits every rating
    and None (a guest), a range admits no None."""
    if low is None and high is None:
        return True
    return rating is not None and (low is None or rating >= low) and (high is None or rating <= high)


class SeekKeeper(Protocol):
    """Where the open seeks are kept across restarts (``social.Social``)."""

    def seek_opened(self, row: Dict[str, Any]) -> None: ...

    def seek_closed(self, seek_id: str) -> None: ...


def seek_row(seek: Seek) -> Dict[str, Any]:
    """``seek`` as its row in the database (``social.py``): no token, only its hash."""
    return {"id": seek.id, "token_hash": seek.token_hash, "client": seek.client, "players": seek.players,
            "teams": seek.teams, "rated": int(seek.rated), "turn_seconds": seek.turn_seconds,
            "clock": None if seek.clock is None else json.dumps(seek.clock, sort_keys=True),
            "rating_min": seek.rating_min, "rating_max": seek.rating_max, "name": seek.name,
            "account": None if seek.account is None else seek.account[0],
            "account_name": None if seek.account is None else seek.account[1], "rating": seek.rating,
            "provisional": None if seek.provisional is None else int(seek.provisional), "created": seek.posted}


class SeekBoard:
    """The open seeks and their recent outcomes. ``version`` counts the changes of the open list;
    ``changed`` is set (and replaced) at each, for the lobby's long-polls. ``keeper``: where the
    open seeks are kept across restarts (None: in memory only)."""

    def __init__(self, limits: ServerLimits, keeper: Optional[SeekKeeper] = None) -> None:
        self.limits = limits
        self.keeper = keeper
        self.seeks: Dict[str, Seek] = {}
        self.version = 0
        self.changed = asyncio.Event()
        self.lock = asyncio.Lock()  # one acceptance at a time: a seek is taken once

    def _bump(self) -> None:
        self.version += 1
        event, self.changed = self.changed, asyncio.Event()
        event.set()

    def _close(self, seek: Seek, status: str, now: float) -> None:
        seek.status, seek.closed = status, now
        self._forget(seek)
        self._bump()

    def _keep(self, seek: Seek) -> None:
        if self.keeper is not None:
            self.keeper.seek_opened(seek_row(seek))

    def _forget(self, seek: Seek) -> None:
        if self.keeper is not None:
            self.keeper.seek_closed(seek.id)

    def restore(self, rows: List[Dict[str, Any]], now: Optional[float] = None, accounts: bool = True) -> int:
        """Open again the seeks kept before a restart (``rows``: ``social.SocialStore.seeks``,
        oldest first); those past ``seek_seconds`` since they were posted (``now``: seconds since
        the epoch), rows that do not read back and, on a server restarted without accounts
        (``accounts`` False), rated and ranged seeks (nobody could take them) are deleted instead.
        Each restored seek's idle time starts now: its poster's page could not ask while the
        server was down. Returns how many came back."""
        now = time.time() if now is None else now
        mono = time.monotonic()
        back = 0
        for row in rows:
            try:
                age = max(0.0, now - float(row["created"]))
                clock = None if row["clock"] is None else json.loads(row["clock"])
                if clock is not None and not isinstance(clock, dict):
                    raise ValueError("the clock is not an object")
                account = None if row["account"] is None else (str(row["account"]), str(row["account_name"]))
                seek = Seek(str(row["id"]), str(row["token_hash"]), str(row["client"]), int(row["players"]),
                            int(row["teams"]), bool(row["rated"]),
                            None if row["turn_seconds"] is None else float(row["turn_seconds"]), clock,
                            None if row["rating_min"] is None else int(row["rating_min"]),
                            None if row["rating_max"] is None else int(row["rating_max"]), str(row["name"]),
                            created=mono - age, seen=mono, account=account,
                            rating=None if row["rating"] is None else int(row["rating"]),
                            provisional=None if row["provisional"] is None else bool(row["provisional"]),
                            posted=float(row["created"]))
            except (KeyError, TypeError, ValueError) as e:
                log.error("seek %r could not be read back (%s): deleted", row.get("id"), e)
                if self.keeper is not None and isinstance(row.get("id"), str):
                    self.keeper.seek_closed(row["id"])
                continue
            needs_accounts = seek.rated or seek.rating_min is not None or seek.rating_max is not None
            if (age > self.limits.seek_seconds or back >= self.limits.max_seeks or seek.id in self.seeks
                    or (needs_accounts and not accounts)):
                self._forget(seek)  # expired while the server was down (or over the cap, or for accounts)
                continue
            self.seeks[seek.id] = seek
            back += 1
        if back:
            self._bump()
        return back

    def expire(self, now: Optional[float] = None) -> None:
        """Close the seeks past their time or whose poster went away; forget old closed ones."""
        now = time.monotonic() if now is None else now
        for seek in list(self.seeks.values()):
            if seek.status == "open" and (now - seek.created > self.limits.seek_seconds
                                          or now - seek.seen > self.limits.seek_idle_seconds):
                self._close(seek, "expired", now)
            elif seek.status != "open" and seek.closed is not None and now - seek.closed > KEEP_CLOSED:
                del self.seeks[seek.id]

    def open_seeks(self) -> List[Seek]:
        self.expire()
        return sorted((s for s in self.seeks.values() if s.status == "open"), key=lambda s: s.created)

    def post(self, client: str, players: int, teams: int, rated: bool, turn_seconds: Optional[float],
             clock: Optional[Dict[str, Any]], rating_min: Optional[int], rating_max: Optional[int],
             name: str, account: Optional[Tuple[str, str]] = None, rating: Optional[int] = None,
             provisional: Optional[bool] = None) -> Tuple[Seek, str]:
        """A new open seek and its poster's token (the only time it is sent). ``account``: the
        poster's (key, name) when signed in, with its ``rating``."""
        self.expire()
        open_now = [s for s in self.seeks.values() if s.status == "open"]
        if len(open_now) >= self.limits.max_seeks:
            raise ServerFullError(f"the server already has {self.limits.max_seeks} open seeks; try again later")
        mine = sum(1 for s in open_now if s.client == client)
        if mine >= self.limits.max_seeks_per_client:
            raise BusyError(f"your address already has {mine} open seeks, the most one client may have: cancel one "
                            "or wait until one is taken")
        if len(self.seeks) >= 4 * self.limits.max_seeks:  # closed ones kept for their posters: bounded too
            for s in sorted((s for s in self.seeks.values() if s.status != "open"), key=lambda s: s.closed or 0.0):
                del self.seeks[s.id]
                if len(self.seeks) < 2 * self.limits.max_seeks:
                    break
        token = secrets.token_urlsafe(24)
        seek = Seek(secrets.token_urlsafe(6), token_hash(token), client, players, teams, rated, turn_seconds, clock,
                    rating_min, rating_max, name, account=account, rating=rating,
                    provisional=provisional)
        self.seeks[seek.id] = seek
        self._keep(seek)
        self._bump()
        return seek, token

    def get(self, seek_id: str) -> Seek:
        self.expire()
        seek = self.seeks.get(seek_id) if isinstance(seek_id, str) else None
        if seek is None:
            raise NoSuchSeekError(f"no seek {seek_id[:64]!r} (a seek is kept for a while after it closes: "
                                   "post a new one)")
        return seek

    def owned(self, seek_id: str, token: Optional[str]) -> Seek:
        """The seek ``seek_id`` if ``token`` is its poster's (401 without one, 403 for another);
        asking keeps it open."""
        seek = self.get(seek_id)
        if not token:
            raise NeedsSeatError("this needs the seek's token (from POST /api/seeks) as 'Authorization: Bearer <token>'")
        if len(token) > 128 or not secrets.compare_digest(seek.token_hash, token_hash(token)):
            raise NotAllowedError("this needs the seek's own token (from POST /api/seeks) as "
                                  "'Authorization: Bearer <token>'")
        seek.seen = time.monotonic()
        return seek

    def cancel(self, seek: Seek) -> None:
        if seek.status == "open":
            self._close(seek, "cancelled", time.monotonic())

    def take(self, seek: Seek) -> None:
        """Mark ``seek`` as being accepted (call with :attr:`lock` held); 409 if it is not open."""
        self.expire()
        if seek.status != "open":
            raise NotNowError(f"seek {seek.id} is {seek.status}: it can no longer be accepted")
        # nobody is woken yet: the poster's long-poll wakes with its seat (:meth:`made`)
        seek.status, seek.closed = "accepted", time.monotonic()
        self._forget(seek)

    def made(self, seek: Seek, table: str, poster_token: str) -> None:
        """The table of an accepted seek exists: its poster's long-poll answers with the seat."""
        seek.table, seek.poster_token = table, poster_token
        self._bump()

    def reopen(self, seek: Seek) -> None:
        """The table of an acceptance could not be made: the seek is open again."""
        seek.status, seek.closed = "open", None
        self._keep(seek)
        self._bump()

    def match(self, want: Tuple[Any, ...], rating: Optional[float], exclude: Optional[str],
              account: Optional[str] = None, rating_range: Tuple[Optional[int], Optional[int]] = (None, None)
              ) -> Optional[Seek]:
        """The oldest open seek for the same game as ``want`` (``Seek.game``) whose range admits
        ``rating`` and whose poster's rating ``rating_range`` (the asker's own range) admits;
        ``exclude``: a seek token of the asker's own, ``account``: the asker's account key (never
        paired with its own seek)."""
        mine = None if exclude is None else token_hash(exclude)
        for seek in self.open_seeks():
            if (seek.game() == want and seek.admits(rating) and in_range(seek.rating, *rating_range)
                    and seek.token_hash != mine and (account is None or seek.account is None
                                                     or seek.account[0] != account)):
                return seek
        return None
