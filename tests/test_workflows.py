"""The GitHub Actions workflows (.github/workflows/*.yml) are ones GitHub can run.

Each file parses as YAML and has the structure GitHub requires: a trigger (``on``) and jobs, each
job with ``runs-on`` and a list of steps that each ``uses`` an action or ``run`` a command (or a job
that calls a reusable workflow); every ``nox -s NAME`` they run, with the matrix's values put in,
names a session of noxfile.py.
"""

from __future__ import annotations

import ast
import itertools
import os
import re
from typing import Any, Dict, Iterator, List, Set

import pytest

yaml = pytest.importorskip("yaml", reason="validating the workflow files needs PyYAML (pip install pyyaml)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORKFLOWS = os.path.join(ROOT, ".github", "workflows")
FILES = sorted(name for name in os.listdir(WORKFLOWS) if name.endswith((".yml", ".yaml")))
NOX_RUN = re.compile(r"\bnox\b[^\n]*?\s-s\s+((?:[\w${}. -]+?))(?=\s+--|\s*$|\s*\n|\s*&&|\s*;)", re.M)
MATRIX_REF = re.compile(r"\$\{\{\s*matrix\.(\w+)\s*\}\}")


def nox_sessions() -> Set[str]:
    """The sessions noxfile.py defines: its functions decorated with ``@nox.session``."""
    with open(os.path.join(ROOT, "noxfile.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                target = dec.func if isinstance(dec, ast.Call) else dec
                if isinstance(target, ast.Attribute) and target.attr == "session":
                    names.add(node.name)
    return names


def load(name: str) -> Dict[Any, Any]:
    with open(os.path.join(WORKFLOWS, name), encoding="utf-8") as f:
        data = yaml.safe_load(f)
    assert isinstance(data, dict), f"{name}: a workflow is a mapping, not {type(data).__name__}"
    return data


def triggers(workflow: Dict[Any, Any]) -> Any:
    # YAML 1.1 (PyYAML) reads the bare key `on` as the boolean True.
    return workflow.get("on", workflow.get(True))


def matrix_rows(job: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Every combination the job's matrix runs (its axes' product plus `include`), or one empty row."""
    matrix = (job.get("strategy") or {}).get("matrix") or {}
    if not isinstance(matrix, dict):
        return [{}]
    axes = {k: v for k, v in matrix.items() if k not in ("include", "exclude") and isinstance(v, list)}
    rows = [dict(zip(axes, values)) for values in itertools.product(*axes.values())] if axes else []
    rows += [dict(row) for row in matrix.get("include") or []]
    return rows or [{}]


def nox_calls(workflow: Dict[Any, Any]) -> Iterator[str]:
    """The session names of every `nox -s ...` a workflow runs, matrix values put in."""
    for job in (workflow.get("jobs") or {}).values():
        for step in job.get("steps") or []:
            command = step.get("run")
            if not isinstance(command, str):
                continue
            for row in matrix_rows(job):
                text = MATRIX_REF.sub(lambda m: str(row.get(m.group(1), m.group(0))), command)
                for m in NOX_RUN.finditer(text):
                    for session in re.split(r"[\s,]+", m.group(1).strip()):
                        if session:
                            yield session


def test_there_are_workflows():
    assert "ci.yml" in FILES and "wheels.yml" in FILES


@pytest.mark.parametrize("name", FILES)
def test_workflow_has_the_structure_github_needs(name):
    workflow = load(name)
    assert triggers(workflow), f"{name}: no trigger (on:)"
    jobs = workflow.get("jobs")
    assert isinstance(jobs, dict) and jobs, f"{name}: no jobs"
    for job_id, job in jobs.items():
        assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", job_id), f"{name}: job id {job_id!r}"
        assert isinstance(job, dict), f"{name}: job {job_id} is not a mapping"
        if "uses" in job:  # a reusable workflow: no runner or steps of its own
            continue
        assert job.get("runs-on"), f"{name}: job {job_id} has no runs-on"
        steps = job.get("steps")
        assert isinstance(steps, list) and steps, f"{name}: job {job_id} has no steps"
        for i, step in enumerate(steps):
            assert isinstance(step, dict) and ("uses" in step) != ("run" in step), (
                f"{name}: job {job_id} step {i} must have exactly one of uses: and run:")


@pytest.mark.parametrize("name", FILES)
def test_every_nox_session_a_workflow_runs_exists(name):
    sessions = nox_sessions()
    missing = sorted({s for s in nox_calls(load(name)) if s not in sessions})
    assert not missing, f"{name} runs nox sessions that noxfile.py does not define: {missing}"


def test_ci_runs_the_default_sessions_on_pull_requests():
    workflow = load("ci.yml")
    assert "pull_request" in triggers(workflow)
    assert {"lint", "typecheck", "stubtest", "tests"} <= set(nox_calls(workflow))


def test_nox_calls_are_found_with_the_matrix_put_in():
    """The checks above would pass vacuously if the parser found no call: it reads these forms."""
    workflow = {
        "jobs": {
            "a": {"strategy": {"matrix": {"session": ["lint", "docs"]}}, "steps": [{"run": "nox -s ${{ matrix.session }}"}]},
            "b": {"steps": [{"run": "pip install nox\nnox --no-venv -s tests stubtest -- -x"}]},
        }
    }
    assert sorted(nox_calls(workflow)) == ["docs", "lint", "stubtest", "tests"]
    assert {"lint", "tests", "cpp_tests"} <= nox_sessions()
