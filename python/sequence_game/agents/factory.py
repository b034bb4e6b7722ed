"""Engines and agents by name: what the command line and the web server both build from a name.

One low module that both use, so that neither front end imports the other.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ..gamebase import GameClass
    from .base import Agent

__all__ = ["default_ai_spec", "game_class", "make_agent", "mcts_available"]


def game_class(engine: str) -> GameClass:
    """The ``Game`` class of an engine name: ``core`` (compiled) or ``reference`` (pure Python)."""
    if engine == "reference":
        from ..reference import Game as ReferenceGame

        return ReferenceGame
    from ..game import Game

    return Game


def make_agent(spec: str, seed: Optional[int] = None) -> Agent:
    """An agent from a spec (``greedy``, ``random``, ``mcts:time=1``); ``seed`` unless the spec sets one.
    A bad spec is a ``ValueError`` naming it (:func:`~sequence_game.agents.agent_from_spec`)."""
    from .registry import agent_from_spec

    agent: Agent = agent_from_spec(spec, seed=seed) if seed is not None else agent_from_spec(spec)
    return agent


def mcts_available() -> bool:
    """Whether ``sequence_game.agents.mcts`` exists and imports (it needs the compiled core)."""
    if importlib.util.find_spec("sequence_game.agents.mcts") is None:
        return False
    try:
        importlib.import_module("sequence_game.agents.mcts")
    except ImportError:
        return False
    return True


def default_ai_spec() -> str:
    """The ``hard`` preset (MCTS, agents/presets.py) when the search is available, else ``medium``."""
    return "hard" if mcts_available() else "medium"
