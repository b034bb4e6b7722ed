"""What the club says and wants, kept across restarts: open seeks, the tables' chat and the chat
reports (docs/club.md, "After a restart").

They live in the server's SQLite file beside its tables (``store.py``), on a connection of their
own like the club's (``club/store.py``); a database of an older version gains these tables when
the server opens it. Every write is queued to the server's one database thread
(``tables/database.py``, ``DatabaseThread.soon``): in order, never on the event loop, and the writes queued before a
shutdown are done before the file is closed. The reads happen when the server starts (the open
seeks) and when a table's chat is first opened after the table came into memory (its history).

- A seek's row holds what the lobby shows, its poster's address (the per-address cap) and the
  SHA-256 of its token, never the token: the poster's page goes on asking with the token it kept.
  A row is deleted once the seek is taken, cancelled or expired.
- A chat room keeps its last ``chat.KEEP`` messages in the file too (older ones are deleted as new
  ones come), so a table's chat comes back with the table.
- A report is a row of its own, with a copy of the message reported: the operator reads and closes
  them with ``sequence-game accounts reports`` (``cli/accounts.py``). No HTTP route reads them.
"""

from __future__ import annotations

import json
import logging
import os
import time
from typing import Any, Callable, Dict, List, Optional

from .club.store import ClubStore
from .store import MAX_ROW_ID, StoreError

__all__ = ["Social", "SocialStore"]

log = logging.getLogger("sequence_game.web")

_SCHEMA = """
-- the open seeks (seeks.py): deleted once taken, cancelled or expired
CREATE TABLE IF NOT EXISTS seeks (
    id           TEXT PRIMARY KEY,
    token_hash   TEXT NOT NULL,      -- SHA-256 of the poster's token: a copy of the file holds no seek
    client       TEXT NOT NULL,      -- the poster's address (max_seeks_per_client)
    players      INTEGER NOT NULL,
    teams        INTEGER NOT NULL,
    rated        INTEGER NOT NULL,
    turn_seconds REAL,
    clock        TEXT,               -- JSON time control, or NULL
    rating_min   INTEGER,
    rating_max   INTEGER,
    name         TEXT NOT NULL,
    account      TEXT,               -- accounts.key of the poster (NULL: a guest)
    account_name TEXT,
    rating       INTEGER,            -- the poster's displayed rating when posted
    provisional  INTEGER,
    created      REAL NOT NULL       -- seconds since the epoch
);
-- the last messages of each chat room (tables/chat.py), one JSON chat frame each
CREATE TABLE IF NOT EXISTS chat (
    table_id TEXT NOT NULL,
    id       INTEGER NOT NULL,       -- the message's id at its table
    channel  TEXT NOT NULL,          -- players, spectators
    message  TEXT NOT NULL,
    PRIMARY KEY (table_id, id)
);
CREATE INDEX IF NOT EXISTS chat_room ON chat (table_id, channel, id);
-- chat reports for the operator (sequence-game accounts reports)
CREATE TABLE IF NOT EXISTS reports (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    at         REAL NOT NULL,        -- seconds since the epoch
    table_id   TEXT NOT NULL,
    message_id INTEGER NOT NULL,
    channel    TEXT NOT NULL,
    reported   TEXT NOT NULL,        -- the name the message was written under
    account    TEXT,                 -- the writer's account (accounts.key; NULL: a guest or a spectator)
    text       TEXT NOT NULL,        -- the message as it was shown
    reporter   TEXT NOT NULL,        -- the reporter's name at the table (a seat's name, "Spectator N")
    address    TEXT NOT NULL,        -- the reporter's address
    closed     REAL                  -- when the operator closed it (NULL: open)
);
CREATE INDEX IF NOT EXISTS reports_open ON reports (closed, at);
"""

_SEEK_COLUMNS = ("id, token_hash, client, players, teams, rated, turn_seconds, clock, rating_min, rating_max, "
                 "name, account, account_name, rating, provisional, created")


class SocialStore(ClubStore):
    """The seeks, chat and reports rows of the server's SQLite file (``":memory:"``: a database of
    its own). Each method blocks: the server calls them in its database thread."""

    SCHEMA = _SCHEMA

    # ------------------------------------------------------------------ seeks

    def save_seek(self, row: Dict[str, Any]) -> None:
        """Insert or replace an open seek (``row``: a column -> value mapping, ``created`` in
        seconds since the epoch)."""
        names = [c.strip() for c in _SEEK_COLUMNS.split(",")]
        values = [row[c] for c in names]
        self.write((f"INSERT OR REPLACE INTO seeks ({_SEEK_COLUMNS}) VALUES ({','.join('?' * len(names))})", values))

    def drop_seek(self, seek_id: str) -> None:
        self.write(("DELETE FROM seeks WHERE id = ?", (seek_id,)))

    def seeks(self) -> List[Dict[str, Any]]:
        """Every stored seek, oldest first."""
        names = [c.strip() for c in _SEEK_COLUMNS.split(",")]
        return [dict(zip(names, r)) for r in self.fetch(f"SELECT {_SEEK_COLUMNS} FROM seeks ORDER BY created, id")]

    # ------------------------------------------------------------------ chat

    def save_message(self, table_id: str, message: Dict[str, Any], keep: int) -> None:
        """Keep ``message`` of ``table_id``'s chat and forget its room's messages past the last ``keep``."""
        channel = str(message["channel"])
        # never OR REPLACE: a message id taken already is a kept message, which stays (the write is refused)
        self.write(("INSERT INTO chat (table_id, id, channel, message) VALUES (?, ?, ?, ?)",
                    (table_id, int(message["id"]), channel, self.dumps(message))),
                   ("DELETE FROM chat WHERE table_id = ? AND channel = ? AND id NOT IN (SELECT id FROM chat WHERE "
                    "table_id = ? AND channel = ? ORDER BY id DESC LIMIT ?)", (table_id, channel, table_id, channel,
                                                                              keep)))

    def messages(self, table_id: str) -> List[Dict[str, Any]]:
        """The kept messages of ``table_id``'s rooms, in the order they were written (a row that
        does not read back as a chat message is skipped)."""
        out = []
        for (text,) in self.fetch("SELECT message FROM chat WHERE table_id = ? ORDER BY id", (table_id,)):
            try:
                m = json.loads(text)
            except ValueError:
                continue
            if (isinstance(m, dict) and isinstance(m.get("id"), int) and m.get("channel") in ("players", "spectators")
                    and isinstance(m.get("text"), str) and isinstance(m.get("from"), str)):
                out.append(m)
        return out

    # ------------------------------------------------------------------ reports

    def save_report(self, report: Dict[str, Any]) -> None:
        self.write(("INSERT INTO reports (at, table_id, message_id, channel, reported, account, text, reporter, "
                    "address) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (report["at"], report["table"], report["message"]["id"], report["message"]["channel"],
                     report["message"]["from"], report.get("account"), report["message"]["text"], report["reporter"],
                     report["by"])))

    def reports(self, closed: bool = False) -> List[Dict[str, Any]]:
        """The open reports (``closed``: every report), oldest first."""
        where = "" if closed else " WHERE closed IS NULL"
        rows = self.fetch("SELECT id, at, table_id, message_id, channel, reported, account, text, reporter, address, "
                          f"closed FROM reports{where} ORDER BY at, id")
        keys = ("id", "at", "table", "message", "channel", "reported", "account", "text", "reporter", "address",
                "closed")
        return [dict(zip(keys, r)) for r in rows]

    def close_report(self, report_id: int, at: Optional[float] = None) -> bool:
        """Close the open report ``report_id``; False if there is no open report of that id (any
        integer: one SQLite cannot hold is no report's)."""
        if not 1 <= report_id <= MAX_ROW_ID:
            return False
        return self.write(("UPDATE reports SET closed = ? WHERE id = ? AND closed IS NULL",
                           (time.time() if at is None else at, report_id))) == 1


class Social:
    """The keeper of the seeks, chat and reports: the seek board (``seeks.py``) and the chat
    (``tables/chat.py``) tell it what changed, and it queues the writes with ``submit`` (the table
    service's database thread)."""

    def __init__(self, path: str | os.PathLike[str], submit: Callable[..., None]) -> None:
        self.store = SocialStore(path)
        self.submit = submit

    def close(self) -> None:
        self.store.close()

    # the seek board's hook (seeks.SeekBoard.keeper)
    def seek_opened(self, row: Dict[str, Any]) -> None:
        self.submit(self.store.save_seek, row)

    def seek_closed(self, seek_id: str) -> None:
        self.submit(self.store.drop_seek, seek_id)

    def open_seeks(self) -> List[Dict[str, Any]]:
        """The stored seeks (read once, when the server starts); [] if the file refuses the read."""
        try:
            return self.store.seeks()
        except StoreError as e:
            log.error("the open seeks could not be read back: %s", e)
            return []

    # the chat's hook (tables/chat.Chat.keeper)
    def said(self, table_id: str, message: Dict[str, Any], keep: int) -> None:
        self.submit(self.store.save_message, table_id, message, keep)

    def reported(self, report: Dict[str, Any]) -> None:
        self.submit(self.store.save_report, report)

    def history(self, table_id: str) -> List[Dict[str, Any]]:
        """The kept chat of ``table_id`` (blocks: call it in the database thread)."""
        return self.store.messages(table_id)

