"""Running an agent's blocking work from asyncio: on the loop's default executor, stopping the
work's search when the awaiting task is cancelled."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

__all__ = ["in_thread"]

_T = TypeVar("_T")


async def in_thread(flag: Any, work: Callable[[], _T]) -> _T:
    """``work()`` in the loop's default executor; a cancelled await raises ``flag`` first, so the
    thread's search ends soon instead of running on unseen."""
    import asyncio  # here, not at the top: `import sequence_game` does not need it (an awaiting caller has it)

    future = asyncio.get_running_loop().run_in_executor(None, work)
    try:
        return await future
    except asyncio.CancelledError:
        flag.set()
        raise
