"""The AI for people: the strengths a seat may ask for, a hint, an analysis of your position."""

from __future__ import annotations

from typing import Any, Dict, List

from fastapi import APIRouter

from .. import models
from ..deps import Client, SeatsRequired, Service, TableDep, errors_for
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
