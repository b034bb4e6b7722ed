"""The pure-Python reference implementation of Sequence.

Same public API as ``sequence_game.Game`` (the compiled core) and the same shared objects, so
moves and errors pass freely between the two (``sequence_game.reference.Move is
sequence_game.Move``). It is the executable specification the core is compared against, bit for
bit: identical ``to_dict()`` after every move and identical ``legal_moves()`` order.

>>> from sequence_game.reference import Game
>>> g = Game(players=2, seed=1)
>>> len(g.hand(0))
7
"""

from ..cards import BOARD_LAYOUT, cells_of
from ..errors import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from ..move import Move
from .game import Game

__all__ = [
    "BOARD_LAYOUT",
    "AmbiguousMoveError",
    "Game",
    "IllegalMoveError",
    "InvalidMoveError",
    "Move",
    "cells_of",
]
