"""The examples in examples/ run (small settings): the PettingZoo loop, the Gymnasium episode, the
OpenSpiel match, and the training examples (sb3-contrib's MaskablePPO on both envs and against a
league of its snapshots, the single-file PPO on VectorGame) at a tiny budget, their saved policies played by spec."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np
import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pettingzoo_random(capsys):
    pytest.importorskip("pettingzoo", reason="the [rl] extra is not installed")
    load("pettingzoo_random").main(["--players", "4", "--games", "2"])
    out = capsys.readouterr().out
    assert out.count("returns") == 2


def test_gymnasium_greedy(capsys):
    pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
    load("gymnasium_greedy").main(["--episodes", "2"])
    assert capsys.readouterr().out.count("reward") == 2


def test_openspiel_match(capsys):
    pytest.importorskip("pyspiel", reason="the [openspiel] extra is not installed")
    result = load("openspiel_match").main(["--games", "2", "--time", "0.005", "--max-turns", "40"])
    assert result["games"] == 2 and 0.0 <= result["mcts_score"] <= 1.0
    low, high = result["interval95"]
    assert low <= result["mcts_score"] <= high
    assert "ISMCTSBot" in capsys.readouterr().out


def test_sb3_maskable_ppo_on_both_envs(tmp_path, capsys):
    pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")
    example = load("sb3_maskable_ppo")
    out = example.main(["--env", "gymnasium", "--envs", "2", "--n-steps", "16", "--steps", "64"])
    assert out["steps"] >= 64
    path = tmp_path / "ppo.zip"
    out = example.main(["--env", "batched", "--envs", "8", "--n-steps", "16", "--steps", "256", "--save", str(path),
                        "--eval-games", "2"])
    assert out["steps"] >= 256 and path.exists()
    assert out["random"].games == out["greedy"].games == 2
    assert "policy:" in capsys.readouterr().out


def test_sb3_selfplay_league_keeps_its_last_snapshots_and_resumes(tmp_path, capsys):
    pytest.importorskip("sb3_contrib", reason="the [train] extra is not installed")
    example = load("selfplay_league")
    args = ["--pool", str(tmp_path / "league"), "--keep", "2", "--envs", "4", "--n-steps", "8", "--steps", "32"]
    out = example.main([*args, "--rounds", "3"])
    assert [p.rsplit("-", 1)[1] for p in out["snapshots"]] == ["000002.zip", "000003.zip"]
    again = example.main([*args, "--rounds", "1"])  # a second run goes on from the newest snapshot
    assert again["steps"] > out["steps"]
    assert [p.rsplit("-", 1)[1] for p in again["snapshots"]] == ["000003.zip", "000004.zip"]
    assert capsys.readouterr().out.count("added") == 4


def test_cleanrl_ppo_trains_and_saves_a_numpy_policy(tmp_path):
    pytest.importorskip("torch", reason="the [train] extra is not installed")
    from sequence_game.agents import agent_from_spec
    from sequence_game.arena import match

    path = tmp_path / "ppo.npz"
    out = load("cleanrl_ppo").main(["--total-steps", "512", "--num-envs", "16", "--num-steps", "16", "--hidden", "16",
                                    "--epochs", "1", "--opponent", "random", "--save", str(path)])
    assert out["steps"] == 512 and out["games"] > 0 and -1.0 <= out["mean_result"] <= 1.0
    agent = agent_from_spec(f"policy:{path}")
    assert agent.policy.normalize
    assert match([agent, "random"], games=2, seed=3, max_turns=80).games == 2
    # --init starts a run (here against greedy) from that actor: before any update it is the same policy.
    again = tmp_path / "again.npz"
    load("cleanrl_ppo").main(["--total-steps", "256", "--num-envs", "16", "--num-steps", "16", "--hidden", "16",
                              "--epochs", "1", "--lr", "0", "--init", str(path), "--save", str(again)])
    with np.load(path) as a, np.load(again) as b:
        assert all(np.allclose(a[k], b[k]) for k in a.files)


def test_the_ray_cluster_configuration_is_one_ray_up_accepts():
    """examples/ray-cluster.yaml (docs/scale.md) against Ray's own cluster-launcher schema."""
    pytest.importorskip("ray", reason="the [ray] extra is not installed")
    yaml = pytest.importorskip("yaml", reason="Ray's cluster launcher needs PyYAML")
    from ray.autoscaler._private.util import fillout_defaults, validate_config

    config = yaml.safe_load((EXAMPLES / "ray-cluster.yaml").read_text())
    validate_config(fillout_defaults(config))  # as `ray up` does: raises on a key or a type the schema lacks
    assert config["provider"]["type"] == "local" and len(config["provider"]["worker_ips"]) == config["max_workers"]
    head = " ".join(config["head_start_ray_commands"])
    assert "--head" in head and "--num-cpus=0" in head  # games run on the workers only


def test_the_sdist_holds_every_example_as_the_readme_says(tmp_path):
    """A wheel has no examples/: the README sends its users to the source tree or the sdist, and
    the sdist (scikit-build-core's, from pyproject.toml) holds every file of examples/."""
    import os
    import tarfile

    build = pytest.importorskip("scikit_build_core.build", reason="scikit-build-core builds the sdist")
    root = EXAMPLES.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    said = " ".join(readme.split())
    assert "A wheel installs no `examples/`: they are in the source tree" in said and "`sdist` artifact" in said
    here = os.getcwd()
    try:
        os.chdir(root)
        name = build.build_sdist(str(tmp_path))
    finally:
        os.chdir(here)
    with tarfile.open(tmp_path / name) as sdist:
        top = name[: -len(".tar.gz")]
        held = {m.name[len(top) + 1:] for m in sdist.getmembers() if m.isfile()}
    examples = {p.relative_to(root).as_posix() for p in EXAMPLES.rglob("*") if p.is_file()
                and "__pycache__" not in p.parts}
    assert examples and examples <= held, sorted(examples - held)
