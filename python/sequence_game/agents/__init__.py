"""Agents: players that choose a move for the side to move.

An agent is any object with ``select_move(game) -> Move`` (the :class:`Agent` protocol). Agents
here:

- :class:`RandomAgent` -- uniform over ``legal_moves()``, reproducible per seed.
- :class:`GreedyAgent` -- a one-ply heuristic (win, block, extend open lines, save jacks).
- :class:`MCTSAgent` -- information-set Monte Carlo tree search in the compiled core, the one to
  play with; its knobs are a :class:`SearchOptions`.
- :class:`RolloutAgent` -- determinized rollout search with common random numbers in the compiled
  core: every candidate move meets the same sampled deals, so a few hundred deals compare a few
  moves with little noise. Public for that: the measurements of what hidden information is worth,
  and the base for opponent modelling.
- :class:`RuleBasedAgent` -- a beginner's rules of thumb (win, block a four, extend the longest
  line): the reference player of the level ladder.
- :class:`HumanLikeAgent` -- the heuristic with a weaker person's flaws: levels 1-7 of the ladder
  (``level:1`` .. ``level:8``, :mod:`~sequence_game.agents.levels`).
- :class:`PolicyAgent` -- a trained policy (a callable or a saved model) over the player's
  observation tensor and legal-action mask.

Every agent here also takes a per-call budget (``select_move(game, limit=Limit(time=0.5))``), has
an awaitable form (``await agent.select_move_async(game)``), ``stop()`` (a search's "move now")
a hint, ``analyze(game)`` (:mod:`~sequence_game.agents.control`), and the hint as it grows,
``for info in agent.analysis(game)`` (:mod:`~sequence_game.agents.analysis`).

:func:`agent_from_spec` builds an agent from a short text such as ``"greedy"``, ``"hard"``,
``"random:seed=3"`` or ``"mcts:time=0.5,threads=2"`` (the command line uses it);
:func:`register_agent` adds a name to it.

>>> from sequence_game.reference import Game
>>> g = Game(players=2, seed=5)
>>> move = GreedyAgent(seed=1).select_move(g)
>>> move in g.legal_moves()
True
"""

from typing import TYPE_CHECKING, Any

from ..errors import AgentMoveError
from .analysis import Analysis
from .base import Agent, agent_name
from .control import AgentBase, Limit, StopToken
from .greedy import GreedyAgent
from .levels import HumanLikeAgent
from .mcts import MCTSAgent, SearchOptions
from .registry import agent_from_spec, register_agent
from .rollout import RolloutAgent
from .rule_based import RuleBasedAgent
from .search import MoveStats, SearchAgent, SearchResult
from .uniform_random import RandomAgent

if TYPE_CHECKING:
    from .policy import PolicyAgent

__all__ = [
    "Agent",
    "AgentBase",
    "AgentMoveError",
    "Analysis",
    "GreedyAgent",
    "HumanLikeAgent",
    "Limit",
    "MCTSAgent",
    "MoveStats",
    "PolicyAgent",
    "RandomAgent",
    "RolloutAgent",
    "RuleBasedAgent",
    "SearchAgent",
    "SearchOptions",
    "SearchResult",
    "StopToken",
    "agent_from_spec",
    "agent_name",
    "register_agent",
]


def __getattr__(name: str) -> Any:
    # PolicyAgent needs numpy: imported on first use, so that `import sequence_game` stays light
    if name == "PolicyAgent":
        from .policy import PolicyAgent

        return PolicyAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> "list[str]":
    return sorted([*globals(), "PolicyAgent"])
