"""The web server's limits, in one place: what one client, one table and the whole server may use.

``create_app(limits=ServerLimits(...))`` takes them; ``sequence-game serve`` uses the defaults,
changed with ``--limit NAME=VALUE`` (:meth:`ServerLimits.with_settings`) and ``--allowed-host``. docs/security.md lists each with its default and why it is there: the
server is meant to face anonymous clients, so no single one may exhaust what the others need.

>>> ServerLimits().max_tables_per_client < ServerLimits().max_tables
True
>>> ServerLimits().with_settings(["idle_seconds=3600", "max_tables_per_client=5"]).idle_seconds
3600.0
>>> ServerLimits(max_tables=0)
Traceback (most recent call last):
...
ValueError: ServerLimits.max_tables must be at least 1, not 0
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Sequence, Tuple

__all__ = ["LOOPBACK_HOSTS", "ServerLimits", "parse_settings", "setting_name"]

#: The names a browser on this machine uses for a loopback server (the Host header without the port).
LOOPBACK_HOSTS: Tuple[str, ...] = ("127.0.0.1", "localhost", "::1", "[::1]")


MAX_AI_PAUSE = 10.0  # seconds: the longest pause before an AI move a server may set


@dataclass(frozen=True)
class ServerLimits:
    """Every bound the server enforces; all counts are at least 1, all times positive."""

    # --- tables
    #: live tables in memory; beyond it a creation is refused (503) once no finished table can go
    max_tables: int = 1000
    #: live unfinished tables created by one client address: no single client can hold the server's cap
    max_tables_per_client: int = 20
    #: table creations per client address: a bucket of ``create_burst`` that refills at ``create_per_minute``
    create_burst: int = 10
    create_per_minute: float = 10.0
    #: a live table nobody changed for this long is closed and leaves memory (it stays stored)
    idle_seconds: float = 24 * 3600.0
    #: a table at which no human seat ever connected or moved leaves memory after this long
    abandoned_seconds: float = 15 * 60.0

    # --- websockets
    max_sockets: int = 2000  #: open table websockets on the whole server
    max_sockets_per_table: int = 32  #: seats and spectators of one table together
    max_sockets_per_client: int = 32  #: open table websockets from one client address

    # --- the AI
    #: the longest search a table or an analysis may ask for, in seconds
    max_ai_seconds: float = 5.0
    #: the least time an AI move takes, in seconds (0 to 10): the people at the table see whose turn
    #: it is and follow the play; 0 for bots and measurements (``serve --limit ai_pause=0``)
    ai_pause: float = 0.4
    #: threads for AI moves (None: one per CPU); hints and analyses have their own, smaller pool
    ai_workers: Optional[int] = None
    #: threads for hints and analyses (None: half the CPUs, at least one), never used by AI moves
    analysis_workers: Optional[int] = None
    #: hints and analyses running or queued: on the whole server, and from one client address
    max_analyses: int = 16
    max_analyses_per_client: int = 2
    #: post-game reviews computed at once (each values every legal move of every decision): on the
    #: whole server, and asked by one client address
    max_reviews: int = 2
    max_reviews_per_client: int = 1
    #: the longest game the server reviews, in moves: a review's cost grows with the game's length
    #: (every legal move of every decision is valued), so it is bounded here
    max_review_moves: int = 600

    # --- seeks (seeks.py) and table chat (tables/chat.py)
    #: open seeks on the whole server, and posted from one client address
    max_seeks: int = 500
    max_seeks_per_client: int = 3
    #: the longest a seek stays open, and how long it stays open without its poster asking about it
    #: (the poster's page long-polls it: a closed page lets its seek expire)
    seek_seconds: float = 15 * 60.0
    seek_idle_seconds: float = 60.0
    #: chat messages per client address: a bucket of ``chat_burst`` that refills at ``chat_per_minute``
    chat_burst: int = 5
    chat_per_minute: float = 20.0

    # --- who may talk to the server
    #: Host header names accepted (without port); empty: the loopback names when the server listens
    #: on loopback. A server on a public address must name its hosts (``serve --allowed-host``).
    allowed_hosts: Tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in ("ai_workers", "analysis_workers") and value is None:
                continue
            if f.name == "allowed_hosts":
                if isinstance(value, str) or not all(isinstance(h, str) and h for h in value):
                    raise TypeError(f"ServerLimits.allowed_hosts must be a tuple of host names, not {value!r}")
                object.__setattr__(self, f.name, tuple(h.lower() for h in value))
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"ServerLimits.{f.name} must be a number, not {value!r}")
            if f.name == "ai_pause":
                if not 0 <= value <= MAX_AI_PAUSE:
                    raise ValueError(f"ServerLimits.ai_pause must be from 0 to {MAX_AI_PAUSE} seconds, not {value!r}")
                continue
            if isinstance(f.default, int) or f.name in ("ai_workers", "analysis_workers"):
                if not isinstance(value, int) or value < 1:
                    raise ValueError(f"ServerLimits.{f.name} must be at least 1, not {value!r}")
            elif not (value > 0 and math.isfinite(value)):
                raise ValueError(f"ServerLimits.{f.name} must be a positive finite number, not {value!r}")

    def with_settings(self, settings: Sequence[str], also: Sequence[str] = ()) -> ServerLimits:
        """A copy with each ``"NAME=VALUE"`` of ``settings`` applied (``serve --limit``): a count
        is an integer, a time or rate a number. ``ValueError`` names a bad setting and the
        settable names (``also``: names settable elsewhere, the club's, for that message).
        ``allowed_hosts`` has its own option (``--allowed-host``)."""
        names = [f.name for f in dataclasses.fields(self) if f.name != "allowed_hosts"]
        changed: ServerLimits = parse_settings(self, settings, names, also)
        return changed


def setting_name(setting: str) -> str:
    """The NAME of a ``"NAME=VALUE"`` setting, as the dataclass field it sets (``-`` read as ``_``)."""
    return setting.partition("=")[0].strip().replace("-", "_")


def parse_settings(target: Any, settings: Sequence[str], names: Sequence[str], also: Sequence[str] = ()) -> Any:
    """A copy of the frozen dataclass ``target`` with each ``"NAME=VALUE"`` of ``settings`` applied
    to its field NAME, one of ``names`` (an integer where the default is one or None, else a
    number; the dataclass checks the bounds). ``ValueError`` in one line, naming a bad setting and
    every settable name (``names`` and ``also``)."""
    fields = {f.name: f for f in dataclasses.fields(target) if f.name in names}
    changes: Dict[str, Any] = {}
    for setting in settings:
        name, sep, text = setting.partition("=")
        name = setting_name(setting)
        if not sep or name not in fields:
            raise ValueError(f"--limit {setting[:60]!r}: expected NAME=VALUE with NAME one of "
                             f"{', '.join([*names, *also])} (docs/security.md lists each)")
        counts = isinstance(fields[name].default, int) or fields[name].default is None
        try:
            changes[name] = int(text) if counts else float(text)
        except ValueError:
            kind = "an integer" if counts else "a number"
            raise ValueError(f"--limit {name}: expected {kind}, not {text[:40]!r}") from None
    try:
        return dataclasses.replace(target, **changes)
    except ValueError as e:
        raise ValueError(f"--limit: {e}") from None
