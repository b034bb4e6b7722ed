"""The tournaments of a running server (docs/club.md, "Tournaments"): the scheduler that starts
them, pairs their rounds and arena games, makes each game's table through the table service, calls
no-shows, hears each game's end and closes the tournament.

Every change of a tournament happens under one lock and is stored before the lock is let go
(``store.py``), so what a page reads and what the file holds agree, and a restart of ``serve``
finds every tournament where it was: a round in progress goes on at its tables (the tables come
back with the server, ``tables/lifecycle.py``), and a game that ended while the server was down
is read from its table when the tournament comes back.

A game's table has the tournament's clock and the two entrants' accounts at its seats (a team's two
accounts at its team's seats, R2; who moves first is the cut's, R4), rated if the tournament is: the club rates
it like any rated game (``club/__init__.py``). Seat tokens stay in memory: a player gets its own
from ``seat`` (signed in as the account of the seat); after a restart the seat is given a new one.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import threading
import time
from dataclasses import dataclass, fields
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

from ...records import utc_now
from ...tournaments import berserk_clock
from ..club import ratings
from ..club.accounts import Account
from ..errors import InvalidRequestError, NotAllowedError, NotFoundError, ServerFullError, TableError
from ..limits import parse_settings
from ..store import StoreError
from ..tables import Seat, Table, TableService, check_clock, token_hash
from .model import MAX_NAME, Entrant, TGame, Tournament, check_settings
from .store import TournamentStore

__all__ = ["TournamentService", "TournamentSettings"]

_R = TypeVar("_R")

log = logging.getLogger("sequence_game.web")


@dataclass(frozen=True)
class TournamentSettings:
    """What the operator may change about tournaments (``create_app(tournaments=...)``,
    ``serve --limit``; docs/security.md)."""

    #: a player who has not made its first move this long after its first turn began loses the game
    grace_seconds: float = 120.0
    #: the shortest arena, in minutes (tests run shorter ones)
    min_arena_minutes: float = 10.0
    #: seconds between the end of a Swiss round and the pairing of the next
    round_pause_seconds: float = 10.0
    #: how often the scheduler looks at the clock, in seconds
    tick_seconds: float = 1.0
    #: tournaments announced or running at once on the server, and per creating account
    max_open: int = 50
    max_open_per_account: int = 3
    #: entrants of one tournament
    max_entrants: int = 200

    SETTABLE = ("grace_seconds", "min_arena_minutes", "round_pause_seconds", "max_open", "max_open_per_account",
                "max_entrants")

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(f.default, int):
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise ValueError(f"TournamentSettings.{f.name} must be an integer of at least 1, not {value!r}")
            elif isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    value > 0 and math.isfinite(value)):
                raise ValueError(f"TournamentSettings.{f.name} must be a positive finite number, not {value!r}")

    def with_settings(self, settings: Sequence[str], also: Sequence[str] = ()) -> TournamentSettings:
        changed: TournamentSettings = parse_settings(self, settings, self.SETTABLE, also)
        return changed


def _display(account: Account) -> float:
    return float(ratings.display(account.mu))


class TournamentService:
    """The tournaments of the server over the SQLite file at ``path``, playing at ``tables``'
    tables. ``accounts(key)``: the account of a key (None: gone)."""

    def __init__(self, path: Any, tables: TableService, accounts: Callable[[str], Optional[Account]],
                 settings: Optional[TournamentSettings] = None) -> None:
        self.settings = settings or TournamentSettings()
        self.store = TournamentStore(path)
        self.tables = tables
        self.accounts = accounts
        self.lock = threading.Lock()
        self.live: Dict[str, Tournament] = {}
        for tid in self.store.ids(("upcoming", "running")):
            row = self.store.load(tid)
            if row is not None:
                self.live[tid] = Tournament.from_rows(row)
        self.tokens: Dict[Tuple[str, int], str] = {}  # (table id, seat) -> its token (memory only)
        self.version = 0
        self.changed: Optional[asyncio.Event] = None
        self._tasks: Dict[asyncio.AbstractEventLoop, asyncio.Task[None]] = {}
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._next_round: Dict[str, float] = {}  # a Swiss -> when its next round is paired

    # ------------------------------------------------------------------ the lifecycle

    def start(self) -> None:
        """Start the scheduler (inside the event loop; an app served by two loops in turn, as
        tests do, runs one scheduler on each)."""
        loop = asyncio.get_running_loop()
        self._loop = loop
        self.changed = asyncio.Event()
        if loop not in self._tasks:
            self._tasks[loop] = loop.create_task(self._run(self.changed))

    async def stop(self) -> None:
        """Stop this loop's scheduler."""
        task = self._tasks.pop(asyncio.get_running_loop(), None)
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass

    def close(self) -> None:
        """Close the file (after the table service closed: its last games' ends are filed first)."""
        self.store.close()

    def _bump(self) -> None:
        self.version += 1
        loop, event = self._loop, self.changed
        if loop is not None and event is not None:
            try:
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:  # the loop closed: nobody waits any more
                pass

    def _save(self, t: Tournament, entrants: Sequence[Any] = (), games: Sequence[TGame] = ()) -> None:
        """Store ``t`` and the rows given (call with the lock held): a refused write is a 503, and
        ``t`` is read back from the file as it was before the change."""
        try:
            self.store.save(t.row(), [e.row() for e in entrants], [g.row() for g in games])
        except StoreError as e:
            try:
                row = self.store.load(t.id)
            except StoreError:
                row = None
            if row is not None:
                t.__dict__.update(Tournament.from_rows(row).__dict__)
            raise ServerFullError(f"the server could not save the tournament ({e}); try again later") from None
        self._bump()

    async def _run(self, changed: asyncio.Event) -> None:
        while True:
            try:
                await self.tick()
            except asyncio.CancelledError:
                raise
            except Exception:  # the scheduler goes on: one bad tick must not stop every tournament
                log.exception("the tournament scheduler failed a tick")
            changed.clear()
            try:
                await asyncio.wait_for(changed.wait(), self.settings.tick_seconds)
            except asyncio.TimeoutError:
                pass

    async def run(self, call: Callable[..., _R], *args: Any) -> _R:
        """``call(*args)`` (a method of this service that takes the lock) in the database thread."""
        return await self.tables.db(call, *args)

    async def _locked(self, call: Callable[..., Any], *args: Any) -> Any:
        """``call(*args)`` with the lock held, in the table service's database thread."""
        def run() -> Any:
            with self.lock:
                return call(*args)
        return await self.tables.db(run)

    # ------------------------------------------------------------------ what players do

    def get(self, tournament_id: str) -> Tournament:
        t = self.live.get(tournament_id)
        if t is None:
            row = self.store.load(tournament_id) if len(tournament_id) <= 64 else None
            if row is None:
                raise NotFoundError(f"no tournament {tournament_id!r}: it never existed (see GET /api/tournaments)")
            t = Tournament.from_rows(row)
        return t

    def create(self, account: Account, kind: str, name: str, starts: float, rounds: Optional[int],
               minutes: Optional[float], clock: Dict[str, Any], rated: bool, team_size: int,
               berserk: bool = True, now: Optional[float] = None) -> Tournament:
        """A new tournament announced by ``account`` (blocks: call through the database thread)."""
        now = time.time() if now is None else now
        check_settings(kind, rounds, minutes, team_size)
        if kind == "arena" and minutes is not None and minutes < self.settings.min_arena_minutes:
            raise InvalidRequestError(f"an arena on this server lasts at least {self.settings.min_arena_minutes:g} "
                                      f"minutes, not {minutes!r}")
        name = name.strip()
        if not 1 <= len(name) <= MAX_NAME or not name.isprintable():
            raise InvalidRequestError(f"a tournament's name is 1 to {MAX_NAME} printable characters")
        if not math.isfinite(starts) or not now - 60 <= starts <= now + 30 * 86400:
            raise InvalidRequestError("starts must be a time from now to 30 days ahead (seconds since the epoch)")
        clock = check_clock(dict(clock, kind="fischer", at_zero="lose"), 2) or {}
        with self.lock:
            open_ = [t for t in self.live.values() if t.status != "finished"]
            if len(open_) >= self.settings.max_open:
                raise ServerFullError(f"the server already has {len(open_)} tournaments announced or running")
            mine = sum(1 for t in open_ if t.creator == account.key)
            if mine >= self.settings.max_open_per_account:
                raise NotAllowedError(f"you already have {mine} tournaments announced or running, the most one "
                                      "account may have")
            settings = {"rounds": rounds if kind == "swiss" else None, "minutes": minutes if kind == "arena" else None,
                        "clock": clock, "rated": bool(rated), "team_size": team_size,
                        "berserk": bool(berserk) and kind == "arena", "creator_name": account.name}
            t = Tournament(secrets.token_urlsafe(6), kind, name, account.key, settings, float(starts), now)
            self._save(t)
            self.live[t.id] = t
        return t

    def join(self, tournament_id: str, account: Account, partner: Optional[str] = None) -> Tournament:
        with self.lock:
            t = self.get(tournament_id)
            if len([e for e in t.entrants.values() if e.state in ("in", "pending")]) >= self.settings.max_entrants:
                raise ServerFullError(f"the tournament has {self.settings.max_entrants} entrants, its most")
            mate = None
            if partner is not None:
                other = self.accounts(partner)
                if other is None or other.disabled:
                    raise NotFoundError(f"no account {partner!r} to team with")
                mate = (other.key, other.name, _display(other))
            changed = t.join(account.key, account.name, _display(account), time.time(), mate)
            self._save(t, changed)
        return t

    def start_now(self, tournament_id: str, account: Account, now: Optional[float] = None) -> Tournament:
        """Its creator starts the announced tournament now (``Tournament.start_early``): a Swiss's
        first round, or an arena's games, are paired at the scheduler's next tick, at once."""
        now = time.time() if now is None else now
        with self.lock:
            t = self.get(tournament_id)
            t.start_early(account.key, now)
            self._start(t, now)
        return t

    def withdraw(self, tournament_id: str, account: Account) -> Tournament:
        with self.lock:
            t = self.get(tournament_id)
            if t.status == "finished":
                raise NotAllowedError("the tournament is over")
            self._save(t, [t.withdraw(account.key)])
        return t

    def pause(self, tournament_id: str, account: Account, paused: bool) -> Tournament:
        with self.lock:
            t = self.get(tournament_id)
            self._save(t, [t.set_paused(account.key, paused)])
        return t

    async def _find(self, tournament_id: str) -> Tournament:
        """:meth:`get`, a finished tournament read in the database thread, off the event loop."""
        live = self.live.get(tournament_id)
        return live if live is not None else await self.run(self.get, tournament_id)

    async def berserk(self, tournament_id: str, account: Account) -> None:
        """The account's entrant goes berserk in its arena game, before its first move: its seats'
        time is halved (never more than they have left) and they gain no increment
        (``berserk_clock``; the clock state's ``no_increment``, kept across a restart)."""
        t = await self._find(tournament_id)
        e = t.entrant_of(account.key)
        game = next((g for g in t.games if g.playing and e is not None and e.id in (g.first, g.second)), None)
        table = None if game is None or game.table_id is None else self.tables.tables.get(game.table_id)
        if e is None or game is None or table is None or table.options.clock is None:
            raise NotAllowedError("you have no game in this arena now")
        side = 0 if game.first == e.id else 1
        seats = [p for p in range(len(table.seats)) if p % 2 == side]
        clock = table.options.clock
        seconds, increment = berserk_clock(float(clock["seconds"]), float(clock["increment"]))
        async with table.lock:  # no move in between: the first-move check and the new clock agree
            if any(p in table.movers for p in seats):
                raise NotAllowedError("berserk is chosen before your first move")
            await self._locked(lambda: self._save(t, games=[t.go_berserk(account.key)[0]]))
            state = dict(table.options.clock_state or {})
            left = list(state.get("left") or [float(clock["seconds"])] * len(table.seats))
            running = table.clock_running
            for p in seats:
                spent = time.monotonic() - running[1] if running is not None and running[0] == p else 0.0
                left[p] = max(0.0, min(seconds, left[p] - spent))
            state["left"] = left
            if increment != float(clock["increment"]):
                state["no_increment"] = sorted(set(state.get("no_increment") or ()) | set(seats))
            table.options.clock_state = state
            await self.tables.db(self.tables.store.set_clock, table.id, state)
            p = table.game.current_player
            if p in seats and table.clock is not None:  # its turn runs: from now, on the time left
                table.clock.cancel()
                table.clock, table.clock_running = None, None
                self.tables.start_clock(table, p)
        self.tables.broadcast(table)

    async def seat(self, tournament_id: str, account: Account) -> Optional[Tuple[str, int, str]]:
        """The account's seat in its game being played: (table id, seat, token), or None."""
        t = await self._find(tournament_id)
        e = t.entrant_of(account.key)
        game = next((g for g in t.games if g.playing and e is not None and e.id in (g.first, g.second)), None)
        if game is None or game.table_id is None:
            return None
        table = await self.tables.get_async(game.table_id)
        seat = next((p for p, s in enumerate(table.seats) if s.account == account.key), None)
        if seat is None:
            return None
        token = self.tokens.get((table.id, seat))
        if token is None:  # the server restarted: the seat gets a new token, given to its account only
            token = secrets.token_urlsafe(24)
            async with table.lock:
                old = table.seats[seat]
                new = list(table.seats)
                new[seat] = Seat(old.kind, old.ai, old.name, token_hash(token), old.open, old.account)
                await self.tables.db(self.tables.store.set_seats, table.id, [s.to_dict() for s in new], utc_now())
                table.seats = new
            self.tokens[(table.id, seat)] = token
        return table.id, seat, token

    # ------------------------------------------------------------------ the end of a game

    def game_over(self, table: Table) -> None:
        """The table service's hook (in its database thread): a tournament game ended."""
        with self.lock:
            for t in self.live.values():
                g = t.game_of_table(table.id)
                if g is None or g.result is not None:
                    continue
                self._record(t, g, table)
                return

    def _record(self, t: Tournament, g: TGame, table: Table) -> None:
        if table.record.ending == "aborted":
            # a tournament's table refuses Abort (tables/opening.py), but one stored by an older
            # server, which knew no such rule, reads back abortable: its game scores nothing
            t.abort(g, time.time())
            self._save(t, games=[g])
        else:
            result = table.record.result if isinstance(table.record.result, dict) else {}
            winner = result.get("winner")
            first_score = 1.0 if winner == 0 else 0.0 if winner == 1 else 0.5
            turns = [sum(1 for p in table.movers if p % 2 == side) for side in (0, 1)]
            # a no-show's forfeit: the seat called (stored on the game's row, so a restart between
            # the call and this record keeps it) is the one that resigned, without a move of its own
            forfeit = g.no_show is not None and table.record.resigned == g.no_show and g.no_show not in table.movers
            changed = t.result(g, first_score, time.time(), (turns[0], turns[1]), forfeit)
            self._save(t, changed, [g])
        for key in [k for k in self.tokens if k[0] == table.id]:
            del self.tokens[key]

    # ------------------------------------------------------------------ the scheduler

    async def tick(self, now: Optional[float] = None) -> None:
        """Start what is due, pair what waits, call no-shows, close what is over."""
        now = time.time() if now is None else now
        for t in list(self.live.values()):
            if t.status == "upcoming" and t.starts <= now:
                await self._locked(self._start, t, now)
            if t.status != "running":
                continue
            await self._locked(self._catch_up, t)
            await self._no_shows(t)
            made = await self._locked(self._pair, t, now)
            for g in made + [g for g in t.games if g.playing and g.table_id is None and g not in made]:
                await self._open_table(t, g)
            if t.status == "finished":
                self.live.pop(t.id, None)

    def _start(self, t: Tournament, now: float) -> None:
        if t.kind == "swiss" and len(t.active()) < 2:
            self._save(t, t.close(now))  # nobody to pair: it ends (an arena takes entries while it runs)
            return
        t.status = "running"
        if t.kind == "arena":
            t.ends = now + float(t.settings["minutes"]) * 60.0
        self._save(t)

    def _catch_up(self, t: Tournament) -> None:
        """A game whose table ended while the server was down (or whose hook failed): its result."""
        for g in t.games:
            if g.playing and g.table_id is not None:
                try:
                    table = self.tables.get(g.table_id)  # live, or read back finished from its row
                except TableError:
                    continue
                if table.over:
                    self._record(t, g, table)

    def _pair(self, t: Tournament, now: float) -> List[TGame]:
        """The new games of ``t`` now (with the lock held), stored; closes a tournament that is over."""
        if t.kind == "arena":
            assert t.ends is not None
            if now >= t.ends:
                if not any(g.playing for g in t.games):
                    self._save(t, t.close(now))
                return []
            free = t.free()
            if len(free) >= 2:
                self._drop_disabled(t, free)
            made = t.arena_next(now)
        else:
            if not t.round_over():
                return []
            if t.round > 0:
                due = self._next_round.setdefault(t.id, now + self.settings.round_pause_seconds)
                if now < due and t.round < int(t.settings["rounds"]):
                    return []
            self._next_round.pop(t.id, None)
            if t.round < int(t.settings["rounds"]):
                self._drop_disabled(t, t.active())
            if t.round >= int(t.settings["rounds"]) or len(t.active()) < 2:
                self._save(t, t.close(now))
                return []
            try:
                made = t.next_round(now)
            except ValueError:  # everyone left has met everyone: the Swiss ends early
                self._save(t, t.close(now))
                return []
        if made:
            self._save(t, games=made)
        return made

    def _drop_disabled(self, t: Tournament, entrants: Sequence[Entrant]) -> None:
        """Withdraw, before they are paired, the ``entrants`` with an account the operator disabled
        (or that is gone): no game starts with such an account (``club/standing.py``). Their results
        stand. Read from the file: the operator's command is another process."""
        gone = [e for e in entrants if any((a := self.accounts(k)) is None or a.disabled for k in e.accounts)]
        for e in gone:
            e.state = "withdrawn"
        if gone:
            self._save(t, gone)

    async def _open_table(self, t: Tournament, g: TGame) -> None:
        """The table of a new game: its entrants' accounts at their seats, the tournament's clock."""
        if g.second is None:
            return
        first, second = t.entrants[g.first], t.entrants[g.second]
        size = t.team_size
        players = 2 * size
        seats: List[Dict[str, Any]] = []
        for p in range(players):
            e = first if p % 2 == 0 else second
            k = p // 2
            seats.append({"kind": "human", "name": e.names[k], "account": (e.accounts[k], e.names[k])})
        try:
            # no Abort and no first move's grace: a player that does not come loses (_no_shows)
            table, tokens = await self.tables.create(players, 2, seats, clock=dict(t.settings["clock"]),
                                                     rated=t.rated, hints=False, abortable=False)
        except TableError as e:  # the server is full: tried again at the next tick
            log.warning("tournament %s: a game's table could not be made yet: %s", t.id, e)
            return
        for seat, token in tokens.items():
            self.tokens[(table.id, seat)] = token

        def attach() -> None:
            g.table_id = table.id
            self._save(t, games=[g])
        await self._locked(attach)

    async def _no_shows(self, t: Tournament) -> None:
        """A seat that has not made its first move ``grace_seconds`` into its turn loses the game.
        The call is stored on the game's row before the table resigns the seat, so the game is
        scored as a forfeit (and counts as the entrant's no-show: paused, or withdrawn) even if the
        server stops before the tournament hears of the table's end (``_catch_up`` reads it then)."""
        grace = self.settings.grace_seconds
        for g in list(t.games):
            if not g.playing or g.table_id is None:
                continue
            table = self.tables.tables.get(g.table_id)
            if table is None or table.over:
                continue
            p = table.game.current_player
            if p in table.movers or time.monotonic() - table.changed_at < grace:
                continue
            await self._locked(self._call_no_show, t, g, p)
            try:
                # only while the seat still has no move: it may have moved since the look above
                await self.tables.resign(table, frozenset({p}), unmoved=True)
            except TableError as e:  # it moved (or the game ended) meanwhile
                await self._locked(self._call_no_show, t, g, None)
                log.info("tournament %s: no-show at %s not called: %s", t.id, table.id, e)

    def _call_no_show(self, t: Tournament, g: TGame, seat: Optional[int]) -> None:
        """Store ``seat`` as ``g``'s no-show (None: the call is withdrawn; call with the lock held)."""
        if g.no_show != seat:
            g.no_show = seat
            self._save(t, games=[g])

    # ------------------------------------------------------------------ what pages read

    def lobby(self) -> List[Tournament]:
        """The tournaments announced and running, by start time."""
        return sorted((t for t in self.live.values() if t.status != "finished"), key=lambda t: (t.starts, t.id))

    def results_of(self, account: str) -> List[Dict[str, Any]]:
        return self.store.results_of(account)
