"""Results files: JSON lines, the job first, then one line per game as each game finishes.

::

    {"format": "sequence-game-match/1", "names": [...], "agents": [...], "games": 200, "players": 2, ...}
    {"index": 3, "seed": ..., "contenders": [1, 0], "agents": [...], "agent_seeds": [...], "winner": 0,
     "winner_contender": 1, "is_draw": false, "turns": 61, "moves": ["7H@d6", ...], "seconds": 12.3, ...}

Games appear in the order they finished, not in index order. Each line is written whole and
flushed to the operating system before the next game is counted, so a job killed at any moment
loses at most the games that were being played: the file stays readable (a torn last line is
ignored and cut off when the job resumes), and resuming plays only the indices that have no line.
The file is ``fsync``-ed to disk with a line written :data:`SYNC_SECONDS` or more after the last
sync, and when it is closed, not after every line: a sync costs milliseconds, which for cheap games
(a few ms each) would make the writing process the pool's bottleneck. So only a power cut or an
operating-system crash (not a killed job) can lose the games written since the last sync;
resuming plays them again.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ..errors import short_repr

__all__ = ["MAX_GAMES", "SYNC_SECONDS", "ResultsFile", "read_results"]

SYNC_SECONDS = 1.0  # the least time between two fsyncs of a results file
#: The most games (units) one job may have: the runners keep a list of the indices still to play.
MAX_GAMES = 10_000_000
MAX_CONTENDERS = 1000
MAX_FILE_BYTES = 4 << 30  # read whole into memory
_MAX_TEXT = 10_000  # characters of one name, spec or move in a line

PathLike = Union[str, "os.PathLike[str]"]


def read_results(path: PathLike) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """``(header, games)`` of a results file: the games sorted by index, one per index.

    A torn last line (a job killed while writing it) is ignored. Every other line is checked
    against its format: keys, types, bounds, and a game's deal seed and seating against the
    header; anything else is a one-line ValueError ``'FILE' line N: what is wrong``. A game
    recorded twice (which a runner never writes) keeps its first line.
    """
    header, games, _ = _scan(path)
    return header, games


def _scan(path: PathLike) -> Tuple[Dict[str, Any], List[Dict[str, Any]], int]:
    """``(header, games by index, bytes of whole lines)``; every line checked against its format."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        raise ValueError(f"cannot read results file {os.fspath(path)!r}: {e.strerror or e}") from None
    except MemoryError:
        raise ValueError(f"cannot read results file {os.fspath(path)!r}: out of memory") from None
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"{os.fspath(path)!r} is larger than {MAX_FILE_BYTES >> 20} MiB, not a results file")
    whole = data.rfind(b"\n") + 1  # bytes up to the end of the last complete line
    lines = data[:whole].split(b"\n")[:-1]
    if not lines:
        raise ValueError(f"{os.fspath(path)!r} is not a results file: it has no header line")
    header = _parse(path, 1, lines[0])
    if not isinstance(header, dict) or not isinstance(header.get("format"), str) or header["format"] not in _formats():
        raise ValueError(f"{os.fspath(path)!r} is not a results file: its first line has no sequence-game format"
                         + (f" (format {short_repr(header.get('format'))})" if isinstance(header, dict) else ""))
    check_header, check_entry = _formats()[header["format"]]
    _checked(path, 1, check_header, header)
    first = header
    games: List[Tuple[int, Dict[str, Any]]] = []
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        entry = _parse(path, n, line)
        if not isinstance(entry, dict):
            raise ValueError(f"{os.fspath(path)!r} line {n}: a line must be a JSON object, not {short_repr(entry)}")
        if "format" in entry:
            # A resumed job that grew writes its new header; the last one counts.
            _checked(path, n, check_header, entry)
            _checked(path, n, _same_job, first, entry, header)
            header = entry
            continue
        games.append((n, entry))
    by_index: Dict[int, Dict[str, Any]] = {}
    for n, entry in games:
        _checked(path, n, check_entry, header, entry)
        by_index.setdefault(entry["index"], entry)
    return header, [by_index[i] for i in sorted(by_index)], whole


def _parse(path: PathLike, n: int, line: bytes) -> Any:
    try:
        return json.loads(line)
    except RecursionError:
        raise ValueError(f"{os.fspath(path)!r} line {n}: JSON nested too deeply") from None
    except ValueError as e:
        raise ValueError(f"{os.fspath(path)!r} line {n} is not JSON: {e}") from None


# ---------------------------------------------------------------- the formats, checked line by line


class _LineError(Exception):
    """What is wrong with one line (the caller adds the file and the line number)."""


def _checked(path: PathLike, n: int, check: Callable[..., None], *args: Any) -> None:
    try:
        check(*args)
    except _LineError as e:
        raise ValueError(f"{os.fspath(path)!r} line {n}: {e}") from None


def _keys(d: Dict[str, Any], required: Sequence[str], optional: Sequence[str] = ()) -> None:
    missing = [k for k in required if k not in d]
    if missing:
        raise _LineError(f"missing key{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))}")
    unknown = [k for k in d if k not in required and k not in optional]
    if unknown:
        raise _LineError(f"unknown key {short_repr(unknown[0])}")


def _int(d: Dict[str, Any], key: str, lo: int, hi: int, none: bool = False) -> Optional[int]:
    v = d[key]
    if v is None and none:
        return None
    if type(v) is not int or not lo <= v <= hi:
        raise _LineError(f"{key!r} must be {'null or ' * none}an int {lo}..{hi}, not {short_repr(v)}")
    return v


def _number(d: Dict[str, Any], key: str) -> None:
    v = d.get(key, 0.0)
    if type(v) not in (int, float) or not 0 <= v < 1e12:  # NaN fails the comparison
        raise _LineError(f"{key!r} must be a number of seconds >= 0, not {short_repr(v)}")


def _text(d: Dict[str, Any], key: str, limit: int = _MAX_TEXT, none: bool = False) -> None:
    v = d[key]
    if not (isinstance(v, str) and len(v) <= limit) and not (none and v is None):
        raise _LineError(f"{key!r} must be {'null or ' * none}a string of at most {limit} characters, not {short_repr(v)}")


def _texts(d: Dict[str, Any], key: str, count: Optional[int], none: bool = False, lo: int = 0) -> None:
    v = d[key]
    if none and v is None:
        return
    ok = isinstance(v, list) and (count is None or len(v) == count) and len(v) >= lo
    if not ok or not all(isinstance(x, str) and len(x) <= _MAX_TEXT for x in v):
        size = f"{count}" if count is not None else f"at least {lo}"
        raise _LineError(f"{key!r} must be {'null or ' * none}a list of {size} strings, not {short_repr(v)}")


def _ints(d: Dict[str, Any], key: str, count: int, lo: int, hi: int) -> List[int]:
    v = d[key]
    if not isinstance(v, list) or len(v) != count or not all(type(x) is int and lo <= x <= hi for x in v):
        raise _LineError(f"{key!r} must be a list of {count} ints {lo}..{hi}, not {short_repr(v)}")
    return list(v)


def _table(d: Dict[str, Any]) -> None:
    """players, teams (R2), seed and max_turns of a header."""
    from ..game_setup import check_players_teams

    players = _int(d, "players", 2, 12)
    teams = _int(d, "teams", 1, 3)
    try:
        check_players_teams(players, teams)
    except ValueError as e:
        raise _LineError(str(e)) from None
    _int(d, "seed", 0, 2**64 - 1)
    _int(d, "max_turns", 1, 2**31 - 1, none=True)
    _int(d, "games", 1, MAX_GAMES)


def _match_header(d: Dict[str, Any]) -> None:
    _keys(d, ("format", "names", "agents", "games", "players", "teams", "seed", "max_turns", "engine"))
    _texts(d, "names", None, lo=2)
    if len(d["names"]) > MAX_CONTENDERS:
        raise _LineError(f"'names': at most {MAX_CONTENDERS} contenders, not {len(d['names'])}")
    _texts(d, "agents", len(d["names"]), none=True)
    _text(d, "engine")
    _table(d)


def _match_entry(header: Dict[str, Any], d: Dict[str, Any]) -> None:
    from ..seeds import derive_seed

    _keys(d, ("index", "seed", "contenders", "agents", "winner", "winner_contender", "is_draw", "turns", "moves"),
          ("agent_seeds", "seconds", "cpu_seconds", "started", "finished", "host", "pid", "node"))
    players, teams, names = header["players"], header["teams"], header["names"]
    index = _int(d, "index", 0, header["games"] - 1)
    assert index is not None
    c = len(names)
    deal = derive_seed(header["seed"], index // c)
    if _int(d, "seed", 0, 2**64 - 1) != deal:
        raise _LineError(f"game {index} has seed {d['seed']}, but the match seed deals it from {deal}")
    seating = [(t + index) % c for t in range(teams)]
    if _ints(d, "contenders", teams, 0, c - 1) != seating:
        raise _LineError(f"game {index} seats contenders {d['contenders']}, but the match seats {seating}")
    _texts(d, "agents", players)
    if d["agents"] != [names[seating[p % teams]] for p in range(players)]:
        raise _LineError(f"game {index}'s agents {short_repr(d['agents'])} are not the contenders seated in it")
    if "agent_seeds" in d:
        _ints(d, "agent_seeds", players, 0, 2**64 - 1)
    winner = _int(d, "winner", 0, teams - 1, none=True)
    expected = None if winner is None else seating[winner]
    if d["winner_contender"] != expected or type(d["winner_contender"]) not in (int, type(None)):
        raise _LineError(f"'winner_contender' must be {short_repr(expected)} (the contender of team "
                   f"{winner}), not {short_repr(d['winner_contender'])}")
    if type(d["is_draw"]) is not bool or d["is_draw"] != (winner is None):
        raise _LineError(f"'is_draw' must be {str(winner is None).lower()} for a game with winner "
                   f"{short_repr(winner)}, not {short_repr(d['is_draw'])}")
    _int(d, "turns", 0, header["max_turns"] or 2**31 - 1)
    _texts(d, "moves", None)
    for key in ("seconds", "cpu_seconds"):
        _number(d, key)
    for key in ("started", "finished", "host", "node"):
        if key in d:
            _text(d, key, none=True)
    if "pid" in d:
        _int(d, "pid", 0, 2**63 - 1)


def _selfplay_header(d: Dict[str, Any]) -> None:
    _keys(d, ("format", "agents", "games", "players", "teams", "seed", "max_turns", "shard_games",
              "observation_features", "action_count"))
    _texts(d, "agents", None, lo=1)
    _table(d)
    _int(d, "shard_games", 1, MAX_GAMES)
    _int(d, "observation_features", 1, 10**6)
    _int(d, "action_count", 1, 10**6)


def _selfplay_entry(header: Dict[str, Any], d: Dict[str, Any]) -> None:
    _keys(d, ("index", "games", "positions", "file", "bytes", "sha256"),
          ("seconds", "cpu_seconds", "node", "draws", "capped"))
    games, per = header["games"], header["shard_games"]
    index = _int(d, "index", 0, -(-games // per) - 1)
    assert index is not None
    span = [index * per, min(games, (index + 1) * per)]
    if d["games"] != span or not all(type(x) is int for x in d["games"]):
        raise _LineError(f"shard {index} holds games {span}, not {short_repr(d['games'])}")
    _int(d, "positions", 0, 2**53)
    if d["file"] != f"shard-{index:05d}.npz":
        raise _LineError(f"shard {index}'s file is shard-{index:05d}.npz, not {short_repr(d['file'])}")
    _int(d, "bytes", 0, 2**53)
    sha = d["sha256"]
    if not (isinstance(sha, str) and len(sha) == 64 and all(ch in "0123456789abcdef" for ch in sha)):
        raise _LineError(f"'sha256' must be 64 lowercase hex digits, not {short_repr(sha)}")
    for key in ("seconds", "cpu_seconds"):
        _number(d, key)
    if "node" in d:
        _text(d, "node", none=True)
    for key in ("draws", "capped"):
        if key in d:
            _int(d, key, 0, span[1] - span[0])


def _same_job(first: Dict[str, Any], later: Dict[str, Any], last: Dict[str, Any]) -> None:
    for key in first:
        if key != "games" and later.get(key) != first[key]:
            raise _LineError(f"a header of another job: {key} {short_repr(later.get(key))}, the file's job has "
                       f"{short_repr(first[key])}")
    if later["games"] < last["games"]:
        raise _LineError(f"a header with fewer games ({later['games']}) than the one before ({last['games']})")


def _formats() -> Dict[str, Tuple[Callable[..., None], Callable[..., None]]]:
    return {"sequence-game-match/1": (_match_header, _match_entry),
            "sequence-game-selfplay/1": (_selfplay_header, _selfplay_entry)}


class ResultsFile:
    """Appends a job's results to ``path``; see the module docstring for the format.

    ``ResultsFile.create(path, header)`` starts a new file (refusing to overwrite one);
    ``ResultsFile.resume(path, header, identity)`` reopens one after checking it belongs to the
    same job and returns the games already played.
    """

    def __init__(self, path: PathLike, handle: Any) -> None:
        self.path = os.fspath(path)
        self._f = handle
        self._synced = time.monotonic()

    @classmethod
    def create(cls, path: PathLike, header: Dict[str, Any]) -> ResultsFile:
        try:
            f = open(path, "x", encoding="utf-8")  # noqa: SIM115 - kept open by the ResultsFile
        except FileExistsError:
            raise ValueError(f"results file {os.fspath(path)!r} exists: resume it (--resume / resume=True) "
                             "or choose another file") from None
        out = cls(path, f)
        out._write(header)
        return out

    @classmethod
    def resume(cls, path: PathLike, header: Dict[str, Any],
               identity: Dict[str, Any]) -> Tuple[ResultsFile, List[Dict[str, Any]]]:
        old, games, whole = _scan(path)
        wrong = [k for k, v in identity.items() if old.get(k) != v]
        if wrong:
            diffs = ", ".join(f"{k}: file {old.get(k)!r}, job {identity[k]!r}" for k in wrong)
            raise ValueError(f"results file {os.fspath(path)!r} belongs to another job ({diffs})")
        with open(path, "r+b") as torn:
            torn.truncate(whole)  # cut a torn last line
        f = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open by the ResultsFile
        out = cls(path, f)
        if header.get("games", 0) > old.get("games", 0):  # a longer match: record the new size
            out._write(header)
        return out, [g for g in games if g["index"] < header.get("games", float("inf"))]

    def append(self, entry: Dict[str, Any]) -> None:
        """Write one finished unit, flushed at once (synced as the module docstring says)."""
        self._write(entry)

    def _write(self, entry: Dict[str, Any]) -> None:
        self._f.write(json.dumps(entry, separators=(",", ":")) + "\n")
        self._f.flush()
        if time.monotonic() - self._synced >= SYNC_SECONDS:
            self.sync()

    def sync(self) -> None:
        """Make everything written so far durable (``fsync``)."""
        os.fsync(self._f.fileno())
        self._synced = time.monotonic()

    def close(self) -> None:
        if not self._f.closed:
            self._f.flush()
            self.sync()
        self._f.close()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

