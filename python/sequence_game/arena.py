"""Matches between agents, with seat rotation and the statistics to read the result.

>>> from sequence_game.reference import Game
>>> r = match(["greedy", "random"], games=4, seed=1, game_class=Game)
>>> r.games, sum(r.wins) + r.draws
(4, 4)

Seats rotate so that every contender plays every seat (and team) equally often: in game ``g``
team ``t`` is played by contender ``(t + g) mod C`` (``C`` contenders). With two contenders in a
four-player game contender 0 takes the team-0 seats (0 and 2) in even games and the team-1 seats
in odd games. The deal repeats across each rotation (games ``C*k .. C*k + C - 1`` share a seed),
so each contender meets the same cards from every seat, which removes much of the luck of the
deal; the seeds themselves are derived from the match ``seed``.

Statistics: win rates with 95% Wilson score intervals, and the Elo difference of contender 0 over
contender 1 from the score (wins + half the draws, out of the games both played), with the 95%
interval mapped from the Wilson interval of the score.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Sequence, Tuple

from .agents import agent_from_spec, agent_name
from .records import GameRecord, default_game_class, play_game

__all__ = ["GameOutcome", "MatchResult", "derive_seed", "elo_difference", "match", "wilson_interval"]

Z95 = 1.959963984540054  # the two-sided 95% normal quantile
_MASK = (1 << 64) - 1


def wilson_interval(successes: float, n: int, z: float = Z95) -> Tuple[float, float]:
    """The Wilson score interval for a proportion ``successes / n`` (95% by default).

    ``successes`` may be fractional (a score counting draws as half). ``(0.0, 1.0)`` when ``n`` is 0.

    >>> lo, hi = wilson_interval(70, 100)
    >>> round(lo, 4), round(hi, 4)
    (0.6042, 0.7811)
    """
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be between 0 and n={n}, not {successes}")
    p = successes / n
    z2 = z * z
    denom = 1 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return (max(0.0, center - half), min(1.0, center + half))


def elo_difference(score: float) -> float:
    """The Elo rating difference that predicts an expected ``score`` (0..1): ``-400 log10(1/s - 1)``.

    ``+inf``/``-inf`` at 1 and 0.

    >>> round(elo_difference(0.75), 1)
    190.8
    """
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def derive_seed(seed: int, index: int) -> int:
    """A 64-bit seed for item ``index`` derived from ``seed`` (SplitMix64 finaliser, stable)."""
    z = (seed * 0x9E3779B97F4A7C15 + (index + 1) * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


@dataclass
class GameOutcome:
    """One game of a match: its seed, which contender played each team, and how it ended."""

    seed: int
    team_contenders: List[int]  # team t was played by contender team_contenders[t]
    winner: Optional[int]  # the winning team, or None
    winner_contender: Optional[int]  # the contender who played the winning team, or None
    is_draw: bool
    turns: int


@dataclass
class MatchResult:
    """The outcome of :func:`match`.

    ``names`` of the contenders; ``games`` played; ``wins[i]`` games won by contender ``i``;
    ``draws``; ``played[i]`` games contender ``i`` took part in (all of them unless there are more
    contenders than teams); ``outcomes`` per game; ``records`` (GameRecords) when kept.
    """

    names: List[str]
    games: int
    wins: List[int]
    draws: int
    played: List[int]
    players: int = 2
    teams: int = 2
    seed: int = 0
    outcomes: List[GameOutcome] = field(default_factory=list)
    records: List[GameRecord] = field(default_factory=list)

    @property
    def losses(self) -> List[int]:
        """Games each contender played and neither won nor drew."""
        return [self.played[i] - self.wins[i] - self._draws_of(i) for i in range(len(self.names))]

    def _draws_of(self, i: int) -> int:
        return sum(1 for o in self.outcomes if o.is_draw and i in o.team_contenders) if self.outcomes else self.draws

    def win_rate(self, i: int = 0) -> float:
        """Contender ``i``'s wins over the games it played."""
        return self.wins[i] / self.played[i] if self.played[i] else 0.0

    def win_rate_interval(self, i: int = 0) -> Tuple[float, float]:
        """95% Wilson score interval of contender ``i``'s win rate."""
        return wilson_interval(self.wins[i], self.played[i])

    def _head_to_head(self, a: int, b: int) -> Tuple[float, int]:
        """(score of ``a``, games) over the games both ``a`` and ``b`` played: a win 1, a loss 0,
        anything else (a draw, a third contender winning) 1/2."""
        if not self.outcomes:  # built by hand: assume two contenders in every game
            return self.wins[a] + 0.5 * (self.games - self.wins[a] - self.wins[b]), self.games
        score, n = 0.0, 0
        for o in self.outcomes:
            if a in o.team_contenders and b in o.team_contenders:
                n += 1
                score += 1.0 if o.winner_contender == a else 0.0 if o.winner_contender == b else 0.5
        return score, n

    def score(self, a: int = 0, b: int = 1) -> float:
        """Contender ``a``'s score against ``b`` (wins + half the draws, per game)."""
        s, n = self._head_to_head(a, b)
        return s / n if n else 0.5

    def elo(self, a: int = 0, b: int = 1) -> float:
        """The Elo difference of ``a`` over ``b`` implied by :meth:`score`."""
        s, n = self._head_to_head(a, b)
        return elo_difference(s / n) if n else 0.0

    def elo_interval(self, a: int = 0, b: int = 1) -> Tuple[float, float]:
        """95% interval of :meth:`elo`: the Wilson interval of the score, mapped to Elo."""
        s, n = self._head_to_head(a, b)
        lo, hi = wilson_interval(s, n)
        return elo_difference(lo), elo_difference(hi)

    def __str__(self) -> str:
        head = f"{self.games} games, {self.players} players ({self.teams} teams), seed {self.seed}"
        width = max([len("contender")] + [len(n) for n in self.names])
        lines = [head, f"{'contender':<{width}}  games   wins  draws  losses  win rate   95% CI"]
        losses = self.losses
        for i, name in enumerate(self.names):
            lo, hi = self.win_rate_interval(i)
            lines.append(
                f"{name:<{width}}  {self.played[i]:>5}  {self.wins[i]:>5}  {self._draws_of(i):>5}  {losses[i]:>6}"
                f"  {100 * self.win_rate(i):>7.1f}%  [{100 * lo:.1f}%, {100 * hi:.1f}%]"
            )
        if len(self.names) >= 2:
            lines.append(self.elo_line())
        return "\n".join(lines)

    def elo_line(self) -> str:
        """The Elo of the first contender over the second, its 95% interval and the score, as text."""
        lo, hi = self.elo_interval()
        return (
            f"Elo {self.names[0]} - {self.names[1]}: {format_elo(self.elo())} "
            f"(95% CI {format_elo(lo)} .. {format_elo(hi)}), score {self.score():.3f}"
        )


def format_elo(x: float) -> str:
    """An Elo difference as text: ``+35``, ``-120``, ``+inf`` for a clean sweep.

    >>> format_elo(35.4), format_elo(float("-inf"))
    ('+35', '-inf')
    """
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.0f}"


def _contenders(agent_factories: Sequence[Any]) -> List[Tuple[str, Callable[[Optional[int]], Any]]]:
    """Normalise the contenders to ``(name, make(seed))``."""
    out: List[Tuple[str, Callable[[Optional[int]], Any]]] = []
    for i, entry in enumerate(agent_factories):
        name: Optional[str] = None
        if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[0], str):
            name, entry = entry
        if isinstance(entry, str):
            spec = entry
            agent_from_spec(spec)  # fail early on a bad spec
            out.append((name or spec, lambda seed, spec=spec: agent_from_spec(spec, seed=seed)))
            continue
        if hasattr(entry, "select_move") and not isinstance(entry, type):
            agent = entry  # an agent object: shared by every seat and game it plays
            out.append((name or agent_name(agent), lambda seed, agent=agent: agent))
            continue
        if not callable(entry):
            raise TypeError(
                f"contender {i} must be a zero-argument agent factory, a (name, factory) pair or a spec "
                f"string like 'greedy', not {entry!r}"
            )
        if name is None:
            name = agent_name(entry())
        out.append((name, lambda seed, f=entry: f()))
    plain = [n for n, _ in out]
    names = [f"{n} #{i}" if plain.count(n) > 1 else n for i, n in enumerate(plain)]  # unique, for the table
    return [(names[i], make) for i, (_, make) in enumerate(out)]


def match(
    agent_factories: Sequence[Any],
    games: int = 100,
    players: int = 2,
    teams: Optional[int] = None,
    seed: int = 0,
    max_turns: Optional[int] = None,
    game_class: Optional[type] = None,
    progress: Optional[Callable[[int, int], None]] = None,
    keep_records: bool = False,
) -> MatchResult:
    """Play ``games`` games between two or more contenders and collect the statistics.

    ``agent_factories``: one entry per contender, each a zero-argument callable returning a fresh
    agent, a ``(name, factory)`` pair, or a spec string for ``agents.agent_from_spec`` (then the
    agent gets a seed derived from ``seed``, making the match reproducible). A fresh agent is made
    for every seat of every game, so teammates never share an agent's memory (R9).

    Seats rotate: in game ``g`` team ``t`` is played by contender ``(t + g) mod C``; games in the
    same rotation (``g // C``) share a deal seed derived from ``seed``. ``progress(done, total)``
    is called after each game; ``keep_records`` keeps every :class:`GameRecord` in the result.
    """
    if not isinstance(games, int) or games < 1:
        raise ValueError(f"games must be a positive int, not {games!r}")
    contenders = _contenders(agent_factories)
    c = len(contenders)
    if c < 2:
        raise ValueError("a match needs at least two contenders")
    cls = game_class or default_game_class()
    probe = cls(players=players, teams=teams, seed=0, max_turns=max_turns)
    n_teams = probe.teams
    wins = [0] * c
    played = [0] * c
    draws = 0
    outcomes: List[GameOutcome] = []
    records: List[GameRecord] = []
    for g in range(games):
        deal_seed = derive_seed(seed, g // c)
        team_contenders = [(t + g) % c for t in range(n_teams)]
        seat_agents = [
            contenders[team_contenders[p % n_teams]][1](derive_seed(deal_seed, 1000 * (g % c) + p))
            for p in range(players)
        ]
        for i in set(team_contenders):
            played[i] += 1
        rec = play_game(seat_agents, players=players, teams=teams, seed=deal_seed, max_turns=max_turns, game_class=cls)
        for p, (name, _) in enumerate(contenders[team_contenders[p % n_teams]] for p in range(players)):
            rec.agents[p] = name
        winner = rec.result["winner"]  # type: ignore[index]
        winner_contender = None if winner is None else team_contenders[winner]
        if winner_contender is None:
            draws += 1
        else:
            wins[winner_contender] += 1
        outcomes.append(
            GameOutcome(deal_seed, team_contenders, winner, winner_contender, rec.result["is_draw"], rec.result["turns"])  # type: ignore[index]
        )
        if keep_records:
            records.append(rec)
        if progress is not None:
            progress(g + 1, games)
    return MatchResult(
        names=[n for n, _ in contenders], games=games, wins=wins, draws=draws, played=played,
        players=players, teams=n_teams, seed=seed, outcomes=outcomes, records=records,
    )
