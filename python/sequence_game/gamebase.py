"""``GameBase``: the public ``Game`` API on top of a small set of rule primitives.

Two classes implement the primitives: ``sequence_game.Game`` (over the compiled core) and
``sequence_game.reference.Game`` (plain Python). Everything users touch that is not a rule lives
here once: argument checking, move parsing, the messages of illegal moves, the state format, the
observation, the referee calls' checks, text rendering. So both implementations accept the same
input and fail with the same errors by construction.

A backend implements (``pos`` is a ``position.Position``; cards are ids, cells indices ``10*r+c``)::

    __init__(players, teams, seed, max_turns)   deal a new game; call GameBase.__init__(self)
    _from_position(cls, pos) -> Game             classmethod: a game in that (validated) position
    _position() -> Position                      the whole state
    players teams current_player dealer turn seed max_turns is_over winner is_draw
    draw_pile_size traded_this_turn passes       read-only properties
    _hand_ids(p) _discard_ids(p) -> list[int]
    _cell_code(index) -> int                     -1 empty, 0..2 team chip, 3 corner
    _is_locked(index) -> bool
    _sequence_list() -> list[(team, cells)]
    _last_draw() -> (player, card) | None
    _legal_moves() -> list[Move]                  docs/notation.md order; [] when over
    _apply(move)                                   move is one of _legal_moves(); recorded in the history
    _table_talk_penalty(team, {player: card})     checked here first; recorded in the history
    _missed_draw(player)                          checked here first; recorded in the history
    _history() -> list[HistoryEntry]              every change since the deal or the loaded position
    _history_size() -> int
    _undo() -> HistoryEntry                        take back the last change and return it
    _copy() -> Game                                history included
"""

from __future__ import annotations

import threading
from itertools import islice
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Protocol, Tuple, TypeVar, Union

from ._args import plain_int
from .cards import (
    BOARD_LAYOUT,
    CARD_IDS,
    CARD_NAMES,
    TWO_EYED_JACKS,
    Cell,
    cell_name,
    cells_of,
    check_cell,
    is_corner,
    parse_card,
)
from .errors import AmbiguousMoveError, IllegalMoveError, short_repr
from .game_setup import TEAM_LETTERS, TEAM_NAMES, sequences_to_win
from .move import Move, as_move
from .position import Position, observation_dict, position_from_dict, position_to_dict
from .referee import HistoryEntry

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray
    from typing_extensions import Self


# Thread safety (docs/hardening.md): a Game is not shared between threads. Calls that change the
# game or its move caches (play, undo, the referee calls, legal_moves, is_legal, parse_move) take
# a non-blocking lock and raise this RuntimeError when another thread is inside one of them, so
# misuse fails loudly instead of corrupting the game; to_dict() raises it rather than return a
# snapshot torn by a concurrent change (a seqlock on ``_version``). Cost: ~0.3 us per play().
_T = TypeVar("_T")
_BUSY = "this Game is being changed by another thread; use one Game per thread or lock it"


def _busy() -> RuntimeError:
    return RuntimeError(_BUSY)


class _Exclusive:
    """``with game._exclusive:`` around every call that changes a game or its caches: a
    non-blocking lock that raises the RuntimeError above instead of waiting."""

    __slots__ = ("_acquire", "release")

    def __init__(self, lock: threading.Lock) -> None:
        self._acquire = lock.acquire
        self.release = lock.release

    def __enter__(self) -> None:
        if not self._acquire(False):
            raise _busy()

    def __exit__(self, *exc: object) -> None:
        self.release()


class GameBase:
    """The public ``Game`` API shared by the core and the reference (see docs/api.md).

    Not thread-safe: use one ``Game`` per thread (or your own lock). Concurrent use from two
    threads raises ``RuntimeError`` rather than corrupting the game (docs/hardening.md).
    """

    if TYPE_CHECKING:  # what a backend provides (the module docstring), declared for editors and mypy
        @property
        def players(self) -> int: ...
        @property
        def teams(self) -> int: ...
        @property
        def current_player(self) -> int: ...
        @property
        def dealer(self) -> int: ...
        @property
        def turn(self) -> int: ...
        @property
        def seed(self) -> Optional[int]: ...
        @property
        def max_turns(self) -> Optional[int]: ...
        @property
        def is_over(self) -> bool: ...
        @property
        def winner(self) -> Optional[int]: ...
        @property
        def is_draw(self) -> bool: ...
        @property
        def draw_pile_size(self) -> int: ...
        @property
        def traded_this_turn(self) -> bool: ...
        @property
        def passes(self) -> int: ...

        @classmethod
        def _from_position(cls, pos: Position) -> Self: ...
        def _position(self) -> Position: ...
        def _hand_ids(self, player: int) -> List[int]: ...
        def _discard_ids(self, player: int) -> List[int]: ...
        def _cell_code(self, index: int) -> int: ...
        def _is_locked(self, index: int) -> bool: ...
        def _sequence_list(self) -> List[Tuple[int, Tuple[int, ...]]]: ...
        def _last_draw(self) -> Optional[Tuple[int, int]]: ...
        def _legal_moves(self) -> List[Move]: ...
        def _apply(self, move: Move) -> None: ...
        def _undo(self) -> HistoryEntry: ...
        def _history(self) -> List[HistoryEntry]: ...
        def _history_size(self) -> int: ...
        def _table_talk_penalty(self, team: int, cards: Dict[int, int]) -> None: ...
        def _missed_draw(self, player: int) -> None: ...
        def _copy(self) -> Self: ...

    def __init__(self, from_deal: bool = False) -> None:
        self._guard = threading.Lock()  # held by play/undo/referee calls/legal-move cache fills
        self._exclusive = _Exclusive(self._guard)
        self._from_deal = from_deal  # the history starts at the deal (not at a loaded position)
        # after redealt(): the seed, moves and redeals from the deal to this game's own history, so
        # that GameRecord.from_game can still record the whole game (records.py)
        self._origin: Optional[Dict[str, Any]] = None
        self._version = 0  # +1 before and +1 after every change: odd while one is under way
        self._legal_cache: Optional[List[Move]] = None
        self._legal_lookup: Optional[Dict[Move, Move]] = None
        self._placements: Optional[Dict[Tuple[Optional[str], Optional[Cell]], List[Move]]] = None
        self._pending: Optional[int] = None  # a placement waiting for its declare actions (docs/action-space.md)

    # ------------------------------------------------------------------ construction, state format

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> Self:
        """A game in the position ``d`` (a ``to_dict()``-style dict, docs/state-format.md).

        Omitted optional fields take their defaults; an inconsistent position is refused with a
        ``ValueError`` (``TypeError`` for a wrong type) naming the field.

        >>> import sequence_game
        >>> g = sequence_game.Game.from_dict({"players": 2, "hands": [["7H"], ["JD"]]})
        >>> g.hand(0), g.draw_pile_size
        (['7H'], 102)
        """
        return cls._from_position(position_from_dict(d))

    def to_dict(self) -> Dict[str, Any]:
        """The whole state as plain JSON-able data (docs/state-format.md)."""
        version = self._version  # odd while a change is under way (a seqlock)
        d = position_to_dict(self._position())
        if version & 1 or version != self._version:
            raise _busy()
        return d

    def observation(self, player: int) -> Dict[str, Any]:
        """What ``player`` may see (R9): ``to_dict()`` with other hands and the draw pile as sizes."""
        return observation_dict(self.to_dict(), self._check_player(player))

    def redealt(self, keep: Iterable[int], seed: Optional[int] = None) -> Self:
        """This position with every card the seats ``keep`` cannot see dealt afresh (R9): the
        hands of the other seats and the draw pile are gathered, shuffled with ``seed`` (``None``:
        a fresh one from the operating system) and dealt back, every hand keeping its size. The
        board, the discards, the hands of ``keep`` and every public count are unchanged, so the
        seats ``keep`` see exactly what they saw (``observation`` is equal) and know nothing more
        about the hidden cards than anyone who sees only this position. The generator continues
        from the redeal's, so later reshuffles of the discards (R6) are fresh too.

        What an undo needs (docs/rules.md, R9 and undo): taking back moves puts cards back where
        the undoing player knows them (its draw on top of the pile, the cards the others played
        back in their hands); a redeal after the undo forgets that knowledge. The new game starts
        with an empty history; ``GameRecord.from_game`` still records it from the deal (the moves
        before the redeal and the redeal, its seed included, go with the new game and its copies,
        not with a pickle or ``to_dict``). The order is docs/rng.md's: the gathered cards sorted by id,
        SplitMix64(seed) shuffles them, then the other seats' hands in seat order, the rest the
        draw pile from its top.

        >>> import sequence_game
        >>> g = sequence_game.Game(players=2, seed=3)
        >>> r = g.redealt([0], seed=1)
        >>> r.observation(0) == g.observation(0), r.hand(1) == g.hand(1)
        (True, False)
        """
        from ._args import check_seed
        from .reference.rng import SplitMix64
        from .seeds import fresh_seed

        kept = {self._check_player(p) for p in keep}
        checked = check_seed(seed)
        used = fresh_seed() if checked is None else checked
        rng = SplitMix64(used)
        d = self.to_dict()
        others = [p for p in range(self.players) if p not in kept]
        # sorted first: the order the cards were in must not show through the shuffle
        pool = sorted([CARD_IDS[c] for p in others for c in d["hands"][p]] + [CARD_IDS[c] for c in d["draw_pile"]])
        rng.shuffle(pool)
        at = 0
        last = d.get("last_draw")
        for p in others:
            n = len(d["hands"][p])
            if last is not None and last["player"] == p:  # who drew last is public, the card is not:
                if n:
                    last["card"] = CARD_NAMES[pool[at + n - 1]]  # the last card dealt to that hand
                else:
                    d["last_draw"] = None
            d["hands"][p] = [CARD_NAMES[c] for c in sorted(pool[at:at + n])]
            at += n
        d["draw_pile"] = [CARD_NAMES[c] for c in pool[at:]]
        d["rng"] = f"{rng.state:016x}"
        game = type(self).from_dict(d)
        game._origin = self._redeal_origin(sorted(kept), used)
        return game

    def _redeal_origin(self, keep: List[int], seed: int) -> Optional[Dict[str, Any]]:
        """How a game redealt from this one comes from its deal: the first seed, every history entry
        before the redeal (this game's own after its origin's) and the redeals, the new one last.
        None when this game does not come from a deal."""
        origin = self._origin
        if origin is None and not self._from_deal:
            return None
        moves = [*(origin["moves"] if origin else []), *(str(entry) for entry in self.history)]
        redeals = [*(origin["redeals"] if origin else []), {"at": len(moves), "keep": keep, "seed": seed}]
        return {"seed": origin["seed"] if origin else self.seed, "moves": moves, "redeals": redeals}

    def copy(self) -> Self:
        """An independent deep copy (history and a pending placement included)."""
        game = self._copy()
        game._pending = self._pending
        game._from_deal = self._from_deal
        game._origin = self._origin
        return game

    __copy__ = copy

    def __deepcopy__(self, memo: Dict[int, object]) -> Self:
        return self.copy()

    def __getstate__(self) -> Dict[str, Any]:
        return self.to_dict()

    def __setstate__(self, state: Dict[str, Any]) -> None:
        other = type(self).from_dict(state)
        self.__dict__.update(other.__dict__)

    # ------------------------------------------------------------------ queries

    def team_of(self, player: int) -> int:
        """The team of a seat: ``player mod teams`` (R2)."""
        return self._check_player(player) % self.teams

    def hand(self, player: int) -> List[str]:
        """A player's cards in canonical order (by rank, then suit S H D C)."""
        return [CARD_NAMES[c] for c in self._hand_ids(self._check_player(player))]

    def discards(self, player: int) -> List[str]:
        """A player's discard pile, oldest first (public, R9)."""
        return [CARD_NAMES[c] for c in self._discard_ids(self._check_player(player))]

    def cell(self, cell: Union[Cell, str]) -> str:
        """``"*"`` corner, ``"."`` empty, ``"B"``/``"G"``/``"R"`` for a chip of team 0/1/2."""
        r, c = check_cell(cell)
        return ".BGR*"[self._cell_code(10 * r + c) + 1]

    def locked(self, cell: Union[Cell, str]) -> bool:
        """Whether the chip on ``cell`` belongs to a completed sequence (R7): such a chip can never be removed."""
        r, c = check_cell(cell)
        return self._is_locked(10 * r + c)

    @property
    def board(self) -> NDArray[np.int8]:
        """The board as a 10x10 ``numpy.int8`` array (a copy); -1 empty, 0/1/2 a team's chip, 3 corner."""
        import numpy as np

        return np.array([self._cell_code(i) for i in range(100)], dtype=np.int8).reshape(10, 10)

    @property
    def sequences(self) -> List[Tuple[int, Tuple[Cell, ...]]]:
        """Completed sequences as ``(team, five cells sorted)``, in the order they were formed."""
        return [(t, tuple((i // 10, i % 10) for i in cells)) for t, cells in self._sequence_list()]

    def legal_moves(self) -> List[Move]:
        """Every legal move of the current player in the documented order; ``[]`` once over.

        With no legal play: the open dead-card trades plus one ``pass`` (R5).
        """
        with self._exclusive:
            return list(self._cached_legal())

    def is_legal(self, move: Union[Move, str]) -> bool:
        """Whether ``move`` (a Move or its text) may be played now, ``declares`` filled in or not."""
        with self._exclusive:
            try:
                self._resolve(as_move(move))
            except ValueError:
                return False
        return True

    # ------------------------------------------------------------------ play

    def play(self, move: Union[Move, str]) -> None:
        """Play a move (a ``Move`` or its text) for the current player.

        Raises ``IllegalMoveError`` (a ``ValueError``) saying why the move is not allowed, or
        ``InvalidMoveError`` for malformed text; the game is unchanged after any error.
        A placement written without ``declares`` is completed when only one choice exists (R7).
        """
        with self._exclusive:
            self._change(self._apply, self._resolve(as_move(move)))

    def parse_move(self, text: Union[str, Move]) -> Move:
        """The legal move that ``text`` names here, with ``declares`` filled in when unambiguous."""
        with self._exclusive:
            return self._resolve(as_move(text))

    def undo(self) -> HistoryEntry:
        """Take back the last change, a move (trade and pass included) or a referee call, and return
        it (the last entry of :attr:`history`).

        >>> import sequence_game
        >>> g = sequence_game.Game(players=2, seed=1)
        >>> move = g.legal_moves()[0]; g.play(move)
        >>> g.undo() == move, g.history
        (True, [])
        """
        with self._exclusive:
            if self._history_size() == 0:
                raise ValueError("nothing to undo: the game is at its deal (or was loaded with from_dict)")
            self._version += 1  # (the steps of _change, inline: undo is on the search loops' path)
            try:
                return self._undo()
            finally:
                self._changed()

    # ------------------------------------------------------------------ history

    @property
    def history(self) -> List[HistoryEntry]:
        """Every change since the deal, oldest first: the moves (``Move``, trades and passes
        included) and the referee calls (``referee.TableTalkPenalty``, ``referee.MissedDraw``).

        Each entry is what :meth:`undo` takes back. A game loaded with ``from_dict`` (or unpickled)
        starts with an empty history. A new list each time.

        >>> import sequence_game
        >>> g = sequence_game.Game(players=2, seed=1)
        >>> g.play(g.legal_moves()[0]); g.missed_draw(1)
        >>> [str(e) for e in g.history]
        ['2S@b1', 'missed-draw 1']
        """
        return self._history()

    @property
    def moves(self) -> List[Move]:
        """The moves played since the deal, oldest first (trades and passes included; referee calls
        are in :attr:`history`), like python-chess's ``move_stack``. A new list each time."""
        return [e for e in self._history() if isinstance(e, Move)]

    @property
    def last_move(self) -> Optional[Move]:
        """The most recent move of :attr:`history`, or None before the first (or after loading)."""
        for entry in reversed(self._history()):
            if isinstance(entry, Move):
                return entry
        return None

    # ------------------------------------------------------------------ the action space

    def legal_mask(self) -> NDArray[np.bool_]:
        """A ``numpy`` bool array of ``ACTION_COUNT`` (5253): which actions are legal now.

        The fixed action space of docs/action-space.md: ``card_id * 100 + cell`` places (a one-eyed
        jack removes) on ``cell``; ``5200 + card_id`` trades a dead card; ``5252`` passes; while a
        placement waits for its sequences (``pending_placement``), only its declare actions.

        >>> import sequence_game
        >>> g = sequence_game.reference.Game(players=2, seed=1)
        >>> m = g.legal_mask(); m.shape, int(m.sum()) == len(g.legal_actions())
        ((5253,), True)
        """
        import numpy as np

        from .actions import ACTION_COUNT

        mask = np.zeros(ACTION_COUNT, dtype=bool)
        mask[self.legal_actions()] = True
        return mask

    def legal_actions(self) -> List[int]:
        """The legal actions now, ascending (docs/action-space.md)."""
        from .actions import legal_actions, move_id

        return legal_actions([move_id(m) for m in self.legal_moves()], self._pending)

    @property
    def pending_placement(self) -> Optional[Move]:
        """The placement whose sequences the player is choosing with declare actions (R7), with
        the sequences chosen so far, or None. Any change to the game (``play``, ``undo``, a
        referee call) drops it; ``to_dict()`` does not record it."""
        if self._pending is None:
            return None
        from .actions import move_from_id

        return move_from_id(self._pending)

    def play_action(self, action: int) -> None:
        """Play one action of docs/action-space.md for the current player.

        A move that needs no more actions is played at once; a placement with a choice of
        sequences (R7) waits in ``pending_placement`` for its declare actions, the game unchanged.
        ``IllegalMoveError`` (nothing changed) if the action is not legal now; ``TypeError`` /
        ``ValueError`` for a non-int or out-of-range action.
        """
        from .actions import ACTION_COUNT

        number = plain_int(action)
        if number is None:
            raise TypeError(f"action must be an int, not {type(action).__name__} {short_repr(action)}")
        if not 0 <= number < ACTION_COUNT:
            raise ValueError(f"action {short_repr(number)} out of range 0..{ACTION_COUNT - 1} (docs/action-space.md)")
        self._play_resolved_action(number, self._resolve_action(number))

    def _resolve_action(self, action: int) -> Optional[Tuple[str, int]]:
        from .actions import move_id, resolve_action

        return resolve_action([move_id(m) for m in self.legal_moves()], self._pending, action)

    def _play_resolved_action(self, action: int, resolved: Optional[Tuple[str, int]]) -> None:
        if resolved is None:
            from .actions import describe_action

            legal = self.legal_actions()
            raise IllegalMoveError(
                f"action {action} ({describe_action(action)}) is not legal now"
                + (f" while {self.pending_placement} waits for its sequences" if self._pending is not None else "")
                + f"; legal: {', '.join(f'{a} ({describe_action(a)})' for a in legal[:6])}"
                + ("..." if len(legal) > 6 else "") + " (docs/action-space.md)"
            )
        kind, value = resolved
        if kind == "pending":
            self._pending = value
        else:
            from .actions import move_from_id

            self.play(move_from_id(value))

    def observation_tensor(self, player: int, out: Optional[NDArray[np.float32]] = None) -> NDArray[np.float32]:
        """``player``'s observation as a ``float32`` array (docs/observation.md): only what that
        player may see (R9), team-relative. ``out``: an array of that shape to write into."""
        import numpy as np

        from .observation import OBSERVATION_SIZE, write_observation

        player = self._check_player(player)
        if out is None:
            out = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        elif not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != (OBSERVATION_SIZE,):
            raise TypeError(f"out must be a numpy float32 array of shape ({OBSERVATION_SIZE},)")
        write_observation(self, player, self._pending, out)
        return out

    # ------------------------------------------------------------------ referee calls (R10)

    def table_talk_penalty(self, team: int, cards: Dict[int, str]) -> None:
        """R10 table talk: every member of ``team`` discards the named card; nobody draws.

        ``cards`` maps each member's seat to a card in that member's hand.
        """
        with self._exclusive:
            self._table_talk_penalty_locked(team, cards)

    def _table_talk_penalty_locked(self, team: int, cards: Dict[int, str]) -> None:
        self._check_going("a table-talk penalty")
        number = plain_int(team)
        if number is None:
            raise TypeError(f"team must be an int, not {short_repr(team)}")
        team = number
        if not 0 <= team < self.teams:
            raise ValueError(f"team {short_repr(team)} does not exist: teams are 0..{self.teams - 1}")
        if not isinstance(cards, dict):
            raise TypeError("cards must be a dict {player: card} naming one card for each member of the team")
        members = [p for p in range(self.players) if p % self.teams == team]
        given = list(islice(dict.items(cards), len(members) + 1))  # the plain items: subclasses may lie
        seats = [plain_int(k) for k, _ in given]
        if dict.__len__(cards) != len(members) or None in seats or set(seats) != set(members):
            raise ValueError(
                f"table_talk_penalty needs one card from each member of team {team}: players {members}, "
                f"got players {', '.join(sorted(short_repr(k) for k, _ in given))}"
                + (" ..." if dict.__len__(cards) > len(given) else "")
            )
        cards = dict(zip([s for s in seats if s is not None], (v for _, v in given)))  # no None: checked above
        ids = {}
        for p in members:
            card = parse_card(cards[p])
            if CARD_IDS[card] not in self._hand_ids(p):
                raise ValueError(f"player {p} does not hold {card}: their hand is {' '.join(self.hand(p)) or 'empty'}")
            ids[p] = CARD_IDS[card]
        self._change(self._table_talk_penalty, team, ids)

    def missed_draw(self, player: int) -> None:
        """R10 loss of a card: ``player``'s most recent draw goes back on top of the draw pile."""
        with self._exclusive:
            self._missed_draw_locked(player)

    def _missed_draw_locked(self, player: int) -> None:
        self._check_going("a missed-draw penalty")
        player = self._check_player(player)
        last = self._last_draw()
        if last is None or last[0] != player:
            who = "nobody" if last is None else f"player {last[0]}"
            raise ValueError(
                f"player {player} has no draw to take back: the most recent draw that may still be missed "
                f"was by {who} (R10: only the last player to draw, before anyone draws again)"
            )
        self._change(self._missed_draw, player)

    # ------------------------------------------------------------------ rendering

    def __str__(self) -> str:
        """A text board: card labels on empty cells, ``[B]`` chips, ``(B)`` locked chips."""
        lines = ["     " + "   ".join("abcdefghij")]
        for r in range(10):
            row = []
            for c in range(10):
                code = self._cell_code(10 * r + c)
                if code == 3:
                    row.append(" * ")
                elif code == -1:
                    row.append(" " + BOARD_LAYOUT[r][c])
                else:
                    mark = "()" if self._is_locked(10 * r + c) else "[]"
                    row.append(mark[0] + TEAM_LETTERS[code] + mark[1])
            lines.append(f"{r + 1:>2}  " + " ".join(row))
        lines.append(self._status_line())
        return "\n".join(lines)

    def _status_line(self) -> str:
        # Each property is read once: another thread may play or undo in between (docs/hardening.md),
        # and the line must then describe one of the two positions, not fail.
        teams, winner = self.teams, self.winner
        counts = [0] * teams
        for t, _ in self._sequence_list():
            counts[t] += 1
        seqs = ", ".join(f"{TEAM_NAMES[t]} {n}" for t, n in enumerate(counts))
        if winner is not None:
            state = f"team {winner} ({TEAM_NAMES[winner]}) won"
        elif self.is_draw:
            state = "drawn"
        else:
            p = self.current_player
            state = f"player {p} ({TEAM_NAMES[p % teams]}) to move"
        return f"turn {self.turn} | {state} | sequences: {seqs} (need {sequences_to_win(teams)})"

    def __repr__(self) -> str:
        return (
            f"<{type(self).__module__}.{type(self).__name__} players={self.players} teams={self.teams} "
            f"turn={self.turn} {self._status_line().split(' | ')[1]}>"
        )

    def _repr_svg_(self) -> str:
        """The board as SVG (Jupyter's rich display), the last move of the history outlined."""
        from .svg import board_svg

        return board_svg(self, last_move=self.last_move)

    # ------------------------------------------------------------------ internals

    def _change(self, change: Callable[..., _T], *args: Any) -> _T:
        """Run ``change(*args)``, a change of the game, under the seqlock (``_version`` odd during
        it) and drop the caches; the caller holds ``_exclusive``."""
        self._version += 1
        try:
            return change(*args)
        finally:
            self._changed()

    def _changed(self) -> None:
        self._version += 1
        self._pending = None
        self._legal_cache = None
        self._legal_lookup = None
        self._placements = None

    def _cached_legal(self) -> List[Move]:
        if self._legal_cache is None:
            self._legal_cache = self._legal_moves()
        return self._legal_cache

    def _check_player(self, player: object) -> int:
        number = plain_int(player)
        if number is None:
            raise TypeError(f"player must be an int seat number, not {type(player).__name__} {short_repr(player)}")
        if not 0 <= number < self.players:
            raise ValueError(f"player {short_repr(number)} does not exist: seats are 0..{self.players - 1}")
        return number

    def _check_going(self, what: str) -> None:
        if self.is_over:
            raise ValueError(f"the game is over: {what} no longer applies")

    def _resolve(self, move: Move) -> Move:
        """The legal move ``move`` stands for (declares filled in), or an ``IllegalMoveError``."""
        lookup, placements = self._lookups()
        found = lookup.get(move)
        if found is not None:
            return found
        if move.kind == "place" and not move.declares:
            choices = placements.get((move.card, move.cell), [])
            if len(choices) == 1:
                return choices[0]
            if len(choices) > 1:
                raise AmbiguousMoveError(
                    f"{move}: this placement forms sequences in {len(choices)} ways; choose which (R7): "
                    + ", ".join(str(m) for m in choices)
                )
        raise IllegalMoveError(self._why_illegal(move))

    def _lookups(self) -> Tuple[Dict[Move, Move], Dict[Tuple[Optional[str], Optional[Cell]], List[Move]]]:
        """The legal moves by themselves, and the placements by ``(card, cell)`` (built once a position)."""
        if self._legal_lookup is None or self._placements is None:
            legal = self._cached_legal()
            self._legal_lookup = {m: m for m in legal}
            self._placements = {}
            for m in legal:
                if m.kind == "place":
                    self._placements.setdefault((m.card, m.cell), []).append(m)
        return self._legal_lookup, self._placements

    def _why_illegal(self, move: Move) -> str:
        """A message naming the move, why it is illegal here, and what would be right."""
        if self.is_over:
            return f"{move}: the game is over ({self._status_line().split(' | ')[1]})"
        p = self.current_player
        hand = self.hand(p)
        legal = self._cached_legal()
        plays = [m for m in legal if m.kind in ("place", "remove")]
        if move.kind == "pass":
            return f"pass: player {p} has a legal play ({plays[0]}); passing is only for a turn with none (R5)"
        if move.card not in hand:
            return f"{move}: player {p} does not hold {move.card}; their hand is {' '.join(hand) or 'empty'}"
        if move.kind == "trade":
            if self.traded_this_turn:
                return f"{move}: player {p} already traded a dead card this turn; only one trade a turn (R5)"
            free = [cell_name(x) for x in cells_of(move.card) if self._cell_code(10 * x[0] + x[1]) == -1]
            return f"{move}: {move.card} is not a dead card, {' and '.join(free)} still empty; play it instead (R5)"
        cell = move.cell
        assert cell is not None  # the kinds left, place and remove, have a cell (Move checks it)
        r, c = cell
        code = self._cell_code(10 * r + c)
        where = cell_name(cell)
        if move.kind == "remove":
            if is_corner(cell):
                return f"{move}: {where} is a corner; corners can never be emptied (R5)"
            if code == -1:
                return f"{move}: {where} is empty; a one-eyed jack removes another team's chip (R5)"
            if code == p % self.teams:
                return f"{move}: the chip on {where} is your own team's; a one-eyed jack removes another team's chip (R5)"
            if self._is_locked(10 * r + c):
                return f"{move}: the chip on {where} is part of a completed sequence and cannot be removed (R7)"
        else:
            if move.card not in TWO_EYED_JACKS and move.cell not in cells_of(move.card):
                cells = " or ".join(cell_name(x) for x in cells_of(move.card))
                return f"{move}: {move.card} is printed on {cells}, not on {where} (R5)"
            if is_corner(cell):
                return f"{move}: {where} is a corner; corners never take a chip (R5)"
            if code != -1:
                if move.card not in TWO_EYED_JACKS and all(
                    self._cell_code(10 * x + y) != -1 for x, y in cells_of(move.card)
                ):
                    return f"{move}: both cells of {move.card} are covered; trade it as a dead card (R5)"
                return f"{move}: {where} is already covered; a chip goes on an empty cell (R5)"
            options = self._lookups()[1].get((move.card, move.cell), [])
            if options:
                return (
                    f"{move}: these are not sequences this placement can declare; it must declare as many as it "
                    f"forms, one of: {', '.join(str(m) for m in options)} (R7)"
                )
        return f"{move}: not a legal move here; legal moves include {', '.join(str(m) for m in legal[:6])}"


class GameClass(Protocol):
    """A class of games: ``sequence_game.Game`` or ``sequence_game.reference.Game``.

    What records, matches and the command line need of the class they are given: to deal a new
    game and to load one from ``to_dict()`` data.
    """

    def __call__(self, players: int = 2, teams: Optional[int] = None, seed: Optional[int] = None,
                 max_turns: Optional[int] = None) -> GameBase: ...

    def from_dict(self, d: Dict[str, Any]) -> GameBase: ...
