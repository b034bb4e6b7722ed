"""R6: drawing, and the reshuffle of the discard piles when the draw pile is empty (docs/rng.md)."""

import pytest
from helpers import model_reshuffle, rest_of_deck

RNG = "0123456789abcdef"


def _empty_pile_position(position, hands, rng=RNG, **kw):
    rest = rest_of_deck(hands)
    half = len(rest) // 2
    discards = [rest[:half], rest[half:]]
    return position(hands=hands, discards=discards, draw_pile=[], rng=rng, **kw), discards


def test_r6_draw_takes_the_top_card(Game, position):
    g = position(hands=[["7H"], ["9C"]], draw_top=["KD", "QS"])
    g.play("7H@d6")
    assert g.hand(0) == ["KD"]
    assert g.to_dict()["draw_pile"][0] == "QS"


@pytest.mark.parametrize("rng", [RNG, "0000000000000000", "ffffffffffffffff"])
def test_r6_empty_draw_pile_reshuffles_all_discards_in_seat_order(Game, position, rng):
    g, discards = _empty_pile_position(position, [["7H"], ["9C"]], rng=rng)
    g.play("7H@d6")
    gathered = [discards[0] + ["7H"], discards[1]]  # the card just played is on its pile already
    pile, state = model_reshuffle(gathered, rng)
    d = g.to_dict()
    assert d["hands"][0] == [pile[0]]
    assert d["draw_pile"] == pile[1:]
    assert d["discards"] == [[], []]
    assert d["rng"] == state
    assert d["last_draw"] == {"player": 0, "card": pile[0]}
    assert g.draw_pile_size == 102  # 104 cards, one in each hand


def test_r6_reshuffle_for_a_dead_card_trade(Game, position):
    g, discards = _empty_pile_position(position, [["7H", "9C"], ["5C"]], board={"i5": "B", "d6": "G"})
    g.play("trade 7H")
    pile, state = model_reshuffle([discards[0] + ["7H"], discards[1]], RNG)
    d = g.to_dict()
    assert d["hands"][0] == sorted(["9C", pile[0]], key=lambda c: "23456789TJQKA".index(c[0]) * 4 + "SHDC".index(c[1]))
    assert d["draw_pile"] == pile[1:] and d["discards"] == [[], []] and d["rng"] == state
    assert g.current_player == 0 and g.traded_this_turn


def test_r6_three_players_gather_in_seat_order(Game, position):
    hands = [["7H"], ["9C"], ["5C"]]
    rest = rest_of_deck(hands)
    discards = [rest[:30], rest[30:60], rest[60:]]
    g = position(players=3, hands=hands, discards=discards, draw_pile=[], rng=RNG, current_player=2)
    g.play("5C@b2")
    pile, state = model_reshuffle([discards[0], discards[1], discards[2] + ["5C"]], RNG)
    assert g.hand(2) == [pile[0]] and g.to_dict()["draw_pile"] == pile[1:] and g.to_dict()["rng"] == state


def test_r6_no_reshuffle_while_cards_remain(Game, position):
    hands = [["7H"], ["9C"]]
    rest = rest_of_deck(hands)
    rest.remove("KD")
    g = position(hands=hands, discards=[rest, []], draw_pile=["KD"], rng=RNG)
    g.play("7H@d6")
    d = g.to_dict()
    assert d["hands"][0] == ["KD"] and d["draw_pile"] == []
    assert d["discards"] == [rest + ["7H"], []]  # not reshuffled yet: no card had to be drawn
    assert d["rng"] == RNG  # nothing consumed randomness
    g.play("9C@a5")  # now a card must be drawn: reshuffle
    pile, state = model_reshuffle([rest + ["7H"], ["9C"]], RNG)
    d = g.to_dict()
    assert d["hands"][1] == [pile[0]] and d["draw_pile"] == pile[1:] and d["rng"] == state


def test_r6_pass_draws_nothing_so_never_reshuffles(Game, position):
    g, discards = _empty_pile_position(position, [["JH"], ["9C"]])
    g.play("pass")
    d = g.to_dict()
    assert d["draw_pile"] == [] and d["discards"] == discards and d["rng"] == RNG


def test_r6_empty_pile_and_empty_discards_cannot_arise(Game, position):
    """R6's last sentence ("if that is empty too, no card is drawn") is unreachable: every card is
    always in a hand, a discard pile or the draw pile (104 cards) and hands hold at most 36 cards
    in total, so an empty draw pile always comes with non-empty discards. from_dict refuses a
    position that would need it."""
    with pytest.raises(ValueError) as e:
        position(hands=[["7H"], ["9C"]], draw_pile=[])
    assert "appears 0 times" in str(e.value) or "two of each" in str(e.value)


def test_r6_reshuffle_is_deterministic_and_undoable(Game, position):
    g, _ = _empty_pile_position(position, [["7H"], ["9C"]])
    before = g.to_dict()
    h = g.copy()
    g.play("7H@d6")
    h.play("7H@d6")
    assert g.to_dict() == h.to_dict()
    g.undo()
    assert g.to_dict() == before
