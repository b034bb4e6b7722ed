"""Cheap refusals before routing: the requests a flood is made of, refused at a fraction of their
routed cost.

A client that repeats a request the server refuses (a table creation past its quota, a websocket
past its cap, an analysis while its seat's is running) would otherwise cost the server the whole
routed request each time: FastAPI's routing, its dependencies, the token's check, the response. On
a small server that work is taken from the event loop that relays everyone's moves, so a few
flooding clients would delay every table. :class:`EarlyRefusal` answers those requests from what
the server holds in memory, before routing, with the very error the route would give
(docs/security.md, "Floods"). A request it cannot judge from memory alone goes on to the route,
which checks everything again: the gate only ever refuses earlier, never admits.

A signed-in account's change to its people (a follow, a block, its profile, a challenge) past its
changes is refused here too, for a second after a route refused one of the same session's: the
route looked the session up in the database then, the gate trusts that for
``Sessions.SPENT_SECONDS`` (a session ended meanwhile on this server is forgotten at once).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Optional

from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send

from .club.sessions import COOKIE
from .http import CreationQuota, client_of, refuse
from .tables import TableService

__all__ = ["SETTLE_PASSES", "EarlyRefusal", "socket_refusal"]

_TABLE = r"/api/tables/([^/]+)"
#: the requests that take from the client's table quota (``CreationQuota``): creating, joining
_CREATING = re.compile(rf"/api/tables(?:{_TABLE[len('/api/tables'):]}/join)?")
#: the requests that start a search for a seat (one at a time per seat, a few per client)
_ASKING = re.compile(rf"{_TABLE}/(?:hint|analysis|analysis/stream)")
_SOCKET = re.compile(rf"{_TABLE}/ws")
#: the routes that spend one of a signed-in account's people changes (``routers/people.py``), by method
_PEOPLE_CHANGES = {
    "PUT": re.compile(r"/api/people/(?:follows|blocks)/[^/]+|/api/profile"),
    "DELETE": re.compile(r"/api/people/(?:follows|blocks)/[^/]+|/api/challenges/[^/]+"),
    "POST": re.compile(r"/api/challenges(?:/[^/]+/(?:decline|accept))?"),
}
#: passes of the event loop a refusal waits for what arrived with it (a disconnect) before it holds
SETTLE_PASSES = 3


def _header(scope: Scope, name: bytes) -> Optional[bytes]:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None


def _bearer(scope: Scope) -> Optional[str]:
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            return token.strip() if scheme.lower() == "bearer" else None
    return None


def socket_refusal(service: TableService, scope: Scope) -> Optional[BaseException]:
    """The refusal of the websocket ``scope`` that memory tells: a table's socket of a client past
    its cap, or the server past its cap; None for any other path. :class:`EarlyRefusal` asks it,
    and so does ``sequence-game serve`` before uvicorn hands the connection to its websocket
    library (``handshake.py``)."""
    return service.connection_refusal(client_of(scope)) if _SOCKET.fullmatch(scope["path"]) else None


class EarlyRefusal:
    """ASGI middleware: the cheap refusals of the module doc, from ``service``, ``quota`` and the
    ``club`` (None: accounts are off)."""

    def __init__(self, app: ASGIApp, service: TableService, quota: CreationQuota, club: Any = None) -> None:
        self.app, self.service, self.quota, self.club = app, service, quota, club

    def people_refusal(self, scope: Scope) -> Optional[BaseException]:
        """A people change of a session a route found out of changes within the last second (the
        cookie's writes carry an Origin, else the route refuses them first: 403)."""
        changes = _PEOPLE_CHANGES.get(scope.get("method", ""))
        if changes is None or not changes.fullmatch(scope["path"]) or _header(scope, b"origin") is None:
            return None
        cookie = _header(scope, b"cookie")
        sid = cookie_parser(cookie.decode("latin-1")).get(COOKIE) if cookie else None
        account = self.club.sessions.spent_account(sid)
        return None if account is None else self.club.people_changes.refusal(account)

    def refusal(self, scope: Scope) -> Optional[BaseException]:
        """The error the route would answer ``scope`` with, when memory alone tells it; else None."""
        path = scope["path"]
        if not path.startswith("/api/tables"):
            if self.club is not None and scope["type"] == "http":
                return self.people_refusal(scope)
            return None
        if scope["type"] == "websocket":
            return socket_refusal(self.service, scope)
        if scope.get("method") != "POST":
            return None
        if _CREATING.fullmatch(path):
            return self.quota.refusal(client_of(scope))
        asking = _ASKING.fullmatch(path)
        if asking:
            return self.service.asking_refusal(asking[1], _bearer(scope), client_of(scope))
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            refused = self.refusal(scope)
            for _ in range(SETTLE_PASSES):
                if refused is None:
                    break
                # what was ready with this request runs first: a stream its client just closed
                # frees its seat there (a client that ends an analysis and asks for a hint at once
                # is answered, as the route would answer it after its own awaits)
                await asyncio.sleep(0)
                refused = self.refusal(scope)
            if refused is not None:
                await refuse(scope, send, refused)
                return
        await self.app(scope, receive, send)
