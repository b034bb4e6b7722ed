"""The statistics of a match: Wilson score intervals, Elo, and :class:`MatchResult`; and the one
Newton solver of the package's fits (the ratings here, the review's win chance and the learned
evaluation in :mod:`sequence_game.training`).

Everything here is computed from the games' outcomes alone, so a summary is the same whether the
outcomes come from a match that just finished, from one still running, or from a results file
read back later (:func:`sequence_game.arena.summary`).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

__all__ = ["GameOutcome", "MatchResult", "PairedComparison", "RatingFit", "SeatResult", "elo_difference",
           "fit_ratings", "newton", "sign_test", "wilson_interval"]

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


def newton(grad_hess: Callable[[Any], Tuple[Any, Any]], x0: Any, iterations: int = 100, tol: float = 1e-9,
           objective: Optional[Callable[[Any], float]] = None) -> Any:
    """The minimum of a smooth convex function by Newton's method, from ``x0`` (a numpy vector).
    ``grad_hess(x)`` gives its gradient and Hessian at ``x``. A step is ``solve(H, g)``, taken
    whole, or with ``objective`` (the function itself) halved until the objective does not rise
    (down to 1e-6 of a step). Stops after ``iterations`` steps or once a step's largest change is
    below ``tol``. ``numpy.linalg.LinAlgError`` when a Hessian is singular. Deterministic.

    >>> import numpy as np
    >>> x = newton(lambda x: (2 * (x - 3.0), 2 * np.eye(1)), np.zeros(1))
    >>> float(x[0])
    3.0
    """
    import numpy as np

    x = x0
    current = objective(x) if objective is not None else 0.0
    for _ in range(iterations):
        g, h = grad_hess(x)
        step = np.linalg.solve(h, g)
        t = 1.0
        trial = x - step
        if objective is not None:
            while True:
                value = objective(trial)
                if value <= current + 1e-12 or t < 1e-6:
                    break
                t /= 2
                trial = x - t * step
            current = value
        x = trial
        if float(np.abs(t * step).max(initial=0.0)) < tol:
            break
    return x


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


ELO_PER_NAT = 400.0 / math.log(10.0)  # Elo points per unit of log-strength: 400 log10(gamma)

_Game = Tuple[Sequence[str], Optional[str]]


@dataclass(frozen=True)
class RatingFit:
    """Ratings of many agents on one Elo scale, fitted to games of two or more sides
    (:func:`fit_ratings`).

    ``names`` strongest first; ``ratings[i]`` in Elo with ``anchor`` at ``anchor_rating``;
    ``covariance`` (Elo squared) of the ratings from the Fisher information (the anchor's row and
    column are 0: it is fixed); ``games[i]`` and ``score[i]`` the games each took part in and its
    wins (a draw shared among the sides); ``prior`` the virtual draws added per pair that met.
    """

    names: Tuple[str, ...]
    ratings: Tuple[float, ...]
    covariance: Tuple[Tuple[float, ...], ...]
    games: Tuple[int, ...]
    score: Tuple[float, ...]
    anchor: str
    anchor_rating: float
    prior: float
    total_games: int

    def index(self, name: str) -> int:
        try:
            return self.names.index(name)
        except ValueError:
            raise ValueError(f"{name!r} is not rated here: the fit has {', '.join(self.names)}") from None

    def rating(self, name: str) -> float:
        return self.ratings[self.index(name)]

    def interval(self, name: str, z: float = Z95) -> Tuple[float, float]:
        """The 95% interval of ``name``'s rating (relative to the anchor: the anchor's is a point)."""
        i = self.index(name)
        half = z * math.sqrt(max(0.0, self.covariance[i][i]))
        return (self.ratings[i] - half, self.ratings[i] + half)

    def difference(self, a: str, b: str, z: float = Z95) -> Tuple[float, Tuple[float, float]]:
        """``rating(a) - rating(b)`` and its 95% interval (from the covariance: the two ratings'
        errors are correlated through the games they share)."""
        i, j = self.index(a), self.index(b)
        c = self.covariance
        d = self.ratings[i] - self.ratings[j]
        half = z * math.sqrt(max(0.0, c[i][i] + c[j][j] - 2 * c[i][j]))
        return d, (d - half, d + half)

    def expected_score(self, a: str, b: str) -> float:
        """The score the fit predicts for ``a`` in a two-sided game against ``b``."""
        return float(1.0 / (1.0 + math.pow(10.0, -(self.rating(a) - self.rating(b)) / 400.0)))


def fit_ratings(games: Iterable[_Game], anchor: str = "random", anchor_rating: float = 0.0,
                prior: float = 1.0) -> RatingFit:
    """A multi-player Bradley-Terry (Luce) fit: each game is ``(sides, winner)``, the names of the
    agents that played its sides (two or more, each once) and the winner's name, or None for a
    draw. Agent ``i`` has a strength ``g_i = 10 ** (rating_i / 400)``; a side wins with probability
    ``g_winner / sum(g of the game's sides)`` (with two sides: the Elo formula). A draw counts as a
    win shared equally among the sides. Ratings maximise the likelihood (Newton's method), with
    ``anchor`` fixed at ``anchor_rating``, and ``prior`` virtual two-sided draws between every pair
    of agents that met, which keeps a clean sweep finite. Their covariance is the inverse Fisher
    information (games taken as independent; deals shared by a pair's games make the true error
    smaller, not larger).

    ``ValueError`` when a game is malformed, the anchor did not play, or some agent is not linked
    to the anchor through the games played.

    >>> fit = fit_ratings([(("a", "random"), "a")] * 3 + [(("a", "random"), "random")], prior=0)
    >>> round(fit.rating("a")), fit.rating("random")
    (191, 0.0)
    """
    import numpy as np

    if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not (math.isfinite(prior) and prior >= 0):
        raise ValueError(f"prior must be a number of virtual draws >= 0, not {prior!r}")
    groups: Dict[Tuple[str, ...], List[float]] = {}  # sorted sides -> [games, win share per side...]
    names: Dict[str, int] = {}
    games_of: Counter[str] = Counter()
    score_of: Dict[str, float] = {}
    total = 0
    for k, game in enumerate(games):
        try:
            sides, winner = game
            sides = tuple(sides)
        except (TypeError, ValueError):
            raise ValueError(f"game {k}: write each game as (sides, winner), not {game!r}") from None
        if len(sides) < 2 or len(set(sides)) != len(sides) or not all(isinstance(n, str) for n in sides):
            raise ValueError(f"game {k}: the sides must be two or more different names, not {sides!r}")
        if winner is not None and winner not in sides:
            raise ValueError(f"game {k}: the winner {winner!r} did not play (sides {sides!r})")
        key = tuple(sorted(sides))
        row = groups.setdefault(key, [0.0] * (len(key) + 1))
        row[0] += 1
        total += 1
        for who in key:
            names.setdefault(who, len(names))
            games_of[who] += 1
            share = (1.0 if who == winner else 0.0) if winner is not None else 1.0 / len(key)
            row[1 + key.index(who)] += share
            score_of[who] = score_of.get(who, 0.0) + share
    if anchor not in names:
        raise ValueError(f"the anchor {anchor!r} played no game: rate it against the others "
                         f"(agents: {', '.join(sorted(names)) or 'none'})")
    if prior > 0:
        pairs = {tuple(sorted((a, b))) for key in groups for a in key for b in key if a < b}
        for x, y in pairs:
            row = groups.setdefault((x, y), [0.0, 0.0, 0.0])
            row[0] += prior
            row[1] += prior / 2
            row[2] += prior / 2
    n = len(names)
    # links to the anchor: every agent must be reachable through games (else its rating is free)
    seen, todo = {anchor}, [anchor]
    while todo:
        linked = todo.pop()
        for key in groups:
            if linked in key:
                for b in key:
                    if b not in seen:
                        seen.add(b)
                        todo.append(b)
    if len(seen) != n:
        missing = sorted(set(names) - seen)
        raise ValueError(f"{', '.join(missing)} never met {anchor!r} or anyone linked to it: their ratings "
                         "are not on its scale")
    idx = [[names[m] for m in key] for key in groups]
    counts = [row[0] for row in groups.values()]
    wins = [np.array(row[1:]) for row in groups.values()]
    fixed = names[anchor]
    free = [i for i in range(n) if i != fixed]
    theta = np.zeros(n)

    def loglik(th: Any) -> float:
        out = 0.0
        for ix, c, w in zip(idx, counts, wins):
            t = th[ix]
            m = t.max()
            out += float(w @ t) - c * (m + math.log(float(np.exp(t - m).sum())))
        return out

    def grad_hess(th: Any) -> Tuple[Any, Any]:
        g, h = np.zeros(n), np.zeros((n, n))
        for ix, c, w in zip(idx, counts, wins):
            t = th[ix]
            p = np.exp(t - t.max())
            p /= p.sum()
            g[ix] += w - c * p
            h[np.ix_(ix, ix)] -= c * (np.diag(p) - np.outer(p, p))
        return g, h

    def minus_grad_hess(x: Any) -> Tuple[Any, Any]:  # of -loglik over the free ratings
        th = theta.copy()
        th[free] = x
        g, h = grad_hess(th)
        return -g[free], -h[np.ix_(free, free)]

    def minus_loglik(x: Any) -> float:
        th = theta.copy()
        th[free] = x
        return -loglik(th)

    try:
        theta[free] = newton(minus_grad_hess, theta[free], objective=minus_loglik)
    except np.linalg.LinAlgError:
        raise ValueError("the ratings cannot be fitted: some agent won or lost every game it played; "
                         "use prior > 0") from None
    if not np.all(np.isfinite(theta)):
        raise ValueError("the ratings cannot be fitted: some agent won or lost every game it played; use prior > 0")
    _, h = grad_hess(theta)
    cov = np.zeros((n, n))
    try:
        cov[np.ix_(free, free)] = np.linalg.inv(-h[np.ix_(free, free)])
    except np.linalg.LinAlgError:
        raise ValueError("the ratings' intervals cannot be computed: some agent won or lost every game it "
                         "played; use prior > 0") from None
    ratings = anchor_rating + ELO_PER_NAT * theta
    cov *= ELO_PER_NAT ** 2
    by_name = sorted(names, key=lambda m: (-ratings[names[m]], m))
    order = [names[m] for m in by_name]
    return RatingFit(
        names=tuple(by_name), ratings=tuple(float(ratings[i]) for i in order),
        covariance=tuple(tuple(float(cov[i, j]) for j in order) for i in order),
        games=tuple(games_of[m] for m in by_name), score=tuple(score_of[m] for m in by_name),
        anchor=anchor, anchor_rating=float(anchor_rating), prior=float(prior), total_games=total)


def outcome_sides(names: Sequence[str], outcome: GameOutcome) -> _Game:
    """One match game as :func:`fit_ratings` takes it: the names of the contenders that played its
    teams, and the winner's name or None."""
    sides = tuple(names[c] for c in dict.fromkeys(outcome.team_contenders))
    winner = None if outcome.winner_contender is None else names[outcome.winner_contender]
    return sides, winner
