"""Exceptions. All are ``ValueError`` subclasses, so ``except ValueError`` catches every bad input."""

from __future__ import annotations


class InvalidMoveError(ValueError):
    """A move that is malformed in any position: bad text, a one-eyed jack placing a chip, ..."""


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in the current position.

    The message names the move, why it is illegal, and what would be legal instead.
    """


class AmbiguousMoveError(IllegalMoveError):
    """A placement written without ``declares`` that could declare its sequences in several ways (R7)."""


class AgentMoveError(ValueError):
    """An agent chose a move that is not legal (or not a move). ``agent``, ``player``, ``move`` say which."""

    def __init__(self, message: str, agent: str, player: int, move: object) -> None:
        super().__init__(message)
        self.agent = agent
        self.player = player
        self.move = move
