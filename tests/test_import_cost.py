"""``import sequence_game`` stays cheap: the heavy dependencies (numpy for the tensors and
``VectorGame``, the web server's FastAPI stack, the learning frameworks) are imported by the modules
that use them, when first used. Its import time is in docs/measurements.md."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "fastapi", "starlette", "pydantic", "uvicorn", "httpx", "torch", "onnxruntime", "gymnasium",
         "pettingzoo", "pyspiel", "stable_baselines3", "ray")


def test_import_sequence_game_loads_no_heavy_dependency():
    code = f"import sys, sequence_game\nprint(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"`import sequence_game` imported {done.stdout.strip()}"


def test_the_client_and_the_bot_runner_load_no_web_server():
    """A bot needs the standard library only (sequence_game.client): not the server's stack."""
    code = (f"import sys, sequence_game.client, sequence_game.bot\n"
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", f"the client imported {done.stdout.strip()}"
