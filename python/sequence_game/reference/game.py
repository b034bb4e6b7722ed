"""``sequence_game.reference.Game``: the public ``Game`` API over the plain-Python rules.

``GameBase`` (``sequence_game/gamebase.py``) provides the whole user-facing surface; this class
supplies the primitives it lists, keeping the state as one ``position.Position`` and the undo
history as a stack of copies of it. The rules themselves live in ``rules.py``.

>>> g = Game(players=2, seed=7)
>>> g.play(g.legal_moves()[0])
>>> g.turn
1
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..gamebase import GameBase, _busy
from ..move import Move
from ..position import CORNER_CODE, Position
from . import rules


class Game(GameBase):
    """A game of Sequence, pure Python (see docs/api.md for the public API)."""

    def __init__(self, players: int = 2, teams: Optional[int] = None, seed: Optional[int] = None,
                 max_turns: Optional[int] = None) -> None:
        GameBase.__init__(self)
        self._pos: Position = rules.new_game(players, teams, seed, max_turns)
        self._history: List[Position] = []

    @classmethod
    def _from_position(cls, pos: Position) -> Game:
        """A game in ``pos`` (already validated by ``position_from_dict``), with no undo history."""
        game = cls.__new__(cls)
        GameBase.__init__(game)
        game._pos = rules.copy_position(pos)
        game._history = []
        return game

    def _position(self) -> Position:
        return rules.copy_position(self._pos)

    def _copy(self) -> Game:
        # The position and its history are read over many bytecodes, so a change in another thread
        # could tear the copy (a card lost half-way). The guard every change holds keeps it out,
        # and a copy meanwhile gets the documented RuntimeError (docs/hardening.md).
        guard = self._guard
        if not guard.acquire(False):
            raise _busy()
        try:
            game = type(self)._from_position(self._pos)
            game._history = [rules.copy_position(p) for p in self._history]
            return game
        finally:
            guard.release()

    # ------------------------------------------------------------------ read-only properties

    @property
    def players(self) -> int:
        return self._pos.players

    @property
    def teams(self) -> int:
        return self._pos.teams

    @property
    def current_player(self) -> int:
        return self._pos.current_player

    @property
    def dealer(self) -> int:
        return self._pos.dealer

    @property
    def turn(self) -> int:
        return self._pos.turn

    @property
    def seed(self) -> Optional[int]:
        return self._pos.seed

    @property
    def max_turns(self) -> Optional[int]:
        return self._pos.max_turns

    @property
    def is_over(self) -> bool:
        return rules.is_over(self._pos)

    @property
    def winner(self) -> Optional[int]:
        return self._pos.winner

    @property
    def is_draw(self) -> bool:
        return self._pos.is_draw

    @property
    def draw_pile_size(self) -> int:
        return len(self._pos.draw_pile)

    @property
    def traded_this_turn(self) -> bool:
        return self._pos.traded_this_turn

    @property
    def passes(self) -> int:
        return self._pos.passes

    # ------------------------------------------------------------------ primitive queries

    def _hand_ids(self, player: int) -> List[int]:
        return list(self._pos.hands[player])

    def _discard_ids(self, player: int) -> List[int]:
        return list(self._pos.discards[player])

    def _cell_code(self, index: int) -> int:
        return self._pos.board[index]

    def _is_locked(self, index: int) -> bool:
        # A chip of a completed sequence (R7); corners are not chips, so never "locked".
        return self._pos.board[index] != CORNER_CODE and any(index in cells for _, cells in self._pos.sequences)

    def _sequence_list(self) -> List[Tuple[int, Tuple[int, ...]]]:
        return list(self._pos.sequences)

    def _last_draw(self) -> Optional[Tuple[int, int]]:
        return self._pos.last_draw

    def _legal_moves(self) -> List[Move]:
        return rules.legal_moves(self._pos)

    # ------------------------------------------------------------------ changes (each one undoable)

    def _snapshot(self) -> None:
        self._history.append(rules.copy_position(self._pos))

    def _apply(self, move: Move) -> None:
        self._snapshot()
        rules.apply(self._pos, move)

    def _table_talk_penalty(self, team: int, cards: Dict[int, int]) -> None:
        self._snapshot()
        rules.table_talk_penalty(self._pos, team, cards)

    def _missed_draw(self, player: int) -> None:
        self._snapshot()
        rules.missed_draw(self._pos, player)

    def _undo(self) -> None:
        self._pos = self._history.pop()

    def _history_size(self) -> int:
        return len(self._history)
