"""The long-poll's wait (sequence_game.web.longpoll.wait_until), which every long-poll of the server
uses: a table's next version, the lobby's next seek list, a seek's acceptance."""

from __future__ import annotations

import asyncio
import time

import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed")

from sequence_game.web.longpoll import wait_until


class Board:
    """A thing that changes: ``version`` counts the changes, ``changed`` is replaced at each."""

    def __init__(self) -> None:
        self.version = 0
        self.changed = asyncio.Event()

    def bump(self) -> None:
        self.version += 1
        event, self.changed = self.changed, asyncio.Event()
        event.set()


def test_it_returns_at_the_change_that_makes_it_done_not_before():
    async def run():
        board = Board()
        loop = asyncio.get_running_loop()
        for delay in (0.05, 0.1, 0.15):
            loop.call_later(delay, board.bump)
        start = time.monotonic()
        await wait_until(lambda: board.version >= 3, lambda: board.changed, 10.0)
        return board.version, time.monotonic() - start

    version, took = asyncio.run(run())
    assert version == 3 and 0.1 < took < 5.0


def test_it_returns_at_once_when_done_and_after_its_seconds_otherwise():
    async def run():
        board = Board()
        start = time.monotonic()
        await wait_until(lambda: True, lambda: board.changed, 10.0)
        at_once = time.monotonic() - start
        start = time.monotonic()
        await wait_until(lambda: False, lambda: board.changed, 0.2)
        return at_once, time.monotonic() - start

    at_once, timed_out = asyncio.run(run())
    assert at_once < 0.05 and 0.15 < timed_out < 5.0


def test_quiet_runs_after_every_quiet_spell_and_may_end_the_wait():
    """The lobby expires its seeks after each quiet spell while it waits; an expiry is a change."""
    calls = []

    async def run():
        board = Board()

        def quiet():
            calls.append(board.version)
            if len(calls) == 3:
                board.bump()

        await wait_until(lambda: board.version > 0, lambda: board.changed, 10.0, every=0.05, quiet=quiet)
        return board.version

    assert asyncio.run(run()) == 1 and calls == [0, 0, 0]
