"""A Gymnasium episode: seat 0 plays random legal actions against GreedyAgent opponents.

    python examples/gymnasium_greedy.py --players 2 --episodes 3
"""

from __future__ import annotations

import argparse

import gymnasium
import numpy as np
import sequence_game.envs.gymnasium  # noqa: F401  (registers sequence_game/Sequence-v0)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    env = gymnasium.make("sequence_game/Sequence-v0", players=args.players, opponents="greedy")
    rng = np.random.default_rng(args.seed)
    for episode in range(args.episodes):
        observation, info = env.reset(seed=args.seed + episode)
        steps, reward, terminated, truncated = 0, 0.0, False, False
        while not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))  # or env.unwrapped.action_masks()
            _observation, reward, terminated, truncated, info = env.step(action)
            steps += 1
        print(f"episode {episode}: {steps} steps, reward {reward:+.0f}, "
              f"{'truncated' if truncated else 'terminated'} at turn {info['turn']}")
    env.close()


if __name__ == "__main__":
    main()
