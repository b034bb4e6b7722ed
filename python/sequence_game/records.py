"""Game records: a finished (or unfinished) game as seed + moves, saved as JSON and replayed exactly.

A game is fixed by its players, teams, turn cap and seed (the deal and every reshuffle come from
the seed, docs/rng.md) plus the moves played, so a record stores just that and rebuilds the game
by replaying the moves:

>>> from sequence_game.reference import Game
>>> from sequence_game.agents import RandomAgent
>>> rec = play_game([RandomAgent(seed=1), RandomAgent(seed=2)], players=2, seed=9, game_class=Game)
>>> g = rec.replay(Game)
>>> g.is_over and g.turn == rec.result["turns"]
True
>>> GameRecord.from_json(rec.to_json()) == rec
True

Any game played from its deal gives its record, ``GameRecord.from_game(game)``: the record's
moves are the game's history.

The file format ``"sequence-game-record/1"`` is a JSON object with the fields of
:class:`GameRecord` plus ``"format"``; ``moves`` is the game's history as text: every move in
order in the notation of docs/notation.md (trades and passes included) and any referee call (R10)
in the text form of ``sequence_game.referee`` (``"table-talk 0 0:7H 2:9S"``, ``"missed-draw 1"``).

The seed predicts every hidden card (the deal and every reshuffle, R9), so whoever reads a record
(or a ``Game.to_dict()``) knows every hand and the draw pile. :meth:`GameRecord.seal` writes a save
a local player cannot read them from: format ``"sequence-game-sealed/2"``, the record's public
fields in the clear (setup, seats, every move, the result, where the redeals after undos were) and
only the seeds (the first and every redeal's) encrypted under a key the app keeps apart
(``new_key()``; its keychain, its server). :meth:`GameRecord.unseal` needs the key and refuses a
save whose public part or sealed seeds were changed.

>>> key = new_key()
>>> sealed = rec.seal(key)
>>> "seed" in sealed, GameRecord.unseal(sealed, key) == rec
(False, True)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

from ._args import plain_int
from .agents import agent_from_spec, agent_name
from .agents.factory import game_class as default_game_class  # the default engine: the compiled core
from .errors import AgentMoveError, short_repr
from .move import Move
from .referee import HistoryEntry, parse_history_entry, replay_entry

if TYPE_CHECKING:
    from .gamebase import GameBase, GameClass

__all__ = [
    "RECORD_FORMAT",
    "SEALED_FORMAT",
    "AgentMoveError",
    "GameRecord",
    "Step",
    "default_game_class",
    "new_key",
    "play_game",
    "utc_now",
    "utc_text",
]

RECORD_FORMAT = "sequence-game-record/1"
SEALED_FORMAT = "sequence-game-sealed/2"
# the first sealed format sealed the first seed only, the redeals' seeds in the clear: still read
_SEALED_FORMAT_1 = "sequence-game-sealed/1"
_MIN_KEY_BYTES = 16

#: The largest record file ``load`` reads (about a million moves); larger files are refused unread.
MAX_RECORD_BYTES = 32 * 2**20

_REQUIRED = ("players", "teams", "seed", "moves")
_OPTIONAL = ("max_turns", "agents", "result", "started", "finished", "redeals", "resigned", "timeouts", "ending",
             "aborted")

#: How an aborted game's ``aborted.why`` says it ended: a seat pressed Abort, or a seat did not make
#: its first move within its grace (a table's convention, like resigning: docs/club.md)
ABORT_REASONS = ("abort", "no-first-move")


def utc_now() -> str:
    """The time now in UTC as ISO 8601 text to the millisecond (``2026-12-01T14:30:00.123Z``): the
    format of a record's ``started`` and ``finished``."""
    return utc_text(datetime.now(timezone.utc).timestamp())


def utc_text(seconds: float) -> str:
    """``seconds`` since the epoch as :func:`utc_now` writes a time.

    >>> utc_text(0)
    '1970-01-01T00:00:00.000Z'
    """
    return datetime.fromtimestamp(seconds, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def new_key() -> bytes:
    """A fresh 32-byte key for :meth:`GameRecord.seal`, from the operating system's random source.
    Keep it where the player's files are not (a keychain, a server): the key opens every save
    sealed with it."""
    return secrets.token_bytes(32)


def _check_key(key: object) -> bytes:
    if not isinstance(key, (bytes, bytearray)):
        raise TypeError(f"key must be bytes (sequence_game.records.new_key()), not {type(key).__name__}")
    if len(key) < _MIN_KEY_BYTES:
        raise ValueError(f"key must be at least {_MIN_KEY_BYTES} bytes (new_key() gives 32), not {len(key)}")
    return bytes(key)


def _canonical(d: Dict[str, Any]) -> bytes:
    return json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def _seal_pad(key: bytes, nonce: bytes, size: int, fmt: str) -> bytes:
    # HMAC-SHA256 as a pseudorandom function, in counter mode, gives the one-time pad of the seeds
    # (8 bytes each); a fresh random nonce per save means no two saves share a pad.
    if fmt == _SEALED_FORMAT_1:  # one seed: the first block alone, as that format was written
        return hmac.new(key, b"sequence-game-sealed/1 seed " + nonce, hashlib.sha256).digest()[:size]
    blocks = (hmac.new(key, b"sequence-game-sealed/2 seeds " + nonce + i.to_bytes(4, "little"), hashlib.sha256)
              .digest() for i in range((size + 31) // 32))
    return b"".join(blocks)[:size]


def _seal_tag(key: bytes, nonce: bytes, cipher: bytes, public: Dict[str, Any]) -> bytes:
    # Encrypt-then-MAC over the nonce, the sealed seeds and every public field: a changed move list
    # or result is refused as surely as a changed seed. (The label stays the same in every format:
    # the format itself is one of the public fields the tag covers.)
    message = b"sequence-game-sealed/1 tag " + nonce + cipher + _canonical(public)
    return hmac.new(key, message, hashlib.sha256).digest()


def _result_of(game: GameBase) -> Dict[str, Any]:
    return {"winner": game.winner, "is_draw": bool(game.is_draw), "turns": game.turn}


def aborted_result(game: GameBase) -> Dict[str, Any]:
    """The result of ``game`` aborted now: nobody won, nobody lost, no draw."""
    return {"winner": None, "is_draw": False, "turns": game.turn}


def resignation_result(game: GameBase, seat: int) -> Dict[str, Any]:
    """The result when ``seat`` resigns ``game`` (two teams: the other team wins at once)."""
    if game.teams != 2:
        raise ValueError(f"resigning needs two teams (this game has {game.teams}): with three, the game would "
                         "go on without a team")
    if not 0 <= seat < game.players:
        raise ValueError(f"seat must be from 0 to {game.players - 1}, not {seat}")
    return {"winner": 1 - game.team_of(seat), "is_draw": False, "turns": game.turn}


class Step(NamedTuple):
    """One position of a replay: ``index`` entries of the history replayed so far, the ``move`` just
    replayed (a ``Move`` or a referee call; None at the deal), and the ``game`` after it (an
    independent copy)."""

    index: int  # type: ignore[assignment]  # the field shadows tuple.index; its name is public API
    move: Optional[HistoryEntry]
    game: GameBase


@dataclass
class GameRecord:
    """One game: how it was set up, who played, every move, and how it ended.

    - ``players``, ``teams``, ``seed``, ``max_turns``: the ``Game(...)`` arguments (``seed`` is
      the seed actually used, an int).
    - ``agents``: one name per seat (seat ``p`` at index ``p``).
    - ``moves``: the game's history in order as text: every move (``"7H@d6"``, ``"JSxe5"``,
      ``"trade 7H"``, ``"pass"``, declared sequences included) and any referee call
      (``"missed-draw 1"``, ``"table-talk 0 0:7H 2:9S"``).
    - ``result``: ``{"winner": team or None, "is_draw": bool, "turns": int}``, or None for a game
      not played to the end.
    - ``started``, ``finished``: ISO 8601 UTC timestamps (or None).
    - ``redeals``: the redeals after undos (``Game.redealt``, R9), in order, each
      ``{"at": n, "keep": [seats], "seed": s}``: after the first ``n`` moves, the cards the seats
      ``keep`` could not see were dealt afresh from ``s``. Empty for a game without undos (and
      then left out of the file).
    - ``resigned``: the seat that resigned (two teams only: its team loses at once, and ``result``
      names the other team), or None. Resigning is not a rule of the game but a table's convention
      (as at any game site); the moves replay to a game still going.
    - ``timeouts``: the numbers (from 1, into ``moves``) of the moves a table's turn timer played
      for a player who did not move in time (not the player's choice: the review shows them as
      events, docs/review.md). Empty for most games (and then left out of the file).
    - ``ending``: how a game that the rules did not end ended without a winner: ``"aborted"`` (a
      table's convention, as at any game site: before every person at the table made a first
      move; no rating changes and nobody loses), or None. ``result`` is then ``{"winner": None,
      "is_draw": False, "turns": n}`` and the moves replay to a game still going.
    - ``aborted``: with ``ending`` ``"aborted"``, ``{"seat": p, "why": "abort"}`` (seat ``p``
      pressed Abort) or ``{"seat": p, "why": "no-first-move"}`` (seat ``p`` did not make its
      first move within its grace); else None. Both are left out of the file when None.
    """

    players: int
    teams: int
    seed: int
    max_turns: Optional[int] = None
    agents: List[str] = field(default_factory=list)
    moves: List[str] = field(default_factory=list)
    result: Optional[Dict[str, Any]] = None
    started: Optional[str] = None
    finished: Optional[str] = None
    redeals: List[Dict[str, Any]] = field(default_factory=list)
    resigned: Optional[int] = None
    timeouts: List[int] = field(default_factory=list)
    ending: Optional[str] = None
    aborted: Optional[Dict[str, Any]] = None

    @classmethod
    def from_game(
        cls, game: GameBase, agents: Sequence[str] = (), started: Optional[str] = None, finished: Optional[str] = None,
    ) -> GameRecord:
        """The record of ``game`` as played so far: its setup, its history and, once it is over, its result.

        ``agents``: one name per seat (or none). A game redealt after an undo (``game.redealt(keep)``,
        R9) is recorded from its deal too: the moves before the redeal and the redeal (``redeals``)
        come with it. Raises ``ValueError`` for a game whose history does not start at its deal
        (loaded with ``from_dict`` or unpickled, or redealt from such a game): a record replays
        from the seed.

        >>> from sequence_game.reference import Game
        >>> g = Game(players=2, seed=4)
        >>> g.play(g.legal_moves()[0])
        >>> rec = GameRecord.from_game(g)
        >>> rec.moves == [str(m) for m in g.history], rec.result, rec.replay(Game).to_dict() == g.to_dict()
        (True, None, True)
        """
        origin = getattr(game, "_origin", None)
        if origin is None and not getattr(game, "_from_deal", False):
            raise ValueError(
                "GameRecord.from_game needs a game played from its deal: this one starts at a position "
                "loaded with from_dict or pickle (or was redealt from one), and a record replays from the seed"
            )
        agents = list(agents)
        if agents and (len(agents) != game.players or not all(isinstance(a, str) for a in agents)):
            raise ValueError(f"agents must be {game.players} names, one per seat (or none), not {agents!r}")
        before: List[str] = list(origin["moves"]) if origin else []
        seed = origin["seed"] if origin else game.seed
        if seed is None:
            raise ValueError("GameRecord.from_game needs a game dealt from a seed: a record replays from it")
        return cls(
            players=game.players, teams=game.teams, seed=seed,
            max_turns=game.max_turns, agents=agents, moves=before + [str(entry) for entry in game.history],
            result=_result_of(game) if game.is_over else None, started=started, finished=finished,
            redeals=[dict(r, keep=list(r["keep"])) for r in origin["redeals"]] if origin else [],
        )

    # ------------------------------------------------------------------ JSON

    def to_dict(self) -> Dict[str, Any]:
        """The record as plain JSON-able data, ``"format"`` first."""
        return {
            "format": RECORD_FORMAT,
            "players": self.players,
            "teams": self.teams,
            "seed": self.seed,
            "max_turns": self.max_turns,
            "agents": list(self.agents),
            "moves": list(self.moves),
            "result": None if self.result is None else dict(self.result),
            "started": self.started,
            "finished": self.finished,
            **({"redeals": [dict(r, keep=list(r["keep"])) for r in self.redeals]} if self.redeals else {}),
            **({} if self.resigned is None else {"resigned": self.resigned}),
            **({"timeouts": list(self.timeouts)} if self.timeouts else {}),
            **({} if self.ending is None else {"ending": self.ending}),
            **({} if self.aborted is None else {"aborted": dict(self.aborted)}),
        }

    @classmethod
    def from_dict(cls, d: Any) -> GameRecord:
        """A record from :meth:`to_dict` data; anything malformed is a ``ValueError`` naming the field.

        Only the form is checked here; :meth:`replay` checks that the moves are legal.
        """
        if not isinstance(d, dict):
            raise ValueError(f"a game record is a JSON object, not {type(d).__name__}")
        fmt = d.get("format")
        if fmt != RECORD_FORMAT:
            raise ValueError(
                f"not a game record: 'format' is {short_repr(fmt)}, expected {RECORD_FORMAT!r}"
                + (" (that is a game state; load it with Game.from_dict)" if fmt == "sequence-game/1" else "")
            )
        missing = [k for k in _REQUIRED if k not in d]
        if missing:
            raise ValueError(f"game record is missing field(s) {', '.join(map(repr, missing))}")
        unknown = sorted(map(short_repr, set(d) - set(_REQUIRED) - set(_OPTIONAL) - {"format"}))
        if unknown:
            raise ValueError(
                f"game record has unknown field(s) {', '.join(unknown[:5])}" + (" ..." if len(unknown) > 5 else "")
                + "; the fields are "
                f"format, {', '.join(_REQUIRED + _OPTIONAL)}"
            )

        def integer(name: str, value: Any, optional: bool = False) -> Any:
            if value is None and optional:
                return None
            number = plain_int(value)
            if number is None:
                or_null = " or null" if optional else ""
                raise ValueError(f"game record: {name!r} must be an int{or_null}, not {short_repr(value)}")
            return number

        players = integer("players", d["players"])
        teams = integer("teams", d["teams"])
        seed = integer("seed", d["seed"])
        max_turns = integer("max_turns", d.get("max_turns"), optional=True)
        moves = d["moves"]
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in list.__iter__(moves)):
            raise ValueError("game record: 'moves' must be a list of move texts like '7H@d6'")
        moves = [str.__str__(m) for m in list.__iter__(moves)]
        agents = d.get("agents", [])
        if agents is None:
            agents = []
        if not isinstance(agents, list) or not all(isinstance(a, str) for a in list.__iter__(agents)):
            raise ValueError("game record: 'agents' must be a list of names, one per seat")
        agents = [str.__str__(a) for a in list.__iter__(agents)]
        result = d.get("result")
        if result is not None:
            if not isinstance(result, dict) or set(result) != {"winner", "is_draw", "turns"}:
                raise ValueError(
                    "game record: 'result' must be null or {'winner': team or null, 'is_draw': bool, 'turns': int}"
                )
            if not isinstance(result["is_draw"], bool):
                raise ValueError(
                    f"game record: 'result.is_draw' must be true or false, not {short_repr(result['is_draw'])}"
                )
            result = {
                "winner": integer("result.winner", result["winner"], optional=True),
                "is_draw": bool(result["is_draw"]),
                "turns": integer("result.turns", result["turns"]),
            }
        stamps = {}
        for name in ("started", "finished"):
            v = d.get(name)
            if v is not None and not isinstance(v, str):
                raise ValueError(f"game record: {name!r} must be an ISO 8601 time string or null, not {short_repr(v)}")
            stamps[name] = None if v is None else str.__str__(v)
        redeals = d.get("redeals") or []
        if not isinstance(redeals, list):
            raise ValueError("game record: 'redeals' must be a list of {'at': n, 'keep': [seats], 'seed': s}")
        checked: List[Dict[str, Any]] = []
        for r in list.__iter__(redeals):
            if not isinstance(r, dict) or set(r) != {"at", "keep", "seed"} or not isinstance(r["keep"], list):
                raise ValueError(f"game record: a redeal must be {{'at': n, 'keep': [seats], 'seed': s}}, "
                                 f"not {short_repr(r)}")
            at, rseed = integer("redeals.at", r["at"]), integer("redeals.seed", r["seed"])
            keep = [integer("redeals.keep", k) for k in list.__iter__(r["keep"])]
            if not (checked[-1]["at"] if checked else 0) <= at <= len(moves) or not 0 <= rseed < 2**64:
                raise ValueError(f"game record: redeal {short_repr(r)} is out of order or out of range")
            checked.append({"at": at, "keep": keep, "seed": rseed})
        resigned = integer("resigned", d.get("resigned"), optional=True)
        if resigned is not None and not (0 <= resigned < players and teams == 2):
            raise ValueError(f"game record: 'resigned' must be a seat from 0 to {players - 1} of a two-team game, "
                             f"not {resigned}" + ("" if teams == 2 else f" ({teams} teams)"))
        if resigned is not None and (result is None or result["winner"] != 1 - resigned % 2):
            raise ValueError(f"game record: seat {resigned} resigned, so 'result' must name team {1 - resigned % 2} "
                             "the winner")
        timeouts = d.get("timeouts") or []
        if not isinstance(timeouts, list):
            raise ValueError("game record: 'timeouts' must be a list of move numbers (from 1), not "
                             f"{short_repr(timeouts)}")
        numbers = [integer("timeouts", n) for n in list.__iter__(timeouts)]
        if any(not 1 <= n <= len(moves) for n in numbers) or numbers != sorted(set(numbers)):
            raise ValueError(f"game record: 'timeouts' must be increasing move numbers from 1 to {len(moves)}, "
                             f"not {short_repr(timeouts)}")
        ending, aborted = d.get("ending"), d.get("aborted")
        if ending not in (None, "aborted"):
            raise ValueError(f"game record: 'ending' must be null or 'aborted', not {short_repr(ending)}")
        if ending is None and aborted is not None:
            raise ValueError("game record: 'aborted' needs 'ending': 'aborted'")
        if ending == "aborted":
            if not (isinstance(aborted, dict) and set(aborted) == {"seat", "why"}
                    and aborted["why"] in ABORT_REASONS):
                raise ValueError("game record: an aborted game's 'aborted' must be {'seat': seat, 'why': "
                                 f"{' or '.join(map(repr, ABORT_REASONS))}}}, not {short_repr(aborted)}")
            seat = integer("aborted.seat", aborted["seat"])
            if not 0 <= seat < players:
                raise ValueError(f"game record: 'aborted.seat' must be a seat from 0 to {players - 1}, not {seat}")
            if resigned is not None or result is None or result["winner"] is not None or result["is_draw"]:
                raise ValueError("game record: an aborted game has no resignation and its 'result' is "
                                 "{'winner': null, 'is_draw': false, 'turns': n}")
            aborted = {"seat": seat, "why": str(aborted["why"])}
        return cls(
            players=players, teams=teams, seed=seed, max_turns=max_turns, agents=list(agents),
            moves=list(moves), result=result, **stamps, redeals=checked, resigned=resigned, timeouts=numbers,
            ending=ending, aborted=aborted,
        )

    def to_json(self, indent: Optional[int] = 1) -> str:
        """The record as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_json(cls, text: Union[str, bytes]) -> GameRecord:
        """A record from JSON text; malformed JSON or a malformed record is a ``ValueError``."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(f"game record is not valid JSON: {e}") from None
        except UnicodeDecodeError as e:
            raise ValueError(f"game record is not UTF-8 text: {e.reason} at byte {e.start}") from None
        except RecursionError:
            raise ValueError("game record nests too deeply to be a game record (it nests at most 3 levels)") from None
        return cls.from_dict(data)

    # ------------------------------------------------------------------ sealed saves (R9)

    def seal(self, key: bytes) -> Dict[str, Any]:
        """The record as a save a player cannot read hidden cards from (R9): JSON-able data of
        format ``"sequence-game-sealed/2"`` with every field of :meth:`to_dict` in the clear (they are
        public: every player saw every move) but the seeds, the only fields that predict a hidden
        card: ``seed`` is left out and each redeal is ``{"at": n, "keep": [seats]}``. ``sealed``
        holds those seeds (the first, then each redeal's in order) encrypted with ``key`` (bytes, at
        least 16; :func:`new_key`) under a fresh random nonce, and an authentication tag over
        everything. Sealing twice gives different data."""
        k = _check_key(key)
        record = GameRecord.from_dict(self.to_dict())  # a record built by hand is checked as a file is
        if not 0 <= record.seed < 2**64:
            raise ValueError(f"game record: 'seed' must be from 0 to 2**64 - 1, not {short_repr(record.seed)}")
        public = record.to_dict()
        del public["seed"]
        public["format"] = SEALED_FORMAT
        if "redeals" in public:
            public["redeals"] = [{"at": r["at"], "keep": list(r["keep"])} for r in record.redeals]
        seeds = b"".join(s.to_bytes(8, "little") for s in [record.seed, *(r["seed"] for r in record.redeals)])
        nonce = secrets.token_bytes(16)
        cipher = bytes(a ^ b for a, b in zip(seeds, _seal_pad(k, nonce, len(seeds), SEALED_FORMAT)))
        tag = _seal_tag(k, nonce, cipher, public)
        return {**public, "sealed": {"nonce": nonce.hex(), "seeds": cipher.hex(), "tag": tag.hex()}}

    @classmethod
    def unseal(cls, d: Any, key: bytes) -> GameRecord:
        """The record in a :meth:`seal` save; ``ValueError`` when ``d`` is not one, or when ``key``
        does not open it (another key, or the save was changed). Saves of the first sealed format
        (``"sequence-game-sealed/1"``, which sealed the first seed only) are read too."""
        k = _check_key(key)
        fmt = d.get("format") if isinstance(d, dict) else type(d).__name__
        if not isinstance(d, dict) or fmt not in (SEALED_FORMAT, _SEALED_FORMAT_1):
            raise ValueError(f"not a sealed save: 'format' is {short_repr(fmt)}, expected {SEALED_FORMAT!r}"
                             + (" (an open record: GameRecord.from_dict)" if fmt == RECORD_FORMAT else ""))
        if "seed" in d:
            raise ValueError("a sealed save has no 'seed' field (the seeds are in 'sealed')")
        redeals = d.get("redeals") or []
        if fmt == SEALED_FORMAT and (not isinstance(redeals, list) or not all(
                isinstance(r, dict) and set(r) == {"at", "keep"} for r in list.__iter__(redeals))):
            raise ValueError("sealed save: 'redeals' must be a list of {'at': n, 'keep': [seats]} "
                             "(their seeds are in 'sealed')")
        count = 1 + len(redeals) if fmt == SEALED_FORMAT else 1
        name = "seeds" if fmt == SEALED_FORMAT else "seed"
        sealed = d.get("sealed")
        shape = f"sealed save: 'sealed' must be {{'nonce': 32 hex digits, {name!r}: {16 * count}, 'tag': 64}}"
        if not isinstance(sealed, dict) or set(sealed) != {"nonce", name, "tag"}:
            raise ValueError(shape)
        try:
            nonce, cipher, tag = (bytes.fromhex(sealed[f]) for f in ("nonce", name, "tag"))
        except (TypeError, ValueError):
            raise ValueError(shape) from None
        if (len(nonce), len(cipher), len(tag)) != (16, 8 * count, 32):
            raise ValueError(shape)
        public = {f: v for f, v in d.items() if f != "sealed"}
        if not hmac.compare_digest(tag, _seal_tag(k, nonce, cipher, public)):
            raise ValueError("this key does not open the sealed save (another key, or the save was changed)")
        plain = bytes(a ^ b for a, b in zip(cipher, _seal_pad(k, nonce, len(cipher), str(fmt))))
        seeds = [int.from_bytes(plain[i:i + 8], "little") for i in range(0, len(plain), 8)]
        record = {**public, "format": RECORD_FORMAT, "seed": seeds[0]}
        if fmt == SEALED_FORMAT and redeals:
            record["redeals"] = [{**r, "seed": s} for r, s in zip(redeals, seeds[1:])]
        return cls.from_dict(record)

    def save_sealed(self, path: Union[str, os.PathLike[str]], key: bytes) -> None:
        """Write :meth:`seal` to ``path`` as JSON."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps(self.seal(key), indent=1))
            f.write("\n")

    @classmethod
    def load_sealed(cls, path: Union[str, os.PathLike[str]], key: bytes) -> GameRecord:
        """Read a save written by :meth:`save_sealed`; a bad file or key is a ``ValueError`` naming the path."""
        with open(path, "rb") as f:
            text = f.read(MAX_RECORD_BYTES + 1)
        try:
            if len(text) > MAX_RECORD_BYTES:
                raise ValueError(f"larger than {MAX_RECORD_BYTES // 2**20} MiB: not a sealed save")
            try:
                data = json.loads(text)
            except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
                raise ValueError(f"not JSON: {e}") from None
            return cls.unseal(data, key)
        except ValueError as e:
            raise ValueError(f"{os.fspath(path)}: {e}") from None

    def save(self, path: Union[str, os.PathLike[str]]) -> None:
        """Write the record to ``path`` as JSON (the seed in the clear: see :meth:`seal`)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.to_json())
            f.write("\n")

    @classmethod
    def load(cls, path: Union[str, os.PathLike[str]]) -> GameRecord:
        """Read a record saved by :meth:`save`; a bad file is a ``ValueError`` naming the path."""
        with open(path, "rb") as f:
            text = f.read(MAX_RECORD_BYTES + 1)
        try:
            if len(text) > MAX_RECORD_BYTES:
                raise ValueError(f"larger than {MAX_RECORD_BYTES // 2**20} MiB: not a game record")
            return cls.from_json(text)
        except ValueError as e:
            raise ValueError(f"{os.fspath(path)}: {e}") from None

    # ------------------------------------------------------------------ replay

    def new_game(self, game_class: Optional[GameClass] = None) -> Any:
        """The game at its deal (before any move)."""
        cls = game_class or default_game_class()
        try:
            return cls(players=self.players, teams=self.teams, seed=self.seed, max_turns=self.max_turns)
        except (TypeError, ValueError) as e:
            raise ValueError(f"game record cannot be set up: {e}") from None

    def positions(self, game_class: Optional[GameClass] = None) -> Iterator[Step]:
        """Step through the game: the deal (``Step(0, None, game)``) then one ``Step`` after each move.

        Each ``game`` is an independent copy. A move that does not replay raises ``ValueError`` when
        reached, naming the move's index (0-based) and text and why.
        """
        game = self._redeal(self.new_game(game_class), 0)
        yield Step(0, None, game.copy())
        for i, text in enumerate(self.moves):
            move = self._play(game, i, text)
            game = self._redeal(game, i + 1)
            yield Step(i + 1, move, game.copy())
        self._check_result(game)

    def replay(self, game_class: Optional[GameClass] = None) -> Any:
        """Rebuild the game from the seed and the moves; returns the ``Game`` after the last move.

        Raises ``ValueError`` for a record that does not replay: naming the first bad move (its
        0-based index, its text and why), or the recorded result if the replay ends differently.
        """
        return self.rebuild(game_class)[0]

    def rebuild(self, game_class: Optional[GameClass] = None) -> Tuple[Any, List[HistoryEntry], List[int]]:
        """:meth:`replay` that also returns every entry of the history and who made each: after a
        redeal (``redeals``) the game's own history starts there, so the entries before it are
        returned apart. ``(game, history, movers)``, with ``game.history`` the tail of ``history``.
        """
        game = self._redeal(self.new_game(game_class), 0)
        history: List[HistoryEntry] = []
        movers: List[int] = []
        for i, text in enumerate(self.moves):
            movers.append(game.current_player)
            history.append(self._play(game, i, text))
            game = self._redeal(game, i + 1)
        self._check_result(game)
        return game, history, movers

    def _redeal(self, game: GameBase, at: int) -> Any:
        """``game`` after the redeals recorded after ``at`` moves (the same game if none)."""
        for r in self.redeals:
            if r["at"] == at:
                try:
                    game = game.redealt(r["keep"], r["seed"])
                except (TypeError, ValueError) as e:
                    raise ValueError(f"game record does not replay: redeal after {at} moves is refused: {e}") from None
        return game

    @staticmethod
    def _play(game: GameBase, index: int, text: str) -> HistoryEntry:
        try:
            entry = parse_history_entry(text)
            if isinstance(entry, Move):
                entry = game.parse_move(text)  # the declares filled in when the text leaves them out
            replay_entry(game, entry)
        except ValueError as e:
            raise ValueError(f"game record does not replay: move {index} {short_repr(text)} is refused: {e}") from None
        return entry

    def _check_result(self, game: GameBase) -> None:
        if self.result is None:
            return
        if self.ending == "aborted":  # a table's convention: the rules had not ended the game
            expected = aborted_result(game)
            if game.is_over or self.result != expected:
                raise ValueError(f"game record does not replay: the game was aborted, so it must still be going "
                                 f"after its moves and the result be {expected}, not {self.result}")
            return
        if self.resigned is not None:
            # a resignation ends a game the rules had not ended (R2: seat p plays for team p mod 2)
            expected = resignation_result(game, self.resigned)
            if game.is_over or self.result != expected:
                raise ValueError(f"game record does not replay: seat {self.resigned} resigned, so the game must "
                                 f"still be going after its moves and the result be {expected}, not {self.result}")
            return
        got = _result_of(game)
        if not game.is_over:
            raise ValueError(
                f"game record does not replay: the record says the game ended ({self.result}) but after all "
                f"{len(self.moves)} moves it is still going (turn {game.turn})"
            )
        if got != self.result:
            raise ValueError(f"game record does not replay: the record says {self.result} but the replay ends {got}")

    @property
    def winner(self) -> Optional[int]:
        return None if self.result is None else self.result["winner"]

    def __str__(self) -> str:
        end = "unfinished"
        if self.ending == "aborted":
            end = f"aborted after {self.result['turns'] if self.result else 0} turns"
        elif self.result is not None:
            r = self.result
            end = "draw" if r["is_draw"] else f"team {r['winner']} won"
            end += f" after {r['turns']} turns"
        seats = ", ".join(f"{p}:{a}" for p, a in enumerate(self.agents))
        return (f"GameRecord(players={self.players}, teams={self.teams}, seed={self.seed}, {len(self.moves)} moves, "
                f"{end}; {seats})")


# --------------------------------------------------------------------------- playing a game


def _seat_agents(agents: Any, players: int) -> List[Any]:
    if isinstance(agents, str) or hasattr(agents, "select_move"):
        agents = [agents]
    agents = list(agents)
    if not agents:
        raise ValueError("play_game needs at least one agent")
    if len(agents) > players:
        raise ValueError(f"play_game got {len(agents)} agents for {players} seats: give at most one per seat")
    seated = []
    for p in range(players):
        a = agents[p % len(agents)]
        if isinstance(a, str):
            a = agent_from_spec(a)
            agents[p % len(agents)] = a
        if not hasattr(a, "select_move"):
            raise TypeError(f"agent for seat {p} has no select_move(game) method: {short_repr(a)}")
        seated.append(a)
    return seated


def play_game(
    agents: Sequence[Any],
    players: int = 2,
    teams: Optional[int] = None,
    seed: Optional[int] = None,
    max_turns: Optional[int] = None,
    game_class: Optional[GameClass] = None,
    on_move: Optional[Callable[[Any, Move, int], None]] = None,
) -> GameRecord:
    """Play one game to the end and return its :class:`GameRecord`.

    ``agents``: one per seat (seat ``p`` is played by ``agents[p]``), or fewer, cycled over the
    seats (seat ``p`` gets ``agents[p % len(agents)]``; with as many agents as teams each agent
    plays one team, since seat ``p`` is on team ``p mod teams``). Note that a cycled agent object
    plays several seats and could remember their hands; give one object per seat for agents with
    memory. Entries may also be spec strings (``"greedy"``, see ``agents.agent_from_spec``).

    Each agent is called as ``select_move(game)`` on the live game when its seat is to move, and
    must not change the game. ``on_move(game, move, player)``, if given, is called after every move
    (``game`` is the position after it). ``game_class`` defaults to ``default_game_class()``.

    An illegal choice raises :class:`AgentMoveError` (a ``ValueError``) naming the agent, the
    seat and the move.
    """
    cls = game_class or default_game_class()
    game = cls(players=players, teams=teams, seed=seed, max_turns=max_turns)
    seated = _seat_agents(agents, game.players)
    names = [agent_name(a) for a in seated]
    started = utc_now()
    while not game.is_over:
        p = game.current_player
        before = (game.turn, p, game.traded_this_turn)
        choice = seated[p].select_move(game)
        if (game.turn, game.current_player, game.traded_this_turn) != before:
            raise RuntimeError(f"agent {names[p]!r} (player {p}) changed the game it was given; search on game.copy()")
        try:
            move = game.parse_move(choice)
            game.play(move)
        except (TypeError, ValueError) as e:
            raise AgentMoveError(
                f"agent {names[p]!r} (player {p}) chose an illegal move {choice!s}: {e}", names[p], p, choice
            ) from None
        if on_move is not None:
            on_move(game, move, p)
    return GameRecord.from_game(game, agents=names, started=started, finished=utc_now())
