"""``sequence-game ladder``: the round robin that rates the levels on one scale, its table, its
picture and the packaged ratings (docs/agents.md "The level ladder")."""

from __future__ import annotations

import argparse
import os
import time
from typing import TYPE_CHECKING, Tuple

from ..seeds import SEED_LIMIT
from .common import EXIT_OK, CLIError, Parents, int_arg

if TYPE_CHECKING:
    from rich.console import Console

PACKAGED = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "agents", "data", "ladder.json")


def cmd_ladder(args: argparse.Namespace, console: Console) -> int:
    from ..agents.registry import agent_from_spec
    from ..arena.ladder import DEFAULT_AGENTS, Ladder, fit_folder, ladder_json, ladder_svg, ladder_table, write_json
    from ..arena.pool import one_thread_per_worker

    one_thread_per_worker()  # with --workers 1 (the default) this process is the worker
    agents = tuple(args.agents) or DEFAULT_AGENTS
    for spec in agents:
        try:
            agent_from_spec(spec)
        except ValueError as e:
            raise CLIError(str(e)) from None
    try:
        ladder = Ladder(agents, args.out, games=args.games, players=args.players, teams=args.teams, seed=args.seed,
                        span=args.span, batch=args.batch, workers=args.workers)
    except ValueError as e:
        raise CLIError(str(e)) from None
    if not args.fit_only:
        start = time.perf_counter()

        def progress(group: Tuple[str, ...], done: int, total: int) -> None:
            console.print(f"{time.perf_counter() - start:7.0f} s  {' vs '.join(group)}: {done}/{total} games")

        ladder.run(progress)
    try:
        fit = fit_folder(args.out, anchor=args.anchor, anchor_rating=args.anchor_rating)
    except ValueError as e:
        raise CLIError(str(e)) from None
    table = ladder_table(fit)
    kind = f"{args.players} players" + (f", {ladder.team_count} teams" if args.players > 3 else "")
    title = f"The ladder ({kind}; {fit.total_games} games; {fit.anchor} = {fit.anchor_rating:.0f})"
    table_path = args.table or os.path.join(args.out, "ladder.md")
    picture_path = args.picture or os.path.join(args.out, "ladder.svg")
    with open(table_path, "w", encoding="utf-8") as f:
        f.write(table)
    with open(picture_path, "w", encoding="utf-8") as f:
        f.write(ladder_svg(fit, title=title))
    write_json(os.path.join(args.out, "ratings.json"), ladder_json(fit, args.players, ladder.team_count))
    if args.package:
        write_json(PACKAGED, ladder_json(fit, args.players, ladder.team_count))
    console.print(title)
    console.print(table, markup=False, highlight=False)
    console.print(f"table: {table_path}; picture: {picture_path}; ratings: {os.path.join(args.out, 'ratings.json')}"
                  + (f" and {PACKAGED}" if args.package else ""), markup=False, highlight=False)
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    from ..game_setup import VALID_PLAYERS

    p = sub.add_parser(
        "ladder", parents=[parents.common], help="rate the levels on one Elo scale (a resumable round robin)",
        description="A round robin of agents (default: random, rules, level:1 .. level:8) on shared deals with "
                    "seats rotated, each group's games appended to a results file in --out; run it again "
                    "with the same --out to continue a stopped run or, with a larger --games, to extend it. "
                    "Then fits multi-player Bradley-Terry ratings (random = 0) with 95%% intervals and writes "
                    "the markdown table, an SVG picture and ratings.json.")
    p.add_argument("agents", nargs="*", metavar="AGENT", help="agent specs (default: random rules level:1 .. level:8)")
    p.add_argument("--out", default="ladder-results", metavar="DIR",
                   help="folder of the results files and outputs (default ladder-results)")
    p.add_argument("--games", type=int_arg(1, 1_000_000, "--games"), default=100, help="games per group (default 100)")
    p.add_argument("--batch", type=int_arg(1, 1_000_000, "--batch"), default=20,
                   help="games per group per round, so a stopped run has spread its games (default 20)")
    p.add_argument("--span", type=int_arg(1, 100, "--span"), default=None, metavar="K",
                   help="only groups of agents within K places of each other in the list (default: all)")
    p.add_argument("--players", type=int_arg(2, 12, "--players"), default=2, choices=VALID_PLAYERS, metavar="P")
    p.add_argument("--teams", type=int_arg(2, 3, "--teams"), choices=(2, 3), default=None)
    p.add_argument("--seed", type=int_arg(0, SEED_LIMIT - 1, "--seed"), default=0, help="match seed (default 0)")
    p.add_argument("--workers", type=int_arg(1, None, "--workers"), default=1, metavar="N",
                   help="worker processes per match (default 1)")
    p.add_argument("--anchor", default="random", help="the agent whose rating is fixed (default random)")
    p.add_argument("--anchor-rating", type=float, default=0.0, help="its rating (default 0)")
    p.add_argument("--fit-only", action="store_true", help="play no games: fit and write what --out holds")
    p.add_argument("--table", metavar="FILE", help="the markdown table (default DIR/ladder.md)")
    p.add_argument("--picture", metavar="FILE", help="the SVG picture (default DIR/ladder.svg)")
    p.add_argument("--package", action="store_true",
                   help="also write the ratings the package ships (agents/data/ladder.json: the web and play show them)")
    p.set_defaults(func=cmd_ladder)
