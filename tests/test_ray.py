"""Games as Ray tasks (python/sequence_game/arena/ray_runner.py): the same results as the local
pool, the same results file; without the extra, an error that names it.

Starting Ray takes about 10-15 s on a busy 2-core machine, so one module-scoped local instance
serves every test that needs it.
"""

from __future__ import annotations

import sys
import types

import pytest
from sequence_game.arena import match, read_results, run_job
from sequence_game.arena.jobs import MatchJob, normalise_contenders


def test_without_the_extra_the_error_names_it(monkeypatch):
    from sequence_game.arena import ray_runner

    monkeypatch.setitem(sys.modules, "ray", None)  # as if ray were not installed
    with pytest.raises(ImportError, match=r"sequence-game\[ray\]"):
        ray_runner.import_ray()
    j = MatchJob(normalise_contenders(["greedy", "random"]), 2)
    with pytest.raises(ImportError, match=r"sequence-game\[ray\]"):
        run_job(j, ray=True)


def test_ray_errors_are_one_line_that_says_what_to_do(monkeypatch):
    """A task a node could not run (here: the package missing on that node) and a cluster that
    refuses this process's token (Ray's token authentication) each end the run with one line."""

    from sequence_game.arena import ray_runner
    from sequence_game.arena.pool import JobError

    task = RuntimeError("\x1b[36mray::_execute()\x1b[39m (pid=7, ip=10.77.0.3)\n"
                        "  At least one of the input arguments for this task could not be computed:\n"
                        "ray.exceptions.RaySystemError: System error: No module named 'sequence_game'\n"
                        "traceback: Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
                        "ModuleNotFoundError: No module named 'sequence_game'\n")
    assert ray_runner._one_line(task) == (
        "ray::_execute() (pid=7, ip=10.77.0.3): ModuleNotFoundError: No module named 'sequence_game' "
        "(every node needs sequence-game: installed, or on the PYTHONPATH of its `ray start`)")
    assert ray_runner._one_line(RuntimeError("one line")) == "one line"

    def init(**kwargs):
        try:
            raise RuntimeError("Failed to connect to GCS. Last connection error: ... ray.exceptions."
                               "AuthenticationError: RPC error: InvalidAuthToken: Authentication token is missing")
        except RuntimeError as e:
            raise ConnectionError(f"Failed to connect to Ray cluster at {kwargs['address']}") from e

    fake = types.SimpleNamespace(is_initialized=lambda: False, init=init, exceptions=types.SimpleNamespace())
    monkeypatch.setattr(ray_runner, "import_ray", lambda: fake)
    with pytest.raises(JobError) as refused:
        ray_runner.connect("10.77.0.1:6379")
    assert str(refused.value).startswith("cannot join the Ray cluster at 10.77.0.1:6379: it refused this process's "
                                         "authentication token") and "RAY_AUTH_MODE=token" in str(refused.value)
    assert "\n" not in str(refused.value)
    def unreachable(**kwargs):
        raise ConnectionError(f"Failed to connect to Ray cluster at {kwargs['address']}")

    fake.init = unreachable
    with pytest.raises(JobError, match=r"^cannot join the Ray cluster at h:1: Failed to connect to Ray cluster at h:1$"):
        ray_runner.connect("h:1")


def test_a_dead_clusters_address_file_starts_a_fresh_local_instance(monkeypatch, tmp_path):
    """Ray joins whatever address the last `ray start` wrote to its temp folder, even a cluster
    killed long ago; connect() starts a local instance unless that address answers."""
    import socket

    from sequence_game.arena import ray_runner

    calls = []
    fake = types.SimpleNamespace(is_initialized=lambda: False, init=lambda **kw: calls.append(kw),
                                 exceptions=types.SimpleNamespace())
    monkeypatch.setattr(ray_runner, "import_ray", lambda: fake)
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    (tmp_path / "ray").mkdir()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()  # a port nobody listens on: the recorded cluster is dead
    (tmp_path / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{port}")
    ray_runner.connect(num_cpus=2)
    assert calls[-1]["address"] == "local" and calls[-1]["num_cpus"] == 2

    with socket.socket() as live:  # now something answers there: join it, as Ray would
        live.bind(("127.0.0.1", 0))
        live.listen()
        (tmp_path / "ray" / "ray_current_cluster").write_text(f"127.0.0.1:{live.getsockname()[1]}")
        ray_runner.connect(num_cpus=2)
    assert "address" not in calls[-1] and "num_cpus" not in calls[-1]

    monkeypatch.setenv("RAY_ADDRESS", "10.77.0.1:6379")  # the user's choice wins
    (tmp_path / "ray" / "ray_current_cluster").unlink()
    ray_runner.connect(num_cpus=2)
    assert "address" not in calls[-1] and "num_cpus" not in calls[-1]


@pytest.fixture(scope="module")
def local_ray():
    ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
    from sequence_game.arena.ray_runner import connect

    connect(num_cpus=2)
    yield ray
    ray.shutdown()


def test_ray_gives_the_pools_results(local_ray, tmp_path):
    agents, games, seed = ["mcts:iters=300", "greedy"], 6, 11
    pooled = match(agents, games=games, seed=seed, workers=2)
    on_ray = match(agents, games=games, seed=seed, ray=True, results=str(tmp_path / "ray.jsonl"))
    assert on_ray.outcomes == pooled.outcomes and on_ray.wins == pooled.wins
    header, lines = read_results(tmp_path / "ray.jsonl")
    assert header["agents"] == agents and [e["index"] for e in lines] == list(range(games))
    serial = match(agents, games=games, seed=seed, keep_records=True)
    assert [e["moves"] for e in lines] == [r.moves for r in serial.records]


def test_ray_resumes_a_pool_file(local_ray, tmp_path):
    path = str(tmp_path / "r.jsonl")
    match(["greedy", "random"], games=3, seed=5, workers=2, results=path)
    r = match(["greedy", "random"], games=6, seed=5, ray=True, results=path, resume=True)
    assert r.outcomes == match(["greedy", "random"], games=6, seed=5).outcomes


def test_ray_refuses_python_objects(local_ray):
    from sequence_game.agents import GreedyAgent

    with pytest.raises(TypeError, match="spec string"):
        match([GreedyAgent, "random"], games=2, ray=True)


def test_ray_plays_again_a_game_whose_worker_dies(local_ray, tmp_path):
    import os
    import signal

    from sequence_game.arena.ray_runner import run_ray

    marker = str(tmp_path / "died")

    class DiesOnce:  # defined here so that Ray ships it by value to its workers
        size = 3

        def execute(self, index):
            if index == 1 and not os.path.exists(marker):
                open(marker, "w").close()
                os.kill(os.getpid(), signal.SIGKILL)  # the Ray worker process dies holding game 1
            return {"index": index, "pid": os.getpid()}

    got = []
    run_ray(DiesOnce(), range(3), got.append)
    assert os.path.exists(marker) and sorted(e["index"] for e in got) == [0, 1, 2]


def test_selfplay_on_ray_writes_the_same_dataset(local_ray, tmp_path):
    import numpy as np
    from sequence_game.selfplay import load_dataset, selfplay

    selfplay(["greedy", "mcts:iters=32"], games=2, out=str(tmp_path / "here"), seed=4, shard_games=1)
    selfplay(["greedy", "mcts:iters=32"], games=2, out=str(tmp_path / "ray"), seed=4, shard_games=1, ray=True)
    a, b = load_dataset(str(tmp_path / "here")), load_dataset(str(tmp_path / "ray"))
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)


def test_cheap_units_are_batched_and_each_comes_back_once(local_ray):
    from sequence_game.arena.ray_runner import MAX_BATCH, TASK_SECONDS, _batch_size, run_ray

    assert _batch_size([0.0, 0], 1000, 2) == 1  # nothing measured yet: one unit per task
    assert _batch_size([0.001 * 10, 10], 10_000, 2) == min(int(TASK_SECONDS / 0.001), MAX_BATCH)
    assert _batch_size([0.001 * 10, 10], 40, 2) == 10  # every CPU keeps work: remaining / (2 x CPUs)
    assert _batch_size([10.0, 10], 1000, 2) == 1  # a unit longer than TASK_SECONDS runs alone
    j = MatchJob(normalise_contenders(["random", "random"]), 60, max_turns=1, seed=3)
    for batch in (None, 7):
        got = []
        run_ray(j, range(60), got.append, batch=batch)
        assert sorted(e["index"] for e in got) == list(range(60)) and all(e["node"] for e in got)
        assert sorted(got, key=lambda e: e["index"])[5]["moves"] == j.execute(5)["moves"]
