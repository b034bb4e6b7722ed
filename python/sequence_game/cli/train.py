"""``sequence-game train``: the learned player's network from nothing to a weights file (needs the
``[train]`` extra: torch). Resumable: rerun the same command to continue where it stopped (after
the last finished pass over the data, or the generation's self-play). See sequence_game.training.net.trainer and docs/research/learned-player.md."""

from __future__ import annotations

import argparse
import shutil
from typing import TYPE_CHECKING

from ..errors import printable
from ..seeds import SEED_LIMIT
from .common import EXIT_OK, CLIError, Parents, check_writable, int_arg

if TYPE_CHECKING:
    from rich.console import Console


def cmd_train(args: argparse.Namespace, console: Console) -> int:
    try:
        from ..training.net.trainer import TrainConfig, train
    except ImportError as e:
        raise CLIError(f"train needs PyTorch (pip install 'sequence-game[train]'): {e}") from None
    if not 0 <= args.temperature <= 10:
        raise CLIError("--temperature must be in 0..10")
    if not 0 <= args.imitation <= 100:
        raise CLIError("--imitation must be in 0..100")
    if args.export:
        check_writable(args.export, "--export")
    cfg = TrainConfig(out=args.out, generations=args.generations, seed=args.seed,
                      bootstrap_games=args.bootstrap_games, games=args.games, eval_games=args.eval_games,
                      temperature=args.temperature, bootstrap_epochs=args.bootstrap_epochs,
                      imitation=args.imitation, init=args.init, keep=args.keep)
    try:
        weights = train(cfg, progress=lambda text: console.print(text, highlight=False))
    except KeyboardInterrupt:
        console.print(f"interrupted: {args.out} holds the run up to its last finished pass; rerun the command "
                      "to continue from there")
        raise
    except (ValueError, OSError) as e:
        raise CLIError(str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__) from None
    if args.export and weights:
        try:
            shutil.copyfile(weights, args.export)
        except OSError as e:
            raise CLIError(f"--export {printable(args.export)}: {e.strerror or e} (the weights are in "
                           f"{printable(weights)})") from None
        console.print(f"weights: {args.export} (from {weights})")
    else:
        console.print(f"weights: {weights}")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    p = sub.add_parser("train", help="train the learned player's network by self-play (needs torch)",
                       description="Trains the policy-value network: greedy imitation, then batched self-play "
                                   "against a pool of earlier snapshots; a checkpoint, a weights file and a log "
                                   "line (strength against greedy and random, with intervals) per generation "
                                   "in --out. Rerun to continue where it stopped (the last finished pass).")
    p.add_argument("--out", required=True, metavar="DIR", help="the run's directory (checkpoints, log.jsonl)")
    p.add_argument("--generations", type=int_arg(1, 100000, "--generations"), default=20,
                   help="generations in total, generation 0 included (default 20)")
    p.add_argument("--seed", type=int_arg(0, SEED_LIMIT - 1, "--seed"), default=0, help="run seed (default 0)")
    p.add_argument("--bootstrap-games", type=int_arg(1, 10**6, "--bootstrap-games"), default=1000,
                   help="greedy self-play games that generation 0 imitates (default 1000)")
    p.add_argument("--bootstrap-epochs", type=int_arg(1, 1000, "--bootstrap-epochs"), default=3,
                   help="passes over the greedy dataset in generation 0 (default 3)")
    p.add_argument("--imitation", type=float, default=0.3,
                   help="weight of the greedy imitation loss after generation 0 (default 0.3)")
    p.add_argument("--games", type=int_arg(1, 10**6, "--games"), default=128, help="self-play games per generation (default 128)")
    p.add_argument("--eval-games", type=int_arg(2, 10**6, "--eval-games"), default=100,
                   help="games against greedy per generation, seats alternated (default 100)")
    p.add_argument("--temperature", type=float, default=1.0, help="self-play sampling temperature (default 1)")
    p.add_argument("--init", metavar="FILE",
                   help="start from this .sqnet weights file instead of imitation (fine-tuning); "
                        "'net' is the shipped network (a file named net: ./net)")
    p.add_argument("--keep", type=int_arg(1, 10**6, "--keep"), default=2,
                   help="checkpoints of finished generations to keep, the newest (default 2); every "
                        "generation's weights file is kept")
    p.add_argument("--export", metavar="FILE", help="copy the last generation's weights file here")
    p.set_defaults(func=cmd_train)
