"""A table's websocket past its cap, refused by ``sequence-game serve``'s uvicorn configuration in
the HTTP protocol, before uvicorn hands the connection to its websocket library
(``sequence_game.web.handshake``): the very response the app's gate gives after the hand-over, no
websocket protocol made for it, and the client counted as uvicorn's proxy headers name it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import socket
import threading
import urllib.request

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("httptools")
pytest.importorskip("websockets")

import uvicorn
from sequence_game.web import create_app
from sequence_game.web.errors import BusyError
from sequence_game.web.gate import SETTLE_PASSES
from sequence_game.web.handshake import early_refusing_protocol, forwarded_client
from sequence_game.web.limits import ServerLimits
from sequence_game.web.serve import server_config
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware, _TrustedHosts
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from web_support import free_port, stop_uvicorn, wait_for
from websockets.sync.client import connect

KEY = "dGhlIHNhbXBsZSBub25jZQ=="
HUMANS = [{"kind": "human"}, {"kind": "human"}]


@contextlib.contextmanager
def served(limits, trusted=("127.0.0.1",), early=True):
    """The app under ``serve``'s uvicorn configuration (``early=False``: with uvicorn's own httptools
    protocol instead, the app's gate refusing after the hand-over) in a thread: yields the app, its
    port and the list of websocket protocol objects uvicorn made."""
    app = create_app(ai_pause=0, limits=limits)
    port = free_port()
    config = server_config(app, "127.0.0.1", port, logging.WARNING, trusted)
    if not early:
        config.http = "httptools"
    config.load()
    made = []

    class Counted(config.ws_protocol_class):
        def __init__(self, *args, **kwargs):
            made.append(self)
            super().__init__(*args, **kwargs)

    config.ws_protocol_class = Counted
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_for(lambda: server.started)
        yield app, port, made
    finally:
        stop_uvicorn(server, thread)


def new_table(port, forwarded="10.0.0.99"):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/tables", data=json.dumps({"players": 2, "seats": HUMANS}).encode(),
        headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded})
    with urllib.request.urlopen(request) as r:
        return json.loads(r.read())["table"]


def hold(port, tid, forwarded, stack):
    """A spectator's websocket of client ``forwarded`` (its X-Forwarded-For) at ``tid``, said hello."""
    ws = stack.enter_context(connect(f"ws://127.0.0.1:{port}/api/tables/{tid}/ws", open_timeout=10,
                                     additional_headers={"X-Forwarded-For": forwarded}))
    ws.send(json.dumps({"type": "hello", "token": None}))
    assert json.loads(ws.recv(timeout=10))["type"] == "state"
    return ws


def handshake(port, path, forwarded, **headers):
    """The server's whole answer to a websocket handshake sent on a raw socket (it closes after a
    refusal), the Date header's value blanked."""
    lines = {"Host": f"127.0.0.1:{port}", "Upgrade": "websocket", "Connection": "Upgrade",
             "Sec-WebSocket-Key": KEY, "Sec-WebSocket-Version": "13", "X-Forwarded-For": forwarded, **headers}
    request = f"GET {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in lines.items()) + "\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(request.encode())
        answer = b""
        while chunk := s.recv(65536):
            answer += chunk
    return re.sub(rb"\r\nDate: [^\r]*\r\n", b"\r\nDate: -\r\n", answer)


#: handshakes past the client's cap: only the first is refused before the hand-over; the others
#: get what the websocket library (a bad key) or the Host guard (another site's page) answers
PAST_THE_CAP = {
    "plain": ({}, b"HTTP/1.1 429 Too Many Requests\r\n", True),
    "another site's page": ({"Origin": "http://evil.example"}, b"HTTP/1.1 403 Forbidden\r\n", False),
    "a bad key": ({"Sec-WebSocket-Key": "short"}, b"HTTP/1.1 400 Bad Request\r\n", False),
}


def test_a_flood_past_the_cap_is_refused_before_the_hand_over():
    """Past its cap, a client's websockets get byte for byte the response the app's gate gives
    after uvicorn's hand-over (but the date), and uvicorn makes no websocket protocol for them; a
    socket of another client is admitted and served."""
    answers = {}
    for early in (False, True):
        with served(ServerLimits(max_sockets_per_client=2), early=early) as (app, port, made), \
                contextlib.ExitStack() as stack:
            tid = new_table(port)
            for _ in range(2):
                hold(port, tid, "10.0.0.5", stack)
            assert app.state.service.sockets == {"10.0.0.5": 2} and len(made) == 2
            for kind, (headers, status_line, refused_early) in PAST_THE_CAP.items():
                for _ in range(10):
                    before = len(made)
                    answer = handshake(port, f"/api/tables/{tid}/ws", "10.0.0.5", **headers)
                    assert answer.startswith(status_line), answer
                    answers.setdefault(kind, set()).add(answer)
                    assert len(made) == before + (not (early and refused_early)), kind
            assert app.state.service.sockets == {"10.0.0.5": 2}
            other = hold(port, tid, "10.0.0.6", stack)  # admitted: served as before
            other.send(json.dumps({"type": "ping"}))
            assert app.state.service.sockets == {"10.0.0.5": 2, "10.0.0.6": 1}
    for kind, seen in answers.items():
        assert len(seen) == 1, (kind, seen)  # both servers, every time
    refusal = answers["plain"].pop()
    head, body = refusal.split(b"\r\n\r\n", 1)
    assert head.split(b"\r\n")[1:] == [b"content-type: application/json", b"content-length: %d" % len(body),
                                       b"Date: -", b"Connection: close"], refusal
    assert json.loads(body)["error"] == "BusyError" and "your address already has 2" in json.loads(body)["detail"]


@pytest.mark.parametrize("trusted, held, charged, refused, admitted", [
    # an untrusted peer's X-Forwarded-For is ignored: every socket is the peer's, whatever it claims
    (("10.9.9.9",), ["10.0.0.1", "10.0.0.2"], {"127.0.0.1": 2}, ["10.0.0.3", "127.0.0.1"], []),
    # no trusted proxy: proxy headers are off
    ((), ["10.0.0.1", "10.0.0.2"], {"127.0.0.1": 2}, ["10.0.0.3"], []),
    # a trusted proxy's chain: the first address from the right that is not a trusted proxy
    (("127.0.0.1", "10.1.1.1"), ["6.6.6.6, 10.0.0.8, 10.1.1.1", "10.0.0.8"], {"10.0.0.8": 2},
     ["1.1.1.1, 10.0.0.8", "10.0.0.8, 10.1.1.1"], ["10.0.0.8, 10.0.0.9, 10.1.1.1", "10.0.0.8, 6.6.6.6"]),
])
def test_the_cap_counts_the_client_uvicorns_proxy_headers_name(trusted, held, charged, refused, admitted):
    """The early refusal charges the client the app's gate would: a forged X-Forwarded-For from an
    untrusted peer dodges nothing, and behind a trusted proxy one client's sockets are not charged
    to another."""
    with served(ServerLimits(max_sockets_per_client=2), trusted=trusted) as (app, port, made), \
            contextlib.ExitStack() as stack:
        tid = new_table(port)
        for forwarded in held:
            hold(port, tid, forwarded, stack)
        assert app.state.service.sockets == charged
        opened = len(made)
        for forwarded in refused:
            assert handshake(port, f"/api/tables/{tid}/ws", forwarded).startswith(b"HTTP/1.1 429 "), forwarded
        assert len(made) == opened  # refused before the hand-over
        for forwarded in admitted:
            hold(port, tid, forwarded, stack)
        assert len(made) == opened + len(admitted)


async def _middleware_client(peer, headers, trusted):
    seen = {}

    async def app(scope, receive, send):
        seen["client"] = scope["client"]

    await ProxyHeadersMiddleware(app, trusted_hosts=trusted)(
        {"type": "websocket", "client": peer, "headers": headers}, None, None)
    return seen["client"]


@pytest.mark.parametrize("peer, forwarded, trusted", [
    (("203.0.113.9", 5000), ["10.0.0.1"], ["127.0.0.1"]),  # untrusted peer, forged header
    (("127.0.0.1", 5000), ["10.0.0.1"], ["127.0.0.1"]),
    (("127.0.0.1", 5000), ["6.6.6.6, 10.0.0.8, 10.1.1.1"], ["127.0.0.1", "10.1.1.1"]),  # multi-hop
    (("127.0.0.1", 5000), ["6.6.6.6, 10.0.0.8", "10.1.1.1"], ["127.0.0.1", "10.1.1.1"]),  # two headers
    (("127.0.0.1", 5000), ["10.1.1.1, 127.0.0.1"], ["127.0.0.1", "10.1.1.1"]),  # every hop trusted
    (("10.2.3.4", 5000), ["10.0.0.8:4711, 10.2.0.1"], ["10.0.0.0/8"]),  # a network; a port
    (("::1", 5000), ["[2001:db8::7]:443"], ["::1"]),  # IPv6
    (("127.0.0.1", 5000), [""], ["127.0.0.1"]),  # empty: the peer
    (("127.0.0.1", 5000), [], ["127.0.0.1"]),
    (("198.51.100.1", 5000), ["1.2.3.4, 5.6.7.8"], "*"),
    (None, ["10.0.0.1"], ["127.0.0.1"]),  # a unix socket: no peer address
    (None, ["10.0.0.1"], "*"),
])
def test_forwarded_client_is_what_uvicorns_proxy_headers_give(peer, forwarded, trusted):
    headers = [(b"host", b"x"), *((b"x-forwarded-for", v.encode()) for v in forwarded)]
    expected = asyncio.run(_middleware_client(peer, headers, trusted))
    assert forwarded_client(peer, headers, _TrustedHosts(trusted)) == expected
    assert forwarded_client(peer, headers, None) == peer  # proxy headers off


@pytest.mark.parametrize("passes, admitted", [(SETTLE_PASSES, True), (SETTLE_PASSES + 1, False)])
def test_a_refusal_waits_for_a_socket_closing_meanwhile(passes, admitted):
    """A socket past its cap when its handshake arrives, under it within the passes of the event
    loop the app's gate waits (its client's other socket closed meanwhile), is admitted and served;
    still past it after them, it is refused before the hand-over."""
    with served(ServerLimits(max_sockets_per_client=1)) as (app, port, made), contextlib.ExitStack() as stack:
        tid = new_table(port)
        service = app.state.service
        real, asked = service.connection_refusal, []

        def refusal(client):  # past the cap at the handshake and on passes - 1 passes after it
            asked.append(client)
            return BusyError("past the cap") if len(asked) <= passes else real(client)

        service.connection_refusal = refusal
        if admitted:
            hold(port, tid, "10.0.0.5", stack)
            assert asked[:passes + 1] == ["10.0.0.5"] * (passes + 1) and len(made) == 1
            assert service.sockets == {"10.0.0.5": 1}
        else:
            assert handshake(port, f"/api/tables/{tid}/ws", "10.0.0.5").startswith(b"HTTP/1.1 429 ")
            assert len(asked) == passes and not made and not service.sockets


def test_serve_pins_the_early_refusing_protocol():
    app = create_app(ai_pause=0)
    config = server_config(app, "127.0.0.1", free_port(), logging.WARNING, ())
    protocol = early_refusing_protocol(app.state.service, app.state.limits)
    assert issubclass(config.http, HttpToolsProtocol) and config.http.__name__ == protocol.__name__
