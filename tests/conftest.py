"""Shared fixtures: ``Game`` runs every rule test on both implementations.

* ``core``: ``sequence_game.Game`` over the compiled ``sequence_game._core``;
* ``reference``: ``sequence_game.reference.Game`` (pure Python).

``position(...)`` builds a game by hand with ``Game.from_dict`` (see ``helpers.position_dict``).
Rule ids in test names and comments (``test_r7_...``, R1..R10) are those of docs/rules.md.
"""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))  # `import helpers` from any test module

from helpers import SOAK, position_dict

try:  # hypothesis profiles: the default run stays fast; SEQUENCE_SOAK=1 digs deeper
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "default", max_examples=40, deadline=None, database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large,
                               HealthCheck.function_scoped_fixture],
    )
    settings.register_profile(
        "soak", max_examples=2000, deadline=None, database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large,
                               HealthCheck.function_scoped_fixture],
    )
    settings.load_profile("soak" if SOAK else "default")
except ImportError:  # pragma: no cover
    pass


@pytest.fixture(autouse=True)
def _in_process_web_clients_closed():
    """After every test, the in-process clients the club's tests share per app
    (``test_web_accounts.Browser``) are closed, whichever module made them: an app left running
    would play on (its AI seats, its tournaments' ticks) through the tests after it."""
    yield
    accounts = sys.modules.get("test_web_accounts")
    if accounts is not None:
        accounts.close_clients()


def load_game_class(impl: str):
    if impl == "core":
        import sequence_game

        return sequence_game.Game
    from sequence_game.reference import Game

    return Game


@pytest.fixture(params=["core", "reference"])
def Game(request):
    """The ``Game`` class of one implementation."""
    return load_game_class(request.param)


@pytest.fixture
def position(Game):
    """``position(players=2, board=..., hands=..., draw_top=..., **fields) -> Game``.

    ``board`` is 10 strings of ``*.BGR`` or a dict ``{cell: 'B'}``; cells may be ``(r, c)`` or
    ``'d6'``. Other keyword arguments are ``to_dict`` fields (``current_player=1``, ...)."""

    def make(players=2, board=None, hands=None, draw_top=(), **kw):
        if hands is None:
            hands = [[] for _ in range(players)]
        return Game.from_dict(position_dict(players, board, hands, draw_top, **kw))

    return make


def pytest_collection_modifyitems(config, items):
    if SOAK:
        return
    skip = pytest.mark.skip(reason="soak test: set SEQUENCE_SOAK=1 to run it")
    for item in items:
        if "soak" in item.keywords:
            item.add_marker(skip)
