"""Every kind of bad input to every public method raises ValueError / TypeError / IllegalMoveError
with a helpful message, and leaves the game exactly as it was."""

import pytest
from helpers import board_rows
from sequence_game import IllegalMoveError, InvalidMoveError, Move


def _game(position):
    # player 0: 7H (i5 free, d6 covered), 9C, JS, 5C dead (both b2 and d4 covered); team 1 has c3 and d4
    return position(board=board_rows(B=["d6", "b2"], G=["c3", "d4"]), hands=[["7H", "9C", "JS", "5C"], ["KD"]])


BAD_CALLS = [
    # play: wrong types, malformed text, illegal moves
    ("play int", lambda g: g.play(42), TypeError, "Move"),
    ("play None", lambda g: g.play(None), TypeError, "Move"),
    ("play tuple", lambda g: g.play(("place", "7H", (4, 8))), TypeError, "Move"),
    ("play garbage", lambda g: g.play("hello"), InvalidMoveError, "not a move"),
    ("play empty", lambda g: g.play(""), InvalidMoveError, "not a move"),
    ("play bad cell", lambda g: g.play("7H@z9"), InvalidMoveError, "not a cell"),
    ("play one-eyed place", lambda g: g.play("JS@e5"), InvalidMoveError, "one-eyed jack"),
    ("play not held", lambda g: g.play("KD@h8"), IllegalMoveError, "does not hold KD"),
    ("play wrong cell", lambda g: g.play("7H@a1"), IllegalMoveError, "printed on"),
    ("play covered cell", lambda g: g.play("7H@d6"), IllegalMoveError, "already covered"),
    ("play dead card", lambda g: g.play("5C@b2"), IllegalMoveError, "trade it as a dead card"),
    ("play remove own", lambda g: g.play("JSxd6"), IllegalMoveError, "own team"),
    ("play remove empty", lambda g: g.play("JSxe5"), IllegalMoveError, "empty"),
    ("play remove corner", lambda g: g.play("JSxa1"), IllegalMoveError, "corner"),
    ("play trade live", lambda g: g.play("trade 9C"), IllegalMoveError, "not a dead card"),
    ("play trade not held", lambda g: g.play("trade 8H"), IllegalMoveError, "does not hold"),
    ("play pass", lambda g: g.play("pass"), IllegalMoveError, "legal play"),
    ("play bogus declares", lambda g: g.play("7H@i5 =e5-i5"), IllegalMoveError, "7H@i5"),
    ("parse_move illegal", lambda g: g.parse_move("KD@h8"), IllegalMoveError, "does not hold"),
    ("parse_move garbage", lambda g: g.parse_move("?"), InvalidMoveError, "not a move"),
    # queries
    ("hand negative", lambda g: g.hand(-1), ValueError, "seats are 0..1"),
    ("hand too big", lambda g: g.hand(2), ValueError, "seats are 0..1"),
    ("hand str", lambda g: g.hand("0"), TypeError, "player"),
    ("hand bool", lambda g: g.hand(True), TypeError, "player"),
    ("hand float", lambda g: g.hand(0.0), TypeError, "player"),
    ("discards range", lambda g: g.discards(5), ValueError, "seats are 0..1"),
    ("discards None", lambda g: g.discards(None), TypeError, "player"),
    ("team_of range", lambda g: g.team_of(2), ValueError, "seats are 0..1"),
    ("team_of str", lambda g: g.team_of("1"), TypeError, "player"),
    ("observation range", lambda g: g.observation(-1), ValueError, "seats"),
    ("cell off board", lambda g: g.cell((10, 0)), ValueError, "off the board"),
    ("cell negative", lambda g: g.cell((0, -1)), ValueError, "off the board"),
    ("cell text", lambda g: g.cell("k1"), ValueError, "not a cell"),
    ("cell short", lambda g: g.cell((1,)), TypeError, "cell"),
    ("cell None", lambda g: g.cell(None), TypeError, "cell"),
    ("cell floats", lambda g: g.cell((1.0, 2.0)), TypeError, "cell"),
    ("locked off board", lambda g: g.locked((3, 10)), ValueError, "off the board"),
    ("locked type", lambda g: g.locked(33), TypeError, "cell"),
    # undo and referee calls
    ("undo at the start", lambda g: g.undo(), ValueError, "nothing to undo"),
    ("missed_draw nobody", lambda g: g.missed_draw(0), ValueError, "no draw to take back"),
    ("missed_draw range", lambda g: g.missed_draw(3), ValueError, "seats"),
    ("table_talk team", lambda g: g.table_talk_penalty(5, {0: "7H"}), ValueError, "does not exist"),
    ("table_talk not held", lambda g: g.table_talk_penalty(0, {0: "KD"}), ValueError, "does not hold KD"),
    ("table_talk wrong players", lambda g: g.table_talk_penalty(0, {1: "KD"}), ValueError, "team 0"),
    ("table_talk bad card", lambda g: g.table_talk_penalty(0, {0: "??"}), ValueError, "not a card"),
    ("table_talk card type", lambda g: g.table_talk_penalty(0, {0: 7}), TypeError, "card"),
    ("table_talk cards type", lambda g: g.table_talk_penalty(0, "7H"), TypeError, "dict"),
]


@pytest.mark.parametrize("call, exc, hint", [b[1:] for b in BAD_CALLS], ids=[b[0] for b in BAD_CALLS])
def test_errors_bad_input_is_refused_and_changes_nothing(Game, position, call, exc, hint):
    g = _game(position)
    before = g.to_dict()
    legal = g.legal_moves()
    with pytest.raises(exc) as e:
        call(g)
    assert hint in str(e.value), str(e.value)
    assert g.to_dict() == before
    assert g.legal_moves() == legal
    # and the game still plays normally afterwards
    g.play("7H@i5")
    assert g.cell("i5") == "B" and g.turn == 1


@pytest.mark.parametrize("call", [b[1] for b in BAD_CALLS], ids=[b[0] for b in BAD_CALLS])
def test_errors_are_value_or_type_errors(Game, position, call):
    with pytest.raises((ValueError, TypeError)):
        call(_game(position))


def test_errors_illegal_move_errors_are_value_errors():
    assert issubclass(IllegalMoveError, ValueError) and issubclass(InvalidMoveError, ValueError)


def test_errors_is_legal_answers_without_raising(Game, position):
    g = _game(position)
    assert g.is_legal("7H@i5") and g.is_legal(Move("trade", "5C"))
    for bad in ["7H@d6", "KD@h8", "hello", "", "pass", "JSxd6", "trade 9C"]:
        assert not g.is_legal(bad)


def test_errors_illegal_message_names_the_move(Game, position):
    g = _game(position)
    for text in ["7H@d6", "KD@h8", "JSxd6", "trade 9C", "pass"]:
        with pytest.raises(IllegalMoveError) as e:
            g.play(text)
        assert str(e.value).startswith(text), str(e.value)


def test_errors_after_many_refusals_the_game_is_intact(Game):
    g = Game(players=3, seed=12)
    for _ in range(15):
        before = g.to_dict()
        for bad in ["pass", "JD@a1", "trade JD", "2S@a1", 17, "JSxa1"]:
            with pytest.raises((ValueError, TypeError)):
                g.play(bad)
        assert g.to_dict() == before
        g.play(g.legal_moves()[0])
