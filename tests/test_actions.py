"""The fixed action space (docs/action-space.md): one encoding per language (the C++ header and
``sequence_game.actions``) that agree, and every legal move (R7 declares choices included)
reachable as a sequence of actions, on the core and the reference alike."""

from __future__ import annotations

import random

import numpy as np
import pytest
import sequence_game
from helpers import CONFIGS, board_rows, position_dict, seq
from hypothesis import given, settings
from sequence_game import IllegalMoveError, Move, _core, actions
from strategies import positions

# 7H on d6 (row 5, col 3) completes 7 in a row east-west (a6-g6) and south-north (d3-d9):
# three windows to choose from in each direction (R7: the player picks which five).
CROSS = dict(B=["a6", "b6", "c6", "e6", "f6", "g6", "d3", "d4", "d5", "d7", "d8", "d9"])


def cross_game(Game):
    return Game.from_dict(position_dict(2, board=board_rows(**CROSS), hands=[["7H", "2S"], ["3S"]]))


def action_paths(game):
    """Every complete sequence of actions from here that plays one move: {move: [actions]}."""
    out = {}
    for a in game.legal_actions():
        g = game.copy()
        g.play_action(a)
        if g.pending_placement is None:
            out[_last_move(game, g)] = [a]
        else:
            for move, rest in action_paths(g).items():
                out[move] = [a] + rest
    return out


def _last_move(before, after):
    """The move that took ``before`` to ``after`` (found among before's legal moves)."""
    target = after.to_dict()
    for m in before.legal_moves():
        g = before.copy()
        g.play(m)
        if g.to_dict() == target:
            return m
    raise AssertionError("no legal move gives this position")


# ---------------------------------------------------------------- one encoding per language


def test_encoding_constants_match_the_core():
    assert (actions.ACTION_COUNT, actions.TRADE_ACTION_BASE, actions.PASS_ACTION) == (5253, 5200, 5252)
    assert (_core.ACTION_COUNT, _core.TRADE_ACTION_BASE, _core.PASS_ACTION) == (5253, 5200, 5252)
    assert _core.CORNER_CELLS == actions.CORNER_CELLS
    assert len(actions.WINDOWS) == 192


def test_windows_and_declare_actions_match_the_core():
    for w, cells in enumerate(actions.WINDOWS):
        assert _core.window_cells(w) == cells
        assert _core.declare_action(w) == actions.declare_action(w)
    for a in range(actions.ACTION_COUNT):
        assert _core.window_of_action(a) == actions.window_of_action(a), a
    declares = [actions.declare_action(w) for w in range(192)]
    assert len(set(declares)) == 192
    # R5: no chip is ever placed on or removed from a corner, so these slots are free.
    assert all(a % 100 in actions.CORNER_CELLS and a < actions.TRADE_ACTION_BASE for a in declares)


def _all_legal_ids(seed_count=40):
    rng = random.Random(5)
    for players, teams in CONFIGS:
        for seed in range(seed_count // len(CONFIGS) + 1):
            g = sequence_game.Game(players=players, teams=teams, seed=seed)
            for _ in range(rng.randrange(0, 80)):
                if g.is_over:
                    break
                yield from g.legal_move_ids()
                g.play_id(rng.choice(g.legal_move_ids()))


def test_move_ids_and_their_actions_match_the_core():
    seen = 0
    for move_id in _all_legal_ids():
        assert actions.action_of_move_id(move_id) == _core.action_of_move_id(move_id)
        move = actions.move_from_id(move_id)
        assert actions.move_id(move) == move_id
        assert actions.action_of_move(move) == actions.action_of_move_id(move_id)
        seen += 1
    assert seen > 1000


def test_r7_move_ids_with_declares_round_trip(Game):
    g = cross_game(Game)
    moves = g.legal_moves()
    placements = [m for m in moves if m.card == "7H" and m.cell == (5, 3)]
    assert len(placements) == 9  # 3 x 3 choices (R7)
    for m in placements:
        assert actions.move_from_id(actions.move_id(m)) == m
    nine = Move.parse("2H@e6 =a6-e6 =e6-i6")
    assert actions.move_from_id(actions.move_id(nine)) == nine


def test_describe_action_names_each_kind():
    assert actions.describe_action(actions.action_of_move(Move.parse("7H@d6"))) == "7H@d6"
    assert actions.describe_action(actions.action_of_move(Move.parse("JSxe5"))) == "JSxe5"
    assert actions.describe_action(actions.TRADE_ACTION_BASE + 29) == "trade 9H"
    assert actions.describe_action(actions.PASS_ACTION) == "pass"
    w = actions.WINDOW_IDS[tuple(10 * r + c for r, c in seq(["a6", "b6", "c6", "d6", "e6"]))]
    assert actions.describe_action(actions.declare_action(w)) == "declare a6-e6"
    with pytest.raises(ValueError):
        actions.describe_action(5253)


# ---------------------------------------------------------------- every legal move is an action (R7)


def test_r7_a_declares_choice_is_a_follow_up_decision_by_the_same_player(Game):
    g = cross_game(Game)
    start = g.to_dict()
    place = actions.CARD_IDS["7H"] * 100 + 53
    assert g.legal_mask()[place]
    g.play_action(place)
    assert g.to_dict() == start  # nothing played yet
    assert g.current_player == 0 and g.pending_placement == Move("place", "7H", (5, 3))
    # East first: the three windows of a6..g6 through d6.
    east = [actions.declare_action(actions.WINDOW_IDS[tuple(50 + c for c in range(s, s + 5))]) for s in range(3)]
    assert g.legal_actions() == sorted(east)
    assert int(g.legal_mask().sum()) == 3
    g.play_action(east[1])  # b6-f6
    assert g.pending_placement == Move.parse("7H@d6 =b6-f6")
    south = g.legal_actions()
    assert len(south) == 3 and not set(south) & set(east)
    g.play_action(south[2])  # declare actions ascend with their windows: d5-d9 comes last
    assert g.pending_placement is None and g.turn == 1 and g.winner == 0  # R8: two sequences at once
    assert sorted(g.sequences) == sorted([(0, seq(["b6", "c6", "d6", "e6", "f6"])), (0, seq(["d5", "d6", "d7", "d8", "d9"]))])


@pytest.mark.parametrize("impl", ["core", "reference"])
def test_r7_every_legal_move_is_reachable_by_actions_in_the_cross(impl):
    from conftest import load_game_class

    g = cross_game(load_game_class(impl))
    paths = action_paths(g)
    assert set(paths) == set(g.legal_moves())
    for move, path in paths.items():
        assert len(path) == (3 if move.card == "7H" and move.cell == (5, 3) else 1)


@settings(max_examples=60, deadline=None)
@given(positions(allow_over=False))
def test_r7_every_legal_move_is_reachable_and_core_and_reference_agree(d):
    core = sequence_game.Game.from_dict(d)
    ref = sequence_game.reference.Game.from_dict(d)

    def walk(c, r):
        assert c.legal_actions() == r.legal_actions()
        assert np.array_equal(c.legal_mask(), r.legal_mask())
        assert np.flatnonzero(c.legal_mask()).tolist() == c.legal_actions()
        reached = set()
        for a in c.legal_actions():
            c2, r2 = c.copy(), r.copy()
            c2.play_action(a)
            r2.play_action(a)
            assert c2.pending_placement == r2.pending_placement
            if c2.pending_placement is None:
                assert c2.to_dict() == r2.to_dict()
                reached.add(repr(c2.to_dict()))
            else:
                reached |= walk(c2, r2)
        return reached

    reached = walk(core, ref)
    expected = set()
    for m in core.legal_moves():
        g = core.copy()
        g.play(m)
        expected.add(repr(g.to_dict()))
    assert reached == expected


def test_every_action_agrees_between_core_and_python_mirror_in_random_games():
    rng = random.Random(11)
    for players, teams in CONFIGS:
        g = sequence_game.Game(players=players, teams=teams, seed=players * 7 + teams)
        for _ in range(60):
            if g.is_over:
                break
            ids = g.legal_move_ids()
            for a in rng.sample(range(actions.ACTION_COUNT), 40) + g.legal_actions():
                assert g._state.resolve_action(a, None) == actions.resolve_action(ids, None, a)
            g.play_action(rng.choice(g.legal_actions()))


def test_play_by_actions_gives_the_same_game_on_core_and_reference():
    for players, teams in CONFIGS:
        core = sequence_game.Game(players=players, teams=teams, seed=3, max_turns=40)
        ref = sequence_game.reference.Game(players=players, teams=teams, seed=3, max_turns=40)
        rng = random.Random(players)
        while not core.is_over:
            legal = core.legal_actions()
            assert legal == ref.legal_actions()
            a = rng.choice(legal)
            core.play_action(a)
            ref.play_action(a)
        assert ref.is_over and core.to_dict() == ref.to_dict()
        assert not core.legal_mask().any() and core.legal_actions() == []


# ---------------------------------------------------------------- refusals leave everything unchanged


def test_illegal_actions_raise_and_change_nothing(Game):
    g = cross_game(Game)
    before = g.to_dict()
    for bad in (actions.PASS_ACTION, actions.declare_action(0), actions.CARD_IDS["7H"] * 100 + 54,
                actions.TRADE_ACTION_BASE + actions.CARD_IDS["2S"]):
        with pytest.raises(IllegalMoveError, match="not legal now"):
            g.play_action(bad)
        assert g.to_dict() == before and g.pending_placement is None
    g.play_action(actions.CARD_IDS["7H"] * 100 + 53)
    pending = g.pending_placement
    for bad in (actions.CARD_IDS["2S"] * 100 + 1, actions.declare_action(0), actions.PASS_ACTION):
        with pytest.raises(IllegalMoveError, match="waits for its sequences"):
            g.play_action(bad)
        assert g.to_dict() == before and g.pending_placement == pending
    with pytest.raises(TypeError):
        g.play_action("53")
    with pytest.raises(TypeError):
        g.play_action(True)
    with pytest.raises(ValueError, match="out of range"):
        g.play_action(5253)
    with pytest.raises(ValueError, match="out of range"):
        g.play_action(-1)
    assert g.pending_placement == pending


def test_a_change_to_the_game_drops_the_pending_placement_and_copy_keeps_it(Game):
    g = cross_game(Game)
    g.play_action(actions.CARD_IDS["7H"] * 100 + 53)
    c = g.copy()
    assert c.pending_placement == g.pending_placement
    g.play("2S@b1")
    assert g.pending_placement is None and g.turn == 1
    assert c.pending_placement is not None
    c.play_action(c.legal_actions()[0])
    c.play_action(c.legal_actions()[0])
    assert c.turn == 1 and c.pending_placement is None
    c.undo()
    assert c.pending_placement is None and c.turn == 0


def test_core_refuses_a_forged_pending_placement():
    g = cross_game(sequence_game.Game)
    state = g._state
    for forged in (3, 1 | 0 << 2 | 0 << 8, actions.move_id(Move.parse("7H@d6 =b6-f6 =d4-d8")), 2**32 - 1):
        with pytest.raises(ValueError, match="pending"):
            state.legal_action_mask(forged)
        with pytest.raises(ValueError, match="pending"):
            state.observation_tensor(0, forged)
    with pytest.raises(TypeError):
        state.legal_action_mask("x")


def test_legal_mask_out_buffer_is_written_in_place():
    g = sequence_game.Game(players=2, seed=4)
    out = np.ones(actions.ACTION_COUNT, dtype=bool)
    result = g._state.legal_action_mask(None, out)
    assert result is out or np.shares_memory(result, out)
    assert np.array_equal(out, g.legal_mask())
    with pytest.raises(TypeError):
        g._state.legal_action_mask(None, np.zeros(actions.ACTION_COUNT, dtype=np.int8))
    with pytest.raises(ValueError):
        g._state.legal_action_mask(None, np.zeros(10, dtype=bool))
