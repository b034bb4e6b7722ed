"""Tables: live games with human and AI seats, the server-side authority behind the HTTP API and
the websockets (``app.py``). Plain asyncio, no web framework here.

The engine decides everything: a move arrives as text, ``Game.parse_move``/``Game.play`` accept or
refuse it with the Python API's own message, and every change is written to the store
(``store.py``) as a ``sequence-game-record/1`` record before anyone is told about it.

One module per concern, behind the facade :class:`TableService` that the routers use:

- ``table.py``: a table, its seats and typed options (data only);
- ``changes.py``: play, undo, resign, reveal, join, and the commit every change goes through;
- ``views.py``: what a seat, a spectator and the lobby may see (R9), as the typed models;
- ``ai.py``: the AI seats' searches, hints and analyses, and their pools;
- ``clock.py``: the human seats' time controls (a turn timer, or a game clock per seat), their
  data in ``clockstate.py``;
- ``chat.py``: the players' chat and the spectators' chat of each table;
- ``connections.py``: websockets and streams, their caps, the broadcast;
- ``rematch.py``: the rematch offer, accepted by every person at the table, and the rematch, made once;
- ``lifecycle.py``: creating, looking up, listing, resuming after a restart, expiry.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, FrozenSet, List, Optional, Tuple, TypeVar

from ...gamebase import GameClass
from ...records import default_game_class
from ..errors import NotAllowedError, TableError
from ..limits import ServerLimits
from ..presets import AI_PRESETS, AIPreset, preset_list
from ..store import StoreError, TableStore
from .ai import AIWork
from .changes import Changes
from .chat import Chat
from .clock import Clock
from .connections import Connection, Connections
from .lifecycle import Lifecycle
from .rematch import Rematcher
from .table import Seat, Table, TableOptions, token_hash
from .views import HISTORY_TAIL, public_observation, view

__all__ = [
    "AI_PRESETS",
    "HISTORY_TAIL",
    "AIPreset",
    "Connection",
    "Seat",
    "Table",
    "TableError",
    "TableOptions",
    "TableService",
    "preset_list",
    "public_observation",
]

_R = TypeVar("_R")

log = logging.getLogger("sequence_game.web")


class TableService:
    """Every live table, the store behind them and the AI's pools: the parts wired together."""

    def __init__(self, store: TableStore, ai_pause: Optional[float] = None, game_class: Optional[GameClass] = None,
                 limits: Optional[ServerLimits] = None) -> None:
        self.store = store
        limits = limits or ServerLimits()
        self.game_class = game_class or default_game_class()
        self.tables: Dict[str, Table] = {}
        # every database call made while serving runs in this one thread, in order, never on the
        # event loop (the store serializes them anyway; one thread keeps them off the shared pool)
        self._db_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sequence-db")
        self._closed = False  # close() was called: no AI turn starts any more
        self._sweeper: Optional[asyncio.Task[None]] = None
        # a seat's first connection is kept in the row: after a restart the table is not abandoned
        self.connections = Connections(limits, self._last_left, lambda table: self.db_soon(store.set_used, table.id))
        self.changes = Changes(store, self.tables, self.game_class, self.db, self._changed, self._seated)
        self.ai = AIWork(limits, limits.ai_pause if ai_pause is None else ai_pause, self.tables, self.changes.change, self.changes.check_live,
                         self.connections.broadcast, self._schedule)
        self.clock = Clock(self.tables, self.changes.change, self.connections.tell,
                           lambda table_id, state: self.db(store.set_clock, table_id, state))
        self.chat = Chat(limits)
        self.life = Lifecycle(store, limits, self.tables, self.game_class, self.db, self._schedule, self._forget)
        self.rematcher = Rematcher(self.life, self.connections.tell, self.connections.broadcast,
                                   lambda table_id, offer: self.db(store.set_option, table_id, "rematch_offer", offer))
        self.connections.on_seats_left = self.rematcher.left
        self.limits = limits
        self.sockets = self.connections.sockets  # client address -> its open connections and long-polls
        self.asking_by_client = self.ai.asking_by_client  # client address -> its hints and analyses in flight
        self.ai_queue = self.ai.ai_queue
        # the parts' operations, as the routers call them
        self.play, self.undo, self.resign = self.changes.play, self.changes.undo, self.changes.resign
        self.reveal, self.join = self.changes.reveal, self.changes.join
        self.hint, self.analyze = self.ai.hint, self.ai.analyze
        self.analysis_stream, self.check_analysis = self.ai.analysis_stream, self.ai.check_analysis
        self.admit, self.release = self.connections.admit, self.connections.release
        self.attach, self.detach = self.connections.attach, self.connections.detach
        self.connect, self.disconnect = self.connections.connect, self.connections.disconnect
        self.broadcast = self.connections.broadcast
        self.get, self.get_async, self.lobby = self.life.get, self.life.get_async, self.life.lobby
        self.resume, self.sweep, self.playing = self.life.resume, self.life.sweep, self.life.playing
        self.evict_finished, self.adopt = self.life.evict_finished, self.life.adopt
        self.rematch, self.decline_rematch = self.rematcher.rematch, self.rematcher.decline
        self.view = view

    async def create(self, players: int, teams: Optional[int], seats: List[Dict[str, Any]],
                     seed: Optional[int] = None, max_turns: Optional[int] = None, hot_seat: bool = False,
                     ai_seconds: float = 2.0, moves: Optional[List[str]] = None,
                     client: Optional[str] = None, hints: Optional[bool] = None,
                     turn_seconds: Optional[float] = None, account: Optional[Tuple[str, str]] = None,
                     rated: bool = False, clock: Optional[Dict[str, Any]] = None) -> Tuple[Table, Dict[int, str]]:
        """A new table; returns it and the join token of every human seat (``{seat: token}``;
        with ``hot_seat`` every human seat has the same token). ``moves``: play these first (to go
        on with a saved game). Bad arguments raise ``ValueError`` saying what is wrong; a database
        that refuses the new row, a 503 (and no table). ``hints``: whether a seat may ask the AI for
        a hint or an analysis; by default only with at most one human at the table (as on lichess,
        no engine help in a game between people). ``turn_seconds``: a turn timer for the human seats;
        ``clock``: a game clock per human seat instead (``clock.py``). ``account``: the creator's
        (key, name) if signed in; ``rated``: checked by the club (web/club) before this call."""
        options = TableOptions(hot_seat=hot_seat, ai_seconds=float(ai_seconds),
                               turn_seconds=None if turn_seconds is None else float(turn_seconds), rated=rated,
                               clock=clock)
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
        return await asyncio.get_running_loop().run_in_executor(self._db_thread, functools.partial(call, *args))

    def db_soon(self, call: Callable[..., Any], *args: Any) -> None:
        """Queue ``call(*args)`` (a write) to the database thread and go on: the writes of the seeks,
        the chat and the reports (``web/social.py``), in order with the others. A refused write
        is logged; after :meth:`close` nothing is queued any more."""
        def run() -> None:
            try:
                call(*args)
            except StoreError as e:  # a full disk: the server goes on, the row is missing
                log.error("a database write failed: %s", e)
            except Exception:  # nobody waits for this write: what stopped it must reach the log, not vanish
                log.exception("a database write failed")

        try:
            self._db_thread.submit(run)
        except RuntimeError:
            log.error("a database write came after the server closed: not stored")

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
        self._db_thread.shutdown(wait=True)  # the writes under way finish: a told move is a stored move
