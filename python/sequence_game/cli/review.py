"""``sequence-game review``: the AI's view of every move of a saved game (sequence_game.review)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from .common import EXIT_OK, CLIError, Parents, printable

if TYPE_CHECKING:
    from rich.console import Console

NAME = "review"


def cmd_review(args: argparse.Namespace, console: Console) -> int:
    from ..records import GameRecord
    from ..review import MISTAKE, review_game

    try:
        record = GameRecord.load(args.file)
        review = review_game(record, iterations=args.iterations, seed=args.seed)
    except OSError as e:
        raise CLIError(f"{printable(args.file)}: {e.strerror or e}") from None
    except ValueError as e:
        raise CLIError(str(e)) from None
    if args.json:
        console.print_json(json.dumps(review.to_dict()))
        return EXIT_OK
    console.print(f"review of {printable(args.file)}: {args.iterations} iterations a position, seed {args.seed}; "
                  f"chances are the mover's team's, before and after its move")
    for m in review.moves:
        after = "  ?  " if m.after is None else f"{100 * m.after:4.0f}%"
        line = f"{m.index:>3}. P{m.player} {m.move:<16} {100 * m.before:4.0f}% -> {after}"
        if m.mistake:
            line += f"   [bold]-{100 * (m.loss or 0):.0f} points[/bold]: the AI prefers {m.best}"
        console.print(line, highlight=False)
    mistakes = sum(m.mistake for m in review.moves)
    console.print(f"{mistakes} move(s) cost at least {100 * MISTAKE:.0f} points.")
    return EXIT_OK


def _iterations(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"iterations must be a whole number, not {text!r}") from None
    if not 1 <= n <= 1_000_000:
        raise argparse.ArgumentTypeError(f"iterations must be from 1 to 1000000, not {n}")
    return n


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    from ..review import REVIEW_ITERATIONS

    p = sub.add_parser(NAME, parents=[parents.common], help="the AI's view of every move of a saved game",
                       description="Search every position of a saved record from the mover's seat (hidden cards "
                                   "sampled, never read) and mark the moves that cost 10 points or more.")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--iterations", type=_iterations, default=REVIEW_ITERATIONS,
                   help=f"search iterations per position (default {REVIEW_ITERATIONS})")
    p.add_argument("--seed", type=int, default=0, help="the searches' seed (default 0): same seed, same review")
    p.add_argument("--json", action="store_true", help="print the review as JSON")
    p.set_defaults(func=cmd_review)
