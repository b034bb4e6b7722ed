"""Inference of hidden cards in MCTSAgent (``inference="recent"``, cpp/include/sequence/search/inference.hpp),
an option of the research build only (CMake SEQUENCE_RESEARCH; the product build refuses it by name,
tests/test_mcts.py).

R9 is the heart of it: the evidence is the public moves of the game, so two games with the same
public history and different hidden cards (hands, draw pile order, generator) must give the same
search statistics. The likelihood model itself is tested in C++ (cpp/tests/test_inference.cpp).
"""

from __future__ import annotations

import random

import pytest

sequence_game = pytest.importorskip("sequence_game")
pytest.importorskip("sequence_game._core")

from helpers import research_build  # noqa: E402
from sequence_game import Game  # noqa: E402
from sequence_game.agents import GreedyAgent, MCTSAgent, agent_from_spec  # noqa: E402
from sequence_game.agents._peeking import peeking_mcts  # noqa: E402

pytestmark = pytest.mark.skipif(not research_build(), reason="inference is a research build's option (SEQUENCE_RESEARCH)")


def _stats(analysis):
    return [(str(m.move), m.visits, m.value) for m in analysis.moves]


def _greedy_game(seed: int, plies: int, players: int = 2) -> tuple[Game, list]:
    """A fresh deal played ``plies`` moves by GreedyAgent (so that the plays are evidence), and the
    moves played."""
    g = Game(players=players, seed=seed)
    agent = GreedyAgent(seed=seed)
    moves = []
    for _ in range(plies):
        m = agent.select_move(g)
        moves.append(m)
        g.play(m)
    return g, moves


def _twin(seed: int, plies: int, players: int = 2):
    """Two games with the same public history and different hidden cards: every card another
    player holds from the deal to the end and never plays is swapped with a card near the bottom of
    the draw pile that nobody draws, the generator is changed, and the same moves are replayed.
    None if a replayed move is illegal in the twin (a pass a swapped-in card would forbid)."""
    g, moves = _greedy_game(seed, plies, players)
    me = g.current_player
    start = Game(players=players, seed=seed).to_dict()
    discarded = {p: set() for p in range(players)}
    replay = Game.from_dict(start)
    for m in moves:
        if m.kind != "pass":
            discarded[replay.current_player].add(m.card)
        replay.play(m)
    d = dict(start)
    hands = [list(h) for h in d["hands"]]
    pile = list(d["draw_pile"])  # top (next drawn) first: the bottom is the end
    bottom = len(pile) - 1
    for p in range(players):
        if p == me:
            continue
        for i, card in enumerate(hands[p]):
            if card in discarded[p] or bottom < len(pile) - 10:
                continue
            while bottom >= len(pile) - 10 and pile[bottom] == card:
                bottom -= 1
            if bottom < len(pile) - 10:
                break
            hands[p][i], pile[bottom] = pile[bottom], card
            bottom -= 1
        hands[p].sort()
    d["hands"], d["draw_pile"] = hands, pile
    d["rng"] = f"{random.Random(seed).getrandbits(64):016x}"
    twin = Game.from_dict(d)
    base = Game.from_dict(start)
    try:
        for m in moves:
            base.play(m)
            twin.play(m)
    except ValueError:
        return None
    return base, twin


# ------------------------------------------------------------------------------------------ R9


def test_r9_no_peeking_the_inference_reads_only_the_public_history():
    twins = 0
    changed_for_cheater = False
    for seed in (3, 4, 5):
        pair = _twin(seed, plies=16)
        if pair is None:
            continue
        base, other = pair
        twins += 1
        me = base.current_player
        assert other.observation(me) == base.observation(me)
        assert other.to_dict()["hands"] != base.to_dict()["hands"]
        assert other.history == base.history
        kw = dict(iterations=1500, seed=11, options={"inference": "recent", "inference_plays": 6})
        a = MCTSAgent(**kw).analyze(base)
        b = MCTSAgent(**kw).analyze(other)
        assert _stats(a) == _stats(b)
        assert a.move == b.move and a.nodes == b.nodes
        assert MCTSAgent(**kw).select_move(base) == MCTSAgent(**kw).select_move(other)
        ca = peeking_mcts(iterations=1500, seed=11).analyze(base)
        cb = peeking_mcts(iterations=1500, seed=11).analyze(other)
        changed_for_cheater |= _stats(ca) != _stats(cb)
    assert twins >= 2
    assert changed_for_cheater, "the cheating search should see the swapped cards"


# ------------------------------------------------------------------------------------------ behaviour


def test_inference_changes_the_search_only_when_there_is_a_history():
    g, _ = _greedy_game(21, plies=14)
    loaded = Game.from_dict(g.to_dict())  # the same position with no history: no evidence
    kw = dict(iterations=2000, seed=5)
    plain = MCTSAgent(**kw).analyze(g)
    inferred = MCTSAgent(**kw, options={"inference": "recent"}).analyze(g)
    assert _stats(plain) != _stats(inferred)
    assert _stats(MCTSAgent(**kw, options={"inference": "recent"}).analyze(loaded)) == _stats(plain)
    # inference_strength=0: every proposal is accepted, but drawn another way than determinize().
    flat = MCTSAgent(**kw, options={"inference": "recent", "inference_strength": 0.0}).analyze(g)
    assert all(m.move in g.legal_moves() for m in flat.moves)


def test_inference_is_deterministic_per_seed_and_plays_legal_moves():
    for players in (2, 3, 4):
        g, _ = _greedy_game(7, plies=12, players=players)
        kw = dict(iterations=800, seed=9, options={"inference": "recent"})
        a, b = MCTSAgent(**kw).analyze(g), MCTSAgent(**kw).analyze(g)
        assert _stats(a) == _stats(b)
        assert a.move in g.legal_moves()
        assert sum(m.visits for m in a.moves) == a.iterations == 800
        two = MCTSAgent(threads=2, **kw).analyze(g)
        assert two.iterations == 800 and two.move in g.legal_moves()


def test_inference_does_not_change_the_game():
    g, _ = _greedy_game(8, plies=10)
    before = (g.to_dict(), list(g.history))
    MCTSAgent(iterations=500, seed=1, options={"inference": "recent"}).select_move(g)
    assert (g.to_dict(), list(g.history)) == before


# ------------------------------------------------------------------------------------------ options


def test_inference_options_defaults_and_specs():
    a = MCTSAgent()
    assert (a.inference, a.inference_plays, a.inference_strength, a.inference_margin, a.inference_tries) == \
        ("off", 4, 1.0, 1.0, 16)
    b = agent_from_spec("mcts:iters=100,inference=recent,inference_plays=6,inference_strength=2,inference_tries=8")
    assert (b.inference, b.inference_plays, b.inference_strength, b.inference_tries) == ("recent", 6, 2.0, 8)
    assert "inference=recent" in b.name and "inference" not in a.name
    assert agent_from_spec("mcts-v1").inference == "off"
    assert MCTSAgent(options={"inference": sequence_game._core.InferenceKind.recent}).inference == "recent"


@pytest.mark.parametrize("kwargs, error, words", [
    ({"inference": "sometimes"}, ValueError, ["inference", "'off' or 'recent'"]),
    ({"inference": 1}, TypeError, ["inference"]),
    ({"inference_plays": 0}, ValueError, ["inference_plays", "1..64"]),
    ({"inference_plays": 65}, ValueError, ["inference_plays", "1..64"]),
    ({"inference_plays": 2.5}, TypeError, ["inference_plays"]),
    ({"inference_strength": -0.5}, ValueError, ["inference_strength", "0", "1e+06"]),
    ({"inference_strength": float("nan")}, ValueError, ["inference_strength"]),
    ({"inference_strength": 1e7}, ValueError, ["inference_strength", "1e+06"]),
    ({"inference_margin": -1}, ValueError, ["inference_margin", "0", "1e+06"]),
    ({"inference_margin": float("inf")}, ValueError, ["inference_margin"]),
    ({"inference_tries": 0}, ValueError, ["inference_tries", "1..65536"]),
    ({"inference_tries": 70000}, ValueError, ["inference_tries", "65536"]),
])
def test_bad_inference_options_are_refused_with_the_bounds(kwargs, error, words):
    with pytest.raises(error) as info:
        MCTSAgent(options=kwargs)
    for w in words:
        assert w in str(info.value)
    options = MCTSAgent().options
    key, value = next(iter(kwargs.items()))
    with pytest.raises(error):
        setattr(options, key, value)
    assert options == MCTSAgent().options  # a refused assignment changes nothing
