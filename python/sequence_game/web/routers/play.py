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
    """Play `move` (text notation: `7H@d6`, `JSxe5`, `trade 7H`, `pass`) for the seat of your token
    that is to move. With `version`, a table that changed since you read it refuses the move (409),
    so a repeated request never plays twice. A move the rules do not allow is refused with the
    engine's reason (409); malformed text with 422. Answers the move played (declares filled in)
    and the new view."""
    move = await service.play(table, seats, body.move, body.version)
    return {"move": str(move), "view": service.view(table, seats)}


@router.post("/api/tables/{table_id}/undo", response_model=models.UndoResponse, responses=ERRORS,
             summary="Take back your last move (games against the AI only)")
async def undo(table: TableDep, seats: SeatsRequired, service: Service) -> Dict[str, Any]:
    """Take back your last move and the AI's moves after it (a table of one person against the AI;
    409 elsewhere, or with nothing to undo). Answers how many history entries were undone and the
    new view."""
    n = await service.undo(table, seats)
    return {"undone": n, "view": service.view(table, seats)}


@router.post("/api/tables/{table_id}/resign", response_model=models.ResignResponse, responses=ERRORS,
             summary="Resign for your team (two-team games): the other team wins at once")
async def resign(table: TableDep, seats: SeatsRequired, service: Service) -> Dict[str, Any]:
    """Your seat resigns for its team, which loses at once (two-team games; 409 with three teams or
    after the end). Before every human seat made its first move at a table of people, resigning
    aborts the game instead (as on lichess: nobody loses; see abort). Answers the seat that
    resigned and the new view."""
    seat = await service.resign(table, seats)
    return {"resigned": seat, "view": service.view(table, seats)}


@router.post("/api/tables/{table_id}/abort", response_model=models.AbortResponse, responses=ERRORS,
             summary="Abort the game before every player's first move (nobody wins or loses)")
async def abort(table: TableDep, seats: SeatsRequired, service: Service) -> Dict[str, Any]:
    """At a table of people (two or more join links), casual or rated, any person at the table may
    abort the game until every human seat made its first move: the game ends with no winner and no
    loser and changes no rating (docs/club.md, "Abort"; 409 elsewhere, or later: resign then).
    Answers the seat that aborted and the new view."""
    seat = await service.abort(table, seats)
    return {"aborted": seat, "view": service.view(table, seats)}
