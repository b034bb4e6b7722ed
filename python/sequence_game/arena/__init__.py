"""Matches between agents: seat rotation, statistics, and games run on every core or on Ray.

>>> from sequence_game.reference import Game
>>> r = match(["greedy", "random"], games=4, seed=1, game_class=Game)
>>> r.games, sum(r.wins) + r.draws
(4, 4)

Seats rotate so that every contender plays every seat (and team) equally often: in game ``g``
team ``t`` is played by contender ``(t + g) mod C`` (``C`` contenders). With two contenders in a
four-player game contender 0 takes the team-0 seats (0 and 2) in even games and the team-1 seats
in odd games. The deal repeats across each rotation (games ``C*k .. C*k + C - 1`` share a seed),
so each contender meets the same cards from every seat, which removes much of the luck of the
deal; the seeds themselves are derived from the match ``seed`` and the game's index only
(:mod:`.jobs`), so a match gives the same games in one process, on every core
(``workers=None``) or on a Ray cluster (``ray=True``) -- with fixed iteration budgets; a time
budget makes the moves depend on the machine.

Statistics (:mod:`.stats`): win rates with 95% Wilson score intervals, the Elo difference of
contender 0 over contender 1 from the score (wins + half the draws, out of the games both
played) with the 95% interval mapped from the Wilson interval of the score, and results per
contender and team. ``results="match.jsonl"`` streams every game to a JSON-lines file as it
finishes (:mod:`.results`); ``resume=True`` plays only the games that file is missing, and
:func:`summary` recomputes the statistics from it. :func:`compare` sets two such files side by side
game by game: two agents that met the same opponents on the same deals (the same match seed).

Modules: :mod:`.jobs` (the job model), :mod:`.pool` (local processes), :mod:`.ray_runner`
(Ray, imported only when asked for), :mod:`.results` (the file), :mod:`.runner` (one entry point
for all three), :mod:`.stats`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Dict, Optional, Sequence, Union

from ..game_setup import RUN_MAX_TURNS
from ..gamebase import GameClass
from ..records import GameRecord, default_game_class
from .jobs import MatchJob, derive_seed, normalise_contenders, outcome_of
from .pool import JobError, WorkerCrashedError, default_workers
from .results import read_results
from .runner import RichProgress, run_job
from .stats import GameOutcome, MatchResult, PairedComparison, SeatResult, elo_difference, format_elo, wilson_interval

__all__ = [
    "GameOutcome", "JobError", "MatchJob", "MatchResult", "PairedComparison", "RichProgress", "SeatResult",
    "WorkerCrashedError", "compare", "default_workers", "derive_seed", "elo_difference", "format_elo", "match",
    "read_results", "run_job", "summary", "wilson_interval",
]


def match(
    agent_factories: Sequence[Any],
    games: int = 100,
    players: int = 2,
    teams: Optional[int] = None,
    seed: int = 0,
    max_turns: Optional[int] = RUN_MAX_TURNS,
    game_class: Optional[GameClass] = None,
    progress: Union[bool, Callable[[int, int], None], Any, None] = None,
    keep_records: bool = False,
    workers: Optional[int] = 1,
    ray: Union[bool, str, None] = None,
    results: Optional[str] = None,
    resume: bool = False,
) -> MatchResult:
    """Play ``games`` games between two or more contenders and collect the statistics.

    ``agent_factories``: one entry per contender, each a spec string for
    ``agents.agent_from_spec`` (``"greedy"``, ``"mcts:iters=2000"``; the agent gets a seed derived
    from ``seed`` and the game, making the match reproducible), a zero-argument callable
    returning a fresh agent, a ``(name, factory)`` pair, or an agent object. A fresh agent is
    made for every seat of every game, so teammates never share an agent's memory (R9).

    Seats rotate: in game ``g`` team ``t`` is played by contender ``(t + g) mod C``; games in the
    same rotation (``g // C``) share a deal seed derived from ``seed``.

    Where the games run: ``workers=1`` (default) in this process; ``workers=None`` in a pool of
    processes, one per core; ``workers=N`` in ``N`` processes; ``ray=True`` as Ray tasks on the
    local Ray instance (started if none runs), ``ray="host:port"`` on a cluster (the ``[ray]``
    extra). Other processes need every contender as a spec string.

    ``results``: a JSON-lines file that receives every game as it finishes; ``resume=True``
    continues such a file, playing only its missing games (with a larger ``games`` it extends
    the match). ``progress``: ``callable(done, total)`` after each game, or ``True`` for a live
    ``rich`` progress bar. ``keep_records`` keeps every :class:`GameRecord` in the result.
    """
    job = MatchJob(normalise_contenders(agent_factories), games, players=players, teams=teams, seed=seed,
                   max_turns=max_turns, game_class=game_class or default_game_class())
    reporter = RichProgress(job) if progress is True else progress or None
    entries = run_job(job, workers=workers, ray=ray, results=results, resume=resume, progress=reporter)
    result = job.outcomes(entries)
    if keep_records:
        result.records = [_record(job, e) for e in entries]
    return result


def _record(job: MatchJob, entry: Dict[str, Any]) -> GameRecord:
    return GameRecord(players=job.players, teams=job.team_count, seed=entry["seed"], max_turns=job.max_turns,
                      agents=list(entry["agents"]), moves=list(entry["moves"]),
                      result={"winner": entry["winner"], "is_draw": entry["is_draw"], "turns": entry["turns"]},
                      started=entry.get("started"), finished=entry.get("finished"))


def summary(path: str) -> MatchResult:
    """The statistics of a match's results file (complete or not).

    ``planned`` is the number of games the match asked for; ``games`` those in the file.
    """
    header, entries = read_results(path)
    if not str(header.get("format", "")).startswith("sequence-game-match/"):
        raise ValueError(f"{path!r} is not a match results file (format {header.get('format')!r})")
    return MatchResult.from_outcomes(header["names"], [outcome_of(e) for e in entries], header["players"],
                                     header["teams"], header["seed"], planned=header["games"],
                                     max_turns=header["max_turns"])


def compare(path_a: str, path_b: str) -> PairedComparison:
    """Two agents compared game by game: ``path_a`` and ``path_b`` are the results files of two matches
    that differ only in their first contender (the same opponents, players, teams and match seed,
    so game ``i`` of both was dealt and seated alike). Only the games both files hold are compared.

    The comparison is much sharper than the two win rates side by side: the luck of a deal, shared
    by both, cancels out of each game's difference (:class:`~.stats.PairedComparison`).

    Raises ``ValueError`` naming what differs when the files are not two such matches.
    """
    headers, games = [], []
    for path in (path_a, path_b):
        header, entries = read_results(path)
        if not str(header.get("format", "")).startswith("sequence-game-match/"):
            raise ValueError(f"{path!r} is not a match results file (format {header.get('format')!r})")
        headers.append(header)
        games.append({e["index"]: e for e in entries})
    ha, hb = headers
    for key in ("players", "teams", "seed", "max_turns"):
        if ha.get(key) != hb.get(key):
            raise ValueError(f"the matches differ in {key} ({ha.get(key)!r} in {path_a!r}, {hb.get(key)!r} in "
                             f"{path_b!r}): compare matches that differ only in their first contender")
    opponents_a, opponents_b = list(ha.get("agents", ha["names"])[1:]), list(hb.get("agents", hb["names"])[1:])
    if opponents_a != opponents_b:  # the agent specs: a name may carry a "#1" to tell equal specs apart
        raise ValueError(f"the matches have different opponents ({', '.join(opponents_a)} in {path_a!r}, "
                         f"{', '.join(opponents_b)} in {path_b!r}): compare matches that differ only in "
                         "their first contender")
    common = sorted(set(games[0]) & set(games[1]))
    if not common:
        raise ValueError(f"{path_a!r} and {path_b!r} have no game index in common")
    a, b = [], []
    capped = [0, 0]
    for i in common:
        ga, gb = games[0][i], games[1][i]
        oa, ob = outcome_of(ga), outcome_of(gb)
        if oa.seed != ob.seed or oa.team_contenders != ob.team_contenders:
            raise ValueError(f"game {i} was not dealt and seated alike in {path_a!r} and {path_b!r}: "
                             "compare matches played with the same seed")
        a.append(_first_contender_score(oa))
        b.append(_first_contender_score(ob))
        cap = ha["max_turns"]  # the same in both (checked above)
        for k, o in enumerate((oa, ob)):
            capped[k] += cap is not None and o.winner is None and o.turns >= cap
    result = PairedComparison.from_scores((ha["names"][0], hb["names"][0]), tuple(opponents_a), a, b)
    return dataclasses.replace(result, capped=(capped[0], capped[1]))


def _first_contender_score(o: GameOutcome) -> float:
    """Contender 0's score in one game: a win 1, a draw 1/2, another contender's win 0."""
    if o.winner_contender is None:
        return 0.5
    return 1.0 if o.winner_contender == 0 else 0.0
