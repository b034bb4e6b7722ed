"""``sequence-game replay``: the moves of a saved game record and its final board."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Optional

from ..errors import printable
from .common import EXIT_OK, CLIError, Parents, describe_move, game_class, lenient_stdin, read_line, result_line

if TYPE_CHECKING:
    from rich.console import Console

    from ..gamebase import GameBase


def cmd_replay(args: argparse.Namespace, console: Console) -> int:
    from ..records import GameRecord
    from ..terminal import can_encode_suits, render_table

    try:
        record = GameRecord.load(args.file)  # at most records.MAX_RECORD_BYTES are read
    except OSError as e:
        raise CLIError(f"{printable(args.file)}: {e.strerror or e}") from None
    except ValueError as e:
        raise CLIError(str(e)) from None
    cls = game_class(args.engine)
    ascii = args.ascii or not can_encode_suits(console)
    step = args.step and sys.stdin is not None and sys.stdin.isatty()
    agents = ", ".join(f"P{p} {printable(a)[:80]}" for p, a in enumerate(record.agents))  # from the file
    console.print(f"replay of {printable(args.file)}: {record.players} players, {record.teams} teams, "
                  f"seed {record.seed}, "
                  f"{len(record.moves)} moves" + (f"; {agents}" if agents else ""))
    game: Optional[GameBase] = None
    prev: Optional[GameBase] = None
    try:
        for index, move, game in record.positions(cls):
            if move is not None:
                assert prev is not None  # positions() yields the deal (move None) first
                console.print(f"{index:>3}. {describe_move(prev, prev.current_player, move)}")
                if step:
                    render_table(console, game, last_move=game.last_move, ascii=ascii)
                    console.print("(Enter for the next move, q to stop stepping) ", end="")
                    answer = read_line(lenient_stdin())
                    if answer is None or answer.strip().lower() == "q":
                        step = False
            prev = game
    except ValueError as e:
        raise CLIError(str(e)) from None
    assert game is not None  # positions() yields the deal at least
    console.print()
    render_table(console, game, last_move=game.last_move, ascii=ascii)
    console.print(result_line(game), style="bold")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    p = sub.add_parser("replay", parents=[parents.common], help="step through a saved game record",
                       description="Print each move of a saved record and the final board.")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--step", action="store_true", help="show the board and wait for Enter after each move")
    p.set_defaults(func=cmd_replay)
