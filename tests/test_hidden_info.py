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


def _hidden(state, keep):
    """The cards ``keep`` cannot see: the other hands and the draw pile in its order."""
    return [h for p, h in enumerate(state["hands"]) if p not in keep], state["draw_pile"]


@pytest.mark.parametrize("players, keep", [(2, [0]), (3, [1]), (4, [0, 2]), (6, [0])])
def test_r9_redealt_deals_afresh_exactly_what_keep_cannot_see(Game, players, keep):
    import random
    from collections import Counter

    g = Game(players=players, seed=11)
    rng = random.Random(players)
    for _ in range(12):
        g.play(rng.choice(g.legal_moves()))
    before = g.to_dict()
    a, b, c = g.redealt(keep, seed=1), g.redealt(keep, seed=1), g.redealt(keep, seed=2)
    assert a.to_dict() == b.to_dict() and a.history == []  # the seed fixes it; a new history starts
    for p in keep:  # what the kept seats see is unchanged, every public fact included
        assert a.observation(p) == g.observation(p)
    for p in range(players):  # every hand keeps its size; the spectators' view is unchanged
        assert len(a.hand(p)) == len(g.hand(p))
    pool = lambda s: Counter(c for h in _hidden(s, keep)[0] for c in h) + Counter(_hidden(s, keep)[1])  # noqa: E731
    assert pool(a.to_dict()) == pool(before)  # the same cards, dealt again
    assert _hidden(a.to_dict(), keep) != _hidden(before, keep) != _hidden(c.to_dict(), keep)
    assert a.to_dict()["rng"] != before["rng"]  # later reshuffles (R6) are fresh too
    g.redealt(keep)  # seed None: fresh entropy
    with pytest.raises(ValueError, match="player"):
        g.redealt([players])


def test_r9_redealt_is_the_same_in_the_core_and_the_reference():
    import sequence_game.reference as reference
    from sequence_game import Game as Core

    for seed in range(5):
        core, ref = Core(players=3, seed=seed), reference.Game(players=3, seed=seed)
        for _ in range(7):
            m = core.legal_moves()[seed % len(core.legal_moves())]
            core.play(m)
            ref.play(m)
        assert core.redealt([seed % 3], seed=seed).to_dict() == ref.redealt([seed % 3], seed=seed).to_dict()


def test_r9_a_plain_undo_puts_the_drawn_card_back_on_top(Game):
    """Why an undo that others can see needs the redeal: ``Game.undo`` is exact (searches rely on
    it), so the card a player drew is on top of the pile again and the next draw is known."""
    g = Game(players=2, seed=4)
    move = g.legal_moves()[0]
    g.play(move)
    drawn = g.to_dict()["last_draw"]["card"]
    g.undo()
    assert g.to_dict()["draw_pile"][0] == drawn
    r = g.redealt([g.current_player], seed=9)
    assert r.observation(0) == g.observation(0) and r.to_dict()["draw_pile"] != g.to_dict()["draw_pile"]
