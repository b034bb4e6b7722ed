"""sequence-game: a fast, rules-exact engine and AI for the board game Sequence.

>>> import sequence_game
>>> g = sequence_game.Game(players=2, seed=7)
>>> move = g.legal_moves()[0]
>>> g.play(move)
>>> g.turn
1

``Game`` runs on the compiled C++ core; ``sequence_game.reference.Game`` is the pure-Python
reference with the same API. Rule ids (R1..R10) refer to docs/rules.md.
"""

import os as _os
import sys as _sys
from typing import TYPE_CHECKING as _TYPE_CHECKING

try:
    from . import _core  # noqa: F401 - imported first, alone: its SEQUENCE_CPU error is told below
except ImportError as _error:
    # SEQUENCE_CPU names the core's instruction-set path (docs/api.md, build_info): a bad value is
    # the user's setting, not a fault, so it is one line, not a traceback through every import.
    if not str(_error).startswith("SEQUENCE_CPU="):
        raise
    _message = str(_error)
    if _message.endswith("cannot run that path"):  # the core names no choice here: say what works
        _message += " (unset SEQUENCE_CPU and the core runs the best path this processor supports)"
    if _sys.argv[:1] == ["-m"] or _os.path.basename(_sys.argv[0] if _sys.argv else "").split(".")[0] in (
            "sequence-game", "sequence_game"):
        # the command (`sequence-game ...` or `python -m sequence_game ...`, found while the package
        # is imported): its own one-line usage error, exit status 2, for every subcommand and --help
        _sys.stderr.write(f"sequence-game: error: {_message}\n")
        raise SystemExit(2) from None
    raise ImportError(_message, name=__name__) from None

from . import agents, arena, reference
from ._core import build_info
from .cards import BOARD_LAYOUT, cells_of
from .errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from .game import Game
from .move import Move
from .records import GameRecord, play_game
from .referee import MissedDraw, TableTalkPenalty
from .simulate import simulate

__all__ = [
    "BOARD_LAYOUT",
    "AmbiguousMoveError",
    "Game",
    "GameRecord",
    "IllegalMoveError",
    "InvalidMoveError",
    "MissedDraw",
    "Move",
    "TableTalkPenalty",
    "VectorGame",
    "agents",
    "arena",
    "build_info",
    "cells_of",
    "play_game",
    "reference",
    "simulate",
]
__version__ = "0.1.0"

if _TYPE_CHECKING:
    from .vector import VectorGame


def __getattr__(name: str) -> object:
    # VectorGame works on numpy arrays: imported on first use, so that `import sequence_game` does
    # not load numpy (the compiled Game's numpy results import it when they are asked for)
    if name == "VectorGame":
        from .vector import VectorGame

        return VectorGame
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> "list[str]":
    return sorted([*globals(), "VectorGame"])
