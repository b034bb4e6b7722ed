"""The ASGI application: the pages, the HTTP API (OpenAPI at ``/docs``) and the table websockets.

``create_app(db_path)`` builds it; ``sequence-game serve`` runs it with uvicorn. The state (the
:class:`~sequence_game.web.tables.TableService`) lives on ``app.state.service`` and reaches every
route through FastAPI dependencies.

Websocket protocol (``/api/tables/{id}/ws``), JSON text frames of at most 4 KiB:

- client first: ``{"type": "hello", "token": "<seat token>"}`` (``null``: spectator);
- client then: ``{"type": "move", "move": "7H@d6", "version": 12}``, ``{"type": "undo"}``,
  ``{"type": "hint"}``, ``{"type": "reveal"}`` (hot seat), ``{"type": "ping"}``;
- server: ``{"type": "state", "view": {...}}`` after every change (``TableService.view``: what this
  connection may see and nothing else, R9), ``{"type": "hint", "move": ...}`` to the asker only,
  ``{"type": "error", "error": "IllegalMoveError", "detail": "..."}``, ``{"type": "pong"}``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, AsyncIterator, Dict, FrozenSet, List, Literal, Optional, Union

from fastapi import Depends, FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..errors import IllegalMoveError, InvalidMoveError
from ..gamebase import GameClass
from . import models
from .limits import ServerLimits
from .store import TableStore
from .tables import Connection, Table, TableError, TableService, preset_list

__all__ = ["MAX_BODY", "MAX_WS_MESSAGE", "create_app"]

log = logging.getLogger("sequence_game.web")

MAX_BODY = 256 * 1024  # bytes of an HTTP request body (a long record's moves fit)
MAX_WS_MESSAGE = 4096  # bytes of a websocket message from a client
HELLO_TIMEOUT = 10.0  # seconds a new websocket has to say who it is
STATIC = Path(str(resources.files(__package__) / "static"))


# --------------------------------------------------------------------------- websocket messages


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Hello(_Msg):
    type: Literal["hello"]
    token: Optional[str] = Field(None, max_length=128)


class PlayMsg(_Msg):
    type: Literal["move"]
    move: str = Field(max_length=models.MOVE_TEXT_MAX)
    version: Optional[int] = Field(None, ge=0)


class SimpleMsg(_Msg):
    type: Literal["undo", "hint", "reveal", "ping"]


ClientMessage = TypeAdapter(Annotated[Union[PlayMsg, SimpleMsg, Hello], Field(discriminator="type")])


def _error(e: Exception) -> Dict[str, str]:
    return {"type": "error", "error": type(e).__name__, "detail": str(e)}


def _status(e: Exception) -> int:
    if isinstance(e, TableError):
        return e.status
    if isinstance(e, IllegalMoveError):
        return 409  # well-formed, but not allowed in this position
    return 422  # InvalidMoveError, ValueError, TypeError: malformed input


# --------------------------------------------------------------------------- dependencies


def get_service(request: Request) -> TableService:
    service: TableService = request.app.state.service
    return service


bearer = HTTPBearer(auto_error=False, description="a seat token from a join link")


def get_table(table_id: str, service: Annotated[TableService, Depends(get_service)]) -> Table:
    return service.get(table_id)


def get_seats(
    table: Annotated[Table, Depends(get_table)],
    service: Annotated[TableService, Depends(get_service)],
    credentials: Annotated[Optional[HTTPAuthorizationCredentials], Depends(bearer)],
) -> FrozenSet[int]:
    return service.seats_of(table, credentials.credentials if credentials else None)


def require_seat(seats: Annotated[FrozenSet[int], Depends(get_seats)]) -> FrozenSet[int]:
    if not seats:
        raise TableError("this needs a seat: send its token as 'Authorization: Bearer <token>'", 401)
    return seats


Service = Annotated[TableService, Depends(get_service)]
TableDep = Annotated[Table, Depends(get_table)]
Seats = Annotated[FrozenSet[int], Depends(get_seats)]
SeatsRequired = Annotated[FrozenSet[int], Depends(require_seat)]
ERRORS: Dict[Union[int, str], Dict[str, Any]] = {s: {"model": models.ErrorBody} for s in (401, 403, 404, 409, 422)}


class BodyLimit:
    """ASGI middleware: refuse an HTTP body over ``MAX_BODY`` bytes with 413 before reading it all."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                return await _too_large(send, self.limit)
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise TableError(f"request body over {self.limit} bytes", 413)
            return message

        await self.app(scope, limited, send)


async def _too_large(send: Send, limit: int) -> None:
    body = json.dumps({"detail": f"request body over {limit} bytes", "error": "TooLarge"}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


# --------------------------------------------------------------------------- the app


def create_app(db_path: Union[str, Path] = ":memory:", ai_pause: float = 0.4, ai_workers: Optional[int] = None,
               max_ai_seconds: Optional[float] = None, game_class: Optional[GameClass] = None,
               limits: Optional[ServerLimits] = None) -> FastAPI:
    """The web app over the table database at ``db_path`` (``":memory:"``: nothing kept).

    ``ai_pause``: the least time an AI move takes, so people can follow the play; ``limits``: every
    bound the server enforces (:class:`~sequence_game.web.limits.ServerLimits`, docs/security.md);
    ``ai_workers`` and ``max_ai_seconds``, if given, replace those two of ``limits``.
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        service: TableService = app.state.service
        service.start_ai()
        yield
        await service.close()

    limits = limits or ServerLimits()
    if ai_workers is not None:
        limits = dataclasses.replace(limits, ai_workers=ai_workers)
    if max_ai_seconds is not None:
        limits = dataclasses.replace(limits, max_ai_seconds=max_ai_seconds)
    store = TableStore(db_path)
    service = TableService(store, ai_pause=ai_pause, game_class=game_class, limits=limits)
    resumed = service.resume()
    if resumed:
        log.info("resumed %d unfinished table(s) from %s", resumed, db_path)

    app = FastAPI(
        title="sequence-game",
        summary="Play Sequence: tables for humans and AIs, the engine as the authority.",
        description=(
            "Create a table, join a seat with its token (`Authorization: Bearer <token>`), read the "
            "state as that seat sees it (R9: your own hand only), play moves in the text notation "
            "(`7H@d6`, `JSxe5`, `trade 7H`, `pass`), ask the AI for a move or an analysis. "
            "Refused moves are JSON `{detail, error}` with the Python API's message: 409 for a move "
            "the rules do not allow now, 422 for malformed input, 403 for a wrong token."
        ),
        version="1",
        lifespan=lifespan,
    )
    app.state.service = service
    app.state.store = store
    app.add_middleware(BodyLimit)

    @app.exception_handler(TableError)
    @app.exception_handler(IllegalMoveError)
    @app.exception_handler(InvalidMoveError)
    @app.exception_handler(ValueError)
    async def refused(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"detail": str(exc), "error": type(exc).__name__}, status_code=_status(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            where = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
            parts.append(f"{where}: {err.get('msg')}" if where else str(err.get("msg")))
        return JSONResponse({"detail": "; ".join(parts), "error": "ValidationError"}, status_code=422)

    # ------------------------------------------------------------------ pages

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    board_svg_text = _empty_board_svg(service.game_class)

    @app.get("/", include_in_schema=False)
    async def lobby() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/table/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> FileResponse:
        return FileResponse(STATIC / "table.html")

    @app.get("/replay/{table_id}", include_in_schema=False)
    async def replay_page(table_id: str) -> FileResponse:
        return FileResponse(STATIC / "replay.html")

    @app.get("/board.svg", include_in_schema=False)
    async def board_svg() -> Response:
        return Response(board_svg_text, media_type="image/svg+xml",
                        headers={"Cache-Control": "public, max-age=3600"})

    # ------------------------------------------------------------------ the API

    @app.post("/api/tables", status_code=201, response_model=models.TableCreated, responses=ERRORS,
              tags=["tables"], summary="Create a table")
    async def create_table(body: models.CreateTable, request: Request, service: Service) -> models.TableCreated:
        seats = body.seats
        if seats is None:
            seats = [models.SeatSpec(kind="human")] + [models.SeatSpec(kind="ai", ai="medium")
                                                        for _ in range(body.players - 1)]
        table, tokens = await service.create(
            body.players, body.teams, [s.model_dump() for s in seats], seed=body.seed, max_turns=body.max_turns,
            hot_seat=body.hot_seat, ai_seconds=min(body.ai_seconds, service.max_ai_seconds), moves=body.moves)
        base = str(request.base_url).rstrip("/")
        links, seen = [], set()
        for seat, token in sorted(tokens.items()):
            if token in seen:
                continue
            seen.add(token)
            links.append(models.SeatLink(seat=seat, token=token, url=f"{base}/table/{table.id}#seat={token}"))
        return models.TableCreated(table=table.id, seats=links, spectate_url=f"{base}/table/{table.id}")

    @app.get("/api/presets", response_model=List[models.PresetInfo], tags=["ai"],
             summary="The AI strengths a seat may ask for, weakest first")
    async def list_presets() -> List[Dict[str, Any]]:
        return preset_list()

    @app.get("/api/tables", response_model=List[models.TableSummary], tags=["tables"],
             summary="List the tables (public information)")
    async def list_tables(service: Service, finished: Optional[bool] = None) -> List[Dict[str, Any]]:
        return await service.lobby(finished)

    @app.get("/api/tables/{table_id}", responses=ERRORS, tags=["play"],
             summary="The table as your seat sees it (no token: as a spectator)")
    async def read_table(table: TableDep, seats: Seats, service: Service) -> Dict[str, Any]:
        return service.view(table, seats)

    @app.post("/api/tables/{table_id}/moves", response_model=models.MoveResponse, responses=ERRORS, tags=["play"],
              summary="Play a move for your seat")
    async def play(body: models.MoveRequest, table: TableDep, seats: SeatsRequired, service: Service) -> Dict[str, Any]:
        move = await service.play(table, seats, body.move, body.version)
        return {"move": str(move), "view": service.view(table, seats)}

    @app.post("/api/tables/{table_id}/undo", response_model=models.UndoResponse, responses=ERRORS, tags=["play"],
              summary="Take back your last move (games against the AI only)")
    async def undo(table: TableDep, seats: SeatsRequired, service: Service) -> Dict[str, Any]:
        n = await service.undo(table, seats)
        return {"undone": n, "view": service.view(table, seats)}

    @app.post("/api/tables/{table_id}/hint", response_model=models.HintResponse, responses=ERRORS, tags=["ai"],
              summary="The AI's suggestion for your move")
    async def hint(table: TableDep, seats: SeatsRequired, service: Service) -> Dict[str, Any]:
        return {"move": str(await service.hint(table, seats))}

    @app.post("/api/tables/{table_id}/analysis", response_model=models.Analysis, responses=ERRORS, tags=["ai"],
              summary="MCTS root statistics of your position, with a time budget")
    async def analysis(body: models.AnalyzeRequest, table: TableDep, seats: SeatsRequired,
                       service: Service) -> Dict[str, Any]:
        return await service.analyze(table, seats, min(body.seconds, service.max_ai_seconds))

    @app.get("/api/tables/{table_id}/record", responses=ERRORS, tags=["records"],
             summary="The finished game as a sequence-game-record/1 JSON file")
    async def record(table: TableDep) -> Response:
        _check_finished(table)
        return Response(table.record.to_json(), media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="sequence-{table.id}.json"'})

    @app.get("/api/tables/{table_id}/replay", response_model=models.Replay, responses=ERRORS, tags=["records"],
             summary="Every position of a finished game, for stepping through it")
    async def replay(table: TableDep, service: Service) -> Dict[str, Any]:
        _check_finished(table)
        steps = []
        players: List[Optional[int]] = [None, *table.movers]
        for step in table.record.positions(service.game_class):
            state = step.game.to_dict()  # the game is over: every card may be shown now
            del state["rng"]
            steps.append({"index": step.index, "player": players[step.index],
                          "move": None if step.move is None else str(step.move), "state": state})
        return {"record": table.record.to_dict(), "names": [s.name for s in table.seats], "steps": steps}

    # ------------------------------------------------------------------ the websocket

    @app.websocket("/api/tables/{table_id}/ws")
    async def table_socket(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        service: TableService = websocket.app.state.service
        try:
            table = await service.get_async(table_id)
            hello = _parse(await asyncio.wait_for(_receive(websocket), HELLO_TIMEOUT))
            if not isinstance(hello, Hello):
                raise TableError("say hello first: {\"type\": \"hello\", \"token\": ...}", 400)
            seats = service.seats_of(table, hello.token)
        except (TableError, ValueError, asyncio.TimeoutError) as e:
            await _close_with(websocket, e)
            return
        except WebSocketDisconnect:
            return
        conn = Connection(seats)
        writer = asyncio.create_task(_pump(websocket, conn))
        service.connect(table, conn)
        hinting: Optional[asyncio.Task[None]] = None
        try:
            while not writer.done():
                try:
                    msg = _parse(await _receive(websocket))
                    if isinstance(msg, Hello):
                        raise TableError("already said hello", 400)
                    if msg.type == "ping":
                        conn.send({"type": "pong"})
                    elif msg.type == "move":
                        if not seats:
                            raise TableError("spectators cannot move", 403)
                        await service.play(table, seats, msg.move, msg.version)
                    elif msg.type == "undo":
                        await service.undo(table, seats)
                    elif msg.type == "reveal":
                        service.reveal(table, seats)
                    elif msg.type == "hint" and (hinting is None or hinting.done()):
                        hinting = asyncio.create_task(_hint(service, table, seats, conn))
                except (TableError, ValueError, TypeError) as e:
                    conn.send(_error(e))
        except WebSocketDisconnect:
            pass
        finally:
            if hinting is not None:
                hinting.cancel()
            service.disconnect(table, conn)
            writer.cancel()

    return app


def _check_finished(table: Table) -> None:
    if not table.game.is_over:
        # the record holds the seed, which predicts every hidden card (R9): only after the end
        raise TableError("the game is not over: its record (with the seed) is kept secret until the end", 409)


def _empty_board_svg(game_class: GameClass) -> str:
    from ..svg import board_svg

    return board_svg(game_class(players=2, seed=0), size=600)


async def _receive(websocket: WebSocket) -> str:
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text: Optional[str] = message.get("text")
    if text is None:
        raise TableError("send JSON text frames, not binary", 400)
    if len(text) > MAX_WS_MESSAGE:
        raise TableError(f"message over {MAX_WS_MESSAGE} bytes", 413)
    return text


def _parse(text: str) -> Any:
    try:
        return ClientMessage.validate_json(text)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise TableError(f"bad message ({where}: {first.get('msg')}); see the protocol in docs/web.md", 422) from None


async def _close_with(websocket: WebSocket, e: Exception) -> None:
    if isinstance(e, asyncio.TimeoutError):
        e = TableError("no hello within 10 s", 408)
    try:
        await websocket.send_json(_error(e))
        await websocket.close(code=4000 + _status(e))
    except (WebSocketDisconnect, RuntimeError, OSError):  # the client is gone already
        pass


async def _pump(websocket: WebSocket, conn: Connection) -> None:
    """Send the connection's queued messages in order; a None in the queue closes it."""
    try:
        while True:
            message = await conn.queue.get()
            if message is None:
                await websocket.close(code=4008)
                return
            await websocket.send_text(json.dumps(message, separators=(",", ":")))
    except (WebSocketDisconnect, RuntimeError, OSError):  # the client went away
        return


async def _hint(service: TableService, table: Table, seats: FrozenSet[int], conn: Connection) -> None:
    try:
        move = await service.hint(table, seats)
        conn.send({"type": "hint", "move": str(move), "version": table.version})
    except (TableError, ValueError) as e:
        conn.send(_error(e))
