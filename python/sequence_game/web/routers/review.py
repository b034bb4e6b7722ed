"""The AI's review of a finished game: its page, and reading or starting it."""

from __future__ import annotations

from typing import Any, Dict, Union

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse

from .. import models
from ..deps import Client, Reviews, TableDep, TableId, errors_for
from ..pages import page

router = APIRouter(tags=["records"])


@router.get("/review/{table_id}", include_in_schema=False)
async def review_page(request: Request, table_id: TableId) -> HTMLResponse:
    return await page(request, "review.html")


@router.get("/api/tables/{table_id}/review", response_model=models.ReviewStatus,
            responses={**errors_for(404, 409), 404: {"model": Union[models.ReviewStatus, models.ErrorBody],
                                                      "description": "no review yet (status none), or no such table"}},
            summary="The AI's review of a finished game: ready, running (with progress), or none yet (404)")
async def read_review(table: TableDep, reviews: Reviews) -> Any:
    """The AI's review of a finished game (every move with the mover's team's chances before and
    after it, and the moves that cost the most): `ready` with the review, `running` with its
    progress, or 404 `none` before POST asked for one."""
    status = await reviews.status(table)
    if status is None:
        return JSONResponse({"status": "none", "detail": "no review of this game yet: POST here to start one"},
                            status_code=404)
    return status


@router.post("/api/tables/{table_id}/review", status_code=202, response_model=models.ReviewStatus,
             responses=errors_for(404, 409, 413, 429, 503),
             summary="Start the AI's review of a finished game (once; the same game always gets the same review)")
async def start_review(table: TableDep, reviews: Reviews, client: Client) -> Dict[str, Any]:
    """Start the AI's review of a finished game (409 before the end); asking again returns the one
    running or done. Read it with GET."""
    return await reviews.start(table, client)
