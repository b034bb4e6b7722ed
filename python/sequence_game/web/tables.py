"""Tables: live games with human and AI seats, the server-side authority behind the HTTP API and
the websockets (``app.py``). Plain asyncio, no web framework here.

The engine decides everything: a move arrives as text, ``Game.parse_move``/``Game.play`` accept or
refuse it with the Python API's own message, and every change is written to the store
(``store.py``) as a ``sequence-game-record/1`` record before anyone is told about it.

Who sees what (R9) is decided in one place, :meth:`TableService.view`: a seat gets
``game.observation(seat)`` (its own hand, every other hand as a size, the draw pile as a size, no
seed), a spectator gets :func:`public_observation` (every hand as a size), and the legal moves and
hints go only to the seat to move. Nothing else about the game is ever serialized for a browser;
the seed (which predicts every hidden card) leaves the server only in the record of a finished game.

AI seats search off the event loop, in a thread pool, on a copy of the game, with the table's time
budget, so one table's search never stalls another table or a human's move; the client addresses
take turns at the pool (``fair.py``). A search whose table changed meanwhile (an undo) is dropped.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import inspect
import json
import logging
import multiprocessing
import os
import secrets
import signal
import threading
import time
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import (
    Any,
    Awaitable,
    Callable,
    Dict,
    FrozenSet,
    Generic,
    Iterator,
    List,
    Literal,
    Optional,
    Set,
    Tuple,
    TypeVar,
    Union,
    get_args,
)

from ..agents import Agent, agent_from_spec
from ..agents.presets import ALIASES, DIFFICULTIES, PRESETS
from ..game_setup import TEAM_NAMES, check_players_teams, sequences_to_win
from ..gamebase import GameBase, GameClass
from ..move import Move
from ..position import observation_dict
from ..records import GameRecord, default_game_class, resignation_result, utc_now
from ..referee import HistoryEntry
from ..seeds import fresh_seed
from .errors import (
    BusyError,
    InvalidRequestError,
    NoSuchTableError,
    NotAllowedError,
    NotNowError,
    NotSavedError,
    ServerFullError,
    TableError,
    TableExpiredError,
    UnsupportedError,
)
from .fair import FairQueue
from .limits import ServerLimits
from .store import StoreError, TableRow, TableStore

__all__ = [
    "AI_PRESETS",
    "AIPreset",
    "Connection",
    "Table",
    "TableError",
    "TableService",
    "preset_list",
    "public_observation",
]

log = logging.getLogger("sequence_game.web")
_R = TypeVar("_R")

#: The AI strengths a seat may ask for (the web API's enum): the difficulty presets
#: (``agents/presets.py``, where each is defined and measured), their other names (``max``, which
#: plays as ``hard``) and ``random``. A search is cut to the table's time budget.
AIPreset = Literal["random", "easy", "medium", "hard", "max"]
AI_PRESETS: Tuple[str, ...] = ("random",) + DIFFICULTIES + tuple(ALIASES)
assert set(get_args(AIPreset)) == set(AI_PRESETS)


def preset_list() -> List[Dict[str, Any]]:
    """The presets a seat may ask for, weakest first, with what each is (``GET /api/presets``)."""
    out = [{"name": p.name, "summary": p.summary, "time_cap": p.time_cap} for p in PRESETS.values()]
    return out + [{"name": "random", "summary": "uniformly random legal moves", "time_cap": None}]
#: Seconds the hint search takes (cut to the table's budget).
HINT_SECONDS = 0.5
MIN_TURN_SECONDS, MAX_TURN_SECONDS = 10, 86400  # a table's turn timer: from ten seconds to a day
HISTORY_TAIL = 40  # moves of the move list in each view (the whole list: the record, after the game)
#: Agents written in Python hold the GIL while they think, which would stall the event loop of every
#: table: they run in worker processes (so do the presets built on them). The compiled searches
#: release the GIL and run in threads.
PROCESS_AGENTS = ("greedy",) + tuple(p.name for p in PRESETS.values() if p.agent == "greedy")




def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def public_observation(game: GameBase) -> Dict[str, Any]:
    """What anyone may see (R9): the board, sequences, discard piles, hand sizes, the draw pile's size.

    >>> from sequence_game.reference import Game
    >>> obs = public_observation(Game(players=2, seed=1))
    >>> obs["hands"], obs["draw_pile"], "seed" in obs
    ([7, 7], 90, False)
    """
    return _public(game.to_dict())


def _public(state: Dict[str, Any]) -> Dict[str, Any]:
    obs = observation_dict(state, 0)
    obs["hands"] = [len(h) for h in state["hands"]]
    obs["player"] = None
    if obs.get("last_draw") is not None:
        obs["last_draw"] = {"player": obs["last_draw"]["player"]}
    return obs


def _lower_priority() -> None:
    """A hint or analysis thread yields the CPU to everything else the server does (the lowest priority:
    a person's move or an AI move must not wait behind optional work; Linux: nice is per thread)."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)
    except (AttributeError, OSError):  # not Linux: the separate pool alone keeps AI moves unqueued
        pass


def _worker_init(parent: int) -> None:
    """An AI worker process: Ctrl-C is the server's to handle (it stops the workers), and the worker
    ends by itself if the server is gone (killed without a chance to stop it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, daemon=True, name="sequence-parent-watch").start()


def _agent_move_in_process(spec: str, seed: int, state: Dict[str, Any]) -> str:
    """A worker process's move for ``spec``'s agent in ``state`` (a ``to_dict()``), as text."""
    game = default_game_class().from_dict(state)
    return str(agent_from_spec(spec, seed=seed).select_move(game))


@dataclass
class Seat:
    """One seat: ``kind`` ``"human"`` or ``"ai"``; ``ai`` the preset; ``token_hash`` for humans;
    ``open``: a human seat offered in the lobby, whose token the first person to join it gets."""

    kind: str
    ai: Optional[str] = None
    name: str = ""
    token_hash: Optional[str] = None
    open: bool = False

    def to_dict(self) -> Dict[str, Any]:
        return {"kind": self.kind, "ai": self.ai, "name": self.name, "token_hash": self.token_hash, "open": self.open}


class Connection:
    """One live websocket: the seats it acts for (empty for a spectator), the client's address and
    its outgoing queue of JSON texts."""

    QUEUE = 64  # messages; a client that falls this far behind is dropped

    def __init__(self, seats: FrozenSet[int], client: str = "?") -> None:
        self.seats = seats
        self.client = client
        self.queue: asyncio.Queue[Optional[str]] = asyncio.Queue(self.QUEUE)

    def send(self, message: Dict[str, Any]) -> None:
        self.send_text(json.dumps(message, separators=(",", ":")))

    def send_text(self, text: str) -> None:
        """Queue ``text`` (a message serialized once for every connection that gets it)."""
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close()

    def close(self) -> None:
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)


@dataclass
class Table:
    id: str
    game: GameBase
    seats: List[Seat]
    options: Dict[str, Any]
    record: GameRecord  # GameRecord.from_game(game) after every change, with the seats' agents and times
    created: str
    version: int = 0
    movers: List[int] = field(default_factory=list)  # the seat behind each entry of the history
    thinking: Optional[int] = None  # the AI seat searching now
    search: Optional[asyncio.Task[None]] = None
    clock: Optional[asyncio.Task[None]] = None  # the turn timer of the human to move (options["turn_seconds"])
    deadline: Optional[float] = None  # when that turn times out (seconds since the epoch)
    connections: Set[Connection] = field(default_factory=set)
    #: connections counted against ServerLimits.max_sockets_per_table: the open ones and the
    #: websockets still in their handshake or hello (TableService.admit)
    admitted: int = 0
    revealed: Optional[Tuple[int, int]] = None  # hot seat: (seat, turn) whose hand is shown
    #: held while a change of the game is being written: changes of one table happen one at a time
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    changed_at: float = field(default_factory=time.monotonic)  # the last change of the game
    #: a human seat connected or moved: the table is in use (not abandoned, ServerLimits.abandoned_seconds)
    used: bool = False
    client: Optional[str] = None  # the address that created it (per-client caps; not stored)
    present: Dict[int, int] = field(default_factory=dict)  # seat -> its open connections
    asking: Set[int] = field(default_factory=set)  # seats with a hint or analysis running
    flush: Optional[asyncio.Handle] = None  # a broadcast scheduled for this turn of the event loop
    ai_failures: int = 0  # AI turns failed in a row (an agent error, a dead worker): the retry waits longer
    #: the history before the game's own: after an undo the game is redealt (R9, Game.redealt) and
    #: its own history starts there
    prefix: List[HistoryEntry] = field(default_factory=list)
    #: set (and replaced) at every broadcast: what HTTP long-polls wait on (routers/tables.py)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def history(self) -> List[Tuple[int, HistoryEntry]]:
        """``(seat, entry)`` for every entry of the history, oldest first: the game keeps the
        moves (since the last redeal, ``prefix`` those before), the table only who made each."""
        return list(zip(self.movers, self.prefix + self.game.history))

    @property
    def owner(self) -> str:
        """Whose turn the table's AI searches wait for (``TableService.ai_queue``): the address that
        created it; a table resumed after a restart (the address is not stored) is its own client."""
        return self.client if self.client is not None else f"table {self.id}"

    @property
    def over(self) -> bool:
        """The game ended: by the rules (R8, a draw) or by a resignation (the record says which)."""
        return self.game.is_over or self.record.resigned is not None

    @property
    def humans(self) -> List[int]:
        return [p for p, s in enumerate(self.seats) if s.kind == "human"]

    def undo_allowed(self) -> bool:
        """Undo is for games against the AI: some AI seat, and every human seat behind one token."""
        hashes = {self.seats[p].token_hash for p in self.humans}
        return len(hashes) == 1 and len(self.humans) < len(self.seats)


class TableService:
    """Every live table, the store behind them and the AI thread pool."""

    def __init__(self, store: TableStore, ai_pause: float = 0.4, game_class: Optional[GameClass] = None,
                 limits: Optional[ServerLimits] = None) -> None:
        self.store = store
        self.limits = limits = limits or ServerLimits()
        self.game_class = game_class or default_game_class()
        cpus = max(1, os.cpu_count() or 1)
        self.ai_workers = limits.ai_workers or cpus
        analysis_workers = limits.analysis_workers or max(1, cpus // 2)
        # AI moves and the people's hints and analyses have separate pools, so an AI move never
        # waits behind an analysis
        self.executor = ThreadPoolExecutor(max_workers=self.ai_workers, thread_name_prefix="sequence-ai")
        self.analysis_executor = ThreadPoolExecutor(
            max_workers=analysis_workers, thread_name_prefix="sequence-analysis", initializer=_lower_priority)
        # every search reaches its pool through a fair queue: the client addresses take turns, so
        # one with many tables cannot push another's table to the back of a long queue (fair.py);
        # a table has at most one AI search queued, so each queue is bounded by the live tables
        # and the capped analyses
        self.ai_queue = FairQueue(lambda: self.executor, self.ai_workers)
        self.process_queue = FairQueue(self._process_pool, self.ai_workers)
        self.analysis_queue = FairQueue(lambda: self.analysis_executor, analysis_workers)
        # every database call made while serving runs in this one thread, in order, never on the
        # event loop (the store serializes them anyway; one thread keeps them off the shared pool)
        self._db_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sequence-db")
        self.sockets: Dict[str, int] = {}  # client address -> its open table websockets
        self.asking_by_client: Dict[str, int] = {}  # client address -> its hints and analyses in flight
        self._processes: Optional[ProcessPoolExecutor] = None
        self.ai_pause = ai_pause
        self.max_ai_seconds = limits.max_ai_seconds
        self.tables: Dict[str, Table] = {}
        self._agents: Dict[Tuple[str, int], Agent] = {}
        self.on_change: List[Callable[[Table], None]] = []  # test and load hooks
        self._sweeper: Optional[asyncio.Task[None]] = None
        #: every AI turn under way, also once its table's ``search`` is cleared to write the move:
        #: close() stops them all, so none writes after the database thread is gone
        self._ai_turns: Set[asyncio.Task[None]] = set()
        self._closed = False  # close() was called: no AI turn starts any more
        self._creating = 0  # creations being written (they count toward the cap)
        self._rematch_lock = asyncio.Lock()  # one rematch made at a time (two players may ask together)
        #: seconds between two tries to write an AI move the database refused (doubling up to a minute)
        self.retry_seconds = 1.0

    # ------------------------------------------------------------------ life cycle

    def resume(self) -> int:
        """Load the unfinished tables from the store (a server restart); returns how many.

        A table idle for longer than ``limits.idle_seconds`` (or abandoned: no human seat ever
        moved, idle for ``limits.abandoned_seconds``) is marked expired instead, so tables nobody
        plays do not hold the cap of live tables across restarts; beyond the cap, the most
        recently changed tables are resumed. A row that does not replay is set aside
        (``TableStore.quarantine``) and the server starts without it."""
        now = time.time()
        expired: List[str] = []
        for row in self.store.live_rows():
            try:
                idle = now - _epoch(row.updated or row.created)
            except ValueError:
                self.store.quarantine(row.id, f"its time of last change {row.updated!r} is not ISO 8601")
                continue
            if idle > self.limits.idle_seconds or len(self.tables) >= self.limits.max_tables:
                expired.append(row.id)
                continue
            try:
                table = self._from_row(row)
            except (ValueError, TypeError, KeyError) as e:  # a record that no longer replays
                self.store.quarantine(row.id, f"its record does not replay: {e}")
                continue
            table.used = any(table.seats[p].kind == "human" for p in table.movers)
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

    def start_ai(self) -> None:
        """Start the AI of every table whose AI seat is to move, and the sweep that expires idle
        tables (call inside the event loop)."""
        for table in self.tables.values():
            self._schedule_ai(table)
        if self._sweeper is None:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_forever())

    async def _sweep_forever(self) -> None:
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
                c.send({"type": "error", "error": TableExpiredError.__name__,
                        "detail": "this table expired: nobody played it for too long"})
                try:
                    c.queue.put_nowait(None)  # closes the socket after the message above
                except asyncio.QueueFull:
                    c.close()
            self._forget_agents(t)
        self.evict_finished()
        return [t.id for t in gone]

    async def db(self, call: Callable[..., _R], *args: Any) -> _R:
        """``call(*args)`` (a method of the store) in the database thread: off the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self._db_thread, functools.partial(call, *args))

    async def close(self) -> None:
        self._closed = True
        if self._sweeper is not None:
            self._sweeper.cancel()
        for table in self.tables.values():
            if table.search is not None:
                table.search.cancel()
            if table.clock is not None:
                table.clock.cancel()
            for c in list(table.connections):
                c.close()
        for turn in list(self._ai_turns):
            turn.cancel()
        for queue in (self.ai_queue, self.process_queue, self.analysis_queue):
            queue.close()
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.analysis_executor.shutdown(wait=False, cancel_futures=True)
        self._stop_processes()
        self._db_thread.shutdown(wait=True)  # the writes under way finish: a told move is a stored move

    def _stop_processes(self) -> None:
        """End the AI worker processes now, not when their work is done: nothing the server started
        may outlive it (a worker also holds the multiprocessing resource tracker open)."""
        pool, self._processes = self._processes, None
        if pool is None:
            return
        workers = list(getattr(pool, "_processes", {}).values())  # no public handle on the workers
        pool.shutdown(wait=False, cancel_futures=True)
        for w in workers:
            w.terminate()
        for w in workers:
            w.join(5)

    def _from_row(self, row: TableRow) -> Table:
        record = GameRecord.from_dict(row.record)
        game, history, movers = record.rebuild(self.game_class)
        seats = [Seat(**s) for s in row.seats]
        table = Table(row.id, game, seats, dict(row.options), record, row.created, row.version, movers)
        table.prefix = history[:len(history) - len(game.history)]
        return table

    def _forget_agents(self, table: Table) -> None:
        for seat in range(len(table.seats)):
            self._agents.pop((table.id, seat), None)

    # ------------------------------------------------------------------ creating

    def playing(self) -> int:
        """How many live tables hold the cap (``limits.max_tables``): the unfinished ones and the
        creations being written."""
        return sum(not t.over for t in self.tables.values()) + self._creating

    async def create(self, players: int, teams: Optional[int], seats: List[Dict[str, Any]],
                     seed: Optional[int] = None, max_turns: Optional[int] = None, hot_seat: bool = False,
                     ai_seconds: float = 2.0, moves: Optional[List[str]] = None,
                     client: Optional[str] = None, hints: Optional[bool] = None,
                     turn_seconds: Optional[float] = None, same_seats: Optional[List[Seat]] = None,
                     rematch_of: Optional[str] = None) -> Tuple[Table, Dict[int, str]]:
        """A new table; returns it and the join token of every human seat (``{seat: token}``;
        with ``hot_seat`` every human seat has the same token). ``moves``: play these first (to go
        on with a saved game). Bad arguments raise ``ValueError`` saying what is wrong; a database
        that refuses the new row, a 503 (and no table). ``hints``: whether a seat may ask the AI for
        a hint or an analysis; by default only with at most one human at the table (as on lichess,
        no engine help in a game between people). ``turn_seconds``: a turn timer for the human seats
        (see :meth:`_schedule_clock`). ``same_seats``: a rematch's seats, the same people with the
        same tokens (no new tokens are returned); ``rematch_of``: the table it follows."""
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
        if not 0.05 <= ai_seconds <= self.max_ai_seconds:
            raise InvalidRequestError(f"ai_seconds must be from 0.05 to {self.max_ai_seconds}, not {ai_seconds}")
        game = self.game_class(players=players, teams=teams, seed=seed, max_turns=max_turns)
        assert game.seed is not None  # a dealt game knows its seed (a loaded position may not)
        record = GameRecord(players=game.players, teams=game.teams, seed=game.seed, max_turns=game.max_turns,
                            started=utc_now())
        movers: List[int] = []
        for i, text in enumerate(moves or []):
            p = game.current_player
            try:
                record._play(game, i, text)
            except ValueError as e:
                raise InvalidRequestError(str(e)) from None
            movers.append(p)
        if turn_seconds is not None and not MIN_TURN_SECONDS <= turn_seconds <= MAX_TURN_SECONDS:
            raise InvalidRequestError(f"turn_seconds must be from {MIN_TURN_SECONDS} to {MAX_TURN_SECONDS} "
                                      f"(or null: no timer), not {turn_seconds}")
        built: List[Seat] = []
        tokens: Dict[int, str] = {}
        shared = secrets.token_urlsafe(24) if hot_seat else None
        for p, s in enumerate([] if same_seats is not None else seats):
            kind = s.get("kind")
            if kind == "human" and s.get("open"):
                if hot_seat:
                    raise InvalidRequestError(f"seat {p + 1}: a hot-seat table has no open seats (everyone is at one screen)")
                built.append(Seat("human", None, "", None, open=True))
            elif kind == "human":
                token = shared or secrets.token_urlsafe(24)
                tokens[p] = token
                built.append(Seat("human", None, s.get("name") or f"Player {p + 1}", token_hash(token)))
            elif kind == "ai":
                preset = s.get("ai") or "medium"
                if preset not in AI_PRESETS:
                    raise InvalidRequestError(
                        f"seat {p + 1}: unknown AI preset {preset!r}; choose one of {', '.join(AI_PRESETS)}")
                built.append(Seat("ai", preset, s.get("name") or f"AI {p + 1} ({preset})"))
            else:
                raise InvalidRequestError(f"seat {p + 1}: kind must be 'human' or 'ai', not {kind!r}")
        if same_seats is not None:
            built = [Seat(s.kind, s.ai, s.name, s.token_hash, s.open) for s in same_seats]
        record.agents = [s.kind if s.kind == "human" else self._spec(s.ai, ai_seconds) for s in built]
        table_id = secrets.token_urlsafe(6)
        if hints is None:
            hints = sum(s.kind == "human" for s in built) <= 1
        options: Dict[str, Any] = {"hot_seat": bool(hot_seat and (len(tokens) > 1 or same_seats is not None)),
                                   "ai_seconds": float(ai_seconds), "hints": bool(hints),
                                   "turn_seconds": None if turn_seconds is None else float(turn_seconds)}
        if rematch_of is not None:
            options["rematch_of"] = rematch_of
        table = Table(table_id, game, built, options,
                      record, utc_now(), 0, movers, client=client)
        self._finish_record(table)
        row = TableRow(table.id, table.record.to_dict(), [s.to_dict() for s in built], table.options,
                       table.created, 0, game.is_over)
        self._creating += 1
        try:
            await self.db(self.store.save, row)
        except StoreError as e:
            log.error("table not created: %s", e)
            raise NotSavedError(f"the table could not be saved ({e}); nothing was created, try again later") from None
        finally:
            self._creating -= 1
        if not game.is_over:
            self.tables[table.id] = table
        self._schedule_ai(table)
        return table, tokens

    @staticmethod
    def _spec(preset: Optional[str], budget: float) -> str:
        """The agent spec of a seat's preset, its search cut to the table's ``budget`` seconds."""
        name = preset or "medium"
        target = ALIASES.get(name, name)
        cap = PRESETS[target].time_cap if target in PRESETS else None
        return name if cap is None else f"{name}:time={min(cap, budget):g}"

    def evict_finished(self) -> int:
        """Forget the finished tables nobody is watching (they stay in the store, where ``get``
        finds them); returns how many."""
        gone = [t for t in self.tables.values() if t.over and not t.connections and t.search is None]
        for t in gone:
            del self.tables[t.id]
            self._forget_agents(t)
        return len(gone)

    # ------------------------------------------------------------------ lookup and access

    def get(self, table_id: str) -> Table:
        """The table ``table_id``: a live one, or a stored one (finished, read-only), which this
        reads from the database: call it from a worker thread (FastAPI runs sync dependencies in
        one) or through :meth:`get_async`."""
        table = self.tables.get(table_id)
        if table is None:
            row = self.store.get(table_id) if isinstance(table_id, str) and len(table_id) <= 64 else None
            if row is None:
                raise NoSuchTableError(f"no table {table_id!r}")
            if row.expired:
                raise TableExpiredError(f"table {table_id} expired: nobody played it for too long")
            try:
                table = self._from_row(row)  # a finished game: read-only
            except (ValueError, TypeError, KeyError) as e:
                self.store.quarantine(row.id, f"its record does not replay: {e}")
                raise NoSuchTableError(f"no table {table_id!r}") from None
        return table

    async def get_async(self, table_id: str) -> Table:
        """:meth:`get` with the database read off the event loop."""
        table = self.tables.get(table_id)
        return table if table is not None else await asyncio.to_thread(self.get, table_id)

    async def lobby(self, finished: Optional[bool] = None, limit: int = 200, offset: int = 0) -> List[Dict[str, Any]]:
        """The table list, newest first, at most ``limit`` lines: the unfinished live tables (from
        memory) and one page of finished tables (read off the event loop, ``limit`` rows from the
        lobby index however many games are stored; ``offset`` pages through the finished ones).
        Expired tables are not listed."""
        out = [] if finished is True or offset else [self.summary(t) for t in list(self.tables.values()) if not t.over]
        if finished is not False:
            rows = await self.db(self.store.finished_rows, limit, offset)
            for row in rows:
                try:
                    out.append(self.stored_summary(row))
                except (ValueError, TypeError, KeyError, IndexError) as e:
                    await self.db(self.store.quarantine, row.id, f"its summary cannot be read: {e}")
        out.sort(key=lambda s: (s["created"], s["table"]), reverse=True)
        return out[:limit]

    def seats_of(self, table: Table, token: Optional[str]) -> FrozenSet[int]:
        """The seats ``token`` acts for at ``table`` (empty for no token: a spectator).
        A wrong token is a 403 (never a silent spectator: the user should know the link is bad)."""
        if token is None or token == "":
            return frozenset()
        if not isinstance(token, str) or len(token) > 128:
            raise NotAllowedError("a seat token is a short text from a join link")
        h = token_hash(token)
        seats = frozenset(p for p, s in enumerate(table.seats)
                          if s.token_hash is not None and secrets.compare_digest(s.token_hash, h))
        if not seats:
            raise NotAllowedError("this join link is not valid for this table")
        return seats

    # ------------------------------------------------------------------ what a seat sees (R9)

    def shown_seat(self, table: Table, seats: FrozenSet[int]) -> Optional[int]:
        """The seat whose hand a connection sees: its own seat; at a hot seat, the human to move once
        they asked to see it (the hand is hidden between turns); None for a spectator."""
        if len(seats) == 1:
            return next(iter(seats))
        g = table.game
        if seats and not table.over and g.current_player in seats and table.revealed == (g.current_player, g.turn):
            return g.current_player
        return None

    def view(self, table: Table, seats: FrozenSet[int], full: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """The whole message a connection gets about ``table``: ``state`` is exactly
        ``game.observation(seat)`` (or :func:`public_observation`), the rest is public table data.
        ``full``: ``game.to_dict()`` if the caller has it (one per broadcast, not one per view)."""
        g = table.game
        shown = self.shown_seat(table, seats)
        if full is None:
            full = g.to_dict()
        state = observation_dict(full, shown) if shown is not None else _public(full)
        to_move = shown is not None and not table.over and g.current_player == shown
        tail = [[p, str(entry)] for p, entry in table.history[-HISTORY_TAIL:]]
        last = tail[-1] if tail else None
        return {
            "table": table.id,
            "version": table.version,
            "players": g.players,
            "teams": g.teams,
            "to_win": sequences_to_win(g.teams),
            "seats": [
                {"seat": p, "team": g.team_of(p), "kind": s.kind, "name": s.name or "(open seat)", "ai": s.ai,
                 "connected": p in table.present, "open": s.open}
                for p, s in enumerate(table.seats)
            ],
            "you": sorted(seats),
            "seat": shown,
            "hot_seat": bool(table.options.get("hot_seat")),
            "hand_hidden": bool(seats) and shown is None and not table.over and g.current_player in seats,
            "state": state,
            "legal": [str(m) for m in g.legal_moves()] if to_move else [],
            "moves": len(table.movers),
            "history": tail,
            "last_move": None if last is None else {"player": last[0], "move": last[1]},
            "thinking": table.thinking,
            "can_undo": bool(seats) and table.undo_allowed() and self._undo_target(table, seats) is not None,
            "hints": hints_allowed(table),
            "can_resign": bool(seats) and not table.over and g.teams == 2,
            "rematch": table.options.get("rematch"),
            "rematch_allowed": bool(seats) and table.over,
            "turn_seconds": table.options.get("turn_seconds"),
            "turn_left": None if table.over or table.deadline is None else max(0.0, table.deadline - time.time()),
            "over": table.over,
            "result": self._result(table),
        }

    @staticmethod
    def _result(table: Table) -> Optional[Dict[str, Any]]:
        result = table.record.result
        if result is None:
            return None
        return _result_of(result, table.game.teams, table.seats, len(table.movers), table.record.resigned)

    @staticmethod
    def stored_summary(row: TableRow) -> Dict[str, Any]:
        """:meth:`summary` of a stored table, read from its row without replaying the game."""
        rec, seats = row.record, [Seat(**s) for s in row.seats]
        result = rec.get("result")
        return {"table": row.id, "players": rec["players"], "teams": rec["teams"], "created": row.created,
                "turn": result["turns"] if result else len(rec["moves"]), "over": result is not None,
                "result": None if result is None else _result_of(result, rec["teams"], seats, len(rec["moves"]),
                                                                  rec.get("resigned")),
                "seats": [{"kind": s.kind, "name": s.name, "ai": s.ai, "open": False} for s in seats]}

    def summary(self, table: Table) -> Dict[str, Any]:
        """A line of the table list: public only."""
        g = table.game
        return {"table": table.id, "players": g.players, "teams": g.teams, "created": table.created,
                "turn": g.turn, "over": table.over, "result": self._result(table),
                "seats": [{"kind": s.kind, "name": s.name, "ai": s.ai, "open": s.open and not table.over}
                          for s in table.seats]}

    # ------------------------------------------------------------------ changes

    async def play(self, table: Table, seats: FrozenSet[int], text: str,
                   expected_version: Optional[int] = None) -> Move:
        """Play ``text`` for the seat to move, if ``seats`` holds it. ``expected_version``: refuse
        (409) if the table changed since the client saw it, so a repeated click never plays twice.
        The move and its write to the database are one change: if the database refuses the write,
        the answer is a 503 and nothing was played."""

        def make() -> _Next[Move]:
            g = table.game
            self._check_live(table)
            if expected_version is not None and expected_version != table.version:
                raise NotNowError(
                    f"the table changed since you saw it (version {expected_version}, now {table.version}); "
                    "look at the board again")
            p = g.current_player
            if p not in seats:
                who = table.seats[p]
                raise NotNowError(f"it is not your turn: {who.name} (seat {p + 1}) is to move")
            if table.options.get("hot_seat") and self.shown_seat(table, seats) != p:
                raise NotNowError("show your hand first (hot seat): press the 'show my hand' button")
            move = g.parse_move(text)  # IllegalMoveError / InvalidMoveError with the engine's message
            game = g.copy()
            game.play(move)
            table.used = True
            return _Next(game, [*table.movers, p], table.prefix, table.record.redeals, move)

        return await self._change(table, make)

    async def undo(self, table: Table, seats: FrozenSet[int]) -> int:
        """Take back the last move of ``seats`` and every AI move after it (games against the AI
        only). Returns how many moves were taken back. Like a move, an undo the database does not
        store is not made (503)."""

        async def make() -> _Next[int]:
            self._check_live(table)
            if not table.undo_allowed():
                raise NotNowError("undo is only for games against the AI (one human at the table)")
            target = self._undo_target(table, seats)
            if target is None:
                raise NotNowError("nothing to undo: you have not moved yet")
            # Taking the moves back would put cards where the undoing player knows them (its draw on
            # top of the pile, the cards the AI played back in the AI's hand): the position is rebuilt
            # from the record and every card the undoing seats cannot see is dealt afresh (R9,
            # Game.redealt), a redeal the record keeps so the game still replays.
            rec = table.record
            redeals = [r for r in rec.redeals if r["at"] < target]
            redeals.append({"at": target, "keep": sorted(seats), "seed": fresh_seed()})
            moves = [str(entry) for _, entry in table.history[:target]]
            base = GameRecord(players=rec.players, teams=rec.teams, seed=rec.seed, max_turns=rec.max_turns,
                              moves=moves, redeals=redeals)
            # a replay of the whole game: in a worker thread (the table's lock is held meanwhile)
            game, history, movers = await asyncio.to_thread(base.rebuild, self.game_class)
            return _Next(game, movers, history, redeals, len(table.movers) - target)

        return await self._change(table, make)

    @staticmethod
    def _undo_target(table: Table, seats: FrozenSet[int]) -> Optional[int]:
        for i in range(len(table.movers) - 1, -1, -1):
            if table.movers[i] in seats:
                return i
        return None

    def reveal(self, table: Table, seats: FrozenSet[int]) -> None:
        """Hot seat: the human to move shows their hand on the shared screen."""
        g = table.game
        self._check_live(table)
        if g.current_player not in seats:
            raise NotNowError("it is not your turn: the hand to show belongs to the seat to move")
        table.revealed = (g.current_player, g.turn)
        self.broadcast(table)

    async def join(self, table: Table, seat: Optional[int] = None, name: Optional[str] = None) -> Tuple[int, str]:
        """Take an open seat (``seat``, or the first one): returns it and its new token, which only
        this answer carries. The seat is then an ordinary human seat, its link secret like any."""
        async with table.lock:
            self._check_live(table)
            free = [p for p, s in enumerate(table.seats) if s.open]
            if not free:
                raise NotNowError("this table has no open seat left")
            if seat is None:
                seat = free[0]
            elif seat not in free:
                raise NotNowError(f"seat {seat + 1} is not open; the open seats are "
                                  + ", ".join(str(p + 1) for p in free))
            token = secrets.token_urlsafe(24)
            old = table.seats[seat]
            new_seats = list(table.seats)
            new_seats[seat] = Seat("human", None, name or f"Player {seat + 1}", token_hash(token))
            try:
                await self.db(self.store.set_seats, table.id, [s.to_dict() for s in new_seats])
            except StoreError as e:
                log.error("table %s: a join the database did not store was not made: %s", table.id, e)
                raise NotSavedError(f"the server could not save this ({e}); the seat is still open, try again") from None
            assert old.open
            table.seats = new_seats
            table.used = True
            table.changed_at = time.monotonic()
        self.broadcast(table)
        return seat, token

    async def resign(self, table: Table, seats: FrozenSet[int]) -> int:
        """A seat of ``seats`` resigns: its team loses at once (two teams only; the record says who
        resigned). Returns the seat: the one to move if it is one of ``seats``, else the lowest."""

        def make() -> _Next[int]:
            self._check_live(table)
            g = table.game
            if g.teams != 2:
                raise NotNowError("resigning is for two-team games: with three teams the game would go on "
                                  "without a team, so it is played out")
            seat = g.current_player if g.current_player in seats else min(seats)
            table.used = True
            return _Next(g.copy(), list(table.movers), table.prefix, table.record.redeals, seat, resigned=seat)

        return await self._change(table, make)

    async def rematch(self, table: Table, seats: FrozenSet[int], client: Optional[str] = None) -> Table:
        """After the game: a new table with the same seats (the same people keep their links'
        tokens, the AIs their strength), the same options and a new deal. Asked twice (by both
        players), it is made once: the second ask gets the same new table."""
        if not table.over:
            raise NotNowError("a rematch comes after the game: this one is still going")
        async with self._rematch_lock:
            existing = table.options.get("rematch")
            if existing is not None:
                try:
                    return await self.get_async(existing)
                except TableError:
                    pass  # expired: make a new one
            g = table.game
            new, _ = await self.create(
                g.players, g.teams, [], hot_seat=bool(table.options.get("hot_seat")),
                ai_seconds=float(table.options.get("ai_seconds", 2.0)), client=client,
                hints=hints_allowed(table), turn_seconds=table.options.get("turn_seconds"),
                same_seats=table.seats, rematch_of=table.id)
            options = {**table.options, "rematch": new.id}
            try:
                await self.db(self.store.set_options, table.id, options)
            except StoreError as e:
                log.error("table %s: the rematch link was not stored: %s", table.id, e)
            table.options = options
        text = json.dumps({"type": "rematch", "table": new.id}, separators=(",", ":"))
        for conn in list(table.connections):
            conn.send_text(text)
        self.broadcast(table)
        return new

    def _check_live(self, table: Table) -> None:
        if table.over:
            raise NotNowError("the game is over")
        if self.tables.get(table.id) is not table:
            raise NotNowError("this table is not being played")

    def _finish_record(self, table: Table) -> None:
        """The table's record from its game's own history (see :meth:`_record_for`)."""
        table.record = self._record_for(table, table.game)

    @staticmethod
    def _record_for(table: Table, game: GameBase, prefix: Optional[List[HistoryEntry]] = None,
                    redeals: Optional[List[Dict[str, Any]]] = None, resigned: Optional[int] = None) -> GameRecord:
        """``game``'s record (moves and result) with the table's agents and start time; the finish
        time is set when the game ends (and cleared by an undo). ``prefix`` and ``redeals``: the
        history before the game's own and the redeals after undos (default: the table's);
        ``resigned``: the seat that resigned (the result then says so)."""
        rec = table.record
        prefix = table.prefix if prefix is None else prefix
        redeals = rec.redeals if redeals is None else redeals
        over = game.is_over or resigned is not None
        finished = (rec.finished or utc_now()) if over else None
        if not redeals:
            new = GameRecord.from_game(game, agents=rec.agents, started=rec.started, finished=finished)
        else:
            new = GameRecord(players=rec.players, teams=rec.teams, seed=rec.seed, max_turns=rec.max_turns,
                             agents=list(rec.agents), moves=[str(e) for e in prefix + game.history],
                             result={"winner": game.winner, "is_draw": bool(game.is_draw), "turns": game.turn}
                             if game.is_over else None, started=rec.started, finished=finished,
                             redeals=[dict(r) for r in redeals])
        if resigned is not None:
            new.resigned, new.result = resigned, resignation_result(game, resigned)
        return new

    async def _change(self, table: Table, make: Callable[[], Union[_Next[_R], Awaitable[_Next[_R]]]]) -> _R:
        """Make one change of ``table``'s game: ``make()`` checks the request and returns the new
        game (a changed copy), its movers and the answer. The new record is written first; only
        once the database has it does the table take the new game, so a refused write (a full
        disk) leaves the table exactly as it was (game, history, version) and answers 503.

        One change of a table at a time (``table.lock``); the write runs off the event loop and is
        shielded, so a caller that goes away mid-write cannot leave memory and disk apart."""

        async def run() -> _R:
            async with table.lock:
                made = make()
                nxt = await made if inspect.isawaitable(made) else made
                try:
                    await self._commit(table, nxt)
                except StoreError as e:
                    log.error("table %s: a change the database did not store was not made: %s", table.id, e)
                    raise NotSavedError(f"the server could not save this ({e}); nothing changed, try again in a "
                                        "moment") from None
                return nxt.answer

        task = asyncio.ensure_future(run())
        task.add_done_callback(_retrieve)
        return await asyncio.shield(task)

    async def _commit(self, table: Table, nxt: _Next[Any]) -> None:
        """Write ``nxt`` as ``table``'s next version, then make it the table's game (call with
        ``table.lock`` held). Raises StoreError, with the table unchanged, if the write fails."""
        game = nxt.game
        record = self._record_for(table, game, nxt.prefix, nxt.redeals, nxt.resigned)
        version = table.version + 1
        await self.db(self.store.update_game, table.id, record.to_dict(), version,
                                game.is_over or nxt.resigned is not None, utc_now())
        table.game, table.movers, table.prefix, table.record = game, nxt.movers, list(nxt.prefix), record
        table.version = version
        table.changed_at = time.monotonic()
        self._changed(table)

    def _changed(self, table: Table) -> None:
        """After every stored change of the game: tell everyone, start the AI if it is to move, and
        let a finished table nobody watches leave memory (its row serves it from now on)."""
        if table.search is not None and not table.search.done():
            table.search.cancel()  # an undo: the search was for a position that is gone
            table.search = None
            table.thinking = None
        if table.clock is not None:
            table.clock.cancel()  # the turn it timed is over
            table.clock = None
            table.deadline = None
        self.broadcast(table)
        for hook in self.on_change:
            hook(table)
        if table.over and not table.connections and self.tables.get(table.id) is table:
            del self.tables[table.id]
            self._forget_agents(table)
        self._schedule_ai(table)

    # ------------------------------------------------------------------ live connections

    def admit(self, table: Table, client: str) -> None:
        """Count one more connection of ``client`` at ``table`` against the caps, or refuse it:
        :class:`~.errors.ServerFullError` (the server's or the table's cap),
        :class:`~.errors.BusyError` (the client's). A websocket is counted from its handshake on, so
        it is refused before it is accepted, and one waiting to say hello holds its place.
        :meth:`release` gives the place back."""
        limits = self.limits
        if sum(self.sockets.values()) >= limits.max_sockets:
            raise ServerFullError(f"the server already has {limits.max_sockets} open table connections; try again later")
        if table.admitted >= limits.max_sockets_per_table:
            raise ServerFullError(f"this table already has {limits.max_sockets_per_table} connections, the most it "
                                  "takes; try again later")
        if self.sockets.get(client, 0) >= limits.max_sockets_per_client:
            raise BusyError(f"your address already has {limits.max_sockets_per_client} open table connections, the "
                            "most one client may have: close some first")
        self.sockets[client] = self.sockets.get(client, 0) + 1
        table.admitted += 1

    def release(self, table: Table, client: str) -> None:
        """Give back a place :meth:`admit` counted."""
        table.admitted -= 1
        left = self.sockets.get(client, 0) - 1
        if left > 0:
            self.sockets[client] = left
        else:
            self.sockets.pop(client, None)

    def connect(self, table: Table, conn: Connection) -> None:
        """:meth:`admit` and :meth:`attach` (refused past the caps); :meth:`disconnect` undoes both."""
        self.admit(table, conn.client)
        self.attach(table, conn)

    def disconnect(self, table: Table, conn: Connection) -> None:
        if conn in table.connections:
            self.detach(table, conn)
            self.release(table, conn.client)

    def attach(self, table: Table, conn: Connection) -> None:
        """Add an admitted connection: it gets its view; the others hear of it only if a seat came
        online (a presence message of one flag per seat), so a connection costs the same at any
        audience size."""
        table.connections.add(conn)
        if conn.seats:
            table.used = True
        came = [p for p in conn.seats if table.present.get(p, 0) == 0]
        for p in conn.seats:
            table.present[p] = table.present.get(p, 0) + 1
        conn.send({"type": "state", "view": self.view(table, conn.seats)})
        if came:
            self._presence(table, skip=conn)

    def detach(self, table: Table, conn: Connection) -> None:
        """Remove an attached connection (its place stays counted until :meth:`release`)."""
        if conn not in table.connections:
            return
        table.connections.discard(conn)
        if table.over and not table.connections and self.tables.get(table.id) is table:
            del self.tables[table.id]  # a finished table leaves memory with its last watcher
            self._forget_agents(table)
        gone = False
        for p in conn.seats:
            table.present[p] -= 1
            if table.present[p] == 0:
                del table.present[p]
                gone = True
        if gone:
            self._presence(table)

    def _presence(self, table: Table, skip: Optional[Connection] = None) -> None:
        text = json.dumps({"type": "presence", "connected": [p in table.present for p in range(len(table.seats))]},
                          separators=(",", ":"))
        for conn in list(table.connections):
            if conn is not skip:
                conn.send_text(text)

    def broadcast(self, table: Table) -> None:
        """Send every connection its own view (one view per distinct set of seats, serialized once),
        at the end of this turn of the event loop: changes made together go out as one state."""
        event, table.changed = table.changed, asyncio.Event()
        event.set()  # wake the long-polls: they read the table again
        if not table.connections or table.flush is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a direct call): at once
            self._flush(table)
            return
        table.flush = loop.call_soon(self._flush, table)

    def _flush(self, table: Table) -> None:
        table.flush = None
        if not table.connections:
            return
        full = table.game.to_dict()
        texts: Dict[FrozenSet[int], str] = {}
        for conn in list(table.connections):
            text = texts.get(conn.seats)
            if text is None:
                text = json.dumps({"type": "state", "view": self.view(table, conn.seats, full)}, separators=(",", ":"))
                texts[conn.seats] = text
            conn.send_text(text)

    # ------------------------------------------------------------------ the AI

    def _agent(self, table: Table, seat: int) -> Agent:
        key = (table.id, seat)
        agent = self._agents.get(key)
        if agent is None:
            spec = self._spec(table.seats[seat].ai, table.options.get("ai_seconds", 2.0))
            agent = agent_from_spec(spec, seed=fresh_seed())
            self._agents[key] = agent
        return agent

    def _process_pool(self) -> ProcessPoolExecutor:
        if self._processes is None:  # spawn: a fork of a threaded server could copy a held lock
            self._processes = ProcessPoolExecutor(max_workers=self.ai_workers,
                                                  mp_context=multiprocessing.get_context("spawn"),
                                                  initializer=_worker_init, initargs=(os.getpid(),))
        return self._processes

    def _schedule_ai(self, table: Table) -> None:
        g = table.game
        if table.over or table.search is not None or self.tables.get(table.id) is not table or self._closed:
            return
        p = g.current_player
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop yet (resume before start): start_ai() comes later
            return
        if table.seats[p].kind != "ai":
            self._schedule_clock(table, p, loop)
            return
        table.search = turn = loop.create_task(self._ai_turn(table, p, table.version))
        self._ai_turns.add(turn)
        turn.add_done_callback(self._ai_turns.discard)

    def _schedule_clock(self, table: Table, seat: int, loop: asyncio.AbstractEventLoop) -> None:
        """The turn timer (a table's ``turn_seconds``): a human seat that has not moved when it runs
        out gets one move played for it by the ``medium`` AI (the heuristic, at once), so a table is
        never stuck on someone who left, and play goes on; everyone is told (a ``timeout`` message).
        A restart of the server gives the seat to move a whole turn again."""
        seconds = table.options.get("turn_seconds")
        if not seconds or table.clock is not None:
            return
        table.deadline = time.time() + seconds
        table.clock = loop.create_task(self._time_out(table, seat, table.version, seconds))

    async def _time_out(self, table: Table, seat: int, version: int, seconds: float) -> None:
        await asyncio.sleep(seconds)
        agent = agent_from_spec("medium", seed=fresh_seed())

        def make() -> _Next[Move]:
            if table.version != version or table.over or self.tables.get(table.id) is not table:
                raise _StaleError()
            game = table.game.copy()
            move = game.parse_move(str(agent.select_move(game.copy())))
            game.play(move)
            return _Next(game, [*table.movers, seat], table.prefix, table.record.redeals, move)

        if table.clock is asyncio.current_task():
            # this turn's clock has run out: the change below starts the next seat's clock
            table.clock, table.deadline = None, None
        try:
            move = await self._change(table, make)
        except (_StaleError, TableError):
            return
        text = json.dumps({"type": "timeout", "seat": seat, "move": str(move)}, separators=(",", ":"))
        for conn in list(table.connections):
            conn.send_text(text)

    async def _ai_turn(self, table: Table, seat: int, version: int) -> None:
        started = time.monotonic()
        table.thinking = seat
        self.broadcast(table)
        try:
            spec = self._spec(table.seats[seat].ai, table.options.get("ai_seconds", 2.0))
            choice: Union[str, Move]
            if spec.split(":")[0] in PROCESS_AGENTS:
                choice = await self.process_queue.run(table.owner, _agent_move_in_process, spec, fresh_seed(),
                                                      table.game.to_dict())
            else:
                agent = self._agent(table, seat)
                choice = await self.ai_queue.run(table.owner, agent.select_move, table.game.copy())
            rest = self.ai_pause - (time.monotonic() - started)
            if rest > 0:
                await asyncio.sleep(rest)  # let the humans see whose turn it was
        except asyncio.CancelledError:
            raise
        except Exception as e:  # an agent bug or a dead worker must not stop the table for good
            log.exception("AI seat %s at table %s failed; trying again", seat, table.id)
            if isinstance(e, BrokenExecutor) and self._processes is not None:
                self._processes.shutdown(wait=False, cancel_futures=True)
                self._processes = None  # a worker died: the next turn starts a new pool
            await self._ai_again(table)
            return
        table.ai_failures = 0
        table.search = None
        table.thinking = None
        delay = self.retry_seconds
        while True:
            def make() -> _Next[None]:
                if table.version != version or table.over or self.tables.get(table.id) is not table:
                    raise _StaleError()
                game = table.game.copy()
                game.play(game.parse_move(str(choice)))
                return _Next(game, [*table.movers, seat], table.prefix, table.record.redeals, None)

            try:
                await self._change(table, make)
                return
            except _StaleError:
                self.broadcast(table)
                return
            except NotSavedError:  # the database refused the move (logged): try it again after a pause
                pass
            except ValueError:  # the agent chose a move that is not legal here: an agent bug
                log.exception("AI seat %s at table %s chose %r; trying again", seat, table.id, str(choice))
                table.search = asyncio.current_task()
                await self._ai_again(table)
                return
            # hold the seat's turn while waiting, so the AI is not started twice; a change of the
            # table (an undo) cancels the wait like any search
            table.search = asyncio.current_task()
            try:
                await asyncio.sleep(delay)
            finally:
                if table.search is asyncio.current_task():
                    table.search = None
            delay = min(60.0, delay * 2)

    async def _ai_again(self, table: Table) -> None:
        """After a failed AI turn: wait (longer after each failure in a row, at most a minute), then
        start the turn again. The wait is the table's search, so a change of the table cancels it."""
        table.thinking = None
        self.broadcast(table)
        table.ai_failures += 1
        await asyncio.sleep(min(60.0, self.retry_seconds * 2 ** min(table.ai_failures - 1, 6)))
        table.search = None
        self._schedule_ai(table)

    async def hint(self, table: Table, seats: FrozenSet[int], client: Optional[str] = None) -> Move:
        """The AI's suggestion for the seat to move, which must be one of ``seats`` (a hint reads
        that seat's hand, so no one else may ask for it)."""
        p = self._check_to_move(table, seats)
        budget = min(HINT_SECONDS, table.options.get("ai_seconds", 2.0))
        agent = agent_from_spec(f"mcts:time={budget:g}" if _mcts_available() else "greedy",
                                seed=fresh_seed())
        snapshot = table.game.copy()
        with self._asking(table, p, client):
            move = await self.analysis_queue.run(client or "?", agent.select_move, snapshot)
        return snapshot.parse_move(str(move))

    async def analyze(self, table: Table, seats: FrozenSet[int], seconds: float,
                      client: Optional[str] = None) -> Dict[str, Any]:
        """The MCTS root statistics for the seat to move (one of ``seats``) after ``seconds``."""
        p = self._check_to_move(table, seats)
        if not 0.01 <= seconds <= self.max_ai_seconds:
            raise InvalidRequestError(f"seconds must be from 0.01 to {self.max_ai_seconds}, not {seconds}")
        if not _mcts_available():  # pragma: no cover - the wheel always has the compiled core
            raise UnsupportedError("analysis needs the compiled core (MCTS)")
        agent = agent_from_spec(f"mcts:time={seconds:g}", seed=fresh_seed())
        snapshot = table.game.copy()
        with self._asking(table, p, client):
            result = await self.analysis_queue.run(client or "?", agent.analyze, snapshot)
        return {
            "best": str(result.move),
            "iterations": result.iterations,
            "seconds": result.seconds,
            "moves": [{"move": str(m.move), "visits": m.visits, "value": m.value} for m in result.moves],
        }

    @contextmanager
    def _asking(self, table: Table, seat: int, client: Optional[str]) -> Iterator[None]:
        """One hint or analysis at a time per seat, a few per client address and a bounded queue on
        the server: each holds a search thread for up to ``max_ai_seconds``, so an unbounded queue
        would make everyone's answer wait behind one client's requests."""
        limits = self.limits
        if seat in table.asking:
            raise BusyError("a hint or analysis for this seat is running already: wait for its answer")
        key = client or "?"
        if self.asking_by_client.get(key, 0) >= limits.max_analyses_per_client:
            raise BusyError(f"your address already has {limits.max_analyses_per_client} hints or analyses running, "
                            "the most one client may have: wait for their answers")
        if sum(self.asking_by_client.values()) >= limits.max_analyses:
            raise ServerFullError(f"the server already runs {limits.max_analyses} hints and analyses; try again in "
                                  "a few seconds")
        table.asking.add(seat)
        self.asking_by_client[key] = self.asking_by_client.get(key, 0) + 1
        try:
            yield
        finally:
            table.asking.discard(seat)
            left = self.asking_by_client[key] - 1
            if left:
                self.asking_by_client[key] = left
            else:
                del self.asking_by_client[key]

    def _check_to_move(self, table: Table, seats: FrozenSet[int]) -> int:
        self._check_live(table)
        if not hints_allowed(table):
            raise NotAllowedError("the AI gives no hints at this table: it was created with hints off "
                                  "(the default when people play each other)")
        p = table.game.current_player
        if p not in seats:
            raise NotNowError("only the seat to move can ask the AI about its position (it reads that hand)")
        if table.options.get("hot_seat") and self.shown_seat(table, seats) != p:
            raise NotNowError("show your hand first (hot seat)")
        return p


@dataclass
class _Next(Generic[_R]):
    """A change of a table's game, ready to be stored: the new game, who made each entry of the
    history, the history before the game's own, the redeals, and the answer for the caller."""

    game: GameBase
    movers: List[int]
    prefix: List[HistoryEntry]
    redeals: List[Dict[str, Any]]
    answer: _R
    resigned: Optional[int] = None  # a resignation: the seat


def hints_allowed(table: Table) -> bool:
    """A table's hint option (tables stored before it existed allowed hints)."""
    return bool(table.options.get("hints", True))


class _StaleError(Exception):
    """An AI move for a position the table has left (an undo, the end of the game)."""


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Mark a shielded change's outcome as seen when its caller went away (no "never retrieved")."""
    if not task.cancelled():
        task.exception()


def _epoch(iso: str) -> float:
    """Seconds since the epoch of an ISO 8601 UTC time as the store writes it."""
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


def _result_of(result: Dict[str, Any], teams: int, seats: List[Seat], moves: int,
               resigned: Optional[int] = None) -> Dict[str, Any]:
    """A record's result with a line of text naming the winners (seat p is on team p mod teams, R2).
    It counts the moves of the move list (a dead-card trade is one, in the same turn as the card
    played after it, R4), so the text and the list agree."""
    count = f"{moves} move" + ("" if moves == 1 else "s")
    if result["winner"] is None:
        return {**result, "resigned": None, "text": f"Draw after {count}."}
    names = ", ".join(s.name for p, s in enumerate(seats) if p % teams == result["winner"])
    how = "" if resigned is None else f", {seats[resigned].name} resigned"
    return {**result, "resigned": resigned,
            "text": f"Team {TEAM_NAMES[result['winner']]} ({names}) wins after {count}{how}."}


def _mcts_available() -> bool:
    from ..agents.factory import mcts_available

    return mcts_available()
