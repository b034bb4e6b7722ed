"""``sequence-game arena``: a match between agents on every core or on Ray, and its results files."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, Dict

from ..game_setup import MAX_TURNS, RUN_MAX_TURNS, VALID_PLAYERS
from ..seeds import SEED_LIMIT
from .common import EXIT_OK, CLIError, Parents, game_class, int_arg, make_agent

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from ..arena import MatchResult


def cmd_arena(args: argparse.Namespace, console: Console) -> int:
    from .. import arena
    from ..arena.pool import one_thread_per_worker

    if args.compare:
        if args.agents or args.resume or args.summary:
            raise CLIError("--compare A B reads two results files: give no agents, no --resume and no --summary")
        try:
            comparison = arena.compare(*args.compare)
        except ValueError as e:
            raise CLIError(str(e)) from None
        console.print(str(comparison))
        return EXIT_OK
    if args.summary:
        if args.agents or args.resume:
            raise CLIError("--summary FILE reads a results file: give no agents and no --resume")
        try:
            result = arena.summary(args.summary)
        except ValueError as e:
            raise CLIError(str(e)) from None
        _print_match(console, result)
        return EXIT_OK
    settings = _arena_settings(args)
    one_thread_per_worker()  # with --workers 1 this process is the worker
    if len(settings["agents"]) < 2:
        raise CLIError("arena needs at least two agents, e.g. `arena greedy random`")
    if settings["games"] < 1:
        raise CLIError("--games must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise CLIError("--workers must be at least 1")
    for s in settings["agents"]:  # fail fast with the spec's own message
        make_agent(s, seed=0)
    path = args.resume or args.results or _default_results_name()
    try:
        job = arena.MatchJob(arena.jobs.normalise_contenders(settings["agents"]), settings["games"],
                             players=settings["players"], teams=settings["teams"], seed=settings["seed"],
                             max_turns=settings["max_turns"], game_class=game_class(settings["engine"]))
    except ValueError as e:
        raise CLIError(str(e)) from None
    if path == "-":
        path = None
    where = f"Ray ({args.ray})" if args.ray not in (None, True) else "Ray" if args.ray else \
        f"{args.workers or arena.default_workers()} worker(s)"
    console.print(f"{job.title}: {job.games} games on {where}" + (f", results in {path}" if path else ""))
    reporter = None if args.no_progress else arena.RichProgress(job, console=console)
    try:
        entries = arena.run_job(job, workers=args.workers, ray=args.ray, results=path, resume=bool(args.resume),
                                progress=reporter,
                                on_retry=lambda i, code: console.print(
                                    f"a worker died (exit code {code}) playing game {i}: playing it again"))
    except KeyboardInterrupt:
        if path:
            console.print(f"interrupted: the finished games are in {path}; continue with --resume {path}")
        raise
    except (ValueError, TypeError, ImportError, arena.JobError, arena.WorkerCrashedError) as e:
        raise CLIError(str(e)) from None
    _print_match(console, job.outcomes(entries))
    if path:
        console.print(f"results: {path} (recompute with `sequence-game arena --summary {path}`)")
    return EXIT_OK


def _arena_settings(args: argparse.Namespace) -> Dict[str, Any]:
    """The match to play: the command line's, or with --resume the results file's job, where the
    command line may change only --games (to extend the match)."""
    defaults = {"agents": list(args.agents), "games": 10, "players": 2, "teams": None, "seed": 0,
                "max_turns": RUN_MAX_TURNS, "engine": args.engine}
    given = {"games": args.games, "players": args.players, "teams": args.teams, "seed": args.seed,
             "max_turns": args.max_turns}
    import os

    if not args.resume or not os.path.exists(args.resume):
        defaults.update({k: v for k, v in given.items() if v is not None})
        return defaults
    from ..arena import read_results

    try:
        header, _ = read_results(args.resume)
    except ValueError as e:
        raise CLIError(str(e)) from None
    if not header.get("agents"):
        raise CLIError(f"{args.resume} has no agent specs to resume with (it was played from Python)")
    settings = {"agents": header["agents"], "games": header["games"], "players": header["players"],
                "teams": header["teams"], "seed": header["seed"], "max_turns": header["max_turns"],
                "engine": header.get("engine", "core")}
    if args.agents and list(args.agents) != settings["agents"]:
        raise CLIError(f"{args.resume} is a match of {' '.join(settings['agents'])}, not {' '.join(args.agents)}")
    for k, v in given.items():
        if v is not None and k != "games" and v != settings[k]:
            raise CLIError(f"{args.resume} was played with --{k.replace('_', '-')} {settings[k]}, not {v}")
    if args.games is not None:
        settings["games"] = args.games
    return settings


def _default_results_name() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).strftime("arena-%Y%m%d-%H%M%S.jsonl")


def _print_match(console: Console, result: MatchResult) -> None:
    console.print(match_table(result))
    if len(result.names) >= 2:
        console.print(result.elo_line())
    for line in result.notes():
        console.print(line)
    console.print(seat_table(result))


# A narrow terminal folds an agent's name over lines instead of cutting it: two policy files that
# share a prefix ("policy:gym_greedy_a.npz", "policy:gym_greedy_b.npz") stay told apart.
_AGENT_COLUMN: Dict[str, Any] = {"justify": "left", "overflow": "fold", "min_width": 12}


def match_table(result: MatchResult) -> Table:
    """A ``rich`` table of a ``MatchResult``: games, wins, draws, losses, win rate and its 95% CI, Elo."""
    from rich.table import Table

    from ..arena import format_elo

    title = f"{result.games} games, {result.players} players ({result.teams} teams), seed {result.seed}"
    if result.planned is not None and result.planned != result.games:
        title += f" -- {result.planned - result.games} of {result.planned} not played yet"
    table = Table(title=title)
    for col in ("agent", "games", "wins", "draws", "losses", "win rate", "95% CI", "Elo"):
        table.add_column(col, **_AGENT_COLUMN if col == "agent" else {"justify": "right"})
    losses = result.losses
    n = len(result.names)
    for i, name in enumerate(result.names):
        lo, hi = result.win_rate_interval(i)
        elo = format_elo(result.elo(i, (i + 1) % n)) if n >= 2 else "-"
        table.add_row(
            name, str(result.played[i]), str(result.wins[i]), str(result.draws_of(i)), str(losses[i]),
            f"{100 * result.win_rate(i):.1f}%", f"{100 * lo:.1f}-{100 * hi:.1f}%", elo,
        )
    return table


def seat_table(result: MatchResult) -> Table:
    """A ``rich`` table of each contender's results per team (team 0 moves first)."""
    from rich.table import Table

    table = Table(title="by team (team 0 moves first)")
    for col in ("agent", "team", "games", "wins", "draws", "win rate", "95% CI"):
        table.add_column(col, **_AGENT_COLUMN if col == "agent" else {"justify": "right"})
    for s in result.seat_results():
        lo, hi = s.win_rate_interval()
        table.add_row(result.names[s.contender], str(s.team), str(s.games), str(s.wins), str(s.draws),
                      f"{100 * s.win_rate:.1f}%", f"{100 * lo:.1f}-{100 * hi:.1f}%")
    return table


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    p = sub.add_parser("arena", parents=[parents.common], help="a match between agents, on every core or on Ray",
                       description="A match between agents, e.g. `arena greedy random --games 20`. Games run "
                                   "on every core (--workers), or on Ray (--ray); each finished game is "
                                   "appended to a JSON-lines results file, which --resume continues and "
                                   "--summary reads. With fixed iteration budgets (mcts:iters=N) the results "
                                   "do not depend on where the games ran; time budgets depend on the machine.")
    p.add_argument("agents", nargs="*", metavar="AGENT", help="agent specs: random, greedy, mcts:time=0.5, ...")
    p.add_argument("--games", type=int_arg(1, None, "--games"), default=None, help="number of games (default 10)")
    p.add_argument("--players", type=int_arg(2, 12, "--players"), default=None, choices=VALID_PLAYERS, metavar="P")
    p.add_argument("--teams", type=int_arg(2, 3, "--teams"), choices=(2, 3), default=None)
    p.add_argument("--seed", type=int_arg(0, SEED_LIMIT - 1, "--seed"), default=None, help="match seed (default 0): game i depends on it and i only")
    p.add_argument("--max-turns", type=int_arg(1, MAX_TURNS, "--max-turns"), default=None,
                   help=f"turn cap, a capped game is a draw (default {RUN_MAX_TURNS})")
    p.add_argument("--workers", type=int_arg(1, None, "--workers"), default=None, metavar="N",
                   help="worker processes (default: every core; 1 plays in this process)")
    p.add_argument("--ray", nargs="?", const=True, default=None, metavar="ADDRESS",
                   help="run each game as a Ray task: on the local Ray instance (started if none runs), or "
                        "on the cluster at ADDRESS (needs sequence-game[ray])")
    p.add_argument("--results", metavar="FILE",
                   help="JSON-lines results file (default arena-<UTC time>.jsonl; - for none)")
    p.add_argument("--resume", metavar="FILE", help="continue the match of a results file: play only its missing "
                                                    "games (--games N extends it)")
    p.add_argument("--summary", metavar="FILE", help="print the statistics of a results file and exit")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="compare game by game the first contenders of two results files of matches that differ "
                        "only in that contender (same opponents and --seed: the same deals), and exit")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_arena)
