"""Hostile input (docs/hardening.md, findings H1-H9): input built to break the checks
rather than to be wrong. Each test covers a class of inputs (hypothesis or many parametrised
cases), since the attack is repeated with other members of the same classes:

* ids that are not move ids must not teach the process-wide move caches anything (H1);
* objects whose ``__len__``, ``__iter__``, comparisons or hashing lie must be validated as the
  plain values they hold (H3, H4);
* input nested a million levels deep, or 100 MB long, must give a short message (H5);
* text with look-alike characters from other scripts is not a card, a cell or a move, and the
  generator state is hex digits only (H7);
* a move text cannot make the parser work for long (H8).
"""

from __future__ import annotations

import json
import random
import unicodedata

import pytest
import sequence_game
from conftest import load_game_class
from helpers import research_build
from hypothesis import given
from hypothesis import strategies as st
from sequence_game import _core, actions, reference
from sequence_game.agents import agent_from_spec
from sequence_game.cards import cells_of, check_cell, parse_card, parse_cell
from sequence_game.errors import InvalidMoveError, short_repr
from sequence_game.game import move_from_id
from sequence_game.move import MAX_DECLARES, Move
from sequence_game.records import GameRecord

IMPLS = ["core", "reference"]
MESSAGE_LIMIT = 600  # characters: a message names the input, it does not embed it


def _outcome(fn):
    """``("ok", value)`` or ``("error", exception class)``."""
    try:
        return "ok", fn()
    except (TypeError, ValueError) as e:
        assert len(str(e)) < MESSAGE_LIMIT, str(e)[:200]
        return "error", type(e)
    # anything else (IndexError, RecursionError, AttributeError, ...) fails the test


def _random_game(seed: int, plies: int):
    g = sequence_game.Game(players=2, seed=seed)
    rng = random.Random(seed)
    for _ in range(plies):
        if g.is_over:
            break
        g.play_id(rng.choice(g.legal_move_ids()))
    return g


# --------------------------------------------------------------------------- H1: the move caches

def _spoiled(move_id: int, data) -> int:
    """``move_id`` with bits set that a well-formed id leaves zero (decoding ignores them) or with
    a field no move has: the low bits still name the real move."""
    kind = move_id & 3
    candidates = [move_id | data.draw(st.integers(1, 31)) << 27]  # above bit 26
    if kind == 0:  # a trade has no cell and no declares
        candidates.append(move_id | data.draw(st.integers(1, 2**19 - 1)) << 8)
    if kind == 2:  # a removal has no declares
        candidates.append(move_id | data.draw(st.integers(1, 2**12 - 1)) << 15)
    if kind == 1:  # declares code 7 names no window
        candidates.append(move_id | 7 << (15 + 3 * data.draw(st.integers(0, 3))))
    if kind == 3:  # a pass is the kind alone
        candidates.append(move_id | data.draw(st.integers(1, 2**25 - 1)) << 2)
    else:  # no card 52..63, no cell 100..127
        candidates.append(move_id & ~(63 << 2) | data.draw(st.integers(52, 63)) << 2)
        if kind != 0:
            candidates.append(move_id & ~(127 << 8) | data.draw(st.integers(100, 127)) << 8)
    return data.draw(st.sampled_from(candidates))


@given(seed=st.integers(0, 2**32), plies=st.integers(0, 40), data=st.data())
def test_h1_refused_ids_never_poison_the_move_caches(seed, plies, data):
    g = _random_game(seed, plies)
    if g.is_over:
        return
    ids = g.legal_move_ids()
    good = data.draw(st.sampled_from(ids))
    bad = _spoiled(good, data)
    assert bad != good
    before = g.to_dict()
    with pytest.raises(ValueError):  # InvalidMoveError: never IndexError, never played
        g.play_id(bad)
    with pytest.raises(InvalidMoveError):
        move_from_id(bad)
    with pytest.raises(InvalidMoveError):
        actions.move_from_id(bad)
    assert g.to_dict() == before
    move = move_from_id(good)
    # The real move still plays in every form, in this game and in a fresh one.
    for play in (lambda x: x.play(move), lambda x: x.play(str(move)), lambda x: x.play_id(good),
                 lambda x: x.play(x.legal_moves()[ids.index(good)])):
        for game in (g.copy(), sequence_game.Game.from_dict(before)):
            play(game)
            assert game.turn == before["turn"] + (move.kind != "trade")


@given(seed=st.integers(0, 2**32), plies=st.integers(0, 60))
def test_h1_each_move_has_one_id(seed, plies):
    """Flipping any one bit of a legal id gives another move or no move at all: the decoder is
    injective on what it accepts, so a cache keyed both ways cannot be misled."""
    g = _random_game(seed, plies)
    for good in g.legal_move_ids()[:40]:
        move = move_from_id(good)
        for bit in range(32):
            other = good ^ (1 << bit)
            try:
                assert move_from_id(other) != move
            except InvalidMoveError:
                pass


@given(move_id=st.one_of(st.integers(0, 2**27 - 1), st.integers(0, 2**32 - 1)))
def test_h1_python_and_core_agree_on_which_ints_are_move_ids(move_id):
    """The core's is_well_formed (check_move's Malformed) and the Python decoder accept the same
    ids, except that the Python Move refuses a card that cannot make the kind of move at all (R5),
    which the core reports as WrongCardForKind."""
    try:
        move = actions.move_from_id(move_id)
    except InvalidMoveError:
        move = None
    if move is not None:
        assert _core.Game.is_well_formed(move_id) and actions.move_id(move) == move_id
    elif _core.Game.is_well_formed(move_id):
        card = actions.CARD_NAMES[(move_id >> 2) & 63]
        kind = move_id & 3
        assert (kind == 1 and card in ("JH", "JS")) or (kind == 2 and card not in ("JH", "JS")) or \
            (kind == 0 and card[0] == "J")


@given(move_id=st.one_of(st.integers(0, 2**32 - 1), st.integers(2**32, 2**80), st.integers(-(2**70), -1)))
def test_h1_play_id_of_any_int_raises_value_error_or_plays(move_id):
    g = sequence_game.Game(players=2, seed=move_id % 1000)
    before = g.to_dict()
    if move_id in g.legal_move_ids():
        g.play_id(move_id)
        return
    with pytest.raises(ValueError):
        g.play_id(move_id)
    assert g.to_dict() == before


@pytest.mark.parametrize("bad", [1.0, "257", None, True, [257], 2.5])
def test_h1_play_id_and_move_from_id_refuse_non_ints(bad):
    g = sequence_game.Game(players=2, seed=1)
    with pytest.raises(TypeError):
        g.play_id(bad)
    with pytest.raises(TypeError):
        move_from_id(bad)


def test_h1_int_subclass_ids_do_not_reach_the_cache():
    class Sly(int):
        def __eq__(self, other):
            return True

        def __hash__(self):
            return 3  # the hash of the pass id

    g = sequence_game.Game(players=2, seed=1)
    good = g.legal_move_ids()[0]
    assert move_from_id(Sly(good)) == move_from_id(good)
    assert move_from_id(3) == Move("pass")


# --------------------------------------------------------------------------- H3: lying containers


class LyingList(list):
    def __init__(self, items, length):
        super().__init__(items)
        self.length = length

    def __len__(self):
        return self.length


class LyingDict(dict):
    def get(self, key, default=None):
        return "lie"

    def __getitem__(self, key):
        return "lie"


def _lie_in(d: dict, field: str, length: int) -> dict:
    lied = dict(d)
    lied[field] = LyingList(d[field], length)
    return lied


@pytest.mark.parametrize("impl", IMPLS)
@given(seed=st.integers(0, 2**16), players=st.sampled_from([2, 3, 4, 6]), field=st.sampled_from(["hands", "discards"]),
       extra=st.integers(-3, 3), data=st.data())
def test_h3_from_dict_validates_what_a_lying_list_holds(impl, seed, players, field, extra, data):
    cls = load_game_class(impl)
    d = cls(players=players, seed=seed).to_dict()
    d = json.loads(json.dumps(d))
    # An extra (or missing) hand behind a __len__ that claims the right count.
    if extra > 0:
        d[field] = d[field] + [[] for _ in range(extra)]
    elif extra < 0:
        d[field] = d[field][: max(players + extra, 0)]
    lied = _lie_in(d, field, players)
    assert _outcome(lambda: cls.from_dict(lied).to_dict()) == _outcome(lambda: cls.from_dict(d).to_dict())
    if extra:
        with pytest.raises(ValueError):
            cls.from_dict(lied)


@pytest.mark.parametrize("impl", IMPLS)
def test_h3_from_dict_reads_a_dict_subclass_through_dict_itself(impl):
    cls = load_game_class(impl)
    d = cls(players=2, seed=5).to_dict()
    assert cls.from_dict(LyingDict(d)).to_dict() == d


# --------------------------------------------------------------------------- H4: lying ints


class LyingInt(int):
    """Says it is in every range and equal to everything."""

    def __lt__(self, other):
        return False

    def __gt__(self, other):
        return False

    def __le__(self, other):
        return True

    def __ge__(self, other):
        return True

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


def _through(impl, fn, value):
    """``fn(game, value)`` on a fresh game: its outcome, and the game's state after it."""
    g = load_game_class(impl)(players=2, seed=11)
    result = _outcome(lambda: fn(g, value))
    return result, g.to_dict()


_INT_USES = {
    "cell": lambda g, v: g.cell((v, 3)),
    "cell col": lambda g, v: g.cell((3, v)),
    "locked": lambda g, v: g.locked((v, v)),
    "hand": lambda g, v: g.hand(v),
    "team_of": lambda g, v: g.team_of(v),
    "observation": lambda g, v: g.observation(v)["player"],
    "missed_draw": lambda g, v: g.missed_draw(v),
    "play": lambda g, v: g.play(Move("place", g.hand(g.current_player)[0], (v, 4))),
    "table_talk team": lambda g, v: g.table_talk_penalty(v, {0: g.hand(0)[0]}),
    "table_talk seat": lambda g, v: g.table_talk_penalty(0, {v: g.hand(0)[0]}),
    "Game players": lambda g, v: type(g)(players=v, seed=1).players,
    "Game max_turns": lambda g, v: type(g)(players=2, max_turns=v, seed=1).max_turns,
    "Game seed": lambda g, v: type(g)(players=2, seed=v).seed,
    "from_dict turn": lambda g, v: type(g).from_dict({**g.to_dict(), "turn": v}).turn,
    "from_dict current": lambda g, v: type(g).from_dict({**g.to_dict(), "current_player": v}).current_player,
    "from_dict passes": lambda g, v: type(g).from_dict({**g.to_dict(), "passes": v}).passes,
}


@pytest.mark.parametrize("use", sorted(_INT_USES))
@given(value=st.one_of(st.integers(-(2**70), 2**70), st.sampled_from([-1, 0, 1, 2, 9, 10, 100, 2**31, 2**64])))
def test_h4_int_subclasses_count_as_the_int_they_hold_in_both_engines(use, value):
    fn = _INT_USES[use]
    plain = [_through(impl, fn, value) for impl in IMPLS]
    lying = [_through(impl, fn, LyingInt(value)) for impl in IMPLS]
    assert lying == plain
    assert plain[0][0][0] == plain[1][0][0]  # the core and the reference agree: both work or both refuse
    if plain[0][0][0] == "error":
        assert plain[0][0][1] is plain[1][0][1]


def test_h4_check_cell_normalises_to_plain_ints():
    r, c = check_cell((LyingInt(3), LyingInt(4)))
    assert (type(r), type(c)) == (int, int) and (r, c) == (3, 4)
    with pytest.raises(ValueError, match="off the board"):
        check_cell((LyingInt(100), 3))


# --------------------------------------------------------------------------- H5: bounded messages


def _nested(kind: str, depth: int):
    value: object = 1
    for _ in range(depth):
        wrap = {"dict": lambda v: {"a": v}, "tuple": lambda v: (v,), "subclass": lambda v: LyingList([v], 1)}
        value = wrap.get(kind, lambda v: [v])(value)
    return value


_NESTED_ENTRY_POINTS = {
    "Game players": lambda cls, v: cls(players=v),
    "Game teams": lambda cls, v: cls(players=2, teams=v),
    "Game seed": lambda cls, v: cls(players=2, seed=v),
    "from_dict": lambda cls, v: cls.from_dict(v),
    "from_dict hands": lambda cls, v: cls.from_dict({"players": 2, "hands": v}),
    "from_dict field": lambda cls, v: cls.from_dict({"players": 2, "hands": [[], []], "turn": v}),
    "from_dict board": lambda cls, v: cls.from_dict({"players": 2, "hands": [[], []], "board": [v] * 10}),
    "from_dict sequences": lambda cls, v: cls.from_dict({"players": 2, "hands": [[], []], "sequences": [v]}),
    "Move kind": lambda cls, v: Move(v),
    "Move card": lambda cls, v: Move("place", v, (5, 3)),
    "Move cell": lambda cls, v: Move("place", "7H", v),
    "Move declares": lambda cls, v: Move("place", "7H", (5, 3), [v]),
    "cells_of": lambda cls, v: cells_of(v),
    "parse_card": lambda cls, v: parse_card(v),
    "check_cell": lambda cls, v: check_cell(v),
    "play": lambda cls, v: cls(players=2, seed=1).play(v),
    "hand": lambda cls, v: cls(players=2, seed=1).hand(v),
    "play_id": lambda cls, v: sequence_game.Game(players=2, seed=1).play_id(v),
    "play_action": lambda cls, v: cls(players=2, seed=1).play_action(v),
    "agent_from_spec": lambda cls, v: agent_from_spec(v),
    "table_talk": lambda cls, v: cls(players=2, seed=1).table_talk_penalty(0, {0: v}),
    "record from_dict": lambda cls, v: GameRecord.from_dict({"format": "sequence-game-record/1", "players": v,
                                                              "teams": 2, "seed": 1, "moves": []}).new_game(cls),
}


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("entry", sorted(_NESTED_ENTRY_POINTS))
@pytest.mark.parametrize("kind, depth", [("list", 5_000), ("tuple", 5_000), ("dict", 5_000), ("subclass", 5_000),
                                         ("list", 3), ("dict", 7)])
def test_h5_deeply_nested_input_gives_a_short_clean_error(impl, entry, kind, depth):
    cls = load_game_class(impl)
    value = _nested(kind, depth)
    with pytest.raises((TypeError, ValueError)) as e:
        _NESTED_ENTRY_POINTS[entry](cls, value)
    assert len(str(e.value)) < MESSAGE_LIMIT


_HUGE = {
    "text": lambda: "7" * 50_000_000,
    "list": lambda: list(range(300_000)),
    "int": lambda: 10**100_000,
    "bytes": lambda: b"x" * 50_000_000,
    "dict": lambda: {i: i for i in range(100_000)},
}


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("huge", sorted(_HUGE))
@pytest.mark.parametrize("entry", ["Game players", "from_dict", "from_dict field", "Move card", "Move cell",
                                   "play", "hand", "cells_of", "record from_dict"])
def test_h5_huge_input_gives_a_short_message(impl, huge, entry):
    cls = load_game_class(impl)
    with pytest.raises((TypeError, ValueError)) as e:
        _NESTED_ENTRY_POINTS[entry](cls, _HUGE[huge]())
    assert len(str(e.value)) < MESSAGE_LIMIT


@pytest.mark.parametrize("text", ["[" * 200_000 + "]" * 200_000, '{"a":' * 100_000 + "1" + "}" * 100_000,
                                  "[" * 10_000_000])
def test_h5_record_json_nested_too_deeply_is_a_value_error(text):
    with pytest.raises(ValueError) as e:
        GameRecord.from_json(text)
    assert len(str(e.value)) < MESSAGE_LIMIT


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.floats() | st.text() | st.binary(),
                    lambda inner: st.lists(inner) | st.tuples(inner, inner) | st.dictionaries(st.text(), inner)
                    | st.frozensets(st.integers())))
def test_h5_short_repr_is_short_and_never_raises(value):
    text = short_repr(value)
    assert isinstance(text, str) and len(text) <= 80


def test_h5_short_repr_survives_hostile_objects():
    class Hostile:
        def __repr__(self):
            raise RuntimeError("no")

    class Endless(list):
        def __iter__(self):
            while True:
                yield self

    for value in (Hostile(), Endless([1]), LyingList([1, 2], -5), _nested("list", 10**6), 10**10**5):
        assert len(short_repr(value)) <= 80


# --------------------------------------------------------------------------- H7: look-alike text

def _look_alikes() -> dict:
    """For each ASCII character, the non-ASCII ones that case mapping or digit parsing read as it
    ("\u017f".upper() == "S", "\u212a".lower() == "k", "\u0666" is a 6) and non-ASCII spaces for " "."""
    table: dict = {}
    for ch in map(chr, range(0x80, 0x110000)):
        for twin in {ch.upper(), ch.lower()}:
            if len(twin) == 1 and twin.isascii():
                table.setdefault(twin.lower(), []).append(ch)
                table.setdefault(twin.upper(), []).append(ch)
        if ch.isdecimal():
            table.setdefault(str(unicodedata.decimal(ch)), []).append(ch)
        if ch.isspace():
            table.setdefault(" ", []).append(ch)
    return table


_LOOK_ALIKES = _look_alikes()
_VALID_TEXTS = ["7H", "10d", "TS", "js", "a1", "d6", "J10", " e5 ", "7H@d6", "jsxe5", "trade 10c", "pass",
                "2H@e6 =a6-e6", "JD@A10", "ks", "kc@b8"]


@given(text=st.sampled_from(_VALID_TEXTS), data=st.data())
def test_h7_text_with_a_look_alike_is_never_a_card_cell_or_move(text, data):
    at = data.draw(st.sampled_from([i for i, ch in enumerate(text) if ch in _LOOK_ALIKES]))
    spoiled = text[:at] + data.draw(st.sampled_from(_LOOK_ALIKES[text[at]])) + text[at + 1:]
    for parse in (parse_card, parse_cell, Move.parse):
        with pytest.raises(ValueError):
            parse(spoiled)


@pytest.mark.parametrize("text", ["7\u017f", "K\u017f", "\u212aH", "\uff2bH", "7H\u00a0", "d\uff16", "d\u0661",
                                  "\u212a", "j\uff11\uff10"])
def test_h7_known_look_alikes(text):
    for parse in (parse_card, parse_cell):
        with pytest.raises(ValueError):
            parse(text)
    with pytest.raises(ValueError):
        Move.parse(f"{text}@d6")


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("rng", ["0x10", " 1", "1 ", "1_0", "+1", "-1", "\u0661", "\uff11", "", "0" * 17, "g", "1.0",
                                 "0o1", "\u00b2"])
def test_h7_rng_is_hex_digits_only(impl, rng):
    cls = load_game_class(impl)
    d = cls(players=2, seed=3).to_dict()
    with pytest.raises(ValueError, match="hex digits"):
        cls.from_dict({**d, "rng": rng})


@given(rng=st.integers(0, 2**64 - 1), width=st.integers(1, 16), upper=st.booleans())
def test_h7_rng_accepts_every_hex_spelling_of_up_to_16_digits(rng, width, upper):
    rng %= 16**width
    text = f"{rng:0{width}x}"
    text = text.upper() if upper else text
    d = reference.Game(players=2, seed=3).to_dict()
    assert sequence_game.Game.from_dict({**d, "rng": text}).to_dict()["rng"] == f"{rng:016x}"


@pytest.mark.parametrize("kind", [[], ["place"], {}, {"place": 1}, set(), bytearray(b"place"), 1.5, None, b"place"])
def test_h7_move_kind_of_any_type_is_a_clear_error(kind):
    with pytest.raises(InvalidMoveError, match="unknown move kind"):
        Move(kind)


def test_h7_str_subclass_kinds_and_text_are_read_as_plain_strings():
    class Loud(str):
        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

        def lower(self):
            return "pass"

    assert Move(Loud("place"), "7H", (5, 3)) == Move("place", "7H", (5, 3))
    assert Move.parse(Loud("7H@d6")) == Move("place", "7H", (5, 3))
    with pytest.raises(InvalidMoveError):
        Move(Loud("jump"))


# --------------------------------------------------------------------------- H8: bounded parsing


@pytest.mark.parametrize("count", [MAX_DECLARES + 1, 20, 1000, 1_000_000])
def test_h8_more_declares_than_possible_are_refused_before_parsing(count):
    text = "2H@e6" + " =a6-e6" * count
    with pytest.raises(InvalidMoveError, match=f"at most {MAX_DECLARES}"):
        Move.parse(text)
    with pytest.raises(InvalidMoveError, match=f"at most {MAX_DECLARES}"):
        Move("place", "2H", (5, 4), iter([[(5, i) for i in range(5)]] * count))


def test_h8_a_placement_can_declare_eight_sequences():
    """The bound is the rules' own: nine in a row through the placed cell, in all four directions."""
    cell = (4, 4)
    declares = []
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        for back in (4, 0):
            declares.append([(cell[0] + (i - back) * dr, cell[1] + (i - back) * dc) for i in range(5)])
    move = Move("place", "JD", cell, declares)
    assert len(move.declares) == MAX_DECLARES
    assert Move.parse(str(move)) == move


# ---------------------------------------------------------------- numpy input to VectorGame (N1, N2)
#
# N1: the core reads the observer seats and the actions with the GIL released. An array checked
# and then read again there can change in between (another thread) or be overwritten by the call
# itself (an array sharing memory with `out`), and a seat checked as 0 is read as 10**9. Run in a
# child process: without the fix the process dies with SIGSEGV, which must fail the test rather
# than end the test run.

_CHILD_PRELUDE = """
import threading, sys
import numpy as np
from sequence_game import VectorGame
from sequence_game.observation import OBSERVATION_SIZE
"""

# `players` overlaps the corners plane of row 0 of `out` (1.0f = 0x3f800000 once written) and
# starts at 0 (a valid seat); the same for final_observations, and `actions` overlapping `rewards`.
_ALIAS_CHILD = _CHILD_PRELUDE + """
n = 64
for threads in (1, 4):
    vg = VectorGame(n, players=2, seed=1, max_turns=2, threads=threads)
    out = np.zeros((n, OBSERVATION_SIZE), dtype=np.float32)
    players = out.reshape(-1).view(np.int32)[380:380 + n]
    vg.observations(out=out, players=players)
    ok = VectorGame(n, players=2, seed=1, max_turns=2, threads=threads).observations(players=np.zeros(n, np.int32))
    assert np.array_equal(out[1:], ok[1:]), "the seats were read as the call found them"
    for _ in range(2):
        vg.step(vg.sample_actions(np.random.default_rng(0)))
    out = np.zeros((n, OBSERVATION_SIZE), dtype=np.float32)
    vg.final_observations(out=out, players=out.reshape(-1).view(np.int32)[380:380 + n])
    buf = np.zeros(n * 8, dtype=np.int64)
    actions = buf[:n]
    actions[:] = vg.sample_actions(np.random.default_rng(1))
    rewards = buf.view(np.float32)[: n * 2].reshape(n, 2)
    vg._core.step(actions, rewards, np.zeros(n, bool), np.zeros(n, bool))
print("survived")
"""

# Another thread flips the seats between valid and 10**9 (and the actions between legal and
# huge) while the core reads them: each call reads the values it checked, or raises ValueError /
# IllegalMoveError for the ones it saw.
_RACE_CHILD = _CHILD_PRELUDE + """
n = 2048
vg = VectorGame(n, players=2, seed=1, threads=2)
players = np.zeros(n, dtype=np.int32)
stop = threading.Event()
def flip():
    while not stop.is_set():
        players[:] = 10**9
        players[:] = 0
t = threading.Thread(target=flip)
t.start()
refused = 0
try:
    for _ in range(300):
        try:
            vg.observations(players=players)
        except ValueError:
            refused += 1
finally:
    stop.set()
    t.join()
actions = vg.sample_actions(np.random.default_rng(0))
legal = actions.copy()
stop.clear()
def flip_actions():
    while not stop.is_set():
        actions[:] = 2**62
        actions[:] = legal
t = threading.Thread(target=flip_actions)
t.start()
try:
    for _ in range(200):
        try:
            vg._core.step(actions, np.empty((n, 2), np.float32), np.empty(n, bool), np.empty(n, bool))
            legal[:] = vg.sample_actions(np.random.default_rng(1))
        except ValueError:
            refused += 1
finally:
    stop.set()
    t.join()
print("survived", refused)
"""


def _run_child(code: str) -> str:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"the child process ended with status {proc.returncode}: {proc.stderr[-2000:]}"
    return proc.stdout


def test_n1_arrays_sharing_memory_with_the_outputs_never_crash():
    assert "survived" in _run_child(_ALIAS_CHILD)


def test_n1_arrays_changed_by_another_thread_during_the_call_never_crash():
    assert "survived" in _run_child(_RACE_CHILD)


# N2: seats were cast to int32 before any check, so 2**32 + 1 became seat 1.
HOSTILE_SEATS = [-1, 2, 3, 2**31, 2**32, 2**32 + 1, 2**32 + 2**31, 2**63 - 1, -(2**63), -(2**32) + 1]


def _representable(dtype: str, seat: int) -> bool:
    import numpy as np

    return dtype == "object" or np.iinfo(dtype).min <= seat <= np.iinfo(dtype).max


@pytest.mark.parametrize("seat,dtype", [(s, d) for s in HOSTILE_SEATS
                                        for d in ("int64", "uint64", "int32", "uint32", "int16", "object")
                                        if _representable(d, s)])
@pytest.mark.parametrize("method", ["observations", "final_observations"])
def test_n2_observer_seats_out_of_range_are_refused_not_narrowed(seat, dtype, method):
    import numpy as np
    from sequence_game import VectorGame

    vg = VectorGame(4, players=2, seed=1, max_turns=2)
    for _ in range(2):
        vg.step(vg.sample_actions(np.random.default_rng(0)))  # every game ends: final rows exist
    info = np.iinfo(dtype) if dtype != "object" else None
    seats = np.array([0, seat, 1, 0], dtype=dtype)
    with pytest.raises((ValueError, TypeError)) as e:
        getattr(vg, method)(players=seats)
    if dtype != "object":
        assert e.type is ValueError and f"players[1] = {seat}" in str(e.value) and "0..1" in str(e.value)
    with pytest.raises(ValueError, match=r"not a seat 0\.\.1"):
        getattr(vg, method)(players=seat)
    if info is not None:
        with pytest.raises(ValueError, match=r"not a seat 0\.\.1"):
            getattr(vg, method)(players=np.dtype(dtype).type(seat))


@pytest.mark.parametrize("seat", HOSTILE_SEATS)
def test_n2_every_seat_argument_is_checked_in_full(seat):
    """The seat arguments of the game, the reference and the environments: the whole int is
    checked, never a narrowed copy."""
    for cls in (sequence_game.Game, reference.Game):
        g = cls(players=2, seed=1)
        for method in ("observation", "observation_tensor", "hand", "discards", "team_of", "missed_draw"):
            with pytest.raises(ValueError):
                getattr(g, method)(seat)
    with pytest.raises(ValueError, match="not a seat"):
        sequence_game.VectorGame(2, players=2, opponents={seat: "random"})
    pytest.importorskip("gymnasium", reason="the [rl] extra is not installed")
    from sequence_game.envs.vector import SequenceVectorEnv

    with pytest.raises(ValueError, match="not a seat"):
        SequenceVectorEnv(2, players=2, seat=seat, opponent="random")


def test_n2_actions_beyond_int64_are_refused_as_they_are():
    import numpy as np
    from sequence_game import VectorGame
    from sequence_game.errors import IllegalMoveError

    vg = VectorGame(3, players=2, seed=1)
    actions = vg.sample_actions(np.random.default_rng(0)).astype(np.uint64)
    before = vg.observations().copy()
    actions[2] = 2**64 - 1  # int64 would read -1
    with pytest.raises(IllegalMoveError, match=f"game 2: action {2**64 - 1} \\(out of range"):
        vg.step(actions)
    assert np.array_equal(vg.observations(), before)


# --------------------------------------------------------------------------- untrusted files
# Every reader of a file a user may be handed (a record, a sealed save, a learned-evaluation model,
# an arena results file; the policy models are in test_envs_policy.py) takes damaged bytes as one
# ValueError line naming the file: never another exception, never a traceback, never a hang.

_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
                     max_leaves=8)
_KEY = b"k" * 32


def _reader_files(tmp_path_factory):
    from sequence_game.arena import match

    base = tmp_path_factory.mktemp("readers")
    record = sequence_game.play_game(["random:seed=1", "random:seed=2"], seed=3, max_turns=30)
    game = record.replay()
    game.undo()
    record = GameRecord.from_game(game.redealt([game.current_player]))
    results = base / "results.jsonl"
    match(["random", "random"], games=2, seed=1, max_turns=20, results=str(results))
    readers = {
        "record": (record.to_json().encode(), GameRecord.load),
        "sealed": (json.dumps(record.seal(_KEY)).encode(), lambda p: GameRecord.load_sealed(p, _KEY)),
        "results": (results.read_bytes(), lambda p: _read_results(p)),
    }
    if research_build():
        from sequence_game.research.learned_eval import DEFAULT_MODEL_PATH

        with open(DEFAULT_MODEL_PATH, "rb") as f:
            readers["eval model"] = (f.read(), lambda p: _load_eval(p))
    return readers


def _load_eval(path):
    from sequence_game.research.learned_eval import load_eval_model

    return load_eval_model(path)


def _read_results(path):
    from sequence_game.arena.results import read_results

    return read_results(path)


#: The readers; the learned evaluation's model file is the research build's (sequence_game.research).
_READERS = ["record", "sealed", pytest.param("eval model", marks=pytest.mark.skipif(
    not research_build(), reason="the learned evaluation's model file is a research build's")), "results"]


@pytest.fixture(scope="module")
def reader_files(tmp_path_factory):
    return _reader_files(tmp_path_factory)


def _mutated(original, data):
    """``original`` damaged: bytes flipped, cut, inserted, or (when it is JSON) one value anywhere
    replaced by any JSON value."""
    raw = bytearray(original)
    kind = data.draw(st.sampled_from(["flip", "cut", "insert", "value", "bytes"]))
    if kind == "bytes":
        return data.draw(st.binary(max_size=64))
    if kind == "value":
        lines = original.split(b"\n") if original.count(b"\n") > 1 and original.startswith(b'{"format"') else None
        try:
            tree = json.loads(original)
            slots = list(_slots(tree))
            holder, key = data.draw(st.sampled_from(slots))
            holder[key] = data.draw(_JSON)
            return json.dumps(tree).encode()
        except ValueError:  # JSON lines: one line's value
            line = data.draw(st.integers(0, len(lines) - 2)) if lines else 0
            tree = json.loads(lines[line]) if lines else {}
            slots = list(_slots(tree)) or [(tree, "x")]
            holder, key = data.draw(st.sampled_from(slots))
            holder[key] = data.draw(_JSON)
            if lines:
                lines[line] = json.dumps(tree).encode()
            return b"\n".join(lines) if lines else original
    at = data.draw(st.integers(0, max(len(raw) - 1, 0)))
    if kind == "flip" and raw:
        raw[at] ^= data.draw(st.integers(1, 255))
    elif kind == "cut":
        del raw[at:]
    else:
        raw[at:at] = data.draw(st.binary(min_size=1, max_size=12))
    return bytes(raw)


def _slots(tree):
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield tree, k
            yield from _slots(v)
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield tree, i
            yield from _slots(v)


_FILE_COUNTER = iter(range(10**9))


@pytest.mark.parametrize("reader", _READERS)
@given(data=st.data())
def test_f1_every_reader_of_a_damaged_file_gives_one_line_naming_it(reader_files, tmp_path_factory, reader, data):
    original, read = reader_files[reader]
    path = tmp_path_factory.getbasetemp() / f"damaged{next(_FILE_COUNTER)}"
    path.write_bytes(_mutated(original, data))
    try:
        read(str(path))
    except ValueError as e:
        assert str(path) in str(e) and "\n" not in str(e) and len(str(e)) < 1000, str(e)


@pytest.mark.parametrize("reader", _READERS)
@pytest.mark.parametrize("content", [b"", b"\xff\xfe\x00", b"[" * 100_000, b'{"a":' * 50_000, b"\x00" * 10,
                                     b"1e999999", b'"' + b"x" * 1000])
def test_f1_known_bad_files_give_one_line_naming_them(reader_files, tmp_path, reader, content):
    path = tmp_path / "bad"
    path.write_bytes(content)
    with pytest.raises(ValueError) as e:
        reader_files[reader][1](str(path))
    assert str(path) in str(e.value) and "\n" not in str(e.value)
