"""Run a job's units in a pool of local worker processes, retrying the unit of a worker that dies.

Each worker is a process of its own (``spawn``: nothing of the parent's state, threads or locks
is inherited) that receives the job once and then unit indices over a pipe, playing them in the
order received. While more units wait than there are workers, each worker holds two: the one it
plays and the next, so it never waits for this process (which may be busy writing a results line
or drawing the progress bar, or, on a loaded machine, not scheduled at once) between units; near
the end of the job each worker holds one, so no unit waits behind another while a worker idles.
The parent always knows which units each worker holds, so when a worker crashes or is killed (its
process ends without an answer) those units go back to the front of the queue for another worker
and a fresh worker takes the dead one's place. A unit that kills ``max_attempts`` workers in a
row stops the job with a :class:`WorkerCrashedError` error; an exception inside a unit (an agent's
illegal move, a bug) stops it at once, since playing it again would raise again.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import traceback
from collections import deque
from multiprocessing.connection import wait
from typing import Any, Callable, Deque, Dict, Iterable, List, Optional, Set

from .._args import is_int

__all__ = ["JobError", "WorkerCrashedError", "default_workers", "one_thread_per_worker", "run_pool"]


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


#: The environment variable that sets the threads of the numeric libraries (PyTorch's and
#: OpenMP's) in each worker process; unset, :func:`one_thread_per_worker` makes it 1.
THREADS_VARIABLE = "OMP_NUM_THREADS"


def one_thread_per_worker() -> None:
    """One thread for PyTorch (and any OpenMP library) in this process unless the user set
    ``OMP_NUM_THREADS``: the pool already runs a worker per core, and a policy's network evaluates
    one observation at a time, so a library's own pool of a thread per core only oversubscribes
    the machine (a ``.zip`` policy's 200 games: 16.9 s on every core against 5.6 s in one
    process with one thread). Works before and after PyTorch is imported."""
    if THREADS_VARIABLE in os.environ:  # the user's choice (PyTorch reads it when imported)
        return
    os.environ[THREADS_VARIABLE] = "1"  # for PyTorch (and OpenMP) imported after this
    torch = sys.modules.get("torch")
    if torch is not None:  # already imported (by unpickling the job): set it directly
        torch.set_num_threads(1)


def _worker_main(conn: Any, job: Any) -> None:
    # The parent handles Ctrl-C for the whole pool and ends its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    one_thread_per_worker()
    while True:
        try:
            index = conn.recv()
        except EOFError:  # the parent is gone
            return
        if index is None:
            return
        try:
            try:
                conn.send(("ok", index, job.execute(index)))
            except (BrokenPipeError, ConnectionResetError):
                raise
            except BaseException as e:  # noqa: BLE001 (anything a unit raises stops the job, in the parent)
                conn.send(("error", index, f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
        except (BrokenPipeError, ConnectionResetError):  # the parent was killed: nobody to tell
            return


class _Worker:
    def __init__(self, ctx: Any, job: Any) -> None:
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_worker_main, args=(child, job), daemon=True)
        self.process.start()
        child.close()
        self.held: Deque[int] = deque()  # units sent and not answered; held[0] is being played

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

    def replace(k: int) -> None:
        """Worker ``k`` ended: the units it held go back to the front of the queue (the one it was
        playing first), counted against that unit, and a fresh worker takes its place."""
        dead = pool[k]
        dead.kill()
        if dead.held:
            index = dead.held[0]  # the unit it was playing; the one waiting behind it is not to blame
            attempts[index] = attempts.get(index, 0) + 1
            if attempts[index] >= max_attempts:
                raise WorkerCrashedError(f"unit {index} ended its worker {attempts[index]} times "
                                         f"(last exit code {dead.process.exitcode}); stopping the job")
            if on_retry is not None:
                on_retry(index, dead.process.exitcode)
            queue.extendleft(reversed(dead.held))
        pool[k] = _Worker(ctx, job)

    def dispatch() -> None:
        # One unit for every worker first, then a second each while the queue is longer than the
        # pool (the next unit waits in the worker's pipe; see the module docstring).
        for depth in (1, 2):
            for k in range(len(pool)):
                if queue and len(pool[k].held) < depth and (depth == 1 or len(queue) > len(pool)):
                    try:
                        pool[k].conn.send(queue[0])
                    except OSError:  # the worker has ended: its units are played again elsewhere
                        replace(k)
                        continue
                    pool[k].held.append(queue.popleft())

    def collect(k: int, ready: Set[Any], finished: List[Dict[str, Any]]) -> None:
        """Every answer worker ``k`` has sent; replace it if it has ended."""
        w = pool[k]
        while w.held and (w.conn in ready or w.conn.poll()):
            ready.discard(w.conn)
            try:
                status, index, payload = w.conn.recv()
            except (EOFError, OSError):  # its pipe closed: the process ended with units unanswered
                replace(k)
                return
            if status == "error":
                raise JobError(f"unit {index} failed in worker {w.process.pid}: {payload}")
            w.held.popleft()
            finished.append(payload)

    try:
        pool = [_Worker(ctx, job) for _ in range(n)]
        while True:
            dispatch()
            busy = [w for w in pool if w.held]
            if not busy:
                return
            ready = set(wait([w.conn for w in busy] + [w.process.sentinel for w in busy]))
            finished: List[Dict[str, Any]] = []
            try:
                for k, w in enumerate(pool):
                    if w.held and (w.conn in ready or w.process.sentinel in ready):
                        collect(k, ready, finished)
                dispatch()  # the workers that answered get their next units before this process writes
            finally:  # what finished is reported even when another unit stops the job
                for payload in finished:
                    on_result(payload)
    finally:
        for w in pool:
            w.stop()
        for w in pool:
            w.process.join(timeout=2)
            w.kill()
