"""``Game``: the public API (``gamebase.GameBase``) over the compiled C++ core (``_core.Game``).

The core speaks 32-bit move ids (docs/notation.md); this module turns them into shared ``Move``
values once and caches them (both ways; the core keeps each id's ``Move`` for the legal-move lists),
so a legal-move list costs one lookup per move and ``play(move)`` of a listed move one dict lookup,
with no Python-side legality work: the core checks it.

Fast paths for programs (no ``Move`` objects at all): ``legal_move_ids()`` / ``play_id(id)``
(docs/notation.md "Move ids") and the fixed action space of docs/action-space.md:
``legal_mask()`` / ``play_action(a)`` for reinforcement-learning code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

from . import _core, actions
from ._args import seed_or_random
from .actions import ACTION_COUNT, PASS_ACTION, action_of_move_id  # noqa: F401 (public here: docs/action-space.md)
from .cards import CARD_NAMES
from .game_setup import check_max_turns, check_players_teams
from .gamebase import GameBase
from .move import Move
from .position import Position
from .referee import HistoryEntry, MissedDraw, TableTalkPenalty

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
    from typing_extensions import Self

_MOVES_BY_ID: Dict[int, Move] = {}
_ID_BY_MOVE: Dict[Move, int] = {}


def move_from_id(move_id: int) -> Move:
    """The ``Move`` a core move id stands for (docs/notation.md, "Move ids"), cached.

    ``InvalidMoveError`` (a ``ValueError``) for an int that is not the id of a move,
    ``TypeError`` for a non-int.

    >>> move_from_id(3), move_from_id(257)
    (Move('pass'), Move('place', '2S', (0, 1)))
    """
    if type(move_id) is not int:  # an int subclass's own __eq__/__hash__ must not reach the cache
        move_id = actions.plain_move_id(move_id)
    move = _MOVES_BY_ID.get(move_id)
    if move is None:
        # The caches map both ways and serve every game of the process, so they learn only from
        # ids that actions.move_from_id has checked are a move's one id.
        move = actions.move_from_id(move_id)
        _MOVES_BY_ID[move_id] = move
        _ID_BY_MOVE[move] = move_id
    return move


def _history_entry(change: Union[int, Tuple[Any, ...]]) -> HistoryEntry:
    """A history entry from the core's: a move id, or a referee call's tuple (``_core.Game.history``)."""
    if isinstance(change, int):  # the core returns plain ints and tuples
        move = _MOVES_BY_ID.get(change)
        return move if move is not None else move_from_id(change)
    if change[0] == "missed_draw":
        return MissedDraw(change[1])
    return TableTalkPenalty(change[1], {p: CARD_NAMES[c] for p, c in change[2].items()})


class Game(GameBase):
    """A game of Sequence on the compiled core.

    >>> g = Game(players=2, seed=1)
    >>> len(g.hand(0)), g.current_player == (g.dealer + 1) % 2
    (7, True)
    """

    def __init__(self, players: int = 2, teams: Optional[int] = None, seed: Optional[int] = None,
                 max_turns: Optional[int] = None) -> None:
        players, teams = check_players_teams(players, teams)
        seed = seed_or_random(seed)
        max_turns = check_max_turns(max_turns)
        GameBase.__init__(self, from_deal=True)
        self._state = _core.Game(players, teams, seed, max_turns)

    @classmethod
    def _from_position(cls, pos: Position) -> Self:
        return cls._wrap(_core.Game.from_position(pos.as_core_dict()))

    @classmethod
    def _wrap(cls, state: _core.Game) -> Self:
        game = cls.__new__(cls)
        GameBase.__init__(game)
        game._state = state
        return game

    def _position(self) -> Position:
        d = self._state.to_position()
        d["sequences"] = [(t, tuple(cells)) for t, cells in d["sequences"]]
        d["last_draw"] = None if d["last_draw"] is None else tuple(d["last_draw"])
        return Position(**d)

    # ---------------------------------------------------------------- queries straight from the core

    @property
    def players(self) -> int:
        """Number of players."""
        return self._state.players

    @property
    def teams(self) -> int:
        """Number of teams (R2)."""
        return self._state.teams

    @property
    def current_player(self) -> int:
        """The seat to move; once the game is over, the seat that made the last move (the winning
        play, the pass completing a stalemate, or the move that reached the turn cap)."""
        return self._state.current_player

    @property
    def dealer(self) -> int:
        """The seat that dealt (R4)."""
        return self._state.dealer

    @property
    def turn(self) -> int:
        """Completed turns (plays and passes)."""
        return self._state.turn

    @property
    def seed(self) -> Optional[int]:
        """The seed of the deal, or None."""
        return self._state.seed

    @property
    def max_turns(self) -> Optional[int]:
        """The turn cap, or None."""
        return self._state.max_turns

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._state.is_over

    @property
    def winner(self) -> Optional[int]:
        """The winning team, or None."""
        return self._state.winner

    @property
    def is_draw(self) -> bool:
        """Whether the game ended in a draw."""
        return self._state.is_draw

    @property
    def draw_pile_size(self) -> int:
        """Cards left to draw."""
        return self._state.draw_pile_size

    @property
    def traded_this_turn(self) -> bool:
        """Whether the player to move already traded a dead card (R5)."""
        return self._state.traded_this_turn

    @property
    def passes(self) -> int:
        """Consecutive passes that count toward a stalemate (R5)."""
        return self._state.passes

    @property
    def board(self) -> NDArray[np.int8]:
        """The board as a 10x10 ``numpy.int8`` array (a copy); -1 empty, 0/1/2 a team's chip, 3 corner."""
        return self._state.board()

    def _hand_ids(self, player: int) -> List[int]:
        return self._state.hand(player)

    def _discard_ids(self, player: int) -> List[int]:
        return self._state.discards(player)

    def _cell_code(self, index: int) -> int:
        return self._state.cell(index)

    def _is_locked(self, index: int) -> bool:
        return self._state.locked(index)

    def _sequence_list(self) -> List[Tuple[int, Tuple[int, ...]]]:
        return [(t, tuple(cells)) for t, cells in self._state.sequences()]

    def _last_draw(self) -> Optional[Tuple[int, int]]:
        last = self._state.to_position()["last_draw"]
        return None if last is None else (last[0], last[1])

    # ---------------------------------------------------------------- moves
    def _legal_moves(self) -> List[Move]:
        return self._state.legal_move_objects(move_from_id)  # the core keeps each id's Move

    def _apply(self, move: Move) -> None:
        move_id = _ID_BY_MOVE.get(move)  # resolved moves come from _legal_moves: always cached
        if move_id is None:  # pragma: no cover - defensive
            move_id = next(i for i in self._state.legal_moves() if move_from_id(i) == move)
        self._state.play(move_id)

    def play(self, move: Union[Move, str]) -> None:
        """Play a move (a ``Move`` or its text) for the current player (see ``GameBase.play``).

        A ``Move`` that names a legal move exactly (as ``legal_moves()`` lists it) goes straight
        to the core, which checks it; anything else (text, a placement without its declares, an
        illegal move for the error message) takes the general path.
        """
        move_id = _ID_BY_MOVE.get(move) if type(move) is Move else None
        if move_id is None or not self._play_id(move_id):
            GameBase.play(self, move)

    # ---------------------------------------------------------------- fast paths (no Move objects)
    def legal_move_ids(self) -> List[int]:
        """The legal moves as core move ids (docs/notation.md "Move ids"), in ``legal_moves()`` order.

        >>> g = Game(players=2, seed=1)
        >>> [move_from_id(i) for i in g.legal_move_ids()] == g.legal_moves()
        True
        """
        return self._state.legal_moves()

    def play_id(self, move_id: int) -> None:
        """Play a core move id; ``IllegalMoveError`` (game unchanged) if it is not legal now.

        >>> g = Game(players=2, seed=1)
        >>> g.play_id(g.legal_move_ids()[0]); g.turn
        1
        """
        if not self._play_id(move_id):  # TypeError for a non-int
            move = move_from_id(move_id)  # InvalidMoveError (a ValueError) unless a move's id
            GameBase.play(self, move)  # raises IllegalMoveError with the reason
            raise AssertionError("unreachable")  # pragma: no cover

    def _play_id(self, move_id: int) -> bool:
        """Plays move_id if legal (True), else False with nothing changed; the GameBase protocol."""
        with self._exclusive:
            if not self._state.try_play(move_id):
                return False
            self._version += 1  # with _changed()'s: the seqlock's two steps (try_play is one C++ call)
            self._changed()
            return True

    def legal_mask(self) -> NDArray[np.bool_]:
        """A ``numpy`` bool array of ``ACTION_COUNT`` (5253): which actions are legal now, from the
        core (docs/action-space.md; see ``GameBase.legal_mask``).

        >>> g = Game(players=2, seed=1)
        >>> m = g.legal_mask(); m.shape, int(m.sum()) == len({action_of_move_id(i) for i in g.legal_move_ids()})
        ((5253,), True)
        """
        return self._state.legal_action_mask(self._pending)

    def legal_actions(self) -> List[int]:
        """The legal actions now, ascending (docs/action-space.md), from the core."""
        return self._state.legal_actions(self._pending)

    def _resolve_action(self, action: int) -> Optional[Tuple[str, int]]:
        return self._state.resolve_action(action, self._pending)

    def play_action(self, action: int) -> None:
        """Play one action of docs/action-space.md (see ``GameBase.play_action``); the core resolves it.

        >>> g = Game(players=2, seed=1)
        >>> g.play_action(g.legal_actions()[0]); g.turn
        1
        """
        resolved = self._state.resolve_action(action, self._pending)  # TypeError/ValueError for a bad action
        if resolved is not None and resolved[0] == "move" and self._play_id(resolved[1]):
            return
        self._play_resolved_action(action, resolved)

    def observation_tensor(self, player: int, out: Optional[NDArray[np.float32]] = None) -> NDArray[np.float32]:
        """``player``'s observation (docs/observation.md) as ``float32``, written by the core into a
        new array or into ``out`` (no copy); only what that player may see (R9)."""
        return self._state.observation_tensor(self._check_player(player), self._pending, out)

    def _undo(self) -> HistoryEntry:
        change = self._state.undo()
        move = _MOVES_BY_ID.get(change) if type(change) is int else None  # a move seen before: the common case
        return move if move is not None else _history_entry(change)

    def _history(self) -> List[HistoryEntry]:
        return [_history_entry(c) for c in self._state.history()]

    def _history_size(self) -> int:
        return self._state.history_size

    def _table_talk_penalty(self, team: int, cards: Dict[int, int]) -> None:
        self._state.table_talk_penalty(team, cards)

    def _missed_draw(self, player: int) -> None:
        self._state.missed_draw(player)

    def _copy(self) -> Self:
        return type(self)._wrap(self._state.copy())
