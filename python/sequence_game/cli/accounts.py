"""``sequence-game accounts``: the operator's commands for the server's accounts (docs/club.md).

``create NAME``, ``reset-password NAME`` (the password is asked for twice on a terminal, or read as
the first line of standard input; never on the command line, where other users of the machine can
see it), ``disable NAME`` (its sessions end), ``enable NAME``, ``list``; ``reports`` lists the open
chat reports and ``reports close ID`` closes one (``web/social.py``: reports are never served over
HTTP). They work on the database ``serve`` uses (``--db``, the same default).
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import TYPE_CHECKING

from ..errors import printable
from .common import CLIError, Parents, int_arg

if TYPE_CHECKING:
    from rich.console import Console


def _password(name: str) -> str:
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass(f"password for {name}: ")
    if getpass.getpass("again: ") != first:
        raise CLIError("the two passwords differ; nothing changed")
    return first


def cmd_accounts(args: argparse.Namespace, console: Console) -> int:
    from .. import web

    missing = web.missing_dependencies()
    if missing:
        raise CLIError(f"{web.MISSING_EXTRA} (missing: {', '.join(missing)})")
    from ..web.club import Club
    from ..web.dbfile import UnusableDatabaseError, default_db_path
    from ..web.store import StoreError

    path = args.db or default_db_path()
    if args.action == "reports":
        return _reports(path, args)
    if args.report is not None:
        raise CLIError(f"accounts {args.action} takes one NAME, not an ID after it")
    try:
        club = Club(path)
    except UnusableDatabaseError as e:
        raise CLIError(f"--db {e}") from None
    try:
        if args.action == "list":
            for p in club.players(1_000_000, 0) + [club.summary(a) for a in _disabled(club)]:
                state = " (disabled)" if p["disabled"] else ""
                print(f"{p['name']}\t{p['rating']}{'?' if p['provisional'] else ''}\t{p['rated_games']} rated{state}")
            return 0
        if not args.name:
            raise CLIError(f"accounts {args.action} needs a NAME")
        name = args.name
        try:
            if args.action == "create":
                account = club.accounts.create(name, _password(name))
                print(f"created {account.name}")
            elif args.action == "reset-password":
                account = club.accounts.reset_password(name, _password(name))
                print(f"new password for {account.name}; its sessions ended")
            else:
                account = club.accounts.set_disabled(name, args.action == "disable")
                print(f"{account.name} is {'disabled: its sessions ended' if account.disabled else 'enabled'}")
        except KeyError as e:
            raise CLIError(printable(str(e.args[0]))) from None
        except ValueError as e:
            raise CLIError(printable(str(e))) from None
        return 0
    except StoreError as e:  # the file refused the read or the write (a full disk, a lock held too long)
        raise CLIError(printable(str(e))) from None
    finally:
        club.close()


def _reports(path: object, args: argparse.Namespace) -> int:
    """``accounts reports``: the open chat reports, oldest first, one a line (tab-separated: id, when
    (UTC), table, reporter and address, the name reported (with "account: KEY" when an account wrote
    it: ``accounts disable`` takes that name), the message); ``reports close ID``."""
    from datetime import datetime, timezone

    from ..web.dbfile import UnusableDatabaseError
    from ..web.social import SocialStore
    from ..web.store import StoreError

    if args.name not in (None, "close"):
        raise CLIError(f"accounts reports takes 'close ID' or nothing, not {printable(str(args.name))[:40]!r}")
    if args.name == "close" and args.report is None:
        raise CLIError("accounts reports close needs the ID of a report (the first column of 'accounts reports')")
    if args.name is None and args.report is not None:
        raise CLIError("accounts reports: to close a report, say 'accounts reports close ID'")
    try:
        store = SocialStore(path)  # type: ignore[arg-type]
    except UnusableDatabaseError as e:
        raise CLIError(f"--db {e}") from None
    try:
        if args.name == "close":
            if not store.close_report(args.report):
                raise CLIError(f"no open report {args.report} (see 'accounts reports')")
            print(f"report {args.report} closed")
            return 0
        rows = store.reports()
        for r in rows:
            when = datetime.fromtimestamp(r["at"], timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
            who = (f"account: {r['account']}" if r["account"] else "spectator" if r["channel"] == "spectators"
                   else "guest")
            reported = f"{r['reported']} ({who})"
            print("\t".join(printable(str(x)) for x in (
                r["id"], when, r["table"], f"{r['reporter']} ({r['address']})", reported, r["text"])))
        if not rows:
            print("no open reports", file=sys.stderr)
        return 0
    except StoreError as e:
        raise CLIError(str(e)) from None
    finally:
        store.close()


def _disabled(club: object) -> list:  # type: ignore[type-arg]
    from ..web.club import Club
    from ..web.club.accounts import Account, Accounts

    assert isinstance(club, Club)
    rows = club.store.fetch(f"SELECT {Accounts.COLUMNS} FROM accounts WHERE disabled = 1 ORDER BY key")
    return [Account(r[0], r[1], r[2], bool(r[3]), r[4], r[5], r[6]) for r in rows]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    from ..web.store import MAX_ROW_ID  # light: the standard library's sqlite3 only

    p = sub.add_parser("accounts", help="create, disable, enable or reset the server's accounts; read chat reports (needs [web])",
                       description="Manage the accounts of 'sequence-game serve' (docs/club.md). A password is "
                                   "asked for on the terminal, or read as the first line of standard input. "
                                   "'reports' lists the open chat reports, 'reports close ID' closes one.")
    p.add_argument("action", choices=["create", "disable", "enable", "reset-password", "list", "reports"])
    p.add_argument("name", nargs="?", metavar="NAME", help="the account's name ('reports close ID': close a report)")
    p.add_argument("report", nargs="?", metavar="ID", type=int_arg(1, MAX_ROW_ID, "a report's ID"),
                   help="the report to close (reports close ID)")
    p.add_argument("--db", metavar="FILE", default=None,
                   help="the server's SQLite database (default: the one 'serve' uses)")
    p.set_defaults(func=cmd_accounts)
