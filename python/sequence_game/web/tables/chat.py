"""The chat of a table: one room for its players, another for its spectators (docs/web.md, "Chat").

- The players' room reaches every seat of the table, whatever its team: there is no private
  channel between teammates, because advising a teammate is table talk, against the rules (R10).
  The chat box says so.
- The spectators' room reaches the spectators only while the game goes on (as on lichess): a
  spectator, who sees every discard pile and may be a friend of one side, cannot advise a player
  through it. Once the game is over, players read and write it too.
- A message is plain text: control and formatting characters are dropped, at most
  :data:`MAX_CHAT_TEXT` characters, never HTML (the page shows it as text); each client address has
  a bucket of ``ServerLimits.chat_burst`` messages that refills at ``chat_per_minute``.
- ``report`` flags a message for the server's operator (a log line, and a row the operator reads
  with ``sequence-game accounts reports``); muting is the reader's own, in the page. The operator
  switches the whole chat off with ``serve --no-chat``.
- Rooms keep the last :data:`KEEP` messages of each in memory and, through :attr:`Chat.keeper`
  (``web/social.py``), in the server's database: a room comes back with its table after it left
  memory or the server restarted. A chat is talk at the table, not part of the game's record.

A chat message carries only what its writer typed and who wrote it, never a card of a hand (R9).
"""

from __future__ import annotations

import logging
import time
import unicodedata
from collections import deque
from typing import Any, Callable, Deque, Dict, List, Optional, Protocol, Tuple

from ...records import utc_now, utc_text
from ..errors import BusyError, InvalidRequestError, NotNowError
from ..limits import ServerLimits
from .connections import spectators_frame
from .table import Table

__all__ = ["KEEP", "MAX_CHAT_TEXT", "NOTICE", "SPECTATORS_NOTICE", "Chat", "ChatKeeper", "clean_text"]

log = logging.getLogger("sequence_game.web")

MAX_CHAT_TEXT = 200  # characters of one message
KEEP = 50  # messages of each room kept for those who connect later
NOTICE = ("Everyone at the table reads the players' chat, opponents included: there is no private channel. "
          "Advising a teammate is table talk, which the rules do not allow (R10).")
SPECTATORS_NOTICE = ("Spectators' chat: the players do not read it while the game goes on (they may once it is over), "
                     "so nothing here can advise them.")
OFF = "the chat is switched off on this server (its operator started it with --no-chat)"


def clean_text(text: str) -> str:
    """``text`` as a chat shows it: control and format characters (bidirectional overrides,
    zero-width characters) dropped, runs of white space made one space, trimmed; ValueError for a
    message with nothing left.

    >>> clean_text("  hi\\u202e there\\n\\n ")
    'hi there'
    """
    kept = "".join(" " if c.isspace() else c for c in text if c.isspace() or unicodedata.category(c) not in ("Cc", "Cf"))
    out = " ".join(kept.split())
    if not out:
        raise InvalidRequestError("a chat message needs some text")
    if len(out) > MAX_CHAT_TEXT:
        raise InvalidRequestError(f"a chat message is at most {MAX_CHAT_TEXT} characters, not {len(out)}")
    return out


class ChatKeeper(Protocol):
    """Where the rooms and the reports are kept across restarts (``web/social.Social``)."""

    def said(self, table_id: str, message: Dict[str, Any], keep: int) -> None: ...

    def reported(self, report: Dict[str, Any]) -> None: ...

    def history(self, table_id: str) -> List[Dict[str, Any]]: ...


class _Room:
    def __init__(self) -> None:
        self.players: Deque[Dict[str, Any]] = deque(maxlen=KEEP)
        self.spectators: Deque[Dict[str, Any]] = deque(maxlen=KEEP)
        self.next_id = 1
        self.next_spectator = 1


class Chat:
    """The chat rooms of the live tables. ``enabled``: the operator's switch (``serve --no-chat``)."""

    MAX_CLIENTS = 10_000  # rate-limit buckets kept (the full ones are forgotten past it)
    MAX_REPORTS = 1000

    def __init__(self, limits: ServerLimits, enabled: bool = True, keeper: Optional[ChatKeeper] = None,
                 hides: Callable[[Optional[str], Optional[str]], bool] = lambda reader, writer: False) -> None:
        self.limits = limits
        self.enabled = enabled
        self.rooms: Dict[str, _Room] = {}
        self.buckets: Dict[str, Tuple[float, float]] = {}  # client -> (messages it may send, at)
        self.reports: Deque[Dict[str, Any]] = deque(maxlen=self.MAX_REPORTS)
        self.keeper = keeper  # None: the rooms live in memory only
        #: hides(reader, writer): whether account ``reader`` blocked account ``writer`` (club/people.py),
        #: whose messages then never reach the reader's connections
        self.hides = hides

    def restore(self, table_id: str, messages: List[Dict[str, Any]]) -> None:
        """The room of ``table_id`` from its kept ``messages`` (oldest first), unless it is in
        memory already; the next message and the next spectator's number follow theirs."""
        if table_id in self.rooms:
            return
        room = self.rooms[table_id] = _Room()
        for m in messages:
            if isinstance(m.get("at"), (int, float)) and not isinstance(m["at"], bool):
                m = {**m, "at": utc_text(m["at"])}  # kept by an older server: seconds since the epoch
            (room.players if m["channel"] == "players" else room.spectators).append(m)
            room.next_id = max(room.next_id, int(m["id"]) + 1)
            name = str(m["from"])
            if m["channel"] == "spectators" and name.startswith("Spectator ") and name[10:].isdigit():
                room.next_spectator = max(room.next_spectator, int(name[10:]) + 1)

    def _room(self, table: Table) -> _Room:
        """``table``'s room; a new one only where nothing is kept (no keeper) or the kept messages
        were read (``restore``) first: the websocket's handler reads them before any chat frame."""
        room = self.rooms.get(table.id)
        if room is None:
            room = self.rooms[table.id] = _Room()
        return room

    def forget(self, table: Table) -> None:
        self.rooms.pop(table.id, None)

    def welcome(self, table: Table, conn: Any) -> None:
        """A websocket that said hello: it takes part in the chat from now on, and gets the messages
        of the rooms it may read (a ``chat-log`` frame) and the notice of the chat box."""
        conn.chat = True
        if not self.enabled:
            conn.send({"type": "chat-log", "enabled": False, "notice": OFF, "you": None, "messages": []})
        else:
            self._welcome(table, conn)
        if conn.seats:  # a player's page shows how many watch (the count follows as they come and go)
            conn.send(spectators_frame(table))

    def _welcome(self, table: Table, conn: Any) -> None:
        room = self._room(table)
        if not conn.seats and getattr(conn, "chat_name", None) is None:
            conn.chat_name = f"Spectator {room.next_spectator}"
            room.next_spectator += 1
        if conn.seats and not table.over:
            messages = list(room.players)
        elif conn.seats:
            messages = sorted([*room.players, *room.spectators], key=lambda m: int(m["id"]))
        else:
            messages = list(room.spectators)
        reader = self._account(table, conn)
        messages = [m for m in messages if not self.hides(reader, m.get("account"))]
        conn.send({"type": "chat-log", "enabled": True, "notice": NOTICE if conn.seats else SPECTATORS_NOTICE,
                   "you": None if conn.seats else conn.chat_name, "messages": messages})

    @staticmethod
    def _account(table: Table, conn: Any) -> Optional[str]:
        """The account ``conn`` reads and writes for: its seat's, a spectator's session cookie's
        (None: a guest)."""
        account = table.seats[min(conn.seats)].account if conn.seats else getattr(conn, "account", None)
        return account if isinstance(account, str) else None

    def game_over(self, table: Table) -> None:
        """The game ended: the players now read the spectators' room too (a new ``chat-log``)."""
        if self.enabled and table.id in self.rooms:
            for conn in list(table.connections):
                if getattr(conn, "chat", False) and conn.seats:
                    self.welcome(table, conn)

    def say(self, table: Table, conn: Any, text: str) -> Dict[str, Any]:
        """Post ``text`` from ``conn`` to its room: a seat's to the players, a spectator's to the
        spectators (everyone once the game is over). Returns the message sent."""
        if not self.enabled:
            raise NotNowError(OFF)
        if not getattr(conn, "chat", False):
            raise NotNowError('this connection is not in the chat: say {"type": "hello", ..., "chat": true} first')
        text = clean_text(text)
        self._take(conn.client)
        room = self._room(table)
        if conn.seats:
            seat = min(conn.seats)
            channel, name = "players", table.seats[seat].name or f"Player {seat + 1}"
        else:
            if getattr(conn, "chat_name", None) is None:
                conn.chat_name = f"Spectator {room.next_spectator}"
                room.next_spectator += 1
            channel, name, seat = "spectators", conn.chat_name, None
        # the writer's account, so that pages tell it from a guest of the same name (docs/club.md, "Names")
        account = self._account(table, conn)
        message = {"type": "chat", "id": room.next_id, "channel": channel, "from": name, "seat": seat,
                   "account": account, "text": text, "at": utc_now()}
        room.next_id += 1
        (room.players if channel == "players" else room.spectators).append(message)
        if self.keeper is not None:
            self.keeper.said(table.id, message, KEEP)
        for other in list(table.connections):
            if (getattr(other, "chat", False) and self._reads(table, other, channel)
                    and not self.hides(self._account(table, other), account)):
                other.send(message)
        return message

    @staticmethod
    def _reads(table: Table, conn: Any, channel: str) -> bool:
        """Whether ``conn`` reads ``channel``: players read theirs, spectators theirs; after the
        game, players read the spectators' too."""
        if channel == "players":
            return bool(conn.seats)
        return not conn.seats or table.over

    def report(self, table: Table, conn: Any, message_id: int) -> Dict[str, Any]:
        """Flag message ``message_id`` of a room ``conn`` reads for the operator (a log line and,
        with a keeper, a stored report)."""
        if not self.enabled:
            raise NotNowError(OFF)
        self._take(conn.client)
        room = self._room(table)
        found: Optional[Dict[str, Any]] = None
        for m in [*room.players, *room.spectators]:
            if m["id"] == message_id and self._reads(table, conn, m["channel"]):
                found = m
        if found is None:
            raise InvalidRequestError(f"no chat message {message_id} you can read at this table (the last {KEEP} "
                                      "of each room are kept)")
        reporter = (table.seats[min(conn.seats)].name or f"Player {min(conn.seats) + 1}" if conn.seats
                    else getattr(conn, "chat_name", None) or "a spectator")
        seat = found.get("seat")
        account = table.seats[seat].account if isinstance(seat, int) and 0 <= seat < len(table.seats) else None
        entry = {"table": table.id, "message": found, "by": conn.client, "reporter": reporter, "at": time.time(),
                 "account": account}  # the writer's account (None: a guest or a spectator)
        self.reports.append(entry)
        if self.keeper is not None:
            self.keeper.reported(entry)
        log.warning("chat report: table %s, message %d from %r (%s): %r", table.id, message_id, found["from"],
                    found["channel"], found["text"])
        return {"type": "reported", "message": message_id}

    def _take(self, client: str) -> None:
        now = time.monotonic()
        burst, rate = float(self.limits.chat_burst), self.limits.chat_per_minute / 60.0
        tokens, at = self.buckets.get(client, (burst, now))
        tokens = min(burst, tokens + (now - at) * rate)
        if tokens < 1:
            raise BusyError(f"too many chat messages from your address: wait {(1 - tokens) / rate:.0f} s "
                            f"(at most {burst:g} at once, then {rate * 60:g} a minute)")
        self.buckets[client] = (tokens - 1, now)
        if len(self.buckets) > self.MAX_CLIENTS:
            self.buckets = {c: (t, a) for c, (t, a) in self.buckets.items() if min(burst, t + (now - a) * rate) < burst}

    def messages(self, table: Table) -> List[Dict[str, Any]]:
        """Every kept message of ``table`` (for tests and the operator)."""
        room = self.rooms.get(table.id)
        return [] if room is None else [*room.players, *room.spectators]
