"""The learned player: the weights file, the core's network against a reference implementation
(numpy always, PyTorch when installed), the `net` and `net-search` agents (R9: they read only the
seat's view) and bad input. The trainer: tests/test_train.py."""

from __future__ import annotations

import os
import struct
import sys
import zlib

import numpy as np
import pytest
import sequence_game
from sequence_game import _core
from sequence_game.actions import ACTION_COUNT
from sequence_game.agents import agent_from_spec
from sequence_game.agents.net import NetAgent, NetSearchAgent, load_net
from sequence_game.netfile import HEADER_SIZE, read_weights, weights_bytes, write_weights
from sequence_game.observation import OBSERVATION_SIZE

H1, H2 = 32, 16


def random_arrays(seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    shapes = {"W1T": (OBSERVATION_SIZE, H1), "b1": (H1,), "W2": (H2, H1), "b2": (H2,), "Wp": (ACTION_COUNT, H2),
              "bp": (ACTION_COUNT,), "Wv": (3, H2), "bv": (3,)}
    return {k: (rng.standard_normal(s) * 0.2).astype(np.float32) for k, s in shapes.items()}


@pytest.fixture(scope="module")
def weights_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("net") / "small.sqnet")
    write_weights(path, random_arrays())
    return path


def reference_forward(a: dict, obs: np.ndarray, actions: np.ndarray) -> tuple:
    """The network in float64 numpy, as the file's docstring writes it."""
    h1 = np.maximum(obs.astype(np.float64) @ a["W1T"] + a["b1"], 0)
    h2 = np.maximum(a["W2"] @ h1 + a["b2"], 0)
    logits = a["Wp"][actions] @ h2 + a["bp"][actions]
    teams = 3 if obs[836] > 2.5 else 2
    v = (a["Wv"] @ h2 + a["bv"])[:teams]
    v = np.exp(v - v.max())
    value = np.zeros(3)
    value[:teams] = v / v.sum()
    return logits, value


def positions(count: int = 12, players: int = 2) -> list:
    out = []
    for seed in range(count):
        g = sequence_game.Game(players=players, seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(int(rng.integers(0, 40))):
            if g.is_over:
                break
            ids = g.legal_move_ids()
            g.play_id(int(ids[rng.integers(len(ids))]))
        if not g.is_over:
            out.append(g)
    return out


# ------------------------------------------------------------------ the file

def test_weights_round_trip(tmp_path) -> None:
    arrays = random_arrays(1)
    path = str(tmp_path / "w.sqnet")
    write_weights(path, arrays)
    back = read_weights(path)
    for k, v in arrays.items():
        np.testing.assert_array_equal(back[k], v)
    net = _core.Net(path)
    assert (net.hidden1, net.hidden2) == (H1, H2)
    assert net.parameters == sum(v.size for v in arrays.values())
    with open(path, "rb") as f:
        assert _core.Net(f.read()).hidden1 == H1


def damaged_variants() -> dict:
    good = weights_bytes(random_arrays(2))
    flipped = bytearray(good)
    flipped[HEADER_SIZE + 100] ^= 0x40
    version = bytearray(good)
    version[8:12] = struct.pack("<I", 2)
    shapes = bytearray(good)
    shapes[12:16] = struct.pack("<I", 889)
    hidden = bytearray(good)
    hidden[16:20] = struct.pack("<I", 0)
    nan = bytearray(good[:-4])
    nan[HEADER_SIZE:HEADER_SIZE + 4] = struct.pack("<f", float("nan"))
    nan += struct.pack("<I", zlib.crc32(bytes(nan)) & 0xFFFFFFFF)
    return {"empty": b"", "magic": b"XXXXXXXX" + good[8:], "truncated": good[:-100], "longer": good + b"\0",
            "checksum": bytes(flipped), "version": bytes(version), "shapes": bytes(shapes),
            "hidden": bytes(hidden), "nan": bytes(nan), "header only": good[:HEADER_SIZE]}


@pytest.mark.parametrize("name", sorted(damaged_variants()))
def test_damaged_file_is_a_clear_error(tmp_path, name: str) -> None:
    data = damaged_variants()[name]
    path = str(tmp_path / "bad.sqnet")
    with open(path, "wb") as f:
        f.write(data)
    with pytest.raises(ValueError) as core_error:
        _core.Net(path)
    assert "\n" not in str(core_error.value)
    with pytest.raises(ValueError):
        _core.Net(data)
    with pytest.raises(ValueError):
        read_weights(path)
    with pytest.raises(ValueError, match=r"bad\.sqnet"):
        load_net(path)


def test_net_argument_errors(tmp_path, weights_file: str) -> None:
    with pytest.raises(TypeError, match="path"):
        _core.Net(3)
    with pytest.raises(ValueError, match="cannot open"):
        _core.Net(str(tmp_path / "missing.sqnet"))
    with pytest.raises(FileNotFoundError):
        load_net(str(tmp_path / "missing.sqnet"))
    net = _core.Net(weights_file)
    obs = np.zeros(OBSERVATION_SIZE, np.float32)
    with pytest.raises(ValueError, match="shape"):
        net.evaluate(obs[:10], [1])
    with pytest.raises(ValueError, match="5252"):
        net.evaluate(obs, [5253])
    with pytest.raises(ValueError, match="5252"):
        net.evaluate(obs, [-1])
    bad = obs.copy()
    bad[3] = np.inf
    with pytest.raises(ValueError, match="non-finite"):
        net.evaluate(bad, [1])
    with pytest.raises(ValueError, match="shape"):
        weights_bytes({**random_arrays(), "Wv": np.zeros((2, H2), np.float32)})


# Peak memory as the kernel counts it for this process image: VmHWM starts afresh at exec, where
# getrusage's ru_maxrss carries over the forking parent's peak (the whole test session's).
_HUGE_PROBE = """
import sys
from sequence_game import _core
from sequence_game.netfile import read_weights
from sequence_game.agents import agent_from_spec
path = sys.argv[1]
for load in (_core.Net, read_weights, lambda p: agent_from_spec("net:weights=" + p)):
    try:
        load(path)
    except ValueError as e:
        print(str(e).replace(path, "FILE"))
with open("/proc/self/status") as status:
    print(next(int(line.split()[1]) // 1024 for line in status if line.startswith("VmHWM:")))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the peak memory from Linux's /proc")
@pytest.mark.parametrize("header", ["valid", "foreign"])
def test_a_huge_wrong_file_is_refused_from_its_header(tmp_path, header: str) -> None:
    """A 3 GB file (sparse: no disk used) is refused after its header and size are checked,
    without reading it: the probe's peak memory stays far below the file's size."""
    import subprocess

    path = str(tmp_path / "huge.sqnet")
    with open(path, "wb") as f:
        f.write(weights_bytes(random_arrays())[:HEADER_SIZE] if header == "valid" else b"PK\x03\x04" + bytes(60))
        f.truncate(3 << 30)
    run = subprocess.run([sys.executable, "-c", _HUGE_PROBE, path], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    *messages, peak_mib = run.stdout.splitlines()
    assert len(messages) == 3
    why = "shapes need" if header == "valid" else "bad magic"
    assert all(why in m for m in messages), messages
    assert int(peak_mib) < 600, f"{peak_mib} MiB at peak: the file was read"


@pytest.mark.parametrize("command", ["arena", "play", "selfplay"])
@pytest.mark.parametrize("what", ["missing", "folder"])
def test_a_missing_or_folder_weights_file_is_one_line_in_each_command(tmp_path, capsys, command: str,
                                                                       what: str) -> None:
    from sequence_game import cli

    target = tmp_path / "weights"
    if what == "folder":
        target.mkdir()
    spec = f"net:weights={target}"
    argv = {"arena": ["arena", spec, "random", "--games", "1", "--results", "-", "--no-progress"],
            "play": ["play", "--ai", spec, "--seed", "1"],
            "selfplay": ["selfplay", spec, "--games", "1", "--out", str(tmp_path / "data")]}[command]
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("sequence-game: error: agent spec") and err.count("\n") == 1, err
    assert "no network weights file" in err and ("that is a folder" in err) == (what == "folder")


# ------------------------------------------------------------------ the forward pass

@pytest.mark.parametrize("players", [2, 3, 4])
def test_core_matches_reference(weights_file: str, players: int) -> None:
    arrays = read_weights(weights_file)
    net = _core.Net(weights_file)
    for g in positions(6, players):
        obs = g.observation_tensor(g.current_player)
        actions = np.flatnonzero(g.legal_mask())
        logits, value = net.evaluate(obs, actions)
        ref_logits, ref_value = reference_forward(arrays, obs, actions)
        np.testing.assert_allclose(logits, ref_logits, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(value, ref_value, rtol=1e-4, atol=1e-5)
        assert abs(value.sum() - 1) < 1e-5


def test_core_matches_pytorch() -> None:
    torch = pytest.importorskip("torch")
    from sequence_game.training.net.model import PolicyValueNet

    torch.manual_seed(0)
    model = PolicyValueNet(H1, H2)
    net = _core.Net(weights_bytes(model.export_arrays()))
    games = positions(10, 2) + positions(4, 3)
    obs = np.stack([g.observation_tensor(g.current_player) for g in games])
    with torch.no_grad():
        logits, vlog = model(torch.from_numpy(obs))
        probs = torch.softmax(vlog, dim=1).numpy()
    for i, g in enumerate(games):
        actions = np.flatnonzero(g.legal_mask())
        got, value = net.evaluate(obs[i], actions)
        np.testing.assert_allclose(got, logits[i, actions].numpy(), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(value, probs[i], rtol=1e-4, atol=1e-4)


def test_shipped_format_loads_back_into_pytorch(weights_file: str) -> None:
    torch = pytest.importorskip("torch")
    from sequence_game.training.net.model import PolicyValueNet

    arrays = read_weights(weights_file)
    model = PolicyValueNet.from_arrays(arrays)
    back = model.export_arrays()
    for k, v in arrays.items():
        np.testing.assert_allclose(back[k], v, rtol=1e-6, atol=1e-7)
    g = positions(1)[0]
    obs = g.observation_tensor(g.current_player)
    actions = np.flatnonzero(g.legal_mask())
    with torch.no_grad():
        logits, _ = model(torch.from_numpy(obs[None, :]))
    np.testing.assert_allclose(_core.Net(weights_file).evaluate(obs, actions)[0], logits[0, actions].numpy(),
                               rtol=1e-4, atol=1e-4)


# ------------------------------------------------------------------ the agents

def redealt(g: sequence_game.Game, seed: int) -> sequence_game.Game:
    """The same game with every card the player to move cannot see dealt again (R9)."""
    d = g.to_dict()
    me = d["current_player"]
    hidden = [c for p, hand in enumerate(d["hands"]) if p != me for c in hand] + list(d["draw_pile"])
    rng = np.random.default_rng(seed)
    rng.shuffle(hidden)
    k = 0
    for p, hand in enumerate(d["hands"]):
        if p != me:
            d["hands"][p] = hidden[k:k + len(hand)]
            k += len(hand)
    d["draw_pile"] = hidden[k:]
    d["rng"] = f"{rng.integers(1 << 62):016x}"
    d["last_draw"] = None
    return sequence_game.Game.from_dict(d)


def test_net_agent_plays_legal_moves_and_reads_only_its_view(weights_file: str) -> None:
    agent = NetAgent(weights=weights_file)
    for g in positions(8, 2):
        move = agent.select_move(g)
        assert move in g.legal_moves()
        ids, probs, value = agent.policy(g)
        assert abs(sum(probs) - 1) < 1e-4 and len(value) == g.teams
        other = redealt(g, 5)
        assert agent.policy(other) == (ids, probs, value)
    assert agent.analyze(positions(1)[0]).moves


@pytest.mark.parametrize("mix", [0.0, 0.5])
def test_net_search_is_seeded_and_reads_only_its_view(weights_file: str, mix: float) -> None:
    for g in positions(4, 2):
        a = NetSearchAgent(iterations=60, seed=7, weights=weights_file, mix=mix).analyze(g)
        b = NetSearchAgent(iterations=60, seed=7, weights=weights_file, mix=mix).analyze(redealt(g, 9))
        assert a.move in g.legal_moves()
        assert a.iterations == 60
        assert [(m.move, m.visits) for m in a.moves] == [(m.move, m.visits) for m in b.moves]
        assert sum(m.visits for m in a.moves) <= 60
    g = positions(1)[0]
    r = _core.net_search(g._state, load_net(weights_file), _core.NetSearchOptions(iterations=None, time_limit=0.05), 1)
    assert r.iterations >= 1 and r.seconds < 2


def test_agent_specs_and_bad_arguments(weights_file: str) -> None:
    g = positions(1)[0]
    agent = agent_from_spec(f"net-search:iters=30,seed=1,weights={weights_file}")
    assert isinstance(agent, NetSearchAgent) and agent.iterations == 30
    assert agent.select_move(g) in g.legal_moves()
    assert isinstance(agent_from_spec(f"net:weights={weights_file},temperature=0.5,seed=2"), NetAgent)
    with pytest.raises(ValueError, match="temperature"):
        NetAgent(weights=weights_file, temperature=-1)
    with pytest.raises(ValueError, match="iterations"):
        NetSearchAgent(iterations=0, weights=weights_file)
    with pytest.raises(ValueError, match="time"):
        NetSearchAgent(time_limit=-1, weights=weights_file)
    with pytest.raises(ValueError, match="c_puct"):
        NetSearchAgent(c_puct=0, weights=weights_file)
    with pytest.raises(ValueError, match="mix"):
        NetSearchAgent(mix=1.5, weights=weights_file)
    with pytest.raises(ValueError, match="playout_turns"):
        NetSearchAgent(playout_turns=-1, weights=weights_file)
    with pytest.raises(TypeError, match="weights"):
        NetAgent(weights=3)  # type: ignore[arg-type]
    net = load_net(weights_file)
    with pytest.raises(ValueError, match="iterations"):
        _core.NetSearchOptions(iterations=None, time_limit=None)
    with pytest.raises(ValueError, match="c_puct"):
        _core.NetSearchOptions(c_puct=-1.0)
    with pytest.raises(ValueError, match="mix"):
        _core.NetSearchOptions(mix=float("nan"))
    with pytest.raises(ValueError, match="max_nodes"):
        NetSearchAgent(max_nodes=10, weights=weights_file)
    over = sequence_game.Game(players=2, seed=1)
    while not over.is_over:
        over.play_id(over.legal_move_ids()[0])
    with pytest.raises(ValueError, match="over"):
        _core.net_search(over._state, net, _core.NetSearchOptions(iterations=10))
    with pytest.raises(ValueError, match="over"):
        NetAgent(weights=weights_file).select_move(over)


@pytest.mark.skipif(not os.path.exists(os.path.join(os.path.dirname(sequence_game.__file__), "agents", "data",
                                                    "net.sqnet")), reason="no shipped network")
def test_shipped_network_loads_and_plays() -> None:
    g = positions(1)[0]
    assert agent_from_spec("net").select_move(g) in g.legal_moves()
    assert agent_from_spec("net-search:iters=20,seed=1").select_move(g) in g.legal_moves()


def test_net_search_options_share_the_searches_limits():
    """The net search's options are the other searches' limits (declared once, checked once) and its
    own settings: the same limit fields, the same refusals, and its one thread."""
    assert _core.NetSearchOptions.fields[:4] == _core.SearchOptions.fields[:4] == _core.RolloutOptions.fields[:4]
    assert _core.NetSearchOptions.fields[:4] == ("iterations", "time_limit", "threads", "seed")
    for bad in ({"time_limit": -1}, {"time_limit": 1e7}, {"iterations": 0}, {"seed": -1}, {"iterations": 2.5}):
        errors = []
        for options in (_core.SearchOptions, _core.NetSearchOptions):
            with pytest.raises((TypeError, ValueError)) as e:
                options(**bad)
            errors.append((e.type, str(e.value)))
        assert errors[0] == errors[1], bad
    with pytest.raises(ValueError, match=r"threads must be 1 \(the net search runs one thread\), not 2"):
        _core.NetSearchOptions(threads=2)
    o = _core.NetSearchOptions()
    assert (o.iterations, o.time_limit, o.c_puct, o.mix, o.decisive) == (800, None, 1.5, 1.0, True)


def test_net_search_agent_is_a_search_agent_with_stop_and_budget(weights_file: str) -> None:
    from sequence_game.agents import Limit, StopToken

    g = positions(1)[0]
    agent = NetSearchAgent(iterations=400, seed=3, weights=weights_file, c_puct=2.0)
    assert isinstance(agent.options, _core.NetSearchOptions) and agent.c_puct == 2.0 and agent.iterations == 400
    assert agent.name == "net-search:iterations=400,seed=3,c_puct=2"
    token = StopToken()
    token.set()
    stopped = agent.analyze(g, stop=token)
    assert stopped.interrupted and stopped.iterations < 400 and stopped.move in g.legal_moves()
    assert agent.analyze(g, limit=Limit(iterations=30)).iterations == 30
    timed = NetSearchAgent(time_limit=0.05, weights=weights_file).analyze(g)
    assert timed.iterations >= 1 and timed.seconds < 2
