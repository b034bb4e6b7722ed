"""``sequence-game selfplay``: a self-play dataset (npz shards and a manifest), on every core or on Ray."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Optional

from ..game_setup import MAX_TURNS, RUN_MAX_TURNS, VALID_PLAYERS
from ..seeds import SEED_LIMIT
from .common import EXIT_OK, CLIError, Parents, int_arg

if TYPE_CHECKING:
    from rich.console import Console



def cmd_selfplay(args: argparse.Namespace, console: Console) -> int:
    from ..arena import JobError, RichProgress, WorkerCrashedError
    from ..arena.pool import one_thread_per_worker
    from ..selfplay import SelfplayJob, selfplay

    if args.workers is not None and args.workers < 1:
        raise CLIError("--workers must be at least 1")
    one_thread_per_worker()  # with --workers 1 this process is the worker
    agents = list(args.agents) or ["greedy"]
    if args.max_turns is None:  # the run's own cap when resuming one, else the default
        args.max_turns = _resumed_cap(args) if args.resume else RUN_MAX_TURNS
    try:
        job = SelfplayJob(agents, args.games, args.out, players=args.players, teams=args.teams, seed=args.seed,
                          max_turns=args.max_turns, shard_games=args.shard_games)
    except (TypeError, ValueError) as e:
        raise CLIError(str(e)) from None
    console.print(f"{job.title}: {job.games} games in {job.size} shard(s) into {job.out}")
    reporter = None if args.no_progress else RichProgress(job, console=console, unit="shards")
    try:
        manifest = selfplay(agents, args.games, args.out, players=args.players, teams=args.teams, seed=args.seed,
                            max_turns=args.max_turns, shard_games=args.shard_games, workers=args.workers,
                            ray=args.ray, resume=args.resume, progress=reporter)
    except KeyboardInterrupt:
        console.print(f"interrupted: the finished shards are in {args.out}; continue with --resume")
        raise
    except (ValueError, TypeError, ImportError, JobError, WorkerCrashedError) as e:
        raise CLIError(str(e)) from None
    cpu = manifest["cpu_seconds"]
    rate = manifest["positions"] / cpu * 3600 if cpu else 0.0
    console.print(f"{manifest['positions']:,} positions from {manifest['games']} games in "
                  f"{len(manifest['shards'])} shard(s): {args.out}/manifest.json "
                  f"({rate:,.0f} positions per core-hour)")
    if manifest.get("draws"):
        console.print(f"{manifest['draws']} draws, {manifest['capped_games']} of them stopped at the turn cap "
                      f"({manifest['max_turns']} turns)")
    if manifest.get("games_per_node"):
        console.print("games per node: " + ", ".join(f"{n[:12]} {k}" for n, k in manifest["games_per_node"].items()))
    return EXIT_OK


def _resumed_cap(args: argparse.Namespace) -> Optional[int]:
    import os

    from ..arena import read_results
    from ..selfplay import LOG_NAME

    log = os.path.join(args.out, LOG_NAME)
    if not os.path.exists(log):
        return RUN_MAX_TURNS
    try:
        cap: Optional[int] = read_results(log)[0]["max_turns"]
    except ValueError as e:
        raise CLIError(str(e)) from None
    return cap


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    p = sub.add_parser("selfplay", help="write a self-play dataset (npz shards + manifest)",
                       description="Self-play positions (observation tensors, legal masks, the move played, a "
                                   "search's root visits, the final result per team) in .npz shards with a "
                                   "manifest, on every core or on Ray. See sequence_game.selfplay.")
    p.add_argument("agents", nargs="*", metavar="AGENT",
                   help="agent specs cycled over the seats (default greedy: the core's heuristic)")
    p.add_argument("--games", type=int_arg(1, None, "--games"), default=100, help="number of games (default 100)")
    p.add_argument("--out", required=True, metavar="DIR", help="directory of the dataset")
    p.add_argument("--shard-games", type=int_arg(1, None, "--shard-games"), default=50, metavar="K", help="games per shard (default 50)")
    p.add_argument("--players", type=int_arg(2, 12, "--players"), default=2, choices=VALID_PLAYERS, metavar="P")
    p.add_argument("--teams", type=int_arg(2, 3, "--teams"), choices=(2, 3), default=None)
    p.add_argument("--seed", type=int_arg(0, SEED_LIMIT - 1, "--seed"), default=0, help="run seed (default 0): game g depends on it and g only")
    p.add_argument("--max-turns", type=int_arg(1, MAX_TURNS, "--max-turns"), default=None,
                   help=f"turn cap, a capped game is a draw (default {RUN_MAX_TURNS}; resuming: the run's)")
    p.add_argument("--workers", type=int_arg(1, None, "--workers"), default=None, metavar="N", help="worker processes (default: every core)")
    p.add_argument("--ray", nargs="?", const=True, default=None, metavar="ADDRESS",
                   help="run each shard as a Ray task (local instance, or the cluster at ADDRESS)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out (play the missing shards)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_selfplay)
