"""The instruction-set paths of the compiled core (cpp/include/sequence/cpu.hpp) play the same games.

A portable x86-64 build holds the core once per path (baseline, x86-64-v3, avx512) and runs the best
one the processor supports; ``SEQUENCE_CPU`` forces a lower one. Each path this machine can run plays
random games, a search, a Game with its observation tensors and legal masks, and a VectorGame, in a
fresh interpreter; every path must give the same digest.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

sequence_game = pytest.importorskip("sequence_game")
pytest.importorskip("sequence_game._core")

INFO = sequence_game.build_info()

# Run in a fresh interpreter (the path is chosen once, at import): a digest of everything the
# compiled core computes that a path could change.
_DIGEST = r"""
import hashlib, json, random
import numpy as np
import sequence_game
from sequence_game import Game, VectorGame, simulate
from sequence_game.agents import MCTSAgent

h = hashlib.sha256()
r = simulate(3000, seed=11)
h.update(repr((r["games"], r["wins"], r["draws"], r["mean_turns"])).encode())
r3 = simulate(500, players=3, seed=12)
h.update(repr((r3["wins"], r3["draws"], r3["mean_turns"])).encode())
g = Game(players=2, seed=5)
rng = random.Random(5)
while not g.is_over and g.turn < 60:
    h.update(g.observation_tensor(g.current_player).tobytes())
    h.update(g.legal_mask().tobytes())
    g.play(rng.choice(g.legal_moves()))
# The search's visit counts: its leaf scores are floating point (no fused multiply-add on any path).
analysis = MCTSAgent(iterations=3000, threads=1, seed=3).analyze(g)
h.update(repr(sorted((str(m.move), m.visits) for m in analysis.moves)).encode())
vg = VectorGame(8, seed=9)
for _ in range(40):
    masks = vg.legal_masks()
    actions = [int(np.flatnonzero(m)[i % int(m.sum())]) for i, m in enumerate(masks)]
    rewards, done, _ = vg.step(actions)
    h.update(vg.observations().tobytes())
    h.update(rewards.tobytes())
print(json.dumps({"path": sequence_game.build_info()["path"], "digest": h.hexdigest()}))
"""


def _run(code: str, cpu: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("SEQUENCE_CPU", None)
    if cpu is not None:
        env["SEQUENCE_CPU"] = cpu
    env["PYTHONPATH"] = os.pathsep.join([str(Path(sequence_game.__file__).parent.parent), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)


def test_build_info_names_the_running_path():
    assert INFO["path"] in INFO["paths"]
    assert set(INFO) == {"path", "paths", "cpu", "forced", "native", "research", "compiler"}
    assert isinstance(INFO["research"], bool)  # a SEQUENCE_RESEARCH build (docs/agents.md, search options)
    assert "baseline" in INFO["cpu"]
    if INFO["forced"] is None:  # unforced: the best path of the build that the processor runs
        assert INFO["path"] == _best_path()


def test_every_runnable_path_plays_the_same_games():
    paths = [p for p in INFO["paths"] if INFO["native"] or p in INFO["cpu"]]
    results = {}
    for path in paths:
        done = _run(_DIGEST, path)
        assert done.returncode == 0, done.stderr
        results[path] = json.loads(done.stdout.strip().splitlines()[-1])
        assert results[path]["path"] == path
    assert len({r["digest"] for r in results.values()}) == 1, results


def _best_path() -> str:
    return INFO["paths"][-1] if INFO["native"] else [p for p in INFO["paths"] if p in INFO["cpu"]][-1]


def test_an_empty_sequence_cpu_is_as_if_unset():
    done = _run("import sequence_game; print(sequence_game.build_info()['path'])", "")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == _best_path()


def test_an_unknown_sequence_cpu_fails_the_import_naming_the_choices():
    done = _run("import sequence_game", "sse9")
    assert done.returncode != 0
    assert "ImportError: SEQUENCE_CPU=sse9" in done.stderr
    assert ("names no instruction-set path" in done.stderr) or INFO["native"]
    for path in INFO["paths"]:
        assert path in done.stderr


def test_a_bad_sequence_cpu_is_one_import_error_from_the_package_not_a_chain():
    done = _run("import sequence_game.agents", "sse9")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert lines[-1].startswith("ImportError: SEQUENCE_CPU=sse9")
    assert "During handling" not in done.stderr and "agents/" not in done.stderr.replace("\\", "/")
    # two frames, the caller's and the package's (Python 3.13 also echoes the caller's source line)
    assert sum(line.lstrip().startswith('File "') for line in lines) == 2, done.stderr


@pytest.mark.parametrize("argv", [["--help"], ["play", "--help"], ["arena", "a", "b"], ["bench", "--quick"], [],
                                  ["serve", "--port", "0"]])
@pytest.mark.parametrize("how", ["-m", "script"])
def test_a_bad_sequence_cpu_is_one_line_and_exit_2_for_every_command(argv, how, tmp_path):
    env = dict(os.environ, SEQUENCE_CPU="sse9")
    env["PYTHONPATH"] = os.pathsep.join([str(Path(sequence_game.__file__).parent.parent), env.get("PYTHONPATH", "")])
    if how == "-m":
        command = [sys.executable, "-m", "sequence_game", *argv]
    else:  # what an installed console script runs: its own file named sequence-game
        script = tmp_path / "sequence-game"
        script.write_text("import sys\nfrom sequence_game.cli import main\nsys.exit(main())\n")
        command = [sys.executable, str(script), *argv]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("sequence-game: error: SEQUENCE_CPU=sse9"), done.stderr
    for path in INFO["paths"]:
        assert path in done.stderr


def test_a_path_this_processor_cannot_run_says_what_to_do():
    """This machine may run every path: the core's refusal is stood in for by a finder that fails
    the import of sequence_game._core the way the core does on an older processor."""
    code = ("import sys\n"
            "class Refuse:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'sequence_game._core':\n"
            "            raise ImportError('SEQUENCE_CPU=avx512: this processor cannot run that path')\n"
            "sys.meta_path.insert(0, Refuse())\n"
            "import sequence_game\n")
    done = _run(code, None)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == ("ImportError: SEQUENCE_CPU=avx512: this processor cannot run that "
                                                    "path (unset SEQUENCE_CPU and the core runs the best path this "
                                                    "processor supports)")


# The copies of a dispatching build link side by side because every declaration of the core and of
# the bindings lives in the per-path inline namespace SEQUENCE_ISA (cpp/include/sequence/isa.hpp).
# A header that forgot it would not fail the link when its functions are inline: the linker would
# keep one path's copy for all, and another path's instructions could reach the baseline.
ROOT = Path(__file__).resolve().parent.parent
_OPENING = re.compile(r"^namespace (\w+(?:::\w+)*) \{\n(?!inline namespace SEQUENCE_ISA \{\n)", re.M)


def _sources() -> List[Path]:
    files = [*(ROOT / "cpp" / "include").rglob("*.hpp"), *(ROOT / "cpp" / "src").rglob("*.[ch]pp"),
             *(ROOT / "python" / "bindings").glob("*.[ch]pp")]
    return sorted(p for p in files if p.name not in ("isa.hpp", "dispatch.cpp"))


def test_every_namespace_of_the_core_and_bindings_is_inside_the_path_namespace():
    assert len(_sources()) > 40
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        top = {m.group(1) for m in _OPENING.finditer(text)} & {"sequence", "sequence_bindings"}
        assert not top, f"{path.relative_to(ROOT)}: namespace {top.pop()} {{ must open inline namespace SEQUENCE_ISA {{"
        if path.parent.name == "bindings":
            assert "namespace sequence_bindings {\ninline namespace SEQUENCE_ISA {\n" in text, path.name
        else:
            assert re.search(r"^namespace sequence \{\ninline namespace SEQUENCE_ISA \{\n", text, re.M), path.name
    assert not re.search(r"^namespace \w+::", "".join(p.read_text(encoding="utf-8") for p in _sources()), re.M), \
        "a nested namespace definition (a::b) skips the path namespace"
    cmake = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    assert "sequence=sequence_" not in cmake, "the paths are namespaces, not -D renames"


# Every path's copy of the core and the bindings is linked into the module, and the dynamic
# initializers of namespace-scope objects run when it loads, on any processor: one in the AVX-512
# copy would run AVX-512 code on a processor without it (SIGILL at import). Such tables are
# function-local statics instead, built on first use on the path chosen.
# (std::atomic is constant-initialized: no code runs for it at load)
_DYNAMIC_GLOBAL = re.compile(r"^(?:static\s+)?(?:const\s+)?std::(?!atomic<)[^\s(]+\s+\w+\s*(?:=|\{)", re.M)


def test_no_namespace_scope_object_is_built_at_load():
    found = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in _sources()
             for m in _DYNAMIC_GLOBAL.finditer(p.read_text(encoding="utf-8"))]
    assert not found, found
    assert _DYNAMIC_GLOBAL.search("const std::vector<Choice<PlayoutKind>> kPlayouts = {")  # what it catches
