"""``Game``: the public API (``gamebase.GameBase``) over the compiled C++ core (``_core.State``).

The core speaks 32-bit move ids (docs/notation.md); this module turns them into shared ``Move``
values once and caches them, so a legal-move list costs one dict lookup per move.
"""

from __future__ import annotations

from typing import Dict, List, Optional

from . import _core
from .cards import CARD_NAMES
from .config import check_max_turns, check_players_teams, check_seed
from .gamebase import GameBase
from .move import KINDS, Move
from .position import Position

# Directions of the declares code, in id order: east, south, south-east, south-west.
_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
_MOVES_BY_ID: Dict[int, Move] = {}


def move_from_id(move_id: int) -> Move:
    """The ``Move`` a core move id stands for (docs/notation.md, "Move ids")."""
    move = _MOVES_BY_ID.get(move_id)
    if move is None:
        move = _decode(move_id)
        _MOVES_BY_ID[move_id] = move
    return move


def _decode(move_id: int) -> Move:
    kind = KINDS[move_id & 3]
    if kind == "pass":
        return Move("pass")
    card = CARD_NAMES[(move_id >> 2) & 63]
    if kind == "trade":
        return Move("trade", card)
    index = (move_id >> 8) & 127
    r, c = divmod(index, 10)
    declares = []
    for k, (dr, dc) in enumerate(_DIRECTIONS):
        v = (move_id >> (15 + 3 * k)) & 7
        starts = () if v == 0 else (4, 0) if v == 6 else (v - 1,)
        for back in starts:
            declares.append([(r + (i - back) * dr, c + (i - back) * dc) for i in range(5)])
    return Move(kind, card, (r, c), declares)


def _seed_or_random(seed: Optional[int]) -> int:
    if seed is not None:
        return seed
    import os

    return int.from_bytes(os.urandom(8), "little")


class Game(GameBase):
    """A game of Sequence on the compiled core.

    >>> g = Game(players=2, seed=1)
    >>> len(g.hand(0)), g.current_player == (g.dealer + 1) % 2
    (7, True)
    """

    def __init__(self, players: int = 2, teams: Optional[int] = None, seed: Optional[int] = None,
                 max_turns: Optional[int] = None) -> None:
        players, teams = check_players_teams(players, teams)
        seed = _seed_or_random(check_seed(seed))
        max_turns = check_max_turns(max_turns)
        GameBase.__init__(self)
        self._state = _core.State(players, teams, seed, max_turns)
        self._ids: Optional[Dict[Move, int]] = None

    @classmethod
    def _from_position(cls, pos: Position) -> "Game":
        return cls._wrap(_core.State.from_position(pos.as_core_dict()))

    @classmethod
    def _wrap(cls, state) -> "Game":
        game = cls.__new__(cls)
        GameBase.__init__(game)
        game._state = state
        game._ids = None
        return game

    def _position(self) -> Position:
        d = self._state.to_position()
        d["sequences"] = [(t, tuple(cells)) for t, cells in d["sequences"]]
        d["last_draw"] = None if d["last_draw"] is None else tuple(d["last_draw"])
        return Position(**d)

    # ---------------------------------------------------------------- queries straight from the core
    players = property(lambda self: self._state.players, doc="Number of players.")
    teams = property(lambda self: self._state.teams, doc="Number of teams (R2).")
    current_player = property(lambda self: self._state.current_player, doc="The seat to move.")
    dealer = property(lambda self: self._state.dealer, doc="The seat that dealt (R4).")
    turn = property(lambda self: self._state.turn, doc="Completed turns (plays and passes).")
    seed = property(lambda self: self._state.seed, doc="The seed of the deal, or None.")
    max_turns = property(lambda self: self._state.max_turns, doc="The turn cap, or None.")
    is_over = property(lambda self: self._state.is_over, doc="Whether the game has ended.")
    winner = property(lambda self: self._state.winner, doc="The winning team, or None.")
    is_draw = property(lambda self: self._state.is_draw, doc="Whether the game ended in a draw.")
    draw_pile_size = property(lambda self: self._state.draw_pile_size, doc="Cards left to draw.")
    traded_this_turn = property(lambda self: self._state.traded_this_turn,
                                doc="Whether the player to move already traded a dead card (R5).")
    passes = property(lambda self: self._state.passes,
                      doc="Consecutive passes that count toward a stalemate (R5).")

    @property
    def board(self):
        """The board as a 10x10 ``numpy.int8`` array: -1 empty, 0/1/2 team chip, 3 corner (a copy)."""
        return self._state.board()

    def _hand_ids(self, player: int) -> List[int]:
        return self._state.hand(player)

    def _discard_ids(self, player: int) -> List[int]:
        return self._state.discards(player)

    def _cell_code(self, index: int) -> int:
        return self._state.cell(index)

    def _is_locked(self, index: int) -> bool:
        return self._state.locked(index)

    def _sequence_list(self):
        return [(t, tuple(cells)) for t, cells in self._state.sequences()]

    def _last_draw(self):
        last = self._state.to_position()["last_draw"]
        return None if last is None else tuple(last)

    # ---------------------------------------------------------------- moves
    def _legal_moves(self) -> List[Move]:
        ids = self._state.legal_moves()
        moves = [move_from_id(i) for i in ids]
        self._ids = dict(zip(moves, ids))
        return moves

    def _apply(self, move: Move) -> None:
        if self._ids is None:
            self._legal_moves()
        self._state.play(self._ids[move])  # type: ignore[index]

    def _changed(self) -> None:
        GameBase._changed(self)
        self._ids = None

    def _undo(self) -> None:
        self._state.undo()

    def _history_size(self) -> int:
        return self._state.history_size

    def _table_talk_penalty(self, team: int, cards: Dict[int, int]) -> None:
        self._state.table_talk_penalty(team, cards)

    def _missed_draw(self, player: int) -> None:
        self._state.missed_draw(player)

    def _copy(self) -> "Game":
        return Game._wrap(self._state.copy())
