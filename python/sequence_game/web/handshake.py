"""A table's websocket past its cap, refused by ``sequence-game serve`` in uvicorn's HTTP protocol,
before uvicorn hands the connection to its websocket library.

uvicorn answers a websocket's upgrade request by creating a websocket protocol object, moving the
connection to it and having the websocket library parse the request again; only then does the app
see it, and :class:`~sequence_game.web.gate.EarlyRefusal` refuse it. For a flood of sockets past
their caps (about ninety a second in bursts, docs/web.md "Load") the hand-over is about a quarter
of what a refusal costs the event loop (docs/security.md, "Floods"). :func:`early_refusing_protocol`
makes uvicorn's httptools protocol ask the gate (:func:`~sequence_game.web.gate.socket_refusal`)
first, and when it refuses, write the very response the app would have sent and close the connection.

It refuses only what the app would refuse with that answer: a handshake the websocket library
would reject, or one ``HostGuard`` refuses (its Host, its Origin), goes the normal way and gets
the app's own answer, as does every other request and any unexpected error here. The client's
address is the one uvicorn's proxy headers give the app (X-Forwarded-For only from a trusted
proxy), and a refusal waits the same passes of the event loop as the gate's for a socket that
closed meanwhile. Under another server, or another uvicorn protocol, the app's gate still refuses
the same sockets, after the hand-over.
"""

from __future__ import annotations

import base64
import binascii
import email.utils
import logging
import time
from http import HTTPStatus
from typing import Any, Dict, Iterable, Optional, Tuple, Type, cast
from urllib.parse import unquote

from .gate import SETTLE_PASSES, socket_refusal
from .http import host_refusal, refusal_response
from .limits import ServerLimits
from .tables import TableService

__all__ = ["early_refusing_protocol", "forwarded_client"]

_log = logging.getLogger(__name__)

Client = Optional[Tuple[str, int]]


def forwarded_client(peer: Client, headers: Iterable[Tuple[bytes, bytes]], trusted: Any) -> Client:
    """The client address uvicorn's ``ProxyHeadersMiddleware`` gives the app for a request from
    ``peer`` with ``headers``: the first address of X-Forwarded-For, from the right, that is not a
    trusted proxy, when ``peer`` is one; else ``peer``. ``trusted``: the middleware's trusted hosts
    (``uvicorn.middleware.proxy_headers._TrustedHosts``), or None when proxy headers are off."""
    if trusted is None or (peer[0] if peer else None) not in trusted:
        return peer
    forwarded = [value for name, value in headers if name == b"x-forwarded-for"]
    if not forwarded:
        return peer
    host, port = trusted.get_trusted_client_address(b", ".join(forwarded).decode("latin1"))
    # an empty X-Forwarded-For leaves the peer, as in the middleware
    return (host, port) if host else peer


#: a Sec-WebSocket-Key the websocket library takes (base64 of 16 bytes)
_SOME_KEY = b"AAAAAAAAAAAAAAAAAAAAAA=="
#: the most library answers kept (``library_accepts``); a flood's handshakes differ only in the
#: path (its table) and the client
_MAX_ANSWERS = 256
#: the Date header's value last written and the second it is of
_dated: Tuple[int, bytes] = (0, b"")


def _library_takes_key(value: bytes) -> bool:
    """Whether the websocket library takes ``value`` for a Sec-WebSocket-Key (its own check)."""
    try:
        return len(base64.b64decode(value, validate=True)) == 16
    except binascii.Error:
        return False


def _date() -> bytes:
    """The Date header's value now (``email.utils.formatdate``, computed once a second)."""
    global _dated
    now = int(time.time())
    if _dated[0] != now:
        _dated = (now, email.utils.formatdate(now, usegmt=True).encode())
    return _dated[1]


def early_refusing_protocol(service: TableService, limits: ServerLimits) -> Optional[Type[Any]]:
    """uvicorn's httptools HTTP protocol, refusing a table's websocket past its cap before the
    hand-over (module doc), for ``uvicorn.Config(http=...)``; None without httptools (uvicorn's
    other protocol then serves, and the app's gate refuses the same sockets later)."""
    try:
        from uvicorn.middleware.proxy_headers import _TrustedHosts
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
        from websockets.http11 import Request
        from websockets.server import ServerProtocol
        from websockets.streams import StreamReader
    except ImportError:
        return None

    #: the library's handshake checks, asked of one scratch protocol (they keep nothing between calls
    #: that the next one reads)
    checks = ServerProtocol()
    #: the library's answers to the handshakes last asked (the request with its key made
    #: ``_SOME_KEY``): a flood repeats the same few, and asking the library again cost about a
    #: quarter of a refusal's event-loop CPU (docs/security.md, "Floods")
    answers: Dict[bytes, bool] = {}

    def library_accepts(raw: bytes) -> bool:
        """Whether the websocket library accepts the handshake ``raw`` as uvicorn hands it over
        (else the library answers it 400 the normal way)."""
        known = answers.get(raw)
        if known is None:
            if len(answers) >= _MAX_ANSWERS:
                answers.clear()
            known = answers[raw] = library_check(raw)
        return known

    def library_check(raw: bytes) -> bool:
        reader = StreamReader()
        reader.feed_data(raw)
        reader.feed_eof()
        parser = Request.parse(reader.read_line)
        try:
            next(parser)
        except StopIteration as done:
            # the checks of the library's handshake (serve offers no extension nor subprotocol)
            checks.process_request(cast(Request, done.value))
            return True
        return False

    class EarlyRefusingProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol whose websocket upgrade asks the gate first."""

        #: the trusted proxies of the config last seen: (config, its ``_TrustedHosts`` or None)
        trust: Optional[Tuple[Any, Any]] = None

        def __init__(self, config: Any, *args: Any, **kwargs: Any) -> None:
            super().__init__(config, *args, **kwargs)
            cls = type(self)
            if cls.trust is None or cls.trust[0] is not config:
                cls.trust = (config, _TrustedHosts(config.forwarded_allow_ips) if config.proxy_headers else None)
            self.trusted = cls.trust[1]

        def handle_websocket_upgrade(self) -> None:
            try:
                scope = self.refused_scope()
            except Exception:  # noqa: BLE001 (anything unexpected: uvicorn's own path answers)
                _log.debug("early websocket refusal skipped", exc_info=True)
                scope = None
            if scope is None:
                super().handle_websocket_upgrade()
            else:
                self.transport.pause_reading()
                self.loop.call_soon(self.settle, scope, SETTLE_PASSES - 1)

        def refused_scope(self) -> Optional[Dict[str, Any]]:
            """The websocket's scope (what the gate and the Host guard read) when the app would
            refuse it past its cap; else None."""
            headers = self.scope["headers"]
            # the path and the client as uvicorn's websocket protocol and proxy headers give them
            scope: Dict[str, Any] = {
                "type": "websocket", "headers": headers,
                "path": self.root_path + unquote(self.url.partition(b"?")[0].decode("ascii")),
                "client": forwarded_client(self.client, headers, self.trusted)}
            if socket_refusal(service, scope) is None:
                return None
            if host_refusal(scope, limits) is not None:
                return None
            # the handshake as uvicorn hands it to the library, its key (when the library takes it)
            # made one the library takes too: its answer does not depend on which
            output = [self.scope["method"].encode(), b" ", self.url, b" HTTP/1.1\r\n"]
            for name, value in headers:
                if name == b"sec-websocket-key" and _library_takes_key(value):
                    value = _SOME_KEY
                output += [name, b": ", value, b"\r\n"]
            output.append(b"\r\n")
            return scope if library_accepts(b"".join(output)) else None

        def settle(self, scope: Dict[str, Any], passes: int) -> None:
            """Ask the gate again about ``scope``, refused on the previous pass of the event loop:
            refuse it when ``passes`` is spent, else ask on the next pass; admitted meanwhile (a
            socket of the client's that closed frees its place, as in the gate), it goes the normal
            way."""
            if self.transport.is_closing():
                return
            try:
                refusal = socket_refusal(service, scope)
                if refusal is not None and passes > 0:
                    self.loop.call_soon(self.settle, scope, passes - 1)
                    return
                if refusal is not None:
                    status, headers, body = refusal_response(refusal)
                    # what uvicorn's websocket protocol writes for the app's denial response
                    head = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n".encode()]
                    head += [name + b": " + value + b"\r\n" for name, value in headers]
                    head.append(b"Date: " + _date() + b"\r\nConnection: close\r\n\r\n")
                    response = b"".join(head) + body
            except Exception:  # noqa: BLE001 (anything unexpected: uvicorn's own path answers)
                _log.debug("early websocket refusal skipped", exc_info=True)
                refusal = None
            if refusal is None:
                self.transport.resume_reading()
                super().handle_websocket_upgrade()
            else:
                self.transport.write(response)
                self.transport.close()

    return EarlyRefusingProtocol
