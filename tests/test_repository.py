"""The repository stands on its own: every rule id, document and version it cites is in it.

Rule ids (R1 ... R10) cited anywhere in code, tests and docs must be defined in docs/rules.md; every
``docs/*.md`` named anywhere and every relative link in the Markdown pages must exist; the version
is written once (``sequence_game.__version__``) and the installed metadata agrees with it; the
LICENSE file is the license pyproject.toml declares. The repository speaks to its users: no file
names an issue or pull-request number, or a work "round".
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
from typing import Dict, Iterator, List, Set, Tuple, Union

import sequence_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(ROOT, "docs", "rules.md")
SOURCE_DIRS = ("python", "tests", "cpp", "docs", "benchmarks", "fuzz", "examples")
SOURCE_SUFFIXES = (".py", ".pyi", ".cpp", ".hpp", ".h", ".md", ".rst", ".txt", ".toml", ".sh", ".js", ".html", ".css")
SKIP_DIRS = {"_build", "__pycache__", "corpus", "crashers"}


def _text_files() -> Iterator[Tuple[str, str]]:
    """(path relative to the root, text) of every source and documentation file of the project."""
    for name in ("README.md", "CHANGELOG.md", "CONTRIBUTING.md", "pyproject.toml", "CMakeLists.txt", "noxfile.py",
                 os.path.join(".ci", "run")):
        path = os.path.join(ROOT, name)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                yield name, f.read()
    for top in SOURCE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, top)):
            dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
            for filename in filenames:
                if filename.endswith(SOURCE_SUFFIXES):
                    path = os.path.join(dirpath, filename)
                    with open(path, encoding="utf-8") as f:
                        yield os.path.relpath(path, ROOT), f.read()


FILES: Dict[str, str] = dict(_text_files())
RULE_HEADING = re.compile(r"^## R(\d+) ", re.M)
# A rule id as code and prose cite it: "R7", "(R5 step 1)", "R2-R4", test names "test_r7_...".
RULE_CITATION = re.compile(r"(?<![A-Za-z0-9_])R(\d+)(?![A-Za-z0-9])|\btest_r(\d+)_")


def test_rules_define_r1_to_r10_in_order():
    text = FILES[os.path.join("docs", "rules.md")]
    assert [int(n) for n in RULE_HEADING.findall(text)] == list(range(1, 11))


def test_every_cited_rule_id_is_defined_in_docs_rules():
    defined = {int(n) for n in RULE_HEADING.findall(FILES[os.path.join("docs", "rules.md")])}
    cited: Dict[int, List[str]] = {}
    for path, text in FILES.items():
        for m in RULE_CITATION.finditer(text):
            cited.setdefault(int(m.group(1) or m.group(2)), []).append(path)
    assert len(cited) == 10, f"expected citations of all ten rules, found {sorted(cited)}"
    undefined = {n: sorted(set(paths))[:5] for n, paths in cited.items() if n not in defined}
    assert not undefined, f"rule ids cited but not defined in docs/rules.md: {undefined}"


def test_no_reference_to_documents_outside_the_repository():
    # The rule text and the API contract live in docs/rules.md and docs/api.md.
    # (The pattern is assembled so that this file does not match itself.)
    outside = re.compile("|".join(["RULES" + r"\.md", "API" + r"\.md", r"\.\./" + "shared/", "/" + "work/"]))
    offenders = sorted(path for path, text in FILES.items() if outside.search(text))
    assert not offenders, f"these files cite documents that are not in the repository: {offenders}"


def test_every_named_docs_page_exists():
    missing = set()
    for path, text in FILES.items():
        for page in re.findall(r"\bdocs/((?:[A-Za-z0-9_-]+/)*[A-Za-z0-9_-]+\.(?:md|rst))", text):
            if not os.path.exists(os.path.join(ROOT, "docs", page)):
                missing.add(f"{path}: docs/{page}")
    assert not missing, sorted(missing)


def test_relative_links_in_markdown_resolve():
    broken = []
    for path, text in FILES.items():
        if not path.endswith(".md"):
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            file_part = target.split("#", 1)[0]
            if not os.path.exists(os.path.normpath(os.path.join(ROOT, os.path.dirname(path), file_part))):
                broken.append(f"{path}: {target}")
    assert not broken, broken


def _pyproject() -> str:
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        return f.read()


def test_version_is_written_once_and_the_metadata_agrees():
    project = _pyproject().split("[project]", 1)[1].split("\n[", 1)[0]
    assert not re.search(r"^version\s*=", project, re.M), "the version lives in sequence_game/__init__.py only"
    assert re.search(r'^dynamic\s*=\s*\[[^]]*"version"', project, re.M)
    assert re.fullmatch(r"\d+\.\d+\.\d+(?:[abrc.]+\d+|\.dev\d+)?", sequence_game.__version__)
    assert importlib.metadata.version("sequence-game") == sequence_game.__version__


def test_license_file_is_the_declared_license():
    declared = re.search(r"^license\s*=\s*\{\s*text\s*=\s*\"([^\"]+)\"", _pyproject(), re.M)
    assert declared is not None and declared.group(1) == "MIT"
    with open(os.path.join(ROOT, "LICENSE"), encoding="utf-8") as f:
        text = f.read()
    assert text.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in text
    assert importlib.metadata.metadata("sequence-game")["License"] == "MIT"


def test_every_docs_page_is_in_the_docs_toctree():
    # Sphinx (built with -W in .ci/run) refuses a page that no toctree lists.
    docs = os.path.join(ROOT, "docs")
    with open(os.path.join(docs, "index.md"), encoding="utf-8") as f:
        listed = set(re.findall(r"^([a-z0-9_/-]+)$", f.read(), re.M))
    pages = set()
    for dirpath, dirnames, filenames in os.walk(docs):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith((".", "_"))]
        for name in filenames:
            if name.endswith((".md", ".rst")):
                pages.add(os.path.relpath(os.path.join(dirpath, name), docs).rsplit(".", 1)[0].replace(os.sep, "/"))
    pages.discard("index")
    assert not pages - listed, f"add these docs pages to a toctree in docs/index.md: {sorted(pages - listed)}"


# An issue or pull-request number as prose cites it: "issue 14", "issues 13 and 14", "(issue #7)",
# "PR 12", "pull request #3", "fixes #12", "see #12", "GH-12", "round 2" (a diary's work round).
# Not matched: "#1" in an agent's name ("random #1"), colours ("#111"), "#include", "# comment".
ISSUE_NUMBER = re.compile(
    r"\b(?:issues?|pull[ -]requests?|PRs?)\s*(?:#|no\.\s*|number\s+)?\d+\b"
    r"|\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?|see|refs?)\s+#\d+\b"
    r"|\(#\d+\)|\bGH-\d+\b|\bround\s+\d+\b",
    re.I,
)


def test_no_file_names_an_issue_number():
    # Users read these files; what was asked for and when is the version control log's job.
    found = []
    for path, text in FILES.items():
        if path == os.path.join("tests", "test_repository.py"):  # this file's examples of the pattern
            continue
        for m in ISSUE_NUMBER.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            found.append(f"{path}:{line}: {m.group(0)!r}")
    assert not found, "issue numbers or work rounds in tracked files (say what the code does instead):\n" + "\n".join(found)


def test_the_issue_number_pattern():
    for text in ("issue 14", "Issue #7", "issues 13", "(#12)", "fixes #3", "PR 5", "pull request #9", "GH-2",
                 "round 2", "Round 3"):
        assert ISSUE_NUMBER.search(text), text
    for text in ("random #1", "#include <vector>", "stroke: #111", "rounds of 30,000", "issue a warning",
                 "# comment 2", "a round of 4 seats"):
        assert not ISSUE_NUMBER.search(text), text


# --------------------------------------------------------------------------- the import graph

PACKAGE_DIR = os.path.join(ROOT, "python", "sequence_game")


def _package_modules() -> Dict[str, str]:
    """Module name -> path of every Python module of the package (compiled modules by their stub)."""
    modules: Dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(PACKAGE_DIR):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")]
        for filename in filenames:
            stem, ext = os.path.splitext(filename)
            if ext not in (".py", ".pyi"):
                continue
            parts = os.path.relpath(os.path.join(dirpath, stem), os.path.dirname(PACKAGE_DIR)).split(os.sep)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules.setdefault(".".join(parts), os.path.join(dirpath, filename))
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> Iterator[Union[ast.Import, ast.ImportFrom]]:
    """Every import statement that runs: at module level, in functions and classes (deferred imports
    run too), in try blocks; not under ``if TYPE_CHECKING:``, which only the type checker reads."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                yield from _imports(ast.Module(body=[child], type_ignores=[]))
            continue
        yield from _imports(node)


def import_graph() -> Dict[str, List[str]]:
    """Module -> the package's modules it imports. ``from X import name`` is an edge to ``X.name``
    when that is a module, else to ``X``; the implicit imports of parent packages are not edges."""
    modules = _package_modules()
    graph: Dict[str, List[str]] = {}
    for name, path in modules.items():
        is_package = os.path.basename(path).startswith("__init__.")
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        targets: List[str] = []
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    while parts and ".".join(parts) not in modules:
                        parts.pop()
                    targets.extend([".".join(parts)] if parts else [])
                continue
            base = name.split(".") if is_package else name.split(".")[:-1]
            if node.level:
                base = base[: len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source not in modules:
                continue
            for alias in node.names:
                sub = f"{source}.{alias.name}"
                targets.append(sub if sub in modules else source)
        graph[name] = sorted({t for t in targets if t != name})
    return graph


def _cycles(graph: Dict[str, List[str]]) -> List[List[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def _a_cycle_through(graph: Dict[str, List[str]], component: List[str]) -> List[str]:
    """One import chain that returns to where it starts, inside ``component`` (for the message)."""
    members = set(component)
    start = component[0]
    path = [start]
    seen = {start}
    while True:
        nxt = next(w for w in graph[path[-1]] if w in members)
        if nxt in seen:
            return path[path.index(nxt):] + [nxt]
        path.append(nxt)
        seen.add(nxt)


def test_the_import_graph_reads_deferred_imports_and_skips_type_checking_ones():
    graph = import_graph()
    assert "sequence_game.agents.factory" in graph["sequence_game.cli.common"]  # module level
    assert "sequence_game.records" in graph["sequence_game.cli.replay"]  # inside a function
    assert "sequence_game.arena" not in graph["sequence_game.cli.common"]  # only under TYPE_CHECKING


def test_the_package_has_no_import_cycle():
    """A module never imports, directly or through others, a module that imports it: every import
    that runs counts, deferred ones in functions included (a cycle of deferred imports still ties the
    modules together, and works only as long as the call order happens to allow it)."""
    graph = import_graph()
    cycles = [" -> ".join(_a_cycle_through(graph, c)) for c in _cycles(graph)]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def _package_of(module: str, modules: Dict[str, str]) -> str:
    """The package a module belongs to: itself for a package (``__init__``), else its parent."""
    return module if os.path.basename(modules[module]).startswith("__init__.") else module.rpartition(".")[0]


def private_imports() -> List[str]:
    """``from X import _name`` where ``_name`` (a function, class or module) belongs to another
    package than the importing module's."""
    modules = _package_modules()
    found = []
    for name, path in modules.items():
        if not path.endswith(".py"):
            continue
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        here = _package_of(name, modules)
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            if node.level:
                parts = here.split(".")
                source = ".".join(parts[: len(parts) - (node.level - 1)] + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source not in modules:
                continue  # another distribution's module
            for alias in node.names:
                if not alias.name.startswith("_") or alias.name in ("_core", "_args", "_"):
                    continue
                sub = f"{source}.{alias.name}"
                owner = source if sub in modules else _package_of(source, modules)
                if owner != here:
                    found.append(f"{name}: from {source} import {alias.name}")
    return found


def test_no_private_name_is_imported_from_another_package():
    """A leading underscore means "this package's own": ``_core`` (the compiled module),
    ``_args`` (the package's argument checks) and ``_`` (gettext's name for the translation of a
    message, sequence_game.i18n) belong to the whole package."""
    assert not private_imports()


# Calls that draw fresh entropy or an unseeded generator, by their full name once import aliases
# are resolved: the system's random source, and every generator made without a seed (no
# argument, or None) or the modules' global generators, which the interpreter seeds from it.
_FRESH_ALWAYS = {"os.urandom", "os.getrandom", "secrets.randbits", "secrets.randbelow", "secrets.choice",
                 "random.SystemRandom"}
_FRESH_UNSEEDED = {"numpy.random.default_rng", "numpy.random.RandomState", "numpy.random.Generator",
                   "numpy.random.PCG64", "numpy.random.PCG64DXSM", "numpy.random.MT19937", "numpy.random.Philox",
                   "numpy.random.SFC64", "numpy.random.SeedSequence", "random.Random"}
_GLOBAL_GENERATORS = ("numpy.random.", "random.")


def fresh_entropy_calls(text: str) -> List[str]:
    """The calls in ``text`` that draw fresh entropy (above), in any spelling: ``np.random.default_rng()``,
    ``from numpy.random import default_rng as rng; rng(None)``, ``import random as r; r.random()``."""
    tree = ast.parse(text)
    names: Dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        parts, f = [], node.func
        while isinstance(f, ast.Attribute):
            parts.append(f.attr)
            f = f.value
        if not isinstance(f, ast.Name) or f.id not in names:
            continue
        full = ".".join([names[f.id], *reversed(parts)]).replace("np.random.", "numpy.random.")
        args = [*node.args, *(k.value for k in node.keywords)]
        unseeded = not args or all(isinstance(a, ast.Constant) and a.value is None for a in args)
        module_function = any(full.startswith(g) and full.count(".") == g.count(".") and full[len(g):][:1].islower()
                              for g in _GLOBAL_GENERATORS)
        if (full in _FRESH_ALWAYS or (full in _FRESH_UNSEEDED and unseeded)
                or (module_function and full not in _FRESH_UNSEEDED and full not in _FRESH_ALWAYS)):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_the_fresh_entropy_guard_reads_any_spelling():
    caught = [
        "import numpy as np\nnp.random.default_rng()",
        "import numpy\nnumpy.random.default_rng(None)",
        "from numpy.random import default_rng as make\nmake()",
        "from numpy import random as npr\nnpr.RandomState()",
        "import random\nrandom.Random()",
        "import random as r\nr.randint(0, 5)",
        "from os import urandom\nurandom(8)",
        "import secrets\nsecrets.randbits(64)",
        "from random import SystemRandom\nSystemRandom().random()",
        "import numpy as np\nnp.random.integers(0, 3)",
    ]
    for text in caught:
        assert fresh_entropy_calls(text), text
    allowed = [
        "import numpy as np\nnp.random.default_rng(7)",
        "import numpy as np\nnp.random.default_rng(seed)",
        "import random\nrandom.Random(seed).random()",
        "import secrets\nsecrets.token_bytes(32)",
        "import numpy as np\nrng = np.random.default_rng(1)\nrng.integers(0, 3)",
    ]
    for text in allowed:
        assert not fresh_entropy_calls(text), text


def test_fresh_seeds_come_from_one_function():
    """Fresh entropy for seeds is drawn in one place, ``sequence_game.seeds.fresh_seed``, in any
    spelling (``fresh_entropy_calls``); the records' sealing keys and the web tables' tokens are
    secrets, not seeds: ``secrets.token_bytes``/``token_urlsafe`` stay allowed."""
    drawn = []
    for name, path in _package_modules().items():
        if path.endswith(".py") and name != "sequence_game.seeds":
            with open(path, encoding="utf-8") as f:
                drawn += [f"{name} {call}" for call in fresh_entropy_calls(f.read())]
    assert not drawn, drawn


# --------------------------------------------------------------------------- the layers' import rules

ARCHITECTURE = os.path.join("docs", "architecture.md")
_RULES_TABLE = re.compile(r"<!-- import-rules:.*?-->\n(.*?)<!-- end import-rules -->", re.S)


def import_rules() -> Dict[str, Tuple[int, Set[str]]]:
    """The table of docs/architecture.md: top-level name -> (layer, the same-layer names it may import;
    ``{"*"}`` for the game layer's "game layer")."""
    table = _RULES_TABLE.search(FILES[ARCHITECTURE])
    assert table, f"{ARCHITECTURE} lost its import-rules table"
    rules: Dict[str, Tuple[int, Set[str]]] = {}
    for line in table.group(1).splitlines()[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        name, layer, also = cells[0].strip("`"), int(cells[1]), cells[2]
        rules[name] = (layer, {"*"} if also == "game layer" else set(re.findall(r"`([\w.]+)`", also)))
    return rules


def _top_level(module: str) -> str:
    """``sequence_game.web.tables.ai`` -> ``web``; the package's own module -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_violations(graph: Dict[str, List[str]], rules: Dict[str, Tuple[int, Set[str]]]) -> List[str]:
    """Every import of ``graph`` that the rules do not allow, and every module without a rule."""
    found = []
    for module, targets in sorted(graph.items()):
        here = _top_level(module)
        if here not in rules:
            found.append(f"{module}: no row for {here!r} in {ARCHITECTURE}")
            continue
        layer, also = rules[here]
        for target in targets:
            there = _top_level(target)
            if there == here or there not in rules:
                continue
            their_layer = rules[there][0]
            if their_layer < layer or (their_layer == layer and ("*" in also or there in also)):
                continue
            found.append(f"{module} imports {target}: layer {layer} {here!r} may not import layer {their_layer} {there!r}")
    return found


def test_the_layers_import_only_what_docs_architecture_allows():
    violations = layer_violations(import_graph(), import_rules())
    assert not violations, "\n".join(violations)


def test_the_layer_check_catches_an_upward_and_a_sideways_import():
    rules = import_rules()
    assert rules["web"][0] > rules["agents"][0] and rules["cli"][0] > rules["web"][0]
    upward = {"sequence_game.web.serve": ["sequence_game.cli.common"]}
    sideways = {"sequence_game.review": ["sequence_game.arena.stats"]}
    allowed = {"sequence_game.training.tune": ["sequence_game.arena", "sequence_game.game"]}
    unknown = {"sequence_game.newthing": []}
    assert layer_violations(upward, rules) and layer_violations(sideways, rules)
    assert not layer_violations(allowed, rules)
    assert layer_violations(unknown, rules) == [f"sequence_game.newthing: no row for 'newthing' in {ARCHITECTURE}"]


# --------------------------------------------------------------------------- the routers

ROUTERS = "sequence_game.web.routers"


def router_cross_imports(graph: Dict[str, List[str]]) -> List[str]:
    """Each import by a router (a module of ``web/routers/``) of another router or of the routers'
    package: a router depends on the domains and the shared helpers (``deps.py``, ``http.py``,
    ``frames.py``, ``pages.py``), never on another router (docs/architecture.md, "The web server")."""
    found = []
    for module, targets in sorted(graph.items()):
        if module.startswith(ROUTERS + "."):
            found += [f"{module} imports {t}" for t in targets
                      if t != module and (t == ROUTERS or t.startswith(ROUTERS + "."))]
    return found


def test_no_router_imports_another_router():
    """Every import that runs counts, a deferred one in a function too (``import_graph``)."""
    graph = import_graph()
    routers = sorted(m for m in graph if m.startswith(ROUTERS + "."))
    # the check reads the real routers and their imports: an empty or unread graph fails here
    expected = {f"{ROUTERS}.{name}" for name in ("accounts", "ai", "events", "pages", "players", "socket", "tables")}
    assert expected <= set(routers), routers
    assert all(any(t.startswith("sequence_game.web.") for t in graph[m]) for m in routers), routers
    assert f"{ROUTERS}.socket" in graph["sequence_game.web.app"]
    found = router_cross_imports(graph)
    assert not found, "a router imports another (move the shared part to a domain or a helper):\n" + "\n".join(found)


def test_the_router_check_catches_an_import_of_another_router():
    graph = {f"{ROUTERS}.ai": [f"{ROUTERS}.events", "sequence_game.web.deps"],
             f"{ROUTERS}.players": [ROUTERS, "sequence_game.web.pages"],
             f"{ROUTERS}.play": ["sequence_game.web.deps"],
             "sequence_game.web.app": [f"{ROUTERS}.ai", f"{ROUTERS}.play"]}
    assert router_cross_imports(graph) == [f"{ROUTERS}.ai imports {ROUTERS}.events",
                                           f"{ROUTERS}.players imports {ROUTERS}"]


def app_state_reads(source: str) -> List[str]:
    """Each ``<x>.app.state`` that ``source`` reads."""
    return [ast.unparse(node) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute) and node.attr == "state"
            and isinstance(node.value, ast.Attribute) and node.value.attr == "app"]


def test_the_routers_reach_the_servers_parts_through_typed_dependencies():
    """A router takes the service, the lobby, the club, the quota... as typed FastAPI dependencies
    (``deps.py``, ``club/web.py``), never from ``request.app.state``: one place says where each
    part is and what type it has."""
    routers = {path: text for path, text in FILES.items()
               if path.startswith(os.path.join(WEB, "routers") + os.sep) and path.endswith(".py")}
    assert len(routers) >= 10, sorted(routers)
    assert app_state_reads(FILES[os.path.join(WEB, "deps.py")])  # the check sees a read where there is one
    assert not {path: found for path, text in routers.items() if (found := app_state_reads(text))}


def test_the_state_check_reads_any_connection_name():
    source = ("async def f(request, websocket):\n    a = request.app.state.club\n"
              "    websocket.app.state.quota.take(1)\n    request.state.x = 1\n")
    assert app_state_reads(source) == ["request.app.state", "websocket.app.state"]


# --------------------------------------------------------------------------- the tables' one way in

WEB = os.path.join("python", "sequence_game", "web")
TABLES = os.path.join(WEB, "tables")


def _service_init(front: str) -> ast.FunctionDef:
    tree = ast.parse(front)
    service = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "TableService")
    return next(n for n in service.body if isinstance(n, ast.FunctionDef) and n.name == "__init__")


def service_parts(front: str) -> Dict[str, str]:
    """The parts ``TableService.__init__`` makes: attribute -> class (``self.changes = Changes(...)``)."""
    parts = {}
    for node in ast.walk(_service_init(front)):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                and node.value.func.id[:1].isupper()):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                    parts[target.attr] = node.value.func.id
    return parts


def aliased_operations(front: str, parts_sources: List[str]) -> List[str]:
    """Each method of a part or function of the package that ``TableService.__init__`` assigns to
    an attribute (``self.play = self.changes.play``, ``self.view = view``): a second way in that
    go-to-definition cannot follow."""
    methods: Dict[str, Set[str]] = {}
    functions: Set[str] = set()
    for text in [front, *parts_sources]:
        tree = ast.parse(text)
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                methods[node.name] = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.add(node.name)
    parts = service_parts(front)
    found = []
    for node in ast.walk(_service_init(front)):
        if not isinstance(node, ast.Assign):
            continue
        for value in node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]:
            a_function = isinstance(value, ast.Name) and value.id in functions
            a_method = (isinstance(value, ast.Attribute) and isinstance(value.value, ast.Attribute)
                        and isinstance(value.value.value, ast.Name) and value.value.value.id == "self"
                        and value.attr in methods.get(parts.get(value.value.attr, ""), set()))
            if a_function or a_method:
                found.append(ast.unparse(value))
    return found


def reaching_past_the_front(source: str, parts: Set[str]) -> List[str]:
    """What ``source`` (a module of the web package outside ``tables/``) takes from behind the
    table service's front: an import from a module of ``tables/``, or a part of a service
    (``service.changes``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            path = node.module.split(".")
            inner = path[path.index("tables") + 1:] if "tables" in path else []
            if inner:
                found.append(f"from {node.module} import ...")
        elif isinstance(node, ast.Attribute) and node.attr in parts and ast.unparse(node.value).endswith("service"):
            found.append(ast.unparse(node))
    return found


def test_the_table_service_is_the_one_way_in():
    """Its constructor assigns no operation of its parts (each is a method that hands the work on),
    and the rest of the web package reaches the tables through it and what ``tables/__init__.py``
    exports only (docs/architecture.md, "The web server")."""
    front = FILES[os.path.join(TABLES, "__init__.py")]
    parts_sources = [text for path, text in FILES.items()
                     if os.path.dirname(path) == TABLES and path.endswith(".py") and not path.endswith("__init__.py")]
    parts = service_parts(front)
    assert {"changes", "ai", "connections", "life", "chat"} <= set(parts), parts
    assert not aliased_operations(front, parts_sources)
    outside = {path: reaching_past_the_front(text, set(parts)) for path, text in FILES.items()
               if path.startswith(WEB + os.sep) and path.endswith(".py") and not path.startswith(TABLES + os.sep)}
    assert not {path: found for path, found in outside.items() if found}


def test_the_one_way_in_check_catches_an_alias_and_a_reach_past_the_front():
    front = ("class TableService:\n    def __init__(self):\n        self.changes = Changes()\n"
             "        self.play, self.n = self.changes.play, self.changes.count\n        self.view = view\n")
    part = "class Changes:\n    def play(self): ...\ndef view(): ...\n"
    assert aliased_operations(front, [part]) == ["self.changes.play", "view"]
    router = ("from ..tables import TableService\nfrom ..tables.chat import MAX\n"
              "def f(service):\n    service.changes.play()\n    service.play()\n")
    assert reaching_past_the_front(router, {"changes"}) == ["from tables.chat import ...", "service.changes"]


def test_the_core_is_free_of_python():
    """cpp/ is plain C++: Python and pybind11 appear only in python/bindings/."""
    offenders = [path for path, text in FILES.items()
                 if path.startswith("cpp" + os.sep) and re.search(r'#\s*include\s*[<"](Python\.h|pybind11/)', text)]
    assert not offenders


def test_the_declared_pythons_agree_with_requires_python_and_the_workflows():
    """pyproject.toml's classifiers name every Python from requires-python's minimum on; the
    pull-request workflow tests the oldest and the newest of them, and the wheels are built for each."""
    project = _pyproject()
    declared = re.findall(r'"Programming Language :: Python :: 3\.(\d+)"', project)
    minimum = re.search(r'requires-python = ">=3\.(\d+)"', project)
    assert minimum and declared
    minors = sorted(int(m) for m in declared)
    assert minors == list(range(int(minimum.group(1)), minors[-1] + 1))
    with open(os.path.join(ROOT, ".github", "workflows", "ci.yml"), encoding="utf-8") as f:
        workflow = f.read()
    for minor in (minors[0], minors[-1]):
        assert f'python: "3.{minor}"' in workflow
    built = re.search(r'^build = "([^"]*)"', project, re.M)
    assert built and built.group(1).split() == [f"cp3{m}-*" for m in minors]
