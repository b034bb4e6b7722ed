"""PolicyAgent: a policy over (observation, legal mask) plays legal moves, sees only what its player
may see (R9), completes R7 declare choices, and loads saved models (numpy, ONNX, Stable-Baselines3)
by itself and by the agent spec ``policy:path`` in the arena."""

from __future__ import annotations

import random

import numpy as np
import pytest
from sequence_game import Game
from sequence_game.actions import ACTION_COUNT
from sequence_game.agents import PolicyAgent, agent_from_spec
from sequence_game.arena import match
from sequence_game.observation import OBSERVATION_SCALE, OBSERVATION_SIZE


def _mlp(tmp_path, seed=0, normalize=False, hidden=16):
    rng = np.random.default_rng(seed)
    layers = {"w0": rng.normal(0, 0.3, (OBSERVATION_SIZE, hidden)).astype(np.float32), "b0": np.zeros(hidden, np.float32),
              "w1": rng.normal(0, 0.3, (hidden, ACTION_COUNT)).astype(np.float32), "b1": rng.normal(0, 1, ACTION_COUNT).astype(np.float32)}
    path = tmp_path / f"mlp{seed}.npz"
    np.savez(path, normalize=np.array(int(normalize)), **layers)
    return path, layers


class _OnlyObservation:
    """A game that lets a policy agent read the observation tensor of the seat to move, its legal
    mask and its own action resolution, and fails on anything else (another hand, the draw pile,
    the board, the position). Its copy (for the declare actions of a placement, R7) is watched too."""

    allowed = frozenset({"legal_mask", "current_player", "is_over", "_resolve_action"})

    def __init__(self, game):
        object.__setattr__(self, "_game", game)
        object.__setattr__(self, "reads", [])

    def observation_tensor(self, player):
        assert player == self._game.current_player, "only the seat to move's own view"
        self.reads.append("observation_tensor")
        return self._game.observation_tensor(player)

    def copy(self):
        return _OnlyObservation(self._game.copy())

    def __setattr__(self, name, value):
        assert name == "_pending", f"the policy agent set {name}"
        self._game._pending = value

    def __getattr__(self, name):
        if name not in self.allowed:
            raise AssertionError(f"the policy agent read {name}")
        self.reads.append(name)
        return getattr(self._game, name)


def test_callable_policy_plays_legal_moves_reading_only_its_observation():
    seen = []

    def policy(obs, mask):
        seen.append((obs.copy(), mask.copy()))
        return int(np.flatnonzero(mask)[-1])

    agent = PolicyAgent(policy)
    for seed in range(3):
        g = Game(players=3, seed=seed)
        for _ in range(60):
            if g.is_over:
                break
            obs, mask = g.observation_tensor(g.current_player), g.legal_mask()
            before = len(seen)
            move = agent.select_move(_OnlyObservation(g))
            np.testing.assert_array_equal(seen[before][0], obs)
            np.testing.assert_array_equal(seen[before][1], mask)
            assert move in g.legal_moves()
            g.play(move)


def test_policy_choice_does_not_depend_on_hidden_cards(tmp_path):
    """R9: re-deal every card the mover cannot see (the other hands, the draw pile) and the saved
    policy chooses the same move."""
    path, _ = _mlp(tmp_path)
    agent = agent_from_spec(f"policy:{path}")
    shuffle = random.Random(0)
    g = Game(players=4, seed=9)
    checked = 0
    while not g.is_over and checked < 40:
        d = g.to_dict()
        me = g.current_player
        hidden = [c for p, h in enumerate(d["hands"]) if p != me for c in h] + d["draw_pile"]
        shuffle.shuffle(hidden)
        for p, h in enumerate(d["hands"]):
            if p != me:
                d["hands"][p], hidden = hidden[:len(h)], hidden[len(h):]
        d["draw_pile"] = hidden
        d["last_draw"] = None  # the card the last player drew, now re-dealt (hidden from the mover too)
        other = Game.from_dict(d)
        assert other.to_dict() != g.to_dict()
        move = agent.select_move(g)
        assert agent.select_move(other) == move
        g.play(move)
        checked += 1
    assert checked == 40


def test_declare_choices_are_completed_by_follow_up_actions():
    """A placement with a choice of sequences (R7): the policy is asked again for the declare
    actions, on a copy; the game it was given does not change."""
    from helpers import board_rows, position_dict

    # The cross of tests/test_actions.py: 7H on d6 completes a row and a column, each with a choice of windows.
    cross = dict(B=["a6", "b6", "c6", "e6", "f6", "g6", "d3", "d4", "d5", "d7", "d8", "d9"])
    g = Game.from_dict(position_dict(2, board=board_rows(**cross), hands=[["7H", "2S"], ["3S"]]))
    choice = [a for a in g.legal_actions() if g._resolve_action(a)[0] == "pending"]
    assert len(choice) == 1
    calls = []

    def policy(obs, mask):
        calls.append(mask.copy())
        return choice[0] if len(calls) == 1 else int(np.flatnonzero(mask)[-1])

    before = g.to_dict()
    moves = {m for m in g.legal_moves() if m.kind == "place"}
    move = PolicyAgent(policy).select_move(g)
    assert g.to_dict() == before and g.pending_placement is None
    assert move in moves and move.declares
    assert len(calls) == 3 and len(move.declares) == 2  # the placement, then a declare action per line


def test_numpy_and_onnx_models_give_the_same_moves(tmp_path):
    path, layers = _mlp(tmp_path, seed=1, normalize=True)
    npz = PolicyAgent(path)
    assert npz.name == f"policy:{path}"
    g = Game(players=2, seed=3)
    obs, mask = g.observation_tensor(g.current_player), g.legal_mask()
    x = np.tanh((obs / OBSERVATION_SCALE) @ layers["w0"] + layers["b0"]) @ layers["w1"] + layers["b1"]
    expected = int(np.flatnonzero(mask)[np.argmax(x[mask])])
    assert npz.policy(obs, mask) == expected
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper, numpy_helper

    nodes = [helper.make_node("MatMul", ["obs", "w0"], ["h0"]), helper.make_node("Add", ["h0", "b0"], ["a0"]),
             helper.make_node("Tanh", ["a0"], ["t0"]), helper.make_node("MatMul", ["t0", "w1"], ["h1"]),
             helper.make_node("Add", ["h1", "b1"], ["logits"])]
    graph = helper.make_graph(nodes, "policy", [helper.make_tensor_value_info("obs", TensorProto.FLOAT, [None, OBSERVATION_SIZE])],
                              [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [None, ACTION_COUNT])],
                              [numpy_helper.from_array(v, k) for k, v in layers.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(tmp_path / "policy.onnx"))
    from_onnx = agent_from_spec(f"policy:{tmp_path / 'policy.onnx'},normalize=true")
    for _ in range(40):
        if g.is_over:
            break
        move = npz.select_move(g)
        assert from_onnx.select_move(g) == move
        g.play(move)


def test_a_pytorch_model_exported_to_onnx_plays_as_pytorch_does(tmp_path):
    """The ``.onnx`` route as a PyTorch user takes it: ``torch.onnx.export`` (the default exporter,
    which needs onnxscript) of a network from observations to action logits, with a dynamic batch
    dimension, loaded by the ``policy:`` spec, plays the legal action of highest logit that the
    torch network itself gives, position after position."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnxscript")
    pytest.importorskip("onnxruntime")
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(OBSERVATION_SIZE, 32), torch.nn.ReLU(), torch.nn.Linear(32, ACTION_COUNT))
    net.eval()  # exported for inference, as after training
    path = tmp_path / "policy.onnx"
    torch.onnx.export(net, (torch.zeros(1, OBSERVATION_SIZE),), str(path), input_names=["obs"], output_names=["logits"],
                      dynamic_shapes=({0: torch.export.Dim("batch")},))
    agent = agent_from_spec(f"policy:{path}")
    g = Game(players=2, seed=4)
    for _ in range(40):
        if g.is_over:
            break
        obs, mask = g.observation_tensor(g.current_player), g.legal_mask()
        with torch.no_grad():
            logits = net(torch.as_tensor(obs, dtype=torch.float32)[None])[0].numpy()
        action = int(np.flatnonzero(mask)[np.argmax(logits[mask])])
        assert agent.policy(obs, mask) == action
        move = agent.select_move(g)
        g.play(move)


def test_policy_spec_plays_in_the_arena_and_bad_policies_are_refused(tmp_path):
    path, _ = _mlp(tmp_path, seed=2)
    result = match([f"policy:{path}", "random"], games=4, seed=1, max_turns=60)
    assert sum(result.wins) + result.draws == 4
    with pytest.raises(ValueError, match="no model file"):
        agent_from_spec(f"policy:{tmp_path / 'missing.npz'}")
    with pytest.raises(ValueError, match=r"\.npz"):
        (tmp_path / "model.txt").write_text("x")
        PolicyAgent(tmp_path / "model.txt")
    with pytest.raises(TypeError, match="callable"):
        PolicyAgent(3)
    g = Game(players=2, seed=1)
    with pytest.raises(ValueError, match="not legal"):
        PolicyAgent(lambda obs, mask: int(np.flatnonzero(~mask)[0])).select_move(g)
    with pytest.raises(TypeError, match="not an action"):
        PolicyAgent(lambda obs, mask: "a move").select_move(g)
    sampled = [PolicyAgent(path, sample=True, seed=s).select_move(g) for s in range(6)]
    assert len(set(sampled)) > 1 and all(m in g.legal_moves() for m in sampled)


def test_policy_spec_plays_in_selfplay_and_at_the_terminal(tmp_path, monkeypatch, capsys):
    import io
    import sys

    from sequence_game import cli
    from sequence_game.agents import GreedyAgent
    from sequence_game.records import GameRecord
    from sequence_game.selfplay import selfplay

    path, _ = _mlp(tmp_path, seed=6)
    spec = f"policy:{path}"
    manifest = selfplay([spec, "random"], games=2, out=str(tmp_path / "run"), seed=1, max_turns=80)
    assert manifest["positions"] > 0
    # `play --ai policy:...`: a human (GreedyAgent's moves typed in) against the policy.
    g, me, policy, lines = Game(players=2, seed=5), GreedyAgent(seed=0), agent_from_spec(spec), []
    while not g.is_over:
        move = me.select_move(g) if g.current_player == 0 else policy.select_move(g)
        if g.current_player == 0:
            lines.append(str(move))
        g.play(move)
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(lines) + "\n"))
    record = tmp_path / "game.json"
    assert cli.main(["play", "--seed", "5", "--ai", spec, "--save", str(record)]) == 0
    capsys.readouterr()
    saved = GameRecord.load(record)
    assert saved.agents == ["human", spec] and saved.replay().to_dict() == g.to_dict()


# --------------------------------------------------------------------------- damaged model files
# A model file is untrusted bytes: every damage is one line naming the file and what is wrong, and
# nothing a header claims is allocated before it is checked against the file.

def _npy(array):
    import io

    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.asarray(array), allow_pickle=False)
    return buf.getvalue()


def _npy_claiming(shape, descr="<f4", payload=b"\0" * 64):
    """An .npy member whose header claims ``shape`` whatever the bytes after it hold."""
    import io

    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": False, "shape": shape})
    return buf.getvalue() + payload


def _write_npz(path, members, compression=None):
    import zipfile

    with zipfile.ZipFile(path, "w", compression or zipfile.ZIP_STORED) as z:
        for name, data in members.items():
            z.writestr(name if name.endswith(".npy") else name + ".npy", data if isinstance(data, bytes) else _npy(data))
    return path


def _small_layers(hidden=4):
    rng = np.random.default_rng(0)
    return {"w0": rng.normal(0, 0.3, (OBSERVATION_SIZE, hidden)).astype(np.float32), "b0": np.zeros(hidden, np.float32),
            "w1": rng.normal(0, 0.3, (hidden, ACTION_COUNT)).astype(np.float32),
            "b1": np.zeros(ACTION_COUNT, np.float32)}


def _refused(path, *words):
    with pytest.raises(ValueError) as e:
        PolicyAgent(path)
    text = str(e.value)
    assert text.startswith(str(path)) and "\n" not in text, text
    for w in words:
        assert w in text, text
    return text


L = _small_layers()
GIB_332 = (OBSERVATION_SIZE, 332 * 2**30 // 4 // OBSERVATION_SIZE)


@pytest.mark.parametrize("members, words", [
    ({**L, "w0": np.float32(1.0)}, ["w0 must be a 2-D array", "a scalar"]),
    ({**L, "w0": np.ones(OBSERVATION_SIZE, np.float32)}, ["w0 must be a 2-D array", f"({OBSERVATION_SIZE},)"]),
    ({**L, "w1": np.ones((3, ACTION_COUNT), np.float32)}, ["w1 must be a 2-D array of shape (4, outputs)"]),
    ({k: v for k, v in L.items() if k != "b1"}, ["no bias b1"]),
    ({**L, "b0": np.zeros(5, np.float32)}, ["b0 must be a 1-D array of 4 values"]),
    ({"w0": L["w0"], "b0": L["b0"], "w2": L["w1"], "b2": L["b1"]}, ["w2 but no w1"]),
    ({"b0": L["b0"]}, ["holds no w0"]),
    ({}, ["holds no w0"]),
    ({"w0": L["w0"], "b0": L["b0"]}, ["gives 4 values", f"{ACTION_COUNT} action logits"]),
    ({**L, "w0": _npy_claiming(GIB_332)}, ["w0 says it is a", "but holds 64 bytes"]),
    ({**L, "b1": _npy_claiming((2**62,), "<f8")}, ["b1 says it is a", "but holds"]),
    ({**L, "w0": _npy_claiming((OBSERVATION_SIZE, 4), "|O")}, ["w0 holds object values, not numbers"]),
    ({**L, "w0": L["w0"].astype(np.complex64)}, ["w0 holds complex64 values, not numbers"]),
    ({**L, "b0": np.array(["a", "b", "c", "d"])}, ["b0 holds <U1 values, not numbers"]),
    ({**L, "b0": np.array([0, np.nan, 0, 0], np.float32)}, ["b0 holds NaN or infinite values"]),
    ({**L, "normalize": np.array([1, 0, 1])}, ["normalize must be one value"]),
    ({**L, "w0": _npy_claiming((OBSERVATION_SIZE, -4))}, ["negative dimension"]),
    ({**L, "w0": b"\x93NUMPY\x09\x00" + b"\0" * 40}, ["w0"]),
    ({**L, "w0": b"not an array at all"}, []),
])
def test_a_damaged_npz_policy_is_one_line_naming_the_file(tmp_path, members, words):
    _refused(_write_npz(tmp_path / "model.npz", members), *words)


@pytest.mark.parametrize("content, words", [
    (b"", ["not a .npz file"]),
    (bytes(range(256)) * 4, ["not a .npz file"]),
    (b"PK\x05\x06" + b"\0" * 18, ["holds no w0"]),  # an empty zip
])
def test_an_npz_policy_that_is_not_a_zip_is_named(tmp_path, content, words):
    path = tmp_path / "model.npz"
    path.write_bytes(content)
    _refused(path, *words)


def test_a_damaged_zip_member_is_named(tmp_path):
    import zipfile

    good = _write_npz(tmp_path / "good.npz", L, zipfile.ZIP_DEFLATED).read_bytes()
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good[: len(good) // 2])
    _refused(cut)
    stored = bytearray(_write_npz(tmp_path / "stored.npz", L).read_bytes())
    at = bytes(stored).index(b"\x93NUMPY") + 200  # inside w0's data: the checksum no longer matches
    stored[at] ^= 0xFF
    (tmp_path / "crc.npz").write_bytes(bytes(stored))
    _refused(tmp_path / "crc.npz", "Bad CRC")


def test_the_policy_size_bound_is_checked_from_the_headers(tmp_path, monkeypatch):
    from sequence_game.agents import policy

    monkeypatch.setattr(policy, "MAX_POLICY_VALUES", 1000)
    _refused(_write_npz(tmp_path / "big.npz", L), "more than the 1000")


def test_a_valid_npz_with_extra_entries_and_any_float_type_loads(tmp_path):
    members = {**{k: v.astype(np.float64) for k, v in L.items()}, "notes": np.arange(3), "normalize": np.array(True)}
    agent = PolicyAgent(_write_npz(tmp_path / "model.npz", members))
    g = Game(players=2, seed=2)
    assert agent.select_move(g) in g.legal_moves()


try:
    from hypothesis import given
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover
    given = None

if given is not None:
    _COUNTER = iter(range(10**9))

    @given(st.data())
    def test_property_a_corrupted_npz_policy_loads_or_is_refused_in_one_line(tmp_path, data):
        """Random damage (bytes changed, cut off, inserted) to a valid model: it loads and plays a
        legal move, or it is one ValueError line naming the file; never another exception."""
        import zipfile

        original = bytearray(_write_npz(tmp_path / "base.npz", _small_layers(hidden=2),
                                        data.draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))
                                        ).read_bytes())
        for _ in range(data.draw(st.integers(1, 4))):
            kind = data.draw(st.sampled_from(["flip", "cut", "insert", "header"]))
            starts = [i for i in range(len(original)) if original.startswith(b"\x93NUMPY", i)]
            if kind == "header" and starts:  # aim at an array header's shape or dtype text
                at = data.draw(st.sampled_from(starts)) + data.draw(st.integers(8, 80))
                original[at:at + 1] = data.draw(st.binary(min_size=1, max_size=3))
            elif kind in ("flip", "header"):
                at = data.draw(st.integers(0, len(original) - 1))
                original[at] ^= data.draw(st.integers(1, 255))
            elif kind == "cut":
                del original[data.draw(st.integers(0, len(original) - 1)):]
            else:
                at = data.draw(st.integers(0, len(original)))
                original[at:at] = data.draw(st.binary(min_size=1, max_size=16))
            if not original:
                break
        path = tmp_path / f"damaged{next(_COUNTER)}.npz"  # a new name: loaded models are cached by path
        path.write_bytes(bytes(original))
        try:
            agent = PolicyAgent(path)
        except ValueError as e:
            assert str(e).startswith(str(path)) and "\n" not in str(e)
            return
        g = Game(players=2, seed=1)
        assert agent.select_move(g) in g.legal_moves()


# ONNX models: built with the onnx package and run by onnxruntime (both optional)

def _onnx_model(path, input_type=None, inputs=1, obs=OBSERVATION_SIZE, logits=ACTION_COUNT):
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper, numpy_helper

    input_type = TensorProto.FLOAT if input_type is None else input_type
    w = np.zeros((obs, logits), np.float64 if input_type == TensorProto.DOUBLE else np.float32)
    names = ["obs"] + [f"extra{i}" for i in range(inputs - 1)]
    nodes = [helper.make_node("MatMul", ["obs", "w"], ["logits0"])]
    for extra in names[1:]:
        nodes.append(helper.make_node("Add", ["logits0", extra], ["logits"]))
        break
    else:
        nodes.append(helper.make_node("Identity", ["logits0"], ["logits"]))
    shapes = [[None, obs]] + [[None, logits]] * (inputs - 1)
    graph = helper.make_graph(nodes, "policy", [helper.make_tensor_value_info(n, input_type, d) for n, d in zip(names, shapes)],
                              [helper.make_tensor_value_info("logits", input_type, [None, logits])],
                              [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def _written(path, content):
    pytest.importorskip("onnxruntime")
    path.write_bytes(content)
    return path


@pytest.mark.parametrize("make, words", [
    (lambda p: _written(p, b""), ["not a valid ONNX model"]),
    (lambda p: _written(p, bytes(range(256)) * 8), ["not a valid ONNX model"]),
    (lambda p: _onnx_model(p, input_type=11), ["tensor(double), not tensor(float)"]),  # TensorProto.DOUBLE
    (lambda p: _onnx_model(p, inputs=2), ["has 2 inputs", "one input"]),
    (lambda p: _onnx_model(p, obs=17), ["has shape [batch, 17]"]),
    (lambda p: _onnx_model(p, logits=10), ["gives 10 float32 values", f"{ACTION_COUNT} action logits"]),
])
def test_a_damaged_or_wrong_onnx_policy_is_one_line_naming_the_file(tmp_path, make, words):
    _refused(make(tmp_path / "model.onnx"), *words)


def test_a_good_onnx_policy_still_loads(tmp_path):
    agent = PolicyAgent(_onnx_model(tmp_path / "model.onnx"))
    g = Game(players=2, seed=4)
    assert agent.select_move(g) in g.legal_moves()


def test_import_sequence_game_loads_neither_numpy_nor_asyncio():
    """numpy (PolicyAgent, VectorGame, the observation tensors) and asyncio (the async forms) are
    imported when first used, not by `import sequence_game`: about half of its import time."""
    import subprocess
    import sys

    code = ("import sys, sequence_game, sequence_game.agents\n"
            "print(sorted(m for m in ('numpy', 'asyncio') if m in sys.modules))\n"
            "g = sequence_game.Game(players=2, seed=1)\n"
            "g.play(sequence_game.agents.agent_from_spec('hard:iters=50').select_move(g))\n"
            "print(sorted(m for m in ('numpy', 'asyncio') if m in sys.modules))\n"
            "print(g.observation_tensor(0).shape, sequence_game.VectorGame.__name__, "
            "sequence_game.agents.PolicyAgent.__name__, 'numpy' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "[]", "(890,) VectorGame PolicyAgent True"]


@pytest.mark.parametrize("content", [b"", bytes(range(256)) * 8, b"PK\x05\x06" + b"\0" * 18])
def test_a_damaged_stable_baselines_zip_is_one_line_naming_the_file(tmp_path, content):
    pytest.importorskip("stable_baselines3")
    path = tmp_path / "model.zip"
    path.write_bytes(content)
    _refused(path)


def test_a_sqnet_policy_spec_builds_the_net_agent(tmp_path):
    """``policy:PATH.sqnet`` is a network weights file: it plays as ``net:weights=PATH`` (the arena,
    the CLI and the envs read the same spec); ``sample=true`` samples at temperature 1."""
    from sequence_game.agents.net import DEFAULT_WEIGHTS, NetAgent

    agent = agent_from_spec(f"policy:{DEFAULT_WEIGHTS}")
    assert isinstance(agent, NetAgent) and agent.weights == DEFAULT_WEIGHTS and agent.temperature == 0.0
    assert agent.name == f"policy:{DEFAULT_WEIGHTS}"
    g = Game(players=2, seed=4)
    assert agent.select_move(g) == agent_from_spec("net").select_move(g)
    hot = agent_from_spec(f"policy:{DEFAULT_WEIGHTS},sample=true,seed=3")
    assert hot.temperature == 1.0 and hot.seed == 3
    assert agent_from_spec(f"policy:{DEFAULT_WEIGHTS},temperature=0.5").temperature == 0.5
    with pytest.raises(ValueError, match="keys seed, temperature and sample, not normalize"):
        agent_from_spec(f"policy:{DEFAULT_WEIGHTS},normalize=true")
    with pytest.raises(ValueError, match="no network weights file"):
        agent_from_spec(f"policy:{tmp_path / 'missing.sqnet'}")
    with pytest.raises(ValueError, match="temperature"):
        agent_from_spec(f"policy:{DEFAULT_WEIGHTS},temperature=-2")


# ---------------------------------------------------------------- saved policies over batches


def _batch(players=2, games=12, seed=4, steps=15):
    """Observations and masks of the seat to move in ``games`` batched games after a few moves."""
    from sequence_game import VectorGame

    vg = VectorGame(games, players=players, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        vg.step(vg.sample_actions(rng))
    return vg, vg.observations(), vg.legal_masks()


def _argmax_legal(logits, masks):
    return np.argmax(np.where(masks, logits.astype(np.float64), -np.inf), axis=1)


@pytest.mark.parametrize("normalize", [False, True])
def test_a_saved_policy_takes_a_batch_and_scales_raw_observations_once(tmp_path, normalize):
    from sequence_game.agents.policy import load_policy

    path, layers = _mlp(tmp_path, seed=3, normalize=normalize)
    policy = load_policy(path)
    vg, obs, masks = _batch()

    def logits(x):
        return np.tanh(x @ layers["w0"] + layers["b0"]) @ layers["w1"] + layers["b1"]

    once = _argmax_legal(logits((obs / OBSERVATION_SCALE).astype(np.float32)), masks)
    raw = _argmax_legal(logits(obs), masks)
    twice = _argmax_legal(logits((obs / OBSERVATION_SCALE / OBSERVATION_SCALE).astype(np.float32)), masks)
    got = policy(obs, masks)
    assert got.shape == (12,) and got.dtype == np.int64
    np.testing.assert_array_equal(got, once if normalize else raw)
    if normalize:
        assert not np.array_equal(once, twice)  # scaling twice would choose other actions: the check can fail
    # one row at a time (PolicyAgent's path) gives the same actions
    np.testing.assert_array_equal([policy(obs[i], masks[i]) for i in range(12)], got)
    agent = PolicyAgent(path)
    for i in range(12):
        game = vg.copy_game(i)
        assert game.legal_mask()[got[i]] and agent._act(game, game.current_player) == got[i]


def test_sampling_over_a_batch_draws_legal_actions_reproducibly(tmp_path):
    path, _ = _mlp(tmp_path, seed=5)
    _vg, obs, masks = _batch(games=40)
    a = PolicyAgent(path, sample=True, seed=9).policy(obs, masks)
    b = PolicyAgent(path, sample=True, seed=9).policy(obs, masks)
    np.testing.assert_array_equal(a, b)
    assert masks[np.arange(40), a].all()
    assert not np.array_equal(a, PolicyAgent(path).policy(obs, masks))  # a draw, not the argmax


def test_batched_envs_play_a_saved_policy_opponent_by_spec_and_scale_once(tmp_path):
    """``opponents="policy:m.npz"`` plays in the batched envs; the env's ``normalize`` changes what
    the learner sees, never the opponent's moves (it scales its raw observations itself, once)."""
    pytest.importorskip("gymnasium")
    from sequence_game import VectorGame
    from sequence_game.agents.policy import load_policy
    from sequence_game.envs.vector import SequenceVectorEnv

    path, _ = _mlp(tmp_path, seed=7, normalize=True)
    runs = []
    for normalize, opponents in ((False, f"policy:{path}"), (True, f"policy:{path}"), (True, load_policy(path))):
        env = SequenceVectorEnv(6, opponents=opponents, seed=2, normalize=normalize, max_turns=300)
        env.reset(seed=2)
        rng = np.random.default_rng(0)
        seen = []
        for _ in range(60):
            _obs, rewards, terminated, truncated, _ = env.step(env.sample_actions(rng))
            seen.append((env.game.observations(players=0).copy(), rewards.copy(), terminated | truncated))
        runs.append(seen)
    for other in runs[1:]:
        for (o1, r1, e1), (o2, r2, e2) in zip(runs[0], other):
            np.testing.assert_array_equal(o1, o2)
            np.testing.assert_array_equal(r1, r2)
            np.testing.assert_array_equal(e1, e2)
    # The opponent plays PolicyAgent's moves: replay one game with the agent on a Game.
    vg = VectorGame(1, seed=11, opponents={1: f"policy:{path}"})
    agent = PolicyAgent(path)
    game = vg.copy_game(0)
    rng = np.random.default_rng(1)
    for _ in range(20):
        action = vg.sample_actions(rng)
        _r, te, tr = vg.step(action)
        if te[0] or tr[0]:
            break
        game.play_action(int(action[0]))
        while game.current_player == 1 and not game.is_over:
            game.play(agent.select_move(game))
        assert game.to_dict() == vg.copy_game(0).to_dict()
    with pytest.raises(ValueError, match="no model file"):
        SequenceVectorEnv(2, opponents="policy:missing.npz")


def test_a_stable_baselines_zip_plays_batched_and_scales_once(tmp_path):
    """A ``.zip`` trained on normalised observations: the batched callable equals the per-row agent
    and the env's ``normalize=True`` does not scale its observations again."""
    pytest.importorskip("sb3_contrib")
    import sb3_contrib
    from sequence_game.envs.sb3 import SequenceVecEnv

    venv = SequenceVecEnv(4, opponents="random", normalize=True, seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=16, n_epochs=1, seed=0, device="cpu")
    model.save(tmp_path / "m.zip")
    spec = f"policy:{tmp_path / 'm.zip'}"
    policy = agent_from_spec(spec).policy
    vg, obs, masks = _batch(games=8)
    got = policy(obs, masks)
    np.testing.assert_array_equal(got, [policy(obs[i], masks[i]) for i in range(8)])
    runs = []
    for normalize in (False, True):
        env = SequenceVecEnv(4, opponents=spec, normalize=normalize, seed=3)
        env.reset()
        rng = np.random.default_rng(0)
        runs.append([env.step(env.sample_actions(rng))[1].copy() for _ in range(40)] + [env.game.observations()])
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)


class _WritesMarker:
    """Pickles as a call that writes a file: what a model's settings carrying code would run."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (exec, (f"open({self.path!r}, 'w').write('ran')",))


@pytest.mark.parametrize("setting", ["policy_class", "observation_space", "policy_kwargs", "lr_schedule"])
def test_a_stable_baselines_zip_policy_carrying_code_is_refused_and_nothing_runs(tmp_path, capsys, setting):
    """Stable-Baselines3 unpickles a model's settings with cloudpickle (whatever they name runs);
    the policy loader reads them with an allow-list of data classes first. A setting only training
    reads (the schedules) is replaced, not read."""
    pytest.importorskip("sb3_contrib")
    import base64
    import json
    import pickle
    import zipfile

    import sb3_contrib
    from sequence_game import cli
    from sequence_game.envs.sb3 import SequenceVecEnv

    venv = SequenceVecEnv(2, opponents="random", seed=0)
    good = tmp_path / "good.zip"
    sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=8, batch_size=16, n_epochs=1, seed=0, device="cpu").save(good)
    marker = tmp_path / "marker"
    hostile = tmp_path / "hostile.zip"
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(hostile, "w") as dst:
        for name in src.namelist():
            content = src.read(name)
            if name == "data":
                data = json.loads(content)
                data[setting] = {":type:": "<class 'object'>", ":serialized:": base64.b64encode(
                    pickle.dumps(_WritesMarker(str(marker)))).decode()}
                content = json.dumps(data).encode()
            dst.writestr(name, content)
    g = Game(players=2, seed=1)
    assert PolicyAgent(str(good)).select_move(g) in g.legal_moves()
    if setting == "lr_schedule":
        assert PolicyAgent(str(hostile)).select_move(g) in g.legal_moves()
    else:
        with pytest.raises(ValueError, match=rf"refused: its setting '{setting}' .*builtins\.exec.*nothing of it"):
            PolicyAgent(str(hostile))
        assert cli.main(["arena", f"policy:{hostile}", "random", "--games", "1", "--results", "-",
                         "--no-progress"]) == 1
        err = capsys.readouterr().err
        assert err.startswith("sequence-game: error: ") and err.count("\n") == 1 and "refused" in err, err
    assert not marker.exists()
