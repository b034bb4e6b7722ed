"""Tune the search's options for playing strength by matches: a sequential screen and SPSA.

The learned evaluation and the inference of hidden cards optimised predictions; this tool
optimises what counts, the result of games, the way chess engines tune their parameters. Both
methods play the arena's matches (:class:`sequence_game.arena.MatchJob`: seats alternated over
shared deals, game ``i`` a function of the match seed and ``i`` only) in its worker pool, at fixed
iteration budgets, so every number is reproducible on any machine.

**screen**: every candidate (the base spec with some options changed) plays a match against an
opponent, ``--batch`` games at a time up to ``--games``, every candidate on the same deals (the
same match seed). A candidate whose 95% Wilson interval falls wholly below 50% stops early (it is
worse); the others play on. Each match is a results file of the arena's format in ``--dir``
(``sequence-game arena --summary FILE`` reads it, ``--resume`` extends it), and each batch adds
one line to the ``--log`` JSONL file::

    sequence-game tune screen --base mcts:iters=1000 --opponent mcts-v1:iters=1000 \\
        --try exploration=0.35 --try weights.scale=60 --try playout_turns=4,exploration=0.3 \\
        --games 400 --batch 100 --seed 101 --workers 2 --dir tune-runs --log tune-runs/screen.jsonl

A setting is ``key=value`` pairs separated by commas, as in an agent spec; ``weights.NAME=x``
changes one of the evaluation's 8 weights (``window1 window2 window3 threat sequence scale
two_eyed one_eyed``) and leaves the base's others.

**spsa**: simultaneous perturbation stochastic approximation (Spall 1998) over numeric options:
each round draws ``--perturbations`` random sign vectors ``d``, and plays ``theta + c d`` against
``theta - c d`` (``--pairs`` deals each, both seats); the parameters move by
``a * mean((score - 1/2) * d) / c`` in units of each parameter's range. Every round is one line of
the log (the parameters, the perturbed specs, the scores)::

    sequence-game tune spsa --base mcts:iters=1000 \\
        --param exploration=0.2:0.02:1.0 --param weights.scale=80:20:300 \\
        --rounds 30 --perturbations 8 --pairs 4 --seed 7 --workers 2 --log tune-runs/spsa.jsonl

A tuned setting measured on its tuning deals is optimistic (the screen picks the luckiest of
many; SPSA fits its deals): confirm it on other seeds at the real budget with
``sequence-game arena``.

>>> candidate_spec("mcts:iters=1000", {"exploration": 0.3, "weights.scale": 60})
'mcts:iters=1000,exploration=0.3,weights=1/4/15/50/150/60/30/20'
>>> parse_setting("playout_turns=4,weights.threat=70")
{'playout_turns': 4, 'weights.threat': 70}
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import _core
from ..agents import agent_from_spec
from ..agents.mcts import format_weights, parse_weights
from ..agents.registry import parse_value
from ..arena import MatchJob, run_job, wilson_interval
from ..arena.jobs import normalise_contenders
from ..arena.stats import MatchResult
from ..seeds import derive_seed

__all__ = ["Param", "ScreenResult", "candidate_spec", "main", "parse_param", "parse_setting", "screen", "spsa"]

WEIGHT_PREFIX = "weights."


def parse_setting(text: str) -> Dict[str, Any]:
    """``key=value`` pairs separated by commas (values read as in an agent spec) as a dict."""
    out: Dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"a setting is key=value pairs separated by commas, not {item!r} in {text!r}")
        out[key.strip().lower()] = parse_value(value)
    return out


def _split_spec(spec: str) -> Tuple[str, Dict[str, Any]]:
    name, _, rest = spec.strip().partition(":")
    return name.strip(), parse_setting(rest)


def candidate_spec(base: str, changes: Dict[str, Any]) -> str:
    """The agent spec ``base`` with ``changes`` laid over its options (``weights.NAME`` keys change
    one evaluation weight of the base's). Refuses a spec the registry would refuse."""
    name, opts = _split_spec(base)
    weight_changes = {k[len(WEIGHT_PREFIX):]: v for k, v in changes.items() if k.startswith(WEIGHT_PREFIX)}
    for k, v in changes.items():
        if not k.startswith(WEIGHT_PREFIX):
            opts.pop(k, None)
            opts[k] = v
    if weight_changes:
        fields = _core.EvalWeights.fields
        unknown = sorted(set(weight_changes) - set(fields))
        if unknown:
            raise ValueError(f"unknown evaluation weight {unknown[0]!r}: choose one of {', '.join(fields)}")
        base_weights = agent_from_spec(name + (":" + _join(opts) if opts else "")).options.weights
        values = dict(zip(fields, parse_weights(format_weights(base_weights))))
        values.update({k: float(v) for k, v in weight_changes.items()})
        opts.pop("weights", None)
        opts["weights"] = "/".join(f"{values[k]:g}" for k in fields)
    spec = name + (":" + _join(opts) if opts else "")
    agent_from_spec(spec)  # a bad option fails here, naming itself
    return spec


def _join(opts: Dict[str, Any]) -> str:
    return ",".join(f"{k}={_show(v)}" for k, v in opts.items())


def _show(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _slug(setting: str) -> str:
    keep = "".join(ch if ch.isalnum() or ch in ".-" else "_" for ch in setting)
    return keep[:120] or "base"


def _log(path: Optional[str], entry: Dict[str, Any]) -> None:
    if path is None:
        return
    entry = {"time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **entry}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry, separators=(",", ":")) + "\n")


# ------------------------------------------------------------------------------------------ screen


@dataclass
class ScreenResult:
    """One candidate of a screen: its setting and spec, and its match against the opponent."""

    setting: str
    spec: str
    opponent: str
    games: int
    wins: int
    losses: int
    draws: int
    stopped: str  # "complete" or why it stopped early
    results: Optional[str] = None

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    @property
    def interval(self) -> Tuple[float, float]:
        return wilson_interval(self.wins + 0.5 * self.draws, self.games)

    def line(self) -> str:
        lo, hi = self.interval
        return (f"{100 * self.score:5.1f}% [{100 * lo:4.1f}, {100 * hi:4.1f}]  {self.wins:>4}-{self.losses:<4} "
                f"({self.games} games, {self.stopped})  {self.setting or '(base)'}")


def _match_counts(r: MatchResult) -> Tuple[int, int, int]:
    return r.wins[0], r.wins[1], r.games - r.wins[0] - r.wins[1]


def screen(base: str, opponent: str, settings: Sequence[str], games: int = 400, batch: int = 100, seed: int = 0,
           workers: Optional[int] = 2, directory: str = ".", log: Optional[str] = None, players: int = 2,
           early_stop: bool = True, progress: Any = None) -> List[ScreenResult]:
    """Play every setting (the base spec with that setting's changes; ``""`` is the base itself)
    against ``opponent``, ``batch`` games at a time up to ``games``, all on the deals of match
    ``seed``; stop a candidate early when its 95% interval lies below 1/2 (``early_stop``).
    Results files go to ``directory`` (extended, not replayed, when they exist); each batch is a
    line of ``log``. Returns the candidates sorted by score, best first."""
    if games < 1 or batch < 1:
        raise ValueError(f"games and batch must be >= 1, not {games} and {batch}")
    os.makedirs(directory, exist_ok=True)
    out: List[ScreenResult] = []
    for setting in settings:
        spec = candidate_spec(base, parse_setting(setting))
        path = os.path.join(directory, f"screen-{_slug(setting)}-vs-{_slug(opponent)}-s{seed}.jsonl")
        played, stopped = 0, "complete"
        r: Optional[MatchResult] = None
        while played < games:
            played = min(games, played + batch)
            job = MatchJob(normalise_contenders([spec, opponent]), played, players=players, seed=seed)
            entries = run_job(job, workers=workers, results=path, resume=True)
            r = job.outcomes(entries)
            w, lo_, d = _match_counts(r)
            lo, hi = wilson_interval(w + 0.5 * d, r.games)
            _log(log, {"kind": "screen", "setting": setting, "spec": spec, "opponent": opponent, "seed": seed,
                       "players": players, "games": r.games, "wins": w, "losses": lo_, "draws": d,
                       "score": (w + 0.5 * d) / r.games, "interval": [lo, hi], "results": path})
            if progress is not None:
                progress(f"{setting or '(base)'}: {r.games} games, {100 * (w + 0.5 * d) / r.games:.1f}% "
                         f"[{100 * lo:.1f}, {100 * hi:.1f}]")
            if early_stop and hi < 0.5 and played < games:
                stopped = f"stopped: interval below 50% after {r.games}"
                break
        assert r is not None
        w, lo_, d = _match_counts(r)
        out.append(ScreenResult(setting, spec, opponent, r.games, w, lo_, d, stopped, path))
    return sorted(out, key=lambda c: -c.score)


# ------------------------------------------------------------------------------------------ SPSA


@dataclass
class Param:
    """A numeric option tuned by SPSA: its start value and bounds (``integer`` rounds it)."""

    name: str
    start: float
    low: float
    high: float
    integer: bool = False

    def clip(self, x: float) -> float:
        return min(self.high, max(self.low, x))

    def value(self, x: float) -> Any:
        x = self.clip(x)
        return round(x) if self.integer else round(x, 6)


def parse_param(text: str) -> Param:
    """``name=start:low:high`` (``name=start:low:high:int`` for an integer option).

    >>> parse_param("playout_turns=6:1:30:int")
    Param(name='playout_turns', start=6.0, low=1.0, high=30.0, integer=True)
    """
    name, eq, rest = text.partition("=")
    parts = rest.split(":")
    if not eq or not name.strip() or len(parts) not in (3, 4) or (len(parts) == 4 and parts[3] != "int"):
        raise ValueError(f"a tuned parameter is name=start:low:high or name=start:low:high:int, not {text!r}")
    try:
        start, low, high = (float(p) for p in parts[:3])
    except ValueError:
        raise ValueError(f"start, low and high must be numbers in {text!r}") from None
    if not (low < high and low <= start <= high):
        raise ValueError(f"need low < high and low <= start <= high in {text!r}")
    return Param(name.strip().lower(), start, low, high, len(parts) == 4)


@dataclass
class _PairJob:
    """Several small matches as one job for the arena's runners: unit ``i`` is game
    ``game[i]`` of the match ``(specs[i], seed[i])``."""

    matches: List[Tuple[str, str]]
    seeds: List[int]
    game_of: List[Tuple[int, int]] = field(default_factory=list)  # (match, game index) per unit

    @property
    def size(self) -> int:
        return len(self.game_of)

    def header(self) -> Dict[str, Any]:
        return {"format": "sequence-game-tune/1", "matches": self.matches, "seeds": self.seeds}

    def identity(self) -> Dict[str, Any]:
        return self.header()

    def check_portable(self) -> None:
        pass

    def execute(self, index: int) -> Dict[str, Any]:
        m, g = self.game_of[index]
        job = MatchJob(normalise_contenders(list(self.matches[m])), g + 1, seed=self.seeds[m])
        entry = job.execute(g)
        return {"index": index, "match": m, "game": g, "winner_contender": entry["winner_contender"],
                "turns": entry["turns"]}


def spsa(base: str, params: Sequence[Param], rounds: int = 20, perturbations: int = 8, pairs: int = 4,
         seed: int = 0, workers: Optional[int] = 2, log: Optional[str] = None, a: float = 0.1, c: float = 0.1,
         progress: Any = None) -> Dict[str, Any]:
    """SPSA over ``params`` (see the module docstring), in units of each parameter's range:
    perturbations of size ``c / (k + 1)**0.101`` and steps ``a / (k + 1 + rounds / 10)**0.602``
    (Spall's exponents) in round ``k``. Returns the final values."""
    if not params:
        raise ValueError("give at least one --param to tune")
    if rounds < 1 or perturbations < 1 or pairs < 1:
        raise ValueError("rounds, perturbations and pairs must be >= 1")
    rng = random.Random(seed)
    theta = [(p.start - p.low) / (p.high - p.low) for p in params]

    def spec_at(x: Sequence[float]) -> str:
        return candidate_spec(base, {p.name: p.value(p.low + xi * (p.high - p.low)) for p, xi in zip(params, x)})

    for k in range(rounds):
        ck = c / (k + 1) ** 0.101
        ak = a / (k + 1 + rounds / 10) ** 0.602
        deltas = [[rng.choice((-1.0, 1.0)) for _ in params] for _ in range(perturbations)]
        matches: List[Tuple[str, str]] = []
        seeds: List[int] = []
        for d in deltas:
            plus = [min(1.0, max(0.0, t + ck * di)) for t, di in zip(theta, d)]
            minus = [min(1.0, max(0.0, t - ck * di)) for t, di in zip(theta, d)]
            matches.append((spec_at(plus), spec_at(minus)))
            seeds.append(derive_seed(seed, 1 + k * perturbations + len(seeds)))
        job = _PairJob(matches, seeds, [(m, g) for m in range(len(matches)) for g in range(2 * pairs)])
        entries = run_job(job, workers=workers)
        scores = []
        for m in range(len(matches)):
            res = [e["winner_contender"] for e in entries if e["match"] == m]
            scores.append(sum(1.0 if w == 0 else 0.5 if w is None else 0.0 for w in res) / len(res))
        grad = [sum((s - 0.5) * d[i] for s, d in zip(scores, deltas)) / (len(deltas) * ck) for i in range(len(params))]
        theta = [min(1.0, max(0.0, t + ak * g)) for t, g in zip(theta, grad)]
        values = {p.name: p.value(p.low + t * (p.high - p.low)) for p, t in zip(params, theta)}
        _log(log, {"kind": "spsa", "round": k, "base": base, "seed": seed, "c": ck, "a": ak, "matches": matches,
                   "match_seeds": seeds, "scores": scores, "games_per_match": 2 * pairs, "values": values,
                   "spec": spec_at(theta)})
        if progress is not None:
            progress(f"round {k + 1}/{rounds}: mean score of +: {sum(scores) / len(scores):.3f}  "
                     + "  ".join(f"{n}={v}" for n, v in values.items()))
    final = {p.name: p.value(p.low + t * (p.high - p.low)) for p, t in zip(params, theta)}
    return {"values": final, "spec": spec_at(theta)}


# ------------------------------------------------------------------------------------------ command


def main(argv: Optional[List[str]] = None, prog: str = "sequence-game tune") -> int:
    parser = argparse.ArgumentParser(prog=prog,
                                     description="Tune search options by matches (see the module docstring).")
    sub = parser.add_subparsers(dest="command", required=True)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--base", required=True, help="the agent spec tuned, e.g. mcts:iters=1000")
    common.add_argument("--seed", type=int, default=0, help="match seed (use other seeds to confirm)")
    common.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    common.add_argument("--log", help="JSONL file: one line per batch (screen) or round (spsa)")
    s = sub.add_parser("screen", parents=[common], help="each candidate setting against an opponent")
    s.add_argument("--opponent", required=True, help="agent spec, e.g. mcts-v1:iters=1000")
    s.add_argument("--try", dest="settings", action="append", default=[], metavar="KEY=VALUE[,KEY=VALUE]",
                   help="a candidate setting (repeat); '' is the base itself")
    s.add_argument("--games", type=int, default=400)
    s.add_argument("--batch", type=int, default=100)
    s.add_argument("--players", type=int, default=2)
    s.add_argument("--dir", default=".", help="where the matches' results files go")
    s.add_argument("--no-early-stop", action="store_true", help="play every candidate to --games")
    p = sub.add_parser("spsa", parents=[common], help="SPSA over numeric options")
    p.add_argument("--param", dest="params", action="append", default=[], metavar="NAME=START:LOW:HIGH[:int]")
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--perturbations", type=int, default=8)
    p.add_argument("--pairs", type=int, default=4, help="deals per perturbation (2 games each)")
    p.add_argument("-a", type=float, default=0.1, help="step size (fraction of a parameter's range)")
    p.add_argument("-c", type=float, default=0.1, help="perturbation size (fraction of the range)")
    args = parser.parse_args(argv)

    def say(text: str) -> None:
        print(text, flush=True)

    try:
        if args.command == "screen":
            results = screen(args.base, args.opponent, args.settings or [""], games=args.games, batch=args.batch,
                             seed=args.seed, workers=args.workers, directory=args.dir, log=args.log,
                             players=args.players, early_stop=not args.no_early_stop, progress=say)
            say(f"\nscreen: {args.base} with each setting vs {args.opponent}, seed {args.seed} (best first):")
            for r in results:
                say("  " + r.line())
        else:
            out = spsa(args.base, [parse_param(t) for t in args.params], rounds=args.rounds,
                       perturbations=args.perturbations, pairs=args.pairs, seed=args.seed, workers=args.workers,
                       log=args.log, a=args.a, c=args.c, progress=say)
            say(f"\nspsa result: {out['spec']}")
    except (ValueError, TypeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(prog="python -m sequence_game.training.tune"))
