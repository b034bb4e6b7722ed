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
from sequence_game.client import Client, ClientError, game_from_observation

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
                             "--no-browser", "--ai-workers", "1"], env=ENV, stdout=subprocess.PIPE,
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
    with pytest.raises(ClientError) as e:  # seat 1 to move, with a play: the engine's refusal, named
        Client(server, token=tokens[1]).play(table, "pass")
    assert e.value.error == "IllegalMoveError" and "R5" in e.value.detail
    with pytest.raises(ClientError) as e:
        me.play(table, after.legal[0] if after.legal else "pass")
    assert e.value.status == 409 and "not your turn" in e.value.detail


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
    bots = [subprocess.Popen([sys.executable, "-m", "sequence_game", "bot", "--server", server, "--table", table,
                              "--token", tokens[p], "--agent", agent, "--seed", "3"], env=ENV,
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
