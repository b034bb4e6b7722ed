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

from . import agents, arena, reference
from ._core import build_info
from .cards import BOARD_LAYOUT, cells_of
from .errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from .game import Game
from .move import Move
from .records import GameRecord, play_game
from .referee import MissedDraw, TableTalkPenalty
from .simulate import simulate
from .vector import VectorGame

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
