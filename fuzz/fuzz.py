"""Run one fuzz target (fuzz/harness.py) under atheris, coverage-guided (libFuzzer).

    pip install atheris
    python fuzz/fuzz.py TARGET [libFuzzer options]        # TARGET: a name in harness.TARGETS (see fuzz/README.md)
    python fuzz/fuzz.py play -runs=200000 -seed=1
    python fuzz/fuzz.py replay FILE...                   # run inputs through their targets (no atheris)

A broken contract is not fatal: it is written to fuzz/crashers/<target>-<signature>.bin (the raw
input; fuzz/crashers/<...>.txt holds the traceback), once per distinct signature, and the campaign
goes on, so the run count is exact. The libFuzzer line "Done N runs" is the input count.
Without atheris, ``python fuzz/fuzz.py TARGET -runs=N`` falls back to a plain random mutation
fuzzer over the seed corpus (much weaker, same bookkeeping).
"""

from __future__ import annotations

import gc
import hashlib
import os
import random
import sys
import time
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
CRASHERS = os.path.join(HERE, "crashers")
sys.path.insert(0, HERE)

try:
    import atheris
except ImportError:  # pragma: no cover
    atheris = None

# Coverage feedback from the input-handling modules (the pure-Python rules are left uninstrumented:
# they only run on already-validated input and would slow every run 3x).
INSTRUMENTED = ("sequence_game.move", "sequence_game.cards", "sequence_game.position", "sequence_game.gamebase",
                "sequence_game.game_setup", "sequence_game.errors", "sequence_game.actions", "sequence_game.game",
                "sequence_game.records", "sequence_game._args", "sequence_game.referee",
                "sequence_game.agents.registry", "sequence_game.agents.base", "sequence_game.agents.search",
                "sequence_game.agents.mcts", "sequence_game.agents.rollout")


def instrument_loaded(modules=INSTRUMENTED) -> int:
    """Instrument every Python function of ``modules`` that is loaded; returns how many.

    ``atheris.instrument_imports`` rewrites a module only when a plain file loader loads it. An
    editable install (scikit-build-core's import hook, ``pip install -e``) loads the package through
    its own loader, and atheris then instruments nothing while still printing "Instrumenting ...":
    libFuzzer saw no coverage and its corpus stayed at one input. Instrumenting the loaded function
    objects works however the package was installed (atheris skips code it has instrumented).
    """
    wanted = set(modules)
    functions = [f for f in gc.get_objects() if isinstance(f, types.FunctionType) and f.__module__ in wanted]
    for f in functions:
        atheris.instrument_func(f)
    return len(functions)


if atheris is not None:
    with atheris.instrument_imports(include=list(INSTRUMENTED)):
        import harness
    _count = instrument_loaded()
    if _count == 0:  # pragma: no cover - a fuzz run without coverage feedback is a random search
        sys.exit("fuzz.py: no function of the input-handling modules could be instrumented")
    print(f"INFO: {_count} functions instrumented for coverage", file=sys.stderr)
else:  # pragma: no cover
    import harness

_seen: set = set()
_stats = {"inputs": 0, "findings": 0}


def _signature(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    frames = [f"{os.path.basename(f.filename)}:{f.name}" for f in tb[-3:]]
    head = str(exc).split(":")[0][:60]
    return f"{type(exc).__name__}|{head}|{'>'.join(frames)}"


def run_one(name: str, data: bytes) -> None:
    _stats["inputs"] += 1
    try:
        harness.TARGETS[name](data)
    except Exception as e:  # noqa: BLE001 - record and go on
        sig = _signature(e)
        if sig in _seen:
            return
        _seen.add(sig)
        _stats["findings"] += 1
        os.makedirs(CRASHERS, exist_ok=True)
        digest = hashlib.sha1(sig.encode()).hexdigest()[:10]
        path = os.path.join(CRASHERS, f"{name}-{digest}")
        if not os.path.exists(path + ".bin"):
            with open(path + ".bin", "wb") as f:
                f.write(data)
            with open(path + ".txt", "w") as f:
                f.write(f"target: {name}\nsignature: {sig}\n\n")
                f.write("".join(traceback.format_exception(type(e), e, e.__traceback__)))
        print(f"\nFINDING {name}: {sig}\n  saved {path}.bin", file=sys.stderr, flush=True)


def _corpus_seeds(name: str):
    folder = os.path.join(HERE, "corpus", name)
    if os.path.isdir(folder):
        for fn in sorted(os.listdir(folder)):
            with open(os.path.join(folder, fn), "rb") as f:
                yield f.read()


def fallback(name: str, runs: int, seed: int) -> None:  # pragma: no cover - used without atheris
    rng = random.Random(seed)
    pool = list(_corpus_seeds(name)) or [b""]
    t0 = time.time()
    for _ in range(runs):
        data = bytearray(rng.choice(pool))
        for _ in range(rng.randint(1, 8)):
            op = rng.randrange(4)
            if op == 0 or not data:
                data.insert(rng.randrange(len(data) + 1), rng.randrange(256))
            elif op == 1:
                data[rng.randrange(len(data))] = rng.randrange(256)
            elif op == 2:
                del data[rng.randrange(len(data))]
            else:
                data += bytes(rng.randrange(256) for _ in range(rng.randrange(16)))
        run_one(name, bytes(data))
        if rng.random() < 0.01:
            pool.append(bytes(data))
    print(f"Done {runs} runs in {time.time() - t0:.0f} second(s) (fallback mutator)")


def main(argv) -> None:
    if len(argv) < 2 or (argv[1] not in harness.TARGETS and argv[1] != "replay"):
        print(__doc__)
        sys.exit(2)
    name = argv[1]
    if name == "replay":
        for path in argv[2:]:
            target = os.path.basename(path).rsplit("-", 1)[0]
            with open(path, "rb") as f:
                data = f.read()
            harness.TARGETS[target](data)  # raises on a finding
            print(f"ok {path}")
        return
    if atheris is None:
        runs = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("-runs=")), 10000)
        seed = next((int(a.split("=", 1)[1]) for a in argv if a.startswith("-seed=")), 1)
        fallback(name, runs, seed)
        return
    # libFuzzer writes new inputs into the first corpus directory: keep them out of the repo.
    seeds = os.path.join(HERE, "corpus", name)
    work = os.path.join(os.environ.get("SEQUENCE_FUZZ_WORK", "/tmp/sequence-fuzz"), name)
    os.makedirs(work, exist_ok=True)
    args = [argv[0]] + argv[2:]
    if not any(not a.startswith("-") for a in argv[2:]):
        args += [work, seeds] if os.path.isdir(seeds) else [work]
    atheris.Setup(args, lambda data: run_one(name, data))
    atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
