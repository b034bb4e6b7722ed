"""RolloutAgent: determinized rollout search with common random numbers (sequence_game.agents.rollout).

As for MCTSAgent, R9 is the heart of it: the search reads only what the player to move may see, so
re-dealing every hidden card changes nothing it reports; the peeking test hook (``reveal``) shows
that the re-dealt cards would matter to a search allowed to see them.
"""

from __future__ import annotations

import time

import pytest
from helpers import board_rows, research_build, rest_of_deck

sequence_game = pytest.importorskip("sequence_game")
pytest.importorskip("sequence_game._core")

from sequence_game import Game, Move  # noqa: E402
from sequence_game.agents import GreedyAgent, MoveStats, RolloutAgent, agent_from_spec  # noqa: E402  # noqa: E402
from sequence_game.agents._peeking import peeking_rollout  # noqa: E402
from test_mcts import _mid_game, _redeal_hidden, _sequence_cells, _stats, _won_position  # noqa: E402


@pytest.mark.parametrize("halving", [False, pytest.param(True, marks=pytest.mark.skipif(
    not research_build(), reason="halving is a research build's option (SEQUENCE_RESEARCH)"))])
def test_r9_no_peeking_hidden_cards_do_not_change_the_search(halving):
    changed_for_revealed = changed_for_hands = False
    kw = {"halving": True} if halving else {}
    for seed in (3, 4):
        d = _mid_game(seed).to_dict()
        d["last_draw"] = None  # its card would be hidden information of another player
        base = Game.from_dict(d)
        me = base.current_player
        for k in range(3):
            other = Game.from_dict(_redeal_hidden(d, me, 100 * seed + k))
            assert other.observation(me) == base.observation(me) and other.to_dict() != base.to_dict()
            a = RolloutAgent(iterations=400, seed=11, horizon=30, **kw).analyze(base)
            b = RolloutAgent(iterations=400, seed=11, horizon=30, **kw).analyze(other)
            assert _stats(a) == _stats(b) and a.move == b.move
            ra = peeking_rollout(iterations=400, seed=11, horizon=30, **kw).analyze(base)
            rb = peeking_rollout(iterations=400, seed=11, horizon=30, **kw).analyze(other)
            changed_for_revealed |= _stats(ra) != _stats(rb)
            ha = peeking_rollout(hands_only=True, iterations=400, seed=11, horizon=30, **kw).analyze(base)
            hb = peeking_rollout(hands_only=True, iterations=400, seed=11, horizon=30, **kw).analyze(other)
            changed_for_hands |= _stats(ha) != _stats(hb)
    assert changed_for_revealed, "the revealing search should see the re-dealt cards"
    assert changed_for_hands, "reading the hands should see the re-dealt hands"


@pytest.mark.skipif(not research_build(), reason="opponent modelling is a research build's option (SEQUENCE_RESEARCH)")
def test_opponent_modelling_reads_the_last_play():
    # After a play by the opponent, the evidence changes the sampled worlds; without history (a
    # position loaded from a dict) or with inference_strength=0 there is none.
    g = Game(players=2, seed=21)
    greedy = GreedyAgent(seed=1)
    for _ in range(12):
        g.play(greedy.select_move(g))
    loaded = Game.from_dict(g.to_dict())
    kw = dict(iterations=600, seed=5, horizon=30, inference_strength=3.0)
    with_history = RolloutAgent(**kw).analyze(g)
    without = RolloutAgent(**kw).analyze(loaded)
    assert _stats(with_history) != _stats(without)
    kw["inference_strength"] = 0.0  # the default
    off_a = RolloutAgent(**kw).analyze(g)
    off_b = RolloutAgent(**kw).analyze(loaded)
    assert _stats(off_a) == _stats(off_b) == _stats(without)
    assert RolloutAgent().inference_strength == 0.0 and RolloutAgent().inference_tries == 32
    assert RolloutAgent(inference_tries=4).inference_tries == 4
    with pytest.raises(ValueError, match="inference_strength"):
        RolloutAgent(inference_strength=float("nan"))
    with pytest.raises(ValueError, match="inference_tries"):
        RolloutAgent(inference_tries=0)


@pytest.mark.skipif(research_build(), reason="a product build's refusal")
@pytest.mark.parametrize("option, note", [("inference_strength", "inference"), ("inference_tries", "inference"),
                                          ("keep_two_eyed", "ceilings"), ("halving", "ceilings")])
def test_a_product_build_refuses_the_research_options_by_name(option, note):
    # The options that measured no gain are a research build's (docs/research/).
    with pytest.raises(TypeError, match=rf"option {option} is a research option: build with -DSEQUENCE_RESEARCH=ON "
                                        rf"\(docs/research/{note}\.md\)"):
        RolloutAgent(**{option: 1})
    with pytest.raises(TypeError, match=option):
        sequence_game._core.RolloutOptions(**{option: 1})
    assert option not in sequence_game._core.RolloutOptions.fields
    with pytest.raises(ValueError, match=option):
        agent_from_spec(f"rollout:{option}=1")


def test_select_move_is_legal_deterministic_and_leaves_the_game():
    g = _mid_game(5)
    before = g.to_dict()
    a = [RolloutAgent(iterations=300, seed=7, horizon=40).select_move(g) for _ in range(2)]
    b = [RolloutAgent(iterations=300, seed=7, horizon=40, threads=2).select_move(g) for _ in range(2)]
    assert a[0] == a[1] and b[0] == b[1]
    assert all(isinstance(m, Move) and m in g.legal_moves() for m in a + b)
    assert g.to_dict() == before


def test_analyze_shape():
    g = Game(players=2, seed=2)
    r = RolloutAgent(iterations=800, seed=1, candidates=5, horizon=30).analyze(g)
    assert r.nodes == 0 and r.seconds >= 0
    assert len(r.moves) == 5 and r.iterations == 800 and r.seconds >= 0
    assert len({m.visits for m in r.moves}) == 1  # every candidate meets the same worlds
    values = [m.value for m in r.moves]
    assert values == sorted(values, reverse=True)
    assert r.move == r.moves[0].move
    legal = g.legal_moves()
    for m in r.moves:
        assert isinstance(m, MoveStats)
        assert m.move in legal and 0.0 <= m.value <= 1.0


@pytest.mark.skipif(not research_build(), reason="halving is a research build's option (SEQUENCE_RESEARCH)")
def test_halving_drops_the_worse_half_each_round_and_ranks_the_last_in_play_first():
    # 12 candidates, 4 rounds of 300 playouts: 12 x 25 worlds, 6 x 50, 3 x 100, 2 x 150.
    g = _mid_game(6)
    r = RolloutAgent(iterations=1200, seed=3, candidates=12, horizon=10, halving=True).analyze(g)
    assert len(r.moves) == 12 and r.iterations == 1200 and r.move == r.moves[0].move
    assert [m.visits for m in r.moves] == [325, 325, 175, 75, 75, 75, 25, 25, 25, 25, 25, 25]
    assert r.moves[0].value >= r.moves[1].value
    assert RolloutAgent().halving is False and agent_from_spec("rollout:halving=true").halving is True
    # The same seed and budget without halving: every candidate meets the same 100 worlds.
    flat = RolloutAgent(iterations=1200, seed=3, candidates=12, horizon=10).analyze(g)
    assert {m.visits for m in flat.moves} == {100}
    # An analysis in slices merges them the same way: the candidates kept longest first.
    infos = list(RolloutAgent(iterations=2400, seed=3, candidates=12, horizon=10, halving=True).analysis(g, every=1200))
    last = infos[-1]
    visits = [m.visits for m in last.moves]
    assert visits == sorted(visits, reverse=True) and last.move == last.moves[0].move


def test_time_limit_is_respected_and_is_the_default():
    g = Game(players=2, seed=4)
    start = time.perf_counter()
    r = RolloutAgent(time_limit=0.2, seed=1).analyze(g)
    assert r.seconds < 0.2 * 1.05 + 0.05 and time.perf_counter() - start < 1.0
    assert r.iterations > 0
    assert RolloutAgent().time_limit == 1.0 and RolloutAgent().iterations is None
    assert RolloutAgent(time_limit=5.0, iterations=160, candidates=8, seed=1).analyze(g).iterations == 160


def test_agent_from_spec_builds_rollout():
    agent = agent_from_spec("rollout:time=0.05,threads=2,iterations=100,seed=3,horizon=20")
    assert isinstance(agent, RolloutAgent)
    assert (agent.time_limit, agent.threads, agent.iterations, agent.seed, agent.horizon) == (0.05, 2, 100, 3, 20)
    g = Game(players=2, seed=1)
    assert agent.select_move(g) in g.legal_moves()
    assert sequence_game.agents.RolloutAgent is RolloutAgent


@pytest.mark.parametrize("kwargs, error", [
    (dict(iterations=0), ValueError), (dict(iterations=1.5), TypeError), (dict(time_limit=0), ValueError),
    (dict(time_limit="1"), TypeError), (dict(threads=0), ValueError), (dict(candidates=0), ValueError),
    (dict(horizon=0), ValueError), (dict(epsilon=1.5), ValueError), (dict(epsilon=-0.1), ValueError),
    (dict(reveal=2), TypeError), (dict(weights=[1] * 8), TypeError),
    (dict(seed=-1), ValueError), (dict(seed="x"), TypeError), (dict(candidates=True), TypeError),
])
def test_invalid_arguments(kwargs, error):
    with pytest.raises(error):
        RolloutAgent(**kwargs)


def test_game_over_wrong_type_and_reference_game():
    from sequence_game.reference import Game as RefGame

    with pytest.raises(TypeError):
        RolloutAgent(iterations=10).select_move("not a game")
    over = Game.from_dict(_won_position())
    with pytest.raises(ValueError):
        RolloutAgent(iterations=10).select_move(over)
    with pytest.raises(ValueError):
        RolloutAgent(iterations=10).analyze(over)
    ref = RefGame(players=2, seed=8)
    assert RolloutAgent(iterations=100, seed=1, horizon=20).select_move(ref) in ref.legal_moves()


def test_takes_an_immediate_win_without_search():
    board = board_rows(B=["b1", "c1", "d1", "e1", "b10", "c10", "d10"], G=["f5", "g5", "h7", "c3"])
    hands = [["2H", "3H", "4H", "TD", "5H", "6H", "7H"], ["8S", "9S", "QS", "KS", "AS", "2C", "3C"]]
    g = Game.from_dict({"players": 2, "board": board, "hands": hands, "current_player": 0,
                        "sequences": [{"team": 0, "cells": _sequence_cells((0, 0))}]})
    r = RolloutAgent(iterations=50, seed=1).analyze(g)
    assert r.move.cell == (9, 4) and len(r.moves) == 1


@pytest.mark.skipif(not research_build(), reason="keep_two_eyed is a research build's option (SEQUENCE_RESEARCH)")
def test_keep_two_eyed_compares_no_wild_jack_spent_on_a_cell_that_decides_nothing():
    """R5: with keep_two_eyed, a two-eyed jack is a candidate only on a cell that completes a
    sequence (R7) or takes another team's completing cell (g7 here), or when nothing else is left."""
    from sequence_game.training.jack_match import wild_jack_spent_freely

    board = board_rows(G=["c7", "d7", "e7", "f7"], B=["b7", "e5", "f5"])
    hands = [["JD", "2D", "3D", "4D", "5D", "6D", "7D"], ["2S", "3S", "4S", "5S", "6S", "7S", "8S"]]
    g = Game.from_dict({"players": 2, "board": board, "hands": hands, "current_player": 0})
    kw = dict(iterations=400, seed=1, horizon=4, candidates=1024)
    spent = RolloutAgent(**kw).analyze(g)
    kept = RolloutAgent(**kw, keep_two_eyed=True).analyze(g)
    assert any(wild_jack_spent_freely(g, m.move) for m in spent.moves)
    assert kept.moves and not any(wild_jack_spent_freely(g, m.move) for m in kept.moves)
    assert any(m.move.card == "JD" and m.move.cell == (6, 6) for m in kept.moves)  # the block on g7 stays
    assert {m.move for m in kept.moves} < {m.move for m in spent.moves}
    assert RolloutAgent().keep_two_eyed is False
    assert agent_from_spec("rollout:keep_two_eyed=true").keep_two_eyed is True
    only_jacks = Game.from_dict({"players": 2, "board": board, "hands": [["JD", "JC"], hands[1]], "current_player": 0})
    move = RolloutAgent(iterations=100, seed=1, horizon=4, keep_two_eyed=True).select_move(only_jacks)
    assert move in only_jacks.legal_moves() and move.card in ("JD", "JC")


@pytest.mark.parametrize("keep", [False, pytest.param(True, marks=pytest.mark.skipif(
    not research_build(), reason="keep_two_eyed is a research build's option (SEQUENCE_RESEARCH)"))])
@pytest.mark.parametrize("blocker", ["TD", "JD", "JS"])
def test_blocks_a_winning_threat(blocker, keep):
    # Team 1 has a sequence and a10 b10 c10 d10: e10 (TD) wins it the game. Almost every card is
    # on the discard piles, and the few unseen ones are mostly e10's winners (the other TD, the
    # two-eyed jacks), so the opponent wins in every world unless player 0 takes e10 or removes a
    # chip of that line with a one-eyed jack.
    board = board_rows(G=["b1", "c1", "d1", "e1", "b10", "c10", "d10"], B=["f5", "g5", "c3"])
    mine = [blocker, "2H", "3H", "4H", "5H", "6H", "7H"]
    theirs = ["JC", "JC", "JD", "TD", "8S", "9S", "QS"]
    if blocker == "JD":
        theirs[2] = "KS"  # our JD: one two-eyed jack of diamonds left unseen
    pile = ["2S", "3S", "4S"]
    discards = [rest_of_deck([mine, theirs, pile]), []]
    g = Game.from_dict({"players": 2, "board": board, "hands": [mine, theirs], "draw_pile": pile,
                        "discards": discards, "current_player": 0,
                        "sequences": [{"team": 1, "cells": _sequence_cells((0, 0))}]})
    for seed in (1, 2):
        move = RolloutAgent(iterations=400, seed=seed, horizon=40, **({"keep_two_eyed": True} if keep else {})).select_move(g)
        if blocker == "JS":
            assert move.kind == "remove" and move.cell in [(9, 1), (9, 2), (9, 3)], move
        else:
            assert move.kind == "place" and move.cell == (9, 4), move


def test_three_teams_twelve_players_trades_and_pass():
    for players, teams in ((3, 3), (12, 3), (12, 2), (6, 3)):
        g = Game(players=players, teams=teams, seed=players + teams)
        agent = RolloutAgent(iterations=120, seed=2, horizon=20)
        for _ in range(3):
            move = agent.select_move(g)
            assert move in g.legal_moves()
            g.play(move)
    board = board_rows(G=["b1", "g9", "c1", "f9"])
    g = Game.from_dict({"players": 2, "board": board, "hands": [["2S", "3S"], ["4S", "5S"]], "current_player": 0})
    legal = g.legal_moves()
    assert sorted(str(m) for m in legal) == ["pass", "trade 2S", "trade 3S"]
    assert RolloutAgent(iterations=60, seed=1).select_move(g) in legal


def test_plays_whole_games():
    from sequence_game import play_game

    record = play_game([RolloutAgent(iterations=64, seed=1, horizon=10), GreedyAgent(seed=2)], players=2, seed=5)
    assert record.result is not None and len(record.moves) > 10
