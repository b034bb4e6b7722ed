"""The AI's threads shared fairly among client addresses (``web/fair.py``, docs/security.md): each
address's jobs wait in order and the addresses take turns. Deterministic: one worker, held by a
gate, so the order in which jobs start is the order of service."""

from __future__ import annotations

import asyncio
import functools
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from sequence_game.web import create_app
from sequence_game.web.fair import FairQueue
from sequence_game.web.limits import ServerLimits
from web_support import BASE, wait_for


class Gate:
    """Jobs that note when they start and then wait until the gate opens."""

    def __init__(self) -> None:
        self.opened = threading.Event()
        self.started: list = []

    def job(self, name):
        self.started.append(name)
        assert self.opened.wait(20), "the gate never opened"
        return name


async def _hold_worker(queue: FairQueue, gate: Gate, first: str = "A1") -> asyncio.Future:
    """Job ``first`` (of client ``first[0]``), once it has started and holds the one worker."""
    running = asyncio.ensure_future(queue.run(first[0], gate.job, first))
    while gate.started != [first]:
        await asyncio.sleep(0.001)
    return running


async def _queue_and_release(queue: FairQueue, gate: Gate, jobs, first: str = "A1"):
    """``first`` starts (and holds the one worker); then ``jobs`` (client, name) are queued in
    order; then the gate opens. Returns the order in which every job started."""
    running = [await _hold_worker(queue, gate, first)]
    for client, name in jobs:
        running.append(asyncio.ensure_future(queue.run(client, gate.job, name)))
        await asyncio.sleep(0)  # each queued before the next
    assert queue.waiting == len(jobs) and queue.running == 1
    gate.opened.set()
    assert await asyncio.gather(*running) == [first] + [name for _, name in jobs]
    return gate.started


@pytest.fixture
def pool():
    executor = ThreadPoolExecutor(1)
    yield executor
    executor.shutdown(wait=True)


def test_one_address_with_many_jobs_does_not_push_another_to_the_back(pool):
    gate = Gate()
    queue = FairQueue(lambda: pool, 1)
    order = asyncio.run(_queue_and_release(queue, gate, [("A", f"A{k}") for k in range(2, 21)] + [("B", "B1")]))
    assert order[:3] == ["A1", "B1", "A2"]  # B waited for A's one running job, not for A's nineteen queued
    assert order[3:] == [f"A{k}" for k in range(3, 21)]
    assert queue.waiting == 0 and queue.running == 0 and not queue._clients  # nothing kept for idle addresses


def test_addresses_take_turns_and_each_keeps_its_own_order(pool):
    gate = Gate()
    queue = FairQueue(lambda: pool, 1)
    jobs = [("A", "A2"), ("A", "A3"), ("B", "B1"), ("B", "B2"), ("B", "B3"), ("C", "C1")]
    order = asyncio.run(_queue_and_release(queue, gate, jobs))
    assert order == ["A1", "B1", "C1", "A2", "B2", "A3", "B3"]


def test_a_job_whose_caller_left_before_it_started_never_runs(pool):
    gate = Gate()
    queue = FairQueue(lambda: pool, 1)

    async def scenario():
        first = await _hold_worker(queue, gate)
        gone = asyncio.ensure_future(queue.run("B", gate.job, "B1"))
        kept = asyncio.ensure_future(queue.run("C", gate.job, "C1"))
        await asyncio.sleep(0)
        gone.cancel()
        await asyncio.sleep(0)
        assert queue.waiting == 1 and "B" not in queue._clients
        gate.opened.set()
        assert await asyncio.gather(first, kept) == ["A1", "C1"]

    asyncio.run(scenario())
    assert gate.started == ["A1", "C1"]


def test_a_running_job_whose_caller_left_holds_its_worker_until_it_ends(pool):
    """A thread cannot be stopped: the next job starts when the worker is really free, so the
    executor is never handed more jobs than it has workers."""
    gate = Gate()
    queue = FairQueue(lambda: pool, 1)

    async def scenario():
        first = await _hold_worker(queue, gate)
        first.cancel()
        nxt = asyncio.ensure_future(queue.run("B", gate.job, "B1"))
        await asyncio.sleep(0.05)
        assert gate.started == ["A1"] and queue.running == 1 and queue.waiting == 1
        gate.opened.set()
        assert await nxt == "B1"
        assert first.cancelled()

    asyncio.run(scenario())


def test_a_broken_executor_fails_the_job_and_frees_its_place():
    broken = ThreadPoolExecutor(1)
    broken.shutdown()
    queue = FairQueue(lambda: broken, 1)

    async def scenario():
        with pytest.raises(RuntimeError, match="shutdown"):
            await queue.run("A", len, "abc")
        assert queue.running == 0 and not queue._clients

    asyncio.run(scenario())


def test_close_cancels_the_waiting_jobs_and_refuses_new_ones(pool):
    gate = Gate()
    queue = FairQueue(lambda: pool, 1)

    async def scenario():
        first = await _hold_worker(queue, gate)
        waiting = asyncio.ensure_future(queue.run("B", gate.job, "B1"))
        await asyncio.sleep(0)
        queue.close()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        with pytest.raises(RuntimeError, match="closed"):
            await queue.run("C", gate.job, "C1")
        gate.opened.set()
        assert await first == "A1"  # a started job ends as it would

    asyncio.run(scenario())
    assert gate.started == ["A1"]


def test_table_ai_moves_are_served_in_turn_by_creating_address(monkeypatch):
    """Through the table service: one AI thread; address A's three tables and B's one each queue an
    AI move while A's first holds the thread. B's table moves second, before A's second table, and
    A's third comes before A's first table moves again."""
    gate = Gate()

    class Held:
        """An agent whose move notes its table, then waits for the gate."""

        def __init__(self, table_id):
            self.table_id = table_id

        def select_move(self, game):
            gate.job(self.table_id)
            return game.legal_moves()[0]

    ai = [{"kind": "ai", "ai": "random"}, {"kind": "ai", "ai": "random"}]
    limits = ServerLimits(ai_workers=1)
    try:
        with TestClient(create_app(ai_pause=0, limits=limits), base_url=BASE) as c:
            service = c.app.state.service
            # this server's AI only: a server of another test still stopping in this process keeps its own
            monkeypatch.setattr(service.ai, "agent", lambda table, seat: Held(table.id))

            def create(client):
                table, _ = c.portal.call(functools.partial(service.create, 2, None, ai, seed=1, client=client))
                return table.id

            a1 = create("10.0.0.1")
            wait_for(lambda: gate.started == [a1])
            a2, a3 = create("10.0.0.1"), create("10.0.0.1")
            b1 = create("10.0.0.2")
            wait_for(lambda: service.ai_queue.waiting == 3)
            gate.opened.set()
            wait_for(lambda: len(gate.started) >= 5)
            assert gate.started[:3] == [a1, b1, a2]
            # Then a3, unless b1's next AI move was queued by the time a2 ended: that one is in a2's
            # round (B had no job in it yet) and goes first, and a3 next (it arrived before B's
            # move after that). A's first table moves again only after a3: one address's jobs keep
            # their order.
            assert a3 in gate.started[3:5], gate.started
    finally:
        gate.opened.set()


def test_a_resumed_table_is_its_own_address(tmp_path):
    """The creating address is not stored: after a restart each table takes its own turn."""
    path = tmp_path / "tables.sqlite3"
    ai = [{"kind": "human"}, {"kind": "ai", "ai": "random"}]
    with TestClient(create_app(path, ai_pause=0), base_url=BASE) as c:
        service = c.app.state.service
        table, _ = c.portal.call(functools.partial(service.create, 2, None, ai, seed=1, client="10.0.0.1"))
        assert table.owner == "10.0.0.1"
    with TestClient(create_app(path, ai_pause=0), base_url=BASE) as c:
        assert c.app.state.service.tables[table.id].owner == f"table {table.id}"
