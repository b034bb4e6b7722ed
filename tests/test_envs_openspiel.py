"""The OpenSpiel game ``python_sequence`` passes ``pyspiel.random_sim_test`` for every player count
and team split (R2), re-deals exactly the unseen cards in ``resample_from_infostate`` (R9), and
runs OpenSpiel's Python ISMCTSBot and evaluate_bots."""

from __future__ import annotations

import base64
import json
import os
import pickle
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pyspiel = pytest.importorskip("pyspiel", reason="the [openspiel] extra is not installed")
import sequence_game.envs.openspiel as so  # noqa: E402
from helpers import CONFIGS, board_rows, position_dict  # noqa: E402
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots  # noqa: E402
from sequence_game import Game, Move  # noqa: E402
from sequence_game.agents import GreedyAgent, RandomAgent  # noqa: E402
from test_actions import CROSS  # noqa: E402


def load(players=2, teams=None, max_turns=None):
    params = {"players": players}
    if teams is not None:
        params["teams"] = teams
    if max_turns is not None:
        params["max_turns"] = max_turns
    return pyspiel.load_game("python_sequence", params)


def dealt(game, seed=0):
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(int(rng.randint(256)))
    return state


@pytest.mark.parametrize("players,teams", CONFIGS)
def test_openspiel_random_sim_test(players, teams):
    game = load(players, teams)
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=2 if players <= 4 else 1, serialize=True, verbose=False)


def test_game_type_and_sizes():
    game = load(6, 3, max_turns=50)
    kind = game.get_type()
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game.num_distinct_actions() == 5253 and game.max_chance_outcomes() == 256
    assert game.observation_tensor_size() == 890
    assert game.information_state_tensor_size() == 6 + 7 + 2 * 6 * 50  # so.recall_layout
    assert game.max_game_length() == 8 + 6 * 50
    assert game.get_parameters() == {"players": 6, "teams": 3, "max_turns": 50}
    with pytest.raises(Exception, match="players"):
        load(5)


def test_the_observation_tensor_is_the_seats():
    state = dealt(load(4), seed=3)
    for p in range(4):
        expected = state.game.observation_tensor(p)
        assert np.array_equal(np.array(state.observation_tensor(p), dtype=np.float32), expected)
        assert " ".join(state.game.hand(p)) in state.observation_string(p)


@pytest.mark.parametrize("players,teams,utility", [
    (2, None, "ZERO_SUM"), (4, 2, "ZERO_SUM"), (6, 2, "ZERO_SUM"), (3, 3, "GENERAL_SUM"), (6, 3, "GENERAL_SUM")])
def test_two_teams_are_zero_sum_and_three_are_not(players, teams, utility):
    game = load(players, teams, max_turns=80)
    assert game.get_type().utility == getattr(pyspiel.GameType.Utility, utility)
    sums = set()
    for seed in range(4):
        state = dealt(game, seed)
        _play_some(state, 10_000, seed)
        assert state.is_terminal()
        sums.add(sum(state.returns()))
    if utility == "ZERO_SUM":
        assert sums == {0.0} and game.utility_sum() == 0.0
    else:
        assert sums - {0.0}, "a three-team win does not sum to 0"  # so no constant sum


def test_information_state_tensor_has_perfect_recall():
    """Equal information state strings (perfect recall: own deal and draws, every action) give equal
    tensors and different ones different tensors, over the states of random games; a resampled
    world (R9) keeps the tensor, and a player's tensor holds none of another's draws."""
    game = load(2, max_turns=40)
    tensors = {}
    for seed in range(3):
        state = dealt(game, seed % 2)  # two games from one deal: histories that share a prefix
        rng = np.random.RandomState(seed)
        while not state.is_terminal():
            for p in range(2):
                text = state.information_state_string(p)
                tensor = np.array(state.information_state_tensor(p), dtype=np.float32)
                assert np.array_equal(tensors.setdefault(text, tensor), tensor)
            state.apply_action(int(rng.choice(state.legal_actions())))
    texts = list(tensors)
    assert len({tensors[t].tobytes() for t in texts}) == len(texts) > 200
    state = dealt(game, 7)
    _play_some(state, 30, seed=2)
    me = state.current_player()
    world = state.resample_from_infostate(me, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert world.information_state_tensor(me) == state.information_state_tensor(me)
    fields = dict(so.recall_layout(2, 40))
    draws = slice(2 + fields["deal"] + fields["actions"], None)
    mine, theirs = (np.array(state.information_state_tensor(p))[draws] for p in (me, 1 - me))
    assert not (np.flatnonzero(mine) == np.flatnonzero(theirs)[:, None]).any()  # draws after own actions only


def _play_some(state, n, seed):
    rng = np.random.RandomState(seed)
    for _ in range(n):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("players,teams", [(2, None), (4, 2), (6, 3)])
def test_r9_resample_re_deals_exactly_the_unseen_cards(players, teams):
    state = dealt(load(players, teams), seed=players)
    _play_some(state, 40, seed=1)
    assert not state.is_terminal()
    me = state.current_player()
    d = state.game.to_dict()
    unseen = Counter(c for p, h in enumerate(d["hands"]) if p != me for c in h) + Counter(d["draw_pile"])
    changed = 0
    for _ in range(20):
        world = state.resample_from_infostate(me, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        w = world.game.to_dict()
        assert world.information_state_string(me) == state.information_state_string(me)
        assert np.array_equal(world.game.observation_tensor(me), state.game.observation_tensor(me))
        assert w["hands"][me] == d["hands"][me]
        assert [len(h) for h in w["hands"]] == [len(h) for h in d["hands"]]
        assert len(w["draw_pile"]) == len(d["draw_pile"])
        assert Counter(c for p, h in enumerate(w["hands"]) if p != me for c in h) + Counter(w["draw_pile"]) == unseen
        assert (w["board"], w["discards"], w["sequences"], w["turn"]) == (d["board"], d["discards"], d["sequences"], d["turn"])
        assert world.legal_actions() == state.legal_actions()  # the own hand and the board decide them
        changed += w["hands"] != d["hands"] or w["draw_pile"] != d["draw_pile"]
    assert changed >= 19  # a re-deal, not a copy
    assert state.game.to_dict() == d  # the original is untouched


def test_information_state_string_has_perfect_recall_of_own_draws_only():
    state = dealt(load(2), seed=5)
    first = state.current_player()
    other = 1 - first
    before_other = state.information_state_string(other)
    state.apply_action(state.legal_actions()[0])
    mine = state.information_state_string(first)
    theirs = state.information_state_string(other)
    assert mine.count("\ndrew ") == 1  # the mover saw the card it drew
    assert theirs.startswith(before_other) and "drew" not in theirs  # the other player did not


def test_ismcts_bot_and_evaluate_bots_run():
    game = load(2, max_turns=30)
    bots = [so.ismcts_bot(game, max_simulations=5, seed=1), so.AgentBot(GreedyAgent(seed=2))]
    returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert len(returns) == 2 and all(r in (-1.0, 0.0, 1.0) for r in returns)
    three = load(3, max_turns=20)
    bots = [so.AgentBot(RandomAgent(seed=s)) for s in range(3)]
    assert len(evaluate_bots(three.new_initial_state(), bots, np.random.RandomState(1))) == 3


def test_agent_bot_plays_a_move_with_declares_by_its_actions():
    game = Game.from_dict(position_dict(2, board=board_rows(**CROSS), hands=[["7H", "2S"], ["3S"]]))
    move = Move.parse("7H@d6 =c6-g6 =d3-d7")
    actions = so.action_sequence(game, move)
    assert len(actions) == 3
    for a in actions:
        game.play_action(a)
    assert game.winner == 0 and sorted(s for _, s in game.sequences) == sorted(move.declares)


# ---------------------------------------------------------------- serialization: text, replayed, no pickle


def _played(game, plies, seed=0):
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal() and len(state.history()) < plies:
        state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("players,teams", [(2, 2), (3, 3), (4, 2)])
@pytest.mark.parametrize("plies", [0, 3, 8, 9, 40, 10**6])
def test_serialize_is_parameters_and_history_and_replays_the_same_state(players, teams, plies):
    game = load(players, teams, max_turns=300)
    state = _played(game, plies, seed=plies)
    text = state.serialize()
    data = json.loads(text)
    assert data == {"format": so.STATE_FORMAT, "players": players, "teams": teams, "max_turns": 300,
                    "history": state.history()}
    again = game.deserialize_state(text)
    assert again.history() == state.history() and str(again) == str(state)
    assert again.is_terminal() == state.is_terminal() and again.returns() == state.returns()
    for p in range(players):
        assert again.information_state_string(p) == state.information_state_string(p)
        assert again.observation_tensor(p) == state.observation_tensor(p)
    if not state.is_terminal():
        assert again.legal_actions() == state.legal_actions()
    assert pickle.loads(pickle.dumps(state)).history() == state.history()  # the same text inside


def test_deserialize_never_unpickles(tmp_path):
    """OpenSpiel's default for Python games unpickles a field of the text: a crafted state string
    ran code on load. The text is JSON now; the old form is refused before anything is run."""
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return os.makedirs, (str(marker),)

    crafted = "history=\nmove_number=0\n__dict__=" + base64.b64encode(pickle.dumps({"x": Payload()})).decode()
    game = load()
    with pytest.raises(ValueError, match="not a python_sequence-state/1 state"):
        game.deserialize_state(crafted)
    assert not marker.exists()
    assert "__dict__" not in game.new_initial_state().serialize()


def _mutations(text):
    data = json.loads(text)
    history = data["history"]
    yield {**data, "players": 3}, "players=3"
    yield {**data, "teams": True}, "teams=True"
    yield {**data, "max_turns": 1000.0}, "max_turns=1000.0"
    yield {**data, "seed": 1}, "the keys must be"
    yield {k: v for k, v in data.items() if k != "history"}, "the keys must be"
    yield {**data, "format": "python_sequence-state/2"}, "not a python_sequence-state/1"
    yield {**data, "history": history + [5252]}, f"history\\[{len(history)}\\]: 5252 is not legal here"
    yield {**data, "history": [256] + history[1:]}, "history\\[0\\]: 256 is not a chance outcome"
    yield {**data, "history": history[:3] + [True] + history[4:]}, "history\\[3\\] is True, not an action"
    yield {**data, "history": history[:9] + ["1"] + history[10:]}, "history\\[9\\] is '1', not an action"
    yield {**data, "history": {"0": 1}}, "history must be a list"


def test_deserialize_refuses_every_change_to_the_format_with_one_clear_line():
    game = load(2, 2, max_turns=300)
    text = _played(game, 30).serialize()
    for data, message in _mutations(text):
        with pytest.raises(ValueError, match=message) as e:
            game.deserialize_state(json.dumps(data))
        assert "\n" not in str(e.value) and len(str(e.value)) < 300
    ended = _played(game, 10**6, seed=2)
    assert ended.is_terminal()
    with pytest.raises(ValueError, match="the game is over before this action"):
        game.deserialize_state(json.dumps({**json.loads(ended.serialize()), "history": ended.history() + [0]}))
    with pytest.raises(TypeError):
        game.deserialize_state(text.encode())


@settings(max_examples=150, deadline=None)
@given(st.one_of(
    st.text(max_size=200),
    st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
                 lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                 max_leaves=20).map(json.dumps),
    st.integers(1, 100_000).map(lambda depth: "[" * depth + "]" * depth),
    st.lists(st.integers(-(2**70), 2**70), max_size=30).map(
        lambda h: json.dumps({"format": so.STATE_FORMAT, "players": 2, "teams": 2, "max_turns": 1000, "history": h})),
))
def test_deserialize_of_any_text_is_a_state_or_a_value_error(text):
    game = load()
    try:
        state = game.deserialize_state(text)
    except ValueError as e:
        assert "\n" not in str(e) and len(str(e)) < 300
    else:
        assert state.serialize() == json.dumps(json.loads(text), separators=(",", ":"))
