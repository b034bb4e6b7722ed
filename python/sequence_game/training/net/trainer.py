"""Training the policy-value network: ``sequence-game train`` (needs the ``[train]`` extra: torch).

A run lives in one directory and is resumable: every generation ends with a checkpoint
(``checkpoint-NNNN.pt``: network, optimiser, generation), its weights file (``gen-NNNN.sqnet``) and
one line of ``log.jsonl`` (losses, positions, seconds, strength against the fixed references);
only the last ``keep`` checkpoints stay (the pool reads the weights files, which all stay). Inside
a generation, its state after each pass over the data (``partial.pt``: network, optimiser, the
generator, the passes' losses so far) and the rows of its self-play (``partial-rows.npz``) are
saved, so a rerun of the same command continues after the last finished pass with the result an
uninterrupted run gives. A checkpoint is read
with ``torch.load(weights_only=True)``: tensors and plain data only, so a checkpoint that carries
code (a pickle that would run it) is refused and nothing of it runs; a damaged one (cut short,
empty, not a checkpoint) is one ``ValueError`` line naming it. The same command and
seed give the same network on the same machine (one torch thread; every random draw seeded from
the run's seed and the generation).

Generation 0 learns from a self-play dataset of the core's greedy player (``sequence-game
selfplay``, docs: :mod:`sequence_game.selfplay`): its moves as policy targets, the games' results
as value targets. Every later generation plays ``games`` two-player games in a ``VectorGame``
(batched, in the core), the current network on one seat and, per game, either itself or a
snapshot of an earlier generation (the pool) on the other, moves sampled at ``temperature``; it
then trains the value head on the results and the policy head with a clipped policy-gradient step
(PPO's surrogate, advantage = result - value), keeping a share of greedy imitation as a
regulariser. The network reads only the seat's observation tensor (R9).
"""

from __future__ import annotations

import glob
import json
import os
import re
import time
from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np
import torch

from ...arena.stats import wilson_interval
from ...netfile import write_weights
from ...observation import OBSERVATION_SIZE
from ...seeds import derive_seed
from ...vector import MAX_LEGAL_ACTIONS, VectorGame
from .model import PolicyValueNet

__all__ = ["SHIPPED", "TrainConfig", "init_weights", "load_checkpoint", "train"]

Progress = Callable[[str], None]


@dataclass
class TrainConfig:
    out: str
    generations: int = 20
    seed: int = 0
    bootstrap_games: int = 1000     # greedy self-play games for generation 0
    games: int = 128                # self-play games per later generation
    batch: int = 128                # games stepped together
    max_turns: int = 300            # the turn cap of training games (a capped game is a draw)
    temperature: float = 1.0
    pool_share: float = 0.5         # share of games against an earlier snapshot
    pool_size: int = 5
    imitation: float = 0.3          # weight of the greedy imitation loss after generation 0
    lr: float = 1e-3
    epochs: int = 2
    bootstrap_epochs: int = 3
    minibatch: int = 512
    eval_games: int = 100           # per reference, seats alternated (half each)
    hidden1: int = 256
    hidden2: int = 128
    init: Optional[str] = None      # a weights file to start from (fine-tuning; "net": the shipped one)
    keep: int = 2                   # finished generations' checkpoints kept (their weights files all are)


#: What a rerun may change: how far the run goes, where it lives, how many checkpoints it keeps.
_NOT_SETTINGS = ("generations", "out", "keep")


# ------------------------------------------------------------------ batched play with torch models

def _masked_logits(model: PolicyValueNet, obs: np.ndarray, acts: np.ndarray, counts: np.ndarray
                   ) -> torch.Tensor:
    """Logits of each row's legal actions (padding -inf), shape (N, widest row)."""
    acts = acts[:, :max(1, int(counts.max()))]
    o = torch.from_numpy(obs)
    h = model.trunk(o)
    idx = torch.from_numpy(np.maximum(acts, 0).astype(np.int64))
    w = model.policy.weight[idx]                      # (N, L, H2)
    b = model.policy.bias[idx]
    logits = torch.einsum("nlh,nh->nl", w, h) + b
    valid = torch.arange(acts.shape[1])[None, :] < torch.from_numpy(counts.astype(np.int64))[:, None]
    return logits.masked_fill(~valid, -1e9)


def _choose(model: PolicyValueNet, obs: np.ndarray, acts: np.ndarray, counts: np.ndarray,
            temperature: float, gen: torch.Generator) -> Tuple[np.ndarray, np.ndarray]:
    """(index into the legal list, log-probability) per row: sampled, or the argmax at 0."""
    with torch.no_grad():
        logits = _masked_logits(model, obs, acts, counts)
        if temperature <= 0:
            k = logits.argmax(dim=1)
        else:
            probs = torch.softmax(logits / temperature, dim=1)
            k = torch.multinomial(probs, 1, generator=gen)[:, 0]
        logp = torch.log_softmax(logits / max(temperature, 1e-6), dim=1).gather(1, k[:, None])[:, 0]
    return k.numpy(), logp.numpy()


def play_against(model: Any, reference: str, games: int, seed: int) -> Dict[str, Any]:
    """The raw network (argmax, one evaluation per move) against a built-in seat policy of
    ``VectorGame`` (``greedy``: the core's port of GreedyAgent; ``random``): ``games`` two-player
    games, half with the network on seat 0 and half on seat 1 of the same deals; the first episode
    of each game only. ``model``: a :class:`PolicyValueNet` or the core's ``_core.Net``."""
    half = max(1, games // 2)
    wins = draws = losses = 0
    gen = torch.Generator().manual_seed(0)
    for seat in (0, 1):
        vg = VectorGame(half, players=2, seed=seed, max_turns=1000, opponents={1 - seat: reference})
        done = np.zeros(half, dtype=bool)
        while not done.all():
            obs = vg.observations()
            acts, counts = vg.legal_actions()
            if isinstance(model, PolicyValueNet):
                k, _ = _choose(model, obs, acts, counts, 0.0, gen)
            else:  # the core's network, one row at a time
                k = np.array([int(np.argmax(model.evaluate(obs[i], acts[i, :counts[i]])[0])) for i in range(half)])
            rewards, term, trunc = vg.step(acts[np.arange(half), k].astype(np.int64))
            ended = (term | trunc) & ~done
            for i in np.flatnonzero(ended):
                r = rewards[i, seat]
                wins += int(r > 0)
                losses += int(r < 0)
                draws += int(r == 0)
            done |= ended
    n = wins + draws + losses
    score = (wins + 0.5 * draws) / n
    lo, hi = wilson_interval(wins + 0.5 * draws, n)
    return {"reference": reference, "games": n, "wins": wins, "draws": draws, "losses": losses,
            "score": score, "interval": [lo, hi]}


@dataclass
class Rows:
    obs: np.ndarray       # (N, 890) float16 (every entry is a small integer)
    acts: np.ndarray      # (N, L) int16 legal actions, -1 padded
    counts: np.ndarray    # (N,) int16
    choice: np.ndarray    # (N,) int16 index of the action played in acts
    value: np.ndarray     # (N, 3) float32 target win probability per relative team
    old_logp: np.ndarray  # (N,) float32 (nan for imitation rows)


def _value_target(outcome_abs: np.ndarray, team: int, teams: int) -> np.ndarray:
    """The win probability per relative team (R2: relative team k is absolute (team + k) mod T)
    from absolute results (+1 won, -1 lost, 0 draw for all)."""
    t = np.zeros(3, dtype=np.float32)
    if not (outcome_abs > 0).any():
        t[:teams] = 1.0 / teams
        return t
    for k in range(teams):
        t[k] = 1.0 if outcome_abs[(team + k) % teams] > 0 else 0.0
    return t


def selfplay_generation(model: PolicyValueNet, pool: List[PolicyValueNet], cfg: TrainConfig, seed: int,
                        progress: Progress) -> Tuple[Rows, Dict[str, Any]]:
    """Plays cfg.games two-player games (batched) and returns the current network's rows."""
    rng = np.random.default_rng(seed)
    gen = torch.Generator().manual_seed(seed & 0x7FFFFFFFFFFFFFFF)
    b = min(cfg.batch, cfg.games)
    vg = VectorGame(b, players=2, seed=seed, max_turns=cfg.max_turns)
    # Per game slot: the learner's seat and the opponent (-1: the learner itself, k: pool[k]).
    learner_seat = np.arange(b) % 2
    opponent = np.full(b, -1)
    pending: List[List[Tuple[np.ndarray, np.ndarray, int, int, float, int]]] = [[] for _ in range(b)]

    def assign(i: int) -> None:
        learner_seat[i] = rng.integers(2)
        opponent[i] = int(rng.integers(len(pool))) if pool and rng.random() < cfg.pool_share else -1

    for i in range(b):
        assign(i)
    out: List[Tuple[np.ndarray, np.ndarray, int, int, float, np.ndarray]] = []
    finished = 0
    results = {"learner_wins": 0, "learner_losses": 0, "draws": 0}
    started = time.time()
    while finished < cfg.games:
        cur = vg.current_players()
        obs = vg.observations()
        acts, counts = vg.legal_actions()
        by_learner = (opponent < 0) | (cur == learner_seat)
        choice = np.zeros(b, dtype=np.int64)
        logp = np.zeros(b, dtype=np.float32)
        groups = [(model, np.flatnonzero(by_learner))]
        for k, net in enumerate(pool):
            groups.append((net, np.flatnonzero(~by_learner & (opponent == k))))
        for net, idx in groups:
            if len(idx):
                chosen, chosen_logp = _choose(net, obs[idx], acts[idx], counts[idx], cfg.temperature, gen)
                choice[idx] = chosen
                logp[idx] = chosen_logp
        for i in np.flatnonzero(by_learner).tolist():
            pending[i].append((obs[i].astype(np.float16), acts[i].copy(), int(counts[i]), int(choice[i]),
                               float(logp[i]), int(cur[i])))
        rewards, term, trunc = vg.step(acts[np.arange(b), choice].astype(np.int64))
        for i in np.flatnonzero(term | trunc).tolist():
            if finished < cfg.games:
                finished += 1
                r = rewards[i]
                for row_obs, row_acts, row_n, row_c, row_lp, seat in pending[i]:
                    out.append((row_obs, row_acts, row_n, row_c, row_lp, _value_target(r, seat % 2, 2)))
                if opponent[i] >= 0:
                    lr = r[learner_seat[i] % 2]
                    results["learner_wins"] += int(lr > 0)
                    results["learner_losses"] += int(lr < 0)
                results["draws"] += int(not (r > 0).any())
                if finished % 64 == 0:
                    progress(f"  self-play {finished}/{cfg.games} games, {len(out):,} positions, "
                             f"{time.time() - started:.0f} s")
            pending[i] = []
            assign(i)
    played = Rows(obs=np.stack([o[0] for o in out]), acts=np.stack([o[1] for o in out]),
                  counts=np.array([o[2] for o in out], dtype=np.int16),
                  choice=np.array([o[3] for o in out], dtype=np.int16),
                  value=np.stack([o[5] for o in out]), old_logp=np.array([o[4] for o in out], dtype=np.float32))
    return played, results


def bootstrap_rows(cfg: TrainConfig, progress: Progress) -> Rows:
    """Generation 0's data: the greedy self-play dataset (``sequence-game selfplay``) under
    ``out/bootstrap`` (made, or resumed, here), as imitation rows."""
    from ...selfplay import load_dataset, selfplay

    path = os.path.join(cfg.out, "bootstrap")
    resume = os.path.exists(os.path.join(path, "shards.jsonl"))
    progress(f"greedy self-play dataset: {cfg.bootstrap_games} games into {path}")
    selfplay(["greedy"], games=cfg.bootstrap_games, out=path, players=2, seed=derive_seed(cfg.seed, 1_000_000),
             resume=resume, workers=1)
    data = load_dataset(path, fields=["observation", "legal_mask", "action", "team", "outcome"])
    n = len(data["action"])
    acts = np.full((n, MAX_LEGAL_ACTIONS), -1, dtype=np.int16)
    counts = np.zeros(n, dtype=np.int16)
    choice = np.zeros(n, dtype=np.int16)
    for i in range(n):
        legal = np.flatnonzero(data["legal_mask"][i])
        acts[i, :len(legal)] = legal
        counts[i] = len(legal)
        choice[i] = int(np.searchsorted(legal, int(data["action"][i])))
    value = np.stack([_value_target(data["outcome"][i], int(data["team"][i]), 2) for i in range(n)])
    return Rows(obs=data["observation"].astype(np.float16), acts=acts, counts=counts, choice=choice,
                value=value, old_logp=np.full(n, np.nan, dtype=np.float32))


def _losses(model: PolicyValueNet, r: Rows, idx: np.ndarray, imitation_weight: float) -> Tuple[torch.Tensor, Dict[str, float]]:
    obs = torch.from_numpy(r.obs[idx].astype(np.float32))
    counts = r.counts[idx]
    acts = r.acts[idx][:, :max(1, int(counts.max()))]  # the padding past the widest row costs only time
    h = model.trunk(obs)
    aidx = torch.from_numpy(np.maximum(acts, 0).astype(np.int64))
    logits = torch.einsum("nlh,nh->nl", model.policy.weight[aidx], h) + model.policy.bias[aidx]
    valid = torch.arange(acts.shape[1])[None, :] < torch.from_numpy(counts.astype(np.int64))[:, None]
    logp_all = torch.log_softmax(logits.masked_fill(~valid, -1e9), dim=1)
    choice = torch.from_numpy(r.choice[idx].astype(np.int64))
    logp = logp_all.gather(1, choice[:, None])[:, 0]
    from .model import masked_value_logits

    vlog = masked_value_logits(model.value(h), obs)
    vlogp = torch.log_softmax(vlog, dim=1)
    vt = torch.from_numpy(r.value[idx])
    value_loss = -(vt * torch.nan_to_num(vlogp, neginf=0.0)).sum(dim=1).mean()
    old = torch.from_numpy(r.old_logp[idx])
    imit = torch.isnan(old)
    loss = value_loss
    stats = {"value": float(value_loss.detach())}
    if imit.any():
        il = -logp[imit].mean()
        loss = loss + imitation_weight * il
        stats["imitation"] = float(il.detach())
    if (~imit).any():
        sel = ~imit
        v_own = torch.softmax(vlog[sel], dim=1)[:, 0].detach()
        adv = vt[sel][:, 0] - v_own
        ratio = torch.exp(logp[sel] - old[sel])
        pg = -torch.minimum(ratio * adv, torch.clamp(ratio, 0.8, 1.2) * adv).mean()
        p = torch.exp(logp_all[sel])
        entropy = -(p * logp_all[sel]).masked_fill(~valid[sel], 0.0).sum(dim=1).mean()
        loss = loss + pg - 0.01 * entropy
        stats["pg"] = float(pg.detach())
        stats["entropy"] = float(entropy.detach())
    return loss, stats


def _concat(parts: List[Rows]) -> Rows:
    return Rows(*[np.concatenate([getattr(p, f) for p in parts]) for f in
                  ("obs", "acts", "counts", "choice", "value", "old_logp")])


def _subset(r: Rows, idx: np.ndarray) -> Rows:
    return Rows(*[getattr(r, f)[idx] for f in ("obs", "acts", "counts", "choice", "value", "old_logp")])


Saved = Callable[[int, Dict[str, float], int], None]


def fit(model: PolicyValueNet, opt: torch.optim.Optimizer, rows: Rows, cfg: TrainConfig, epochs: int,
        imitation_weight: float, rng: np.random.Generator, progress: Progress, done: int = 0,
        sums: Optional[Dict[str, float]] = None, count: int = 0, on_pass: Optional[Saved] = None
        ) -> Dict[str, float]:
    """``epochs`` passes over ``rows`` (minibatches in an order drawn from ``rng``); the mean of
    each loss term over every minibatch. ``done`` passes, with their loss ``sums`` over ``count``
    minibatches, were made before (a resumed generation); ``on_pass(passes, sums, count)`` runs
    after each pass, before its progress line."""
    n = len(rows.choice)
    sums = dict(sums or {})
    for epoch in range(done, epochs):
        order = rng.permutation(n)
        for start in range(0, n, cfg.minibatch):
            idx = order[start:start + cfg.minibatch]
            loss, stats = _losses(model, rows, idx, imitation_weight)
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            for k, v in stats.items():
                sums[k] = sums.get(k, 0.0) + v
            count += 1
        if on_pass is not None:
            on_pass(epoch + 1, sums, count)
        progress(f"  epoch {epoch + 1}/{epochs}: " + ", ".join(f"{k} {v / count:.3f}" for k, v in sums.items()))
    return {k: v / max(count, 1) for k, v in sums.items()}


# ------------------------------------------------------------------ the run

def _checkpoints(out: str) -> List[str]:
    return sorted(glob.glob(os.path.join(out, "checkpoint-*.pt")))


#: ``--init`` of the network the package ships (the agent spec ``net`` plays it).
SHIPPED = "net"


def init_weights(init: str) -> str:
    """The weights file ``init`` names: :data:`SHIPPED` (``"net"``) is the shipped network, any
    other text a path (a file named ``net`` in the current folder is ``./net``)."""
    if init == SHIPPED:
        from ...agents.net import DEFAULT_WEIGHTS

        return DEFAULT_WEIGHTS
    return init


def _read_init(init: str) -> Dict[str, np.ndarray]:
    """The arrays of ``init``'s weights file; ``ValueError`` in one line for a missing, unreadable
    or damaged one."""
    from ...netfile import read_weights

    path = init_weights(init)
    if os.path.isdir(path):
        raise ValueError(f"init {init}: that is a folder; give a .sqnet weights file, or {SHIPPED} for the "
                         "shipped network")
    try:
        return read_weights(path)
    except FileNotFoundError:
        raise ValueError(f"init {init}: no such weights file (give a .sqnet file, or {SHIPPED} for the shipped "
                         "network)") from None
    except OSError as e:
        raise ValueError(f"init {init}: {e.strerror or e}") from None


def _read_config(path: str) -> Dict[str, Any]:
    """A run's saved settings (``config.json``), checked: a JSON object of known settings."""
    try:
        with open(path, "rb") as f:
            raw = f.read(1 << 20)
        saved = json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise ValueError(f"{path}: not a run's settings (not JSON: {str(e).splitlines()[0] if str(e) else e!r}); "
                         "restore it or start the run in another directory") from None
    if not isinstance(saved, dict):
        raise ValueError(f"{path}: not a run's settings (a JSON object, not {type(saved).__name__}); "
                         "restore it or start the run in another directory")
    unknown = sorted(str(k) for k in saved if k not in TrainConfig.__dataclass_fields__)
    if unknown:
        raise ValueError(f"{path}: unknown settings {', '.join(unknown)[:200]} (a run of another version?)")
    return saved


def load_checkpoint(path: str) -> Dict[str, Any]:
    """A checkpoint's contents, read as tensors and plain data only (``weights_only=True``):
    nothing in the file runs. ``ValueError`` in one line for a file that holds anything else (code:
    refused) or is damaged."""
    import pickle

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as e:  # torch's allow-list of tensors and plain data said no
        called = re.search(r"Unsupported global: GLOBAL (\S+)", str(e))
        what = f"it would call {called.group(1)} when read" if called else "not tensors and plain data alone"
        raise ValueError(f"{path}: refused: {what} (a checkpoint holds only tensors and plain data); nothing "
                         "of it was run. Delete it to resume from the one before") from None
    except (RuntimeError, EOFError, KeyError, ValueError, TypeError, AttributeError, IndexError, OSError,
            UnicodeDecodeError, MemoryError) as e:  # cut short, empty, text, another format
        why = str(e).strip().splitlines()[0][:120] if str(e).strip() else type(e).__name__
        raise ValueError(f"{path}: not a readable checkpoint ({why}); delete it to resume from the one "
                         "before") from None
    if not (isinstance(state, dict) and isinstance(state.get("model"), dict)
            and isinstance(state.get("optimizer"), dict) and type(state.get("generation")) is int
            and state["generation"] >= 0):
        raise ValueError(f"{path}: not a checkpoint of this trainer (a model, an optimizer and a generation)")
    return state


#: A generation in progress: the network, the optimiser and the generator after its last finished
#: pass (``PARTIAL``), and the rows its self-play made (``PARTIAL_ROWS``); removed when the
#: generation ends.
PARTIAL, PARTIAL_ROWS = "partial.pt", "partial-rows.npz"
_ROW_FIELDS = ("obs", "acts", "counts", "choice", "value", "old_logp")


def _save_rows(path: str, rows: Rows) -> None:
    tmp = path + ".tmp.npz"
    np.savez(tmp, **{f: getattr(rows, f) for f in _ROW_FIELDS})
    os.replace(tmp, path)


def _load_rows(path: str) -> Rows:
    """A generation's self-play rows, numbers only (``allow_pickle=False``), shapes checked."""
    import zipfile

    try:
        with np.load(path, allow_pickle=False) as z:
            parts = [z[f] for f in _ROW_FIELDS]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as e:
        why = str(e).strip().splitlines()[0][:120] if str(e).strip() else type(e).__name__
        raise ValueError(f"{path}: not a readable set of self-play rows ({why}); delete it and {PARTIAL} to play "
                         "the generation again") from None
    n = len(parts[0])
    if any(len(p) != n for p in parts) or parts[0].shape[1:] != (OBSERVATION_SIZE,) \
            or parts[1].shape[1:] != (MAX_LEGAL_ACTIONS,) or parts[4].shape[1:] != (3,):
        raise ValueError(f"{path}: its arrays disagree in shape; delete it and {PARTIAL} to play the generation "
                         "again")
    return Rows(*parts)


def _restore(path: str, model: torch.nn.Module, opt: Optional[torch.optim.Optimizer] = None) -> Dict[str, Any]:
    """Loads a checkpoint into ``model`` (and ``opt``); ``ValueError`` if it does not fit them."""
    state = load_checkpoint(path)
    try:
        model.load_state_dict(state["model"])
        if opt is not None:
            opt.load_state_dict(state["optimizer"])
    except (RuntimeError, ValueError, KeyError, TypeError, IndexError) as e:
        why = str(e).strip().splitlines()[0][:160] if str(e).strip() else type(e).__name__
        raise ValueError(f"{path}: does not fit this run's network ({why})") from None
    return state


def _save(path: str, payload: Dict[str, Any]) -> None:
    tmp = path + ".tmp"
    torch.save(payload, tmp)
    os.replace(tmp, path)


def _resume_partial(path: str, generation: int, model: PolicyValueNet, opt: torch.optim.Optimizer,
                    rng: np.random.Generator) -> Optional[Dict[str, Any]]:
    """The state of ``generation`` in progress, loaded into the model, the optimiser and the
    generator, or None (none saved, or one of a finished generation: removed)."""
    if not os.path.exists(path):
        return None
    state = load_checkpoint(path)
    if state["generation"] != generation:  # the generation it belongs to has finished since
        os.remove(path)
        return None
    try:
        passes, sums, count = state["passes"], state["sums"], state["count"]
        rng_state = json.loads(state["rng"])
        ok = (type(passes) is int and passes >= 0 and type(count) is int and count >= 0 and isinstance(sums, dict)
              and all(isinstance(v, float) for v in sums.values())
              and isinstance(state["seconds"], float) and isinstance(state["cpu_seconds"], float)
              and (generation == 0 or (type(state["positions"]) is int and isinstance(state["selfplay"], dict))))
    except (KeyError, TypeError, ValueError):
        ok = False
    if not ok:
        raise ValueError(f"{path}: not a generation in progress of this trainer; delete it to play generation "
                         f"{generation} from its start")
    _restore(path, model, opt)
    try:
        rng.bit_generator.state = rng_state
    except (TypeError, ValueError, KeyError) as e:
        raise ValueError(f"{path}: its generator state does not load ({e}); delete it to play generation "
                         f"{generation} from its start") from None
    return state


def _pool(cfg: TrainConfig, generation: int, model: PolicyValueNet) -> List[PolicyValueNet]:
    """The networks of the last ``pool_size`` generations, from their weights files (which are
    kept; the checkpoints are pruned)."""
    from ...netfile import read_weights

    pool = []
    for k in range(max(0, generation - cfg.pool_size), generation):
        path = os.path.join(cfg.out, f"gen-{k:04d}.sqnet")
        try:
            net = PolicyValueNet.from_arrays(read_weights(path))
        except OSError as e:
            raise ValueError(f"{path}: {e.strerror or e} (the pool of generation {generation} plays the last "
                             f"{cfg.pool_size} generations' weights files)") from None
        if (net.hidden1, net.hidden2) != (model.hidden1, model.hidden2):
            raise ValueError(f"{path}: a network of {net.hidden1}x{net.hidden2} hidden units, not this run's "
                             f"{model.hidden1}x{model.hidden2}")
        net.eval()
        pool.append(net)
    return pool


def train(cfg: TrainConfig, progress: Optional[Progress] = None) -> str:
    """Runs (or continues) the training run in ``cfg.out``; returns the last weights file."""
    say: Progress = progress or (lambda text: print(text, flush=True))
    # Every input is checked before anything is written: a run that cannot start leaves no settings
    # behind that the corrected command would then be refused for.
    if os.path.exists(cfg.out) and not os.path.isdir(cfg.out):
        raise ValueError(f"{cfg.out} is a file, not a run's directory")
    init_arrays = _read_init(cfg.init) if cfg.init is not None else None
    config_path = os.path.join(cfg.out, "config.json")
    if type(cfg.keep) is not int or cfg.keep < 1:
        raise ValueError(f"keep must be a whole number of checkpoints, at least 1, not {cfg.keep!r}")
    mine = {k: v for k, v in asdict(cfg).items() if k not in _NOT_SETTINGS}
    if os.path.exists(config_path):
        saved = _read_config(config_path)
        # A setting the run's config.json lacks (added to the trainer since) keeps its default.
        defaults = asdict(TrainConfig(out=cfg.out))
        fixed = {k: v for k, v in {**defaults, **saved}.items() if k not in _NOT_SETTINGS}
        if fixed != mine:
            diff = sorted(k for k in mine if fixed.get(k) != mine[k])
            raise ValueError(f"{cfg.out} holds a run with other settings ({', '.join(diff)}); "
                             "use the same settings to continue it, or another directory")
    torch.set_num_threads(1)
    torch.manual_seed(cfg.seed)
    model = PolicyValueNet(cfg.hidden1, cfg.hidden2)
    if init_arrays is not None:
        model = PolicyValueNet.from_arrays(init_arrays)
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    start = 0
    done = _checkpoints(cfg.out)
    if done:
        state = _restore(done[-1], model, opt)
        start = state["generation"] + 1
        say(f"resuming {cfg.out} after generation {state['generation']}")
    if not os.path.exists(config_path):
        os.makedirs(cfg.out, exist_ok=True)
        with open(config_path + ".tmp", "w") as f:
            json.dump(asdict(cfg), f, indent=1)
        os.replace(config_path + ".tmp", config_path)
    imitation: Optional[Rows] = None
    for g in range(start, cfg.generations):
        if imitation is None:
            imitation = bootstrap_rows(cfg, say)
        _generation(cfg, g, model, opt, imitation, say)
    last = sorted(glob.glob(os.path.join(cfg.out, "gen-*.sqnet")))
    return last[-1] if last else ""


def _generation(cfg: TrainConfig, g: int, model: PolicyValueNet, opt: torch.optim.Optimizer, imitation: Rows,
                say: Progress) -> None:
    """Plays and learns generation ``g`` (continuing it where a saved state of it ended), then
    evaluates it, writes its weights file, checkpoint and log line, and prunes the checkpoints."""
    partial_path, rows_path = os.path.join(cfg.out, PARTIAL), os.path.join(cfg.out, PARTIAL_ROWS)
    t0 = time.time()
    cpu0 = time.process_time()
    rng = np.random.default_rng(derive_seed(cfg.seed, g))
    torch.manual_seed(derive_seed(cfg.seed, g) & 0x7FFFFFFFFFFFFFFF)
    partial = _resume_partial(partial_path, g, model, opt, rng)
    entry: Dict[str, Any] = {"generation": g}
    before = (partial["seconds"], partial["cpu_seconds"]) if partial else (0.0, 0.0)

    def save_pass(passes: int, sums: Dict[str, float], count: int, extra: Dict[str, Any]) -> None:
        _save(partial_path, {"model": model.state_dict(), "optimizer": opt.state_dict(), "generation": g,
                             "passes": passes, "sums": dict(sums), "count": count,
                             "rng": json.dumps(rng.bit_generator.state), **extra,
                             "seconds": before[0] + time.time() - t0,
                             "cpu_seconds": before[1] + time.process_time() - cpu0})

    done, sums, count = (partial["passes"], partial["sums"], partial["count"]) if partial else (0, {}, 0)
    if g == 0 and cfg.init is not None:
        say(f"generation 0: the network of {cfg.init}")
        entry["positions"] = 0
        entry["loss"] = {}
    elif g == 0:
        say(f"generation 0: imitating greedy on {len(imitation.choice):,} positions"
            + (f", from pass {done + 1}" if partial else ""))
        entry["positions"] = len(imitation.choice)
        entry["loss"] = fit(model, opt, imitation, cfg, cfg.bootstrap_epochs, 1.0, rng, say, done, sums, count,
                            lambda p, sm, c: save_pass(p, sm, c, {}))
    else:
        if partial is not None:
            data = _load_rows(rows_path)
            positions, results = partial["positions"], partial["selfplay"]
            say(f"generation {g}: resumed after self-play, from pass {done + 1}")
        else:
            pool = _pool(cfg, g, model)
            say(f"generation {g}: self-play, {cfg.games} games, pool of {len(pool)}")
            rows, results = selfplay_generation(model, pool, cfg, derive_seed(cfg.seed, 10_000 + g), say)
            keep = rng.choice(len(imitation.choice), size=min(len(imitation.choice), len(rows.choice) // 2),
                              replace=False)
            data = _concat([rows, _subset(imitation, keep)])
            positions = len(rows.choice)
            _save_rows(rows_path, data)
            save_pass(0, {}, 0, {"positions": positions, "selfplay": results})
            say(f"generation {g}: {positions:,} positions from self-play")
        entry["positions"] = positions
        entry["selfplay"] = results
        entry["loss"] = fit(model, opt, data, cfg, cfg.epochs, cfg.imitation, rng, say, done, sums, count,
                            lambda p, sm, c: save_pass(p, sm, c, {"positions": positions, "selfplay": results}))
    train_seconds = before[0] + time.time() - t0
    eval_start = time.time()
    model.eval()
    entry["strength"] = [play_against(model, ref, cfg.eval_games if ref == "greedy" else cfg.eval_games // 2,
                                      derive_seed(cfg.seed, 777))
                         for ref in ("greedy", "random")]
    model.train()
    entry["seconds"] = round(train_seconds, 1)
    entry["eval_seconds"] = round(time.time() - eval_start, 1)
    # this process, all of the generation (before a resume too)
    entry["cpu_seconds"] = round(before[1] + time.process_time() - cpu0, 1)
    weights = os.path.join(cfg.out, f"gen-{g:04d}.sqnet")
    write_weights(weights, model.export_arrays())
    _save(os.path.join(cfg.out, f"checkpoint-{g:04d}.pt"),
          {"model": model.state_dict(), "optimizer": opt.state_dict(), "generation": g})
    with open(os.path.join(cfg.out, "log.jsonl"), "a") as f:
        f.write(json.dumps(entry) + "\n")
    for path in [partial_path, rows_path, *_checkpoints(cfg.out)[:-cfg.keep]]:
        if os.path.exists(path):
            os.remove(path)
    s = entry["strength"]
    say(f"generation {g} done in {entry['seconds'] + entry['eval_seconds']:.0f} s: " + "; ".join(
        f"vs {x['reference']} {x['score']:.1%} [{x['interval'][0]:.1%}, {x['interval'][1]:.1%}] "
        f"({x['wins']}-{x['draws']}-{x['losses']} of {x['games']})" for x in s))

