"""Difficulty presets easy/medium/hard (python/sequence_game/agents/presets.py; ``max`` another name of hard): specs, legal
play for every preset, the tactics the weakest one must never miss (R7 sequences, R8 wins) and
the ones it misses as often as its flaws say (blocks).

The measured ladder (each level against the next and against GreedyAgent) is in docs/measurements.md.
"""

from __future__ import annotations

import pathlib
import re

import pytest
from helpers import board_rows, random_midgame
from sequence_game import Move
from sequence_game.agents import GreedyAgent, agent_from_spec
from sequence_game.agents.levels import LEVELS, level_of
from sequence_game.agents.presets import ALIASES, DIFFICULTIES, PRESETS

SEEDS = range(40)  # easy draws among near-best moves: every seed must still find the forced move


def _options(agent):
    """What fixes an agent's play: the search options, or the heuristic's noise settings."""
    if hasattr(agent, "options"):
        return repr(agent.options)
    return (type(agent).__name__, agent.temperature, agent.candidates)


# --------------------------------------------------------------------------- specs


def test_presets_are_the_three_difficulties_weakest_first():
    assert DIFFICULTIES == ("easy", "medium", "hard")
    searches = [PRESETS[n].options["iterations"] for n in DIFFICULTIES if PRESETS[n].time_cap is not None]
    assert searches == sorted(searches) and len(set(searches)) == len(searches)


def test_max_is_another_name_of_hard():
    """``max`` measured no stronger than ``hard`` (the ladder, docs/measurements.md): one level."""
    assert ALIASES == {"max": "hard"}
    hard, alias = agent_from_spec("hard", seed=4), agent_from_spec("max", seed=4)
    assert alias.name == "max" and _options(alias) == _options(hard)
    assert agent_from_spec("max:iters=123").options.iterations == 123


@pytest.mark.parametrize("name", DIFFICULTIES)
def test_preset_spec_round_trip(name):
    agent = agent_from_spec(name, seed=4)
    assert agent.name == name
    # the spec written out in full builds the same player, and so does the agent's own name
    assert _options(agent_from_spec(PRESETS[name].spec)) == _options(agent)
    assert _options(agent_from_spec(agent.name)) == _options(agent)
    assert agent_from_spec(f"{name}:seed=9").seed == 9


def test_preset_options_override_the_preset():
    hard = agent_from_spec("hard:time=0.25")
    assert hard.options.time_limit == 0.25 and hard.options.iterations == PRESETS["hard"].options["iterations"]
    assert agent_from_spec("easy:temperature=0").temperature == 0.0
    # the cap bounds the search in time; the budget is iterations (the same moves on any machine)
    opts = agent_from_spec("hard").options
    assert opts.iterations == PRESETS["hard"].options["iterations"] and opts.time_limit == PRESETS["hard"].time_cap


# Where the docs give hard's time cap a figure: "(cap 1 s)", "capped at 1 s", "within 1 s a move",
# "stops at 1 s", "a time cap (1 s for `hard`)"
_CAP_FIGURE = re.compile(r"(?:\bcap(?:ped)?(?: at| of)?|time cap \(|stops at|at most|within) ?([0-9]+(?:\.[0-9]+)?) s\b")
_HARD = re.compile(r"`hard`|\bhard's\b|\"hard\"|level:8|level 8")


def _doc_units(path):
    """A page's paragraphs and table rows, each one string (a figure belongs to what it sits in)."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)  # code sets its own limits
    for block in re.split(r"\n\s*\n", text):
        rows = block.splitlines()
        if rows and all(r.lstrip().startswith("|") for r in rows):
            yield from rows
        else:
            yield " ".join(rows)


def test_the_docs_give_hards_time_cap_as_the_preset_has_it():
    """One figure for hard's time cap: the levels' table of docs/agents.md states it (its home), and
    any other page that names a figure for it names the preset's (presets.py), never another."""
    cap = PRESETS["hard"].time_cap
    docs = pathlib.Path(__file__).resolve().parent.parent / "docs"
    row = next(u for u in _doc_units(docs / "agents.md") if u.startswith("| `level:8`"))
    assert [float(x) for x in _CAP_FIGURE.findall(row)] == [cap] * 3, row
    wrong = []
    for page in sorted(docs.glob("**/*.md")):
        if "research" in page.parts:  # the research notes record what was run then, as it was
            continue
        for unit in _doc_units(page):
            if _HARD.search(unit):
                wrong += [f"{page.relative_to(docs)}: {x} s in {unit.strip()[:100]!r}"
                          for x in _CAP_FIGURE.findall(unit) if float(x) != cap]
    assert not wrong, f"hard's time cap is {cap:g} s (agents/presets.py): " + "; ".join(wrong)
    assert f"at most {cap:g} s" in level_of("hard").time


@pytest.mark.parametrize("spec,words", [
    ("easy:time=1", ["easy:time=1", "time"]),  # the heuristic has no time budget
    ("hard:iters=0", ["hard:iters=0", "iterations"]),
    ("easy:temperature=-1", ["temperature", ">= 0"]),
    ("easy:candidates=0", ["candidates", "1 to 64"]),
])
def test_bad_preset_options_are_refused_with_the_spec(spec, words):
    with pytest.raises(ValueError) as e:
        agent_from_spec(spec)
    for w in words:
        assert w in str(e.value)


# --------------------------------------------------------------------------- legal play


@pytest.mark.parametrize("players,teams", [(2, None), (3, None), (4, None), (6, 3)])
@pytest.mark.parametrize("name", DIFFICULTIES)
def test_every_preset_plays_legal_moves(Game, name, players, teams):
    positions = [random_midgame(Game, players, teams, seed=s) for s in range(3 if name in ("easy", "medium") else 1)]
    for g in filter(None, positions):
        before = g.to_dict()
        move = agent_from_spec(name, seed=1).select_move(g)
        assert isinstance(move, Move) and move in g.legal_moves(), (name, str(move))
        assert g.to_dict() == before


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("level", LEVELS, ids=lambda lv: lv.name)
def test_r9_no_level_reads_a_card_its_player_may_not_see(level, players):
    """Whatever agent a level builds (the top level's search included, at its own budget) reports the
    same analysis in two games that differ only in the cards the player to move cannot see: the other
    hands, the draw pile's order and the generator."""
    from sequence_game import Game
    from test_mcts import _redeal_hidden, _stats

    spec = level.name + (",time=none" if PRESETS.get(level.spec, PRESETS["easy"]).time_cap is not None else "")
    g = random_midgame(Game, players, seed=7 + players, max_plies=40)
    assert g is not None
    d = g.to_dict()
    d["last_draw"] = None  # another player's last drawn card is hidden from the player to move
    base = Game.from_dict(d)
    me = base.current_player
    report = _stats(agent_from_spec(spec, seed=3).analyze(base))
    assert report  # the moves it weighed, with their scores: something to compare
    for k in range(2):
        other = Game.from_dict(_redeal_hidden(d, me, 50 + k))
        assert other.observation(me) == base.observation(me) and other.to_dict() != base.to_dict()
        assert _stats(agent_from_spec(spec, seed=3).analyze(other)) == report, (level.name, players)


@pytest.mark.parametrize("players,teams", [(2, None), (3, None), (4, None)])
def test_easy_plays_whole_games_against_medium(Game, players, teams):
    g = Game(players=players, teams=teams, seed=11, max_turns=300)
    seats = [agent_from_spec("easy" if p % 2 == 0 else "medium", seed=p) for p in range(players)]
    while not g.is_over:
        g.play(seats[g.current_player].select_move(g))
    assert g.winner is not None or g.is_draw


# --------------------------------------------------------------------------- easy and medium: weaker, never silly


def _win_in_one(Game):
    # Blue has one sequence (row 10); 5S on e1 completes a1-e1 (corner a1 counts, R7), the second
    # sequence: the game (R8). Blocks and jacks on offer as distractions.
    chips = {(9, c): "B" for c in range(1, 5)}
    chips.update({(0, c): "B" for c in range(1, 4)})
    chips.update({(5, c): "G" for c in range(4)})
    return Game.from_dict({
        "players": 2, "board": board_rows(chips),
        "sequences": [{"team": 0, "cells": [[9, 0], [9, 1], [9, 2], [9, 3], [9, 4]]}],
        "hands": [["2H", "3C", "5S", "9D", "JD", "KS", "AH"], ["2S", "3S", "4S", "6S", "7S", "8S", "9S"]],
    })


def test_r8_easy_never_misses_a_win_in_one(Game):
    g = _win_in_one(Game)
    for seed in SEEDS:
        move = agent_from_spec("easy", seed=seed).select_move(g)
        after = g.copy()
        after.play(move)
        assert after.winner == 0, (seed, str(move))


def test_r7_easy_completes_a_sequence_when_it_can(Game):
    # c4..f4 blue (row 4); 2C on g4 or KS on b4 completes a sequence (not yet the game, R8).
    g = Game.from_dict({"players": 2, "board": board_rows({(3, c): "B" for c in range(2, 6)}),
                        "hands": [["2C", "3S", "4D", "5D", "9H", "QC", "AH"], ["6S"]]})
    for seed in SEEDS:
        move = agent_from_spec("easy", seed=seed).select_move(g)
        assert (move.card, move.cell) == ("2C", (3, 6)) and move.declares, (seed, str(move))


# Both presets notice the other side's lines only some of the time (``notice``): 0.6 for easy, 0.9
# for medium, drawn once per decision. Over 200 seeds the share of blocks must match it: never
# (the rule-blindness of a broken R7/R8 check) and always (no flaw at all) both fail.
BLOCK_SHARES = {"easy": (0.45, 0.75), "medium": (0.8, 0.98)}


def _block_share(name, g, blocks):
    return sum(bool(blocks(agent_from_spec(name, seed=s).select_move(g))) for s in range(200)) / 200


@pytest.mark.parametrize("name", ["easy", "medium"])
@pytest.mark.parametrize("green_sequences", [0, 1])
def test_r7_r8_presets_block_a_four_as_often_as_they_notice(Game, name, green_sequences):
    # Green holds a6-d6; e6 (2H) is the gap. Blue has the 2H among cards that extend its own three.
    chips = {(5, c): "G" for c in range(4)}
    chips.update({(2, c): "B" for c in range(1, 4)})
    seqs = []
    if green_sequences:  # then the four would win green the game (R8)
        chips.update({(9, c): "G" for c in range(1, 5)})
        seqs = [{"team": 1, "cells": [[9, 0], [9, 1], [9, 2], [9, 3], [9, 4]]}]
    g = Game.from_dict({"players": 2, "board": board_rows(chips), "sequences": seqs,
                        "hands": [["2H", "4D", "5D", "9H", "KS", "QC", "AH"], ["2S"]]})
    low, high = BLOCK_SHARES[name]
    assert low <= _block_share(name, g, lambda m: m == Move("place", "2H", (5, 4))) <= high


@pytest.mark.parametrize("name", ["easy", "medium"])
def test_r5_r7_presets_break_a_four_with_a_one_eyed_jack_as_often_as_they_notice(Game, name):
    chips = {(5, c): "G" for c in range(4)}
    chips[(7, 5)] = "G"
    g = Game.from_dict({"players": 2, "board": board_rows(chips),
                        "hands": [["3S", "4D", "5D", "9H", "JS", "KS", "AH"], ["2S"]]})
    low, high = BLOCK_SHARES[name]
    assert low <= _block_share(name, g, lambda m: m.kind == "remove" and m.cell in [(5, c) for c in range(4)]) <= high


@pytest.mark.parametrize("name", ["easy", "medium"])
def test_r8_presets_block_a_four_in_a_three_player_game(Game, name):
    # Three players, one sequence wins (R8): red's (team 2) four in column 1 must be blocked by
    # seat 0 now, whatever its own prospects.
    chips = {(r, 1): "R" for r in range(2, 6)}  # b3..b6; b7 (9S, (6,1)) or b2 (5C, (1,1)) completes
    chips.update({(2, c): "B" for c in range(3, 6)})
    g = Game.from_dict({"players": 3, "board": board_rows(chips),
                        "hands": [["9S", "2D", "6D", "8C", "KH", "QH"], ["2S"], ["3S"]]})
    low, high = BLOCK_SHARES[name]
    assert low <= _block_share(name, g, lambda m: (m.card, m.cell) == ("9S", (6, 1))) <= high


@pytest.mark.parametrize("name", ["easy", "medium"])
def test_presets_choose_among_the_heuristics_best_moves_when_they_notice(Game, name):
    """The noise is real (a preset does not always play the best move) and limited: when it
    notices the other side's lines and values its jacks as greedy does, every choice is one of the
    ``candidates`` best distinct moves by GreedyAgent's score."""
    from sequence_game.agents import HumanLikeAgent

    options = dict(PRESETS[name].options, notice=1.0, jack_care=1.0)
    differs = 0
    positions = [random_midgame(Game, 2, None, seed=100 + s, max_plies=60) for s in range(40)]
    for i, g in enumerate(p for p in positions if p is not None):
        if any(m.kind == "trade" for m in g.legal_moves()):
            continue
        scored = sorted(GreedyAgent().score_moves(g), key=lambda sm: -sm[0])
        top = [m for _, m in scored[: options["candidates"]]]  # ties keep legal-move order, as the agent's
        move = HumanLikeAgent(**options, seed=i).select_move(g)
        assert move in top, str(move)
        differs += move != GreedyAgent(seed=i).select_move(g) and scored[0][0] > scored[1][0]
    assert differs >= 3


def test_easy_is_reproducible_per_seed(Game):
    g = random_midgame(Game, 2, None, seed=7, max_plies=30)
    picks = [str(agent_from_spec("easy", seed=5).select_move(g)) for _ in range(2)]
    assert picks[0] == picks[1]
