"""People to play with: follows, presence, blocks, profiles, the leaderboard and challenges
(docs/club.md, "People to play with").

Everything but presence lives in the club's SQLite rows (``store.py``): a restart loses no follow,
block, profile or challenge. Every method that reads or writes them blocks (the routes call them in
a worker thread).

- **Follows** are one-way and public to their owner only: an account follows at most
  ``ClubSettings.max_follows`` others. Following shows who of them is online and at which table
  they play.
- **Presence** is in memory: an account is *online* when a request carried its session cookie in
  the last ``ClubSettings.online_seconds``, or one of its seats at a live table is connected; it is
  *playing* at each live unfinished table where it holds a seat. Anyone may watch a game, so the
  tables are public (a spectator sees what every spectator sees, R9).
- **Blocks**: an account blocks at most ``max_blocks`` others. A blocked account cannot challenge
  the blocker (nor the blocker it), their open challenges to each other close, and the blocker's
  pages never receive its chat messages (``tables/chat.py``). The blocked account is not told.
- **Profiles**: an optional bio (at most :data:`MAX_BIO` characters) and country (at most
  :data:`MAX_COUNTRY`), plain text: control and format characters are refused, the pages set them
  as text, never as HTML.
- **Challenges**: an account challenges another to a game (players, teams, time control, rated or
  not); the target accepts (the table is made then: the maker at seat 0, the target at seat 1,
  opponents by R2, further seats open) or declines; the maker may withdraw it; it expires after
  ``challenge_seconds``. At most ``max_challenges_out`` open from one account, one open from an
  account to the same target, and ``max_challenges_in`` open to one target. A rated challenge makes
  a rated table only when accepted: until then nothing is created.
"""

from __future__ import annotations

import json
import secrets
import time
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Set, Tuple

from ..errors import BusyError, InvalidRequestError, NoSuchPlayerError, NotAllowedError, NotFoundError, NotNowError
from . import ratings
from .accounts import Account, Accounts

__all__ = ["MAX_BIO", "MAX_COUNTRY", "Challenge", "NoSuchChallengeError", "People", "check_profile_text"]

MAX_BIO = 300  #: characters of a profile's bio
MAX_COUNTRY = 40  #: characters of a profile's country
KEEP_CLOSED = 3600.0  #: seconds a closed challenge still answers its maker and its target


class NoSuchChallengeError(NotFoundError):
    """No challenge of this id that the signed-in account made or received."""


def check_profile_text(field: str, text: str, limit: int) -> str:
    """``text`` trimmed, or ValueError naming ``field``: at most ``limit`` characters, no control or
    format character (a bio may hold line breaks).

    >>> check_profile_text("country", "  Chile ", 40)
    'Chile'
    """
    for i, c in enumerate(text):
        if unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") and not (field == "bio" and c == "\n"):
            raise InvalidRequestError(f"{field}: control and format characters are not allowed "
                                      f"(U+{ord(c):04X} at {i + 1})")
    out = text.strip()
    if len(out) > limit:
        raise InvalidRequestError(f"{field}: at most {limit} characters, not {len(out)}")
    return out


@dataclass(frozen=True)
class Challenge:
    """One challenge, as its row holds it. ``status``: open, accepted, declined, withdrawn, expired."""

    id: str
    maker: str  # accounts.key
    maker_name: str
    target: str
    target_name: str
    players: int
    teams: int
    rated: bool
    turn_seconds: Optional[float]
    clock: Optional[Dict[str, Any]]
    created: float  # seconds since the epoch
    expires: float
    status: str
    table: Optional[str]
    maker_token: Optional[str]  # the maker's seat token once accepted (for the maker only)

    def public(self, now: float, viewer: str) -> Dict[str, Any]:
        """As the maker or the target reads it (the maker's token to the maker only)."""
        return {"id": self.id, "maker": self.maker_name, "target": self.target_name, "players": self.players,
                "teams": self.teams, "rated": self.rated, "turn_seconds": self.turn_seconds, "clock": self.clock,
                "status": self.status, "table": self.table,
                "expires_in": round(max(0.0, self.expires - now), 1) if self.status == "open" else 0.0,
                "yours": viewer == self.maker}


_CHALLENGE_COLUMNS = ("c.id, c.maker, m.name, c.target, t.name, c.players, c.teams, c.rated, c.turn_seconds, c.clock, "
                      "c.created, c.expires, c.status, c.table_id, c.maker_token")
_CHALLENGE_FROM = "challenges c JOIN accounts m ON m.key = c.maker JOIN accounts t ON t.key = c.target"


def _challenge(row: Tuple[Any, ...]) -> Challenge:
    clock = None if row[9] is None else json.loads(row[9])
    return Challenge(str(row[0]), str(row[1]), str(row[2]), str(row[3]), str(row[4]), int(row[5]), int(row[6]),
                     bool(row[7]), None if row[8] is None else float(row[8]), clock if isinstance(clock, dict) else None,
                     float(row[10]), float(row[11]), str(row[12]), row[13], row[14])


class People:
    """Follows, blocks, profiles, challenges and presence of the club's accounts. ``settings``: a
    :class:`~sequence_game.web.club.ClubSettings`; ``tables``: the live tables (for presence)."""

    def __init__(self, accounts: Accounts, settings: Any, tables: Callable[[], Iterable[Any]] = lambda: ()) -> None:
        self.accounts, self.store, self.settings = accounts, accounts.store, settings
        self.tables = tables
        self.seen: Dict[str, float] = {}  # account key -> when a request last carried its cookie (monotonic)
        # who each account blocked, in memory too: the chat checks it for every message it sends
        self.blocked: Dict[str, Set[str]] = {}
        for blocker, blocked in self.store.fetch("SELECT blocker, blocked FROM blocks"):
            self.blocked.setdefault(str(blocker), set()).add(str(blocked))

    # ------------------------------------------------------------------ helpers

    def _other(self, me: Account, name: str) -> Account:
        """The account named ``name`` (not disabled, not ``me``); 404 / 403 otherwise."""
        other = self.accounts.get(name[:40])
        if other is None or other.disabled:
            raise NoSuchPlayerError(f"no player named {name[:40]!r}")
        if other.key == me.key:
            raise InvalidRequestError("that is your own account")
        return other

    # ------------------------------------------------------------------ presence

    def saw(self, key: str, now: Optional[float] = None) -> None:
        """A request carried ``key``'s session cookie."""
        now = time.monotonic() if now is None else now
        self.seen[key] = now
        limit = self.settings.max_presence
        if len(self.seen) > limit:  # bounded: the ones not seen lately go, then the longest unseen
            cut = now - self.settings.online_seconds
            kept = sorted(((t, k) for k, t in self.seen.items() if t >= cut), reverse=True)[:limit // 2 or 1]
            self.seen = {k: t for t, k in kept}

    def presence(self, keys: Iterable[str], now: Optional[float] = None) -> Dict[str, Dict[str, Any]]:
        """For each account of ``keys``: ``online`` and ``playing`` (the live unfinished tables where
        it holds a seat: id, players, turn)."""
        now = time.monotonic() if now is None else now
        wanted = set(keys)
        out: Dict[str, Dict[str, Any]] = {
            k: {"online": now - self.seen.get(k, -1e18) <= self.settings.online_seconds, "playing": []} for k in wanted}
        for table in list(self.tables()):
            if table.over:
                continue
            for p, seat in enumerate(table.seats):
                if isinstance(seat.account, str) and seat.account in wanted:
                    entry = out[seat.account]
                    if table.present.get(p):
                        entry["online"] = True
                    if all(t["table"] != table.id for t in entry["playing"]):
                        entry["playing"].append({"table": table.id, "players": [s.name for s in table.seats],
                                                 "rated": bool(table.options.rated)})
        return out

    # ------------------------------------------------------------------ follows

    def follow(self, me: Account, name: str) -> Account:
        other = self._other(me, name)
        (count,) = self.store.one("SELECT COUNT(*) FROM follows WHERE follower = ?", (me.key,)) or (0,)
        if count >= self.settings.max_follows and not self.follows(me, other):
            raise BusyError(f"you follow {count} players, the most one account may: unfollow one first")
        self.store.write(("INSERT OR IGNORE INTO follows (follower, followed, at) VALUES (?, ?, ?)",
                          (me.key, other.key, time.time())))
        return other

    def unfollow(self, me: Account, name: str) -> None:
        other = self._other(me, name)
        self.store.write(("DELETE FROM follows WHERE follower = ? AND followed = ?", (me.key, other.key)))

    def follows(self, me: Account, other: Account) -> bool:
        return self.store.one("SELECT 1 FROM follows WHERE follower = ? AND followed = ?", (me.key, other.key)) is not None

    def relation(self, viewer: Optional[Account], key: str) -> Optional[Dict[str, bool]]:
        """Whether ``viewer`` follows and blocks account ``key`` (None: a guest, or ``key`` itself)."""
        if viewer is None or viewer.key == key:
            return None
        return {"following": self.store.one("SELECT 1 FROM follows WHERE follower = ? AND followed = ?",
                                            (viewer.key, key)) is not None,
                "blocked": self.blocks(viewer.key, key)}

    def about(self, key: str, viewer: Optional[Account]) -> Dict[str, Any]:
        """What a player page shows of the account ``key`` beyond the club's record: its profile,
        its presence, and ``viewer``'s follow and block of it (null for a guest and on one's own
        page). Blocks (the database)."""
        return {"profile": self.profile(key), "presence": self.presence([key])[key],
                "relation": self.relation(viewer, key)}

    def following(self, me: Account) -> List[Dict[str, Any]]:
        """The accounts ``me`` follows (not disabled), with rating and presence; online ones first."""
        rows = self.store.fetch(f"SELECT {', '.join('a.' + c.strip() for c in Accounts.COLUMNS.split(','))} "
                                "FROM follows f JOIN accounts a ON a.key = f.followed "
                                "WHERE f.follower = ? AND a.disabled = 0 ORDER BY a.key", (me.key,))
        accounts = [Account(r[0], r[1], r[2], bool(r[3]), r[4], r[5], r[6]) for r in rows]
        seen = self.presence(a.key for a in accounts)
        out = [{"name": a.name, "rating": ratings.display(a.mu), "provisional": ratings.provisional(a.sigma),
                **seen[a.key]} for a in accounts]
        return sorted(out, key=lambda x: (not x["playing"], not x["online"], x["name"].lower()))

    # ------------------------------------------------------------------ blocks

    def block(self, me: Account, name: str) -> Account:
        """Block ``name``: its open challenges with ``me`` (either way) close, as withdrawn or declined."""
        other = self._other(me, name)
        mine = self.blocked.get(me.key, set())
        if len(mine) >= self.settings.max_blocks and other.key not in mine:
            raise BusyError(f"you block {len(mine)} players, the most one account may: unblock one first")
        now = time.time()
        self.store.write(("INSERT OR IGNORE INTO blocks (blocker, blocked, at) VALUES (?, ?, ?)", (me.key, other.key, now)),
                         ("UPDATE challenges SET status = 'declined', closed = ? WHERE status = 'open' AND maker = ? "
                          "AND target = ?", (now, other.key, me.key)),
                         ("UPDATE challenges SET status = 'withdrawn', closed = ? WHERE status = 'open' AND maker = ? "
                          "AND target = ?", (now, me.key, other.key)))
        self.blocked.setdefault(me.key, set()).add(other.key)
        return other

    def unblock(self, me: Account, name: str) -> None:
        other = self._other(me, name)
        self.store.write(("DELETE FROM blocks WHERE blocker = ? AND blocked = ?", (me.key, other.key)))
        self.blocked.get(me.key, set()).discard(other.key)

    def blocks(self, blocker: Optional[str], blocked: Optional[str]) -> bool:
        """Whether account ``blocker`` blocked account ``blocked`` (either None: no)."""
        return blocker is not None and blocked is not None and blocked in self.blocked.get(blocker, ())

    def blocked_names(self, me: Account) -> List[str]:
        return [str(n) for (n,) in self.store.fetch(
            "SELECT a.name FROM blocks b JOIN accounts a ON a.key = b.blocked WHERE b.blocker = ? ORDER BY a.key",
            (me.key,))]

    # ------------------------------------------------------------------ profiles

    def profile(self, key: str) -> Dict[str, str]:
        row = self.store.one("SELECT bio, country FROM profiles WHERE account = ?", (key,))
        return {"bio": "", "country": ""} if row is None else {"bio": str(row[0]), "country": str(row[1])}

    def set_profile(self, me: Account, bio: str, country: str) -> Dict[str, str]:
        bio = check_profile_text("bio", bio, MAX_BIO)
        country = check_profile_text("country", country, MAX_COUNTRY)
        self.store.write(("INSERT INTO profiles (account, bio, country) VALUES (?, ?, ?) ON CONFLICT(account) DO "
                          "UPDATE SET bio = excluded.bio, country = excluded.country", (me.key, bio, country)))
        return {"bio": bio, "country": country}

    # ------------------------------------------------------------------ the leaderboard

    def leaderboard(self, limit: int) -> Dict[str, List[Dict[str, Any]]]:
        """The ``limit`` highest settled ratings, and apart from them the ``limit`` highest
        provisional ones (ratings.PROVISIONAL_SIGMA); accounts that never played a rated game are
        not on it."""
        cols = Accounts.COLUMNS
        out: Dict[str, List[Dict[str, Any]]] = {}
        for part, where in (("settled", "sigma <= ?"), ("provisional", "sigma > ?")):
            rows = self.store.fetch(f"SELECT {cols} FROM accounts WHERE disabled = 0 AND games > 0 AND {where} "
                                    "ORDER BY mu DESC, key LIMIT ?", (ratings.PROVISIONAL_SIGMA, limit))
            out[part] = [{"rank": i + 1, "name": r[1], "rating": ratings.display(r[4]),
                          "provisional": ratings.provisional(r[5]), "rated_games": r[6]} for i, r in enumerate(rows)]
        return out

    # ------------------------------------------------------------------ challenges

    def _expire(self, now: float) -> None:
        """Close the open challenges past their time and forget the closed ones past
        :data:`KEEP_CLOSED`; a read first, so that most questions write nothing."""
        if not self.store.one("SELECT 1 FROM challenges WHERE (status = 'open' AND expires <= ?) OR (status NOT IN "
                              "('open', 'accepting') AND closed < ?) LIMIT 1", (now, now - KEEP_CLOSED)):
            return
        self.store.write(("UPDATE challenges SET status = 'expired', closed = expires WHERE status = 'open' AND "
                          "expires <= ?", (now,)),
                         ("DELETE FROM challenges WHERE status NOT IN ('open', 'accepting') AND closed < ?",
                          (now - KEEP_CLOSED,)))

    def challenge(self, me: Account, name: str, game: Dict[str, Any], now: Optional[float] = None) -> Challenge:
        """A new open challenge from ``me`` to ``name`` for ``game`` (players, teams, rated,
        turn_seconds, clock: checked by the caller like a seek's)."""
        now = time.time() if now is None else now
        target = self._other(me, name)
        if self.blocks(target.key, me.key):
            raise NotAllowedError(f"{target.name} does not take challenges from you")
        if self.blocks(me.key, target.key):
            raise NotAllowedError(f"you blocked {target.name}: unblock them to challenge them")
        self._expire(now)
        s = self.settings
        (out,) = self.store.one("SELECT COUNT(*) FROM challenges WHERE status = 'open' AND maker = ?", (me.key,)) or (0,)
        if out >= s.max_challenges_out:
            raise BusyError(f"you have {out} open challenges, the most one account may: withdraw one or wait for an "
                            "answer")
        if self.store.one("SELECT 1 FROM challenges WHERE status = 'open' AND maker = ? AND target = ?",
                          (me.key, target.key)):
            raise NotNowError(f"you already have an open challenge to {target.name}: withdraw it first")
        (into,) = self.store.one("SELECT COUNT(*) FROM challenges WHERE status = 'open' AND target = ?",
                                 (target.key,)) or (0,)
        if into >= s.max_challenges_in:
            raise BusyError(f"{target.name} has {into} open challenges already: try again later")
        cid = secrets.token_urlsafe(9)
        clock = None if game.get("clock") is None else json.dumps(game["clock"], sort_keys=True)
        self.store.write(("INSERT INTO challenges (id, maker, target, players, teams, rated, turn_seconds, clock, "
                          "created, expires, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open')",
                          (cid, me.key, target.key, game["players"], game["teams"], int(bool(game["rated"])),
                           game.get("turn_seconds"), clock, now, now + s.challenge_seconds)))
        return self.get(me, cid, now)

    def get(self, me: Account, cid: str, now: Optional[float] = None) -> Challenge:
        """The challenge ``cid`` that ``me`` made or received (404 for any other)."""
        now = time.time() if now is None else now
        self._expire(now)
        row = self.store.one(f"SELECT {_CHALLENGE_COLUMNS} FROM {_CHALLENGE_FROM} WHERE c.id = ? AND "
                             "(c.maker = ? OR c.target = ?)", (cid[:64], me.key, me.key))
        if row is None:
            raise NoSuchChallengeError(f"no challenge {cid[:64]!r} of yours (a closed one is kept for "
                                       f"{KEEP_CLOSED / 3600:g} h)")
        return _challenge(row)

    def challenges(self, me: Account, now: Optional[float] = None) -> Dict[str, List[Challenge]]:
        """``me``'s challenges: ``incoming`` (open ones to ``me``, from accounts it did not block)
        and ``outgoing`` (its own, open or closed lately); newest first."""
        now = time.time() if now is None else now
        self._expire(now)
        rows = [_challenge(r) for r in self.store.fetch(
            f"SELECT {_CHALLENGE_COLUMNS} FROM {_CHALLENGE_FROM} WHERE c.maker = ? OR (c.target = ? AND "
            "c.status = 'open') ORDER BY c.created DESC, c.id LIMIT 200", (me.key, me.key))]
        return {"incoming": [c for c in rows if c.target == me.key and not self.blocks(me.key, c.maker)],
                "outgoing": [c for c in rows if c.maker == me.key]}

    def close(self, me: Account, cid: str, status: str, now: Optional[float] = None) -> Challenge:
        """Decline (the target) or withdraw (the maker) an open challenge; 409 when it is not open."""
        now = time.time() if now is None else now
        c = self.get(me, cid, now)
        if status == "withdrawn" and c.maker != me.key:
            raise NotAllowedError("only the player who made a challenge withdraws it (decline it instead)")
        if status == "declined" and c.target != me.key:
            raise NotAllowedError("only the challenged player declines a challenge (withdraw yours instead)")
        n = self.store.write(("UPDATE challenges SET status = ?, closed = ? WHERE id = ? AND status = 'open'",
                              (status, now, c.id)))
        if n != 1:
            raise NotNowError(f"this challenge is {c.status}: it can no longer be {status}")
        return self.get(me, cid, now)

    def take(self, me: Account, cid: str, now: Optional[float] = None) -> Challenge:
        """Begin ``me``'s acceptance of challenge ``cid`` (marked ``accepting``: taken once); 409
        when it is not open, 403 when it is not to ``me`` or its maker is blocked or disabled."""
        now = time.time() if now is None else now
        c = self.get(me, cid, now)
        if c.target != me.key:
            raise NotAllowedError("only the challenged player accepts a challenge")
        maker = self.accounts.get(c.maker)
        if maker is None or maker.disabled:
            self.store.write(("UPDATE challenges SET status = 'withdrawn', closed = ? WHERE id = ?", (now, c.id)))
            raise NotNowError("the player who made this challenge can no longer play (the account is disabled)")
        if self.blocks(me.key, c.maker):
            raise NotAllowedError(f"you blocked {c.maker_name}: unblock them to play them")
        n = self.store.write(("UPDATE challenges SET status = 'accepting' WHERE id = ? AND status = 'open' AND "
                              "expires > ?", (c.id, now)))
        if n != 1:
            raise NotNowError(f"this challenge is {c.status}: it can no longer be accepted")
        return c

    def made(self, c: Challenge, table: str, maker_token: str, now: Optional[float] = None) -> None:
        """The table of an accepted challenge exists: the maker's page finds its seat."""
        now = time.time() if now is None else now
        self.store.write(("UPDATE challenges SET status = 'accepted', closed = ?, table_id = ?, maker_token = ? "
                          "WHERE id = ?", (now, table, maker_token, c.id)))

    def reopen(self, c: Challenge) -> None:
        """The table of an acceptance could not be made: the challenge is open again."""
        self.store.write(("UPDATE challenges SET status = 'open' WHERE id = ? AND status = 'accepting'", (c.id,)))

    def recover(self) -> int:
        """After a restart: an acceptance the server stopped in the middle of is open again (its
        table was not made, or made without anyone told of it). Returns how many."""
        return self.store.write(("UPDATE challenges SET status = 'open' WHERE status = 'accepting'", ()))
