"""The review (sequence_game.review): graded decisions, the public curve, events, the command."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from sequence_game import GameRecord
from sequence_game.agents import GreedyAgent, RandomAgent
from sequence_game.records import play_game, resignation_result

pytest.importorskip("sequence_game._core")

from sequence_game.review import TIERS, analyze, curve, move_values, review_game, tier_of, win_chance


def _record(seed: int, first: object = None) -> GameRecord:
    return play_game([first or RandomAgent(seed=1), GreedyAgent(seed=2)], players=2, seed=seed)


def _resigned(seed: int, moves: int, seat: int) -> GameRecord:
    rec = _record(seed)
    cut = GameRecord(players=2, teams=2, seed=seed, moves=rec.moves[:moves])
    game = cut.replay()
    return GameRecord(players=2, teams=2, seed=seed, moves=cut.moves, result=resignation_result(game, seat),
                      resigned=seat)


def test_the_same_record_gives_the_same_review():
    rec = _record(3)
    a, b = review_game(rec), review_game(rec)
    assert a == b and a.to_dict() == b.to_dict()
    assert [m.move for m in a.moves] == rec.moves
    assert [m.index for m in a.moves] == list(range(1, len(rec.moves) + 1))


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_two_team_curves_sum_to_one_and_end_at_the_result(seed):
    rec = _record(seed)
    review = review_game(rec)
    assert len(review.curve) == len(rec.moves) + 1
    for point in review.curve:
        assert len(point) == 2 and abs(sum(point) - 1) < 1e-9 and all(0 <= c <= 1 for c in point)
    assert rec.result is not None and rec.result["winner"] is not None
    assert review.curve[-1][rec.result["winner"]] == 1.0
    assert curve(rec) == [list(c) for c in review.curve]


def test_a_played_move_never_beats_the_best():
    """Both moves are valued by one estimator in one view: the played move is one of the moves
    valued, so it can never score above the best (the noise of two searches is gone)."""
    for seed in (3, 6):
        for m in review_game(_record(seed)).moves:
            if m.kind == "move":
                assert m.loss is not None and m.before is not None and m.after is not None
                assert m.loss >= 0 and m.after <= m.before + 1e-9
                assert (m.tier is None) == (m.loss < TIERS[-1][1])
                assert m.accuracy is not None and 0 <= m.accuracy <= 100


def test_a_resigned_game_names_the_resignation_and_blames_no_move_for_it():
    rec = _resigned(7, 20, seat=0)
    review = review_game(rec)
    assert review.events == ({"kind": "resignation", "after": 20, "player": 0, "team": 0, "winner": 1},)
    assert review.curve[-1] == (0.0, 1.0)  # scored by the result
    assert len(review.curve) == len(rec.moves) + 2
    last = review.moves[-1]
    # the last ordinary move is graded as any other move: the resignation's cost is not put on it
    alone = review_game(GameRecord(players=2, teams=2, seed=7, moves=rec.moves)).moves[-1]
    assert last == alone and (last.after is None or last.after > 0.0)


def test_a_missed_win_loses_points_with_the_winning_move_best():
    """R8: a move that completes the last sequence wins at once (valued 1); playing anything else
    there gives that certain win up for a chance (the opponent may block), graded by what it lost."""
    for seed in range(3, 40):
        rec = play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], players=2, seed=seed)
        if rec.result is None or rec.result["winner"] is None:
            continue
        game = GameRecord(players=2, teams=2, seed=seed, moves=rec.moves[:-1]).replay()
        winning = rec.moves[-1]
        others = [str(m) for m in game.legal_moves() if not str(m).startswith(winning.split()[0])]
        if not others:
            continue
        missed = GameRecord(players=2, teams=2, seed=seed, moves=[*rec.moves[:-1], others[0]])
        move = review_game(missed).moves[-1]
        assert move.before == 1.0 and move.best is not None and move.best.split()[0] == winning.split()[0]
        assert move.after is not None and move.after < 1.0 and move.loss == pytest.approx(1.0 - move.after)
        assert move.tier == tier_of(move.loss) and move.accuracy is not None and move.accuracy < 100
        return
    pytest.fail("no greedy game in seeds 3..39 with an alternative to its winning move")


def test_forced_moves_and_trades_are_not_graded():
    for seed in range(3, 30):
        review = review_game(_record(seed))
        for m in review.moves:
            if m.kind in ("forced", "trade"):
                assert m.before is m.after is m.loss is m.tier is m.accuracy is None
        if any(m.kind == "trade" for m in review.moves):
            return
    pytest.fail("no game with a dead-card trade in seeds 3..29")


def test_players_get_accuracy_and_tier_counts():
    review = review_game(_record(3))
    for p in review.players:
        graded = [m for m in review.moves if m.player == p["player"] and m.kind == "move"]
        assert p["graded"] == len(graded)
        for name, _ in TIERS:
            assert p[name] == sum(m.tier == name for m in graded)
        assert p["accuracy"] == pytest.approx(sum(m.accuracy for m in graded) / len(graded), abs=0.06)


def test_tiers_are_ordered_and_read_from_the_model():
    names = [n for n, _ in TIERS]
    assert names == ["blunder", "mistake", "inaccuracy"]
    assert TIERS[0][1] > TIERS[1][1] > TIERS[2][1] > 0
    assert tier_of(TIERS[0][1]) == "blunder" and tier_of(0.0) is None


def test_win_chance_views_and_bad_input():
    from sequence_game import Game

    g = Game(players=2, seed=5)
    for _ in range(10):
        g.play(g.legal_moves()[0])
    assert abs(win_chance(g, 0) + win_chance(g, 1) - 1) < 1e-9
    assert abs(win_chance(g, 0, viewer=0) + win_chance(g, 1, viewer=0) - 1) < 1e-9
    assert analyze(g)["view"] == "public" and abs(sum(analyze(g)["chances"]) - 1) < 1e-3
    with pytest.raises(ValueError, match="team must be from 0 to 1"):
        win_chance(g, 2)
    with pytest.raises(ValueError, match="viewer must be a seat"):
        win_chance(g, 0, viewer=5)
    with pytest.raises(TypeError, match=r"sequence_game\.Game"):
        win_chance(object(), 0)
    with pytest.raises(TypeError, match="GameRecord"):
        review_game("game.json")  # type: ignore[arg-type]


def test_the_public_view_reads_no_hand():
    """R9: two games that differ only in the hidden cards get the same public chances. (A position
    carries no move history: both are given the game's play quality, which reads no hand either,
    tests/test_win_chance.py.)"""
    from sequence_game import Game
    from sequence_game.review.estimator import feature_rows, play_quality

    g = Game(players=2, seed=5)
    for _ in range(12):
        g.play(g.legal_moves()[0])
    pos = g._state.to_position()
    pos["hands"][0], pos["hands"][1] = pos["hands"][1], pos["hands"][0]
    pos["last_draw"] = None
    from sequence_game import _core
    other = _core.Game.from_position(pos)
    quality = play_quality(g)
    assert (feature_rows(g._state, quality=quality) == feature_rows(other, quality=quality)).all()


def test_the_mover_view_of_a_team_game_reads_no_partner_hand():
    from sequence_game import Game
    from sequence_game.review.estimator import feature_rows, play_quality

    g = Game(players=4, seed=6)
    for _ in range(12):
        g.play(g.legal_moves()[0])
    pos = g._state.to_position()
    pos["hands"][2] = list(reversed(pos["hands"][2]))  # the same partner's hand: same features
    from sequence_game import _core
    quality = play_quality(g)  # a position carries no history: give it the game's play quality
    rows = feature_rows(g._state, viewer=0, quality=quality)
    assert rows.shape[0] == 2 and (rows[1, -9:] == 0).all()  # hand features only in the viewer's row
    swapped = g._state.to_position()
    swapped["hands"][2], swapped["hands"][3] = swapped["hands"][3], swapped["hands"][2]  # partner <-> opponent
    swapped["last_draw"] = None
    assert (feature_rows(_core.Game.from_position(swapped), viewer=0, quality=quality)[0] == rows[0]).all()


def test_move_values_cover_every_legal_move():
    from sequence_game import Game

    g = Game(players=2, seed=8)
    values = move_values(g)
    assert sorted(values) == sorted(g.legal_move_ids()) and all(0 <= v <= 1 for v in values.values())


def test_the_review_command_prints_grades_and_json(tmp_path):
    path = tmp_path / "game.json"
    rec = _resigned(7, 20, seat=0)
    rec.save(path)
    run = [sys.executable, "-m", "sequence_game", "review", str(path)]
    proc = subprocess.run([*run, "--json"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data == json.loads(json.dumps(review_game(rec).to_dict()))
    assert data["events"][0]["kind"] == "resignation" and "accuracy" in data["players"][0]
    text = subprocess.run(run, capture_output=True, text=True, timeout=300)
    assert text.returncode == 0, text.stderr
    assert "P0 resigned: team 1 wins" in text.stdout and "accuracy" in text.stdout
    for p in data["players"]:  # each player's counts, in words that agree with the number
        blunders = f"{p['blunder']} blunder" + ("" if p["blunder"] == 1 else "s")
        mistakes = f"{p['mistake']} mistake" + ("" if p["mistake"] == 1 else "s")
        assert re.search(rf"P{p['player']} \(team {p['team']}\): .*{mistakes}, {blunders}\n", text.stdout)
    bad = subprocess.run([*run[:-1], str(tmp_path / "missing.json")], capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0 and "missing.json" in bad.stderr


def test_a_timeout_move_is_an_event_and_not_graded():
    rec = _record(3)
    review = review_game(rec, timeouts=[5])
    assert review.moves[4].kind == "timeout" and review.moves[4].tier is None and review.moves[4].loss is None
    assert {"kind": "timeout", "after": 4, "player": review.moves[4].player, "move": rec.moves[4]} in review.events
    assert review.players != review_game(rec).players or review.moves[4] != review_game(rec).moves[4]
    for bad in (0, len(rec.moves) + 1, True, "5"):
        with pytest.raises(ValueError, match="timeouts must be move numbers"):
            review_game(rec, timeouts=[bad])  # type: ignore[list-item]


def test_a_records_timeouts_are_read_back_checked_and_reviewed():
    rec = _record(3)
    rec.timeouts = [2, 5]
    back = GameRecord.from_json(rec.to_json())
    assert back.timeouts == [2, 5] and "timeouts" not in _record(3).to_dict()
    assert [m.kind for m in review_game(back).moves][1] == "timeout"  # the record's own, by default
    assert review_game(back, timeouts=[]).moves[1].kind != "timeout"
    for bad in ([0], [len(rec.moves) + 1], [5, 2], [2, 2], "2", [True]):
        data = dict(rec.to_dict(), timeouts=bad)
        with pytest.raises(ValueError, match="timeouts"):
            GameRecord.from_dict(data)


# Positions built by hand where the answer is certain: a win in hand, a double threat whose filling
# cards are on the discard piles, a block the mover must make.

ISSUE_SEED = 898120036065041685
ISSUE_MOVES = ("9S@i1 5H@e5 2D@c3 4D@e3 2H@e6 7H@d6 6S@f1 JC@f4 6H@d5 JD@g3 TH@f7 5D@f3 AD@g8 2C@g4 4C@e4 3D@d3 "
               "3H@f6 KH@g6 9H@i3 6C@c4 8H@i4 2H@h9 3H@i9 9H@e7 7C@c5 AS@j5 9D@h5 5S@e1 TD@h6 8D@h4 4H@f5 QS@b5 "
               "8C@c6 KC@a8 9C@c7 QD@d10 6S@c9 QC@d8 7D@h3 5S@d9 8S@h1 TC@c8 7S@g1 2S@g9 4S@e9 TD@e10 AD@b10 "
               "3C@d2 2D@j6 7S@b9 QC@a7 3S@c1 2S@b1 AS@b3 QH@g7 AC@f8 9S@b7 TC@a6 TH@i2 TS@b6 6H@i6 AH@g5 4H@i8 "
               "8S@b8 5H@i7 6D@i10")


def _board(chips: dict) -> list:
    """A board (docs/state-format.md) with ``chips`` ({"i1": "B", ...}) on it."""
    from sequence_game.cards import parse_cell

    rows = [list("*........*"), *(list("..........") for _ in range(8)), list("*........*")]
    for name, team in chips.items():
        r, c = parse_cell(name)
        rows[r][c] = team
    return ["".join(r) for r in rows]


def _position(chips: dict, hands: list, discards: list | None = None, sequences: list | None = None):
    from sequence_game import Game

    pos = {"format": "sequence-game/1", "players": 2, "teams": 2, "board": _board(chips), "hands": hands,
           "discards": discards or [[], []], "sequences": sequences or [], "current_player": 0}
    return Game.from_dict(pos)


def _comb_any(k: int, n: int, h: int) -> float:
    import math

    return 1.0 - math.comb(n - k, h) / math.comb(n, h)


def test_the_issue_position_is_won_for_the_mover_and_likely_in_public():
    """R7, R8: blue holds 7H for i5 between i1-i4 and i6-i9: two sequences at once, the win."""
    from sequence_game import Game
    from sequence_game.review.threats import completions, winning_cells

    g = Game(players=2, seed=ISSUE_SEED)
    for m in ISSUE_MOVES.split():
        g.play(m)
    assert g.current_player == 0 and "7H" in g.hand(0)
    assert 48 in winning_cells(g, 0) and completions(g, 0)[48] == 2  # i5 (row 5, column i): two at once
    assert win_chance(g, 0, viewer=0) == pytest.approx(1.0)
    assert win_chance(g, 0) >= 0.5


def test_a_win_in_hand_is_worth_one_to_the_mover():
    """R7, R8: four and four in a line with the middle empty and its card in hand."""
    from sequence_game.review.threats import holds_win, win_now_chance, winning_cells

    chips = {**{f"i{r}": "B" for r in (1, 2, 3, 4, 6, 7, 8, 9)}, **dict.fromkeys(("a2", "b3", "c4", "d5", "e6")[:3], "G")}
    hands = [["7H", "2S", "3S", "4S", "5S", "6S", "8C"], ["2D", "3D", "4D", "5D", "6D", "7D", "9D"]]
    g = _position(chips, hands)
    assert winning_cells(g, 0) == (48,) and winning_cells(g, 1) == ()
    assert win_now_chance(g, viewer=0) == 1.0 and win_chance(g, 0, viewer=0) == pytest.approx(1.0)
    # Publicly: blue's hand is 7 of the 104 - 0 discarded cards; 7H (2) and the two-eyed jacks (4) fill i5.
    assert win_now_chance(g) == pytest.approx(_comb_any(6, 104, 7))
    assert win_chance(g, 0) >= win_now_chance(g)
    # Without the card the mover's own view knows it cannot win now.
    g2 = _position(chips, [["8C", "2S", "3S", "4S", "5S", "6S", "9C"], hands[1]])
    assert win_now_chance(g2, viewer=0) == 0.0 and win_chance(g2, 0, viewer=0) < 0.95
    # holds_win reads a Game as it reads the core's state (both are a GameLike)
    assert holds_win(g) and holds_win(g._state) and not holds_win(g2) and not holds_win(g2._state)


def test_a_double_threat_whose_filling_cards_are_discarded_threatens_nothing():
    """R5, R9: green holds one sequence and an open four (b7 and g7 both win, R8); with every copy
    of 9S, QH and the two-eyed jacks face up on the discard piles nobody can fill either cell."""
    from sequence_game.review.threats import decisive, filling_cards, unseen_copies, winning_cells

    seq = [[1, c] for c in range(5)]
    chips = {**{f"{'abcde'[c]}2": "G" for c in range(5)}, **{f"{'cdef'[c]}7": "G" for c in range(4)},
             "j3": "B", "j4": "B", "h9": "B"}
    hands = [["2D", "3D", "4D", "5D", "6D", "7D", "9D"], ["2S", "3S", "4S", "5S", "6S", "8S", "AS"]]
    shown = [["9S", "QH", "JD", "JC"], ["9S", "QH", "JD", "JC"]]
    g = _position(chips, hands, shown, [{"team": 1, "cells": seq}])
    assert winning_cells(g, 1) == (61, 66)  # b7 and g7
    cards = filling_cards(winning_cells(g, 1))
    assert unseen_copies(g, cards) == (0, 104 - 8)
    assert decisive(g)[:2] == (0.0, 0.0)
    # The same threat with one copy of each filling card still unseen: green wins on its move with
    # the chance that its 7 cards hold one of those 4 (blue cannot block both cells).
    half = _position(chips, hands, [["9S", "QH", "JD", "JC"], []], [{"team": 1, "cells": seq}])
    assert decisive(half)[:2] == (0.0, pytest.approx(_comb_any(4, 100, 7)))
    assert win_chance(half, 1) > win_chance(g, 1)


def test_a_block_the_mover_must_make_is_the_best_move():
    """R8: each team holds one sequence; green holds c7-f7 (b7 is blue's): g7 wins it for green;
    blue holds QH (g7) and must put it there."""
    from sequence_game.review.threats import move_notes, note_text

    seq = [[1, c] for c in range(5)]
    chips = {**{f"{'abcde'[c]}2": "G" for c in range(5)}, **{f"{'cdef'[c]}7": "G" for c in range(4)},
             **{f"{'bcdef'[c]}9": "B" for c in range(5)}, "b7": "B", "j3": "B", "h9": "B"}
    hands = [["QH", "2D", "3D", "4D", "5D", "6D", "9D"], ["2S", "3S", "4S", "5S", "6S", "8S", "AS"]]
    g = _position(chips, hands, None, [{"team": 1, "cells": seq}, {"team": 0, "cells": [[8, c] for c in range(1, 6)]}])
    values = move_values(g)
    best = max(values, key=lambda m: values[m])
    from sequence_game.game import move_from_id

    assert str(move_from_id(best)).startswith("QH@g7")
    other = next(m for m in values if not str(move_from_id(m)).startswith("QH"))
    assert tier_of(values[best] - values[other]) == "blunder"
    assert [n["kind"] for n in move_notes(g, best)] == ["block"]
    missed = move_notes(g, other)
    assert [n["kind"] for n in missed] == ["missed-block"]
    assert note_text(missed[0]) == "blue left green the win at g7"


def test_the_review_names_the_deciding_threats_in_json_and_the_command(tmp_path):
    """R7, R8: the issue's game: blue's 7H@i5 wins with two sequences at once; a move elsewhere
    there gives the win up; the review says so in its notes, the JSON and the command's lines."""
    won = GameRecord(players=2, teams=2, seed=ISSUE_SEED, moves=[*ISSUE_MOVES.split(), "7H@i5"])
    last = review_game(won).moves[-1]
    assert [(n["kind"], n["cells"], n["sequences"]) for n in last.notes] == [("win", ["i5"], 2)]
    assert last.notes[0]["text"] == "blue wins at i5 with two sequences at once"
    game = GameRecord(players=2, teams=2, seed=ISSUE_SEED, moves=ISSUE_MOVES.split()).replay()
    elsewhere = next(str(m) for m in game.legal_moves() if str(m).startswith("4C"))
    missed = GameRecord(players=2, teams=2, seed=ISSUE_SEED, moves=[*ISSUE_MOVES.split(), elsewhere])
    review = review_game(missed)
    move = review.moves[-1]
    assert move.notes[0]["kind"] == "missed-win" and "i5" in move.notes[0]["cells"]
    assert move.tier == "blunder" and move.best is not None and move.best.startswith("7H@i5")
    path = tmp_path / "missed.json"
    missed.save(path)
    run = [sys.executable, "-m", "sequence_game", "review", str(path)]
    data = json.loads(subprocess.run([*run, "--json"], capture_output=True, text=True, timeout=300).stdout)
    assert data["moves"][-1]["notes"] == [dict(n) for n in move.notes]
    text = subprocess.run(run, capture_output=True, text=True, timeout=300).stdout
    assert move.notes[0]["text"] in text and move.notes[0]["text"].startswith("blue could have won at ")


def test_a_kept_jack_weighs_what_the_model_says_in_the_players_view_only():
    """R5: a jack kept in hand weighs the model's ``kept`` value in the player's view (in
    place of the fitted weight, in the rated weights too); the public view reads no hand (R9)."""
    import dataclasses

    import numpy as np
    from sequence_game.review.estimator import (
        HAND_FEATURES,
        PUBLIC_FEATURES,
        RATING_KNOTS,
        load_win_chance_model,
        parse_win_chance_model,
    )

    model = dataclasses.replace(load_win_chance_model(), kept={"one_eyed": 0.7, "two_eyed": -0.2})
    row = len(PUBLIC_FEATURES) + len(HAND_FEATURES)
    for name, value in model.kept.items():
        i = len(PUBLIC_FEATURES) + HAND_FEATURES.index(name)
        assert model.weights(2, 0)[i] == value and model.weights(2, 0, rated=True)[i] == value
        assert not np.any(model.weights(2, 0, rated=True)[[row + 1 + k * row + i for k in range(len(RATING_KNOTS))]])
    assert (model.weights(2, None) == load_win_chance_model().weights(2, None)).all()
    assert parse_win_chance_model(model.to_json()).kept == {"one_eyed": 0.7, "two_eyed": -0.2}
    for bad in ({"queens": 1.0}, {"one_eyed": float("nan")}, [0.25]):
        with pytest.raises(ValueError, match="kept"):
            parse_win_chance_model(dict(model.to_json(), kept=bad))


def test_moves_within_the_equal_margin_of_the_best_lose_nothing():
    """A move within ``grading.equal`` of the best value is the best's equal: no loss, named best;
    with no margin the best is the highest value."""
    import dataclasses

    from sequence_game.review.estimator import load_win_chance_model

    rec = _record(3)
    base = load_win_chance_model()
    loose = review_game(rec, model=dataclasses.replace(base, grading=dict(base.grading, equal=1.0)))
    graded = [m for m in loose.moves if m.kind == "move"]
    assert graded and all(m.loss == 0 and m.best == m.move and m.tier is None for m in graded)
    strict = review_game(rec, model=dataclasses.replace(base, grading=dict(base.grading, equal=0.0)))
    assert any(m.loss for m in strict.moves if m.kind == "move")
    for m in strict.moves:
        if m.kind == "move":
            assert m.before is not None and m.after is not None and m.before >= m.after
