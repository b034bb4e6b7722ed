"""``sequence-game fit-eval``: fit the search's learned evaluation on self-play positions (:mod:`sequence_game.training.fit_eval`).

Its options belong to that module's own parser: ``main()`` hands it everything after the name.
"""

from __future__ import annotations

import argparse
from typing import List

from .common import Parents

NAME = "fit-eval"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    # Listed for --help; main() forwards the command before parsing (see forward()).
    sub.add_parser(NAME, help="fit the search's learned evaluation on self-play positions", add_help=False)


def forward(argv: List[str]) -> int:
    """Run the command with the options after its name; returns the exit status."""
    from ..training import fit_eval

    status: int = fit_eval.main(argv) or 0
    return status
