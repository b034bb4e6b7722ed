"""Agent specs: short texts such as ``"greedy"``, ``"random:seed=3"`` or ``"mcts:time=0.5,threads=2"``
that name an agent and its options (the command line, the arena and game records use them)."""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Optional, Tuple

from ..errors import short_repr
from .greedy import GreedyAgent
from .mcts import MCTSAgent
from .net import NetAgent, NetSearchAgent
from .presets import ALIASES as PRESET_ALIASES
from .presets import PRESETS, preset_factory
from .rollout import RolloutAgent
from .rule_based import RuleBasedAgent
from .uniform_random import RandomAgent

__all__ = ["agent_from_spec", "agent_names", "register_agent"]

_Factory = Callable[..., Any]
_REGISTRY: Dict[str, Tuple[_Factory, Dict[str, str]]] = {}


def register_agent(name: str, factory: _Factory, aliases: Optional[Dict[str, str]] = None) -> None:
    """Make ``name`` usable in :func:`agent_from_spec`.

    ``factory(**params)`` builds the agent; ``aliases`` maps short spec keys to parameter names
    (``{"time": "time_limit"}``).
    """
    _REGISTRY[name.lower()] = (factory, dict(aliases or {}))


def agent_names() -> Tuple[str, ...]:
    """The names :func:`agent_from_spec` knows, sorted."""
    return tuple(sorted(_REGISTRY))


register_agent("random", RandomAgent)
register_agent("greedy", GreedyAgent)
register_agent("rules", RuleBasedAgent)
_BUDGET_KEYS = {"time": "time_limit", "iters": "iterations", "t": "time_limit"}


def _mcts(iterations: Optional[int] = None, time_limit: Optional[float] = None, threads: int = 1,
          seed: Optional[int] = None, **options: Any) -> MCTSAgent:
    """A spec's MCTSAgent: the budget, threads and seed are its arguments, every other key a field
    of its ``SearchOptions``."""
    return MCTSAgent(iterations, time_limit, threads, seed, options)


register_agent("mcts", _mcts, _BUDGET_KEYS)
register_agent("rollout", RolloutAgent, _BUDGET_KEYS)
register_agent("net", NetAgent)
register_agent("net-search", NetSearchAgent, _BUDGET_KEYS)

#: ``mcts-v1``: MCTSAgent as of 2026-11-30 (10,000 iterations unless a budget is given), the yardstick
#: that changes to the search are measured against, head to head (``arena mcts mcts-v1``), and the
#: search of the ``hard`` preset and the top levels. Its settings are the options that differ from
#: today's defaults: none, so far. Whoever changes a default pins the former value here, so that
#: ``mcts-v1`` keeps playing the same games (tests/test_arena.py holds its whole setting).
MCTS_V1: Dict[str, Any] = {}


def _mcts_v1(**params: Any) -> MCTSAgent:
    if params.get("iterations") is None and params.get("time_limit") is None:
        params["iterations"] = 10_000
    return _mcts(**{**MCTS_V1, **params})


register_agent("mcts-v1", _mcts_v1, _BUDGET_KEYS)

def _policy(**params: Any) -> Any:
    path = params.get("policy")
    if isinstance(path, (str, os.PathLike)) and os.fspath(path).lower().endswith(".sqnet"):
        # A network weights file (sequence_game.netfile) plays as the raw network, NetAgent: keys
        # seed, temperature, and sample (true: temperature 1 unless one is given).
        unknown = sorted(set(params) - {"policy", "seed", "temperature", "sample"})
        if unknown:
            raise ValueError(f"a .sqnet policy takes the keys seed, temperature and sample, not {', '.join(unknown)}")
        sample = params.get("sample", False)
        if not isinstance(sample, bool):
            raise ValueError(f"sample must be true or false, not {sample!r}")
        temperature = params.get("temperature", 1.0 if sample else 0.0)
        if not os.path.isfile(path):  # a spec's bad path is a ValueError, as for the other policy files
            raise ValueError(f"no network weights file at {short_repr(os.fspath(path))}")
        return NetAgent(weights=os.fspath(path), temperature=temperature, seed=params.get("seed"))
    # imported when a policy is asked for: it needs numpy, which `import sequence_game` does not load
    from .policy import PolicyAgent

    return PolicyAgent(**params)


# A saved policy: "policy:path/to/model.npz" (the one spec whose first option may be a bare value);
# "policy:path/to/weights.sqnet" is a network weights file, played as the `net` agent.
register_agent("policy", _policy)
_POSITIONAL = {"policy": "policy", "level": "level"}

# Searches that read hidden cards: a test hook, named only when the environment asks for it (see
# _peeking.py); the environment reaches the arena's worker processes too.
if os.environ.get("SEQUENCE_GAME_TEST_HOOKS") == "1":
    from ._peeking import PEEKING_SPECS

    for _name, _build in PEEKING_SPECS.items():
        register_agent(_name, _build, _BUDGET_KEYS)


def _levels() -> None:
    """``humanlike`` and ``level:N`` (agents/levels.py): a level is the spec of its row of ``LEVELS``,
    with the spec's other options (``level:8,time=0.5``, ``level:2,seed=3``) laid over it."""
    from .levels import HumanLikeAgent, level_of

    def level(level: Any = None, **params: Any) -> Any:
        if level is None:
            raise ValueError("name the level as level:N, N from 1 to 8 (e.g. 'level:3')")
        spec = level_of(level).spec
        extra = ",".join(f"{k}={v}" for k, v in params.items())
        return agent_from_spec(spec + ("," if ":" in spec else ":") + extra if extra else spec)

    register_agent("humanlike", HumanLikeAgent)
    register_agent("level", level, _BUDGET_KEYS)


_levels()


# The difficulty presets (presets.py), each a name of its own over the agent it builds.
for _preset in PRESETS.values():
    _factory, _aliases = _REGISTRY[_preset.agent]
    register_agent(_preset.name, preset_factory(_preset, _factory), _aliases)
for _alias, _target in PRESET_ALIASES.items():  # another name of a preset (``max`` plays as ``hard``)
    register_agent(_alias, *_REGISTRY[_target])


def parse_value(text: str) -> Any:
    """A spec's option value as text, read as None, a bool, an int or a float where it looks like
    one, else kept as text."""
    low = text.strip().lower()
    if low in ("none", "null"):
        return None
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    for conv in (int, float):
        try:
            return conv(low)
        except ValueError:
            pass
    return text.strip()


def agent_from_spec(spec: str, **defaults: Any) -> Any:
    """Build an agent from text: ``"name"`` or ``"name:key=value,key=value"``.

    Names: ``random``, ``greedy`` (key ``seed``), ``mcts`` and ``rollout`` (keys
    ``iterations``/``iters``, ``time``/``time_limit`` in seconds, ``threads``, ``seed`` and
    anything else ``MCTSAgent`` / ``RolloutAgent`` takes), ``mcts-v1`` (MCTSAgent with the
    settings of 2026-11-30 pinned: ``registry.MCTS_V1``; the same keys), and the difficulty presets
    ``easy``, ``medium``, ``hard`` (``presets.PRESETS``; the keys of the agent they build,
    e.g. ``hard:time=0.5``; ``max`` is another name of ``hard``), and ``policy:path/to/model`` (a saved policy, ``PolicyAgent``; keys
    ``sample``, ``seed``, ``normalize``), ``rules`` (the rule-based reference player, ``RuleBasedAgent``;
    key ``seed``), ``humanlike`` (``HumanLikeAgent``: keys ``notice``, ``jack_care``, ``temperature``, ``spot``,
    ``candidates``, ``seed``) and the ladder's levels ``level:1`` .. ``level:8`` (``levels.LEVELS``;
    the keys of the agent the level builds). Values are read as int, float,
    true/false or none where they look like one. ``defaults`` are keyword arguments used when the
    spec does not set them (the arena passes a derived ``seed`` so that matches are reproducible).
    The agent's ``name`` is set to the spec. ``policy:path/to/weights.sqnet`` (a network weights file)
    plays as ``net:weights=path`` (keys ``seed``, ``temperature``, ``sample``).

    >>> agent_from_spec("random:seed=3").seed
    3
    >>> agent_from_spec("greedy").name
    'greedy'
    >>> agent_from_spec("hard:seed=3").options.iterations
    6000
    """
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec is text like 'greedy' or 'mcts:time=0.5', not {type(spec).__name__}")
    text = spec.strip()
    name, _, rest = text.partition(":")
    name = name.strip().lower()
    if name not in _REGISTRY:
        raise ValueError(
            f"unknown agent {short_repr(name)} in spec {short_repr(spec)}: choose one of {', '.join(sorted(_REGISTRY))} "
            "(e.g. 'greedy', 'random:seed=3', 'mcts:time=0.5,threads=2')"
        )
    factory, aliases = _REGISTRY[name]
    params: Dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq and name in _POSITIONAL and not params:
            params[_POSITIONAL[name]] = item  # policy:path/to/model
            continue
        if not eq or not key:
            raise ValueError(
                f"agent spec {short_repr(spec)}: write options as key=value separated by commas, not {short_repr(item)}")
        params[aliases.get(key, key)] = parse_value(value)
    given = dict(params)
    for k, v in defaults.items():
        params.setdefault(k, v)
    try:
        agent = factory(**params)
    except (TypeError, ValueError, OverflowError) as e:  # one line naming the spec and the option
        raise ValueError(f"agent spec {short_repr(spec)}: {e}") from None
    except OSError as e:  # a file the spec names (weights=, policy:) is missing, a folder or unreadable
        raise ValueError(f"agent spec {short_repr(spec)}: {e.strerror if e.filename else e}"
                         + (f": {e.filename}" if e.filename else "")) from None
    shown = [str(v) if k == _POSITIONAL.get(name) else f"{k}={v}" for k, v in given.items()]
    display = name + (":" + ",".join(shown) if shown else "")
    try:
        agent.name = display
    except AttributeError:  # pragma: no cover - an agent with a read-only name keeps its own
        pass
    return agent
