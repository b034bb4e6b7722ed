"""docs/state-format.md: the ``sequence-game/1`` dict, its defaults, its round trip and its refusals."""

import copy
import json
import pickle

import pytest
from helpers import board_rows, empty_rows, json_round, line, position_dict, rest_of_deck
from sequence_game.cards import CARD_NAMES

FIELDS = {"format", "players", "teams", "seed", "board", "sequences", "hands", "discards", "draw_pile",
          "current_player", "dealer", "turn", "traded_this_turn", "passes", "winner", "is_draw", "max_turns", "rng",
          "last_draw"}


def _played(Game, players=3, seed=4, n=9):
    g = Game(players=players, seed=seed, max_turns=500)
    for _ in range(n):
        g.play(g.legal_moves()[-1])
    return g


def test_state_format_schema(Game):
    g = _played(Game)
    d = g.to_dict()
    assert set(d) == FIELDS
    assert d["format"] == "sequence-game/1"
    assert isinstance(d["board"], list) and len(d["board"]) == 10
    assert all(isinstance(r, str) and len(r) == 10 and set(r) <= set("*.BGR") for r in d["board"])
    assert isinstance(d["rng"], str) and len(d["rng"]) == 16 and d["rng"] == d["rng"].lower()
    int(d["rng"], 16)
    assert len(d["hands"]) == len(d["discards"]) == 3
    assert all(h == sorted(h, key=CARD_NAMES.index) for h in d["hands"])  # canonical order
    assert d["hands"] == [g.hand(p) for p in range(3)] and d["discards"] == [g.discards(p) for p in range(3)]
    assert len(d["draw_pile"]) == g.draw_pile_size
    assert (d["current_player"], d["dealer"], d["turn"], d["passes"]) == (g.current_player, g.dealer, g.turn, g.passes)
    assert d["seed"] == 4 and d["max_turns"] == 500 and d["winner"] is None and d["is_draw"] is False
    assert d["last_draw"] is None or set(d["last_draw"]) == {"player", "card"}
    assert json.loads(json.dumps(d)) == d


def test_state_format_sequences_field(Game, position):
    row = line((5, 0), (0, 1))
    g = position(board=board_rows(B=row[:4]), hands=[["2H"], ["9C"]])
    g.play("2H@e6")
    assert g.to_dict()["sequences"] == [{"team": 0, "cells": [[5, 0], [5, 1], [5, 2], [5, 3], [5, 4]]}]


@pytest.mark.parametrize("players, seed", [(2, 1), (3, 2), (6, 3), (12, 4)])
def test_state_format_round_trip_through_json(Game, players, seed):
    g = Game(players=players, seed=seed, max_turns=300)
    for _ in range(40):
        if g.is_over:
            break
        d = g.to_dict()
        h = Game.from_dict(json_round(d))
        assert h.to_dict() == d
        assert [str(m) for m in h.legal_moves()] == [str(m) for m in g.legal_moves()]
        moves = g.legal_moves()
        g.play(moves[(seed * 7 + g.turn) % len(moves)])


def test_state_format_from_dict_restores_the_future(Game):
    """A loaded game plays on exactly as the original (the rng state and draw pile are in the dict)."""
    g = _played(Game, players=2, seed=6, n=5)
    h = Game.from_dict(g.to_dict())
    for _ in range(30):
        if g.is_over:
            break
        m = g.legal_moves()[0]
        g.play(m)
        h.play(m)
        assert g.to_dict() == h.to_dict()


def test_state_format_defaults(Game):
    g = Game.from_dict({"players": 2, "hands": [["7H"], ["JD"]]})
    d = g.to_dict()
    assert d["teams"] == 2 and d["seed"] is None
    assert d["board"] == empty_rows() and d["sequences"] == []
    assert d["discards"] == [[], []]
    assert d["draw_pile"] == rest_of_deck([["7H"], ["JD"]])  # ascending id
    assert d["draw_pile"][:4] == ["2S", "2S", "2H", "2H"]
    assert (d["current_player"], d["dealer"], d["turn"], d["passes"]) == (0, 1, 0, 0)
    assert d["traded_this_turn"] is False and d["winner"] is None and d["is_draw"] is False
    assert d["max_turns"] is None and d["rng"] == "0000000000000000" and d["last_draw"] is None
    assert not g.is_over


def test_state_format_default_dealer_and_rng(Game):
    d = Game.from_dict({"players": 4, "hands": [[]] * 4, "current_player": 2, "seed": 255}).to_dict()
    assert d["dealer"] == 1 and d["rng"] == "00000000000000ff" and d["seed"] == 255
    d = Game.from_dict({"players": 3, "hands": [[]] * 3, "current_player": 0}).to_dict()
    assert d["dealer"] == 2
    assert Game.from_dict({"players": 6, "teams": 3, "hands": [[]] * 6}).teams == 3
    assert Game.from_dict({"players": 2, "hands": [[], []], "rng": 17}).to_dict()["rng"] == "0000000000000011"


def test_state_format_hands_are_sorted_and_cards_canonical(Game):
    g = Game.from_dict({"players": 2, "hands": [["ah", "10d", "2s"], ["JC"]]})
    assert g.hand(0) == ["2S", "TD", "AH"]


def test_state_format_from_dict_does_not_mutate_its_input(Game):
    d = _played(Game).to_dict()
    d["hands"][0] = list(reversed(d["hands"][0]))
    keep = copy.deepcopy(d)
    Game.from_dict(d)
    assert d == keep


def test_state_format_to_dict_is_a_fresh_copy(Game):
    g = _played(Game)
    d = g.to_dict()
    d["hands"][0].clear()
    d["draw_pile"].clear()
    d["board"][4] = "B" * 10
    assert g.to_dict() != d and len(g.to_dict()["draw_pile"]) == g.draw_pile_size


def test_state_format_loaded_game_has_no_undo_history(Game):
    g = Game.from_dict(_played(Game).to_dict())
    with pytest.raises(ValueError) as e:
        g.undo()
    assert "nothing to undo" in str(e.value)


def test_state_format_copy_and_pickle(Game):
    g = _played(Game)
    h = g.copy()
    assert h.to_dict() == g.to_dict()
    h.play(h.legal_moves()[0])
    assert h.to_dict() != g.to_dict()
    h.undo()
    assert h.to_dict() == g.to_dict()
    h.undo()  # the copy keeps the undo history
    assert pickle.loads(pickle.dumps(g)).to_dict() == g.to_dict()
    assert copy.deepcopy(g).to_dict() == g.to_dict()


# ----------------------------------------------------------------------------- refusals


def _base():
    return position_dict(2, board_rows(B=line((5, 0), (0, 1))), [["7H"], ["9C"]],
                         sequences=[{"team": 0, "cells": [[5, c] for c in range(5)]}])


def _set(**kw):
    def f(d):
        d.update(kw)
    return f


def _board(r, row):
    def f(d):
        d["board"][r] = row
    return f


def _seq(cells, team=0):
    def f(d):
        d["sequences"].append({"team": team, "cells": [list(c) for c in cells]})
    return f


def _deck(d):
    d["draw_pile"] = rest_of_deck(d["hands"])[:-1]


def _deck_extra(d):
    d["draw_pile"] = rest_of_deck(d["hands"]) + ["7H"]


REFUSALS = [
    ("format", _set(format="sequence-game/2"), ValueError, "format"),
    ("unknown field", _set(colour="blue"), ValueError, "colour"),
    ("players count", _set(players=5, hands=[[]] * 5), ValueError, "2, 3, 4, 6"),
    ("players type", _set(players="2"), TypeError, "players"),
    ("team split", _set(players=4, teams=3, hands=[[]] * 4), ValueError, "teams"),
    ("board not 10 rows", _set(board=empty_rows()[:9]), TypeError, "board"),
    ("board not strings", _set(board=[list(r) for r in empty_rows()]), TypeError, "board"),
    ("board row length", _board(3, "........."), ValueError, "board"),
    ("board character", _board(3, "...X......"), ValueError, "board"),
    ("chip on a corner", _board(0, "B........*"), ValueError, "corner"),
    ("corner not star", _board(9, ".........*"), ValueError, "corner"),
    ("star off corner", _board(3, "....*....."), ValueError, "'*'"),
    ("red in two teams", _board(3, "....R....."), ValueError, "board"),
    ("sequence team out of range", _seq(line((5, 0), (0, 1)), team=2), ValueError, "team"),
    ("sequence not a line", _seq([(1, 1), (1, 2), (1, 3), (1, 4), (2, 6)]), ValueError, "straight line"),
    ("sequence too short", _seq([(5, 0), (5, 1), (5, 2), (5, 3)]), ValueError, "five"),
    ("sequence not the team's chips", _seq(line((1, 0), (0, 1))), ValueError, "sequences[1]"),
    ("sequence of another team's chips", _seq(line((5, 0), (0, 1)), team=1), ValueError, "sequences[1]"),
    ("sequence sharing two cells", _seq([(5, 0), (5, 1), (5, 2), (5, 3), (5, 4)][::-1]), ValueError, "share"),
    ("sequence malformed", _set(sequences=[{"team": 0}]), TypeError, "sequences[0]"),
    ("hands count", _set(hands=[["7H"]]), ValueError, "hands"),
    ("hands missing", lambda d: d.pop("hands"), ValueError, "hands"),
    ("hands type", _set(hands="7H 9C"), TypeError, "hands"),
    ("hand too large", _set(hands=[["2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S"], []]), ValueError, "at most 7"),
    ("not a card", _set(hands=[["7H", "ZZ"], []]), ValueError, "hands[0]"),
    ("card type", _set(hands=[["7H", 7], []]), TypeError, "hands[0]"),
    ("discards count", _set(discards=[[]]), ValueError, "discards"),
    # the message must blame the card that is over-counted (7H), not some other card
    ("three of a card", _set(hands=[["7H", "7H"], ["7H"]]), ValueError, "7H appears 3 times"),
    ("deck short", _deck, ValueError, "two of each"),
    ("deck long", _deck_extra, ValueError, "7H"),
    ("draw pile type", _set(draw_pile="abc"), TypeError, "draw_pile"),
    ("current_player range", _set(current_player=2), ValueError, "current_player"),
    ("current_player type", _set(current_player="0"), TypeError, "current_player"),
    ("dealer range", _set(dealer=-1), ValueError, "dealer"),
    ("winner range", _set(winner=3), ValueError, "winner"),
    ("winner disagrees", _set(winner=1), ValueError, "winner"),
    ("winner without sequences", _set(winner=0), ValueError, "winner"),
    ("turn negative", _set(turn=-1), ValueError, "turn"),
    ("turn type", _set(turn=1.0), TypeError, "turn"),
    ("passes too many", _set(passes=2), ValueError, "passes"),
    ("passes negative", _set(passes=-1), ValueError, "passes"),
    ("traded type", _set(traded_this_turn=1), TypeError, "traded_this_turn"),
    ("is_draw type", _set(is_draw="no"), TypeError, "is_draw"),
    ("max_turns", _set(max_turns=0), ValueError, "max_turns"),
    ("rng hex", _set(rng="xyz"), ValueError, "rng"),
    ("rng too big", _set(rng="1" * 17), ValueError, "rng"),
    ("rng type", _set(rng=1.5), TypeError, "rng"),
    ("seed range", _set(seed=-1), ValueError, "seed"),
    ("last_draw not held", _set(last_draw={"player": 0, "card": "9C"}), ValueError, "last_draw"),
    ("last_draw shape", _set(last_draw={"player": 0}), TypeError, "last_draw"),
    ("last_draw player", _set(last_draw={"player": 2, "card": "7H"}), ValueError, "player"),
]


@pytest.mark.parametrize("mutate, exc, hint", [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_state_format_from_dict_refuses_inconsistent_positions(Game, mutate, exc, hint):
    d = _base()
    Game.from_dict(copy.deepcopy(d))  # the base position is fine
    mutate(d)
    with pytest.raises(exc) as e:
        Game.from_dict(d)
    assert hint in str(e.value), str(e.value)


def test_state_format_won_and_drawn_is_refused(Game):
    rows = board_rows(B=line((5, 0), (0, 1)) + line((7, 0), (0, 1)))
    seqs = [{"team": 0, "cells": [[r, c] for c in range(5)]} for r in (5, 7)]
    d = position_dict(2, rows, [["7H"], ["9C"]], sequences=seqs)
    assert Game.from_dict(d).winner == 0
    d["is_draw"] = True
    with pytest.raises(ValueError) as e:
        Game.from_dict(d)
    assert "won and drawn" in str(e.value)


def test_state_format_two_winners_are_refused(Game):
    rows = board_rows(B=line((5, 0), (0, 1)), G=line((7, 0), (0, 1)))
    seqs = [{"team": 0, "cells": [[5, c] for c in range(5)]}, {"team": 1, "cells": [[7, c] for c in range(5)]}]
    with pytest.raises(ValueError) as e:
        Game.from_dict(position_dict(3, rows, [["7H"], ["9C"], []], sequences=seqs))
    assert "only one team can win" in str(e.value)


def test_state_format_passes_equal_players_only_when_drawn(Game):
    d = position_dict(2, None, [["JH"], ["JS"]], passes=2, is_draw=True)
    g = Game.from_dict(d)
    assert g.is_over and g.is_draw and g.legal_moves() == []


@pytest.mark.parametrize("bad", [None, [], "{}", 3])
def test_state_format_from_dict_takes_a_dict(Game, bad):
    with pytest.raises(TypeError):
        Game.from_dict(bad)


def test_state_format_short_hands_are_accepted(Game):
    g = Game.from_dict(position_dict(4, None, [["7H"], [], ["9C", "5C"], []]))
    assert [len(g.hand(p)) for p in range(4)] == [1, 0, 2, 0]
