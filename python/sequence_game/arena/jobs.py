"""The job model: a match (or a self-play run) is a list of independent games.

Game ``i`` of a job depends only on the job's settings (agents, players, teams, seed, turn cap)
and on ``i``: its deal seed and every agent's seed are derived from ``(job seed, i)``. So a job
gives the same games whoever plays them, in whatever order, in one process, a pool of processes
or a Ray cluster -- as long as the agents' budgets are fixed (``mcts:iters=2000``). Under a time
budget (``mcts:time=1``) a search does as many iterations as the machine allows, so the moves,
and with them the results, depend on the machine and its load.

Every job has the same small interface, which is all the runners (:mod:`.pool`,
:mod:`.ray_runner`) need: ``size`` (the number of units), ``header()`` (the job as JSON-able data,
the first line of its results file) and ``execute(index)`` (play unit ``index``, return its
result as JSON-able data with an ``"index"``).
"""

from __future__ import annotations

import os
import pickle
import socket
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, cast

from .._args import check_seed, is_int
from ..agents import agent_from_spec, agent_name
from ..errors import short_repr
from ..game_setup import RUN_MAX_TURNS
from ..gamebase import GameClass
from ..records import default_game_class, play_game, utc_now
from ..seeds import derive_seed
from .results import MAX_GAMES
from .stats import GameOutcome, MatchResult

__all__ = ["MatchJob", "derive_seed", "engine_name", "outcome_of"]

RESULTS_FORMAT = "sequence-game-match/1"


def engine_name(cls: type) -> str:
    """``"core"``, ``"reference"`` or the class's import path, for results files."""
    from ..reference import Game as ReferenceGame

    if cls is ReferenceGame:
        return "reference"
    if cls.__module__ == "sequence_game.game" and cls.__qualname__ == "Game":
        return "core"
    return f"{cls.__module__}.{cls.__qualname__}"


Contender = Tuple[str, Any]  # (display name, spec string | agent object | zero-argument factory)


def normalise_contenders(entries: Sequence[Any]) -> List[Contender]:
    """``(unique name, entry)`` per contender; a bad spec fails here with its own message."""
    out: List[Contender] = []
    for i, entry in enumerate(entries):
        name: Optional[str] = None
        if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str):
            name, entry = entry
        if isinstance(entry, str):
            agent_from_spec(entry)  # fail early on a bad spec
            out.append((name or entry, entry))
        elif hasattr(entry, "select_move") and not isinstance(entry, type):
            out.append((name or agent_name(entry), entry))  # one object shared by its seats and games
        elif callable(entry):
            out.append((name or agent_name(entry()), entry))
        else:
            raise TypeError(
                f"contender {i} must be a zero-argument agent factory, a (name, factory) pair or a spec "
                f"string like 'greedy', not {entry!r}"
            )
    plain = [n for n, _ in out]
    names = [f"{n} #{i}" if plain.count(n) > 1 else n for i, n in enumerate(plain)]  # unique, for the tables
    return [(names[i], e) for i, (_, e) in enumerate(out)]


def outcome_of(entry: Dict[str, Any]) -> GameOutcome:
    """The :class:`GameOutcome` of one results line."""
    return GameOutcome(entry["seed"], list(entry["contenders"]), entry["winner"], entry["winner_contender"],
                       bool(entry["is_draw"]), entry["turns"], entry["index"], entry.get("seconds", 0.0),
                       entry.get("node"))


def _make_agent(entry: Any, seed: int) -> Any:
    if isinstance(entry, str):
        return agent_from_spec(entry, seed=seed)
    if hasattr(entry, "select_move") and not isinstance(entry, type):
        return entry
    return entry()


@dataclass
class MatchJob:
    """A match: ``games`` games between the ``contenders`` (see :func:`sequence_game.arena.match`).

    Seats rotate: in game ``g`` team ``t`` is played by contender ``(t + g) mod C``; the games of
    one rotation (``g // C``) share the deal seed ``derive_seed(seed, g // C)``, and the agent on
    seat ``p`` gets the seed ``derive_seed(deal seed, 1000 * (g mod C) + p)`` unless its spec
    sets one.
    """

    contenders: List[Contender]
    games: int
    players: int = 2
    teams: Optional[int] = None
    seed: int = 0
    max_turns: Optional[int] = RUN_MAX_TURNS  # None: no cap
    game_class: GameClass = field(default_factory=default_game_class)

    def __post_init__(self) -> None:
        if not is_int(self.games) or not 1 <= self.games <= MAX_GAMES:
            raise ValueError(f"games must be an int from 1 to {MAX_GAMES:,}, not {short_repr(self.games)}")
        if self.seed is None:
            raise TypeError("a match needs an int seed (game i is played from the seed and i)")
        check_seed(self.seed, "the match seed")
        if len(self.contenders) < 2:
            raise ValueError("a match needs at least two contenders")
        probe = self.game_class(players=self.players, teams=self.teams, seed=0, max_turns=self.max_turns)
        self.team_count = probe.teams

    # ------------------------------------------------------------------ the job interface

    @property
    def size(self) -> int:
        return self.games

    @property
    def names(self) -> List[str]:
        return [n for n, _ in self.contenders]

    @property
    def specs(self) -> Optional[List[str]]:
        """The contenders' spec strings, or None when one is a Python object (then the job runs
        only in this process)."""
        entries = [e for _, e in self.contenders]
        return list(entries) if all(isinstance(e, str) for e in entries) else None

    def header(self) -> Dict[str, Any]:
        """The job as JSON-able data: the first line of its results file."""
        return {
            "format": RESULTS_FORMAT, "names": self.names, "agents": self.specs, "games": self.games,
            "players": self.players, "teams": self.team_count, "seed": self.seed, "max_turns": self.max_turns,
            "engine": engine_name(cast(type, self.game_class)),  # a class of games is a class
        }

    def identity(self) -> Dict[str, Any]:
        """What must match for a results file to belong to this job (``games`` may grow)."""
        h = self.header()
        del h["games"]
        return h

    def check_portable(self) -> None:
        """Raise TypeError unless the job can be sent to another process (specs, not objects)."""
        if self.specs is None:
            raise TypeError("running games in other processes needs every contender as a spec string "
                            "('greedy', 'mcts:iters=2000'), not a Python object or factory")
        try:
            pickle.dumps(self.game_class)
        except (pickle.PicklingError, AttributeError, TypeError) as e:  # pragma: no cover - a local class
            raise TypeError(f"game class {self.game_class!r} cannot be sent to another process: {e}") from None

    @property
    def title(self) -> str:
        return " vs ".join(self.names)

    def outcomes(self, entries: Sequence[Dict[str, Any]]) -> MatchResult:
        """The :class:`MatchResult` of some of this job's results lines."""
        return MatchResult.from_outcomes(self.names, [outcome_of(e) for e in entries], self.players,
                                         self.team_count, self.seed, planned=self.games, max_turns=self.max_turns)

    def progress_text(self, entries: Sequence[Dict[str, Any]]) -> str:
        """Win rates so far with their 95% intervals, for the progress display."""
        r = self.outcomes(entries)
        parts = []
        for i, name in enumerate(r.names):
            lo, hi = r.win_rate_interval(i)
            parts.append(f"{name} {100 * r.win_rate(i):.0f}% [{100 * lo:.0f}-{100 * hi:.0f}]")
        return "  ".join(parts) + (f"  draws {r.draws}" if r.draws else "")

    def seating(self, index: int) -> Tuple[int, List[int], List[int]]:
        """``(deal seed, contender of each team, agent seed of each seat)`` of game ``index``."""
        c = len(self.contenders)
        deal_seed = derive_seed(self.seed, index // c)
        team_contenders = [(t + index) % c for t in range(self.team_count)]
        agent_seeds = [derive_seed(deal_seed, 1000 * (index % c) + p) for p in range(self.players)]
        return deal_seed, team_contenders, agent_seeds

    def execute(self, index: int) -> Dict[str, Any]:
        """Play game ``index``; its results line (see :mod:`.results`)."""
        if not 0 <= index < self.games:
            raise ValueError(f"game index must be from 0 to {self.games - 1}, not {index}")
        deal_seed, team_contenders, agent_seeds = self.seating(index)
        seat_contenders = [team_contenders[p % self.team_count] for p in range(self.players)]
        agents = [_make_agent(self.contenders[c][1], agent_seeds[p]) for p, c in enumerate(seat_contenders)]
        started, t0, cpu0 = utc_now(), time.perf_counter(), time.process_time()
        rec = play_game(agents, players=self.players, teams=self.teams, seed=deal_seed, max_turns=self.max_turns,
                        game_class=self.game_class)
        seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - cpu0
        result = rec.result
        assert result is not None  # play_game plays to the end
        winner = result["winner"]
        return {
            "index": index, "seed": deal_seed, "contenders": team_contenders,
            "agents": [self.contenders[c][0] for c in seat_contenders], "agent_seeds": agent_seeds,
            "winner": winner, "winner_contender": None if winner is None else team_contenders[winner],
            "is_draw": bool(result["is_draw"]), "turns": result["turns"],
            "moves": rec.moves, "seconds": round(seconds, 4), "cpu_seconds": round(cpu_seconds, 4),
            "started": started, "finished": utc_now(),
            "host": socket.gethostname(), "pid": os.getpid(),
        }


