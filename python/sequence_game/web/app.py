"""The ASGI application: the pages, the HTTP API (OpenAPI at ``/docs``) and the table websockets.

``create_app(db_path)`` builds it; ``sequence-game serve`` runs it with uvicorn. The server's parts
(the :class:`~sequence_game.web.tables.TableService`, the club, the seeks, ...) are built and wired
in one place, ``env.py``; they live on ``app.state`` and reach every route through FastAPI
dependencies (``deps.py``); the routes are in ``routers/``, one module per
concern, the websocket protocol in ``routers/socket.py``. The service raises domain errors
(``errors.py``); :mod:`~sequence_game.web.http` alone turns them into HTTP statuses.
"""

from __future__ import annotations

import ast
import dataclasses
import logging
from contextlib import asynccontextmanager
from pathlib import Path
from types import FrameType
from typing import Any, AsyncIterator, Dict, Optional, Union

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import IllegalMoveError, InvalidMoveError
from ..gamebase import GameClass
from .club import ClubSettings
from .deps import errors_for
from .env import build_env
from .errors import TableError
from .frames import document_frames
from .gate import EarlyRefusal
from .http import BodyLimit, HostGuard, error_body, status_of
from .limits import ServerLimits
from .pages import DOCS_ASSETS, STATIC, docs_assets_dir
from .routers import accounts as accounts_routes
from .routers import ai, events, pages, people, play, players, records, review, seeks, socket, tables
from .routers import tournaments as tournaments_routes
from .routers.socket import MAX_WS_MESSAGE
from .tournaments.service import TournamentSettings

__all__ = ["MAX_BODY", "MAX_WS_MESSAGE", "create_app"]

log = logging.getLogger("sequence_game.web")

MAX_BODY = 256 * 1024  # bytes of an HTTP request body (a long record's moves fit)


def create_app(db_path: Union[str, Path] = ":memory:", ai_pause: Optional[float] = None, ai_workers: Optional[int] = None,
               max_ai_seconds: Optional[float] = None, game_class: Optional[GameClass] = None,
               limits: Optional[ServerLimits] = None, accounts: bool = True,
               club: Optional[ClubSettings] = None, chat: bool = True,
               tournaments: Optional[TournamentSettings] = None) -> FastAPI:
    """The web app over the table database at ``db_path`` (``":memory:"``: nothing kept).

    ``limits``: every bound the server enforces (:class:`~sequence_game.web.limits.ServerLimits`,
    docs/security.md); ``ai_pause`` (the least time an AI move takes, so people can follow the play:
    ``ServerLimits.ai_pause``, 0.4 s by default), ``ai_workers`` and ``max_ai_seconds``, if given,
    replace those of ``limits``. ``accounts``: sign-up, login, ratings and player pages (docs/club.md;
    False: everyone is a guest, ``serve --no-accounts``); ``club``: their settings. ``chat``: the
    tables' chat is on (``serve --no-chat`` switches it off). ``tournaments``: the tournaments'
    settings (docs/club.md, "Tournaments"; they need accounts).

    Embedded in a script of your own, call it under ``if __name__ == "__main__":`` (docs/web.md,
    "Embedding the app"): the AI's worker processes start by importing your script again, so a
    call from the script's top level outside the guard is refused at once with a RuntimeError
    saying so (and, should that check not see it, in each worker that imports the script).
    """
    _refuse_in_a_worker_bootstrap()
    _refuse_an_unguarded_script()
    limits = limits or ServerLimits()
    if ai_pause is not None:
        limits = dataclasses.replace(limits, ai_pause=ai_pause)
    if ai_workers is not None:
        limits = dataclasses.replace(limits, ai_workers=ai_workers)
    if max_ai_seconds is not None:
        limits = dataclasses.replace(limits, max_ai_seconds=max_ai_seconds)

    env = build_env(db_path, limits, game_class=game_class, accounts=accounts, club=club, chat=chat,
                    tournaments=tournaments)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        env.start()
        yield
        await env.close()

    app = FastAPI(
        title="sequence-game",
        summary="Play Sequence: tables for humans and AIs, the engine as the authority.",
        description=(
            "Create a table, join a seat with its token (`Authorization: Bearer <token>`), read the "
            "state as that seat sees it (R9: your own hand only), play moves in the text notation "
            "(`7H@d6`, `JSxe5`, `trade 7H`, `pass`), ask the AI for a move or an analysis. "
            "Refused requests are JSON `{detail, error}` with the Python API's message: 409 for a move "
            "the rules do not allow now, 422 for malformed input, 403 for a wrong token, 429 for too "
            "many requests from one client or seat, 503 when the server is full (docs/security.md)."
        ),
        version="1",
        lifespan=lifespan,
        # any request: a Host this server does not answer to or a body that is not JSON (400), a body
        # over the limit (413), a field out of its bounds (422; our error body, not FastAPI's list)
        responses=errors_for(400, 413, 422),
        docs_url=None,  # served below from local files, not a CDN
        redoc_url=None,
    )
    # the parts as the routes reach them (deps.py), each made and wired once by build_env
    app.state.env = env
    app.state.service = env.service
    app.state.reviews = env.reviews
    app.state.store = env.store
    app.state.club = env.club
    app.state.limits = env.limits
    app.state.quota = env.quota
    app.state.seeks = env.seeks
    app.state.standing = env.standing
    app.state.social = env.social
    app.state.tournaments = env.tournaments
    app.state.lobby = env.lobby
    app.add_middleware(BodyLimit, limit=MAX_BODY)
    app.add_middleware(EarlyRefusal, service=env.service, quota=env.quota, club=env.club)  # gate.py: floods refused cheaply
    app.add_middleware(HostGuard, limits=limits)  # added last: runs first

    # the one place where refusals become HTTP responses (http.STATUS)
    @app.exception_handler(TableError)
    @app.exception_handler(IllegalMoveError)
    @app.exception_handler(InvalidMoveError)
    @app.exception_handler(ValueError)
    async def refused(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse(error_body(exc), status_code=status_of(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # every method of the path, not only those of the first route that matched it
            path = request.url.path
            methods = {m for r in request.app.router.routes if isinstance(r, APIRoute) and r.path_regex.match(path)
                       for m in r.methods or ()}
            headers["Allow"] = ", ".join(sorted(methods))
        return JSONResponse({"detail": str(exc.detail), "error": "HTTPError"}, status_code=exc.status_code,
                            headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            loc = tuple(err.get("loc", ()))
            where = ".".join(str(x) for x in loc if x != "body")
            if loc == ("body",):  # the body itself: missing or not an object
                where = "request body (a JSON object; {} takes the defaults)"
            parts.append(f"{where}: {err.get('msg')}" if where else str(err.get("msg")))
        return JSONResponse({"detail": "; ".join(parts), "error": "ValidationError"}, status_code=422)

    document = app.openapi

    def openapi() -> Dict[str, Any]:
        # the websocket's frames join the generated document once (FastAPI documents no websocket)
        if app.openapi_schema is None:
            app.openapi_schema = document_frames(document())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.mount(DOCS_ASSETS, StaticFiles(directory=docs_assets_dir()), name="docs-assets")
    app.include_router(pages.api_docs_routes(app.openapi_url or "/openapi.json", app.title))
    app.include_router(pages.router)
    app.include_router(pages.language_router)
    app.include_router(pages.board_svg_route(_empty_board_svg(env.service.game_class)))
    for router in (tables.router, play.router, ai.router, records.router, review.router, events.router,
                   seeks.router, socket.router, accounts_routes.router, tournaments_routes.router, players.router,
                   people.router):
        app.include_router(router)
    return app


def _empty_board_svg(game_class: GameClass) -> str:
    from ..svg import board_svg

    return board_svg(game_class(players=2, seed=0), size=600)


#: What a worker process says when it finds itself re-running the server's own script.
UNGUARDED = ("create_app() was called while an AI worker process was starting: it starts by importing the "
             "script that runs the server again, so call create_app() and uvicorn.run() under "
             "'if __name__ == \"__main__\":' (docs/web.md, \"Embedding the app\")")


def _refuse_in_a_worker_bootstrap() -> None:
    """Raise RuntimeError(UNGUARDED) in a spawned worker process that is importing the main script
    (multiprocessing runs it as ``__mp_main__`` there): the script's top-level create_app would start
    a server inside every worker."""
    import multiprocessing
    import sys

    # while a worker runs the script, runpy holds it in sys.modules as a module named "__mp_main__" (in
    # the server's own process that entry is the __main__ module itself)
    running = getattr(sys.modules.get("__mp_main__"), "__name__", None) == "__mp_main__"
    if running and multiprocessing.current_process().name != "MainProcess":
        raise RuntimeError(UNGUARDED)


def _refuse_an_unguarded_script() -> None:
    """Raise RuntimeError when create_app runs from the top level of the main script outside its
    ``if __name__ == "__main__":`` guard, before any server starts: every AI worker process (started
    with spawn) imports that script again, would call create_app there and die, and the tables
    whose AI thinks in a worker would wait for a move that never comes."""
    import sys

    main = sys.modules.get("__main__")
    spec_name = getattr(getattr(main, "__spec__", None), "name", None)
    path = getattr(main, "__file__", None)
    # what spawn imports again in a worker (multiprocessing.spawn.get_preparation_data): the script,
    # or the module run with -m, but never a package's __main__; an interactive session or -c nothing
    if main is None or not path or (spec_name is not None and spec_name.split(".")[-1] == "__main__"):
        return
    frame: Optional[FrameType] = sys._getframe(1)
    while frame is not None and not (frame.f_code.co_name == "<module>" and frame.f_globals is vars(main)):
        frame = frame.f_back
    if frame is None:  # not called while the script's own top level runs (a thread, an event, later)
        return
    line = frame.f_lineno
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):  # no readable source: the workers' own check remains
        return
    if not any(_is_main_guard(node.test) and node.body[0].lineno <= line <= (node.body[-1].end_lineno or line)
               for node in ast.walk(tree) if isinstance(node, ast.If)):
        raise RuntimeError(
            f"create_app() was called from the top level of {path} (line {line}) outside "
            "'if __name__ == \"__main__\":'. The AI's worker processes start by importing that script "
            "again, so each would run it and the AI seats would never move: put the create_app() and "
            "uvicorn.run() calls under that guard (docs/web.md, \"Embedding the app\")")


def _is_main_guard(test: ast.expr) -> bool:
    """Whether an ``if`` test holds ``__name__ == "__main__"`` (either way round, maybe in an ``and``)."""
    for node in ast.walk(test):
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq):
            sides = [node.left, node.comparators[0]]
            if (any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides)
                    and any(isinstance(x, ast.Constant) and x.value == "__main__" for x in sides)):
                return True
    return False
