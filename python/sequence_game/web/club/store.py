"""The club's tables in the server's SQLite file: accounts, sessions, the games an account played
and the rating changes of each rated game (docs/club.md).

They live beside the server's own tables (``web/store.py``) in the same file, on a connection of
their own (SQLite serializes the writers; WAL lets readers run meanwhile). The file is opened
through :class:`~sequence_game.web.store.TableStore` first, so an unusable file is refused with the
same one-line message and a new file gets the server's schema before the club's.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..dbfile import unusable
from ..store import StoreError, TableStore

__all__ = ["ClubStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS accounts (
    key      TEXT PRIMARY KEY,   -- the name folded for comparison (accounts.name_key)
    name     TEXT NOT NULL,      -- as the player wrote it
    hash     TEXT NOT NULL,      -- argon2id (accounts.HASH_PARAMETERS)
    created  TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    mu       REAL NOT NULL,      -- the rating (openskill, ratings.py)
    sigma    REAL NOT NULL,
    games    INTEGER NOT NULL DEFAULT 0  -- rated games counted
);
CREATE TABLE IF NOT EXISTS sessions (
    hash     TEXT PRIMARY KEY,   -- SHA-256 of the cookie's value: a copy of the file signs nobody in
    account  TEXT NOT NULL,      -- accounts.key
    created  REAL NOT NULL,      -- seconds since the epoch
    expires  REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_account ON sessions (account);
-- one row per account seat of every finished table (rated or not): the player page's games
CREATE TABLE IF NOT EXISTS club_games (
    table_id TEXT NOT NULL,
    account  TEXT NOT NULL,      -- accounts.key
    seat     INTEGER NOT NULL,
    team     INTEGER NOT NULL,
    outcome  TEXT NOT NULL,      -- win, loss, draw, aborted
    info     TEXT NOT NULL,      -- JSON: players, teams, seats (names, accounts, AI presets), how it ended
    rated    INTEGER NOT NULL,   -- 1: the game changed the ratings
    finished TEXT NOT NULL,
    PRIMARY KEY (table_id, account)
);
CREATE INDEX IF NOT EXISTS club_games_account ON club_games (account, finished);
-- the rating change of each account of a rated game, kept with the game
CREATE TABLE IF NOT EXISTS club_ratings (
    table_id TEXT NOT NULL,
    account  TEXT NOT NULL,
    mu_before REAL NOT NULL, sigma_before REAL NOT NULL,
    mu_after  REAL NOT NULL, sigma_after  REAL NOT NULL,
    counted  INTEGER NOT NULL,   -- 0: not counted (ratings.py, the same accounts too often)
    why      TEXT NOT NULL,      -- why it was not counted ('' when it was)
    pairing  TEXT NOT NULL,      -- the accounts of the game, sorted and joined (the farming limit)
    at       REAL NOT NULL,      -- seconds since the epoch
    PRIMARY KEY (table_id, account)
);
CREATE INDEX IF NOT EXISTS club_ratings_pairing ON club_ratings (pairing, at);
-- the language of the pages an account chose with the menu (docs/i18n.md)
CREATE TABLE IF NOT EXISTS account_languages (
    account  TEXT PRIMARY KEY,   -- accounts.key
    language TEXT NOT NULL       -- a code of sequence_game.i18n.LANGUAGES
);
-- people to play with (people.py): follows, blocks, profiles and challenges
CREATE TABLE IF NOT EXISTS follows (
    follower TEXT NOT NULL,      -- accounts.key
    followed TEXT NOT NULL,
    at       REAL NOT NULL,
    PRIMARY KEY (follower, followed)
);
CREATE TABLE IF NOT EXISTS blocks (
    blocker  TEXT NOT NULL,      -- accounts.key
    blocked  TEXT NOT NULL,
    at       REAL NOT NULL,
    PRIMARY KEY (blocker, blocked)
);
CREATE TABLE IF NOT EXISTS profiles (
    account  TEXT PRIMARY KEY,   -- accounts.key
    bio      TEXT NOT NULL,      -- plain text (people.check_profile_text)
    country  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS challenges (
    id           TEXT PRIMARY KEY,
    maker        TEXT NOT NULL,  -- accounts.key
    target       TEXT NOT NULL,
    players      INTEGER NOT NULL,
    teams        INTEGER NOT NULL,
    rated        INTEGER NOT NULL,
    turn_seconds REAL,
    clock        TEXT,           -- JSON time control, or NULL
    created      REAL NOT NULL,  -- seconds since the epoch
    expires      REAL NOT NULL,
    status       TEXT NOT NULL,  -- open, accepting, accepted, declined, withdrawn, expired
    closed       REAL,
    table_id     TEXT,           -- the table made on acceptance
    maker_token  TEXT            -- the maker's seat token, for the maker's page (kept KEEP_CLOSED at most)
);
CREATE INDEX IF NOT EXISTS challenges_maker ON challenges (maker, status);
CREATE INDEX IF NOT EXISTS challenges_target ON challenges (target, status);
"""


class ClubStore:
    """The club's rows in the SQLite file at ``path`` (``":memory:"``: a database of its own, for
    tests). Thread-safe: one connection behind a lock. A write SQLite refuses raises
    :class:`~sequence_game.web.store.StoreError` with nothing written. ``SCHEMA``: the tables it
    creates when they are missing (a database of an older version gains them on opening); a file
    where they cannot be made (a full disk) raises :class:`~sequence_game.web.store.UnusableDatabaseError`."""

    SCHEMA = _SCHEMA
    #: columns a database of an older version gains when it is opened: (table, column, declaration),
    #: each also in ``SCHEMA``'s ``CREATE TABLE`` for a new file
    ADDED: Tuple[Tuple[str, str, str], ...] = ()
    #: how long a write waits for another connection's (the server's, an operator's) to finish
    BUSY_SECONDS = 10.0

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        if self.path != ":memory:":
            TableStore(self.path).close()  # the same checks, and the server's schema first
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None,
                                       timeout=self.BUSY_SECONDS)
        except sqlite3.Error as e:
            raise unusable(self.path, e) from None
        self._lock = threading.Lock()
        try:
            if self.path != ":memory:":
                self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            # one transaction: a full disk leaves none of it behind
            self._db.executescript("BEGIN IMMEDIATE;" + self.SCHEMA + ";COMMIT;")
            if self.ADDED:
                self._add_columns()
        except sqlite3.Error as e:  # a full disk, a file size limit: the same one line as any unusable file
            self._db.close()
            raise unusable(self.path, e) from None

    def _add_columns(self) -> None:
        """Add the columns of :attr:`ADDED` a table lacks, in one transaction that holds the write
        lock from the look to the change, so two processes opening an older file at once (the server
        and an operator's command) do not both add one."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            for table, column, declaration in self.ADDED:
                if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def fetch(self, sql: str, args: Sequence[Any] = ()) -> List[Tuple[Any, ...]]:
        with self._lock:
            try:
                return list(self._db.execute(sql, tuple(args)))
            except (sqlite3.Error, OverflowError) as e:
                raise StoreError(f"the database refused the read ({e})") from None

    def one(self, sql: str, args: Sequence[Any] = ()) -> Optional[Tuple[Any, ...]]:
        rows = self.fetch(sql, args)
        return rows[0] if rows else None

    def write(self, *statements: Tuple[str, Sequence[Any]]) -> int:
        """Run ``statements`` (``(sql, args)`` each) in one transaction; returns the rows the last
        one changed."""
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
                n = 0
                for sql, args in statements:
                    n = db.execute(sql, tuple(args)).rowcount
                db.execute("COMMIT")
                return n
            except BaseException as e:
                # whatever stopped it (SQLite, or a value SQLite cannot hold: OverflowError), the
                # transaction ends here: an open one would hold the database's write lock
                if db.in_transaction:
                    db.execute("ROLLBACK")
                if isinstance(e, (sqlite3.Error, OverflowError)):
                    raise StoreError(f"the database refused the write ({e})") from None
                raise

    @staticmethod
    def dumps(value: Dict[str, Any]) -> str:
        return json.dumps(value, separators=(",", ":"))
