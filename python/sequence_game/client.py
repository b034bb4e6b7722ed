"""A small typed client of the HTTP API of ``sequence-game serve`` (docs/web.md), standard library
only (``http.client``), so a bot needs nothing beyond the base install.

>>> client = Client("http://127.0.0.1:8000", token="...")        # doctest: +SKIP
>>> view = client.table("k3j9x2")                                # doctest: +SKIP
>>> while not view.over:                                         # doctest: +SKIP
...     if view.legal:
...         view = client.play(view.table, view.legal[0], version=view.version)
...     else:
...         view = client.wait(view.table, after_version=view.version)  # a long-poll

``Client.stream(table)`` yields every change as it happens (the NDJSON event stream), and
``Client.analysis_stream(table)`` the AI's analysis of your position as it goes. Every
endpoint of the server has a method here (docs/web.md lists them), each returning a typed value.

The server is not trusted (docs/security.md, "The client and the bot"): the seat token is never
sent to another origin (a redirect elsewhere is refused), every request ends within ``timeout``
seconds however slowly the server answers, answers are read up to ``max_body`` bytes and stream
lines up to ``max_line``, and every answer is checked against the shape the API documents. What
breaks one of these rules is a :class:`ClientError` (:class:`BadAnswerError` for a wrong answer)
with one line saying what was wrong.

A seat's view carries only what that seat may see (R9). :meth:`TableView.game` turns it into a
``sequence_game.Game`` an agent can search: the cards the seat cannot see (the other hands, the
draw pile) are dealt at random from the unseen ones, which any agent that keeps to R9 never reads.
The bot runner (``sequence-game bot``, :mod:`sequence_game.bot`) is built on this.
"""

from __future__ import annotations

import contextlib
import http.client
import io
import json
import random
import socket
import time
import typing
from collections import Counter
from dataclasses import dataclass, field, fields
from typing import Any, Callable, ClassVar, Dict, FrozenSet, Generator, List, Optional, Sequence, Tuple, Type, TypeVar, Union
from urllib.parse import quote, urlencode, urljoin, urlsplit

from .cards import RANKS, SUITS
from .errors import short_repr
from .seeds import fresh_seed

__all__ = [
    "Analysis", "AnalysisInfo", "BadAnswerError", "Client", "ClientError", "Hint", "MoveList", "Preset", "PublicMove",
    "QuickPairing", "Rematch", "RematchAnswer", "Replay", "ReplayStep", "Review", "ReviewStatus", "ReviewedMove", "RootMove",
    "SeatInfo", "SeatLink", "Seek", "SeekList", "SeekPosted", "SeekStatus", "Session", "SummarySeat", "TableCreated",
    "TableSummary", "TableView", "game_from_observation",
]

#: Every card of the two decks (R1): each of the 52 twice.
_DECK = [r + s for r in RANKS for s in SUITS] * 2

#: The largest answer read by default (a replay of a long game is a few MiB).
MAX_BODY = 64 * 2**20
#: The longest line of the event stream read by default (one table view is a few KiB).
MAX_LINE = 2**20
#: The longest refusal body read (its ``detail`` is one line).
_MAX_ERROR_BODY = 64 * 2**10
#: Redirects followed within the server's own origin; one to another origin is refused.
_MAX_REDIRECTS = 5
_REDIRECTS = (301, 302, 303, 307, 308)
#: The session cookie of a signed-in account (web/club/sessions.py, docs/club.md).
SESSION_COOKIE = "sg_session"
#: Keep-alive lines come every 20 s from the server (docs/web.md); a longer silence is a dead link.
STREAM_TIMEOUT = 60.0


class ClientError(Exception):
    """The server refused a request (``status`` 4xx/5xx, ``detail`` its message, ``error`` its
    error class) or could not be reached or did not answer in time (``status`` 0)."""

    def __init__(self, status: int, detail: str, error: str = "") -> None:
        detail = _one_line(detail)
        super().__init__(f"{status} {error + ': ' if error else ''}{detail}" if status else detail)
        self.status = status
        self.detail = detail
        self.error = error


class BadAnswerError(ClientError):
    """The server's answer is not what the API documents: not JSON, a wrong shape, a missing or
    wrongly typed field, too large. ``status`` is the answer's HTTP status (0 if unknown)."""

    def __init__(self, detail: str, status: int = 0) -> None:
        super().__init__(0, detail, "BadAnswer")
        self.status = status


def _one_line(text: str, limit: int = 500) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit] + "..."


# --------------------------------------------------------------------------- checking answers


def _kind(value: Any) -> str:
    """A JSON value's kind, for a message: ``a string``, ``null``, ``a list`` ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def _obj(value: Any, what: str) -> Dict[str, Any]:
    if not isinstance(value, dict):
        raise BadAnswerError(f"{what} must be a JSON object, not {_kind(value)}")
    return value


def _field(d: Dict[str, Any], key: str, what: str, check: Callable[[Any], bool], kind: str,
           null: bool = False, default: Any = ...) -> Any:
    if key not in d:
        if default is not ...:
            return default
        raise BadAnswerError(f"{what} has no field {key!r}")
    value = d[key]
    if value is None and null:
        return None
    if not check(value):
        raise BadAnswerError(f"{what}: {key!r} must be {kind}{' or null' if null else ''}, not {_kind(value)} "
                             f"{short_repr(value, 40)}")
    return value


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _int(d: Dict[str, Any], key: str, what: str, null: bool = False, default: Any = ...) -> Any:
    return _field(d, key, what, _is_int, "an integer", null, default)


def _str(d: Dict[str, Any], key: str, what: str, null: bool = False, default: Any = ...) -> Any:
    return _field(d, key, what, lambda v: isinstance(v, str), "a string", null, default)


def _bool(d: Dict[str, Any], key: str, what: str, default: Any = ...) -> bool:
    return bool(_field(d, key, what, lambda v: isinstance(v, bool), "true or false", False, default))


def _dict(d: Dict[str, Any], key: str, what: str, null: bool = False) -> Any:
    return _field(d, key, what, lambda v: isinstance(v, dict), "an object", null)


def _list(d: Dict[str, Any], key: str, what: str, of: Callable[[Any], bool] = lambda v: True,
          kind: str = "a list", default: Any = ...) -> List[Any]:
    value = _field(d, key, what, lambda v: isinstance(v, list) and all(of(x) for x in v), kind, False, default)
    return list(value)


def _result(d: Dict[str, Any], key: str, what: str) -> None:
    """Check a game's ``Result`` object (winner, is_draw, turns, ...), which answers keep as the dict it is."""
    result = d.get(key)
    if result is not None:
        inner = f"{what} {key}"
        _int(result, "winner", inner, null=True)
        _bool(result, "is_draw", inner)
        _int(result, "turns", inner)
        _int(result, "resigned", inner, null=True, default=None)


# --------------------------------------------------------------------------- reading an answer by its fields

T = TypeVar("T")
A = TypeVar("A", bound="_Answer")

#: How a message names a value of each plain type: one, several, an item of a pair.
_SINGULAR = {int: "an integer", float: "a number", str: "a string", bool: "true or false"}
_PLURAL = {int: "integers", float: "numbers", str: "strings", bool: "booleans"}
_ITEM = {int: "integer", float: "number", str: "string", bool: "boolean"}


class _Answer:
    """A typed answer of the server: a frozen dataclass whose fields are the answer's shape.

    :meth:`from_json` reads each field from the JSON object by its annotation and checks its type;
    the shapes are the server's (``web/models/``, the OpenAPI document), and
    ``tests/test_client.py`` holds each answer's fields to its schema there, name and type, so the
    two cannot drift apart. ``_WHAT`` names the answer in messages; ``_MAY_LACK`` the fields an
    answer may leave out (they take their defaults: added to the API later, a server may not send
    them yet); ``_check`` adds what a type cannot say."""

    _WHAT: ClassVar[str] = "an answer"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset()

    @classmethod
    def from_json(cls: Type[A], d: Any) -> A:
        """The answer from the server's JSON, every field checked (:class:`BadAnswerError` names the
        first one that is missing or of the wrong type)."""
        return _read(cls, d, cls._WHAT)

    @classmethod
    def _check(cls, d: Dict[str, Any], what: str) -> None:
        """What the fields' types do not say (the answer's ``d`` has its fields checked already)."""


_SHAPES: Dict[type, List[Tuple[str, Any, bool]]] = {}


def answer_fields(cls: type) -> List[Tuple[str, Any, bool]]:
    """(name, type, whole) of each field of the answer class ``cls``: ``whole`` marks the field that
    keeps the whole JSON object (``TableView.raw``), which is no field of the answer."""
    shape = _SHAPES.get(cls)
    if shape is None:
        hints = typing.get_type_hints(cls)
        shape = _SHAPES[cls] = [(f.name, hints[f.name], bool(f.metadata.get("whole"))) for f in fields(cls)]
    return shape


def _read(cls: Type[A], value: Any, what: str) -> A:
    d = _obj(value, what)
    values: Dict[str, Any] = {}
    for name, kind, whole in answer_fields(cls):
        if whole:
            values[name] = d
        elif name in d:
            values[name] = _value(kind, d[name], name, what)
        elif name not in cls._MAY_LACK:
            raise BadAnswerError(f"{what} has no field {name!r}")
    cls._check(d, what)
    made: A = cls(**values)
    return made


def _optional(kind: Any) -> Tuple[Any, bool]:
    """``Optional[X]`` -> (X, True); any other type -> (it, False)."""
    if typing.get_origin(kind) is Union:
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(kind)) == 2:
            return args[0], True
    return kind, False


def _fits(kind: Any, value: Any) -> bool:
    """Whether the JSON ``value`` has the shape of the field type ``kind`` (an answer: an object;
    its own fields are checked as it is read)."""
    kind, null = _optional(kind)
    if kind is Any:
        return True
    if value is None:
        return null
    if kind in (int, float):
        return _is_int(value) if kind is int else _is_num(value)
    if kind in (str, bool):
        return isinstance(value, kind)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is list:
        return isinstance(value, list) and all(_fits(args[0], x) for x in value)
    if origin is tuple:
        return isinstance(value, list) and len(value) == len(args) and all(map(_fits, args, value))
    if origin is dict:
        return isinstance(value, dict) and all(_fits(args[1], x) for x in value.values())
    return isinstance(value, dict)  # an answer class


def _kind_text(kind: Any, plural: bool = False) -> str:
    """The field type ``kind`` in a message: ``an integer``, ``a list of strings`` ..."""
    kind, null = _optional(kind)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if origin is list:
        text = ("lists" if plural else "a list") + " of " + _kind_text(args[0], plural=True)
    elif origin is tuple:
        text = "[" + ", ".join(_ITEM.get(a, "value") for a in args) + "]" + (" pairs" if plural else " pair")
    elif kind in _PLURAL:
        text = _PLURAL[kind] if plural else _SINGULAR[kind]
    elif origin is dict and args[1] is not Any:
        text = ("objects" if plural else "an object") + " of " + _kind_text(args[1], plural=True)
    else:
        text = "objects" if plural else "an object"
    return text + (" or nulls" if plural else " or null") * null


def _value(kind: Any, value: Any, key: str, what: str) -> Any:
    """The field ``key`` of type ``kind`` from its JSON ``value``, checked (numbers become floats,
    answers their classes, pairs tuples)."""
    if not _fits(kind, value):
        raise BadAnswerError(f"{what}: {key!r} must be {_kind_text(kind)}, not {_kind(value)} {short_repr(value, 40)}")
    return _converted(kind, value)


def _converted(kind: Any, value: Any) -> Any:
    kind, _ = _optional(kind)
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if value is None or kind is Any:
        return value
    if kind is float:
        return float(value)
    if origin is list:
        return [_converted(args[0], x) for x in value]
    if origin is tuple:
        return tuple(map(_converted, args, value))
    if origin is dict:
        return {k: _converted(args[1], x) for k, x in value.items()}
    if isinstance(kind, type) and issubclass(kind, _Answer):
        return kind.from_json(value)
    return value


# --------------------------------------------------------------------------- the typed answers


@dataclass(frozen=True)
class SeatLink(_Answer):
    """A seat's join link: the seat, its token and the page that joins it (a new table's human
    seats, or an open seat taken with :meth:`Client.join`)."""

    _WHAT: ClassVar[str] = "a seat link"

    seat: int
    token: str
    url: str


@dataclass(frozen=True)
class TableCreated(_Answer):
    """``POST /api/tables``: the table's id, one link per human seat, the spectators' page."""

    _WHAT: ClassVar[str] = "a created table"

    table: str
    seats: List[SeatLink]
    spectate_url: str


@dataclass(frozen=True)
class SeekPosted(_Answer):
    """``POST /api/seeks``: the seek's id and its token (ask about it with
    ``client.with_token(token).seek(id)`` often enough, or it expires)."""

    _WHAT: ClassVar[str] = "a posted seek"

    seek: str
    token: str
    expires_in: float


@dataclass(frozen=True)
class Seek(_Answer):
    """An open seek of the lobby: the game its poster wants (``clock``: a game clock, or None), its
    poster's name, and account and rating (None: a guest)."""

    _WHAT: ClassVar[str] = "a seek"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"account", "rating", "provisional"})

    seek: str
    players: int
    teams: int
    rated: bool
    turn_seconds: Optional[float]
    clock: Optional[Dict[str, Any]]
    rating_min: Optional[int]
    rating_max: Optional[int]
    name: str
    age: float
    account: Optional[str] = None
    rating: Optional[int] = None
    provisional: Optional[bool] = None


@dataclass(frozen=True)
class SeekList(_Answer):
    """``GET /api/seeks``: the open seeks and the list's version (for the long-poll)."""

    _WHAT: ClassVar[str] = "the seek list"

    version: int
    seeks: List[Seek]


@dataclass(frozen=True)
class SeekStatus(_Answer):
    """``GET /api/seeks/{id}``: your seek: ``open``, ``accepted`` (with your ``seat``), ``cancelled``
    or ``expired``."""

    _WHAT: ClassVar[str] = "a seek's status"

    seek: str
    status: str
    table: Optional[str]
    seat: Optional[SeatLink]


@dataclass(frozen=True)
class QuickPairing(_Answer):
    """``POST /api/seeks/quick``: ``paired`` with your ``seat``, or ``waiting`` with your new ``seek``."""

    _WHAT: ClassVar[str] = "a quick pairing"

    status: str
    seat: Optional[SeatLink]
    seek: Optional[SeekPosted]


@dataclass(frozen=True)
class Session(_Answer):
    """``GET /api/session``, and the answer of a sign-up or a login: whether the server has
    accounts, and the account this client's session cookie signs in (``name`` None: a guest)."""

    _WHAT: ClassVar[str] = "the session"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"rating", "provisional"})

    accounts: bool
    name: Optional[str]
    rating: Optional[int] = None
    provisional: Optional[bool] = None


@dataclass(frozen=True)
class Preset(_Answer):
    """An AI strength a seat may ask for (``GET /api/presets``)."""

    _WHAT: ClassVar[str] = "a preset"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"level", "rating"})

    name: str
    summary: str
    time_cap: Optional[float]
    #: its level on the ladder (1-8) and measured rating (random = 0); None when it has none
    level: Optional[int] = None
    rating: Optional[float] = None


@dataclass(frozen=True)
class SeatInfo(_Answer):
    """One seat of a table as the view shows it (public; ``account``: the account that took it)."""

    _WHAT: ClassVar[str] = "a table view's seat"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"account"})

    seat: int
    team: int
    kind: str
    name: str
    ai: Optional[str]
    connected: bool
    open: bool
    account: Optional[str] = None


@dataclass(frozen=True)
class TableView(_Answer):
    """A table as one seat (or a spectator) sees it: ``GET /api/tables/{id}``.

    ``version`` counts the table's changes (send it with a move: a stale one is refused with 409);
    ``seat`` the seat shown (None for a spectator); ``state`` its observation (R9: the other hands
    and the draw pile as sizes); ``legal`` the seat's legal moves when it is to move, else empty;
    ``over`` and ``result`` the end (a resigned game too); ``thinking`` the AI seat thinking now
    (or None); ``rematch`` the rematch table's id once one exists; ``clock`` the game clocks (or
    None); ``chances`` the evaluation bar where the server shows one; ``rematch_offer`` the open
    offer of a rematch (or None); ``can_abort`` whether this seat may abort the game now (before
    every first move of a game between people), ``grace_left`` the seconds left of the first
    move's grace of the seat to move (or None). ``raw`` is the whole JSON
    object."""

    _WHAT: ClassVar[str] = "a table view"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"to_win", "hot_seat", "hand_hidden", "rated", "clock", "chances",
                                                     "rematch_offer", "can_abort", "grace_left"})

    table: str
    version: int
    players: int
    teams: int
    seat: Optional[int]
    you: List[int]
    state: Dict[str, Any]
    legal: List[str]
    over: bool
    result: Optional[Dict[str, Any]]
    thinking: Optional[int]
    last_move: Optional[Dict[str, Any]]
    seats: List[SeatInfo] = field(default_factory=list)
    moves: int = 0
    history: List[Tuple[int, str]] = field(default_factory=list)
    hints: bool = False
    can_undo: bool = False
    can_abort: bool = False
    can_resign: bool = False
    rematch: Optional[str] = None
    rematch_allowed: bool = False
    turn_seconds: Optional[float] = None
    turn_left: Optional[float] = None
    grace_left: Optional[float] = None
    to_win: Optional[int] = None
    hot_seat: bool = False
    hand_hidden: bool = False
    rated: bool = False
    clock: Optional[Dict[str, Any]] = None
    chances: Optional[List[float]] = None
    rematch_offer: Optional[Dict[str, Any]] = None
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False, metadata={"whole": True})

    @classmethod
    def _check(cls, d: Dict[str, Any], what: str) -> None:
        _state_shape(d["state"], f"{what}'s state")
        last = d["last_move"]
        if last is not None:
            _int(last, "player", f"{what}'s last_move")
            _str(last, "move", f"{what}'s last_move")
        _result(d, "result", what)

    @property
    def to_move(self) -> bool:
        """Whether the seat shown is to move now."""
        return bool(self.legal)

    def game(self, seed: Optional[int] = None) -> Any:
        """A ``sequence_game.Game`` of this position for an agent: :func:`game_from_observation`.
        A state that makes no game (the server's fault) is a :class:`BadAnswerError`."""
        try:
            return game_from_observation(self.state, seed=seed)
        except (ValueError, TypeError) as e:
            raise BadAnswerError(f"the state of table {self.table} version {self.version} is not a position: {e}") \
                from None


def _state_shape(state: Dict[str, Any], w: str) -> None:
    """The fields of an observation the client reads (docs/state-format.md): the rest is checked
    by ``Game.from_dict`` when :meth:`TableView.game` builds a game."""
    players = _int(state, "players", w)
    hands = _list(state, "hands", w, lambda h: _is_int(h) or (isinstance(h, list) and all(isinstance(c, str) for c in h)),
                  "a list of card lists or sizes")
    _list(state, "discards", w, lambda p: isinstance(p, list) and all(isinstance(c, str) for c in p),
          "a list of card lists")
    _int(state, "draw_pile", w)
    _int(state, "turn", w)
    _int(state, "current_player", w)
    player = _int(state, "player", w, null=True)
    if len(hands) != players:
        raise BadAnswerError(f"{w}: {len(hands)} hands for {players} players")
    if player is not None and not (0 <= player < players and isinstance(hands[player], list)):
        raise BadAnswerError(f"{w}: 'player' {player} is not a seat whose hand is shown")


@dataclass(frozen=True)
class SummarySeat(_Answer):
    """One seat in the table list."""

    _WHAT: ClassVar[str] = "a table summary's seat"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"account", "rating", "provisional"})

    kind: str
    name: Optional[str]
    ai: Optional[str]
    open: bool
    account: Optional[str] = None
    rating: Optional[int] = None
    provisional: Optional[bool] = None


@dataclass(frozen=True)
class TableSummary(_Answer):
    """A line of the table list (``GET /api/tables``): public information only."""

    _WHAT: ClassVar[str] = "a table summary"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"rated", "moves", "time_control"})

    table: str
    players: int
    teams: int
    created: str
    turn: int
    over: bool
    result: Optional[Dict[str, Any]]
    seats: List[SummarySeat]
    rated: bool = False
    moves: int = 0
    time_control: Optional[Dict[str, Any]] = None

    @classmethod
    def _check(cls, d: Dict[str, Any], what: str) -> None:
        _result(d, "result", what)

    @property
    def open_seats(self) -> List[int]:
        """The seats nobody has taken yet (:meth:`Client.join` takes one)."""
        return [p for p, s in enumerate(self.seats) if s.open]


@dataclass(frozen=True)
class PublicMove(_Answer):
    """A move of the move list and the seat that made it."""

    _WHAT: ClassVar[str] = "a move list entry"

    player: int
    move: str


@dataclass(frozen=True)
class MoveList(_Answer):
    """``GET /api/tables/{id}/moves``: every move so far (public, R9) and the table's version."""

    _WHAT: ClassVar[str] = "a move list"

    version: int
    moves: List[PublicMove]


@dataclass(frozen=True)
class Hint(_Answer):
    """``POST /api/tables/{id}/hint``: the AI's move for your seat and the version it is for."""

    _WHAT: ClassVar[str] = "a hint"

    move: str
    version: int

    def __str__(self) -> str:
        return self.move


@dataclass(frozen=True)
class RootMove(_Answer):
    """One move at the root of an analysis: how often the search tried it and its mean reward
    for the mover's team (0 to 1)."""

    _WHAT: ClassVar[str] = "an analysis move"

    move: str
    visits: int
    value: float


@dataclass(frozen=True)
class Analysis(_Answer):
    """``POST /api/tables/{id}/analysis``: the search's root statistics, most visited first."""

    _WHAT: ClassVar[str] = "an analysis"

    best: str
    iterations: int
    seconds: float
    moves: List[RootMove]


@dataclass(frozen=True)
class AnalysisInfo(_Answer):
    """One update of :meth:`Client.analysis_stream` (``POST /api/tables/{id}/analysis/stream``):
    the search so far. ``best`` is None only on the last update of a search stopped before its
    first; ``done`` marks the last update, ``interrupted`` one stopped before its budget (the
    table changed, or the stream was stopped). ``type`` is the frame's, ``analysis``."""

    _WHAT: ClassVar[str] = "an analysis update"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"type"})

    version: int
    best: Optional[str]
    iterations: int
    seconds: float
    moves: List[RootMove]
    done: bool
    interrupted: bool
    type: str = "analysis"


@dataclass(frozen=True)
class Rematch(_Answer):
    """``POST /api/tables/{id}/rematch``: the rematch table once every person at the table
    accepted (``table``, ``url``: your seat token works there too), else the open ``offer`` that
    waits for the others (``table`` and ``url`` None; its fields as the table view's
    ``rematch_offer``: ``by``, ``accepted``, ``waiting``, ``rated``, ``expires_in``)."""

    _WHAT: ClassVar[str] = "a rematch"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"offer"})

    table: Optional[str]
    url: Optional[str]
    offer: Optional[Dict[str, Any]] = None


@dataclass(frozen=True)
class RematchAnswer(_Answer):
    """``DELETE /api/tables/{id}/rematch``: how the open offer ended, ``declined`` or ``withdrawn``."""

    _WHAT: ClassVar[str] = "a rematch answer"

    ended: str


@dataclass(frozen=True)
class ReviewedMove(_Answer):
    """One entry of a review (docs/review.md): the mover's team's chance of winning with the best
    move (``before``) and with the move played (``after``), valued the same way; ``loss`` (never
    negative), its ``tier`` (inaccuracy, mistake, blunder or None) and ``accuracy``; ``kind`` says
    whether it was graded (``move``) or not (``forced``, ``trade``, ``timeout``, ``referee``);
    ``chances``: every team's chance after it, as a spectator sees it; ``notes``: the threats that
    decide at it."""

    _WHAT: ClassVar[str] = "a review's move"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"notes"})

    index: int
    player: int
    team: int
    move: str
    kind: str
    before: Optional[float]
    after: Optional[float]
    best: Optional[str]
    loss: Optional[float]
    tier: Optional[str]
    accuracy: Optional[float]
    chances: List[float]
    notes: List[Dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class ReviewPlayer(_Answer):
    """A player's grades over the game: moves graded, mean accuracy, and the count of each tier."""

    _WHAT: ClassVar[str] = "a review's player"

    player: int
    team: int
    graded: int
    accuracy: Optional[float]
    inaccuracy: int
    mistake: int
    blunder: int


@dataclass(frozen=True)
class Review(_Answer):
    """The review of a finished game (docs/review.md): how it was made (``method``), the tiers'
    thresholds, every entry, every team's chance after each (``curve``), the events that ended the
    game (a resignation, the turn cap), each player's grades and the game's result."""

    _WHAT: ClassVar[str] = "a review"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"result"})

    method: str
    teams: int
    tiers: Dict[str, float]
    moves: List[ReviewedMove]
    curve: List[List[float]]
    events: List[Dict[str, Any]]
    players: List[ReviewPlayer]
    result: Optional[Dict[str, Any]] = None


@dataclass(frozen=True)
class ReviewStatus(_Answer):
    """``GET``/``POST /api/tables/{id}/review``: ``ready`` with the ``review``, ``running`` with
    its progress (``done`` of ``total``), or ``none`` before one was asked for."""

    _WHAT: ClassVar[str] = "a review status"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"review", "done", "total", "detail"})

    status: str
    review: Optional[Review] = None
    done: Optional[int] = None
    total: Optional[int] = None
    detail: Optional[str] = None

    @classmethod
    def _check(cls, d: Dict[str, Any], what: str) -> None:
        if d["status"] not in ("ready", "running", "none"):
            raise BadAnswerError(f"{what}: 'status' must be ready, running or none, not {short_repr(d['status'], 40)}")
        if d["status"] == "ready" and d.get("review") is None:
            raise BadAnswerError(f"{what}: a ready review without 'review'")


@dataclass(frozen=True)
class ReplayStep(_Answer):
    """One position of a replay: ``index`` history entries played, the ``move`` just played and
    its ``player`` (None at the deal), the whole ``state`` (the game is over: every card shown),
    every team's ``chances`` there (the evaluation bar)."""

    _WHAT: ClassVar[str] = "a replay step"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"chances"})

    index: int
    player: Optional[int]
    move: Optional[str]
    state: Dict[str, Any]
    chances: Optional[List[float]] = None


@dataclass(frozen=True)
class Replay(_Answer):
    """``GET /api/tables/{id}/replay``: the record, the seats' names and accounts, every position."""

    _WHAT: ClassVar[str] = "a replay"
    _MAY_LACK: ClassVar[FrozenSet[str]] = frozenset({"accounts"})

    record: Dict[str, Any]
    names: List[str]
    steps: List[ReplayStep]
    accounts: List[Optional[str]] = field(default_factory=list)


# --------------------------------------------------------------------------- a game from a view


def game_from_observation(observation: Dict[str, Any], seed: Optional[int] = None) -> Any:
    """A ``sequence_game.Game`` consistent with one player's observation (``Game.observation(p)``
    or a seat's ``state``): the cards that player cannot see (R9: deck minus own hand minus the
    discard piles) are dealt at random (``seed``) into the other hands and the draw pile. An agent
    that looks only at what its player may see chooses exactly as it would in the real game; the
    game has no undo history (an agent's inference from past moves has no evidence).

    An observation that is no position (a wrong shape, more cards than two decks hold) is a
    ``ValueError`` saying what is wrong."""
    from .game import Game

    obs = observation
    if not isinstance(obs, dict):
        raise ValueError(f"an observation is a dict (Game.observation(p)), not {type(obs).__name__}")
    try:
        _state_shape(obs, "the observation")
    except BadAnswerError as e:
        raise ValueError(e.detail) from None
    me = obs["player"]
    if me is None:
        raise ValueError("the observation is a spectator's (player null): a game needs one player's view")
    rng = random.Random(seed)
    unseen = Counter(_DECK)
    unseen.subtract(obs["hands"][me])
    for pile in obs["discards"]:
        unseen.subtract(pile)
    bad = sorted(c for c, n in unseen.items() if n < 0)
    if bad:
        raise ValueError(f"the observation shows cards two decks do not hold: {', '.join(map(short_repr, bad[:5]))}")
    cards = sorted(unseen.elements())
    hidden = [h for p, h in enumerate(obs["hands"]) if p != me]
    if not all(_is_int(h) and h >= 0 for h in hidden) or obs["draw_pile"] < 0:
        raise ValueError("the observation's other hands and draw pile must be sizes of at least 0")
    if sum(hidden) + obs["draw_pile"] > len(cards):
        raise ValueError(f"the observation hides {sum(hidden) + obs['draw_pile']} cards, but only {len(cards)} are "
                         "unseen")
    rng.shuffle(cards)
    hands: List[Any] = []
    for p, hand in enumerate(obs["hands"]):
        if p == me:
            hands.append(list(hand))
        else:
            hands.append(cards[:hand])
            del cards[:hand]
    state = {k: v for k, v in obs.items() if k not in ("player", "last_draw")}
    state.update(hands=hands, draw_pile=cards[: obs["draw_pile"]], seed=rng.getrandbits(64),
                 rng=format(rng.getrandbits(64), "016x"))
    try:
        return Game.from_dict(state)
    except (ValueError, TypeError, KeyError, IndexError) as e:
        raise ValueError(f"the observation is not a position: {_one_line(str(e), 300)}") from None


# --------------------------------------------------------------------------- the transport


class _Deadline:
    """The moment a request must be over by (``time.monotonic``)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def restart(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        left = self.at - time.monotonic()
        if left <= 0:
            raise socket.timeout(f"no whole answer within {self.seconds:g} s")
        return left


class _DeadlineReader(io.RawIOBase):
    """The socket's bytes, each read given only the time left before the deadline: a server that
    drips a byte a second cannot stretch a request past it (a socket timeout bounds one read)."""

    def __init__(self, owner: _DeadlineSocket) -> None:
        self._owner = owner

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        sock = self._owner.sock
        sock.settimeout(self._owner.deadline.left())
        return sock.recv_into(buffer)

    def close(self) -> None:
        if not self.closed:
            self._owner.reader_closed()
        super().close()


class _DeadlineSocket:
    """A connected socket whose sends and reads all end by one deadline (what ``http.client`` uses
    of it). Like a socket's own files, a reader keeps the socket open until it is closed too: a
    response is read after ``http.client`` closes a connection that the server will close."""

    def __init__(self, sock: socket.socket, deadline: _Deadline) -> None:
        self.sock, self.deadline = sock, deadline
        self._readers, self._closed = 0, False

    def sendall(self, data: bytes) -> None:
        self.sock.settimeout(self.deadline.left())
        self.sock.sendall(data)

    def makefile(self, mode: str = "rb", *args: Any, **kwargs: Any) -> io.BufferedReader:
        self._readers += 1
        return io.BufferedReader(_DeadlineReader(self))

    def reader_closed(self) -> None:
        self._readers -= 1
        if self._closed and self._readers <= 0:
            self.sock.close()

    def close(self) -> None:
        self._closed = True
        if self._readers <= 0:
            self.sock.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sock, name)


class _Connection(http.client.HTTPConnection):
    def __init__(self, host: str, port: Optional[int], deadline: _Deadline) -> None:
        super().__init__(host, port, timeout=deadline.left())
        self._deadline = deadline

    def connect(self) -> None:
        self.timeout = self._deadline.left()
        super().connect()
        self.sock = _DeadlineSocket(self.sock, self._deadline)


class _TLSConnection(http.client.HTTPSConnection):
    def __init__(self, host: str, port: Optional[int], deadline: _Deadline) -> None:
        super().__init__(host, port, timeout=deadline.left())
        self._deadline = deadline

    def connect(self) -> None:
        self.timeout = self._deadline.left()
        super().connect()
        self.sock = _DeadlineSocket(self.sock, self._deadline)


def _origin(url: str) -> Tuple[str, str, int]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = -1
    return scheme, (parts.hostname or "").lower(), port or (443 if scheme == "https" else 80)


#: Failures of the connection itself (nothing of the answer's content): ``ClientError`` status 0.
_BROKEN = (OSError, http.client.HTTPException)


#: The retries' jitter (not a seed of anything a game replays): drawn from the one home of fresh
#: entropy, so that clients started together still retry apart.
_JITTER = random.Random(fresh_seed())


def _jitter(pause: float) -> float:
    """``pause`` with full jitter in its upper half, so clients that failed together retry apart."""
    return pause * _JITTER.uniform(0.5, 1.0)


class Client:
    """The HTTP API of one server, as one seat (``token``) or as a spectator (no token), and as a
    guest or a signed-in account (:meth:`sign_up`, :meth:`log_in`: the client keeps the session
    cookie, ``session``, and sends it to this server only, with the ``Origin`` header every write
    it signs in needs; docs/club.md, "From a script").

    Every method returns typed values; a refusal raises :class:`ClientError` with the server's own
    message (``detail``). ``timeout`` bounds a whole call, retries included: an unreachable server
    (``status`` 0) is tried again ``retries`` times with a growing, jittered pause (a restarting
    server is waited for) while the time lasts. A long-poll (:meth:`wait`) gets its ``wait`` on
    top; the event stream (:meth:`stream`) gives each line ``stream_timeout`` seconds. Answers
    larger than ``max_body`` bytes, and stream lines longer than ``max_line``, are refused.
    """

    def __init__(self, server: str, token: Optional[str] = None, timeout: float = 30.0, retries: int = 5,
                 max_body: int = MAX_BODY, max_line: int = MAX_LINE, stream_timeout: float = STREAM_TIMEOUT,
                 session: Optional[str] = None) -> None:
        parts = urlsplit(server)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"server must be an http:// or https:// URL like http://127.0.0.1:8000, not {server!r}")
        if parts.query or parts.fragment:
            raise ValueError(f"server must be the server's base URL without ?query or #fragment, not {server!r}")
        try:
            _ = parts.port
        except ValueError:
            raise ValueError(f"server {server!r} has no valid port (1-65535)") from None
        for name, value in (("timeout", timeout), ("stream_timeout", stream_timeout)):
            if not _is_num(value) or not 0 < value < float("inf"):
                raise ValueError(f"{name} must be a number of seconds above 0, not {value!r}")
        for name, value in (("retries", retries), ("max_body", max_body), ("max_line", max_line)):
            if not _is_int(value) or value < (0 if name == "retries" else 1):
                raise ValueError(f"{name} must be an int of at least {0 if name == 'retries' else 1}, not {value!r}")
        if token is not None and (not isinstance(token, str) or not token.isprintable() or not token.isascii()):
            raise ValueError("token must be the seat's token, printable ASCII (from its join link)")
        if session is not None and not _cookie_value(session):
            raise ValueError("session must be a session cookie's value (letters, digits, '-' and '_'), as "
                             "Client.session holds it after log_in")
        #: the session cookie's value once signed in (None: a guest); keep it to sign in again later
        self.session = session
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = float(timeout)
        self.retries = retries
        self.max_body = max_body
        self.max_line = max_line
        self.stream_timeout = float(stream_timeout)

    def with_token(self, token: Optional[str]) -> Client:
        """The same server and settings as another seat (``None``: a spectator)."""
        return Client(self.server, token=token, timeout=self.timeout, retries=self.retries, max_body=self.max_body,
                      max_line=self.max_line, stream_timeout=self.stream_timeout, session=self.session)

    # ------------------------------------------------------------------ transport

    def _open(self, method: str, path: str, data: Optional[bytes], deadline: _Deadline,
              accept: str) -> Tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Send one request and read the answer's head, following redirects within the server's
        origin only: the seat token is never sent anywhere else."""
        url = self.server + path
        home = _origin(self.server)
        for _ in range(_MAX_REDIRECTS + 1):
            parts = urlsplit(url)
            cls = _TLSConnection if parts.scheme == "https" else _Connection
            conn = cls(parts.hostname or "", parts.port, deadline)
            headers = {"Accept": accept, "User-Agent": "sequence-game-client"}
            if data is not None:
                headers["Content-Type"] = "application/json"
            if self.token:
                headers["Authorization"] = f"Bearer {self.token}"
            if self.session:
                headers["Cookie"] = f"{SESSION_COOKIE}={self.session}"
                if method not in ("GET", "HEAD"):  # a write the cookie signs in names its origin (CSRF)
                    headers["Origin"] = f"{parts.scheme}://{parts.netloc}"
            target = parts.path or "/"
            if parts.query:
                target += "?" + parts.query
            try:
                conn.request(method, target, body=data, headers=headers)
                resp = conn.getresponse()
            except BaseException:
                conn.close()
                raise
            if resp.status not in _REDIRECTS:
                return conn, resp
            location = resp.getheader("Location") or ""
            conn.close()
            if not location:
                raise BadAnswerError(f"{method} {path}: a redirect ({resp.status}) without a Location", resp.status)
            url = urljoin(url, location.strip())
            if _origin(url) != home:
                raise ClientError(resp.status, f"{method} {path} was redirected to another origin, "
                                  f"{short_repr(url, 80)}: refused, so that the seat token is never sent there "
                                  "(if you trust it, use that server's URL)", "CrossOriginRedirect")
            if resp.status == 303 or (resp.status in (301, 302) and method != "GET"):
                method, data = "GET", None
        raise ClientError(0, f"{method} {path}: more than {_MAX_REDIRECTS} redirects", "TooManyRedirects")

    def _body(self, resp: http.client.HTTPResponse, limit: int, what: str) -> bytes:
        """The answer's body, refused before it is read if it announces more than ``limit`` bytes
        and when more than that arrive."""
        length = (resp.getheader("Content-Length") or "").strip()
        if length.isdigit() and int(length) > limit:
            raise BadAnswerError(f"{what}: the answer announces {int(length):,} bytes, more than the "
                                 f"{limit:,} this client reads (Client(max_body=...))", resp.status)
        data = resp.read(limit + 1)
        if len(data) > limit:
            raise BadAnswerError(f"{what}: the answer is longer than the {limit:,} bytes this client reads "
                                 "(Client(max_body=...))", resp.status)
        return data

    def request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None,
                timeout: Optional[float] = None) -> Any:
        """One API call: the decoded JSON answer (``ClientError`` for a refusal, ``BadAnswerError``
        for an answer that is not JSON). The whole call, retries included, ends within ``timeout``
        seconds (default: the client's)."""
        data = None if body is None else json.dumps(body).encode()
        what = f"{method} {path.split('?')[0]}"
        seconds = self.timeout if timeout is None else timeout
        deadline = _Deadline(seconds)
        pause = 0.1
        for attempt in range(self.retries + 1):
            try:
                conn, resp = self._open(method, path, data, deadline, "application/json")
                try:
                    if resp.status >= 400:
                        raise _refusal(resp.status, resp.reason, resp.read(_MAX_ERROR_BODY))
                    payload = self._body(resp, self.max_body, what)
                    status = resp.status
                    self._keep_session(resp)
                finally:
                    resp.close()
                    conn.close()
            except _BROKEN as e:
                timed_out = isinstance(e, socket.timeout) or deadline.at <= time.monotonic()
                # only requests that change nothing, or a first connection, are repeated blindly
                if attempt == self.retries or timed_out or (method != "GET" and not _not_connected(e)):
                    reason = (f"no whole answer within {seconds:g} s" if timed_out
                              else _one_line(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__, 200))
                    raise ClientError(0, f"{what}: cannot reach {self.server}: {reason}") from None
                sleep = min(_jitter(pause), deadline.at - time.monotonic())
                if sleep <= 0:
                    raise ClientError(0, f"{what}: cannot reach {self.server}: no whole answer within "
                                         f"{seconds:g} s") from None
                time.sleep(sleep)
                pause = min(pause * 2, 2.0)
                continue
            if not payload:
                return None
            try:
                return json.loads(payload)
            except (ValueError, RecursionError) as e:
                raise BadAnswerError(f"{what}: the answer is not JSON ({_one_line(str(e), 80)})", status) from None
        raise AssertionError("unreachable")  # pragma: no cover

    def _keep_session(self, resp: http.client.HTTPResponse) -> None:
        """Keep the session cookie an answer sets (a sign-up, a login) or clears (a logout)."""
        for header in resp.msg.get_all("Set-Cookie") or []:
            name, _, rest = header.partition("=")
            if name.strip() != SESSION_COOKIE:
                continue
            value, *attributes = rest.split(";")
            value = value.strip().strip('"')
            cleared = any(a.strip().lower() in ("max-age=0", "max-age=-1") for a in attributes)
            self.session = None if cleared or not value else value if _cookie_value(value) else self.session

    def _typed(self, parse: Callable[[Any], T], method: str, path: str, body: Optional[Dict[str, Any]] = None,
               timeout: Optional[float] = None) -> T:
        """:meth:`request`, its answer checked by ``parse`` (a wrong shape: ``BadAnswerError``
        naming the request)."""
        answer = self.request(method, path, body, timeout=timeout)
        try:
            return parse(answer)
        except BadAnswerError as e:
            raise BadAnswerError(f"{method} {path.split('?')[0]}: {e.detail}", 200) from None

    # ------------------------------------------------------------------ the API

    def create_table(self, players: int = 2, seats: Optional[Sequence[Dict[str, Any]]] = None,
                     **options: Any) -> TableCreated:
        """``POST /api/tables``: ``seats`` like ``[{"kind": "human"}, {"kind": "ai", "ai": "hard"},
        {"kind": "human", "open": true}]``; ``options``: ``teams``, ``seed``, ``max_turns``,
        ``hot_seat``, ``ai_seconds``, ``turn_seconds``, ``hints``, ``moves``."""
        body: Dict[str, Any] = {"players": players, **options}
        if seats is not None:
            body["seats"] = list(seats)
        return self._typed(TableCreated.from_json, "POST", "/api/tables", body)

    def tables(self, finished: Optional[bool] = None, limit: int = 200, offset: int = 0) -> List[TableSummary]:
        """``GET /api/tables``: the lobby, newest first: live tables, and ``limit`` finished ones from
        ``offset``; ``finished`` keeps one kind. :attr:`TableSummary.open_seats` shows where to join."""
        query: Dict[str, Any] = {"limit": int(limit), "offset": int(offset)}
        if finished is not None:
            query["finished"] = "true" if finished else "false"
        return self._typed(_list_of(TableSummary.from_json, "the table list"), "GET",
                           f"/api/tables?{urlencode(query)}")

    def presets(self) -> List[Preset]:
        """``GET /api/presets``: the AI strengths, weakest first."""
        return self._typed(_list_of(Preset.from_json, "the preset list"), "GET", "/api/presets")

    def join(self, table_id: str, seat: Optional[int] = None, name: Optional[str] = None) -> SeatLink:
        """``POST /api/tables/{id}/join``: take an open seat (``seat``, or the first open one) under
        ``name``. The answer is the only time its token is sent: keep it (``with_token``)."""
        body: Dict[str, Any] = {}
        if seat is not None:
            body["seat"] = seat
        if name is not None:
            body["name"] = name
        return self._typed(SeatLink.from_json, "POST", f"/api/tables/{_id(table_id)}/join", body)

    def table(self, table_id: str) -> TableView:
        """``GET /api/tables/{id}``: the table as this client's seat sees it."""
        return self._typed(TableView.from_json, "GET", f"/api/tables/{_id(table_id)}")

    def moves(self, table_id: str) -> MoveList:
        """``GET /api/tables/{id}/moves``: every move so far with the seat that made it (public)."""
        return self._typed(MoveList.from_json, "GET", f"/api/tables/{_id(table_id)}/moves")

    def play(self, table_id: str, move: str, version: Optional[int] = None) -> TableView:
        """``POST /api/tables/{id}/moves``: play ``move`` (text notation) for this seat; with
        ``version``, refused (409) if the table changed since that version. Returns the new view
        (the move played, declares filled in, is its ``last_move``)."""
        body: Dict[str, Any] = {"move": str(move)}
        if version is not None:
            body["version"] = version
        return self._typed(_view_of("a move's answer"), "POST", f"/api/tables/{_id(table_id)}/moves", body)

    def undo(self, table_id: str) -> TableView:
        """``POST /api/tables/{id}/undo``: take back this seat's last move (games against the AI)."""
        return self._typed(_view_of("an undo's answer"), "POST", f"/api/tables/{_id(table_id)}/undo", {})

    def resign(self, table_id: str) -> TableView:
        """``POST /api/tables/{id}/resign``: this seat's team resigns (two-team games) and loses at
        once; the view is over, its ``result`` names the seat that resigned (before every first move
        of a game between people it aborts the game instead: ``result["aborted"]``)."""
        return self._typed(_view_of("a resignation's answer"), "POST", f"/api/tables/{_id(table_id)}/resign", {})

    def abort(self, table_id: str) -> TableView:
        """``POST /api/tables/{id}/abort``: abort a game between people before every human seat made
        its first move (``can_abort``): nobody wins or loses, no rating changes; the view is over
        and its ``result["aborted"]`` says who aborted it."""
        return self._typed(_view_of("an abort's answer"), "POST", f"/api/tables/{_id(table_id)}/abort", {})

    def rematch(self, table_id: str) -> Rematch:
        """``POST /api/tables/{id}/rematch``: after the game, offer a rematch or accept the open
        offer; the answer has the rematch table once every person at the table accepted (made
        once however many ask; this client's token holds the same seat there), else the offer."""
        return self._typed(Rematch.from_json, "POST", f"/api/tables/{_id(table_id)}/rematch", {})

    def decline_rematch(self, table_id: str) -> str:
        """``DELETE /api/tables/{id}/rematch``: decline the open rematch offer (withdraw it, if this
        seat made it); returns ``"declined"`` or ``"withdrawn"``."""
        return self._typed(RematchAnswer.from_json, "DELETE", f"/api/tables/{_id(table_id)}/rematch").ended

    def hint(self, table_id: str) -> Hint:
        """``POST /api/tables/{id}/hint``: the server AI's suggestion for this seat's move (``str()``
        of it is the move) and the table version it is for."""
        return self._typed(Hint.from_json, "POST", f"/api/tables/{_id(table_id)}/hint", {})

    def analysis(self, table_id: str, seconds: float = 1.0) -> Analysis:
        """``POST /api/tables/{id}/analysis``: the search's root statistics of this seat's position
        (the seat to move), searching ``seconds`` (capped by the server)."""
        return self._typed(Analysis.from_json, "POST", f"/api/tables/{_id(table_id)}/analysis",
                           {"seconds": float(seconds)}, timeout=self.timeout + float(seconds))

    def record(self, table_id: str) -> Any:
        """``GET /api/tables/{id}/record``: the finished game as a ``GameRecord``."""
        from .records import GameRecord

        def parse(d: Any) -> Any:
            try:
                return GameRecord.from_dict(d)
            except (ValueError, TypeError, KeyError) as e:
                raise BadAnswerError(f"the record is not a game record: {e}") from None

        return self._typed(parse, "GET", f"/api/tables/{_id(table_id)}/record")

    def replay(self, table_id: str) -> Replay:
        """``GET /api/tables/{id}/replay``: every position of a finished game."""
        return self._typed(Replay.from_json, "GET", f"/api/tables/{_id(table_id)}/replay")

    def review(self, table_id: str) -> ReviewStatus:
        """``GET /api/tables/{id}/review``: the AI's review of a finished game, ``ready``,
        ``running`` or ``none`` (not asked for yet: :meth:`start_review`)."""
        try:
            return self._typed(ReviewStatus.from_json, "GET", f"/api/tables/{_id(table_id)}/review")
        except ClientError as e:
            if e.status == 404 and not e.error:  # no review yet: the answer is a status, not an error
                return ReviewStatus(status="none", detail=e.detail)
            raise

    def start_review(self, table_id: str) -> ReviewStatus:
        """``POST /api/tables/{id}/review``: start the review (once; asking again answers the one
        running or done)."""
        return self._typed(ReviewStatus.from_json, "POST", f"/api/tables/{_id(table_id)}/review", {})

    def play_computer(self, level: int = 4, seat: Optional[int] = None, players: int = 2,
                      **options: Any) -> TableCreated:
        """``POST /api/play-computer``: a table against the AI at ``level`` (1 to 8) with you at
        ``seat`` (None: a random one); ``options``: ``turn_seconds``, ``clock``, ``name``."""
        body: Dict[str, Any] = {"level": level, "players": players, **options}
        if seat is not None:
            body["seat"] = seat
        return self._typed(TableCreated.from_json, "POST", "/api/play-computer", body)

    def post_seek(self, players: int = 2, **options: Any) -> SeekPosted:
        """``POST /api/seeks``: a seek for the game you want; ``options``: ``teams``, ``rated``,
        ``turn_seconds``, ``clock``, ``rating_min``, ``rating_max``, ``name``."""
        return self._typed(SeekPosted.from_json, "POST", "/api/seeks", {"players": players, **options})

    def seeks(self, after_version: Optional[int] = None, wait: float = 25.0) -> SeekList:
        """``GET /api/seeks``: the open seeks; with ``after_version``, a long-poll for the next change."""
        path = "/api/seeks" if after_version is None else f"/api/seeks?after_version={int(after_version)}&wait={wait:g}"
        return self._typed(SeekList.from_json, "GET", path, timeout=None if after_version is None else wait + self.timeout)

    def seek(self, seek_id: str, wait: float = 0.0) -> SeekStatus:
        """``GET /api/seeks/{id}`` with this client's token (the seek's, ``with_token``): its status;
        asking keeps it open. ``wait``: while it is open, wait up to this long for it to be taken."""
        return self._typed(SeekStatus.from_json, "GET", f"/api/seeks/{_id(seek_id)}?wait={wait:g}",
                           timeout=wait + self.timeout)

    def cancel_seek(self, seek_id: str) -> None:
        """``DELETE /api/seeks/{id}`` with the seek's token: take it off the lobby."""
        self.request("DELETE", f"/api/seeks/{_id(seek_id)}")

    def accept_seek(self, seek_id: str, name: Optional[str] = None) -> SeatLink:
        """``POST /api/seeks/{id}/accept``: a table with the seek's poster; your seat's link."""
        return self._typed(SeatLink.from_json, "POST", f"/api/seeks/{_id(seek_id)}/accept",
                           {} if name is None else {"name": name})

    def quick_pairing(self, players: int = 2, **options: Any) -> QuickPairing:
        """``POST /api/seeks/quick``: paired at once with a compatible seek, or your seek waits;
        ``options`` as for :meth:`post_seek`."""
        return self._typed(QuickPairing.from_json, "POST", "/api/seeks/quick", {"players": players, **options})

    def sign_up(self, name: str, password: str) -> Session:
        """``POST /api/accounts``: a new account, signed in at once: this client keeps its session
        cookie (``session``) and every later call acts as the account (docs/club.md)."""
        return self._typed(Session.from_json, "POST", "/api/accounts", {"name": name, "password": password})

    def log_in(self, name: str, password: str) -> Session:
        """``POST /api/session``: log in; this client keeps the new session cookie (``session``)."""
        return self._typed(Session.from_json, "POST", "/api/session", {"name": name, "password": password})

    def log_out(self) -> None:
        """``DELETE /api/session``: the session ends on the server; this client is a guest again."""
        self.request("DELETE", "/api/session")
        self.session = None

    def change_password(self, old: str, new: str) -> Session:
        """``PUT /api/session/password``: the signed-in account's new password (``old`` is its
        password now); every other session of the account ends, and this client keeps its new one."""
        return self._typed(Session.from_json, "PUT", "/api/session/password", {"old": old, "new": new})

    def signed_in(self) -> Session:
        """``GET /api/session``: who this client's session cookie signs in (``name`` None: a guest)."""
        return self._typed(Session.from_json, "GET", "/api/session")

    def set_language(self, language: str) -> None:
        """``PUT /api/session/language``: the language the server's pages speak to this account from
        now on (``"en"``, ``"ja"``, ``"ko"``, ``"es"``; docs/i18n.md). Kept on the account when this
        client is signed in; for a guest only a browser keeps the choice, in a cookie."""
        if not isinstance(language, str):
            raise TypeError(f"language is a language code such as 'ja', not a {type(language).__name__}")
        self.request("PUT", "/api/session/language", {"language": language})

    def players(self, limit: int = 100, offset: int = 0) -> List[Dict[str, Any]]:
        """``GET /api/players``: the club's players, strongest first (name, rating, provisional,
        rated games; docs/club.md); empty on a server without accounts."""
        return self._typed(_list_of(_object("a player"), "the player list"), "GET",
                           f"/api/players?limit={int(limit)}&offset={int(offset)}")

    def player(self, name: str) -> Dict[str, Any]:
        """``GET /api/players/{name}``: a player's page: rating and its history, games, record
        against each AI level (docs/club.md)."""
        return self._typed(_object("the player"), "GET", f"/api/players/{_id(name)}")

    def leaderboard(self, limit: int = 20) -> Dict[str, Any]:
        """``GET /api/leaderboard``: the club's highest settled ratings, and the provisional ones
        apart (docs/club.md, "People to play with")."""
        return self._typed(_object("the leaderboard"), "GET", f"/api/leaderboard?limit={int(limit)}")

    def people(self) -> Dict[str, Any]:
        """``GET /api/people`` (signed in): who you follow (online, playing), who you block, and your
        open challenges, made and received."""
        return self._typed(_object("your people"), "GET", "/api/people")

    def follow(self, name: str) -> None:
        """``PUT /api/people/follows/{name}`` (signed in): follow a player (their presence on your
        pages and in :meth:`people`)."""
        self.request("PUT", f"/api/people/follows/{_id(name)}")

    def unfollow(self, name: str) -> None:
        """``DELETE /api/people/follows/{name}`` (signed in): stop following a player."""
        self.request("DELETE", f"/api/people/follows/{_id(name)}")

    def block(self, name: str) -> None:
        """``PUT /api/people/blocks/{name}`` (signed in): no challenges from this player either way,
        and none of their chat on your pages; open challenges between you close."""
        self.request("PUT", f"/api/people/blocks/{_id(name)}")

    def unblock(self, name: str) -> None:
        """``DELETE /api/people/blocks/{name}`` (signed in): unblock a player."""
        self.request("DELETE", f"/api/people/blocks/{_id(name)}")

    def set_profile(self, bio: str = "", country: str = "") -> Dict[str, Any]:
        """``PUT /api/profile`` (signed in): your profile's short bio and country, plain text
        (empty: none); the profile as stored."""
        return self._typed(_object("the profile"), "PUT", "/api/profile", {"bio": bio, "country": country})

    def challenge(self, to: str, players: int = 2, **options: Any) -> Dict[str, Any]:
        """``POST /api/challenges`` (signed in): challenge the player ``to``; ``options`` are the
        table's (``teams``, ``rated``, ``turn_seconds``, ``clock``), as for :meth:`post_seek`. The
        table is made only when they accept (:meth:`challenge_status` says when)."""
        return self._typed(_object("the challenge"), "POST", "/api/challenges",
                           {"to": to, "players": players, **options})

    def challenge_status(self, challenge_id: str) -> Dict[str, Any]:
        """``GET /api/challenges/{id}``: a challenge you made or received, and how it stands (its
        ``seat`` link once accepted, for its maker)."""
        return self._typed(_object("the challenge"), "GET", f"/api/challenges/{_id(challenge_id)}")

    def withdraw_challenge(self, challenge_id: str) -> Dict[str, Any]:
        """``DELETE /api/challenges/{id}``: withdraw a challenge you made."""
        return self._typed(_object("the challenge"), "DELETE", f"/api/challenges/{_id(challenge_id)}")

    def accept_challenge(self, challenge_id: str) -> SeatLink:
        """``POST /api/challenges/{id}/accept``: accept a challenge to you; the table is made, and
        this is your seat's link."""
        return self._typed(SeatLink.from_json, "POST", f"/api/challenges/{_id(challenge_id)}/accept")

    def decline_challenge(self, challenge_id: str) -> Dict[str, Any]:
        """``POST /api/challenges/{id}/decline``: decline a challenge to you."""
        return self._typed(_object("the challenge"), "POST", f"/api/challenges/{_id(challenge_id)}/decline")

    def tournaments(self) -> Dict[str, Any]:
        """``GET /api/tournaments``: the tournaments announced and running, then the last finished
        (docs/club.md, "Tournaments")."""
        return self._typed(_object("the tournament list"), "GET", "/api/tournaments")

    def tournament(self, tournament_id: str) -> Dict[str, Any]:
        """``GET /api/tournaments/{id}``: a tournament with its live standings and games."""
        return self._typed(_object("the tournament"), "GET", f"/api/tournaments/{_id(tournament_id)}")

    def create_tournament(self, kind: str, name: str, starts: float, clock: Dict[str, Any],
                          **options: Any) -> Dict[str, Any]:
        """``POST /api/tournaments`` (signed in): announce a ``"swiss"`` or ``"arena"`` tournament
        starting at ``starts`` (Unix seconds) with ``clock`` (``{"seconds", "increment"}``: each seat's time for the game);
        ``options``: ``rounds`` (Swiss), ``minutes`` (arena), ``rated``, ``team_size``, ``berserk``."""
        return self._typed(_object("the tournament"), "POST", "/api/tournaments",
                           {"kind": kind, "name": name, "starts": starts, "clock": clock, **options})

    def join_tournament(self, tournament_id: str, partner: Optional[str] = None) -> Dict[str, Any]:
        """``POST /api/tournaments/{id}/join`` (signed in): join before it starts (an arena: while it
        runs), alone or naming your partner in a tournament of teams."""
        return self._typed(_object("the tournament"), "POST", f"/api/tournaments/{_id(tournament_id)}/join",
                           {} if partner is None else {"partner": partner})

    def start_tournament(self, tournament_id: str) -> Dict[str, Any]:
        """``POST /api/tournaments/{id}/start`` (signed in, its creator): start it now, before its
        announced time, once two entrants are in."""
        return self._typed(_object("the tournament"), "POST", f"/api/tournaments/{_id(tournament_id)}/start")

    def withdraw_from_tournament(self, tournament_id: str) -> Dict[str, Any]:
        """``POST /api/tournaments/{id}/withdraw`` (signed in): leave; your results stand."""
        return self._typed(_object("the tournament"), "POST", f"/api/tournaments/{_id(tournament_id)}/withdraw")

    def pause_tournament(self, tournament_id: str, paused: bool = True) -> Dict[str, Any]:
        """``POST /api/tournaments/{id}/pause`` (signed in, an arena): not paired again until
        ``paused`` is False."""
        return self._typed(_object("the tournament"), "POST", f"/api/tournaments/{_id(tournament_id)}/pause",
                           {"paused": paused})

    def berserk(self, tournament_id: str) -> None:
        """``POST /api/tournaments/{id}/berserk`` (signed in, an arena allowing it): halve your time
        in your game now, for a point more on a win."""
        self.request("POST", f"/api/tournaments/{_id(tournament_id)}/berserk")

    def tournament_seat(self, tournament_id: str) -> Dict[str, Any]:
        """``GET /api/tournaments/{id}/seat`` (signed in): your game now and your seat's link."""
        return self._typed(_object("your tournament seat"), "GET", f"/api/tournaments/{_id(tournament_id)}/seat")

    def player_tournaments(self, name: str) -> List[Dict[str, Any]]:
        """``GET /api/players/{name}/tournaments``: a player's finished tournaments, with places and
        points."""
        return self._typed(_list_of(_object("a tournament"), "the tournaments"), "GET",
                           f"/api/players/{_id(name)}/tournaments")

    def ratings(self, table_id: str) -> List[Dict[str, Any]]:
        """``GET /api/tables/{id}/ratings``: a finished rated game's rating changes (empty: none)."""
        return self._typed(_list_of(_object("a rating change"), "the rating changes"), "GET",
                           f"/api/tables/{_id(table_id)}/ratings")

    def wait(self, table_id: str, after_version: int, wait: float = 25.0) -> TableView:
        """The table once its version is past ``after_version`` or the table is over (resigned
        included): a long-poll (``GET /api/tables/{id}?after_version=N&wait=S``), asked again
        every ``wait`` seconds (at most 60) until then. Each long-poll ends within ``wait`` plus
        the client's ``timeout``; a server that answers early without a change is asked again
        only after a growing pause, never in a busy loop."""
        if not _is_num(wait) or not 0 < wait <= 60:
            raise ValueError(f"wait must be a number of seconds above 0 and at most 60, not {wait!r}")
        pause = 0.1
        path = f"/api/tables/{_id(table_id)}?after_version={int(after_version)}&wait={wait:g}"
        while True:
            start = time.monotonic()
            view = self._typed(TableView.from_json, "GET", path, timeout=wait + self.timeout)
            if view.version > after_version or view.over:
                return view
            if time.monotonic() - start < wait / 2:
                time.sleep(_jitter(pause))
                pause = min(pause * 2, wait)
            else:
                pause = 0.1

    def stream(self, table_id: str, rematch: bool = False) -> Generator[Dict[str, Any], None, None]:
        """Every event of the table as it happens (``GET /api/tables/{id}/stream``, NDJSON): the
        frames ``{"type": "state", "view": {...}}`` (the first at once; :meth:`TableView.from_json`
        reads the view), ``{"type": "presence", ...}`` and the others of docs/web.md. Ends after
        the finished game's state, or with ``ClientError`` (status 0) if the connection drops.
        ``rematch``: a seat's stream goes on after the game with the rematch offers
        (``{"type": "rematch-offer", ...}``) and ends after ``{"type": "rematch", "table": id}``.

        The stream has no end time: ``timeout`` bounds its opening (until the head of the
        answer is read), then each line must arrive whole within ``stream_timeout`` seconds (the server
        sends an empty keep-alive line every 20 s), or the stream ends with ``ClientError``. A
        line longer than ``max_line`` bytes, or one that is not a JSON object with a ``type``, is
        a :class:`BadAnswerError`."""
        return self._lines("GET", f"/api/tables/{_id(table_id)}/stream" + ("?rematch=true" if rematch else ""), None,
                           f"the event stream of table {table_id}")

    def analysis_stream(self, table_id: str, seconds: float = 5.0,
                        every: float = 0.25) -> Generator[AnalysisInfo, None, None]:
        """Your seat's position analysed as the search goes (``POST /api/tables/{id}/analysis/stream``,
        NDJSON), like a chess engine's ``info`` lines: an :class:`AnalysisInfo` about every ``every``
        seconds for ``seconds`` of search (capped by the server), the last with ``done`` set. Leave
        the loop (``break``) or ``close()`` the generator to stop the search: the connection closes
        and the server stops it. A refusal before the first update (not the seat to move, hints off,
        one analysis at a time per seat) raises :class:`ClientError` with its status.

        ::

            for info in client.analysis_stream(table, seconds=5):
                print(info.best, info.iterations, [(m.move, m.visits) for m in info.moves[:3]])
                if info.iterations > 20000:
                    break                      # stops the server's search
        """
        for name, value in (("seconds", seconds), ("every", every)):
            if not _is_num(value) or not 0 < value < float("inf"):
                raise ValueError(f"{name} must be a number of seconds above 0, not {value!r}")
        path = f"/api/tables/{_id(table_id)}/analysis/stream"
        return self._analysis_infos(self._lines("POST", path, {"seconds": float(seconds), "every": float(every)},
                                                f"the analysis stream of table {table_id}"), f"POST {path}")

    @staticmethod
    def _analysis_infos(frames: Generator[Dict[str, Any], None, None],
                        what: str) -> Generator[AnalysisInfo, None, None]:
        with contextlib.closing(frames):
            for frame in frames:
                if frame["type"] == "error":  # refused after the stream started (docs/web.md)
                    raise _refusal(200, "refused", json.dumps(frame).encode())
                try:
                    info = AnalysisInfo.from_json(frame)
                except BadAnswerError as e:
                    raise BadAnswerError(f"{what}: {e.detail}", 200) from None
                yield info
                if info.done:
                    return

    def _lines(self, method: str, path: str, body: Optional[Dict[str, Any]],
               name: str) -> Generator[Dict[str, Any], None, None]:
        """The JSON objects of an NDJSON answer, one a line (empty keep-alive lines skipped); see
        :meth:`stream` for the time limits and the checks."""
        what = f"{method} {path}"
        deadline = _Deadline(self.timeout)
        data = None if body is None else json.dumps(body).encode()
        try:
            conn, resp = self._open(method, path, data, deadline, "application/x-ndjson")
        except _BROKEN as e:
            raise ClientError(0, f"{what}: cannot reach {self.server}: {_broken(e, deadline)}") from None
        try:
            try:
                if resp.status >= 400:
                    raise _refusal(resp.status, resp.reason, resp.read(_MAX_ERROR_BODY))
                while True:
                    deadline.restart(self.stream_timeout)
                    line = resp.readline(self.max_line + 1)
                    if not line:
                        return
                    if len(line) > self.max_line:
                        raise BadAnswerError(f"{what}: a stream line longer than the {self.max_line:,} bytes this "
                                             "client reads (Client(max_line=...))", resp.status)
                    if not line.endswith(b"\n"):  # the connection ended inside a line: cut, not wrong
                        raise ClientError(0, f"{name} broke off inside a line")
                    if not line.strip():
                        continue
                    try:
                        frame = json.loads(line)
                    except (ValueError, RecursionError) as e:
                        raise BadAnswerError(f"{what}: a stream line is not JSON ({_one_line(str(e), 80)})",
                                             resp.status) from None
                    frame = _obj(frame, f"{what}: a stream line")
                    _str(frame, "type", f"{what}: a stream line")
                    yield frame
            except _BROKEN as e:
                raise ClientError(0, f"{name} broke: {_broken(e, deadline)}") from None
        finally:
            resp.close()
            conn.close()


def _broken(e: BaseException, deadline: _Deadline) -> str:
    if isinstance(e, socket.timeout) or deadline.at <= time.monotonic():
        return f"nothing whole within {deadline.seconds:g} s"
    return _one_line(f"{type(e).__name__}: {e}" if str(e) else type(e).__name__, 200)


def _list_of(parse: Callable[[Any], T], what: str) -> Callable[[Any], List[T]]:
    def parse_list(d: Any) -> List[T]:
        if not isinstance(d, list):
            raise BadAnswerError(f"{what} must be a JSON list, not {_kind(d)}")
        return [parse(x) for x in d]

    return parse_list


def _object(what: str) -> Callable[[Any], Dict[str, Any]]:
    def parse(d: Any) -> Dict[str, Any]:
        if not isinstance(d, dict):
            raise BadAnswerError(f"{what} must be a JSON object, not {_kind(d)}")
        return d

    return parse


def _view_of(what: str) -> Callable[[Any], TableView]:
    """The ``view`` of an answer ``{"...": ..., "view": {...}}`` (move, undo, resign)."""

    def parse(d: Any) -> TableView:
        return TableView.from_json(_dict(_obj(d, what), "view", what))

    return parse


def _refusal(status: int, reason: str, body: bytes) -> ClientError:
    """The server's refusal as a :class:`ClientError` (its JSON ``detail`` and ``error``)."""
    try:
        err = json.loads(body or b"{}")
    except (ValueError, RecursionError):
        err = {}
    if not isinstance(err, dict):
        err = {}
    detail, error = err.get("detail"), err.get("error")
    return ClientError(status, detail if isinstance(detail, str) and detail else str(reason or "refused"),
                       error if isinstance(error, str) else "")


def _cookie_value(value: object) -> bool:
    """Whether ``value`` can be a session id the server sets (``secrets.token_urlsafe``): nothing a
    Cookie header would read otherwise."""
    return isinstance(value, str) and 0 < len(value) <= 256 and all(c.isascii() and (c.isalnum() or c in "-_")
                                                                      for c in value)


def _id(table_id: str) -> str:
    return quote(str(table_id), safe="")


def _not_connected(e: BaseException) -> bool:
    """True when the request surely never reached the server (refused connection)."""
    return isinstance(e, ConnectionRefusedError)

