"""Changes of a table's game: play, undo, resign, reveal, join, and the commit every change goes
through (the database first, then memory, then everyone is told)."""

from __future__ import annotations

import asyncio
import inspect
import logging
import secrets
import time
from typing import Any, Awaitable, Callable, Dict, FrozenSet, List, Optional, Tuple, TypeVar, Union

from ...gamebase import GameBase, GameClass
from ...move import Move
from ...records import GameRecord, aborted_result, resignation_result, utc_now
from ...referee import HistoryEntry
from ...seeds import fresh_seed
from ..errors import NotNowError, NotSavedError
from ..store import StoreError, TableStore
from .opening import can_abort, check_abort
from .table import Next, Seat, Table, token_hash
from .views import shown_seat

__all__ = ["Changes", "record_for"]

log = logging.getLogger("sequence_game.web")
_R = TypeVar("_R")
Db = Callable[..., Awaitable[Any]]


def record_for(table: Table, game: GameBase, prefix: Optional[List[HistoryEntry]] = None,
               redeals: Optional[List[Dict[str, Any]]] = None, resigned: Optional[int] = None,
               timeouts: int = 0, aborted: Optional[Dict[str, Any]] = None) -> GameRecord:
    """``game``'s record (moves and result) with the table's agents and start time; the finish
    time is set when the game ends (and cleared by an undo). ``prefix`` and ``redeals``: the
    history before the game's own and the redeals after undos (default: the table's);
    ``resigned``: the seat that resigned (the result then says so); ``timeouts``: how many of the
    last entries the time control's AI played (the record's ``timeouts`` keeps such moves, dropping
    those an undo took back); ``aborted``: the game was aborted (``{"seat", "why"}``, opening.py)."""
    rec = table.record
    prefix = table.prefix if prefix is None else prefix
    redeals = rec.redeals if redeals is None else redeals
    over = game.is_over or resigned is not None or aborted is not None
    finished = (rec.finished or utc_now()) if over else None
    if not redeals:
        new = GameRecord.from_game(game, agents=rec.agents, started=rec.started, finished=finished)
    else:
        new = GameRecord(players=rec.players, teams=rec.teams, seed=rec.seed, max_turns=rec.max_turns,
                         agents=list(rec.agents), moves=[str(e) for e in prefix + game.history],
                         result={"winner": game.winner, "is_draw": bool(game.is_draw), "turns": game.turn}
                         if game.is_over else None, started=rec.started, finished=finished,
                         redeals=[dict(r) for r in redeals])
    if resigned is not None:
        new.resigned, new.result = resigned, resignation_result(game, resigned)
    if aborted is not None:
        new.ending, new.aborted, new.result = "aborted", dict(aborted), aborted_result(game)
    n = len(new.moves)
    new.timeouts = [k for k in rec.timeouts if k <= n - timeouts] + list(range(n - timeouts + 1, n + 1))
    return new


class Changes:
    """Every change of a live table's game. ``tables``: the live tables (a change is made only to
    the table in memory); ``db(call, *args)``: a store call off the event loop; ``changed(table)``:
    runs after every stored change; ``broadcast(table)``: tells everyone of a change that is not
    of the game (a reveal, a join)."""

    def __init__(self, store: TableStore, tables: Dict[str, Table], game_class: GameClass, db: Db,
                 changed: Callable[[Table], None], broadcast: Callable[[Table], None],
                 on_over: Optional[Callable[[Table], None]] = None) -> None:
        self.store, self.tables, self.game_class, self.db = store, tables, game_class, db
        self._changed, self._broadcast = changed, broadcast
        #: called (in a worker thread) once a game is over and stored, before anyone is told: the
        #: club files it and changes the ratings (web/club)
        self.on_over = on_over

    def check_live(self, table: Table) -> None:
        if table.over:
            raise NotNowError("the game is over")
        if self.tables.get(table.id) is not table:
            raise NotNowError("this table is not being played")

    @staticmethod
    def check_seated(table: Table) -> None:
        """A table waits for its players: no move (nor AI move, nor turn timer) while a seat is open."""
        free = [str(p) for p, s in enumerate(table.seats) if s.open]
        if free:
            raise NotNowError(f"the table is waiting for players: seat{'s' if len(free) > 1 else ''} "
                              f"{', '.join(free)} (counted from 0) {'are' if len(free) > 1 else 'is'} open; "
                              "play starts once every seat is taken")

    async def change(self, table: Table, make: Callable[[], Union[Next[_R], Awaitable[Next[_R]]]]) -> _R:
        """Make one change of ``table``'s game: ``make()`` checks the request and returns the new
        game (a changed copy), its movers and the answer. The new record is written first; only
        once the database has it does the table take the new game, so a refused write (a full
        disk) leaves the table exactly as it was (game, history, version) and answers 503.

        One change of a table at a time (``table.lock``); the write runs off the event loop and is
        shielded, so a caller that goes away mid-write cannot leave memory and disk apart."""

        async def run() -> _R:
            async with table.lock:
                made = make()
                nxt = await made if inspect.isawaitable(made) else made
                try:
                    await self._commit(table, nxt)
                except StoreError as e:
                    log.error("table %s: a change the database did not store was not made: %s", table.id, e)
                    raise NotSavedError(f"the server could not save this ({e}); nothing changed, try again in a "
                                        "moment") from None
                return nxt.answer

        task = asyncio.ensure_future(run())
        task.add_done_callback(_retrieve)
        return await asyncio.shield(task)

    async def _commit(self, table: Table, nxt: Next[Any]) -> None:
        """Write ``nxt`` as ``table``'s next version, then make it the table's game (call with
        ``table.lock`` held). Raises StoreError, with the table unchanged, if the write fails."""
        game = nxt.game
        record = record_for(table, game, nxt.prefix, nxt.redeals, nxt.resigned, nxt.timeouts, nxt.aborted)
        version = table.version + 1
        await self.db(self.store.update_game, table.id, record.to_dict(), version, record.result is not None,
                      utc_now())
        table.game, table.movers, table.prefix, table.record = game, nxt.movers, list(nxt.prefix), record
        table.version = version
        table.changed_at = time.monotonic()
        if table.over and self.on_over is not None:
            try:
                await self.db(self.on_over, table)
            except Exception:  # the game stands; only its filing failed
                log.exception("table %s: the finished game could not be filed for its players", table.id)
        self._changed(table)

    async def play(self, table: Table, seats: FrozenSet[int], text: str,
                   expected_version: Optional[int] = None) -> Move:
        """Play ``text`` for the seat to move, if ``seats`` holds it. ``expected_version``: refuse
        (409) if the table changed since the client saw it, so a repeated click never plays twice.
        The move and its write to the database are one change: if the database refuses the write,
        the answer is a 503 and nothing was played."""

        def make() -> Next[Move]:
            g = table.game
            self.check_live(table)
            self.check_seated(table)
            if expected_version is not None and expected_version != table.version:
                raise NotNowError(
                    f"the table changed since you saw it (version {expected_version}, now {table.version}); "
                    "look at the board again")
            p = g.current_player
            if p not in seats:
                raise NotNowError(f"it is not your turn: {table.seats[p].name} (seat {p}) is to move")
            if table.options.hot_seat and shown_seat(table, seats) != p:
                raise NotNowError("show your hand first (hot seat): press the 'show my hand' button")
            move = g.parse_move(text)  # IllegalMoveError / InvalidMoveError with the engine's message
            game = g.copy()
            game.play(move)
            table.used = True
            return Next(game, [*table.movers, p], table.prefix, table.record.redeals, move)

        return await self.change(table, make)

    async def undo(self, table: Table, seats: FrozenSet[int]) -> int:
        """Take back the last move of ``seats`` and every AI move after it (games against the AI
        only). Returns how many moves were taken back. Like a move, an undo the database does not
        store is not made (503)."""

        async def make() -> Next[int]:
            self.check_live(table)
            if not table.undo_allowed():
                raise NotNowError("undo is only for games against the AI (one human at the table)")
            target = table.undo_target(seats)
            if target is None:
                raise NotNowError("nothing to undo: you have not moved yet")
            # Taking the moves back would put cards where the undoing player knows them (its draw on
            # top of the pile, the cards the AI played back in the AI's hand): the position is rebuilt
            # from the record and every card the undoing seats cannot see is dealt afresh (R9,
            # Game.redealt), a redeal the record keeps so the game still replays.
            rec = table.record
            redeals = [r for r in rec.redeals if r["at"] < target]
            redeals.append({"at": target, "keep": sorted(seats), "seed": fresh_seed()})
            moves = [str(entry) for _, entry in table.history[:target]]
            base = GameRecord(players=rec.players, teams=rec.teams, seed=rec.seed, max_turns=rec.max_turns,
                              moves=moves, redeals=redeals)
            # a replay of the whole game: in a worker thread (the table's lock is held meanwhile)
            game, history, movers = await asyncio.to_thread(base.rebuild, self.game_class)
            return Next(game, movers, history, redeals, len(table.movers) - target)

        return await self.change(table, make)

    async def resign(self, table: Table, seats: FrozenSet[int], unmoved: bool = False) -> int:
        """A seat of ``seats`` resigns: its team loses at once (two teams only; the record says who
        resigned). Before every first move of a game of people it aborts the game instead
        (``opening.py``: nobody loses then). Returns the seat: the one to move if it is one of
        ``seats``, else the lowest. ``unmoved``: refused (409) if that seat has made a move, looked
        at under the table's lock: a tournament's no-show call may not overtake a first move."""

        def make() -> Next[int]:
            self.check_live(table)
            g = table.game
            seat = g.current_player if g.current_player in seats else min(seats)
            if unmoved and seat in table.movers:
                raise NotNowError(f"seat {seat} has moved: it is not a no-show")
            if can_abort(table):  # before every first move nobody loses: resigning aborts (as on lichess)
                table.used = True
                return Next(g.copy(), list(table.movers), table.prefix, table.record.redeals, seat,
                            aborted={"seat": seat, "why": "abort"})
            if g.teams != 2:
                raise NotNowError("resigning is for two-team games: with three teams the game would go on "
                                  "without a team, so it is played out")
            table.used = True
            return Next(g.copy(), list(table.movers), table.prefix, table.record.redeals, seat, resigned=seat)

        return await self.change(table, make)

    async def abort(self, table: Table, seats: FrozenSet[int]) -> int:
        """A person (``seats``) aborts the game before every human seat made its first move
        (``opening.py``): nobody wins or loses. Returns the seat: the one to move if it is one of
        ``seats``, else the lowest."""

        def make() -> Next[int]:
            self.check_live(table)
            check_abort(table)
            g = table.game
            seat = g.current_player if g.current_player in seats else min(seats)
            table.used = True
            return Next(g.copy(), list(table.movers), table.prefix, table.record.redeals, seat,
                        aborted={"seat": seat, "why": "abort"})

        return await self.change(table, make)

    def reveal(self, table: Table, seats: FrozenSet[int]) -> None:
        """Hot seat: the human to move shows their hand on the shared screen."""
        g = table.game
        self.check_live(table)
        if g.current_player not in seats:
            raise NotNowError("it is not your turn: the hand to show belongs to the seat to move")
        table.revealed = (g.current_player, g.turn)
        self._broadcast(table)

    async def join(self, table: Table, seat: Optional[int] = None, name: Optional[str] = None,
                   account: Optional[Tuple[str, str]] = None) -> Tuple[int, str]:
        """Take an open seat (``seat``, or the first one): returns it and its new token, which only
        this answer carries. The seat is then an ordinary human seat, its link secret like any.
        ``account``: the (key, name) signed in, recorded on the seat (web/club); at a rated table an
        account takes one seat only."""
        async with table.lock:
            self.check_live(table)
            free = [p for p, s in enumerate(table.seats) if s.open]
            if not free:
                raise NotNowError("this table has no open seat left")
            if seat is None:
                seat = free[0]
            elif seat not in free:
                raise NotNowError(f"seat {seat} is not open; the open seats (counted from 0) are "
                                  + ", ".join(str(p) for p in free))
            if account is not None and table.options.rated and any(s.account == account[0] for s in table.seats):
                raise NotNowError("you already hold a seat at this rated table: an account plays one seat")
            token = secrets.token_urlsafe(24)
            old = table.seats[seat]
            new_seats = list(table.seats)
            new_seats[seat] = (Seat("human", None, account[1], token_hash(token), account=account[0]) if account
                               else Seat("human", None, name or f"Player {seat + 1}", token_hash(token)))
            try:
                await self.db(self.store.set_seats, table.id, [s.to_dict() for s in new_seats], utc_now())
            except StoreError as e:
                log.error("table %s: a join the database did not store was not made: %s", table.id, e)
                raise NotSavedError(f"the server could not save this ({e}); the seat is still open, try again") from None
            assert old.open
            table.seats = new_seats
            table.used = True
            table.changed_at = time.monotonic()
        self._broadcast(table)
        return seat, token


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Mark a shielded change's outcome as seen when its caller went away (no "never retrieved")."""
    if not task.cancelled():
        task.exception()
