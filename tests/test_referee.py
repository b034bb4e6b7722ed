"""R10: the referee calls. ``table_talk_penalty`` (every team member discards a card, nobody draws)
and ``missed_draw`` (the last draw goes back on top of the draw pile)."""

import pytest


def _four(position, **kw):
    hands = [["7H", "9C", "2S"], ["5C", "KD"], ["AS", "QS", "TD"], ["3D", "4D"]]
    return position(players=4, hands=hands, **kw)


def test_r10_table_talk_penalty_discards_one_card_per_member(Game, position):
    g = _four(position)
    size = g.draw_pile_size
    g.table_talk_penalty(0, {0: "9C", 2: "qs"})
    assert g.hand(0) == ["2S", "7H"] and g.hand(2) == ["TD", "AS"]
    assert g.discards(0) == ["9C"] and g.discards(2) == ["QS"]
    assert g.hand(1) == ["5C", "KD"] and g.discards(1) == []
    assert g.draw_pile_size == size  # nobody draws
    assert (g.current_player, g.turn, g.passes) == (0, 0, 0)  # outside turn order


def test_r10_table_talk_hands_stay_short(Game):
    g = Game(players=4, seed=3)
    team = g.team_of(g.current_player)
    members = [p for p in range(4) if g.team_of(p) == team]
    g.table_talk_penalty(team, {p: g.hand(p)[0] for p in members})
    for _ in range(8):  # two full rounds: every member plays and draws, still one card short
        g.play(g.legal_moves()[-1] if g.legal_moves()[-1].kind != "pass" else g.legal_moves()[0])
    for p in range(4):
        assert len(g.hand(p)) == (5 if p in members else 6)


def test_r10_table_talk_is_undoable(Game, position):
    g = _four(position)
    before = g.to_dict()
    g.table_talk_penalty(1, {1: "5C", 3: "4D"})
    g.undo()
    assert g.to_dict() == before


@pytest.mark.parametrize(
    "team, cards, exc, hint",
    [
        (2, {0: "9C", 2: "QS"}, ValueError, "team 2 does not exist"),
        (-1, {0: "9C", 2: "QS"}, ValueError, "does not exist"),
        ("0", {0: "9C", 2: "QS"}, TypeError, "team"),
        (0, {0: "9C"}, ValueError, "players [0, 2]"),
        (0, {0: "9C", 2: "QS", 1: "5C"}, ValueError, "each member"),
        (0, {0: "9C", 1: "5C"}, ValueError, "each member"),
        (0, {0: "9C", 2: "KD"}, ValueError, "player 2 does not hold KD"),
        (0, {0: "9C", 2: "XX"}, ValueError, "not a card"),
        (0, [(0, "9C"), (2, "QS")], TypeError, "dict"),
        (0, {"0": "9C", 2: "QS"}, ValueError, "each member"),
    ],
)
def test_r10_table_talk_refusals(Game, position, team, cards, exc, hint):
    g = _four(position)
    before = g.to_dict()
    with pytest.raises(exc) as e:
        g.table_talk_penalty(team, cards)
    assert hint in str(e.value)
    assert g.to_dict() == before


def test_r10_table_talk_with_an_empty_hand_is_refused(Game, position):
    g = position(players=4, hands=[["7H"], ["5C"], [], ["3D"]])
    before = g.to_dict()
    with pytest.raises(ValueError) as e:
        g.table_talk_penalty(0, {0: "7H", 2: "9C"})
    assert "empty" in str(e.value) and g.to_dict() == before


def test_r10_missed_draw_puts_the_card_back_on_top(Game, position):
    g = position(hands=[["7H", "9C"], ["5C"]], draw_top=["KD", "QS"])
    g.play("7H@d6")
    assert g.hand(0) == ["9C", "KD"]
    size = g.draw_pile_size
    g.missed_draw(0)
    assert g.hand(0) == ["9C"]  # one card short
    assert g.to_dict()["draw_pile"][:2] == ["KD", "QS"] and g.draw_pile_size == size + 1
    assert g.to_dict()["last_draw"] is None
    assert (g.current_player, g.turn) == (1, 1)
    with pytest.raises(ValueError) as e:
        g.missed_draw(0)  # only once
    assert "no draw to take back" in str(e.value)
    g.play("5C@b2")
    assert g.hand(1) == ["KD"]  # the next player draws the card that went back


def test_r10_missed_draw_hand_stays_short(Game, position):
    g = position(hands=[["7H", "9C"], ["5C"]])
    g.play("7H@d6")
    g.missed_draw(0)
    g.play("5C@b2")
    g.play("9C@a5")
    assert len(g.hand(0)) == 1


@pytest.mark.parametrize("who, exc, hint", [(1, ValueError, "player 1 has no draw"), (2, ValueError, "does not exist"),
                                            ("0", TypeError, "player"), (None, TypeError, "player")])
def test_r10_missed_draw_refused_for_the_wrong_player(Game, position, who, exc, hint):
    g = position(hands=[["7H", "9C"], ["5C"]])
    g.play("7H@d6")
    before = g.to_dict()
    with pytest.raises(exc) as e:
        g.missed_draw(who)
    assert hint in str(e.value) and g.to_dict() == before


def test_r10_missed_draw_refused_before_any_draw(Game, position):
    g = position(hands=[["7H", "9C"], ["5C"]])
    with pytest.raises(ValueError) as e:
        g.missed_draw(0)
    assert "nobody" in str(e.value)


def test_r10_missed_draw_refused_once_the_next_player_has_drawn(Game, position):
    g = position(hands=[["7H", "9C"], ["5C"]])
    g.play("7H@d6")
    g.play("5C@b2")
    with pytest.raises(ValueError) as e:
        g.missed_draw(0)
    assert "player 1" in str(e.value)
    g.missed_draw(1)
    assert g.hand(1) == []


def test_r10_missed_draw_after_a_trade_is_refused(Game, position):
    # a trade's replacement card is not an end-of-turn draw: last_draw is cleared
    g = position(board={"i5": "B", "d6": "B"}, hands=[["9C"], ["7H", "5C"]])
    g.play("9C@a5")
    g.play("trade 7H")
    with pytest.raises(ValueError):
        g.missed_draw(0)
    with pytest.raises(ValueError):
        g.missed_draw(1)


def test_r10_missed_draw_is_undoable(Game, position):
    g = position(hands=[["7H", "9C"], ["5C"]])
    g.play("7H@d6")
    before = g.to_dict()
    g.missed_draw(0)
    g.undo()
    assert g.to_dict() == before


def test_r10_referee_calls_leave_play_legal(Game):
    g = Game(players=2, seed=4)
    g.play(g.legal_moves()[0])
    g.missed_draw(0)
    assert g.legal_moves() and all(g.is_legal(m) for m in g.legal_moves())
