"""``sequence-game backup FILE``: a copy of the server's database, safe while ``serve`` runs
(SQLite's online backup; docs/club.md, "Backup and restore")."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..errors import printable
from .common import CLIError, Parents

if TYPE_CHECKING:
    from rich.console import Console


def cmd_backup(args: argparse.Namespace, console: Console) -> int:
    from ..web.dbfile import UnusableDatabaseError, backup, default_db_path

    path = args.db or str(default_db_path())
    try:
        counts = backup(path, args.file)
    except UnusableDatabaseError as e:
        raise CLIError(printable(str(e))) from None
    kept = ", ".join(f"{counts[name]} {what}" for name, what in (("tables", "tables"), ("accounts", "accounts"))
                     if name in counts)
    print(f"backed up {printable(path)} to {printable(args.file)} ({kept})")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    p = sub.add_parser("backup", help="copy the server's database to a new file, safe while 'serve' runs",
                       description="Copy the database of 'sequence-game serve' to FILE with SQLite's online "
                                   "backup: safe while the server runs, FILE never overwritten. Restore: "
                                   "docs/club.md, \"Backup and restore\".")
    p.add_argument("file", metavar="FILE", help="the new file to write (it must not exist)")
    p.add_argument("--db", metavar="FILE", default=None,
                   help="the server's SQLite database (default: the one 'serve' uses)")
    p.set_defaults(func=cmd_backup)
