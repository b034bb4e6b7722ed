"""The documentation's tutorials and getting-started page run as written.

Every ```python block of ``docs/getting-started.md`` and ``docs/tutorials/*.md`` runs, a page's
blocks in order in one namespace (a later block may use an earlier one's names), in a temporary
directory. A block that imports an optional framework that is not installed (an extra: PettingZoo,
Gymnasium, OpenSpiel, Ray, FastAPI) is left out, so the default run checks what the base install
offers and the extras' CI steps check the rest; a page all of whose blocks are left out is skipped
with the missing modules' names. A block right after the comment ``<!-- no-test -->`` is shown,
not run (it needs a live server or a cluster). The HTTP tutorial's JavaScript bot runs under Node
against a live server. docs/api.md's signatures are checked against the code.
"""

from __future__ import annotations

import glob
import importlib.util
import json
import os
import re
import shutil
import subprocess
import urllib.request
import warnings
from typing import List

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = os.path.join(ROOT, "docs")
PAGES = sorted([os.path.join(DOCS, "getting-started.md")] + glob.glob(os.path.join(DOCS, "tutorials", "*.md")))
BLOCK = re.compile(r"(<!-- no-test -->\s*)?```python\n(.*?)```", re.S)
# Optional frameworks (the extras) a page may import; the package's own modules are always there.
OPTIONAL = ("pettingzoo", "gymnasium", "pyspiel", "open_spiel", "ray", "fastapi", "uvicorn", "httpx")


def python_blocks(path: str) -> List[str]:
    with open(path, encoding="utf-8") as f:
        return [code for skip, code in BLOCK.findall(f.read()) if not skip]


def missing_modules(code: str) -> List[str]:
    imported = set(re.findall(r"^\s*(?:from|import)\s+([A-Za-z_][A-Za-z0-9_]*)", code, re.M))
    return sorted(m for m in imported & set(OPTIONAL) if importlib.util.find_spec(m) is None)


def test_every_tutorial_page_has_code():
    assert len(PAGES) >= 6
    empty = [os.path.relpath(p, ROOT) for p in PAGES if not python_blocks(p) and "http-bot" not in p]
    assert not empty, f"tutorial pages without a Python example: {empty}"


@pytest.mark.parametrize("path", PAGES, ids=[os.path.relpath(p, DOCS) for p in PAGES])
def test_page_code_runs(path, tmp_path, monkeypatch, capsys):
    blocks = python_blocks(path)
    if not blocks:
        pytest.skip("no Python blocks")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    ran, missing = 0, set()
    with warnings.catch_warnings():
        # A tutorial teaches the current API: a deprecation warning raised for its own code fails.
        warnings.filterwarnings("error", category=DeprecationWarning, module=namespace["__name__"])
        for i, code in enumerate(blocks):
            needs = missing_modules(code)
            if needs:
                missing.update(needs)
                continue
            try:
                exec(compile(code, f"{os.path.relpath(path, ROOT)} block {i + 1}", "exec"), namespace)
            except ImportError as e:
                # the package's own modules of an extra (sequence_game.envs.pettingzoo, ...) say which
                # extra to install; any other ImportError is a broken example
                if "sequence-game[" not in str(e):
                    raise
                missing.add(str(e).split(":", 1)[0])
                continue
            ran += 1
    capsys.readouterr()
    if not ran:
        pytest.skip(f"needs {', '.join(sorted(missing))} (an extra)")


def _javascript_block(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        blocks = re.findall(r"```javascript\n(.*?)```", f.read(), re.S)
    assert len(blocks) == 1, f"{path}: expected one JavaScript block"
    return blocks[0]


def test_http_bot_plays_a_game_to_the_end(tmp_path):
    """The HTTP tutorial's bot, run by Node against a live server, plays its seat to the end."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("needs Node.js")
    pytest.importorskip("fastapi")
    pytest.importorskip("uvicorn")
    from sequence_game.web import create_app
    from web_support import serving

    with serving(create_app(ai_pause=0.0)) as base:
        body = b'{"players": 2, "seed": 5, "seats": [{"kind": "human"}, {"kind": "ai", "ai": "medium"}]}'
        request = urllib.request.Request(base + "/api/tables", data=body, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            created = json.loads(response.read())
        bot = tmp_path / "bot.mjs"
        bot.write_text(_javascript_block(os.path.join(DOCS, "tutorials", "http-bot.md")), encoding="utf-8")
        run = subprocess.run([node, str(bot), base, created["table"], created["seats"][0]["token"]],
                             capture_output=True, text=True, timeout=240)
        assert run.returncode == 0, run.stderr
        assert "game over after" in run.stdout and "refused" not in run.stdout, run.stdout
        with urllib.request.urlopen(f"{base}/api/tables/{created['table']}", timeout=10) as response:
            view = json.loads(response.read())
        assert view["over"] and view["moves"] > 10


def _sections(text: str) -> List[str]:
    return re.split(r"^## ", text, flags=re.M)[1:]


def test_measurements_tables_are_whole_and_each_section_names_its_command():
    """docs/measurements.md: every table has a header and rows of its width, and every metric says
    how to reproduce it (a command, or the page that has it)."""
    with open(os.path.join(DOCS, "measurements.md"), encoding="utf-8") as f:
        text = f.read()
    for block in re.findall(r"(?:^\|.*\n)+", text, re.M):
        rows = block.splitlines()
        assert len(rows) >= 3 and re.fullmatch(r"\|(?:\s*:?-+:?\s*\|)+", rows[1]), f"a table without a header:\n{block}"
        width = rows[0].count("|")
        bad = [r for r in rows if r.count("|") != width]
        assert not bad, f"rows of another width than their header:\n{bad}"
    for section in _sections(text):
        title = section.splitlines()[0]
        assert re.search(r"command", section, re.I), f"section {title!r} does not say how to reproduce its numbers"


# --------------------------------------------------------------------------- docs/api.md and the code

# A signature in the text of docs/api.md: `name(a, b=None, ...)`, a default of None marking it as one
# (an example call such as `Limit(time=0.2)` names only what it sets)
_SIGNATURE = re.compile(r"`(?:await )?(?:[a-z_]+\.)*([A-Za-z_]+(?:\.[a-z_]+)?)\(((?:[^`()]|\([^`()]*\))*)\)")


def _top_level_names(params: str) -> List[str]:
    names, depth, part = [], 0, ""
    for ch in params + ",":
        if ch == "," and depth == 0:
            if part.strip():
                names.append(part.split("=")[0].strip().lstrip("*"))
            part = ""
            continue
        depth += ch in "([{"
        depth -= ch in ")]}"
        part += ch
    return names


def test_the_api_page_gives_each_signature_as_the_code_has_it():
    """Every signature docs/api.md writes out (one with a default of None) names the parameters of
    the callable it documents, all of them, in order; GameRecord's fields are the dataclass's."""
    import dataclasses
    import inspect

    import sequence_game
    from sequence_game import agents, arena, records, selfplay
    from sequence_game.agents.search import SearchAgent

    with open(os.path.join(DOCS, "api.md"), encoding="utf-8") as f:
        text = f.read()
    inline = re.sub(r"\s*\n\s*", " ", re.sub(r"```.*?```", "", text, flags=re.S))  # a signature may wrap
    spaces = [sequence_game, agents, arena, selfplay, records, sequence_game.Game, sequence_game.GameRecord,
              SearchAgent, agents.AgentBase]
    checked, wrong = [], []
    for name, params in _SIGNATURE.findall(inline):
        if "=None" not in params.replace(" ", ""):
            continue
        for space in spaces:
            obj = space
            for part in name.split("."):
                obj = getattr(obj, part, None)
            if callable(obj):
                break
        assert callable(obj), f"docs/api.md documents {name}({params}), which the package does not have"
        code = [p.name for p in inspect.signature(obj).parameters.values()
                if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        checked.append(name)
        if _top_level_names(params) != code:
            wrong.append(f"{name}({params}): the code has ({', '.join(code)})")
    assert not wrong, "docs/api.md differs from the code:\n" + "\n".join(wrong)
    assert {"select_move", "select_move_async", "analyze", "analysis", "match", "GameRecord.from_game"} <= set(checked)
    fields = re.search(r"GameRecord`: .*?its fields: (.*?)\.\s", inline).group(1)
    documented = re.findall(r"(?:^|, | and )`([a-z_]+)`", fields)
    assert documented == [f.name for f in dataclasses.fields(sequence_game.GameRecord)], fields
    # positions() yields Steps, documented with their fields
    step = re.search(r"`positions\(game_class=None\)` every position in order, each a `sequence_game\.records\.Step`, "
                     r"a named tuple `\(([a-z, ]+)\)`", inline)
    assert step and step.group(1).split(", ") == list(records.Step._fields), "positions() and Step in docs/api.md"
    first = next(sequence_game.GameRecord.from_game(sequence_game.Game(seed=1)).positions())
    assert isinstance(first, records.Step) and first[:2] == (0, None)
