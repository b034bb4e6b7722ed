"""Properties of whole games, checked move by move against the independent model in tests/model.py:
random seeded games for every player count and team split, and hypothesis-made positions.

Default: a few games per config. ``SEQUENCE_SOAK=1`` plays many more (``@pytest.mark.soak``)."""

import json
import random

import model
import pytest
from helpers import CONFIGS, SOAK, json_round
from hypothesis import given
from hypothesis import strategies as st
from sequence_game import Move
from strategies import positions


def _pick(rng: random.Random, moves, greed=0.7):
    """Random, but with probability ``greed`` greedy for sequences so wins, long rows and locks
    happen; ``greed=0`` gives long games (reshuffles, turn caps)."""
    decl = [m for m in moves if m.declares]
    if greed < 0:  # avoid sequences: long games, reshuffles, the turn cap
        quiet = [m for m in moves if not m.declares]
        return rng.choice(quiet or moves)
    if decl and rng.random() < greed:
        return rng.choice(decl)
    return rng.choice(moves)


def play_checked_game(Game, players, teams, seed, max_turns=400, referee=True, check_model=True, greed=0.7):
    rng = random.Random(seed * 1000 + players * 10 + teams)
    g = Game(players=players, teams=teams, seed=seed, max_turns=max_turns)
    history = [g.to_dict()]
    steps = 0
    while True:
        d = history[-1]
        model.check_invariants(d)
        legal = g.legal_moves()
        assert (legal == []) == g.is_over
        if check_model:
            assert legal == model.legal_moves(d), f"legal moves differ from the model at {json.dumps(d)}"
        assert legal == sorted(legal, key=Move.sort_key) and len(set(legal)) == len(legal)
        for m in legal:
            assert Move.parse(str(m)) == m
        if steps % 7 == 0:
            assert Game.from_dict(json_round(d)).to_dict() == d
        if g.is_over:
            break
        if referee and d["last_draw"] is not None and rng.random() < 0.03:
            g.missed_draw(d["last_draw"]["player"])
            want = model.missed_draw(d, d["last_draw"]["player"])
        else:
            m = _pick(rng, legal, greed)
            turn = g.turn
            g.play(m)
            assert g.turn == turn + (0 if m.kind == "trade" else 1)
            want = model.apply(d, m) if check_model else None
        got = g.to_dict()
        if want is not None:
            assert got == want, f"state after move differs from the model; before: {json.dumps(d)}"
        history.append(got)
        steps += 1
        assert steps < 5 * max_turns, "the game does not end"
    assert g.is_over and (g.is_draw != (g.winner is not None))
    assert g.turn <= max_turns
    # undo to the deal restores every state
    for d in reversed(history[:-1]):
        g.undo()
        assert g.to_dict() == d
    with pytest.raises(ValueError):
        g.undo()
    return history


GAMES = 40 if SOAK else 2


@pytest.mark.parametrize("players, teams", CONFIGS)
@pytest.mark.parametrize("greed", [0.7, 0.0, -1], ids=["greedy", "uniform", "avoiding"])
@pytest.mark.parametrize("k", range(2))
def test_properties_random_games(Game, players, teams, greed, k):
    play_checked_game(Game, players, teams, seed=17 * players + teams + 1000 * k, greed=greed, max_turns=250)


@pytest.mark.soak
@pytest.mark.parametrize("players, teams", CONFIGS)
def test_properties_random_games_soak(Game, players, teams):
    for k in range(GAMES):
        play_checked_game(Game, players, teams, seed=10_000 + k, greed=(0.0, 0.3, 0.7, 1.0, -1)[k % 5])


def test_properties_games_without_a_cap_end(Game):
    for seed in range(2):
        g = Game(players=2, seed=seed)
        rng = random.Random(seed)
        n = 0
        while not g.is_over:
            g.play(_pick(rng, g.legal_moves()))
            n += 1
            assert n < 3000
        assert g.winner is not None or g.is_draw


@given(seed=st.integers(0, 2**64 - 1), choices=st.lists(st.integers(0, 2**16), max_size=60),
       config=st.sampled_from(CONFIGS))
def test_properties_hypothesis_random_move_sequences(Game, seed, choices, config):
    players, teams = config
    g = Game(players=players, teams=teams, seed=seed)
    for i in choices:
        legal = g.legal_moves()
        if not legal:
            break
        d = g.to_dict()
        m = legal[i % len(legal)]
        g.play(m)
        assert g.to_dict() == model.apply(d, m)
        model.check_invariants(g.to_dict())
    h = Game.from_dict(json_round(g.to_dict()))
    assert h.to_dict() == g.to_dict() and h.legal_moves() == g.legal_moves()


@given(d=positions())
def test_properties_hypothesis_positions_match_the_model(Game, d):
    g = Game.from_dict(d)
    start = g.to_dict()
    model.check_invariants(start)
    assert Game.from_dict(json_round(start)).to_dict() == start
    legal = g.legal_moves()
    assert legal == model.legal_moves(start)
    for m in legal[:: max(1, len(legal) // 25)]:
        h = g.copy()
        h.play(m)
        after = h.to_dict()
        assert after == model.apply(start, m), f"{m} from {json.dumps(start)}"
        model.check_invariants(after)
        h.undo()
        assert h.to_dict() == start
    assert g.to_dict() == start
