"""Packaging of the environments: the base package imports none of the frameworks, and each env
module without its extra fails with an ImportError that names the extra to install."""

from __future__ import annotations

import subprocess
import sys

import pytest

BLOCK = "import sys\nfor name in {names}: sys.modules[name] = None  # as if not installed\n"


def run(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("module,blocked,extra", [
    ("sequence_game.envs.pettingzoo", ["pettingzoo"], "rl"),
    ("sequence_game.envs.gymnasium", ["gymnasium"], "rl"),
    ("sequence_game.envs.openspiel", ["pyspiel"], "openspiel"),
    ("sequence_game.envs.sb3", ["stable_baselines3"], "train"),
])
def test_an_env_without_its_extra_names_the_extra(module, blocked, extra):
    result = run(BLOCK.format(names=blocked) + f"import {module}")
    assert result.returncode != 0
    assert "ImportError" in result.stderr
    assert f"pip install 'sequence-game[{extra}]'" in result.stderr


def test_the_base_package_imports_no_framework():
    result = run(
        "import sys, sequence_game, sequence_game.envs, sequence_game.actions, sequence_game.observation\n"
        "g = sequence_game.Game(players=2, seed=1); g.observation_tensor(0); g.legal_mask()\n"
        "import sequence_game.agents\n"
        "heavy = [m for m in ('gymnasium', 'pettingzoo', 'pyspiel', 'open_spiel', 'torch', 'stable_baselines3',\n"
        "                     'onnxruntime') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    assert result.returncode == 0, result.stderr


def test_a_saved_sb3_policy_without_the_extra_names_it(tmp_path):
    model = tmp_path / "ppo.zip"
    model.write_bytes(b"PK")  # the extension decides the loader; the import fails first
    result = run(BLOCK.format(names=["stable_baselines3"]) + f"from sequence_game.agents import PolicyAgent\nPolicyAgent({str(model)!r})")
    assert result.returncode != 0 and "ImportError" in result.stderr
    assert "pip install 'sequence-game[train]'" in result.stderr
