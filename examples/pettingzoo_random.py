"""A PettingZoo loop: every seat plays a uniformly random legal action (from the action mask).

    python examples/pettingzoo_random.py --players 4 --games 3
"""

from __future__ import annotations

import argparse

import numpy as np
from sequence_game.envs.pettingzoo import env


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--teams", type=int, default=None)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    e = env(players=args.players, teams=args.teams)
    for game in range(args.games):
        e.reset(seed=args.seed + game)
        totals = dict.fromkeys(e.agents, 0.0)
        steps = 0
        for agent in e.agent_iter():
            observation, reward, terminated, truncated, _info = e.last()
            totals[agent] += reward
            if terminated or truncated:
                action = None
            else:
                action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
                steps += 1
            e.step(action)
        print(f"game {game}: {steps} actions, returns {totals}")
    e.close()


if __name__ == "__main__":
    main()
