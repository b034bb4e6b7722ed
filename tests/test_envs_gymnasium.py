"""The Gymnasium environment passes Gymnasium's own ``check_env`` for every player count and team
split (R2), is reproducible through ``reset(seed=)``, and does what docs/environments.md says for
masks, illegal actions, opponents, rewards (R8) and the turn cap."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
from gymnasium.utils.env_checker import check_env  # noqa: E402
from helpers import CONFIGS  # noqa: E402
from sequence_game import IllegalMoveError  # noqa: E402
from sequence_game.agents import GreedyAgent, RandomAgent  # noqa: E402
from sequence_game.envs.gymnasium import ENV_ID, SequenceEnv  # noqa: E402


@pytest.mark.parametrize("players,teams", CONFIGS)
def test_gymnasium_check_env(players, teams):
    e = gymnasium.make(ENV_ID, players=players, teams=teams, seat=players - 1, opponents="random")
    check_env(e.unwrapped)  # Gymnasium asks for the unwrapped env


def test_registered_and_default_opponents_are_greedy_in_the_core():
    e = gymnasium.make(ENV_ID, players=3)
    e.reset(seed=0)
    assert isinstance(e.unwrapped, SequenceEnv)
    assert e.unwrapped.opponents == {1: "greedy", 2: "greedy"} and e.unwrapped._vg is not None


@pytest.mark.parametrize("opponents", ["greedy", "random", {1: "greedy:seed=4"}, {1: "mcts:iterations=20"}])
def test_core_and_python_opponents_pass_check_env(opponents):
    e = SequenceEnv(players=2, opponents=opponents)
    check_env(e)
    assert (e._vg is not None) == isinstance(opponents, str)


def test_core_opponents_reach_only_the_learning_seat_and_play_legal_games():
    e = SequenceEnv(players=4, seat=2, opponents={0: "random", 1: "greedy", 3: "greedy"})
    for seed in range(3):
        obs, info = e.reset(seed=seed)
        done = False
        while not done:
            game = e.game
            assert game.current_player == 2 and np.array_equal(game.legal_mask(), info["action_mask"])
            assert np.array_equal(game.observation_tensor(2), obs) and info["turn"] == game.turn
            obs, reward, terminated, truncated, info = e.step(int(np.flatnonzero(info["action_mask"])[0]))
            done = terminated or truncated
        final = e.game
        assert final.is_over and info.get("winner") == final.winner and np.array_equal(final.observation_tensor(2), obs)


def _episode(e, seed, rng_seed=0):
    rng = np.random.default_rng(rng_seed)
    obs, info = e.reset(seed=seed)
    trace = [obs.copy()]
    while True:
        assert np.array_equal(info["action_mask"], e.unwrapped.action_masks())
        obs, reward, terminated, truncated, info = e.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        trace.append(obs.copy())
        if terminated or truncated:
            return trace, reward, terminated, truncated


def test_reset_seed_reproduces_the_episode_and_opponents():
    a = gymnasium.make(ENV_ID, players=4, opponents="greedy")
    b = gymnasium.make(ENV_ID, players=4, opponents="greedy")
    ta, ra, *_ = _episode(a, seed=11)
    tb, rb, *_ = _episode(b, seed=11)
    assert ra == rb and len(ta) == len(tb) and all(np.array_equal(x, y) for x, y in zip(ta, tb))
    tc, *_ = _episode(a, seed=12)
    assert len(tc) != len(ta) or not all(np.array_equal(x, y) for x, y in zip(ta, tc))


@pytest.mark.parametrize("opponents", ["net", "level:2", {1: "level:1", 2: "net", 3: "random"}])
def test_the_shipped_network_and_the_ladder_levels_are_opponents(opponents):
    """Every agent name the arena takes is an opponent here: the shipped network (``net``) and the
    ladder's levels (``level:N``) play in Python, reproducibly from ``reset(seed=)``."""
    a = gymnasium.make(ENV_ID, players=4, opponents=opponents, max_turns=120)
    b = gymnasium.make(ENV_ID, players=4, opponents=opponents, max_turns=120)
    assert a.unwrapped._vg is None  # not a seat the core plays
    ta, ra, *_ = _episode(a, seed=5)
    tb, rb, *_ = _episode(b, seed=5)
    assert ra == rb and len(ta) == len(tb) and all(np.array_equal(x, y) for x, y in zip(ta, tb))
    assert a.unwrapped.game.turn > 4  # the opponents moved


def test_batched_envs_name_where_python_opponents_play():
    """The batched forms step every game in one core call, so their opponents are the core's own
    seats (the network among them) or a callable over batched observations: another Python agent
    (a level, a search) is refused with a message naming the env that plays it."""
    from sequence_game.envs.vector import SequenceVectorEnv

    assert SequenceVectorEnv(2, opponents="net", seed=1).opponents == {1: "net"}
    for spec in ("level:3", "mcts"):
        with pytest.raises(ValueError, match=r"core plays only 'random', 'greedy', 'net'.*SequenceEnv"):
            SequenceVectorEnv(2, opponents=spec)


@pytest.mark.parametrize("players,teams,seat", [(2, None, 1), (6, 3, 2), (4, 2, 3)])
def test_r8_reward_is_the_seats_team_result(players, teams, seat):
    e = SequenceEnv(players=players, teams=teams, seat=seat, opponents="random")
    for seed in range(5):
        _trace, reward, terminated, truncated = _episode(e, seed)
        game = e.game
        assert game.is_over and terminated != truncated
        expected = 0.0 if game.winner is None else (1.0 if seat % game.teams == game.winner else -1.0)
        assert reward == expected
        with pytest.raises(RuntimeError, match="reset"):
            e.step(0)


def test_turn_cap_is_truncation():
    e = SequenceEnv(players=2, opponents="random", max_turns=4)
    _trace, reward, terminated, truncated = _episode(e, seed=3)
    assert truncated and not terminated and reward == 0.0 and e.game.turn == 4


def test_illegal_action_loses_by_default_and_raises_on_request():
    e = SequenceEnv(players=2)
    obs, info = e.reset(seed=4)
    before = e.game.to_dict()
    bad = int(np.flatnonzero(~info["action_mask"])[0])
    _obs, reward, terminated, truncated, info = e.step(bad)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert e.game.to_dict() == before and not info["action_mask"].any()
    strict = SequenceEnv(players=2, illegal="raise")
    strict.reset(seed=4)
    with pytest.raises(IllegalMoveError):
        strict.step(bad)
    assert strict.game.to_dict() == before
    good = int(np.flatnonzero(strict.action_masks())[0])
    strict.step(good)


def test_opponents_as_a_seat_dict_of_agents_and_specs_or_a_deprecated_list():
    agent = RandomAgent(seed=1)
    e = SequenceEnv(players=3, seat=1, opponents={0: agent, 2: "greedy:seed=2"})
    e.reset(seed=0)
    assert e.opponents[0] is agent and isinstance(e.opponents[2], GreedyAgent)
    with pytest.warns(DeprecationWarning, match=r"\{0: 'random', 2: 'greedy'\}"):
        old = SequenceEnv(players=3, seat=1, opponents=["random", "greedy"])
    assert old._opponent_specs == {0: "random", 2: "greedy"}
    with pytest.raises(ValueError, match="list of 1"):
        SequenceEnv(players=3, opponents=["random"])
    with pytest.raises(ValueError, match="learning seat"):
        SequenceEnv(players=3, seat=1, opponents={1: "random"})
    with pytest.raises(ValueError, match=r"seat\(s\) \[2\]"):
        SequenceEnv(players=3, opponents={1: "random"})
    with pytest.raises(ValueError, match="seat 5"):
        SequenceEnv(players=3, opponents={5: "random"})
    with pytest.raises(ValueError, match="unknown agent"):
        SequenceEnv(opponents="alphazero")
    with pytest.raises(TypeError, match="agent"):
        SequenceEnv(opponents={1: object()})
    with pytest.raises(ValueError, match="seat"):
        SequenceEnv(players=2, seat=2)
    with pytest.raises(ValueError, match="illegal"):
        SequenceEnv(illegal="ignore")


def test_check_env_through_make_prints_no_board(capsys):
    """``check_env`` on a ``gymnasium.make`` env resets and renders every declared render mode:
    ``"human"`` prints during ``step`` only, so the check prints nothing."""
    check_env(gymnasium.make(ENV_ID, opponents="random"))
    assert capsys.readouterr().out == ""
    env = SequenceEnv(render_mode="human", opponents="random")
    _obs, info = env.reset(seed=1)
    assert env.render() is None and capsys.readouterr().out == ""
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert str(env.unwrapped.game).splitlines()[0] in capsys.readouterr().out  # printed by step


def test_ansi_render():
    e = SequenceEnv(render_mode="ansi")
    e.reset(seed=1)
    assert e.render() == str(e.game)


def test_rgb_array_render_draws_the_board():
    e = SequenceEnv(render_mode="rgb_array", opponents="random")
    e.reset(seed=1)
    for _ in range(10):
        e.step(int(np.flatnonzero(e.action_masks())[0]))
    image = e.render()
    assert image.shape == (240, 240, 3) and image.dtype == np.uint8
    board = e.game.board
    centre = image[12::24, 12::24]  # the middle pixel of every cell
    empty, chips = centre[board == -1], centre[(board == 0) | (board == 1)]
    assert len(chips) >= 10 and (empty == empty[0]).all() and not (chips == empty[0]).all(axis=1).any()
    with pytest.raises(ValueError, match="rgb_array"):
        SequenceEnv(render_mode="video")


def test_normalize_divides_by_the_published_scale():
    from sequence_game.observation import OBSERVATION_SCALE

    raw, scaled = SequenceEnv(opponents="random"), SequenceEnv(opponents="random", normalize=True)
    a, _ = raw.reset(seed=5)
    b, _ = scaled.reset(seed=5)
    np.testing.assert_allclose(b, a / OBSERVATION_SCALE, rtol=1e-6)
    assert scaled.observation_space.contains(b) and float(scaled.observation_space.high.max()) < 3e6


def test_stable_baselines3_make_vec_env_with_the_string_id():
    sb3 = pytest.importorskip("stable_baselines3", reason="the [train] extra is not installed")
    venv = sb3.common.env_util.make_vec_env(ENV_ID, n_envs=2, seed=0, env_kwargs={"opponents": "random"})
    obs = venv.reset()
    assert obs.shape == (2, 890) and venv.render_mode == "rgb_array"
    masks = np.stack(venv.env_method("action_masks"))
    venv.step(np.array([np.flatnonzero(m)[0] for m in masks]))
    venv.close()  # spawn workers: test_spawn_workers_make_the_env_in_every_documented_form


_SPAWN_SCRIPT = """
import sys
{top}
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv


def main():
    import gymnasium
    from sequence_game.envs.gymnasium import SequenceEnv, SPAWN_ID
    ids = {{"class": SequenceEnv, "spawn_id": SPAWN_ID, "plain": "sequence_game/Sequence-v0"}}
    for form in sys.argv[1:]:
        if form == "async":  # Gymnasium's own vector env hands its workers the spec, which names the module
            env = gymnasium.make_vec("sequence_game/Sequence-v0", num_envs=1, vectorization_mode="async",
                                     vector_kwargs={{"context": "spawn"}}, opponents="random")
            print(form, env.reset(seed=0)[0].shape[1])
            env.close()
            continue
        venv = make_vec_env(ids[form], n_envs=1, seed=0, vec_env_cls=SubprocVecEnv,
                            vec_env_kwargs={{"start_method": "spawn"}}, env_kwargs={{"opponents": "random"}})
        try:
            print(form, venv.reset().shape[1])
        finally:
            venv.close()


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("forms, top", [(["class", "spawn_id", "async"], ""),
                                        (["plain"], "import sequence_game.envs.gymnasium")])
def test_spawn_workers_make_the_env_in_every_documented_form(tmp_path, forms, top):
    """What docs/environments.md promises for ``spawn`` workers (a fresh interpreter each, which
    runs only the main script's top level): the env class or ``SPAWN_ID`` from any script, and
    Gymnasium's async ``make_vec`` with the plain id; SB3's ``make_vec_env`` with the plain id when
    the script imports the module at its top level."""
    import os
    import subprocess
    import sys

    pytest.importorskip("stable_baselines3", reason="the [train] extra is not installed")
    script = tmp_path / "train.py"
    script.write_text(_SPAWN_SCRIPT.format(top=top))
    done = subprocess.run([sys.executable, str(script), *forms], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == [x for form in forms for x in (form, "890")]


_COLD_SCRIPT = """
import sys

import gymnasium
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

SPAWN_ID = "sequence_game.envs.gymnasium:sequence_game/Sequence-v0"  # written out: nothing imports the package


def main():
    venv = make_vec_env(SPAWN_ID, n_envs=1, seed=0, vec_env_cls=SubprocVecEnv,
                        vec_env_kwargs={"start_method": "spawn"}, env_kwargs={"opponents": "random"})
    try:
        print("sb3", venv.reset().shape[1], "sequence_game" in sys.modules)
    finally:
        venv.close()
    env = gymnasium.make_vec(SPAWN_ID, num_envs=1, vectorization_mode="async", vector_kwargs={"context": "spawn"},
                             opponents="random")
    try:
        print("async", env.reset(seed=0)[0].shape[1])
    finally:
        env.close()


if __name__ == "__main__":
    main()
"""


def test_spawn_workers_make_the_env_from_a_script_that_never_imports_the_package(tmp_path):
    """The module-qualified id, written out as a string, is the one form Gymnasium 1.x resolves in a
    fresh interpreter: the script imports only Gymnasium and SB3, and SB3's parent process never
    imports sequence_game at all (its spawn workers make every env)."""
    import os
    import subprocess
    import sys

    from sequence_game.envs.gymnasium import SPAWN_ID

    pytest.importorskip("stable_baselines3", reason="the [train] extra is not installed")
    assert SPAWN_ID in _COLD_SCRIPT
    script = tmp_path / "train.py"
    script.write_text(_COLD_SCRIPT)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["sb3", "890", "False", "async", "890"]


def test_gymnasium_make_vec_stacks_infos_across_episode_ends():
    """Every info key holds one type in every step (winner only once won), so Gymnasium's vector
    envs can stack the infos of games that end at different times."""
    env = gymnasium.make_vec(ENV_ID, num_envs=3, vectorization_mode="sync", opponents="random")
    _obs, infos = env.reset(seed=1)
    rng = np.random.default_rng(0)
    won = 0
    for _ in range(150):
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in infos["action_mask"]]
        _obs, rewards, terminated, _truncated, infos = env.step(actions)
        if "winner" in infos:
            won += int(infos["_winner"].sum())
            assert (rewards[infos["_winner"]] != 0).all()
    assert won > 0
    env.close()


def test_make_vec_vector_entry_point_is_the_batched_env():
    """``gymnasium.make_vec(id, n, vectorization_mode="vector_entry_point")`` builds
    ``SequenceVectorEnv``: the games in the core, with the id's arguments and its turn cap."""
    from sequence_game.envs.vector import SequenceVectorEnv

    env = gymnasium.make_vec(ENV_ID, num_envs=4, vectorization_mode="vector_entry_point", opponents="random",
                             players=3)
    assert isinstance(env.unwrapped, SequenceVectorEnv)
    assert env.num_envs == 4 and env.unwrapped.game.players == 3 and env.unwrapped.game.max_turns == 1000
    assert env.unwrapped.opponents == {1: "random", 2: "random"}
    obs, infos = env.reset(seed=2)
    assert obs.shape == (4, 890) and infos["action_mask"].shape == (4, 5253)
    rng = np.random.default_rng(0)
    for _ in range(5):
        obs, rewards, terminated, truncated, infos = env.step(env.unwrapped.sample_actions(rng))
    assert rewards.shape == terminated.shape == (4,)
    assert env.unwrapped.spec.id == ENV_ID
    env.close()
    with pytest.raises(TypeError, match="render_mode"):  # a per-game argument the batched env has not
        gymnasium.make_vec(ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", render_mode="ansi")
