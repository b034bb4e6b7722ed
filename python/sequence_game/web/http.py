"""The HTTP side of the server's refusals and guards, in one place.

- :data:`STATUS`: each domain error (``errors.py``) and engine error to its HTTP status; a websocket
  refused in its handshake gets the status itself (:func:`deny_websocket`), one refused after it
  opened closes with ``4000 + status``. Nothing else in the package knows a status code.
- :class:`BodyLimit`: a request body over the limit is refused (413) before it is read.
- :class:`HostGuard`: the Host header must name this server and a browser's Origin must be this
  server (DNS rebinding, cross-site requests); docs/security.md.
- :class:`CreationQuota`: table creations per client address, a token bucket.
"""

from __future__ import annotations

import json
import time
from typing import Any, Dict, List, Optional, Tuple, Type
from urllib.parse import urlsplit

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from ..errors import IllegalMoveError, InvalidMoveError
from . import errors
from .limits import LOOPBACK_HOSTS, ServerLimits

__all__ = ["STATUS", "BodyLimit", "CreationQuota", "HostGuard", "client_of", "deny_websocket", "error_body",
           "host_refusal", "refusal_response", "refuse", "status_of"]

#: The HTTP status of each refusal (the most specific class that matches wins).
STATUS: Dict[Type[BaseException], int] = {
    errors.BadMessageError: 400,
    errors.NeedsSeatError: 401,
    errors.NotAllowedError: 403,
    errors.NotFoundError: 404,  # a table, a seek, a player; the account routes without accounts
    errors.TooSlowError: 408,
    errors.TableExpiredError: 410,
    errors.NotNowError: 409,
    IllegalMoveError: 409,  # well-formed, but not allowed in this position
    errors.TooLargeError: 413,
    errors.InvalidRequestError: 422,
    InvalidMoveError: 422,  # malformed move text
    errors.BusyError: 429,
    errors.UnsupportedError: 501,
    errors.ServerFullError: 503,
    errors.NotSavedError: 503,
}


def status_of(exc: BaseException) -> int:
    """The HTTP status for ``exc``: its class's, else its nearest base's; any other ValueError or
    TypeError is malformed input (422)."""
    for cls in type(exc).__mro__:
        if cls in STATUS:
            return STATUS[cls]
    return 422


def error_body(exc: BaseException) -> Dict[str, str]:
    return {"detail": str(exc), "error": type(exc).__name__}


async def _refuse(send: Send, exc: BaseException, headers: Tuple[Tuple[bytes, bytes], ...] = (),
                  http_prefix: str = "") -> None:
    """The refusal as an HTTP response (``http_prefix="websocket."``: a websocket's denial response)."""
    status, own, body = refusal_response(exc)
    await send({"type": f"{http_prefix}http.response.start", "status": status, "headers": [*own, *headers]})
    await send({"type": f"{http_prefix}http.response.body", "body": body})


def refusal_response(exc: BaseException) -> Tuple[int, List[Tuple[bytes, bytes]], bytes]:
    """The status, headers and body of the HTTP response refusing a request with ``exc`` (the
    middlewares' refusals, and a websocket refused before uvicorn hands it over, ``handshake.py``)."""
    body = json.dumps(error_body(exc)).encode()
    return status_of(exc), [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())], body


async def deny_websocket(websocket: WebSocket, exc: BaseException) -> None:
    """Refuse ``websocket`` in its handshake, before it is accepted: an HTTP response with the
    refusal's status and JSON body where the server has the ASGI denial-response extension (uvicorn
    does), else a close before accept, which the server answers 403. Either way the refusal costs
    no open socket: the client learns it from the handshake (a browser sees only that it failed)."""
    if "websocket.http.response" in websocket.scope.get("extensions", {}):
        await websocket.send_denial_response(JSONResponse(error_body(exc), status_code=status_of(exc)))
    else:
        await websocket.close(code=4000 + status_of(exc))


async def refuse(scope: Scope, send: Send, exc: BaseException) -> None:
    """Refuse a request in raw ASGI messages, for a middleware (no Starlette objects made): an HTTP
    request gets the error response; a websocket is refused in its handshake as
    :func:`deny_websocket` does."""
    if scope["type"] == "http":
        await _refuse(send, exc)
    elif "websocket.http.response" in scope.get("extensions", {}):
        await _refuse(send, exc, http_prefix="websocket.")
    else:
        await send({"type": "websocket.close", "code": 4000 + status_of(exc)})


def client_of(scope: Scope) -> str:
    """The client's address (behind a trusted proxy, uvicorn's proxy headers set it from
    X-Forwarded-For; docs/security.md)."""
    client = scope.get("client")
    return str(client[0]) if client else "?"


class BodyLimit:
    """ASGI middleware: refuse an HTTP body over ``limit`` bytes with 413 before reading it all."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = errors.TooLargeError(f"request body over {self.limit} bytes")
        for name, value in scope.get("headers", []):
            if name == b"content-length" and (not value.isdigit() or int(value) > self.limit):
                await _refuse(send, too_large)
                return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise too_large
            return message

        await self.app(scope, limited, send)


def host_allowed(host: str, allowed: Tuple[str, ...]) -> bool:
    """``host`` (a Host header or an Origin's netloc, port included or not) is one of ``allowed``
    (``"*"``: any; ``"*.example.org"``: that domain's subdomains)."""
    name = host.strip().lower()
    if name.startswith("["):  # [::1]:8000
        name = name[1:].split("]", 1)[0]
    elif name.count(":") == 1:
        name = name.split(":", 1)[0]
    if not name:
        return False
    for a in allowed:
        a = a.strip("[]")
        if a == "*" or a == name or (a.startswith("*.") and name.endswith(a[1:])):
            return True
    return False


class HostGuard:
    """ASGI middleware against DNS rebinding and cross-site use: the Host header must be an allowed
    name (400 otherwise), and a request that carries an Origin (a browser) must come from this
    server: a websocket from elsewhere is refused (403) before it is accepted, and so is any HTTP
    request other than GET/HEAD/OPTIONS."""

    SAFE = ("GET", "HEAD", "OPTIONS")

    def __init__(self, app: ASGIApp, limits: ServerLimits) -> None:
        self.app, self.limits = app, limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        refusal = host_refusal(scope, self.limits)
        if refusal is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "http":
            await _refuse(send, refusal)
        else:
            await deny_websocket(WebSocket(scope, receive, send), refusal)


def host_refusal(scope: Scope, limits: ServerLimits) -> Optional[errors.TableError]:
    """Why :class:`HostGuard` refuses the request or websocket ``scope`` (its Host or its Origin),
    or None."""
    allowed = limits.allowed_hosts or LOOPBACK_HOSTS
    headers: Dict[Any, Any] = dict(scope.get("headers", []))
    host = headers.get(b"host", b"").decode("latin-1")
    if not host_allowed(host, allowed):
        return errors.BadMessageError(
            f"this server does not answer to the host name {host[:100]!r} (allowed: {', '.join(allowed)}; "
            "serve --allowed-host adds names)")
    if b"origin" in headers and (scope["type"] == "websocket" or scope.get("method") not in HostGuard.SAFE):
        origin = headers[b"origin"].decode("latin-1")
        if urlsplit(origin).netloc.lower() != host.lower():
            return errors.NotAllowedError(f"requests from the page of another site ({origin[:100]}) are refused")
    return None


class CreationQuota:
    """Table creations per client address: a token bucket of ``create_burst`` tokens that refills
    at ``create_per_minute``. Memory stays bounded: past ``MAX_CLIENTS`` addresses, the full buckets
    (clients that have been quiet long enough to start over) are forgotten."""

    MAX_CLIENTS = 10_000

    def __init__(self, limits: ServerLimits) -> None:
        self.burst = float(limits.create_burst)
        self.rate = limits.create_per_minute / 60.0
        self.buckets: Dict[str, Tuple[float, float]] = {}  # client -> (tokens, at)

    def refusal(self, client: str, now: Optional[float] = None) -> Optional[errors.BusyError]:
        """Why a creation of ``client``'s is refused now (its bucket is empty), or None; spends nothing."""
        now = time.monotonic() if now is None else now
        tokens = self._tokens(client, now)
        if tokens >= 1:
            return None
        wait = (1 - tokens) / self.rate
        return errors.BusyError(f"too many new tables from your address: try again in {wait:.0f} s "
                                f"(at most {self.burst:g} at once, then {self.rate * 60:g} a minute)")

    def _tokens(self, client: str, now: float) -> float:
        tokens, at = self.buckets.get(client, (self.burst, now))
        return min(self.burst, tokens + (now - at) * self.rate)

    def take(self, client: str, now: Optional[float] = None) -> None:
        """Spend one creation of ``client``'s, or raise :class:`~.errors.BusyError` saying when to retry."""
        now = time.monotonic() if now is None else now
        refused = self.refusal(client, now)
        if refused is not None:
            raise refused
        self.buckets[client] = (self._tokens(client, now) - 1, now)
        if len(self.buckets) > self.MAX_CLIENTS:
            self.buckets = {c: (t, a) for c, (t, a) in self.buckets.items()
                            if min(self.burst, t + (now - a) * self.rate) < self.burst}

