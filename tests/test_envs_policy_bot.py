"""A trained policy plays a seat of a web table by spec (``sequence-game bot --agent policy:...``),
seeing what the seat may see (R9), to the end of the game."""

from __future__ import annotations

import threading

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed")
from sequence_game.bot import load_agent, run_bot
from sequence_game.client import Client
from test_bot import _check_finished, _two_seat_table, server  # noqa: F401 (the live-server fixture)
from test_envs_policy import _mlp


def test_a_saved_policy_plays_a_web_table(server, tmp_path):  # noqa: F811
    path, _ = _mlp(tmp_path, seed=5)
    table, tokens = _two_seat_table(server, seed=11)
    agent = load_agent(f"policy:{path}")
    assert agent.name == f"policy:{path}"
    results = {}
    other = threading.Thread(target=lambda: results.setdefault(1, run_bot(
        Client(server, token=tokens[1]), table, load_agent("greedy", seed=2))))
    other.start()
    results[0] = run_bot(Client(server, token=tokens[0]), table, agent)
    other.join(timeout=600)
    assert results[0].moves > 0 and results[1].moves > 0
    view = _check_finished(server, table, tokens)
    assert view.over and np.isfinite(results[0].thinking_seconds)
