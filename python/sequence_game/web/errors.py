"""What the server refuses, as domain errors: the table service raises them, and one place
(:mod:`~sequence_game.web.http`) turns each class into an HTTP status and a websocket close code.

Every one is a ``ValueError`` whose message says what was wrong and what would be right, like the
Python API's own errors; the engine's ``IllegalMoveError`` and ``InvalidMoveError`` pass through
unchanged.
"""

from __future__ import annotations

__all__ = [
    "AccountsOffError",
    "BadMessageError",
    "BusyError",
    "InvalidRequestError",
    "NeedsSeatError",
    "NoSuchPlayerError",
    "NoSuchSeekError",
    "NoSuchTableError",
    "NotAllowedError",
    "NotFoundError",
    "NotNowError",
    "NotSavedError",
    "ServerFullError",
    "TableError",
    "TableExpiredError",
    "TooLargeError",
    "TooSlowError",
    "UnsupportedError",
]


class TableError(ValueError):
    """A request the server refuses (the base of every refusal below)."""


class NotFoundError(TableError):
    """Nothing the request names is here (404); each kind of thing has its own class below."""


class NoSuchTableError(NotFoundError):
    """No table has this id (or the id cannot be one)."""


class NoSuchSeekError(NotFoundError):
    """No seek has this id (it never existed, or closed a while ago)."""


class NoSuchPlayerError(NotFoundError):
    """No account that is not disabled has this name."""


class AccountsOffError(NotFoundError):
    """The operator switched accounts off (``serve --no-accounts``): the account routes are not here."""


class NeedsSeatError(TableError):
    """The request acts for a seat and carries no seat token."""


class NotAllowedError(TableError):
    """The token is not valid for this table, or the seat may not do this (a spectator moving)."""


class NotNowError(TableError):
    """Well-formed, but not in this state of the table: not your turn, a stale version, the game over."""


class InvalidRequestError(TableError):
    """A field out of its bounds or inconsistent with the others (players and seats, a bad preset)."""


class TableExpiredError(TableError):
    """The table expired unfinished (nobody played it for too long); it is no longer served."""


class BadMessageError(TableError):
    """A websocket message outside the protocol (binary, no hello first, a second hello)."""


class TooLargeError(TableError):
    """A request body or websocket message over its size limit."""


class TooSlowError(TableError):
    """A websocket that did not say hello in time."""


class BusyError(TableError):
    """Too many requests from this client or seat now: a rate limit, a cap, one analysis at a time."""


class ServerFullError(TableError):
    """The server runs as many tables or sockets as it may; try again later."""


class UnsupportedError(TableError):
    """This build cannot do it (an analysis without the compiled core)."""


class NotSavedError(TableError):
    """The database did not store a change (a full disk, say): nothing changed, try again later."""
