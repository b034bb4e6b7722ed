"""The ``sequence-game`` command: play against the AI, watch a demo, run a match, replay a record.

::

    sequence-game play [--players 2] [--teams T] [--human 0 ...] [--ai easy|medium|hard|max|SPEC] [--seed N]
    sequence-game demo --seed N [--players P] [--agents greedy,random | --agent SPEC ...] [--save FILE]
    sequence-game arena AGENT AGENT --games N [--players P] [--seed S] [--workers N | --ray [ADDRESS]]
    sequence-game arena --resume FILE | --summary FILE | --compare A B
    sequence-game selfplay [AGENT ...] --games N --out DIR [--workers N | --ray [ADDRESS]]
    sequence-game replay FILE [--step]
    sequence-game review FILE [--iterations N] [--seed S] [--json]
    sequence-game serve [--port 8000] [--host 127.0.0.1] [--db FILE] [--no-browser] [--no-accounts] [--no-chat]
    sequence-game accounts create|disable|enable|reset-password NAME [--db FILE] | accounts list
    sequence-game accounts reports [--db FILE] | accounts reports close ID [--db FILE]
    sequence-game backup FILE [--db DB]
    sequence-game bot --server URL --table ID --token T [--agent hard | module:Class]
    sequence-game bench [--quick] [--only play|simulate|to_dict]
    sequence-game tune screen|spsa --base SPEC ...
    sequence-game fit-eval --out FILE [--games N] [--agents SPEC ...]
    sequence-game train --out DIR [--generations N] [--seed S] [--export FILE]

``play`` reads one command a line from standard input, so it can be scripted (``EOF`` ends the
game cleanly): a move in the text notation (``7H@d6``, ``JSxe5``, ``trade 7H``, ``pass``; a card
alone when it has one legal cell), ``?`` for the legal moves, ``hint``, ``undo``, ``board``,
``help``, ``quit``. Every game subcommand takes ``--engine {core,reference}`` (default ``core``,
the compiled engine) and ``--no-color`` (``NO_COLOR`` in the environment does the same).

One module per subcommand: each has ``register(sub, parents)``, which adds its parser and sets
``func(args, console) -> exit status``; ``bench``, ``tune`` and ``fit-eval`` keep their own
parsers and are entries of ``tools.TOOLS`` instead. A new subcommand is a module here and one entry
in ``COMMANDS``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from .. import i18n
from ..errors import printable
from . import accounts, arena, backup, bot, demo, ladder, play, replay, review, selfplay, serve, tools, train
from .common import EXIT_ERROR, EXIT_USAGE, CLIError, parent_parsers

__all__ = ["build_parser", "main"]

#: The subcommands in the order ``--help`` lists them.
COMMANDS = (play, demo, arena, ladder, selfplay, train, replay, review, serve, accounts, backup, bot, tools)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sequence-game", description="Play the board game Sequence.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parents = parent_parsers()
    for command in COMMANDS:
        command.register(sub, parents)
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``sequence-game`` (and ``python -m sequence_game``); returns the exit status."""
    from ..terminal import make_console

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] and argv[0] in tools.TOOLS:
        return tools.run(argv[0], argv[1:])
    i18n.activate(i18n.from_environment())  # LANG / LC_ALL; --lang below overrides it
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "lang", None):
        i18n.activate(args.lang)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    console = make_console(color=not getattr(args, "no_color", False))
    try:
        status: int = args.func(args, console)
        return status
    except CLIError as e:
        print(f"sequence-game: error: {printable(str(e))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
