"""The examples in examples/ run (small settings): the PettingZoo loop, the Gymnasium episode and
the OpenSpiel match."""

from __future__ import annotations

import importlib.util
import pathlib

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
