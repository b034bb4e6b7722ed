"""``AsyncSequenceVectorEnv``: EnvPool's ``send``/``recv`` over the batched games, as its module doc
says: batches come back first in, first out, each batch is the ``SequenceVectorEnv`` its seed
names, a step's exception surfaces at its ``recv`` and changes nothing, and misuse is refused."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
from sequence_game import IllegalMoveError
from sequence_game.envs.async_vector import AsyncSequenceVectorEnv
from sequence_game.envs.vector import SequenceVectorEnv
from sequence_game.seeds import derive_seed


def _first_legal_after(masks, k):
    """A deterministic policy: the k-th legal action of each row (cycling)."""
    return np.array([np.flatnonzero(m)[k % m.sum()] for m in masks], dtype=np.int64)


def test_batches_come_back_in_order_and_play_their_seeded_vector_envs():
    pool = AsyncSequenceVectorEnv(6, batch_size=3, opponents="greedy", seed=5)
    mirrors = [SequenceVectorEnv(3, opponents="greedy", seed=derive_seed(5, b)) for b in range(2)]
    pool.async_reset()
    expected = [m.reset() for m in mirrors]
    ended = 0
    for k in range(80):
        b = k % 2
        obs, rewards, terminated, truncated, infos = pool.recv()
        np.testing.assert_array_equal(infos["env_id"], [3 * b, 3 * b + 1, 3 * b + 2])
        want = expected[b]
        np.testing.assert_array_equal(obs, want[0])
        if k >= 2:
            np.testing.assert_array_equal(rewards, want[1])
            np.testing.assert_array_equal(terminated, want[2])
            np.testing.assert_array_equal(truncated, want[3])
        actions = _first_legal_after(infos["action_mask"], k)
        order = np.array([2, 0, 1])  # any order of the batch's ids, actions alongside
        pool.send(actions[order], infos["env_id"][order])
        expected[b] = mirrors[b].step(actions)
        ended += int((expected[b][2] | expected[b][3]).sum())
    assert ended > 0  # episodes ended and were re-dealt on the way
    pool.close()


def test_two_batches_in_flight_and_step():
    with AsyncSequenceVectorEnv(4, batch_size=2, opponents="random", seed=1) as pool:
        pool.async_reset()
        first = pool.recv()
        second = pool.recv()
        pool.send(_first_legal_after(first[4]["action_mask"], 0), first[4]["env_id"])
        pool.send(_first_legal_after(second[4]["action_mask"], 0), second[4]["env_id"])  # both stepping now
        third = pool.recv()
        assert list(third[4]["env_id"]) == [0, 1]
        obs, *_rest, infos = pool.step(_first_legal_after(third[4]["action_mask"], 1), [0, 1])
        assert list(infos["env_id"]) == [2, 3]  # the oldest queued batch
        assert obs.shape == (2, 890)


def test_an_illegal_action_is_raised_at_recv_and_changes_nothing():
    pool = AsyncSequenceVectorEnv(4, batch_size=2, opponents="greedy", seed=2)
    pool.async_reset()
    obs, *_rest, infos = pool.recv()
    before = pool.batches[0].game.observations().copy()
    bad = _first_legal_after(infos["action_mask"], 0)
    bad[1] = int(np.flatnonzero(~infos["action_mask"][1])[0])
    pool.send(bad, infos["env_id"])
    pool.recv()  # batch 1's reset
    with pytest.raises(IllegalMoveError, match="game 1"):
        pool.recv()
    np.testing.assert_array_equal(pool.batches[0].game.observations(), before)
    pool.send(_first_legal_after(infos["action_mask"], 0), infos["env_id"])  # received: may be sent again
    assert list(pool.recv()[4]["env_id"]) == [0, 1]
    pool.close()


def test_misuse_is_refused():
    with pytest.raises(ValueError, match="divide"):
        AsyncSequenceVectorEnv(5, batch_size=2)
    with pytest.raises(TypeError, match="ints"):
        AsyncSequenceVectorEnv(4, batch_size=2.0)
    pool = AsyncSequenceVectorEnv(4, batch_size=2, opponents="random", seed=3)
    with pytest.raises(ValueError, match="nothing to receive"):
        pool.recv()
    pool.async_reset()
    with pytest.raises(ValueError, match="still queued"):
        pool.async_reset()
    _obs, *_rest, infos = pool.recv()
    actions = _first_legal_after(infos["action_mask"], 0)
    with pytest.raises(ValueError, match="one batch's ids"):
        pool.send(actions, [1, 2])
    with pytest.raises(ValueError, match="queued already"):
        pool.send(actions, [2, 3])  # batch 1 was not received yet
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        pool.send(actions[:1], [0, 1])
    pool.send(actions, [0, 1])
    with pytest.raises(ValueError, match="queued already"):
        pool.send(actions, [0, 1])
    pool.close()
