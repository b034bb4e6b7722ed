"""The table websocket (``/api/tables/{id}/ws``), JSON text frames of at most 4 KiB.

- client first: ``{"type": "hello", "token": "<seat token>"}`` (``null``: spectator), with
  ``"chat": true`` to take part in the table's chat;
- client then: ``{"type": "move", "move": "7H@d6", "version": 12}``, ``{"type": "undo"}``,
  ``{"type": "hint"}``, ``{"type": "analysis", "seconds": 5, "every": 0.25}`` (a streaming
  analysis), ``{"type": "stop"}`` (ends it), ``{"type": "reveal"}`` (hot seat), ``{"type": "resign"}`` (two teams),
  ``{"type": "abort"}`` (a game between people, before every first move: ``tables/opening.py``),
  ``{"type": "rematch"}`` (after the game: offer a rematch, or accept the open offer),
  ``{"type": "decline"}`` (decline the open offer; its maker: withdraw it), ``{"type": "ping"}``,
  ``{"type": "chat", "text": "..."}``
  (to the players' room from a seat, the spectators' from a spectator: ``tables/chat.py``),
  ``{"type": "report", "message": N}`` (flag chat message N for the operator);
- server: ``{"type": "state", "view": {...}}`` on connecting and after every change
  (``TableService.view``: what this connection may see and nothing else, R9; changes close together
  are sent as one state), ``{"type": "presence", "connected": [...]}`` when a seat comes or goes
  (one flag per seat), ``{"type": "hint", "move": ..., "version": N}`` to the asker only,
  ``{"type": "analysis", ...}`` updates (``models.AnalysisInfo``) to the asking connection only,
  ``{"type": "rematch-offer", "offer": {...}, "ended": null, "seat": null}`` when a rematch is
  offered or accepted, with ``"offer": null`` and ``ended`` (declined, withdrawn, expired, left) when
  an offer ends without a rematch, ``{"type": "rematch", "table": "<new id>"}`` once every person
  accepted and the rematch table exists (the same seat tokens work there),
  ``{"type": "timeout", "seat": p, "move": ...}`` when a turn timer ran out and the AI
  moved for that seat, ``{"type": "flag", "seat": p}`` when a seat's game clock ran out and its team
  lost on time, ``{"type": "chat-log", ...}`` after the first state to a hello with ``"chat": true`` (the
  chat's notice and the messages this connection may read), ``{"type": "chat", ...}`` for each new one it may read,
  ``{"type": "reported", "message": N}``,
  ``{"type": "error", "error": "IllegalMoveError", "detail": "..."}``, ``{"type": "pong"}``.

Frames are handled in the order sent; a hint runs while later frames are read, but a later frame
other than ``ping`` waits for its answer (hint then move: the hint is for the position it was asked
in). A streaming analysis holds no frame back; a change of the table ends it. An ``error`` frame means nothing changed: no ``state`` follows it. A websocket refused for
what is known before its hello (no such table, an expired one, over the caps) is refused in the
handshake with the HTTP status (``http.deny_websocket``); one refused at its hello (a wrong token, a
bad or late hello) gets one error message, then closes with code ``4000 + HTTP status``. The
frames' schemas: ``frames.py`` (the client's) and ``models.ServerFrame``, both in the OpenAPI document
(``frames.document_frames``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Dict, FrozenSet, Optional

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from ..club.web import account_of_cookie
from ..deps import Client, Quota, Service
from ..errors import (
    BadMessageError,
    BusyError,
    NotAllowedError,
    NotSavedError,
    TableError,
    TooLargeError,
    TooSlowError,
)
from ..frames import AnalysisMsg, Hello, parse_client_frame
from ..http import CreationQuota, deny_websocket, error_body, status_of
from ..tables import AnalysisRun, Connection, Table, TableService

log = logging.getLogger("sequence_game.web")

MAX_WS_MESSAGE = 4096  # bytes of a websocket message from a client
HELLO_TIMEOUT = 10.0  # seconds a new websocket has to say who it is

router = APIRouter()


def _error(e: Exception) -> Dict[str, str]:
    return {"type": "error", **error_body(e)}


@router.websocket("/api/tables/{table_id}/ws")
async def table_socket(websocket: WebSocket, table_id: str, service: Service, quota: Quota, client: Client) -> None:
    table: Optional[Table] = None
    try:
        # a finished table read from its row: one copy in memory for all its sockets (a rematch reaches each)
        table = service.adopt(await service.get_async(table_id))
        service.admit(table, client)  # counted from here on; refused past the caps (docs/security.md)
    except ValueError as e:
        if table is not None and table.over:
            service.evict_finished()  # a finished table adopted for a refused socket leaves memory again
        # refused in the handshake: what is known before the hello costs no accepted socket
        await deny_websocket(websocket, e)
        return
    conn: Optional[Connection] = None
    try:
        await websocket.accept()
        try:
            hello = parse_client_frame(await asyncio.wait_for(_receive(websocket), HELLO_TIMEOUT))
            if not isinstance(hello, Hello):
                raise BadMessageError("say hello first: {\"type\": \"hello\", \"token\": ...}")
            conn = Connection(service.seats_of(table, hello.token, "the hello's token"), client)
            account = await account_of_cookie(websocket)
            conn.account = None if account is None else account.key  # whose blocks hide chat (tables/chat.py)
            if not conn.seats and account is not None:  # a signed-in spectator chats under the account's name
                conn.chat_name = account.name
        except (ValueError, asyncio.TimeoutError) as e:
            await _close_with(websocket, e)
            return
        except WebSocketDisconnect:
            return
        service.attach(table, conn)
        if hello.chat:
            try:
                await service.read_chat(table)
                service.welcome_to_chat(table, conn)
            except NotSavedError as e:  # the table goes on without the chat; a later chat frame tries again
                conn.send(_error(e))
        await _serve(websocket, service, quota, table, conn)
    finally:
        if conn is not None:
            service.detach(table, conn)
        service.release(table, client)


async def _serve(websocket: WebSocket, service: TableService, quota: CreationQuota, table: Table,
                 conn: Connection) -> None:
    """The frames of an attached connection, until it closes (its messages go out through :func:`_pump`)."""
    seats = conn.seats
    writer = asyncio.create_task(_pump(websocket, conn))
    asking: Optional[asyncio.Task[None]] = None
    analysing: Optional[asyncio.Task[None]] = None
    run = AnalysisRun()
    try:
        while not writer.done():
            try:
                msg = parse_client_frame(await _receive(websocket))
                if isinstance(msg, Hello):
                    raise BadMessageError("already said hello")
                if msg.type == "stop":  # ends this connection's analysis (none running: nothing to do)
                    run.stop()
                    continue
                if msg.type != "ping" and asking is not None and not asking.done():
                    # a hint is answered before any later frame changes the table: "hint" then
                    # "move" gives the hint for the position it was asked in, then the move
                    await asyncio.wait({asking})
                if msg.type == "ping":
                    conn.send({"type": "pong"})
                elif msg.type == "move":
                    if not seats:
                        raise NotAllowedError("spectators cannot move")
                    await service.play(table, seats, msg.move, msg.version)
                elif msg.type == "chat":
                    await service.read_chat(table)
                    service.say(table, conn, msg.text)
                elif msg.type == "report":
                    await service.read_chat(table)  # a report may come before any hello asked for the chat
                    conn.send(service.report(table, conn, msg.message))
                elif msg.type == "undo":
                    await service.undo(table, seats)
                elif msg.type == "reveal":
                    service.reveal(table, seats)
                elif msg.type == "hint":
                    asking = asyncio.create_task(_hint(service, table, seats, conn))
                elif msg.type == "analysis":
                    if analysing is not None and not analysing.done():
                        raise BusyError("this connection's analysis is running already: send {\"type\": \"stop\"} "
                                        "first, or wait for its last frame (done)")
                    run = AnalysisRun()
                    analysing = asyncio.create_task(_analyse(service, table, seats, conn, msg, run))
                elif msg.type in ("resign", "abort", "rematch", "decline"):
                    if not seats:
                        what = "answer a rematch offer" if msg.type == "decline" else msg.type
                        raise NotAllowedError(f"spectators cannot {what}: this needs a seat's join link")
                    if msg.type == "resign":
                        await service.resign(table, seats)
                    elif msg.type == "abort":
                        await service.abort(table, seats)
                    else:
                        quota.take(conn.client)
                        if msg.type == "rematch":
                            await service.rematch(table, seats, conn.client)
                        else:
                            await service.decline_rematch(table, seats)
            except (TableError, ValueError, TypeError) as e:
                conn.send(_error(e))
    except WebSocketDisconnect:
        pass
    finally:
        run.stop()  # a closed socket ends its analysis: the running slice at its next iteration
        for task in (asking, analysing):
            if task is not None:
                task.cancel()
        writer.cancel()


async def _receive(websocket: WebSocket) -> str:
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000))
    text: Optional[str] = message.get("text")
    if text is None:
        raise BadMessageError("send JSON text frames, not binary")
    if len(text) > MAX_WS_MESSAGE:
        raise TooLargeError(f"message over {MAX_WS_MESSAGE} bytes")
    return text


async def _close_with(websocket: WebSocket, e: Exception) -> None:
    if isinstance(e, asyncio.TimeoutError):
        e = TooSlowError(f"no hello within {HELLO_TIMEOUT:g} s")
    try:
        await websocket.send_json(_error(e))
        await websocket.close(code=4000 + status_of(e))
    except (WebSocketDisconnect, RuntimeError, OSError):  # the client is gone already
        pass


async def _pump(websocket: WebSocket, conn: Connection) -> None:
    """Send the connection's queued messages (JSON text) in order; a None in the queue closes it."""
    try:
        while True:
            text = await conn.queue.get()
            if text is None:
                await websocket.close(code=4008)
                return
            await websocket.send_text(text)
    except (WebSocketDisconnect, RuntimeError, OSError):  # the client went away
        return


async def _hint(service: TableService, table: Table, seats: FrozenSet[int], conn: Connection) -> None:
    version = table.version  # the position asked about: later frames wait for this answer
    try:
        move = await service.hint(table, seats, conn.client)
        conn.send({"type": "hint", "move": str(move), "version": version})
    except (TableError, ValueError) as e:
        conn.send(_error(e))


async def _analyse(service: TableService, table: Table, seats: FrozenSet[int], conn: Connection,
                   msg: AnalysisMsg, run: AnalysisRun) -> None:
    """A streaming analysis for this connection alone (R9: it reads the asking seat's hand)."""
    try:
        if not seats:
            raise NotAllowedError("spectators cannot ask for an analysis: this needs the seat to move's join link")
        seconds = min(msg.seconds, service.max_ai_seconds)
        async for update in service.analysis_stream(table, seats, seconds, msg.every, conn.client, run):
            conn.send(update)
    except (TableError, ValueError) as e:
        conn.send(_error(e))
