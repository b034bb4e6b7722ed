"""The statistics of a match: Wilson score intervals, Elo, and :class:`MatchResult`.

Everything here is computed from the games' outcomes alone, so a summary is the same whether the
outcomes come from a match that just finished, from one still running, or from a results file
read back later (:func:`sequence_game.arena.summary`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

__all__ = ["GameOutcome", "MatchResult", "PairedComparison", "SeatResult", "elo_difference", "sign_test",
           "wilson_interval"]

Z95 = 1.959963984540054  # the two-sided 95% normal quantile


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


def sign_test(better: int, worse: int) -> float:
    """The exact two-sided sign test: the probability, if either result were equally likely, of a
    split of ``better + worse`` at least as uneven as this one (McNemar's exact test for paired
    wins and losses). 1.0 when there are none.

    >>> round(sign_test(63, 38), 3)
    0.017
    """
    if better < 0 or worse < 0:
        raise ValueError(f"counts must be >= 0, not {better} and {worse}")
    n, k = better + worse, min(better, worse)
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, j) for j in range(k + 1))
    return min(1.0, 2 * tail / (1 << n))


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


def format_elo(x: float) -> str:
    """An Elo difference as text: ``+35``, ``-120``, ``+inf`` for a clean sweep.

    >>> format_elo(35.4), format_elo(float("-inf"))
    ('+35', '-inf')
    """
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:+.0f}"


@dataclass
class GameOutcome:
    """One game of a match: its deal seed, which contender played each team, and how it ended.

    ``index`` is the game's number in the match (its seeds depend only on the match seed and
    ``index``); ``seconds`` its wall-clock time (not compared: it depends on the machine).
    """

    seed: int
    team_contenders: List[int]  # team t was played by contender team_contenders[t]
    winner: Optional[int]  # the winning team, or None
    winner_contender: Optional[int]  # the contender who played the winning team, or None
    is_draw: bool
    turns: int
    index: int = -1
    seconds: float = field(default=0.0, compare=False)
    node: Optional[str] = field(default=None, compare=False)  # the Ray node that played it, if any


@dataclass(frozen=True)
class SeatResult:
    """How one contender did on one team (team 0 moves first): games, wins, draws."""

    contender: int
    team: int
    games: int
    wins: int
    draws: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    def win_rate_interval(self) -> Tuple[float, float]:
        return wilson_interval(self.wins, self.games)


@dataclass
class MatchResult:
    """The outcome of a match (:func:`sequence_game.arena.match`, or a results file's summary).

    ``names`` of the contenders; ``games`` played; ``wins[i]`` games won by contender ``i``;
    ``draws``; ``played[i]`` games contender ``i`` took part in (all of them unless there are more
    contenders than teams); ``outcomes`` per game, in game order; ``records`` (GameRecords) when
    kept; ``planned``: the games the match asked for (more than ``games`` while it runs or after
    an interruption); ``max_turns``: the turn cap (a capped game is one of the draws, ``capped``
    counts them).
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
    records: List[Any] = field(default_factory=list)
    planned: Optional[int] = None
    max_turns: Optional[int] = None

    @classmethod
    def from_outcomes(cls, names: List[str], outcomes: List[GameOutcome], players: int, teams: int, seed: int,
                      planned: Optional[int] = None, max_turns: Optional[int] = None) -> MatchResult:
        """The counts of a match from its outcomes (sorted by game index)."""
        outs = sorted(outcomes, key=lambda o: o.index)
        c = len(names)
        wins, played, draws = [0] * c, [0] * c, 0
        for o in outs:
            for i in set(o.team_contenders):
                played[i] += 1
            if o.winner_contender is None:
                draws += 1
            else:
                wins[o.winner_contender] += 1
        return cls(names=list(names), games=len(outs), wins=wins, draws=draws, played=played, players=players,
                   teams=teams, seed=seed, outcomes=outs, planned=planned, max_turns=max_turns)

    @property
    def capped(self) -> int:
        """Games that reached the turn cap: draws (counted in ``draws``) that the rules did not end."""
        cap = self.max_turns
        return sum(1 for o in self.outcomes if cap is not None and o.winner is None and o.turns >= cap)

    @property
    def games_per_node(self) -> Dict[str, int]:
        """Games played on each Ray node (node id -> games), empty for games played elsewhere."""
        return dict(sorted(Counter(o.node for o in self.outcomes if o.node is not None).items()))

    def notes(self) -> List[str]:
        """Lines on the capped games and the nodes, for the summaries."""
        out = []
        if self.capped:
            out.append(f"draws include {self.capped} game{'s' * (self.capped != 1)} stopped at the turn cap "
                       f"({self.max_turns} turns)")
        if self.games_per_node:
            out.append("games per node: " + ", ".join(f"{n[:12]} {k}" for n, k in self.games_per_node.items()))
        return out

    @property
    def losses(self) -> List[int]:
        """Games each contender played and neither won nor drew."""
        return [self.played[i] - self.wins[i] - self.draws_of(i) for i in range(len(self.names))]

    def draws_of(self, i: int) -> int:
        """Drawn games contender ``i`` took part in."""
        return sum(1 for o in self.outcomes if o.is_draw and i in o.team_contenders) if self.outcomes else self.draws

    _draws_of = draws_of

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

    def seat_results(self) -> List[SeatResult]:
        """Per contender and team (team 0 moves first): games, wins and draws, contender-major."""
        counts: Dict[Tuple[int, int], List[int]] = {}
        for o in self.outcomes:
            for t, c in enumerate(o.team_contenders):
                g_w_d = counts.setdefault((c, t), [0, 0, 0])
                g_w_d[0] += 1
                g_w_d[1] += int(o.winner == t)
                g_w_d[2] += int(o.is_draw)
        return [SeatResult(c, t, *counts[(c, t)]) for c, t in sorted(counts)]

    def elo_line(self) -> str:
        """The Elo of the first contender over the second, its 95% interval and the score, as text."""
        lo, hi = self.elo_interval()
        return (
            f"Elo {self.names[0]} - {self.names[1]}: {format_elo(self.elo())} "
            f"(95% CI {format_elo(lo)} .. {format_elo(hi)}), score {self.score():.3f}"
        )

    def __str__(self) -> str:
        head = f"{self.games} games, {self.players} players ({self.teams} teams), seed {self.seed}"
        if self.planned is not None and self.planned != self.games:
            head += f" ({self.planned - self.games} of {self.planned} not played)"
        width = max([len("contender")] + [len(n) for n in self.names])
        lines = [head, f"{'contender':<{width}}  games   wins  draws  losses  win rate   95% CI"]
        losses = self.losses
        for i, name in enumerate(self.names):
            lo, hi = self.win_rate_interval(i)
            lines.append(
                f"{name:<{width}}  {self.played[i]:>5}  {self.wins[i]:>5}  {self.draws_of(i):>5}  {losses[i]:>6}"
                f"  {100 * self.win_rate(i):>7.1f}%  [{100 * lo:.1f}%, {100 * hi:.1f}%]"
            )
        if len(self.names) >= 2:
            lines.append(self.elo_line())
        lines += self.notes()
        seats = self.seat_results()
        if seats:
            lines.append("by team (team 0 moves first): " + "; ".join(
                f"{self.names[s.contender]} as team {s.team} {s.wins}/{s.games}" for s in seats))
        return "\n".join(lines)


@dataclass(frozen=True)
class PairedComparison:
    """Two agents compared game by game over the same deals (:func:`sequence_game.arena.compare`).

    Each match put its first contender (``names[0]``, ``names[1]``) against the same opponents with
    the same match seed, so game ``i`` of both was dealt alike and seated alike. Per game, the first
    contender's score (a win 1, a draw 1/2, another contender's win 0); ``difference`` is the mean of the
    per-game differences, ``interval`` its 95% normal interval from their spread (the luck of the
    deals, shared by both, cancels out of it), ``a_only`` / ``b_only`` the games where one scored
    more, and ``p_value`` the exact sign test on those (McNemar's test when there are no draws).
    """

    names: Tuple[str, str]
    opponents: Tuple[str, ...]
    games: int
    score_a: float
    score_b: float
    a_only: int
    b_only: int
    difference: float
    interval: Tuple[float, float]
    p_value: float
    capped: Tuple[int, int] = (0, 0)  # games of each match stopped at the turn cap (scored as draws)

    @classmethod
    def from_scores(cls, names: Tuple[str, str], opponents: Tuple[str, ...], a: List[float],
                    b: List[float]) -> PairedComparison:
        """From the per-game scores of the two first contenders over the same games."""
        if len(a) != len(b):
            raise ValueError(f"need one score of each per game, got {len(a)} and {len(b)}")
        n = len(a)
        diffs = [x - y for x, y in zip(a, b)]
        mean = sum(diffs) / n if n else 0.0
        if n > 1:
            sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1))
            half = Z95 * sd / math.sqrt(n)
        else:
            half = math.inf
        a_only = sum(1 for d in diffs if d > 0)
        b_only = sum(1 for d in diffs if d < 0)
        return cls(names=names, opponents=opponents, games=n, score_a=sum(a) / n if n else 0.0,
                   score_b=sum(b) / n if n else 0.0, a_only=a_only, b_only=b_only, difference=mean,
                   interval=(mean - half, mean + half), p_value=sign_test(a_only, b_only))

    def __str__(self) -> str:
        lo, hi = self.interval
        return (
            f"{self.games} games dealt alike, against {', '.join(self.opponents)}: "
            f"{self.names[0]} scores {100 * self.score_a:.1f}%, {self.names[1]} {100 * self.score_b:.1f}%; "
            f"difference {100 * self.difference:+.1f} points (95% CI {100 * lo:+.1f} .. {100 * hi:+.1f}); "
            f"{self.a_only} games where only the first did better, {self.b_only} where only the second did "
            f"(sign test p = {self.p_value:.2g})"
            + (f"; draws at the turn cap: {self.capped[0]} and {self.capped[1]}" if any(self.capped) else "")
        )
