"""Run a job's units as Ray tasks (the ``sequence-game[ray]`` extra), on this machine or a cluster.

Each unit is one Ray task (``num_cpus=1``) running the same ``job.execute(index)`` as the local
pool, so a job gives the same results under Ray (with fixed budgets). The job is put in Ray's
object store once; at most ``2 x`` the cluster's CPUs tasks are in flight, so a long job does not
flood the scheduler, and results come back to this process as each task finishes (the results
file and the progress bar are written here). Ray retries a task whose worker process or node dies
(``max_retries``). Every node must have the same ``sequence-game`` installed.

This module is imported only when Ray is asked for; ``ray`` itself is imported inside
:func:`run_ray`.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Dict, Iterable, Optional

__all__ = ["RAY_EXTRA_MESSAGE", "import_ray", "run_ray"]

RAY_EXTRA_MESSAGE = ("running games on Ray needs the 'ray' extra: pip install 'sequence-game[ray]' "
                     "(or run without --ray to use a local process pool)")


def import_ray() -> Any:
    """``ray``, or an ImportError that names the extra."""
    try:
        import ray
    except ImportError as e:
        raise ImportError(f"{RAY_EXTRA_MESSAGE} ({e})") from None
    return ray


def _execute(job: Any, index: int) -> Dict[str, Any]:
    result: Dict[str, Any] = job.execute(index)
    return result


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
        elif num_cpus is not None:
            kwargs["num_cpus"] = num_cpus
        ray.init(**kwargs)
    return ray


def run_ray(job: Any, indices: Iterable[int], on_result: Callable[[Dict[str, Any]], None],
            address: Optional[str] = None, num_cpus: Optional[int] = None, max_retries: int = 3) -> float:
    """Run ``job.execute(i)`` for every ``i`` of ``indices`` as Ray tasks, calling
    ``on_result(result)`` here as each finishes. Connects first (see :func:`connect`); returns
    the seconds spent connecting (Ray's start-up, reported separately from the games)."""
    t0 = time.perf_counter()
    ray = connect(address, num_cpus)
    startup = time.perf_counter() - t0
    todo = list(indices)
    if not todo:
        return startup
    remote = ray.remote(num_cpus=1, max_retries=max_retries, retry_exceptions=False)(_execute)
    job_ref = ray.put(job)
    window = max(2, 2 * int(ray.cluster_resources().get("CPU", 1)))
    pending: Dict[Any, int] = {}
    k = 0
    try:
        while k < len(todo) or pending:
            while k < len(todo) and len(pending) < window:
                pending[remote.remote(job_ref, todo[k])] = todo[k]
                k += 1
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                index = pending.pop(ref)
                try:
                    result = ray.get(ref)
                except ray.exceptions.RayTaskError as e:
                    from .pool import JobError

                    raise JobError(f"unit {index} failed on Ray: {e}") from None
                on_result(result)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)
    return startup
