"""What the web server's test modules share: the base URL a loopback server answers to, a seat's
auth header, creating a table over HTTP, every seat's first move, the service behind a test client,
waiting, the app served by uvicorn in a thread, and a real
``sequence-game serve`` process on a free port."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
import time
import urllib.request

#: a loopback server answers to its loopback names only (docs/security.md)
BASE = "http://127.0.0.1"


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def shared(body):
    """Whether someone other than the creator may sit at the table ``body`` creates (an open seat, or
    two or more human seats with links of their own): the server deals it, no seed (R9)."""
    humans = [s for s in body.get("seats") or [] if s.get("kind") == "human"]
    return any(s.get("open") for s in humans) or (not body.get("hot_seat") and len(humans) >= 2)


def new_table(client, **body):
    """POST /api/tables with ``body``; returns the table id and ``{seat: token}``. A ``seed`` is
    left out where the server deals from its own entropy (:func:`shared`): those tests read the deal
    from the table."""
    if shared(body):
        body.pop("seed", None)
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    data = r.json()
    return data["table"], {s["seat"]: s["token"] for s in data["seats"]}


def first_moves(client, tid, tokens):
    """Every seat of ``tokens`` makes a move (its first legal one), in turn: at a table of people a
    game is aborted, not resigned, before every first move (docs/club.md, "Abort")."""
    for _ in range(len(tokens)):
        p = client.get(f"/api/tables/{tid}").json()["state"]["current_player"]
        legal = client.get(f"/api/tables/{tid}", headers=auth(tokens[p])).json()["legal"]
        r = client.post(f"/api/tables/{tid}/moves", json={"move": legal[0]}, headers=auth(tokens[p]))
        assert r.status_code == 200, r.text


def service_of(client):
    return client.app.state.service


def wait_for(predicate, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return
        time.sleep(0.005)
    raise AssertionError("timed out waiting")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_uvicorn(app, port: int):
    """``app`` served by uvicorn on 127.0.0.1:``port`` in a daemon thread, once it has started: the
    server and its thread (:func:`stop_uvicorn` stops them). As ``sequence-game serve`` does, the
    server waits 5 s at most for requests under way when it stops: a long-poll whose browser has
    gone would otherwise hold it for the poll's whole wait."""
    import uvicorn

    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                        timeout_graceful_shutdown=5))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    end = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < end and thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    return srv, thread


def stop_uvicorn(srv, thread) -> None:
    """Stop a server of :func:`start_uvicorn` and wait for its thread: a server still running would
    play on (its AI seats, its tournaments) through the tests after it, or beside its own restart."""
    srv.should_exit = True
    thread.join(30)
    assert not thread.is_alive(), "the server did not stop within 30 s"


@contextlib.contextmanager
def serving(app):
    """``app`` served by uvicorn in a thread on a free loopback port (:func:`start_uvicorn`): yields
    its URL, and stops the server after."""
    port = free_port()
    srv, thread = start_uvicorn(app, port)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_uvicorn(srv, thread)


def start_server(db, port: int, *extra: str, timeout: float = 60.0) -> subprocess.Popen:
    """``sequence-game serve --db DB --port PORT`` with ``extra`` arguments, in its own process,
    once it answers. Its log goes to ``DB.log`` (appended: a restarted server's follows): a pipe
    nobody reads would fill and block the server on a write."""
    server = subprocess.Popen(
        [sys.executable, "-m", "sequence_game", "serve", "--no-browser", "--port", str(port), "--db", str(db), *extra],
        stdout=open(str(db) + ".log", "a"), stderr=subprocess.STDOUT, text=True)  # noqa: SIM115 (lives with it)
    end = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/presets").read()
            return server
        except OSError:
            if time.monotonic() > end or server.poll() is not None:
                server.kill()
                with open(str(db) + ".log") as f:
                    raise AssertionError(f"the server did not start: {f.read()[-2000:]}") from None
            time.sleep(0.1)


def file_size_limit(limit: int):
    """A child process's ``preexec_fn``: the files it writes stop at ``limit`` bytes (as on a full
    disk), and a write past it fails with an error (EFBIG) instead of SIGXFSZ killing the process."""
    import resource
    import signal

    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply
