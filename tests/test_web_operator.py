"""The operator beside a running server (docs/club.md, "The operator", "Backup and restore").

A real ``sequence-game serve`` process plays tables while the operator's commands run beside it:
``accounts list``, ``accounts create``, ``accounts reset-password``, ``accounts disable``,
``accounts reports``, ``backup`` and Debian's ``sqlite3`` shell with the query docs/club.md gives.
What the operator changes takes effect in the running server at once, and after the server is
killed and started again every write it confirmed is there: every move, sign-up and table.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import threading
import time

import pytest
from web_support import file_size_limit, free_port, start_server

pytest.importorskip("uvicorn", reason="the [web] extra is not installed")
pytest.importorskip("argon2", reason="the [web] extra is not installed")
httpx = pytest.importorskip("httpx")

TIMEOUT = 120  # seconds: the machine may be shared and slow


def operator(db, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    """``sequence-game ARGS --db DB`` as the operator types it; its status and output."""
    return subprocess.run([sys.executable, "-m", "sequence_game", *args, "--db", str(db)], input=stdin,
                          capture_output=True, text=True, timeout=TIMEOUT)


class Players:
    """Tables of two human seats each, moved in turn from threads as fast as the server answers:
    every move the server confirmed (200) is noted, per table, in order."""

    def __init__(self, base: str, tables: int) -> None:
        self.base = base
        self.confirmed: dict = {}  # table id -> the moves the server confirmed, in order
        self.errors: list = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._play, args=(k,), daemon=True) for k in range(tables)]
        for t in self.threads:
            t.start()

    def _new_table(self, http) -> tuple:
        r = http.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "human"}]})
        assert r.status_code == 201, r.text
        created = r.json()
        self.confirmed[created["table"]] = []
        return created["table"], {s["seat"]: s["token"] for s in created["seats"]}

    def _play(self, k: int) -> None:
        try:
            with httpx.Client(base_url=self.base, timeout=TIMEOUT,
                              headers={"X-Forwarded-For": f"10.9.0.{k + 1}"}) as http:
                table, tokens = self._new_table(http)
                seat = 0
                while not self.stop.is_set():
                    view = http.get(f"/api/tables/{table}", headers={"Authorization": f"Bearer {tokens[seat]}"}).json()
                    if view["over"]:
                        table, tokens = self._new_table(http)
                        continue
                    seat = view["state"]["current_player"]
                    view = http.get(f"/api/tables/{table}", headers={"Authorization": f"Bearer {tokens[seat]}"}).json()
                    move = view["legal"][k % len(view["legal"])]
                    r = http.post(f"/api/tables/{table}/moves", json={"move": move, "version": view["version"]},
                                  headers={"Authorization": f"Bearer {tokens[seat]}"})
                    assert r.status_code == 200, r.text
                    self.confirmed[table].append(move)
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.errors.append(f"{type(e).__name__}: {e}")

    def tables(self) -> set:
        """The tables whose creation the server confirmed so far."""
        return set(self.confirmed.copy())  # copy() takes the keys at once, beside the threads adding to them

    def moves(self) -> int:
        return sum(len(m) for m in list(self.confirmed.values()))

    def wait_for_moves(self, more: int) -> None:
        target = self.moves() + more
        end = time.monotonic() + TIMEOUT
        while self.moves() < target and not self.errors:
            assert time.monotonic() < end, "the players stopped moving"
            time.sleep(0.05)

    def finish(self) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(TIMEOUT)
        assert not self.errors, self.errors


def _sign_up(http, base: str, name: str, password: str, k: int) -> httpx.Cookies:
    r = http.post("/api/accounts", json={"name": name, "password": password},
                  headers={"Origin": base, "X-Forwarded-For": f"10.8.0.{k}"})
    assert r.status_code == 201, r.text
    return r.cookies


def _signed_in_as(base: str, cookies) -> object:
    with httpx.Client(base_url=base, timeout=TIMEOUT, cookies=cookies) as http:
        return http.get("/api/session").json()["name"]


def _log_in(base: str, name: str, password: str, k: int) -> int:
    with httpx.Client(base_url=base, timeout=TIMEOUT) as http:
        return http.post("/api/session", json={"name": name, "password": password},
                         headers={"Origin": base, "X-Forwarded-For": f"10.7.0.{k}"}).status_code


def test_operator_commands_backup_and_the_sqlite3_shell_beside_a_live_server_lose_nothing(tmp_path):
    db = tmp_path / "club.sqlite3"
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    limits = ("--trusted-proxy", "127.0.0.1", "--limit", "create_burst=1000", "--limit", "max_tables_per_client=1000")
    server = start_server(db, port, *limits)
    players = None
    try:
        players = Players(base, tables=3)
        http = httpx.Client(base_url=base, timeout=TIMEOUT)
        accounts = {}  # name -> password, every account the server confirmed
        tables = []  # tables created by a confirmed POST, beside the players'
        k = 0

        def confirmed_writes() -> None:
            """A sign-up, a table and some moves, each confirmed by the server."""
            nonlocal k
            k += 1
            name = f"user{k:02d}"
            _sign_up(httpx.Client(base_url=base, timeout=TIMEOUT), base, name, "password-" + name, k)
            accounts[name] = "password-" + name
            r = http.post("/api/tables", json={"players": 2}, headers={"X-Forwarded-For": "10.6.0.1"})
            assert r.status_code == 201, r.text
            tables.append(r.json()["table"])
            players.wait_for_moves(5)

        alice = _sign_up(httpx.Client(base_url=base, timeout=TIMEOUT), base, "alice", "alice-old-password", 100)
        carol = _sign_up(httpx.Client(base_url=base, timeout=TIMEOUT), base, "carol", "carol-password", 101)
        accounts.update(alice="alice-old-password", carol="carol-password")
        confirmed_writes()

        listed = operator(db, "accounts", "list")
        assert listed.returncode == 0 and "alice" in listed.stdout, listed
        confirmed_writes()

        made = operator(db, "accounts", "create", "bob", stdin="bob-password\n")
        assert made.returncode == 0, made
        accounts["bob"] = "bob-password"
        assert _log_in(base, "bob", "bob-password", 1) == 200  # the running server knows bob at once
        confirmed_writes()

        reset = operator(db, "accounts", "reset-password", "alice", stdin="alice-new-password\n")
        assert reset.returncode == 0, reset
        accounts["alice"] = "alice-new-password"
        # at once, in the running server: the old session ends, the old password is refused
        assert _signed_in_as(base, alice) is None
        assert _log_in(base, "alice", "alice-old-password", 2) == 401
        assert _log_in(base, "alice", "alice-new-password", 3) == 200
        confirmed_writes()

        assert _signed_in_as(base, carol) == "carol"
        disabled = operator(db, "accounts", "disable", "carol")
        assert disabled.returncode == 0, disabled
        assert _signed_in_as(base, carol) is None
        assert _log_in(base, "carol", "carol-password", 4) == 401
        confirmed_writes()

        reports = operator(db, "accounts", "reports")
        assert reports.returncode == 0, reports
        confirmed_writes()

        # what was confirmed before the backup started (the players' threads go on meanwhile: a table
        # they make while it runs may or may not be in it)
        in_backup = {"accounts": set(accounts), "tables": set(tables) | players.tables()}
        backup = tmp_path / "backup.sqlite3"
        copied = operator(db, "backup", str(backup))
        assert copied.returncode == 0 and copied.stdout.startswith("backed up"), copied
        confirmed_writes()

        sqlite3_shell = shutil.which("sqlite3")
        if sqlite3_shell is not None:  # docs/club.md's query, as an operator runs it (.ci/run installs it)
            for query in ("SELECT COUNT(*) FROM tables",
                          f"SELECT message FROM chat WHERE table_id = '{tables[0]}' ORDER BY id"):
                shell = subprocess.run([sqlite3_shell, str(db), query], capture_output=True, text=True,
                                       timeout=TIMEOUT)
                assert shell.returncode == 0, shell
                confirmed_writes()
        confirmed_writes()
        players.finish()
        http.close()
    finally:
        if players is not None:
            players.stop.set()
        server.kill()  # a crash: what was confirmed is on disk already
        server.wait(TIMEOUT)

    server = start_server(db, port, *limits)
    try:
        with httpx.Client(base_url=base, timeout=TIMEOUT) as http:
            for table, moves in players.confirmed.items():
                r = http.get(f"/api/tables/{table}/moves")
                assert r.status_code == 200, (table, r.text)
                assert [m["move"] for m in r.json()["moves"]] == moves, f"table {table}: moves lost"
            for table in tables:
                assert http.get(f"/api/tables/{table}").status_code == 200, f"table {table} lost"
        for n, (name, password) in enumerate(sorted(accounts.items())):
            assert _log_in(base, name, password, 10 + n) == (401 if name == "carol" else 200), f"account {name}"
        assert _log_in(base, "alice", "alice-old-password", 50) == 401
    finally:
        server.terminate()
        server.wait(TIMEOUT)

    # the backup: a database of its own with everything confirmed before it was made
    con = sqlite3.connect(backup)
    try:
        assert {n for (n,) in con.execute("SELECT key FROM accounts")} >= in_backup["accounts"]
        assert {t for (t,) in con.execute("SELECT id FROM tables")} >= in_backup["tables"]
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    finally:
        con.close()
    assert players.moves() > 0
    if sqlite3_shell is None:
        pytest.skip("the sqlite3 shell part did not run: install Debian's sqlite3 (.ci/run does)")


def _club_db(path):
    from sequence_game.web.club import Club

    Club(path).close()


@pytest.mark.parametrize("case, fragment", [
    ("exists", "exists; give the name of a new file"),
    ("directory", "is a directory"),
    ("no folder", "does not exist"),
    ("no database", "no such database"),
    ("text file", "not an SQLite database"),
    ("another program's", "not a sequence-game database"),
])
def test_backup_of_a_bad_path_is_one_line(tmp_path, capsys, case, fragment):
    from sequence_game.cli import main

    db, dest = tmp_path / "club.sqlite3", tmp_path / "copy.sqlite3"
    if case not in ("no database", "text file", "another program's"):
        _club_db(db)
    if case == "exists":
        dest.write_text("keep me")
    elif case == "directory":
        dest.mkdir()
    elif case == "no folder":
        dest = tmp_path / "missing" / "copy.sqlite3"
    elif case == "text file":
        db.write_text("not a database\n" * 20)
    elif case == "another program's":
        con = sqlite3.connect(db)
        con.execute("CREATE TABLE moz_places (id INTEGER PRIMARY KEY)")
        con.close()
    status = main(["backup", str(dest), "--db", str(db)])
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and err.startswith("sequence-game: error: ") and fragment in err, err
    assert "Traceback" not in err
    if case == "exists":
        assert dest.read_text() == "keep me"
    if case == "no database":
        assert not db.exists()  # a backup never creates the server's file
    assert not [p for p in tmp_path.iterdir() if ".partial-" in p.name]


def test_backup_is_a_database_the_server_opens(tmp_path, capsys):
    from sequence_game.cli import main
    from sequence_game.web.club import Club
    from sequence_game.web.store import TableRow, TableStore

    db, dest = tmp_path / "club.sqlite3", tmp_path / "copy.sqlite3"
    club = Club(db)
    club.accounts.ph = __import__("argon2").PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    club.accounts.create("alice", "password1")
    store = TableStore(db)
    store.save(TableRow("t1", {"players": 2, "teams": 2, "seed": 1, "moves": []}, [{"kind": "ai"}] * 2, {},
                        "2026-01-01T00:00:00Z", 0, False))
    # both connections stay open, as the server's do, while the backup runs
    assert main(["backup", str(dest), "--db", str(db)]) == 0
    assert "1 tables, 1 accounts" in capsys.readouterr().out
    store.close()
    club.close()
    copy = TableStore(dest)
    assert [r.id for r in copy.live_rows()] == ["t1"]
    copy.close()
    copied = Club(dest)
    assert copied.accounts.get("alice") is not None
    copied.close()


def _no_write_lock_held(db) -> None:
    """Another connection takes the write lock at once: nobody left a transaction open."""
    con = sqlite3.connect(db, timeout=0)
    try:
        con.execute("BEGIN IMMEDIATE")
        con.execute("ROLLBACK")
    finally:
        con.close()


@pytest.mark.parametrize("report", ["99999999999999999999", str(2**63), "-99999999999999999999"])
def test_a_report_id_out_of_sqlites_range_is_one_line_and_leaves_no_transaction(tmp_path, capsys, report):
    from sequence_game.cli import main

    db = tmp_path / "club.sqlite3"
    _club_db(db)
    with pytest.raises(SystemExit) as exited:  # argparse's usage error: the ID's bounds
        main(["accounts", "reports", "close", report, "--db", str(db)])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "Traceback" not in err
    assert f"a report's ID must be from 1 to {2**63 - 1}, not {int(report)}" in err, err
    _no_write_lock_held(db)


def test_the_store_answers_any_report_id_and_ends_a_refused_write(tmp_path):
    from sequence_game.web.social import SocialStore
    from sequence_game.web.store import StoreError

    db = tmp_path / "club.sqlite3"
    store = SocialStore(db)
    try:
        for report in (10**20, 2**63, -(10**20), 0):
            assert store.close_report(report) is False  # no open report of that id, whatever the id
        with pytest.raises(StoreError, match="refused the write"):  # a value SQLite cannot hold
            store.write(("UPDATE reports SET closed = 1 WHERE id = ?", (10**20,)))
        _no_write_lock_held(db)  # the transaction the write began is rolled back
        assert store.reports() == []
    finally:
        store.close()


@pytest.mark.parametrize("command", [["create", "dora"], ["reset-password", "carol"], ["disable", "carol"],
                                     ["enable", "carol"]])
def test_an_account_command_the_database_refuses_is_one_line(tmp_path, capsys, monkeypatch, command):
    import io

    import sequence_game.web.club as club_module
    from sequence_game.cli import main
    from sequence_game.web.club.store import ClubStore

    db = tmp_path / "club.sqlite3"
    monkeypatch.setattr("sys.stdin", io.StringIO("a password\n"))
    assert main(["accounts", "create", "carol", "--db", str(db)]) == 0
    capsys.readouterr()
    monkeypatch.setattr(ClubStore, "BUSY_SECONDS", 0.05)
    holder = sqlite3.connect(db, isolation_level=None)

    class Busy(club_module.Club):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            holder.execute("BEGIN EXCLUSIVE")  # then another program takes the write lock and keeps it

    monkeypatch.setattr(club_module, "Club", Busy)
    try:
        monkeypatch.setattr("sys.stdin", io.StringIO("a new password\n"))
        status = main(["accounts", *command, "--db", str(db)])
    finally:
        if holder.in_transaction:
            holder.execute("ROLLBACK")
        holder.close()
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and err.startswith("sequence-game: error: ") and "locked" in err, err
    _no_write_lock_held(db)


def test_a_database_another_program_holds_is_named_busy_in_one_line(tmp_path, capsys):
    from sequence_game.cli import main

    db = tmp_path / "club.sqlite3"
    _club_db(db)
    holder = sqlite3.connect(db, isolation_level=None, timeout=0)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        status = main(["accounts", "list", "--db", str(db)])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    err = capsys.readouterr().err
    assert status == 1 and err.count("\n") == 1 and "busy" in err and "try again" in err, err


@pytest.mark.parametrize("command", [["backup", "copy.sqlite3"], ["accounts", "create", "dora"]])
def test_operator_commands_under_a_file_size_limit_are_one_line(tmp_path, command):
    db = tmp_path / "club.sqlite3"
    _club_db(db)
    args = [a if a != "copy.sqlite3" else str(tmp_path / a) for a in command]
    r = subprocess.run([sys.executable, "-m", "sequence_game", *args, "--db", str(db)], input="a password\n",
                       preexec_fn=file_size_limit(8192), capture_output=True, text=True, timeout=TIMEOUT)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("sequence-game: error: "), r.stderr
    assert not (tmp_path / "copy.sqlite3").exists()
    assert not [p for p in tmp_path.iterdir() if ".partial-" in p.name]
