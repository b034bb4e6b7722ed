"""The pages (plain HTML and JavaScript from ``static/``) and the empty board picture."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse, Response

from ..deps import TableId

STATIC = Path(str(resources.files(__package__.rsplit(".", 1)[0]) / "static"))

router = APIRouter(include_in_schema=False)


@router.get("/")
async def lobby() -> FileResponse:
    return FileResponse(STATIC / "index.html")


@router.get("/table/{table_id}")
async def table_page(table_id: TableId) -> FileResponse:
    return FileResponse(STATIC / "table.html")


@router.get("/replay/{table_id}")
async def replay_page(table_id: TableId) -> FileResponse:
    return FileResponse(STATIC / "replay.html")


def board_svg_route(svg: str) -> APIRouter:
    """``/board.svg``: the empty board, drawn once when the app is built."""
    r = APIRouter(include_in_schema=False)

    @r.get("/board.svg")
    async def board_svg() -> Response:
        return Response(svg, media_type="image/svg+xml", headers={"Cache-Control": "public, max-age=3600"})

    return r
