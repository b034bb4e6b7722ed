"""``sequence-game tune``: tune the search's options for playing strength by matches (:mod:`sequence_game.training.tune`).

Its options belong to that module's own parser: ``main()`` hands it everything after the name.
"""

from __future__ import annotations

import argparse
from typing import List

from .common import Parents

NAME = "tune"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    # Listed for --help; main() forwards the command before parsing (see forward()).
    sub.add_parser(NAME, help="tune the search's options by matches (screen, spsa)", add_help=False)


def forward(argv: List[str]) -> int:
    """Run the command with the options after its name; returns the exit status."""
    from ..training import tune

    status: int = tune.main(argv) or 0
    return status
