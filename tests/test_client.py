"""The stdlib client (sequence_game.client) and the bot (sequence_game.bot) against a hostile or
broken server: a threaded ``http.server`` on 127.0.0.1 whose answers each test chooses (redirects
to another origin, a byte a second, bodies announcing 8 GiB, lines that never end, streams that end
early, wrong-shaped JSON). Every case ends, in bounded time, with one ``ClientError`` line; the
seat token never leaves the server's origin (docs/security.md, "The client and the bot")."""

from __future__ import annotations

import json
import os
import pathlib
import re
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sequence_game.client import BadAnswerError, Client, ClientError, TableView

ROOT = pathlib.Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "tests"), os.environ.get("PYTHONPATH")]))}
TOKEN = "seat-token-that-must-not-leave"


# --------------------------------------------------------------------------- the hostile server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def _any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.log.append((self.command, self.path, dict(self.headers), body))
        try:
            self.server.mode(self)
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            pass  # the client gave up, as it should

    do_GET = do_POST = do_DELETE = _any  # noqa: N815 (http.server names its handlers so)


class Hostile(ThreadingHTTPServer):
    """A server on a free loopback port whose every answer is ``mode(handler)``; ``log`` holds every
    request (method, path, headers, body)."""

    daemon_threads = True
    block_on_close = False

    def __init__(self, mode=None):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.mode = mode or (lambda h: send_json(h, {}))
        self.log = []
        self.thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}"

    def close(self):
        self.shutdown()
        self.server_close()


@pytest.fixture
def hostile():
    servers = []

    def make(mode=None):
        s = Hostile(mode)
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.close()


def send_json(h, obj, status=200, headers=()):
    data = json.dumps(obj).encode()
    h.send_response(status)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(len(data)))
    for k, v in headers:
        h.send_header(k, v)
    h.end_headers()
    h.wfile.write(data)


def send_raw(data, status=200):
    def mode(h):
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)
    return mode


def redirect(location, status=307):
    def mode(h):
        h.send_response(status)
        h.send_header("Location", location)
        h.send_header("Content-Length", "0")
        h.end_headers()
    return mode


def forever(h, chunk, pause=0.0, seconds=30.0):
    """Write ``chunk`` again and again (until the client hangs up, or ``seconds``)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        h.wfile.write(chunk)
        h.wfile.flush()
        if pause:
            time.sleep(pause)
    h.close_connection = True


def stream_of(lines, pause=0.0, then=None):
    """An NDJSON answer: ``lines`` (objects or raw bytes), ``pause`` s apart, then ``then(h)`` or the end."""
    def mode(h):
        h.send_response(200)
        h.send_header("Content-Type", "application/x-ndjson")
        h.send_header("Connection", "close")
        h.end_headers()
        for line in lines:
            h.wfile.write(line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n")
            h.wfile.flush()
            if pause:
                time.sleep(pause)
        if then:
            then(h)
        h.close_connection = True
    return mode


@pytest.fixture(scope="module")
def real_view():
    """A real TableView JSON of seat 0 from the server app (``create_app``), and the same table
    as a finished game, so the fake answers have the documented shape."""
    pytest.importorskip("fastapi", reason="the [web] extra is not installed")
    from fastapi.testclient import TestClient
    from sequence_game.web import create_app

    with TestClient(create_app(ai_pause=0), base_url="http://127.0.0.1") as c:
        r = c.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "human"}]})
        data = r.json()
        table, tokens = data["table"], {s["seat"]: s["token"] for s in data["seats"]}
        view = c.get(f"/api/tables/{table}", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
        mover = view["state"]["current_player"]
        waiting = c.get(f"/api/tables/{table}", headers={"Authorization": f"Bearer {tokens[1 - mover]}"}).json()
        to_move = c.get(f"/api/tables/{table}", headers={"Authorization": f"Bearer {tokens[mover]}"}).json()
        from web_support import first_moves

        first_moves(c, table, tokens)  # a resignation (before every first move it would abort the game)
        over = c.post(f"/api/tables/{table}/resign", headers={"Authorization": f"Bearer {tokens[0]}"}).json()["view"]
    return {"view": view, "waiting": waiting, "to_move": to_move, "over": over}


# --------------------------------------------------------------------------- the token stays home


CALLS = {
    "table": lambda c: c.table("t1"),
    "play": lambda c: c.play("t1", "pass", version=3),
    "hint": lambda c: c.hint("t1"),
    "stream": lambda c: list(c.stream("t1")),
}


@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_another_origin_is_refused_and_the_token_stays_home(hostile, call, status):
    elsewhere = hostile()
    for target in (elsewhere.url, elsewhere.url.replace("127.0.0.1", "localhost"),
                   "https://127.0.0.1:" + elsewhere.url.rsplit(":", 1)[1]):
        home = hostile(redirect(target + "/api/tables/t1", status))
        with pytest.raises(ClientError) as e:
            CALLS[call](Client(home.url, token=TOKEN, retries=0, timeout=5))
        assert e.value.status == status and e.value.error == "CrossOriginRedirect"
        assert "another origin" in str(e.value) and "\n" not in str(e.value)
        assert TOKEN not in str(e.value)
        assert len(home.log) == 1
    assert elsewhere.log == []  # nothing, token or not, reached the other origin


def test_a_redirect_within_the_origin_is_followed(hostile, real_view):
    def mode(h):
        if h.path.startswith("/api/tables/t1"):
            redirect("/moved/t1", 307)(h)
        else:
            send_json(h, real_view["view"])
    home = hostile(mode)
    view = Client(home.url, token=TOKEN).table("t1")
    assert view.version == real_view["view"]["version"]
    assert [p for _, p, _, _ in home.log] == ["/api/tables/t1", "/moved/t1"]
    assert all(headers.get("Authorization") == f"Bearer {TOKEN}" for _, _, headers, _ in home.log)


SESSION = "session-id-that-must-not-leave"


def test_the_session_cookie_goes_home_only_and_its_writes_carry_the_origin(hostile):
    """A signed-in client sends its cookie to its server alone (a redirect elsewhere is refused
    before anything is sent there), and an ``Origin`` naming that server on each write the cookie
    signs in (docs/security.md); it keeps the cookie a login sets and drops the one a logout clears."""
    def mode(h):
        if h.command == "DELETE":
            send_json(h, {}, 200, [("Set-Cookie", 'sg_session=""; Max-Age=0; Path=/')])
        elif h.path == "/api/session" and h.command == "POST":
            send_json(h, {"accounts": True, "name": "ann", "rating": 500, "provisional": True},
                      headers=[("Set-Cookie", f"sg_session={SESSION}; HttpOnly; Path=/; SameSite=lax")])
        else:
            send_json(h, {"accounts": True, "name": None})
    home = hostile(mode)
    client = Client(home.url, retries=0, timeout=5)
    client.signed_in()
    assert client.log_in("ann", "password1").name == "ann" and client.session == SESSION
    client.signed_in()
    client.log_out()
    assert client.session is None
    client.signed_in()
    sent = [(m, p, h.get("Cookie"), h.get("Origin")) for m, p, h, _ in home.log]
    assert sent == [("GET", "/api/session", None, None),
                    ("POST", "/api/session", None, None),  # a guest's write needs no Origin
                    ("GET", "/api/session", f"sg_session={SESSION}", None),
                    ("DELETE", "/api/session", f"sg_session={SESSION}", home.url),
                    ("GET", "/api/session", None, None)]
    elsewhere = hostile()
    moved = hostile(redirect(elsewhere.url + "/api/seeks", 307))
    with pytest.raises(ClientError) as e:
        Client(moved.url, session=SESSION, retries=0, timeout=5).post_seek()
    assert e.value.error == "CrossOriginRedirect" and elsewhere.log == []


def test_a_redirect_loop_ends(hostile):
    home = hostile(redirect("/again", 307))
    with pytest.raises(ClientError, match="redirects"):
        Client(home.url, retries=0).table("t1")
    assert len(home.log) == 6


# --------------------------------------------------------------------------- a whole-request deadline


def _drip_head(h):
    """The status line and headers, a byte every 0.1 s (never finished within a test's time)."""
    forever(h, b"H", pause=0.1)


def _drip_body(h):
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", "100000")
    h.end_headers()
    forever(h, b" ", pause=0.1)


@pytest.mark.parametrize("mode", [_drip_head, _drip_body], ids=["head", "body"])
@pytest.mark.parametrize("call", ["table", "play", "hint"])
def test_a_server_dripping_bytes_cannot_stretch_a_request_past_its_timeout(hostile, mode, call):
    server = hostile(mode)
    start = time.monotonic()
    with pytest.raises(ClientError) as e:
        CALLS[call](Client(server.url, token=TOKEN, timeout=1.0))
    took = time.monotonic() - start
    assert e.value.status == 0 and "within 1 s" in str(e.value)
    assert 0.9 < took < 2.5  # the whole request, not each read (a byte comes every 0.1 s)
    assert len(server.log) == 1  # a request that timed out is not repeated past its deadline


def test_retries_of_an_unreachable_server_stay_within_the_timeout(hostile):
    server = hostile()
    url = server.url
    server.close()  # nobody listens there now: refused connections, tried again until the time is up
    start = time.monotonic()
    with pytest.raises(ClientError) as e:
        Client(url, timeout=1.0, retries=100).table("t1")
    assert e.value.status == 0 and time.monotonic() - start < 2.0


def test_a_stream_line_that_drips_ends_the_stream_within_stream_timeout(hostile, real_view):
    server = hostile(stream_of([{"type": "state", "view": real_view["waiting"]}], then=lambda h: forever(h, b"x", 0.1)))
    frames = []
    start = time.monotonic()
    with pytest.raises(ClientError) as e:
        for frame in Client(server.url, token=TOKEN, stream_timeout=1.0).stream("t1"):
            frames.append(frame)
    assert len(frames) == 1 and e.value.status == 0 and "within 1 s" in str(e.value)
    assert time.monotonic() - start < 2.5


def test_a_long_stream_lives_while_lines_keep_coming(hostile, real_view):
    """``stream_timeout`` bounds each line, not the stream: keep-alive lines 0.3 s apart keep a
    stream with stream_timeout=1 open for 2 s, to the finished game's state."""
    lines = [{"type": "state", "view": real_view["waiting"]}] + [b"\n"] * 7 + [{"type": "state",
                                                                                 "view": real_view["over"]}]
    server = hostile(stream_of(lines, pause=0.3))
    start = time.monotonic()
    frames = list(Client(server.url, token=TOKEN, stream_timeout=1.0).stream("t1"))
    assert time.monotonic() - start > 2.0
    assert [TableView.from_json(f["view"]).over for f in frames] == [False, True]


def _info(done, **change):
    return {"type": "analysis", "version": 4, "best": "7H@d6", "iterations": 100, "seconds": 0.25,
            "moves": [{"move": "7H@d6", "visits": 60, "value": 0.5}], "done": done, "interrupted": False, **change}


def test_the_analysis_stream_ends_at_its_last_update(hostile):
    """The client stops reading at the update marked ``done``, whatever follows it."""
    server = hostile(stream_of([_info(False), b"\n", _info(True, iterations=200), _info(False)]))
    infos = list(Client(server.url, token=TOKEN).analysis_stream("t1", seconds=1))
    assert [(i.iterations, i.done) for i in infos] == [(100, False), (200, True)]
    assert infos[0].moves[0].visits == 60 and infos[0].best == "7H@d6"


def test_an_error_line_of_the_analysis_stream_is_a_client_error(hostile):
    server = hostile(stream_of([{"type": "error", "error": "BusyError", "detail": "a hint runs already"}]))
    with pytest.raises(ClientError) as e:
        next(Client(server.url, token=TOKEN).analysis_stream("t1"))
    assert e.value.error == "BusyError" and "a hint runs already" in str(e.value)


def test_a_wrong_analysis_update_is_a_bad_answer_naming_the_request(hostile):
    server = hostile(stream_of([_info(False, iterations="many")]))
    with pytest.raises(BadAnswerError) as e:
        next(Client(server.url, token=TOKEN).analysis_stream("t1"))
    assert "analysis/stream" in str(e.value) and "iterations" in str(e.value)


@pytest.mark.parametrize("kwargs", [{"seconds": 0}, {"seconds": float("nan")}, {"every": -1}, {"every": "1"}])
def test_the_analysis_stream_names_a_bad_setting(kwargs):
    with pytest.raises(ValueError) as e:
        Client("http://127.0.0.1:1").analysis_stream("t1", **kwargs)
    assert next(iter(kwargs)) in str(e.value)


# --------------------------------------------------------------------------- size caps


def _announce_8_gib(h):
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(8 * 2**30))
    h.end_headers()
    forever(h, b" " * 65536, seconds=5)


def _endless_body(h):
    h.send_response(200)
    h.send_header("Content-Type", "application/json")
    h.send_header("Connection", "close")
    h.end_headers()
    h.wfile.write(b'["')
    forever(h, b"x" * 65536, seconds=10)


def _refusal_of_8_gib(h):
    h.send_response(400)
    h.send_header("Content-Type", "application/json")
    h.send_header("Content-Length", str(8 * 2**30))
    h.end_headers()
    h.wfile.write(b'{"detail": "no", "error": "Nope"' + b" " * 70000)
    forever(h, b" " * 65536, seconds=5)


def test_a_body_announcing_8_gib_is_refused_before_it_is_read(hostile):
    server = hostile(_announce_8_gib)
    start = time.monotonic()
    with pytest.raises(BadAnswerError) as e:
        Client(server.url).table("t1")
    assert "8,589,934,592 bytes" in str(e.value) and "max_body" in str(e.value)
    assert time.monotonic() - start < 2.0


def test_a_body_without_a_length_is_read_up_to_max_body_only(hostile):
    server = hostile(_endless_body)
    with pytest.raises(BadAnswerError, match="longer than the 1,048,576 bytes"):
        Client(server.url, max_body=2**20).table("t1")


def test_a_huge_refusal_is_read_in_part_and_still_refuses(hostile):
    server = hostile(_refusal_of_8_gib)
    with pytest.raises(ClientError) as e:
        Client(server.url, timeout=3).table("t1")
    assert e.value.status == 400 and "\n" not in str(e.value)


def test_a_stream_line_that_never_ends_is_refused_at_max_line(hostile):
    server = hostile(stream_of([], then=lambda h: forever(h, b"x" * 65536, seconds=10)))
    start = time.monotonic()
    with pytest.raises(BadAnswerError, match="stream line longer than the 262,144 bytes"):
        list(Client(server.url, max_line=2**18).stream("t1"))
    assert time.monotonic() - start < 5.0


def test_a_json_bomb_is_a_bad_answer_not_a_recursion_error(hostile):
    server = hostile(send_raw(b"[" * 100_000 + b"]" * 100_000))
    with pytest.raises(BadAnswerError, match="not JSON"):
        Client(server.url).table("t1")


@pytest.mark.parametrize("kwargs", [{"timeout": 0}, {"timeout": float("nan")}, {"max_body": 0}, {"retries": -1},
                                    {"max_line": 1.5}, {"stream_timeout": -1}, {"token": "a\nb"}])
def test_the_client_names_a_bad_setting(kwargs):
    with pytest.raises(ValueError) as e:
        Client("http://127.0.0.1:8000", **kwargs)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("url", ["ftp://x", "http://", "http://h:99999", "http://h/?q=1", "127.0.0.1:8000"])
def test_the_client_names_a_bad_server_url(url):
    with pytest.raises(ValueError, match="server"):
        Client(url)


# --------------------------------------------------------------------------- the bot backs off


class FirstMove:
    """An agent that plays the first legal move (and counts its calls)."""

    name = "first-move"

    def __init__(self):
        self.calls = 0

    def select_move(self, game):
        self.calls += 1
        return game.legal_moves()[0]


def _game_server(real_view, stream):
    """GET /api/tables/t1 answers the waiting seat's view; the stream answers ``stream(h)``."""
    def mode(h):
        if h.path.endswith("/stream"):
            stream(h)
        else:
            send_json(h, real_view["waiting"])
    return mode


FAST = {"first": 0.05, "cap": 0.2, "tries": 4}


@pytest.mark.parametrize("kind", ["ends", "503", "429", "drops", "drips"])
def test_the_bot_backs_off_and_gives_up_instead_of_spinning(hostile, real_view, kind):
    from sequence_game.bot import Backoff, run_bot

    state = {"type": "state", "view": real_view["waiting"]}
    streams = {
        "ends": stream_of([state]),  # the stream ends, the game does not
        "503": lambda h: send_json(h, {"detail": "full", "error": "ServerFull"}, status=503),
        "429": lambda h: send_json(h, {"detail": "slow down", "error": "TooMany"}, status=429),
        "drops": stream_of([state], then=lambda h: h.wfile.write(b'{"type": "sta')),  # cut mid-line
        "drips": stream_of([state], then=lambda h: forever(h, b" ", 0.05, seconds=5)),
    }
    server = hostile(_game_server(real_view, streams[kind]))
    said = []
    start = time.monotonic()
    with pytest.raises(ClientError) as e:
        run_bot(Client(server.url, token=TOKEN, retries=0, stream_timeout=0.3), "t1", FirstMove(), log=said.append,
                backoff=Backoff(**FAST))
    took = time.monotonic() - start
    assert "gave up after 5 failures in a row" in str(e.value) and "\n" not in str(e.value)
    streams_opened = sum(p.endswith("/stream") for _, p, _, _ in server.log)
    assert streams_opened == 5 and len(server.log) == 6  # the first table read, then one stream a try
    # the pauses: at least half of 0.05, 0.1, 0.2, 0.2 (jitter), never a busy loop
    assert took >= 0.5 * (0.05 + 0.1 + 0.2 + 0.2)
    assert sum("trying again in" in s for s in said) == 4


def test_a_stream_that_keeps_ending_but_brings_progress_is_followed_to_the_end(hostile, real_view):
    """The failure count starts again at every new version: a server that ends every stream after
    one state (a proxy that buffers, say) slows the bot down but does not stop it."""
    from sequence_game.bot import Backoff, run_bot

    versions = iter(range(1, 100))

    def one_state(h):
        v = next(versions)
        view = real_view["over"] if v == 8 else {**real_view["waiting"], "version": v}
        stream_of([{"type": "state", "view": view}])(h)

    server = hostile(_game_server(real_view, one_state))
    result = run_bot(Client(server.url, token=TOKEN), "t1", FirstMove(), backoff=Backoff(first=0.01, cap=0.02, tries=2))
    assert result.view.over and result.moves == 0
    assert sum(p.endswith("/stream") for _, p, _, _ in server.log) == 8


def test_client_wait_does_not_spin_on_a_server_answering_at_once(hostile, real_view):
    server = hostile(lambda h: send_json(h, real_view["waiting"]))
    client = Client(server.url, token=TOKEN)
    done = threading.Event()
    threading.Thread(target=lambda: (client.wait("t1", after_version=0, wait=1), done.set()), daemon=True).start()
    time.sleep(1.5)
    assert not done.is_set() and len(server.log) <= 6  # pauses 0.05-0.1, 0.1-0.2, 0.2-0.4, ...


def test_client_wait_returns_on_a_finished_table(hostile, real_view):
    """A resigned table is over though the engine's game is not: the view's ``over`` ends the wait."""
    over = {**real_view["over"], "version": real_view["waiting"]["version"]}
    server = hostile(lambda h: send_json(h, over))
    view = Client(server.url, token=TOKEN).wait("t1", after_version=over["version"], wait=1)
    assert view.over and view.result["resigned"] is not None and len(server.log) == 1


# --------------------------------------------------------------------------- answers of the wrong shape


def test_wrong_shapes_over_the_wire_are_one_line(hostile, real_view):
    no_version = {k: v for k, v in real_view["view"].items() if k != "version"}
    cases = [([], "a table view must be a JSON object, not a list"),
             (no_version, "a table view has no field 'version'"),
             ({**real_view["view"], "legal": "7H@d6"}, "'legal' must be a list of strings, not a string"),
             ({**real_view["view"], "version": True}, "'version' must be an integer, not a boolean"),
             ({**real_view["view"], "state": {**real_view["view"]["state"], "hands": [[]]}}, "1 hands for 2 players")]
    for answer, words in cases:
        server = hostile(lambda h, a=answer: send_json(h, a))
        with pytest.raises(BadAnswerError) as e:
            Client(server.url, token=TOKEN).table("t1")
        assert str(e.value).startswith("GET /api/tables/t1: ") and words in str(e.value), str(e.value)
        assert "\n" not in str(e.value)


def test_the_bot_exits_2_with_one_line_on_a_wrong_answer(hostile, real_view):
    server = hostile(lambda h: send_json(h, [real_view["view"]]))
    out = subprocess.run([sys.executable, "-m", "sequence_game", "bot", "--server", server.url, "--table=t1",
                          f"--token={TOKEN}", "--agent", "random"], env=ENV, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "a table view must be a JSON object, not a list" in out.stderr


def test_the_bot_exits_2_on_a_state_that_is_no_position(hostile, real_view):
    from sequence_game.bot import run_bot

    seat_view = real_view["to_move"]  # the seat to move: the bot plays it
    assert seat_view["legal"]
    bad = {**seat_view, "state": {**seat_view["state"], "draw_pile": 500}}
    server = hostile(_game_server(real_view, stream_of([{"type": "state", "view": bad}])))
    with pytest.raises(BadAnswerError, match="is not a position"):
        run_bot(Client(server.url, token=TOKEN), "t1", FirstMove())


JSON = st.recursive(st.none() | st.booleans() | st.integers(-3, 2**70) | st.floats(allow_nan=False)
                    | st.text(max_size=6), lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=6), c,
                                                                                                 max_size=4),
                    max_leaves=12)


@st.composite
def mutated(draw, base):
    """``base`` (a valid answer) with one place changed: a field dropped, or its value (at any
    depth) replaced by any JSON value."""
    doc = json.loads(json.dumps(base))
    node = doc
    while True:
        if isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node)))
        elif isinstance(node, list) and node:
            key = draw(st.integers(0, len(node) - 1))
        else:
            return draw(JSON)
        child = node[key]
        if isinstance(child, (dict, list)) and child and draw(st.booleans()):
            node = child
            continue
        if isinstance(node, dict) and draw(st.booleans()):
            del node[key]
        else:
            node[key] = draw(JSON)
        return doc


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_any_wrong_table_view_is_a_bad_answer_never_a_crash(real_view, data):
    base = data.draw(st.sampled_from(["view", "waiting", "over"]))
    doc = data.draw(mutated(real_view[base]) | JSON)
    try:
        view = TableView.from_json(doc)
    except BadAnswerError as e:
        assert "\n" not in str(e)
        return
    assert isinstance(view.version, int) and isinstance(view.legal, list)
    if view.seat is not None:
        try:
            view.game(seed=1)
        except BadAnswerError as e:
            assert "\n" not in str(e)


SAMPLES = {
    "SeatLink": {"seat": 1, "token": "t", "url": "http://127.0.0.1/table/x#seat=t"},
    "TableCreated": {"table": "x", "seats": [{"seat": 0, "token": "t", "url": "u"}], "spectate_url": "u"},
    "Hint": {"move": "7H@d6", "version": 3},
    "Analysis": {"best": "7H@d6", "iterations": 10, "seconds": 0.1, "moves": [{"move": "7H@d6", "visits": 9,
                                                                               "value": 0.5}]},
    "AnalysisInfo": {"type": "analysis", "version": 3, "best": "7H@d6", "iterations": 10, "seconds": 0.1,
                     "moves": [{"move": "7H@d6", "visits": 9, "value": 0.5}], "done": False, "interrupted": False},
    "Rematch": {"table": "y", "url": "http://127.0.0.1/table/y"},
    "MoveList": {"version": 2, "moves": [{"player": 0, "move": "7H@d6"}, {"player": 1, "move": "pass"}]},
    "ReviewStatus": {"status": "ready", "review": {
        "method": "win-chance/1", "teams": 2, "tiers": {"inaccuracy": 0.04, "mistake": 0.08, "blunder": 0.12},
        "moves": [{"index": 1, "player": 0, "team": 0, "move": "7H@d6", "kind": "move", "before": 0.5, "after": 0.4,
                   "best": "8H@e6", "loss": 0.1, "tier": "mistake", "accuracy": 70.0, "chances": [0.4, 0.6]}],
        "curve": [[0.5, 0.5], [0.4, 0.6]], "events": [],
        "players": [{"player": 0, "team": 0, "graded": 1, "accuracy": 70.0, "inaccuracy": 0, "mistake": 1,
                     "blunder": 0}]}},
    "Replay": {"record": {}, "names": ["a", "b"], "steps": [{"index": 0, "player": None, "move": None, "state": {}}]},
    "Preset": {"name": "easy", "summary": "greedy", "time_cap": None},
    "TableSummary": {"table": "x", "players": 2, "teams": 2, "created": "2026-01-01T00:00:00Z", "turn": 3,
                     "over": False, "result": None, "seats": [{"kind": "human", "name": None, "ai": None,
                                                               "open": True}]},
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_typed_answer_reads_its_sample(name):
    import sequence_game.client as client

    assert getattr(client, name).from_json(SAMPLES[name]) is not None


@settings(max_examples=60, deadline=None)
@given(data=st.data())
@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_any_wrong_answer_of_every_endpoint_is_a_bad_answer(name, data):
    import sequence_game.client as client

    doc = data.draw(mutated(SAMPLES[name]) | JSON)
    try:
        getattr(client, name).from_json(doc)
    except BadAnswerError as e:
        assert "\n" not in str(e)


# --------------------------------------------------------------------------- every endpoint, documented

#: Each operation of the server's OpenAPI document and the client method that calls it.
METHODS = {
    ("POST", "/api/tables"): "create_table",
    ("GET", "/api/tables"): "tables",
    ("GET", "/api/presets"): "presets",
    ("POST", "/api/tables/{}/join"): "join",
    ("GET", "/api/tables/{}"): "table",  # and wait(), its long-poll
    ("GET", "/api/tables/{}/stream"): "stream",
    ("GET", "/api/tables/{}/ws"): None,  # a websocket: stream() brings the same frames over plain HTTP
    ("GET", "/api/tables/{}/moves"): "moves",
    ("POST", "/api/tables/{}/moves"): "play",
    ("POST", "/api/tables/{}/undo"): "undo",
    ("POST", "/api/tables/{}/resign"): "resign",
    ("POST", "/api/tables/{}/abort"): "abort",
    ("POST", "/api/tables/{}/rematch"): "rematch",
    ("DELETE", "/api/tables/{}/rematch"): "decline_rematch",
    ("POST", "/api/tables/{}/hint"): "hint",
    ("POST", "/api/tables/{}/analysis"): "analysis",
    ("POST", "/api/tables/{}/analysis/stream"): "analysis_stream",
    ("GET", "/api/tables/{}/record"): "record",
    ("GET", "/api/tables/{}/replay"): "replay",
    ("GET", "/api/tables/{}/review"): "review",
    ("POST", "/api/tables/{}/review"): "start_review",
    ("POST", "/api/play-computer"): "play_computer",
    ("POST", "/api/seeks"): "post_seek",
    ("GET", "/api/seeks"): "seeks",
    ("GET", "/api/seeks/{}"): "seek",
    ("DELETE", "/api/seeks/{}"): "cancel_seek",
    ("POST", "/api/seeks/{}/accept"): "accept_seek",
    ("POST", "/api/seeks/quick"): "quick_pairing",
    ("GET", "/api/players"): "players",
    ("GET", "/api/players/{}"): "player",
    ("GET", "/api/players/{}/tournaments"): "player_tournaments",
    ("GET", "/api/leaderboard"): "leaderboard",
    ("GET", "/api/people"): "people",
    ("PUT", "/api/people/follows/{}"): "follow",
    ("DELETE", "/api/people/follows/{}"): "unfollow",
    ("PUT", "/api/people/blocks/{}"): "block",
    ("DELETE", "/api/people/blocks/{}"): "unblock",
    ("PUT", "/api/profile"): "set_profile",
    ("POST", "/api/challenges"): "challenge",
    ("GET", "/api/challenges/{}"): "challenge_status",
    ("DELETE", "/api/challenges/{}"): "withdraw_challenge",
    ("POST", "/api/challenges/{}/accept"): "accept_challenge",
    ("POST", "/api/challenges/{}/decline"): "decline_challenge",
    ("GET", "/api/tournaments"): "tournaments",
    ("POST", "/api/tournaments"): "create_tournament",
    ("GET", "/api/tournaments/{}"): "tournament",
    ("POST", "/api/tournaments/{}/join"): "join_tournament",
    ("POST", "/api/tournaments/{}/start"): "start_tournament",
    ("POST", "/api/tournaments/{}/withdraw"): "withdraw_from_tournament",
    ("POST", "/api/tournaments/{}/pause"): "pause_tournament",
    ("POST", "/api/tournaments/{}/berserk"): "berserk",
    ("GET", "/api/tournaments/{}/seat"): "tournament_seat",
    ("GET", "/api/tables/{}/ratings"): "ratings",
    ("POST", "/api/accounts"): "sign_up",
    ("GET", "/api/session"): "signed_in",
    ("POST", "/api/session"): "log_in",
    ("DELETE", "/api/session"): "log_out",
    ("PUT", "/api/session/password"): "change_password",
    ("PUT", "/api/session/language"): "set_language",
}


def _norm(path):
    return re.sub(r"\{[^}]*\}", "{}", path.split("?")[0])


@pytest.fixture(scope="module")
def operations():
    pytest.importorskip("fastapi", reason="the [web] extra is not installed")
    from sequence_game.web import create_app

    paths = create_app().openapi()["paths"]
    return {(method.upper(), _norm(path)) for path, ops in paths.items() for method in ops}


def test_the_client_has_a_method_for_every_endpoint(operations):
    assert operations == set(METHODS), "an endpoint was added or removed: give it a Client method and a doc row"
    for name in filter(None, METHODS.values()):
        assert callable(getattr(Client, name)) and getattr(Client, name).__doc__


def _table_rows(path, header):
    """The ``METHOD /path`` of each row of the Markdown table whose header row starts with ``header``."""
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cell = re.match(r"\| `(GET|POST|PUT|PATCH|DELETE) ([^`]+)`", line)
        assert cell, f"{path}: a row that names no request: {line[:60]}"
        rows.append((cell.group(1), _norm(cell.group(2))))
    return rows


@pytest.mark.parametrize("path, header", [("docs/web.md", "| method and path |"),
                                          ("docs/tutorials/http-bot.md", "| request | what | `Client` method |")])
def test_each_docs_endpoint_table_lists_every_endpoint_of_the_openapi_document(operations, path, header):
    rows = _table_rows(path, header)
    assert set(rows) == operations, (f"{path}: missing {sorted(operations - set(rows))}, "
                                     f"not in the server {sorted(set(rows) - operations)}")


def test_the_tutorials_table_names_the_client_method_of_each_request():
    lines = (ROOT / "docs/tutorials/http-bot.md").read_text(encoding="utf-8").splitlines()
    for line in lines:
        cell = re.match(r"\| `(GET|POST) ([^`]+)` \|.*\| (.*) \|$", line)
        if cell:
            named = re.findall(r"`(\w+)`", cell.group(3))
            expected = METHODS[(cell.group(1), _norm(cell.group(2)))]
            assert expected in named if expected else ("(use `stream`)" in line or "(a browser's)" in line), line


# --------------------------------------------------------------------------- each shape declared once

#: Each typed answer of the client and the schema of the OpenAPI document (web/models/) it reads.
ANSWERS = {
    "SeatLink": "SeatLink", "TableCreated": "TableCreated", "SeekPosted": "SeekPosted", "Seek": "SeekSummary",
    "SeekList": "SeekList", "SeekStatus": "SeekStatus", "QuickPairing": "QuickPairing", "Session": "Me",
    "Preset": "PresetInfo", "SeatInfo": "SeatView", "TableView": "TableView", "SummarySeat": "SummarySeat",
    "TableSummary": "TableSummary", "PublicMove": "PublicMove", "MoveList": "MoveList", "Hint": "HintResponse",
    "RootMove": "RootMove", "Analysis": "Analysis", "AnalysisInfo": "AnalysisInfo", "Rematch": "Rematch",
    "ReviewedMove": "ReviewedMoveModel", "ReviewPlayer": "ReviewPlayer", "Review": "ReviewData",
    "ReviewStatus": "ReviewStatus", "ReplayStep": "ReplayStep", "Replay": "Replay", "RematchAnswer": "RematchAnswer",
}


def schema_type(s):
    """A schema of the OpenAPI document as a comparable tuple: ("integer",), ("list", item),
    ("optional", inner), ("ref", name), ("dict", value), ("tuple", items), ("any",)."""
    if "$ref" in s:
        return ("ref", s["$ref"].rsplit("/", 1)[1].removesuffix("-Output"))
    if "anyOf" in s:
        kinds = [x for x in s["anyOf"] if x.get("type") != "null"]
        inner = schema_type(kinds[0]) if len(kinds) == 1 else ("any",)
        return ("optional", inner) if len(kinds) < len(s["anyOf"]) else inner
    kind = s.get("type")
    if kind == "array":
        if "prefixItems" in s:
            return ("tuple", tuple(schema_type(x) for x in s["prefixItems"]))
        return ("list", schema_type(s.get("items", {})))
    if kind == "object":
        more = s.get("additionalProperties")
        return ("dict", schema_type(more) if isinstance(more, dict) and more else ("any",))
    return (kind,) if kind else ("any",)


def client_type(kind):
    """A field type of a client answer as :func:`schema_type` writes a schema's."""
    import typing

    from sequence_game import client

    inner, null = client._optional(kind)
    origin, args = typing.get_origin(inner), typing.get_args(inner)
    if origin is list:
        t = ("list", client_type(args[0]))
    elif origin is tuple:
        t = ("tuple", tuple(client_type(a) for a in args))
    elif origin is dict:
        t = ("dict", client_type(args[1]))
    elif isinstance(inner, type) and issubclass(inner, client._Answer):
        t = ("ref", ANSWERS.get(inner.__name__, inner.__name__))
    else:
        t = {int: ("integer",), float: ("number",), str: ("string",), bool: ("boolean",)}.get(inner, ("any",))
    return ("optional", t) if null else t


def same_type(mine, theirs):
    """Whether the client's type reads what the schema allows: the same type, where a shape the
    client keeps as the JSON object it is (a dict) stands for any object schema."""
    if mine == ("dict", ("any",)) and theirs[0] in ("ref", "dict"):
        return True
    if mine[0] != theirs[0]:
        return False
    if mine[0] in ("optional", "list", "dict"):
        return same_type(mine[1], theirs[1])
    if mine[0] == "tuple":
        return len(mine[1]) == len(theirs[1]) and all(map(same_type, mine[1], theirs[1]))
    return mine == theirs


def shape_differences(cls, schema):
    """How the fields of the client's answer class ``cls`` differ from the object ``schema``: a
    field one has and the other has not, or a field of another type. A field the answer may lack
    (``_MAY_LACK``: None when the server leaves it out) may be optional where the schema's is not."""
    from sequence_game import client

    mine = {name: kind for name, kind, whole in client.answer_fields(cls) if not whole}
    theirs = schema.get("properties", {})
    found = [f"{cls.__name__}.{n}: not in the schema" for n in sorted(set(mine) - set(theirs))]
    found += [f"{cls.__name__}: no field {n!r}" for n in sorted(set(theirs) - set(mine))]
    for name in sorted(set(mine) & set(theirs)):
        have, want = client_type(mine[name]), schema_type(theirs[name])
        if name in cls._MAY_LACK and have[0] == "optional" and want[0] != "optional":
            have = have[1]
        if not same_type(have, want):
            found.append(f"{cls.__name__}.{name}: {have} where the schema has {want}")
    return found


@pytest.fixture(scope="module")
def schemas():
    pytest.importorskip("fastapi", reason="the [web] extra is not installed")
    from sequence_game.web import create_app

    return create_app().openapi()["components"]["schemas"]


def test_each_answer_of_the_client_has_the_fields_of_its_server_schema(schemas):
    """The client declares no shape of its own: each typed answer has the fields of the server's
    model (web/models/, through the OpenAPI document), with the same types."""
    from sequence_game import client

    answers = {name: cls for name, cls in vars(client).items()
               if isinstance(cls, type) and issubclass(cls, client._Answer) and cls is not client._Answer}
    assert set(answers) == set(ANSWERS), "a typed answer was added or removed: name its schema in ANSWERS"
    differences = [d for name, cls in sorted(answers.items()) for d in shape_differences(cls, schemas[ANSWERS[name]])]
    assert not differences, "\n".join(differences)


def test_the_shape_check_catches_a_missing_field_and_a_wrong_type():
    import dataclasses
    from typing import List, Optional

    from sequence_game import client

    # made with the types themselves: this module's annotations are text, read in its globals
    Wrong = dataclasses.make_dataclass("Wrong", [("seat", str), ("links", List[int]),
                                                 ("late", Optional[int], dataclasses.field(default=None))],
                                       bases=(client._Answer,), frozen=True)
    Wrong._MAY_LACK = frozenset({"late"})

    schema = {"properties": {"seat": {"type": "integer"}, "token": {"type": "string"}, "late": {"type": "integer"},
                             "links": {"type": "array", "items": {"$ref": "#/components/schemas/SeatLink"}}}}
    assert shape_differences(Wrong, schema) == [
        "Wrong: no field 'token'", "Wrong.links: ('list', ('integer',)) where the schema has ('list', ('ref', "
        "'SeatLink'))", "Wrong.seat: ('string',) where the schema has ('integer',)"]


# --------------------------------------------------------------------------- siblings


def test_a_refusal_with_a_many_line_detail_is_one_line(hostile):
    detail = "first line\nsecond\x1b[31m line\r\n" + "x" * 2000
    server = hostile(lambda h: send_json(h, {"detail": detail, "error": "Nope"}, status=409))
    with pytest.raises(ClientError) as e:
        Client(server.url, token=TOKEN).play("t1", "pass")
    assert e.value.status == 409 and e.value.error == "Nope"
    assert "\n" not in str(e.value) and "\r" not in str(e.value) and len(str(e.value)) < 600


def test_a_refusal_that_is_not_json_keeps_its_status(hostile):
    server = hostile(send_raw(b"<html>bad gateway</html>", status=502))
    with pytest.raises(ClientError) as e:
        Client(server.url, retries=0).play("t1", "pass")
    assert e.value.status == 502 and not isinstance(e.value, BadAnswerError)


@pytest.mark.parametrize("change, words", [
    ({"hands": [["7H", "7H", "7H"], 7]}, "two decks do not hold"),
    ({"draw_pile": 200}, "only"),
    ({"player": None}, "spectator"),
    ({"hands": [["ZZ"], 7]}, "two decks do not hold"),
    ({"board": "nonsense"}, "not a position"),
])
def test_game_from_observation_names_what_is_wrong(change, words):
    import sequence_game
    from sequence_game.client import game_from_observation

    obs = sequence_game.Game(players=2, seed=1).observation(0)
    with pytest.raises(ValueError) as e:
        game_from_observation({**obs, **change})
    assert words in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("kwargs", [{"first": 0}, {"first": 2, "cap": 1}, {"tries": -1}, {"tries": 1.5},
                                    {"cap": float("inf")}])
def test_backoff_names_a_bad_setting(kwargs):
    from sequence_game.bot import Backoff

    with pytest.raises(ValueError, match="Backoff"):
        Backoff(**kwargs)


def test_backoff_pauses_grow_to_the_cap_with_jitter():
    from sequence_game.bot import Backoff

    b = Backoff(first=1, cap=8, tries=10)
    for failures, full in [(1, 1), (2, 2), (3, 4), (4, 8), (9, 8), (500, 8)]:
        pauses = [b.delay(failures) for _ in range(50)]
        assert all(full / 2 <= p <= full for p in pauses) and len(set(pauses)) > 1


def test_the_bot_against_a_server_that_never_finishes_an_answer_ends_in_bounded_time(hostile):
    """Every request drips: each ends at the client's timeout, the bot backs off between them and
    stops after its tries, one line, never waiting for ever."""
    from sequence_game.bot import Backoff, run_bot

    server = hostile(_drip_head)
    start = time.monotonic()
    with pytest.raises(ClientError) as e:
        run_bot(Client(server.url, token=TOKEN, timeout=0.3), "t1", FirstMove(), backoff=Backoff(first=0.05, tries=3))
    assert "gave up after 4 failures in a row" in str(e.value) and "within 0.3 s" in str(e.value)
    assert len(server.log) == 4 and time.monotonic() - start < 4 * 0.3 + 0.35 + 1.5
