"""The tables' chat (web/tables/chat.py): a players' room and a spectators' room per table, text
only, capped, rate-limited, with reports and the operator's switch; no hand in any chat frame (R9)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient
from sequence_game.web import create_app
from sequence_game.web.limits import ServerLimits
from sequence_game.web.tables.chat import MAX_CHAT_TEXT, NOTICE, SPECTATORS_NOTICE, clean_text
from web_support import BASE, new_table

TWO_HUMANS = dict(players=2, seats=[{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}])
FOUR_HUMANS = dict(players=4, seats=[{"kind": "human", "name": n} for n in ("Ann", "Bob", "Cy", "Di")])


@pytest.fixture
def client():
    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        yield c


def _open(client, table, token):
    ws = client.websocket_connect(f"ws://127.0.0.1/api/tables/{table}/ws")
    sock = ws.__enter__()
    sock.send_json({"type": "hello", "token": token, "chat": True})
    assert sock.receive_json()["type"] == "state"
    log = sock.receive_json()
    assert log["type"] == "chat-log"
    return ws, sock, log


def _no_chat(sock):
    """Nothing of the chat reached ``sock`` so far: every frame before the answer to a ping."""
    sock.send_json({"type": "ping"})
    while True:
        frame = sock.receive_json()
        if frame["type"] == "pong":
            return True
        assert frame["type"] not in ("chat", "chat-log"), frame


def _until_pong(sock):
    """The frames before the answer to a ping, but the spectator counts a player's socket hears."""
    return [f for f in iter(sock.receive_json, {"type": "pong"}) if f["type"] != "spectators"]


def _next(sock, kind):
    while True:
        frame = sock.receive_json()
        if frame["type"] == kind:
            return frame


def test_players_chat_reaches_every_seat_but_no_spectator(client):
    table, tokens = new_table(client, **FOUR_HUMANS)
    socks = [_open(client, table, tokens[p]) for p in range(4)]
    watcher = _open(client, table, None)
    assert watcher[2]["notice"] == SPECTATORS_NOTICE and watcher[2]["you"] == "Spectator 1"
    assert socks[0][2]["you"] is None
    assert socks[0][2]["notice"] == NOTICE and "table talk" in NOTICE and socks[0][2]["enabled"] is True
    socks[0][1].send_json({"type": "chat", "text": "good luck all"})
    for _, sock, _ in socks:  # both teams: no private channel between teammates (R10)
        frame = _next(sock, "chat")
        assert frame["channel"] == "players" and frame["from"] == "Ann" and frame["seat"] == 0
        assert frame["text"] == "good luck all"
    # the spectator heard nothing: its next frame is the answer to its own ping
    assert _no_chat(watcher[1])
    for ws, *_ in [*socks, watcher]:
        ws.__exit__(None, None, None)


def test_spectators_chat_never_reaches_players_during_play(client):
    table, tokens = new_table(client, **TWO_HUMANS)
    ws0, p0, _ = _open(client, table, tokens[0])
    wa, a, _ = _open(client, table, None)
    wb, b, _ = _open(client, table, None)
    a.send_json({"type": "chat", "text": "seat 0 should block e5"})
    got = _next(b, "chat")
    assert got["channel"] == "spectators" and got["from"] == "Spectator 1" and got["seat"] is None
    _next(a, "chat")
    assert _no_chat(p0)
    # a player who connects later does not get the spectators' room either
    ws1, p1, log1 = _open(client, table, tokens[1])
    assert log1["messages"] == []
    # the spectators do not read the players' room
    p1.send_json({"type": "chat", "text": "hi"})
    _next(p0, "chat")
    assert _no_chat(b)
    for ws in (ws0, wa, wb, ws1):
        ws.__exit__(None, None, None)


def test_after_the_game_players_read_the_spectators_room(client):
    table, tokens = new_table(client, **TWO_HUMANS)
    wa, a, _ = _open(client, table, None)
    a.send_json({"type": "chat", "text": "well played"})
    _next(a, "chat")
    r = client.post(f"/api/tables/{table}/resign", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert r.status_code == 200, r.text
    ws0, p0, log = _open(client, table, tokens[0])
    assert [m["text"] for m in log["messages"]] == ["well played"]
    for ws in (wa, ws0):
        ws.__exit__(None, None, None)


def test_at_the_end_connected_players_get_the_spectators_room(client):
    table, tokens = new_table(client, **TWO_HUMANS)
    ws0, p0, _ = _open(client, table, tokens[0])
    wa, a, _ = _open(client, table, None)
    a.send_json({"type": "chat", "text": "nice block"})
    _next(a, "chat")
    p0.send_json({"type": "resign"})
    log = _next(p0, "chat-log")
    assert [m["text"] for m in log["messages"]] == ["nice block"]
    a.send_json({"type": "chat", "text": "gg"})
    assert _next(p0, "chat")["text"] == "gg"
    for ws in (ws0, wa):
        ws.__exit__(None, None, None)


@pytest.mark.parametrize("text", ["<img src=x onerror=alert(1)>", "<script>alert('x')</script>", "&lt;b&gt;"])
def test_markup_is_sent_as_the_text_typed(client, text):
    # the page shows it with textContent (the browser test checks no element is made); the server
    # never turns it into HTML, nor escapes it twice
    table, tokens = new_table(client, **TWO_HUMANS)
    ws0, p0, _ = _open(client, table, tokens[0])
    p0.send_json({"type": "chat", "text": text})
    assert _next(p0, "chat")["text"] == text
    ws0.__exit__(None, None, None)


@pytest.mark.parametrize("frame, words", [
    ({"type": "chat", "text": "x" * (MAX_CHAT_TEXT + 1)}, "at most 200"),
    ({"type": "chat", "text": "   \n\t "}, "needs some text"),
    ({"type": "chat", "text": "\u202e\u200b"}, "needs some text"),
    ({"type": "chat", "text": 5}, "text"),
    ({"type": "chat"}, "text"),
    ({"type": "chat", "text": "hi", "to": "teammate"}, "to"),
    ({"type": "report", "message": 0}, "message"),
    ({"type": "report", "message": "1"}, "message"),
    ({"type": "report", "message": 99}, "no chat message 99"),
])
def test_hostile_chat_frames_are_refused_with_a_reason(client, frame, words):
    table, tokens = new_table(client, **TWO_HUMANS)
    ws0, p0, _ = _open(client, table, tokens[0])
    p0.send_json(frame)
    err = _next(p0, "error")
    assert words in err["detail"], err
    p0.send_json({"type": "ping"})  # the socket still serves
    assert _next(p0, "pong")
    ws0.__exit__(None, None, None)


def test_a_connection_that_did_not_ask_for_the_chat_gets_none(client):
    # bots and older clients: no chat frame unless the hello asks for the chat
    table, tokens = new_table(client, **TWO_HUMANS)
    ws0, p0, _ = _open(client, table, tokens[0])
    with client.websocket_connect(f"ws://127.0.0.1/api/tables/{table}/ws") as ws:
        ws.send_json({"type": "hello", "token": tokens[1]})
        assert ws.receive_json()["type"] == "state"
        p0.send_json({"type": "chat", "text": "hi"})
        _next(p0, "chat")
        assert _no_chat(ws)
        ws.send_json({"type": "chat", "text": "hi"})
        assert "not in the chat" in _next(ws, "error")["detail"]
    ws0.__exit__(None, None, None)


def test_control_characters_are_dropped():
    assert clean_text("a\x00b\u202ec\n\nd") == "abc d"
    with pytest.raises(ValueError, match="needs some text"):
        clean_text("\x07")


def test_chat_is_rate_limited_per_address():
    limits = ServerLimits(chat_burst=3, chat_per_minute=1.0)
    with TestClient(create_app(ai_pause=0, limits=limits), base_url=BASE) as client:
        table, tokens = new_table(client, **TWO_HUMANS)
        ws0, p0, _ = _open(client, table, tokens[0])
        for i in range(3):
            p0.send_json({"type": "chat", "text": f"m{i}"})
            _next(p0, "chat")
        p0.send_json({"type": "chat", "text": "one too many"})
        err = _next(p0, "error")
        assert err["error"] == "BusyError" and "too many chat messages" in err["detail"]
        ws0.__exit__(None, None, None)


def test_report_flags_a_message_for_the_operator(client, caplog):
    table, tokens = new_table(client, **TWO_HUMANS)
    ws0, p0, _ = _open(client, table, tokens[0])
    ws1, p1, _ = _open(client, table, tokens[1])
    p0.send_json({"type": "chat", "text": "rude words"})
    mid = _next(p1, "chat")["id"]
    with caplog.at_level("WARNING", logger="sequence_game.web"):
        p1.send_json({"type": "report", "message": mid})
        assert _next(p1, "reported") == {"type": "reported", "message": mid}
    assert "rude words" in caplog.text
    service = client.app.state.service
    assert service.chat.reports[-1]["message"]["id"] == mid
    for ws in (ws0, ws1):
        ws.__exit__(None, None, None)


def test_a_spectator_cannot_report_what_it_cannot_read(client):
    table, tokens = new_table(client, **TWO_HUMANS)
    ws0, p0, _ = _open(client, table, tokens[0])
    wa, a, _ = _open(client, table, None)
    p0.send_json({"type": "chat", "text": "players only"})
    mid = _next(p0, "chat")["id"]
    a.send_json({"type": "report", "message": mid})
    assert f"no chat message {mid}" in _next(a, "error")["detail"]
    for ws in (ws0, wa):
        ws.__exit__(None, None, None)


def test_the_operator_switches_the_chat_off():
    with TestClient(create_app(ai_pause=0, chat=False), base_url=BASE) as client:
        table, tokens = new_table(client, **TWO_HUMANS)
        ws0, p0, log = _open(client, table, tokens[0])
        assert log["enabled"] is False and "--no-chat" in log["notice"]
        p0.send_json({"type": "chat", "text": "hello"})
        err = _next(p0, "error")
        assert err["error"] == "NotNowError" and "switched off" in err["detail"]
        ws0.__exit__(None, None, None)


def test_chat_frames_never_carry_a_hand(client):
    # R9: a chat frame holds the writer's name, seat, account and text only
    table, tokens = new_table(client, **TWO_HUMANS)
    ws0, p0, _ = _open(client, table, tokens[0])
    p0.send_json({"type": "chat", "text": "hi"})
    frame = _next(p0, "chat")
    assert set(frame) == {"type", "id", "channel", "from", "seat", "account", "text", "at"}
    assert "hands" not in json.dumps(frame) and "legal" not in json.dumps(frame)
    ws0.__exit__(None, None, None)


def test_the_event_stream_carries_no_chat(client):
    table, tokens = new_table(client, **TWO_HUMANS)
    service = client.app.state.service
    t = service.tables[table]
    from sequence_game.web.tables import Connection

    stream = Connection(frozenset({1}), "x")
    t.connections.add(stream)  # an event stream's connection: never welcomed to the chat
    ws0, p0, _ = _open(client, table, tokens[0])
    p0.send_json({"type": "chat", "text": "hi"})
    _next(p0, "chat")
    texts = []
    while not stream.queue.empty():
        texts.append(stream.queue.get_nowait())
    assert not any('"type":"chat"' in (x or "") for x in texts)
    t.connections.discard(stream)
    ws0.__exit__(None, None, None)


def _server(path):
    """The app over the database file ``path``; a second one on the same file is the server after a restart."""
    return TestClient(create_app(path, ai_pause=0), base_url=BASE)


def _chat_then_report(client):
    """A table of Ann and Bob: Ann says something rude, a spectator says "gg", Bob reports Ann."""
    table, tokens = new_table(client, **TWO_HUMANS)
    ws0, p0, _ = _open(client, table, tokens[0])
    ws1, p1, _ = _open(client, table, tokens[1])
    wa, a, _ = _open(client, table, None)
    p0.send_json({"type": "chat", "text": "rude \x1b[31mwords"})
    mid = _next(p1, "chat")["id"]
    a.send_json({"type": "chat", "text": "gg"})
    _next(a, "chat")
    p1.send_json({"type": "report", "message": mid})
    _next(p1, "reported")
    for ws in (ws0, ws1, wa):
        ws.__exit__(None, None, None)
    return table, tokens, mid


def test_a_tables_chat_comes_back_after_a_restart(tmp_path):
    db = tmp_path / "tables.sqlite3"
    with _server(db) as client:
        table, tokens, mid = _chat_then_report(client)
    with _server(db) as client:
        ws0, p0, players_log = _open(client, table, tokens[0])
        wa, a, watcher_log = _open(client, table, None)
        p0.send_json({"type": "chat", "text": "back again"})
        p0.send_json({"type": "ping"})
        frames = _until_pong(p0)  # the chat, or the error the server answered
        for ws in (ws0, wa):  # closed before asserting: a failure never leaves the server waiting
            ws.__exit__(None, None, None)
    assert [(m["id"], m["from"], m["text"]) for m in players_log["messages"]] == [(mid, "Ann", "rude [31mwords")]
    assert [(m["from"], m["text"]) for m in watcher_log["messages"]] == [("Spectator 1", "gg")]
    assert watcher_log["you"] == "Spectator 2"  # never the name of one who wrote before the restart
    assert frames[0]["type"] == "chat" and frames[0]["id"] == mid + 2  # ids go on after those kept
    with _server(db) as client:  # a finished table read back from its row: both rooms for its players
        assert client.post(f"/api/tables/{table}/resign", headers={"Authorization": f"Bearer {tokens[0]}"}).status_code == 200
    with _server(db) as client:
        ws1, p1, log = _open(client, table, tokens[1])
        ws1.__exit__(None, None, None)
    assert [m["text"] for m in log["messages"]] == ["rude [31mwords", "gg", "back again"]


def test_a_chat_message_says_when_in_iso_8601_as_every_time_of_the_api(tmp_path):
    """``at`` is ISO 8601 UTC text, as a record's and a player page's times are; a message kept by
    an older server (seconds since the epoch) comes back in the same form."""
    import re
    import sqlite3
    from datetime import datetime, timedelta, timezone

    db = tmp_path / "tables.sqlite3"
    before = datetime.now(timezone.utc) - timedelta(seconds=5)
    with _server(db) as client:
        table, tokens = new_table(client, **TWO_HUMANS)
        ws0, p0, _ = _open(client, table, tokens[0])
        p0.send_json({"type": "chat", "text": "hello"})
        at = _next(p0, "chat")["at"]
        ws0.__exit__(None, None, None)
    assert isinstance(at, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", at), at
    assert before <= datetime.fromisoformat(at.replace("Z", "+00:00")) <= datetime.now(timezone.utc)
    with sqlite3.connect(db) as con:  # as an older server kept it
        (row_id, text), = con.execute("SELECT rowid, message FROM chat")
        con.execute("UPDATE chat SET message = ? WHERE rowid = ?", (json.dumps({**json.loads(text), "at": 0.5}), row_id))
    with _server(db) as client:
        ws0, p0, log = _open(client, table, tokens[0])
        ws0.__exit__(None, None, None)
    assert [(m["text"], m["at"]) for m in log["messages"]] == [("hello", "1970-01-01T00:00:00.500Z")]


def test_a_room_keeps_its_last_messages_in_the_database(tmp_path):
    import sqlite3

    from sequence_game.web.tables.chat import KEEP

    limits = ServerLimits(chat_burst=KEEP + 10, chat_per_minute=600.0)
    db = tmp_path / "tables.sqlite3"
    with TestClient(create_app(db, ai_pause=0, limits=limits), base_url=BASE) as client:
        table, tokens = new_table(client, **TWO_HUMANS)
        ws0, p0, _ = _open(client, table, tokens[0])
        for i in range(KEEP + 5):
            p0.send_json({"type": "chat", "text": f"m{i}"})
            _next(p0, "chat")
        ws0.__exit__(None, None, None)
    with sqlite3.connect(db) as con:
        texts = [json.loads(m)["text"] for (m,) in con.execute("SELECT message FROM chat ORDER BY id")]
    assert texts == [f"m{i}" for i in range(5, KEEP + 5)]


def test_reports_are_kept_and_the_operator_reads_and_closes_them(tmp_path, capsys):
    from sequence_game.cli import main

    db = tmp_path / "tables.sqlite3"
    with _server(db) as client:
        table, _, mid = _chat_then_report(client)
    capsys.readouterr()
    assert main(["accounts", "reports", "--db", str(db)]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    rid, when, at_table, reporter, reported, text = line.split("\t")
    assert at_table == table and reporter.startswith("Bob (") and reported == "Ann (guest)"
    assert text == "rude [31mwords" and "\x1b" not in line  # the escape never reached the operator's terminal
    assert when[:4].isdigit() and when[4] == "-"
    assert main(["accounts", "reports", "close", rid, "--db", str(db)]) == 0
    assert capsys.readouterr().out == f"report {rid} closed\n"
    assert main(["accounts", "reports", "--db", str(db)]) == 0
    assert capsys.readouterr().out == ""
    assert main(["accounts", "reports", "close", rid, "--db", str(db)]) != 0
    assert f"no open report {rid}" in capsys.readouterr().err
    for bad, words in ((["reports", "close"], "needs the ID"), (["reports", "shut", "1"], "'close ID' or nothing"),
                       (["reports", "3"], "'close ID' or nothing"), (["create", "ann", "3"], "not an ID")):
        assert main(["accounts", *bad, "--db", str(db)]) != 0
        assert words in capsys.readouterr().err, bad
    with pytest.raises(SystemExit):  # a usage error
        main(["accounts", "reports", "close", "x", "--db", str(db)])
    assert "a report's ID is a whole number" in capsys.readouterr().err


def test_no_http_endpoint_serves_the_reports(tmp_path):
    db = tmp_path / "tables.sqlite3"
    with _server(db) as client:
        table, tokens, mid = _chat_then_report(client)
        document = client.app.openapi()["paths"]
        assert not [p for p in document if "report" in p]
        # the stream and the websocket are not answers that end (test_the_event_stream_carries_no_chat)
        paths = [p for p, methods in document.items() if "get" in methods and not p.endswith(("/stream", "/ws"))]
        seen = []
        for path in paths:
            url = path.replace("{table_id}", table).replace("{name}", "Ann").replace("{seek_id}", "x")
            r = client.get(url, headers={"Authorization": f"Bearer {tokens[1]}"})
            seen.append(path)
            assert "rude" not in r.text and "reporter" not in r.text, path
        assert "/api/tables/{table_id}" in seen and "/api/seeks" in seen


def test_a_chat_write_the_database_refuses_is_logged_and_the_chat_goes_on(tmp_path, caplog, monkeypatch):
    from sequence_game.web.store import StoreError

    with _server(tmp_path / "tables.sqlite3") as client:
        def full_disk(*args):
            raise StoreError("the database refused the write (database or disk is full)")

        monkeypatch.setattr(client.app.state.social.store, "save_message", full_disk)
        table, tokens = new_table(client, **TWO_HUMANS)
        ws0, p0, _ = _open(client, table, tokens[0])
        ws1, p1, _ = _open(client, table, tokens[1])
        with caplog.at_level("ERROR", logger="sequence_game.web"):
            p0.send_json({"type": "chat", "text": "still here"})
            assert _next(p1, "chat")["text"] == "still here"
            p0.send_json({"type": "chat", "text": "and again"})
            assert _next(p1, "chat")["text"] == "and again"
            for ws in (ws0, ws1):
                ws.__exit__(None, None, None)
    assert "a database write failed" in caplog.text and "disk is full" in caplog.text


@pytest.mark.parametrize("first", ["spectator's report", "player's report", "player's message"])
def test_the_kept_chat_comes_back_whatever_frame_arrives_first_after_a_restart(tmp_path, first):
    import sqlite3

    db = tmp_path / "tables.sqlite3"
    with _server(db) as client:
        table, tokens, mid = _chat_then_report(client)  # Ann's message mid, the spectator's "gg" mid + 1
    with _server(db) as client:
        # a connection that never asked for the chat sends the first chat frame the table sees
        token = None if first == "spectator's report" else tokens[1]
        with client.websocket_connect(f"ws://127.0.0.1/api/tables/{table}/ws") as ws:
            ws.send_json({"type": "hello", "token": token})
            assert ws.receive_json()["type"] == "state"
            if first == "player's message":
                ws.send_json({"type": "chat", "text": "hello?"})  # refused: not in the chat
            else:
                ws.send_json({"type": "report", "message": mid + 1 if token is None else mid})
            ws.send_json({"type": "ping"})
            frames = []
            while not frames or frames[-1]["type"] != "pong":
                frames.append(ws.receive_json())
            (answer,) = [f for f in frames if f["type"] in ("reported", "error")]
        ws0, p0, players_log = _open(client, table, tokens[0])
        p0.send_json({"type": "chat", "text": "back again"})
        p0.send_json({"type": "ping"})
        said = _until_pong(p0)  # the chat, or the error the server answered
        ws0.__exit__(None, None, None)
    if first == "player's message":
        assert answer["detail"].startswith("this connection is not in the chat")
    else:
        assert answer == {"type": "reported", "message": mid + 1 if first == "spectator's report" else mid}
    assert [(m["id"], m["text"]) for m in players_log["messages"]] == [(mid, "rude [31mwords")]
    assert said[0]["type"] == "chat" and said[0]["id"] == mid + 2  # ids go on after the kept ones
    with sqlite3.connect(db) as con:
        kept = {i: json.loads(m)["text"] for i, m in con.execute("SELECT id, message FROM chat WHERE table_id = ?",
                                                                  (table,))}
    assert kept == {mid: "rude [31mwords", mid + 1: "gg", mid + 2: "back again"}  # no kept row overwritten


def test_a_kept_chat_the_database_cannot_read_back_is_not_replaced_by_an_empty_room(tmp_path, monkeypatch):
    import sqlite3

    from sequence_game.web.store import StoreError

    db = tmp_path / "tables.sqlite3"
    with _server(db) as client:
        table, tokens, mid = _chat_then_report(client)
    with _server(db) as client:
        store = client.app.state.social.store
        real = store.messages

        def failing(table_id):
            raise StoreError("the database refused the read (disk I/O error)")

        monkeypatch.setattr(store, "messages", failing)
        with client.websocket_connect(f"ws://127.0.0.1/api/tables/{table}/ws") as ws:
            ws.send_json({"type": "hello", "token": tokens[0], "chat": True})
            assert ws.receive_json()["type"] == "state"
            refused = ws.receive_json()  # no chat-log of an empty room: the error, and no chat
            ws.send_json({"type": "chat", "text": "anyone?"})
            ws.send_json({"type": "ping"})
            frames = []
            while not frames or frames[-1]["type"] != "pong":
                frames.append(ws.receive_json())
        monkeypatch.setattr(store, "messages", real)  # the disk is back
        ws0, p0, log = _open(client, table, tokens[0])
        p0.send_json({"type": "chat", "text": "back again"})
        said = _next(p0, "chat")
        ws0.__exit__(None, None, None)
    assert refused["type"] == "error" and "could not be read back" in refused["detail"], refused
    assert [f["type"] for f in frames] == ["error", "pong"] and "could not be read back" in frames[0]["detail"]
    assert [m["id"] for m in log["messages"]] == [mid] and said["id"] == mid + 2
    with sqlite3.connect(db) as con:
        kept = {i: json.loads(m)["text"] for i, m in con.execute("SELECT id, message FROM chat WHERE table_id = ?",
                                                                  (table,))}
    assert kept == {mid: "rude [31mwords", mid + 1: "gg", mid + 2: "back again"}


def test_a_queued_chat_write_that_fails_otherwise_is_logged_too(tmp_path, caplog, monkeypatch):
    with _server(tmp_path / "tables.sqlite3") as client:
        def broken(*args):
            raise OverflowError("Python int too large to convert to SQLite INTEGER")

        monkeypatch.setattr(client.app.state.social.store, "save_message", broken)
        table, tokens = new_table(client, **TWO_HUMANS)
        ws0, p0, _ = _open(client, table, tokens[0])
        with caplog.at_level("ERROR", logger="sequence_game.web"):
            p0.send_json({"type": "chat", "text": "still here"})
            assert _next(p0, "chat")["text"] == "still here"
            ws0.__exit__(None, None, None)
    assert "a database write failed" in caplog.text and "OverflowError" in caplog.text


def test_a_signed_in_spectator_chats_under_the_accounts_name_and_players_see_the_count():
    from test_web_accounts import FAST

    with TestClient(create_app(ai_pause=0, club=FAST), base_url=BASE) as c:
        table, tokens = new_table(c, **TWO_HUMANS)
        ws0, p0, _ = _open(c, table, tokens[0])
        assert _next(p0, "spectators")["count"] == 0  # after its chat-log, a player's page hears the count
        guest = _open(c, table, None)
        assert _next(p0, "spectators")["count"] == 1
        r = c.post("/api/accounts", json={"name": "carol", "password": "password1"}, headers={"Origin": BASE})
        assert r.status_code == 201, r.text
        member = _open(c, table, None)  # the client's cookie jar: carol's session
        assert member[2]["you"] == "carol" and guest[2]["you"] == "Spectator 1"
        assert _next(p0, "spectators")["count"] == 2
        member[1].send_json({"type": "chat", "text": "nice move"})
        got = _next(guest[1], "chat")
        assert (got["from"], got["channel"], got["seat"]) == ("carol", "spectators", None)
        member[0].__exit__(None, None, None)
        assert _next(p0, "spectators")["count"] == 1
        guest[1].send_json({"type": "ping"})  # a spectator coming or going sends the other spectators nothing
        assert all(f["type"] != "spectators" for f in iter(guest[1].receive_json, {"type": "pong"}))
        for ws in (guest[0], ws0):
            ws.__exit__(None, None, None)
