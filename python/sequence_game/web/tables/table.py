"""A table: its game, seats, typed options and what is live about it (connections, the AI's
search, the turn timer). Data only: the modules beside this one change it."""

from __future__ import annotations

import asyncio
import hashlib
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Dict, FrozenSet, Generic, List, Optional, Set, Tuple, TypeVar

from ...gamebase import GameBase
from ...records import GameRecord
from ...referee import HistoryEntry

__all__ = ["MAX_TURN_SECONDS", "MIN_TURN_SECONDS", "Next", "Seat", "StaleError", "Table", "TableOptions",
           "token_hash"]

_R = TypeVar("_R")

MIN_TURN_SECONDS, MAX_TURN_SECONDS = 10, 86400  # a table's turn timer: from ten seconds to a day
DEFAULT_AI_SECONDS = 2.0


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def epoch(iso: str) -> float:
    """Seconds since the epoch of an ISO 8601 UTC time as the store writes it."""
    return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()


@dataclass
class Seat:
    """One seat: ``kind`` ``"human"`` or ``"ai"``; ``ai`` the preset; ``token_hash`` for humans;
    ``open``: a human seat offered in the lobby, whose token the first person to join it gets;
    ``account``: the account signed in when the seat was taken (web/club; None: a guest)."""

    kind: str
    ai: Optional[str] = None
    name: str = ""
    token_hash: Optional[str] = None
    open: bool = False
    account: Optional[str] = None

    def to_dict(self) -> Dict[str, Any]:
        return {"kind": self.kind, "ai": self.ai, "name": self.name, "token_hash": self.token_hash, "open": self.open,
                "account": self.account}


@dataclass
class TableOptions:
    """What a table was created with (stored as a JSON object beside its record).

    ``hints``: whether a seat may ask the AI for a hint or an analysis (tables stored before the
    option existed allowed them; never at a rated table); ``turn_seconds``: the human seats' turn timer (None: none);
    ``rematch_of``: the table this one is the rematch of; ``rematch``: this table's rematch, once
    made; ``rematch_offer``: an open offer of a rematch (``rematch.py``: ``{"by": seat, "accepted":
    [seats], "expires": epoch seconds, "rated": bool}``), None: none; ``rated``: the game changes its players' ratings (web/club, docs/club.md). ``clock``: a
    game clock per human seat (``clock.py``: ``{"kind": "fischer" or "bank", "seconds",
    "increment", "at_zero": "ai" or "lose"}``), None: none; ``clock_state``: its seats' time left
    and the seat that ran out (``{"left": [...], "flagged": seat or None}``); ``abortable``: a game
    of people may be aborted before every first move, with a first move's grace (``opening.py``;
    a tournament's tables: not, they have their own rule for a player that does not come)."""

    hot_seat: bool = False
    ai_seconds: float = DEFAULT_AI_SECONDS
    hints: bool = True
    turn_seconds: Optional[float] = None
    rematch_of: Optional[str] = None
    rematch: Optional[str] = None
    rematch_offer: Optional[Dict[str, Any]] = None
    rated: bool = False
    clock: Optional[Dict[str, Any]] = None
    clock_state: Optional[Dict[str, Any]] = None
    abortable: bool = True

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {"hot_seat": self.hot_seat, "ai_seconds": self.ai_seconds, "hints": self.hints,
                               "turn_seconds": self.turn_seconds}
        if self.rematch_of is not None:
            out["rematch_of"] = self.rematch_of
        if self.rematch is not None:
            out["rematch"] = self.rematch
        if self.rematch_offer is not None:
            out["rematch_offer"] = dict(self.rematch_offer)
        if self.rated:
            out["rated"] = True
        if self.clock is not None:
            out["clock"], out["clock_state"] = dict(self.clock), dict(self.clock_state or {})
        if not self.abortable:
            out["abortable"] = False
        return out

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> TableOptions:
        """The options of a stored row (the store checked it is a JSON object; a missing key is its default)."""
        turn = d.get("turn_seconds")
        rated = d.get("rated") is True
        return cls(hot_seat=bool(d.get("hot_seat", False)), ai_seconds=float(d.get("ai_seconds", DEFAULT_AI_SECONDS)),
                   hints=bool(d.get("hints", True)) and not rated, turn_seconds=None if turn is None else float(turn),
                   rematch_of=_text(d.get("rematch_of")), rematch=_text(d.get("rematch")),
                   rematch_offer=_offer(d.get("rematch_offer")),
                   rated=rated, clock=_dict(d.get("clock")), clock_state=_dict(d.get("clock_state")),
                   abortable=d.get("abortable") is not False)


def _dict(value: Any) -> Optional[Dict[str, Any]]:
    return dict(value) if isinstance(value, dict) else None


def _offer(value: Any) -> Optional[Dict[str, Any]]:
    """A stored rematch offer, or None if it is not one (a damaged row's offer is no offer)."""
    if not isinstance(value, dict):
        return None
    by, accepted, expires = value.get("by"), value.get("accepted"), value.get("expires")
    if not (isinstance(by, int) and isinstance(accepted, list) and all(isinstance(p, int) for p in accepted)
            and isinstance(expires, (int, float))):
        return None
    return {"by": by, "accepted": list(accepted), "expires": float(expires), "rated": value.get("rated") is True}


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) else None


@dataclass
class Table:
    id: str
    game: GameBase
    seats: List[Seat]
    options: TableOptions
    record: GameRecord  # GameRecord.from_game(game) after every change, with the seats' agents and times
    created: str
    version: int = 0
    movers: List[int] = field(default_factory=list)  # the seat behind each entry of the history
    thinking: Optional[int] = None  # the AI seat searching now
    search: Optional[asyncio.Task[None]] = None
    clock: Optional[asyncio.Task[None]] = None  # the turn timer of the human to move (options.turn_seconds)
    deadline: Optional[float] = None  # when that turn times out (seconds since the epoch)
    #: a game clock (options.clock) running: (the seat, time.monotonic() when its turn began)
    clock_running: Optional[Tuple[int, float]] = None
    #: the turn the running time control times: (the seat, ``game.turn``); a dead-card trade keeps
    #: both, so the clock runs on through it (one turn, R5)
    clock_turn: Optional[Tuple[int, int]] = None
    #: the seat whose first move's grace runs now (opening.py): its clock does not run
    grace: Optional[int] = None
    connections: Set[Any] = field(default_factory=set)  # the live Connections (connections.py)
    #: connections counted against ServerLimits.max_sockets_per_table: the open ones and the
    #: websockets still in their handshake or hello (Connections.admit)
    admitted: int = 0
    revealed: Optional[Tuple[int, int]] = None  # hot seat: (seat, turn) whose hand is shown
    #: held while a change of the game is being written: changes of one table happen one at a time
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    changed_at: float = field(default_factory=time.monotonic)  # the last change of the game
    #: a human seat connected or moved: the table is in use (not abandoned, ServerLimits.abandoned_seconds)
    used: bool = False
    client: Optional[str] = None  # the address that created it (per-client caps; not stored)
    present: Dict[int, int] = field(default_factory=dict)  # seat -> its open connections
    asking: Set[int] = field(default_factory=set)  # seats with a hint or analysis running
    flush: Optional[asyncio.Handle] = None  # a broadcast scheduled for this turn of the event loop
    ai_failures: int = 0  # AI turns failed in a row (an agent error, a dead worker): the retry waits longer
    #: the history before the game's own: after an undo the game is redealt (R9, Game.redealt) and
    #: its own history starts there
    prefix: List[HistoryEntry] = field(default_factory=list)
    #: set (and replaced) at every broadcast: what HTTP long-polls wait on (routers/tables.py)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def history(self) -> List[Tuple[int, HistoryEntry]]:
        """``(seat, entry)`` for every entry of the history, oldest first: the game keeps the
        moves (since the last redeal, ``prefix`` those before), the table only who made each."""
        return list(zip(self.movers, self.prefix + self.game.history))

    @property
    def owner(self) -> str:
        """Whose turn the table's AI searches wait for (the fair queues): the address that created
        it; a table resumed after a restart (the address is not stored) is its own client."""
        return self.client if self.client is not None else f"table {self.id}"

    @property
    def over(self) -> bool:
        """The game ended: by the rules (R8, a draw, the turn cap), by a resignation or aborted (the
        record says which). The one test of "the table is over" everywhere."""
        return self.game.is_over or self.record.resigned is not None or self.record.ending is not None

    @property
    def humans(self) -> List[int]:
        return [p for p, s in enumerate(self.seats) if s.kind == "human"]

    def undo_allowed(self) -> bool:
        """Undo is for games against the AI: some AI seat, and every human seat behind one token."""
        hashes = {self.seats[p].token_hash for p in self.humans}
        return len(hashes) == 1 and len(self.humans) < len(self.seats)

    def undo_target(self, seats: FrozenSet[int]) -> Optional[int]:
        """The index in the history of the last entry ``seats`` made (None: they have not moved)."""
        for i in range(len(self.movers) - 1, -1, -1):
            if self.movers[i] in seats:
                return i
        return None


@dataclass
class Next(Generic[_R]):
    """A change of a table's game, ready to be stored: the new game, who made each entry of the
    history, the history before the game's own, the redeals, and the answer for the caller."""

    game: GameBase
    movers: List[int]
    prefix: List[HistoryEntry]
    redeals: List[Dict[str, Any]]
    answer: _R
    resigned: Optional[int] = None  # a resignation: the seat
    aborted: Optional[Dict[str, Any]] = None  # the game aborted: {"seat": p, "why": ...} (opening.py)
    timeouts: int = 0  # the last entries, played by the time control's AI for an absent seat (the record keeps them)


class StaleError(Exception):
    """A change for a position the table has left (an undo, the end of the game)."""
