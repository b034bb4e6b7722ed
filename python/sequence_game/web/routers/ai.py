"""The AI for people: the strengths a seat may ask for, a hint, an analysis of your position."""

from __future__ import annotations

import json
from typing import Any, AsyncIterator, Dict, List

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from .. import models
from ..deps import Client, SeatsRequired, Service, TableDep, errors_for
from ..errors import TableError
from ..frames import NDJSONResponse
from ..http import error_body
from ..presets import preset_list

router = APIRouter(tags=["ai"])
ASKING = errors_for(401, 403, 404, 409, 422, 429, 501, 503)


@router.get("/api/presets", response_model=List[models.PresetInfo],
            summary="The AI strengths a seat may ask for, weakest first")
async def list_presets() -> List[Dict[str, Any]]:
    """The presets an AI seat may be given (`seats[i].ai` of POST /api/tables): what plays and the
    longest it thinks per move."""
    return preset_list()


@router.post("/api/tables/{table_id}/hint", response_model=models.HintResponse, responses=ASKING,
             summary="The AI's suggestion for your move (one hint or analysis at a time per seat)")
async def hint(table: TableDep, seats: SeatsRequired, service: Service, client: Client) -> Dict[str, Any]:
    """The AI's move for your seat, which must be the seat to move (a hint reads its hand, R9),
    with the table version it is for. One hint or analysis at a time per seat (429)."""
    version = table.version
    return {"move": str(await service.hint(table, seats, client)), "version": version}


@router.post("/api/tables/{table_id}/analysis", response_model=models.Analysis, responses=ASKING,
             summary="MCTS root statistics of your position, with a time budget (one at a time per seat)")
async def analysis(body: models.AnalyzeRequest, table: TableDep, seats: SeatsRequired,
                   service: Service, client: Client) -> Dict[str, Any]:
    """The search's statistics for your seat's position (the seat to move): every root move with its
    visits and mean reward. The body is required (`{}` takes the default `seconds`); the time is
    capped by the server (ServerLimits.max_ai_seconds)."""
    return await service.analyze(table, seats, min(body.seconds, service.max_ai_seconds), client)


@router.post("/api/tables/{table_id}/analysis/stream", response_model=models.AnalysisInfo,
             response_class=NDJSONResponse, responses=ASKING,
             summary="Your position's analysis as it goes, one JSON object a line (NDJSON); close it to stop")
async def analysis_stream(body: models.AnalysisStreamRequest, table: TableDep, seats: SeatsRequired,
                          service: Service, client: Client) -> StreamingResponse:
    """The search of your seat's position (the seat to move; it reads your hand and no other, R9),
    as a chess engine's `info` lines: about every `every` seconds an `AnalysisInfo` with the best
    move so far, every candidate's visits and mean reward, and the iterations and seconds so far,
    until `seconds` of search (capped by the server, ServerLimits.max_ai_seconds); the last line
    has `done` set. Closing the connection stops the search; so does a change of the table (its
    last line is then `interrupted`). Only your seat gets it, and it counts as one of your hints
    and analyses (one at a time per seat, 429) for its whole length. Refusals come as statuses
    before the first line (an `error` line, as the websocket's frame, only if another request
    took the seat's analysis between the checks and the start)."""
    seconds = min(body.seconds, service.max_ai_seconds)
    service.check_analysis(table, seats, seconds, client)  # a refusal is a status, not a line
    return NDJSONResponse(_analysis_lines(service.analysis_stream(table, seats, seconds, body.every, client)))


async def _analysis_lines(updates: AsyncIterator[Dict[str, Any]]) -> AsyncIterator[str]:
    try:
        async for update in updates:
            yield json.dumps(update, separators=(",", ":")) + "\n"
    except (TableError, ValueError) as e:  # refused after the checks (another request took the seat's turn
        # meanwhile): the status is sent already, so the refusal is the stream's one line
        yield json.dumps({"type": "error", **error_body(e)}, separators=(",", ":")) + "\n"
