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
    def __init__(self, store: ClubStore, days: float = SESSION_DAYS) -> None:
        self.store, self.seconds = store, days * 86400.0

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

    def take(self, key: str, now: Optional[float] = None) -> None:
        """Spend one attempt of ``key``'s, or raise BusyError (429) saying when to try again."""
        now = time.monotonic() if now is None else now
        tokens, at = self.buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens < 1:
            wait = (1 - tokens) / self.rate
            raise BusyError(f"too many {self.what}: try again in {wait:.0f} s")
        self.buckets[key] = (tokens - 1, now)
        if len(self.buckets) > self.MAX_KEYS:
            self.buckets = {k: (t, a) for k, (t, a) in self.buckets.items()
                            if min(self.burst, t + (now - a) * self.rate) < self.burst}

    def give_back(self, key: str) -> None:
        """Return the attempt :meth:`take` spent for ``key`` (the attempt turned out not to count)."""
        if key in self.buckets:
            tokens, at = self.buckets[key]
            self.buckets[key] = (min(self.burst, tokens + 1), at)
