"""Measure the review where it matters, on fresh games (docs/measurements.md):

* ``games``: play fresh two-player games between mixed strengths (each seat drawn from
  :data:`MIXED`: random, greedy, the ``easy``/``medium`` presets and short searches), one record a
  line in a JSON-lines file, resumed where the file ends.
* ``won``: the mover's own view over every position where the mover holds a winning move (a won
  position is worth 1), and the public view over positions where the side to move has an open
  winning cell (board only), against the outcome.
* ``calibration``: the public view's calibration (unrated: nobody's strength is read) over every
  position of the games: Brier, log-loss, expected calibration error (10 bins), Brier skill, with
  95% intervals from a bootstrap over games.
* ``agreement``: how often the review's best move is the search's choice (:func:`search_choices`;
  ``hard`` by default), over the decisions with more than one legal move (the choices kept beside
  the games, ``FILE.search.jsonl``); ``consistency``: how often the search agrees with itself
  searching again with other seeds, the ceiling of that agreement; ``candidates``: the agreement
  when the review names its best among the search's own candidates (:func:`candidate_agreement`).
* The review's parameters fitted on such games, each written into the packaged model file:
  ``fit-decisive`` (the race of immediate wins, :func:`sequence_game.review.estimator.with_decisive`),
  ``fit-equal`` (``grading.equal``, from kept search choices) and ``kept`` (what a jack kept in hand
  is worth, from the search's evaluation).

::

    nice -n 19 python -m sequence_game.training.measure_review games --file build/mixed.jsonl --games 300 --seed 4620
    python -m sequence_game.training.measure_review won --file build/mixed.jsonl
    python -m sequence_game.training.measure_review calibration --file build/mixed.jsonl [--rated]
    python -m sequence_game.training.measure_review calibration --file ladder/level_7__level_8.jsonl --rated
    nice -n 19 python -m sequence_game.training.measure_review agreement --file build/greedy.jsonl --decisions 200
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from ..records import GameRecord, play_game
from ..review.estimator import core_state, load_win_chance_model, play_quality
from ..review.threats import holds_win, winning_cells

__all__ = [
    "MIXED",
    "agreement",
    "calibration_report",
    "candidate_agreement",
    "fit_decisive",
    "fit_equal",
    "main",
    "play_games",
    "search_choices",
    "search_consistency",
    "set_kept",
    "won_report",
]

#: The strengths a mixed table draws its two seats from.
MIXED = ("random", "greedy", "easy", "medium", "mcts-v1:iterations=300", "mcts-v1:iterations=1000")


def play_games(path: str, games: int, seed: int, agents: tuple[str, ...] = MIXED, players: int = 2) -> int:
    """Play games ``i`` from the lines already in ``path`` up to ``games``: game ``i`` seats
    ``players`` of ``agents`` drawn by ``random.Random(seed * 100003 + i)`` (seeded too), its deal
    seed from the same."""
    done = 0
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            done = sum(1 for line in f if line.strip())
    with open(path, "a", encoding="utf-8") as f:
        for i in range(done, games):
            rng = random.Random(seed * 100003 + i)
            specs = [rng.choice(agents) for _ in range(players)]
            seated = [f"{s}{',' if ':' in s else ':'}seed={rng.randrange(2**32)}" for s in specs]
            record = play_game(seated, players=players, seed=rng.randrange(2**63))
            f.write(json.dumps(record.to_dict()) + "\n")
            f.flush()
    return games


def _records(path: str) -> List[GameRecord]:
    """The games of ``path``: one record a line (``games``), or a match's results file
    (``sequence-game arena`` or ``ladder``), each game replayed from its deal with its seats' agents."""
    with open(path, encoding="utf-8") as f:
        first = f.readline()
        if not first.strip():
            return []
        head = json.loads(first)
        if not (isinstance(head, dict) and str(head.get("format", "")).startswith("sequence-game-match/")):
            return [GameRecord.from_dict(head)] + [GameRecord.from_dict(json.loads(line)) for line in f if line.strip()]
    from ..arena.results import read_results
    from ..game import Game

    header, games = read_results(path)
    out = []
    for g in games:
        game = Game(players=header["players"], teams=header["teams"], seed=int(g["seed"]),
                    max_turns=header.get("max_turns"))
        for text in g["moves"]:
            game.play(text)
        out.append(GameRecord.from_game(game, agents=list(g["agents"])))
    return out


def won_report(records: List[GameRecord]) -> Dict[str, Any]:
    """Mean mover's-view chance over positions where the mover holds a winning move; public mean
    and outcome over positions where the side to move has an open winning cell."""
    model = load_win_chance_model()
    mover_view: List[float] = []
    public: List[float] = []
    outcome: List[float] = []
    game_of: List[int] = []
    games_with = set()
    for g, record in enumerate(records):
        winner = record.result["winner"] if record.result else None
        for step in record.positions():
            state = core_state(step.game)
            if state.is_over:
                continue
            team = state.current_player % state.teams
            if winning_cells(state, team):
                public.append(model.chances(step.game)[team])
                outcome.append(1.0 if winner == team else 0.0)
                game_of.append(g)
                if holds_win(state):
                    mover_view.append(model.chances(step.game, viewer=state.current_player)[team])
                    games_with.add(g)
    out: Dict[str, Any] = {"mover_view_positions": len(mover_view), "mover_view_games": len(games_with),
                           "mover_view_mean": float(np.mean(mover_view)) if mover_view else None,
                           "mover_view_min": float(np.min(mover_view)) if mover_view else None,
                           "open_cell_positions": len(public), "public_mean": float(np.mean(public)) if public else None,
                           "outcome_mean": float(np.mean(outcome)) if outcome else None}
    if public:  # the difference's 95% interval, from a bootstrap over games
        ids, gp, go = np.asarray(game_of), np.asarray(public), np.asarray(outcome)
        rows = {g: np.flatnonzero(ids == g) for g in np.unique(ids).tolist()}
        rng = np.random.default_rng(0)
        diffs = []
        for _ in range(500):
            pick = np.concatenate([rows[g] for g in rng.choice(list(rows), size=len(rows)).tolist()])
            diffs.append(gp[pick].mean() - go[pick].mean())
        out["public_minus_outcome"] = [round(float(gp.mean() - go.mean()), 4),
                                       *(round(float(v), 4) for v in np.percentile(diffs, [2.5, 97.5]))]
    return out


def calibration_report(records: List[GameRecord], rated: bool = False) -> Dict[str, Any]:
    """The public view's calibration over every position before the end: unrated, or ``rated``
    (the seats' ladder ratings read from the records' agents, where all are rated)."""
    from ..review.estimator import seat_ratings
    from .fit_win_chance import calibration

    model = load_win_chance_model()
    p: List[List[float]] = []
    y: List[List[float]] = []
    games: List[int] = []
    for g, record in enumerate(records):
        winner = record.result["winner"] if record.result else None
        teams = record.teams
        label = [1.0 / teams] * teams if winner is None else [1.0 if t == winner else 0.0 for t in range(teams)]
        ratings = seat_ratings(record.agents) if rated else None
        for step in record.positions():
            if step.game.is_over:
                continue
            p.append(model.chances(step.game, ratings=ratings))
            y.append(label)
            games.append(g)
    pa, ya = np.asarray(p), np.asarray(y)
    return calibration(pa, ya, np.asarray(games), ya.mean(axis=0))


def search_choices(records: List[GameRecord], path: str, spec: str = "hard:time=none",
                   more: bool = True) -> Dict[str, int]:
    """The choice of the search ``spec`` (the ``hard`` preset, uncapped so that the machine's load
    cannot change it; seeded by the decision) at every decision with more than one legal move, by
    ``"game:entry"``; kept in the JSON-lines file ``path`` with the spec and resumed from it (the
    search is the costly part; a kept choice of another spec is not read; with ``more`` False,
    only those already kept)."""
    from ..actions import move_id
    from ..agents import agent_from_spec

    done: Dict[str, int] = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    e = json.loads(line)
                    if e.get("spec") == spec:
                        done[e["key"]] = e["move"]
    if not more:
        return done
    with open(path, "a", encoding="utf-8") as f:
        for g, record in enumerate(records):
            for k, step in enumerate(record.positions()):
                state = core_state(step.game)
                key = f"{g}:{k}"
                if key in done or state.is_over or len(state.legal_moves()) < 2:
                    continue
                search = agent_from_spec(f"{spec}{',' if ':' in spec else ':'}seed={1000 * g + k}")
                done[key] = move_id(search.select_move(step.game))
                f.write(json.dumps({"key": key, "move": done[key], "spec": spec}) + "\n")
                f.flush()
    return done


def search_consistency(records: List[GameRecord], choices: Dict[str, int], spec: str = "hard:time=none",
                       every: int = 4, offset: int = 7) -> Dict[str, Any]:
    """How often the search ``spec`` agrees with itself: at every ``every``-th kept decision (in
    game order) its choice with the decision's seed moved by ``offset``, against the kept choice
    (:func:`search_choices`), with a 95% Wilson interval. A review that does not run the same search
    with the same seed cannot be expected to agree with it more often."""
    from ..actions import move_id
    from ..agents import agent_from_spec
    from ..arena.stats import wilson_interval

    keys = sorted(choices, key=lambda k: tuple(int(v) for v in k.split(":")))[::every]
    cache: Dict[int, List[Any]] = {}
    same = 0
    for key in keys:
        g, k = (int(v) for v in key.split(":"))
        if g not in cache:
            cache[g] = list(records[g].positions())
        search = agent_from_spec(f"{spec}{',' if ':' in spec else ':'}seed={1000 * g + k + offset}")
        same += move_id(search.select_move(cache[g][k].game)) == choices[key]
    return {"search": spec, "decisions": len(keys), "same": same, "rate": same / len(keys) if keys else None,
            "interval": [round(v, 3) for v in wilson_interval(same, len(keys))] if keys else None}


def keeper_choices(records: List[GameRecord], choices: Dict[str, int], path: str,
                   iterations: int = 30000) -> Dict[str, int]:
    """The search's choices (:func:`search_choices`) as the search keeping its two-eyed jacks would
    make them (:class:`sequence_game.training.jack_match.JackKeeper`, the same seed): where the
    search spent one freely, the keeper's move instead; kept in ``path`` and resumed from it."""
    from ..actions import move_id
    from ..game import move_from_id
    from .jack_match import JackKeeper, wild_jack_spent_freely

    out = dict(choices)
    done: Dict[str, int] = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            done = {e["key"]: e["move"] for e in (json.loads(line) for line in f if line.strip())}
    with open(path, "a", encoding="utf-8") as f:
        for key, chosen in choices.items():
            g, k = (int(v) for v in key.split(":"))
            if key in done:
                out[key] = done[key]
                continue
            game = list(records[g].positions())[k].game
            if not wild_jack_spent_freely(game, move_from_id(chosen)):
                continue
            out[key] = done[key] = move_id(JackKeeper(iterations, seed=1000 * g + k).select_move(game))
            f.write(json.dumps({"key": key, "move": out[key]}) + "\n")
            f.flush()
    return out


def agreement(records: List[GameRecord], choices: Dict[str, int], skip: int = 0) -> Dict[str, Any]:
    """How often the review's best move (:func:`sequence_game.review.review_game`'s ``best``) is the
    search's choice (:func:`search_choices`), over the decisions with more than one legal move; and
    over those after the first ``skip`` (in game order: the ones :func:`fit_equal` did not read),
    with a 95% Wilson interval."""
    from ..actions import move_id
    from ..arena.stats import wilson_interval
    from ..review import review_game

    fitted = set(sorted(choices, key=lambda k: tuple(int(v) for v in k.split(":")))[:skip])
    held = held_agree = 0
    agree = total = jacks = 0
    t = time.process_time()
    for g, record in enumerate(records):
        review = review_game(record)
        steps = list(record.positions())
        for k, m in enumerate(review.moves):
            key = f"{g}:{k}"
            if key not in choices or m.kind != "move":
                continue
            game = steps[k].game
            best = move_id(game.parse_move(m.best or m.move))
            agree += best == choices[key]
            jacks += (m.best or m.move).split("@")[0] in ("JD", "JC")
            total += 1
            if key not in fitted:
                held += 1
                held_agree += best == choices[key]
    return {"decisions": total, "agree": agree, "rate": agree / total if total else None,
            "interval": [round(v, 3) for v in wilson_interval(agree, total)] if total else None,
            "unseen_decisions": held, "unseen_agree": held_agree,
            "unseen_interval": [round(v, 3) for v in wilson_interval(held_agree, held)] if held else None,
            "best_is_two_eyed_jack": jacks, "review_cpu_s_per_game": (time.process_time() - t) / max(1, len(records))}


def _race_rows(records: List[GameRecord]) -> Dict[str, np.ndarray]:
    """Per position before the end: the fitted chances without the race (public, unrated), the race's
    terms in the public view, the mover's and next team, the label; and the take rate's counts."""
    from ..review.estimator import feature_rows, softmax_rows
    from ..review.threats import decisive

    model = load_win_chance_model()
    rows: Dict[str, List[Any]] = {k: [] for k in ("p", "a", "b", "mine", "theirs", "open_m", "open_n", "y", "game")}
    held = taken = 0
    for g, record in enumerate(records):
        winner = record.result["winner"] if record.result else None
        steps = list(record.positions())
        for k, step in enumerate(steps):
            state = core_state(step.game)
            if state.is_over:
                continue
            teams = state.teams
            if holds_win(state):
                held += 1
                taken += core_state(steps[k + 1].game).winner == state.current_player % teams
            x = feature_rows(state, quality=play_quality(state))
            rows["p"].append(softmax_rows(x @ model.weights(teams, None)))
            race = decisive(state)
            rows["a"].append(race.win_now)
            rows["b"].append(race.next_wins)
            rows["mine"].append(state.current_player % teams)
            rows["theirs"].append((state.current_player + 1) % state.players % teams)
            rows["open_m"].append(bool(race.mover_cells))
            rows["open_n"].append(bool(race.next_cells))
            rows["y"].append([1.0 / teams] * teams if winner is None else [float(t == winner) for t in range(teams)])
            rows["game"].append(g)
    out = {k: np.asarray(v) for k, v in rows.items()}
    out["held_taken"] = np.array([held, taken])
    return out


def _raced(r: Dict[str, np.ndarray], take: float, open_mover: float, open_next: float) -> np.ndarray:
    """:func:`sequence_game.review.estimator.with_decisive` over many rows at once (public view)."""
    n = np.arange(r["p"].shape[0])
    logp = np.log(np.clip(r["p"], 1e-12, 1.0))
    logp[n, r["mine"]] += open_mover * r["open_m"]
    logp[n, r["theirs"]] += open_next * r["open_n"]
    rest = np.exp(logp - logp.max(axis=1, keepdims=True))
    rest /= rest.sum(axis=1, keepdims=True)
    a, b = take * r["a"], take * r["b"]
    out: np.ndarray = rest * ((1 - a) * (1 - b))[:, None]
    out[n, r["mine"]] += a
    out[n, r["theirs"]] += (1 - a) * b
    return out


def fit_decisive(records: List[GameRecord], model_path: Optional[str] = None) -> Dict[str, Any]:
    """Fit the race's parameters (:func:`sequence_game.review.estimator.with_decisive`) on
    ``records`` and write them into the model file (None: the packaged one): ``take``, how often a
    player holding a winning move played it; ``open_mover``/``open_next``, the shifts of the
    fitted scores, by the least log-loss on a grid (steps of 0.05)."""
    from ..review.estimator import DEFAULT_PATH

    r = _race_rows(records)
    held, taken = (int(v) for v in r["held_taken"])
    take = taken / held if held else 1.0
    y = r["y"]
    best = (math.inf, 0.0, 0.0)
    grid = np.round(np.arange(-2.0, 2.0001, 0.05), 2)
    for c0 in grid:
        for c1 in grid:
            p = np.clip(_raced(r, take, float(c0), float(c1)), 1e-9, 1.0)
            loss = float(-(y * np.log(p)).sum(axis=1).mean())
            if loss < best[0]:
                best = (loss, float(c0), float(c1))
    params = {"take": round(take, 4), "open_mover": best[1], "open_next": best[2]}
    path = model_path or DEFAULT_PATH
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    data["decisive"] = params
    data.setdefault("training", {})["decisive"] = {
        "games": len(records), "positions": int(y.shape[0]), "held_a_win": held, "took_it": taken,
        "log_loss": round(best[0], 4), "command": "python -m sequence_game.training.measure_review fit-decisive"}
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    return {"decisive": params, **data["training"]["decisive"]}


def fit_equal(records: List[GameRecord], choices: Dict[str, int], decisions: int,
              model_path: Optional[str] = None) -> Dict[str, Any]:
    """Choose the review's ``grading.equal`` (how close to the best value a move is the best's equal,
    :func:`sequence_game.review.review_game`) by the agreement with the search's choices on the
    first ``decisions`` kept decisions (in game order), over a grid of 0 to 0.03 by 0.0025, and
    write it into the model file (None: the packaged one)."""
    from .. import _core
    from ..review import move_values
    from ..review.estimator import DEFAULT_PATH

    keys = sorted(choices, key=lambda k: tuple(int(v) for v in k.split(":")))[:decisions]
    rows = []
    cache: Dict[int, List[Any]] = {}
    for key in keys:
        g, k = (int(v) for v in key.split(":"))
        if g not in cache:
            cache[g] = list(records[g].positions())
        game = cache[g][k].game
        rows.append((move_values(game), dict(_core.heuristic_scores(game._state)), choices[key]))
    grid = [round(0.0025 * i, 4) for i in range(13)]
    rates = {}
    for eps in grid:
        agree = 0
        for values, scores, chosen in rows:
            top = max(values.values())
            equal = [m for m in values if values[m] >= top - eps]
            agree += max(equal, key=lambda m: (scores.get(m, -math.inf), values[m], -m)) == chosen
        rates[eps] = agree / max(1, len(rows))
    best = max(grid, key=lambda e: (rates[e], -e))
    path = model_path or DEFAULT_PATH
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    data["grading"]["equal"] = best
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    return {"equal": best, "decisions": len(rows), "agreement": {str(e): round(r, 3) for e, r in rates.items()}}


def candidate_agreement(records: List[GameRecord], choices: Dict[str, int],
                        tops: Sequence[Optional[int]] = (None, 8, 4, 3, 2),
                        margins: Sequence[float] = (0.0, 0.005, 0.01, 0.015, 0.02, 0.03)) -> Dict[str, Any]:
    """Would naming the best move among the search's own candidates bring the review closer to the
    search's choices (:func:`search_choices`)? The rollout search compares the one-ply heuristic's
    best moves, so for every ``top`` (None: every legal move) and ``margin`` (as ``grading.equal``):
    how often the review's best among the heuristic's ``top`` best moves (its equals within
    ``margin``, the heuristic's favourite among them named) is the search's choice; also how often
    the choice is among the heuristic's 8 best and is its favourite. Over the kept decisions whose
    move is not a trade, with 95% Wilson intervals."""
    from .. import _core
    from ..arena.stats import wilson_interval
    from ..review import move_values

    rows = []
    cache: Dict[int, List[Any]] = {}
    for key in sorted(choices, key=lambda k: tuple(int(v) for v in k.split(":"))):
        g, k = (int(v) for v in key.split(":"))
        if g not in cache:
            cache[g] = list(records[g].positions())
        game = cache[g][k].game
        if game.parse_move(records[g].moves[k]).kind == "trade":
            continue
        values = move_values(game)
        scores = dict(_core.heuristic_scores(core_state(game)))
        rows.append((values, sorted(values, key=lambda m: (-scores.get(m, -math.inf), -values[m], m)), choices[key]))

    def rate(hits: int) -> Dict[str, Any]:
        lo, hi = wilson_interval(hits, len(rows)) if rows else (0.0, 0.0)
        return {"agree": hits, "rate": round(hits / max(1, len(rows)), 4), "interval": [round(lo, 3), round(hi, 3)]}

    out: Dict[str, Any] = {"decisions": len(rows), "choice_in_heuristic_top8": rate(sum(c in r[:8] for _, r, c in rows)),
                           "choice_is_heuristic_favourite": rate(sum(c == r[0] for _, r, c in rows))}
    for top in tops:
        for margin in margins:
            hits = 0
            for values, ranked, chosen in rows:
                pool = ranked[:top] if top else ranked
                best = max(values[m] for m in pool)
                hits += next(m for m in pool if values[m] >= best - margin) == chosen  # ranked: favourite first
            out[f"top={top or 'all'} margin={margin:g}"] = rate(hits)
    return out


def set_kept(names: Sequence[str], model_path: Optional[str] = None) -> Dict[str, Any]:
    """Set what the jacks ``names`` (of ``estimator.KEPT_FEATURES``) kept in hand are worth in the
    model file (None: the packaged one): the search's evaluation weight of that jack over its
    logistic scale (``_core.EvalWeights``); the others keep their fitted weight."""
    from .. import _core
    from ..review.estimator import DEFAULT_PATH, KEPT_FEATURES

    weights = _core.EvalWeights()
    unknown = sorted(set(names) - set(KEPT_FEATURES))
    if unknown:
        raise ValueError(f"kept: {', '.join(unknown)} is not one of {', '.join(KEPT_FEATURES)}")
    kept = {n: round(getattr(weights, n) / weights.scale, 4) for n in names}
    path = model_path or DEFAULT_PATH
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    data["kept"] = kept
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)
    return {"kept": kept}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m sequence_game.training.measure_review",
                                     description="Measure the review on fresh games (see the module docstring).")
    parser.add_argument("what", choices=["games", "won", "calibration", "agreement", "consistency", "candidates",
                                         "fit-decisive", "kept", "fit-equal"])
    parser.add_argument("--file", help="the games, one record a line (JSON lines), or a match's results file "
                                       "(won, calibration)")
    parser.add_argument("--games", type=int, default=250)
    parser.add_argument("--seed", type=int, default=4620)
    parser.add_argument("--agents", default=",".join(MIXED), help="the strengths to draw seats from (commas)")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--rated", action="store_true", help="calibration: read the seats' ladder ratings")
    parser.add_argument("--search", default="hard:time=none", help="agreement, fit-equal: the search agreed with")
    parser.add_argument("--every", type=int, default=4, help="consistency: every how many kept decisions are searched again")
    parser.add_argument("--kept", action="store_true", help="agreement: only the search choices already kept")
    parser.add_argument("--keeper", action="store_true",
                        help="agreement, fit-equal: against the search keeping its two-eyed jacks (training.jack_match)")
    parser.add_argument("--decisions", type=int, default=200,
                        help="fit-equal: the first kept decisions it reads; agreement: those it counts apart")
    parser.add_argument("--jacks", default="one_eyed", help="kept: the jacks valued as the search values them (commas)")
    args = parser.parse_args(argv)
    if args.what == "kept":
        print(json.dumps(set_kept([j for j in args.jacks.split(",") if j])))
        return 0
    if args.file is None:
        parser.error("--file is required")
    if args.what == "games":
        play_games(args.file, args.games, args.seed, tuple(a for a in args.agents.split(",") if a), args.players)
        return 0
    if args.keeper and not args.search.startswith("mcts-v1"):
        parser.error("--keeper is the information-set search keeping its two-eyed jacks (training.jack_match): "
                     "use it with --search mcts-v1:iterations=30000,time=none")
    records = _records(args.file)
    if args.what == "calibration":
        out = calibration_report(records, args.rated)
    elif args.what == "fit-equal":
        choices = search_choices(records, args.file + ".search.jsonl", args.search, more=False)
        if args.keeper:
            choices = keeper_choices(records, choices, args.file + ".keeper.jsonl")
        out = fit_equal(records, choices, args.decisions)
    elif args.what == "consistency":
        choices = search_choices(records, args.file + ".search.jsonl", args.search, more=not args.kept)
        out = search_consistency(records, choices, args.search, args.every)
    elif args.what == "candidates":
        out = candidate_agreement(records, search_choices(records, args.file + ".search.jsonl", args.search, more=False))
    elif args.what == "agreement":
        choices = search_choices(records, args.file + ".search.jsonl", args.search, more=not args.kept)
        if args.keeper:
            choices = keeper_choices(records, choices, args.file + ".keeper.jsonl")
        out = agreement(records, choices, args.decisions)
    else:
        out = {"won": won_report, "fit-decisive": fit_decisive}[args.what](records)
    print(json.dumps({"games": len(records), **out}, indent=1))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
