"""sb3-contrib's MaskablePPO on Sequence: the per-game Gymnasium env or the batched core (the [train] extra).

    python examples/sb3_maskable_ppo.py --env batched --steps 500000 --opponent greedy --save ppo.zip
    python examples/sb3_maskable_ppo.py --env gymnasium --envs 8 --steps 100000 --save ppo.zip
    sequence-game arena policy:ppo.zip greedy --games 200

``--env gymnasium``: ``make_vec_env`` over ``sequence_game/Sequence-v0`` (one game per env, the
opponents played by the core); ``--env batched``: ``sequence_game.envs.sb3.SequenceVecEnv``, every
game in one core call. Both give MaskablePPO the legal-action masks through ``action_masks``, and
both learn from normalised observations (docs/observation.md). The saved model plays as the agent
spec ``policy:ppo.zip`` (arena, selfplay, the terminal).
"""

from __future__ import annotations

import argparse
import time

import torch
from sb3_contrib import MaskablePPO
from sequence_game.arena import match
from sequence_game.envs.gymnasium import ENV_ID
from sequence_game.envs.sb3 import SequenceVecEnv
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import VecMonitor


def make_env(kind: str, envs: int, opponent: str, seed: int):
    if kind == "gymnasium":
        # The string id works with SubprocVecEnv too when written as sequence_game.envs.gymnasium.SPAWN_ID.
        return make_vec_env(ENV_ID, n_envs=envs, seed=seed,
                            env_kwargs={"opponents": opponent, "normalize": True, "max_turns": 300})
    return VecMonitor(SequenceVecEnv(envs, opponents=opponent, seed=seed, normalize=True, max_turns=300))


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", choices=["gymnasium", "batched"], default="batched")
    p.add_argument("--envs", type=int, default=64, help="games stepped together")
    p.add_argument("--steps", type=int, default=200_000, help="learner steps (all games together)")
    p.add_argument("--n-steps", type=int, default=64, help="steps per game per rollout")
    p.add_argument("--batch-size", type=int, default=256, help="minibatch: smaller gives more updates per step")
    p.add_argument("--opponent", choices=["greedy", "random"], default="greedy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--torch-threads", type=int, default=1,
                   help="PyTorch threads: for these small networks more threads wait more than they work, "
                        "and on a busy machine many times more")
    p.add_argument("--save", default=None, help="write the model (.zip)")
    p.add_argument("--eval-games", type=int, default=0, help="arena games against random and greedy after training")
    args = p.parse_args(argv)
    torch.set_num_threads(args.torch_threads)

    env = make_env(args.env, args.envs, args.opponent, args.seed)
    model = MaskablePPO("MlpPolicy", env, n_steps=args.n_steps, batch_size=min(args.batch_size, args.envs * args.n_steps),
                        n_epochs=4, gamma=0.995, ent_coef=0.01, seed=args.seed, device="cpu", verbose=0)
    start = time.perf_counter()
    model.learn(total_timesteps=args.steps)
    seconds = time.perf_counter() - start
    results = [info["r"] for info in model.ep_info_buffer]
    mean = sum(results) / len(results) if results else float("nan")
    print(f"{args.env}: {model.num_timesteps} steps in {seconds:.1f} s ({model.num_timesteps / seconds:,.0f} steps/s), "
          f"mean result of the last {len(results)} games {mean:+.2f}")
    out = {"steps": model.num_timesteps, "steps_per_second": model.num_timesteps / seconds, "mean_result": mean}
    if args.save:
        model.save(args.save)
        print(f"saved {args.save}: play it with policy:{args.save}")
        for opponent in ("random", "greedy") if args.eval_games else ():
            result = match([f"policy:{args.save}", opponent], games=args.eval_games, seed=1, max_turns=300)
            print(f"policy:{args.save} vs {opponent}: {result.wins[0]} wins, {result.wins[1]} losses, "
                  f"{result.draws} draws in {result.games} games")
            out[opponent] = result
    env.close()
    return out


if __name__ == "__main__":
    main()
