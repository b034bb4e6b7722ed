"""``sequence-game serve``: the web board and the HTTP API (needs the ``[web]`` extra)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .common import CLIError, Parents, int_arg

if TYPE_CHECKING:
    from rich.console import Console



def cmd_serve(args: argparse.Namespace, console: Console) -> int:
    from .. import web

    missing = web.missing_dependencies()
    if missing:
        raise CLIError(f"{web.MISSING_EXTRA} (missing: {', '.join(missing)})")
    from ..web.serve import main as serve_main

    return serve_main(args)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    p = sub.add_parser("serve", help="play in the browser (needs the [web] extra)",
                       description="Serve the web board and the HTTP API (docs/web.md) and open the browser.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 opens it to the network and needs --allowed-host)")
    p.add_argument("--port", type=int_arg(0, 65535, "--port"), default=8000, help="port (default 8000)")
    p.add_argument("--db", metavar="FILE", default=None,
                   help="the SQLite database of tables (default: sequence-game/tables.sqlite3 in the user's "
                        "data directory)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--no-accounts", action="store_true",
                   help="no sign-up, login, ratings or player pages: everyone plays as a guest (docs/club.md)")
    p.add_argument("--ai-workers", type=int_arg(1, None, "--ai-workers"), default=None, metavar="N",
                   help="threads for AI searches (default: one per CPU)")
    p.add_argument("--allowed-host", action="append", metavar="NAME",
                   help="a host name clients use to reach the server (repeatable; needed with a --host other "
                        "than loopback; default: the loopback names); docs/security.md")
    p.add_argument("--trusted-proxy", action="append", metavar="ADDR",
                   help="address of a reverse proxy whose X-Forwarded-For names the client (repeatable)")
    p.add_argument("--limit", action="append", metavar="NAME=VALUE",
                   help="change one of the server's limits, e.g. idle_seconds=3600 or max_tables_per_client=5 "
                        "(repeatable; docs/security.md lists every NAME with its default)")
    p.add_argument("--no-chat", action="store_true",
                   help="switch the tables' chat off (players' and spectators'; docs/web.md, \"Chat\")")
    p.set_defaults(func=cmd_serve)
