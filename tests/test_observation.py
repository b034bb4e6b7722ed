"""The observation tensor (docs/observation.md): the layout of the core and of the Python mirror
agree, the fields mean what the table says, it is team-relative, and it shows a player nothing
that player may not see (R9)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
import sequence_game
from helpers import CONFIGS, board_rows, position_dict, random_midgame
from hypothesis import given, settings
from sequence_game import _core
from sequence_game.cards import CARD_IDS
from sequence_game.observation import LAYOUT, OBSERVATION_SIZE, PLANES, field_slice, planes
from strategies import positions
from test_actions import cross_game


def field(obs, name):
    return obs[field_slice(name)]


def test_layout_matches_the_core():
    assert LAYOUT == _core.OBSERVATION_LAYOUT
    assert OBSERVATION_SIZE == _core.OBSERVATION_SIZE == 890
    covered = sorted(LAYOUT.values())
    assert covered[0][0] == 0 and all(a + n == b for (a, n), (b, _) in zip(covered, covered[1:]))
    assert covered[-1][0] + covered[-1][1] == OBSERVATION_SIZE


def test_core_and_reference_write_the_same_tensor_in_random_games():
    for players, teams in CONFIGS:
        for seed in range(3):
            core = random_midgame(sequence_game.Game, players, teams, seed=seed, max_plies=150)
            if core is None:
                continue
            ref = sequence_game.reference.Game.from_dict(core.to_dict())
            for p in range(players):
                assert np.array_equal(core.observation_tensor(p), ref.observation_tensor(p)), (players, teams, seed, p)


@settings(max_examples=40, deadline=None)
@given(positions())
def test_core_and_reference_agree_on_hand_made_positions(d):
    core = sequence_game.Game.from_dict(d)
    ref = sequence_game.reference.Game.from_dict(d)
    for p in range(core.players):
        assert np.array_equal(core.observation_tensor(p), ref.observation_tensor(p))


def test_fields_mean_what_the_table_says():
    d = position_dict(
        3, board=board_rows(B=["b2", "c2"], G=["d4"], R=["e5", "f6"]),
        hands=[["7H", "7H", "2S"], ["3S"], ["JD", "4C"]],
        discards=[["5D"], ["5D", "9C"], []], current_player=1, turn=12, max_turns=200, passes=1,
    )
    g = sequence_game.Game.from_dict(d)
    obs = g.observation_tensor(1)  # seat 1, team 1 (green); next teams: 2 (red), then 0 (blue)
    cells = lambda name: {divmod(i, 10) for i in np.flatnonzero(field(obs, name))}  # noqa: E731
    assert cells("own_chips") == {(3, 3)}
    assert cells("next_team_chips") == {(4, 4), (5, 5)}
    assert cells("third_team_chips") == {(1, 1), (1, 2)}
    assert cells("corners") == {(0, 0), (0, 9), (9, 0), (9, 9)}
    assert cells("locked") == set() and cells("pending_cell") == set()
    assert field(obs, "hand")[CARD_IDS["3S"]] == 1 and field(obs, "hand").sum() == 1
    assert field(obs, "discards")[CARD_IDS["5D"]] == 2 and field(obs, "discards")[CARD_IDS["9C"]] == 1
    assert field(obs, "hand_sizes").tolist() == [1, 2, 3] + [0] * 9  # seats 1, 2, 0
    assert field(obs, "draw_pile")[0] == g.draw_pile_size
    assert field(obs, "to_move").tolist() == [1] + [0] * 11
    assert (field(obs, "turn")[0], field(obs, "max_turns")[0], field(obs, "passes")[0]) == (12, 200, 1)
    assert (field(obs, "players")[0], field(obs, "teams")[0]) == (3, 3)
    other = g.observation_tensor(0)
    assert field(other, "hand")[CARD_IDS["7H"]] == 2
    assert field(other, "to_move").tolist()[:3] == [0, 1, 0]


def test_team_relative_a_mirrored_position_looks_the_same_to_the_other_team():
    """R2: swapping the two teams' chips, hands and discards gives the other seat the same tensor."""
    rows = board_rows(B=["b2", "c2", "d2"], G=["e5", "f6"])
    swapped = [r.translate(str.maketrans("BG", "GB")) for r in rows]
    hands = [["7H", "2S"], ["3S", "KD"]]
    a = sequence_game.Game.from_dict(position_dict(2, board=rows, hands=hands, current_player=0))
    b = sequence_game.Game.from_dict(position_dict(2, board=swapped, hands=hands[::-1], current_player=1))
    assert np.array_equal(a.observation_tensor(0), b.observation_tensor(1))


def test_sequences_and_locked_chips():
    g = cross_game(sequence_game.Game)
    g.play_action(CARD_IDS["7H"] * 100 + 53)
    obs = g.observation_tensor(0)
    assert np.flatnonzero(field(obs, "pending_cell")).tolist() == [53]
    assert field(obs, "pending_card")[CARD_IDS["7H"]] == 1
    assert field(obs, "pending_declared").sum() == 0
    g.play_action(g.legal_actions()[0])  # a6-e6
    obs = g.observation_tensor(1)  # the pending placement is public: the chip is on the table
    assert np.flatnonzero(field(obs, "pending_declared")).tolist() == [50, 51, 52, 53, 54]
    g.play_action(g.legal_actions()[0])
    obs = g.observation_tensor(1)
    assert field(obs, "pending_cell").sum() == 0 and field(obs, "pending_card").sum() == 0
    assert field(obs, "sequences").tolist() == [0, 2, 0]  # seen by team 1: the next team has two
    assert field(obs, "locked").sum() == 9
    assert field(obs, "to_move").sum() == 0  # the game is over (R8)


def test_every_value_is_written_whatever_the_buffer_held():
    """The core writes each of the 890 values itself (it does not assume a zeroed buffer): an
    out= buffer full of NaN ends up equal to the reference's tensor, in random games played by
    actions for every configuration, and through an R7 pending placement and its declares."""
    def check(core, ref):
        for p in range(core.players):
            out = np.full(OBSERVATION_SIZE, np.nan, dtype=np.float32)
            core.observation_tensor(p, out=out)
            assert np.array_equal(out, ref.observation_tensor(p)), (core.players, core.teams, p)

    rng = random.Random(5)
    for players, teams in CONFIGS:
        core = sequence_game.Game(players=players, teams=teams, seed=players * 3 + teams)
        ref = sequence_game.reference.Game(players=players, teams=teams, seed=players * 3 + teams)
        for _ in range(25):
            check(core, ref)
            if core.is_over:
                break
            a = rng.choice(core.legal_actions())
            core.play_action(a)
            ref.play_action(a)
    core, ref = cross_game(sequence_game.Game), cross_game(sequence_game.reference.Game)
    for a in [CARD_IDS["7H"] * 100 + 53, None, None]:  # the placement, then its two declare actions
        a = core.legal_actions()[0] if a is None else a
        core.play_action(a)
        ref.play_action(a)
        check(core, ref)


def _redeal_hidden(d: dict, observer: int, rng: random.Random) -> dict:
    """Every card the observer cannot see (other hands, the draw pile) dealt again at random,
    with every hand size kept (R9: the order and whereabouts of these cards are secret)."""
    hidden = [c for p, h in enumerate(d["hands"]) if p != observer for c in h] + list(d["draw_pile"])
    rng.shuffle(hidden)
    out = dict(d)
    out["hands"] = []
    for p, h in enumerate(d["hands"]):
        if p == observer:
            out["hands"].append(list(h))
        else:
            out["hands"].append(hidden[: len(h)])
            hidden = hidden[len(h):]
    out["draw_pile"] = hidden
    out["rng"] = rng.getrandbits(64)
    out["seed"] = None
    out["last_draw"] = None
    return out


@pytest.mark.parametrize("players,teams", CONFIGS)
def test_r9_redealing_every_hidden_card_leaves_the_tensor_unchanged(players, teams):
    rng = random.Random(players * 10 + teams)
    checked = 0
    for seed in range(4):
        g = random_midgame(sequence_game.Game, players, teams, seed=seed, max_plies=120)
        if g is None:
            continue
        d = g.to_dict()
        d["last_draw"] = None  # R10 bookkeeping: the re-deal cannot keep the last draw in its hand
        g = sequence_game.Game.from_dict(d)
        for observer in range(players):
            seen = g.observation_tensor(observer)
            for _ in range(3):
                other = sequence_game.Game.from_dict(_redeal_hidden(d, observer, rng))
                assert np.array_equal(other.observation_tensor(observer), seen)
                checked += 1
            # The test can fail: a change the observer can see changes the tensor.
            mine = dict(d)
            own = list(d["hands"][observer])
            hidden = list(d["draw_pile"])
            if own and hidden and own[0] != hidden[0]:
                own[0], hidden[0] = hidden[0], own[0]
                mine["hands"] = [own if p == observer else h for p, h in enumerate(d["hands"])]
                mine["draw_pile"] = hidden
                assert not np.array_equal(sequence_game.Game.from_dict(mine).observation_tensor(observer), seen)
    assert checked > 0


def test_out_buffer_is_written_in_place_without_a_copy():
    g = sequence_game.Game(players=4, seed=2)
    out = np.full(OBSERVATION_SIZE, 7, dtype=np.float32)
    result = g.observation_tensor(1, out=out)
    assert np.shares_memory(result, out)
    assert np.array_equal(out, g.observation_tensor(1))
    ref = sequence_game.reference.Game(players=4, seed=2)
    out2 = np.full(OBSERVATION_SIZE, 7, dtype=np.float32)
    assert ref.observation_tensor(1, out=out2) is out2 and np.array_equal(out2, out)
    for Game in (sequence_game.Game, sequence_game.reference.Game):
        game = Game(players=2, seed=2)
        with pytest.raises(TypeError):
            game.observation_tensor(0, out=np.zeros(OBSERVATION_SIZE, dtype=np.float64))
        with pytest.raises((TypeError, ValueError)):
            game.observation_tensor(0, out=np.zeros(10, dtype=np.float32))
        with pytest.raises(ValueError):
            game.observation_tensor(2)
        with pytest.raises(TypeError):
            game.observation_tensor("0")


def test_planes_view():
    g = sequence_game.Game(players=2, seed=9)
    obs = g.observation_tensor(0)
    p = planes(obs)
    assert p.shape == (len(PLANES), 10, 10) and np.shares_memory(p, obs)
    assert p[PLANES.index("corners")].sum() == 4
    batch = np.stack([obs, obs])
    assert planes(batch).shape == (2, len(PLANES), 10, 10)


def test_hand_counts_match_the_hand():
    g = random_midgame(sequence_game.Game, 6, 3, seed=1)
    assert g is not None
    for p in range(6):
        counts = Counter(CARD_IDS[c] for c in g.hand(p))
        hand = field(g.observation_tensor(p), "hand")
        assert {i: int(v) for i, v in enumerate(hand) if v} == dict(counts)
