"""PPO with action masks on VectorGame, in one file (CleanRL style; PyTorch, the [train] extra).

Seat 0 learns against opponents the core plays (every other seat "greedy" or "random"); the
observations are normalised (docs/observation.md), illegal actions get a logit of -1e9. The actor
is saved as a numpy policy (``--save policy.npz``) that plays with no framework, e.g.

    python examples/cleanrl_ppo.py --total-steps 2000000 --opponent greedy --save ppo.npz
    sequence-game arena policy:ppo.npz greedy --games 200
"""

from __future__ import annotations

import argparse
import time
from collections import deque

import numpy as np
import torch
from sequence_game import VectorGame
from sequence_game.actions import ACTION_COUNT
from sequence_game.observation import OBSERVATION_SCALE, OBSERVATION_SIZE
from torch import nn


def layer(inputs: int, outputs: int, std: float = np.sqrt(2)) -> nn.Linear:
    lin = nn.Linear(inputs, outputs)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.critic = nn.Sequential(layer(OBSERVATION_SIZE, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                    layer(hidden, 1, std=1.0))
        self.actor = nn.Sequential(layer(OBSERVATION_SIZE, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                   layer(hidden, ACTION_COUNT, std=0.01))

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        return self.critic(obs).squeeze(-1)

    def act(self, obs, mask, action=None):
        logits = self.actor(obs).masked_fill(~mask, -1e9)  # only legal actions (docs/action-space.md)
        dist = torch.distributions.Categorical(logits=logits, validate_args=False)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)

    def save_numpy(self, path: str) -> None:
        """The actor as a numpy policy (sequence_game.agents.policy: w{i} (inputs, outputs), tanh)."""
        linears = [m for m in self.actor if isinstance(m, nn.Linear)]
        arrays = {}
        for i, lin in enumerate(linears):
            arrays[f"w{i}"] = lin.weight.detach().numpy().T.copy()
            arrays[f"b{i}"] = lin.bias.detach().numpy().copy()
        np.savez(path, normalize=np.array(1), **arrays)

    def load_numpy(self, path: str) -> None:
        """Start the actor from a numpy policy this script saved (the critic starts afresh)."""
        linears = [m for m in self.actor if isinstance(m, nn.Linear)]
        with np.load(path) as data:
            for i, lin in enumerate(linears):
                lin.weight.data = torch.from_numpy(data[f"w{i}"].T.copy())
                lin.bias.data = torch.from_numpy(data[f"b{i}"].copy())


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--total-steps", type=int, default=1_000_000, help="learner steps (all games together)")
    p.add_argument("--num-envs", type=int, default=128)
    p.add_argument("--num-steps", type=int, default=64, help="steps per game per rollout")
    p.add_argument("--players", type=int, default=2)
    p.add_argument("--opponent", choices=["greedy", "random"], default="greedy")
    p.add_argument("--max-turns", type=int, default=300)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--lr", type=float, default=2.5e-4)
    p.add_argument("--gamma", type=float, default=0.995)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--minibatches", type=int, default=32, help="per rollout: more give more updates per step")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--threads", type=int, default=1, help="core threads stepping the games")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--torch-threads", type=int, default=1,
                   help="PyTorch threads: for these small networks more threads wait more than they work, "
                        "and on a busy machine many times more")
    p.add_argument("--save", default=None, help="write the actor as a numpy policy (.npz)")
    p.add_argument("--init", default=None, help="start the actor from a numpy policy saved by --save (same --hidden)")
    args = p.parse_args(argv)
    torch.set_num_threads(args.torch_threads)

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    n, t = args.num_envs, args.num_steps
    games = VectorGame(n, players=args.players, seed=args.seed, max_turns=args.max_turns, threads=args.threads,
                       opponents=dict.fromkeys(range(1, args.players), args.opponent))
    agent = Agent(args.hidden)
    if args.init:
        agent.load_numpy(args.init)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    inverse_scale = (1.0 / OBSERVATION_SCALE).astype(np.float32)
    seat0 = np.zeros(n, dtype=np.int32)

    obs_buf = torch.zeros((t, n, OBSERVATION_SIZE))
    mask_buf = torch.zeros((t, n, ACTION_COUNT), dtype=torch.bool)
    act_buf = torch.zeros((t, n), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((t, n)) for _ in range(4))
    obs_np = np.empty((n, OBSERVATION_SIZE), dtype=np.float32)
    mask_np = np.empty((n, ACTION_COUNT), dtype=bool)

    def observe():
        games.observations(out=obs_np, players=seat0)
        np.multiply(obs_np, inverse_scale, out=obs_np)
        games.legal_masks(out=mask_np)
        return torch.from_numpy(obs_np.copy()), torch.from_numpy(mask_np.copy())

    obs, mask = observe()
    done = torch.zeros(n)
    returns = deque(maxlen=500)
    steps, start, updates = 0, time.perf_counter(), max(1, args.total_steps // (n * t))
    for update in range(updates):
        for k in range(t):
            obs_buf[k], mask_buf[k], done_buf[k] = obs, mask, done
            with torch.no_grad():
                action, logp, _, value = agent.act(obs, mask)
            act_buf[k], logp_buf[k], val_buf[k] = action, logp, value
            team_rewards, terminated, truncated = games.step(action.numpy())
            reward = team_rewards[:, 0]  # seat 0 plays for team 0 (R2); +1 / -1 / 0 at the end (R8)
            ended = terminated | truncated
            returns.extend(reward[ended].tolist())
            rew_buf[k] = torch.from_numpy(reward.copy())
            done = torch.from_numpy(ended.astype(np.float32))
            obs, mask = observe()  # the next episode's first position where a game ended
            steps += n
        with torch.no_grad():  # generalised advantage estimation
            next_value = agent.value(obs)
            adv = torch.zeros((t, n))
            last = torch.zeros(n)
            for k in reversed(range(t)):
                nonterminal = 1.0 - (done if k == t - 1 else done_buf[k + 1])
                following = next_value if k == t - 1 else val_buf[k + 1]
                delta = rew_buf[k] + args.gamma * following * nonterminal - val_buf[k]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                adv[k] = last
            ret = adv + val_buf
        b_obs, b_mask = obs_buf.reshape(-1, OBSERVATION_SIZE), mask_buf.reshape(-1, ACTION_COUNT)
        b_act, b_logp, b_adv, b_ret = act_buf.reshape(-1), logp_buf.reshape(-1), adv.reshape(-1), ret.reshape(-1)
        batch = n * t
        size = batch // args.minibatches
        for _ in range(args.epochs):
            order = rng.permutation(batch)
            for s in range(0, batch, size):
                idx = torch.from_numpy(order[s:s + size])
                _, logp, entropy, value = agent.act(b_obs[idx], b_mask[idx], b_act[idx])
                ratio = (logp - b_logp[idx]).exp()
                a = b_adv[idx]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * ((value - b_ret[idx]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        rate = steps / (time.perf_counter() - start)
        mean = float(np.mean(returns)) if returns else float("nan")
        if update % 10 == 0 or update == updates - 1:
            print(f"update {update + 1}/{updates}: {steps} steps, {rate:,.0f} steps/s, "
                  f"mean result of the last {len(returns)} games {mean:+.2f}", flush=True)
            if args.save:  # a checkpoint as the run goes: an interrupted run still leaves a policy
                agent.save_numpy(args.save)
    if args.save:
        print(f"saved the actor to {args.save}: play it with policy:{args.save}")
    return {"steps": steps, "steps_per_second": rate, "mean_result": mean, "games": len(returns)}


if __name__ == "__main__":
    main()
