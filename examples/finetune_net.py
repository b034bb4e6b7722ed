"""Fine-tune the shipped policy-value network by self-play and compare it with the original.

Needs the ``[train]`` extra (PyTorch). A few minutes on two cores::

    python examples/finetune_net.py /tmp/finetune

The run directory is resumable (rerun the same command); the tuned network is a weights file that
the ``net`` and ``net-search`` agents take (``net:weights=FILE``).
"""

import sys

from sequence_game.agents import agent_from_spec
from sequence_game.agents.net import DEFAULT_WEIGHTS, load_net
from sequence_game.training.net.trainer import TrainConfig, play_against, train


def main(out: str) -> None:
    weights = train(TrainConfig(out=out, generations=3, seed=1, init=DEFAULT_WEIGHTS, bootstrap_games=100,
                                games=64, eval_games=100))
    for name, path in (("shipped", DEFAULT_WEIGHTS), ("tuned", weights)):
        r = play_against(load_net(path), "greedy", 200, seed=17)
        print(f"{name}: {r['score']:.1%} against greedy over {r['games']} games, 95% interval "
              f"[{r['interval'][0]:.1%}, {r['interval'][1]:.1%}]")
    # The tuned network as an agent spec, e.g. for `sequence-game arena`:
    print(agent_from_spec(f"net-search:iters=200,weights={weights}").name)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "finetune-run")
