"""The ``sequence-game`` command: play (scripted stdin), demo, arena, replay, bench, colour handling."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest
import sequence_game
from conftest import load_game_class
from helpers import research_build
from sequence_game import cli
from sequence_game.agents import GreedyAgent, agent_from_spec
from sequence_game.agents.factory import game_class
from sequence_game.cli.common import ai_seed, default_ai_spec, split_agent_specs
from sequence_game.cli.play import PlaySession
from sequence_game.records import GameRecord
from sequence_game.terminal import board_text

ANSI_COLOUR = re.compile(r"\x1b\[[0-9;]*?(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])m")


@pytest.fixture(params=["core", "reference"])
def engine(request):
    load_game_class(request.param)  # skips "core" until the extension is built
    return request.param


def run_cli(monkeypatch, capsys, argv, stdin=""):
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    rc = cli.main(argv)
    out, err = capsys.readouterr()
    return rc, out, err


def simulate(engine, seed, human=0, players=2, ai="random", stop_at_human=False):
    """The human's command lines for a game where ``human`` plays GreedyAgent's moves against the
    CLI's seeded ``ai``; returns (lines, final game, moves played)."""
    g = load_game_class(engine)(players=players, seed=seed)
    agents = {p: agent_from_spec(ai, seed=ai_seed(seed, p)) for p in range(players) if p != human}
    me = GreedyAgent(seed=0)
    lines, moves = [], []
    while not g.is_over:
        p = g.current_player
        if p == human:
            if stop_at_human:
                break
            m = me.select_move(g)
            lines.append(str(m))
        else:
            m = g.parse_move(agents[p].select_move(g))
        g.play(m)
        moves.append(m)
    return lines, g, moves


# --------------------------------------------------------------------------- play


@pytest.mark.parametrize("preset", ["easy", "hard:time=none"])
def test_play_against_a_difficulty_preset(engine, monkeypatch, capsys, tmp_path, preset):
    """`play --ai easy|medium|hard`: the presets of agents/presets.py; the AI's moves are the
    seeded preset's, and the record names it. (hard without its time cap: on a busy machine the cap
    can end a search early, and then the moves depend on the load.)"""
    lines, final, moves = simulate(engine, seed=12, ai=preset)
    path = tmp_path / "game.json"
    rc, out, err = run_cli(monkeypatch, capsys, ["play", "--engine", engine, "--seed", "12", "--ai", preset,
                                                 "--save", str(path)], "\n".join(lines) + "\n")
    assert rc == 0, err
    rec = GameRecord.load(path)
    assert rec.agents == ["human", preset] and rec.moves == [str(m) for m in moves]


def test_play_defaults_to_the_hard_preset():
    assert default_ai_spec() == "hard"


def test_engine_names_have_one_home_that_refuses_an_unknown_name():
    from sequence_game.game import Game
    from sequence_game.records import default_game_class
    from sequence_game.reference import Game as ReferenceGame

    assert game_class() is game_class("core") is default_game_class() is Game
    assert game_class("reference") is ReferenceGame
    with pytest.raises(ValueError, match="engine must be one of core, reference, not 'cpython'"):
        game_class("cpython")


def test_play_a_full_game_from_scripted_stdin_and_save_it(engine, monkeypatch, capsys, tmp_path):
    lines, final, moves = simulate(engine, seed=11)
    path = tmp_path / "game.json"
    rc, out, err = run_cli(
        monkeypatch, capsys,
        ["play", "--engine", engine, "--seed", "11", "--ai", "random", "--save", str(path)],
        "\n".join(lines) + "\n",
    )
    assert rc == 0, err
    assert f"wins after {final.turn} turns" in out
    assert "end of input" not in out
    assert f"record saved to {path}" in out
    rec = GameRecord.load(path)
    assert rec.moves == [str(m) for m in moves]
    assert rec.agents == ["human", "random"]
    assert rec.replay(load_game_class(engine)).to_dict() == final.to_dict()


def test_play_shows_board_hand_and_legal_moves(engine, monkeypatch, capsys):
    _, g, _ = simulate(engine, seed=4, stop_at_human=True)
    rc, out, _ = run_cli(monkeypatch, capsys, ["play", "--engine", engine, "--seed", "4", "--ai", "random"], "?\n")
    assert rc == 0
    assert "P0 hand:" in out and "sequences (need 2)" in out and "discards:" in out
    listed = set(out.split("P0 (blue) > ?", 1)[1].split())
    for m in g.legal_moves():
        if m.card not in ("JD", "JC"):
            assert str(m) in listed
    assert "end of input: leaving the game" in out
    assert "The game is unfinished" in out


def test_play_illegal_and_malformed_moves_print_the_error_and_ask_again(engine, monkeypatch, capsys):
    _, g, _ = simulate(engine, seed=4, stop_at_human=True)
    hand = g.hand(0)
    missing = next(c for c in ("2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S") if c not in hand)
    script = ["7H@z9", "KSxa1", f"{missing}@{'abcdefghij'[sequence_game.cells_of(missing)[0][1]]}"
              f"{sequence_game.cells_of(missing)[0][0] + 1}", "hello", "pass", str(g.legal_moves()[0]), "quit"]
    rc, out, _ = run_cli(monkeypatch, capsys, ["play", "--engine", engine, "--seed", "4", "--ai", "random"],
                         "\n".join(script) + "\n")
    assert rc == 0
    assert "'z9' is not a cell" in out
    assert "only a one-eyed jack (JH, JS) removes a chip" in out
    assert f"does not hold {missing}" in out
    assert "'hello' is not a move" in out
    assert "passing is only for a turn with none" in out and "(R5)" not in out
    assert f"P0 (blue) plays {g.legal_moves()[0]}" in out
    assert "leaving the game" in out


def test_play_undo_takes_back_the_human_move_and_the_ai_replies(engine, monkeypatch, capsys, tmp_path):
    _, g, before = simulate(engine, seed=6, stop_at_human=True)
    first = str(g.legal_moves()[0])
    path = tmp_path / "undo.json"
    rc, out, _ = run_cli(
        monkeypatch, capsys,
        ["play", "--engine", engine, "--seed", "6", "--ai", "random", "--save", str(path)],
        f"undo\n{first}\nundo\nquit\n",
    )
    assert rc == 0
    assert "nothing to undo" in out
    assert f"took back P0's {first}" in out
    rec = GameRecord.load(path)
    assert rec.result is None  # unfinished
    assert rec.moves == [str(m) for m in before]  # only the AI moves before the human's first turn
    assert rec.replay(load_game_class(engine)).to_dict() == g.to_dict()


def test_play_hint_gives_a_legal_move(engine, monkeypatch, capsys):
    _, g, _ = simulate(engine, seed=8, stop_at_human=True)
    rc, out, _ = run_cli(
        monkeypatch, capsys,
        ["play", "--engine", engine, "--seed", "8", "--ai", "random", "--hint-ai", "greedy"], "hint\n",
    )
    assert rc == 0
    (hint,) = re.findall(r"^hint: (.+)$", out, re.M)
    assert g.is_legal(hint)


def test_play_several_humans_and_teams(engine, monkeypatch, capsys):
    rc, out, _ = run_cli(
        monkeypatch, capsys,
        ["play", "--engine", engine, "--players", "6", "--teams", "3", "--human", "0", "--human", "3",
         "--seed", "2", "--ai", "random"],
        "quit\n",
    )
    assert rc == 0
    assert "6 players, 3 teams" in out and "You play seats 0, 3" in out
    rc, _, err = run_cli(monkeypatch, capsys, ["play", "--engine", engine, "--human", "5"], "")
    assert rc == 1 and "--human 5: seats are 0..1" in err


def _session(engine, stdin, monkeypatch, hands, board_rows):
    Game = load_game_class(engine)
    g = Game.from_dict({"players": 2, "board": board_rows, "hands": hands})
    args = cli.build_parser().parse_args(["play", "--engine", engine, "--ai", "random"])
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    from sequence_game.terminal import make_console

    session = PlaySession(args, make_console(color=False), Game, game=g)
    assert session.run() == 0
    return session.game


def _rows(**marks):
    rows = [list("*........*")] + [list("..........") for _ in range(8)] + [list("*........*")]
    for cell, who in marks.items():
        rows[int(cell[1:]) - 1]["abcdefghij".index(cell[0])] = who
    return ["".join(r) for r in rows]


def test_play_ambiguous_placement_asks_which_five(engine, monkeypatch, capsys):
    # R7: a6-d6 and f6 are blue; 2H on e6 makes six in a row: a6-e6 or b6-f6
    board = _rows(a6="B", b6="B", c6="B", d6="B", f6="B")
    g = _session(engine, "2H@e6\nx\n9\n0\n2h@E6\n2\nquit\n", monkeypatch, [["2H", "5S"], ["3S", "4S"]], board)
    out = capsys.readouterr().out
    assert "choose which five" in out
    assert "1. 2H@e6 =a6-e6" in out and "2. 2H@e6 =b6-f6" in out
    assert "type a number from 1 to 2" in out
    assert g.sequences[0] == (0, ((5, 1), (5, 2), (5, 3), (5, 4), (5, 5)))


def test_play_a_card_alone_when_it_has_one_cell(engine, monkeypatch, capsys):
    board = _rows(e1="G")  # 5S is printed on e1 (covered) and d9
    g = _session(engine, "2h\n5s\nquit\n", monkeypatch, [["2H", "5S"], ["3S", "4S"]], board)
    out = capsys.readouterr().out
    assert "2H can go on 2 spaces: e6, h9" in out
    assert "P0 (blue) plays 5S@d9" in out
    assert g.cell("d9") == "B"


# --------------------------------------------------------------------------- demo, replay, arena


def test_demo_prints_every_turn_and_saves_a_record(engine, monkeypatch, capsys, tmp_path):
    path = tmp_path / "demo.json"
    rc, out, _ = run_cli(monkeypatch, capsys,
                         ["demo", "--seed", "1", "--engine", engine, "--agents", "greedy,random", "--save", str(path)])
    assert rc == 0
    rec = GameRecord.load(path)
    final = rec.replay(load_game_class(engine))
    assert final.is_over
    assert out.count("\n 1 ") >= final.turn  # a board after (nearly) every turn
    assert f"after {final.turn} turns" in out
    assert rec.agents == ["greedy", "random"]
    # the same seed gives the same game
    rc, out2, _ = run_cli(monkeypatch, capsys, ["demo", "--seed", "1", "--engine", engine, "--quiet"])
    assert rc == 0 and out2.splitlines()[-1] == out.splitlines()[-2]
    assert out2.count("\n 1 ") == 1


def test_replay_a_saved_record(engine, monkeypatch, capsys, tmp_path):
    path = tmp_path / "demo.json"
    run_cli(monkeypatch, capsys, ["demo", "--seed", "3", "--engine", engine, "--quiet", "--save", str(path)])
    rec = GameRecord.load(path)
    rc, out, _ = run_cli(monkeypatch, capsys, ["replay", str(path), "--engine", engine, "--step"])
    assert rc == 0
    numbered = re.findall(r"^\s*(\d+)\. P\d", out, re.M)
    assert [int(n) for n in numbered] == list(range(1, len(rec.moves) + 1))
    assert str(rec.moves[-1]).split()[0] in out
    assert f"after {rec.result['turns']} turns" in out
    rc, _, err = run_cli(monkeypatch, capsys, ["replay", str(tmp_path / "nope.json"), "--engine", engine])
    assert rc == 1 and "nope.json" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something"}')
    rc, _, err = run_cli(monkeypatch, capsys, ["replay", str(bad), "--engine", engine])
    assert rc == 1 and "not a game record" in err


def test_arena_prints_a_results_table(engine, monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)  # the default results file goes here
    rc, out, err = run_cli(monkeypatch, capsys,
                           ["arena", "greedy", "random", "--games", "2", "--seed", "5", "--engine", engine])
    assert rc == 0, err
    assert "2 games, 2 players" in out
    for word in ("greedy", "random", "wins", "draws", "win rate", "95% CI", "Elo"):
        assert word in out
    rc, _, err = run_cli(monkeypatch, capsys, ["arena", "greedy", "nonsense", "--games", "1", "--engine", engine])
    assert rc == 1 and "unknown agent 'nonsense'" in err


def test_bench_passes_its_options_through(monkeypatch, capsys):
    import sequence_game.bench

    seen = []
    monkeypatch.setattr(sequence_game.bench, "main", lambda argv: seen.append(argv) or 0)
    rc, _, _ = run_cli(monkeypatch, capsys, ["bench", "--quick", "--only", "play"])
    assert rc == 0 and seen == [["--quick", "--only", "play"]]


@pytest.mark.parametrize("name, module", [
    ("tune", "sequence_game.training.tune"),
    pytest.param("fit-eval", "sequence_game.training.fit_eval", marks=pytest.mark.skipif(
        not research_build(), reason="the learned evaluation's fit is a research build's")),
])
def test_the_training_tools_are_subcommands_that_pass_their_options_through(monkeypatch, capsys, name, module):
    import importlib

    tool = importlib.import_module(module)
    seen = []
    monkeypatch.setattr(tool, "main", lambda argv: seen.append(argv) or 0)
    rc, _, _ = run_cli(monkeypatch, capsys, [name, "--seed", "3", "--help"])
    assert rc == 0 and seen == [["--seed", "3", "--help"]]
    monkeypatch.undo()
    with pytest.raises(SystemExit):
        cli.main([name, "--help"])
    assert f"usage: sequence-game {name}" in capsys.readouterr().out


@pytest.mark.skipif(research_build(), reason="a product build's refusal")
def test_a_research_tool_in_a_product_build_ends_in_one_line_saying_how_to_get_it(monkeypatch, capsys):
    rc, out, err = run_cli(monkeypatch, capsys, ["fit-eval", "--games", "2"])
    assert rc == 2 and not out
    assert err.count("\n") == 1 and err.startswith("sequence-game fit-eval: sequence_game.research is part of the "
                                                    "research build: build with -DSEQUENCE_RESEARCH=ON")


def test_no_subcommand_prints_help(monkeypatch, capsys):
    rc, out, _ = run_cli(monkeypatch, capsys, [])
    assert rc == 2 and all(name in out for name in ("play", "demo", "arena", "replay", "bench", "tune", "fit-eval"))


# --------------------------------------------------------------------------- terminal rendering


def test_colour_is_used_on_a_terminal_and_no_color_is_honoured(monkeypatch, capsys):
    monkeypatch.setenv("FORCE_COLOR", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    _, out, _ = run_cli(monkeypatch, capsys, ["demo", "--seed", "2", "--engine", "reference", "--quiet"])
    assert ANSI_COLOUR.search(out)
    _, out, _ = run_cli(monkeypatch, capsys, ["demo", "--seed", "2", "--engine", "reference", "--quiet", "--no-color"])
    assert not ANSI_COLOUR.search(out)
    monkeypatch.setenv("NO_COLOR", "1")
    _, out, _ = run_cli(monkeypatch, capsys, ["demo", "--seed", "2", "--engine", "reference", "--quiet"])
    assert not ANSI_COLOUR.search(out)


def test_board_text_fits_a_small_terminal_and_marks_locks_and_last_move():
    from sequence_game.reference import Game

    g = Game(players=2, seed=1)
    import random

    rnd = random.Random(1)
    last = None
    while not g.sequences:
        last = rnd.choice(g.legal_moves())
        g.play(last)
    text = board_text(g, last_move=last).plain
    lines = text.splitlines()
    assert len(lines) == 11 and max(len(line) for line in lines) <= 50
    assert text.count("(") == sum(1 for r in range(10) for c in range(10) if g.locked((r, c)) and g.cell((r, c)) != "*")
    assert text.count(">") == 1
    assert "10\u2665" in text or "[" in text
    ascii_text = board_text(Game(players=2, seed=1), ascii=True).plain
    assert " TH" in ascii_text and "\u2665" not in ascii_text


# --------------------------------------------------------------------------- a real process


def test_python_m_sequence_game_demo_subprocess(tmp_path):
    pkg_root = os.path.dirname(os.path.dirname(sequence_game.__file__))
    env = dict(os.environ, PYTHONPATH=pkg_root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("FORCE_COLOR", None)
    argv = [sys.executable, "-m", "sequence_game", "demo", "--seed", "1"]
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"wins after \d+ turns|drawn after \d+ turns", proc.stdout)
    assert "\x1b[" not in proc.stdout  # not a terminal: plain text


# --------------------------------------------------------------------------- hostile input (docs/hardening.md H9)


def _cli_process(argv, stdin=b"", env_extra=None, timeout=120):
    pkg_root = os.path.dirname(os.path.dirname(sequence_game.__file__))
    env = dict(os.environ, PYTHONPATH=pkg_root + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env_extra or {}))
    env.pop("FORCE_COLOR", None)
    return subprocess.run([sys.executable, "-m", "sequence_game", *argv], input=stdin, capture_output=True,
                          env=env, timeout=timeout)


def _one_line_error(proc):
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode in (1, 2), (proc.returncode, err[-500:])
    assert "Traceback" not in err, err[-2000:]
    assert "error:" in err.strip().splitlines()[-1]
    return err


@pytest.mark.parametrize("argv", [
    ["demo", "--seed", "-1"], ["demo", "--seed", str(2**64)], ["demo", "--seed", "1_0"], ["demo", "--seed", "\u0661"],
    ["demo", "--seed", "0x10"], ["play", "--players", "2", "--teams", "3"], ["demo", "--players", "4", "--teams", "3"],
    ["demo", "--max-turns", "0"], ["demo", "--max-turns", "-5"], ["demo", "--max-turns", str(2**31)],
    ["play", "--max-turns", "0"], ["play", "--human", "-1"], ["play", "--human", "5"], ["arena", "greedy", "random",
    "--games", "0"], ["arena", "greedy", "random", "--seed", "-1"], ["demo", "--players", "\uff12"],
    ["play", "--hint-ai", "bogus"], ["play", "--ai", "bogus"], ["demo", "--agents", ",,"],
    ["demo", "--agents", "greedy", "--agent", "random"], ["replay", "/nonexistent/record.json"],
])
def test_bad_options_are_one_line_errors(argv, monkeypatch, capsys):
    """A usage error (exit 2, from argparse) or a CLIError (exit 1): one line, no traceback."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    try:
        rc = cli.main(argv)
    except SystemExit as e:
        rc = e.code
    err = capsys.readouterr().err
    assert rc in (1, 2)
    assert "Traceback" not in err and "error:" in err.strip().splitlines()[-1]
    assert len(err.strip().splitlines()[-1]) < 300


@pytest.mark.parametrize("how", ["no directory", "a directory", "read-only file system"])
def test_save_to_an_unwritable_path_fails_before_the_game(how, monkeypatch, capsys, tmp_path):
    path = {"no directory": str(tmp_path / "missing" / "game.json"), "a directory": str(tmp_path),
            "read-only file system": "/proc/sequence-game-record.json"}[how]
    for argv in (["demo", "--seed", "1", "--save", path], ["play", "--seed", "1", "--ai", "random", "--save", path]):
        rc, out, err = run_cli(monkeypatch, capsys, argv, stdin="quit\n")
        assert rc == 1 and "--save" in err
        assert "turn" not in out  # refused before anything was played or shown


def test_demo_agents_take_specs_with_options(monkeypatch, capsys):
    argv = ["demo", "--seed", "3", "--quiet", "--max-turns", "4", "--agents", "random:seed=5,greedy:seed=2,random"]
    rc, out, err = run_cli(monkeypatch, capsys, argv)
    assert rc == 0, err
    assert "P0 (blue) random:seed=5" in out and "P1 (green) greedy:seed=2" in out
    argv = ["demo", "--seed", "3", "--quiet", "--max-turns", "4", "--agent", "random:seed=5,foo=1"]
    rc, out, err = run_cli(monkeypatch, capsys, argv)
    assert rc == 1 and "foo" in err  # the whole spec reached the agent registry


@pytest.mark.parametrize("text, specs", [
    ("greedy,random", ["greedy", "random"]),
    ("mcts:iters=50,threads=2", ["mcts:iters=50,threads=2"]),
    ("mcts:iters=50,threads=2,greedy", ["mcts:iters=50,threads=2", "greedy"]),
    ("greedy, mcts:time=0.5 ,threads=2, random:seed=1,rollout",
     ["greedy", "mcts:time=0.5,threads=2", "random:seed=1", "rollout"]),
    ("a=1,greedy", ["a=1", "greedy"]),  # no spec before it: left for the registry to refuse
])
def test_split_agent_specs(text, specs):
    assert split_agent_specs(text) == specs


@pytest.mark.parametrize("digit", ["\u00b2", "\u0661", "\uff11", "\u2460", "\u0967"])
def test_which_one_prompt_refuses_non_ascii_digits(engine, monkeypatch, capsys, digit):
    board = _rows(a6="B", b6="B", c6="B", d6="B", f6="B")
    g = _session(engine, f"2H@e6\n{digit}\n2\nquit\n", monkeypatch, [["2H", "5S"], ["3S", "4S"]], board)
    out = capsys.readouterr().out
    assert "type a number from 1 to 2" in out
    assert g.sequences[0] == (0, ((5, 1), (5, 2), (5, 3), (5, 4), (5, 5)))


@pytest.mark.parametrize("stdin", [b"7H@d6\xff\xfe\nquit\n", b"\xc3\x28\n\x80\x81\nquit\n",
                                   b"\xff" * 5000 + b"\nquit\n",
                                   b"x" * 100_000 + b"\nquit\n", b"\x00\x01\x02\n", b"\xff"])
def test_play_survives_undecodable_or_endless_standard_input(stdin):
    # strict UTF-8, as under a UTF-8 locale (the C locale would read bytes as surrogate escapes)
    proc = _cli_process(["play", "--seed", "1", "--ai", "random", "--no-color"], stdin=stdin,
                        env_extra={"PYTHONIOENCODING": "utf-8:strict"})
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 0 and "Traceback" not in err, err[-2000:]


def test_play_echo_strips_escape_sequences():
    proc = _cli_process(["play", "--seed", "1", "--ai", "random", "--no-color"], stdin=b"\x1b[31mred\x07\nquit\n")
    assert proc.returncode == 0
    assert b"\x1b[31m" not in proc.stdout and b"\x07" not in proc.stdout


def test_replay_strips_control_characters_read_from_the_record(engine, monkeypatch, capsys, tmp_path):
    rec = GameRecord(players=2, teams=2, seed=1, agents=["\x1b]0;owned\x07evil\x1b[2J", "b\u202eidi"], moves=[])
    path = tmp_path / "r.json"
    rec.save(path)
    rc, out, err = run_cli(monkeypatch, capsys, ["replay", str(path), "--engine", engine, "--no-color"])
    assert rc == 0, err
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "evil" in out


@pytest.mark.parametrize("content", [
    b"[" * 200_000, b'{"format": "sequence-game-record/1", "players": ' + b"[" * 100_000, b"\xff\xfe\x00garbage",
    b"\x00" * 1000, b'{"format": "sequence-game-record/1", "players": 2, "teams": 2, "seed": 1, "moves": ["'
    + b"7" * 1_000_000 + b'"]}', b'{"format": 1' + b"9" * 10_000 + b"}",
])
def test_replay_of_a_hostile_file_is_a_one_line_error(content, monkeypatch, capsys, tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    rc, _, err = run_cli(monkeypatch, capsys, ["replay", str(path)])
    assert rc == 1 and "Traceback" not in err
    assert len(err) < 600


def test_replay_reads_at_most_the_record_size_limit(monkeypatch, capsys):
    from sequence_game import records

    monkeypatch.setattr(records, "MAX_RECORD_BYTES", 1000)
    rc, _, err = run_cli(monkeypatch, capsys, ["replay", "/dev/zero"])
    assert rc == 1 and "larger than" in err


@pytest.mark.parametrize("columns", ["0", "-5", "abc", "3", "\u0668\u0660"])
def test_a_useless_columns_value_still_prints(columns):
    proc = _cli_process(["demo", "--seed", "1", "--quiet", "--max-turns", "3", "--no-color"],
                        env_extra={"COLUMNS": columns})
    out = proc.stdout.decode()
    assert proc.returncode == 0 and "drawn after 3 turns" in out


@pytest.mark.parametrize("argv", [["play", "--seed", "1", "--ai", "random"], ["replay", "--step", "RECORD"]])
def test_no_standard_input_at_all(argv, tmp_path):
    """Started with standard input closed (sys.stdin is None): the session ends cleanly."""
    path = tmp_path / "r.json"
    GameRecord(players=2, teams=2, seed=1, moves=[]).save(path)
    argv = [str(path) if a == "RECORD" else a for a in argv]
    pkg_root = os.path.dirname(os.path.dirname(sequence_game.__file__))
    env = dict(os.environ, PYTHONPATH=pkg_root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh", sys.executable, "-m", "sequence_game", *argv],
                          capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
