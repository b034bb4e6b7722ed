"""``sequence_game.reference.Game``: the public ``Game`` API over the plain-Python rules.

``GameBase`` (``sequence_game/gamebase.py``) provides the whole user-facing surface; this class
supplies the primitives it lists, keeping the state as one ``position.Position`` and the history
as a stack of (entry, the position before it). The rules themselves live in ``rules.py``.

>>> g = Game(players=2, seed=7)
>>> g.play(g.legal_moves()[0])
>>> g.turn
1
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ..cards import CARD_NAMES
from ..gamebase import GameBase
from ..move import Move
from ..position import CORNER_CODE, Position
from ..referee import HistoryEntry, MissedDraw, TableTalkPenalty
from . import rules


class Game(GameBase):
    """A game of Sequence, pure Python (see docs/api.md for the public API)."""

    def __init__(self, players: int = 2, teams: Optional[int] = None, seed: Optional[int] = None,
                 max_turns: Optional[int] = None) -> None:
        GameBase.__init__(self, from_deal=True)
        self._pos: Position = rules.new_game(players, teams, seed, max_turns)
        self._stack: List[Tuple[HistoryEntry, Position]] = []

    @classmethod
    def _from_position(cls, pos: Position) -> Game:
        """A game in ``pos`` (already validated by ``position_from_dict``), with an empty history."""
        game = cls.__new__(cls)
        GameBase.__init__(game)
        game._pos = rules.copy_position(pos)
        game._stack = []
        return game

    def _position(self) -> Position:
        return rules.copy_position(self._pos)

    def _copy(self) -> Game:
        # The position and its history are read over many bytecodes, so a change in another thread
        # could tear the copy (a card lost half-way). The guard every change holds keeps it out,
        # and a copy meanwhile gets the documented RuntimeError (docs/hardening.md).
        with self._exclusive:
            game = type(self)._from_position(self._pos)
            game._stack = [(entry, rules.copy_position(p)) for entry, p in self._stack]
            return game

    # ------------------------------------------------------------------ read-only properties

    @property
    def players(self) -> int:
        return self._pos.players

    @property
    def teams(self) -> int:
        return self._pos.teams

    @property
    def current_player(self) -> int:
        """The seat to move; once the game is over, the seat that made the last move (the winning
        play, the pass completing a stalemate, or the move that reached the turn cap)."""
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

    def _record(self, entry: HistoryEntry) -> None:
        self._stack.append((entry, rules.copy_position(self._pos)))

    def _apply(self, move: Move) -> None:
        self._record(move)
        rules.apply(self._pos, move)

    def _table_talk_penalty(self, team: int, cards: Dict[int, int]) -> None:
        self._record(TableTalkPenalty(team, {p: CARD_NAMES[c] for p, c in cards.items()}))
        rules.table_talk_penalty(self._pos, team, cards)

    def _missed_draw(self, player: int) -> None:
        self._record(MissedDraw(player))
        rules.missed_draw(self._pos, player)

    def _undo(self) -> HistoryEntry:
        entry, self._pos = self._stack.pop()
        return entry

    def _history(self) -> List[HistoryEntry]:
        return [entry for entry, _ in self._stack]

    def _history_size(self) -> int:
        return len(self._stack)
