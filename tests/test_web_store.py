"""The web server's persistence and game integrity: a move and its database write are one change,
idle and abandoned tables expire, damaged rows are set aside, unusable database files are refused
in one line, and the lobby reads one page of rows however many games are stored."""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from sequence_game.web import create_app
from sequence_game.web.limits import ServerLimits
from sequence_game.web.store import StoreError, TableRow, TableStore, UnusableDatabaseError
from starlette.testclient import WebSocketDenialResponse
from test_web import BASE, WS, auth, human_to_move, new_table, service_of, wait_for
from web_support import file_size_limit


class FailingDB:
    """An sqlite3 connection whose writes fail while ``full`` is set, like a full disk."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db, self.full, self.allow = db, False, 0  # allow: writes that still succeed once full

    def execute(self, sql: str, *args):
        if self.full and sql.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")):
            if self.allow <= 0:
                raise sqlite3.OperationalError("database or disk is full")
            self.allow -= 1
        return self.db.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.db, name)


def fill_disk(client) -> FailingDB:
    store = client.app.state.store
    failing = FailingDB(store._db)
    store._db = failing
    return failing


def snapshot(table):
    return table.game.to_dict(), list(table.history), table.version, table.record.to_dict()


# --------------------------------------------------------------------------- a move is one transaction


def test_a_move_the_database_refuses_is_not_played(tmp_path):
    db = tmp_path / "t.sqlite3"
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        tid, tokens = new_table(c, players=2, seed=3, seats=[{"kind": "human"}, {"kind": "human"}])
        table = service_of(c).tables[tid]
        p = table.game.current_player
        before = snapshot(table)
        disk = fill_disk(c)
        disk.full = True
        move = str(table.game.legal_moves()[0])
        r = c.post(f"/api/tables/{tid}/moves", json={"move": move, "version": 0}, headers=auth(tokens[p]))
        assert r.status_code == 503, r.text
        assert "could not save" in r.json()["detail"] and "disk is full" in r.json()["detail"]
        assert snapshot(table) == before  # state, history, version and record exactly as they were
        with c.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as ws:  # the websocket path: the same
            ws.send_json({"type": "hello", "token": tokens[p]})
            assert ws.receive_json()["view"]["version"] == 0
            ws.send_json({"type": "move", "move": move, "version": 0})
            err = ws.receive_json()
            assert err["type"] == "error" and "could not save" in err["detail"]
        assert snapshot(table) == before
        disk.full = False  # room again: the same request now plays
        r = c.post(f"/api/tables/{tid}/moves", json={"move": move, "version": 0}, headers=auth(tokens[p]))
        assert r.status_code == 200 and table.version == 1
        state = table.game.to_dict()
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:  # and the disk agrees with what clients were told
        table = service_of(c).tables[tid]
        assert table.version == 1 and table.game.to_dict() == state


def test_an_undo_the_database_refuses_is_not_made():
    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        tid, tokens = new_table(c, players=2, seed=8, seats=[{"kind": "human"}, {"kind": "ai", "ai": "random"}])
        table = service_of(c).tables[tid]
        wait_for(lambda: human_to_move(table))
        r = c.post(f"/api/tables/{tid}/moves", json={"move": str(table.game.legal_moves()[0])}, headers=auth(tokens[0]))
        assert r.status_code == 200
        wait_for(lambda: human_to_move(table) and table.game.current_player == 0)
        before = snapshot(table)
        disk = fill_disk(c)
        disk.full = True
        r = c.post(f"/api/tables/{tid}/undo", headers=auth(tokens[0]))
        assert r.status_code == 503 and "nothing changed" in r.json()["detail"]
        assert snapshot(table) == before
        disk.full = False
        assert c.post(f"/api/tables/{tid}/undo", headers=auth(tokens[0])).status_code == 200


def test_an_ai_move_the_database_refuses_is_tried_again_once_there_is_room():
    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        svc = service_of(c)
        svc.retry_seconds = 0.05
        tid, tokens = new_table(c, players=2, seed=8, seats=[{"kind": "human"}, {"kind": "ai", "ai": "random"}])
        table = service_of(c).tables[tid]
        wait_for(lambda: human_to_move(table) and table.game.current_player == 0)
        disk = fill_disk(c)
        before = snapshot(table)
        move = str(table.game.legal_moves()[0])
        disk.full, disk.allow = True, 1  # the human's move is written, the disk is full after it
        assert c.post(f"/api/tables/{tid}/moves", json={"move": move}, headers=auth(tokens[0])).status_code == 200
        after_human = snapshot(table)
        assert after_human != before
        time.sleep(0.5)  # the AI searched, its write failed: it waits and tries again
        assert snapshot(table)[:3] == after_human[:3] and table.game.current_player == 1  # not played
        disk.full = False
        wait_for(lambda: table.version == after_human[2] + 1)  # the AI moved once the disk had room
        assert table.game.current_player == 0 and table.history[-1][0] == 1
        stored = c.app.state.store.get(tid)
        assert stored.version == table.version and stored.record["moves"] == table.record.moves


def test_a_creation_the_database_refuses_makes_no_table():
    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        fill_disk(c).full = True
        r = c.post("/api/tables", json={"players": 2})
        assert r.status_code == 503 and "could not be saved" in r.json()["detail"]
        assert service_of(c).tables == {}


FULL_DISK_SCRIPT = textwrap.dedent("""
    import json, resource, sys
    from fastapi.testclient import TestClient
    from sequence_game.web import create_app

    db = sys.argv[1]
    out = {}
    with TestClient(create_app(db, ai_pause=0), base_url="http://127.0.0.1") as c:
        r = c.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "human"}]})
        tid = r.json()["table"]
        tokens = {s["seat"]: s["token"] for s in r.json()["seats"]}
        table = c.app.state.service.tables[tid]
        before = (table.game.to_dict(), [str(m) for m in table.game.history], table.version)
        # the database's files may not grow any more: every write past their size fails (EFBIG)
        size = max(__import__("os").path.getsize(p) for p in (db, db + "-wal"))
        hard = resource.getrlimit(resource.RLIMIT_FSIZE)[1]
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
        p = table.game.current_player
        for move in [str(m) for m in table.game.legal_moves()][:40]:
            r = c.post(f"/api/tables/{tid}/moves", json={"move": move, "version": 0}, headers={"Authorization": "Bearer " + tokens[p]})
            if r.status_code != 200:
                break
        out["status"], out["detail"] = r.status_code, r.json()["detail"]
        out["unchanged"] = (table.game.to_dict(), [str(m) for m in table.game.history], table.version) == before
        resource.setrlimit(resource.RLIMIT_FSIZE, (hard, hard))
        r = c.post(f"/api/tables/{tid}/moves", json={"move": move, "version": 0}, headers={"Authorization": "Bearer " + tokens[p]})
        out["after"] = r.status_code
        out["table"] = tid
    print(json.dumps(out))
""")


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_full_disk_rlimit_fsize_rolls_the_move_back(tmp_path):
    """A real full disk: the server process may not grow its files (RLIMIT_FSIZE). The move is
    refused with 503 and not played; once the limit is lifted the same move plays and is stored."""
    db = tmp_path / "full.sqlite3"
    proc = subprocess.run([sys.executable, "-c", FULL_DISK_SCRIPT, str(db)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["status"] == 503, out
    assert out["unchanged"] and out["after"] == 200
    row = TableStore(db).get(out["table"])
    assert row.version == 1 and len(row.record["moves"]) == 1


# --------------------------------------------------------------------------- expiry


def test_idle_and_abandoned_tables_expire_and_finished_ones_leave_memory():
    limits = ServerLimits(idle_seconds=3600, abandoned_seconds=60)
    with TestClient(create_app(ai_pause=0, limits=limits), base_url=BASE) as c:
        svc = service_of(c)
        unused, _ = new_table(c, players=2, seed=1, seats=[{"kind": "human"}, {"kind": "human"}])
        played, tokens = new_table(c, players=2, seed=2, seats=[{"kind": "human"}, {"kind": "human"}])
        table = svc.tables[played]
        p = table.game.current_player
        assert c.post(f"/api/tables/{played}/moves", json={"move": str(table.game.legal_moves()[0])},
                      headers=auth(tokens[p])).status_code == 200
        now = time.monotonic()
        sweep = lambda dt: c.portal.call(svc.sweep, now + dt)  # noqa: E731
        assert sweep(30) == []
        with c.websocket_connect(f"{WS}/api/tables/{unused}/ws") as ws:  # a spectator does not keep it
            ws.send_json({"type": "hello", "token": None})
            ws.receive_json()
            assert sweep(120) == [unused]  # nobody ever used it: gone after abandoned_seconds
            assert "expired" in ws.receive_json()["detail"]
        assert unused not in svc.tables and played in svc.tables
        r = c.get(f"/api/tables/{unused}")
        assert r.status_code == 410 and "expired" in r.json()["detail"]
        assert unused not in [t["table"] for t in c.get("/api/tables").json()]
        with c.websocket_connect(f"ws://127.0.0.1/api/tables/{played}/ws") as ws:  # a watcher does not keep it for ever
            ws.send_json({"type": "hello", "token": None})
            ws.receive_json()
            assert sweep(4000) == [played]
            assert "expired" in ws.receive_json()["detail"]
        assert svc.tables == {}
        # a finished table leaves the live set at its end (nobody watching), served from its row
        ai, _ = new_table(c, players=2, seed=41, seats=[{"kind": "ai", "ai": "random"}] * 2)
        wait_for(lambda: ai not in svc.tables, timeout=60)
        assert c.get(f"/api/tables/{ai}").json()["over"]


def test_abandoned_rows_do_not_hold_the_cap_after_a_restart(tmp_path):
    db = tmp_path / "t.sqlite3"
    store = TableStore(db)
    old = "2020-01-01T00:00:00.000Z"
    for i in range(5):  # a flood of tables nobody joined, long ago
        store.save(TableRow(f"old{i}", {"players": 2, "teams": 2, "seed": i, "moves": []},
                            [{"kind": "human"}, {"kind": "human"}], {}, old, 0, False, old))
    store.close()
    limits = ServerLimits(max_tables=3)
    with TestClient(create_app(db, ai_pause=0, limits=limits), base_url=BASE) as c:
        assert service_of(c).tables == {}
        for _ in range(3):
            assert c.post("/api/tables", json={"players": 2}).status_code == 201
        assert c.post("/api/tables", json={"players": 2}).status_code == 503  # the cap holds for live ones
    assert {r.id for r in TableStore(db).load_all(finished=False)} == set(service_of(c).tables)


@pytest.mark.parametrize("how", ["joined open seats", "connected seat links"])
def test_a_table_its_people_joined_is_used_after_a_restart_as_before(tmp_path, how):
    """Two people joined (took the open seats, or opened their seats' links), nobody moved: the table
    is in use, before a restart and after it, however long past abandoned_seconds."""
    db = tmp_path / "t.sqlite3"
    limits = ServerLimits(abandoned_seconds=0.5)
    with TestClient(create_app(db, ai_pause=0, limits=limits), base_url=BASE) as c:
        if how == "joined open seats":
            table, tokens = new_table(c, players=2, seats=[{"kind": "human", "open": True}] * 2)
            assert tokens == {}
            for _ in range(2):
                r = c.post(f"/api/tables/{table}/join", json={})
                assert r.status_code == 201, r.text
                tokens[r.json()["seat"]] = r.json()["token"]
        else:
            table, tokens = new_table(c, players=2, seats=[{"kind": "human"}, {"kind": "human"}])
            for p in (0, 1):
                with c.websocket_connect(f"{WS}/api/tables/{table}/ws") as ws:
                    ws.send_json({"type": "hello", "token": tokens[p]})
                    ws.receive_json()
        time.sleep(1.0)  # past abandoned_seconds
        assert c.portal.call(service_of(c).sweep) == []  # in use: the running server keeps it
        assert c.get(f"/api/tables/{table}", headers=auth(tokens[0])).status_code == 200
    with TestClient(create_app(db, ai_pause=0, limits=limits), base_url=BASE) as c:  # the restart
        for p in (0, 1):
            r = c.get(f"/api/tables/{table}", headers=auth(tokens[p]))
            assert r.status_code == 200, r.text
        assert table in service_of(c).tables
    row = TableStore(db).get(table)
    assert row is not None and row.used and not row.expired
    if how == "joined open seats":
        assert row.updated > row.created  # a join is a change of the table, as the running server counts it


def test_the_cap_counts_unfinished_tables_only():
    with TestClient(create_app(ai_pause=0, limits=ServerLimits(max_tables=1)), base_url=BASE) as c:
        svc = service_of(c)
        tid, _ = new_table(c, players=2, seed=41, seats=[{"kind": "ai", "ai": "random"}] * 2)
        with c.websocket_connect(f"ws://127.0.0.1/api/tables/{tid}/ws") as ws:  # watched to its end: stays in memory
            ws.send_json({"type": "hello", "token": None})
            while not ws.receive_json()["view"]["over"]:
                pass
            assert tid in svc.tables and svc.playing() == 0
            assert c.post("/api/tables", json={"players": 2}).status_code == 201  # a finished one holds no cap
        wait_for(lambda: tid not in svc.tables)  # its last watcher left


# --------------------------------------------------------------------------- damaged rows


def _damage(db, table_id, **columns):
    con = sqlite3.connect(db)
    for col, value in columns.items():
        con.execute(f"UPDATE tables SET {col} = ? WHERE id = ?", (value, table_id))
    con.commit()
    con.close()


def test_damaged_rows_are_set_aside_and_the_server_and_lobby_work(tmp_path, caplog):
    db = tmp_path / "t.sqlite3"
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        ids = [new_table(c, players=2, seed=s, seats=[{"kind": "human"}, {"kind": "human"}])[0] for s in range(5)]
        done = [new_table(c, players=2, seed=41 + s, seats=[{"kind": "ai", "ai": "random"}] * 2)[0] for s in range(3)]
        wait_for(lambda: all(t not in service_of(c).tables for t in done), timeout=60)
    _damage(db, ids[0], record="{not json")
    _damage(db, ids[1], seats=json.dumps([{"kind": "human", "colour": "red"}, {"kind": "human"}]))
    _damage(db, ids[2], record=json.dumps({"players": 2, "teams": 2, "seed": 1, "moves": ["7H@a1"]}))  # no replay
    rec = json.loads(sqlite3.connect(db).execute("SELECT record FROM tables WHERE id = ?", (done[0],)).fetchone()[0])
    del rec["result"]
    _damage(db, done[0], record=json.dumps(rec))
    _damage(db, done[1], seats="[1, 2]")
    with caplog.at_level("ERROR", logger="sequence_game.web"), TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        assert set(service_of(c).tables) == set(ids[3:])  # the server started without the bad rows
        r = c.get("/api/tables")
        assert r.status_code == 200
        assert {t["table"] for t in r.json()} == set(ids[3:]) | {done[2]}
        assert c.get(f"/api/tables/{done[0]}").status_code == 404
        assert c.get(f"/api/tables/{done[2]}").status_code == 200
        quarantined = dict(c.app.state.store.quarantined())
    assert set(quarantined) == {ids[0], ids[1], ids[2], done[0], done[1]}
    assert "not JSON" in quarantined[ids[0]] and "colour" in quarantined[ids[1]]
    assert "does not replay" in quarantined[ids[2]] and "no result" in quarantined[done[0]]
    assert sum("quarantine" in r.getMessage() for r in caplog.records) == 5


# --------------------------------------------------------------------------- unusable database files


def _other_programs_db(path):
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT)")
    con.commit()
    con.close()


def _truncated_db(path):
    TableStore(path).save(TableRow("t", {"players": 2, "teams": 2, "seed": 1, "moves": []},
                                   [{"kind": "ai"}] * 2, {}, "2026-01-01T00:00:00Z", 0, False))
    for _ in range(300):  # enough pages that the cut loses some
        TableStore(path).save(TableRow(f"t{_}", {"players": 2, "teams": 2, "seed": 1, "moves": ["x" * 500]},
                                       [{"kind": "ai"}] * 2, {}, "2026-01-01T00:00:00Z", 0, False))
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 3])


@pytest.mark.parametrize("make, fragment", [
    (lambda p: p.write_text("hello, I am a text file, not a database\n" * 10), "not an SQLite database"),
    (lambda p: p.mkdir(), "is a directory"),
    (lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\x10"), "truncated"),
    (_truncated_db, "damaged"),
    (_other_programs_db, "another program's SQLite database (its tables: moz_places)"),
], ids=["text", "directory", "header-only", "truncated", "other-program"])
def test_serve_db_with_an_unusable_file_says_what_is_wrong_in_one_line(tmp_path, capsys, make, fragment):
    import uvicorn
    from sequence_game.cli import main

    path = tmp_path / "db.sqlite3"
    make(path)
    ran = []
    orig = uvicorn.Server.run
    uvicorn.Server.run = lambda self: ran.append(1)
    try:
        status = main(["serve", "--no-browser", "--db", str(path)])
    finally:
        uvicorn.Server.run = orig
    err = capsys.readouterr().err
    assert status == 2 and not ran
    assert err.count("\n") == 1 and err.startswith("sequence-game serve: error: --db ") and fragment in err, err
    assert "Traceback" not in err
    with pytest.raises(UnusableDatabaseError):
        TableStore(path)


def test_an_older_database_gains_the_new_column_and_index(tmp_path):
    db = tmp_path / "old.sqlite3"
    con = sqlite3.connect(db)
    con.executescript("""
        CREATE TABLE tables (id TEXT PRIMARY KEY, record TEXT NOT NULL, seats TEXT NOT NULL, options TEXT NOT NULL,
                             created TEXT NOT NULL, version INTEGER NOT NULL, finished INTEGER NOT NULL);
        CREATE INDEX tables_finished ON tables (finished, created);
    """)
    con.execute("INSERT INTO tables VALUES ('a', ?, ?, '{}', '2026-01-01T00:00:00Z', 0, 0)",
                (json.dumps({"players": 2, "teams": 2, "seed": 1, "moves": []}), json.dumps([{"kind": "ai"}] * 2)))
    con.commit()
    con.close()
    (row,) = TableStore(db).live_rows()
    assert row.updated == "2026-01-01T00:00:00Z"


# --------------------------------------------------------------------------- the lobby


def _finished_rows(store, n, start=0):
    rec = {"players": 2, "teams": 2, "seed": 1, "moves": ["pass"] * 3, "result": {"winner": 0, "is_draw": False,
                                                                                "turns": 3}}
    seats = [{"kind": "ai", "ai": "easy", "name": "A", "token_hash": None}] * 2
    with store._lock:
        store._db.execute("BEGIN")
        store._db.executemany(
            "INSERT INTO tables (id, record, seats, options, created, version, finished, updated) "
            "VALUES (?, ?, ?, '{}', ?, 1, 1, ?)",
            [(f"f{i:06d}", json.dumps(rec), json.dumps(seats), f"2026-01-01T00:{i // 600 % 60:02d}:{i // 10 % 60:02d}."
              f"{i % 10}00Z", "2026-01-02T00:00:00Z") for i in range(start, start + n)])
        store._db.execute("COMMIT")


def _lobby_cost(client, store):
    """SQLite virtual-machine steps spent answering the lobby."""
    steps = [0]

    def count():
        steps[0] += 1
        return 0

    with store._lock:
        store._db.set_progress_handler(count, 1)
    try:
        r = client.get("/api/tables", params={"finished": True})
    finally:
        with store._lock:
            store._db.set_progress_handler(None, 1)
    assert r.status_code == 200
    return steps[0], r.json()


def test_the_lobby_reads_one_page_however_long_the_history(tmp_path):
    db = tmp_path / "t.sqlite3"
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        store = c.app.state.store
        _finished_rows(store, 250)
        small, listed = _lobby_cost(c, store)
        assert len(listed) == 200 and listed[0]["table"] == "f000249"  # newest first
        _finished_rows(store, 5000, start=250)
        large, listed = _lobby_cost(c, store)
        assert len(listed) == 200 and listed[0]["table"] == "f005249"
        assert large < small * 1.2, (small, large)  # 20x the history, the same work
        plan = " ".join(str(r) for r in store._db.execute(
            "EXPLAIN QUERY PLAN " + store._SELECT + " WHERE finished = 1 ORDER BY created DESC, id DESC LIMIT 200"))
        assert "tables_lobby" in plan and "TEMP B-TREE" not in plan, plan


def test_database_work_runs_off_the_event_loop(monkeypatch):
    """Every call into the store made while serving runs in a worker thread, not the event loop's."""
    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        store = c.app.state.store
        async def which():
            return threading.current_thread()

        loop_thread = c.portal.call(which)
        seen = []
        for name in ("save", "update_game", "finished_rows", "get", "expire"):
            real = getattr(store, name)

            def spy(*a, _real=real, _name=name, **k):
                seen.append((_name, threading.current_thread()))
                return _real(*a, **k)

            monkeypatch.setattr(store, name, spy)
        tid, tokens = new_table(c, players=2, seed=4, seats=[{"kind": "human"}, {"kind": "ai", "ai": "random"}])
        table = service_of(c).tables[tid]
        rng = random.Random(4)
        for _ in range(3):
            wait_for(lambda: human_to_move(table) and table.game.current_player == 0)
            c.post(f"/api/tables/{tid}/moves", json={"move": str(rng.choice(table.game.legal_moves()))},
                   headers=auth(tokens[0]))
        c.post(f"/api/tables/{tid}/undo", headers=auth(tokens[0]))
        c.get("/api/tables")
        with pytest.raises(WebSocketDenialResponse) as denied, c.websocket_connect("ws://127.0.0.1/api/tables/nosuch/ws"):
            pass
        assert denied.value.json()["error"] == "NoSuchTableError"
        c.portal.call(service_of(c).sweep, time.monotonic() + 10**7)
    names = {n for n, _ in seen}
    assert names == {"save", "update_game", "finished_rows", "get", "expire"}, names
    assert all(t is not loop_thread for _, t in seen)
    # the service's own calls go through its one database thread, in order
    assert {t.name.split("_")[0] for n, t in seen if n != "get"} == {"sequence-db"}


# --------------------------------------------------------------------------- undo and hidden cards (R9)


@pytest.mark.parametrize("players, seed", [(2, 51), (3, 52), (4, 53)])
def test_r9_undo_never_shows_a_card_over_whole_games(tmp_path, monkeypatch, players, seed):
    """Whole games of one human against AIs with many undos, every message checked by the R9
    checker as it is sent. After each undo the human sees exactly what it saw at that point, and
    every card it cannot see is dealt afresh (the pile's order and the AIs' hands differ from
    before the undone move: the drawn card is not on top, the cards the AIs played are not known
    to be in their hands). The record keeps the redeals, so the game replays and survives a restart."""
    from sequence_game import GameRecord
    from sequence_game.web.tables import Connection
    from test_web import _check_message, read_live

    db = tmp_path / "t.sqlite3"
    real_send = Connection.send_text
    checked = []
    rng = random.Random(seed)
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        svc = service_of(c)

        def spying_send(self, text):
            message = json.loads(text)
            table = next(t for t in svc.tables.values() if self in t.connections)
            _check_message(message, self.seats, table.game, table)
            checked.append(message["type"])
            real_send(self, text)

        monkeypatch.setattr(Connection, "send_text", spying_send)
        seats = [{"kind": "human"}] + [{"kind": "ai", "ai": "random"}] * (players - 1)
        tid, tokens = new_table(c, players=players, seed=seed, seats=seats)
        table = svc.tables[tid]
        seen = {}  # moves played -> what seat 0 saw then, and the hidden cards then
        undos = 0
        with c.websocket_connect(f"{WS}/api/tables/{tid}/ws") as ws:
            ws.send_json({"type": "hello", "token": tokens[0]})
            while not table.game.is_over:
                wait_for(lambda: human_to_move(table))
                if table.game.is_over:
                    break
                n = len(table.movers)
                state = read_live(table.game.to_dict)
                seen[n] = (read_live(lambda: table.game.observation(0)), state["hands"][1:], state["draw_pile"])
                if n and undos < 12 and rng.random() < 0.4:
                    r = c.post(f"/api/tables/{tid}/undo", headers=auth(tokens[0]))
                    assert r.status_code == 200, r.text
                    undos += 1
                    back = len(table.movers)
                    obs, hands, pile = seen[back]
                    after = table.game.to_dict()
                    assert table.game.observation(0) == obs  # what seat 0 saw at that point, exactly
                    assert after["draw_pile"] != pile and after["hands"][1:] != hands  # dealt afresh
                    assert r.json()["view"]["state"] == json.loads(json.dumps(obs))
                    continue
                version = table.version
                r = c.post(f"/api/tables/{tid}/moves", json={"move": str(rng.choice(read_live(table.game.legal_moves)))},
                           headers=auth(tokens[0]))
                assert r.status_code == 200, r.text
                assert table.version > version
            record = table.record
        assert undos >= 3 and "state" in checked
        assert len(record.redeals) >= 1 and {r_["keep"][0] for r_ in record.redeals} == {0}
        assert record.replay().to_dict() == table.game.to_dict()  # the finished record replays, redeals and all
        assert sum(1 for _ in record.positions()) == len(record.moves) + 1
        assert GameRecord.from_json(record.to_json()) == record
        assert c.get(f"/api/tables/{tid}/replay").status_code == 200


def test_an_undone_table_resumes_after_a_restart(tmp_path):
    db = tmp_path / "t.sqlite3"
    rng = random.Random(3)
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        tid, tokens = new_table(c, players=2, seed=61, seats=[{"kind": "human"}, {"kind": "ai", "ai": "random"}])
        table = service_of(c).tables[tid]
        for _ in range(3):
            wait_for(lambda: human_to_move(table) and table.game.current_player == 0)
            c.post(f"/api/tables/{tid}/moves", json={"move": str(rng.choice(table.game.legal_moves()))},
                   headers=auth(tokens[0]))
        wait_for(lambda: human_to_move(table) and table.game.current_player == 0)
        assert c.post(f"/api/tables/{tid}/undo", headers=auth(tokens[0])).status_code == 200
        c.post(f"/api/tables/{tid}/moves", json={"move": str(rng.choice(table.game.legal_moves()))},
               headers=auth(tokens[0]))
        wait_for(lambda: human_to_move(table) and table.game.current_player == 0)
        state, history, version = table.game.to_dict(), [(p, str(e)) for p, e in table.history], table.version
        assert table.record.redeals
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        table = service_of(c).tables[tid]
        assert table.game.to_dict() == state and table.version == version
        assert [(p, str(e)) for p, e in table.history] == history
        assert c.post(f"/api/tables/{tid}/undo", headers=auth(tokens[0])).status_code == 200  # back past the redeal
        assert len(table.history) == len(history) - 2


def test_any_damaged_row_is_set_aside_never_raised():
    """Property: whatever JSON a row's columns hold, starting the server and reading the lobby and
    the table never fail; each row is served or set aside."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from sequence_game.web.tables import TableService

    scalars = st.none() | st.booleans() | st.integers(-3, 12) | st.text(max_size=5)
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["kind", "ai", "name", "token_hash", "players", "teams", "seed", "moves", "result",
                         "winner", "is_draw", "turns", "x"]), inner, max_size=4), max_leaves=12)
    seat = st.fixed_dictionaries({"kind": st.sampled_from(["human", "ai", "robot"])},
                                 optional={"ai": scalars, "name": scalars, "token_hash": scalars})
    record = st.fixed_dictionaries(
        {"players": st.integers(1, 4) | scalars, "teams": st.integers(1, 3) | scalars, "seed": st.integers(0, 9) | scalars,
         "moves": st.lists(st.sampled_from(["pass", "7H@d6", "2S@b1", "x"]), max_size=3) | scalars},
        optional={"format": st.just("sequence-game-record/1"), "result": values, "redeals": values})
    text = st.one_of(record.map(json.dumps), values.map(json.dumps), st.text(max_size=20))
    seats_text = st.one_of(st.lists(seat, max_size=3).map(json.dumps), values.map(json.dumps), st.text(max_size=10))

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.lists(st.tuples(text, seats_text, st.sampled_from(["{}", "[]", "x"]), st.sampled_from([0, 1, 2, 7]),
                              st.sampled_from(["2026-01-01T00:00:00.000Z", "yesterday", ""])), min_size=1, max_size=4))
    def check(rows):
        store = TableStore(":memory:")
        with store._lock:
            for i, (rec, seats, options, finished, stamp) in enumerate(rows):
                store._db.execute("INSERT INTO tables (id, record, seats, options, created, version, finished, updated) "
                                  "VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
                                  (f"r{i}", rec, seats, options, stamp or "2026-01-01T00:00:00.000Z", finished,
                                   stamp))
        svc = TableService(store, limits=ServerLimits(idle_seconds=10**10, abandoned_seconds=10**10))
        svc.resume()
        listed = asyncio.run(svc.lobby())
        for i in range(len(rows)):
            try:
                svc.get(f"r{i}")
            except ValueError:  # a TableError: no such table (set aside), expired
                pass
        served = set(svc.tables) | {t["table"] for t in listed}
        aside = {i for i, _ in store.quarantined()}
        assert not served & aside
        asyncio.run(svc.close())

    check()


@pytest.mark.parametrize("failure", ["raises", "illegal"])
def test_an_ai_that_fails_tries_again_and_the_table_plays_on(monkeypatch, failure):
    """An AI turn that fails (the agent raises, or answers a move that is not legal) is logged and
    tried again after a pause; the table is never left with its AI seat stuck."""
    calls = []

    class Flaky:
        def __init__(self, agent):
            self.agent = agent

        def select_move(self, game):
            calls.append(1)
            if len(calls) <= 2:
                if failure == "raises":
                    raise RuntimeError("the agent broke")
                return "pass" if game.legal_moves()[0].kind != "pass" else "7H@a1"
            return self.agent.select_move(game)

    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        svc = service_of(c)
        # this server's AI only: a server of another test still stopping in this process keeps its own
        real = svc.ai.agent
        monkeypatch.setattr(svc.ai, "agent", lambda t, s: Flaky(real(t, s)))
        svc.retry_seconds = 0.05
        tid, tokens = new_table(c, players=2, seed=8, seats=[{"kind": "human"}, {"kind": "ai", "ai": "hard"}])
        table = svc.tables[tid]
        if table.game.current_player == 0:
            c.post(f"/api/tables/{tid}/moves", json={"move": str(table.game.legal_moves()[0])}, headers=auth(tokens[0]))
        wait_for(lambda: table.game.current_player == 0 and table.thinking is None and table.search is None)
        # two failed tries, then one call per AI move (the AI may have moved first, before the
        # human's move above, when the deal gave it the first turn)
        ai_moves = sum(1 for p, _ in table.history if p == 1)
        assert ai_moves >= 1 and len(calls) == 2 + ai_moves and table.history[-1][0] == 1 and table.ai_failures == 0


def test_the_store_knows_every_key_a_seat_is_stored_with():
    """A seat key the store does not know sets the row aside: the store's list is the Seat's fields."""
    from sequence_game.web.store import SEAT_KEYS
    from sequence_game.web.tables import Seat

    assert set(Seat("human").to_dict()) == SEAT_KEYS


def test_memory_and_disk_agree_through_any_moves_undos_and_failed_writes():
    """Property: through any sequence of moves and undos, each write failing or not, a change the
    database refused leaves the table exactly as it was, and once the AI has answered the stored
    record replays to exactly the live game at the stored version."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from sequence_game import GameRecord
    from sequence_game.web.errors import NotNowError, NotSavedError
    from sequence_game.web.tables import TableService

    async def settle(table):
        for _ in range(2000):
            if table.over or (table.search is None and table.game.current_player == 0):
                return
            await asyncio.sleep(0.002)
        raise AssertionError("the AI did not answer")

    async def scenario(seed, ops):
        store = TableStore(":memory:")
        disk = FailingDB(store._db)
        store._db = disk
        svc = TableService(store, ai_pause=0)
        svc.retry_seconds = 0.01
        table, _ = await svc.create(2, None, [{"kind": "human"}, {"kind": "ai", "ai": "random"}], seed=seed)
        try:
            for fail, undo, pick, ai_fail in ops:
                await settle(table)
                row = store.get(table.id)
                assert row.version == table.version
                assert GameRecord.from_dict(row.record).replay().to_dict() == table.game.to_dict()
                if table.over:
                    return
                before = snapshot(table)
                disk.full = fail
                try:
                    if undo:
                        await svc.undo(table, frozenset([0]))
                    else:
                        legal = table.game.legal_moves()
                        await svc.play(table, frozenset([0]), str(legal[pick % len(legal)]))
                except NotSavedError:
                    assert fail and snapshot(table) == before
                except NotNowError:  # nothing of seat 0's to undo yet
                    assert undo and snapshot(table) == before
                else:
                    assert not fail
                    if ai_fail:  # the AI's answer meets a full disk for a while: it waits and tries again
                        disk.full = True
                        await asyncio.sleep(0.03)
                finally:
                    disk.full = False
        finally:
            await svc.close()

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(st.integers(0, 2**32), st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(0, 500), st.booleans()),
                                           min_size=1, max_size=12))
    def check(seed, ops):
        asyncio.run(scenario(seed, ops))

    check()


def test_r9_the_draw_after_an_undo_does_not_repeat_the_undone_draw():
    """A move, its draw, an undo, the same move again, many times: the second draw is a draw from
    the unseen cards (about 2 chances in 90 of being the same card), not the undone card on top."""
    from sequence_game.web.tables import TableService

    async def scenario():
        svc = TableService(TableStore(":memory:"), ai_pause=0)
        table, _ = await svc.create(2, None, [{"kind": "human"}, {"kind": "ai", "ai": "random"}], seed=7)
        while table.game.current_player != 0 or table.search is not None:
            await asyncio.sleep(0.002)
        move = str(table.game.legal_moves()[0])
        same = 0
        for _ in range(200):
            await svc.play(table, frozenset([0]), move)
            first = table.game.hand(0)  # the hand after the move: the one card drawn differs, if any
            await svc.undo(table, frozenset([0]))
            await svc.play(table, frozenset([0]), move)
            same += table.game.hand(0) == first
            await svc.undo(table, frozenset([0]))
        await svc.close()
        return same

    same = asyncio.run(scenario())
    assert same <= 30, same  # exact undo: 200 of 200; a fresh draw: about 4 (2 copies in ~90 cards)


# the limits at which the server's tables, the club's and the seeks' and chat's cannot be made
@pytest.mark.parametrize("limit", [0, 16384, 32768, 65536, 98304])
def test_serve_under_a_file_size_limit_or_on_a_full_disk_is_one_line(tmp_path, limit):
    db = tmp_path / "db.sqlite3"
    r = subprocess.run([sys.executable, "-m", "sequence_game", "serve", "--no-browser", "--port", "0", "--db", str(db)],
                       preexec_fn=file_size_limit(limit), capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("sequence-game serve: error: --db "), r.stderr
    assert "the disk may be full" in r.stderr and "ulimit -f" in r.stderr, r.stderr


def test_a_store_call_after_the_database_thread_closed_is_a_store_error():
    """A review or an AI move that finishes while the server stops reaches a closed database
    thread: its callers log a StoreError ("not stored"), not a traceback of the thread pool."""
    from sequence_game.web.tables.database import DatabaseThread

    database = DatabaseThread()
    assert asyncio.run(database.call(lambda x: x + 1, 1)) == 2
    database.close()
    with pytest.raises(StoreError, match="stopped before this was stored"):
        asyncio.run(database.call(lambda x: x + 1, 1))
