"""A test hook: searches that read hidden cards, breaking R9 on purpose.

Tests use them to show that the honest searches do not (a re-deal of the hidden cards changes what
a peeking search reports, and nothing the honest one reports), and research uses them to measure
what hidden information is worth (``docs/research/ceilings.md``). They are not agents for
play: no agent's constructor and no agent spec reads hidden cards.

For matches on the command line, ``SEQUENCE_GAME_TEST_HOOKS=1`` in the environment (which the
arena's worker processes inherit) adds the specs ``mcts-peek`` (every hidden card),
``mcts-peek-hands`` (the other hands; the draw pile's order is sampled), ``rollout-peek`` and
``rollout-peek-hands``, with the options of ``mcts`` and ``rollout``::

    SEQUENCE_GAME_TEST_HOOKS=1 sequence-game arena mcts-peek:iters=3000 greedy --games 400 --seed 2

``mcts-peek:iters=3000`` is the search of the former spec ``mcts:iters=3000,cheat=True``, with
the same seeds, so recorded matches replay.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Literal, Optional, TypeVar

from .mcts import MCTSAgent
from .rollout import RolloutAgent
from .search import SearchAgent

__all__ = ["ENVIRONMENT_VARIABLE", "PEEKING_SPECS", "peeking_mcts", "peeking_rollout"]

#: The environment variable that adds :data:`PEEKING_SPECS` to the agent specs.
ENVIRONMENT_VARIABLE = "SEQUENCE_GAME_TEST_HOOKS"

_A = TypeVar("_A", bound=SearchAgent)


def _peeking(agent: _A, peek: Literal["hands", "all"]) -> _A:
    """``agent`` searching with the test hook ``peek`` ("hands" or "all", the searches' ``peek``
    argument), its name saying so."""
    agent._peek = peek
    agent._init_search(agent.options, agent.seed)
    return agent


def peeking_mcts(hands_only: bool = False, **kwargs: Any) -> MCTSAgent:
    """``MCTSAgent(**kwargs)`` searching the true state (named ``cheat``: the other hands and the
    draw pile's order) or, with ``hands_only``, reading the other hands but sampling the draw pile's
    order and the world's generator (named ``cheat_hands``: what a perfect inference of the hands
    would be worth)."""
    return _peeking(MCTSAgent(**kwargs), "hands" if hands_only else "all")


def peeking_rollout(hands_only: bool = False, **kwargs: Any) -> RolloutAgent:
    """``RolloutAgent(**kwargs)`` searching the true state (named ``reveal=2``) or, with
    ``hands_only``, reading the other hands and sampling only the draw pile (``reveal=1``)."""
    return _peeking(RolloutAgent(**kwargs), "hands" if hands_only else "all")


def _mcts_spec(hands_only: bool) -> Callable[..., MCTSAgent]:
    def factory(iterations: Optional[int] = None, time_limit: Optional[float] = None, threads: int = 1,
                seed: Optional[int] = None, **options: Any) -> MCTSAgent:
        return peeking_mcts(hands_only, iterations=iterations, time_limit=time_limit, threads=threads, seed=seed,
                            options=options)

    return factory


def _rollout_spec(hands_only: bool) -> Callable[..., RolloutAgent]:
    def factory(**params: Any) -> RolloutAgent:
        return peeking_rollout(hands_only, **params)

    return factory


#: The specs ``SEQUENCE_GAME_TEST_HOOKS=1`` adds: name -> factory taking a spec's keys.
PEEKING_SPECS: Dict[str, Callable[..., Any]] = {
    "mcts-peek": _mcts_spec(False),
    "mcts-peek-hands": _mcts_spec(True),
    "rollout-peek": _rollout_spec(False),
    "rollout-peek-hands": _rollout_spec(True),
}
