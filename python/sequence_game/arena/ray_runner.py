"""Run a job's units as Ray tasks (the ``sequence-game[ray]`` extra), on this machine or a cluster.

Each task (``num_cpus=1``) runs the same ``job.execute(index)`` as the local pool for one unit, or
for a batch of cheap units (sized from the tasks already finished, :func:`run_ray`), so a job
gives the same results under Ray (with fixed budgets). Each result names the node that played it
(``"node"``: Ray's node id). The job is put in Ray's
object store once; at most ``2 x`` the cluster's CPUs tasks are in flight, so a long job does not
flood the scheduler, and results come back to this process as each task finishes (the results
file and the progress bar are written here). Ray retries a task whose worker process or node dies
(``max_retries``). Every node must have the same ``sequence-game`` installed.

This module is imported only when Ray is asked for; ``ray`` itself is imported inside
:func:`run_ray`.
"""

from __future__ import annotations

import os
import re
import time
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from .pool import JobError

__all__ = ["RAY_EXTRA_MESSAGE", "HeadLostError", "import_ray", "run_ray"]

#: The time a task should take when units are cheap: Ray's cost per task (scheduling, a worker
#: round trip; ``benchmarks/test_ray_benchmarks.py``) is then a small part of it.
TASK_SECONDS = 0.25
MAX_BATCH = 256
#: How long the head node (its GCS) may be unreachable before the run stops: long enough for a
#: network hiccup, far shorter than the minute after which Ray itself ends this process. The
#: environment variable SEQUENCE_RAY_HEAD_TIMEOUT (seconds) overrides it.
HEAD_LOST_SECONDS = 10.0


class HeadLostError(JobError):
    """The Ray head node stopped answering: the run cannot go on (its finished units are kept)."""

RAY_EXTRA_MESSAGE = ("running games on Ray needs the 'ray' extra: pip install 'sequence-game[ray]' "
                     "(or run without --ray to use a local process pool)")


def import_ray() -> Any:
    """``ray``, or an ImportError that names the extra."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(f"{RAY_EXTRA_MESSAGE} ({e})") from None
    return ray


def _execute(job: Any, indices: List[int]) -> Tuple[List[Dict[str, Any]], float]:
    """Play units ``indices`` in one task; their results, each with the node that played it, and
    the task's seconds (which the driver uses to size the next batches)."""
    import ray

    t0 = time.perf_counter()
    node = ray.get_runtime_context().get_node_id()
    results = []
    for index in indices:
        result: Dict[str, Any] = job.execute(index)
        result["node"] = node
        results.append(result)
    return results, time.perf_counter() - t0


def connect(address: Optional[str] = None, num_cpus: Optional[int] = None) -> Any:
    """Join the Ray instance at ``address`` (``"auto"``, ``"ray://host:10001"``, ``"host:6379"``),
    or with ``address=None`` the one already running on this machine, else start a local one
    (with ``num_cpus`` CPUs, default all). Returns the ``ray`` module."""
    ray = import_ray()
    if not ray.is_initialized():
        kwargs: Dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                  "configure_logging": True, "logging_level": "warning"}
        if address:
            kwargs["address"] = address
        elif not os.environ.get("RAY_ADDRESS") and not _local_cluster_answers():
            # Ray itself would join the address a `ray start` left in its temp folder even when
            # that cluster is long dead (and refuse num_cpus for it): start a fresh one instead.
            kwargs["address"] = "local"
            if num_cpus is not None:
                kwargs["num_cpus"] = num_cpus
        refused = tuple(c for c in (ConnectionError, getattr(ray.exceptions, "AuthenticationError", None)) if c)
        try:
            ray.init(**kwargs)
        except refused as e:
            raise JobError(_join_error(address, e)) from None
    return ray


def _local_cluster_answers(timeout: float = 1.0) -> bool:
    """Whether the cluster that the last ``ray start`` on this machine recorded (Ray's
    ``ray_current_cluster`` file) still accepts connections at its address."""
    import socket
    import sys
    import tempfile

    base = os.environ.get("RAY_TMPDIR")  # where Ray keeps it (ray._common.utils)
    if base is None:
        if sys.platform.startswith("linux") and "TMPDIR" in os.environ:
            base = os.environ["TMPDIR"]
        elif sys.platform.startswith(("linux", "darwin")):
            base = "/tmp"
        else:
            base = tempfile.gettempdir()
    try:
        with open(os.path.join(base, "ray", "ray_current_cluster"), encoding="utf-8") as f:
            host, _, port = f.read().strip().rpartition(":")
        with socket.create_connection((host, int(port)), timeout=timeout):
            return True
    except (OSError, ValueError):
        return False


_COLOURS = re.compile(r"\x1b\[[0-9;]*m")


def _join_error(address: Optional[str], e: BaseException) -> str:
    """One line for a failed ``ray.init``: the address, and what to do when the cluster wants Ray's
    authentication token (Ray 2.52 and later, ``RAY_AUTH_MODE=token``) that this process lacks."""
    where = f"the Ray cluster at {address}" if address else "a local Ray instance"
    chain: List[str] = []
    cause: Optional[BaseException] = e
    while cause is not None and len(chain) < 5:
        chain.append(str(cause))
        cause = cause.__cause__ or cause.__context__
    if any("InvalidAuthToken" in c or "authentication token" in c.lower() for c in chain):
        return (f"cannot join {where}: it refused this process's authentication token (none, or another): set "
                "RAY_AUTH_MODE=token and the cluster's token (RAY_AUTH_TOKEN, or the file ~/.ray/auth_token) here, "
                "as on its nodes")
    return f"cannot join {where}: {_one_line(e)}"


def _one_line(e: BaseException) -> str:
    """An error Ray raised, on one line: its first line (for a task: the task, its process and node)
    and its last (the exception), without Ray's terminal colours; and what to do when a node cannot
    import this package."""
    text = _COLOURS.sub("", str(e))
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    if not lines:
        return type(e).__name__
    line = lines[0] if lines[-1] == lines[0] else f"{lines[0]}: {lines[-1]}"
    if "No module named 'sequence_game'" in text:
        line += " (every node needs sequence-game: installed, or on the PYTHONPATH of its `ray start`)"
    return line


def run_ray(job: Any, indices: Iterable[int], on_result: Callable[[Dict[str, Any]], None],
            address: Optional[str] = None, num_cpus: Optional[int] = None, max_retries: int = 3,
            batch: Optional[int] = None) -> float:
    """Run ``job.execute(i)`` for every ``i`` of ``indices`` as Ray tasks, calling
    ``on_result(result)`` here as each finishes. Connects first (see :func:`connect`); returns
    the seconds spent connecting (Ray's start-up, reported separately from the games).

    ``batch``: units per task; None sizes batches from the tasks seen so far, so that a task lasts
    about :data:`TASK_SECONDS` (one unit while no task has finished; never so many that a CPU of
    the cluster would go without a task: at most the remaining units / (2 x CPUs)).
    A task whose worker or node dies is run again by Ray (``max_retries`` times); its units'
    results reach ``on_result`` once, from the run that finished.
    """
    t0 = time.perf_counter()
    ray = connect(address, num_cpus)
    startup = time.perf_counter() - t0
    todo = list(indices)
    if not todo:
        return startup
    remote = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(_execute)
    job_ref = ray.put(job)
    cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
    window = max(2, 2 * cpus)
    watch = _HeadWatch(ray.get_runtime_context().gcs_address)
    pending: Dict[Any, List[int]] = {}
    seen = [0.0, 0]  # task seconds and units of the finished tasks
    k = 0
    try:
        while k < len(todo) or pending:
            while k < len(todo) and len(pending) < window:
                size = batch or _batch_size(seen, len(todo) - k, cpus)
                chunk = todo[k:k + size]
                pending[remote.remote(job_ref, chunk)] = chunk
                k += len(chunk)
            done, _ = ray.wait(list(pending), num_returns=1, timeout=1.0)
            watch.check()
            for ref in done:
                chunk = pending.pop(ref)
                try:
                    results, seconds = ray.get(ref)
                except ray.exceptions.RayError as e:
                    what = f"unit {chunk[0]}" if len(chunk) == 1 else f"units {chunk[0]}..{chunk[-1]}"
                    raise JobError(f"{what} failed on Ray: {_one_line(e)}") from None
                seen[0] += seconds
                seen[1] += len(chunk)
                for result in results:
                    on_result(result)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
    return startup


class _HeadWatch:
    """Raises HeadLostError once the head's GCS port has refused connections for
    HEAD_LOST_SECONDS (tried at most once a second). Tasks already leased to the worker nodes go
    on finishing for a while without the head, but nothing can recover from a node failure then,
    and Ray ends this process a minute later: better to stop now, with the finished units kept."""

    def __init__(self, address: str) -> None:
        host, _, port = address.rpartition(":")
        self.address, self.host, self.port = address, host, int(port)
        self.lost_since: Optional[float] = None
        self.checked = 0.0
        try:
            self.limit = float(os.environ.get("SEQUENCE_RAY_HEAD_TIMEOUT", HEAD_LOST_SECONDS))
        except ValueError:
            self.limit = HEAD_LOST_SECONDS

    def check(self) -> None:
        import socket

        if time.monotonic() - self.checked < 1.0:
            return
        self.checked = time.monotonic()
        try:
            socket.create_connection((self.host, self.port), timeout=1.0).close()
            self.lost_since = None
        except OSError:
            now = time.monotonic()
            self.lost_since = self.lost_since or now
            if now - self.lost_since >= self.limit:
                raise HeadLostError(
                    f"lost the Ray head node at {self.address} (no answer for {self.limit:g} s); resume the run "
                    "on a new cluster (or without Ray)") from None


def _batch_size(seen: List[float], remaining: int, cpus: int) -> int:
    seconds, units = seen
    if units == 0 or seconds <= 0:
        return 1
    wanted = int(TASK_SECONDS / (seconds / units))
    return max(1, min(wanted, MAX_BATCH, remaining // (2 * cpus)))
