"""The ``sequence-game`` command (bring-up version: a random game printed to the terminal)."""

from __future__ import annotations

import argparse
import random
from typing import Optional, Sequence


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="sequence-game", description="Play the board game Sequence.")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args(argv)
    from . import Game

    game = Game(players=args.players, seed=args.seed)
    pick = random.Random(game.seed)
    while not game.is_over:
        move = pick.choice(game.legal_moves())
        print(f"player {game.current_player}: {move}")
        game.play(move)
    print(game)
    return 0
