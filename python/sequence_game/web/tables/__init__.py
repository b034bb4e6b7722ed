"""Tables: live games with human and AI seats, the server-side authority behind the HTTP API and
the websockets (``app.py``). Plain asyncio, no web framework here.

The engine decides everything: a move arrives as text, ``Game.parse_move``/``Game.play`` accept or
refuse it with the Python API's own message, and every change is written to the store
(``store.py``) as a ``sequence-game-record/1`` record before anyone is told about it.

One module per concern, behind the one way in, :class:`TableService`:

- ``table.py``: a table, its seats and typed options (data only);
- ``changes.py``: play, undo, resign, reveal, join, and the commit every change goes through;
- ``views.py``: what a seat, a spectator and the lobby may see (R9), as the typed models;
- ``ai.py``: the AI seats' searches, hints and analyses, and their pools;
- ``clock.py``: the human seats' time controls (a turn timer, or a game clock per seat), their
  data in ``clockstate.py``;
- ``opening.py``: Abort, and each first move's grace, at a table of people;
- ``chat.py``: the players' chat and the spectators' chat of each table;
- ``connections.py``: websockets and streams, their caps, the broadcast;
- ``rematch.py``: the rematch offer, accepted by every person at the table, and the rematch, made once;
- ``lifecycle.py``: creating, looking up, listing, resuming after a restart, expiry;
- ``database.py``: the one thread every store call runs in.

Nothing outside this package reaches a part: the routers and the rest of the server call
:class:`TableService`'s methods, and import only the names this module exports.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from contextlib import contextmanager
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, FrozenSet, Iterator, List, Literal, Optional, Tuple, TypeVar

from ...gamebase import GameClass
from ...move import Move
from ...records import default_game_class
from .. import models
from ..errors import BusyError, NotAllowedError, NotSavedError, TableError
from ..limits import ServerLimits
from ..presets import AI_PRESETS, AIPreset, preset_list
from ..store import StoreError, TableStore
from .ai import AIWork, AnalysisRun
from .changes import Changes
from .chat import MAX_CHAT_TEXT, Chat, ChatKeeper
from .clock import Clock
from .clockstate import check_clock
from .connections import Connection, Connections
from .database import DatabaseThread
from .lifecycle import Lifecycle
from .rematch import Rematcher
from .table import Seat, Table, TableOptions, token_hash
from .views import HISTORY_TAIL, public_observation, time_control
from .views import view as table_view

__all__ = [
    "AI_PRESETS",
    "HISTORY_TAIL",
    "MAX_CHAT_TEXT",
    "AIPreset",
    "AnalysisRun",
    "ChatKeeper",
    "Connection",
    "DatabaseThread",
    "Seat",
    "Table",
    "TableError",
    "TableOptions",
    "TableService",
    "check_clock",
    "preset_list",
    "public_observation",
    "time_control",
    "token_hash",
]

_R = TypeVar("_R")

log = logging.getLogger("sequence_game.web")


class TableService:
    """Every live table, the store behind them and the AI's pools: the one way into the tables.

    The routers call its methods only; each says what it does and hands the work to the part that
    does it (one typed line: go-to-definition leads on to the code that runs). Everything the parts
    need from outside comes in here, once: ``database`` (the database thread, shared with the seeks
    and the chat's keeper), ``chat_keeper`` and ``chat_enabled`` (``chat.py``), ``on_over`` (called
    in the database thread once a game is over and stored: the club files it and rates it) and
    ``check_rematch`` (refuses a rematch that may not be made: the club's disabled accounts) and
    ``chat_hides`` (whether an account blocked another: its chat is hidden from the blocker).
    ``web/env.py`` builds the whole server this way."""

    def __init__(self, store: TableStore, ai_pause: Optional[float] = None, game_class: Optional[GameClass] = None,
                 limits: Optional[ServerLimits] = None, *, database: Optional[DatabaseThread] = None,
                 chat_keeper: Optional[ChatKeeper] = None, chat_enabled: bool = True,
                 on_over: Optional[Callable[[Table], None]] = None,
                 check_rematch: Optional[Callable[[Table], Awaitable[None]]] = None,
                 chat_hides: Optional[Callable[[Optional[str], Optional[str]], bool]] = None) -> None:
        self.store = store
        limits = limits or ServerLimits()
        self.game_class = game_class or default_game_class()
        self.tables: Dict[str, Table] = {}
        self.database = database or DatabaseThread()
        self._closed = False  # close() was called: no AI turn starts any more
        self._sweeper: Optional[asyncio.Task[None]] = None
        # a seat's first connection is kept in the row: after a restart the table is not abandoned
        self.connections = Connections(limits, self._last_left, lambda table: self.db_soon(store.set_used, table.id),
                                       on_seats_left=self._seats_left)
        self.changes = Changes(store, self.tables, self.game_class, self.db, self._changed, self._seated,
                               on_over=on_over)
        self.ai = AIWork(limits, limits.ai_pause if ai_pause is None else ai_pause, self.tables, self.changes.change,
                         self.changes.check_live, self.connections.broadcast, self._schedule)
        self.clock = Clock(self.tables, self.changes.change, self.connections.tell,
                           lambda table_id, state: self.db(store.set_clock, table_id, state))
        self.chat = Chat(limits, enabled=chat_enabled, keeper=chat_keeper,
                         hides=chat_hides or (lambda reader, writer: False))
        self.life = Lifecycle(store, limits, self.tables, self.game_class, self.db, self._schedule, self._forget)
        self.rematcher = Rematcher(self.life, self.connections.tell, self.connections.broadcast,
                                   lambda table_id, offer: self.db(store.set_option, table_id, "rematch_offer", offer),
                                   check=check_rematch)
        self.limits = limits
        self.sockets = self.connections.sockets  # client address -> its open connections and long-polls
        self.asking_by_client = self.ai.asking_by_client  # client address -> its hints and analyses in flight
        self.ai_queue = self.ai.ai_queue

    async def create(self, players: int, teams: Optional[int], seats: List[Dict[str, Any]],
                     seed: Optional[int] = None, max_turns: Optional[int] = None, hot_seat: bool = False,
                     ai_seconds: float = 2.0, moves: Optional[List[str]] = None,
                     client: Optional[str] = None, hints: Optional[bool] = None,
                     turn_seconds: Optional[float] = None, account: Optional[Tuple[str, str]] = None,
                     rated: bool = False, clock: Optional[Dict[str, Any]] = None,
                     abortable: bool = True) -> Tuple[Table, Dict[int, str]]:
        """A new table; returns it and the join token of every human seat (``{seat: token}``;
        with ``hot_seat`` every human seat has the same token). ``moves``: play these first (to go
        on with a saved game). Bad arguments raise ``ValueError`` saying what is wrong; a database
        that refuses the new row, a 503 (and no table). ``hints``: whether a seat may ask the AI for
        a hint or an analysis; by default only with at most one human at the table (as on lichess,
        no engine help in a game between people). ``turn_seconds``: a turn timer for the human seats;
        ``clock``: a game clock per human seat instead (``clock.py``). ``account``: the creator's
        (key, name) if signed in; ``rated``: checked by the club (web/club) before this call;
        ``abortable``: False for a tournament's game (no Abort, no first move's grace: ``opening.py``)."""
        options = TableOptions(hot_seat=hot_seat, ai_seconds=float(ai_seconds),
                               turn_seconds=None if turn_seconds is None else float(turn_seconds), rated=rated,
                               clock=clock, abortable=abortable)
        return await self.life.create(players, teams, seats, options, hints=hints, seed=seed, max_turns=max_turns,
                                      moves=moves, client=client, account=account)

    def seats_of(self, table: Table, token: Optional[str], via: str = "the bearer token") -> FrozenSet[int]:
        """The seats ``token`` acts for at ``table`` (empty for no token: a spectator). A wrong
        token is a 403 saying what was sent (``via``: where it came from) and what is wrong, never a
        silent spectator."""
        if token is None or token == "":
            return frozenset()
        if not isinstance(token, str) or len(token) > 128:
            size = f"{len(token)} characters" if isinstance(token, str) else f"a {type(token).__name__}"
            raise NotAllowedError(f"{via} is {size}; a seat token is a text of 32 characters (from POST "
                                  "/api/tables, POST .../join, or a join link's #seat=...)")
        h = token_hash(token)
        seats = frozenset(p for p, s in enumerate(table.seats)
                          if s.token_hash is not None and secrets.compare_digest(s.token_hash, h))
        if not seats:
            raise NotAllowedError(f"{via} ({len(token)} characters) is not the token of any seat of table {table.id}: "
                                  "a seat's token works only at its own table (and at its rematches); check the "
                                  "table id and the token")
        return seats

    def view(self, table: Table, seats: FrozenSet[int]) -> models.TableView:
        """``table`` as ``seats`` see it (R9: their own hands only; none: a spectator), ``views.py``."""
        return table_view(table, seats)

    # ------------------------------------------------------------------ the game (changes.py)

    async def play(self, table: Table, seats: FrozenSet[int], text: str,
                   expected_version: Optional[int] = None) -> Move:
        """Play ``text`` for the seat to move, one of ``seats``; stored before anyone is told."""
        return await self.changes.play(table, seats, text, expected_version)

    async def undo(self, table: Table, seats: FrozenSet[int]) -> int:
        """Take back the last move of ``seats`` and the AI's after it; how many moves went."""
        return await self.changes.undo(table, seats)

    async def resign(self, table: Table, seats: FrozenSet[int], unmoved: bool = False) -> int:
        """A seat of ``seats`` resigns for its team (aborts, before every first move); returns that
        seat. ``unmoved``: only a seat that has made no move (a tournament's no-show), checked with
        the change."""
        return await self.changes.resign(table, seats, unmoved)

    async def abort(self, table: Table, seats: FrozenSet[int]) -> int:
        """``seats`` abort the game before every first move (``opening.py``); returns the seat."""
        return await self.changes.abort(table, seats)

    def reveal(self, table: Table, seats: FrozenSet[int]) -> None:
        """Hot seat: the human to move shows their hand on the shared screen."""
        self.changes.reveal(table, seats)

    async def join(self, table: Table, seat: Optional[int] = None, name: Optional[str] = None,
                   account: Optional[Tuple[str, str]] = None) -> Tuple[int, str]:
        """Take an open seat: returns it and its new token (only this answer carries it)."""
        return await self.changes.join(table, seat, name, account)

    async def rematch(self, table: Table, seats: FrozenSet[int], client: Optional[str] = None) -> Optional[Table]:
        """After the game: ``seats`` offer a rematch or accept the open offer; the new table once
        every person accepted, else None (``rematch.py``)."""
        return await self.rematcher.rematch(table, seats, client)

    async def decline_rematch(self, table: Table, seats: FrozenSet[int]) -> Literal["declined", "withdrawn"]:
        """``seats`` end the open rematch offer: withdrawn by its maker, declined by anyone else."""
        return await self.rematcher.decline(table, seats)

    # ------------------------------------------------------------------ the AI's help (ai.py)

    async def hint(self, table: Table, seats: FrozenSet[int], client: Optional[str] = None) -> Move:
        """The AI's suggestion for the seat to move, one of ``seats``."""
        return await self.ai.hint(table, seats, client)

    async def analyze(self, table: Table, seats: FrozenSet[int], seconds: float,
                      client: Optional[str] = None) -> Dict[str, Any]:
        """The search's root statistics for the seat to move (one of ``seats``) after ``seconds``."""
        return await self.ai.analyze(table, seats, seconds, client)

    def check_analysis(self, table: Table, seats: FrozenSet[int], seconds: float, client: Optional[str]) -> None:
        """Refuse now what :meth:`analysis_stream` would refuse (a status before the stream's first byte)."""
        self.ai.check_analysis(table, seats, seconds, client)

    def analysis_stream(self, table: Table, seats: FrozenSet[int], seconds: float, every: float,
                        client: Optional[str] = None,
                        run: Optional[AnalysisRun] = None) -> AsyncIterator[Dict[str, Any]]:
        """A streaming analysis for the seat to move: an update about every ``every`` seconds."""
        return self.ai.analysis_stream(table, seats, seconds, every, client, run)

    def asking_refusal(self, table_id: str, token: Optional[str], client: str) -> Optional[BusyError]:
        """Why a hint or analysis asked with ``token`` is refused, when memory alone tells (``gate.py``)."""
        return self.ai.asking_refusal(table_id, token, client)

    async def in_analysis_threads(self, client: str, fn: Callable[..., _R], *args: Any) -> _R:
        """``fn(*args)`` in the analysis threads, when ``client``'s turn comes (the reviews)."""
        return await self.ai.analysis_queue.run(client, fn, *args)

    # ------------------------------------------------------------------ connections (connections.py)

    def connection_refusal(self, client: str) -> Optional[TableError]:
        """Why one more connection of ``client`` is refused whatever its table, or None (``gate.py``)."""
        return self.connections.refusal(client)

    def admit(self, table: Table, client: str) -> None:
        """Count a websocket of ``client`` at ``table`` against the caps (refused past them)."""
        self.connections.admit(table, client)

    def release(self, table: Table, client: str) -> None:
        """Give back the place :meth:`admit` counted."""
        self.connections.release(table, client)

    def attach(self, table: Table, conn: Connection) -> None:
        """An admitted connection joins ``table``: it gets its view from now on."""
        self.connections.attach(table, conn)

    def detach(self, table: Table, conn: Connection) -> None:
        """An attached connection leaves ``table`` (its place stays counted until :meth:`release`)."""
        self.connections.detach(table, conn)

    def connect(self, table: Table, conn: Connection) -> None:
        """:meth:`admit` and :meth:`attach` (a stream); :meth:`disconnect` undoes both."""
        self.connections.connect(table, conn)

    def disconnect(self, table: Table, conn: Connection) -> None:
        """Undo :meth:`connect`: the stream's connection leaves and its place is given back."""
        self.connections.disconnect(table, conn)

    @contextmanager
    def holding(self, client: str) -> Iterator[None]:
        """A waiting request (a long-poll) of ``client``, counted among its open connections
        while it waits (``ServerLimits.max_sockets_per_client``: 429 past the cap)."""
        self.connections.hold(client)
        try:
            yield
        finally:
            self.connections.unhold(client)

    # ------------------------------------------------------------------ the clocks (clock.py)

    def start_clock(self, table: Table, seat: int) -> None:
        """Start ``seat``'s turn on ``table``'s clock (its timer task is not running: call inside the event loop)."""
        self.clock.start(table, seat, asyncio.get_running_loop())

    # ------------------------------------------------------------------ the chat (chat.py)

    async def read_chat(self, table: Table) -> None:
        """Bring back ``table``'s chat from its keeper (web/social.py) if its room is not in memory:
        after a restart, or once the table came back into memory. Every frame that touches a room
        (a hello asking for the chat, a message, a report) comes through here first: a room made
        empty before its kept messages are read would hide them, and its ids would start again at
        1 and overwrite the kept rows."""
        chat = self.chat
        if chat.enabled and chat.keeper is not None and table.id not in chat.rooms:
            try:
                messages = await self.db(chat.keeper.history, table.id)
            except StoreError as e:  # no room yet: an empty one would hide the kept messages, then overwrite them
                log.error("the chat of table %s could not be read back: %s", table.id, e)
                raise NotSavedError(f"the chat of this table could not be read back ({e}); try again in a "
                                    "moment") from None
            chat.restore(table.id, messages)

    def welcome_to_chat(self, table: Table, conn: Connection) -> None:
        """``conn`` takes part in the chat: it gets the messages it may read and the notice."""
        self.chat.welcome(table, conn)

    def say(self, table: Table, conn: Connection, text: str) -> Dict[str, Any]:
        """Post ``text`` from ``conn`` to its room; returns the message sent."""
        return self.chat.say(table, conn, text)

    def report(self, table: Table, conn: Connection, message_id: int) -> Dict[str, Any]:
        """Flag chat message ``message_id`` for the operator; returns the frame that says so."""
        return self.chat.report(table, conn, message_id)

    # ------------------------------------------------------------------ the tables (lifecycle.py)

    def get(self, table_id: str) -> Table:
        """The table ``table_id``, live or stored (a database read: call :meth:`get_async` on the loop)."""
        return self.life.get(table_id)

    async def get_async(self, table_id: str) -> Table:
        """:meth:`get` with the database read in the database thread."""
        return await self.life.get_async(table_id)

    async def lobby(self, finished: Optional[bool] = None, limit: int = 200,
                    offset: int = 0) -> List[models.TableSummary]:
        """The table list, newest first: the live tables and one page of the finished ones."""
        return await self.life.lobby(finished, limit, offset)

    def adopt(self, table: Table) -> Table:
        """The one copy in memory of ``table`` that every connection about it shares."""
        return self.life.adopt(table)

    def evict_finished(self) -> int:
        """Forget the finished tables nobody watches (the store keeps them); how many."""
        return self.life.evict_finished()

    def playing(self) -> int:
        """How many live tables hold the cap (``limits.max_tables``)."""
        return self.life.playing()

    def resume(self) -> int:
        """Load the unfinished tables from the store (a restart); how many."""
        return self.life.resume()

    async def sweep(self, now: Optional[float] = None) -> List[str]:
        """Expire the live tables nobody plays; the ids expired."""
        return await self.life.sweep(now)

    async def close_tables(self, tables: List[Table], detail: str) -> List[str]:
        """End these unfinished tables for good, their connections told ``detail``; the ids closed."""
        return await self.life.close(tables, detail)

    def broadcast(self, table: Table) -> None:
        """Send every connection of ``table`` its own view."""
        self.connections.broadcast(table)

    @property
    def limits(self) -> ServerLimits:
        """The server's limits (``limits.py``); setting them sets every part's."""
        return self._limits

    @limits.setter
    def limits(self, limits: ServerLimits) -> None:
        self._limits = self.connections.limits = self.ai.limits = self.life.limits = limits
        if hasattr(self, "chat"):
            self.chat.limits = limits
        self.max_ai_seconds = limits.max_ai_seconds

    @property
    def retry_seconds(self) -> float:
        """Seconds before an AI turn that failed is tried again (doubling up to a minute)."""
        return self.ai.retry_seconds

    @retry_seconds.setter
    def retry_seconds(self, seconds: float) -> None:
        self.ai.retry_seconds = seconds

    # ------------------------------------------------------------------ the wiring

    async def db(self, call: Callable[..., _R], *args: Any) -> _R:
        """``call(*args)`` (a method of the store) in the database thread: off the event loop."""
        return await self.database.call(call, *args)

    def db_soon(self, call: Callable[..., Any], *args: Any) -> None:
        """Queue ``call(*args)`` (a write) to the database thread and go on (``DatabaseThread.soon``)."""
        self.database.soon(call, *args)

    def _schedule(self, table: Table) -> None:
        """Start what ``table`` waits for: the AI's search if an AI seat is to move, else the human's
        turn timer (if the table has one)."""
        if table.over or table.search is not None or self.tables.get(table.id) is not table or self._closed:
            return
        if any(s.open for s in table.seats):
            return  # waiting for its players: nobody's turn runs until every seat is taken (join)
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop yet (resume before start): start_ai() comes later
            return
        p = table.game.current_player
        if table.seats[p].kind == "ai":
            self.ai.start(table, p, loop)
        else:
            self.clock.start(table, p, loop)

    def _seated(self, table: Table) -> None:
        """After a change of the seats (a join) or a hand shown: tell everyone, and start the turn
        that waited for the table to fill."""
        self.connections.broadcast(table)
        self._schedule(table)

    def _changed(self, table: Table) -> None:
        """After every stored change of the game: tell everyone, start the AI if it is to move, and
        let a finished table nobody watches leave memory (its row serves it from now on)."""
        if table.search is not None and not table.search.done():
            table.search.cancel()  # an undo: the search was for a position that is gone
            table.search = None
            table.thinking = None
        self.clock.changed(table)  # the turn it timed is over (not after a dead-card trade, R5)
        self.connections.broadcast(table)
        if table.over:
            self.chat.game_over(table)  # the players read the spectators' room from now on
        if table.over and not table.connections:
            self.life.leave(table)
        self._schedule(table)

    def _forget(self, table: Table) -> None:
        """``table`` left memory: drop what the AI, the clock and the chat kept about it."""
        self.ai.forget(table)
        self.chat.forget(table)

    def _seats_left(self, table: Table, seats: FrozenSet[int]) -> None:
        """Every connection of ``seats`` closed: their rematch offer may end (``rematch.py``)."""
        self.rematcher.left(table, seats)

    def _last_left(self, table: Table) -> None:
        if table.over:
            self.life.leave(table)  # a finished table leaves memory with its last watcher

    def start_ai(self) -> None:
        """Start the AI of every table whose AI seat is to move, and the sweep that expires idle
        tables (call inside the event loop)."""
        for table in self.tables.values():
            self._schedule(table)
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self.life.sweep_forever())

    async def close(self) -> None:
        self._closed = True
        self.rematcher.close()
        if self._sweeper is not None:
            self._sweeper.cancel()
        for table in self.tables.values():
            if table.search is not None:
                table.search.cancel()
            if table.clock is not None:
                table.clock.cancel()
            for c in list(table.connections):
                c.close()
        self.ai.close()
        self.database.close()  # the writes under way finish: a told move is a stored move
