"""Playing: a move for your seat, taking one back."""

from __future__ import annotations

from typing import Any, Dict

from fastapi import APIRouter

from .. import models
from ..deps import ERRORS, SeatsRequired, Service, TableDep

router = APIRouter(tags=["play"])


@router.post("/api/tables/{table_id}/moves", response_model=models.MoveResponse, responses=ERRORS,
             summary="Play a move for your seat")
async def play(body: models.MoveRequest, table: TableDep, seats: SeatsRequired, service: Service) -> Dict[str, Any]:
    move = await service.play(table, seats, body.move, body.version)
    return {"move": str(move), "view": service.view(table, seats)}


@router.post("/api/tables/{table_id}/undo", response_model=models.UndoResponse, responses=ERRORS,
             summary="Take back your last move (games against the AI only)")
async def undo(table: TableDep, seats: SeatsRequired, service: Service) -> Dict[str, Any]:
    n = await service.undo(table, seats)
    return {"undone": n, "view": service.view(table, seats)}


@router.post("/api/tables/{table_id}/resign", response_model=models.ResignResponse, responses=ERRORS,
             summary="Resign for your team (two-team games): the other team wins at once")
async def resign(table: TableDep, seats: SeatsRequired, service: Service) -> Dict[str, Any]:
    seat = await service.resign(table, seats)
    return {"resigned": seat, "view": service.view(table, seats)}
