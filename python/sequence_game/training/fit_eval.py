"""Fit the learned evaluation (``MCTSAgent(options={"evaluation": "learned"})``) on self-play positions.

Part of the research build, as that option is (:mod:`sequence_game.research`): in a product build
importing this module raises ``ImportError`` saying how to get one.

One command makes the data, fits and writes the model file (the packaged one was made by the
command in its ``training.command`` field)::

    sequence-game fit-eval --agents mcts-v1:iters=1000 --games 1150 --seed 2 \\
        --workers 2 --out python/sequence_game/research/data/learned_eval.json

1. **Data**: a self-play run (:func:`sequence_game.selfplay.selfplay`, the self-play tool's
   dataset in ``--data``, kept and resumed if it exists) of ``--games`` two-player games by
   ``--agents`` (default ``greedy``: the core's move heuristic, the cheapest data; the
   packaged model learned from the search's own games, which make the better leaves for it:
   docs/research/learned-evaluation.md).
2. **Features**: every game is replayed from its deal seed and moves; before every move the
   position's features (``_core.eval_features``: one row per team, each reading only public
   information and that team's own hands, ``cpp/include/sequence/search/features.hpp``) are
   taken, labelled with the game's result for team 0 (1 won, 0 lost, 1/2 drawn). The replay
   reads the real hands of a finished game (a referee's view, not a player's); the search applies
   the model to its determinized worlds, whose hands are a sample of the unseen cards (R9).
3. **Fit**: a logistic regression on the difference of the two teams' rows (no intercept: the
   model is symmetric between the teams) by Newton's method with a small L2 penalty, on the games
   whose index is not a multiple of ``--holdout`` (default 5).
4. **Report**: log-loss and accuracy on the held-out games' positions, for the fitted model and
   for the hand-set evaluation (``_core.handset_rewards``, the search's default weights) on the
   same positions; the model file (:mod:`sequence_game.research.learned_eval`) records the command, data
   size, seeds and these numbers.

>>> import tempfile, os
>>> d = tempfile.mkdtemp()
>>> report = fit_eval(games=6, seed=1, out=os.path.join(d, "m.json"), data=os.path.join(d, "data"), holdout=3)
>>> report["validation"]["positions"] > 0 and 0 < report["validation"]["log_loss"] < 5
True
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .. import _core
from ..arena.stats import newton
from ..game import Game
from ..game_setup import RUN_MAX_TURNS
from ..research.learned_eval import EvalModel, parse_eval_model  # ImportError in a product build, saying so
from ..selfplay import LOG_NAME, load_dataset, selfplay

__all__ = ["fit_eval", "fit_logistic", "main", "position_features"]


def position_features(data: Dict[str, np.ndarray], players: int = 2, teams: Optional[int] = None,
                      max_turns: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Replay the games of a self-play dataset (``load_dataset``'s arrays ``move_id``, ``game``,
    ``game_index``, ``game_seed``, ``game_winner``) and return ``(features, label, game,
    handset)``: ``features[i]`` the ``(teams, F)`` features of row ``i``'s position (before its
    move), ``label[i]`` the result for team 0 (1 won, 0 lost, 0.5 drawn), ``game[i]`` its game
    index and ``handset[i]`` the hand-set evaluation's reward of team 0 there."""
    move_id, row_game = data["move_id"], data["game"]
    seeds = dict(zip(data["game_index"].tolist(), data["game_seed"].tolist()))
    winners = dict(zip(data["game_index"].tolist(), data["game_winner"].tolist()))
    n = int(move_id.shape[0])
    probe = Game(players, teams, 0, max_turns)
    feats = np.zeros((n, probe.teams, len(_core.EVAL_FEATURES)), np.float32)
    handset = np.zeros(n, np.float64)
    label = np.zeros(n, np.float64)
    weights = _core.EvalWeights()
    state: Any = None
    current = None
    for i in range(n + 1):
        g = int(row_game[i]) if i < n else None
        if g != current:
            if state is not None:  # the replay must reach the recorded result
                end = -1 if state.winner is None else state.winner
                if not state.is_over or end != winners[current]:
                    raise ValueError(f"game {current}: replaying its moves from its deal seed does not reach the "
                                     f"recorded result (winner {winners[current]}): not this core's dataset?")
            if g is None:
                break
            current = g
            state = Game(players, teams, int(seeds[g]), max_turns)._state
        feats[i] = _core.eval_features(state)
        handset[i] = _core.handset_rewards(state, weights)[0]
        w = winners[g]
        label[i] = 0.5 if w < 0 else float(w == 0)
        state.play(int(move_id[i]))
    return feats, label, row_game.astype(np.int64), handset


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, iterations: int = 50) -> np.ndarray:
    """The weights ``w`` (no intercept) minimising the mean log-loss of ``sigmoid(x @ w)`` against
    the labels ``y`` in [0, 1], plus ``l2 / 2 * |w|^2``: Newton's method (a handful of steps for a
    few dozen features), deterministic.

    >>> x = np.array([[1.0], [2.0], [-1.0], [-2.0], [0.5], [-0.5]])
    >>> y = np.array([1.0, 1.0, 0.0, 0.0, 0.0, 1.0])
    >>> w = fit_logistic(x, y)
    >>> bool(0 < w[0] < 5)
    True
    """
    n, k = x.shape

    def grad_hess(w: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) / n + l2 * w
        return grad, (x * (p * (1 - p))[:, None]).T @ x / n + l2 * np.eye(k)

    return np.asarray(newton(grad_hess, np.zeros(k), iterations, tol=1e-10))


def _metrics(p: np.ndarray, y: np.ndarray) -> Dict[str, float]:
    p = np.clip(p, 1e-7, 1 - 1e-7)
    loss = float(-(y * np.log(p) + (1 - y) * np.log(1 - p)).mean())
    decided = y != 0.5
    acc = float(((p[decided] > 0.5) == (y[decided] > 0.5)).mean()) if decided.any() else float("nan")
    return {"log_loss": round(loss, 5), "accuracy": round(acc, 5)}


def fit_eval(games: int = 20000, seed: int = 1, out: str = "learned_eval.json", data: Optional[str] = None,
             agents: Sequence[str] = ("greedy",), workers: int = 1, holdout: int = 5, l2: float = 1e-3,
             exclude: Sequence[str] = (), sharpen: float = 1.0, max_turns: Optional[int] = RUN_MAX_TURNS,
             command: Optional[str] = None, progress: Any = None) -> Dict[str, Any]:
    """Make (or extend) the self-play data, fit, write the model to ``out``; returns the report
    (also the file's ``training`` field). ``data``: the dataset directory (None: a temporary one,
    deleted after). Positions of games whose index is a multiple of ``holdout`` are held out.
    ``exclude``: features left out of the fit (weight 0). ``sharpen``: a factor the written
    weights are multiplied by (after rounding to 6 decimals), for a search that wants sharper
    rewards than calibrated probabilities; the validation numbers are those of the fit.
    ``max_turns`` caps each self-play game (a draw at the cap): a search playing itself can reach
    positions where neither side makes progress and the game does not end."""
    if not (0 < sharpen <= 100):
        raise ValueError(f"sharpen must be a factor > 0 and at most 100, not {sharpen!r}")
    names = list(_core.EVAL_FEATURES)
    unknown = [f for f in exclude if f not in names]
    if unknown:
        raise ValueError(f"exclude: unknown features {', '.join(unknown)} (choose from {', '.join(names)})")
    used = np.array([n not in exclude for n in names])
    if holdout < 2:
        raise ValueError(f"holdout must be at least 2 (every holdout-th game is held out), not {holdout}")
    temp = None
    if data is None:
        temp = tempfile.TemporaryDirectory(prefix="fit-eval-")
        data = temp.name
    try:
        manifest = selfplay(list(agents), games=games, out=data, seed=seed, workers=workers, max_turns=max_turns,
                            resume=os.path.exists(os.path.join(data, LOG_NAME)), progress=progress)
        if manifest["players"] != 2 or manifest["seed"] != seed or manifest["agents"] != list(agents):
            raise ValueError(f"{data!r} holds another self-play run ({manifest['agents']}, seed {manifest['seed']}, "
                             f"{manifest['players']} players): choose another --data directory")
        t0 = time.process_time()
        arrays = load_dataset(data, fields=["move_id", "game", "game_index", "game_seed", "game_winner"])
        keep = arrays["game"] < games  # a larger earlier run: only the games asked for
        for k in ("move_id", "game"):
            arrays[k] = arrays[k][keep]
        feats, label, game, handset = position_features(arrays, players=2, max_turns=manifest["max_turns"])
    finally:
        if temp is not None:
            temp.cleanup()
    x = (feats[:, 0, :] - feats[:, 1, :]).astype(np.float64)
    held = game % holdout == 0
    w = np.zeros(len(names))
    w[used] = fit_logistic(x[~held][:, used], label[~held], l2=l2)
    p_val = 1.0 / (1.0 + np.exp(-(x[held] @ w)))
    validation = {"positions": int(held.sum()), "games": int(np.unique(game[held]).size), **_metrics(p_val, label[held])}
    hand = _metrics(handset[held], label[held])
    validation.update({"handset_log_loss": hand["log_loss"], "handset_accuracy": hand["accuracy"],
                       "constant_log_loss": round(float(np.log(2.0)), 5)})
    report: Dict[str, Any] = {
        "command": command or _command(games, seed, out, agents, workers, holdout, l2, exclude, sharpen, max_turns),
        "data": {"tool": "sequence_game.selfplay", "agents": list(agents), "games": games, "players": 2,
                 "seed": seed, "positions": int(x.shape[0]), "train_positions": int((~held).sum())},
        "fit": {"method": "logistic regression on the teams' feature difference, no intercept, Newton",
                "l2": l2, "holdout": f"games with index % {holdout} == 0", "excluded": list(exclude),
                "sharpen": sharpen},
        "validation": validation,
        "train": _metrics(1.0 / (1.0 + np.exp(-(x[~held] @ w))), label[~held]),
        "cpu_seconds": {"selfplay": manifest["cpu_seconds"], "features_and_fit": round(time.process_time() - t0, 1)},
        "core": __import__("sequence_game").__version__,
    }
    model = parse_eval_model({"format": "sequence-game-eval/1",
                              "weights": {n: round(float(v), 6) * sharpen for n, v in zip(_core.EVAL_FEATURES, w)},
                              "training": report}, "the fitted model")
    _write(model, out)
    return report


def _command(games: int, seed: int, out: str, agents: Sequence[str], workers: int, holdout: int, l2: float,
             exclude: Sequence[str], sharpen: float, max_turns: Optional[int] = None) -> str:
    parts = ["sequence-game", "fit-eval", "--games", str(games), "--seed", str(seed),
             "--out", out]
    if list(agents) != ["greedy"]:
        parts += ["--agents", *agents]
    if holdout != 5:
        parts += ["--holdout", str(holdout)]
    if l2 != 1e-3:
        parts += ["--l2", repr(l2)]
    if exclude:
        parts += ["--exclude", *exclude]
    if sharpen != 1.0:
        parts += ["--sharpen", repr(sharpen)]
    if max_turns is not None:
        parts += ["--max-turns", str(max_turns)]
    return " ".join(shlex.quote(p) for p in parts)


def _write(model: EvalModel, out: str) -> None:
    tmp = out + f".tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(model.to_json(), f, indent=1)
        f.write("\n")
    os.replace(tmp, out)


def main(argv: Optional[List[str]] = None, prog: str = "sequence-game fit-eval") -> int:
    parser = argparse.ArgumentParser(prog=prog,
                                     description="Fit the search's learned evaluation on self-play positions and "
                                                 "write the model file (see the module's docstring).")
    parser.add_argument("--games", type=int, default=20000, help="self-play games (default 20000)")
    parser.add_argument("--seed", type=int, default=1, help="the self-play run's seed (default 1)")
    parser.add_argument("--out", required=True, help="the model file to write (JSON)")
    parser.add_argument("--data", default=None, help="the self-play dataset directory (made or resumed; default: a "
                                                     "temporary directory)")
    parser.add_argument("--agents", nargs="+", default=["greedy"], help="self-play agent specs (default greedy)")
    parser.add_argument("--workers", type=int, default=1, help="self-play worker processes (default 1)")
    parser.add_argument("--holdout", type=int, default=5, help="hold out every N-th game for validation (default 5)")
    parser.add_argument("--l2", type=float, default=1e-3, help="L2 penalty (default 0.001)")
    parser.add_argument("--exclude", nargs="+", default=[], metavar="FEATURE",
                        help="features left out of the fit (weight 0), names as in _core.EVAL_FEATURES")
    parser.add_argument("--sharpen", type=float, default=1.0,
                        help="multiply the written weights by this factor (default 1: calibrated)")
    parser.add_argument("--max-turns", type=int, default=RUN_MAX_TURNS,
                        help=f"cap each self-play game at this many turns (a draw; default {RUN_MAX_TURNS})")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, not {args.games}")
    if args.max_turns is not None and args.max_turns < 1:
        parser.error(f"--max-turns must be at least 1, not {args.max_turns}")
    try:
        report = fit_eval(games=args.games, seed=args.seed, out=args.out, data=args.data, agents=args.agents,
                          workers=args.workers, holdout=args.holdout, l2=args.l2, exclude=args.exclude,
                          sharpen=args.sharpen, max_turns=args.max_turns)
    except ValueError as e:
        print(f"fit_eval: {e}", file=sys.stderr)
        return 2
    v = report["validation"]
    print(f"{report['data']['positions']:,} positions from {args.games:,} games; held out {v['positions']:,} "
          f"positions of {v['games']:,} games")
    print(f"validation log-loss {v['log_loss']:.4f} (hand-set {v['handset_log_loss']:.4f}, constant "
          f"{v['constant_log_loss']:.4f}); accuracy {v['accuracy']:.3f} (hand-set {v['handset_accuracy']:.3f})")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(prog="python -m sequence_game.training.fit_eval"))
