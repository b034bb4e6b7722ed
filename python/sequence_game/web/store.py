"""The server's SQLite database: one row per table, its game as a ``sequence-game-record/1`` record.

A table row holds the game record (seed + moves, ``sequence_game.records``), the seats (human or
AI, the AI's spec, and for human seats only the SHA-256 of the seat token: a stolen database file
does not hand out seats) and the table options. The record is rewritten after every move in the
same transaction that bumps the row's ``version``, so the stored game is always one the engine
replays (WAL journal: readers never block the writer, a crash loses no committed move).

>>> store = TableStore(":memory:")
>>> store.save(TableRow("t1", {"players": 2}, [{"kind": "ai"}], {}, "2026-01-01T00:00:00Z", 0, False))
>>> [row.id for row in store.load_all()]
['t1']
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

__all__ = ["TableRow", "TableStore", "default_db_path"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id       TEXT PRIMARY KEY,
    record   TEXT NOT NULL,      -- sequence-game-record/1 JSON
    seats    TEXT NOT NULL,      -- JSON list, one object per seat
    options  TEXT NOT NULL,      -- JSON object
    created  TEXT NOT NULL,
    version  INTEGER NOT NULL,   -- +1 on every change of the game
    finished INTEGER NOT NULL    -- 0 while playing, 1 once the game is over
);
CREATE INDEX IF NOT EXISTS tables_finished ON tables (finished, created);
"""


def default_db_path() -> Path:
    """Where ``sequence-game serve`` keeps its database unless ``--db`` says otherwise: the user's
    data directory (``$XDG_DATA_HOME`` or ``~/.local/share`` on Linux, ``~/Library/Application
    Support`` on macOS, ``%APPDATA%`` on Windows) / ``sequence-game/tables.sqlite3``."""
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "sequence-game" / "tables.sqlite3"


@dataclass
class TableRow:
    """One stored table: ``record`` is a ``GameRecord.to_dict()``."""

    id: str
    record: Dict[str, Any]
    seats: List[Dict[str, Any]]
    options: Dict[str, Any]
    created: str
    version: int
    finished: bool


class TableStore:
    """Tables in an SQLite file (``":memory:"`` for tests). Safe to call from several threads."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as e:
            raise ValueError(f"{self.path}: not a usable sequence-game database ({e})") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def save(self, row: TableRow) -> None:
        """Insert or replace ``row`` (one transaction)."""
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO tables (id, record, seats, options, created, version, finished) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (row.id, json.dumps(row.record), json.dumps(row.seats), json.dumps(row.options), row.created,
                 row.version, int(row.finished)),
            )

    def update_game(self, table_id: str, record: Dict[str, Any], version: int, finished: bool) -> None:
        """Store the record after a change of the game (a move or an undo)."""
        with self._lock:
            self._db.execute(
                "UPDATE tables SET record = ?, version = ?, finished = ? WHERE id = ?",
                (json.dumps(record), version, int(finished), table_id),
            )

    def _rows(self, sql: str, args: Tuple[object, ...] = ()) -> Iterator[TableRow]:
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
        for r in rows:
            yield TableRow(r[0], json.loads(r[1]), json.loads(r[2]), json.loads(r[3]), r[4], r[5], bool(r[6]))

    _COLUMNS = "SELECT id, record, seats, options, created, version, finished FROM tables"

    def get(self, table_id: str) -> Optional[TableRow]:
        rows = list(self._rows(self._COLUMNS + " WHERE id = ?", (table_id,)))
        return rows[0] if rows else None

    def load_all(self, finished: Optional[bool] = None) -> List[TableRow]:
        """Every table (oldest first), or only the finished / unfinished ones."""
        if finished is None:
            return list(self._rows(self._COLUMNS + " ORDER BY created, id"))
        return list(self._rows(self._COLUMNS + " WHERE finished = ? ORDER BY created, id", (int(finished),)))

    def delete(self, table_id: str) -> None:
        with self._lock:
            self._db.execute("DELETE FROM tables WHERE id = ?", (table_id,))
