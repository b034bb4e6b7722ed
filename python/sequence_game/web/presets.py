"""The AI strengths a table's seat may ask for, and the agent each one plays as at a table."""

from __future__ import annotations

import re
from typing import Any, Dict, List, Literal, Optional, Tuple, get_args

from ..agents.levels import LEVELS, level_of, packaged_ratings
from ..agents.presets import ALIASES, DIFFICULTIES, PRESETS

__all__ = ["AI_PRESETS", "PROCESS_AGENTS", "AIPreset", "preset_list", "runs_in_process", "seat_spec"]

#: The AI strengths a seat may ask for (the web API's enum): the eight levels of the ladder
#: (``agents/levels.py``: ``level:1`` .. ``level:8``; ``easy``, ``medium`` and ``hard`` are levels 6, 7
#: and 8, ``max`` another name of ``hard``), the rule-based reference player ``rules`` and
#: ``random``. A search is cut to the table's time budget.
AIPreset = Literal["random", "rules", "easy", "medium", "hard", "max", "level:1", "level:2", "level:3", "level:4",
                   "level:5", "level:6", "level:7", "level:8"]
AI_PRESETS: Tuple[str, ...] = ("random", "rules") + DIFFICULTIES + tuple(ALIASES) + tuple(lv.name for lv in LEVELS)
assert set(get_args(AIPreset)) == set(AI_PRESETS)

#: Agents written in Python hold the GIL while they think, which would stall the event loop of every
#: table: they run in worker processes (so do the presets and levels built on them). The compiled
#: searches release the GIL and run in threads.
_PYTHON_AGENTS = ("greedy", "rules", "humanlike")
PROCESS_AGENTS = _PYTHON_AGENTS + tuple(p.name for p in PRESETS.values() if p.agent in _PYTHON_AGENTS)


def runs_in_process(spec: str) -> bool:
    """Whether the agent ``spec`` (a :func:`seat_spec`) holds the GIL, so runs in a worker process."""
    return spec.split(":")[0] in PROCESS_AGENTS


def preset_list() -> List[Dict[str, Any]]:
    """The strengths a seat may ask for, weakest first, with what each is and its measured rating
    (``GET /api/presets``): the eight levels, under their older names where they have one (``easy``,
    ``medium``, ``hard``), then ``rules`` and ``random``."""
    ratings = packaged_ratings()
    out = []
    for lv in LEVELS:
        name = lv.title if lv.title in PRESETS else lv.name
        cap = PRESETS[name].time_cap if name in PRESETS else _time_limit(lv.spec)
        out.append({"name": name, "level": lv.number, "rating": _rating(ratings, lv.name),
                    "summary": f"level {lv.number}, {lv.title}: {lv.character}", "time_cap": cap})
    out.append({"name": "rules", "level": None, "rating": _rating(ratings, "rules"),
                "summary": "the rule-based reference player: wins, blocks any four in a row, extends its "
                           "longest line", "time_cap": None})
    out.append({"name": "random", "level": None, "rating": _rating(ratings, "random"),
                "summary": "uniformly random legal moves", "time_cap": None})
    return out


def _rating(ratings: Dict[str, Dict[str, Any]], key: str) -> Optional[float]:
    rated = ratings.get(key)
    return None if rated is None else float(rated["rating"])


_TIME_LIMIT = re.compile(r"time_limit=([0-9.]+)")


def _time_limit(spec: str) -> Optional[float]:
    found = _TIME_LIMIT.search(spec)
    return float(found.group(1)) if found else None


def seat_spec(preset: Optional[str], budget: float) -> str:
    """The agent spec of a seat's preset, its search cut to the table's ``budget`` seconds. A level
    plays as its own spec (``agents/levels.py``)."""
    name = preset or "medium"
    if name.startswith("level:"):
        spec = level_of(name).spec
        if spec in PRESETS:
            name = spec
        else:  # a level of its own: a search's time limit is cut to the budget
            return _TIME_LIMIT.sub(lambda m: f"time_limit={min(float(m.group(1)), budget):g}", spec)
    target = ALIASES.get(name, name)
    cap = PRESETS[target].time_cap if target in PRESETS else None
    return name if cap is None else f"{name}:time={min(cap, budget):g}"
