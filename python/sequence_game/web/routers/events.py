"""Waiting for changes without polling: the event stream of a table (NDJSON, like lichess's
``/api/bot/game/stream/{id}``) and the websocket's description in the OpenAPI document (the socket
itself: ``socket.py``; its frames' schemas: ``frames.py``)."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, AsyncIterator

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse, StreamingResponse

from .. import models
from ..deps import Client, Seats, Service, TableDep, TableId, errors_for
from ..frames import NDJSONResponse
from ..tables import Connection, Table, TableService

router = APIRouter(tags=["events"])

#: Seconds between keep-alive empty lines of an idle stream (proxies close silent connections).
KEEPALIVE = 20.0


@router.get("/api/tables/{table_id}/stream", response_model=models.StreamLine, response_class=NDJSONResponse,
            responses=errors_for(403, 404, 422, 429, 503),
            summary="Every change of the table as it happens, one JSON object a line (NDJSON)",
            openapi_extra={"security": [{}]})  # with the bearer scheme: the token is optional here
async def stream(table: TableDep, seats: Seats, service: Service, client: Client,
                 rematch: Annotated[bool, Query(description="a seat's stream stays open after the game for its "
                                                            "rematch offers, until the rematch table exists")] = False
                 ) -> StreamingResponse:
    """One line per event, as the websocket's frames: first a `state` with the whole view, then a
    `state` after every change (a move, an undo, an abort, the AI starting or stopping to think),
    a `presence` when a seat comes or goes, `timeout` and `flag` from the time controls. An empty
    line every 20 s keeps an idle stream open. The stream ends after the `state` of the finished
    game; with `rematch=true` a seat's stream goes on after it with the table's rematch offers (a
    `rematch-offer` line when one is made or accepted, and when it ends declined, withdrawn,
    expired or because a person left, each followed by a `state`) and ends after the `rematch`
    line naming the new table (a spectator's stream ends with the game all the same: the offers
    are the players' business). A seat's stream counts as the seat being connected (so a rematch
    offer does not end as "left" while it is open); streams count against the same caps as
    websockets (docs/security.md)."""
    conn = Connection(seats, client)
    table = service.adopt(table)  # a finished table: one copy in memory for all its connections
    try:
        service.connect(table, conn)  # refused past the caps, before any byte is sent
    except ValueError:
        service.evict_finished()
        raise
    return NDJSONResponse(_lines(service, table, conn, rematch and bool(seats)))


async def _lines(service: TableService, table: Table, conn: Connection, rematch: bool) -> AsyncIterator[str]:
    """The stream's lines; ``rematch``: a seat's stream that goes on after the game until the
    ``rematch`` frame (the offers reach only the seats that asked for them)."""
    try:
        while True:
            try:
                text = await asyncio.wait_for(conn.queue.get(), KEEPALIVE)
            except asyncio.TimeoutError:
                yield "\n"
                continue
            if text is None:  # the server dropped the connection (it fell behind, or shuts down)
                return
            yield text + "\n"
            if rematch:
                if text.startswith('{"type":"rematch",'):  # the new table exists: follow its stream
                    return
            elif text.startswith('{"type":"state"') and json.loads(text)["view"]["over"]:
                return
    finally:
        service.disconnect(table, conn)


WEBSOCKET = """Upgrade this path to a websocket (`ws://` or `wss://`) to play and watch in real time:
JSON text frames, at most 4 KiB from the client.

**Client frames**, in this order:

1. `{"type": "hello", "token": "<seat token>"}` (`null`: a spectator) within 10 s of connecting;
2. then any of `{"type": "move", "move": "7H@d6", "version": 12}` (version optional: a stale one is
   refused), `{"type": "undo"}`, `{"type": "hint"}`, `{"type": "analysis", "seconds": 5, "every":
   0.25}` (a streaming analysis of your position, both fields optional), `{"type": "stop"}` (ends
   it), `{"type": "reveal"}` (hot seat: show the hand of the seat to move), `{"type": "resign"}`,
   `{"type": "rematch"}` (offer a rematch, or accept the open offer), `{"type": "decline"}` (decline
   the open offer; its maker: withdraw it), `{"type": "ping"}`.

**Server frames** (their schemas: `x-server-frames` of this operation, `x-client-frames` for the
client's): `state` on connecting and after every change
(changes close together come as one state), `presence` when a seat comes or goes, `hint` to the
asker only, `analysis` updates to the asking connection only (the last has `done`; a `stop`, a
closed socket or a change of the table ends the search), `rematch-offer` when a rematch is offered,
accepted or ends without a rematch (declined, withdrawn, expired, a person left), `rematch` once the
rematch table exists, `error` for a refused frame, `pong`.

**Order.** Frames of one connection are handled in the order they were sent, and a `hint` is
answered before any later frame of that connection is handled: `hint` then `move` gives the hint
for the position it was asked in (its `version`), then the move's `state`. An `error` frame means
nothing changed: no `state` follows it. A connection refused before its hello (unknown table 404,
expired table 410, over the caps 429 or 503) is refused in the handshake with that HTTP status and
the error body; one refused at its hello (a wrong token, a bad or late hello) gets one `error`
frame, then a close with code 4000 + the HTTP status (4400, 4403, 4408).

A plain HTTP GET of this path is answered 426."""


@router.get("/api/tables/{table_id}/ws", summary="The table websocket (describes the protocol; upgrade to use it)",
            description=WEBSOCKET, response_class=JSONResponse, status_code=426,
            responses={426: {"description": "a plain HTTP request: upgrade to a websocket",
                             "model": models.ErrorBody}})
async def websocket_help(table_id: TableId) -> JSONResponse:
    return JSONResponse({"detail": "this is the table websocket: connect with a websocket client (see /docs)",
                         "error": "UpgradeRequired"}, status_code=426, headers={"Upgrade": "websocket"})
