"""``sequence_game.VectorGame``: many games stepped together in the core.

* Every player count and team split (R2) gives, action for action, exactly the games that
  ``Game`` objects give when stepped one by one with the same actions (``play_action``, R7
  declare actions included): observations, masks, seats to move, rewards, ends and re-deals.
* Automatic reset: a game that ends reports its result in that step and is re-dealt at once from
  the next episode seed; its final position and observation stay readable.
* A batch with an illegal action raises one ``IllegalMoveError`` naming every refused game and
  changes no game.
* The results do not depend on the thread count; built-in random/greedy/network seats move inside
  the core, deterministically; a network seat plays the ``net`` agent's move, from its own view only
  (R9).
* A callable opponent over batched observations moves for its seats; a bad answer (shape, dtype,
  illegal action) is one ValueError and no game changes.
"""

from __future__ import annotations

import hashlib
import os
import signal
import threading
import time

import numpy as np
import pytest
import sequence_game
from sequence_game import Game, IllegalMoveError, _core
from sequence_game.actions import ACTION_COUNT, window_of_action
from sequence_game.vector import MAX_LEGAL_ACTIONS, PACKED_MASK_BYTES, VectorGame

# Every valid (players, teams) split of R2.
SPLITS = [(2, 2), (3, 3), (4, 2), (6, 2), (6, 3), (8, 2), (9, 3), (10, 2), (12, 2), (12, 3)]


def _random_actions(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row of a bool mask, in plain numpy."""
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks], dtype=np.int64)


def _replay_check(players, teams, num_games, steps, seed, max_turns=None, threads=1):
    """Steps a VectorGame and Game objects side by side; returns how many games ended and how
    many declare actions (R7 follow-ups) were played."""
    vg = VectorGame(num_games, players=players, teams=teams, seed=seed, max_turns=max_turns, threads=threads)
    games = [Game(players, teams, seed=int(s), max_turns=max_turns) for s in vg.seeds()]
    rng = np.random.default_rng(seed)
    ended = declares = 0
    for _ in range(steps):
        masks = vg.legal_masks()
        obs = vg.observations()
        seats = vg.current_players()
        for i, g in enumerate(games):
            assert seats[i] == g.current_player
            np.testing.assert_array_equal(masks[i], g.legal_mask())
            np.testing.assert_array_equal(obs[i], g.observation_tensor(g.current_player))
        actions = _random_actions(rng, masks)
        declares += sum(window_of_action(int(a)) is not None and g.pending_placement is not None
                        for a, g in zip(actions, games))
        rewards, terminated, truncated = vg.step(actions)
        done = np.flatnonzero(terminated | truncated)
        finals = vg.final_observations()
        assert finals.shape == (len(done), sequence_game.observation.OBSERVATION_SIZE)
        for i, (g, a) in enumerate(zip(games, actions)):
            mover = g.current_player
            g.play_action(int(a))
            assert bool(terminated[i] or truncated[i]) == g.is_over
            if not g.is_over:
                assert not rewards[i].any()
                continue
            ended += 1
            # R8: +1 to the winning team, -1 to the others; a draw (R5 stalemate or cap) is 0.
            expect = np.zeros(teams, dtype=np.float32)
            if g.winner is not None:
                expect[:] = -1
                expect[g.winner] = 1
            np.testing.assert_array_equal(rewards[i], expect)
            assert terminated[i] == (g.winner is not None or g.turn < (max_turns or 2**31 - 1))
            row = int(np.searchsorted(done, i))
            np.testing.assert_array_equal(finals[row], g.observation_tensor(mover))
            assert vg.copy_game(i, final=True).to_dict() == g.to_dict()
            games[i] = Game(players, teams, seed=int(vg.seeds()[i]), max_turns=max_turns)
        for i, g in enumerate(games):
            assert vg.copy_game(i).to_dict() == g.to_dict()
    return ended, declares


@pytest.mark.parametrize("players,teams", SPLITS)
def test_same_games_as_game_objects_for_every_split(players, teams):
    # A cap keeps the big games short enough that several episodes end (truncated ones included).
    ended, _ = _replay_check(players, teams, num_games=3, steps=120, seed=players * 10 + teams, max_turns=40)
    assert ended >= 3


def test_same_games_as_game_objects_uncapped_with_wins():
    ended, _ = _replay_check(2, 2, num_games=8, steps=260, seed=5)
    assert ended >= 8


def test_declare_actions_follow_a_placement_with_a_choice():
    """R7: a placement that can declare its sequences in several ways waits for declare actions
    of the same player; the batch steps it exactly as Game.play_action does."""
    vg = VectorGame(64, players=2, seed=11)
    rng = np.random.default_rng(3)
    seen_pending = 0
    for _ in range(600):
        masks = vg.legal_masks()
        before = [vg.copy_game(i) for i in range(len(vg))]
        actions = _random_actions(rng, masks)
        vg.step(actions)
        for i, g in enumerate(before):
            g.play_action(int(actions[i]))
            if g.pending_placement is not None:
                seen_pending += 1
                after = vg.copy_game(i)
                assert after.pending_placement == g.pending_placement
                assert after.current_player == g.current_player and after.turn == g.turn
                m = vg.legal_masks()[i]
                assert all(window_of_action(int(a)) is not None for a in np.flatnonzero(m))
    assert seen_pending > 0, "no placement with a declares choice arose: pick another seed"


def test_auto_reset_deals_the_next_episode_seed():
    vg = VectorGame(4, players=2, seed=99, max_turns=6)
    assert list(vg.episodes()) == [0, 0, 0, 0]
    assert [int(s) for s in vg.seeds()] == [_core.episode_seed(99, i, 0) for i in range(4)]
    rng = np.random.default_rng(0)
    for _ in range(40):
        _, _terminated, _truncated = vg.step(vg.sample_actions(rng))
    ep = vg.episodes()
    assert (ep >= 1).all()
    assert [int(s) for s in vg.seeds()] == [_core.episode_seed(99, i, int(ep[i])) for i in range(4)]
    # After the cap ends a game it is a fresh deal: turn 0 or a few turns in.
    assert all(vg.copy_game(i).turn < 6 for i in range(4))


def test_final_position_only_for_games_that_ended():
    vg = VectorGame(2, players=2, seed=1)
    vg.step(vg.sample_actions(np.random.default_rng(0)))
    assert vg.final_observations().shape == (0, sequence_game.observation.OBSERVATION_SIZE)
    with pytest.raises(ValueError, match="did not end"):
        vg.copy_game(0, final=True)


def test_illegal_action_refuses_the_whole_batch():
    vg = VectorGame(5, players=3, seed=4)
    rng = np.random.default_rng(1)
    for _ in range(7):
        vg.step(vg.sample_actions(rng))
    before = [vg.copy_game(i).to_dict() for i in range(5)]
    obs_before, masks = vg.observations(), vg.legal_masks()
    actions = vg.sample_actions(rng, masks)
    illegal_game = 2
    actions[illegal_game] = int(np.flatnonzero(~masks[illegal_game])[0])
    actions[4] = ACTION_COUNT + 7  # out of range
    with pytest.raises(IllegalMoveError) as err:
        vg.step(actions)
    msg = str(err.value)
    assert isinstance(err.value, ValueError)
    assert f"game {illegal_game}: action {actions[illegal_game]}" in msg and f"game 4: action {ACTION_COUNT + 7}" in msg
    assert "2 of 5 games" in msg and "nothing was played" in msg
    assert err.value.games == [2, 4] and err.value.actions == [int(actions[2]), ACTION_COUNT + 7]
    assert [vg.copy_game(i).to_dict() for i in range(5)] == before
    np.testing.assert_array_equal(vg.observations(), obs_before)
    np.testing.assert_array_equal(vg.legal_masks(), masks)
    vg.step(vg.sample_actions(rng, masks))  # the legal batch still plays


@pytest.mark.parametrize("bad,exc", [
    (np.zeros(3, dtype=np.float64), TypeError),
    (np.zeros(4, dtype=np.int64), ValueError),
    (np.zeros((3, 1), dtype=np.int64), ValueError),
    (["a", "b", "c"], TypeError),
])
def test_malformed_action_arrays(bad, exc):
    vg = VectorGame(3, seed=0)
    before = [vg.copy_game(i).to_dict() for i in range(3)]
    with pytest.raises(exc):
        vg.step(bad)
    assert [vg.copy_game(i).to_dict() for i in range(3)] == before


def test_any_integer_dtype_and_list_is_accepted():
    vg = VectorGame(2, seed=0)
    a = vg.sample_actions(np.random.default_rng(0))
    other = VectorGame(2, seed=0)
    vg.step(a.astype(np.int16))
    other.step([int(x) for x in a])
    np.testing.assert_array_equal(vg.observations(), other.observations())


def _first_legal(obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A callable opponent: the lowest legal action of each row."""
    return masks.argmax(axis=1)


@pytest.mark.parametrize("opponents", [None, {1: "random"}, {1: "greedy", 2: "random"}, {1: "net"},
                                       {1: "net:temperature=0.8", 2: "random"}, {1: _first_legal}],
                         ids=["self-play", "random", "greedy-random", "net", "net-sampled-random", "callable"])
def test_thread_count_does_not_change_results(opponents):
    """Step, observations (any observer), masks in every form and final observations are split over
    the threads; every array is the same for 1, 2, 3 and 8 threads (8 > the games of some ranges)."""
    players = 2 if opponents is None or 2 not in opponents else 3
    runs = []
    for threads in (1, 2, 3, 8):
        vg = VectorGame(37, players=players, seed=8, threads=threads, opponents=opponents, max_turns=30)
        rng = np.random.default_rng(5)
        out = []
        for _ in range(60):
            lists = vg.legal_actions()
            masks = vg.legal_masks()
            packed = vg.legal_masks(packed=True)
            obs = vg.observations()
            seen = vg.observations(players=players - 1)
            r, te, tr = vg.step(vg.sample_actions(rng, legal=lists))
            out.append((masks, packed, *lists, obs, seen, r, te, tr, vg.current_players(), vg.seeds(),
                        vg.final_observations()))
        runs.append(out)
    for other in runs[1:]:
        for a, b in zip(runs[0], other):
            for x, y in zip(a, b):
                np.testing.assert_array_equal(x, y)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX")
def test_a_forked_child_steps_a_threaded_vector_game_without_its_threads():
    """The worker threads are started once per VectorGame and do not survive fork() (as in a
    multiprocessing or DataLoader worker): the child runs every part on its own thread and gets
    the same results as the parent."""
    vg = VectorGame(64, players=2, seed=3, threads=4)
    vg.step(vg.sample_actions(np.random.default_rng(1)))
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: step, send a digest of what it saw, exit without the parent's atexit
        code = 1
        try:
            os.close(r)
            vg.step(vg.sample_actions(np.random.default_rng(2)))
            os.write(w, hashlib.sha256(vg.observations().tobytes()).digest())
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    deadline = time.monotonic() + 60
    while os.waitpid(pid, os.WNOHANG) == (0, 0):  # a child waiting for threads it lacks never ends
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child hung stepping the VectorGame")
        time.sleep(0.01)
    with os.fdopen(r, "rb") as f:
        child = f.read()
    vg.step(vg.sample_actions(np.random.default_rng(2)))
    assert child == hashlib.sha256(vg.observations().tobytes()).digest()


def test_mask_forms_agree():
    vg = VectorGame(16, players=4, seed=2)
    rng = np.random.default_rng(2)
    for _ in range(30):
        masks = vg.legal_masks()
        packed = vg.legal_masks(packed=True)
        assert packed.shape == (16, PACKED_MASK_BYTES) and packed.dtype == np.uint8
        np.testing.assert_array_equal(packed, np.packbits(masks, axis=1, bitorder="little"))
        actions, counts = vg.legal_actions()
        assert actions.shape == (16, MAX_LEGAL_ACTIONS)
        for i in range(16):
            np.testing.assert_array_equal(actions[i, :counts[i]], np.flatnonzero(masks[i]))
            assert (actions[i, counts[i]:] == -1).all()
        m2 = np.empty_like(masks)
        lists = (np.empty_like(actions), np.empty_like(counts))
        vg.legal_masks(out=m2, lists=lists)
        np.testing.assert_array_equal(m2, masks)
        np.testing.assert_array_equal(lists[0], actions)
        vg.step(vg.sample_actions(rng, masks))


def test_sample_actions_is_uniform_over_legal_actions():
    vg = VectorGame(1, seed=3)
    legal = np.flatnonzero(vg.legal_masks()[0])
    rng = np.random.default_rng(0)
    draws = [int(vg.sample_actions(rng, vg.legal_masks())[0]) for _ in range(60 * len(legal))]
    counts = np.array([draws.count(a) for a in legal])
    assert set(draws) <= set(legal.tolist()) and counts.min() > 20  # every legal action comes up
    draws = [int(vg.sample_actions(rng)[0]) for _ in range(60 * len(legal))]
    assert {draws.count(a) > 20 for a in legal} == {True}


def _numpy_draw(masks, uniforms):
    """The documented draw: row i's floor(u * count)-th True entry, ascending."""
    return np.array([np.flatnonzero(m)[int(u * m.sum())] for m, u in zip(masks, uniforms)])


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_sample_actions_from_masks_is_the_documented_draw_in_every_form(threads):
    """Bool masks, packed masks and action lists give the same action for the same draws, and the
    draw does not depend on the thread count."""
    vg = VectorGame(37, players=4, seed=4, threads=threads)
    for step in range(40):
        masks = vg.legal_masks()
        drawn = np.random.default_rng(step).random(37)
        want = _numpy_draw(masks, drawn)
        from_masks = vg.sample_actions(np.random.default_rng(step), masks)
        assert from_masks.dtype == np.int64
        np.testing.assert_array_equal(from_masks, want)
        np.testing.assert_array_equal(vg.sample_actions(np.random.default_rng(step), vg.legal_masks(packed=True)), want)
        np.testing.assert_array_equal(vg.sample_actions(np.random.default_rng(step), legal=vg.legal_actions()), want)
        np.testing.assert_array_equal(vg.sample_actions(np.random.default_rng(step)), want)
        out = np.full(37, -7, dtype=np.int64)
        assert vg.sample_actions(np.random.default_rng(step), masks, out=out) is out
        np.testing.assert_array_equal(out, want)
        vg.step(from_masks)


def test_sample_actions_honours_a_narrowed_mask_and_refuses_bad_masks():
    vg = VectorGame(5, seed=8)
    masks = vg.legal_masks()
    narrowed = masks.copy()
    keep = [int(np.flatnonzero(m)[-1]) for m in masks]  # the last legal action of each game
    narrowed[:] = False
    narrowed[np.arange(5), keep] = True
    rng = np.random.default_rng(0)
    for _ in range(5):
        np.testing.assert_array_equal(vg.sample_actions(rng, narrowed), keep)
    np.testing.assert_array_equal(vg.sample_actions(rng, np.asfortranarray(narrowed)), keep)  # copied to C order
    np.testing.assert_array_equal(vg.sample_actions(rng, narrowed.view(np.uint8).astype(bool)), keep)
    narrowed[3] = False
    with pytest.raises(ValueError, match=r"1 of 5 rows have no legal action.*row 3"):
        vg.sample_actions(rng, narrowed)
    with pytest.raises(TypeError, match="bool"):
        vg.sample_actions(rng, masks.astype(np.int8))
    with pytest.raises(ValueError, match=r"shape \(5, 5253\)"):
        vg.sample_actions(rng, masks[:4])
    with pytest.raises(TypeError, match="numpy bool array"):
        vg.sample_actions(rng, masks.tolist())
    with pytest.raises(ValueError, match="out must be an int64"):
        vg.sample_actions(rng, masks, out=np.empty(5, dtype=np.int32))


def test_observations_for_chosen_seats_hide_other_hands():
    """R9: the rows are each seat's own view; a seat's row is Game.observation_tensor(seat)."""
    vg = VectorGame(3, players=4, seed=6)
    for seat in range(4):
        obs = vg.observations(players=seat)
        for i in range(3):
            np.testing.assert_array_equal(obs[i], vg.copy_game(i).observation_tensor(seat))
    per_game = np.array([0, 3, 1], dtype=np.int32)
    obs = vg.observations(players=per_game)
    for i in range(3):
        np.testing.assert_array_equal(obs[i], vg.copy_game(i).observation_tensor(int(per_game[i])))
    with pytest.raises(ValueError, match="seat"):
        vg.observations(players=4)
    with pytest.raises(ValueError):
        vg.observations(players=np.array([0, 1, 7], dtype=np.int32))
    with pytest.raises(TypeError):
        vg.observations(players=np.array([0.5, 1, 2]))


def test_out_arrays_are_written_in_place_and_checked():
    vg = VectorGame(4, seed=1)
    obs = np.zeros((4, sequence_game.observation.OBSERVATION_SIZE), dtype=np.float32)
    assert vg.observations(out=obs) is obs and obs.any()
    masks = np.zeros((4, ACTION_COUNT), dtype=bool)
    assert vg.legal_masks(out=masks) is masks and masks.any()
    with pytest.raises(TypeError, match="float32"):
        vg.observations(out=np.zeros((4, obs.shape[1]), dtype=np.float64))
    with pytest.raises(ValueError, match="shape"):
        vg.legal_masks(out=np.zeros((3, ACTION_COUNT), dtype=bool))
    with pytest.raises(ValueError, match="C-contiguous"):
        vg.observations(out=np.zeros((obs.shape[1], 4), dtype=np.float32).T)
    ro = np.zeros((4, ACTION_COUNT), dtype=bool)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        vg.legal_masks(out=ro)


def test_copy_game_is_an_independent_game():
    vg = VectorGame(2, seed=3)
    g = vg.copy_game(1)
    assert isinstance(g, Game) and g.seed == int(vg.seeds()[1])
    before = vg.copy_game(1).to_dict()
    g.play_action(g.legal_actions()[0])
    assert vg.copy_game(1).to_dict() == before
    assert vg.copy_game(-1).to_dict() == before
    with pytest.raises(IndexError):
        vg.copy_game(2)
    with pytest.raises(TypeError):
        vg.copy_game(1.0)


def test_reset_reproduces_and_reseeds():
    vg = VectorGame(3, seed=21)
    start = vg.observations()
    rng = np.random.default_rng(0)
    for _ in range(5):
        vg.step(vg.sample_actions(rng))
    vg.reset()
    np.testing.assert_array_equal(vg.observations(), start)
    vg.reset(seed=22)
    assert vg.seed == 22 and [int(s) for s in vg.seeds()] == [_core.episode_seed(22, i, 0) for i in range(3)]
    assert vg.copy_game(0).to_dict() == Game(2, seed=_core.episode_seed(22, 0, 0)).to_dict()


def test_builtin_opponents_leave_only_caller_seats_to_move():
    vg = VectorGame(8, players=3, seed=2, opponents={0: "greedy", 2: "random"})
    assert vg.caller_seats == (1,)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(150):
        assert (vg.current_players() == 1).all()
        _, te, tr = vg.step(vg.sample_actions(rng))
        ended += int((te | tr).sum())
    assert ended > 0


def test_greedy_opponent_plays_greedy():
    """The built-in greedy seat (GreedyAgent's scoring in C++) beats random play clearly."""
    vg = VectorGame(32, players=2, seed=7, opponents={1: "greedy"})
    rng = np.random.default_rng(0)
    wins = np.zeros(2)
    while wins.sum() < 40:
        r, _te, _ = vg.step(vg.sample_actions(rng))
        wins += (r > 0).sum(axis=0)
    assert wins[1] >= 32, wins  # greedy team 1; GreedyAgent beats RandomAgent ~100% (docs/measurements.md)


@pytest.mark.parametrize("players, teams", [(2, 2), (3, 3), (4, 2)])
def test_greedy_opponent_plays_a_best_move_of_greedy_agent(players, teams):
    """The core's greedy seat is GreedyAgent's scoring in C++: in every position it meets (no dead
    card to trade, so it makes one move), the move it makes has GreedyAgent's best score. Its move
    is read off the board and hand before and after (one cell changed, one card gone); R7 choices
    that differ only in the sequences declared score alike unless a sequence completes, and such
    moves are compared by their best-scoring variant."""
    from collections import Counter

    from sequence_game.agents import GreedyAgent

    vg = VectorGame(32, players=players, teams=teams, seed=5, opponents={1: "greedy"})
    rng = np.random.default_rng(players)
    scorer = GreedyAgent()
    checked = 0
    for _ in range(40):
        actions = vg.sample_actions(rng)
        before = []
        for i in range(len(vg)):
            g = vg.copy_game(i)
            g.play_action(int(actions[i]))
            before.append(g)
        vg.step(actions)
        for i, g in enumerate(before):
            if g.is_over or g.current_player != 1 or g.pending_placement is not None:
                continue
            moves = g.legal_moves()
            if any(m.kind == "trade" for m in moves):
                continue
            after = vg.copy_game(i)
            changed = np.argwhere(np.asarray(g.board) != np.asarray(after.board))
            gone = list((Counter(map(str, g.hand(1))) - Counter(map(str, after.hand(1)))).elements())
            if len(changed) != 1 or len(gone) != 1:  # the game ended and was re-dealt
                continue
            cell = tuple(int(v) for v in changed[0])
            kind = "remove" if after.board[cell] < 0 else "place"
            scored = scorer.score_moves(g, moves)
            best = max(score for score, _ in scored)
            played = [m for m in moves if m.kind == kind and str(m.card) == gone[0] and m.cell == cell]
            assert played, (kind, gone, cell)
            own = max(scorer.score_moves(g, [m])[0][0] for m in played)
            assert own == pytest.approx(best, abs=1e-6), (str(played[0]), own, best)
            checked += 1
    assert checked > 300, checked


@pytest.mark.parametrize("kwargs,exc,match", [
    (dict(num_games=0), ValueError, "num_games"),
    (dict(num_games=2.0), TypeError, "num_games"),
    (dict(num_games=2, threads=0), ValueError, "threads"),
    (dict(num_games=2, players=5), ValueError, "players"),
    (dict(num_games=2, players=6, teams=4), ValueError, "teams"),
    (dict(num_games=2, seed=-1), ValueError, "seed"),
    (dict(num_games=2, seed=None), TypeError, "seed"),
    (dict(num_games=2, opponents={1: "smart"}), ValueError, "core plays only 'random', 'greedy', 'net'"),
    (dict(num_games=2, opponents={2: "random"}), ValueError, "seat"),
    (dict(num_games=2, opponents={0: "random", 1: "greedy"}), ValueError, "every seat"),
    (dict(num_games=2, players=3, max_turns=2, opponents={0: "random"}), ValueError, "max_turns"),
])
def test_bad_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        VectorGame(**kwargs)


def test_one_thread_at_a_time():
    """Two Python threads on one VectorGame: every call works or raises the busy RuntimeError;
    every game stays a consistent position (from_dict accepts it)."""
    vg = VectorGame(256, seed=1)
    errors = []

    def hammer(seed):
        rng = np.random.default_rng(seed)
        for _ in range(30):
            try:
                vg.step(vg.sample_actions(rng))
            except IllegalMoveError:
                pass  # the other thread moved between our mask and our step
            except RuntimeError as e:
                if "another thread" not in str(e):
                    errors.append(e)
            except Exception as e:  # noqa: BLE001 - any other error fails the test below
                errors.append(e)

    ts = [threading.Thread(target=hammer, args=(k,)) for k in range(3)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    for i in range(0, 256, 37):
        g = vg.copy_game(i)
        assert Game.from_dict(g.to_dict()).to_dict() == g.to_dict()



# ---------------------------------------------------------------------- the Gymnasium VectorEnv


def _vector_env():
    pytest.importorskip("gymnasium", reason="the [rl] extra (gymnasium) is not installed")
    from sequence_game.envs.vector import SequenceVectorEnv

    return SequenceVectorEnv


def test_vector_env_against_builtin_opponent():
    SequenceVectorEnv = _vector_env()
    env = SequenceVectorEnv(6, players=3, seat=1, opponents="random", seed=4, max_turns=60)
    obs, infos = env.reset(seed=4)
    assert env.observation_space.contains(obs) and obs.shape == (6, 890)
    assert (infos["player"] == 1).all() and infos["action_mask"].dtype == bool
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        before = env.game.observations(players=1)
        np.testing.assert_array_equal(before, obs)  # the learning seat's own view
        actions = env.sample_actions(rng)
        assert env.action_space.contains(actions)
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert (infos["player"] == 1).all()
        team = 1 % env.game.teams
        np.testing.assert_array_equal(rewards, infos["team_rewards"][:, team])
        done = terminated | truncated
        if done.any():
            ended += int(done.sum())
            finals = env.game.final_observations(players=np.full(6, 1, dtype=np.int32))
            for row, i in enumerate(np.flatnonzero(done)):
                np.testing.assert_array_equal(infos["final_obs"][i], finals[row])
            assert all(infos["final_obs"][i] is None for i in np.flatnonzero(~done))
        np.testing.assert_array_equal(infos["action_mask"], env.action_masks())
    assert ended > 0


def test_vector_env_greedy_opponent_beats_random_learner():
    SequenceVectorEnv = _vector_env()
    env = SequenceVectorEnv(16, opponents="greedy", seed=2)
    env.reset()
    rng = np.random.default_rng(1)
    total = []
    while len(total) < 30:
        _, rewards, terminated, truncated, _ = env.step(env.sample_actions(rng))
        total.extend(rewards[terminated | truncated].tolist())
    assert np.mean(total) < -0.8  # the random learner loses nearly every game


def test_vector_env_self_play_rewards_the_acting_seat():
    SequenceVectorEnv = _vector_env()
    env = SequenceVectorEnv(8, players=2, opponents=None, seed=3)
    obs, infos = env.reset(seed=3)
    rng = np.random.default_rng(2)
    wins = 0
    for _ in range(400):
        np.testing.assert_array_equal(obs, env.game.observations())  # the seat to move
        acting = infos["player"]
        obs, rewards, _terminated, _truncated, infos = env.step(env.sample_actions(rng))
        teams = acting % 2
        np.testing.assert_array_equal(rewards, infos["team_rewards"][np.arange(8), teams])
        wins += int((rewards > 0).sum())
    assert wins > 0  # the seat that completes the last sequence is rewarded +1


def test_vector_env_reset_seed_reproduces_and_bad_arguments():
    SequenceVectorEnv = _vector_env()
    env = SequenceVectorEnv(3, seed=0)
    a, _ = env.reset(seed=9)
    env.step(env.sample_actions(np.random.default_rng(0)))
    b, _ = env.reset(seed=9)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(TypeError, match="one int"):
        env.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match="unknown agent"):
        SequenceVectorEnv(2, opponents="smart")
    with pytest.raises(ValueError, match="the core plays only"):
        SequenceVectorEnv(2, opponents="mcts")
    with pytest.raises(TypeError, match="opponents"):
        SequenceVectorEnv(2, opponents=["greedy"])
    with pytest.raises(ValueError, match="seat"):
        SequenceVectorEnv(2, seat=2)
    masks = env.action_masks()
    bad = env.sample_actions(np.random.default_rng(0))
    bad[0] = int(np.flatnonzero(~masks[0])[0])
    with pytest.raises(IllegalMoveError, match="game 0"):
        env.step(bad)


def test_vector_env_opponents_dict_and_the_deprecated_opponent_argument():
    SequenceVectorEnv = _vector_env()
    env = SequenceVectorEnv(4, players=3, opponents={0: "greedy", 2: "random"}, seed=1)
    assert env.seat == 1 and env.opponents == {0: "greedy", 2: "random"}
    _, infos = env.reset()
    assert (infos["player"] == 1).all()
    shared = SequenceVectorEnv(4, players=3, opponents={1: "greedy"}, seed=1)
    assert shared.seat is None and set(shared.game.caller_seats) == {0, 2}
    with pytest.warns(DeprecationWarning, match="opponents="):
        old = SequenceVectorEnv(2, opponent="random", seed=1)
    assert old.opponents == {1: "random"}
    with pytest.warns(DeprecationWarning):
        assert old.opponent == "random"


def test_vector_env_normalize_divides_by_the_published_scale():
    SequenceVectorEnv = _vector_env()
    from sequence_game.observation import OBSERVATION_SCALE

    raw = SequenceVectorEnv(4, opponents="random", seed=1, max_turns=40)
    scaled = SequenceVectorEnv(4, opponents="random", seed=1, max_turns=40, normalize=True)
    a, _ = raw.reset(seed=2)
    b, _ = scaled.reset(seed=2)
    np.testing.assert_allclose(b, a / OBSERVATION_SCALE, rtol=1e-6)
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    for _ in range(60):
        a, _, term, trunc, ia = raw.step(raw.sample_actions(rng_a))
        b, _, _, _, ib = scaled.step(scaled.sample_actions(rng_b))
        np.testing.assert_allclose(b, a / OBSERVATION_SCALE, rtol=1e-6)
        for i in np.flatnonzero(term | trunc):
            np.testing.assert_allclose(ib["final_obs"][i], ia["final_obs"][i] / OBSERVATION_SCALE, rtol=1e-6)
    assert scaled.observation_space.contains(b)


def test_tutorial_batched_loop_leaves_its_arrays_current():
    """The reinforcement-learning tutorial's VectorGame loop (docs/tutorials/rl.md), run as written:
    its arrays hold the games' current observations and masks, and the core's greedy seat wins
    more than the random learner."""
    import os
    import re

    page = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "tutorials", "rl.md")
    with open(page, encoding="utf-8") as f:
        text = f.read()
    section = text.split("## VectorGame: batches in the core", 1)[1]
    code = re.findall(r"```python\n(.*?)```", section, re.S)[0]
    namespace: dict = {}
    exec(compile(code, "docs/tutorials/rl.md", "exec"), namespace)
    vg, obs, masks, wins = namespace["vg"], namespace["obs"], namespace["masks"], namespace["wins"]
    assert obs.shape == (256, 890) and masks.shape == (256, 5253)
    np.testing.assert_array_equal(obs, vg.observations())
    np.testing.assert_array_equal(masks, vg.legal_masks())
    assert wins.sum() > 256 and wins[1] > 10 * wins[0]  # most games ended; greedy wins nearly all


def test_version_counts_the_calls_that_change_the_games():
    """What the environments cache per step (masks, action lists) is keyed on ``version``: a step
    and a reset advance it, reads and refused steps do not, and it cannot be set."""
    vg = VectorGame(3, seed=1)
    v = vg.version
    vg.legal_masks(), vg.observations(), vg.legal_actions()
    assert vg.version == v
    with pytest.raises(IllegalMoveError):
        vg.step(np.full(3, -1))
    assert vg.version == v
    vg.step(vg.sample_actions(np.random.default_rng(0)))
    assert vg.version == v + 1
    vg.reset(2)
    assert vg.version == v + 2
    with pytest.raises(AttributeError):
        vg.version = 0


# ---------------------------------------------------------------------- network and callable opponents


def _advance_net(g: Game, agent, net_seats, redeals: list) -> Game:
    """Plays the ``net`` agent for ``net_seats`` until another seat is to move; for a few positions
    checks that the move does not change when what the seat cannot see is re-dealt (R9)."""
    while not g.is_over and g.current_player in net_seats:
        move = agent.select_move(g)
        if len(redeals) < 12:
            for k in range(2):
                assert agent.select_move(g.redealt([g.current_player], seed=k)) == move
            redeals.append(move)
        g.play(move)
    return g


@pytest.mark.parametrize("players,teams,net_seats", [(2, 2, (0,)), (4, 2, (1, 3)), (3, 3, (2,))])
def test_net_opponent_plays_the_net_agents_moves_from_its_own_view(players, teams, net_seats):
    """A network seat of the core makes, position for position, the move the ``net`` agent makes in
    a ``Game`` (the most probable legal move), and that move is the same whatever hidden cards are
    re-dealt (R9: it reads the seat's observation only). Seat 0 as a network checks the moves
    made right after a deal too."""
    from sequence_game.agents.net import NetAgent

    agent = NetAgent()
    vg = VectorGame(3, players=players, teams=teams, seed=17, opponents=dict.fromkeys(net_seats, "net"))
    redeals: list = []
    games = [_advance_net(Game(players, teams, seed=int(x)), agent, net_seats, redeals) for x in vg.seeds()]
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(70):
        actions = _random_actions(rng, vg.legal_masks())
        _, terminated, truncated = vg.step(actions)
        for i, a in enumerate(actions):
            g = games[i]
            g.play_action(int(a))
            _advance_net(g, agent, net_seats, redeals)
            assert bool(terminated[i] or truncated[i]) == g.is_over
            if g.is_over:
                ended += 1
                assert vg.copy_game(i, final=True).to_dict() == g.to_dict()
                games[i] = _advance_net(Game(players, teams, seed=int(vg.seeds()[i])), agent, net_seats, redeals)
            assert vg.copy_game(i).to_dict() == games[i].to_dict()
    assert len(redeals) >= 12
    assert players > 2 or ended >= 1


def test_net_opponent_weights_file_and_temperature(tmp_path):
    """``net:weights=PATH`` and ``policy:PATH.sqnet`` name a weights file (the shipped one gives
    the same games as ``net``); a temperature samples moves reproducibly from each game's seed."""
    from sequence_game.agents.net import DEFAULT_WEIGHTS

    def run(spec, seed=3):
        vg = VectorGame(6, seed=seed, opponents={1: spec})
        rng = np.random.default_rng(0)
        for _ in range(40):
            vg.step(vg.sample_actions(rng))
        return vg.observations(), vg.opponents[1]

    base, name = run("net")
    assert name == "net"
    for spec in (f"net:weights={DEFAULT_WEIGHTS}", f"policy:{DEFAULT_WEIGHTS}"):
        obs, name = run(spec)
        np.testing.assert_array_equal(obs, base)
        assert name == f"net:weights={os.path.abspath(DEFAULT_WEIGHTS)}"
    hot, name = run("net:temperature=1.5")
    assert name == "net:temperature=1.5"
    np.testing.assert_array_equal(hot, run("net:temperature=1.5")[0])
    assert not np.array_equal(hot, base)
    for spec, match in [("net:seed=3", "seed=3"), ("net:temperature=-1", "temperature"),
                        ("net:temperature=hot", "temperature"), ("policy:model.npz", "no model file"),
                        ("policy", "names its file"), ("mcts", "core plays only")]:
        with pytest.raises(ValueError, match=match):
            VectorGame(2, opponents={1: spec})
    with pytest.raises(FileNotFoundError, match="no network weights file"):
        VectorGame(2, opponents={1: f"net:weights={tmp_path / 'missing.sqnet'}"})
    with pytest.raises(ValueError, match="one network at one temperature"):
        VectorGame(2, players=3, opponents={1: "net", 2: "net:temperature=1"})
    with pytest.raises(TypeError, match="callable"):
        VectorGame(2, opponents={1: 3})
    with pytest.raises(ValueError, match="at least one seat"):
        VectorGame(2, opponents={0: "net", 1: _first_legal})


def test_callable_opponent_sees_its_seats_rows_and_moves_for_them():
    """The callable gets the observations (its seat's own view, R9) and masks of exactly the games
    where one of its seats is to move, after every step and after the deal; the caller then only
    sees its own seat to move, and the games are those its actions and the callable's give."""
    calls = []

    def opponent(obs, masks):
        calls.append((obs.copy(), masks.copy()))
        assert obs.dtype == np.float32 and masks.dtype == bool
        return masks.argmax(axis=1)

    vg = VectorGame(5, players=3, seed=4, opponents={0: opponent, 2: "random"})
    assert vg.caller_seats == (1,)
    assert len(calls) == 1 and calls[0][0].shape == (5, sequence_game.observation.OBSERVATION_SIZE)
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(120):
        assert (vg.current_players() == 1).all()
        before = len(calls)
        _, te, tr = vg.step(vg.sample_actions(rng))
        ended += int((te | tr).sum())
        assert len(calls) > before
        for obs, masks in calls[before:]:
            assert 1 <= len(obs) <= 5 and masks.shape == (len(obs), ACTION_COUNT) and masks.any(axis=1).all()
    assert ended > 0


def test_callable_opponent_gives_the_games_its_actions_give():
    """Learner and callable moves replayed on ``Game`` objects give the same positions."""
    seen = []

    def opponent(obs, masks):
        acts = np.array([np.flatnonzero(m)[len(np.flatnonzero(m)) // 2] for m in masks], dtype=np.int64)
        seen.append(acts)
        return acts

    vg = VectorGame(1, players=2, seed=21, opponents={1: opponent})
    g = Game(2, seed=int(vg.seeds()[0]))
    for acts in seen:  # seat 1 may be the first to move after the deal
        g.play_action(int(acts[0]))
    assert vg.copy_game(0).to_dict() == g.to_dict()
    rng = np.random.default_rng(3)
    for _ in range(60):
        a = vg.sample_actions(rng)
        before = len(seen)
        _, te, tr = vg.step(a)
        if te[0] or tr[0]:  # the callable may have moved in the next deal already
            break
        g.play_action(int(a[0]))
        for acts in seen[before:]:
            g.play_action(int(acts[0]))
        assert vg.copy_game(0).to_dict() == g.to_dict()
    assert len(seen) >= 20


@pytest.mark.parametrize("answer,match", [
    (lambda obs, masks: masks.argmax(axis=1)[:-1], "shape"),
    (lambda obs, masks: masks.argmax(axis=1).astype(np.float32), "dtype float32"),
    (lambda obs, masks: np.zeros(len(masks), dtype=np.int64), "illegal action"),
    (lambda obs, masks: np.full(len(masks), ACTION_COUNT), "out of range"),
    (lambda obs, masks: "e5", "shape"),
])
def test_a_bad_callable_opponent_is_one_value_error_and_changes_nothing(answer, match):
    """Wrong shape, dtype or an illegal action: one ValueError naming it; the step (the caller's own
    actions included) and the reset are undone, and the games go on with a good answer."""
    good = True

    def opponent(obs, masks):
        return masks.argmax(axis=1) if good else answer(obs, masks)

    vg = VectorGame(4, seed=6, opponents={1: opponent})
    rng = np.random.default_rng(0)
    for _ in range(5):
        vg.step(vg.sample_actions(rng))

    def snapshot():
        return (vg.observations(), vg.current_players(), vg.seeds(), vg.episodes(), vg.seed, vg.version,
                [vg.copy_game(i).to_dict() for i in range(4)])

    before = snapshot()
    good = False
    actions = vg.sample_actions(rng)
    with pytest.raises(ValueError, match=match):
        vg.step(actions)
    after = snapshot()
    for x, y in zip(before, after):
        np.testing.assert_equal(x, y)
    with pytest.raises(ValueError, match=match):
        vg.reset(99)
    for x, y in zip(before, snapshot()):
        np.testing.assert_equal(x, y)
    good = True
    vg.step(actions)  # the same batch plays once the callable answers well
    assert vg.version == before[5] + 1


def test_a_callable_opponent_that_raises_changes_nothing():
    def opponent(obs, masks):
        if fail:
            raise KeyError("snapshot 7 missing")
        return masks.argmax(axis=1)

    fail = False
    vg = VectorGame(3, seed=2, opponents={1: opponent})
    obs = vg.observations()
    fail = True
    with pytest.raises(KeyError, match="snapshot 7"):
        vg.step(vg.sample_actions(np.random.default_rng(0)))
    np.testing.assert_array_equal(vg.observations(), obs)


def test_vector_env_net_and_callable_opponents_match_the_per_game_env():
    """``SequenceVectorEnv(opponents="net")`` plays the games that the per-game env with the ``net``
    opponent (the agent, in Python) plays from the same deals and actions; a callable and
    ``policy:PATH.sqnet`` are opponents too, and a callable sees scaled observations with
    ``normalize=True``."""
    SequenceVectorEnv = _vector_env()
    from sequence_game.agents.net import DEFAULT_WEIGHTS
    from sequence_game.envs.gymnasium import SequenceEnv
    from sequence_game.observation import OBSERVATION_SCALE

    for seat in (0, 1):
        venv = SequenceVectorEnv(3, opponents="net", seat=seat, seed=5, max_turns=1000)
        obs, infos = venv.reset(seed=5)
        envs = [SequenceEnv(opponents="net", seat=seat, max_turns=1000) for _ in range(3)]
        per = [e.reset(options={"game_seed": int(s)})[0] for e, s in zip(envs, venv.game.seeds())]
        rng = np.random.default_rng(seat)
        for _ in range(30):
            for i in range(3):
                np.testing.assert_array_equal(obs[i], per[i])
            actions = venv.sample_actions(rng)
            obs, rewards, terminated, truncated, infos = venv.step(actions)
            for i, e in enumerate(envs):
                o, r, te, tr, _ = e.step(int(actions[i]))
                assert (r, te, tr) == (rewards[i], terminated[i], truncated[i])
                per[i] = e.reset(options={"game_seed": int(venv.game.seeds()[i])})[0] if te or tr else o
    seen = []

    def opponent(o, masks):
        seen.append(o)
        return masks.argmax(axis=1)

    venv = SequenceVectorEnv(2, opponents=opponent, seed=1, normalize=True)
    assert venv.opponents == {1: venv.game.opponents[1]} and callable(venv.opponents[1])
    venv.reset(seed=1)
    venv.step(venv.sample_actions(np.random.default_rng(0)))
    assert seen and max(float((o * OBSERVATION_SCALE).max()) for o in seen) > 1.5  # scaled
    assert all(float(o.max()) <= 1.0 for o in seen)
    venv = SequenceVectorEnv(2, opponents={1: f"policy:{DEFAULT_WEIGHTS}"}, seed=1)
    assert venv.opponents == {1: f"net:weights={os.path.abspath(DEFAULT_WEIGHTS)}"}
