"""``python -m sequence_game.bench`` (also ``sequence-game bench``): core vs reference on this machine.

Measures, for the compiled core and the pure-Python reference:

* ``legal_moves() + play()`` per call over random 2-player games (the public API), and the core's
  fast paths ``legal_move_ids() + play_id()`` and ``legal_mask() + play_action()``;
* random games per second: ``sequence_game.simulate`` (one thread) when available, and the
  public API loop for both;
* ``to_dict()`` per call on a mid-game position.

``--quick`` runs a fraction of the work (a few seconds). Returns 0.

>>> main(["--quick", "--no-progress", "--only", "to_dict"])  # doctest: +SKIP
0
"""

from __future__ import annotations

import argparse
import random
import time
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple, cast

from .gamebase import GameBase, GameClass

if TYPE_CHECKING:
    from .game import Game as CoreGame


def _random_games(game_class: GameClass, games: int, fast: str = "") -> Tuple[float, int]:
    """Seconds and calls for ``games`` random games through the chosen API (``fast``: the core's
    ``"ids"`` or ``"mask"`` paths)."""
    calls = 0
    start = time.perf_counter()
    for seed in range(games):
        g = game_class(players=2, seed=seed)
        rng = random.Random(seed)
        while not g.is_over:
            if fast == "ids":
                core = cast("CoreGame", g)
                ids = core.legal_move_ids()
                core.play_id(ids[rng.randrange(len(ids))])
            elif fast == "mask":
                core = cast("CoreGame", g)
                actions = core.legal_mask().nonzero()[0]
                core.play_action(int(actions[rng.randrange(len(actions))]))
            else:
                ms = g.legal_moves()
                g.play(ms[rng.randrange(len(ms))])
            calls += 1
    return time.perf_counter() - start, calls


def _per_call(fn: Callable[[], object], seconds: float) -> float:
    """Mean seconds per call of fn, repeated for about ``seconds``."""
    n, start = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and n >= 3:
            return elapsed / n


def _midgame(game_class: GameClass) -> GameBase:
    g = game_class(players=2, seed=7)
    rng = random.Random(7)
    while g.turn < 30 and not g.is_over:
        ms = g.legal_moves()
        g.play(ms[rng.randrange(len(ms))])
    return g


def _fmt_time(s: Optional[float]) -> str:
    if s is None:
        return "-"
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.2f} us"
    return f"{s * 1e3:.2f} ms"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="sequence-game bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a fast run (a few seconds)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--only", choices=["play", "simulate", "to_dict"], action="append",
                        help="run only these measurements (repeatable)")
    args = parser.parse_args(argv)

    from rich.console import Console
    from rich.progress import Progress
    from rich.table import Table

    from ._core import build_info
    from .game import Game as Core
    from .reference import Game as Reference

    quick = args.quick
    only = set(args.only or ["play", "simulate", "to_dict"])
    ref_games = 2 if quick else 10
    core_games = 20 if quick else 200
    per_call_s = 0.2 if quick else 1.0
    sim_games = 2000 if quick else 20000

    # (label, core value, reference value, unit kind) where kind "time" (lower is better) or "rate"
    rows: List[Tuple[str, Optional[float], Optional[float], str]] = []
    tasks: List[Tuple[str, Callable[[], None]]] = []

    if "play" in only:
        def play_rows() -> None:
            rt, rc = _random_games(Reference, ref_games)
            ref = rt / rc
            _random_games(Core, 5)  # warm-up: fills the per-id Move cache (game.py)
            ct, cc = _random_games(Core, core_games)
            core, core_rate = ct / cc, core_games / ct
            ft, fc = _random_games(Core, core_games, "ids")
            fast = ft / fc
            mt, mc = _random_games(Core, core_games, "mask")
            mask = mt / mc
            rows.append(("legal_moves() + play(), per call", core, ref, "time"))
            rows.append(("legal_move_ids() + play_id(), per call", fast, ref, "time"))
            rows.append(("legal_mask() + play_action(), per call", mask, ref, "time"))
            rows.append(("random games/s via legal_moves() + play()", core_rate, ref_games / rt, "rate"))

        tasks.append(("legal_moves + play", play_rows))

    if "simulate" in only:
        def simulate_rows() -> None:
            from .simulate import simulate

            r = simulate(sim_games, players=2, seed=1, threads=1)
            rt, _ = _random_games(Reference, ref_games)
            rows.append(("random games/s, simulate() on 1 thread (reference: Python loop)",
                         r["games"] / r["seconds"], ref_games / rt, "rate"))

        tasks.append(("simulate", simulate_rows))

    if "to_dict" in only:
        def to_dict_rows() -> None:
            ref_g = _midgame(Reference)
            ref = _per_call(ref_g.to_dict, per_call_s)
            core = _per_call(Core.from_dict(ref_g.to_dict()).to_dict, per_call_s)
            rows.append(("to_dict(), per call (mid-game)", core, ref, "time"))

        tasks.append(("to_dict", to_dict_rows))

    console = Console()
    with Progress(console=console, transient=True, disable=args.no_progress) as progress:
        bar = progress.add_task("benchmarking", total=len(tasks))
        for label, task in tasks:
            progress.update(bar, description=f"benchmarking: {label}")
            task()
            progress.advance(bar)

    table = Table(title="sequence_game: compiled core vs pure-Python reference" + (" (--quick)" if quick else ""))
    table.add_column("measure")
    table.add_column("core", justify="right")
    table.add_column("reference", justify="right")
    table.add_column("core speed-up", justify="right")
    for label, core, ref, kind in rows:
        if kind == "time":
            c, r = _fmt_time(core), _fmt_time(ref)
            ratio = f"{ref / core:.0f}x" if core and ref else "-"
        else:
            c = "-" if core is None else f"{core:,.0f}"
            r = "-" if ref is None else f"{ref:,.1f}"
            ratio = f"{core / ref:.0f}x" if core and ref else "-"
        table.add_row(label, c, r, ratio)
    console.print(table)
    info = build_info()
    console.print(f"instruction-set path: {info['path']} (of {', '.join(info['paths'])}; {info['compiler']})")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
