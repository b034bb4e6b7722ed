"""Fuzz targets for sequence_game (docs/hardening.md, fuzz/README.md).

Every target is a function ``target(data: bytes) -> None`` that decodes ``data`` with ``Reader``
(a tiny byte consumer, so any input replays without atheris) into calls on the public API and
checks the contract:

* every call either works or raises a clean ``ValueError`` / ``TypeError``
  (``IllegalMoveError`` and ``InvalidMoveError`` are ``ValueError``s);
* after a refused ``play`` / referee call the game's ``to_dict()`` is unchanged, and ``from_dict``
  never changes the dict it is given;
* what works is consistent: ``Move.parse(str(m)) == m``, ``from_dict(g.to_dict())`` round-trips,
  ``undo()`` restores, and the compiled ``Game`` and ``reference.Game`` agree (both accept with
  the same resulting dict, or both refuse with the same exception class);
* ``_core.State.from_position`` (the binding, below the Python validation) refuses malformed dicts
  with ``ValueError`` / ``TypeError`` and whatever it accepts is safe to play on.

A broken contract raises ``Finding`` (an ``AssertionError``); ``fuzz/fuzz.py`` drives the targets
with atheris (coverage-guided libFuzzer) and records findings in ``fuzz/crashers/``;
``tests/test_fuzz_regressions.py`` replays the corpus and every crasher.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any, Callable, Dict, List

from sequence_game import Game, Move, _core
from sequence_game import reference
from sequence_game.position import position_from_dict

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
CLEAN = (ValueError, TypeError)
IMPLEMENTATIONS = (Game, reference.Game)


class Finding(AssertionError):
    """A broken contract (not a clean refusal)."""


def expect(cond: bool, what: str) -> None:
    if not cond:
        raise Finding(what)


# --------------------------------------------------------------------------- input decoding


class Reader:
    """Consumes bytes deterministically; returns zeros once the data runs out."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            return 0
        self.pos += 1
        return self.data[self.pos - 1]

    def below(self, n: int) -> int:
        if n <= 1:
            return 0
        v = self.byte()
        if n > 256:
            v = v << 8 | self.byte()
        return v % n

    def choice(self, seq):
        return seq[self.below(len(seq))]

    def chunk(self, max_len: int) -> bytes:
        n = self.below(max_len + 1)
        out = self.data[self.pos:self.pos + n]
        self.pos += len(out)
        return out

    def rest(self) -> bytes:
        out = self.data[self.pos:]
        self.pos = len(self.data)
        return out


def decode(raw: bytes, mode: int) -> str:
    """Bytes as text in one of several ways (utf-8, latin-1, lone surrogates, ascii-folded)."""
    if mode % 4 == 0:
        return raw.decode("utf-8", "replace")
    if mode % 4 == 1:
        return raw.decode("latin-1")
    if mode % 4 == 2:
        return raw.decode("utf-8", "surrogateescape")
    return "".join(chr(b % 128) for b in raw)


class WeirdInt(int):
    pass


class WeirdStr(str):
    pass


_BASE_VALUES: List[Any] = [
    None, True, False, 0, 1, -1, 2, 3, 4, 5, 9, 10, 12, 13, 51, 52, 99, 100, 255, 256,
    2**31 - 1, 2**31, 2**32, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -2**63, -2**63 - 1, 2**200, -2**200,
    0.0, 1.5, -0.0, float("nan"), float("inf"), float("-inf"), 1e308, 2.0, 3.0,
    "", " ", "7H", "JD", "JS", "10d", "TS", "a1", "j10", "d6", "*", ".", "B", "G", "R", "pass", "trade 7H",
    "7H@d6", "JSxe5", "ffffffffffffffff", "0x10", "-1", "1e5", "\x00", "\ud800", "７Ｈ", "d６",
    "sequence-game/1", "sequence-game/2",
    [], [[]], [0], [0, 0], [0, 0, 0, 0, 0], [[0, 0]] * 5, [["7H"]], [None], [[None]], ["7H"] * 200,
    {}, {"team": 0, "cells": []}, {"team": 0, "cells": [[0, 0]] * 5}, {"player": 0, "card": "7H"},
    (1, 2), (0, 0), b"7H", bytearray(b"pass"), WeirdInt(2), WeirdStr("7H"), WeirdStr("pass"),
]


def value(r: Reader, depth: int = 0) -> Any:
    """An arbitrary, often almost-valid, Python value."""
    k = r.byte()
    if k < 150 or depth > 3:
        return _BASE_VALUES[k % len(_BASE_VALUES)]
    if k < 175:
        return [value(r, depth + 1) for _ in range(r.below(7))]
    if k < 190:
        return tuple(value(r, depth + 1) for _ in range(r.below(7)))
    if k < 205:
        return {decode(r.chunk(12), r.byte()): value(r, depth + 1) for _ in range(r.below(5))}
    if k < 220:
        return decode(r.chunk(40), r.byte())
    if k < 230:
        return (r.byte() - 128) * (1 << r.below(80))
    if k < 240:
        return [_BASE_VALUES[r.byte() % len(_BASE_VALUES)]] * (1000 + r.below(4000))  # huge list
    if k < 245:
        return "x" * (1 << r.below(20))  # huge text
    nested: Any = []
    for _ in range(r.below(200)):
        nested = [nested]
    return nested


def snapshot(obj: Any) -> str:
    """A comparable picture of a value (repr: NaN-safe, order-exact)."""
    return repr(obj)


# --------------------------------------------------------------------------- seed corpus


def _load_states() -> List[dict]:
    states = []
    folder = os.path.join(CORPUS, "states")
    if os.path.isdir(folder):
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json"):
                with open(os.path.join(folder, name)) as f:
                    states.append(json.load(f))
    if not states:  # a fallback so the targets work without a corpus
        g = Game(players=2, seed=1)
        states.append(g.to_dict())
    return states


def _load_moves() -> List[str]:
    path = os.path.join(CORPUS, "moves.txt")
    if not os.path.exists(path):
        return ["pass", "7H@d6", "JSxe5", "trade 7H", "2H@e6 =a6-e6 =e6-i6"]
    with open(path) as f:
        return [line.rstrip("\n") for line in f if line.strip()]


STATES = _load_states()
MOVES = _load_moves()
_BASE_GAMES: Dict[tuple, Any] = {}


def base_game(cls, index: int):
    """The game of STATES[index] for cls, built once and reused (its legal-move cache too): every
    target restores it (undo) and checks that it did, so a leak into the next input is caught."""
    key = (cls, index)
    entry = _BASE_GAMES.get(key)
    if entry is None:
        g = cls.from_dict(STATES[index])
        entry = _BASE_GAMES[key] = (g, g.to_dict())
    return entry


# --------------------------------------------------------------------------- checks


def outcome(fn: Callable[[], Any]):
    """("ok", result) or ("err", exception class) for a clean refusal; Finding for anything else."""
    try:
        return "ok", fn()
    except CLEAN as e:
        return "err", type(e)
    except Exception as e:  # noqa: BLE001 - the point: anything else is a finding
        raise Finding(f"unclean {type(e).__name__}: {e!r}") from e


def check_round_trip(g) -> dict:
    d = g.to_dict()
    again = type(g).from_dict(json.loads(json.dumps(d))).to_dict()
    expect(again == d, "from_dict(to_dict()) does not round-trip")
    return d


def check_parse_text(text: str) -> None:
    status, m = outcome(lambda: Move.parse(text))
    if status == "ok":
        expect(isinstance(m, Move), "Move.parse returned a non-Move")
        back = Move.parse(str(m))
        expect(back == m and hash(back) == hash(m), f"Move.parse(str(m)) != m for {text!r} -> {m!r}")
        expect(str(back) == str(m), "str(Move) is not canonical")


def check_move_ctor(args: list, kwargs: dict) -> None:
    status, m = outcome(lambda: Move(*args, **kwargs))
    if status == "ok":
        back = Move.parse(str(m))
        expect(back == m, f"Move.parse(str(Move(...))) != Move(...) for {m!r}")


def check_play(game_index: int, move: Any, extra: int) -> None:
    """Plays ``move`` on both implementations from the same position; compares outcomes."""
    results = []
    for cls in IMPLEMENTATIONS:
        g, before = base_game(cls, game_index)
        move_before = snapshot(move)
        status, err = outcome(lambda: g.play(move))
        expect(snapshot(move) == move_before, "play() changed its argument")
        if status == "err":
            expect(g.to_dict() == before, f"{cls.__module__}.Game: a refused play changed the game")
            results.append(("err", err))
            continue
        after = check_round_trip(g)
        expect(after["turn"] >= before["turn"], "turn went backwards")
        if extra & 1:
            outcome(lambda: g.legal_moves())
        g.undo()
        expect(g.to_dict() == before, f"{cls.__module__}.Game: undo() did not restore the position")
        results.append(("ok", after))
    expect(results[0][0] == results[1][0], f"core and reference disagree on play({move!r}): {results}")
    if results[0][0] == "ok":
        expect(results[0][1] == results[1][1], f"core and reference reach different states with play({move!r})")
    else:
        expect(results[0][1] is results[1][1], f"core and reference refuse play({move!r}) differently: {results}")


def check_referee(game_index: int, call: str, args: tuple) -> None:
    results = []
    for cls in IMPLEMENTATIONS:
        g, before = base_game(cls, game_index)
        status, err = outcome(lambda: getattr(g, call)(*args))
        if status == "err":
            expect(g.to_dict() == before, f"a refused {call} changed the game")
            results.append(("err", err))
        else:
            d = check_round_trip(g)
            g.undo()
            expect(g.to_dict() == before, f"undo() after {call} did not restore")
            results.append(("ok", d))
    expect(results[0] == results[1] if results[0][0] == "ok" else results[0][0] == results[1][0] == "err",
           f"core and reference disagree on {call}{args!r}: {results}")
    if results[0][0] == "err":
        expect(results[0][1] is results[1][1], f"core and reference refuse {call}{args!r} differently: {results}")


def check_from_dict(d: Any) -> None:
    results = []
    for cls in IMPLEMENTATIONS:
        before = snapshot(d)
        status, g = outcome(lambda: cls.from_dict(d))
        expect(snapshot(d) == before, "from_dict changed its argument")
        if status == "err":
            results.append(("err", g))
            continue
        out = check_round_trip(g)
        # A loaded position is safe to play on: a legal move, then undo back.
        for _ in range(1):
            moves = g.legal_moves()
            if not moves:
                break
            g.play(moves[len(moves) // 2])
            check_round_trip(g)
        while True:
            try:
                g.undo()
            except ValueError:
                break
        expect(g.to_dict() == out, "undo() did not return to the loaded position")
        results.append(("ok", out))
    expect(results[0][0] == results[1][0], f"core and reference disagree on from_dict: {results}")
    if results[0][0] == "ok":
        expect(results[0][1] == results[1][1], "core and reference load different states")
    else:
        expect(results[0][1] is results[1][1], f"core and reference refuse from_dict differently: {results}")


def check_core_position(d: Any) -> None:
    before = snapshot(d)
    status, s = outcome(lambda: _core.State.from_position(d))
    expect(snapshot(d) == before, "State.from_position changed its argument")
    if status == "err":
        return
    p = s.to_position()
    again = _core.State.from_position(p).to_position()
    expect(again == p, "State.to_position does not round-trip")
    for _ in range(3):
        ids = s.legal_moves()
        if not ids:
            break
        s.play(ids[len(ids) // 2])
    while s.history_size:
        s.undo()
    expect(s.to_position() == p, "State.undo did not return to the loaded position")


# --------------------------------------------------------------------------- dict mutation

_FIELDS = [
    "format", "players", "teams", "seed", "board", "sequences", "hands", "discards", "draw_pile",
    "current_player", "dealer", "turn", "traded_this_turn", "passes", "winner", "is_draw",
    "max_turns", "rng", "last_draw",
]
_CORE_FIELDS = [
    "players", "teams", "seed", "max_turns", "board", "sequences", "hands", "discards", "draw_pile",
    "current_player", "dealer", "turn", "traded_this_turn", "passes", "winner", "is_draw", "rng", "last_draw",
]


def _containers(obj: Any, out: list, depth: int = 0) -> list:
    if isinstance(obj, (list, dict)) and depth < 40 and len(out) < 5000:
        out.append(obj)
        for v in (obj.values() if isinstance(obj, dict) else obj):
            _containers(v, out, depth + 1)
    return out


def mutate(d: dict, r: Reader, fields: List[str]) -> dict:
    """1..4 structure-aware mutations of a (deep-copied) state dict."""
    d = copy.deepcopy(d)
    for _ in range(1 + r.below(4)):
        op = r.below(10)
        if op == 0:
            d.pop(r.choice(fields), None)
        elif op == 1:
            d[r.choice(fields)] = value(r)
        elif op == 2:
            d[decode(r.chunk(10), r.byte())] = value(r)  # an unknown key
        else:
            nodes = _containers(d, [])
            node = r.choice(nodes)
            if isinstance(node, dict):
                if node:
                    key = r.choice(list(node))
                    if op < 6:
                        node[key] = value(r)
                    else:
                        node.pop(key)
            elif node or op < 5:
                i = r.below(len(node) + 1)
                if op < 5:
                    node.insert(i, value(r))
                elif op < 7 and node:
                    node[min(i, len(node) - 1)] = value(r)
                elif op < 8 and node:
                    del node[min(i, len(node) - 1)]
                elif node:  # swap two entries (cards between piles, cells, rows)
                    j = r.below(len(node))
                    i = min(i, len(node) - 1)
                    node[i], node[j] = node[j], node[i]
    return d


# --------------------------------------------------------------------------- targets


def target_parse(data: bytes) -> None:
    """Move.parse on arbitrary text (and Move(...) on arbitrary arguments)."""
    r = Reader(data)
    mode = r.byte()
    if mode < 200:
        if mode < 100 and MOVES:  # a corpus move with bytes spliced in
            base = r.choice(MOVES)
            cut = r.below(len(base) + 1)
            text = base[:cut] + decode(r.chunk(8), r.byte()) + base[cut + r.below(4):]
        else:
            text = decode(r.rest(), mode)
        check_parse_text(text)
    else:
        args = [value(r) for _ in range(r.below(5))]
        if args and r.byte() < 160:
            args[0] = r.choice(["place", "remove", "trade", "pass"])
        kwargs = {}
        if r.byte() < 60:
            kwargs["declares"] = value(r)
            args = args[:3]
        check_move_ctor(args, kwargs)


def target_play(data: bytes) -> None:
    """play() (and the referee calls) with arbitrary text and objects on both Game classes."""
    r = Reader(data)
    index = r.below(len(STATES))
    mode = r.byte()
    extra = r.byte()
    if mode < 90:
        move: Any = decode(r.rest(), mode)
    elif mode < 170:  # a legal move of this position, as text, with an edit
        legal = [str(m) for m in base_game(Game, index)[0].legal_moves()] or ["pass"]
        base = r.choice(legal)
        cut = r.below(len(base) + 1)
        move = base[:cut] + decode(r.chunk(4), r.byte()) + base[cut + r.below(3):]
    elif mode < 200:  # a Move value, often legal, sometimes rebuilt with other declares
        legal = base_game(Game, index)[0].legal_moves() or [Move("pass")]
        move = r.choice(legal)
        if r.byte() < 80 and move.kind == "place":
            try:
                move = Move("place", move.card, move.cell, value(r))
            except CLEAN:
                pass
    elif mode < 240:
        move = value(r)
    elif mode < 248:
        check_referee(index, "missed_draw", (value(r),))
        return
    else:
        team = value(r)
        cards = value(r)
        if r.byte() >= 128:
            cards = {}
            for _ in range(r.below(4)):
                k = value(r)
                try:
                    cards[k] = value(r)
                except TypeError:  # unhashable key: not an input the API can even receive
                    pass
        check_referee(index, "table_talk_penalty", (team, cards))
        return
    check_play(index, move, extra)


def target_from_dict_json(data: bytes) -> None:
    """JSON text -> json.loads -> from_dict on both Game classes."""
    r = Reader(data)
    mode = r.byte()
    text = decode(r.rest(), mode)
    try:
        d = json.loads(text)
    except (ValueError, RecursionError):
        return
    check_from_dict(d)


def target_from_dict(data: bytes) -> None:
    """from_dict on structure-aware mutations of real to_dict() states."""
    r = Reader(data)
    d = mutate(STATES[r.below(len(STATES))], r, _FIELDS)
    check_from_dict(d)


def target_core_position(data: bytes) -> None:
    """_core.State.from_position directly, on mutations of valid core dicts."""
    r = Reader(data)
    pos = position_from_dict(STATES[r.below(len(STATES))]).as_core_dict()
    d = mutate(pos, r, _CORE_FIELDS)
    check_core_position(d)


TARGETS: Dict[str, Callable[[bytes], None]] = {
    "parse": target_parse,
    "play": target_play,
    "from_dict_json": target_from_dict_json,
    "from_dict": target_from_dict,
    "core_position": target_core_position,
}
