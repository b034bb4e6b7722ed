"""The README's Python tour runs as written (a newcomer copies it first)."""

import os
import re

import sequence_game

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def test_readme_python_tour_runs(capsys):
    with open(README, encoding="utf-8") as f:
        text = f.read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "the README has a Python tour"
    code = blocks[0].replace("time_limit=0.5", "iterations=500")  # same API, quicker and load-independent
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    g, record = namespace["g"], namespace["record"]
    assert isinstance(g, sequence_game.Game) and g.turn == 1
    assert namespace["g2"].to_dict() == g.to_dict()
    assert record.result is not None and record.moves
    assert "games_per_second" in capsys.readouterr().out
