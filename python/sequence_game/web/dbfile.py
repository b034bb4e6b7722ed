"""The server's database file: where it lives by default, whether a path can be one, the one-line
error for a file SQLite refuses, and the online backup (``sequence-game backup``).

The tables (``store.py``) and the club (``club/store.py``) share this one file; both refuse an
unusable file with :class:`UnusableDatabaseError`.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import urllib.parse
from pathlib import Path
from typing import Dict

__all__ = ["UnusableDatabaseError", "backup", "check_database_file", "default_db_path", "unusable"]


class UnusableDatabaseError(ValueError):
    """The file given as the database cannot be the server's database; the message says why, in one line."""


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


def check_database_file(path: str) -> None:
    """Raise :class:`UnusableDatabaseError` if ``path`` is a directory or its folder cannot be made.
    A missing file is fine: it is created. What the file holds is SQLite's to judge
    (``store.TableStore`` says "not an SQLite database" from SQLite's own answer).

    This never opens the file: POSIX locks belong to a process and a file, so closing any
    descriptor of the file, even one only read from, drops every lock SQLite holds on it in this
    process. Another program's connection (``sequence-game accounts``, the ``sqlite3`` shell) that
    closes next would then find no reader, check the write-ahead log into the file and delete it
    while this process still writes to it: every later write lost. Only SQLite opens the file."""
    p = Path(path)
    if p.is_dir():
        raise UnusableDatabaseError(f"{path} is a directory, not a database file")
    if not p.exists() and not p.parent.is_dir():
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise UnusableDatabaseError(f"cannot create the folder of {path}: {e.strerror or e}") from None


def unusable(path: str, e: sqlite3.Error) -> UnusableDatabaseError:
    """The one-line error for a file SQLite refused as a database (``e``: what SQLite said)."""
    code = getattr(e, "sqlite_errorcode", None)
    if code == sqlite3.SQLITE_NOTADB:
        try:
            size = os.stat(path).st_size  # a stat opens no descriptor (check_database_file)
        except OSError:
            size = -1
        if 0 < size < 100:
            return UnusableDatabaseError(f"{path} is not an SQLite database, or a truncated one ({size} bytes: "
                                         "an SQLite database starts with a 100-byte header)")
        return UnusableDatabaseError(f"{path} is not an SQLite database (SQLite: {e})")
    if code is not None and code & 0xFF in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL):
        return UnusableDatabaseError(f"{path}: SQLite cannot read or write it ({e}): the disk may be full or "
                                     "failing, or the file over this process's file size limit (ulimit -f)")
    if code is not None and code & 0xFF == sqlite3.SQLITE_CORRUPT:  # found before quick_check could say it
        return UnusableDatabaseError(f"{path} is a damaged SQLite database ({e})")
    if code == sqlite3.SQLITE_BUSY:
        return UnusableDatabaseError(f"{path} is busy: another program holds its write lock ({e}); try again "
                                     "once it is done")
    if isinstance(e, sqlite3.OperationalError) and "unable to open" in str(e):
        return UnusableDatabaseError(f"{path}: cannot open it as an SQLite database ({e})")
    return UnusableDatabaseError(f"{path}: not a usable sequence-game database ({e})")


def backup(path: str | os.PathLike[str], dest: str | os.PathLike[str]) -> Dict[str, int]:
    """Copy the server's database at ``path`` to the new file ``dest`` with SQLite's online backup
    (safe while ``serve`` runs: one read transaction, a snapshot of every committed write; the
    server goes on writing meanwhile). Returns the rows of each of its tables in the copy.

    Raises :class:`UnusableDatabaseError` (one line) for a missing or unusable database, and for a
    ``dest`` that exists, is a directory or cannot be written. The copy is written beside ``dest``
    and renamed to it once complete, so a failed backup leaves no partial file."""
    src_path, dest_path = os.fspath(path), os.fspath(dest)
    d = Path(dest_path)
    if d.is_dir():
        raise UnusableDatabaseError(f"{dest_path} is a directory; give the name of a new file")
    if d.exists() or d.is_symlink():
        raise UnusableDatabaseError(f"{dest_path} exists; give the name of a new file (a backup never overwrites)")
    if not d.parent.is_dir():
        raise UnusableDatabaseError(f"the folder of {dest_path} does not exist")
    check_database_file(src_path)
    if not Path(src_path).is_file():
        raise UnusableDatabaseError(f"{src_path}: no such database (give the file 'serve --db' uses)")
    # read-only: the backup never creates, changes or sets up the server's file
    uri = "file:" + urllib.parse.quote(os.path.abspath(src_path)) + "?mode=ro"
    try:
        src = sqlite3.connect(uri, uri=True, timeout=10)
    except sqlite3.Error as e:
        raise unusable(src_path, e) from None
    partial = d.with_name(f".{d.name}.partial-{os.getpid()}")
    try:
        try:
            names = [n for (n,) in src.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        except sqlite3.Error as e:
            raise unusable(src_path, e) from None
        if "tables" not in names:
            raise UnusableDatabaseError(f"{src_path} is not a sequence-game database (no 'tables' table)")
        try:
            out = sqlite3.connect(partial)
        except sqlite3.Error as e:
            raise UnusableDatabaseError(f"cannot write {dest_path} ({e})") from None
        try:
            src.backup(out)  # every page in one step: one consistent snapshot however busy the server
            counts = {n: int(out.execute(f'SELECT COUNT(*) FROM "{n}"').fetchone()[0])
                      for n in sorted(names) if not n.startswith("sqlite_")}
            (check,) = out.execute("PRAGMA quick_check(1)").fetchone()
            if check != "ok":
                raise UnusableDatabaseError(f"the copy of {src_path} does not check out ({check}); nothing written")
        except sqlite3.Error as e:
            raise UnusableDatabaseError(f"cannot write {dest_path} ({e})") from None
        finally:
            out.close()
        if d.exists():
            raise UnusableDatabaseError(f"{dest_path} exists; give the name of a new file")
        try:
            os.replace(partial, dest_path)
        except OSError as e:
            raise UnusableDatabaseError(f"cannot write {dest_path}: {e.strerror or e}") from None
        return counts
    finally:
        src.close()
        try:
            partial.unlink()
        except OSError:
            pass
