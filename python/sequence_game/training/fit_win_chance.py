"""Fit the review's win-chance estimator (:mod:`sequence_game.review.estimator`) on self-play games at
several strengths, measure its calibration on held-out games, and write the model, the calibration
table and the reliability diagram: one command (docs/review.md)::

    nice -n 19 python -m sequence_game.training.fit_win_chance --data win-chance-data

1. **Data**: one self-play run per strength set (:data:`SETS`: random, the presets, mixed seats; two
   and three teams) in ``DATA/<set>`` (:func:`sequence_game.selfplay.selfplay`: seeded, and resumed
   when the directory holds part of the run).
2. **Rows**: every game is replayed from its deal seed; before every move, the public rows of the
   position (no hand) and two player views: the player to move's (its hand: the view in which it
   decides) and the previous mover's without the card it just drew (the view in which the review
   values a move). Labels: the game's result per team (an equal share for a draw).
3. **Fit**: a multinomial logistic regression (softmax over the teams' scores, one weight vector
   shared by the teams, no intercept: symmetric between teams) by Newton's method with a small L2
   penalty, on the games whose index is not a multiple of ``--holdout``; one model per view and per
   number of teams, unrated (the players' strengths unknown: every set pooled) and rated (the rows
   with the seats' ladder ratings, :func:`sequence_game.review.estimator.rated_rows`).
4. **Calibration** on the held-out games of every set, in every view: Brier score, log-loss, expected calibration
   error (10 equal bins) and Brier skill score against the base rate, each with a 95% interval from
   a bootstrap over games (positions of one game are not independent); the reliability diagram
   (deciles) as an SVG.
5. **Against the search**: on held-out positions, the Brier score of the review's former values
   (the value of the best move of a 2,000-iteration ISMCTS search from the mover's seat) and of the
   estimator on the same positions.
6. **Grading thresholds**: the loss (best move's value minus played move's) of every graded move of
   the held-out games, per set; the inaccuracy threshold is the 90th percentile of the strongest
   set's losses (the estimator's disagreement with a strong player: its noise), a mistake twice
   that, a blunder three times.

>>> SETS[0].name, SETS[0].agents
('random', ('random',))
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import _core
from ..arena.stats import newton
from ..review.estimator import (
    DECISIVE_DEFAULTS,
    DEFAULT_PATH,
    RATED_TEAMS,
    WinChanceModel,
    feature_rows,
    load_win_chance_model,
    move_quality,
    play_quality,
    rated_rows,
    seat_ratings,
    softmax_rows,
    team_ratings,
)
from ..selfplay import LOG_NAME, load_dataset, selfplay

__all__ = ["SETS", "StrengthSet", "calibration", "fit_softmax", "fit_win_chance", "main", "scaled_sets"]


@dataclass(frozen=True)
class StrengthSet:
    """Self-play games: a name, the agent specs cycled over the seats, games, seed, players.
    ``rotate``: the games are split between runs with the agents rotated over the seats (a table
    of different strengths with every strength in every seat: the estimator does not know who
    sits where, so a run with the weaker player always in one seat would measure something else)."""

    name: str
    agents: Tuple[str, ...]
    games: int
    seed: int
    players: int = 2
    rotate: bool = False

    def runs(self) -> List[Tuple[str, Tuple[str, ...], int, int]]:
        """``(directory name, agents, games, seed)`` of each self-play run of the set."""
        base = self.name.replace(" ", "-")
        if not self.rotate:
            return [(base, self.agents, self.games, self.seed)]
        k = len(self.agents)
        share = self.games // k
        return [(base if r == 0 else f"{base}-r{r}", self.agents[r:] + self.agents[:r], share, self.seed + 1000 * r)
                for r in range(k)]


HARD_GAMES = 400  # the search's games cost about 4 s of CPU each (mixed-hard: 2 s)
#: ``hard`` without its time cap: the cap is wall-clock time, so under the machine's load it would
#: cut the search short and the games would depend on the load (the ladder measures it so too).
HARD = "hard:time=none"
#: The strength sets (the presets: ``easy``, ``medium`` the one-ply heuristic, ``hard`` the search).
SETS: Tuple[StrengthSet, ...] = (
    StrengthSet("random", ("random",), 2000, 11),
    StrengthSet("easy", ("easy",), 2000, 12),
    StrengthSet("medium", ("medium",), 2000, 13),
    StrengthSet("hard", (HARD,), HARD_GAMES, 14),
    StrengthSet("mixed", ("random", "easy"), 2000, 15, rotate=True),
    StrengthSet("mixed-hard", ("medium", HARD), HARD_GAMES, 16),
    StrengthSet("3 teams", ("medium", "easy", "random"), 1200, 17, players=3, rotate=True),
)
SHARD_GAMES = 10
SEARCH_ITERATIONS = 2000  # the former review's budget per position


def _rows_of_set(path: str, players: int, games: int) -> Dict[str, np.ndarray]:
    """Replay a self-play run: public rows, the decision view's rows, the after-move view's rows,
    labels, game indices, the player to move."""
    data = load_dataset(path, fields=["move_id", "game", "game_index", "game_seed", "game_winner"])
    seeds = dict(zip(data["game_index"].tolist(), data["game_seed"].tolist()))
    winners = dict(zip(data["game_index"].tolist(), data["game_winner"].tolist()))
    with open(os.path.join(path, "manifest.json"), encoding="utf-8") as f:
        manifest = json.load(f)
    keep = data["game"] < games
    move_id, row_game = data["move_id"][keep], data["game"][keep]
    pub: List[np.ndarray] = []
    decide: List[np.ndarray] = []
    after: List[np.ndarray] = []
    label: List[np.ndarray] = []
    mover: List[int] = []
    game_of: List[int] = []
    state: Any = None
    current = None
    previous = -1
    qualities: List[Tuple[int, float]] = []  # the game's moves so far, as play_quality counts them
    counted = False  # whether the last move is among them (a trade or a pass is not)
    for i in range(len(move_id)):
        g = int(row_game[i])
        if g != current:
            current, previous, qualities, counted = g, -1, [], False
            state = _core.Game(players, manifest["teams"], int(seeds[g]), manifest["max_turns"])
            teams = state.teams
            w = winners[g]
            y = np.full(teams, 1.0 / teams) if w < 0 else np.eye(teams)[w]
        p = state.current_player
        quality = play_quality(state, qualities)
        pub.append(feature_rows(state, quality=quality))
        decide.append(feature_rows(state, viewer=p, quality=quality))
        # the after-move view: the previous mover without its last draw (at the deal: the player to
        # move's seat before), and the play before that move (as the review values a move)
        viewer = previous if previous >= 0 else (p - 1) % players
        before = play_quality(state, qualities[:-1]) if counted else quality
        after.append(feature_rows(state, viewer=viewer, hide_last_draw=previous >= 0, quality=before))
        label.append(y)
        mover.append(p)
        game_of.append(g)
        q = move_quality(state, int(move_id[i]))
        counted = q is not None
        if q is not None:
            qualities.append((p % teams, q))
        state.play(int(move_id[i]))
        previous = p
    return {"public": np.array(pub), "decide": np.array(decide), "after": np.array(after),
            "label": np.array(label), "mover": np.array(mover), "game": np.array(game_of)}


def fit_softmax(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, iterations: int = 60) -> np.ndarray:
    """The weights ``w`` minimising the mean cross-entropy of ``softmax(x @ w)`` (over the teams axis)
    against ``y`` (rows of team shares summing to 1), plus ``l2 / 2 * |w|^2``: Newton's method.
    ``x``: ``(n, teams, k)``.

    >>> x = np.array([[[1.0], [0.0]], [[0.0], [1.0]], [[1.0], [0.0]], [[0.0], [1.0]]])
    >>> y = np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0]])
    >>> w = fit_softmax(x, y)  # the team with the feature won 3 games of 4: w = log 3 (less the penalty)
    >>> bool(1.05 < w[0] < float(np.log(3)))
    True
    """
    n, _, k = x.shape

    def grad_hess(w: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        p = softmax_rows(x @ w)
        mu = np.einsum("nt,ntk->nk", p, x)
        grad = np.einsum("nt,ntk->k", p - y, x) / n + l2 * w
        hess = sum((x[:, t, :] * p[:, t, None]).T @ x[:, t, :] for t in range(x.shape[1]))  # BLAS, not einsum's loops
        return grad, (hess - mu.T @ mu) / n + l2 * np.eye(k)

    return np.asarray(newton(grad_hess, np.zeros(k), iterations, tol=1e-9))


def _scores(p: np.ndarray, y: np.ndarray, base: np.ndarray, bins: int = 10) -> Dict[str, float]:
    """Brier (multi-class, halved so that two teams give the binary Brier of one team), log-loss,
    ECE over every team's (chance, outcome) pairs in ``bins`` equal bins, and the Brier skill score
    against the constant forecast ``base``."""
    brier = float(((p - y) ** 2).sum(axis=1).mean() / 2)
    brier_base = float(((base[None, :] - y) ** 2).sum(axis=1).mean() / 2)
    q = np.clip(p, 1e-7, 1.0)
    log_loss = float(-(y * np.log(q)).sum(axis=1).mean())
    flat_p, flat_y = p.ravel(), y.ravel()
    which = np.minimum((flat_p * bins).astype(int), bins - 1)
    ece = 0.0
    for b in range(bins):
        m = which == b
        if m.any():
            ece += m.mean() * abs(flat_p[m].mean() - flat_y[m].mean())
    return {"brier": brier, "log_loss": log_loss, "ece": float(ece), "bss": 1.0 - brier / brier_base}


def calibration(p: np.ndarray, y: np.ndarray, games: np.ndarray, base: np.ndarray, resamples: int = 200,
                seed: int = 0) -> Dict[str, Any]:
    """:func:`_scores` with 95% intervals from a bootstrap over games (resampled whole)."""
    point = _scores(p, y, base)
    ids = np.unique(games)
    rows_of = {g: np.flatnonzero(games == g) for g in ids.tolist()}
    rng = np.random.default_rng(seed)
    samples: Dict[str, List[float]] = {k: [] for k in point}
    for _ in range(resamples):
        pick = np.concatenate([rows_of[g] for g in rng.choice(ids, size=ids.size).tolist()])
        for k, v in _scores(p[pick], y[pick], base).items():
            samples[k].append(v)
    out: Dict[str, Any] = {"positions": int(p.shape[0]), "games": int(ids.size)}
    for k, v in point.items():
        lo, hi = np.percentile(samples[k], [2.5, 97.5])
        out[k] = [round(v, 4), round(float(lo), 4), round(float(hi), 4)]
    return out


def _deciles(p: np.ndarray, y: np.ndarray, bins: int = 10) -> List[Tuple[float, float, int]]:
    flat_p, flat_y = p.ravel(), y.ravel()
    which = np.minimum((flat_p * bins).astype(int), bins - 1)
    return [(float(flat_p[which == b].mean()), float(flat_y[which == b].mean()), int((which == b).sum()))
            for b in range(bins) if (which == b).any()]


def _svg(curves: Dict[str, List[Tuple[float, float, int]]],
         unrated: Optional[Dict[str, List[Tuple[float, float, int]]]] = None) -> str:
    """The reliability diagram: predicted chance (x) against observed frequency (y) per decile, one
    line per held-out set (solid: the view read when every seat's strength is known, rated at the
    tables of :data:`RATED_TEAMS`; dashed: ``unrated``, the players' strengths unknown), the diagonal
    for perfect calibration."""
    colours = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#999999"]  # Okabe-Ito
    size, pad = 360, 44

    def x(v: float) -> float:
        return pad + v * (size - 2 * pad)

    def y(v: float) -> float:
        return size - pad - v * (size - 2 * pad)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {size + 150} {size}" width="{size + 150}" '
           f'height="{size}" font-family="sans-serif" font-size="11">',
           f'<rect width="{size + 150}" height="{size}" fill="white"/>',
           f'<rect x="{pad}" y="{pad}" width="{size - 2 * pad}" height="{size - 2 * pad}" fill="none" stroke="#888"/>',
           f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(1)}" y2="{y(1)}" stroke="#aaa" stroke-dasharray="4 4"/>']
    for t in range(0, 11, 2):
        v = t / 10
        out.append(f'<text x="{x(v)}" y="{size - pad + 14}" text-anchor="middle">{v:.1f}</text>')
        out.append(f'<text x="{pad - 6}" y="{y(v) + 4}" text-anchor="end">{v:.1f}</text>')
    out.append(f'<text x="{size / 2}" y="{size - 8}" text-anchor="middle">predicted chance of winning (public view)</text>')
    below = pad + 12 + 16 * (len(curves) + 1)  # under the legend
    out.append(f'<text x="{size - 20}" y="{below}" font-size="10">solid: strengths known</text>')
    out.append(f'<text x="{size - 20}" y="{below + 14}" font-size="10">dashed: strengths unknown</text>')
    out.append(f'<text transform="translate(12 {size / 2}) rotate(-90)" text-anchor="middle">observed frequency</text>')
    out.append(f'<text x="{size / 2}" y="20" text-anchor="middle" font-size="13">Reliability of the win chance, '
               'held-out games (deciles)</text>')
    for i, (name, pts) in enumerate(curves.items()):
        c = colours[i % len(colours)]
        line = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b, _ in pts)
        out.append(f'<polyline points="{line}" fill="none" stroke="{c}" stroke-width="1.8"/>')
        if unrated and unrated.get(name):
            dashed = " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b, _ in unrated[name])
            out.append(f'<polyline points="{dashed}" fill="none" stroke="{c}" stroke-width="1" stroke-dasharray="3 3"/>')
        out.extend(f'<circle cx="{x(a):.1f}" cy="{y(b):.1f}" r="2.5" fill="{c}"/>' for a, b, _ in pts)
        out.append(f'<line x1="{size - 20}" y1="{pad + 8 + 16 * i}" x2="{size}" y2="{pad + 8 + 16 * i}" stroke="{c}" '
                   'stroke-width="2"/>')
        out.append(f'<text x="{size + 5}" y="{pad + 12 + 16 * i}">{name}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _brier(p: Sequence[float], y: Sequence[float]) -> float:
    return round(float(((np.array(p) - np.array(y)) ** 2).mean()), 4)


def _search_brier(sets: Dict[str, Dict[str, np.ndarray]], per_set: int, seed: int, model: WinChanceModel,
                  data: str) -> Dict[str, Any]:
    """Brier of the former review's search values and of the estimator on the same held-out positions
    (two-team sets: ``per_set`` positions each, spread evenly over the held-out games' positions)."""
    from ..agents import MCTSAgent
    from ..game import Game

    out: Dict[str, Any] = {}
    for name, rows in sets.items():
        spec = next(s for s in SETS if s.name == name)
        if spec.players != 2:
            continue
        loaded = load_dataset(os.path.join(data, spec.runs()[0][0]), fields=["move_id", "game", "game_index", "game_seed"])
        seeds = dict(zip(loaded["game_index"].tolist(), loaded["game_seed"].tolist()))
        candidates = np.flatnonzero(rows["held"] & rows["first_run"])  # spread over the first run's held-out games
        held = np.unique(candidates[np.linspace(0, candidates.size - 1, min(per_set, candidates.size)).astype(int)])
        agents = spec.runs()[0][1]
        ratings = seat_ratings([agents[p % len(agents)] for p in range(spec.players)])
        search_p, est_pub, est_rated, est_mover, ys = [], [], [], [], []
        for i in held.tolist():
            g = int(rows["game"][i])
            first = int(np.flatnonzero(loaded["game"] == g)[0])
            game = Game(2, None, int(seeds[g]))
            for j in range(first, first + int(rows["step"][i])):
                game.play_id(int(loaded["move_id"][j]))
            mover_team = game.current_player % 2
            result = MCTSAgent(iterations=SEARCH_ITERATIONS, seed=seed + i).analyze(game)
            v = next(m.value for m in result.moves if m.move == result.move)
            search_p.append(v if mover_team == 0 else 1 - v)
            est_pub.append(model.chances(game)[0])
            est_rated.append(model.chances(game, ratings=ratings)[0])
            est_mover.append(model.chances(game, viewer=game.current_player)[0])
            ys.append(rows["label"][i][0])
        out[name] = {"positions": len(ys), "search_brier": _brier(search_p, ys), "public_brier": _brier(est_pub, ys),
                     "rated_brier": _brier(est_rated, ys),
                     "mover_brier": _brier(est_mover, ys)}
    return out


def _pick(train: List[Dict[str, np.ndarray]], key: str) -> np.ndarray:
    return np.concatenate([r[key][~r["held"]] for r in train])


def fit_win_chance(data: str, out: str = DEFAULT_PATH, docs: Optional[str] = "docs", holdout: int = 5,
                   l2: float = 1e-3, search_positions: int = 100, sets: Sequence[StrengthSet] = SETS,
                   command: Optional[str] = None, workers: int = 1) -> Dict[str, Any]:
    """Make (or resume) the self-play runs under ``data`` (on ``workers`` processes: the same games
    on any number), fit, measure, write the model to ``out`` and, with ``docs``,
    ``docs/images/win-chance-reliability.svg`` and the calibration section of
    ``docs/measurements.md``; returns the report (also the model's ``training`` field)."""
    from ..review import move_values

    t0 = time.process_time()
    selfplay_cpu = 0.0
    rows: Dict[str, Dict[str, np.ndarray]] = {}
    for s in sets:
        parts = []
        for k, (name, agents, games, seed) in enumerate(s.runs()):
            path = os.path.join(data, name)
            manifest = selfplay(list(agents), games=games, out=path, seed=seed, players=s.players,
                                shard_games=SHARD_GAMES, workers=workers, resume=os.path.exists(os.path.join(path, LOG_NAME)))
            selfplay_cpu += manifest["cpu_seconds"]
            part = _rows_of_set(path, s.players, games)
            ratings = seat_ratings([agents[p % len(agents)] for p in range(s.players)])
            if ratings is None:
                raise ValueError(f"set {s.name!r}: every agent needs a rating on the ladder, not {agents}")
            part["ratings"] = np.tile(team_ratings(ratings, part["label"].shape[1]), (part["game"].size, 1))
            part["first_run"] = np.full(part["game"].size, k == 0)
            part["game"] = part["game"] + k * games  # one numbering over the set's runs
            parts.append(part)
        r = {key: np.concatenate([part[key] for part in parts]) for key in parts[0]}
        r["held"] = r["game"] % holdout == 0
        r["step"] = np.concatenate([np.arange(c) for c in np.unique(r["game"], return_counts=True)[1]])
        rows[s.name] = r
    public: Dict[str, List[float]] = {}
    player: Dict[str, List[float]] = {}
    rated_public: Dict[str, List[float]] = {}
    rated_player: Dict[str, List[float]] = {}
    base: Dict[str, np.ndarray] = {}
    for teams in (2, 3):
        names = [s.name for s in sets if (2 if s.players % 2 == 0 else 3) == teams]
        if not names:
            continue
        train = [rows[n] for n in names]
        y = _pick(train, "label")
        public[str(teams)] = fit_softmax(_pick(train, "public"), y, l2).round(6).tolist()
        # the player's view: both the decision view and the after-move view, one model
        xp = np.concatenate([_pick(train, "decide"), _pick(train, "after")])
        player[str(teams)] = fit_softmax(xp, np.concatenate([y, y]), l2).round(6).tolist()
        tr = _pick(train, "ratings")
        rated_public[str(teams)] = fit_softmax(rated_rows(_pick(train, "public"), tr), y, l2).round(6).tolist()
        rated_player[str(teams)] = fit_softmax(rated_rows(xp, np.concatenate([tr, tr])), np.concatenate([y, y]),
                                               l2).round(6).tolist()
        base[str(teams)] = y.mean(axis=0)
    # The race of immediate wins keeps its own fit (measure_review fit-decisive): carried over.
    # and so does what a jack kept in hand is worth (measure_review kept).
    former = load_win_chance_model(out) if os.path.exists(out) else None
    decisive = dict(former.decisive) if former is not None else dict(DECISIVE_DEFAULTS)
    kept = dict(former.kept) if former is not None else {}
    model = WinChanceModel(public, player, rated_public=rated_public, rated_player=rated_player, decisive=decisive,
                           kept=kept)
    table: Dict[str, Any] = {}
    curves: Dict[str, List[Tuple[float, float, int]]] = {}
    unrated_curves: Dict[str, List[Tuple[float, float, int]]] = {}
    for s in sets:
        r = rows[s.name]
        h = r["held"]
        key = str(r["label"].shape[1])
        tr = r["ratings"][h]
        forecasts = {"public": softmax_rows(r["public"][h] @ np.array(public[key])),
                     "public, rated": softmax_rows(rated_rows(r["public"][h], tr) @ np.array(rated_public[key])),
                     "mover": softmax_rows(r["decide"][h] @ np.array(player[key])),
                     "mover, rated": softmax_rows(rated_rows(r["decide"][h], tr) @ np.array(rated_player[key]))}
        table[s.name] = {view: calibration(p, r["label"][h], r["game"][h], base[key]) for view, p in forecasts.items()}
        # the solid line: what the review reads when every seat is a rated AI (three teams: unrated)
        known = "public, rated" if r["label"].shape[1] in RATED_TEAMS else "public"
        curves[s.name] = _deciles(forecasts[known], r["label"][h])
        unrated_curves[s.name] = _deciles(forecasts["public"], r["label"][h])
    # grading noise: the loss of every graded move of the held-out games (replayed)
    losses: Dict[str, List[float]] = {}
    for s in sets:
        losses[s.name] = _held_out_losses(os.path.join(data, s.runs()[0][0]), s, rows[s.name], model, move_values)
    strongest = next((n for n in ("hard", "mixed-hard", "medium") if losses.get(n)), None)
    noise = float(np.percentile(losses[strongest], 90)) if strongest else 0.05
    step = max(0.01, math.ceil(noise * 100) / 100)
    grading = {"inaccuracy": step, "mistake": round(2 * step, 2), "blunder": round(3 * step, 2)}
    if former is not None and "equal" in former.grading:  # measure_review fit-equal's, carried over
        grading["equal"] = former.grading["equal"]
    loss_table = {n: {"moves": len(v), "median": round(float(np.median(v)), 4) if v else None,
                      "p90": round(float(np.percentile(v, 90)), 4) if v else None,
                      "mean": round(float(np.mean(v)), 4) if v else None} for n, v in losses.items()}
    search = _search_brier(rows, search_positions, 1, model, data) if search_positions else {}
    report: Dict[str, Any] = {
        "command": command or "python -m sequence_game.training.fit_win_chance",
        "sets": [{"name": s.name, "agents": list(s.agents), "games": s.games, "seed": s.seed, "players": s.players,
                  "rotate": s.rotate, "positions": int(rows[s.name]["game"].size)} for s in sets],
        "fit": {"method": "multinomial logistic regression, shared weights, no intercept, Newton", "l2": l2,
                "holdout": f"games with index % {holdout} == 0"},
        "calibration": table, "grading_noise": {"set": strongest, "losses": loss_table},
        "search_comparison": search,
        "cpu_seconds": {"selfplay": round(selfplay_cpu, 1), "features_fit_measure": round(time.process_time() - t0, 1)},
    }
    model = WinChanceModel(public, player, grading, report, rated_public, rated_player, decisive, kept)
    tmp = out + f".tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(model.to_json(), f, indent=1)
        f.write("\n")
    os.replace(tmp, out)
    if docs:
        os.makedirs(os.path.join(docs, "images"), exist_ok=True)
        with open(os.path.join(docs, "images", "win-chance-reliability.svg"), "w", encoding="utf-8") as f:
            f.write(_svg(curves, unrated_curves))
        _write_table(os.path.join(docs, "measurements.md"), report, grading)
    return report


def _held_out_losses(path: str, s: StrengthSet, r: Dict[str, np.ndarray], model: WinChanceModel,
                     move_values: Any, max_games: int = 10) -> List[float]:
    from ..game import Game, move_from_id

    loaded = load_dataset(path, fields=["move_id", "game", "game_index", "game_seed"])
    seeds = dict(zip(loaded["game_index"].tolist(), loaded["game_seed"].tolist()))
    held_games = sorted(set(r["game"][r["held"] & r["first_run"]].tolist()))[:max_games]
    out: List[float] = []
    for g in held_games:
        game = Game(s.players, None, int(seeds[g]))
        for mid in loaded["move_id"][loaded["game"] == g].tolist():
            if not game.is_over and move_from_id(int(mid)).kind != "trade":
                values = move_values(game, model)
                if len(values) > 1:
                    out.append(max(values.values()) - values[int(mid)])
            game.play_id(int(mid))
    return out


BEGIN = "<!-- win-chance calibration: written by python -m sequence_game.training.fit_win_chance -->"
END = "<!-- end of the win-chance calibration -->"


def _cell(v: List[float]) -> str:
    return f"{v[0]:.3f} [{v[1]:.3f}, {v[2]:.3f}]"


#: How to reproduce the section (kept outside the generated block, which a rerun replaces).
COMMAND_NOTE = ("Command: `nice -n 19 python -m sequence_game.training.fit_win_chance --data DIR` (seeded and "
                "resumable: it makes the self-play games, fits the estimator and rewrites this section, the "
                "packaged model and the diagram). CPU: Intel(R) Xeon(R) Processor @ 2.60GHz, 2 cores, shared.")


def _write_table(path: str, report: Dict[str, Any], grading: Dict[str, float]) -> None:
    lines = [BEGIN, "", "Held-out games (every 5th game of each run), 95% intervals from a bootstrap over games. "
             "Public: the spectator's view (the review's graph); mover: the player to move's view (its hand). "
             "Rated: with every seat's ladder rating (the view used when all seats are rated AIs); unrated: the "
             "players' strengths unknown (a person at the table): every set pooled, so a set whose strengths "
             "differ from the pool's (random against easy) is read as an average table.", "",
             "| set | games / positions | view | Brier | log-loss | ECE | Brier skill |",
             "|---|---|---|---|---|---|---|"]
    for name, views in report["calibration"].items():
        for view, m in views.items():
            lines.append(f"| {name} | {m['games']} / {m['positions']} | {view} | {_cell(m['brier'])} | "
                         f"{_cell(m['log_loss'])} | {_cell(m['ece'])} | {_cell(m['bss'])} |")
    if report["search_comparison"]:
        lines += ["", "The same held-out positions valued by the former review (the best move's value in a "
                  f"{SEARCH_ITERATIONS}-iteration search from the mover's seat) and by the estimator (Brier, "
                  "team 0's chance):", "",
                  "| set | positions | search | estimator, public | estimator, public, rated | estimator, mover |",
                  "|---|---|---|---|---|---|"]
        for name, c in report["search_comparison"].items():
            rated = f"{c['rated_brier']:.3f}" if "rated_brier" in c else "-"
            lines.append(f"| {name} | {c['positions']} | {c['search_brier']:.3f} | {c['public_brier']:.3f} | "
                         f"{rated} | {c['mover_brier']:.3f} |")
    noise = report["grading_noise"]
    lines += ["", "Loss of the played move against the best (mover's view) on held-out games, and the tiers "
              f"chosen from it (inaccuracy: the 90th percentile of the {noise['set']} set's losses, rounded up; "
              "mistake x2, blunder x3):", "", "| set | graded moves | median loss | mean | 90th percentile |",
              "|---|---|---|---|---|"]
    for name, v in noise["losses"].items():
        if v["moves"]:
            lines.append(f"| {name} | {v['moves']} | {v['median']:.3f} | {v['mean']:.3f} | {v['p90']:.3f} |")
    lines += ["", f"Tiers: inaccuracy >= {grading['inaccuracy']:.2f}, mistake >= {grading['mistake']:.2f}, "
              f"blunder >= {grading['blunder']:.2f} of the chance of winning. CPU: self-play "
              f"{report['cpu_seconds']['selfplay']} s, features, fit and measures "
              f"{report['cpu_seconds']['features_fit_measure']} s.", "",
              "![reliability diagram](images/win-chance-reliability.svg)", "", END]
    text = ""
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            text = f.read()
    block = "\n".join(lines)
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + block + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n## The review's win chance: calibration\n\n" + COMMAND_NOTE + "\n\n" + block + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def scaled_sets(scale: float = 1.0, hard_games: Optional[int] = None) -> List[StrengthSet]:
    """:data:`SETS` with every set's games times ``scale`` (at least ten a seat's agent) and, with
    ``hard_games``, that many games for each set in which the search (``hard``) plays.

    >>> [s.games for s in scaled_sets(0.1, hard_games=30)]
    [200, 200, 200, 30, 200, 30, 120]
    """
    def games(s: StrengthSet) -> int:
        if hard_games is not None and any(a.partition(":")[0] == "hard" for a in s.agents):
            return hard_games
        return max(10 * len(s.agents), round(s.games * scale))

    return [StrengthSet(s.name, s.agents, games(s), s.seed, s.players, s.rotate) for s in SETS]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sequence_game.training.fit_win_chance",
                                     description="Fit the review's win-chance estimator and write the model, the "
                                                 "calibration table and the reliability diagram (docs/review.md).")
    parser.add_argument("--data", default="win-chance-data", help="the self-play runs' directory (made or resumed)")
    parser.add_argument("--out", default=DEFAULT_PATH, help="the model file (default: the packaged one)")
    parser.add_argument("--docs", default="docs", help="the docs directory to write the table and picture into "
                                                       "('' for none)")
    parser.add_argument("--search-positions", type=int, default=100,
                        help="held-out positions per set valued by the former review's search (default 100)")
    parser.add_argument("--scale", type=float, default=1.0,
                        help="scale every set's number of games (a quick run: 0.1)")
    parser.add_argument("--hard-games", type=int, default=None,
                        help=f"games of each set the search plays in (default {HARD_GAMES}; a later run with more "
                             "resumes and extends them)")
    parser.add_argument("--workers", type=int, default=1,
                        help="processes playing the self-play games (the same games on any number; default 1)")
    args = parser.parse_args(argv)
    if not 0 < args.scale <= 10:
        parser.error(f"--scale must be above 0 and at most 10, not {args.scale}")
    if args.workers < 1:
        parser.error(f"--workers must be 1 or more, not {args.workers}")
    if args.hard_games is not None and args.hard_games < 10:
        parser.error(f"--hard-games must be 10 or more, not {args.hard_games}")
    if args.search_positions < 0:
        parser.error(f"--search-positions must be 0 or more, not {args.search_positions}")
    sets = scaled_sets(float(args.scale), args.hard_games)
    report = fit_win_chance(args.data, out=args.out, docs=args.docs or None, search_positions=args.search_positions,
                            sets=sets, workers=args.workers, command=" ".join(["python -m sequence_game.training.fit_win_chance",
                                                         *(argv if argv is not None else sys.argv[1:])]))
    for name, views in report["calibration"].items():
        m = views["public"]
        print(f"{name:>11}: public Brier {m['brier'][0]:.3f}, ECE {m['ece'][0]:.3f}, skill {m['bss'][0]:.3f}; "
              f"mover Brier {views['mover']['brier'][0]:.3f}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
