"""Run any job (:mod:`.jobs`): in this process, a local process pool or Ray, streaming each
finished unit to a results file and a progress display, and skipping the units a resumed file
already has."""

from __future__ import annotations

import os
import time
from typing import Any, Callable, Dict, List, Optional, Union

from .pool import default_workers, run_pool
from .results import ResultsFile

__all__ = ["RichProgress", "run_job"]

Progress = Union[None, bool, Callable[[int, int], None]]

REPORT_SECONDS = 0.25  # the least time between two updates of a progress display


class RichProgress:
    """A live ``rich`` progress bar: units done of all, the job's own statistics so far
    (``job.progress_text(entries)``: win rates with intervals for a match), units/min this
    session and the time left."""

    def __init__(self, job: Any, console: Any = None, unit: str = "games") -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
        from rich.table import Column

        self.job, self.unit = job, unit
        # The statistics name the agents: on a narrow terminal they fold over lines, never cut with an
        # ellipsis (two policy files that share a prefix would both read "policy:gym_g...").
        stats = TextColumn("{task.fields[stats]}", table_column=Column(overflow="fold", ratio=1))
        self.bar = Progress(BarColumn(bar_width=20), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                            TextColumn("ETA"), TimeRemainingColumn(), stats, console=console, transient=False)
        self.task: Any = None
        self._t0 = 0.0
        self._resumed = 0

    def start(self, entries: List[Dict[str, Any]], total: int) -> None:
        self.bar.start()
        self._t0, self._resumed = time.perf_counter(), len(entries)
        self.task = self.bar.add_task(getattr(self.job, "title", "job"), total=total, completed=len(entries),
                                      rate="", stats=self.job.progress_text(entries))

    def update(self, entries: List[Dict[str, Any]]) -> None:
        per_min = 60.0 * (len(entries) - self._resumed) / max(1e-9, time.perf_counter() - self._t0)
        self.bar.update(self.task, completed=len(entries), rate=f"{per_min:.1f} {self.unit}/min",
                        stats=self.job.progress_text(entries))

    def stop(self) -> None:
        self.bar.stop()


def run_job(job: Any, workers: Optional[int] = 1, ray: Union[bool, str, None] = None,
            results: Optional[str] = None, resume: bool = False, progress: Any = None,
            on_retry: Optional[Callable[[int, int], None]] = None) -> List[Dict[str, Any]]:
    """Play every unit of ``job`` that ``results`` does not have yet; all units' results, by index.

    ``workers``: 1 plays in this process; ``None`` uses every core; ``N`` a pool of ``N``
    processes. ``ray``: ``True`` (join the local Ray instance or start one) or an address uses
    Ray instead of the pool. ``results``: a JSON-lines file written as units finish; with
    ``resume`` it may exist already (it must belong to the same job) and only missing units are
    played. ``progress``: ``callable(done, total)`` after every unit, or an object with
    ``start(entries, total)``, ``update(entries)`` and ``stop()`` such as :class:`RichProgress`;
    ``update`` gets every finished unit's result in index order, at most every
    :data:`REPORT_SECONDS` and after the last unit (recomputing a match's statistics after every
    one of thousands of cheap games would cost this process more than the games cost a worker).
    """
    entries: Dict[int, Dict[str, Any]] = {}
    out: Optional[ResultsFile] = None
    if results is not None:
        if resume and os.path.exists(results):
            out, old = ResultsFile.resume(results, job.header(), job.identity())
            entries.update((e["index"], e) for e in old)
        else:
            out = ResultsFile.create(results, job.header())
    todo = [i for i in range(job.size) if i not in entries]
    total = job.size
    reporter = progress if hasattr(progress, "update") else None
    callback = progress if callable(progress) and reporter is None else None
    reported = [time.perf_counter(), len(entries)]  # when the reporter was last updated, and with how many

    def on_result(entry: Dict[str, Any]) -> None:
        if entry["index"] in entries:  # pragma: no cover - a runner never returns a unit twice
            return
        store = getattr(job, "store", None)
        if store is not None:  # a job with output of its own (self-play shards) writes it here
            entry = store(entry)
        if out is not None:
            out.append(entry)
        entries[entry["index"]] = entry
        if reporter is not None and time.perf_counter() - reported[0] >= REPORT_SECONDS:
            reporter.update(_ordered(entries))
            reported[:] = [time.perf_counter(), len(entries)]
        if callback is not None:
            callback(len(entries), total)

    if reporter is not None:
        reporter.start(_ordered(entries), total)
    try:
        if ray is not None and ray is not False:
            job.check_portable()
            from .ray_runner import HeadLostError, run_ray

            try:
                run_ray(job, todo, on_result, address=None if ray is True else str(ray))
            except HeadLostError as e:
                if results is None:
                    raise
                raise HeadLostError(f"{e}; the finished units are in {results}: run again with --resume") from None
        elif workers == 1 or len(todo) <= 1:
            for i in todo:
                on_result(job.execute(i))
        else:
            job.check_portable()
            run_pool(job, todo, on_result, workers=workers if workers is not None else default_workers(),
                     on_retry=on_retry)
    finally:
        if reporter is not None:
            if reported[1] != len(entries):
                reporter.update(_ordered(entries))
            reporter.stop()
        if out is not None:
            out.close()
    return _ordered(entries)


def _ordered(entries: Dict[int, Dict[str, Any]]) -> List[Dict[str, Any]]:
    return [entries[i] for i in sorted(entries)]
