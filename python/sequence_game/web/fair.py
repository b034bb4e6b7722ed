"""A pool of search threads (or processes) shared fairly among client addresses.

Each client's jobs wait in its own first-in-first-out queue and the clients take turns, so a client
with twenty tables cannot push another client's one table to the back of a twenty-job queue: the
other's job waits for the jobs already running and at most one more of each client.

A :class:`FairQueue` hands its executor at most ``workers`` jobs at a time, one per worker, so the
executor never holds a backlog of its own: every job that waits, waits here, where the order is
fair. It lives on the event loop (no lock; nothing in it blocks).

The turns are rounds. The waiting job of the lowest round starts next (the earliest queued among
equals); the current round is that of the job started last. A client's next job belongs to the
current round, or to the next one if the client already had a job started in this one, and each
further job it queues to one round after the one before. A client with nothing queued or running
is forgotten: it comes back in the current round, behind the jobs that already wait in it.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
from collections import deque
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Callable, Deque, Dict, Optional, Tuple, TypeVar

__all__ = ["FairQueue"]

_R = TypeVar("_R")


@dataclass(eq=False)
class _Job:
    call: Callable[[], Any]
    future: asyncio.Future[Any]  # the caller's: the result, or cancelled when the caller went away
    seq: int  # the order of arrival, among jobs of one round


@dataclass(eq=False)
class _Client:
    jobs: Deque[_Job] = field(default_factory=deque)
    running: int = 0
    served: int = -1  # the round of its job started last


class FairQueue:
    """Jobs of many clients for one executor of ``workers`` workers, started in turn (module doc).

    ``executor`` is called for the executor whenever a job starts, so a pool made on first use or
    made again after it broke (the AI's worker processes) is the one used."""

    def __init__(self, executor: Callable[[], Executor], workers: int) -> None:
        if workers < 1:
            raise ValueError(f"a FairQueue needs at least one worker, not {workers}")
        self.workers = workers
        self._executor = executor
        self._clients: Dict[str, _Client] = {}  # the clients with a job waiting or running
        self._running = 0
        self._round = 0
        self._arrivals = itertools.count()
        self._closed = False

    @property
    def waiting(self) -> int:
        """Jobs queued and not yet started."""
        return sum(len(c.jobs) for c in self._clients.values())

    @property
    def running(self) -> int:
        """Jobs handed to the executor and not yet finished (their callers may have gone)."""
        return self._running

    async def run(self, client: str, fn: Callable[..., _R], *args: Any) -> _R:
        """``fn(*args)`` in the executor, when ``client``'s turn comes. Cancelled while it waits,
        the job is dropped; cancelled while it runs, it holds its worker until it ends (a thread
        cannot be stopped), and no other job is started in its place meanwhile."""
        if self._closed:
            raise RuntimeError("the work queue is closed: the server is stopping")
        job = _Job(functools.partial(fn, *args), asyncio.get_running_loop().create_future(), next(self._arrivals))
        self._clients.setdefault(client, _Client()).jobs.append(job)
        self._start()
        try:
            result: _R = await job.future
        except asyncio.CancelledError:
            self._drop(client, job)
            raise
        return result

    def close(self) -> None:
        """Refuse new jobs and cancel the waiting ones (the server stops); the started ones end
        with their executor."""
        self._closed = True
        for state in self._clients.values():
            for job in state.jobs:
                job.future.cancel()
            state.jobs.clear()

    def _start(self) -> None:
        """Hand the executor the next jobs in turn while it has a free worker."""
        while self._running < self.workers:
            best: Optional[Tuple[int, int, str]] = None
            for name, state in self._clients.items():
                while state.jobs and state.jobs[0].future.cancelled():  # its caller went away
                    state.jobs.popleft()
                if state.jobs:
                    key = (max(self._round, state.served + 1), state.jobs[0].seq, name)
                    if best is None or key < best:
                        best = key
            if best is None:
                return
            self._round, _, name = best
            state = self._clients[name]
            job = state.jobs.popleft()
            state.served = self._round
            state.running += 1
            self._running += 1
            try:
                done = job.future.get_loop().run_in_executor(self._executor(), job.call)
            except (RuntimeError, OSError) as e:  # an executor shut down or broken, no process to start:
                # the job fails (its caller hears why), its worker is free for the next
                failed: asyncio.Future[Any] = job.future.get_loop().create_future()
                failed.set_exception(e)
                self._settle(name, job, failed)
                continue
            done.add_done_callback(functools.partial(self._finished, name, job))

    def _finished(self, name: str, job: _Job, done: asyncio.Future[Any]) -> None:
        self._settle(name, job, done)
        self._start()

    def _settle(self, name: str, job: _Job, done: asyncio.Future[Any]) -> None:
        """A started job ended: its answer to its caller (if still there); its worker is free."""
        self._running -= 1
        state = self._clients[name]
        state.running -= 1
        if not state.jobs and not state.running:
            del self._clients[name]
        error = None if done.cancelled() else done.exception()  # retrieved even if nobody waits for it
        if not job.future.done():
            if done.cancelled():
                job.future.cancel()
            elif error is not None:
                job.future.set_exception(error)
            else:
                job.future.set_result(done.result())

    def _drop(self, name: str, job: _Job) -> None:
        """Forget a job whose caller went away before it started."""
        state = self._clients.get(name)
        if state is None:
            return
        if job in state.jobs:
            state.jobs.remove(job)
        if not state.jobs and not state.running:
            del self._clients[name]
