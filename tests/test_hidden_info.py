"""R9: hidden and public information. ``observation(player)`` shows only what that player may see."""

import json

import pytest
from helpers import board_rows, rest_of_deck


def test_r9_observation_hides_other_hands_draw_pile_and_rng(Game):
    g = Game(players=4, seed=5)
    for _ in range(6):
        g.play(g.legal_moves()[0])
    d = g.to_dict()
    for p in range(4):
        obs = g.observation(p)
        assert obs["player"] == p
        assert obs["hands"][p] == g.hand(p)
        assert obs["hands"] == [g.hand(q) if q == p else len(g.hand(q)) for q in range(4)]
        assert obs["draw_pile"] == g.draw_pile_size
        assert "rng" not in obs and "seed" not in obs
        # everything public is there unchanged (R9: discards, board, sequences, sizes)
        for key in ("board", "sequences", "discards", "current_player", "dealer", "turn", "passes", "winner",
                    "is_draw", "players", "teams", "format", "max_turns", "traded_this_turn"):
            assert obs[key] == d[key], key
        json.dumps(obs)


def test_r9_teammates_do_not_see_each_others_hands(Game):
    g = Game(players=4, seed=2)
    assert g.team_of(0) == g.team_of(2)
    assert g.observation(0)["hands"][2] == len(g.hand(2))


def test_r9_observation_does_not_depend_on_hidden_cards(Game, position):
    """Two positions that differ only in player 1's hand and the draw pile's order look the same to
    player 0."""
    hands_a, hands_b = [["7H", "2S"], ["9C", "KD"]], [["7H", "2S"], ["5C", "AS"]]
    board = board_rows(B=["a2"], G=["b2"])
    discards = [["QS"], ["QH"]]
    pile_a = rest_of_deck(hands_a, discards)
    pile_b = list(reversed(rest_of_deck(hands_b, discards)))
    a = position(board=board, hands=hands_a, discards=discards, draw_pile=pile_a, rng="00000000000000aa", seed=1)
    b = position(board=board, hands=hands_b, discards=discards, draw_pile=pile_b, rng="00000000000000bb", seed=2)
    assert a.observation(0) == b.observation(0)
    assert a.observation(1) != b.observation(1)
    a.play("7H@d6")
    b.play("7H@d6")  # player 0 drew different cards: the observations of player 1 must not show them
    assert a.observation(1)["hands"][0] == b.observation(1)["hands"][0] == 2
    assert a.observation(1)["last_draw"] == b.observation(1)["last_draw"] == {"player": 0}
    assert a.observation(0)["last_draw"] == {"player": 0, "card": a.to_dict()["last_draw"]["card"]}


def test_r9_observation_is_a_fresh_copy(Game):
    g = Game(players=2, seed=8)
    before = g.to_dict()
    obs = g.observation(0)
    obs["hands"][0].clear()
    obs["board"][0] = "x"
    assert g.to_dict() == before


@pytest.mark.parametrize("player, exc", [(-1, ValueError), (2, ValueError), ("0", TypeError), (None, TypeError),
                                         (True, TypeError), (0.0, TypeError)])
def test_r9_observation_of_a_bad_player(Game, player, exc):
    g = Game(players=2, seed=8)
    with pytest.raises(exc) as e:
        g.observation(player)
    assert "player" in str(e.value)
