"""AI work: the seats' moves, the people's hints and analyses.

AI seats search off the event loop, in a thread pool, on a copy of the game, with the table's time
budget, so one table's search never stalls another table or a human's move; the client addresses
take turns at the pool (``fair.py``). A search whose table changed meanwhile (an undo) is dropped.
Agents written in Python run in worker processes (they hold the GIL). Hints and analyses have a
pool of their own at the lowest CPU priority, so an AI move never waits behind one.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import multiprocessing
import os
import secrets
import signal
import threading
import time
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, FrozenSet, Iterator, Optional, Set, Tuple, Union

from ...agents import Agent, agent_from_spec
from ...move import Move
from ...records import default_game_class
from ...seeds import fresh_seed
from ..errors import BusyError, InvalidRequestError, NotAllowedError, NotNowError, NotSavedError, ServerFullError
from ..fair import FairQueue
from ..limits import ServerLimits
from ..presets import PROCESS_AGENTS, runs_in_process, seat_spec
from .table import Next, StaleError, Table, token_hash
from .views import shown_seat

__all__ = ["HINT_SECONDS", "AIWork", "AnalysisRun"]

log = logging.getLogger("sequence_game.web")

#: Seconds the hint search takes (cut to the table's budget).
HINT_SECONDS = 0.5
#: Seconds between two looks at the table while a slice of a streaming analysis runs: a change of
#: the table (a move, an undo) stops the analysis about this soon.
WATCH_SECONDS = 0.05
Change = Callable[[Table, Callable[[], Next[Any]]], Awaitable[Any]]


def _lower_priority() -> None:
    """A hint, analysis or review thread gets the CPU only when nothing else of the machine wants it
    (Linux ``SCHED_IDLE``, per thread): a person's move, an AI move and the event loop never wait
    behind optional work, however many analyses clients ask for. Elsewhere, or where the class is
    refused: the lowest nice value; failing that, the separate pool alone keeps AI moves unqueued."""
    tid = threading.get_native_id()
    try:
        os.sched_setscheduler(tid, os.SCHED_IDLE, os.sched_param(0))
        return
    except (AttributeError, OSError):
        pass
    try:
        os.setpriority(os.PRIO_PROCESS, tid, 19)
    except (AttributeError, OSError):
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


def _next_info(analysis: Any) -> Any:
    """The next update of a streaming analysis, None at its end (a thread pool's future cannot
    carry StopIteration)."""
    return next(analysis, None)


def _update(info: Any, version: int, done: bool, interrupted: bool = False) -> Dict[str, Any]:
    """An analysis update as the API sends it (``models.AnalysisInfo``)."""
    return {"type": "analysis", "version": version, "best": None if info is None else str(info.move),
            "iterations": 0 if info is None else info.iterations, "seconds": 0.0 if info is None else info.seconds,
            "moves": [] if info is None else [{"move": str(m.move), "visits": m.visits, "value": m.value}
                                              for m in info.moves],
            "done": done, "interrupted": interrupted or info is None or bool(info.interrupted)}


class AnalysisRun:
    """The handle of one streaming analysis (:meth:`AIWork.analysis_stream`): ``stop()`` ends it
    from the event loop, before it started or while it runs (a websocket's ``stop`` frame)."""

    def __init__(self) -> None:
        self.stopped = False
        self.analysis: Any = None  # the agent's Analysis, once the stream runs

    def stop(self) -> None:
        self.stopped = True
        if self.analysis is not None:
            self.analysis.stop()


class AIWork:
    """The AI's pools and every search the server runs. ``change(table, make)``: make a change of
    the game (``Changes.change``); ``broadcast(table)``: tell everyone (whose turn it is to think);
    ``schedule(table)``: start whatever the table waits for next (after a failed AI turn)."""

    def __init__(self, limits: ServerLimits, ai_pause: float, tables: Dict[str, Table], change: Change,
                 check_live: Callable[[Table], None], broadcast: Callable[[Table], None],
                 schedule: Callable[[Table], None]) -> None:
        self.limits = limits
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
        self.asking_by_client: Dict[str, int] = {}  # client address -> its hints and analyses in flight
        self._processes: Optional[ProcessPoolExecutor] = None
        self._process_ran = False  # a worker process answered once: the pool can start
        self.processes_broken = False  # the workers died while starting (told once in the log)
        self.ai_pause = ai_pause
        self._agents: Dict[Tuple[str, int], Agent] = {}
        #: every AI turn under way, also once its table's ``search`` is cleared to write the move:
        #: close() stops them all, so none writes after the database thread is gone
        self.turns: Set[asyncio.Task[None]] = set()
        #: seconds between two tries to write an AI move the database refused (doubling up to a minute)
        self.retry_seconds = 1.0
        self.tables = tables  # the live tables: a search for a table that left memory is dropped
        self._change, self._check_live, self._broadcast, self._schedule = change, check_live, broadcast, schedule

    # ------------------------------------------------------------------ the seats' moves

    def agent(self, table: Table, seat: int) -> Agent:
        """The agent of ``table``'s AI seat ``seat`` (made once, kept while the table is in memory)."""
        key = (table.id, seat)
        agent = self._agents.get(key)
        if agent is None:
            agent = agent_from_spec(seat_spec(table.seats[seat].ai, table.options.ai_seconds), seed=fresh_seed())
            self._agents[key] = agent
        return agent

    def forget(self, table: Table) -> None:
        for seat in range(len(table.seats)):
            self._agents.pop((table.id, seat), None)

    def _process_pool(self) -> ProcessPoolExecutor:
        if self._processes is None:  # spawn: a fork of a threaded server could copy a held lock
            self._processes = ProcessPoolExecutor(max_workers=self.ai_workers,
                                                  mp_context=multiprocessing.get_context("spawn"),
                                                  initializer=_worker_init, initargs=(os.getpid(),))
        return self._processes

    def start(self, table: Table, seat: int, loop: asyncio.AbstractEventLoop) -> None:
        """Start the AI turn of ``seat``, the seat to move (the table's ``search``)."""
        table.search = turn = loop.create_task(self._turn(table, seat, table.version))
        self.turns.add(turn)
        turn.add_done_callback(self.turns.discard)

    async def _turn(self, table: Table, seat: int, version: int) -> None:
        started = time.monotonic()
        table.thinking = seat
        self._broadcast(table)
        try:
            spec = seat_spec(table.seats[seat].ai, table.options.ai_seconds)
            choice: Union[str, Move]
            if runs_in_process(spec):
                choice = await self.process_queue.run(table.owner, _agent_move_in_process, spec, fresh_seed(),
                                                      table.game.to_dict())
                self._process_ran = True
            else:
                agent = self.agent(table, seat)
                choice = await self.ai_queue.run(table.owner, agent.select_move, table.game.copy())
            rest = self.ai_pause - (time.monotonic() - started)
            if rest > 0:
                await asyncio.sleep(rest)  # let the humans see whose turn it was
        except asyncio.CancelledError:
            raise
        except Exception as e:  # an agent bug or a dead worker must not stop the table for good
            if isinstance(e, BrokenExecutor) and not self._process_ran:
                # the workers die while starting: not a passing failure, and one that retrying repeats
                # (the usual cause: create_app at the top level of a script, see app.UNGUARDED)
                if not self.processes_broken:
                    log.error("the AI worker processes stopped while starting (%s): AI seats that run in "
                              "processes (%s) wait; if the server runs from a script of your own, call "
                              "create_app() under 'if __name__ == \"__main__\":' (docs/web.md, \"Embedding "
                              "the app\")", e, ", ".join(PROCESS_AGENTS))
                self.processes_broken = True
                table.thinking = None
                self._broadcast(table)
                return
            log.exception("AI seat %s at table %s failed; trying again", seat, table.id)
            if isinstance(e, BrokenExecutor) and self._processes is not None:
                self._processes.shutdown(wait=False, cancel_futures=True)
                self._processes = None  # a worker died: the next turn starts a new pool
            await self._again(table)
            return
        table.ai_failures = 0
        table.search = None
        table.thinking = None
        delay = self.retry_seconds
        while True:
            def make() -> Next[None]:
                if table.version != version or table.over or self.tables.get(table.id) is not table:
                    raise StaleError()
                game = table.game.copy()
                game.play(game.parse_move(str(choice)))
                return Next(game, [*table.movers, seat], table.prefix, table.record.redeals, None)

            try:
                await self._change(table, make)
                return
            except StaleError:
                self._broadcast(table)
                return
            except NotSavedError:  # the database refused the move (logged): try it again after a pause
                pass
            except ValueError:  # the agent chose a move that is not legal here: an agent bug
                log.exception("AI seat %s at table %s chose %r; trying again", seat, table.id, str(choice))
                table.search = asyncio.current_task()
                await self._again(table)
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

    async def _again(self, table: Table) -> None:
        """After a failed AI turn: wait (longer after each failure in a row, at most a minute), then
        start the turn again. The wait is the table's search, so a change of the table cancels it."""
        table.thinking = None
        self._broadcast(table)
        table.ai_failures += 1
        await asyncio.sleep(min(60.0, self.retry_seconds * 2 ** min(table.ai_failures - 1, 6)))
        table.search = None
        self._schedule(table)

    # ------------------------------------------------------------------ hints and analyses

    async def hint(self, table: Table, seats: FrozenSet[int], client: Optional[str] = None) -> Move:
        """The AI's suggestion for the seat to move, which must be one of ``seats`` (a hint reads
        that seat's hand, so no one else may ask for it)."""
        p = self._check_to_move(table, seats)
        budget = min(HINT_SECONDS, table.options.ai_seconds)
        agent = agent_from_spec(f"mcts:time={budget:g}", seed=fresh_seed())
        snapshot = table.game.copy()
        with self._asking(table, p, client):
            move = await self.analysis_queue.run(client or "?", agent.select_move, snapshot)
        return snapshot.parse_move(str(move))

    async def analyze(self, table: Table, seats: FrozenSet[int], seconds: float,
                      client: Optional[str] = None) -> Dict[str, Any]:
        """The MCTS root statistics for the seat to move (one of ``seats``) after ``seconds``."""
        p = self._check_to_move(table, seats)
        self._check_seconds(seconds)
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

    def check_analysis(self, table: Table, seats: FrozenSet[int], seconds: float, client: Optional[str]) -> None:
        """Whether :meth:`analysis_stream` would start now (the same errors), so that an HTTP
        refusal is a status before the stream's first byte; nothing is reserved."""
        p = self._check_to_move(table, seats)
        self._check_seconds(seconds)
        self._check_room(table, p, client)

    async def analysis_stream(self, table: Table, seats: FrozenSet[int], seconds: float, every: float,
                              client: Optional[str] = None,
                              run: Optional[AnalysisRun] = None) -> AsyncIterator[Dict[str, Any]]:
        """A streaming analysis of the position of the seat to move (one of ``seats``; the search
        reads only that seat's view, R9): an update (``models.AnalysisInfo``) about every ``every``
        seconds of search, for ``seconds`` in all; the last has ``done`` set. It ends sooner, its
        last update ``interrupted``, at ``run.stop()``, when the table changes (a move, an undo:
        the position is gone) or when the caller stops iterating (a closed stream or socket; the
        running slice ends at its next iteration). It counts as one of the seat's and the client's
        hints and analyses for its whole length, and its slices queue for the analysis threads
        (lowest CPU priority) one at a time, taking turns with other clients' work."""
        p = self._check_to_move(table, seats)
        self._check_seconds(seconds)
        run = run or AnalysisRun()
        version = table.version
        agent = agent_from_spec(f"mcts:time={seconds:g}", seed=fresh_seed())
        with self._asking(table, p, client):
            analysis = run.analysis = agent.analysis(table.game.copy(), every=every)
            if run.stopped:
                analysis.stop()
            try:
                while True:
                    step = asyncio.ensure_future(self.analysis_queue.run(client or "?", _next_info, analysis))
                    try:
                        while not step.done():
                            await asyncio.wait({step}, timeout=WATCH_SECONDS)
                            if table.version != version or table.over or self.tables.get(table.id) is not table:
                                analysis.stop()  # the position analysed is gone
                    finally:
                        if not step.done():  # the caller went away: the queue drops or frees the job
                            step.cancel()
                    try:
                        info = None if step.cancelled() else step.result()
                    except RuntimeError:  # the work queue closed: the server stops
                        info = None
                    if info is None:
                        break
                    yield _update(info, version, analysis.done)
                    if analysis.done:
                        return
            finally:
                analysis.stop()
        # stopped between two slices: the last update again, marked done and interrupted
        yield _update(analysis.info, version, True, interrupted=True)

    def _check_seconds(self, seconds: float) -> None:
        most = self.limits.max_ai_seconds
        if not 0.01 <= seconds <= most:
            raise InvalidRequestError(f"seconds must be from 0.01 to {most}, not {seconds}")

    def asking_refusal(self, table_id: str, token: Optional[str], client: str) -> Optional[BusyError]:
        """Why a hint or analysis asked with ``token`` at table ``table_id`` is refused whatever else
        the request says, as :meth:`_check_room` would refuse it (its seat's search is running, or
        ``client``'s share is in use), or None when that cannot be told from memory alone (the
        request goes on to its full checks). Cheap: asked before routing (``web/gate.py``)."""
        key = client or "?"
        if self.asking_by_client.get(key, 0) >= self.limits.max_analyses_per_client:
            return BusyError(f"your address already has {self.limits.max_analyses_per_client} hints or analyses "
                             "running, the most one client may have: wait for their answers")
        table = self.tables.get(table_id)
        if table is None or not table.asking or not token:
            return None
        p = table.game.current_player
        seat = table.seats[p] if p < len(table.seats) else None
        if (p in table.asking and seat is not None and seat.token_hash is not None
                and secrets.compare_digest(seat.token_hash, token_hash(token))):
            return BusyError("a hint or analysis for this seat is running already: wait for its answer")
        return None

    def _check_room(self, table: Table, seat: int, client: Optional[str]) -> None:
        """Refuse a hint or analysis past the caps (see :meth:`_asking`)."""
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

    @contextmanager
    def _asking(self, table: Table, seat: int, client: Optional[str]) -> Iterator[None]:
        """One hint or analysis at a time per seat, a few per client address and a bounded queue on
        the server: each holds a search thread for up to ``max_ai_seconds``, so an unbounded queue
        would make everyone's answer wait behind one client's requests."""
        self._check_room(table, seat, client)
        key = client or "?"
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
        if table.options.rated:  # whatever its hints option says (an older row, a bug elsewhere)
            raise NotAllowedError("the AI gives no hints or analyses at a rated table: ratings measure the "
                                  "players, not the engine (docs/club.md)")
        if not table.options.hints:
            raise NotAllowedError("the AI gives no hints at this table: it was created with hints off "
                                  "(the default when people play each other)")
        p = table.game.current_player
        if p not in seats:
            raise NotNowError("only the seat to move can ask the AI about its position (it reads that hand)")
        if table.options.hot_seat and shown_seat(table, seats) != p:
            raise NotNowError("show your hand first (hot seat)")
        return p

    # ------------------------------------------------------------------ stopping

    def close(self) -> None:
        for turn in list(self.turns):
            turn.cancel()
        for queue in (self.ai_queue, self.process_queue, self.analysis_queue):
            queue.close()
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.analysis_executor.shutdown(wait=False, cancel_futures=True)
        self._stop_processes()

    def _stop_processes(self) -> None:
        """End the AI worker processes now, not when their work is done: nothing the server started
        may outlive it (a worker also holds the multiprocessing resource tracker open)."""
        pool, self._processes = self._processes, None
        if pool is None:
            return
        # no public handle on the workers, nor on the thread that feeds them
        workers = list((getattr(pool, "_processes", None) or {}).values())
        manager = getattr(pool, "_executor_manager_thread", None)
        pool.shutdown(wait=False, cancel_futures=True)
        for w in workers:
            w.terminate()
        for w in workers:
            w.join(5)
        # The pool's queues hold named semaphores, unlinked only when the queues are freed, and its
        # manager thread holds the queues until it has seen the workers end. A server stopped by
        # SIGTERM dies of that signal right after this (uvicorn raises it again once it has shut
        # down, and no atexit runs): wait for that thread and free the queues now, or the resource
        # tracker reports the semaphores leaked.
        if manager is not None:
            manager.join(10)
        del pool, workers, manager
        gc.collect()
