"""``sequence-game bench``, ``tune`` and ``fit-eval``: tools that keep their own parsers.

Each is a module with ``main(argv)``; ``sequence-game NAME ...`` hands it everything after the name
(``main()`` of this package does so before its own parsing), and ``--help`` lists them.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Dict, List, NamedTuple

from .common import Parents


class Tool(NamedTuple):
    module: str  # the module whose main(argv) runs the command
    help: str  # its line in ``sequence-game --help``


#: The tools by command name, in the order ``--help`` lists them.
TOOLS: Dict[str, Tool] = {
    "bench": Tool("sequence_game.bench", "the performance table, core vs reference (--quick for a short run)"),
    "tune": Tool("sequence_game.training.tune", "tune the search's options by matches (screen, spsa)"),
    "fit-eval": Tool("sequence_game.training.fit_eval",
                     "fit the search's learned evaluation on self-play positions (a research build's)"),
}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    # Listed for --help only: run() takes the command before the parser sees it.
    for name, tool in TOOLS.items():
        sub.add_parser(name, help=tool.help, add_help=False)


def run(name: str, argv: List[str]) -> int:
    """Run the tool ``name`` with the options after its name; returns the exit status. A tool of
    the research build (``fit-eval``) in a product build ends in one line saying how to get one."""
    try:
        tool = importlib.import_module(TOOLS[name].module)
    except ImportError as e:
        if not (e.name or "").startswith("sequence_game."):
            raise
        print(f"sequence-game {name}: {e}", file=sys.stderr)
        return 2
    status: int = tool.main(argv) or 0
    return status
