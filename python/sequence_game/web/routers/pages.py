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


def api_docs_routes(openapi_url: str, title: str) -> APIRouter:
    """``/docs`` (Swagger UI) and ``/redoc`` (ReDoc) from files served here (``/docs-assets``, the
    package fastapi-offline's copies), never from a CDN: the pages work offline."""
    from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html

    r = APIRouter(include_in_schema=False)

    @r.get("/docs")
    async def swagger_ui() -> Response:
        return get_swagger_ui_html(openapi_url=openapi_url, title=f"{title}: API",
                                   swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
                                   swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
                                   swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png")

    @r.get("/redoc")
    async def redoc() -> Response:
        return get_redoc_html(openapi_url=openapi_url, title=f"{title}: API",
                              redoc_js_url=f"{DOCS_ASSETS}/redoc.standalone.js",
                              redoc_favicon_url=f"{DOCS_ASSETS}/favicon.png", with_google_fonts=False)

    return r


#: Where the Swagger UI and ReDoc files are served.
DOCS_ASSETS = "/docs-assets"


def docs_assets_dir() -> Path:
    """The directory of the Swagger UI and ReDoc files (the [web] extra's fastapi-offline)."""
    return Path(str(resources.files("fastapi_offline") / "static"))
