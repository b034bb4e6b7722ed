"""Self-play against a league of past selves: MaskablePPO learns against a PolicyPool of its own snapshots (the [train] extra).

    python examples/selfplay_league.py --rounds 20 --steps 20000 --pool league
    sequence-game arena policy:league/snapshot-000020.zip greedy --games 200

Every round learns ``--steps`` steps against opponents drawn from the pool, one per game (the
newest snapshots most often, ``random`` in a fifth of the games), then adds the model to the pool,
which keeps the last ``--keep``. Run it again with the same ``--pool`` after a kill: the learner
starts from the newest snapshot and the league goes on.
"""

from __future__ import annotations

import argparse

import torch
from sb3_contrib import MaskablePPO
from sequence_game.envs.pool import PolicyPool
from sequence_game.envs.sb3 import SequenceVecEnv
from stable_baselines3.common.vec_env import VecMonitor


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--pool", required=True, help="the league's directory (created, or continued)")
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--steps", type=int, default=20_000, help="learner steps per round")
    p.add_argument("--keep", type=int, default=8, help="snapshots kept")
    p.add_argument("--envs", type=int, default=32, help="games stepped together")
    p.add_argument("--n-steps", type=int, default=64, help="steps per game per rollout")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--torch-threads", type=int, default=1, help="small networks: more threads wait more than they work")
    args = p.parse_args(argv)
    torch.set_num_threads(args.torch_threads)

    pool = PolicyPool(args.pool, keep=args.keep, sample="recent", fixed=["random"], seed=args.seed)
    env = VecMonitor(SequenceVecEnv(args.envs, opponents=pool.opponent(), normalize=True, max_turns=300,
                                    seed=args.seed))
    if pool.snapshots:  # resume: your own run's newest snapshot
        model = MaskablePPO.load(pool.snapshots[-1], env=env, device="cpu")
    else:
        model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=min(256, args.envs * args.n_steps),
                            n_epochs=4, gamma=0.995, ent_coef=0.01, seed=args.seed, device="cpu")
    for _ in range(args.rounds):
        model.learn(total_timesteps=args.steps, reset_num_timesteps=False)
        results = [info["r"] for info in model.ep_info_buffer]
        path = pool.add(model)
        print(f"{model.num_timesteps} steps: mean result {sum(results) / max(len(results), 1):+.2f} over "
              f"{len(results)} games; added {path}; pool {len(pool.snapshots)} snapshots + random")
    env.close()
    return {"steps": model.num_timesteps, "snapshots": pool.snapshots}


if __name__ == "__main__":
    main()
