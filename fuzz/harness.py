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
* ``_core.Game.from_position`` (the binding, below the Python validation) refuses malformed dicts
  with ``ValueError`` / ``TypeError`` and whatever it accepts is safe to play on;
* ``play_id`` / ``play_action`` with any int or object: the move plays only if listed, a refusal
  changes nothing, and the process-wide move caches stay exact (each legal move maps to its one
  id and back) whatever was refused before;
* game records (``GameRecord.from_json``/``from_dict`` on any text or mutated record) refuse with
  a short ``ValueError``, and what loads replays alike on both implementations;
* agent specs (``agent_from_spec``) refuse cleanly (the search itself is not run here).

A broken contract raises ``Finding`` (an ``AssertionError``); ``fuzz/fuzz.py`` drives the targets
with atheris (coverage-guided libFuzzer) and records findings in ``fuzz/crashers/``;
``tests/test_fuzz_regressions.py`` replays the corpus and every crasher.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any, Callable, Dict, List

from sequence_game import Game, Move, _core, actions, reference
from sequence_game import game as core_game
from sequence_game.agents import agent_from_spec
from sequence_game.errors import short_repr
from sequence_game.position import position_from_dict
from sequence_game.records import GameRecord

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


class LyingInt(int):
    """In every range and equal to everything, by its own comparisons."""

    def __lt__(self, other):
        return False

    __gt__ = __lt__

    def __le__(self, other):
        return True

    __ge__ = __le__

    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


class LyingList(list):
    """A list whose ``__len__`` claims two items whatever it holds."""

    def __len__(self):
        return 2


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
    LyingInt(3), LyingInt(100), LyingInt(-1), LyingList([[], [], []]), LyingList(["7H"]), "7\u017f", "\u212aH",
    "\u0661", "1_0", " 1",
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
    for _ in range(r.below(200) * (1 + 30 * (k & 1))):  # up to 6,000 deep: past the recursion limit
        nested = [nested]
    return nested


def snapshot(obj: Any) -> str:
    """A comparable picture of a value (repr: NaN-safe, order-exact); too deep for repr: its id."""
    try:
        return repr(obj)
    except RecursionError:
        return f"<too deep to compare: {id(obj)}>"


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
    except Exception as e:
        raise Finding(f"unclean {type(e).__name__}: {short_repr(e)}") from e


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
        expect(back == m and hash(back) == hash(m), f"Move.parse(str(m)) != m for {short_repr(text)} -> {short_repr(m)}")
        expect(str(back) == str(m), "str(Move) is not canonical")


def check_move_ctor(args: list, kwargs: dict) -> None:
    status, m = outcome(lambda: Move(*args, **kwargs))
    if status == "ok":
        back = Move.parse(str(m))
        expect(back == m, f"Move.parse(str(Move(...))) != Move(...) for {short_repr(m)}")


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
    expect(results[0][0] == results[1][0], f"core and reference disagree on play({short_repr(move)}): {results}")
    if results[0][0] == "ok":
        expect(results[0][1] == results[1][1], f"core and reference reach different states with play({short_repr(move)})")
    else:
        expect(results[0][1] is results[1][1], f"core and reference refuse play({short_repr(move)}) differently: {results}")


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
           f"core and reference disagree on {call}{short_repr(args)}: {results}")
    if results[0][0] == "err":
        expect(results[0][1] is results[1][1], f"core and reference refuse {call}{short_repr(args)} differently: {results}")


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
    status, s = outcome(lambda: _core.Game.from_position(d))
    expect(snapshot(d) == before, "Game.from_position changed its argument")
    if status == "err":
        return
    p = s.to_position()
    again = _core.Game.from_position(p).to_position()
    expect(again == p, "Game.to_position does not round-trip")
    for _ in range(3):
        ids = s.legal_moves()
        if not ids:
            break
        s.play(ids[len(ids) // 2])
    while s.history_size:
        s.undo()
    expect(s.to_position() == p, "Game.undo did not return to the loaded position")


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
    if type(obj) in (list, dict) and depth < 40 and len(out) < 5000:  # a LyingList is a value, not a node
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
    """_core.Game.from_position directly, on mutations of valid core dicts."""
    r = Reader(data)
    pos = position_from_dict(STATES[r.below(len(STATES))]).as_core_dict()
    d = mutate(pos, r, _CORE_FIELDS)
    check_core_position(d)


def _spoil(move_id: int, r: Reader) -> int:
    """A legal id with bits a well-formed id leaves zero, or a field no move has."""
    how = r.below(5)
    if how == 0:
        return move_id | (1 + r.below(31)) << 27
    if how == 1:
        return move_id | (1 + r.below(2**25 - 1)) << 2 if move_id & 3 == 3 else move_id | 1 << (8 + r.below(19))
    if how == 2:
        return move_id & ~(63 << 2) | (52 + r.below(12)) << 2
    if how == 3:
        return move_id & ~(127 << 8) | (100 + r.below(28)) << 8
    return move_id ^ 1 << r.below(32)


def check_move_caches(ids: List[int]) -> None:
    """The process-wide caches give each of these (legal) ids its move and each move its one id."""
    for i in ids:
        m = core_game.move_from_id(i)
        expect(actions.move_id(m) == i, f"move_from_id({i}) = {m} encodes as {actions.move_id(m)}")
        expect(core_game._ID_BY_MOVE.get(m) == i, f"the move cache maps {m} to {core_game._ID_BY_MOVE.get(m)}, not {i}")


def target_play_id(data: bytes) -> None:
    """play_id / play_action with legal, spoiled, random and hostile ids; the move caches stay exact."""
    r = Reader(data)
    index = r.below(len(STATES))
    mode = r.byte()
    g, before = base_game(Game, index)
    legal = g.legal_move_ids()
    if mode < 220:
        if mode < 100 and legal:
            move_id: Any = _spoil(r.choice(legal), r)
        elif mode < 140 and legal:
            move_id = r.choice(legal)
        elif mode < 180:
            move_id = int.from_bytes(r.chunk(5).ljust(5, b"\0"), "little") >> r.below(9)
        elif mode < 200 and legal:
            move_id = LyingInt(r.choice(legal) + r.below(3) * 2**27)
        else:
            move_id = value(r)
        status, _ = outcome(lambda: g.play_id(move_id))
        if status == "ok":
            expect(isinstance(move_id, int) and int.__index__(move_id) in legal,
                   f"play_id({short_repr(move_id)}) played an id that is not listed")
            g.undo()
        expect(g.to_dict() == before, f"play_id({short_repr(move_id)}) left the game changed")
        check_move_caches(legal)
        return
    action = value(r) if mode >= 245 else r.below(5253 + 200) - 100
    results = []
    for cls in IMPLEMENTATIONS:
        game, start = base_game(cls, index)
        status, err = outcome(lambda: game.play_action(action))
        after = game.to_dict()
        results.append((status, err if status == "err" else after))
        while game.to_dict() != start:  # a whole move played: undo it; a pending placement: nothing to undo
            game.undo()
        game._pending = None
        expect(game.to_dict() == start, "play_action: the game did not come back")
    expect(results[0][0] == results[1][0], f"core and reference disagree on play_action({short_repr(action)}): {results}")
    check_move_caches(legal)


_RECORDS: List[str] = []


def _records() -> List[str]:
    """Record texts of short real games (seeded, both engines agree on them)."""
    if not _RECORDS:
        from sequence_game.agents import RandomAgent
        from sequence_game.records import play_game

        for seed, players in ((1, 2), (2, 3), (3, 4), (4, 6)):
            rec = play_game([RandomAgent(seed=seed + p) for p in range(players)], players=players, seed=seed,
                            max_turns=30, game_class=Game)
            _RECORDS.append(rec.to_json())
    return _RECORDS


def check_record(load: Callable[[], Any]) -> None:
    try:
        rec = load()
    except ValueError as e:
        expect(len(str(e)) < 2000, f"a record error message of {len(str(e))} characters")
        return
    except Exception as e:
        raise Finding(f"unclean {type(e).__name__} loading a record: {str(e)[:200]}") from e
    if len(rec.moves) > 400:
        return
    results = []
    for cls in IMPLEMENTATIONS:
        try:
            results.append(("ok", rec.replay(cls).to_dict()))
        except ValueError as e:
            expect(len(str(e)) < 2000, f"a replay error message of {len(str(e))} characters")
            results.append(("err", type(e)))
        except Exception as e:
            raise Finding(f"unclean {type(e).__name__} replaying a record: {str(e)[:200]}") from e
    expect(results[0] == results[1], f"core and reference replay a record differently: {str(results)[:300]}")


def target_record(data: bytes) -> None:
    """GameRecord.from_json on any text and bytes, from_dict on mutations of real records."""
    r = Reader(data)
    mode = r.byte()
    if mode < 100:
        text = decode(r.rest(), mode)
        check_record(lambda: GameRecord.from_json(text))
    elif mode < 130:
        raw = r.rest()
        check_record(lambda: GameRecord.from_json(raw))
    else:
        d = mutate(json.loads(r.choice(_records())), r, ["format", "players", "teams", "seed", "max_turns", "agents",
                                                           "moves", "result", "started", "finished"])
        check_record(lambda: GameRecord.from_dict(d))


def target_agent_spec(data: bytes) -> None:
    """agent_from_spec on any text: an agent or a clean refusal (no search is run)."""
    r = Reader(data)
    mode = r.byte()
    spec: Any = value(r) if mode >= 240 else decode(r.rest(), mode)
    status, agent = outcome(lambda: agent_from_spec(spec))
    if status == "ok":
        expect(isinstance(agent.name, str), "an agent without a name")


TARGETS: Dict[str, Callable[[bytes], None]] = {
    "parse": target_parse,
    "play": target_play,
    "from_dict_json": target_from_dict_json,
    "from_dict": target_from_dict,
    "core_position": target_core_position,
    "play_id": target_play_id,
    "record": target_record,
    "agent_spec": target_agent_spec,
}
