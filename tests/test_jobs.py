"""The job model and its runners (python/sequence_game/arena/): game i depends only on (seed, i),
the process pool gives the serial results, a killed worker's game is played again, results
stream to a file that a killed job resumes from with no game lost or repeated."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sequence_game.arena import MatchJob, compare, match, read_results, run_job, summary
from sequence_game.arena.jobs import normalise_contenders
from sequence_game.arena.pool import JobError, WorkerCrashedError, run_pool
from sequence_game.arena.results import ResultsFile

SEARCH = "mcts:iters=300"  # a fixed budget: the moves do not depend on the machine


def job(agents=(SEARCH, "greedy"), games=6, seed=7, **kw):
    return MatchJob(normalise_contenders(list(agents)), games, seed=seed, **kw)


def played(entries):
    """What a game is, without where and when it ran."""
    keep = ("index", "seed", "contenders", "agents", "agent_seeds", "winner", "winner_contender", "is_draw",
            "turns", "moves")
    return [{k: e[k] for k in keep} for e in entries]


# --------------------------------------------------------------------------- the job model


def test_game_i_depends_only_on_seed_and_index():
    j = job()
    forward = [j.execute(i) for i in range(4)]
    backward = [job(games=50).execute(i) for i in reversed(range(4))][::-1]  # other order, bigger job
    assert played(forward) == played(backward)
    other = job(seed=8).execute(0)
    assert other["seed"] != forward[0]["seed"] and other["moves"] != forward[0]["moves"]


def test_seating_rotates_and_shares_deals():
    j = job(agents=("greedy", "random"), players=4, games=4)
    seats = [j.seating(i) for i in range(4)]
    assert [s[1] for s in seats] == [[0, 1], [1, 0], [0, 1], [1, 0]]
    assert seats[0][0] == seats[1][0] != seats[2][0] == seats[3][0]
    e = j.execute(1)
    assert e["agents"] == ["random", "greedy", "random", "greedy"]
    assert len(set(e["agent_seeds"])) == 4


def test_job_checks_its_arguments():
    with pytest.raises(ValueError, match="games"):
        job(games=0)
    with pytest.raises(ValueError, match="seed"):
        job(seed=-1)
    with pytest.raises(ValueError, match="two contenders"):
        job(agents=("greedy",))
    with pytest.raises(ValueError, match="game index"):
        job(games=2).execute(2)
    j = MatchJob(normalise_contenders([lambda: __import__("sequence_game").agents.GreedyAgent(), "random"]), 2)
    with pytest.raises(TypeError, match="spec string"):
        j.check_portable()
    with pytest.raises(TypeError, match="spec string"):
        run_job(j, workers=2)


# --------------------------------------------------------------------------- the process pool


def test_pool_gives_the_serial_results_in_any_order(tmp_path):
    serial = run_job(job(), workers=1)
    pooled = run_job(job(), workers=2, results=str(tmp_path / "r.jsonl"))
    assert played(pooled) == played(serial)
    assert len({e["pid"] for e in pooled}) == 2  # both workers played
    header, lines = read_results(tmp_path / "r.jsonl")
    assert header["agents"] == [SEARCH, "greedy"] and header["games"] == 6
    assert played(lines) == played(serial)


def test_match_with_workers_equals_serial_match():
    a = match([SEARCH, "greedy"], games=4, seed=2)
    b = match([SEARCH, "greedy"], games=4, seed=2, workers=2)
    assert a.outcomes == b.outcomes and a.wins == b.wins


class _Explodes:
    """A job whose unit 1 raises: the pool stops with the worker's traceback."""

    size = 3

    def execute(self, index):
        if index == 1:
            raise RuntimeError("boom in unit 1")
        return {"index": index}


class _DiesOnce:
    """A job whose unit 2 kills its worker the first time (a marker file remembers)."""

    size = 4

    def __init__(self, marker):
        self.marker = marker

    def execute(self, index):
        if index == 2 and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)
        return {"index": index, "pid": os.getpid()}


class _AlwaysDies:
    size = 1

    def execute(self, index):
        os.kill(os.getpid(), signal.SIGKILL)


def test_pool_reports_an_exception_in_a_unit():
    with pytest.raises(JobError, match="boom in unit 1"):
        run_pool(_Explodes(), range(3), lambda e: None, workers=2)


def test_a_worker_that_dies_has_its_unit_played_again(tmp_path):
    got, retried = [], []
    run_pool(_DiesOnce(str(tmp_path / "died")), range(4), got.append, workers=2,
             on_retry=lambda i, code: retried.append((i, code)))
    assert sorted(e["index"] for e in got) == [0, 1, 2, 3]
    assert retried == [(2, -signal.SIGKILL)]


def test_a_unit_that_always_kills_its_worker_stops_the_job():
    with pytest.raises(WorkerCrashedError, match="unit 0 ended its worker 3 times"):
        run_pool(_AlwaysDies(), [0], lambda e: None, workers=1)


class _Threads:
    """Units that report the numeric libraries' threads in their worker (PyTorch's when installed)."""

    def execute(self, index):
        try:
            import torch
        except ImportError:
            torch = None
        return {"index": index, "omp": os.environ.get("OMP_NUM_THREADS"),
                "torch": torch.get_num_threads() if torch is not None else None}


@pytest.mark.parametrize("user", [None, "2"])
def test_each_worker_runs_torch_on_one_thread_unless_the_user_says(monkeypatch, user):
    """A pool of a worker per core where each worker's PyTorch took a thread per core too
    oversubscribed the machine; OMP_NUM_THREADS, when the user sets it, is theirs."""
    if user is None:
        monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    else:
        monkeypatch.setenv("OMP_NUM_THREADS", user)
    got = []
    run_pool(_Threads(), range(2), got.append, workers=2)
    want = user or "1"
    assert [e["omp"] for e in got] == [want, want]
    if got[0]["torch"] is not None:
        assert [e["torch"] for e in got] == [int(want), int(want)]


class _Marks:
    """Units that leave a file ``started-<i>`` when they start; unit ``wait_unit`` does not end
    until unit ``wait_for`` has started (so it fails, after 60 s, if the pool ever queues
    ``wait_for`` behind it); unit ``dies`` kills its worker the first time."""

    def __init__(self, folder, size, wait_unit=None, wait_for=None, dies=None):
        self.folder, self.size, self.wait_unit, self.wait_for, self.dies = folder, size, wait_unit, wait_for, dies

    def started(self, index):
        return os.path.exists(os.path.join(self.folder, f"started-{index}"))

    def execute(self, index):
        first = not self.started(index)
        open(os.path.join(self.folder, f"started-{index}"), "a").close()
        if index == self.dies and first:
            os.kill(os.getpid(), signal.SIGKILL)
        if index == self.wait_unit:
            deadline = time.monotonic() + 60
            while not self.started(self.wait_for):
                assert time.monotonic() < deadline, f"unit {self.wait_for} never started while {index} played"
                time.sleep(0.01)
        return {"index": index, "pid": os.getpid()}


def test_a_worker_plays_its_next_unit_while_the_parent_handles_the_last():
    """The next unit is sent before ``on_result`` runs (writing a line, drawing progress): if it
    were sent after, this ``on_result`` would wait for a unit that never starts."""

    def on_result(entry):
        if entry["index"] == 0:
            deadline = time.monotonic() + 60
            while not j.started(1):
                assert time.monotonic() < deadline, "no worker played while on_result ran"
                time.sleep(0.01)

    with tempfile.TemporaryDirectory() as folder:
        j = _Marks(folder, 2)
        run_pool(j, range(2), on_result, workers=1)


def test_no_unit_waits_behind_another_at_the_end_of_a_job(tmp_path):
    """3 units on 2 workers: unit 0 does not end before unit 2 starts, so unit 2 must go to the
    other worker (queued behind unit 0 it would never start)."""
    got = []
    run_pool(_Marks(str(tmp_path), 3, wait_unit=0, wait_for=2), range(3), got.append, workers=2)
    by_index = {e["index"]: e["pid"] for e in got}
    assert sorted(by_index) == [0, 1, 2] and by_index[2] != by_index[0]


def test_a_dead_worker_s_waiting_unit_is_played_again_and_not_blamed(tmp_path):
    """8 units on 2 workers: each holds two while the queue is long. The worker playing unit 0
    dies once; unit 0 and the unit waiting behind it are played again, each exactly once, and
    only unit 0 is reported as retried."""
    got, retried = [], []
    run_pool(_Marks(str(tmp_path), 8, dies=0), range(8), got.append, workers=2,
             on_retry=lambda i, code: retried.append((i, code)))
    assert sorted(e["index"] for e in got) == list(range(8))
    assert retried == [(0, -signal.SIGKILL)]


class _SlowSecondGame(MatchJob):
    """Game 1 holds its worker 1.5 s longer, so that it is surely still busy when game 0 ends."""

    def execute(self, index):
        entry = super().execute(index)
        if index == 1:
            time.sleep(1.5)
        return entry


def test_killing_a_busy_worker_from_outside_loses_no_game():
    """SIGKILL the other worker as soon as the first game finishes: its game is played again."""
    j = _SlowSecondGame(normalise_contenders(["mcts:iters=1000", "greedy"]), 2, seed=7)
    got, killed, retried = [], [], []

    def on_result(entry):
        got.append(entry)
        if not killed:
            others = [p for p in multiprocessing.active_children() if p.pid != entry["pid"]]
            assert others, "the other worker should still be playing"
            os.kill(others[0].pid, signal.SIGKILL)
            killed.append(others[0].pid)

    run_pool(j, range(2), on_result, workers=2, on_retry=lambda i, code: retried.append((i, code)))
    assert killed and retried == [(1, -signal.SIGKILL)]
    assert killed[0] not in {e["pid"] for e in got}
    assert played(sorted(got, key=lambda e: e["index"])) == played(run_job(job(("mcts:iters=1000", "greedy"), 2)))


# --------------------------------------------------------------------------- results files and resuming


def test_results_file_refuses_to_overwrite_and_checks_the_job(tmp_path):
    path = str(tmp_path / "r.jsonl")
    run_job(job(games=2), results=path)
    with pytest.raises(ValueError, match="exists"):
        run_job(job(games=2), results=path)
    with pytest.raises(ValueError, match=r"another job.*seed"):
        run_job(job(games=2, seed=99), results=path, resume=True)


def test_resume_plays_only_missing_games_and_cuts_a_torn_line(tmp_path):
    path = tmp_path / "r.jsonl"
    full = run_job(job(), workers=1)
    with ResultsFile.create(path, job().header()) as out:  # a job killed after games 0, 3, 4 ...
        for e in (full[0], full[3], full[4]):
            out.append(e)
    with open(path, "a") as f:  # ... while writing game 5
        f.write(json.dumps(full[5])[:40])
    done = []
    entries = run_job(job(), workers=1, results=str(path), resume=True, progress=lambda d, t: done.append(d))
    assert done == [4, 5, 6]  # three games played, counted after the three already there
    assert played(entries) == played(full)
    _, lines = read_results(path)
    assert [e["index"] for e in lines] == list(range(6))
    text = path.read_text().splitlines()
    assert len(text) == 7 and all(json.loads(line) for line in text)  # the torn line is gone


def test_a_results_line_is_readable_as_soon_as_it_is_appended(tmp_path):
    """A killed job keeps every line it wrote: each is flushed to the operating system at once
    (only the fsync is batched, see results.SYNC_SECONDS)."""
    path = tmp_path / "r.jsonl"
    full = run_job(job(games=2))
    out = ResultsFile.create(path, job(games=2).header())
    for n, e in enumerate(full, start=1):
        out.append(e)
        assert [g["index"] for g in read_results(path)[1]] == [g["index"] for g in full[:n]]
    out.close()


def test_resume_with_more_games_extends_the_match(tmp_path):
    path = str(tmp_path / "r.jsonl")
    run_job(job(games=2), results=path)
    entries = run_job(job(games=4), results=path, resume=True)
    assert played(entries) == played(run_job(job(games=4)))
    assert summary(path).planned == 4 and summary(path).games == 4


def test_summary_from_the_file_equals_the_match(tmp_path):
    path = str(tmp_path / "r.jsonl")
    r = match(["greedy", "random"], games=6, seed=1, results=path)
    s = summary(path)
    assert s.outcomes == r.outcomes and s.wins == r.wins and s.names == r.names
    assert s.seat_results() == r.seat_results()
    assert str(s) == str(r)


def test_compare_pairs_two_matches_game_by_game(tmp_path):
    a, b = str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")
    ra = match(["greedy", "random"], games=8, seed=5, max_turns=60, results=a)
    rb = match(["random", "random"], games=8, seed=5, max_turns=60, results=b)
    c = compare(a, b)
    assert c.names == ("greedy", "random #0") and c.opponents == ("random",) and c.games == 8
    assert c.score_a == pytest.approx((ra.wins[0] + 0.5 * ra.draws) / 8)
    assert c.score_b == pytest.approx((rb.wins[0] + 0.5 * rb.draws) / 8)
    assert c.difference == pytest.approx(c.score_a - c.score_b)
    score = {1: 1.0, 0: 0.0}
    per_game = [(score.get(x.winner_contender == 0, 0.5) if x.winner_contender is not None else 0.5,
                 score.get(y.winner_contender == 0, 0.5) if y.winner_contender is not None else 0.5)
                for x, y in zip(ra.outcomes, rb.outcomes)]
    assert (c.a_only, c.b_only) == (sum(x > y for x, y in per_game), sum(x < y for x, y in per_game))
    same = compare(a, a)  # a match against itself: no difference at all
    assert (same.difference, same.a_only, same.b_only, same.p_value) == (0.0, 0, 0, 1.0)


def test_compare_uses_the_games_both_files_hold(tmp_path):
    a, b = str(tmp_path / "a.jsonl"), str(tmp_path / "b.jsonl")
    match(["greedy", "random"], games=6, seed=2, results=a)
    match(["random", "random"], games=4, seed=2, results=b)
    assert compare(a, b).games == 4


def test_compare_refuses_matches_that_were_not_dealt_alike(tmp_path):
    paths = {name: str(tmp_path / f"{name}.jsonl") for name in ("base", "seed", "opponent", "players")}
    match(["greedy", "random"], games=2, seed=1, results=paths["base"])
    match(["random", "random"], games=2, seed=2, results=paths["seed"])
    match(["random", "greedy"], games=2, seed=1, results=paths["opponent"])
    match(["random", "random"], games=2, players=3, teams=3, seed=1, results=paths["players"])
    with pytest.raises(ValueError, match="differ in seed"):
        compare(paths["base"], paths["seed"])
    with pytest.raises(ValueError, match="different opponents"):
        compare(paths["base"], paths["opponent"])
    with pytest.raises(ValueError, match="differ in players"):
        compare(paths["base"], paths["players"])
    other = tmp_path / "other.jsonl"
    other.write_text('{"format": "sequence-game-selfplay/1", "agents": ["greedy"], "games": 4, "players": 2, '
                     '"teams": 2, "seed": 0, "max_turns": null, "shard_games": 2, "observation_features": 890, '
                     '"action_count": 5253}\n')
    with pytest.raises(ValueError, match="not a match results file"):
        compare(paths["base"], str(other))
    out = subprocess.run([sys.executable, "-m", "sequence_game", "arena", "--compare", paths["base"], paths["seed"]],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "differ in seed" in out.stdout + out.stderr
    mixed = subprocess.run([sys.executable, "-m", "sequence_game", "arena", "greedy", "random", "--compare",
                            paths["base"], paths["base"]], capture_output=True, text=True, timeout=60)
    assert mixed.returncode != 0 and "give no agents" in mixed.stdout + mixed.stderr
    ok = subprocess.run([sys.executable, "-m", "sequence_game", "arena", "--compare", paths["base"], paths["base"]],
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and "2 games dealt alike, against random" in ok.stdout


def _valid_lines(tmp_path, name="valid.jsonl"):
    """The lines of a real results file: a header and four games (greedy against random)."""
    path = tmp_path / name
    match(["greedy", "random"], games=4, seed=3, max_turns=200, results=str(path))
    return path, [json.loads(x) for x in path.read_text().splitlines()]


def _write(path, lines):
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines))


def test_results_file_errors_name_the_line(tmp_path):
    _, lines = _valid_lines(tmp_path)
    bad = tmp_path / "bad.jsonl"
    _write(bad, [lines[0], lines[1], "not json"])
    with pytest.raises(ValueError, match="line 3 is not JSON"):
        read_results(bad)
    _write(bad, [lines[0], {k: v for k, v in lines[1].items() if k != "index"}])
    with pytest.raises(ValueError, match=r"line 2: missing key 'index'"):
        read_results(bad)
    bad.write_text('{"hello": 1}\n')
    with pytest.raises(ValueError, match="not a results file"):
        read_results(bad)
    with pytest.raises(ValueError, match="cannot read"):
        read_results(tmp_path / "missing.jsonl")


def _set(d, key, value):
    return {**d, key: value}


# (line number, how that line is changed, what the error says), all one-line ValueErrors.
CORRUPTIONS = [
    (1, lambda h: _set(h, "games", 10**15), r"'games' must be an int 1..10000000, not 1000000000000000"),
    (1, lambda h: _set(h, "games", True), r"'games' must be an int"),
    (1, lambda h: _set(h, "players", "2"), r"'players' must be an int 2..12"),
    (1, lambda h: _set(h, "players", 5), r"5 players"),
    (1, lambda h: _set(h, "teams", 3), r"teams"),
    (1, lambda h: _set(h, "seed", -1), r"'seed' must be an int 0..18446744073709551615"),
    (1, lambda h: _set(h, "names", ["only one"]), r"'names' must be a list of at least 2 strings"),
    (1, lambda h: _set(h, "names", [["a"], "b"]), r"'names' must be a list"),
    (1, lambda h: _set(h, "agents", ["greedy"]), r"'agents' must be null or a list of 2 strings"),
    (1, lambda h: _set(h, "max_turns", 0), r"'max_turns' must be null or an int 1.."),
    (1, lambda h: {k: v for k, v in h.items() if k != "names"}, r"missing key 'names'"),
    (1, lambda h: _set(h, "extra", 1), r"unknown key 'extra'"),
    (1, lambda h: _set(h, "format", "sequence-game-match/9"), r"not a results file"),
    (1, lambda h: "[" * 100_000 + "]" * 100_000, r"not a results file|nested too deeply"),
    (2, lambda g: "[" * 100_000 + "]" * 100_000, r"line 2: JSON nested too deeply"),
    (2, lambda g: {"index": {"a": [[[[[[[[[[1]]]]]]]]]]}}, r"line 2: missing key"),
    (2, lambda g: [g], r"line 2: a line must be a JSON object"),
    (2, lambda g: _set(g, "index", -1), r"line 2: 'index' must be an int 0..3, not -1"),
    (2, lambda g: _set(g, "index", 4), r"line 2: 'index' must be an int 0..3, not 4"),
    (2, lambda g: _set(g, "index", 1.0), r"line 2: 'index' must be an int"),
    (2, lambda g: _set(g, "seed", g["seed"] + 1), r"line 2: game \d has seed \d+, but the match seed deals it"),
    (2, lambda g: _set(g, "contenders", g["contenders"][::-1]), r"line 2: game \d seats contenders"),
    (2, lambda g: _set(g, "contenders", "01"), r"line 2: 'contenders' must be a list of 2 ints"),
    (2, lambda g: _set(g, "agents", g["agents"][::-1]), r"line 2: game \d's agents .* are not the contenders"),
    (2, lambda g: _set(g, "winner", 2), r"line 2: 'winner' must be null or an int 0..1, not 2"),
    (2, lambda g: _set(g, "winner_contender", 7), r"line 2: 'winner_contender' must be"),
    (2, lambda g: _set(g, "winner_contender", g["winner_contender"] == 1),
     r"line 2: 'winner_contender' must be"),
    (2, lambda g: _set(g, "is_draw", not g["is_draw"]), r"line 2: 'is_draw' must be"),
    (2, lambda g: _set(g, "is_draw", 0), r"line 2: 'is_draw' must be"),
    (2, lambda g: _set(g, "turns", 201), r"line 2: 'turns' must be an int 0..200, not 201"),
    (2, lambda g: _set(g, "moves", [1, 2]), r"line 2: 'moves' must be a list of"),
    (2, lambda g: _set(g, "seconds", "fast"), r"line 2: 'seconds' must be a number of seconds >= 0"),
    (2, lambda g: _set(g, "seconds", float("nan")), r"line 2: 'seconds' must be a number"),
    (2, lambda g: _set(g, "agent_seeds", [1]), r"line 2: 'agent_seeds' must be a list of 2 ints"),
    (2, lambda g: _set(g, "pid", -1), r"line 2: 'pid' must be an int"),
    (2, lambda g: _set(g, "surprise", 1), r"line 2: unknown key 'surprise'"),
    (3, lambda g: _set(g, "format", "sequence-game-match/1"), r"line 3: missing keys"),
    (3, lambda g: {}, r"line 3: missing keys"),
]


@pytest.mark.parametrize("line,change,message", CORRUPTIONS)
def test_every_malformed_line_is_one_clear_error_in_every_reader(tmp_path, line, change, message):
    """--summary, --compare and --resume read a results file through the same checks."""
    path, lines = _valid_lines(tmp_path)
    lines[line - 1] = change(lines[line - 1])
    _write(path, lines)
    readers = [lambda: read_results(path), lambda: summary(str(path)), lambda: compare(str(path), str(path)),
               lambda: match(["greedy", "random"], games=4, seed=3, max_turns=200, results=str(path), resume=True)]
    for read in readers:
        with pytest.raises(ValueError, match=message) as e:
            read()
        assert "\n" not in str(e.value) and len(str(e.value)) < 400


def test_a_later_header_must_be_the_same_job_grown(tmp_path):
    path, lines = _valid_lines(tmp_path)
    _write(path, lines + [_set(lines[0], "seed", 4)])
    with pytest.raises(ValueError, match=r"line 6: a header of another job: seed 4, the file's job has 3"):
        read_results(path)
    _write(path, lines + [_set(lines[0], "games", 8), _set(lines[0], "games", 6)])
    with pytest.raises(ValueError, match=r"line 7: a header with fewer games \(6\) than the one before \(8\)"):
        read_results(path)
    _write(path, lines + [_set(lines[0], "games", 8)])
    assert read_results(path)[0]["games"] == 8


def test_the_command_answers_a_malformed_file_with_one_line(tmp_path):
    path, lines = _valid_lines(tmp_path)
    _write(path, [lines[0], _set(lines[1], "turns", -5)] + lines[2:])
    for argv in (["--summary", str(path)], ["--compare", str(path), str(path)]):
        out = subprocess.run([sys.executable, "-m", "sequence_game", "arena", *argv], capture_output=True, text=True,
                             timeout=60)
        err = (out.stdout + out.stderr).strip()
        assert out.returncode != 0 and "Traceback" not in err and len(err.splitlines()) == 1, err
        assert "line 2: 'turns' must be an int 0..200, not -5" in err


_JSON = st.recursive(st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=6),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                     max_leaves=12)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_malformed_line_is_read_or_refused_with_one_line(tmp_path, data):
    """Hypothesis changes one line of a real file (a key's value, a key removed or added, or the
    whole line); a reader accepts it or raises one ValueError naming the file and the line."""
    path = tmp_path / "fuzzed.jsonl"
    if not path.exists():
        _valid_lines(tmp_path, "fuzzed.jsonl")
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    i = data.draw(st.integers(0, len(lines) - 1))
    how = data.draw(st.sampled_from(["value", "drop", "add", "line"]))
    if how == "value":
        lines[i][data.draw(st.sampled_from(sorted(lines[i])))] = data.draw(_JSON)
    elif how == "drop":
        del lines[i][data.draw(st.sampled_from(sorted(lines[i])))]
    elif how == "add":
        lines[i][data.draw(st.text(max_size=6))] = data.draw(_JSON)
    else:
        lines[i] = data.draw(_JSON)
    copy = tmp_path / "copy.jsonl"
    _write(copy, lines)
    for read in (lambda: read_results(copy), lambda: summary(str(copy))):
        try:
            read()
        except ValueError as e:
            text = str(e)
            assert "\n" not in text and len(text) < 400, text
            assert f"line {i + 1}" in text or (i == 0 and "not a results file" in text), text


# --------------------------------------------------------------------------- the command, killed half-way


def _game_lines(path):
    try:
        return len(path.read_text().splitlines()) - 1
    except FileNotFoundError:
        return 0


def test_cli_match_killed_half_way_resumes_with_no_game_lost_or_repeated(tmp_path):
    path = tmp_path / "m.jsonl"
    games = 8
    cmd = [sys.executable, "-m", "sequence_game", "arena", "mcts:iters=1500", "greedy", "--games", str(games),
           "--seed", "4", "--workers", "2", "--results", str(path), "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline = time.time() + 120
    while _game_lines(path) < games // 2 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the match finished before it could be killed: make the games longer"
    os.killpg(proc.pid, signal.SIGKILL)  # the command and its workers, with no chance to clean up
    proc.wait()
    _, before = read_results(path)
    assert games // 2 <= len(before) < games
    out = subprocess.run([sys.executable, "-m", "sequence_game", "arena", "--resume", str(path), "--workers", "2",
                          "--no-progress"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert f"{games} games" in out.stdout
    lines = [json.loads(line) for line in path.read_text().splitlines()[1:]]
    assert sorted(e["index"] for e in lines) == list(range(games))  # none lost, none repeated
    assert played(sorted(lines, key=lambda e: e["index"])) == played(
        run_job(job(agents=("mcts:iters=1500", "greedy"), games=games, seed=4)))
    summary_out = subprocess.run([sys.executable, "-m", "sequence_game", "arena", "--summary", str(path)],
                                 capture_output=True, text=True, timeout=60)
    assert summary_out.returncode == 0 and "by team" in summary_out.stdout and f"{games} games" in summary_out.stdout


# --------------------------------------------------------------------------- the default turn cap


def test_unattended_runs_are_capped_by_default_and_capped_games_are_draws(tmp_path, capsys):
    from sequence_game.cli import main
    from sequence_game.game_setup import RUN_MAX_TURNS

    assert MatchJob(normalise_contenders(["greedy", "random"]), 2).header()["max_turns"] == RUN_MAX_TURNS
    path = tmp_path / "capped.jsonl"
    r = match(["random", "random"], games=4, seed=1, max_turns=6, results=str(path))
    assert r.draws == 4 and r.capped == 4 and r.wins == [0, 0]
    s = summary(str(path))
    assert (s.draws, s.capped, s.max_turns) == (4, 4, 6) and "draws include 4 games stopped at the turn cap (6 turns)" in str(s)
    paired = compare(str(path), str(path))
    assert paired.games == 4 and paired.score_a == paired.score_b == 0.5  # a capped game scores as a draw
    assert paired.capped == (4, 4) and "draws at the turn cap: 4 and 4" in str(paired)
    assert main(["arena", "--summary", str(path)]) == 0
    assert "stopped at the turn cap (6 turns)" in capsys.readouterr().out
    # A file from before the default cap (no cap recorded) resumes with no cap.
    old = tmp_path / "old.jsonl"
    match(["greedy", "random"], games=2, seed=1, max_turns=None, results=str(old))
    assert main(["arena", "--resume", str(old), "--games", "3", "--no-progress"]) == 0
    header, games = read_results(old)
    assert header["max_turns"] is None and len(games) == 3
    assert main(["arena", "greedy", "random", "--games", "1", "--results", str(tmp_path / "new.jsonl"),
                 "--no-progress"]) == 0
    assert read_results(tmp_path / "new.jsonl")[0]["max_turns"] == RUN_MAX_TURNS


def test_a_worker_whose_parent_was_killed_ends_quietly():
    """A pool worker that finishes a unit after its parent is gone (the run was killed) has nobody
    to tell: it ends without a traceback instead of printing a BrokenPipeError."""
    import types

    from sequence_game.arena.pool import _worker_main

    parent, child = multiprocessing.Pipe()
    parent.send(0)
    parent.close()
    job = types.SimpleNamespace(execute=lambda index: {"index": index})
    before = signal.getsignal(signal.SIGINT)
    try:
        _worker_main(child, job)  # returns: the send to the dead parent is not an error here
    finally:
        signal.signal(signal.SIGINT, before)
