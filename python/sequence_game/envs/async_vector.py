"""``AsyncSequenceVectorEnv``: the batched games with EnvPool's asynchronous ``send``/``recv``, so
that a policy chooses the actions of one batch of games while the core steps another (needs the
``[rl]`` extra).

``num_envs`` games are split into ``num_envs // batch_size`` batches of ``batch_size`` games; batch
``b`` holds the games with ``env_id`` ``b * batch_size .. (b + 1) * batch_size - 1`` and is a
``SequenceVectorEnv(batch_size, seed=derive_seed(seed, b), ...)`` of its own, stepped on a thread of
its own (the core releases the GIL while it steps). The semantics:

- ``async_reset()`` deals every batch and queues each batch's first observations, batch 0 first.
- ``recv()`` waits for the oldest queued batch and returns ``(observations, rewards, terminated,
  truncated, infos)`` for its ``batch_size`` games, as ``SequenceVectorEnv.step`` does (rewards 0
  and both ends False for a batch that was just reset), with ``infos["env_id"]`` the games' ids.
  Batches come back in the order they were queued (first in, first out): the same actions give the
  same games and the same order, whatever the threads' timing.
- ``send(actions, env_id)`` queues a step of one batch: ``env_id`` is exactly the ``env_id`` that
  ``recv()`` returned for it (any order; ``actions[k]`` is the action of game ``env_id[k]``). A
  batch can be sent only after it was received, and at most once: ``ValueError`` otherwise.
- An exception of a step (an illegal action: ``IllegalMoveError``, and nothing was played) is
  raised by the ``recv()`` that would have returned that batch; the batch is then received, as it
  was before the step, and can be sent again.
- ``step(actions, env_id)``: ``send`` then ``recv`` (the oldest queued batch, which is the one
  just sent when no other is queued). ``close()`` waits for the queued steps and
  stops the threads.

>>> import numpy as np
>>> from sequence_game.envs.async_vector import AsyncSequenceVectorEnv
>>> pool = AsyncSequenceVectorEnv(8, batch_size=4, opponents="greedy", seed=1)
>>> pool.async_reset()
>>> rng = np.random.default_rng(0)
>>> for _ in range(10):
...     obs, rewards, terminated, truncated, infos = pool.recv()        # 4 games ready
...     actions = [rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]]
...     pool.send(np.array(actions), infos["env_id"])                   # the core steps them meanwhile
>>> obs.shape, infos["env_id"]                    # the 10th batch received: batch 1
((4, 890), array([4, 5, 6, 7]))
>>> pool.close()
"""

from __future__ import annotations

import collections
import concurrent.futures
from typing import Any, Deque, Dict, List, Optional, Tuple

import numpy as np

from .._args import check_seed, is_int
from ..seeds import derive_seed, fresh_seed
from .vector import SequenceVectorEnv

__all__ = ["AsyncSequenceVectorEnv"]

Result = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]


class AsyncSequenceVectorEnv:
    """``num_envs`` games in batches of ``batch_size`` with ``send``/``recv`` (see the module doc).

    ``seed`` (None: a fresh one) seeds batch ``b`` with ``derive_seed(seed, b)``; every other
    argument (``players``, ``teams``, ``seat``, ``opponents``, ``max_turns``, ``threads``: core
    threads per batch, ``normalize``) is ``SequenceVectorEnv``'s.
    """

    def __init__(self, num_envs: int, batch_size: Optional[int] = None, seed: Optional[int] = None,
                 **kwargs: Any) -> None:
        if not is_int(num_envs) or not is_int(batch_size if batch_size is not None else num_envs):
            raise TypeError("num_envs and batch_size must be ints")
        batch = num_envs if batch_size is None else batch_size
        if not 1 <= batch <= num_envs or num_envs % batch:
            raise ValueError(f"batch_size must divide num_envs ({num_envs}) and be at least 1, not {batch}")
        checked = check_seed(seed)
        self.seed = fresh_seed() if checked is None else checked
        self.num_envs = int(num_envs)
        self.batch_size = int(batch)
        #: The batches: ``batches[b]`` is a ``SequenceVectorEnv`` of the games with ids
        #: ``b * batch_size ..``; read them only between their ``recv()`` and their ``send()``.
        self.batches: List[SequenceVectorEnv] = [
            SequenceVectorEnv(self.batch_size, seed=derive_seed(self.seed, b), **kwargs)
            for b in range(self.num_envs // self.batch_size)]
        self.single_observation_space = self.batches[0].single_observation_space
        self.single_action_space = self.batches[0].single_action_space
        self._executor = concurrent.futures.ThreadPoolExecutor(max_workers=len(self.batches),
                                                               thread_name_prefix="sequence-batch")
        self._queue: Deque[Tuple[int, concurrent.futures.Future[Result]]] = collections.deque()
        self._received = [False] * len(self.batches)  # received and not sent since: may be sent

    def __repr__(self) -> str:
        return f"AsyncSequenceVectorEnv({self.num_envs}, batch_size={self.batch_size}, seed={self.seed})"

    def _ids(self, b: int) -> np.ndarray:
        return np.arange(b * self.batch_size, (b + 1) * self.batch_size, dtype=np.int64)

    def _submit(self, b: int, job: Any) -> None:
        self._received[b] = False
        self._queue.append((b, self._executor.submit(job)))

    def async_reset(self) -> None:
        """Deal every batch anew (see the module doc); ``ValueError`` if a step is still queued."""
        if self._queue:
            raise ValueError(f"{len(self._queue)} batch(es) still queued: recv() them before async_reset()")
        for b, env in enumerate(self.batches):
            def reset(env: SequenceVectorEnv = env) -> Result:
                obs, infos = env.reset()
                n = env.num_envs
                return obs, np.zeros(n, np.float32), np.zeros(n, bool), np.zeros(n, bool), infos
            self._submit(b, reset)

    def recv(self) -> Result:
        """The oldest queued batch, once stepped (see the module doc)."""
        if not self._queue:
            raise ValueError("nothing to receive: call async_reset() first, or send() a batch")
        b, future = self._queue.popleft()
        self._received[b] = True
        obs, rewards, terminated, truncated, infos = future.result()  # a step's exception is raised here
        infos["env_id"] = self._ids(b)
        return obs, rewards, terminated, truncated, infos

    def send(self, actions: Any, env_id: Any) -> None:
        """Queue a step of the batch whose games are ``env_id`` (see the module doc)."""
        ids = np.asarray(env_id)
        acts = np.asarray(actions)
        if ids.dtype.kind not in "iu" or ids.shape != (self.batch_size,):
            raise ValueError(f"env_id must be the {self.batch_size} integer ids recv() returned, not "
                             f"{ids.dtype} {ids.shape}")
        if acts.shape != (self.batch_size,):
            raise ValueError(f"actions must have shape ({self.batch_size},), one per env_id, not {acts.shape}")
        b = int(ids.min()) // self.batch_size if ids.size else -1
        if not 0 <= b < len(self.batches) or not np.array_equal(np.sort(ids), self._ids(b)):
            raise ValueError(f"env_id must be one batch's ids as recv() returned them (batch b: b * {self.batch_size} "
                             f".. b * {self.batch_size} + {self.batch_size - 1}), not {ids.tolist()}")
        if not self._received[b]:
            raise ValueError(f"batch {b} (env_id {b * self.batch_size}..) is queued already: recv() it before "
                             "sending it again")
        ordered = np.empty_like(acts)
        ordered[ids - b * self.batch_size] = acts
        env = self.batches[b]

        def step() -> Result:
            return env.step(ordered)

        self._submit(b, step)

    def step(self, actions: Any, env_id: Any) -> Result:
        """``send(actions, env_id)`` then ``recv()`` (the oldest queued batch)."""
        self.send(actions, env_id)
        return self.recv()

    def close(self) -> None:
        """Wait for the queued steps and stop the threads (their results are dropped)."""
        self._executor.shutdown(wait=True)
        self._queue.clear()

    def __enter__(self) -> AsyncSequenceVectorEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
