"""Sessions (the login cookie) and the rate limits of login and sign-up (docs/security.md).

A session id is 256 random bits in an HttpOnly, SameSite=Lax cookie (Secure when the page was
served over HTTPS); the database keeps only its SHA-256. Logging in always makes a new session id
and ends the one the browser had (no session fixation); logging out ends it.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Dict, Optional, Tuple

from ..errors import BusyError
from .store import ClubStore

__all__ = ["COOKIE", "Bucket", "Sessions"]

COOKIE = "sg_session"
SESSION_DAYS = 30


def _hash(sid: str) -> str:
    return hashlib.sha256(sid.encode("utf-8", "surrogatepass")).hexdigest()


class Sessions:
    #: seconds the early refusal of a session's people changes trusts what a route last found of it
    SPENT_SECONDS = 1.0
    #: sessions remembered at most (then forgotten all at once: they are only a shortcut)
    MAX_SPENT = 10_000

    def __init__(self, store: ClubStore, days: float = SESSION_DAYS) -> None:
        self.store, self.seconds = store, days * 86400.0
        # session id -> (its account's key, when a route found that account out of its people
        # changes): the gate refuses the session's next changes before routing (web/gate.py)
        self.spent: Dict[str, Tuple[str, float]] = {}

    def spent_account(self, sid: Optional[str], now: Optional[float] = None) -> Optional[str]:
        """The account of session ``sid`` if a route found it out of its people changes in the last
        :attr:`SPENT_SECONDS` (and the session has not ended here since), else None."""
        entry = self.spent.get(sid) if sid else None
        now = time.monotonic() if now is None else now
        return entry[0] if entry is not None and now - entry[1] <= self.SPENT_SECONDS else None

    def found_spent(self, sid: Optional[str], account: str, now: Optional[float] = None) -> None:
        """A route refused a people change of session ``sid`` (of ``account``): out of changes."""
        if not sid or len(sid) > 200:
            return
        if len(self.spent) >= self.MAX_SPENT:
            self.spent.clear()
        self.spent[sid] = (account, time.monotonic() if now is None else now)

    def start(self, account: str, old: Optional[str] = None) -> str:
        """A new session of ``account``; the browser's ``old`` session (if any) ends: the id an
        attacker may have planted before the login is never the one signed in."""
        sid = secrets.token_urlsafe(32)
        now = time.time()
        statements = [("DELETE FROM sessions WHERE expires < ?", (now,)),
                      ("INSERT INTO sessions (hash, account, created, expires) VALUES (?, ?, ?, ?)",
                       (_hash(sid), account, now, now + self.seconds))]
        if old:
            statements.insert(0, ("DELETE FROM sessions WHERE hash = ?", (_hash(old[:200]),)))
        self.store.write(*statements)
        return sid

    def account_of(self, sid: Optional[str]) -> Optional[str]:
        """The account key a live session id belongs to (None: no session, expired, or disabled)."""
        if not sid or len(sid) > 200:
            return None
        row = self.store.one("SELECT s.account FROM sessions s JOIN accounts a ON a.key = s.account "
                             "WHERE s.hash = ? AND s.expires > ? AND a.disabled = 0", (_hash(sid), time.time()))
        return None if row is None else str(row[0])

    def end(self, sid: Optional[str]) -> None:
        if sid:
            self.spent.pop(sid, None)
        if sid and len(sid) <= 200:
            self.store.write(("DELETE FROM sessions WHERE hash = ?", (_hash(sid),)))


class Bucket:
    """Attempts per key (a client address, an account name): a token bucket of ``burst`` that
    refills at ``per_hour``. Memory stays bounded: past ``MAX_KEYS`` keys, the full buckets are
    forgotten."""

    MAX_KEYS = 10_000

    def __init__(self, burst: int, per_hour: float, what: str) -> None:
        self.burst, self.rate, self.what = float(burst), per_hour / 3600.0, what
        self.buckets: Dict[str, Tuple[float, float]] = {}

    def refusal(self, key: str, now: Optional[float] = None) -> Optional[BusyError]:
        """The BusyError (429) :meth:`take` would raise for ``key`` now, or None; spends nothing."""
        now = time.monotonic() if now is None else now
        tokens, at = self.buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens < 1:
            wait = (1 - tokens) / self.rate
            return BusyError(f"too many {self.what}: try again in {wait:.0f} s")
        return None

    def take(self, key: str, now: Optional[float] = None) -> None:
        """Spend one attempt of ``key``'s, or raise BusyError (429) saying when to try again."""
        now = time.monotonic() if now is None else now
        refused = self.refusal(key, now)
        if refused is not None:
            raise refused
        tokens, at = self.buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        self.buckets[key] = (tokens - 1, now)
        if len(self.buckets) > self.MAX_KEYS:
            self.buckets = {k: (t, a) for k, (t, a) in self.buckets.items()
                            if min(self.burst, t + (now - a) * self.rate) < self.burst}

    def give_back(self, key: str) -> None:
        """Return the attempt :meth:`take` spent for ``key`` (the attempt turned out not to count)."""
        if key in self.buckets:
            tokens, at = self.buckets[key]
            self.buckets[key] = (min(self.burst, tokens + 1), at)
