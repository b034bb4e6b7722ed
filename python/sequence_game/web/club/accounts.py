"""Accounts: a name and a password, hashed with argon2id (docs/club.md, docs/security.md).

- **Names** are 3 to 20 characters, ASCII letters, digits, ``_`` and ``-``, starting with a letter or
  digit; two names that differ only in case are the same account (``name_key``). Every account's
  name is public (the player list), so a sign-up that says "this name is taken" tells nothing the
  list does not.
- **Passwords** are 8 to 256 characters and are kept only as argon2id hashes with
  :data:`HASH_PARAMETERS` (RFC 9106's second recommended setting: 64 MiB, 3 passes, 4 lanes). A
  hash made with weaker parameters is replaced at the next login.
- **No enumeration**: a login with an unknown name verifies the password against a dummy hash made
  with the same parameters, so it costs the same time, and it gets the same answer as a wrong
  password. A disabled account says so only to someone who gave its right password.

>>> name_key("Alice_1")
'alice_1'
>>> check_name("<b>")
Traceback (most recent call last):
...
ValueError: name: 3 to 20 characters: letters A-Z, digits, '_' and '-', starting with a letter or digit (not '<b>')
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

from argon2 import PasswordHasher, Type
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from ...records import utc_now
from .store import ClubStore

__all__ = ["HASH_PARAMETERS", "Account", "Accounts", "LoginError", "NameTakenError", "check_name", "check_password",
           "hasher", "name_key", "taken"]

#: argon2id's parameters (RFC 9106, section 4, the second recommended option)
HASH_PARAMETERS: Dict[str, Any] = {"time_cost": 3, "memory_cost": 64 * 1024, "parallelism": 4, "hash_len": 32,
                                   "salt_len": 16, "type": Type.ID}

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{2,19}")
MIN_PASSWORD, MAX_PASSWORD = 8, 256
WRONG = "wrong name or password"


class LoginError(ValueError):
    """A login refused: the same message whether the name exists or not (``WRONG``)."""


class NameTakenError(ValueError):
    """A sign-up refused: another account has the name (names are compared without case)."""


def taken(name: str) -> str:
    return f"name: {name!r} is taken (names are compared without case); choose another"


def hasher(**overrides: Any) -> PasswordHasher:
    """The server's PasswordHasher (:data:`HASH_PARAMETERS`, each replaceable: tests use cheap ones)."""
    return PasswordHasher(**{**HASH_PARAMETERS, **overrides})


def check_name(name: object) -> str:
    if not isinstance(name, str) or not NAME.fullmatch(name):
        shown = repr(name[:40]) if isinstance(name, str) else f"a {type(name).__name__}"
        raise ValueError("name: 3 to 20 characters: letters A-Z, digits, '_' and '-', starting with a letter or "
                         f"digit (not {shown})")
    return name


def name_key(name: str) -> str:
    """The account a name stands for: names are compared without case."""
    return name.lower()


def check_password(password: object) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        size = f"{len(password)} characters" if isinstance(password, str) else f"a {type(password).__name__}"
        raise ValueError(f"password: {MIN_PASSWORD} to {MAX_PASSWORD} characters (not {size})")
    return password


@dataclass(frozen=True)
class Account:
    key: str
    name: str
    created: str
    disabled: bool
    mu: float
    sigma: float
    games: int


class Accounts:
    """The accounts in ``store``; ``ph`` hashes the passwords. Every method blocks (argon2 takes
    tens of milliseconds and 64 MiB): the server calls them in a worker thread, at most
    ``max_hashing`` at once."""

    COLUMNS = "key, name, created, disabled, mu, sigma, games"

    def __init__(self, store: ClubStore, ph: Optional[PasswordHasher] = None, initial: tuple[float, float] = (25.0, 25 / 3),
                 max_hashing: int = 2) -> None:
        self.store, self.ph, self.initial = store, ph or hasher(), initial
        self.hashing = threading.BoundedSemaphore(max_hashing)  # bounds the memory argon2 takes at once
        self._dummy: Optional[str] = None

    def _hash(self, password: str) -> str:
        with self.hashing:
            return self.ph.hash(password)

    def _verify(self, stored: str, password: str) -> bool:
        with self.hashing:
            try:
                return self.ph.verify(stored, password)
            except (VerificationError, VerifyMismatchError, InvalidHashError):
                return False

    @property
    def dummy(self) -> str:
        """A hash of no one's password, made with the same parameters: what an unknown name is checked against."""
        if self._dummy is None:
            self._dummy = self.ph.hash("not the password of any account")
        return self._dummy

    def get(self, key_or_name: str) -> Optional[Account]:
        row = self.store.one(f"SELECT {self.COLUMNS} FROM accounts WHERE key = ?", (name_key(key_or_name),))
        return None if row is None else Account(row[0], row[1], row[2], bool(row[3]), row[4], row[5], row[6])

    def disabled_among(self, keys: Iterable[str]) -> Set[str]:
        """Which of the account ``keys`` are disabled now (read from the file: the operator's
        command is another process)."""
        wanted = sorted(set(keys))
        out: Set[str] = set()
        for i in range(0, len(wanted), 500):  # within SQLite's bound on a statement's parameters
            chunk = wanted[i:i + 500]
            out.update(str(k) for (k,) in self.store.fetch(
                f"SELECT key FROM accounts WHERE disabled = 1 AND key IN ({','.join('?' * len(chunk))})", chunk))
        return out

    def create(self, name: str, password: str) -> Account:
        """A new account (``ValueError`` for a bad name or password, or a name taken)."""
        check_name(name)
        check_password(password)
        if self.get(name) is not None:
            raise NameTakenError(taken(name))
        hashed = self._hash(password)
        mu, sigma = self.initial
        n = self.store.write(("INSERT OR IGNORE INTO accounts (key, name, hash, created, disabled, mu, sigma, games) "
                              "VALUES (?, ?, ?, ?, 0, ?, ?, 0)", (name_key(name), name, hashed, utc_now(), mu, sigma)))
        if n != 1:
            raise NameTakenError(taken(name))
        account = self.get(name)
        assert account is not None
        return account

    def login(self, name: str, password: str) -> Account:
        """The account, if ``password`` is its password; else :class:`LoginError` with one message
        for an unknown name and a wrong password, after the same work."""
        if not isinstance(name, str) or not isinstance(password, str) or len(password) > MAX_PASSWORD:
            self._verify(self.dummy, "")
            raise LoginError(WRONG)
        row = self.store.one("SELECT hash FROM accounts WHERE key = ?", (name_key(name[:40]),))
        if row is None:
            self._verify(self.dummy, password)
            raise LoginError(WRONG)
        if not self._verify(row[0], password):
            raise LoginError(WRONG)
        account = self.get(name)
        assert account is not None
        if account.disabled:
            raise LoginError("this account is disabled by the server's operator")
        if self.ph.check_needs_rehash(row[0]):
            self.store.write(("UPDATE accounts SET hash = ? WHERE key = ?", (self._hash(password), account.key)))
        return account

    def set_disabled(self, name: str, disabled: bool) -> Account:
        """Disable (its sessions end) or enable an account; ``KeyError`` for an unknown name."""
        account = self._existing(name)
        statements: List[Tuple[str, Tuple[Any, ...]]] = [
            ("UPDATE accounts SET disabled = ? WHERE key = ?", (int(disabled), account.key))]
        if disabled:
            statements.append(("DELETE FROM sessions WHERE account = ?", (account.key,)))
        self.store.write(*statements)
        return self._existing(name)

    def reset_password(self, name: str, password: str) -> Account:
        """A new password (its sessions end); ``KeyError`` for an unknown name."""
        check_password(password)
        account = self._existing(name)
        self.store.write(("UPDATE accounts SET hash = ? WHERE key = ?", (self._hash(password), account.key)),
                         ("DELETE FROM sessions WHERE account = ?", (account.key,)))
        return account

    def change_password(self, key: str, old: str, new: str) -> Account:
        """The signed-in account ``key`` changes its password: ``old`` must be its password now
        (:class:`LoginError` if not, after the same work as a login), ``new`` an acceptable one
        (``ValueError``). Every session of the account ends (the caller starts this browser's anew)."""
        check_password(new)
        row = self.store.one("SELECT hash FROM accounts WHERE key = ?", (key,))
        if row is None or not isinstance(old, str) or len(old) > MAX_PASSWORD or not self._verify(row[0], old):
            raise LoginError("the old password is wrong")
        self.store.write(("UPDATE accounts SET hash = ? WHERE key = ?", (self._hash(new), key)),
                         ("DELETE FROM sessions WHERE account = ?", (key,)))
        return self._existing(key)

    def _existing(self, name: str) -> Account:
        account = self.get(name)
        if account is None:
            raise KeyError(f"no account named {name[:40]!r}")
        return account
