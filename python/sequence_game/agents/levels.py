"""The level ladder: ``level:1`` (a beginner) to ``level:8`` (the strongest search at a bounded
time per move), one agent spec each, rated on one measured scale (``sequence-game ladder``,
:mod:`sequence_game.arena.ladder`; the ratings ship in ``agents/data/ladder.json``).

Levels 1 to 5 are :class:`HumanLikeAgent`: the one-ply heuristic of ``greedy`` with the flaws of a
weaker person, never a uniformly random mover; so are levels 6 and 7, named ``easy`` and ``medium``,
with fewer flaws. Level 8 is ``hard`` (the rollout search over the heuristic's best moves).

>>> [lv.spec for lv in LEVELS][5:]
['easy', 'medium', 'hard']
>>> LEVELS[0].number, level_of("medium").number
(1, 7)
"""

from __future__ import annotations

import copy
import functools
import json
import math
import random
import time
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple

from .._args import check_seed, is_int
from ..board import windows_through
from ..cards import TWO_EYED_JACKS
from ..move import Move
from .base import game_over_message, no_legal_move, spec_name
from .control import AgentBase, Limit, StopToken, check_game, check_limit, check_stop
from .greedy import _BLOCK, _EXTEND, _ONE_EYED_COST, _REOPEN, _SEQUENCE, _TWO_EYED_COST, _WIN, _Context
from .presets import PRESETS
from .search import MoveStats, SearchResult

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["LEVELS", "HumanLikeAgent", "Level", "level_of", "packaged_ratings"]


def _check_share(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number from 0 to 1, not {type(value).__name__} {value!r}")
    if not (math.isfinite(value) and 0 <= value <= 1):
        raise ValueError(f"{name} must be a number from 0 to 1, not {value!r}")
    return float(value)


class HumanLikeAgent(AgentBase):
    """The one-ply heuristic of ``greedy`` with a weaker person's flaws (R9: it reads only what its
    player may see). Each decision it:

    - sees its own open lines: extending them scores as for ``greedy``;
    - spots a move that completes a sequence of its own or wins (R7, R8) with probability ``spot``,
      drawn once per decision (1: always, as ``greedy``); a move it does not spot looks like any
      other move that extends its line, the way a beginner overlooks the sequence in their hand;
    - notices the other teams' lines only with probability ``notice``, drawn once per decision:
      when it does not, it neither blocks a four in a row nor spoils a three, and a one-eyed jack
      looks useless to it;
    - values its jacks at ``jack_care`` times what ``greedy`` does (0: a jack is just another
      card, so it spends two-eyed jacks on ordinary moves and keeps few for when they matter);
    - picks among its ``candidates`` best-looking moves with probability proportional to
      ``exp((score - best) / temperature)``, the way a person overlooks the better of two similar
      moves; a move it sees as winning or completing a sequence is always played;
    - trades a dead card first (R5), as ``greedy`` does.

    ``seed``: None (random) or an int; a fixed seed gives fixed choices.

    >>> HumanLikeAgent(notice=0.5, seed=2).name
    'humanlike:notice=0.5,seed=2'
    """

    def __init__(self, notice: float = 1.0, jack_care: float = 1.0, temperature: float = 0.0,
                 candidates: int = 3, spot: float = 1.0, seed: Optional[int] = None) -> None:
        self.notice = _check_share("notice", notice)
        self.spot = _check_share("spot", spot)
        self.jack_care = _check_share("jack_care", jack_care)
        if isinstance(temperature, bool) or not isinstance(temperature, (int, float)):
            raise TypeError(f"temperature must be a number >= 0, not {type(temperature).__name__} {temperature!r}")
        if not (math.isfinite(temperature) and temperature >= 0):
            raise ValueError(f"temperature must be a finite number >= 0 (0 = always a best move), not {temperature!r}")
        if not is_int(candidates) or not 1 <= candidates <= 64:
            raise ValueError(f"candidates must be an int from 1 to 64, not {candidates!r}")
        self.temperature = float(temperature)
        self.candidates = int(candidates)
        self.seed = check_seed(seed)
        self.name = spec_name("humanlike", notice=notice if notice != 1.0 else None,
                              jack_care=jack_care if jack_care != 1.0 else None,
                              temperature=temperature or None,
                              candidates=candidates if candidates != 3 else None,
                              spot=spot if spot != 1.0 else None, seed=seed)
        self._rng = random.Random(seed)

    def __repr__(self) -> str:
        return (f"HumanLikeAgent(notice={self.notice!r}, jack_care={self.jack_care!r}, "
                f"temperature={self.temperature!r}, candidates={self.candidates!r}, spot={self.spot!r}, "
                f"seed={self.seed!r})")

    def _scored(self, game: GameBase, rng: random.Random) -> List[Tuple[float, Move]]:
        moves: List[Move] = game.legal_moves()
        if not moves:
            raise no_legal_move(game)
        sees = rng.random() < self.notice
        # Drawn only when it can miss, so that the levels that always spot keep their games.
        spots = self.spot >= 1.0 or rng.random() < self.spot
        ctx = _Context(game)
        out: List[Tuple[float, Move]] = []
        seen = set()
        for m in moves:
            if m.kind == "trade":
                out.append((1e12, m))  # a dead card is free to trade (R5): always first
            elif m.kind == "pass":
                out.append((-1e12, m))
            elif (m.kind, m.card, m.cell) not in seen:
                seen.add((m.kind, m.card, m.cell))
                out.append((self._score(ctx, m, sees, spots), m))
        return out

    def _score(self, ctx: _Context, move: Move, sees: bool, spots: bool = True) -> float:
        assert move.cell is not None
        r, c = move.cell
        cell = 10 * r + c
        me = ctx.team
        score = 0.0
        if move.kind == "remove":
            owner = ctx.board[cell]
            for w in windows_through(cell):
                row = ctx.counts[w]
                if sees and ctx.open_for(w, owner) and ctx.usable(w, owner):
                    k = ctx.held(w, owner)
                    score += ctx._threat(owner) if k >= 4 else _BLOCK[k]
                others = sum(row[t] for t in range(ctx.teams) if t != me)
                if others == 1 and ctx.usable(w, me):
                    score += _REOPEN * _EXTEND[min(ctx.held(w, me), 3)]
            return score - self.jack_care * _ONE_EYED_COST
        if move.declares and spots:
            done = ctx.seq_count[me] + len(move.declares)
            score += _WIN if done >= ctx.need else _SEQUENCE * len(move.declares)
        for w in windows_through(cell):
            row = ctx.counts[w]
            if ctx.open_for(w, me) and ctx.usable(w, me):
                score += _EXTEND[min(ctx.held(w, me), 4)]
            if not sees:
                continue
            for other in range(ctx.teams):
                if other == me or row[other] == 0 or not ctx.open_for(w, other) or not ctx.usable(w, other):
                    continue
                k = ctx.held(w, other)
                score += ctx._threat(other) if k >= 4 else _BLOCK[k]
        if move.card in TWO_EYED_JACKS:
            score -= self.jack_care * _TWO_EYED_COST
        return score

    def _choose(self, scored: List[Tuple[float, Move]], rng: random.Random) -> Move:
        best = max(s for s, _ in scored)
        ranked = sorted(range(len(scored)), key=lambda i: -scored[i][0])
        if self.temperature <= 0 or best >= _SEQUENCE / 2:  # a sequence or a win it sees is played
            top = [i for i in ranked if scored[i][0] >= best - 1e-9]
            return scored[top[0] if len(top) == 1 else top[rng.randrange(len(top))]][1]
        ranked = ranked[: self.candidates]
        weights = [math.exp((scored[i][0] - best) / self.temperature) for i in ranked]
        pick = rng.random() * sum(weights)
        for i, w in zip(ranked, weights):
            pick -= w
            if pick < 0:
                return scored[i][1]
        return scored[ranked[-1]][1]  # pragma: no cover - rounding at the top end

    def _decide(self, game: GameBase, limit: Optional[Limit], stop: Any) -> Move:
        moves: List[Move] = game.legal_moves()
        if not moves:
            raise no_legal_move(game)
        if len(moves) == 1:
            return moves[0]
        return self._choose(self._scored(game, self._rng), self._rng)

    def analyze(self, game: GameBase, limit: Optional[Limit] = None, stop: Optional[StopToken] = None) -> SearchResult:
        """This level's own view: ``move`` is the move it would play now (drawn from a copy of its
        generator, so a hint neither changes its later moves nor is better than its play), and
        ``moves`` the moves as it scored them, its choice first (``value``: its score)."""
        check_game(game, "analyze")
        check_limit(limit)
        check_stop(stop)
        start = time.perf_counter()
        if game.is_over:
            raise ValueError(game_over_message(game, "analyze"))
        rng = copy.deepcopy(self._rng)  # the generator as it is now: the hint draws from a copy
        scored = self._scored(game, rng)
        choice = self._choose(scored, rng)
        order = sorted(range(len(scored)), key=lambda i: (scored[i][1] != choice, -scored[i][0], i))
        stats = tuple(MoveStats(scored[i][1], 0, float(scored[i][0])) for i in order)
        return SearchResult(move=choice, moves=stats, iterations=0, seconds=time.perf_counter() - start, nodes=0)


@dataclass(frozen=True)
class Level:
    """One level of the ladder: its number, the agent spec it plays as, a name, its character
    (docs/agents.md) and the time it takes a move on one core."""

    number: int
    spec: str
    title: str
    character: str
    time: str

    @property
    def name(self) -> str:
        """The level's agent spec: ``level:N``."""
        return f"level:{self.number}"


#: hard's time cap (agents/presets.py), which level 8's description states.
_HARD_CAP = PRESETS["hard"].time_cap

#: The ladder, weakest first. Levels 1 to 7 differ in how often they spot a sequence in their own
#: hand, notice the other team's lines, keep their jacks and miss the better of two moves; their
#: settings were chosen so that neighbours are at least 80 Elo apart (docs/measurements.md). Level 7
#: is the heuristic (``greedy``) with slips, one step below the searches that build on it. The
#: information-set search at a lower budget is not a level: it measured no stronger than ``greedy``,
#: so it would be a step that is not one.
LEVELS: Tuple[Level, ...] = (
    Level(1, "humanlike:notice=0,jack_care=0,temperature=1000,candidates=64,spot=0", "beginner",
          "plays almost any move, with a slight leaning to those that add to its lines; never sees "
          "the sequence in its own hand (it completes one only by chance); never looks at the other "
          "side's lines, so it blocks only by chance; spends jacks on ordinary moves", "under 5 ms"),
    Level(2, "humanlike:notice=0,jack_care=0,temperature=1000,candidates=40,spot=0.2", "novice",
          "as the beginner, but weighs its own lines a little more and spots a sequence in its own hand "
          "about one turn in five", "under 5 ms"),
    Level(3, "humanlike:notice=0,jack_care=0,temperature=1000,candidates=48,spot=0.8", "learner",
          "spots a sequence in its own hand four turns in five, otherwise plays almost any move that "
          "adds to one of its lines; never looks at the other side's lines; spends jacks on ordinary "
          "moves", "under 5 ms"),
    Level(4, "humanlike:notice=0.3,jack_care=0,temperature=400,candidates=12", "casual",
          "builds its own lines with some sense of which is longer; blocks a four in a row about one "
          "turn in three; wastes jacks", "under 5 ms"),
    Level(5, "humanlike:notice=0.5,jack_care=0.25,temperature=140,candidates=10", "club",
          "blocks half of the threats it meets; keeps few jacks; often plays its second- or "
          "third-best move", "under 5 ms"),
    Level(6, "easy", "easy",
          "notices the other side's lines six turns in ten; spends jacks freely (it values them at "
          "a third of what the heuristic does); chooses softly among its seven best moves", "under 5 ms"),
    Level(7, "medium", "medium",
          "the heuristic with a person's slips: misses the other side's threat one turn in ten and "
          "now and then plays its second- or third-best move; keeps its jacks", "under 5 ms"),
    Level(8, "hard", "hard",
          "the heuristic's eight best moves, each played on by the heuristic for ten turns in the same "
          "sampled deals of the unseen cards (6,000 playouts a move), the best on average chosen: the "
          f"strongest player within {_HARD_CAP:g} s a move on one core", f"about 0.1 s (at most {_HARD_CAP:g} s)"),
)

_BY_NAME: Dict[str, Level] = {lv.title: lv for lv in LEVELS if lv.title in ("easy", "medium", "hard")}


def level_of(name: object) -> Level:
    """The :class:`Level` of ``1``..``8``, ``"level:N"`` or one of the names ``easy``, ``medium``,
    ``hard``; ``ValueError`` for anything else."""
    if isinstance(name, str):
        text = name.strip().lower()
        if text in _BY_NAME:
            return _BY_NAME[text]
        text = text[len("level:"):] if text.startswith("level:") else text
        if text.isdigit():
            name = int(text)
    if is_int(name) and 1 <= int(name) <= len(LEVELS):
        return LEVELS[int(name) - 1]
    raise ValueError(f"a level is a number from 1 to {len(LEVELS)} (level:1 .. level:{len(LEVELS)}), "
                     f"or easy, medium, hard, not {name!r}")


def packaged_ratings() -> Dict[str, Dict[str, Any]]:
    """The ratings that ship with the package (``agents/data/ladder.json``, written by
    ``sequence-game ladder --package``): name -> ``{"rating", "low", "high", "games"}`` on the
    ladder's scale (``random`` = 0). Empty when the file is missing. A copy: the file is read once
    per process (the server asks for it on every list of presets and every rated view)."""
    return {name: dict(entry) for name, entry in _packaged_ratings().items()}


@functools.lru_cache(maxsize=1)
def _packaged_ratings() -> Mapping[str, Mapping[str, Any]]:
    try:
        text = resources.files("sequence_game.agents").joinpath("data/ladder.json").read_text("utf-8")
    except (FileNotFoundError, OSError):
        return {}
    data: Mapping[str, Any] = json.loads(text)
    return dict(data.get("ratings", {}))


def rating_note(spec: str) -> str:
    """What the ladder says of an agent spec, for a player choosing an opponent: e.g.
    ``"level 3, casual: rated 650 [610, 690] (random = 0)"``; ``""`` when the spec is not rated
    (an unknown name, or options other than ``seed`` that change how it plays)."""
    if not isinstance(spec, str):
        return ""
    name, _, rest = spec.strip().lower().partition(":")
    if name == "level":
        first, _, rest = rest.partition(",")
        name = f"level:{first.strip()}"
    if any(opt.partition("=")[0].strip() not in ("seed", "") for opt in rest.split(",")):
        return ""
    try:
        level: Optional[Level] = level_of(name)
    except ValueError:
        level = None
    key = level.name if level is not None else name
    rated = packaged_ratings().get(key)
    head = f"level {level.number}, {level.title}" if level is not None else key
    if not rated:
        return head if level is not None else ""
    anchor = "random"
    return f"{head}: rated {rated['rating']} [{rated['low']}, {rated['high']}] ({anchor} = 0)"
