"""The level ladder: the rule-based reference player (agents/rule_based.py), the human-like weak
player and the eight levels (agents/levels.py), the multi-player rating fit (arena/stats.py) and
the ``ladder`` command (arena/ladder.py, cli/ladder.py).

The measured table is in docs/measurements.md ("The level ladder"); here only what must hold on
every run: the tactics, determinism, specs, speed bounds are not timed (benchmarks/ does that).
"""

from __future__ import annotations

import pytest
from helpers import board_rows, random_midgame
from sequence_game import Move
from sequence_game.agents import agent_from_spec
from sequence_game.agents.levels import LEVELS, HumanLikeAgent, level_of
from sequence_game.agents.rule_based import RuleBasedAgent

HAND_B = ["2H", "4D", "5D", "9H", "KS", "QC", "AH"]


# --------------------------------------------------------------------------- the rule-based player


def test_rules_wins_when_it_can(Game):
    # Blue has one sequence (row 10) and b1-d1 plus the corner: 5S on e1 wins (R8); a block of
    # green's four (2H on e6) is on offer too.
    chips = {(9, c): "B" for c in range(1, 5)}
    chips.update({(0, c): "B" for c in range(1, 4)})
    chips.update({(5, c): "G" for c in range(4)})
    g = Game.from_dict({"players": 2, "board": board_rows(chips),
                        "sequences": [{"team": 0, "cells": [[9, 0], [9, 1], [9, 2], [9, 3], [9, 4]]}],
                        "hands": [["2H", "3C", "5S", "9D", "JD", "KS", "AH"], ["2S"]]})
    move = RuleBasedAgent(seed=0).select_move(g)
    g.play(move)
    assert g.winner == 0


@pytest.mark.parametrize("seed", range(5))
def test_rules_blocks_a_four_in_a_row_before_extending(Game, seed):
    chips = {(5, c): "G" for c in range(4)}  # green a6-d6: e6 (2H) is the gap
    chips.update({(2, c): "B" for c in range(1, 4)})  # blue b3-d3: 4D on e3 makes a four
    g = Game.from_dict({"players": 2, "board": board_rows(chips), "hands": [HAND_B, ["2S"]]})
    assert RuleBasedAgent(seed=seed).select_move(g) == Move("place", "2H", (5, 4))


def test_rules_removes_a_chip_of_a_four_when_no_card_reaches_the_gap(Game):
    chips = {(5, c): "G" for c in range(4)}
    g = Game.from_dict({"players": 2, "board": board_rows(chips),
                        "hands": [["3S", "4D", "5D", "9H", "JS", "KS", "AH"], ["2S"]]})
    move = RuleBasedAgent(seed=0).select_move(g)
    assert move.kind == "remove" and move.cell in [(5, c) for c in range(4)]


def test_rules_keeps_jacks_and_extends_its_longest_line(Game):
    # Blue b3-d3: 4D on e3 (or the second 4D cell) is the only card that makes it four.
    chips = {(2, c): "B" for c in range(1, 4)}
    g = Game.from_dict({"players": 2, "board": board_rows(chips),
                        "hands": [["3S", "4D", "6S", "9H", "JD", "JS", "AH"], ["2S"]]})
    for seed in range(5):
        move = RuleBasedAgent(seed=seed).select_move(g)
        assert (move.kind, move.card, move.cell) == ("place", "4D", (2, 4))


def test_rules_trades_a_dead_card_and_hint_matches_its_move(Game):
    from sequence_game import cells_of

    chips = dict.fromkeys(cells_of("7H"), "G")
    g = Game.from_dict({"players": 2, "board": board_rows(chips),
                        "hands": [["2S", "3S", "7H", "9D", "JD", "KS", "AH"], ["2H"]]})
    agent = RuleBasedAgent(seed=0)
    assert agent.select_move(g) == Move("trade", "7H") == agent.analyze(g).move


# --------------------------------------------------------------------------- the human-like player


def test_humanlike_that_never_notices_does_not_block(Game):
    chips = {(5, c): "G" for c in range(4)}
    chips.update({(2, c): "B" for c in range(1, 4)})
    g = Game.from_dict({"players": 2, "board": board_rows(chips), "hands": [HAND_B, ["2S"]]})
    blind = [HumanLikeAgent(notice=0, seed=s).select_move(g) for s in range(10)]
    sharp = [HumanLikeAgent(notice=1, seed=s).select_move(g) for s in range(10)]
    assert all(m == Move("place", "2H", (5, 4)) for m in sharp)
    assert all(m.cell == (2, 4) for m in blind)  # it extends its own line to four instead


def test_humanlike_completes_its_own_sequence_when_it_spots_it(Game):
    """``spot`` is the chance of seeing the sequence in one's own hand (R7): 1 always completes
    it (level 4 and up), level 3 on four turns in five; the beginner levels overlook it on most of
    their turns, level 1 always (it completes one only by picking that cell by chance)."""
    chips = {(2, c): "B" for c in range(1, 5)}  # blue b3-e3: 4D... f3 (5D) completes it
    chips.update({(5, c): "G" for c in range(4)})
    g = Game.from_dict({"players": 3, "board": board_rows(chips),
                        "hands": [["2S", "3S", "5D", "9H", "2H", "JD"], ["6S"], ["7S"]]})
    for seed in range(20):
        move = agent_from_spec("level:4", seed=seed).select_move(g)
        assert move.declares, (seed, move)
    learner = [bool(agent_from_spec("level:3", seed=s).select_move(g).declares) for s in range(200)]
    assert 0.7 < sum(learner) / 200 < 0.95  # spot=0.8, plus the odd chance pick of that cell
    novice = [bool(agent_from_spec("level:2", seed=s).select_move(g).declares) for s in range(200)]
    assert 0.12 < sum(novice) / 200 < 0.4  # spot=0.2
    assert sum(bool(agent_from_spec("level:1", seed=s).select_move(g).declares) for s in range(200)) < 30


def test_humanlike_without_jack_care_spends_a_wild_jack_on_an_ordinary_move(Game):
    chips = {(2, 2): "B"}
    g = Game.from_dict({"players": 2, "board": board_rows(chips),
                        "hands": [["2S", "3D", "4D", "6H", "8C", "JD", "KS"], ["2H"]]})
    careless = {HumanLikeAgent(jack_care=0, temperature=1000, candidates=12, seed=s).select_move(g).card
                for s in range(40)}
    careful = {HumanLikeAgent(jack_care=1, seed=s).select_move(g).card for s in range(40)}
    assert "JD" in careless and "JD" not in careful


def test_humanlike_is_deterministic_and_its_hint_is_its_own_move(Game):
    for k in range(6):
        g = random_midgame(Game, 2, seed=40 + k)
        if g is None:
            continue
        a, b = agent_from_spec("level:1", seed=k), agent_from_spec("level:1", seed=k)
        hint = a.analyze(g).move
        assert a.select_move(g) == b.select_move(g) == hint  # the hint did not use a's generator


@pytest.mark.parametrize("bad, err", [({"notice": 2}, ValueError), ({"notice": "x"}, TypeError),
                                      ({"jack_care": -1}, ValueError), ({"temperature": float("nan")}, ValueError),
                                      ({"candidates": 0}, ValueError), ({"seed": -1}, ValueError),
                                      ({"spot": 1.5}, ValueError), ({"spot": None}, TypeError)])
def test_humanlike_refuses_bad_options(bad, err):
    with pytest.raises(err):
        HumanLikeAgent(**bad)


@pytest.mark.parametrize("spec", ["rules", "level:1", "level:3"])
def test_rules_and_humanlike_ignore_hidden_information(Game, spec):
    """Other hands, the draw pile's order and the generator do not change their choice (R9)."""
    import random

    rng = random.Random(7)
    for k in range(6):
        g = random_midgame(Game, 2 + k % 2, seed=70 + k)
        if g is None:
            continue
        d = g.to_dict()
        me = d["current_player"]
        choice = agent_from_spec(spec, seed=3).select_move(g)
        for _ in range(3):
            e = dict(d)
            pool = [c for p, h in enumerate(d["hands"]) if p != me for c in h] + list(d["draw_pile"])
            rng.shuffle(pool)
            hands, i = [], 0
            for p, h in enumerate(d["hands"]):
                hands.append(list(h) if p == me else pool[i:i + len(h)])
                i += 0 if p == me else len(h)
            e["hands"], e["draw_pile"] = hands, pool[i:]
            e["rng"] = f"{rng.getrandbits(64):016x}"
            e["last_draw"] = None
            assert agent_from_spec(spec, seed=3).select_move(Game.from_dict(e)) == choice


# --------------------------------------------------------------------------- the levels


def test_eight_levels_with_easy_medium_hard_among_them():
    assert [lv.number for lv in LEVELS] == list(range(1, 9))
    assert (level_of("easy").number, level_of("medium").number, level_of("hard").number) == (6, 7, 8)
    assert level_of("level:3") is level_of(3) is LEVELS[2]
    for bad in (0, 9, "level:x", "hardest", None, 2.5):
        with pytest.raises(ValueError, match="a level is a number from 1 to 8"):
            level_of(bad)


@pytest.mark.parametrize("n", range(1, 9))
def test_level_spec_builds_the_level_and_keeps_its_name(n):
    agent = agent_from_spec(f"level:{n}", seed=3)
    assert agent.name == f"level:{n}"
    same = agent_from_spec(LEVELS[n - 1].spec, seed=3)
    assert repr(agent) == repr(same)


def test_level_options_override_the_level():
    assert agent_from_spec("level:8,time=0.25").options.time_limit == 0.25
    assert agent_from_spec("level:8,iters=50").options.iterations == 50
    assert agent_from_spec("level:2,seed=9").seed == 9
    with pytest.raises(ValueError, match="level:N"):
        agent_from_spec("level")
    with pytest.raises(ValueError, match="level:12"):
        agent_from_spec("level:12")


@pytest.mark.parametrize("spec", ["rules", "level:1", "level:4", "level:6", "level:7", "level:8,iters=200"])
@pytest.mark.parametrize("players, teams", [(2, None), (3, None), (4, None), (6, 3)])
def test_levels_play_legal_moves_in_every_table(Game, spec, players, teams):
    g = Game(players=players, teams=teams, seed=11)
    agents = [agent_from_spec(spec, seed=p) for p in range(players)]
    for _ in range(60):
        if g.is_over:
            break
        move = agents[g.current_player].select_move(g)
        assert move in g.legal_moves()
        g.play(move)


def test_level_one_loses_most_games_to_the_rule_based_player():
    """The beginner target of the ladder, on a fixed sample (the measured rate and its interval:
    docs/measurements.md)."""
    from sequence_game.arena import match

    r = match(["level:1", "rules"], games=40, seed=3)
    assert r.wins[1] > 0.6 * r.games


# --------------------------------------------------------------------------- the ladder command


def test_ladder_groups_span_and_three_teams(tmp_path):
    from sequence_game.arena.ladder import Ladder

    agents = ["random", "rules", "level:1", "level:2"]
    assert len(Ladder(agents, str(tmp_path)).groups()) == 6
    assert Ladder(agents, str(tmp_path), span=1).groups() == [
        ("random", "rules"), ("rules", "level:1"), ("level:1", "level:2")]
    assert len(Ladder(agents, str(tmp_path), players=3).groups()) == 4
    for bad in ({"agents": ["random", "random"]}, {"agents": ["random"]}, {"span": 1, "players": 3},
                {"games": 0}):
        with pytest.raises(ValueError):
            Ladder(**{"agents": agents, "folder": str(tmp_path), **bad})


def test_ladder_command_resumes_and_writes_table_picture_ratings(monkeypatch, capsys, tmp_path):
    import json

    from sequence_game.arena import read_results
    from sequence_game.cli import main

    out = tmp_path / "lad"
    args = ["ladder", "random", "rules", "level:1", "--games", "4", "--batch", "2", "--out", str(out)]
    assert main(args) == 0
    files = sorted(p.name for p in out.glob("*.jsonl"))
    assert files == ["random__level_1.jsonl", "random__rules.jsonl", "rules__level_1.jsonl"]
    path = out / "random__rules.jsonl"

    def games():
        return [(e["index"], e["moves"], e["winner"]) for e in read_results(str(path))[1]]

    first = games()
    assert len(first) == 4
    # a stopped run: drop the last game of one file; the next run plays only that game again
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]))
    assert main(args) == 0
    assert games() == first  # the same game, replayed from its seeds
    text = capsys.readouterr().out
    assert "| `rules` |" in text and "(anchor)" in text
    table = (out / "ladder.md").read_text()
    assert table.startswith("| agent | rating |") and table.count("\n") == 5
    assert "| `level:1 (beginner)` |" in table
    svg = (out / "ladder.svg").read_text()
    assert svg.startswith("<svg") and svg.count("<circle") == 3
    import xml.etree.ElementTree as ET

    ET.fromstring(svg)  # well-formed
    ratings = json.loads((out / "ratings.json").read_text())
    assert ratings["anchor"] == "random" and ratings["ratings"]["random"]["rating"] == 0
    assert ratings["games"] == 12


def test_ladder_command_refuses_bad_input(capsys, tmp_path):
    from sequence_game.cli import main

    assert main(["ladder", "nonsense", "--out", str(tmp_path)]) != 0
    assert main(["ladder", "--fit-only", "--out", str(tmp_path / "missing")]) != 0
    assert main(["ladder", "--fit-only", "--out", str(tmp_path)]) != 0
    err = capsys.readouterr().err
    assert "unknown agent 'nonsense'" in err and "cannot read the ladder folder" in err and "no games in" in err


def test_rating_note_names_the_level():
    from sequence_game.agents.levels import rating_note

    assert rating_note("level:3").startswith("level 3, learner")
    assert rating_note("hard").startswith("level 8, hard")
    assert rating_note("level:3,notice=1") == "" and rating_note("mcts:iters=5") == ""


def test_an_uncapped_search_is_rated_under_its_level(tmp_path):
    from sequence_game.arena import match
    from sequence_game.arena.ladder import fit_folder, rated_name

    assert rated_name("level:8,time=none") == "level:8"
    assert rated_name("level:8,time=0.5") == "level:8,time=0.5"  # a cap that binds is another player
    assert rated_name("random") == "random"
    match(["random", "level:8,iters=30,time=none"], games=2, seed=1, results=str(tmp_path / "a.jsonl"))
    assert set(fit_folder(str(tmp_path)).names) == {"random", "level:8,iters=30"}


def test_ladder_table_lists_each_levels_step_over_the_level_below():
    """The targets are steps between levels, with the reference players between them aside: the
    table's second part gives each level over the next lower level with the difference's interval."""
    from sequence_game.arena.ladder import ladder_table
    from sequence_game.arena.stats import fit_ratings

    # level:1 beats random 3 of 4; level:2 beats level:1 3 of 4; rules sits between them
    results = []
    for winner, loser, n in (("level:1", "random", 30), ("random", "level:1", 10), ("level:2", "level:1", 30),
                             ("level:1", "level:2", 10), ("rules", "level:1", 20), ("level:1", "rules", 20),
                             ("level:2", "rules", 20), ("rules", "level:2", 20)):
        results += [((winner, loser), winner)] * n
    fit = fit_ratings(results)
    table = ladder_table(fit)
    steps = [line for line in table.splitlines() if " over `" in line]
    assert len(steps) == 1 and steps[0].startswith("| `level:2 (novice)` over `level:1 (beginner)` |")
    d, (lo, hi) = fit.difference("level:2", "level:1")
    assert f"| {d:+.0f} | [{lo:+.0f}, {hi:+.0f}]" in steps[0] and d > 0
