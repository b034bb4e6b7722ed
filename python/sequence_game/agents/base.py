"""The agent protocol: anything with ``select_move(game) -> Move``, and its display name."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..move import Move

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["Agent", "agent_name"]


@runtime_checkable
class Agent(Protocol):
    """Anything that picks a move: ``select_move(game) -> Move``.

    It is asked only when ``game.current_player`` is its seat and must return one of
    ``game.legal_moves()`` (a move's text, or a placement without ``declares`` when only one choice
    exists, is accepted too). It must look only at what that player may see (R9: its own hand, the
    board, the sequences, discard piles, hand sizes, the draw pile's size), never at other hands or
    the order of the draw pile, unless it says it cheats. It must not change the game it is given
    (use ``game.copy()`` to search).

    An agent may also have a ``name`` attribute (a short text used in game records and match
    tables); :func:`agent_name` falls back to the class name.
    """

    def select_move(self, game: GameBase) -> Move:  # pragma: no cover - protocol
        ...


def agent_name(agent: object) -> str:
    """The display name of an agent: its ``name`` attribute, else its class name.

    >>> from sequence_game.agents import GreedyAgent
    >>> agent_name(GreedyAgent()), agent_name(object())
    ('greedy', 'object')
    """
    name = getattr(agent, "name", None)
    if isinstance(name, str) and name:
        return name
    return type(agent).__name__


def spec_name(base: str, **params: object) -> str:
    """``base`` followed by the parameters that are set, as an agent spec: ``greedy:seed=3``."""
    shown = [f"{k}={v}" for k, v in params.items() if v is not None]
    return base + (":" + ",".join(shown) if shown else "")


def game_over_message(game: GameBase, what: str = "select") -> str:
    """Why there is no move to ``what`` in a finished game, with its result:
    ``"the game is over: team 0 (blue) won; there is no move to select"``."""
    from ..game_setup import TEAM_NAMES

    winner = game.winner
    if winner is not None:
        result = f"team {winner} ({TEAM_NAMES[winner]}) won" if 0 <= winner < len(TEAM_NAMES) else f"team {winner} won"
    else:
        result = "it is a draw"
    return f"the game is over: {result}; there is no move to {what}"


def no_legal_move(game: GameBase) -> ValueError:
    """The error for a position without a move to select (the game is over, with its result)."""
    if game.is_over:
        return ValueError(game_over_message(game))
    return ValueError("no legal move in this position")  # pragma: no cover - the rules always give one
