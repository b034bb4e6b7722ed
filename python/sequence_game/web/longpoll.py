"""The long-poll: an answer that waits for a change instead of a client that polls (a table's next
version, the lobby's next seek list, a seek's acceptance).

Every long-poll of the server waits with :func:`wait_until`, counted among its client's open
connections while it waits (``TableService.holding``, ``ServerLimits.max_sockets_per_client``): a
client cannot tie up the server with waiting requests.
"""

from __future__ import annotations

import asyncio
from typing import Callable, Optional

__all__ = ["DEFAULT_WAIT", "MAX_WAIT", "wait_until"]

#: The longest a long-poll waits (seconds), and how long it waits when the request does not say.
MAX_WAIT = 60.0
DEFAULT_WAIT = 25.0


async def wait_until(done: Callable[[], bool], changed: Callable[[], asyncio.Event], seconds: float,
                     every: Optional[float] = None, quiet: Optional[Callable[[], None]] = None) -> None:
    """Return once ``done()`` holds or ``seconds`` passed. ``changed()``: the event set at the next
    change (looked up again after each: a change replaces it), when ``done`` is asked again.
    ``quiet``: called after each ``every`` seconds without a change (the lobby expires the seeks
    whose posters went away while it waits)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not done():
        remaining = deadline - loop.time()
        if remaining <= 0:
            return
        try:
            await asyncio.wait_for(changed().wait(), remaining if every is None else min(remaining, every))
        except asyncio.TimeoutError:
            if quiet is not None:
                quiet()
