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
from typing import Any, Dict, List, Tuple, Union

__all__ = ["SYNC_SECONDS", "ResultsFile", "read_results"]

SYNC_SECONDS = 1.0  # the least time between two fsyncs of a results file

PathLike = Union[str, "os.PathLike[str]"]


def read_results(path: PathLike) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """``(header, games)`` of a results file: the games sorted by index, one per index.

    A torn last line (a job killed while writing it) is ignored; anything else malformed is a
    ValueError naming the line. A game recorded twice (which a runner never writes) keeps its
    first line.
    """
    header, games, _ = _scan(path)
    return header, games


def _scan(path: PathLike) -> Tuple[Dict[str, Any], List[Dict[str, Any]], int]:
    """``(header, games by index, bytes of whole lines)``."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ValueError(f"cannot read results file {os.fspath(path)!r}: {e.strerror or e}") from None
    whole = data.rfind(b"\n") + 1  # bytes up to the end of the last complete line
    lines = data[:whole].split(b"\n")[:-1]
    if not lines:
        raise ValueError(f"{os.fspath(path)!r} is not a results file: it has no header line")
    header = _parse(path, 1, lines[0])
    if not isinstance(header, dict) or not str(header.get("format", "")).startswith("sequence-game-"):
        raise ValueError(f"{os.fspath(path)!r} is not a results file: its first line has no sequence-game format")
    by_index: Dict[int, Dict[str, Any]] = {}
    for n, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        entry = _parse(path, n, line)
        if isinstance(entry, dict) and entry.get("format") == header["format"]:
            header = entry  # a resumed job that grew writes its new header; the last one counts
            continue
        index = entry.get("index") if isinstance(entry, dict) else None
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise ValueError(f"{os.fspath(path)!r} line {n}: a game line needs an 'index' >= 0")
        by_index.setdefault(index, entry)
    return header, [by_index[i] for i in sorted(by_index)], whole


def _parse(path: PathLike, n: int, line: bytes) -> Any:
    try:
        return json.loads(line)
    except ValueError as e:
        raise ValueError(f"{os.fspath(path)!r} line {n} is not JSON: {e}") from None


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

