"""Difficulty presets: ``easy``, ``medium``, ``hard`` and ``max``, the AI strengths offered to
people (``sequence-game play --ai hard``, the web's seats). Each is an agent spec of its own
(``agent_from_spec("hard")``), defined here once.

Searches are set by an iteration budget, so a preset plays the same moves on every machine and its
measured strength (the ladder in ``docs/measurements.md``) holds anywhere; a time cap (``time_cap``
seconds a move) keeps a slow device responsive and is far above what the budget takes on a
desktop CPU, so it does not bind where the ladder was measured. Options of the spec override the
preset's (``hard:time=0.5`` cuts the cap, ``hard:seed=3`` fixes the search's seed).

>>> PRESETS["hard"].spec
'rollout:iterations=6000,horizon=10,time_limit=1.0'
>>> [p.name for p in PRESETS.values()]
['easy', 'medium', 'hard']
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Mapping, Optional, Tuple

__all__ = ["ALIASES", "DIFFICULTIES", "PRESETS", "Preset"]


@dataclass(frozen=True)
class Preset:
    """One difficulty: the registered agent it builds (``agent``), that agent's options, a time cap
    for searches (None for agents that answer at once) and a one-line description."""

    name: str
    agent: str
    options: Mapping[str, Any] = field(default_factory=dict)
    time_cap: Optional[float] = None
    summary: str = ""

    @property
    def spec(self) -> str:
        """The preset as a spec of the agent it builds (every option written out)."""
        opts = dict(self.options)
        if self.time_cap is not None:
            opts["time_limit"] = self.time_cap
        return self.agent + (":" + ",".join(f"{k}={v}" for k, v in opts.items()) if opts else "")

    def options_with(self, params: Mapping[str, Any]) -> Dict[str, Any]:
        """The preset's options (the time cap as ``time_limit``) with ``params`` laid over them."""
        opts: Dict[str, Any] = dict(self.options)
        if self.time_cap is not None:
            opts["time_limit"] = self.time_cap
        opts.update(params)
        return opts


#: The presets, weakest first, and levels 6, 7 and 8 of the ladder (agents/levels.py, docs/agents.md;
#: the measured ladder: docs/measurements.md); ``hard``'s cap of 1 s is the top level's bound. ``easy`` and
#: ``medium`` are the one-ply heuristic with a person's flaws (``HumanLikeAgent``): ``easy`` notices
#: the other side's lines six turns in ten and spends jacks freely, ``medium`` misses a threat one
#: turn in ten; both draw softly among their best few moves. ``hard`` is the rollout search: the
#: heuristic's eight best moves, each played on in the same sampled deals by short heuristic
#: playouts, 6,000 playouts a move; against ``greedy`` it measured stronger than the information-set
#: MCTS at 30,000 iterations, which ``hard`` was before (docs/research/ceilings.md). Each level beats
#: the one below in the ladder's matches.
PRESETS: Dict[str, Preset] = {p.name: p for p in (
    Preset("easy", "humanlike", {"notice": 0.6, "jack_care": 0.3, "temperature": 110.0, "candidates": 7},
           summary="the one-ply heuristic with a casual player's flaws: misses threats, spends jacks freely"),
    Preset("medium", "humanlike", {"notice": 0.9, "temperature": 80.0, "candidates": 4},
           summary="the one-ply heuristic with a person's slips: now and then misses a threat or a better move"),
    Preset("hard", "rollout", {"iterations": 6_000, "horizon": 10}, time_cap=1.0,
           summary="the heuristic's best eight moves compared in the same sampled deals, 6,000 short playouts a move"),
)}

#: Other names of a preset. ``max`` was the same search as ``hard`` with three times the
#: iterations and measured no stronger than it, so the two levels are one (docs/measurements.md).
ALIASES: Dict[str, str] = {"max": "hard"}

#: The preset names, weakest first.
DIFFICULTIES: Tuple[str, ...] = tuple(PRESETS)


def preset_factory(preset: Preset, build: Callable[..., Any]) -> Callable[..., Any]:
    """A factory for the registry: ``build(**options)`` with the preset's options under the spec's."""

    def factory(**params: Any) -> Any:
        return build(**preset.options_with(params))

    factory.__name__ = f"preset_{preset.name}"
    return factory
