"""A table's life: created (or resumed after a restart), looked up, listed, expired when nobody
plays it, and forgotten from memory once finished and unwatched (its row serves it then)."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple

from ...game_setup import check_players_teams
from ...gamebase import GameClass
from ...records import GameRecord, utc_now
from ...seeds import fresh_seed
from .. import models
from ..errors import (
    BusyError,
    InvalidRequestError,
    NoSuchTableError,
    NotSavedError,
    ServerFullError,
    TableExpiredError,
)
from ..limits import ServerLimits
from ..presets import AI_PRESETS, seat_spec
from ..store import StoreError, TableRow, TableStore
from .changes import record_for
from .clockstate import check_clock
from .table import MAX_TURN_SECONDS, MIN_TURN_SECONDS, Seat, Table, TableOptions, epoch, token_hash
from .views import stored_summary, summary

__all__ = ["Lifecycle"]

log = logging.getLogger("sequence_game.web")
Db = Callable[..., Awaitable[Any]]


class Lifecycle:
    """``tables``: the live tables (shared with the other parts); ``db``: a store call off the event
    loop; ``schedule(table)``: start what a new table waits for; ``forget(table)``: drop what the
    AI keeps for a table that leaves memory."""

    def __init__(self, store: TableStore, limits: ServerLimits, tables: Dict[str, Table], game_class: GameClass,
                 db: Db, schedule: Callable[[Table], None], forget: Callable[[Table], None]) -> None:
        self.store, self.limits, self.tables, self.game_class, self.db = store, limits, tables, game_class, db
        self._schedule, self._forget = schedule, forget
        self._creating = 0  # creations being written (they count toward the cap)

    # ------------------------------------------------------------------ creating

    def playing(self) -> int:
        """How many live tables hold the cap (``limits.max_tables``): the unfinished ones and the
        creations being written."""
        return sum(not t.over for t in self.tables.values()) + self._creating

    async def create(self, players: int, teams: Optional[int], seats: List[Dict[str, Any]], options: TableOptions,
                     hints: Optional[bool] = None, seed: Optional[int] = None, max_turns: Optional[int] = None,
                     moves: Optional[List[str]] = None, client: Optional[str] = None,
                     same_seats: Optional[List[Seat]] = None,
                     account: Optional[Tuple[str, str]] = None) -> Tuple[Table, Dict[int, str]]:
        """A new table; see ``TableService.create``. ``options``: checked here; ``hints`` None: the
        default for the seats (at most one human). ``same_seats``: a rematch's seats (the same
        people, the same tokens: none is returned); with ``options.rematch_of`` the rematch is made
        once in the database (``TableStore.save_rematch``): if that table has one already, it is
        returned instead of this new one. ``account``: the creator's (key, name) when signed in: it
        takes the first human seat that is not open (web/club)."""
        cap = self.limits.max_tables
        if self.playing() >= cap:
            self.evict_finished()
            raise ServerFullError(f"the server already runs {cap} tables; try again later")
        if client is not None:
            mine = sum(1 for t in self.tables.values() if t.client == client and not t.over)
            if mine >= self.limits.max_tables_per_client:
                raise BusyError(f"your address already has {mine} unfinished tables, the most one client may "
                                "have: finish or leave one first")
        players, teams = check_players_teams(players, teams)
        if same_seats is None and len(seats) != players:
            raise InvalidRequestError(f"{players} players need {players} seats, got {len(seats)}")
        most = self.limits.max_ai_seconds
        if not 0.05 <= options.ai_seconds <= most:
            raise InvalidRequestError(f"ai_seconds must be from 0.05 to {most}, not {options.ai_seconds}")
        turn_seconds = options.turn_seconds
        if turn_seconds is not None and not MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS:
            raise InvalidRequestError(f"turn_seconds must be from {MIN_TURN_SECONDS} to {MAX_TURN_SECONDS} "
                                      f"(or null: no timer), not {turn_seconds}")
        if options.clock is not None:
            if turn_seconds is not None:
                raise InvalidRequestError("a table has one time control: a turn timer (turn_seconds) or a game "
                                          "clock (clock), not both")
            options.clock = check_clock(options.clock, teams)
            options.clock_state = {"left": [options.clock["seconds"] if options.clock else 0.0] * players}
        if same_seats is None and (seed is not None or moves) and _shared(seats, options.hot_seat):
            # R9: whoever chooses the seed knows every hand and the draw pile; saved moves replay from
            # the creator's seed too. Where anyone but the creator may sit, the deal is the server's.
            what = "seed" if seed is not None else "moves"
            raise InvalidRequestError(
                f"{what}: a table where someone other than its creator may sit (an open seat, or two or more "
                "join links) is dealt by the server from fresh entropy, so no player can know the others' cards; "
                f"leave out {what}, or make the other seats AI or hot seat")
        start = self.game_class(players=players, teams=teams, seed=fresh_seed() if seed is None else seed,
                                max_turns=max_turns)
        assert start.seed is not None  # a dealt game knows its seed
        record = GameRecord(players=start.players, teams=start.teams, seed=start.seed, max_turns=start.max_turns,
                            moves=list(moves or []), started=utc_now())
        try:
            game, _, movers = record.rebuild(self.game_class)  # the saved moves, each checked by the rules
        except ValueError as e:
            raise InvalidRequestError(str(e)) from None
        built, tokens = (_built_seats(seats, options.hot_seat) if same_seats is None
                         else ([Seat(s.kind, s.ai, s.name, s.token_hash, s.open, s.account) for s in same_seats], {}))
        creators = next((s for s in built if s.kind == "human" and not s.open), None)
        if account is not None and same_seats is None and creators is not None:
            creators.account, creators.name = account
        record.agents = [s.kind if s.kind == "human" else seat_spec(s.ai, options.ai_seconds) for s in built]
        if hints is None:
            hints = sum(s.kind == "human" for s in built) <= 1
        options.hints = bool(hints) and not options.rated  # no engine help where ratings are at stake
        options.hot_seat = bool(options.hot_seat and (len(tokens) > 1 or same_seats is not None))
        table = Table(secrets.token_urlsafe(6), game, built, options, record, utc_now(), 0, movers, client=client)
        table.record = record_for(table, game)
        row = TableRow(table.id, table.record.to_dict(), [s.to_dict() for s in built], options.to_dict(),
                       table.created, 0, table.over)
        self._creating += 1
        try:
            if options.rematch_of is None:
                await self.db(self.store.save, row)
            else:
                made = await self.db(self.store.save_rematch, options.rematch_of, row)
                if made != table.id:  # another request (another copy, another process) made it first
                    return await self.get_async(made), {}
        except StoreError as e:
            log.error("table not created: %s", e)
            raise NotSavedError(f"the table could not be saved ({e}); nothing was created, try again later") from None
        finally:
            self._creating -= 1
        if not table.over:
            self.tables[table.id] = table
        self._schedule(table)
        return table, tokens

    # ------------------------------------------------------------------ lookup

    def from_row(self, row: TableRow) -> Table:
        record = GameRecord.from_dict(row.record)
        game, history, movers = record.rebuild(self.game_class)
        seats = [Seat(**s) for s in row.seats]
        table = Table(row.id, game, seats, TableOptions.from_dict(row.options), record, row.created, row.version,
                      movers)
        table.prefix = history[:len(history) - len(game.history)]
        return table

    def get(self, table_id: str) -> Table:
        """The table ``table_id``: a live one, or a stored one (finished, read-only), which this
        reads from the database: call it from a worker thread or through :meth:`get_async`."""
        table = self.tables.get(table_id)
        if table is None:
            row = self.store.get(table_id) if isinstance(table_id, str) and len(table_id) <= 64 else None
            if row is None:
                raise NoSuchTableError(f"no table {table_id!r}")
            if row.expired:
                raise TableExpiredError(f"table {table_id} expired: nobody played it for too long")
            try:
                table = self.from_row(row)  # a finished game: read-only
            except (ValueError, TypeError, KeyError) as e:
                self.store.quarantine(row.id, f"its record does not replay: {e}")
                raise NoSuchTableError(f"no table {table_id!r}") from None
        return table

    async def get_async(self, table_id: str) -> Table:
        """:meth:`get` with the database read in the database thread, off the event loop."""
        table = self.tables.get(table_id)
        return table if table is not None else await self.db(self.get, table_id)

    async def lobby(self, finished: Optional[bool] = None, limit: int = 200,
                    offset: int = 0) -> List[models.TableSummary]:
        """The table list, newest first, at most ``limit`` lines: the unfinished live tables (from
        memory) and one page of finished tables (read off the event loop, ``limit`` rows from the
        lobby index however many games are stored; ``offset`` pages through the finished ones).
        Expired tables are not listed."""
        out = [] if finished is True or offset else [summary(t) for t in list(self.tables.values()) if not t.over]
        if finished is not False:
            rows = await self.db(self.store.finished_rows, limit, offset)
            for row in rows:
                try:
                    out.append(stored_summary(row))
                except (ValueError, TypeError, KeyError, IndexError) as e:
                    await self.db(self.store.quarantine, row.id, f"its summary cannot be read: {e}")
        out.sort(key=lambda s: (s.created, s.table), reverse=True)
        return out[:limit]

    # ------------------------------------------------------------------ resume, sweep, expiry

    def resume(self) -> int:
        """Load the unfinished tables from the store (a server restart); returns how many.

        A table idle for longer than ``limits.idle_seconds`` (or abandoned: no human seat ever
        connected, joined or moved, idle for ``limits.abandoned_seconds``) is marked expired instead, so tables nobody
        plays do not hold the cap of live tables across restarts; beyond the cap, the most
        recently changed tables are resumed. A row that does not replay is set aside
        (``TableStore.quarantine``) and the server starts without it."""
        now = time.time()
        expired: List[str] = []
        for row in self.store.live_rows():
            try:
                idle = now - epoch(row.updated or row.created)
            except ValueError:
                self.store.quarantine(row.id, f"its time of last change {row.updated!r} is not ISO 8601")
                continue
            if idle > self.limits.idle_seconds or len(self.tables) >= self.limits.max_tables:
                expired.append(row.id)
                continue
            try:
                table = self.from_row(row)
            except (ValueError, TypeError, KeyError) as e:  # a record that no longer replays
                self.store.quarantine(row.id, f"its record does not replay: {e}")
                continue
            # used as before the restart: a human seat connected or joined (kept in the row) or moved
            table.used = row.used or any(table.seats[p].kind == "human" for p in table.movers)
            if idle > self.limits.abandoned_seconds and not table.used:
                expired.append(row.id)
                continue
            table.changed_at = time.monotonic() - max(0.0, idle)
            self.tables[row.id] = table
        if expired:
            log.info("%d unfinished table(s) expired (no move for too long, or never used)", len(expired))
            try:
                self.store.expire(expired)
            except StoreError as e:  # a full disk: they stay unloaded all the same
                log.error("could not mark expired tables: %s", e)
        return len(self.tables)

    async def sweep_forever(self) -> None:
        while True:
            await asyncio.sleep(min(60.0, self.limits.abandoned_seconds / 4))
            try:
                await self.sweep()
            except Exception:  # pragma: no cover - the sweep must go on whatever one round meets
                log.exception("the sweep of idle tables failed")

    async def sweep(self, now: Optional[float] = None) -> List[str]:
        """Expire the live tables nobody plays: idle (no change of the game) for
        ``limits.idle_seconds``, or abandoned (no human seat ever connected or moved; spectators
        do not count) for ``limits.abandoned_seconds``; forget the finished tables nobody watches.
        An expired table stays stored (never resumed or listed); its connections are told and closed.
        Returns the ids expired."""
        now = time.monotonic() if now is None else now
        gone = []
        for t in list(self.tables.values()):
            if t.over or t.lock.locked():
                continue
            idle = now - t.changed_at
            # spectators do not keep an unused table: a client could hold the cap with them
            if idle > self.limits.idle_seconds or (idle > self.limits.abandoned_seconds and not t.used):
                gone.append(t)
        closed = await self.close(gone, "this table expired: nobody played it for too long")
        self.evict_finished()
        return closed

    async def close(self, tables: List[Table], detail: str) -> List[str]:
        """End these unfinished live tables for good: marked expired in the store (kept, never
        resumed or listed again), out of memory, their connections told ``detail`` and closed.
        Returns the ids closed (none if the store refused the write: they stay live)."""
        gone = [t for t in tables if not t.over]
        if gone:
            try:
                await self.db(self.store.expire, [t.id for t in gone])
            except StoreError as e:
                log.error("could not mark expired tables (they stay live): %s", e)
                return []
        for t in gone:
            if self.tables.get(t.id) is t:
                del self.tables[t.id]
            if t.search is not None:
                t.search.cancel()
                t.search = None
            if t.clock is not None:  # its turn timer
                t.clock.cancel()
                t.clock = None
            for c in list(t.connections):
                c.send({"type": "error", "error": TableExpiredError.__name__, "detail": detail})
                try:
                    c.queue.put_nowait(None)  # closes the socket after the message above
                except asyncio.QueueFull:
                    c.close()
            self._forget(t)
        return [t.id for t in gone]

    def evict_finished(self) -> int:
        """Forget the finished tables nobody is watching (they stay in the store, where ``get``
        finds them); returns how many."""
        gone = [t for t in self.tables.values() if t.over and not t.connections and t.search is None]
        for t in gone:
            self.leave(t)
        return len(gone)

    def adopt(self, table: Table) -> Table:
        """The one copy in memory of ``table`` (a finished table read from its row is kept in memory
        while someone watches it), so every connection and request about it shares it: a rematch
        reaches every socket of the game."""
        live = self.tables.get(table.id)
        if live is not None or not table.over:  # an unfinished table is in memory only as a live one
            return table if live is None else live
        self.tables[table.id] = table
        return table

    def leave(self, table: Table) -> None:
        """``table`` leaves memory (if it is the live copy)."""
        if self.tables.get(table.id) is table:
            del self.tables[table.id]
            self._forget(table)


def _built_seats(seats: List[Dict[str, Any]], hot_seat: bool) -> Tuple[List[Seat], Dict[int, str]]:
    """The seats of a new table from their specs, and the token of each human seat (hot seat: one for all)."""
    built: List[Seat] = []
    tokens: Dict[int, str] = {}
    shared = secrets.token_urlsafe(24) if hot_seat else None
    for p, s in enumerate(seats):
        kind = s.get("kind")
        if kind == "human" and s.get("open"):
            if hot_seat:
                raise InvalidRequestError(f"seats[{p}]: a hot-seat table has no open seats (everyone is at one screen)")
            built.append(Seat("human", None, "", None, open=True))
        elif kind == "human":
            token = shared or secrets.token_urlsafe(24)
            tokens[p] = token
            account = s.get("account")  # (key, name) set by the server (a seek's accounts), never by a body
            built.append(Seat("human", None, account[1], token_hash(token), account=account[0]) if account
                         else Seat("human", None, s.get("name") or f"Player {p + 1}", token_hash(token)))
        elif kind == "ai":
            preset = s.get("ai") or "medium"
            if preset not in AI_PRESETS:
                raise InvalidRequestError(
                    f"seats[{p}]: unknown AI preset {preset!r}; choose one of {', '.join(AI_PRESETS)}")
            built.append(Seat("ai", preset, s.get("name") or f"AI {p + 1} ({preset})"))
        else:
            raise InvalidRequestError(f"seats[{p}]: kind must be 'human' or 'ai', not {kind!r}")
    return built, tokens


def _shared(seats: List[Dict[str, Any]], hot_seat: bool) -> bool:
    """Whether someone other than the creator may hold a seat: an open seat, or two or more human
    seats with links of their own (a hot-seat table has one link: everyone at the creator's screen)."""
    humans = [s for s in seats if s.get("kind") == "human"]
    return any(s.get("open") for s in humans) or (not hot_seat and len(humans) >= 2)
