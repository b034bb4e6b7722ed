"""``sequence-game serve``: run the web app with uvicorn and open the browser."""

from __future__ import annotations

import logging
import sys
import threading
import webbrowser
from pathlib import Path
from typing import Any, Optional

from .store import UnusableDatabaseError, default_db_path

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def serve(host: str = "127.0.0.1", port: int = 8000, db: Optional[str] = None, open_browser: bool = True,
          ai_workers: Optional[int] = None, log_level: str = "info") -> int:
    """Serve until interrupted; returns the exit status."""
    import uvicorn

    from .app import create_app

    path = Path(db) if db else default_db_path()
    logging.basicConfig(level=getattr(logging, log_level.upper(), logging.INFO), format="%(message)s")
    if host not in LOOPBACK:
        print(f"warning: serving on {host}: anyone who can reach this machine on port {port} can open the "
              "page, create tables and watch games (seats still need their join links)", file=sys.stderr)
    try:
        app = create_app(path, ai_workers=ai_workers)
    except UnusableDatabaseError as e:  # one line, status 2 like the other usage errors of the CLI
        print(f"sequence-game serve: error: --db {_printable(str(e))}", file=sys.stderr)
        return 2
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    url = f"http://{'[' + shown + ']' if ':' in shown else shown}:{port}/"
    print(f"sequence-game: serving on {url} (database {path}); Ctrl+C stops", flush=True)
    config = uvicorn.Config(app, host=host, port=port, log_level=log_level, ws_max_size=64 * 1024,
                            access_log=False)
    server = uvicorn.Server(config)
    if open_browser:
        def opener() -> None:
            import time

            while not server.started and not server.should_exit:
                time.sleep(0.05)
            if server.started:
                webbrowser.open(url)

        threading.Thread(target=opener, daemon=True).start()
    server.run()
    return 0 if server.started else 1


def _printable(text: str) -> str:
    """``text`` with control characters (from a file name) shown as ``?``."""
    import unicodedata

    return "".join("?" if unicodedata.category(ch)[0] == "C" else ch for ch in text)


def main(args: Any) -> int:
    return serve(host=args.host, port=args.port, db=args.db, open_browser=not args.no_browser,
                 ai_workers=args.ai_workers)
