"""The bot API end to end against a live server (``sequence-game serve`` on a free loopback port):
the typed client (sequence_game.client), the bot runner (``sequence-game bot``, sequence_game.bot)
with a preset and with a user's own agent class, and the shell example bot (examples/bot.sh,
curl + jq) and the JavaScript one (examples/bot.mjs, the event stream), each playing whole games."""

from __future__ import annotations

import os
import pathlib
import shutil
import socket
import subprocess
import sys
import threading
import time

import pytest
import sequence_game
from sequence_game.bot import load_agent, run_bot
from sequence_game.client import Client, ClientError, Session, game_from_observation

pytest.importorskip("fastapi", reason="the [web] extra is not installed")

ROOT = pathlib.Path(__file__).resolve().parent.parent
# the subprocesses import the package this interpreter imports (installed, or on PYTHONPATH already)
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "tests"), os.environ.get("PYTHONPATH")]))}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """``sequence-game serve`` in a subprocess, as a user starts it; its URL."""
    port = _free_port()
    db = tmp_path_factory.mktemp("serve") / "tables.sqlite3"
    proc = subprocess.Popen([sys.executable, "-m", "sequence_game", "serve", "--port", str(port), "--db", str(db),
                             "--no-browser", "--ai-workers", "1",
                             # this one address creates every table of the module
                             "--limit", "create_burst=200", "--limit", "create_per_minute=600",
                             "--limit", "max_tables_per_client=200", "--limit", "signup_burst=20"], env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        client = Client(url, retries=0)
        for _ in range(300):
            try:
                client.presets()
                break
            except ClientError:
                if proc.poll() is not None:
                    pytest.fail(f"serve exited: {proc.stdout.read() if proc.stdout else ''}")
                time.sleep(0.1)
        else:
            pytest.fail("serve did not answer within 30 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()


def _two_seat_table(url, seed, **options):
    """A table of two human seats; ``seed`` only names the case: the server deals a table of two
    links itself (docs/security.md)."""
    created = Client(url).create_table(players=2, seats=[{"kind": "human", "name": "bot 0"},
                                                         {"kind": "human", "name": "bot 1"}], **options)
    tokens = {s.seat: s.token for s in created.seats}
    assert sorted(tokens) == [0, 1]
    return created.table, tokens


def _check_finished(url, table, tokens):
    """The game is over for both seats and its record replays to the same end."""
    views = [Client(url, token=tokens[p]).table(table) for p in (0, 1)]
    assert all(v.over for v in views) and views[0].result == views[1].result
    record = Client(url).record(table)
    game = record.replay()
    assert game.is_over and game.turn == record.result["turns"]
    return views[0]


# --------------------------------------------------------------------------- the client


def test_client_reads_and_plays_a_table(server):
    table, tokens = _two_seat_table(server, seed=5)
    first = Client(server).table(table).state["current_player"]  # the server's deal decides who starts
    me = Client(server, token=tokens[first])
    view = me.table(table)
    assert view.seat == first and view.to_move and view.legal and not view.over
    assert isinstance(view.state["hands"][1 - first], int)  # R9: the other hand is a size
    game = view.game(seed=1)
    assert sorted(str(m) for m in game.legal_moves()) == sorted(view.legal)
    after = me.play(table, view.legal[0], version=view.version)
    assert after.version == view.version + 1 and not after.to_move
    with pytest.raises(ClientError) as e:  # a stale version: 409 with the server's reason
        me.play(table, view.legal[0], version=view.version)
    assert e.value.status == 409 and e.value.detail
    spectator = Client(server).table(table)
    assert spectator.seat is None and spectator.legal == []
    with pytest.raises(ClientError) as e:  # the other seat to move, with a play: the engine's refusal, named
        Client(server, token=tokens[1 - first]).play(table, "pass")
    assert e.value.error == "IllegalMoveError" and "R5" in e.value.detail
    with pytest.raises(ClientError) as e:
        me.play(table, after.legal[0] if after.legal else "pass")
    assert e.value.status == 409 and "not your turn" in e.value.detail


def test_client_sets_the_pages_language_of_its_account(server):
    """PUT /api/session/language from a script: the account's pages speak that language from then
    on, whatever the browser asks for; a language the server does not have is refused."""
    import urllib.request

    carol = Client(server)
    carol.sign_up("carol", "password1")
    carol.set_language("ko")
    ask = urllib.request.Request(server + "/", headers={"Cookie": f"sg_session={carol.session}",
                                                        "Accept-Language": "es"})
    with urllib.request.urlopen(ask, timeout=30) as page:
        assert '<html lang="ko"' in page.read().decode("utf-8")
    with pytest.raises(ClientError) as refused:
        carol.set_language("xx")
    assert refused.value.status == 422 and "ko" in refused.value.detail
    with pytest.raises(TypeError):
        carol.set_language(None)


def test_client_signs_up_logs_in_and_plays_a_rated_seek_as_its_account(server):
    """docs/club.md, "From a script": the client keeps the session cookie and sends the Origin its
    cookie-signed writes need; two scripts meet through a rated seek and their game is rated."""
    alice, bob = Client(server), Client(server)
    assert alice.signed_in() == Session(accounts=True, name=None)
    me = alice.sign_up("alice", "password1")
    assert (me.name, me.rating, me.provisional) == ("alice", 500, True) and alice.session
    assert alice.signed_in().name == "alice" and Client(server).signed_in().name is None  # the cookie is its own
    posted = alice.post_seek(rated=True)  # a cookie-signed write: refused without the Origin header
    bob.sign_up("bob", "password1")
    bob.log_out()
    assert bob.session is None and bob.signed_in().name is None
    with pytest.raises(ClientError) as refused:  # a guest may not accept a rated seek
        bob.accept_seek(posted.seek)
    assert refused.value.status == 403 and "sign in" in refused.value.detail
    with pytest.raises(ClientError) as wrong:
        bob.log_in("bob", "not the password")
    assert wrong.value.status == 401
    assert bob.log_in("bob", "password1").name == "bob"
    link = bob.accept_seek(posted.seek)
    status = alice.with_token(posted.token).seek(posted.seek)  # with_token keeps the session
    assert status.status == "accepted" and alice.with_token(posted.token).session == alice.session
    seats = Client(server).request("GET", f"/api/tables/{status.table}")["seats"]
    assert [s["account"] for s in seats] == ["alice", "bob"] and link.seat == 1
    tokens = {link.seat: link.token, status.seat.seat: status.seat.token}
    for _ in range(2):  # a move each (a game with a seat that never moved is not counted), then a resignation
        table = Client(server).table(status.table)
        me_to_move = bob.with_token(tokens[table.state["current_player"]])
        me_to_move.play(status.table, me_to_move.table(status.table).legal[0])
    bob.with_token(tokens[0]).resign(status.table)
    assert all(r["counted"] for r in Client(server).ratings(status.table))
    # a client made from a kept session acts as the account again
    assert Client(server, session=alice.session).signed_in().name == "alice"
    with pytest.raises(ValueError, match="session"):
        Client(server, session="x; other=1")


def test_client_follows_challenges_blocks_and_enters_a_tournament(server):
    """The club's people and tournaments from a script (docs/club.md): a follow seen in ``people``,
    a profile, a challenge accepted into a table with both accounts, a block that refuses the next
    challenge, and a Swiss announced, joined, listed and left."""
    dave, erin = Client(server), Client(server)
    dave.sign_up("dave", "password1")
    erin.sign_up("erin", "password1")
    dave.follow("erin")
    assert [p["name"] for p in dave.people()["following"]] == ["erin"]
    assert erin.set_profile(bio="plays on Tuesdays", country="Chile") == {"bio": "plays on Tuesdays",
                                                                          "country": "Chile"}
    assert Client(server).player("erin")["profile"]["country"] == "Chile"
    made = dave.challenge("erin", players=2)
    assert made["status"] == "open" and made["target"] == "erin"
    assert [c["id"] for c in erin.people()["challenges"]["incoming"]] == [made["id"]]
    link = erin.accept_challenge(made["id"])
    status = dave.challenge_status(made["id"])
    assert status["status"] == "accepted" and status["table"]
    seats = Client(server).request("GET", f"/api/tables/{status['table']}")["seats"]
    assert [s["account"] for s in seats] == ["dave", "erin"] and link.seat == 1
    declined = dave.challenge("erin")
    assert erin.decline_challenge(declined["id"])["status"] == "declined"
    withdrawn = dave.challenge("erin")
    assert dave.withdraw_challenge(withdrawn["id"])["status"] == "withdrawn"
    erin.block("dave")
    assert erin.people()["blocked"] == ["dave"]
    with pytest.raises(ClientError) as refused:
        dave.challenge("erin")
    assert refused.value.status in (403, 409) and refused.value.detail
    erin.unblock("dave")
    dave.unfollow("erin")
    assert dave.people()["following"] == [] and erin.people()["blocked"] == []
    assert set(Client(server).leaderboard()) == {"settled", "provisional"}

    swiss = dave.create_tournament("swiss", "Tuesday Swiss", time.time() + 3600, {"seconds": 300, "increment": 2},
                                   rounds=3)
    tid = swiss["tournament"]
    assert erin.join_tournament(tid)["tournament"] == tid
    assert tid in [t["tournament"] for t in Client(server).tournaments()["tournaments"]]
    assert [s["names"] for s in Client(server).tournament(tid)["standings"]] == [["erin"]]
    assert erin.tournament_seat(tid)["table"] is None  # not started: no game yet
    erin.withdraw_from_tournament(tid)
    assert [s["state"] for s in Client(server).tournament(tid)["standings"]] == ["withdrawn"]
    assert Client(server).player_tournaments("erin") == []  # none finished


def test_client_names_a_bad_server():
    with pytest.raises(ValueError, match="http"):
        Client("ftp://example")
    with pytest.raises(ClientError) as e:
        Client(f"http://127.0.0.1:{_free_port()}", retries=1).table("x")
    assert e.value.status == 0 and "cannot reach" in str(e.value)


def test_game_from_observation_keeps_what_the_seat_sees():
    g = sequence_game.Game(players=3, seed=9)
    for _ in range(20):
        g.play(g.legal_moves()[0])
    for p in range(3):
        obs = g.observation(p)
        made = game_from_observation(obs, seed=4)
        assert made.observation(p) | {"last_draw": None} == obs | {"last_draw": None}
        if g.current_player == p:
            assert made.legal_moves() == g.legal_moves()


# --------------------------------------------------------------------------- the runner


def test_two_runner_bots_play_a_whole_game(server):
    """``sequence-game bot`` twice, in subprocesses: a preset search against the heuristic."""
    table, tokens = _two_seat_table(server, seed=7)
    bots = [subprocess.Popen([sys.executable, "-m", "sequence_game", "bot", "--server", server, f"--table={table}",
                              f"--token={tokens[p]}", "--agent", agent, "--seed", "3"], env=ENV,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for p, agent in ((0, "hard:iters=300"), (1, "medium"))]
    outs = [b.communicate(timeout=600) for b in bots]
    for b, (out, err) in zip(bots, outs):
        assert b.returncode == 0, err
        assert "game over" in out and "playing seat" in out
    _check_finished(server, table, tokens)


class UserAgent:
    """A user's own agent class (``module:Class`` for the runner): the first move that declares a
    sequence, else the heuristic's."""

    name = "user-agent"

    def __init__(self) -> None:
        self.greedy = sequence_game.agents.GreedyAgent(seed=0)
        self.calls = 0

    def select_move(self, game):
        self.calls += 1
        moves = game.legal_moves()
        return next((m for m in moves if m.declares), None) or self.greedy.select_move(game)


def test_a_users_agent_class_plays_through_the_runner(server):
    table, tokens = _two_seat_table(server, seed=8)
    agent = load_agent("test_bot:UserAgent")
    assert type(agent).__name__ == "UserAgent"
    results = {}
    other = threading.Thread(target=lambda: results.setdefault(1, run_bot(
        Client(server, token=tokens[1]), table, load_agent("random", seed=2))))
    other.start()
    results[0] = run_bot(Client(server, token=tokens[0]), table, agent)
    other.join(timeout=600)
    assert results[0].moves == agent.calls > 0 and results[1].moves > 0  # every choice was played
    _check_finished(server, table, tokens)


@pytest.mark.parametrize("text, words", [("nosuchmodule_x:Bot", ["cannot import"]),
                                         ("test_bot:Missing", ["no class or function"]),
                                         ("nonsense", ["unknown agent"])])
def test_load_agent_names_what_is_wrong(text, words):
    with pytest.raises(ValueError) as e:
        load_agent(text)
    for w in words:
        assert w in str(e.value)


def test_the_runner_refuses_a_spectator(server):
    table, _ = _two_seat_table(server, seed=9)
    with pytest.raises(ValueError, match="spectator"):
        run_bot(Client(server), table, load_agent("random"))
    bad = subprocess.run([sys.executable, "-m", "sequence_game", "bot", "--server", server, "--table", "nope",
                          "--token", "x" * 32, "--agent", "random"], env=ENV, capture_output=True, text=True,
                         timeout=120)
    assert bad.returncode == 1 and "404" in bad.stderr


# --------------------------------------------------------------------------- the shell example


@pytest.mark.skipif(not (shutil.which("curl") and shutil.which("jq") and shutil.which("bash")),
                    reason="examples/bot.sh needs bash, curl and jq")
def test_the_shell_example_bot_plays_a_whole_game(server):
    table, tokens = _two_seat_table(server, seed=11)
    shell = subprocess.Popen(["bash", str(ROOT / "examples" / "bot.sh"), server, table, tokens[0]],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    result = run_bot(Client(server, token=tokens[1]), table, load_agent("medium", seed=1))
    out, err = shell.communicate(timeout=600)
    assert shell.returncode == 0, err
    assert "game over" in out and result.view.over
    final = _check_finished(server, table, tokens)
    assert f'"turns":{final.result["turns"]}' in out.replace(" ", "")


# --------------------------------------------------------------------------- waiting without polling


def test_client_wait_is_a_long_poll_answered_by_the_next_move(server):
    table, tokens = _two_seat_table(server, seed=12)
    mover = Client(server).table(table).state["current_player"]
    other = Client(server, token=tokens[1 - mover])
    view = other.table(table)
    out = {}
    waiter = threading.Thread(target=lambda: out.setdefault("view", other.wait(table, after_version=view.version)))
    waiter.start()
    time.sleep(0.3)
    assert "view" not in out
    me = Client(server, token=tokens[mover])
    me.play(table, me.table(table).legal[0])
    waiter.join(timeout=30)
    assert out["view"].version == view.version + 1 and out["view"].to_move


def test_the_event_stream_of_a_whole_game(server):
    """A spectator's stream while two bots play: a state per change, versions rising, ending with
    the finished game's state (which ends the stream)."""
    table, tokens = _two_seat_table(server, seed=13)
    frames = []
    watcher = threading.Thread(target=lambda: frames.extend(Client(server).stream(table)))
    watcher.start()
    bots = [threading.Thread(target=run_bot, args=(Client(server, token=tokens[p]), table, load_agent(a, seed=p)))
            for p, a in ((0, "medium"), (1, "random"))]
    for b in bots:
        b.start()
    for b in bots:
        b.join(timeout=600)
    watcher.join(timeout=60)
    assert not watcher.is_alive()
    states = [f["view"] for f in frames if f["type"] == "state"]
    assert states[0]["seat"] is None and states[-1]["over"]
    versions = [s["version"] for s in states]
    assert versions == sorted(versions) and versions[-1] == states[-1]["moves"]
    assert all(isinstance(h, int) for s in states for h in s["state"]["hands"])  # R9: a spectator sees sizes


@pytest.mark.skipif(not shutil.which("node"), reason="examples/bot.mjs needs Node 18 or later")
def test_the_javascript_example_bot_plays_a_whole_game_on_the_stream(server):
    table, tokens = _two_seat_table(server, seed=14)
    node = subprocess.Popen(["node", str(ROOT / "examples" / "bot.mjs"), server, table, tokens[1]],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    result = run_bot(Client(server, token=tokens[0]), table, load_agent("easy", seed=2))
    out, err = node.communicate(timeout=600)
    assert node.returncode == 0, err
    assert "game over" in out and result.view.over
    final = _check_finished(server, table, tokens)
    assert f'"turns":{final.result["turns"]}' in out


# --------------------------------------------------------------------------- a seat from the lobby

AGENT_MODULE = '''
import sequence_game


class MyAgent:
    name = "my-agent"

    def __init__(self):
        self.greedy = sequence_game.agents.GreedyAgent(seed=0)

    def select_move(self, game):
        return self.greedy.select_move(game)
'''


@pytest.mark.skipif(sys.version_info < (3, 11), reason="python -P (no working directory on the path) is 3.11+")
def test_the_bot_joins_an_open_seat_with_an_agent_from_its_own_folder(server, tmp_path):
    """``sequence-game bot --join TABLE --seat 0 --agent myagent:MyAgent`` from the agent's folder:
    run with ``python -P``, which puts no working directory on the path (as an installed
    ``sequence-game`` script does not), so the bot itself must."""
    (tmp_path / "myagent.py").write_text(AGENT_MODULE)
    created = Client(server).create_table(players=2, seats=[{"kind": "human", "open": True},
                                                            {"kind": "human", "name": "other"}])
    table, (other,) = created.table, created.seats
    assert other.seat == 1  # no link is made for the open seat
    listed = {t.table: t for t in Client(server).tables(finished=False)}
    assert listed[table].open_seats == [0]
    env = {**ENV, "PYTHONPATH": os.environ.get("PYTHONPATH", "")}  # not the tests' folder either
    bot = subprocess.Popen([sys.executable, "-P", "-m", "sequence_game", "bot", "--server", server, f"--join={table}",
                            "--seat", "0", "--agent", "myagent:MyAgent"], cwd=tmp_path, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    result = run_bot(Client(server, token=other.token), table, load_agent("random", seed=1))
    out, err = bot.communicate(timeout=600)
    assert bot.returncode == 0, err
    assert f"took seat 0 as 'my-agent bot'; to resume: --table={table} --token=" in out and "game over" in out
    assert result.view.over and result.view.seats[0].name == "my-agent bot" and not result.view.seats[0].open
    assert table not in {t.table for t in Client(server).tables(finished=False) if t.open_seats}
    # the seat is taken: a second --join finds none open
    again = subprocess.run([sys.executable, "-m", "sequence_game", "bot", "--server", server, f"--join={table}",
                            "--agent", "random"], env=ENV, capture_output=True, text=True, timeout=120)
    assert again.returncode == 1 and again.stderr.count("\n") == 1 and "409" in again.stderr


@pytest.mark.parametrize("argv, words", [
    (["--table=x"], "--table needs the seat's --token"),
    (["--join=x", "--token=t"], "leave out --token"),
    (["--table=x", "--token=t", "--seat", "1"], "--seat chooses the open seat"),
    (["--join=x", "--name", "x" * 33], "--name goes with --join"),
])
def test_the_bot_names_a_wrong_combination_of_options(argv, words):
    out = subprocess.run([sys.executable, "-m", "sequence_game", "bot", "--server", "http://127.0.0.1:9", *argv],
                         env=ENV, capture_output=True, text=True, timeout=120)
    assert out.returncode == 1 and words in out.stderr and out.stderr.count("\n") == 1


def test_a_missing_agent_module_names_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="working directory") as e:
        load_agent("nosuchmodule_here:Bot")
    assert str(tmp_path) in str(e.value)


# --------------------------------------------------------------------------- every endpoint, typed


def test_the_client_covers_every_endpoint_against_a_live_server(server):
    """Each method of the client against ``sequence-game serve``, each answer typed: the lobby, an
    open seat joined, a hint and an analysis, a move, the move list, a resignation (the long-poll
    ends on the finished table), record, replay, review, rematch; undo against the AI."""
    from sequence_game.client import Analysis, Hint, MoveList, Preset, Rematch, Replay, ReviewStatus, SeatLink

    anon = Client(server)
    presets = anon.presets()
    assert all(isinstance(p, Preset) for p in presets) and "hard" in [p.name for p in presets]
    created = anon.create_table(players=2, seats=[{"kind": "human", "name": "ann"}, {"kind": "human", "open": True}],
                                hints=True)
    table = created.table
    assert table in {t.table: t for t in anon.tables(finished=False)}
    link = anon.join(table, seat=1, name="bob")
    assert isinstance(link, SeatLink) and link.seat == 1 and table in link.url
    seats = {0: anon.with_token(created.seats[0].token), 1: anon.with_token(link.token)}
    view = seats[0].table(table)
    # a game between people: Abort until every first move, then Resign
    assert [s.name for s in view.seats] == ["ann", "bob"] and view.hints and view.can_abort and not view.can_resign
    mover = view.state["current_player"]
    me = seats[mover]
    legal = me.table(table).legal
    hint = me.hint(table)
    assert isinstance(hint, Hint) and str(hint) in legal and hint.version == view.version
    analysis = me.analysis(table, seconds=0.05)
    assert isinstance(analysis, Analysis) and analysis.best in legal and analysis.iterations > 0
    assert {m.move for m in analysis.moves} <= set(legal) and sum(m.visits for m in analysis.moves) > 0
    first = me.play(table, hint.move, version=view.version)
    after = seats[1 - mover].play(table, seats[1 - mover].table(table).legal[0], version=first.version)
    assert after.can_resign and not after.can_abort
    moves = anon.moves(table)
    assert isinstance(moves, MoveList) and moves.version == after.version
    assert [(m.player, m.move) for m in moves.moves] == [(mover, first.last_move["move"]),
                                                         (1 - mover, after.last_move["move"])]
    resigned = seats[0].resign(table)
    assert resigned.over and resigned.result["resigned"] == 0 and resigned.result["winner"] == 1
    assert seats[1].wait(table, after_version=resigned.version, wait=1).over  # the table's end ends the wait
    assert anon.record(table).resigned == 0
    replay = anon.replay(table)
    assert isinstance(replay, Replay) and replay.names == ["ann", "bob"] and len(replay.steps) == 3
    assert anon.review(table) == ReviewStatus(status="none", detail=anon.review(table).detail)
    assert anon.start_review(table).status in ("running", "ready")
    for _ in range(600):
        review = anon.review(table)
        if review.status == "ready":
            break
        time.sleep(0.1)
    assert review.review is not None and [m.move for m in review.review.moves] == [first.last_move["move"],
                                                                                     after.last_move["move"]]
    offer = seats[0].rematch(table)  # an offer: the other seat has not accepted yet
    assert isinstance(offer, Rematch) and offer.table is None and offer.offer is not None
    assert offer.offer["waiting"] == [1]
    assert seats[1].decline_rematch(table) == "declined"
    seats[0].rematch(table)
    rematch = seats[1].rematch(table)  # accepted: made
    assert rematch.table is not None and seats[0].rematch(table) == rematch  # made once
    assert seats[1].table(rematch.table).seat == 1  # the old token holds the same seat there
    assert table in {t.table for t in anon.tables(finished=True)}

    # undo: a table of one person against the AI
    vs_ai = anon.create_table(players=2, seats=[{"kind": "human"}, {"kind": "ai", "ai": "random"}])
    human = anon.with_token(vs_ai.seats[0].token)
    view = human.table(vs_ai.table)
    if not view.to_move:
        view = human.wait(vs_ai.table, after_version=view.version)
    played = human.play(vs_ai.table, view.legal[0], version=view.version)
    answered = human.wait(vs_ai.table, after_version=played.version)
    while not answered.to_move:
        answered = human.wait(vs_ai.table, after_version=answered.version)
    undone = human.undo(vs_ai.table)
    assert undone.to_move and undone.moves < answered.moves


def test_a_bot_sees_an_abort_and_can_abort(server):
    """The bot API and the abort (docs/club.md, "Abort"): a seat's view says it may abort, the
    runner's stream ends with the aborted game, and ``Client.abort`` aborts."""
    table, tokens = _two_seat_table(server, seed=21)
    first = Client(server).table(table).state["current_player"]
    waiting = Client(server, token=tokens[1 - first])
    assert waiting.table(table).can_abort and waiting.table(table).grace_left is None  # no time control: no grace
    ran = []
    bot = threading.Thread(target=lambda: ran.append(run_bot(waiting, table, load_agent("random", seed=1))))
    bot.start()  # it waits on the stream for its turn
    time.sleep(0.5)
    aborted = Client(server, token=tokens[first]).abort(table)
    assert aborted.over and aborted.result["aborted"] == {"seat": first, "why": "abort"}
    assert aborted.result["winner"] is None and not aborted.can_abort
    bot.join(timeout=60)
    assert not bot.is_alive() and ran[0].view.over and ran[0].view.result["aborted"]["seat"] == first
    assert ran[0].moves == 0
    record = Client(server).record(table)
    assert record.ending == "aborted" and not record.replay().is_over
    with pytest.raises(ClientError) as e:
        waiting.abort(table)
    assert e.value.status == 409


def test_a_seats_event_stream_carries_the_rematch_offers_until_the_rematch(server):
    """``stream(table, rematch=True)``: after the game, a seat's stream brings every rematch offer
    (made, withdrawn, declined, made again and accepted) and ends with the new table; a
    spectator's stream ends with the game all the same (the offers are the players')."""
    table, tokens = _two_seat_table(server, seed=22)
    seats = {p: Client(server, token=tokens[p]) for p in (0, 1)}
    seats[0].abort(table)
    assert [f["type"] for f in Client(server).stream(table, rematch=True)] == ["state"]  # a spectator's: one state
    frames, started = [], threading.Event()

    def follow():
        for f in seats[1].stream(table, rematch=True):
            frames.append(f)
            started.set()

    reader = threading.Thread(target=follow)
    reader.start()
    assert started.wait(30) and frames[0]["view"]["over"]
    seats[0].rematch(table)
    assert seats[0].decline_rematch(table) == "withdrawn"
    seats[0].rematch(table)
    assert seats[1].decline_rematch(table) == "declined"
    seats[0].rematch(table)
    made = seats[1].rematch(table)
    reader.join(timeout=30)
    assert not reader.is_alive()  # the rematch frame ended it
    offers = [(f["offer"] is not None, f["ended"], f["seat"]) for f in frames if f["type"] == "rematch-offer"]
    assert offers == [(True, None, None), (False, "withdrawn", 0), (True, None, None), (False, "declined", 1),
                      (True, None, None)]
    assert frames[-1] == {"type": "rematch", "table": made.table}


def test_the_client_streams_an_analysis_and_leaving_the_loop_stops_it(server):
    """``Client.analysis_stream`` against a live server: typed updates to the end of a short
    budget; a ``break`` out of a long one closes the stream and the server frees the seat's
    analysis at once (a hint, one at a time per seat with analyses, is answered right after)."""
    from sequence_game.client import AnalysisInfo

    created = Client(server).create_table(players=2, seats=[{"kind": "human"}, {"kind": "human"}], hints=True)
    seats = {s.seat: Client(server, token=s.token) for s in created.seats}
    view = seats[0].table(created.table)
    me, other = seats[view.state["current_player"]], seats[1 - view.state["current_player"]]
    view = me.table(created.table)
    infos = list(me.analysis_stream(created.table, seconds=0.3, every=0.1))
    assert len(infos) >= 2 and all(isinstance(i, AnalysisInfo) for i in infos)
    assert [i.done for i in infos] == [False] * (len(infos) - 1) + [True] and not infos[-1].interrupted
    assert infos[-1].best in view.legal and infos[-1].best == infos[-1].moves[0].move
    assert [i.iterations for i in infos] == sorted(i.iterations for i in infos) and infos[-1].version == view.version
    started = time.monotonic()
    for info in me.analysis_stream(created.table, seconds=5, every=0.05):
        assert not info.done
        break
    while True:  # the server may not have read the closed stream yet: "running already", then free
        try:
            hint = me.hint(created.table)
            break
        except ClientError as e:
            if e.status != 429 or time.monotonic() - started > 3:
                raise
            time.sleep(0.02)
    assert hint.move in view.legal
    assert time.monotonic() - started < 3
    with pytest.raises(ClientError) as e:  # the other seat is not to move: its hand is not asked about
        next(other.analysis_stream(created.table))
    assert e.value.status == 409 and "seat to move" in e.value.detail


def test_the_tutorials_python_client_plays_an_open_seat_to_the_end(server, capsys):
    """The Python block of docs/tutorials/http-bot.md, run against the live server: it finds the
    table with an open seat in the lobby, joins it and plays to the end."""
    import re

    text = (ROOT / "docs" / "tutorials" / "http-bot.md").read_text(encoding="utf-8")
    code = re.findall(r"```python\n(.*?)```", text, re.S)[0]  # the whole bot (later blocks are snippets)
    created = Client(server).create_table(players=2, seats=[{"kind": "human", "name": "other"},
                                                            {"kind": "human", "open": True}])
    assert [t.table for t in Client(server).tables(finished=False) if t.open_seats] == [created.table]
    other = threading.Thread(target=run_bot, args=(Client(server, token=created.seats[0].token), created.table,
                                                   load_agent("medium", seed=3)))
    other.start()
    code = "\n".join(line[2:] for line in code.splitlines())  # the block is indented in its list item
    exec(compile(code.replace("http://127.0.0.1:8000", server), "http-bot.md", "exec"), {"__name__": "__docs__"})
    other.join(timeout=600)
    assert "after" in capsys.readouterr().out  # the result's text: "... wins after N turns"
    assert Client(server).table(created.table).over
