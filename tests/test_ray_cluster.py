"""The distributed path on a real multi-node Ray cluster (docs/scale.md), as Ray's own tests do
it: ``ray.cluster_utils.Cluster`` starts a head node (no CPUs: it only schedules) and two worker
nodes of one CPU each, every one its own raylet, on this machine. Games and shards spread over
both nodes; a worker node killed in the middle of a match or a self-play run loses nothing and
repeats nothing, and the results equal a one-core run game by game; a lost head node stops the run
with one clear line and ``--resume`` finishes it on a new cluster.

Marked ``ray_cluster`` and run only with ``SEQUENCE_RAY_CLUSTER=1`` (``.ci/run`` does): starting the
nodes and waiting for Ray to notice a dead one takes a few minutes on 2 cores.

The last test follows the how-to itself on three network namespaces standing for three hosts
(``examples/cluster/netns_cluster.sh``): ``ray start`` on each, each with its own address, a match
submitted on the head with ``--ray HEAD:6379``, a worker's processes killed mid-match. Marked
``ray_netns`` and run only as root, with ``ip``, and with ``SEQUENCE_RAY_NETNS=1`` (CI does not).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest
from sequence_game.arena import compare, match, read_results, summary


def _ray_cluster(test):
    """A test on the cluster of ``ray.cluster_utils``: marked ``ray_cluster``, run only with
    SEQUENCE_RAY_CLUSTER=1."""
    skip = pytest.mark.skipif(os.environ.get("SEQUENCE_RAY_CLUSTER", "") in ("", "0"),
                              reason="multi-node Ray cluster: set SEQUENCE_RAY_CLUSTER=1 to run it")
    return pytest.mark.ray_cluster(skip(test))


AGENTS = ["mcts:iters=150", "greedy"]  # fixed budgets: the same games on any machine
SLOW = ["mcts:iters=8000", "greedy"]  # about half a second of CPU a game: a node can die mid-run


def _start_cluster(workers):
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
    for _ in range(workers):
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    return cluster


def _stop_cluster(cluster, started):
    """Every node gone, and any process the nodes left behind (Ray's agents of a node whose head
    died outlive it), found among the processes this test started; and Ray's record of the
    "current cluster", which would send a later ``ray.init()`` to a dead address."""
    for node in list(cluster.worker_nodes):
        try:
            cluster.remove_node(node, allow_graceful=False)
        except Exception:  # noqa: BLE001 - a node already dead
            pass
    try:
        cluster.shutdown()
    except Exception:  # noqa: BLE001 - the head already dead
        pass
    for pid in started:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    record = "/tmp/ray/ray_current_cluster"
    try:
        with open(record) as f:
            if f.read().strip() == cluster.address:
                os.remove(record)
    except OSError:
        pass


def _descendants():
    """Ray's processes among those this one started, and theirs (the nodes' raylets, stores,
    agents and workers; not, say, the multiprocessing resource tracker of a process pool)."""
    children = {}
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/stat") as f:
                children.setdefault(int(f.read().rsplit(")", 1)[1].split()[1]), []).append(int(d))
        except (OSError, ValueError, IndexError):
            continue
    out, todo = [], [os.getpid()]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return [pid for pid in out if _is_ray(pid)]


def _is_ray(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ")
    except OSError:
        return False
    return b"ray" in cmd and b"resource_tracker" not in cmd and b"sequence_game" not in cmd


@pytest.fixture(scope="module")
def cluster():
    ray = pytest.importorskip("ray", reason="the [ray] extra is not installed")
    c = _start_cluster(2)
    ray.init(address=c.address, log_to_driver=False, include_dashboard=False)
    try:
        yield c
    finally:
        started = _descendants()
        ray.shutdown()
        _stop_cluster(c, started)


def _lines(path):
    try:
        with open(path) as f:
            return [json.loads(x) for x in f.read().splitlines()[1:] if x]
    except (OSError, ValueError):
        return []


def _kill_a_worker_when(cluster, path, played, total):
    """Kill one worker node (its raylet and workers, ungracefully) once ``played`` units are in the
    results file, checking that units were still to come; the other worker node plays on."""
    deadline = time.monotonic() + 120
    while len(_lines(path)) < played:
        assert time.monotonic() < deadline, "the run did not start"
        time.sleep(0.02)
    victim = next(iter(cluster.worker_nodes))
    cluster.remove_node(victim, allow_graceful=False)
    assert len(_lines(path)) < total, "the run ended before the node was killed: nothing was tested"
    return victim.node_id


def _restore(cluster):
    while len(cluster.worker_nodes) < 2:
        cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()


@_ray_cluster
def test_games_and_shards_spread_over_every_node(cluster, tmp_path):
    from sequence_game.selfplay import load_dataset, selfplay

    path = tmp_path / "match.jsonl"
    on_cluster = match(AGENTS, games=8, seed=5, ray=cluster.address, results=str(path))
    one_core = match(AGENTS, games=8, seed=5, keep_records=True)
    assert on_cluster.outcomes == one_core.outcomes
    _, games = read_results(path)
    assert [g["moves"] for g in games] == [r.moves for r in one_core.records]
    nodes = {n.node_id for n in cluster.worker_nodes}
    per_node = summary(str(path)).games_per_node
    assert set(per_node) == nodes and sum(per_node.values()) == 8, per_node
    assert "games per node" in str(summary(str(path)))

    selfplay(["greedy", "mcts:iters=32"], games=6, out=str(tmp_path / "ray"), seed=4, shard_games=1,
             ray=cluster.address)
    selfplay(["greedy", "mcts:iters=32"], games=6, out=str(tmp_path / "here"), seed=4, shard_games=1)
    a, b = load_dataset(str(tmp_path / "ray")), load_dataset(str(tmp_path / "here"))
    assert a.keys() == b.keys() and all((a[k] == b[k]).all() for k in a)
    shards = _lines(tmp_path / "ray" / "shards.jsonl")
    assert {s["node"] for s in shards} == nodes
    with open(tmp_path / "ray" / "manifest.json") as f:
        per_node = json.load(f)["games_per_node"]
    assert set(per_node) == nodes and sum(per_node.values()) == 6


@_ray_cluster
def test_a_worker_node_killed_mid_match_loses_and_repeats_nothing(cluster, tmp_path):
    path = tmp_path / "match.jsonl"
    result = {}
    run = threading.Thread(target=lambda: result.setdefault(
        "r", match(SLOW, games=10, seed=8, ray=cluster.address, results=str(path))))
    run.start()
    try:
        dead = _kill_a_worker_when(cluster, path, played=2, total=10)
    finally:
        run.join(timeout=600)
    assert not run.is_alive() and "r" in result
    lines = _lines(path)
    assert sorted(g["index"] for g in lines) == list(range(10))  # every game once, none twice
    one_core = match(SLOW, games=10, seed=8)
    assert result["r"].outcomes == one_core.outcomes and summary(str(path)).outcomes == one_core.outcomes
    assert any(g["node"] != dead for g in lines)
    base = tmp_path / "one.jsonl"
    match(SLOW, games=10, seed=8, results=str(base), workers=2)
    assert compare(str(base), str(path)).difference == 0  # game by game the same
    _restore(cluster)


@_ray_cluster
def test_a_worker_node_killed_mid_selfplay_loses_and_repeats_nothing(cluster, tmp_path):
    from sequence_game.selfplay import load_dataset, selfplay

    out = tmp_path / "ray"
    done = {}
    run = threading.Thread(target=lambda: done.setdefault("m", selfplay(
        SLOW, games=10, out=str(out), seed=6, shard_games=1, ray=cluster.address)))
    run.start()
    try:
        _kill_a_worker_when(cluster, out / "shards.jsonl", played=2, total=10)
    finally:
        run.join(timeout=600)
    assert not run.is_alive() and "m" in done
    assert sorted(s["index"] for s in _lines(out / "shards.jsonl")) == list(range(10))
    selfplay(SLOW, games=10, out=str(tmp_path / "here"), seed=6, shard_games=1)  # one core
    a, b = load_dataset(str(out)), load_dataset(str(tmp_path / "here"))
    assert a.keys() == b.keys() and all((a[k] == b[k]).all() for k in a)
    _restore(cluster)


def _cli(*argv, **kw):
    return subprocess.Popen([sys.executable, "-m", "sequence_game", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **kw)


@_ray_cluster
def test_a_lost_head_stops_the_run_with_one_line_and_resume_finishes_it(cluster, tmp_path):
    """Last of the tests on the module's cluster: it kills it. This process leaves the cluster first
    (Ray ends a driver that has lost its head, after a minute); the match runs in a child."""
    import ray

    ray.shutdown()
    path = tmp_path / "match.jsonl"
    games = 20  # the games after the head's death outlast SEQUENCE_RAY_HEAD_TIMEOUT
    agents = SLOW
    child = _cli("arena", *agents, "--games", str(games), "--seed", "9", "--no-progress", "--ray", cluster.address,
                 "--results", str(path), env={**os.environ, "SEQUENCE_RAY_HEAD_TIMEOUT": "1"})
    started = _descendants()
    deadline = time.monotonic() + 180
    while not _lines(path) and child.poll() is None:
        assert time.monotonic() < deadline, "the match did not start"
        time.sleep(0.05)
    cluster.remove_node(cluster.head_node, allow_graceful=False)
    t0 = time.monotonic()
    try:
        out, _ = child.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        child.kill()
        out, _ = child.communicate()
        pytest.fail(f"the run did not stop after its head node died: {out[-2000:]}")
    stopped = time.monotonic() - t0
    _stop_cluster(cluster, started)
    # Ray's own processes log to the same terminal (their lines are Ray's); the run's answer is one line.
    ours = [line for line in out.splitlines() if line.startswith("sequence-game")]
    assert child.returncode != 0 and "Traceback" not in out, out[-3000:]
    assert len(ours) == 1 and ours[0].startswith("sequence-game: error: lost the Ray head node"), out[-3000:]
    assert f"the finished units are in {path}: run again with --resume" in ours[0]
    played = len(_lines(path))
    assert 1 <= played < games, played

    fresh = _start_cluster(1)
    started = _descendants()
    try:
        resumed = _cli("arena", "--resume", str(path), "--ray", fresh.address, "--no-progress")
        out, _ = resumed.communicate(timeout=600)
        assert resumed.returncode == 0, out[-3000:]
    finally:
        _stop_cluster(fresh, started + _descendants())
    assert sorted(g["index"] for g in _lines(path)) == list(range(games))
    assert summary(str(path)).outcomes == match(agents, games=games, seed=9, workers=2).outcomes
    print(f"the run stopped {stopped:.1f} s after its head node died, with {played} of {games} games played")


NETNS_SCRIPT = pathlib.Path(__file__).resolve().parent.parent / "examples" / "cluster" / "netns_cluster.sh"


def _netns_skip_reason():
    if os.environ.get("SEQUENCE_RAY_NETNS", "") in ("", "0"):
        return "Ray on network namespaces: set SEQUENCE_RAY_NETNS=1 (as root) to run it"
    if getattr(os, "geteuid", lambda: -1)() != 0:
        return "Ray on network namespaces: needs root"
    if shutil.which("ip") is None:
        return "Ray on network namespaces: needs iproute2 (ip)"
    return None


@pytest.mark.ray_netns
@pytest.mark.skipif(_netns_skip_reason() is not None, reason=str(_netns_skip_reason()))
def test_the_how_to_on_three_hosts_of_their_own_network():
    """examples/cluster/netns_cluster.sh: a head and two worker nodes, each in its network namespace
    with its own address, started with ``ray start`` as docs/scale.md says; the match submitted on
    the head; every process of a worker killed mid-match. The script checks every game once and
    the games equal to a run without Ray; here, games on both workers and none on the head."""
    pytest.importorskip("ray", reason="the [ray] extra is not installed")
    import sequence_game

    package = os.path.dirname(os.path.dirname(os.path.abspath(sequence_game.__file__)))  # this code on every node
    env = {**os.environ, "PYTHON": sys.executable,
           "PYTHONPATH": os.pathsep.join(p for p in (package, os.environ.get("PYTHONPATH")) if p)}
    run = subprocess.run(["bash", str(NETNS_SCRIPT)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-4000:]
    assert "every game once (24 of 24)" in run.stdout, run.stdout[-4000:]
    table = run.stdout.split("games per node:\n", 1)[1].splitlines()[:3]
    per_node = {line.split()[0]: int(line.split()[2]) for line in table}
    assert per_node["10.77.0.1"] == 0 and per_node["10.77.0.2"] >= 1 and per_node["10.77.0.3"] >= 1, per_node
    assert sum(per_node.values()) == 24
    print(run.stdout)
