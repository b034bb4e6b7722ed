"""Core vs reference, grouped so ``--benchmark-group-by=group`` prints them side by side.

Measured numbers and the command that made them: docs/measurements.md.
"""

from __future__ import annotations

import random

import pytest
from conftest import completing_dict, midgame_dict

MIDGAME = midgame_dict()


def _fresh_legal(g):
    g._changed()  # drop the per-position cache: measure generation, not a cached list copy
    return g.legal_moves()


@pytest.mark.benchmark(group="legal_moves (mid-game, uncached)")
def test_legal_moves(benchmark, impl):
    _name, Game = impl
    g = Game.from_dict(MIDGAME)
    moves = benchmark(_fresh_legal, g)
    assert moves


@pytest.mark.benchmark(group="legal_moves (mid-game, uncached)")
def test_legal_move_ids_core_fast_path(benchmark, core_game):
    g = core_game.from_dict(MIDGAME)
    assert benchmark(g.legal_move_ids)


@pytest.mark.benchmark(group="legal_moves (mid-game, uncached)")
def test_legal_mask_core_fast_path(benchmark, core_game):
    pytest.importorskip("numpy")
    g = core_game.from_dict(MIDGAME)
    assert benchmark(g.legal_mask).any()


def _play_undo(g, move):
    g.play(move)
    g.undo()


@pytest.mark.benchmark(group="play + undo")
def test_play_undo(benchmark, impl):
    _name, Game = impl
    g = Game.from_dict(MIDGAME)
    move = g.legal_moves()[len(g.legal_moves()) // 2]
    benchmark(_play_undo, g, move)
    assert g.to_dict() == Game.from_dict(MIDGAME).to_dict()


def _random_game(Game, seed):
    g = Game(players=2, seed=seed)
    rng = random.Random(seed)
    while not g.is_over:
        ms = g.legal_moves()
        g.play(ms[rng.randrange(len(ms))])
    return g.turn


@pytest.mark.benchmark(group="random game: legal_moves + play per turn (1 game)")
def test_random_game(benchmark, impl):
    _name, Game = impl
    assert benchmark(_random_game, Game, 3) > 0


def _random_game_ids(Game, seed):
    g = Game(players=2, seed=seed)
    rng = random.Random(seed)
    while not g.is_over:
        ids = g.legal_move_ids()
        g.play_id(ids[rng.randrange(len(ids))])
    return g.turn


@pytest.mark.benchmark(group="random game: legal_moves + play per turn (1 game)")
def test_random_game_core_ids(benchmark, core_game):
    assert benchmark(_random_game_ids, core_game, 3) > 0


@pytest.mark.benchmark(group="sequence detection (placements that complete lines)")
@pytest.mark.parametrize("card", ["4H", "2H"], ids=["one-sequence", "nine-in-a-row-pair"])
def test_sequence_detection(benchmark, impl, card):
    _name, Game = impl
    g = Game.from_dict(completing_dict())

    def place_and_undo():
        ms = _fresh_legal(g)  # includes the declares choices (R7)
        move = next(m for m in ms if m.kind == "place" and m.card == card and m.declares)
        g.play(move)
        g.undo()
        return move

    move = benchmark(place_and_undo)
    assert len(move.declares) == (1 if card == "4H" else 2)


@pytest.mark.benchmark(group="to_dict")
def test_to_dict(benchmark, impl):
    _name, Game = impl
    g = Game.from_dict(MIDGAME)
    assert benchmark(g.to_dict) == MIDGAME


@pytest.mark.benchmark(group="from_dict")
def test_from_dict(benchmark, impl):
    _name, Game = impl
    assert benchmark(Game.from_dict, MIDGAME).turn == MIDGAME["turn"]


@pytest.mark.benchmark(group="random games (20 games)")
def test_simulate_core(benchmark):
    sg = pytest.importorskip("sequence_game")
    simulate = getattr(sg, "simulate", None)
    if simulate is None:
        pytest.skip("sequence_game.simulate is not available in this build")
    result = benchmark(simulate, 20, players=2, seed=1)
    assert result["games"] == 20


@pytest.mark.benchmark(group="random games (20 games)")
def test_random_games_reference(benchmark):
    from sequence_game.reference import Game

    def twenty():
        return sum(_random_game(Game, s) for s in range(20))

    benchmark.pedantic(twenty, rounds=1, iterations=1)
