"""A small typed client of the HTTP API of ``sequence-game serve`` (docs/web.md), standard library
only (``urllib``), so a bot needs nothing beyond the base install.

>>> client = Client("http://127.0.0.1:8000", token="...")        # doctest: +SKIP
>>> view = client.table("k3j9x2")                                # doctest: +SKIP
>>> while not view.over:                                         # doctest: +SKIP
...     if view.legal:
...         view = client.play(view.table, view.legal[0], version=view.version)
...     else:
...         view = client.wait(view.table, after_version=view.version)  # a long-poll

``Client.stream(table)`` yields every change as it happens (the NDJSON event stream).

A seat's view carries only what that seat may see (R9). :meth:`TableView.game` turns it into a
``sequence_game.Game`` an agent can search: the cards the seat cannot see (the other hands, the
draw pile) are dealt at random from the unseen ones, which any agent that keeps to R9 never reads.
The bot runner (``sequence-game bot``, :mod:`sequence_game.bot`) is built on this.
"""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Optional, Sequence
from urllib.parse import quote, urlsplit

from .cards import RANKS, SUITS

__all__ = ["Client", "ClientError", "SeatLink", "TableCreated", "TableView", "game_from_observation"]

#: Every card of the two decks (R1): each of the 52 twice.
_DECK = [r + s for r in RANKS for s in SUITS] * 2


class ClientError(Exception):
    """The server refused a request (``status`` 4xx/5xx, ``detail`` its message, ``error`` its
    error class) or could not be reached (``status`` 0)."""

    def __init__(self, status: int, detail: str, error: str = "") -> None:
        super().__init__(f"{status} {error + ': ' if error else ''}{detail}" if status else detail)
        self.status = status
        self.detail = detail
        self.error = error


@dataclass(frozen=True)
class SeatLink:
    """One join link of a new table: the seat, its token and the page that joins it."""

    seat: int
    token: str
    url: str


@dataclass(frozen=True)
class TableCreated:
    """``POST /api/tables``: the table's id, one link per human seat, the spectators' page."""

    table: str
    seats: List[SeatLink]
    spectate_url: str


@dataclass(frozen=True)
class TableView:
    """A table as one seat (or a spectator) sees it: ``GET /api/tables/{id}``.

    ``version`` counts the table's changes (send it with a move: a stale one is refused with 409);
    ``seat`` the seat shown (None for a spectator); ``state`` its observation (R9: the other hands
    and the draw pile as sizes); ``legal`` the seat's legal moves when it is to move, else empty;
    ``over`` and ``result`` the end; ``thinking`` the AI seat thinking now (or None). ``raw`` is the
    whole JSON object, fields this client does not name included."""

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
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, d: Dict[str, Any]) -> TableView:
        return cls(table=d["table"], version=d["version"], players=d["players"], teams=d["teams"],
                   seat=d.get("seat"), you=list(d.get("you", [])), state=d["state"], legal=list(d.get("legal", [])),
                   over=bool(d["over"]), result=d.get("result"), thinking=d.get("thinking"),
                   last_move=d.get("last_move"), raw=d)

    @property
    def to_move(self) -> bool:
        """Whether the seat shown is to move now."""
        return bool(self.legal)

    def game(self, seed: Optional[int] = None) -> Any:
        """A ``sequence_game.Game`` of this position for an agent: :func:`game_from_observation`."""
        return game_from_observation(self.state, seed=seed)


def game_from_observation(observation: Dict[str, Any], seed: Optional[int] = None) -> Any:
    """A ``sequence_game.Game`` consistent with one player's observation (``Game.observation(p)``
    or a seat's ``state``): the cards that player cannot see (R9: deck minus own hand minus the
    discard piles) are dealt at random (``seed``) into the other hands and the draw pile. An agent
    that looks only at what its player may see chooses exactly as it would in the real game; the
    game has no undo history (an agent's inference from past moves has no evidence)."""
    from .game import Game

    obs = observation
    me = obs["player"]
    rng = random.Random(seed)
    unseen = Counter(_DECK)
    unseen.subtract(obs["hands"][me])
    for pile in obs["discards"]:
        unseen.subtract(pile)
    cards = sorted(unseen.elements())
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
    return Game.from_dict(state)


class Client:
    """The HTTP API of one server, as one seat (``token``) or as a spectator (no token).

    Every method returns typed values; a refusal raises :class:`ClientError` with the server's own
    message (``detail``), an unreachable server too (``status`` 0, after ``retries`` attempts with
    a growing pause: a restarting server is waited for).
    """

    def __init__(self, server: str, token: Optional[str] = None, timeout: float = 30.0, retries: int = 5) -> None:
        parts = urlsplit(server)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"server must be an http:// or https:// URL like http://127.0.0.1:8000, not {server!r}")
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = retries

    # ------------------------------------------------------------------ transport

    def request(self, method: str, path: str, body: Optional[Dict[str, Any]] = None,
                timeout: Optional[float] = None) -> Any:
        """One API call: the decoded JSON answer (``ClientError`` for a refusal)."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(self.server + path, data=data, method=method, headers=headers)
        pause = 0.1
        for attempt in range(self.retries + 1):
            try:
                with urllib.request.urlopen(req, timeout=timeout or self.timeout) as resp:
                    payload = resp.read()
                    return json.loads(payload) if payload else None
            except urllib.error.HTTPError as e:
                raise _refusal(e) from None
            except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
                # only requests that change nothing, or a first connection, are repeated blindly
                if attempt == self.retries or (method != "GET" and not _not_connected(e)):
                    reason = getattr(e, "reason", e)
                    raise ClientError(0, f"cannot reach {self.server}: {reason}") from None
                time.sleep(pause)
                pause = min(pause * 2, 2.0)
        raise AssertionError("unreachable")  # pragma: no cover

    # ------------------------------------------------------------------ the API

    def create_table(self, players: int = 2, seats: Optional[Sequence[Dict[str, Any]]] = None,
                     **options: Any) -> TableCreated:
        """``POST /api/tables``: ``seats`` like ``[{"kind": "human"}, {"kind": "ai", "ai": "hard"}]``;
        ``options``: ``teams``, ``seed``, ``max_turns``, ``hot_seat``, ``ai_seconds``, ``moves``."""
        body: Dict[str, Any] = {"players": players, **options}
        if seats is not None:
            body["seats"] = list(seats)
        d = self.request("POST", "/api/tables", body)
        return TableCreated(table=d["table"], seats=[SeatLink(**s) for s in d["seats"]],
                            spectate_url=d["spectate_url"])

    def presets(self) -> List[Dict[str, Any]]:
        """``GET /api/presets``: the AI strengths, weakest first."""
        out: List[Dict[str, Any]] = self.request("GET", "/api/presets")
        return out

    def table(self, table_id: str) -> TableView:
        """``GET /api/tables/{id}``: the table as this client's seat sees it."""
        return TableView.from_json(self.request("GET", f"/api/tables/{_id(table_id)}"))

    def play(self, table_id: str, move: str, version: Optional[int] = None) -> TableView:
        """``POST /api/tables/{id}/moves``: play ``move`` (text notation) for this seat; with
        ``version``, refused (409) if the table changed since that version. Returns the new view."""
        body: Dict[str, Any] = {"move": str(move)}
        if version is not None:
            body["version"] = version
        return TableView.from_json(self.request("POST", f"/api/tables/{_id(table_id)}/moves", body)["view"])

    def undo(self, table_id: str) -> TableView:
        """``POST /api/tables/{id}/undo``: take back this seat's last move (games against the AI)."""
        return TableView.from_json(self.request("POST", f"/api/tables/{_id(table_id)}/undo", {})["view"])

    def hint(self, table_id: str) -> str:
        """``POST /api/tables/{id}/hint``: the server AI's suggestion for this seat's move."""
        return str(self.request("POST", f"/api/tables/{_id(table_id)}/hint", {})["move"])

    def record(self, table_id: str) -> Any:
        """``GET /api/tables/{id}/record``: the finished game as a ``GameRecord``."""
        from .records import GameRecord

        return GameRecord.from_dict(self.request("GET", f"/api/tables/{_id(table_id)}/record"))

    def wait(self, table_id: str, after_version: int, wait: float = 25.0) -> TableView:
        """The table once its version is past ``after_version`` or the game is over: a long-poll
        (``GET /api/tables/{id}?after_version=N``), repeated every ``wait`` seconds (at most 60)
        until then."""
        while True:
            view = TableView.from_json(self.request(
                "GET", f"/api/tables/{_id(table_id)}?after_version={int(after_version)}&wait={wait:g}",
                timeout=wait + self.timeout))
            if view.version > after_version or view.over:
                return view

    def stream(self, table_id: str) -> Iterator[Dict[str, Any]]:
        """Every event of the table as it happens (``GET /api/tables/{id}/stream``, NDJSON): the
        frames ``{"type": "state", "view": {...}}`` (the first at once; :meth:`TableView.from_json`
        reads the view) and ``{"type": "presence", ...}``. Ends after the finished game's state,
        or with ``ClientError`` (status 0) if the connection drops."""
        headers = {"Accept": "application/x-ndjson"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        req = urllib.request.Request(f"{self.server}/api/tables/{_id(table_id)}/stream", headers=headers)
        try:
            # the server writes a line at least every 20 s (a keep-alive): a longer silence is a dead link
            resp = urllib.request.urlopen(req, timeout=max(self.timeout, 60.0))
        except urllib.error.HTTPError as e:
            raise _refusal(e) from None
        except (urllib.error.URLError, ConnectionError, TimeoutError) as e:
            raise ClientError(0, f"cannot reach {self.server}: {getattr(e, 'reason', e)}") from None
        with resp:
            try:
                for line in resp:
                    if line.strip():
                        yield json.loads(line)
            except (ConnectionError, TimeoutError, OSError) as e:
                raise ClientError(0, f"the event stream of table {table_id} broke: {e}") from None


def _refusal(e: urllib.error.HTTPError) -> ClientError:
    """The server's refusal as a :class:`ClientError` (its JSON ``detail`` and ``error``)."""
    try:
        err = json.loads(e.read() or b"{}")
    except ValueError:
        err = {}
    if not isinstance(err, dict):
        err = {}
    return ClientError(e.code, str(err.get("detail") or e.reason), str(err.get("error", "")))


def _id(table_id: str) -> str:
    return quote(str(table_id), safe="")


def _not_connected(e: BaseException) -> bool:
    """True when the request surely never reached the server (refused connection)."""
    reason = getattr(e, "reason", e)
    return isinstance(reason, ConnectionRefusedError)
