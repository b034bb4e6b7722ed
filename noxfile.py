"""The checks of ``.ci/run``, one nox session each, so that any one of them runs alone.

``nox --list`` names them; ``nox -s lint`` runs one. Two ways to run a session:

- ``nox -s NAME``: in the session's own virtual environment, into which it installs what it needs
  (the package is built from source, a few minutes the first time). ``nox -R -s NAME`` reuses that
  environment and skips the installs.
- ``nox --no-venv --no-install -s NAME``: in the current environment, which must already hold
  everything. ``.ci/run`` works this way: it makes one environment, installs every extra into it
  once, and runs the sessions there, so CI builds the package once, not once per session.

The C++ sessions (``cpp_tests``, ``sanitizers``) need CMake and a C++17 compiler;
``clang`` needs clang++; ``windows_cross`` needs MinGW-w64's g++ and Wine (Debian:
g++-mingw-w64-x86-64-posix, wine64);
``web_e2e`` needs Chromium at /usr/bin/chromium; ``fuzz_smoke`` needs clang for atheris.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import List

import nox

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent
nox.options.sessions = ["lint", "typecheck", "stubtest", "tests"]


def extra(name: str) -> List[str]:
    """The requirements of one of the package's extras, read from pyproject.toml."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        extras = tomllib.load(f)["project"]["optional-dependencies"]
    return list(extras[name])


# What the training session installs besides the [train] extra: PyTorch's version pinned as CI pins
# it, and ONNX Runtime for the exported policies.
TRAIN_EXTRAS = ["torch==2.13.0", "onnx", "onnxscript", "onnxruntime"]
# Every extra the doctests and the type checker import (they read every module of the package).
EVERYTHING = [".[test,web,rl,openspiel,train]", "httpx", *TRAIN_EXTRAS]


def pytest(session: nox.Session, *args: str) -> None:
    session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", *args, *session.posargs)


def rule_tests() -> List[str]:
    """The rule tests the wheels are tested with ([tool.cibuildwheel] test-command)."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        command = tomllib.load(f)["tool"]["cibuildwheel"]["test-command"]
    return [word.replace("{project}", str(ROOT)) for word in command.split() if word.endswith(".py")]


def declared_pythons() -> List[str]:
    """The Python versions pyproject.toml's classifiers declare ("Programming Language :: Python ::
    3.9", ...), oldest first."""
    with open(ROOT / "pyproject.toml", "rb") as f:
        classifiers = tomllib.load(f)["project"]["classifiers"]
    prefix = "Programming Language :: Python :: 3."
    minors = sorted(int(c[len(prefix):]) for c in classifiers if c.startswith(prefix) and c[len(prefix):].isdigit())
    return [f"3.{minor}" for minor in minors]


# The oldest and newest Pythons the package declares: the pull-request workflow runs the test suite
# on each, the `pythons` session the rule tests.
OLDEST_PYTHON, NEWEST_PYTHON = declared_pythons()[0], declared_pythons()[-1]


@nox.session(python=[OLDEST_PYTHON, NEWEST_PYTHON])
def pythons(session: nox.Session) -> None:
    """The rule and API tests on the oldest and newest declared Pythons (built for this machine only:
    the instruction-set paths are the `portable` session's concern, not the interpreter's)."""
    session.install("-C", "cmake.define.SEQUENCE_NATIVE=ON", ".[test]")
    pytest(session, "-x", *rule_tests())


@nox.session
def tests(session: nox.Session) -> None:
    """The test suite: README's test command, with Ray so that tests/test_ray.py runs."""
    session.install(".[test]", "ray>=2.9")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session
def ray_cluster(session: nox.Session) -> None:
    """The multi-node Ray cluster tests (tests/test_ray_cluster.py): a head and two worker nodes."""
    session.install(".[test]", "ray>=2.9")
    session.env["SEQUENCE_RAY_CLUSTER"] = "1"
    pytest(session, "-m", "ray_cluster", "tests/test_ray_cluster.py")


@nox.session
def docs(session: nox.Session) -> None:
    """The Sphinx site under docs/, warnings as errors (autodoc imports the package)."""
    session.install(".[docs]")
    session.run("sphinx-build", "-W", "--keep-going", "-q", "-b", "html", "docs", "docs/_build/html")


@nox.session
def web_e2e(session: nox.Session) -> None:
    """The web server: its API, the browser end to end, a hostile client, its OpenAPI schema.

    Chromium drives the browser tests; schemathesis runs a short property-based test of every
    endpoint."""
    if not os.path.exists("/usr/bin/chromium"):
        session.error("the browser tests drive /usr/bin/chromium: install it (Debian: apt-get install chromium "
                      "fonts-dejavu-core fonts-noto-cjk)")
    session.install(".[test,web]", "httpx", "playwright", "axe-playwright-python", "schemathesis")
    # and the bot runner, the example bots and a policy at a table against a live server; the client
    # against the server's schema, the club's ratings and the review's pages (each skips without [web])
    pytest(session, *sorted(str(p) for p in Path("tests").glob("test_web*.py")), "tests/test_bot.py",
           "tests/test_envs_policy_bot.py", "tests/test_client.py", "tests/test_ratings.py", "tests/test_review_web.py")


@nox.session
def envs(session: nox.Session) -> None:
    """The research environments with their extras, the examples and the tutorials' code.

    PettingZoo's, Gymnasium's and OpenSpiel's own API tests for every player count and split, and
    the VectorEnv adapter."""
    # scikit-build-core: tests/test_examples.py builds the sdist to check that it holds examples/.
    session.install(".[test,web,rl,openspiel]", "httpx", "scikit-build-core>=0.10")
    # Every environment module (the policy at a web table runs in web_e2e, against its live server).
    modules = sorted(str(p) for p in Path("tests").glob("test_envs*.py") if p.name != "test_envs_policy_bot.py")
    # test_readme and test_hostile_input: their PettingZoo and Gymnasium parts skip without [rl]
    pytest(session, *modules, "tests/test_vector_game.py", "tests/test_examples.py", "tests/test_docs.py",
           "tests/test_readme.py", "tests/test_hostile_input.py")


@nox.session
def train(session: nox.Session) -> None:
    """Training with the [train] extra: the SB3 adapter, PolicyAgent, a live model in a PolicyPool,
    the training examples, the trainer.

    The examples run at a tiny budget."""
    session.install(".[test,rl,train]", *TRAIN_EXTRAS)
    pytest(session, "tests/test_envs_sb3.py", "tests/test_envs_policy.py", "tests/test_envs_gymnasium.py",
           "tests/test_envs_pool.py", "tests/test_envs_seeds.py", "tests/test_examples.py",
           "-k", "sb3 or policy or stable_baselines3 or cleanrl")
    # and the learned player's trainer (sequence-game train) at a tiny budget
    pytest(session, "tests/test_train.py")


#: The research build's Python (sequence_game.research and what imports it): a product build refuses
#: to import it, so its docstring examples run in the `research` session.
RESEARCH_MODULES = ["sequence_game.research", "sequence_game.training.fit_eval"]


@nox.session
def doctests(session: nox.Session) -> None:
    """Every docstring example, against the installed package (a product build: the research
    build's modules are the `research` session's)."""
    session.install(*EVERYTHING)
    pytest(session, "--doctest-modules", "--ignore-glob=*/sequence_game/research",
           "--ignore-glob=*/sequence_game/training/fit_eval.py", "--pyargs", "sequence_game")


@nox.session
def lint(session: nox.Session) -> None:
    """ruff over the whole tree (configuration in pyproject.toml)."""
    session.install(*extra("dev"))
    session.run("ruff", "check", ".")


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy, strict, over python/sequence_game, against the extras' own types. (mypy 2 cannot target
    Python 3.9: ruff's target version and the `pythons` session, which runs the tests on 3.9 itself,
    keep the oldest declared Python working.)"""
    session.install(*EVERYTHING, *extra("dev"))
    session.run("mypy")


@nox.session
def stubtest(session: nox.Session) -> None:
    """The type stub of the compiled core (_core.pyi) against the compiled module itself."""
    session.install(".", *extra("dev"))
    # From a directory outside the source tree, so that both the stub and the module are the
    # installed ones: what a user type-checks against.
    allowlist = str(ROOT / ".ci" / "stubtest-allowlist.txt")
    with tempfile.TemporaryDirectory() as here, session.chdir(here):
        session.run("python", "-m", "mypy.stubtest", "sequence_game._core", "--allowlist", allowlist)


@nox.session
def benchmarks(session: nox.Session) -> None:
    """The benchmarks once each, untimed, so that they keep working (benchmarks/README.md)."""
    session.install(".[test]")
    pytest(session, "benchmarks", "--benchmark-disable")


@nox.session
def fuzz_smoke(session: nox.Session) -> None:
    """1% of the fuzz campaign: fails if a target is not coverage-guided or crashes (fuzz/README.md)."""
    session.install(".", "atheris")
    logs = tempfile.mkdtemp(prefix="sequence-fuzz-")
    session.run("bash", "fuzz/campaign.sh", "0.01", logs, external=True)


@nox.session(venv_backend="none")
def cpp_tests(session: nox.Session) -> None:
    """The C++ core on its own: unit tests and random games under ctest."""
    session.run("cmake", "-S", ".", "-B", "build/ci-ctest", "-DSEQUENCE_BUILD_TESTS=ON", "-DCMAKE_BUILD_TYPE=Release",
                external=True)
    session.run("cmake", "--build", "build/ci-ctest", "-j2", external=True)
    session.run("ctest", "--test-dir", "build/ci-ctest", "--output-on-failure", external=True)


#: The test modules that check the research build's options and modules (each skips those parts in a
#: product build).
RESEARCH_TESTS = ["tests/test_learned_eval.py", "tests/test_inference.py", "tests/test_mcts.py", "tests/test_rollout.py",
                  "tests/test_agents.py", "tests/test_cli.py", "tests/test_hostile_input.py"]


@nox.session(venv_backend="none")
def research(session: nox.Session) -> None:
    """The research build (CMake SEQUENCE_RESEARCH: the search options of docs/research/), one path.

    Compiles the core with the research options and their benchmark and runs the C++ tests, which
    check them (cpp/tests/test_inference.cpp, the learned evaluation in cpp/tests/test_search.cpp);
    then builds the package so into an environment of its own (build/ci-research/venv: the current
    one keeps its product build) and runs the Python tests of the research options and modules and
    the research modules' docstring examples. About six minutes on two cores."""
    session.run("cmake", "-S", ".", "-B", "build/ci-research", "-DSEQUENCE_RESEARCH=ON", "-DSEQUENCE_DISPATCH=OFF",
                "-DSEQUENCE_BUILD_TESTS=ON", "-DSEQUENCE_BUILD_BENCH=ON", "-DCMAKE_BUILD_TYPE=Release", external=True)
    session.run("cmake", "--build", "build/ci-research", "-j2", "--target", "sequence_tests", "sequence_bench_inference",
                external=True)
    session.run("ctest", "--test-dir", "build/ci-research", "--output-on-failure", "-R", "^sequence_tests$", external=True)
    venv = ROOT / "build" / "ci-research" / "venv"
    python = str(venv / ("Scripts" if os.name == "nt" else "bin") / "python")
    if not os.path.exists(python):
        session.run("python", "-m", "venv", str(venv), external=True)
    session.run(python, "-m", "pip", "install", "-q", "-C", "cmake.define.SEQUENCE_RESEARCH=ON",
                "-C", "cmake.define.SEQUENCE_DISPATCH=OFF", "-C", "build-dir=build/ci-research/python", ".[test]",
                external=True)
    session.run(python, "-c", 'import sequence_game as s; assert s.build_info()["research"], s.build_info()',
                external=True)
    session.run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", *RESEARCH_TESTS, *session.posargs, external=True)
    session.run(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--doctest-modules", "--pyargs",
                *RESEARCH_MODULES, external=True)


@nox.session(venv_backend="none")
def portable(session: nox.Session) -> None:
    """Each lower instruction-set path of the build this processor runs, under the core's tests.

    The installed build holds the core once per x86-64 path (cpp/include/sequence/cpu.hpp); each
    path below the best is forced with SEQUENCE_CPU under the tests that check the core against
    Game and the reference (the other sessions run the best path). Runs in the current
    environment, where the package must be installed."""
    code = 'import sequence_game as s; i = s.build_info(); print(*[p for p in i["paths"] if p in i["cpu"]][:-1])'
    paths = str(session.run("python", "-c", code, silent=True, external=True) or "").split()
    for path in paths:
        session.log(f"path {path}")
        session.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_observation.py",
                    "tests/test_vector_game.py", "tests/test_actions.py", "tests/test_simulate.py",
                    "tests/test_differential.py", external=True, env={"SEQUENCE_CPU": path})


@nox.session(venv_backend="none")
def clang(session: nox.Session) -> None:
    """The C++ core built by clang++ (the compiler of macOS and of many Linux and BSD systems),
    every instruction-set path, warnings as errors, under ctest."""
    build = "build/ci-clang"
    session.run("cmake", "-S", ".", "-B", build, "-DSEQUENCE_BUILD_TESTS=ON", "-DCMAKE_BUILD_TYPE=Release",
                "-DCMAKE_CXX_COMPILER=clang++", "-DCMAKE_CXX_FLAGS=-Werror", external=True)
    session.run("cmake", "--build", build, "-j2", external=True)
    session.run("ctest", "--test-dir", build, "--output-on-failure", external=True)


@nox.session(venv_backend="none")
def windows_cross(session: nox.Session) -> None:
    """The C++ core for Windows: cross-compiled by MinGW-w64 (GCC with Windows' headers and ABI),
    every instruction-set path, with the C++ benchmarks, warnings as errors, and its tests run
    under Wine.

    A POSIX-only call or header, or a GCC-on-Linux assumption, fails here rather than in a user's
    Windows build (the wheels' MSVC build runs on a hosted CI only)."""
    build = "build/ci-mingw"
    session.run("cmake", "-S", ".", "-B", build, "-DSEQUENCE_BUILD_TESTS=ON", "-DCMAKE_BUILD_TYPE=Release",
                "-DSEQUENCE_BUILD_BENCH=ON", "-DCMAKE_SYSTEM_NAME=Windows", "-DCMAKE_SYSTEM_PROCESSOR=AMD64",
                "-DCMAKE_CXX_COMPILER=x86_64-w64-mingw32-g++-posix", "-DCMAKE_CXX_FLAGS=-Werror",
                "-DCMAKE_EXE_LINKER_FLAGS=-static", "-DCMAKE_CROSSCOMPILING_EMULATOR=wine", external=True)
    session.run("cmake", "--build", build, "-j2", external=True)
    session.run("ctest", "--test-dir", build, "--output-on-failure", "--timeout", "900", external=True,
                env={"WINEDEBUG": "-all", "WINEPREFIX": str(ROOT / build / "wineprefix")})


@nox.session(venv_backend="none")
def sanitizers(session: nox.Session) -> None:
    """The core under ASan+UBSan: the stress driver's games, searches and simulate runs.

    Any finding fails (docs/hardening.md). SEQUENCE_STRESS_FULL=1 plays 100,000 games instead of
    3,000."""
    session.run("cmake", "-S", ".", "-B", "build/ci-asan", "-DSEQUENCE_BUILD_TESTS=ON",
                "-DSEQUENCE_SANITIZE=address;undefined", "-DCMAKE_BUILD_TYPE=Release", external=True)
    session.run("cmake", "--build", "build/ci-asan", "-j2", "--target", "sequence_stress", external=True)
    games = "100000" if os.environ.get("SEQUENCE_STRESS_FULL") == "1" else "3000"
    session.run("build/ci-asan/sequence_stress", games, "1", "2", external=True,
                env={"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=1",
                     "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1"})
