"""``sequence-game bench``: the performance table of the compiled core against the pure-Python reference.

Its options belong to that module's own parser: ``main()`` hands it everything after the name.
"""

from __future__ import annotations

import argparse
from typing import List

from .common import Parents

NAME = "bench"


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    # Listed for --help; main() forwards the command before parsing (see forward()).
    sub.add_parser(NAME, help="the performance table, core vs reference (--quick for a short run)", add_help=False)


def forward(argv: List[str]) -> int:
    """Run the command with the options after its name; returns the exit status."""
    from .. import bench

    status: int = bench.main(argv) or 0
    return status
