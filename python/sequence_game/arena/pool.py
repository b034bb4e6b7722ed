"""Run a job's units in a pool of local worker processes, retrying the unit of a worker that dies.

Each worker is a process of its own (``spawn``: nothing of the parent's state, threads or locks
is inherited) that receives the job once and then one unit index at a time over a pipe. The
parent always knows which unit each worker holds, so when a worker crashes or is killed (its
process ends without an answer) that unit goes back to the front of the queue for another worker
and a fresh worker takes the dead one's place. A unit that kills ``max_attempts`` workers in a
row stops the job with a :class:`WorkerCrashedError` error; an exception inside a unit (an agent's
illegal move, a bug) stops it at once, since playing it again would raise again.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import traceback
from collections import deque
from multiprocessing.connection import wait
from typing import Any, Callable, Deque, Dict, Iterable, List, Optional

from .._args import is_int

__all__ = ["JobError", "WorkerCrashedError", "default_workers", "run_pool"]


class JobError(RuntimeError):
    """A unit of a job raised an exception (the message has the worker's traceback)."""


class WorkerCrashedError(RuntimeError):
    """A unit's worker died ``max_attempts`` times (a crash in the unit itself, not bad luck)."""


def default_workers() -> int:
    """The CPUs this process may use (``os.sched_getaffinity`` where it exists), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def _worker_main(conn: Any, job: Any) -> None:
    # The parent handles Ctrl-C for the whole pool and ends its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            index = conn.recv()
        except EOFError:  # the parent is gone
            return
        if index is None:
            return
        try:
            conn.send(("ok", index, job.execute(index)))
        except BaseException as e:  # noqa: BLE001 (anything a unit raises stops the job, in the parent)
            conn.send(("error", index, f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))


class _Worker:
    def __init__(self, ctx: Any, job: Any) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, job), daemon=True)
        self.process.start()
        child.close()
        self.index: Optional[int] = None

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (OSError, ValueError):
            pass

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(timeout=5)
        self.conn.close()


def run_pool(job: Any, indices: Iterable[int], on_result: Callable[[Dict[str, Any]], None],
             workers: Optional[int] = None, max_attempts: int = 3, start_method: str = "spawn",
             on_retry: Optional[Callable[[int, int], None]] = None) -> None:
    """Run ``job.execute(i)`` for every ``i`` of ``indices`` in ``workers`` processes (default:
    :func:`default_workers`), calling ``on_result(result)`` in this process as each one finishes.

    ``on_retry(index, exitcode)`` is told about each unit whose worker died before it is retried.
    """
    queue: Deque[int] = deque(indices)
    if not queue:
        return
    n = default_workers() if workers is None else workers
    if not is_int(n) or n < 1:
        raise ValueError(f"workers must be a positive int, not {workers!r}")
    n = min(n, len(queue))
    ctx = multiprocessing.get_context(start_method)
    attempts: Dict[int, int] = {}
    pool: List[_Worker] = []
    try:
        pool = [_Worker(ctx, job) for _ in range(n)]
        while True:
            for k, w in enumerate(pool):
                if w.index is None and queue:
                    try:
                        w.conn.send(queue[0])
                    except OSError:  # an idle worker died: replace it, the unit waits
                        w.kill()
                        pool[k] = _Worker(ctx, job)
                        continue
                    w.index = queue.popleft()
            busy = [w for w in pool if w.index is not None]
            if not busy:
                return
            ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
            for k, w in enumerate(pool):
                if w.index is None or (w.conn not in ready and w.process.sentinel not in ready):
                    continue
                message = None
                if w.conn in ready or w.conn.poll():
                    try:
                        message = w.conn.recv()
                    except (EOFError, OSError):
                        message = None
                if message is None:  # the worker died holding its unit: retry it on a fresh worker
                    index = w.index
                    w.kill()
                    attempts[index] = attempts.get(index, 0) + 1
                    if attempts[index] >= max_attempts:
                        raise WorkerCrashedError(f"unit {index} ended its worker {attempts[index]} times "
                                            f"(last exit code {w.process.exitcode}); stopping the job")
                    if on_retry is not None:
                        on_retry(index, w.process.exitcode)
                    queue.appendleft(index)
                    pool[k] = _Worker(ctx, job)
                    continue
                status, index, payload = message
                w.index = None
                if status == "error":
                    raise JobError(f"unit {index} failed in worker {w.process.pid}: {payload}")
                on_result(payload)
    finally:
        for w in pool:
            w.stop()
        for w in pool:
            w.process.join(timeout=2)
            w.kill()
