"""The ladder: a round robin of agents on paired deals, rated on one Elo scale with ``random`` at 0.

Every group of contenders (a pair for two teams, a triple for three) plays a match of its own
(:func:`sequence_game.arena.match`) with the same match seed, so every group meets the same deals,
each dealt once per seat rotation (seats alternated). Each match streams its games to a JSON-lines
file of its own in the ladder's folder (``DIR/<agents>.jsonl``); running the ladder again with the
same folder plays only the games the files are missing (a killed run loses at most the games in
progress), and a larger ``games`` extends every match. Games are played in rounds of ``batch``
games per group, so that a run stopped early has spread its games over all groups.

:func:`fit_folder` fits the ratings (:func:`~sequence_game.arena.stats.fit_ratings`) to every
results file in a folder, and :func:`ladder_table` and :func:`ladder_svg` write the table and the
picture.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .jobs import outcome_of
from .results import read_results
from .stats import RatingFit, fit_ratings, outcome_sides

__all__ = ["DEFAULT_AGENTS", "Ladder", "fit_folder", "ladder_json", "ladder_svg", "ladder_table", "rated_name"]

#: The default contenders: the anchor, the rule-based reference player and the eight levels
#: (``level:8`` is ``hard``, the rollout search at 6,000 playouts a move).
DEFAULT_AGENTS: Tuple[str, ...] = ("random", "rules") + tuple(f"level:{n}" for n in range(1, 9))


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9.=-]+", "_", name)


@dataclass
class Ladder:
    """A round robin: ``agents`` (specs), ``games`` per group, in ``folder``.

    ``players``/``teams``: the table (a group has one contender per team). ``span``: only groups
    whose contenders lie within ``span`` places of each other in ``agents`` (None: every group),
    to spend the games of costly agents on their neighbours. ``batch``: games per group per round.
    """

    agents: Sequence[str]
    folder: str
    games: int = 100
    players: int = 2
    teams: Optional[int] = None
    seed: int = 0
    span: Optional[int] = None
    batch: int = 20
    workers: Optional[int] = 1

    def __post_init__(self) -> None:
        from ..game_setup import check_players_teams

        names = list(self.agents)
        if len(set(names)) != len(names):
            raise ValueError(f"each agent once, please: {', '.join(names)}")
        self.team_count = check_players_teams(self.players, self.teams)[1]
        if len(names) < self.team_count:
            raise ValueError(f"a ladder of {self.team_count}-team games needs at least {self.team_count} agents, "
                             f"not {len(names)}")
        if self.span is not None and self.span < self.team_count - 1:
            raise ValueError(f"span must be at least {self.team_count - 1} for {self.team_count}-team games, "
                             f"not {self.span}")
        if self.games < 1 or self.batch < 1:
            raise ValueError(f"games and batch must be >= 1, not {self.games} and {self.batch}")

    def groups(self) -> List[Tuple[str, ...]]:
        """The groups that meet, in ``agents`` order."""
        out = []
        for ix in itertools.combinations(range(len(self.agents)), self.team_count):
            if self.span is None or ix[-1] - ix[0] <= self.span:
                out.append(tuple(self.agents[i] for i in ix))
        return out

    def path(self, group: Sequence[str]) -> str:
        suffix = "" if self.players == 2 else f"-p{self.players}t{self.team_count}"
        return os.path.join(self.folder, "__".join(_slug(n) for n in group) + suffix + ".jsonl")

    def run(self, progress: Optional[Callable[[Tuple[str, ...], int, int], None]] = None) -> None:
        """Play the missing games, round by round; ``progress(group, games done, games)`` after each
        match's round."""
        from . import match

        os.makedirs(self.folder, exist_ok=True)
        rotation = self.team_count  # a deal is played once from every seat rotation
        step = max(rotation, self.batch - self.batch % rotation)
        target = 0
        while target < self.games:
            target = min(self.games, target + step)
            for group in self.groups():
                r = match(list(group), games=target, players=self.players, teams=self.teams, seed=self.seed,
                          results=self.path(group), resume=True, workers=self.workers)
                if progress is not None:
                    progress(group, r.games, self.games)


def rated_name(spec: str) -> str:
    """The name a contender is rated under: its spec without a ``time=none`` (an uncapped search
    plays the same moves as the capped one whenever the cap does not bind, so the ladder measures
    searches uncapped, and a busy machine cannot change their moves).

    >>> rated_name("level:8,time=none"), rated_name("hard:time_limit=None,seed=2")
    ('level:8', 'hard:seed=2')
    """
    name, colon, rest = spec.partition(":")
    kept = [o for o in rest.split(",") if o.strip() and not (
        o.partition("=")[0].strip().lower() in ("time", "time_limit", "t")
        and o.partition("=")[2].strip().lower() in ("none", "null"))]
    return name + (":" + ",".join(kept) if kept else "")


def fit_folder(folder: str, anchor: str = "random", anchor_rating: float = 0.0,
               prior: float = 1.0) -> RatingFit:
    """The ratings fitted to every match results file (``*.jsonl``) in ``folder``, each contender
    under its :func:`rated_name`."""
    games: List[Tuple[Sequence[str], Optional[str]]] = []
    try:
        files = sorted(f for f in os.listdir(folder) if f.endswith(".jsonl"))
    except OSError as e:
        raise ValueError(f"cannot read the ladder folder {folder!r}: {e.strerror or e}") from None
    for f in files:
        header, entries = read_results(os.path.join(folder, f))
        if not str(header.get("format", "")).startswith("sequence-game-match/"):
            continue
        names = [rated_name(n) for n in header.get("agents", header["names"])]
        games.extend(outcome_sides(names, outcome_of(e)) for e in entries)
    if not games:
        raise ValueError(f"no games in {folder!r}: run the ladder first (sequence-game ladder --out {folder})")
    return fit_ratings(games, anchor=anchor, anchor_rating=anchor_rating, prior=prior)


def _order(fit: RatingFit) -> List[str]:
    """The fit's names weakest first."""
    return list(reversed(fit.names))


def _label(name: str) -> str:
    from ..agents.levels import LEVELS

    for lv in LEVELS:
        if name == lv.name:
            return f"{name} ({lv.title})"
    return name


def ladder_table(fit: RatingFit) -> str:
    """A markdown table: each agent weakest first with its rating, 95% interval, games, score (wins,
    a draw shared), and the difference from the agent rated next below it with that difference's
    interval (**clear** when it excludes 0)."""
    lines = ["| agent | rating | 95% interval | games | score | over the one above | 95% interval |",
             "|---|---|---|---|---|---|---|"]
    prev = None
    for name in _order(fit):
        i = fit.index(name)
        lo, hi = fit.interval(name)
        interval = "(anchor)" if name == fit.anchor else f"[{lo:.0f}, {hi:.0f}]"
        if prev is None:
            diff = dint = ""
        else:
            d, (dlo, dhi) = fit.difference(name, prev)
            diff, dint = f"{d:+.0f}", f"[{dlo:+.0f}, {dhi:+.0f}]" + (" **clear**" if dlo > 0 or dhi < 0 else "")
        score = f"{100 * fit.score[i] / fit.games[i]:.1f}%"
        lines.append(f"| `{_label(name)}` | {fit.ratings[i]:.0f} | {interval} | {fit.games[i]} | {score} | "
                     f"{diff} | {dint} |")
        prev = name
    return "\n".join(lines) + "\n" + _level_steps(fit)


def _level_steps(fit: RatingFit) -> str:
    """The levels' own steps, each level over the level below it (the reference players between
    them aside), with the difference's 95% interval: the ladder's targets (docs/measurements.md)."""
    from ..agents.levels import LEVELS

    levels = [lv.name for lv in LEVELS if lv.name in fit.names]
    if len(levels) < 2:
        return ""
    lines = ["", "| step | difference | 95% interval |", "|---|---|---|"]
    for low, high in zip(levels, levels[1:]):
        d, (dlo, dhi) = fit.difference(high, low)
        lines.append(f"| `{_label(high)}` over `{_label(low)}` | {d:+.0f} | [{dlo:+.0f}, {dhi:+.0f}]"
                     + (" **clear**" if dlo > 0 or dhi < 0 else "") + " |")
    return "\n".join(lines) + "\n"


def ladder_svg(fit: RatingFit, title: str = "The ladder") -> str:
    """A picture of the ratings: one row per agent (weakest at the bottom), a dot at the rating and a
    bar over its 95% interval, on an Elo axis with ``random`` at its anchor rating."""
    order = list(fit.names)  # strongest on top
    lows = [fit.interval(n)[0] for n in order]
    highs = [fit.interval(n)[1] for n in order]
    lo = math.floor(min(lows) / 100) * 100
    hi = math.ceil(max(highs) / 100) * 100
    if hi <= lo:
        hi = lo + 100
    left, right, top, row = 190, 30, 50, 28
    width = 760
    height = top + row * len(order) + 45
    span = width - left - right

    def x(v: float) -> float:
        return left + (v - lo) / (hi - lo) * span

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15">{_xml(title)}</text>']
    step = 100 if hi - lo <= 1200 else 200
    for v in range(int(lo), int(hi) + 1, step):
        out.append(f'<line x1="{x(v):.1f}" y1="{top - 8}" x2="{x(v):.1f}" y2="{top + row * len(order)}" '
                   'stroke="#ddd"/>')
        out.append(f'<text x="{x(v):.1f}" y="{top + row * len(order) + 16}" text-anchor="middle" '
                   f'fill="#444">{v}</text>')
    out.append(f'<text x="{left + span / 2}" y="{height - 8}" text-anchor="middle" fill="#444">Elo '
               f'({_xml(fit.anchor)} = {fit.anchor_rating:.0f}), dot: rating, bar: 95% interval</text>')
    for k, name in enumerate(order):
        y = top + row * k + row / 2
        r = fit.rating(name)
        a, b = fit.interval(name)
        out.append(f'<text x="{left - 10}" y="{y + 4:.1f}" text-anchor="end">{_xml(_label(name))}</text>')
        out.append(f'<line x1="{x(a):.1f}" y1="{y:.1f}" x2="{x(b):.1f}" y2="{y:.1f}" stroke="#2a6fb0" '
                   'stroke-width="4" stroke-linecap="round"/>')
        out.append(f'<circle cx="{x(r):.1f}" cy="{y:.1f}" r="5" fill="#123f6b"/>')
        out.append(f'<text x="{x(b) + 8:.1f}" y="{y + 4:.1f}" fill="#444">{r:.0f}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def ladder_json(fit: RatingFit, players: int = 2, teams: int = 2) -> Dict[str, Any]:
    """The packaged ratings (``agents/data/ladder.json``): name -> rating, interval, games."""
    ratings = {}
    for name in fit.names:
        lo, hi = fit.interval(name)
        ratings[name] = {"rating": round(fit.rating(name)), "low": round(lo), "high": round(hi),
                         "games": fit.games[fit.index(name)]}
    return {"format": "sequence-game-ladder/1", "anchor": fit.anchor, "anchor_rating": fit.anchor_rating,
            "players": players, "teams": teams, "games": fit.total_games, "ratings": ratings}


def write_json(path: str, data: Dict[str, Any]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
