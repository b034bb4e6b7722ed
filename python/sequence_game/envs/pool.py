"""``PolicyPool``: the last snapshots of a training run kept on disk, and a batched opponent that
plays a mixture of them (self-play leagues); numpy only, a Stable-Baselines3 snapshot needs the
``[train]`` extra.

A pool is a directory of saved policies (``load_policy``: ``.npz``, ``.zip``, ``.onnx``) named
``snapshot-000001.npz``, ``snapshot-000002.zip``, ... in the order they were added. ``add()`` writes
the next one (a copy of a saved file, or a live Stable-Baselines3 model's ``save``) under a
temporary name and then renames it, so a kill leaves the whole file or none; only the last ``keep``
snapshots stay. ``PolicyPool(directory)`` on an existing directory finds its snapshots: a run that
was killed resumes with its pool, and its numbering goes on.

Members: the snapshots, then the ``fixed`` opponents, never pruned: ``"random"`` (a uniformly
random legal action, a function of the seed and the observation), a saved policy ``"policy:PATH"`` or a batched callable ``f(observations,
masks) -> actions`` (given raw observations). ``"greedy"`` and ``"net"`` read the game itself inside
the core, a seat at a time, so they are not pool members: give them a seat of their own.

Weights (``weights()``): the fixed members share ``fixed_share`` of the draws equally (all of
them while there is no snapshot), the snapshots the rest: ``"uniform"`` alike, ``"recent"`` the
``i``-th oldest of ``n`` (``i = 1..n``) in proportion to ``i``, so the newest weighs ``n`` times
the oldest.

``opponent()`` is the opponent of ``VectorGame`` and the batched environments
(``opponents=pool.opponent()``). It draws one member per episode of each game, not per reset: the
batched environments re-deal a finished game in the same step and Stable-Baselines3 resets them
once per ``learn()``, so a draw per reset would keep one opponent for a whole run, and a draw per
move would mix opponents within a game whose result then belongs to none of them. The draw is a
function of the pool's ``seed`` and the game's deal seed (``VectorGame.seeds()``): the same seeds
give the same opponents whatever the threads; a game keeps its member to its end even if the pool
changes meanwhile (a pruned snapshot finishes the games it began). Each member is called once a
sub-step with all of its games' rows: no Python loop over the rows. A member sees what
``VectorGame`` gives every callable opponent, the observation of the seat to move (its own, R9)
and that seat's legal mask, nothing else.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._args import check_seed, is_int
from ..agents.policy import load_policy
from ..observation import OBSERVATION_SIZE
from ..seeds import derive_seed, fresh_seed
from ..vector import BatchPolicy, opponent_spec

__all__ = ["PolicyPool", "PoolOpponent"]

_SNAPSHOT = re.compile(r"snapshot-([0-9]{6,})(\.npz|\.zip|\.onnx)")
_PARTIAL = ".partial-"
#: A game whose opponent has not moved in this many calls is forgotten (drawn again, from the
#: pool as it is then, if it comes back): it bounds the memory of finished games.
_FORGET_CALLS = 256


def _uniforms(seed: int, deals: np.ndarray) -> np.ndarray:
    """One number in [0, 1) per key (a deal seed, an observation's), a function of ``(seed, key)``
    only (SplitMix64's output function, docs/rng.md)."""
    z = deals.astype(np.uint64) ^ np.uint64(seed)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return np.asarray((z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53)


# Odd 64-bit multipliers, one per observation value: a row's key is the sum of its values' bits
# times them (mod 2**64).
_ROW_MIX = np.random.default_rng(0x5E9).integers(0, 1 << 63, size=OBSERVATION_SIZE, dtype=np.uint64) * 2 + 1


class _Random:
    """A uniformly random legal action per row, a function of the pool's seed and the row's
    observation: no generator to share, so the same seeds play the same games whatever the order
    of the calls (the batches of ``AsyncSequenceVectorEnv`` call from threads of their own)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def __call__(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        bits = np.ascontiguousarray(observations, dtype=np.float32).view(np.uint32).astype(np.uint64)
        u = _uniforms(self.seed, (bits * _ROW_MIX).sum(axis=1, dtype=np.uint64))
        k = (u * masks.sum(axis=1)).astype(np.int64)
        return np.asarray(np.argmax(np.cumsum(masks, axis=1) > k[:, None], axis=1), dtype=np.int64)


class PolicyPool:
    """The last ``keep`` snapshots in ``directory`` and the ``fixed`` opponents (see the module doc).

    ``sample``: ``"uniform"`` or ``"recent"``; ``fixed_share``: the fixed members' share of the
    draws while there are snapshots; ``seed`` (None: a fresh one) seeds ``opponent()``'s draws.
    """

    def __init__(self, directory: Union[str, os.PathLike[str]], keep: int = 10, sample: str = "uniform",
                 fixed: Sequence[Union[str, BatchPolicy]] = (), fixed_share: float = 0.2,
                 seed: Optional[int] = 0) -> None:
        if not is_int(keep) or keep < 1:
            raise ValueError(f"keep must be an int of at least 1 (the snapshots kept), not {keep!r}")
        if sample not in ("uniform", "recent"):
            raise ValueError(f"sample must be 'uniform' or 'recent', not {sample!r}")
        if isinstance(fixed_share, bool) or not isinstance(fixed_share, (int, float)) or not 0 <= fixed_share <= 1:
            raise ValueError(f"fixed_share must be a number in 0..1, not {fixed_share!r}")
        checked = check_seed(seed)
        self.seed = fresh_seed() if checked is None else checked
        self.directory = os.fspath(directory)
        self.keep, self.sample_rule, self.fixed_share = int(keep), sample, float(fixed_share)
        if isinstance(fixed, (str, bytes)) or callable(fixed):
            raise TypeError("fixed is a list of opponents, e.g. ['random'], not one opponent")
        self._fixed: Dict[str, BatchPolicy] = {}
        for k, member in enumerate(fixed):
            name, policy = self._fixed_member(member, k)
            if name in self._fixed:
                raise ValueError(f"fixed: {name!r} is given twice")
            self._fixed[name] = policy
        if os.path.exists(self.directory) and not os.path.isdir(self.directory):
            raise ValueError(f"{self.directory} is a file: a pool is a directory of snapshots")
        os.makedirs(self.directory, exist_ok=True)
        self._numbers: List[Tuple[int, str]] = []
        for entry in os.listdir(self.directory):
            found = _SNAPSHOT.fullmatch(entry)
            if found:
                self._numbers.append((int(found.group(1)), entry))
            elif entry.startswith(_PARTIAL):  # an add() that a kill interrupted
                os.remove(os.path.join(self.directory, entry))
        self._numbers.sort()
        self._next = self._numbers[-1][0] + 1 if self._numbers else 1
        self._prune()

    def _fixed_member(self, member: Union[str, BatchPolicy], k: int) -> Tuple[str, BatchPolicy]:
        where = f"fixed member {k}"
        if isinstance(member, str) and member.strip().lower() == "random":
            return "random", _Random(derive_seed(self.seed, 2))
        policy = opponent_spec(member, where)
        if isinstance(policy, str):
            raise ValueError(f"{where}: {member!r} plays inside the core from the game itself, a seat at a time, "
                             "not in a pool: give it a seat of its own (opponents={1: pool.opponent(), 2: 'greedy'}); "
                             "a pool's fixed members are 'random', 'policy:PATH' or a callable")
        name = member.strip() if isinstance(member, str) else str(getattr(member, "__name__", ""))
        return (name if name and not name.startswith("<") else f"callable-{k}"), policy

    def __repr__(self) -> str:
        return (f"PolicyPool({self.directory!r}, keep={self.keep}, sample={self.sample_rule!r}, "
                f"fixed={list(self._fixed)}, seed={self.seed})")

    @property
    def snapshots(self) -> List[str]:
        """The snapshots' paths, oldest first."""
        return [os.path.join(self.directory, name) for _, name in self._numbers]

    def members(self) -> List[str]:
        """The members' names: the snapshots' file names (oldest first), then the fixed members'."""
        return [name for _, name in self._numbers] + list(self._fixed)

    def weights(self) -> np.ndarray:
        """Each member's probability of being drawn (``members()`` order; see the module doc)."""
        n, f = len(self._numbers), len(self._fixed)
        if n + f == 0:
            raise ValueError(f"the pool in {self.directory} is empty: add() a snapshot or give fixed opponents")
        snap = np.ones(n) if self.sample_rule == "uniform" else np.arange(1.0, n + 1)
        share = self.fixed_share if n and f else (1.0 if f else 0.0)
        snap = snap / snap.sum() * (1.0 - share) if n else snap
        return np.concatenate([snap, np.full(f, share / f if f else 0.0)])

    def sample(self, size: int, rng: Union[int, np.random.Generator]) -> List[str]:
        """``size`` member names drawn by ``weights()`` from ``rng`` (a generator or a seed)."""
        generator = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
        names = self.members()
        return [names[i] for i in generator.choice(len(names), size=size, p=self.weights())]

    def draw(self, deals: Any) -> np.ndarray:
        """The member (an index into ``members()``) that ``opponent()`` gives a new game of each
        deal seed: a function of the pool's seed, the deal and the members' weights."""
        cum = np.cumsum(self.weights())
        u = _uniforms(derive_seed(self.seed, 1), np.asarray(deals, dtype=np.uint64))
        return np.asarray(np.minimum(np.searchsorted(cum, u * cum[-1], side="right"), len(cum) - 1), dtype=np.int64)

    def policy(self, name: str) -> BatchPolicy:
        """The batched policy of the member ``name`` (``load_policy`` for a snapshot)."""
        if name in self._fixed:
            return self._fixed[name]
        if not any(name == entry for _, entry in self._numbers):
            raise ValueError(f"{name!r} is not a member of the pool; its members are {self.members()}")
        return load_policy(os.path.join(self.directory, name))

    def add(self, source: Any) -> str:
        """Add a snapshot: ``source`` is a saved policy file (``.npz``, ``.zip``, ``.onnx``; copied
        after ``load_policy`` accepts it) or a live Stable-Baselines3 model (its ``save``). Then only
        the last ``keep`` snapshots stay. Returns the snapshot's path."""
        number = self._next
        if isinstance(source, (str, os.PathLike)):
            path = os.fspath(source)
            load_policy(path)  # a missing, damaged or foreign file is refused before it joins
            ext = os.path.splitext(path)[1].lower()
            partial = os.path.join(self.directory, f"{_PARTIAL}{number:06d}{ext}")
            shutil.copyfile(path, partial)
        elif callable(getattr(source, "save", None)) and hasattr(source, "policy"):
            ext = ".zip"
            partial = os.path.join(self.directory, f"{_PARTIAL}{number:06d}{ext}")
            source.save(partial)
        else:
            raise TypeError(f"add() takes a saved policy's path (.npz, .zip, .onnx) or a Stable-Baselines3 model, "
                            f"not {type(source).__name__}")
        name = f"snapshot-{number:06d}{ext}"
        os.replace(partial, os.path.join(self.directory, name))
        self._numbers.append((number, name))
        self._next = number + 1
        self._prune()
        return os.path.join(self.directory, name)

    def _prune(self) -> None:
        while len(self._numbers) > self.keep:
            _, name = self._numbers.pop(0)
            try:
                os.remove(os.path.join(self.directory, name))
            except FileNotFoundError:  # another process sharing the directory pruned it first
                pass

    def opponent(self) -> PoolOpponent:
        """The batched opponent drawing from this pool (see the module doc)."""
        return PoolOpponent(self)


class PoolOpponent:
    """The opponent of ``VectorGame`` and the batched environments that ``PolicyPool.opponent()``
    gives: one member per game episode (see the ``sequence_game.envs.pool`` module doc)."""

    #: Raw observations: snapshots scale them as their models learned (``load_policy``), so an
    #: environment's ``normalize=True`` does not scale them twice; fixed callables get them raw.
    raw_observations = True
    #: ``VectorGame`` passes each row's deal seed (``deals=``): the key of its game's episode.
    takes_deals = True

    def __init__(self, pool: PolicyPool) -> None:
        self.pool = pool
        self._lock = threading.Lock()
        self._keys = np.empty(0, dtype=np.uint64)  # deal seeds of the games met, sorted
        self._slots = np.empty(0, dtype=np.int64)  # the member each plays (a key of _players)
        self._seen = np.empty(0, dtype=np.int64)  # the call that last met each
        self._calls = 0
        self._players: Dict[int, Tuple[str, BatchPolicy]] = {}
        self._slot_of: Dict[str, int] = {}

    def __repr__(self) -> str:
        return f"PoolOpponent({self.pool!r})"

    def __call__(self, observations: np.ndarray, masks: np.ndarray, deals: Any = None) -> np.ndarray:
        if deals is None:
            raise ValueError("a pool opponent plays in a VectorGame or a batched environment, which gives it each "
                             "game's deal seed (deals=): pass opponents=pool.opponent() there")
        keys = np.asarray(deals, dtype=np.uint64).reshape(-1)
        if len(keys) != len(observations):
            raise ValueError(f"deals holds {len(keys)} seeds for {len(observations)} observations")
        with self._lock:
            slots = self._assign(keys)
            groups = [(self._players[int(s)][1], np.flatnonzero(slots == s)) for s in np.unique(slots)]
        out = np.empty(len(keys), dtype=np.int64)
        for policy, rows in groups:
            out[rows] = np.asarray(policy(observations[rows], masks[rows])).reshape(-1)
        return out

    def _find(self, keys: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """(position in the table, found) of each key."""
        pos = np.minimum(np.searchsorted(self._keys, keys), max(len(self._keys) - 1, 0))
        found = self._keys[pos] == keys if len(self._keys) else np.zeros(len(keys), dtype=bool)
        return pos, found

    def _assign(self, keys: np.ndarray) -> np.ndarray:
        self._calls += 1
        _, found = self._find(keys)
        new = np.unique(keys[~found])
        if len(new):
            names = self.pool.members()
            drawn = self.pool.draw(new)
            slot_of_member = np.full(len(names), -1, dtype=np.int64)
            for m in np.unique(drawn).tolist():  # a loop over the members drawn, not the games
                slot_of_member[m] = self._slot(names[m])
            self._keys = np.concatenate([self._keys, new])
            self._slots = np.concatenate([self._slots, slot_of_member[drawn]])
            self._seen = np.concatenate([self._seen, np.zeros(len(new), dtype=np.int64)])
            order = np.argsort(self._keys, kind="stable")
            self._keys, self._slots, self._seen = self._keys[order], self._slots[order], self._seen[order]
        pos, _ = self._find(keys)
        self._seen[pos] = self._calls
        slots: np.ndarray = self._slots[pos]
        if len(self._keys) > 4 * len(keys) + 1024:
            self._forget()
        return slots

    def _slot(self, name: str) -> int:
        if name not in self._slot_of:
            slot = max(self._players, default=-1) + 1
            self._players[slot] = (name, self.pool.policy(name))
            self._slot_of[name] = slot
        return self._slot_of[name]

    def _forget(self) -> None:
        """Drops the games not met in the last ``_FORGET_CALLS`` calls, and the members that no
        game plays any more and that left the pool."""
        keep = self._seen > self._calls - _FORGET_CALLS
        self._keys, self._slots, self._seen = self._keys[keep], self._slots[keep], self._seen[keep]
        playing = set(np.unique(self._slots).tolist())
        members = set(self.pool.members())
        for slot, (name, _) in list(self._players.items()):
            if slot not in playing and name not in members:
                del self._players[slot]
                del self._slot_of[name]

    def assigned(self, deals: Any) -> List[Optional[str]]:
        """The member playing the game of each deal seed (None for a game it has not met): read
        ``vg.seeds()`` before a step to credit each game that the step ends to its opponent."""
        keys = np.asarray(deals, dtype=np.uint64).reshape(-1)
        with self._lock:
            if not len(self._keys):
                return [None] * len(keys)
            pos, found = self._find(keys)
            names = {slot: name for slot, (name, _) in self._players.items()}
            return [names[s] if f else None for s, f in zip(self._slots[pos].tolist(), found.tolist())]
