"""The AI strengths a table's seat may ask for, and the agent each one plays as at a table."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, Tuple, get_args

from ..agents.presets import ALIASES, DIFFICULTIES, PRESETS

__all__ = ["AI_PRESETS", "PROCESS_AGENTS", "AIPreset", "preset_list", "seat_spec"]

#: The AI strengths a seat may ask for (the web API's enum): the difficulty presets
#: (``agents/presets.py``, where each is defined and measured), their other names (``max``, which
#: plays as ``hard``) and ``random``. A search is cut to the table's time budget.
AIPreset = Literal["random", "easy", "medium", "hard", "max"]
AI_PRESETS: Tuple[str, ...] = ("random",) + DIFFICULTIES + tuple(ALIASES)
assert set(get_args(AIPreset)) == set(AI_PRESETS)

#: Agents written in Python hold the GIL while they think, which would stall the event loop of every
#: table: they run in worker processes (so do the presets built on them). The compiled searches
#: release the GIL and run in threads.
PROCESS_AGENTS = ("greedy",) + tuple(p.name for p in PRESETS.values() if p.agent == "greedy")


def preset_list() -> List[Dict[str, Any]]:
    """The presets a seat may ask for, weakest first, with what each is (``GET /api/presets``)."""
    out = [{"name": p.name, "summary": p.summary, "time_cap": p.time_cap} for p in PRESETS.values()]
    return out + [{"name": "random", "summary": "uniformly random legal moves", "time_cap": None}]


def seat_spec(preset: Optional[str], budget: float) -> str:
    """The agent spec of a seat's preset, its search cut to the table's ``budget`` seconds."""
    name = preset or "medium"
    target = ALIASES.get(name, name)
    cap = PRESETS[target].time_cap if target in PRESETS else None
    return name if cap is None else f"{name}:time={min(cap, budget):g}"
