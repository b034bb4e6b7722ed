"""The club: optional accounts, ratings for team games and the player pages (docs/club.md).

:class:`Club` ties the parts together: ``accounts.py`` (names and argon2id passwords),
``sessions.py`` (the login cookie, the login and sign-up rate limits), ``ratings.py`` (openskill),
``store.py`` (their rows in the server's SQLite file) and :meth:`Club.game_over`, which the table
service calls once a game ends: it files the game on each account's page and, for a rated game,
changes the ratings in the same transaction.
"""

from __future__ import annotations

import asyncio
import functools
import math
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, TypeVar

from argon2 import PasswordHasher

from ...records import utc_text
from ..errors import ServerFullError
from ..limits import parse_settings
from ..tables import Table, time_control
from . import ratings
from .accounts import Account, Accounts, hasher
from .people import People
from .sessions import Bucket, Sessions
from .store import ClubStore

__all__ = ["Club", "ClubSettings"]

T = TypeVar("T")

#: Why a casual table's game changes no rating (the player page's ``why``).
CASUAL = "the table was created casual"
#: Why an aborted game changes no rating (tables/opening.py): a player aborted it, or one did not
#: make its first move within its grace
ABORTED = "the game was aborted before every player's first move"
NO_FIRST_MOVE = "the game was aborted: a player did not make a first move in time"


@dataclass(frozen=True)
class ClubSettings:
    """What the operator may change about accounts (``create_app(club=...)``; docs/security.md)."""

    #: login attempts (right or wrong) per client address: a burst, then a rate per hour
    login_burst: int = 10
    login_per_hour: float = 120.0
    #: login attempts per account name, from any address (a password guessed from a botnet)
    name_burst: int = 10
    name_per_hour: float = 10.0
    #: new accounts per client address
    signup_burst: int = 3
    signup_per_hour: float = 3.0
    #: argon2id's parameters, each replacing one of accounts.HASH_PARAMETERS (tests make them cheap)
    hash_overrides: tuple[tuple[str, int], ...] = ()
    #: passwords hashed at once (each takes accounts.HASH_PARAMETERS' 64 MiB), and logins and
    #: sign-ups waiting for their turn; beyond that a login or sign-up is refused (503)
    max_hashing: int = 2
    max_hash_queue: int = 32
    #: people to play with (people.py): follows, blocks, profile and challenge changes per account (a
    #: burst, then a rate per hour); follows and blocks one account keeps
    people_burst: int = 30
    people_per_hour: float = 600.0
    max_follows: int = 500
    max_blocks: int = 500
    #: open challenges: made by one account, and to one account; how long one stays open
    max_challenges_out: int = 5
    max_challenges_in: int = 20
    challenge_seconds: float = 600.0
    #: an account is online this long after a request carried its session cookie; accounts whose
    #: presence is kept in memory (past it, the ones not seen lately are forgotten)
    online_seconds: float = 300.0
    max_presence: int = 10_000

    #: what ``serve --limit NAME=VALUE`` may set (every field but the hash parameters)
    SETTABLE = ("login_burst", "login_per_hour", "name_burst", "name_per_hour", "signup_burst", "signup_per_hour",
                "max_hashing", "max_hash_queue", "people_burst", "people_per_hour", "max_follows", "max_blocks",
                "max_challenges_out", "max_challenges_in", "challenge_seconds", "online_seconds", "max_presence")

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "hash_overrides":
                continue
            if isinstance(f.default, int):
                if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                    raise ValueError(f"ClubSettings.{f.name} must be an integer of at least 1, not {value!r}")
            elif isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                    value > 0 and math.isfinite(value)):
                raise ValueError(f"ClubSettings.{f.name} must be a positive finite number, not {value!r}")

    def with_settings(self, settings: Sequence[str], also: Sequence[str] = ()) -> ClubSettings:
        """A copy with each ``"NAME=VALUE"`` of ``settings`` applied (``serve --limit``, NAME one of
        :attr:`SETTABLE`); ``ValueError`` in one line as ``ServerLimits.with_settings``."""
        changed: ClubSettings = parse_settings(self, settings, self.SETTABLE, also)
        return changed


#: How much less priority a password-hashing thread has than the server's (:func:`_hashing_thread`).
HASHING_NICENESS = 10


def _hashing_thread() -> None:
    """A password-hashing thread runs ``HASHING_NICENESS`` below the thread that started it (Linux,
    per thread). argon2id holds a core for about 0.2 s a hash (accounts.HASH_PARAMETERS): at the
    event loop's priority a burst of sign-ups or logins took both cores of a 2-vCPU machine while
    every move waited for one; ten below it, the loop and the games get a core first, and a login
    still gets about a tenth of a busy core (the analyses' SCHED_IDLE class could starve it).
    Elsewhere the thread keeps its priority."""
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, min(19, os.getpriority(os.PRIO_PROCESS, tid) + HASHING_NICENESS))
    except (AttributeError, OSError):
        pass


class Club:
    """Accounts, sessions and ratings over the SQLite file at ``path``."""

    def __init__(self, path: Any, settings: Optional[ClubSettings] = None,
                 tables: Callable[[], Iterable[Table]] = lambda: ()) -> None:
        self.settings = settings or ClubSettings()
        s = self.settings
        self.store = ClubStore(path)
        ph: PasswordHasher = hasher(**dict(s.hash_overrides))
        self.accounts = Accounts(self.store, ph, (ratings.MU0, ratings.SIGMA0), s.max_hashing)
        self.sessions = Sessions(self.store)
        self.login_by_address = Bucket(s.login_burst, s.login_per_hour, "logins from your address")
        self.login_by_name = Bucket(s.name_burst, s.name_per_hour, "logins to this account")
        self.signups = Bucket(s.signup_burst, s.signup_per_hour, "new accounts from your address")
        self.people = People(self.accounts, s, tables)  # presence reads the live ``tables``
        self.people_changes = Bucket(s.people_burst, s.people_per_hour, "changes to follows, blocks, profile and "
                                     "challenges from your account")
        # the turns at argon2 are taken on the event loop: a waiting login holds no worker thread
        self._hash_slots = asyncio.Semaphore(s.max_hashing)
        self._hash_waiting = 0
        self._hash_threads = ThreadPoolExecutor(s.max_hashing, "sequence-hash", initializer=_hashing_thread)

    async def hashing(self, call: Callable[..., T], *args: Any) -> T:
        """``call(*args)`` (a login or sign-up, which hashes a password) in a worker thread once one
        of ``max_hashing`` turns is free; ServerFullError (503) when ``max_hash_queue`` wait already."""
        if self._hash_waiting >= self.settings.max_hash_queue:
            raise ServerFullError("the server is checking too many passwords at once; try again in a moment")
        self._hash_waiting += 1
        try:
            async with self._hash_slots:
                return await asyncio.get_running_loop().run_in_executor(self._hash_threads,
                                                                        functools.partial(call, *args))
        finally:
            self._hash_waiting -= 1

    def close(self) -> None:
        self._hash_threads.shutdown(wait=True, cancel_futures=True)
        self.store.close()

    # ------------------------------------------------------------------ the end of a game

    def game_over(self, table: Table) -> None:
        """File the finished ``table`` on the page of each account that sat at it and, if it is
        rated (docs/club.md), change their ratings: one transaction. Blocks (call it in a thread)."""
        seated = [(p, s.account) for p, s in enumerate(table.seats) if s.account]
        result = table.record.result
        if not seated or not isinstance(result, dict):
            return
        if self.store.one("SELECT 1 FROM club_games WHERE table_id = ? LIMIT 1", (table.id,)):
            return  # filed already
        g = table.game
        teams, players = g.teams, g.players
        winner = result.get("winner")
        winner = winner if isinstance(winner, int) else None
        # each account's rating as the game began (before this game's change): the page's "opponent rating"
        before_game = self.ratings_of(str(a) for _, a in seated)
        seats = [{"seat": p, "team": p % teams, "name": s.name, "account": s.account, "ai": s.ai,
                  "rating": before_game.get(str(s.account), (None, None))[0] if s.account else None}
                 for p, s in enumerate(table.seats)]
        flagged = (table.options.clock_state or {}).get("flagged")
        aborted = table.record.aborted if table.record.ending == "aborted" else None
        # a loss on time (clock.py) is rated as the resignation it is recorded as; the page says "on time"
        how = ("aborted" if aborted is not None else "time" if flagged is not None and flagged == table.record.resigned
               else "resigned" if table.record.resigned is not None else "draw" if winner is None else "sequences")
        info = {"players": players, "teams": teams, "seats": seats, "winner": winner, "how": how,
                "turns": result.get("turns"), "resigned": table.record.resigned, "moves": len(table.movers),
                "time_control": time_control(table.options.to_dict()), "aborted": aborted}
        finished = table.record.finished or table.created
        reason = self._unrated_because(table)
        now = time.time()
        statements: List[Any] = []
        by_account: Dict[str, int] = {}
        for p, account in seated:
            by_account.setdefault(str(account), p)
        if reason is None:
            accounts = {key: self.accounts.get(key) for key in by_account}
            if any(a is None for a in accounts.values()):
                reason = "an account of the game no longer exists"
            elif any(a is not None and a.disabled for a in accounts.values()):
                # the operator disabled it (club/standing.py): its rating, and so the game's, stays
                reason = "an account of the game is disabled by the server's operator"
        rated = reason is None
        if rated:
            pairing = ",".join(sorted(by_account))
            (recent,) = self.store.one(
                "SELECT COUNT(DISTINCT table_id) FROM club_ratings WHERE pairing = ? AND counted = 1 AND at > ?",
                (pairing, now - ratings.SAME_ACCOUNTS_WINDOW)) or (0,)
            counted = recent < ratings.MAX_SAME_ACCOUNTS
            why = "" if counted else (f"these accounts already played {recent} rated games together in 24 hours "
                                      f"(at most {ratings.MAX_SAME_ACCOUNTS} count)")
            before = {key: (a.mu, a.sigma) for key, a in accounts.items() if a is not None}
            after = dict(before)
            if counted:
                team_lists = [[before[str(table.seats[p].account)] for p in range(t, players, teams)]
                              for t in range(teams)]
                new = ratings.rate(team_lists, winner)
                for t in range(teams):
                    for i, p in enumerate(range(t, players, teams)):
                        after[str(table.seats[p].account)] = new[t][i]
            for key in by_account:
                (mu0, s0), (mu1, s1) = before[key], after[key]
                statements.append(("INSERT OR IGNORE INTO club_ratings (table_id, account, mu_before, sigma_before, "
                                   "mu_after, sigma_after, counted, why, pairing, at) VALUES (?,?,?,?,?,?,?,?,?,?)",
                                   (table.id, key, mu0, s0, mu1, s1, int(counted), why, pairing, now)))
                if counted:
                    statements.append(("UPDATE accounts SET mu = ?, sigma = ?, games = games + 1 WHERE key = ?",
                                       (mu1, s1, key)))
        info["rated"] = bool(table.options.rated)  # the table's own setting, counted or not
        info["unrated"] = reason
        for key, p in by_account.items():
            team = p % teams
            # an aborted game is nobody's win, loss or draw (tables/opening.py)
            outcome = "aborted" if aborted is not None else "draw" if winner is None else "win" if winner == team else "loss"
            statements.append(("INSERT OR IGNORE INTO club_games (table_id, account, seat, team, outcome, info, rated, "
                               "finished) VALUES (?,?,?,?,?,?,?,?)",
                               (table.id, key, p, team, outcome, self.store.dumps(info), int(rated), finished)))
        self.store.write(*statements)

    @staticmethod
    def _unrated_because(table: Table) -> Optional[str]:
        """Why ``table``'s game changes no rating (None: it is rated). docs/club.md."""
        aborted = table.record.aborted if table.record.ending == "aborted" else None
        if aborted is not None:  # tables/opening.py: casual or rated, it counts for nobody
            return NO_FIRST_MOVE if aborted.get("why") == "no-first-move" else ABORTED
        if not table.options.rated:
            return CASUAL
        if any(s.kind != "human" or not s.account for s in table.seats):
            return "not every seat was an account"
        if len({s.account for s in table.seats}) != len(table.seats):
            return "an account held two seats"
        # a move the time control's AI made for a seat (its turn timer, or its clock at zero with
        # at_zero "ai": the record's timeouts) is not the seat's: a seat all of whose moves were
        # made for it never came to the game
        timeouts = set(table.record.timeouts)
        moved = {p for n, p in enumerate(table.movers, start=1) if n not in timeouts}
        if set(range(len(table.seats))) - moved:
            return "a seat never moved (an aborted game)"
        return None

    # ------------------------------------------------------------------ reading

    def rating_changes(self, table_id: str) -> List[Dict[str, Any]]:
        """The rating change of each account of a finished rated table (empty: none)."""
        rows = self.store.fetch(
            "SELECT a.name, r.mu_before, r.sigma_before, r.mu_after, r.sigma_after, r.counted, r.why "
            "FROM club_ratings r JOIN accounts a ON a.key = r.account WHERE r.table_id = ? ORDER BY a.key",
            (table_id,))
        return [{"name": name, "before": ratings.display(mu0), "after": ratings.display(mu1),
                 "change": ratings.display(mu1) - ratings.display(mu0), "provisional": ratings.provisional(s1),
                 "counted": bool(counted), "why": why or None}
                for name, mu0, s0, mu1, s1, counted, why in rows]

    def ratings_of(self, keys: Iterable[str]) -> Dict[str, Tuple[int, bool]]:
        """Each of these accounts' rating now: key -> (display rating, provisional). Blocks."""
        wanted = sorted(set(keys))
        out: Dict[str, Tuple[int, bool]] = {}
        for i in range(0, len(wanted), 500):  # within SQLite's bound on a statement's parameters
            chunk = wanted[i:i + 500]
            for key, mu, sigma in self.store.fetch(
                    f"SELECT key, mu, sigma FROM accounts WHERE key IN ({','.join('?' * len(chunk))})", chunk):
                out[str(key)] = (ratings.display(mu), ratings.provisional(sigma))
        return out

    def language(self, account: Account) -> Optional[str]:
        """The pages' language ``account`` chose (None: never chose one). Blocks."""
        row = self.store.one("SELECT language FROM account_languages WHERE account = ?", (account.key,))
        return None if row is None else str(row[0])

    def set_language(self, account: Account, language: str) -> None:
        """Keep ``language`` (a code of :data:`sequence_game.i18n.LANGUAGES`) as ``account``'s. Blocks."""
        self.store.write(("INSERT INTO account_languages (account, language) VALUES (?, ?) "
                          "ON CONFLICT(account) DO UPDATE SET language = excluded.language", (account.key, language)))

    @staticmethod
    def summary(account: Account) -> Dict[str, Any]:
        return {"name": account.name, "rating": ratings.display(account.mu),
                "provisional": ratings.provisional(account.sigma), "rated_games": account.games,
                "disabled": account.disabled}

    def players(self, limit: int, offset: int) -> List[Dict[str, Any]]:
        rows = self.store.fetch(f"SELECT {Accounts.COLUMNS} FROM accounts WHERE disabled = 0 "
                                "ORDER BY mu - 3 * sigma DESC, key LIMIT ? OFFSET ?", (limit, offset))
        return [self.summary(Account(r[0], r[1], r[2], bool(r[3]), r[4], r[5], r[6])) for r in rows]

    def player(self, account: Account, limit: int = 200) -> Dict[str, Any]:
        """Everything the player page shows about ``account``."""
        from ..presets import preset_list

        history = [{"table": t, "at": utc_text(at), "rating": ratings.display(mu1), "change": ratings.display(mu1)
                    - ratings.display(mu0), "provisional": ratings.provisional(s1)}
                   for t, at, mu0, mu1, s1 in self.store.fetch(
                       "SELECT table_id, at, mu_before, mu_after, sigma_after FROM club_ratings "
                       "WHERE account = ? AND counted = 1 ORDER BY at, table_id", (account.key,))]
        changes = {t: (ratings.display(mu1) - ratings.display(mu0), bool(c), why)
                   for t, mu0, mu1, c, why in self.store.fetch(
                       "SELECT table_id, mu_before, mu_after, counted, why FROM club_ratings WHERE account = ?",
                       (account.key,))}
        games: List[Dict[str, Any]] = []
        vs_ai: Dict[str, Dict[str, Any]] = {}
        # a level is one row whatever name the seat asked for it by (level:8, hard, max)
        presets = {_ai_key(p["name"]): p for p in preset_list()}
        for t, seat, team, outcome, info_text, rated, finished in self.store.fetch(
                "SELECT table_id, seat, team, outcome, info, rated, finished FROM club_games WHERE account = ? "
                "ORDER BY finished DESC, table_id LIMIT ?", (account.key, limit)):
            info = _loads(info_text)
            change = changes.get(t)
            counted = bool(change and change[1])
            unrated = info.get("unrated") if isinstance(info.get("unrated"), str) else None
            why = None if counted else unrated or (change[2] if change and change[2] else "not rated")
            # the table's own setting; a game filed before it was kept: rated unless its table was casual
            table_rated = info["rated"] if isinstance(info.get("rated"), bool) else (
                bool(rated) or (unrated is not None and unrated != CASUAL))
            games.append({"table": t, "finished": finished, "seat": seat, "team": team, "outcome": outcome,
                          "rated": table_rated, "counted": counted, "why": why,
                          "change": change[0] if counted and change else None,
                          "players": info.get("players"), "teams": info.get("teams"), "how": info.get("how"),
                          "moves": info.get("moves"), "time_control": info.get("time_control"),
                          "seats": [{k: s.get(k) for k in ("seat", "team", "name", "account", "ai", "rating")}
                                    for s in info.get("seats", []) if isinstance(s, dict)],
                          "replay": f"/replay/{t}", "review": f"/review/{t}"})
            against = {s.get("ai") for s in info.get("seats", []) if isinstance(s, dict) and s.get("team") != team}
            if outcome == "aborted":
                continue  # nobody played it out: not in the record against the computer
            for ai in sorted({_ai_key(a) for a in against if isinstance(a, str)}):  # each AI level once per game
                line = vs_ai.setdefault(ai, {"ai": ai, "wins": 0, "losses": 0, "draws": 0})
                line[{"win": "wins", "loss": "losses"}.get(outcome, "draws")] += 1
        record = sorted(vs_ai.values(), key=lambda r: (presets.get(r["ai"], {}).get("rating") or 0, r["ai"]))
        for line in record:
            line["level"] = presets.get(line["ai"], {}).get("level")
            line["rating"] = presets.get(line["ai"], {}).get("rating")
        return {**self.summary(account), "created": account.created, "history": history, "games": games,
                "vs_ai": record,
                "ai_levels": [{"name": p["name"], "level": p["level"], "rating": p["rating"]} for p in preset_list()
                              if p["rating"] is not None]}


def _ai_key(ai: str) -> str:
    """The player page's name of an AI seat: ``level:N`` for a level under any of its names
    (``hard`` and ``max`` are ``level:8``), the name itself for the others (``rules``, ``random``)."""
    from ...agents.levels import level_of
    from ...agents.presets import ALIASES

    try:
        return level_of(ALIASES.get(ai, ai)).name
    except ValueError:
        return ai


def _loads(text: str) -> Dict[str, Any]:
    import json

    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}
