"""The review of finished games (:mod:`sequence_game.review`) for the web: one review per table,
computed once in the server's analysis threads and kept in the database beside the record.

A review is offered for finished games only: it grades every decision in the mover's view, and
before the end that would tell a player about the others' decisions. It needs no search (a
valuation per legal move of every decision: well under a second a game). At most
``ServerLimits.max_reviews`` run at once; a table asked again while its review runs gets its
progress; one client address may have ``ServerLimits.max_reviews_per_client`` of them running, and
a game longer than ``ServerLimits.max_review_moves`` is not reviewed (a review's cost grows with the
game's length). A stored review made another way (an older ``method``) is made again.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Dict, Optional

from ..records import utc_now
from ..review import METHOD, review_game
from .errors import BusyError, NotNowError, ServerFullError, TooLargeError
from .limits import ServerLimits
from .store import StoreError
from .tables import Table, TableService

__all__ = ["ReviewService"]

log = logging.getLogger("sequence_game.web")

@dataclass
class _Job:
    done: int
    total: int
    task: asyncio.Task[None]
    client: str


class ReviewService:
    """Reviews of finished tables: read, start, progress."""

    def __init__(self, tables: TableService, limits: Optional[ServerLimits] = None) -> None:
        self.tables = tables
        self._limits = limits
        self.jobs: Dict[str, _Job] = {}

    @property
    def limits(self) -> ServerLimits:
        """The limits given, or the table service's (they change with it)."""
        return self._limits or self.tables.limits

    async def status(self, table: Table) -> Optional[Dict[str, Any]]:
        """``{"status": "ready", "review": ...}``, ``{"status": "running", "done", "total"}``, or None
        (no review yet)."""
        _check_finished(table)
        job = self.jobs.get(table.id)
        if job is not None:
            return {"status": "running", "done": job.done, "total": job.total}
        stored = await self.tables.db(self.tables.store.get_review, table.id)
        if stored is not None and stored.get("method") == METHOD:
            return {"status": "ready", "review": stored}
        return None

    async def start(self, table: Table, client: str = "?") -> Dict[str, Any]:
        """The review's status, starting it if there is none (for ``client``: it waits for that
        address's turn at the analysis threads, ``AIWork.analysis_queue``)."""
        now = await self.status(table)
        if now is not None:
            return now
        limits, record = self.limits, table.record
        if len(record.moves) > limits.max_review_moves:
            raise TooLargeError(f"this game has {len(record.moves)} moves; the server reviews games of at most "
                                f"{limits.max_review_moves} moves (a review searches every position)")
        mine = sum(job.client == client for job in self.jobs.values())
        if mine >= limits.max_reviews_per_client:
            raise BusyError(f"your address already has {mine} review(s) running, the most one client may have: "
                            "wait for it to finish")
        if len(self.jobs) >= limits.max_reviews:
            raise ServerFullError(f"the server is reviewing {len(self.jobs)} games already; try again in a few "
                                  "seconds")
        job = _Job(0, len(record.moves), None, client)  # type: ignore[arg-type]
        loop = asyncio.get_running_loop()

        def progress(done: int, total: int) -> None:
            job.done, job.total = done, total

        async def run() -> None:
            try:
                review = await self.tables.in_analysis_threads(client, lambda: review_game(
                    record, progress=progress))
                await self.tables.db(self.tables.store.save_review, table.id, review.to_dict(), utc_now())
            except StoreError as e:
                log.error("table %s: the review was not stored: %s", table.id, e)
            except Exception:  # pragma: no cover - a failed review must not take the server down
                log.exception("table %s: the review failed", table.id)
            finally:
                self.jobs.pop(table.id, None)

        job.task = loop.create_task(run())
        self.jobs[table.id] = job
        return {"status": "running", "done": 0, "total": job.total}

    def close(self) -> None:
        for job in list(self.jobs.values()):
            job.task.cancel()


def _check_finished(table: Table) -> None:
    if not table.over:
        raise NotNowError("the game is not over: the AI reviews a game after its end (until then it would "
                          "tell players about each other's moves)")
