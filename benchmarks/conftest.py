"""Benchmarks (pytest-benchmark), the core and the pure-Python reference side by side.

    python -m pytest benchmarks --benchmark-group-by=group      # measure; one table per group
    python -m pytest benchmarks --benchmark-disable -q          # CI: run each once, quickly

Not part of the default test run (``testpaths = ["tests"]``). ``impl`` parametrizes a benchmark
over ``core`` (``sequence_game.Game``) and ``reference`` (``sequence_game.reference.Game``); the
core side is skipped, with the reason, when the extension is not built.
"""

from __future__ import annotations

import random

import pytest


def _core_game():
    try:
        from sequence_game import Game

        Game(players=2, seed=0)
    except ImportError as e:  # pragma: no cover - depends on the build
        pytest.skip(f"the compiled core is not available: {e}")
    return Game


def _reference_game():
    from sequence_game.reference import Game

    return Game


IMPLS = {"core": _core_game, "reference": _reference_game}


@pytest.fixture(params=["core", "reference"])
def impl(request):
    """``(name, Game class)`` for each implementation."""
    return request.param, IMPLS[request.param]()


@pytest.fixture
def core_game():
    return _core_game()


def midgame_dict(turns: int = 30, seed: int = 7) -> dict:
    """A 2-player position after ``turns`` random legal moves (the reference plays them)."""
    from sequence_game.reference import Game

    g = Game(players=2, seed=seed)
    rng = random.Random(seed)
    while g.turn < turns and not g.is_over:
        ms = g.legal_moves()
        g.play(ms[rng.randrange(len(ms))])
    return g.to_dict()


def _board(chips: dict) -> list:
    rows = [["." for _ in range(10)] for _ in range(10)]
    for r, c in ((0, 0), (0, 9), (9, 0), (9, 9)):
        rows[r][c] = "*"
    for (r, c), t in chips.items():
        rows[r][c] = t
    return ["".join(row) for row in rows]


def completing_dict() -> dict:
    """Player 0 (team B) to move, holding 4H (e5 = row 4, col 5) and 2H (e6 = row 5, col 4):

    * 4H on (4, 5) completes row 4, cols 1..5 (one sequence);
    * 2H on (5, 4) is the middle of nine in a row (row 5, cols 0..8): a pair (R7).
    """
    chips = {(4, c): "B" for c in (1, 2, 3, 4)}
    chips.update({(5, c): "B" for c in (0, 1, 2, 3, 5, 6, 7, 8)})
    chips.update({(7, c): "G" for c in range(1, 9)})
    return {"players": 2, "board": _board(chips),
            "hands": [["4H", "2H", "3S", "5C", "KD"], ["7S", "8S", "9S", "QD"]]}
