"""MCTSAgent (this package's ISMCTS in C++) against OpenSpiel's Python ISMCTSBot on the
OpenSpiel game python_sequence, played with OpenSpiel's evaluate_bots.

ISMCTSBot has no time limit, only a number of simulations: before each of its decisions the
number is set from its measured seconds per simulation so far, so that it thinks about `--factor`
times as long per decision as MCTSAgent measurably takes (its `--time` limit plus the
overhead of a Python bot); both bots' measured seconds per decision are
printed with the result. Seats alternate between games.

    python examples/openspiel_match.py --games 20 --time 0.05 --factor 1
    python examples/openspiel_match.py --games 20 --time 0.05 --factor 10
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots
from sequence_game.agents import MCTSAgent
from sequence_game.arena import wilson_interval
from sequence_game.envs.openspiel import AgentBot, ismcts_bot


class Timed:
    """A bot wrapper that adds up the seconds its bot spends choosing actions."""

    def __init__(self, bot):
        self.bot, self.seconds, self.decisions = bot, 0.0, 0

    def __getattr__(self, name):
        return getattr(self.bot, name)

    def step(self, state):
        start = time.perf_counter()
        action = self.bot.step(state)
        self.seconds += time.perf_counter() - start
        self.decisions += 1
        return action


class TimeMatched(Timed):
    """An ISMCTSBot whose simulations per decision track a time budget (see the module doc)."""

    def __init__(self, bot, budget):
        super().__init__(bot)
        self.budget, self.simulations = budget, 0  # budget(): seconds for the next decision

    def step(self, state):
        if self.simulations:
            per_simulation = self.seconds / self.simulations
            self.bot._max_simulations = max(2, round(self.budget() / per_simulation))  # 2: ISMCTSBot needs a visited root
        self.simulations += self.bot._max_simulations
        return super().step(state)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--time", type=float, default=0.02, help="MCTSAgent seconds per move")
    parser.add_argument("--factor", type=float, default=1.0, help="ISMCTSBot time / MCTSAgent time")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-turns", type=int, default=300)
    args = parser.parse_args(argv)

    game = pyspiel.load_game("python_sequence", {"players": 2, "max_turns": args.max_turns})
    rng = np.random.RandomState(args.seed)
    points, games = 0.0, 0
    ours = Timed(AgentBot(MCTSAgent(time_limit=args.time, seed=args.seed)))
    # The budget: --factor times MCTSAgent's measured seconds per decision (its time limit at first).
    theirs = TimeMatched(ismcts_bot(game, 10, seed=args.seed),
                         lambda: args.factor * (ours.seconds / ours.decisions if ours.decisions else args.time))
    for g in range(args.games):
        bots = [ours, theirs] if g % 2 == 0 else [theirs, ours]
        returns = evaluate_bots(game.new_initial_state(), bots, rng)
        mine = returns[bots.index(ours)]
        points += (mine + 1) / 2  # win 1, draw 1/2, loss 0
        games += 1
        print(f"game {g + 1}: MCTSAgent {'won' if mine > 0 else 'lost' if mine < 0 else 'drew'}", flush=True)
    low, high = wilson_interval(points, games)
    result = {
        "games": games, "mcts_score": points / games, "interval95": (low, high),
        "ismcts_simulations": theirs.simulations / max(1, theirs.decisions),
        "mcts_seconds_per_decision": ours.seconds / max(1, ours.decisions),
        "ismcts_seconds_per_decision": theirs.seconds / max(1, theirs.decisions),
    }
    print(f"MCTSAgent(time_limit={args.time}) vs ISMCTSBot({result['ismcts_simulations']:.1f} simulations a decision): "
          f"{points:g}/{games} = {points / games:.0%} (95% interval {low:.0%}-{high:.0%}); "
          f"seconds per decision {result['mcts_seconds_per_decision']:.3f} vs {result['ismcts_seconds_per_decision']:.3f}")
    return result


if __name__ == "__main__":
    main()
