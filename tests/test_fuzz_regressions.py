"""Fuzzing regressions (fuzz/README.md, docs/hardening.md). Fast: well under a few seconds.

* Every seed input in ``fuzz/corpus/<target>/`` and every crasher kept in ``fuzz/crashers/``
  replays through its fuzz target (``fuzz/harness.py``): each must keep the contract (work, or a
  clean ``ValueError``/``TypeError`` with the game unchanged; core and reference agree).
* Hand-written regressions for what the campaign found, and the malformed-dict classes that
  ``_core.Game.from_position`` must refuse without crashing.
"""

from __future__ import annotations

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = os.path.join(ROOT, "fuzz")
sys.path.insert(0, FUZZ)

harness = pytest.importorskip("harness", reason="fuzz/harness.py needs the compiled core (sequence_game._core)")

from sequence_game import Game, Move, _core  # noqa: E402
from sequence_game.reference import Game as RefGame  # noqa: E402


def _inputs(folder, pattern=""):
    path = os.path.join(FUZZ, folder)
    if not os.path.isdir(path):
        return []
    return sorted(os.path.join(path, f) for f in os.listdir(path) if f.endswith(pattern) and not f.startswith("."))


SEEDS = [(t, p) for t in harness.TARGETS for p in _inputs(os.path.join("corpus", t))]
CRASHERS = [(os.path.basename(p).rsplit("-", 1)[0], p) for p in _inputs("crashers", ".bin")]


@pytest.mark.parametrize("target,path", SEEDS, ids=[f"{t}/{os.path.basename(p)}" for t, p in SEEDS])
def test_seed_corpus_replays_clean(target, path):
    with open(path, "rb") as f:
        harness.TARGETS[target](f.read())


@pytest.mark.parametrize("target,path", CRASHERS, ids=[os.path.basename(p) for _, p in CRASHERS])
def test_crasher_replays_clean(target, path):
    with open(path, "rb") as f:
        harness.TARGETS[target](f.read())


# --------------------------------------------------------------------------- hand-written

BOTH = [Game, RefGame]


@pytest.mark.parametrize("field,value", [("turn", 2**31), ("turn", 2**40), ("max_turns", 2**31), ("max_turns", 2**63)])
def test_f1_huge_turn_counters_are_refused_alike(field, value):
    d = {"players": 2, "hands": [["7H"], ["JD"]], field: value}
    outcomes = []
    for cls in BOTH:
        try:
            cls.from_dict(d)
            outcomes.append("ok")
        except ValueError:
            outcomes.append("ValueError")
    assert outcomes == ["ValueError", "ValueError"]


def test_f1_turn_counter_never_wraps():
    # Without a cap a game ends in a draw when turn reaches MAX_TURNS = 2**31 - 1, in both.
    from sequence_game.game_setup import MAX_TURNS

    d = {"players": 2, "hands": [["7H"], ["JD"]], "turn": MAX_TURNS - 1}
    for cls in BOTH:
        g = cls.from_dict(d)
        g.play(g.legal_moves()[0])
        assert g.turn == MAX_TURNS and g.is_draw
        assert cls.from_dict(g.to_dict()).to_dict() == g.to_dict()


@pytest.mark.parametrize("cls", BOTH)
def test_f2_mixed_type_unknown_keys_refused_cleanly(cls):
    with pytest.raises((ValueError, TypeError)):
        cls.from_dict({1: 2, "x": 3, "players": 2, "hands": [[], []]})


def test_f3_error_message_of_a_huge_object_is_refused_cleanly():
    g = Game(players=2, seed=1)
    before = g.to_dict()
    with pytest.raises(TypeError):
        g.play([list(range(100))] * 100)
    assert g.to_dict() == before


@pytest.mark.parametrize("text", ["7H@a\u00b2", "7H@d6\udcff", "7H@a" + "0" * 5000 + "1", "\x00", "=", "x", "@",
                                  "trade", "trade JD", "JDxa1", "7H@a1 =a1-a5 =a1-a5", "2H@e6 =a6-e6 =a6-e6"])
def test_move_parse_edge_texts_refused_cleanly(text):
    with pytest.raises(ValueError):
        Move.parse(text)


def _core_dict():
    return Game(players=4, seed=5)._state.to_position()


MALFORMED = [
    ("missing players", lambda d: d.pop("players")),
    ("missing rng", lambda d: d.pop("rng")),
    ("unknown key", lambda d: d.update(extra=1)),
    ("players str", lambda d: d.update(players="4")),
    ("players bool", lambda d: d.update(players=True)),
    ("players huge", lambda d: d.update(players=2**100)),
    ("players negative", lambda d: d.update(players=-4)),
    ("teams 7", lambda d: d.update(teams=7)),
    ("board short", lambda d: d.update(board=d["board"][:99])),
    ("board long", lambda d: d.update(board=d["board"] + [-1] * 10**5)),
    ("board code 9", lambda d: d["board"].__setitem__(5, 9)),
    ("board float", lambda d: d["board"].__setitem__(5, 0.0)),
    ("board str", lambda d: d.update(board="." * 100)),
    ("hands one list", lambda d: d.update(hands=d["hands"][:1])),
    ("hands huge", lambda d: d["hands"][0].extend([0] * 10**5)),
    ("hand card 52", lambda d: d["hands"][0].append(52)),
    ("hand card -1", lambda d: d["hands"][0].append(-1)),
    ("hand card 2**64", lambda d: d["hands"][0].append(2**64)),
    ("hand not a list", lambda d: d["hands"].__setitem__(0, 5)),
    ("discards huge", lambda d: d["discards"][1].extend([3] * 10**4)),
    ("draw pile empty", lambda d: d.update(draw_pile=[])),
    ("draw pile None", lambda d: d.update(draw_pile=None)),
    ("draw pile dict", lambda d: d.update(draw_pile={})),
    ("sequence bad cells", lambda d: d.update(sequences=[(0, (0, 1, 2, 3, 104))])),
    ("sequence 4 cells", lambda d: d.update(sequences=[(0, (1, 2, 3, 4))])),
    ("sequence triple", lambda d: d.update(sequences=[(0, (1, 2, 3, 4, 5), 9)])),
    ("sequence team 9", lambda d: d.update(sequences=[(9, (0, 1, 2, 3, 4))])),
    ("many sequences", lambda d: d.update(sequences=[(0, (0, 1, 2, 3, 4))] * 1000)),
    ("current player 4", lambda d: d.update(current_player=4)),
    ("dealer -1", lambda d: d.update(dealer=-1)),
    ("turn -1", lambda d: d.update(turn=-1)),
    ("turn 2**31", lambda d: d.update(turn=2**31)),
    ("passes 99", lambda d: d.update(passes=99)),
    ("winner 3", lambda d: d.update(winner=3)),
    ("is_draw int", lambda d: d.update(is_draw=1)),
    ("traded None", lambda d: d.update(traded_this_turn=None)),
    ("rng -1", lambda d: d.update(rng=-1)),
    ("rng 2**64", lambda d: d.update(rng=2**64)),
    ("rng str", lambda d: d.update(rng="00")),
    ("seed float", lambda d: d.update(seed=1.0)),
    ("max_turns 0", lambda d: d.update(max_turns=0)),
    ("last_draw triple", lambda d: d.update(last_draw=(0, 1, 2))),
    ("last_draw card 99", lambda d: d.update(last_draw=(0, 99))),
    ("last_draw player 40", lambda d: d.update(last_draw=(40, 0))),
]


@pytest.mark.parametrize("name,change", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_core_from_position_refuses_malformed_dicts(name, change):
    d = _core_dict()
    change(d)
    with pytest.raises((ValueError, TypeError)):
        _core.Game.from_position(d)


@pytest.mark.parametrize("bad", [None, [], "x", 5, {"players": 2}])
def test_core_from_position_refuses_non_dicts(bad):
    with pytest.raises((ValueError, TypeError)):
        _core.Game.from_position(bad)
