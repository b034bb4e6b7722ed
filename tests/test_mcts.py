"""MCTSAgent: the information-set MCTS of the compiled core (sequence_game.agents.mcts).

R9 is the heart of it: the search may read only what the player to move may see. The no-peeking
test re-deals every hidden card and checks that nothing the search reports changes.
"""

from __future__ import annotations

import dataclasses
import random
import time

import pytest
from helpers import board_rows, random_midgame, research_build

sequence_game = pytest.importorskip("sequence_game")
pytest.importorskip("sequence_game._core")

from sequence_game import Game, Move, _core  # noqa: E402
from sequence_game.agents import (  # noqa: E402
    MCTSAgent,
    MoveStats,
    SearchResult,
    agent_from_spec,
)
from sequence_game.agents._peeking import peeking_mcts  # noqa: E402
from sequence_game.agents.search import NODE_BYTES  # noqa: E402


def _mid_game(seed: int = 3, plies: int = 14, players: int = 2) -> Game:
    g = Game(players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        g.play(rng.choice(g.legal_moves()))
    return g


def _redeal_hidden(d: dict, player: int, seed: int) -> dict:
    """The same position with every card ``player`` cannot see (other hands, the draw pile order)
    permuted, keeping every size; the generator state is changed too."""
    d = dict(d)
    hands = [list(h) for h in d["hands"]]
    hidden = [c for p, h in enumerate(hands) if p != player for c in h] + list(d["draw_pile"])
    random.Random(seed).shuffle(hidden)
    k = 0
    for p, h in enumerate(hands):
        if p != player:
            hands[p] = hidden[k:k + len(h)]
            k += len(h)
    d["hands"] = hands
    d["draw_pile"] = hidden[k:]
    d["rng"] = f"{random.Random(seed + 1).getrandbits(64):016x}"
    return d


def _stats(analysis):
    return [(str(m.move), m.visits, m.value) for m in analysis.moves]


# ------------------------------------------------------------------------------------------ R9


def test_r9_no_peeking_hidden_cards_do_not_change_the_search():
    changed_for_cheater = False
    for seed in (3, 4):
        g = _mid_game(seed)
        d = g.to_dict()
        d["last_draw"] = None  # its card would be hidden information of another player
        base = Game.from_dict(d)
        me = base.current_player
        for k in range(3):
            other = Game.from_dict(_redeal_hidden(d, me, 100 * seed + k))
            assert other.observation(me) == base.observation(me)
            assert other.to_dict() != base.to_dict()
            a = MCTSAgent(iterations=1500, seed=11).analyze(base)
            b = MCTSAgent(iterations=1500, seed=11).analyze(other)
            assert _stats(a) == _stats(b)
            assert a.move == b.move and a.nodes == b.nodes
            assert MCTSAgent(iterations=1500, seed=11).select_move(base) == \
                MCTSAgent(iterations=1500, seed=11).select_move(other)
            ca = peeking_mcts(iterations=1500, seed=11).analyze(base)
            cb = peeking_mcts(iterations=1500, seed=11).analyze(other)
            changed_for_cheater |= _stats(ca) != _stats(cb)
    assert changed_for_cheater, "the cheating search should see the re-dealt cards"


def test_r9_cheat_hands_reads_the_hands_but_not_the_draw_pile():
    # The test hook: the other hands come from the true state, the draw pile's order and the
    # generator stay sampled. Re-shuffling only the draw pile (and the generator) changes nothing
    # it reports; re-dealing the hands changes what it sees.
    g = _mid_game(3)
    d = g.to_dict()
    d["last_draw"] = None
    base = Game.from_dict(d)
    me = base.current_player
    pile_only = dict(d)
    pile_only["draw_pile"] = list(reversed(d["draw_pile"]))
    pile_only["rng"] = f"{random.Random(5).getrandbits(64):016x}"
    assert pile_only["draw_pile"] != d["draw_pile"]
    other_pile = Game.from_dict(pile_only)
    a = peeking_mcts(hands_only=True, iterations=1500, seed=11).analyze(base)
    b = peeking_mcts(hands_only=True, iterations=1500, seed=11).analyze(other_pile)
    assert _stats(a) == _stats(b)
    changed = False
    for k in range(3):
        other = Game.from_dict(_redeal_hidden(d, me, 700 + k))
        c = peeking_mcts(hands_only=True, iterations=1500, seed=11).analyze(other)
        changed |= _stats(a) != _stats(c)
    assert changed, "cheat_hands should see re-dealt hands"
    assert peeking_mcts(hands_only=True).name == "mcts:iterations=10000,cheat_hands"


# ------------------------------------------------------------------------------------------ basics


def test_select_move_is_legal_and_deterministic_per_seed():
    g = _mid_game(5)
    a = MCTSAgent(iterations=800, seed=7)
    b = MCTSAgent(iterations=800, seed=7)
    moves_a = [a.select_move(g) for _ in range(3)]
    moves_b = [b.select_move(g) for _ in range(3)]
    assert moves_a == moves_b
    assert all(m in g.legal_moves() for m in moves_a)
    assert all(isinstance(m, Move) for m in moves_a)


def test_select_move_does_not_change_the_game():
    g = _mid_game(6)
    before = g.to_dict()
    MCTSAgent(iterations=500, seed=1).select_move(g)
    MCTSAgent(iterations=500, seed=1, threads=2).analyze(g)
    assert g.to_dict() == before


def test_threads_two_and_max_nodes():
    g = Game(players=2, seed=9)
    r = MCTSAgent(iterations=3000, threads=2, seed=3, options={"max_nodes": 200}).analyze(g)
    assert r.nodes <= 200
    assert r.iterations == 3000
    assert sum(m.visits for m in r.moves) == 3000
    assert r.move in g.legal_moves()
    r = MCTSAgent(iterations=2000, seed=3, options={"max_nodes": 1}).analyze(g)  # only the root: pure playouts
    assert r.nodes == 1 and r.iterations == 2000
    assert r.move in g.legal_moves()


def test_analyze_shape():
    g = Game(players=2, seed=2)
    r = MCTSAgent(iterations=1000, seed=1).analyze(g)
    assert isinstance(r, SearchResult)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.iterations = 5  # type: ignore[misc]
    assert r.iterations == 1000 and 1 <= r.nodes <= 1001
    assert NODE_BYTES > 0 and r.seconds >= 0
    visits = [m.visits for m in r.moves]
    assert visits == sorted(visits, reverse=True)
    assert r.move == r.moves[0].move
    legal = g.legal_moves()
    for m in r.moves:
        assert isinstance(m, MoveStats)
        assert m.move in legal and 0.0 <= m.value <= 1.0


def test_time_limit_is_respected():
    g = Game(players=2, seed=4)
    agent = MCTSAgent(time_limit=0.2, seed=1)
    start = time.perf_counter()
    r = agent.analyze(g)
    elapsed = time.perf_counter() - start
    assert r.seconds < 0.2 * 1.05 + 0.05
    assert elapsed < 1.0
    assert r.iterations > 0
    both = MCTSAgent(time_limit=5.0, iterations=200, seed=1).analyze(g)  # whichever comes first
    assert both.iterations == 200


def test_accepts_the_reference_game():
    from sequence_game.reference import Game as RefGame

    g = RefGame(players=2, seed=8)
    move = MCTSAgent(iterations=300, seed=1).select_move(g)
    assert move in g.legal_moves()


def test_agent_from_spec_builds_mcts():
    agent = agent_from_spec("mcts:time=0.05,threads=2,iterations=400,seed=3")
    assert isinstance(agent, MCTSAgent)
    assert (agent.time_limit, agent.threads, agent.iterations, agent.seed) == (0.05, 2, 400, 3)
    g = Game(players=2, seed=1)
    assert agent.select_move(g) in g.legal_moves()
    assert sequence_game.agents.MCTSAgent is MCTSAgent


def test_default_budget_is_iterations():
    assert MCTSAgent().iterations == 10000
    assert MCTSAgent(time_limit=0.5).iterations is None


def test_evaluation_defaults_and_options():
    from sequence_game.agents.mcts import DEFAULT_WEIGHTS

    a = MCTSAgent()
    assert (a.exploration, a.playout_turns, a.playout_candidates) == (0.2, 6, 1)
    assert tuple(getattr(a.weights, k) for k in a.weights.fields) == DEFAULT_WEIGHTS
    assert len(DEFAULT_WEIGHTS) == 8
    g = _mid_game(7)
    legal = g.legal_moves()
    # Every combination is accepted and returns a legal move with rewards in [0, 1].
    for kwargs in ({"playout_turns": 200, "exploration": 0.7}, {"playout_turns": 20},
                   {"playout_candidates": 0}, {"playout_candidates": 4},
                   {"weights": DEFAULT_WEIGHTS}, {"weights": [2, 6, 20, 80, 400, 30, 0, 0]}):
        r = MCTSAgent(iterations=300, seed=2, options=kwargs).analyze(g)
        assert r.move in legal and r.iterations == 300
        assert all(0.0 <= m.value <= 1.0 for m in r.moves)
    assert "weights=" in repr(MCTSAgent(options={"weights": DEFAULT_WEIGHTS}))


@pytest.mark.parametrize("kwargs, error", [
    ({"iterations": 0}, ValueError),
    ({"iterations": 1.5}, TypeError),
    ({"iterations": True}, TypeError),
    ({"time_limit": 0}, ValueError),
    ({"time_limit": -1.0}, ValueError),
    ({"time_limit": float("inf")}, ValueError),
    ({"time_limit": "1"}, TypeError),
    ({"threads": 0}, ValueError),
    ({"threads": 257}, ValueError),
    ({"threads": 2.0}, TypeError),
    ({"seed": -1}, ValueError),
    ({"seed": 2**64}, ValueError),
    ({"seed": "x"}, TypeError),
    ({"exploration": -0.1}, ValueError),
    ({"exploration": None}, TypeError),
    ({"max_nodes": 0}, ValueError),
    ({"max_nodes": 3, "threads": 4}, ValueError),
    ({"max_nodes": 1e6}, TypeError),
    ({"playout_turns": 0}, ValueError),
    ({"cheat": 1}, TypeError),
    ({"cheat_hands": 1}, TypeError),
    ({"playout_candidates": -1}, ValueError),
    ({"playout_candidates": 65}, ValueError),
    ({"playout_candidates": 1.0}, TypeError),
    ({"weights": (1, 2, 3)}, ValueError),
    ({"weights": 5}, TypeError),
    ({"weights": (1, 4, 15, 50, 150, 40, 30, "x")}, TypeError),
    ({"weights": (1, 4, 15, 50, 150, 0, 30, 20)}, ValueError),
    ({"weights": "12345678"}, ValueError),
    ({"weights": (1, 4, 15, -50, 150, 80, 30, 20)}, ValueError),
    ({"weights": (1, 4, 15, 50, 150, float("nan"), 30, 20)}, ValueError),
    ({"weights": "1/4/15/50/150/80/30"}, ValueError),
    ({"weights": "1/4/15/50/150/80/30/x"}, ValueError),
    ({"weights": "1/4/15/50/150/0/30/20"}, ValueError),
    ({"decisive": 0}, TypeError),
    ({"playout_block_chance": 257}, ValueError),
    ({"playout_block_chance": -1}, ValueError),
    ({"playout_block_chance": 0.5}, TypeError),
    ({"playout_block": -0.1}, ValueError),
    ({"playout_block": float("nan")}, ValueError),
    ({"playout_two_eyed_cost": 1e7}, ValueError),
    ({"playout_one_eyed_cost": "30"}, TypeError),
])
def test_invalid_arguments(kwargs, error):
    budget = {k: v for k, v in kwargs.items() if k in ("iterations", "time_limit", "threads", "seed")}
    options = {k: v for k, v in kwargs.items() if k not in budget}
    with pytest.raises(error):
        MCTSAgent(**budget, options=options)


def test_bounds_are_named_in_the_message():
    for kwargs, words in (({"playout_block_chance": 300}, ("playout_block_chance", "0", "256")),
                          ({"playout_block": -1.0}, ("playout_block", "0", "1e+06")),
                          ({"weights": "1/2/3"}, ("weights", "8 numbers", "/"))):
        with pytest.raises(ValueError) as e:
            MCTSAgent(options=kwargs)
        assert all(w in str(e.value) for w in words), str(e.value)


def test_weights_from_a_spec_round_trip():
    from sequence_game.agents.mcts import DEFAULT_WEIGHTS, format_weights, parse_weights

    a = agent_from_spec("mcts:iters=100,weights=2/6/20/70/300/60/10/5,playout_block_chance=128,decisive=false")
    assert format_weights(a.weights) == "2/6/20/70/300/60/10/5"
    assert parse_weights(format_weights(a.weights)) == (2, 6, 20, 70, 300, 60, 10, 5)
    assert (a.playout_block_chance, a.decisive) == (128, False)
    b = MCTSAgent(options={"playout_block": 1.5, "playout_two_eyed_cost": 0, "playout_one_eyed_cost": 100})
    assert (b.playout_block, b.playout_two_eyed_cost, b.playout_one_eyed_cost) == (1.5, 0.0, 100.0)
    assert parse_weights(format_weights(MCTSAgent().weights)) == DEFAULT_WEIGHTS
    g = _mid_game(6)
    assert a.select_move(g) in g.legal_moves()


def test_playout_policy_options_change_the_search():
    from sequence_game.agents import GreedyAgent

    g = Game(players=2, seed=8)  # lines built by the heuristic: playouts meet fours to block
    greedy = GreedyAgent(seed=1)
    for _ in range(30):
        g.play(greedy.select_move(g))
    base = _stats(MCTSAgent(iterations=600, seed=4).analyze(g))
    assert _stats(MCTSAgent(iterations=600, seed=4, options={"playout_block_chance": 0}).analyze(g)) != base
    # The local values compare several candidate plays: they matter with playout_candidates > 1.
    several = _stats(MCTSAgent(iterations=600, seed=4, options={"playout_candidates": 4}).analyze(g))
    for kwargs in ({"playout_block": 3.0}, {"playout_two_eyed_cost": 0.0, "playout_one_eyed_cost": 0.0}):
        assert _stats(MCTSAgent(iterations=600, seed=4, options={**kwargs, "playout_candidates": 4}).analyze(g)) != several, kwargs


def test_game_over_and_wrong_type():
    g = Game(players=2, seed=1)
    with pytest.raises(TypeError):
        MCTSAgent(iterations=10).select_move("not a game")
    over = Game.from_dict(_won_position())
    assert over.is_over
    with pytest.raises(ValueError):
        MCTSAgent(iterations=10).select_move(over)
    with pytest.raises(ValueError):
        MCTSAgent(iterations=10).analyze(over)
    assert g.legal_moves()


# ------------------------------------------------------------------------------------------ play


def _sequence_cells(first, n=5, step=(0, 1)):
    r, c = first
    return [[r + i * step[0], c + i * step[1]] for i in range(n)]


def _won_position() -> dict:
    board = board_rows(B=["a1", "b1", "c1", "d1", "e1", "a10", "b10", "c10", "d10", "e10"])
    hands = [["2H"], ["3H"]]
    return {"players": 2, "board": board, "hands": hands,
            "sequences": [{"team": 0, "cells": _sequence_cells((0, 0))},
                          {"team": 0, "cells": _sequence_cells((9, 0))}],
            "winner": 0}


def test_takes_an_immediate_win():
    # Team 0 has a sequence (row 1 from the corner) and a10 b10 c10 d10: e10 (TD) wins (R8).
    board = board_rows(B=["b1", "c1", "d1", "e1", "b10", "c10", "d10"], G=["f5", "g5", "h7", "c3"])
    hands = [["TD", "2H", "3H", "4H", "5H", "6H", "7H"], ["8S", "9S", "QS", "KS", "AS", "2C", "3C"]]
    d = {"players": 2, "board": board, "hands": hands, "current_player": 0,
         "sequences": [{"team": 0, "cells": _sequence_cells((0, 0))}]}
    g = Game.from_dict(d)
    move = MCTSAgent(iterations=2000, seed=1).select_move(g)
    assert move.kind == "place" and move.cell == (9, 4), move
    g.play(move)
    assert g.winner == 0


def test_blocks_an_obvious_opponent_win():
    # Team 1 has a sequence and a10 b10 c10 d10 (corner + three chips): it wins with TD or a
    # two-eyed jack on e10. Player 0 holds TD and should take the cell (or remove a chip of the line).
    board = board_rows(G=["b1", "c1", "d1", "e1", "b10", "c10", "d10"], B=["f5", "g5", "c3"])
    hands = [["TD", "2H", "3H", "4H", "5H", "6H", "7H"], ["8S", "9S", "QS", "KS", "AS", "2C", "3C"]]
    d = {"players": 2, "board": board, "hands": hands, "current_player": 0,
         "sequences": [{"team": 1, "cells": _sequence_cells((0, 0))}]}
    g = Game.from_dict(d)
    for seed in (1, 2):
        move = MCTSAgent(iterations=4000, seed=seed).select_move(g)
        assert move.kind == "place" and move.cell == (9, 4), move


def test_evaluation_search_takes_a_win_at_a_tiny_budget():
    # The winning move is decisive (R8): found and kept even with a handful of iterations.
    board = board_rows(B=["b1", "c1", "d1", "e1", "b10", "c10", "d10"], G=["f5", "g5", "h7", "c3"])
    hands = [["2H", "3H", "4H", "TD", "5H", "6H", "7H"], ["8S", "9S", "QS", "KS", "AS", "2C", "3C"]]
    d = {"players": 2, "board": board, "hands": hands, "current_player": 0,
         "sequences": [{"team": 0, "cells": _sequence_cells((0, 0))}]}
    g = Game.from_dict(d)
    for seed in range(3):
        r = MCTSAgent(iterations=30, seed=seed).analyze(g)
        assert r.move.cell == (9, 4) and len(r.moves) == 1
        assert r.moves[0].value == 1.0


@pytest.mark.parametrize("blocker", ["TD", "JD", "JS"])
def test_evaluation_search_blocks_a_winning_threat(blocker):
    # Team 1 has a sequence and a10 b10 c10 d10: e10 (TD) wins it the game. Player 0 must take e10
    # (TD or a two-eyed jack) or remove a chip of that line with a one-eyed jack, at a small budget.
    board = board_rows(G=["b1", "c1", "d1", "e1", "b10", "c10", "d10"], B=["f5", "g5", "c3"])
    hands = [[blocker, "2H", "3H", "4H", "5H", "6H", "7H"], ["8S", "9S", "QS", "KS", "AS", "2C", "3C"]]
    d = {"players": 2, "board": board, "hands": hands, "current_player": 0,
         "sequences": [{"team": 1, "cells": _sequence_cells((0, 0))}]}
    g = Game.from_dict(d)
    for seed in (1, 2, 3):
        move = MCTSAgent(iterations=1500, seed=seed).select_move(g)
        if blocker == "JS":
            assert move.kind == "remove" and move.cell in [(9, 1), (9, 2), (9, 3)], move
        else:
            assert move.kind == "place" and move.cell == (9, 4), move


def test_three_teams_and_twelve_players():
    for players, teams in ((3, 3), (9, 3), (12, 3), (12, 2), (6, 3)):
        g = Game(players=players, teams=teams, seed=players + teams)
        agent = MCTSAgent(iterations=300, seed=2, threads=2)
        for _ in range(4):
            move = agent.select_move(g)
            assert move in g.legal_moves()
            g.play(move)


def test_only_trades_and_pass():
    # Player 0's 2S and 3S are dead (both cells covered): legal = trade 2S, trade 3S, pass (R5).
    board = board_rows(G=["b1", "g9", "c1", "f9"])
    d = {"players": 2, "board": board, "hands": [["2S", "3S"], ["4S", "5S"]], "current_player": 0}
    g = Game.from_dict(d)
    legal = g.legal_moves()
    assert sorted(str(m) for m in legal) == ["pass", "trade 2S", "trade 3S"]
    r = MCTSAgent(iterations=500, seed=1).analyze(g)
    assert {str(m.move) for m in r.moves} == {"pass", "trade 2S", "trade 3S"}
    assert MCTSAgent(iterations=500, seed=1).select_move(g) in legal
    # After trading, the only legal move may be a pass: returned without searching.
    d2 = dict(d, traded_this_turn=True, hands=[["2S"], ["4S", "5S"]])
    d2["discards"] = [["3S"], []]
    g2 = Game.from_dict(d2)
    assert g2.legal_moves() == [Move("pass")]
    assert MCTSAgent(iterations=500, seed=1).select_move(g2) == Move("pass")


def test_plays_whole_games():
    from sequence_game import play_game

    record = play_game([MCTSAgent(iterations=200, seed=1), MCTSAgent(iterations=200, seed=2)], players=2, seed=5)
    assert record is not None


# ------------------------------------------------------------------ the search's move heuristic


def _random_positions(count: int):
    """(game) positions after a random number of random plies, 2, 3 and 4 players."""
    games = (random_midgame(Game, players, seed=seed * 7 + players, max_plies=90)
             for seed in range(count) for players in (2, 3, 4))
    return [g for g in games if g is not None]


def test_heuristic_is_a_port_of_greedy_agent_scores():
    """cpp/include/sequence/search/heuristic.hpp scores every move exactly as GreedyAgent does."""
    from sequence_game import _core
    from sequence_game.agents import GreedyAgent
    from sequence_game.game import move_from_id

    positions = _random_positions(40)
    assert len(positions) > 100
    for g in positions:
        expected = {(m.kind, m.card, m.cell): s for s, m in GreedyAgent().score_moves(g)}
        got = {}
        for move_id, score in _core.heuristic_scores(g._state):
            m = move_from_id(move_id)
            got.setdefault((m.kind, m.card, m.cell), score)  # the first declares variant, as GreedyAgent
        assert got.keys() == expected.keys()
        for key, score in expected.items():
            assert got[key] == pytest.approx(score, rel=1e-9, abs=1e-9), (key, g.to_dict())


def test_heuristic_top_move_is_greedy_agents_move():
    from sequence_game import _core
    from sequence_game.agents import GreedyAgent
    from sequence_game.game import move_from_id

    for g in _random_positions(30):
        scored = [(s, move_from_id(i)) for i, s in _core.heuristic_scores(g._state)]
        trades = [m for _, m in scored if m.kind == "trade"]
        if trades:
            top = {trades[0]}
        else:
            best = max(s for s, _ in scored)
            top = {m for s, m in scored if s >= best - 1e-9}
        for seed in range(3):
            assert GreedyAgent(seed=seed).select_move(g) in top


REMOVED_OPTIONS = ("playout", "playout_epsilon", "evaluate", "align_playouts", "ordered_expansion", "prior_weight",
                   "widen_base", "widen_coef", "widen_exponent")


@pytest.mark.parametrize("name", REMOVED_OPTIONS)
def test_options_that_measured_no_gain_are_refused_with_where_they_were_measured(name):
    """The heuristic-guided tree, greedy and random playouts, unevaluated and unaligned playouts
    measured no gain (docs/research/tuning.md) and are no options: naming one says so, with the
    commit that reproduces the measurements."""
    with pytest.raises(TypeError, match=rf"option {name} was removed: it measured no gain \(docs/research/tuning\.md; "
                                        r"reproduce at commit [0-9a-f]{40}\)"):
        _core.SearchOptions(**{name: 1})
    with pytest.raises(ValueError, match=rf"agent spec 'mcts:{name}=1': .*{name} was removed"):
        agent_from_spec(f"mcts:{name}=1")
    assert name not in _core.SearchOptions.fields and f" {name}=" not in repr(MCTSAgent())


RESEARCH_OPTIONS = {"evaluation": "learned-evaluation", "learned_weights": "learned-evaluation",
                    "expansion_candidates": "learned-evaluation", "inference": "inference",
                    "inference_plays": "inference", "inference_strength": "inference", "inference_margin": "inference",
                    "inference_tries": "inference"}


@pytest.mark.skipif(research_build(), reason="a research build has these options")
@pytest.mark.parametrize("name", RESEARCH_OPTIONS)
def test_a_product_build_refuses_a_research_option_naming_the_build_that_has_it(name):
    """The learned evaluation and the inference of hidden cards measured no gain: they are options of a
    research build only, and the product build says how to get one and where they are described."""
    note = rf"docs/research/{RESEARCH_OPTIONS[name]}\.md"
    with pytest.raises(TypeError, match=rf"^SearchOptions\(\): option {name} is a research option: build with "
                                        rf"-DSEQUENCE_RESEARCH=ON \({note}\)$"):
        _core.SearchOptions(**{name: 1})
    with pytest.raises(TypeError, match=rf"option {name} is a research option"):
        MCTSAgent(options={name: "recent" if name == "inference" else 1})
    with pytest.raises(ValueError, match=rf"agent spec 'mcts:{name}=1': .*option {name} is a research option"):
        agent_from_spec(f"mcts:{name}=1")
    assert name not in _core.SearchOptions.fields and not hasattr(MCTSAgent(), name)
    assert _core.build_info()["research"] is False


def _assert_no_peeking(options: dict, game_seed: int, redeal_seed: int, search_seed: int) -> None:
    """R9: MCTSAgent(options=options) reports the same statistics in two games that differ only in what
    the player to move cannot see (other hands, draw pile order, generator)."""
    d = _mid_game(game_seed).to_dict()
    d["last_draw"] = None  # its card would be hidden information of another player
    base = Game.from_dict(d)
    me = base.current_player
    for k in range(2):
        other = Game.from_dict(_redeal_hidden(d, me, redeal_seed + k))
        assert other.observation(me) == base.observation(me)
        a = MCTSAgent(iterations=800, seed=search_seed, options=options).analyze(base)
        b = MCTSAgent(iterations=800, seed=search_seed, options=options).analyze(other)
        assert _stats(a) == _stats(b) and a.nodes == b.nodes


def test_r9_no_peeking_with_the_tunable_options():
    # Every option the tuner reaches (sequence_game.training.tune), set away from its default.
    tuned = {"exploration": 0.35, "playout_turns": 4, "weights": "1/4/20/70/150/60/20/10", "decisive": False,
             "playout_block_chance": 160, "playout_block": 1.0, "playout_two_eyed_cost": 60.0,
             "playout_one_eyed_cost": 20.0, "playout_candidates": 3}
    _assert_no_peeking(tuned, game_seed=9, redeal_seed=700, search_seed=6)


# ------------------------------------------------------------------------------------------ the constructor


def test_the_constructor_takes_the_budget_and_the_options_only():
    import inspect

    from sequence_game.agents import SearchOptions

    assert list(inspect.signature(MCTSAgent).parameters) == ["iterations", "time_limit", "threads", "seed", "options"]
    # options as a mapping, as a SearchOptions, and as a spec: the same search
    as_mapping = MCTSAgent(iterations=400, seed=3, options={"exploration": 0.35, "weights": "1/4/15/50/150/60/30/20"})
    as_struct = MCTSAgent(iterations=400, seed=3, options=SearchOptions(exploration=0.35, weights=(1, 4, 15, 50, 150, 60, 30, 20)))
    as_spec = agent_from_spec("mcts:iters=400,seed=3,exploration=0.35,weights=1/4/15/50/150/60/30/20")
    assert as_mapping.options == as_struct.options == as_spec.options
    g = _mid_game(4)
    assert _stats(as_mapping.analyze(g)) == _stats(as_struct.analyze(g)) == _stats(as_spec.analyze(g))
    given = SearchOptions(exploration=0.35)
    MCTSAgent(iterations=10, options=given)
    assert given.iterations == 10000  # the caller's struct is copied, not changed


@pytest.mark.parametrize("options, error, words", [
    ({"iterations": 5}, TypeError, ["iterations", "MCTSAgent(iterations="]),
    ({"seed": 5}, TypeError, ["seed"]),
    ({"cheat": True}, TypeError, ["cheat", "R9"]),
    ({"cheat_hands": False}, TypeError, ["cheat_hands", "R9"]),
    ({"nonsense": 1}, TypeError, ["nonsense"]),
    ("exploration=0.3", TypeError, ["SearchOptions", "str"]),
])
def test_options_refuses_the_budget_peeking_and_unknown_fields(options, error, words):
    with pytest.raises(error) as info:
        MCTSAgent(options=options)
    assert all(w in str(info.value) for w in words), str(info.value)


def test_a_search_options_struct_may_not_carry_a_budget_or_peek():
    from sequence_game.agents import SearchOptions

    with pytest.raises(ValueError, match="threads"):
        MCTSAgent(options=SearchOptions(threads=2))
    with pytest.raises(TypeError, match="unexpected keyword argument 'cheat'"):
        SearchOptions(cheat=True)  # the test hook is no field of the options (the searches' peek)
    with pytest.raises(ValueError, match="cheat"):
        agent_from_spec("mcts:iters=100,cheat=true")


def test_the_caller_limits_lead_both_options_and_the_test_hook_is_no_field():
    """The caller's limits (iterations, time_limit, threads, seed) are one group at the head of both
    searches' options; reading hidden cards is an argument of the search functions (a test hook),
    never a field a player's options could carry."""
    from sequence_game import _core

    limits = ("iterations", "time_limit", "threads", "seed")
    assert _core.SearchOptions.fields[:4] == _core.RolloutOptions.fields[:4] == limits
    assert not {"cheat", "cheat_hands", "reveal"} & set(_core.SearchOptions.fields + _core.RolloutOptions.fields)
    g = _mid_game(2)
    options = _core.SearchOptions(iterations=200)
    honest = _core.mcts_search(g._state, options, 5)
    assert _stats_of(_core.mcts_search(g._state, options, 5, None, "none")) == _stats_of(honest)
    for search, opts in ((_core.mcts_search, options), (_core.rollout_search, _core.RolloutOptions(iterations=50))):
        with pytest.raises(ValueError, match="peek must be 'none', 'hands' or 'all', not 'cards'"):
            search(g._state, opts, 1, None, "cards")
        with pytest.raises(TypeError, match="peek must be 'none', 'hands' or 'all', not bool"):
            search(g._state, opts, 1, None, True)


def _stats_of(result):
    return [(m, v) for m, v, _ in result.moves]


def test_the_peeking_specs_exist_only_with_the_test_hooks_variable():
    import os
    import subprocess
    import sys

    # the search the former spec mcts:iters=300,cheat=True built: MCTSAgent's defaults reading everything
    code = ("from sequence_game.agents import SearchOptions, agent_from_spec; "
            "a = agent_from_spec('mcts-peek:iters=300,seed=2'); "
            "print(a.name, a.options == SearchOptions(iterations=300), a._peek)")
    env = dict(os.environ, SEQUENCE_GAME_TEST_HOOKS="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["mcts-peek:iterations=300,seed=2", "True", "all"]
    with pytest.raises(ValueError, match="unknown agent 'mcts-peek'"):
        agent_from_spec("mcts-peek:iters=300")
