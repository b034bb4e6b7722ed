"""The pages' routes (the lobby, a table, a replay, the rules), the pages' language, the empty board
picture and the API's documentation pages; the pages themselves: ``web/pages.py``."""

from __future__ import annotations

import asyncio
import html
from functools import cache
from typing import Optional

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from ...i18n import LANGUAGES, N_, gettext_for, normalize
from ..club.web import AccountWrite, OptionalClub
from ..deps import TableId
from ..errors import InvalidRequestError
from ..models import LanguageChoice
from ..pages import DOCS_ASSETS, LANG_COOKIE, page, page_language

router = APIRouter(include_in_schema=False)
language_router = APIRouter(tags=["accounts"])


@router.get("/")
async def lobby(request: Request) -> HTMLResponse:
    return await page(request, "index.html")


@router.get("/table/{table_id}")
async def table_page(request: Request, table_id: TableId) -> HTMLResponse:
    return await page(request, "table.html")


@router.get("/replay/{table_id}")
async def replay_page(request: Request, table_id: TableId) -> HTMLResponse:
    return await page(request, "replay.html")


@router.get("/rules")
async def rules_page(request: Request) -> HTMLResponse:
    return await page(request, "rules.html")


@language_router.put("/api/session/language", status_code=204, summary="Choose the pages' language")
async def choose_language(body: LanguageChoice, request: Request, account: AccountWrite,
                          club: OptionalClub) -> Response:
    """The pages' language from now on: kept in a cookie and, signed in, on the account (every
    browser it signs in to then shows it)."""
    lang: Optional[str] = normalize(body.language)
    if lang is None or lang != body.language.lower():
        raise InvalidRequestError(f"language: one of {', '.join(LANGUAGES)}, not {body.language[:16]!r}")
    if account is not None and club is not None:
        await asyncio.to_thread(club.set_language, account, lang)
    response = Response(status_code=204)
    response.set_cookie(LANG_COOKIE, lang, max_age=365 * 24 * 3600, samesite="lax", path="/",
                        secure=request.url.scheme == "https")
    return response


def board_svg_route(svg: str) -> APIRouter:
    """``/board.svg``: the empty board, drawn once when the app is built, its corner label and its
    cells' titles in the reader's language."""
    r = APIRouter(include_in_schema=False)

    @cache
    def localized(lang: str) -> str:
        gt = gettext_for(lang)
        free, corner = html.escape(gt(N_("FREE"))), html.escape(gt(N_("free corner")))
        return svg.replace(">FREE</text>", f">{free}</text>").replace(": corner (free space)<", f": {corner}<")

    @r.get("/board.svg")
    async def board_svg(request: Request) -> Response:
        return Response(localized(await page_language(request)), media_type="image/svg+xml",
                        headers={"Cache-Control": "public, max-age=3600", "Vary": "Accept-Language, Cookie"})

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
