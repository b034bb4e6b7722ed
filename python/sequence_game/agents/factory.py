"""Engines and agents by name: what the command line and the web server both build from a name.

One low module that both use, so that neither front end imports the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ..gamebase import GameClass
    from .base import Agent

__all__ = ["ENGINES", "default_ai_spec", "game_class", "make_agent"]

#: The engine names :func:`game_class` knows: the compiled core (the default) and the pure-Python reference.
ENGINES = ("core", "reference")


def game_class(engine: str = "core") -> GameClass:
    """The ``Game`` class of an engine name: ``core`` (compiled, the default) or ``reference`` (pure
    Python). Another name is a ``ValueError``."""
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
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


def default_ai_spec() -> str:
    """The AI a game gets when none is named: the ``hard`` preset (MCTS, agents/presets.py)."""
    return "hard"
