"""The learned player's trainer (``sequence-game train``, needs torch): resume and reproducibility,
fine-tuning from a weights file (``--init``, ``net`` the shipped one), and its files as untrusted
input: a checkpoint is read as tensors and plain data only (one carrying code is refused and
nothing of it runs), damaged checkpoints and settings are one-line errors, and no input is
written into a run's settings before it is checked."""

from __future__ import annotations

import io
import json
import os
import pickle
import shutil
from dataclasses import asdict

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from sequence_game import _core, cli  # noqa: E402
from sequence_game.actions import ACTION_COUNT  # noqa: E402
from sequence_game.netfile import read_weights, write_weights  # noqa: E402
from sequence_game.observation import OBSERVATION_SIZE  # noqa: E402
from sequence_game.training.net.trainer import TrainConfig, load_checkpoint, train  # noqa: E402

H1, H2 = 16, 8


def quiet(text: str) -> None:
    pass


def config(out: str, generations: int, **changes) -> TrainConfig:
    settings = dict(out=out, generations=generations, seed=3, bootstrap_games=3, games=4, batch=4, eval_games=2,
                    epochs=1, hidden1=H1, hidden2=H2, max_turns=60)
    settings.update(changes)
    return TrainConfig(**settings)


@pytest.fixture(scope="module")
def weights_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    rng = np.random.default_rng(0)
    shapes = {"W1T": (OBSERVATION_SIZE, H1), "b1": (H1,), "W2": (H2, H1), "b2": (H2,), "Wp": (ACTION_COUNT, H2),
              "bp": (ACTION_COUNT,), "Wv": (3, H2), "bv": (3,)}
    path = str(tmp_path_factory.mktemp("net") / "small.sqnet")
    write_weights(path, {k: (rng.standard_normal(s) * 0.2).astype(np.float32) for k, s in shapes.items()})
    return path


@pytest.fixture(scope="module")
def one_generation(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A finished generation 0 (copied by the tests that damage it)."""
    out = str(tmp_path_factory.mktemp("run") / "run")
    train(config(out, 1), quiet)
    return out


def copy_run(one_generation: str, tmp_path) -> str:
    out = str(tmp_path / "run")
    shutil.copytree(one_generation, out)
    return out


def cli_train(capsys, out: str, *more: str) -> tuple:
    """``sequence-game train`` at a tiny budget; (exit status, stdout, stderr)."""
    rc = cli.main(["train", "--out", out, "--generations", "1", "--bootstrap-games", "2", "--games", "2",
                   "--eval-games", "2", "--bootstrap-epochs", "1", *more])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def assert_one_line(err: str, *fragments: str) -> None:
    assert err.startswith("sequence-game: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


def test_training_resumes_and_reproduces(tmp_path) -> None:
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    train(config(a, 1), quiet)
    last = train(config(a, 2), quiet)  # continues after generation 0
    assert last.endswith("gen-0001.sqnet")
    with open(os.path.join(a, "log.jsonl")) as f:
        lines = f.read().splitlines()
    assert len(lines) == 2
    assert train(config(b, 2), quiet).endswith("gen-0001.sqnet")
    with open(last, "rb") as fa, open(os.path.join(b, "gen-0001.sqnet"), "rb") as fb:
        assert fa.read() == fb.read()
    with pytest.raises(ValueError, match="other settings"):
        train(TrainConfig(out=a, generations=3, seed=4), quiet)
    _core.Net(last)


def test_training_can_start_from_a_weights_file(tmp_path, weights_file: str) -> None:
    out = str(tmp_path / "tune")
    last = train(TrainConfig(out=out, generations=2, seed=1, init=weights_file, bootstrap_games=2, games=4, batch=4,
                             eval_games=2, epochs=1, max_turns=60), lambda text: None)
    gen0 = read_weights(os.path.join(out, "gen-0000.sqnet"))
    for k, v in read_weights(weights_file).items():
        np.testing.assert_allclose(gen0[k], v, rtol=1e-6, atol=1e-7)
    assert _core.Net(last).hidden1 == H1
    example = os.path.join(os.path.dirname(__file__), "..", "examples", "finetune_net.py")
    with open(example) as f:
        compile(f.read(), example, "exec")


def test_a_run_without_a_newer_setting_still_resumes(tmp_path) -> None:
    cfg = TrainConfig(out=str(tmp_path), generations=0)
    saved = {k: v for k, v in asdict(cfg).items() if k not in ("init", "bootstrap_epochs")}
    with open(tmp_path / "config.json", "w") as f:
        json.dump(saved, f)
    assert train(cfg, lambda text: None) == ""
    with pytest.raises(ValueError, match="seed"):
        train(TrainConfig(out=str(tmp_path), generations=0, seed=9), lambda text: None)


# ------------------------------------------------------------------ checkpoints are data, not code

class _Marker:
    """Pickles as a call that writes a file: what a checkpoint carrying code would run."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (exec, (f"open({self.path!r}, 'w').write('ran')",))


def hostile_bytes(kind: str, marker: str, good: str) -> bytes:
    if kind == "pickle":  # a bare pickle named like a checkpoint
        return pickle.dumps({"generation": 0, "x": _Marker(marker)})
    state = torch.load(good, weights_only=True)  # a real checkpoint with one object more
    state["generation"] = 1  # (as the generation in progress, partial.pt, would say)
    state["extra"] = _Marker(marker)
    buf = io.BytesIO()
    torch.save(state, buf)
    return buf.getvalue()


@pytest.mark.parametrize("name", ["checkpoint-0000.pt", "partial.pt"])
@pytest.mark.parametrize("kind", ["torch", "pickle"])
def test_a_checkpoint_carrying_code_is_refused_and_nothing_runs(tmp_path, capsys, one_generation: str,
                                                                kind: str, name: str) -> None:
    """The last finished generation's checkpoint, or the state of the generation in progress."""
    out = copy_run(one_generation, tmp_path)
    marker = str(tmp_path / "marker")
    checkpoint = os.path.join(out, name)
    data = hostile_bytes(kind, marker, os.path.join(out, "checkpoint-0000.pt"))
    with open(checkpoint, "wb") as f:
        f.write(data)
    with pytest.raises(ValueError, match=r"refused: .* nothing of it was run") as refused:
        load_checkpoint(checkpoint)
    assert "\n" not in str(refused.value)
    if kind == "torch":
        assert "it would call exec" in str(refused.value)
    with pytest.raises(ValueError, match="refused"):
        train(config(out, 2), quiet)
    assert not os.path.exists(marker)
    rc = cli.main(["train", "--out", out, "--generations", "2", "--seed", "3", "--bootstrap-games", "3",
                   "--games", "4", "--eval-games", "2"])
    err = capsys.readouterr().err
    assert rc == 1 and not os.path.exists(marker)
    # (the command line's other settings differ from the run's: the run's own settings are refused
    # first, or the checkpoint; neither runs anything)
    assert err.startswith("sequence-game: error: ") and err.count("\n") == 1, err


def damage(out: str, what: str) -> None:
    checkpoint = os.path.join(out, "checkpoint-0000.pt")
    with open(checkpoint, "rb") as f:
        good = f.read()
    writes = {"checkpoint cut in half": (checkpoint, good[:len(good) // 2]),
              "empty checkpoint": (checkpoint, b""),
              "checkpoint of text": (checkpoint, b"generation 0, trust me\n"),
              "checkpoint of another model": (checkpoint, None),
              "config.json holding []": (os.path.join(out, "config.json"), b"[]"),
              "config.json of text": (os.path.join(out, "config.json"), b"seed=3\n"),
              "config.json with a stray setting": (os.path.join(out, "config.json"), None)}
    path, data = writes[what]
    if what == "checkpoint of another model":
        state = torch.load(checkpoint, weights_only=True)
        state["model"] = {k: v[:1] for k, v in state["model"].items()}
        torch.save(state, checkpoint)
        return
    if what == "config.json with a stray setting":
        with open(path) as f:
            saved = json.load(f)
        data = json.dumps({**saved, "learning_rate": 1}).encode()
    with open(path, "wb") as f:
        f.write(data)


DAMAGE = {"checkpoint cut in half": "not a readable checkpoint", "empty checkpoint": "not a readable checkpoint",
          "checkpoint of text": "refused: not tensors and plain data",
          "checkpoint of another model": "does not fit this run's network",
          "config.json holding []": "not a run's settings", "config.json of text": "not a run's settings",
          "config.json with a stray setting": "unknown settings learning_rate"}


@pytest.mark.parametrize("what", sorted(DAMAGE))
def test_damaged_training_files_are_one_line_errors(tmp_path, capsys, one_generation: str, what: str) -> None:
    out = copy_run(one_generation, tmp_path)
    damage(out, what)
    with pytest.raises(ValueError, match=DAMAGE[what]):
        train(config(out, 2), quiet)
    rc = cli.main(["train", "--out", out, "--generations", "2", "--seed", "3", "--bootstrap-games", "3",
                   "--games", "4", "--eval-games", "2"])
    assert rc == 1
    assert_one_line(capsys.readouterr().err)


@pytest.mark.parametrize("where", ["missing folder", "a folder"])
def test_an_unwritable_export_is_refused_before_training(tmp_path, capsys, where: str) -> None:
    export = str(tmp_path / "nowhere" / "w.sqnet") if where == "missing folder" else str(tmp_path)
    out = str(tmp_path / "run")
    rc, _, err = cli_train(capsys, out, "--export", export)
    assert rc == 1
    assert_one_line(err, "--export")
    assert not os.path.exists(out)  # refused before anything was written


# ------------------------------------------------------------------ --init

@pytest.mark.parametrize("init", ["missing", "folder", "damaged"])
def test_a_bad_init_writes_nothing_and_the_corrected_command_runs(tmp_path, capsys, weights_file: str,
                                                                  init: str) -> None:
    out = str(tmp_path / "ft")
    bad = {"missing": str(tmp_path / "nothere.sqnet"), "folder": str(tmp_path),
           "damaged": str(tmp_path / "bad.sqnet")}[init]
    with open(tmp_path / "bad.sqnet", "wb") as f:
        f.write(b"SQNET\x00\r\n" + bytes(100))
    rc, _, err = cli_train(capsys, out, "--init", bad)
    assert rc == 1
    assert_one_line(err, "init")
    assert not os.path.exists(out)  # nothing of the run's settings was written
    rc, text, err = cli_train(capsys, out, "--init", weights_file)
    assert (rc, err) == (0, ""), err
    assert "generation 0: the network of" in text


def test_init_net_is_the_shipped_network(tmp_path, capsys) -> None:
    from sequence_game.agents.net import DEFAULT_WEIGHTS

    if not os.path.exists(DEFAULT_WEIGHTS):
        pytest.skip("no shipped network")
    out = str(tmp_path / "ft")
    rc, text, err = cli_train(capsys, out, "--init", "net")
    assert (rc, err) == (0, ""), err
    gen0 = read_weights(os.path.join(out, "gen-0000.sqnet"))
    for k, v in read_weights(DEFAULT_WEIGHTS).items():
        np.testing.assert_allclose(gen0[k], v, rtol=1e-5, atol=1e-6)
    with open(os.path.join(out, "config.json")) as f:
        assert json.load(f)["init"] == "net"
    assert cli_train(capsys, out, "--init", "net", "--generations", "1")[0] == 0  # the same run: resumed


# ------------------------------------------------------------------ resuming inside a generation

class StopRunError(Exception):
    pass


def stop_at(message: str, count: int = 1):
    """A progress callback that interrupts the run at the ``count``-th line starting with
    ``message`` (the trainer saves its state before it prints such a line)."""
    seen = []

    def progress(text: str) -> None:
        if text.startswith(message):
            seen.append(text)
            if len(seen) == count:
                raise StopRunError(text)

    return progress


def run_files(out: str) -> dict:
    with open(os.path.join(out, "log.jsonl")) as f:
        log = [json.loads(line) for line in f]
    for entry in log:  # wall and CPU times differ from run to run
        for k in ("seconds", "eval_seconds", "cpu_seconds"):
            entry.pop(k)
    weights = {}
    for name in sorted(os.listdir(out)):
        if name.endswith(".sqnet"):
            with open(os.path.join(out, name), "rb") as f:
                weights[name] = f.read()
    return {"log": log, "weights": weights}


@pytest.mark.parametrize("where", ["generation 0, after its first pass", "generation 1, after its self-play",
                                   "generation 1, after its first pass", "both"])
def test_a_run_interrupted_inside_a_generation_resumes_there_with_the_same_result(tmp_path, where: str) -> None:
    settings = dict(bootstrap_epochs=3, epochs=2)
    straight = str(tmp_path / "straight")
    train(config(straight, 2, **settings), quiet)
    out = str(tmp_path / "interrupted")
    stops = {"generation 0, after its first pass": [("  epoch 1/3", 1)],
             "generation 1, after its self-play": [("generation 1: ", 2)],
             "generation 1, after its first pass": [("  epoch 1/2", 1)],
             "both": [("  epoch 2/3", 1), ("  epoch 1/2", 1)]}[where]
    for message, count in stops:
        with pytest.raises(StopRunError):
            train(config(out, 2, **settings), stop_at(message, count))
        assert os.path.exists(os.path.join(out, "partial.pt"))
    lines: list = []
    train(config(out, 2, **settings), lines.append)
    resumed = [line for line in lines if "from pass" in line]
    assert resumed, lines  # it continued inside the generation, not from its start
    if where == "generation 1, after its self-play":
        assert not any(line.startswith("generation 1: self-play") for line in lines)
    assert run_files(out) == run_files(straight)
    assert not os.path.exists(os.path.join(out, "partial.pt"))
    assert not os.path.exists(os.path.join(out, "partial-rows.npz"))


def test_keep_prunes_the_checkpoints_and_the_run_still_resumes(tmp_path, capsys) -> None:
    out = str(tmp_path / "run")
    train(config(out, 3, keep=1), quiet)
    assert sorted(n for n in os.listdir(out) if n.endswith(".pt")) == ["checkpoint-0002.pt"]
    assert sorted(n for n in os.listdir(out) if n.endswith(".sqnet")) == [f"gen-{g:04d}.sqnet" for g in range(3)]
    full = str(tmp_path / "full")
    train(config(full, 3, keep=5), quiet)
    assert len([n for n in os.listdir(full) if n.endswith(".pt")]) == 3
    assert run_files(out) == run_files(full)  # pruning changes nothing of the run (the pool reads the weights)
    train(config(out, 4, keep=2), quiet)  # keep may change between reruns
    assert sorted(n for n in os.listdir(out) if n.endswith(".pt")) == ["checkpoint-0002.pt", "checkpoint-0003.pt"]
    with pytest.raises(ValueError, match="keep"):
        train(config(out, 4, keep=0), quiet)
    with pytest.raises(SystemExit) as usage:
        cli_train(capsys, str(tmp_path / "cli"), "--keep", "0")
    assert usage.value.code == 2 and "--keep must be from 1" in capsys.readouterr().err
