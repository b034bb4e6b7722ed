"""The pages (HTML and JavaScript from ``static/``) in the reader's language, shared by the routers
that serve a page.

A page is an HTML file whose words are written ``{{like this}}``: each is looked up in the catalog of
the reader's language (docs/i18n.md) as the page is served; ``{{@lang}}``, ``{{@catalog}}`` (the
scripts' messages, JSON) and ``{{@menu}}`` (the language menu) are filled in too.
"""

from __future__ import annotations

import asyncio
import html
import re
from functools import cache
from importlib import resources
from pathlib import Path

from starlette.requests import Request
from starlette.responses import HTMLResponse

from ..i18n import LANGUAGES, N_, gettext_for, negotiate, normalize, page_catalog
from .club.web import signed_in

__all__ = ["DOCS_ASSETS", "LANG_COOKIE", "STATIC", "docs_assets_dir", "page", "page_language", "render"]

STATIC = Path(str(resources.files(__package__) / "static"))
#: The cookie that keeps a guest's language (an account's is kept on the account as well).
LANG_COOKIE = "lang"
_FIELD = re.compile(r"\{\{(@?)(.+?)\}\}", re.S)


def _menu(lang: str) -> str:
    gt = gettext_for(lang)
    options = "".join(f'<option value="{code}" lang="{code}"{" selected" if code == lang else ""}>{html.escape(name)}</option>'
                      for code, name in LANGUAGES.items())
    label = html.escape(gt(N_("Language")))
    return (f'<label class="lang-label"><span class="visually-hidden">{label}</span>'
            f'<select id="lang-menu" class="lang-menu">{options}</select></label>')


@cache
def render(name: str, lang: str) -> str:
    """The page ``static/name`` in ``lang``."""
    gt = gettext_for(lang)
    specials = {
        "lang": lang,
        "catalog": '<script id="i18n-catalog" type="application/json">' + page_catalog(lang).replace("</", "<\\/") + "</script>",
        "menu": _menu(lang),
    }

    def fill(m: re.Match[str]) -> str:
        if m.group(1):
            return specials[m.group(2).strip()]
        return html.escape(gt(" ".join(m.group(2).split())), quote=True)

    return _FIELD.sub(fill, (STATIC / name).read_text(encoding="utf-8"))


async def page_language(request: Request) -> str:
    """The reader's language: a signed-in account's choice, else the cookie's, else the browser's
    Accept-Language, else English."""
    account = await signed_in(request)
    club = request.app.state.club
    if account is not None and club is not None:
        chosen = normalize(await asyncio.to_thread(club.language, account))
        if chosen:
            return chosen
    return normalize(request.cookies.get(LANG_COOKIE)) or negotiate(request.headers.get("accept-language"))


async def page(request: Request, name: str) -> HTMLResponse:
    """The page ``static/name`` in the reader's language."""
    lang = await page_language(request)
    return HTMLResponse(render(name, lang), headers={"Content-Language": lang, "Vary": "Accept-Language, Cookie"})


#: Where the Swagger UI and ReDoc files are served.
DOCS_ASSETS = "/docs-assets"


def docs_assets_dir() -> Path:
    """The directory of the Swagger UI and ReDoc files (the [web] extra's fastapi-offline)."""
    return Path(str(resources.files("fastapi_offline") / "static"))
