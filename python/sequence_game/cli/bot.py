"""``sequence-game bot``: an agent plays a seat of a table on a server to the end (sequence_game.bot)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..errors import printable
from .common import EXIT_USAGE, CLIError, Parents, int_arg

if TYPE_CHECKING:
    from rich.console import Console

NAME = "bot"


def cmd_bot(args: argparse.Namespace, console: Console) -> int:
    from ..bot import main
    from ..client import BadAnswerError, ClientError

    if args.table is not None and not args.token:
        raise CLIError("--table needs the seat's --token (or take an open seat with --join ID instead)")
    if args.join is not None and args.token:
        raise CLIError("--join takes an open seat and gets its token: leave out --token (or use --table ID --token T)")
    if args.seat is not None and args.join is None:
        raise CLIError("--seat chooses the open seat to take with --join ID; with --table the token names the seat")
    if args.name is not None and (args.join is None or not 1 <= len(args.name) <= 32 or not args.name.isprintable()):
        raise CLIError("--name goes with --join and is 1 to 32 printable characters")
    try:
        return main(args)
    except BadAnswerError as e:
        # the server broke the API's contract: one line, and the status of a failure that retrying
        # will not mend
        print(f"sequence-game: error: {printable(args.server)} answered what the API does not allow: "
              f"{printable(str(e))}", file=sys.stderr)
        return EXIT_USAGE
    except ClientError as e:
        raise CLIError(f"{printable(args.server)}: {e}") from None
    except ValueError as e:
        raise CLIError(str(e)) from None


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    p = sub.add_parser(NAME, help="play a seat of a table on a server with an agent",
                       description="Connect an agent to a seat of a table on a 'sequence-game serve' server "
                                   "(docs/web.md), by its token or by taking an open seat (--join), and play "
                                   "until the game ends. The agent sees what the seat "
                                   "may see (R9).")
    p.add_argument("--server", required=True, metavar="URL", help="the server, e.g. http://127.0.0.1:8000")
    seat = p.add_mutually_exclusive_group(required=True)
    seat.add_argument("--table", metavar="ID", help="the table's id, with --token (an id starting with '-': --table=ID)")
    seat.add_argument("--join", metavar="ID", help="take an open seat of this table from the lobby (no token needed; "
                                                   "the first open one, or --seat N)")
    p.add_argument("--token", metavar="T", help="the seat's token (from its join link), with --table")
    p.add_argument("--seat", type=int_arg(0, 11, "--seat"), default=None, metavar="N",
                   help="with --join: the open seat to take, counted from 0 as the API does (default: the first)")
    p.add_argument("--name", default=None, metavar="NAME",
                   help="with --join: the name shown at the table (default: the agent's, e.g. 'hard bot')")
    p.add_argument("--agent", default="hard", metavar="AGENT",
                   help="an agent spec (easy, medium, hard, max, mcts:time=0.5, ...) or a Python class "
                        "module:Class with select_move(game) (default hard)")
    p.add_argument("--seed", type=int_arg(0, 2**64 - 1, "--seed"), default=None,
                   help="the agent's seed (default: random)")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=cmd_bot)
