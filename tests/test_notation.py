"""docs/notation.md: Move text round trips, canonical forms, InvalidMoveError, equality and hash."""

import pickle

import pytest
from helpers import DIRECTIONS, seq
from hypothesis import given
from hypothesis import strategies as st
from sequence_game import InvalidMoveError, Move
from sequence_game.cards import CARD_NAMES

ROW6 = seq([(5, c) for c in range(5)])  # a6-e6
ROW6B = seq([(5, c) for c in range(4, 9)])  # e6-i6


@pytest.mark.parametrize(
    "text, move",
    [
        ("7H@d6", Move("place", "7H", (5, 3))),
        ("JD@e5", Move("place", "JD", (4, 4))),
        ("JSxe5", Move("remove", "JS", (4, 4))),
        ("JHxj10", Move("remove", "JH", (9, 9))),
        ("trade 7H", Move("trade", "7H")),
        ("pass", Move("pass")),
        ("QS@j3 =j1-j5", Move("place", "QS", (2, 9), declares=[[(r, 9) for r in range(5)]])),
        ("2H@e6 =a6-e6 =e6-i6", Move("place", "2H", (5, 4), declares=[ROW6, ROW6B])),
        ("TS@a1", Move("place", "TS", (0, 0))),
    ],
)
def test_notation_parse_and_str_round_trip(text, move):
    assert Move.parse(text) == move
    assert str(move) == text
    assert Move.parse(str(move)) == move


@pytest.mark.parametrize(
    "text, canonical",
    [
        ("7h@D6", "7H@d6"),
        ("10h@i2", "TH@i2"),
        ("  trade   10c ", "trade TC"),
        ("PASS", "pass"),
        ("jsXE5", "JSxe5"),
        ("2H@e6 =e6-a6", "2H@e6 =a6-e6"),  # endpoints in either order
        ("2H@e6 =e6-i6 =a6-e6", "2H@e6 =a6-e6 =e6-i6"),  # declares kept sorted
        ("2H@e6   =a6-e6", "2H@e6 =a6-e6"),
        ("2H@e6 = a6-e6".replace("= ", "="), "2H@e6 =a6-e6"),
        ("qs@J3 =J5-j1", "QS@j3 =j1-j5"),
    ],
)
def test_notation_canonical_forms(text, canonical):
    assert str(Move.parse(text)) == canonical
    assert Move.parse(canonical) == Move.parse(text)


def test_notation_move_attributes():
    m = Move.parse("2H@e6 =a6-e6")
    assert (m.kind, m.card, m.cell, m.declares) == ("place", "2H", (5, 4), (ROW6,))
    assert Move.parse("pass").card is None and Move.parse("pass").cell is None
    assert Move.parse("trade 7H").cell is None
    assert Move("place", "7H", "d6") == Move("place", "7H", (5, 3))  # a cell may be given as text
    assert Move("place", "7h", [5, 3]).cell == (5, 3)


@pytest.mark.parametrize(
    "text, hint",
    [
        ("", "not a move"),
        ("hello", "not a move"),
        ("JH@e5", "one-eyed jack"),
        ("JS@e5", "one-eyed jack"),
        ("7Hxe5", "one-eyed jack"),
        ("JDxe5", "one-eyed jack"),
        ("trade JD", "jack"),
        ("trade JS", "jack"),
        ("trade", "trade"),
        ("trade 7H 8H", "trade"),
        ("pass 7H", "pass"),
        ("7H@k1", "not a cell"),
        ("7H@a11", "not a cell"),
        ("7H@a0", "not a cell"),
        ("7H@", "not a cell"),
        ("XX@d6", "not a card"),
        ("1H@d6", "not a card"),
        ("7H@d6 =a1-a3", "straight line"),
        ("7H@d6 =a1-e2", "straight line"),
        ("2H@e6 =a1-e1", "does not pass through"),
        ("2H@e6 a6-e6", "=first-last"),
        ("2H@e6 =a6e6", "=first-last"),
        ("2H@e6 =a6-e6 =a6-e6", "twice"),
        ("2H@e6 =a6-z6", "not a cell"),
    ],
)
def test_notation_bad_text_raises_invalid_move_error_with_help(text, hint):
    with pytest.raises(InvalidMoveError) as e:
        Move.parse(text)
    assert isinstance(e.value, ValueError)
    assert hint in str(e.value)


@pytest.mark.parametrize("bad", [None, 7, b"pass", ["pass"]])
def test_notation_parse_takes_text_only(bad):
    with pytest.raises(TypeError):
        Move.parse(bad)


@pytest.mark.parametrize(
    "args, kwargs, hint",
    [
        (("jump",), {}, "unknown move kind"),
        (("place", "7H"), {}, "needs a cell"),
        (("place",), {"cell": (5, 3)}, "needs a card"),
        (("remove", "JS"), {}, "needs a cell"),
        (("pass", "7H"), {}, "no card"),
        (("pass",), {"cell": (1, 1)}, "no card"),
        (("trade", "7H", (5, 3)), {}, "no cell"),
        (("place", "JH", (5, 3)), {}, "one-eyed jack"),
        (("remove", "7H", (5, 3)), {}, "one-eyed jack"),
        (("trade", "JC"), {}, "jack"),
        (("place", "7H", (10, 3)), {}, "off the board"),
        (("place", "7H", (5, -1)), {}, "off the board"),
        (("place", "7H", (5,)), {}, "cell"),
        (("place", "7H", (5.0, 3.0)), {}, "cell"),
        (("place", "QQ", (5, 3)), {}, "not a card"),
        (("remove", "JS", (5, 3)), {"declares": [ROW6]}, "only a placement"),
        (("place", "7H", (5, 3)), {"declares": "a6-e6"}, "declares"),
        (("place", "7H", (5, 3)), {"declares": 5}, "declares"),
        (("place", "7H", (5, 3)), {"declares": [[(5, 0), (5, 1)]]}, "straight line"),
        (("place", "7H", (5, 3)), {"declares": [[(5, 0), (5, 1), (5, 2), (5, 3), (5, 5)]]}, "straight line"),
        (("place", "7H", (5, 3)), {"declares": [[(0, 0), (0, 1), (0, 2), (0, 3), (0, 4)]]}, "does not pass"),
        (("place", "7H", (5, 3)), {"declares": [["x"] * 5]}, "cell"),
    ],
)
def test_notation_move_constructor_checks_form(args, kwargs, hint):
    with pytest.raises(InvalidMoveError) as e:
        Move(*args, **kwargs)
    assert hint in str(e.value)


def test_notation_equality_and_hash_are_by_value():
    a = Move.parse("2H@e6 =a6-e6 =e6-i6")
    b = Move("place", "2h", (5, 4), declares=[list(reversed(ROW6B)), ROW6])
    assert a == b and hash(a) == hash(b)
    assert len({a, b, Move.parse("2H@e6 =e6-i6 =a6-e6")}) == 1
    assert a != Move.parse("2H@e6 =a6-e6")
    assert Move.parse("7H@d6") != Move.parse("7H@i5")
    assert Move.parse("pass") == Move("pass") and hash(Move("pass")) == hash(Move.parse(" pass "))
    assert Move("pass") != "pass"
    assert {Move.parse("trade 7H"): 1}[Move("trade", "7h")] == 1


def test_notation_declares_is_sorted_tuple_of_sorted_cells():
    m = Move("place", "2H", (5, 4), declares=[[(5, 8), (5, 7), (5, 6), (5, 5), (5, 4)], [(5, 4), (5, 3), (5, 2), (5, 1), (5, 0)]])
    assert m.declares == (ROW6, ROW6B)
    assert isinstance(m.declares, tuple) and all(isinstance(s, tuple) for s in m.declares)


def test_notation_move_is_immutable_and_picklable():
    m = Move.parse("QS@j3 =j1-j5")
    with pytest.raises(AttributeError):
        m.card = "7H"
    with pytest.raises(AttributeError):
        del m.kind
    assert pickle.loads(pickle.dumps(m)) == m
    assert eval(repr(m), {"Move": Move}) == m


def test_notation_sort_key_orders_kinds_trade_place_remove_pass():
    moves = [Move("pass"), Move.parse("JSxa2"), Move.parse("2S@b1"), Move.parse("trade AC"), Move.parse("trade 2S")]
    assert [str(m) for m in sorted(moves)] == ["trade 2S", "trade AC", "2S@b1", "JSxa2", "pass"]
    a, b = Move.parse("JD@a2"), Move.parse("JD@b1")
    assert sorted([a, b]) == [b, a]  # cell index 1 (b1) < 10 (a2)


# ----------------------------------------------------------------------------- hypothesis

CELLS = st.tuples(st.integers(0, 9), st.integers(0, 9))
PLACE_CARDS = [c for c in CARD_NAMES if c not in ("JH", "JS")]
NORMAL = [c for c in CARD_NAMES if c[0] != "J"]


def _windows_through(c):
    out = []
    for dr, dc in DIRECTIONS:
        for back in range(5):
            cells = [(c[0] + (i - back) * dr, c[1] + (i - back) * dc) for i in range(5)]
            if all(0 <= r < 10 and 0 <= k < 10 for r, k in cells):
                out.append(tuple(sorted(cells)))
    return out


@st.composite
def moves(draw):
    kind = draw(st.sampled_from(["place", "remove", "trade", "pass"]))
    if kind == "pass":
        return Move("pass")
    if kind == "trade":
        return Move("trade", draw(st.sampled_from(NORMAL)))
    c = draw(CELLS)
    if kind == "remove":
        return Move("remove", draw(st.sampled_from(["JH", "JS"])), c)
    wins = _windows_through(c)
    decl = draw(st.lists(st.sampled_from(wins), unique=True, max_size=3)) if wins else []
    return Move("place", draw(st.sampled_from(PLACE_CARDS)), c, decl)


@given(moves())
def test_notation_hypothesis_text_round_trip(m):
    text = str(m)
    assert Move.parse(text) == m
    assert Move.parse(text.lower()) == m
    assert Move.parse("  " + text.upper() + " ") == m
    assert str(Move.parse(text)) == text
    assert pickle.loads(pickle.dumps(m)) == m
