"""Differential tests: the compiled core against the pure-Python reference.

Same seed and the same (seeded random) moves: identical ``to_dict()`` and identical
``[str(m) for m in legal_moves()]`` after every move, identical exceptions for the same illegal
input; plus hypothesis-made positions loaded with ``from_dict``.

Skipped until ``sequence_game._core`` imports. Default: 50 games; ``SEQUENCE_SOAK=1``: 100,000.
``SEQUENCE_DIFF_SELF=1`` runs the harness with the reference on both sides (to check the harness
itself while the core is not built)."""

import os
import random

import pytest
from helpers import CONFIGS, SOAK, json_round
from hypothesis import given
from sequence_game.cards import CARD_NAMES, cell_name
from strategies import positions

SELF = os.environ.get("SEQUENCE_DIFF_SELF", "") not in ("", "0")
GAMES = 100_000 if SOAK else 50
CHUNK = 1000 if SOAK else 10
# The default run compares everything after every change. The soak compares the legal moves and the
# turn after every change and everything (to_dict, observations, errors for bad input) every
# FULL_EVERY changes and at the end, so 100,000 games fit in an evening on one core.
FULL_EVERY = 12 if SOAK else 1


@pytest.fixture
def impls():
    """(core Game, reference Game)."""
    from sequence_game.reference import Game as Ref

    if SELF:
        return Ref, Ref
    import sequence_game

    return sequence_game.Game, Ref


def _outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - we compare whatever is raised
        return type(e), str(e)
    return None


def assert_same(core, ref, where=""):
    dc, dr = core.to_dict(), ref.to_dict()
    assert dc == dr, f"to_dict differs {where}: " + ", ".join(k for k in dr if dc.get(k) != dr[k])
    assert [str(m) for m in core.legal_moves()] == [str(m) for m in ref.legal_moves()], f"legal moves differ {where}"
    for attr in ("players", "teams", "current_player", "dealer", "turn", "is_over", "winner", "is_draw",
                 "draw_pile_size", "traded_this_turn", "passes", "max_turns", "seed"):
        assert getattr(core, attr) == getattr(ref, attr), f"{attr} differs {where}"
    assert core.sequences == ref.sequences
    assert (core.board == ref.board).all()
    cells = [(r, c) for r in range(10) for c in range(10)]
    assert [core.locked(x) for x in cells] == [ref.locked(x) for x in cells], f"locked() differs {where}"
    for p in range(ref.players):
        assert core.observation(p) == ref.observation(p)


def _illegal_inputs(rng, ref):
    """A few inputs that the reference refuses (IllegalMoveError, InvalidMoveError or TypeError)."""
    out = []
    for _ in range(40):
        card = rng.choice(CARD_NAMES)
        cell = cell_name((rng.randrange(10), rng.randrange(10)))
        text = rng.choice([f"{card}@{cell}", f"JSx{cell}", f"JHx{cell}", f"trade {card}", "pass", f"{card}x{cell}",
                           f"JD@{cell} =a1-e1", "junk"])
        if not ref.is_legal(text):
            out.append(text)
        if len(out) == 3:
            break
    return out


def play_both(Core, Ref, seed, players, teams, max_turns, greed, rng):
    core = Core(players=players, teams=teams, seed=seed, max_turns=max_turns)
    ref = Ref(players=players, teams=teams, seed=seed, max_turns=max_turns)
    assert_same(core, ref, f"after the deal, seed {seed}")
    moves = []
    while not ref.is_over:
        where = f"seed {seed}, {players}p/{teams}t, after moves {' ; '.join(moves)}"
        full = len(moves) % FULL_EVERY == 0
        for bad in _illegal_inputs(rng, ref) if full else ():
            assert _outcome(lambda: core.play(bad)) == _outcome(lambda: ref.play(bad)), f"{bad!r}: {where}"
        last = ref.to_dict()["last_draw"]
        r = rng.random()
        if last is not None and r < 0.02:
            core.missed_draw(last["player"])
            ref.missed_draw(last["player"])
            moves.append(f"missed_draw({last['player']})")
        elif r < 0.03:
            team = rng.randrange(teams)
            members = [p for p in range(players) if p % teams == team]
            if all(ref.hand(p) for p in members):
                cards = {p: rng.choice(ref.hand(p)) for p in members}
                core.table_talk_penalty(team, cards)
                ref.table_talk_penalty(team, cards)
                moves.append(f"table_talk({team}, {cards})")
        else:
            legal = ref.legal_moves()
            decl = [m for m in legal if m.declares]
            m = rng.choice(decl) if decl and rng.random() < greed else rng.choice(legal)
            core.play(m)
            ref.play(m)
            moves.append(str(m))
        if len(moves) % FULL_EVERY == 0 or ref.is_over:
            assert_same(core, ref, f"{seed}: after {moves[-1]!r} ({where})")
        else:
            assert (core.turn, core.current_player, core.legal_moves()) == (ref.turn, ref.current_player,
                                                                          ref.legal_moves()), where
    # undo back a few steps: both histories agree
    for _ in range(min(5, len(moves))):
        core.undo()
        ref.undo()
        assert_same(core, ref, f"seed {seed} after undo")


@pytest.mark.parametrize("chunk", range(GAMES // CHUNK))
def test_differential_random_games(impls, chunk):
    Core, Ref = impls
    for i in range(chunk * CHUNK, (chunk + 1) * CHUNK):
        players, teams = CONFIGS[i % len(CONFIGS)]
        rng = random.Random(i)
        greed = (0.0, 0.5, 0.9)[i % 3]
        max_turns = (None, 300, 60)[(i // 3) % 3]
        play_both(Core, Ref, seed=i * 7919 % 2**64, players=players, teams=teams, max_turns=max_turns, greed=greed,
                  rng=rng)


def test_differential_same_errors_for_bad_calls(impls):
    Core, Ref = impls
    core, ref = Core(players=4, seed=3), Ref(players=4, seed=3)
    calls = [
        lambda g: g.play(17), lambda g: g.play("hello"), lambda g: g.hand(9), lambda g: g.hand("1"),
        lambda g: g.cell((10, 1)), lambda g: g.locked("k3"), lambda g: g.undo(), lambda g: g.missed_draw(0),
        lambda g: g.table_talk_penalty(3, {}), lambda g: g.table_talk_penalty(0, {0: "2S"}),
        lambda g: g.observation(-1), lambda g: g.team_of(None), lambda g: g.play("pass"),
    ]
    for call in calls:
        oc, orf = _outcome(lambda: call(core)), _outcome(lambda: call(ref))
        assert oc is not None and oc == orf
        assert_same(core, ref)
    for kwargs in [{"players": 5}, {"players": 4, "teams": 3}, {"players": 2, "seed": -1},
                   {"players": 2, "max_turns": 0}, {"players": "2"}]:
        assert _outcome(lambda: Core(**kwargs)) == _outcome(lambda: Ref(**kwargs))


@given(d=positions())
def test_differential_hypothesis_positions(impls, d):
    Core, Ref = impls
    core, ref = Core.from_dict(json_round(d)), Ref.from_dict(json_round(d))
    assert_same(core, ref, f"loading {d}")
    start = ref.to_dict()
    for m in ref.legal_moves():
        c, r = core.copy(), ref.copy()
        c.play(m)
        r.play(m)
        assert_same(c, r, f"after {m} from {start}")
    rng = random.Random(str(d))
    for bad in _illegal_inputs(rng, ref):
        assert _outcome(lambda: core.play(bad)) == _outcome(lambda: ref.play(bad)), bad
    assert_same(core, ref)
