"""The server's SQLite database: one row per table, its game as a ``sequence-game-record/1`` record.

A table row holds the game record (seed + moves, ``sequence_game.records``), the seats (human or
AI, the AI's spec, and for human seats only the SHA-256 of the seat token: a stolen database file
does not hand out seats), the table options, when it was created and last changed, and its state:
playing, finished, or expired (closed unfinished after a time without a move). The record is
rewritten after every move in one transaction that also bumps the row's ``version``; a write the
database refuses (a full disk, an I/O error) raises :class:`StoreError` and changes nothing, so the
server can take the move back (WAL journal: readers never block the writer, a crash loses no
committed move).

A row that cannot be read back (its JSON does not parse, a seat has a key the server does not
know, a finished game without its result) is moved to the ``quarantine`` table with the reason,
and the server goes on without it (:meth:`TableStore.quarantine`).

>>> store = TableStore(":memory:")
>>> record = {"players": 2, "teams": 2, "seed": 7, "moves": []}
>>> store.save(TableRow("t1", record, [{"kind": "ai"}] * 2, {}, "2026-01-01T00:00:00Z", 0, False))
>>> [row.id for row in store.live_rows()]
['t1']
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple

from .dbfile import UnusableDatabaseError, backup, check_database_file, default_db_path, unusable

__all__ = ["MAX_ROW_ID", "BadRowError", "StoreError", "TableRow", "TableStore", "UnusableDatabaseError", "backup",
           "default_db_path"]

log = logging.getLogger("sequence_game.web")

#: The largest integer SQLite stores (64-bit signed): the largest row id there can be.
MAX_ROW_ID = 2**63 - 1

#: ``tables.finished``: the state of a stored table.
PLAYING, FINISHED, EXPIRED = 0, 1, 2

_COLUMNS = ("id", "record", "seats", "options", "created", "version", "finished", "updated", "used")
#: columns a database of an older version gains when it is opened (TableStore._open)
_ADDED = {"updated": "TEXT NOT NULL DEFAULT ''", "used": "INTEGER NOT NULL DEFAULT 0"}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id       TEXT PRIMARY KEY,
    record   TEXT NOT NULL,      -- sequence-game-record/1 JSON
    seats    TEXT NOT NULL,      -- JSON list, one object per seat
    options  TEXT NOT NULL,      -- JSON object
    created  TEXT NOT NULL,
    version  INTEGER NOT NULL,   -- +1 on every change of the game
    finished INTEGER NOT NULL,   -- 0 while playing, 1 once the game is over, 2 expired unfinished
    updated  TEXT NOT NULL DEFAULT '', -- the last change of the game or its seats (ISO 8601 UTC)
    used     INTEGER NOT NULL DEFAULT 0  -- 1 once a human seat connected, joined or moved (not abandoned)
);
-- the lobby reads one page of finished tables, newest first, from this index alone
CREATE INDEX IF NOT EXISTS tables_lobby ON tables (finished, created, id);
CREATE TABLE IF NOT EXISTS quarantine (
    id       TEXT NOT NULL,
    reason   TEXT NOT NULL,
    moved    TEXT NOT NULL,      -- when it was set aside
    record   TEXT, seats TEXT, options TEXT, created TEXT, version INTEGER, finished INTEGER, updated TEXT
);
-- the AI's review of a finished game (sequence_game.review), beside its record
CREATE TABLE IF NOT EXISTS reviews (
    id       TEXT PRIMARY KEY,   -- the table's id
    review   TEXT NOT NULL,      -- GameReview.to_dict() JSON
    created  TEXT NOT NULL
);
"""


class StoreError(RuntimeError):
    """The database refused a read or a write (a full disk, an I/O error, a locked file): nothing
    was changed. The message says what SQLite reported."""


class BadRowError(ValueError):
    """A stored row that does not read back as a table (the message says what is wrong with it)."""


@dataclass
class TableRow:
    """One stored table: ``record`` is a ``GameRecord.to_dict()``; ``updated`` the last change of
    the game or its seats (None: ``created``); ``expired``: closed unfinished (never resumed);
    ``used``: a human seat connected, joined or moved (the table is not abandoned,
    ``ServerLimits.abandoned_seconds``)."""

    id: str
    record: Dict[str, Any]
    seats: List[Dict[str, Any]]
    options: Dict[str, Any]
    created: str
    version: int
    finished: bool
    updated: Optional[str] = None
    expired: bool = False
    used: bool = False


class TableStore:
    """Tables in an SQLite file (``":memory:"`` for tests). Safe to call from several threads:
    one connection behind a lock, so the server calls it from worker threads (``asyncio.to_thread``),
    never on its event loop.

    Opening a file that is not a usable database (a directory, a text file, a damaged or truncated
    database, another program's SQLite file) raises :class:`UnusableDatabaseError` with one line
    saying what is wrong."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        if self.path != ":memory:":
            check_database_file(self.path)
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        except sqlite3.Error as e:
            raise UnusableDatabaseError(f"{self.path}: cannot open it as an SQLite database ({e})") from None
        try:
            self._open()
        except sqlite3.Error as e:
            self._db.close()
            raise unusable(self.path, e) from None
        except UnusableDatabaseError:
            self._db.close()
            raise
        self._lock = threading.Lock()

    def _open(self) -> None:
        db = self._db
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and "tables" not in tables:
            shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise UnusableDatabaseError(f"{self.path} is another program's SQLite database (its tables: {shown}); "
                                   "give the server a file of its own")
        if "tables" in tables:
            have = {row[1] for row in db.execute("PRAGMA table_info(tables)")}
            missing = set(_COLUMNS) - have - set(_ADDED)  # added below to older databases
            if missing:
                raise UnusableDatabaseError(f"{self.path} has a 'tables' table that is not the server's "
                                       f"(no column {', '.join(sorted(missing))})")
            (check,) = db.execute("PRAGMA quick_check(1)").fetchone()
            if check != "ok":
                raise UnusableDatabaseError(f"{self.path} is a damaged SQLite database ({check})")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("BEGIN IMMEDIATE")
        try:
            have = {row[1] for row in db.execute("PRAGMA table_info(tables)")} if "tables" in tables else set(_ADDED)
            for column, kind in _ADDED.items():
                if column not in have:
                    db.execute(f"ALTER TABLE tables ADD COLUMN {column} {kind}")
                    if column == "updated":
                        db.execute("UPDATE tables SET updated = created")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute("DROP INDEX IF EXISTS tables_finished")  # the lobby's index before tables_lobby
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _write(self, sql: str, args: Tuple[object, ...]) -> int:
        """One statement in its own transaction; returns the rows it changed. Raises StoreError
        (nothing written) when SQLite refuses it."""
        with self._lock:
            try:
                return self._db.execute(sql, args).rowcount
            except sqlite3.Error as e:
                raise StoreError(f"the database refused the write ({e})") from None

    def save(self, row: TableRow) -> None:
        """Insert or replace ``row`` (one transaction)."""
        self._write(
            "INSERT OR REPLACE INTO tables (id, record, seats, options, created, version, finished, updated, used) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (row.id, json.dumps(row.record), json.dumps(row.seats), json.dumps(row.options), row.created,
             row.version, int(row.finished), row.updated or row.created, int(row.used)),
        )

    def update_game(self, table_id: str, record: Dict[str, Any], version: int, finished: bool,
                    updated: str) -> None:
        """Store the record after a change of the game (a move or an undo) as ``version``. Raises
        :class:`StoreError`, with nothing written, if the database refuses it or the row is gone."""
        n = self._write(
            "UPDATE tables SET record = ?, version = ?, finished = ?, updated = ? WHERE id = ? AND finished = ?",
            (json.dumps(record), version, FINISHED if finished else PLAYING, updated, table_id, PLAYING),
        )
        if n != 1:
            raise StoreError(f"table {table_id} is no longer stored as playing")

    def save_rematch(self, of: str, row: TableRow) -> str:
        """Store ``row`` as the rematch of table ``of`` unless it has one already (one that has not
        expired): one transaction, so whichever copies of the finished table ask, and from however
        many server processes, one rematch is made. Returns the id of the rematch (``row.id`` if
        this call made it). Raises StoreError, with nothing written."""
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")  # the database's write lock, from the read to the commit
                try:
                    found = db.execute("SELECT options FROM tables WHERE id = ?", (of,)).fetchone()
                    if found is None:
                        raise StoreError(f"table {of} is not stored")
                    try:
                        options = json.loads(found[0])
                    except ValueError:
                        options = {}
                    made = options.get("rematch") if isinstance(options, dict) else None
                    if isinstance(made, str) and db.execute("SELECT 1 FROM tables WHERE id = ? AND finished != ?",
                                                            (made, EXPIRED)).fetchone():
                        db.execute("ROLLBACK")
                        return made
                    db.execute(
                        "INSERT INTO tables (id, record, seats, options, created, version, finished, updated, used) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (row.id, json.dumps(row.record), json.dumps(row.seats), json.dumps(row.options), row.created,
                         row.version, int(row.finished), row.updated or row.created, int(row.used)))
                    options = {**(options if isinstance(options, dict) else {}), "rematch": row.id}
                    db.execute("UPDATE tables SET options = ? WHERE id = ?", (json.dumps(options), of))
                    db.execute("COMMIT")
                    return row.id
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as e:
                raise StoreError(f"the database refused the write ({e})") from None

    def set_seats(self, table_id: str, seats: List[Dict[str, Any]], updated: str) -> None:
        """Store a table's seats after an open seat was taken at ``updated``: a change of the table
        (its idle time starts again) and a use of it (not abandoned), as they are before a restart.
        Raises StoreError, with nothing written."""
        if self._write("UPDATE tables SET seats = ?, updated = ?, used = 1 WHERE id = ? AND finished = ?",
                       (json.dumps(seats), updated, table_id, PLAYING)) != 1:
            raise StoreError(f"table {table_id} is not stored as playing")

    def set_used(self, table_id: str) -> None:
        """Keep that a human seat of ``table_id`` connected: after a restart it is not abandoned."""
        self._write("UPDATE tables SET used = 1 WHERE id = ? AND used = 0", (table_id,))

    def set_clock(self, table_id: str, clock: Dict[str, Any]) -> None:
        """Store a table's game clocks (``options.clock_state``, tables/clock.py) beside its other
        options. Raises StoreError, with nothing written."""
        self.set_option(table_id, "clock_state", clock)

    def set_option(self, table_id: str, name: str, value: Any) -> None:
        """Store one of a table's options (None: remove it), the others as they are: the clocks'
        state, a rematch offer (tables/rematch.py). Raises StoreError, with nothing written."""
        with self._lock:
            try:
                found = self._db.execute("SELECT options FROM tables WHERE id = ?", (table_id,)).fetchone()
                options = json.loads(found[0]) if found else None
                if not isinstance(options, dict):
                    raise StoreError(f"table {table_id} is not stored")
                if value is None:
                    options.pop(name, None)
                else:
                    options[name] = value
                self._db.execute("UPDATE tables SET options = ? WHERE id = ?", (json.dumps(options), table_id))
            except (sqlite3.Error, ValueError) as e:
                raise StoreError(f"the database refused the write ({e})") from None

    def save_review(self, table_id: str, review: Dict[str, Any], created: str) -> None:
        """Keep the review of a finished table (one per table). Raises StoreError."""
        self._write("INSERT OR REPLACE INTO reviews (id, review, created) VALUES (?, ?, ?)",
                    (table_id, json.dumps(review), created))

    def get_review(self, table_id: str) -> Optional[Dict[str, Any]]:
        """The stored review of ``table_id``, or None (also for a row that does not parse: it is
        computed again)."""
        rows = self._fetch("SELECT review FROM reviews WHERE id = ?", (table_id,))
        if not rows:
            return None
        try:
            review = json.loads(rows[0][0])
        except (TypeError, ValueError):
            return None
        return review if isinstance(review, dict) else None

    def expire(self, table_ids: List[str]) -> None:
        """Mark these unfinished tables expired: kept, never resumed or listed again."""
        with self._lock:
            try:
                self._db.executemany("UPDATE tables SET finished = ? WHERE id = ? AND finished = ?",
                                     [(EXPIRED, t, PLAYING) for t in table_ids])
            except sqlite3.Error as e:
                raise StoreError(f"the database refused the write ({e})") from None

    # ------------------------------------------------------------------ reading

    _SELECT = "SELECT " + ", ".join(_COLUMNS) + " FROM tables"

    def _fetch(self, sql: str, args: Tuple[object, ...] = ()) -> List[Tuple[Any, ...]]:
        with self._lock:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as e:
                raise StoreError(f"the database refused a read ({e})") from None

    def _decoded(self, raws: List[Tuple[Any, ...]]) -> Iterator[TableRow]:
        """The rows that read back; each one that does not is quarantined (and logged)."""
        for raw in raws:
            try:
                yield decode_row(raw)
            except BadRowError as e:
                self.quarantine(str(raw[0]), str(e))

    def get(self, table_id: str) -> Optional[TableRow]:
        """The table ``table_id`` whatever its state, or None (also for a quarantined row)."""
        rows = list(self._decoded(self._fetch(self._SELECT + " WHERE id = ?", (table_id,))))
        return rows[0] if rows else None

    def live_rows(self) -> List[TableRow]:
        """The unfinished, unexpired tables, the most recently changed first."""
        return list(self._decoded(self._fetch(self._SELECT + " WHERE finished = ? ORDER BY updated DESC, id",
                                              (PLAYING,))))

    def finished_rows(self, limit: int, offset: int = 0) -> List[TableRow]:
        """One page of finished tables, newest first: reads ``limit`` rows from the lobby index,
        whatever the number of games stored."""
        return list(self._decoded(self._fetch(
            self._SELECT + " WHERE finished = ? ORDER BY created DESC, id DESC LIMIT ? OFFSET ?",
            (FINISHED, limit, offset))))

    def load_all(self, finished: Optional[bool] = None) -> List[TableRow]:
        """Every table (oldest first), or only the finished / unfinished (not expired) ones. Reads
        the whole table: for tools and tests, not for the server's requests."""
        if finished is None:
            raws = self._fetch(self._SELECT + " ORDER BY created, id")
        else:
            raws = self._fetch(self._SELECT + " WHERE finished = ? ORDER BY created, id",
                               (FINISHED if finished else PLAYING,))
        return list(self._decoded(raws))

    def quarantine(self, table_id: str, reason: str) -> None:
        """Set the row aside (moved to the ``quarantine`` table with ``reason``) and log it: the
        server skips it from now on, and it stays there for a person to look at."""
        from datetime import datetime, timezone

        log.error("table %s set aside in the quarantine table: %s", table_id, reason)
        moved = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                self._db.execute(
                    "INSERT INTO quarantine (id, reason, moved, record, seats, options, created, version, finished, "
                    "updated) SELECT id, ?, ?, record, seats, options, created, version, finished, updated "
                    "FROM tables WHERE id = ?", (reason, moved, table_id))
                self._db.execute("DELETE FROM tables WHERE id = ?", (table_id,))
                self._db.execute("COMMIT")
            except sqlite3.Error as e:  # the disk may be full: the row is skipped all the same
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                log.error("table %s could not be moved to the quarantine table (%s)", table_id, e)

    def quarantined(self) -> List[Tuple[str, str]]:
        """``(id, reason)`` of every row set aside, oldest first."""
        return [(str(i), str(r)) for i, r in self._fetch("SELECT id, reason FROM quarantine ORDER BY moved, rowid")]


#: The keys a stored seat may have (``tables.Seat``).
SEAT_KEYS = frozenset({"kind", "ai", "name", "token_hash", "open", "account"})


def decode_row(raw: Tuple[Any, ...]) -> TableRow:
    """A stored row as a :class:`TableRow`, checked enough that the server can use it; raises
    :class:`BadRowError` saying what is wrong."""
    table_id, record, seats, options, created, version, finished, updated, used = raw
    parsed = {}
    for name, text in (("record", record), ("seats", seats), ("options", options)):
        try:
            parsed[name] = json.loads(text)
        except (TypeError, ValueError, RecursionError) as e:
            raise BadRowError(f"its {name} is not JSON ({e})") from None
    rec, seat_list, opts = parsed["record"], parsed["seats"], parsed["options"]
    if not isinstance(rec, dict):
        raise BadRowError("its record is not a JSON object")
    if not isinstance(opts, dict):
        raise BadRowError("its options are not a JSON object")
    if not isinstance(seat_list, list) or not all(isinstance(s, dict) for s in seat_list):
        raise BadRowError("its seats are not a list of objects")
    for p, s in enumerate(seat_list):
        unknown = set(s) - SEAT_KEYS
        if unknown:
            raise BadRowError(f"seat {p} has unknown keys {sorted(unknown)}")
        if s.get("kind") not in ("human", "ai"):
            raise BadRowError(f"seat {p} has kind {s.get('kind')!r}, not 'human' or 'ai'")
    for key in ("players", "teams", "moves"):
        if key not in rec:
            raise BadRowError(f"its record has no {key!r}")
    if not isinstance(rec["moves"], list) or not isinstance(rec["players"], int) or not isinstance(rec["teams"], int):
        raise BadRowError("its record's players, teams or moves have the wrong type")
    if len(seat_list) != rec["players"]:
        raise BadRowError(f"it has {len(seat_list)} seats for {rec['players']} players")
    if finished == FINISHED:
        result = rec.get("result")
        if not isinstance(result, dict) or not {"winner", "is_draw", "turns"} <= set(result):
            raise BadRowError("it is finished but its record has no result (winner, is_draw, turns)")
    if not isinstance(created, str) or not isinstance(version, int) or finished not in (PLAYING, FINISHED, EXPIRED):
        raise BadRowError("its created, version or finished column has the wrong type")
    return TableRow(str(table_id), rec, seat_list, opts, created, version, finished == FINISHED,
                    updated or created, finished == EXPIRED, bool(used))
