"""The README is a short introduction whose code runs as written (a newcomer copies it first).

Checked: its length, its two commands (install and play; install the test dependencies and run the
tests, which .ci/run runs verbatim), that every ``sequence-game`` command it shows parses, that
the Python blocks run, and that it carries no measurements (they live in docs/measurements.md).
"""

from __future__ import annotations

import os
import re
import shlex

import pytest
import sequence_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README = os.path.join(ROOT, "README.md")
MAX_LINES = 120

# The two commands the README promises; .ci/run runs the second one verbatim.
INSTALL_AND_RUN = 'pip install . && sequence-game play'
INSTALL_AND_TEST = 'pip install ".[test]" && python -m pytest'


def _readme() -> str:
    with open(README, encoding="utf-8") as f:
        return f.read()


def _blocks(language: str) -> list:
    return re.findall(rf"```{language}\n(.*?)```", _readme(), re.S)


def test_readme_is_short():
    lines = _readme().count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines; keep it at most {MAX_LINES} (details go in docs/)"


def test_readme_keeps_its_two_commands_and_ci_runs_the_test_command():
    commands = [line.split("#", 1)[0].strip() for block in _blocks("bash") for line in block.splitlines()]
    assert INSTALL_AND_RUN in commands and INSTALL_AND_TEST in commands, commands
    with open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8") as f:
        ci = f.read()
    assert re.search(rf"^{re.escape(INSTALL_AND_TEST)}$", ci, re.M), ".ci/run must run the README's test command verbatim"


def test_readme_has_no_measurements():
    # Speed and strength numbers, CPU models and intervals belong in docs/measurements.md.
    text = _readme()
    for pattern in (r"\d[\d,.]*\s*(?:ns|us|ms)\b", r"games/s|iterations/s|steps/s", r"\d+(?:\.\d+)?%",
                    r"\[\d+(?:\.\d+)?, \d+(?:\.\d+)?\]", r"Xeon|EPYC|Ryzen|Core\(TM\)"):
        assert not re.search(pattern, text), f"README.md holds a measurement ({pattern}); link docs/measurements.md"


def test_readme_cli_commands_parse():
    from sequence_game.cli import build_parser

    parser = build_parser()
    shown = []
    for block in _blocks("bash"):
        for line in block.splitlines():
            for part in line.split("#", 1)[0].split("&&"):
                words = shlex.split(part)
                if words[:1] == ["sequence-game"]:
                    shown.append(words[1:])
    assert {w[0] for w in shown} >= {"play", "serve", "arena", "selfplay"}
    for args in shown:
        parser.parse_args(args)  # exits (SystemExit) on an unknown command or option


def test_readme_python_tour_runs(capsys):
    code = _blocks("python")[0]
    # The same API with a smaller search budget, so the test is quick and load-independent.
    code = code.replace('"hard"', '"hard:iterations=300"')
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    g, record, ai = namespace["g"], namespace["record"], namespace["ai"]
    assert isinstance(g, sequence_game.Game) and g.turn == 1 and len(g.history) == 1
    assert type(ai).__name__ == "RolloutAgent"
    assert namespace["g2"].to_dict() == g.to_dict()
    assert record.result is not None and record.moves
    out = capsys.readouterr().out
    assert "games_per_second" in out


def test_readme_environment_loop_runs():
    pytest.importorskip("pettingzoo")
    code = _blocks("python")[1]
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    e = namespace["e"]
    assert not e.agents, "the loop plays the game to its end"
