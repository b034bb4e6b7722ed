"""``sequence-game serve``: run the web app with uvicorn and open the browser."""

from __future__ import annotations

import gc
import logging
import sys
import threading
import webbrowser
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

from ..errors import printable
from .dbfile import UnusableDatabaseError, default_db_path
from .limits import LOOPBACK_HOSTS
from .store import StoreError


def serve(host: str = "127.0.0.1", port: int = 8000, db: Optional[str] = None, open_browser: bool = True,
          ai_workers: Optional[int] = None, log_level: str = "info", allowed_hosts: Sequence[str] = (),
          trusted_proxies: Sequence[str] = (), limit_settings: Sequence[str] = (), accounts: bool = True,
          chat: bool = True) -> int:
    """Serve until interrupted; returns the exit status.

    ``allowed_hosts``: the host names clients use to reach the server (the Host header; default:
    the loopback names, and required when ``host`` is not loopback); ``trusted_proxies``: addresses
    of reverse proxies whose X-Forwarded-For names the client (docs/security.md);
    ``limit_settings``: ``"NAME=VALUE"`` changes to :class:`~sequence_game.web.limits.ServerLimits`
    or to the club's :class:`~sequence_game.web.club.ClubSettings` or the tournaments'
    :class:`~sequence_game.web.tournaments.service.TournamentSettings` (``SETTABLE``);
    ``accounts``: sign-up, login and ratings (False: ``--no-accounts``, docs/club.md); ``chat``: the
    tables' chat is on (``--no-chat`` switches it off)."""
    import uvicorn

    from .app import create_app
    from .club import ClubSettings
    from .limits import ServerLimits, setting_name
    from .tournaments.service import TournamentSettings

    path = Path(db) if db else default_db_path()
    _log_to_stderr(getattr(logging, log_level.upper(), logging.INFO))
    if host not in LOOPBACK_HOSTS:
        if not allowed_hosts:
            print(f"error: serving on {host} needs the names clients will use to reach it: --allowed-host NAME "
                  "(repeat it for each; '*' accepts any name, which a DNS-rebinding page can use); "
                  "docs/security.md", file=sys.stderr)
            return 2
        print(f"warning: serving on {host}: anyone who can reach this machine on port {port} can open the "
              "page, create tables and watch games (seats still need their join links)", file=sys.stderr)
    # the club's limits (sign-up, login, hashing) and the tournaments' are set with --limit like
    # every other limit
    club_names, tournament_names = ClubSettings.SETTABLE, TournamentSettings.SETTABLE
    try:
        limits = ServerLimits(allowed_hosts=tuple(allowed_hosts)).with_settings(
            [s for s in limit_settings if setting_name(s) not in club_names + tournament_names],
            also=club_names + tournament_names)
        club = ClubSettings().with_settings([s for s in limit_settings if setting_name(s) in club_names])
        tournaments = TournamentSettings().with_settings(
            [s for s in limit_settings if setting_name(s) in tournament_names])
    except ValueError as e:
        print(f"sequence-game serve: error: {printable(str(e))}", file=sys.stderr)
        return 2
    try:
        app = create_app(path, ai_workers=ai_workers, limits=limits, accounts=accounts, chat=chat, club=club,
                         tournaments=tournaments)
    except UnusableDatabaseError as e:  # one line, status 2 like the other usage errors of the CLI
        print(f"sequence-game serve: error: --db {printable(str(e))}", file=sys.stderr)
        return 2
    except StoreError as e:  # a read refused while the unfinished tables are loaded (a failing disk)
        print(f"sequence-game serve: error: --db {printable(str(path))}: {printable(str(e))}", file=sys.stderr)
        return 2
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    url = f"http://{'[' + shown + ']' if ':' in shown else shown}:{port}/"
    print(f"sequence-game: serving on {url} (database {path}); Ctrl+C stops", flush=True)
    # log_config=None in the config: uvicorn's own dictConfig would close every logging handler of
    # the host process (logging.config clears the existing ones); its loggers write through ours
    # instead. uvicorn's info lines are one per websocket opened, closed or refused: written
    # synchronously on the event loop, a flood of refused sockets would turn into a flood of writes
    # that delay everyone's moves; its warnings and errors stay
    level = getattr(logging, log_level.upper(), logging.INFO)
    uvicorn_level = max(level, logging.WARNING) if level > logging.DEBUG else level
    _log_to_stderr(uvicorn_level, "uvicorn")
    config = server_config(app, host, port, uvicorn_level, trusted_proxies)
    server = uvicorn.Server(config)
    if open_browser:
        def opener() -> None:
            import time

            while not server.started and not server.should_exit:
                time.sleep(0.05)
            if server.started:
                webbrowser.open(url)

        threading.Thread(target=opener, daemon=True).start()
    # what exists once the app and the server's protocols are loaded lives as long as the process:
    # frozen out of the collector's view, a full collection (which stops the event loop) walks only
    # what the tables and connections made since, a third of the objects (docs/web.md, "Load")
    config.load()
    _build_routes(app)
    gc.collect()
    gc.freeze()
    stop = threading.Event()
    keeper = threading.Thread(target=_keep_full_collections_short, args=(stop,), name="gc-freezer", daemon=True)
    keeper.start()
    try:
        server.run()
    finally:
        stop.set()
    return 0 if server.started else 1


def server_config(app: Any, host: str, port: int, log_level: int, trusted_proxies: Sequence[str]) -> Any:
    """The ``uvicorn.Config`` that ``serve`` runs ``app`` (``create_app``'s) with."""
    import uvicorn

    from .handshake import early_refusing_protocol

    # a table's websocket past its cap is refused in uvicorn's HTTP protocol, before the hand-over
    # to the websocket library, a quarter of its cost (handshake.py); without httptools, uvicorn's
    # h11 protocol serves and the app's gate refuses it after the hand-over
    http = early_refusing_protocol(app.state.service, app.state.limits) or "h11"
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, log_config=None, ws_max_size=64 * 1024,
                          http=http, access_log=False,
                          # the client's address (per-client limits) comes from X-Forwarded-For only
                          # when the connection is from a proxy named here; otherwise anyone could
                          # claim any address
                          proxy_headers=bool(trusted_proxies), forwarded_allow_ips=list(trusted_proxies) or None,
                          # no permessage-deflate: its compression runs once per connection per
                          # message on the event loop, so every spectator socket of a table cost a
                          # compression of every state; a state frame is a few kB
                          ws_per_message_deflate=False,
                          # Ctrl-C or SIGTERM: requests still waiting for an analysis get 5 s, then stop
                          timeout_graceful_shutdown=5)


def _build_routes(app: Any) -> None:
    """Have FastAPI build every route now, before the server answers anyone.

    FastAPI builds the routes of an included router (their parameters' and models' validators)
    when the first request reaches that router, on the event loop: 10-55 ms of CPU each time a
    router is first used (the people doors, the tournaments, the accounts, the websocket), during
    which no table's move is relayed (docs/web.md, "Load"). Asking every route whether it matches
    a path none has, once per kind of request, builds them all here instead (about 0.2 s at
    startup); the answers to requests are unchanged."""
    for kind in ("http", "websocket"):
        scope: Dict[str, Any] = {"type": kind, "path": "/\x00", "root_path": "", "method": "GET", "headers": [], "query_string": b""}
        for route in app.router.routes:
            route.matches(scope)


#: Seconds between two freezes of what lives in the server (_keep_full_collections_short).
FREEZE_SECONDS = 1.0
#: Freezes between two full collections over everything (ten minutes).
FREEZES_PER_FULL_COLLECTION = 600


def _keep_full_collections_short(stop: threading.Event) -> None:
    """Freeze (``gc.freeze``) what lives in the server every second, and look at everything once
    every ten minutes.

    Python's full collection walks every object its collector tracks and holds the GIL, so the
    event loop stops, while it does: with 800 active tables that is about 590,000 objects and
    450 ms of CPU, every few seconds while tables come and go (docs/measurements.md, "Capacity of
    one server process"). What has lived through a second is nearly always a table's, a
    connection's or the server's and lives on; frozen, it is left out of the full collections,
    which then walk only what is newer. Frozen objects are still freed when their last reference
    goes; one that ends up in an unreachable reference cycle stays until the ten-minute collection
    over everything, which unfreezes, collects and freezes again."""
    freezes = 0
    while not stop.wait(FREEZE_SECONDS):
        freezes += 1
        if freezes % FREEZES_PER_FULL_COLLECTION == 0:
            gc.unfreeze()
            gc.collect()
        gc.freeze()


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes each record to ``sys.stderr`` as it is when the record is logged, not as it was when
    the server started (a caller, or a test, may swap the stream and close the old one)."""

    @property
    def stream(self) -> Any:
        return sys.stderr

    @stream.setter
    def stream(self, value: Any) -> None:
        pass


def _log_to_stderr(level: int, name: str = "sequence_game") -> None:
    """The log lines of logger ``name`` (the package's own, or uvicorn's) on standard error at
    ``level``: one handler on that logger, so serving never reconfigures the host program's root
    logger or its handlers."""
    logger = logging.getLogger(name)
    logger.setLevel(level)
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        logger.addHandler(handler)


def main(args: Any) -> int:
    return serve(host=args.host, port=args.port, db=args.db, open_browser=not args.no_browser,
                 ai_workers=args.ai_workers, allowed_hosts=args.allowed_host or (),
                 trusted_proxies=args.trusted_proxy or (), limit_settings=args.limit or (),
                 accounts=not getattr(args, "no_accounts", False), chat=not getattr(args, "no_chat", False))
