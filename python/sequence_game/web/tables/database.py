"""The database thread: every store call made while serving runs in this one thread, in order,
never on the event loop (the stores serialize their calls anyway; one thread keeps them off the
shared pool). The tables (``store.py``), the seeks, the chat and the reports (``web/social.py``)
all write through it, so a move told is a move stored, and writes land in the order they were made.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

from ..store import StoreError

__all__ = ["DatabaseThread"]

_R = TypeVar("_R")

log = logging.getLogger("sequence_game.web")


class DatabaseThread:
    """One worker thread for the store calls: :meth:`call` waits for the answer, :meth:`soon` does not."""

    def __init__(self) -> None:
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="sequence-db")

    async def call(self, call: Callable[..., _R], *args: Any) -> _R:
        """``call(*args)`` (a method of a store) in the database thread: off the event loop. After
        :meth:`close` (work that finished while the server stopped, such as a review) it raises
        :class:`StoreError`, which its callers log as a row not stored, as for a full disk."""
        try:
            answer = asyncio.get_running_loop().run_in_executor(self._thread, functools.partial(call, *args))
        except RuntimeError:  # the thread is shut down: nothing was queued
            raise StoreError("the server stopped before this was stored") from None
        return await answer

    def soon(self, call: Callable[..., Any], *args: Any) -> None:
        """Queue ``call(*args)`` (a write) and go on: the writes of the seeks, the chat and the
        reports (``web/social.py``), in order with the others. A refused write is logged; after
        :meth:`close` nothing is queued any more."""
        def run() -> None:
            try:
                call(*args)
            except StoreError as e:  # a full disk: the server goes on, the row is missing
                log.error("a database write failed: %s", e)
            except Exception:  # nobody waits for this write: what stopped it must reach the log, not vanish
                log.exception("a database write failed")

        try:
            self._thread.submit(run)
        except RuntimeError:
            log.error("a database write came after the server closed: not stored")

    def close(self) -> None:
        """Finish the writes under way (a told move is a stored move), then stop."""
        self._thread.shutdown(wait=True)
