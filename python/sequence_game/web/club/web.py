"""The club's side of a request: who is signed in (the session cookie), the CSRF check of a write
signed in by its cookie, the cookie itself, and what a rated table must be (docs/club.md)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Optional, Tuple

from fastapi import Depends, Request, Response
from starlette.requests import HTTPConnection

from ..errors import AccountsOffError, NeedsSeatError, NotAllowedError
from . import Club
from .accounts import Account
from .sessions import COOKIE

__all__ = ["AccountWrite", "ClubDep", "NeedsAccountError", "OptionalAccount", "account_of_cookie", "check_rated",
           "seat_account", "set_cookie"]


class NeedsAccountError(NeedsSeatError):
    """This needs a signed-in account (401): a rated table, a wrong name or password."""


async def get_club(request: Request) -> Club:
    """The club, or 404 when the operator switched accounts off (``serve --no-accounts``)."""
    club: Optional[Club] = request.app.state.club
    if club is None:
        raise AccountsOffError("accounts are switched off on this server (serve --no-accounts): everyone plays "
                              "as a guest")
    return club


async def signed_in(request: Request) -> Optional[Account]:
    """The account of the request's session cookie (None: a guest, or accounts are off)."""
    return await account_of_cookie(request)


async def account_of_cookie(request: HTTPConnection) -> Optional[Account]:
    """:func:`signed_in` for a request or a websocket."""
    club: Optional[Club] = request.app.state.club
    sid = request.cookies.get(COOKIE)
    if club is None or not sid:
        return None

    def lookup() -> Optional[Account]:
        key = club.sessions.account_of(sid)
        return None if key is None else club.accounts.get(key)

    account = await asyncio.to_thread(lookup)
    if account is not None:
        club.people.saw(account.key)  # online (club/people.py)
    return account


async def signed_in_for_write(request: Request, account: Annotated[Optional[Account], Depends(signed_in)]
                              ) -> Optional[Account]:
    """:func:`signed_in`, for a request that changes something: one the cookie signs in must carry
    the Origin of this server's own pages (the HostGuard has refused any other Origin), so another
    site's page can never act for the account (CSRF), whatever the browser does with SameSite."""
    if account is not None and "origin" not in request.headers:
        raise NotAllowedError("a request signed in by the session cookie must come from this server's pages (it has "
                              "no Origin header); send it without the cookie to act as a guest")
    return account


ClubDep = Annotated[Club, Depends(get_club)]
OptionalAccount = Annotated[Optional[Account], Depends(signed_in)]
AccountWrite = Annotated[Optional[Account], Depends(signed_in_for_write)]


def seat_account(account: Optional[Account]) -> Optional[Tuple[str, str]]:
    """What a seat records of the account that takes it: (key, name)."""
    return None if account is None else (account.key, account.name)


def set_cookie(request: Request, response: Response, sid: Optional[str]) -> None:
    """Set (or, with None, clear) the session cookie: HttpOnly, SameSite=Lax, Secure over HTTPS."""
    secure = request.url.scheme == "https"
    if sid is None:
        response.delete_cookie(COOKIE, path="/", secure=secure, httponly=True, samesite="lax")
    else:
        response.set_cookie(COOKIE, sid, max_age=30 * 86400, path="/", secure=secure, httponly=True, samesite="lax")


def check_rated(body: Any, account: Optional[Account], club: Optional[Club]) -> None:
    """A rated table (``CreateTable.rated``) is one every seat of which an account will take: the
    creator signed in, no AI seat (games against the AI are unrated), no hot seat, every other seat
    open, the rules' own turn cap, no engine help (hints). Raises saying what is missing."""
    if not body.rated:
        return
    if club is None:
        raise NotAllowedError("rated: accounts are switched off on this server, so no game is rated")
    if account is None:
        raise NeedsAccountError("rated: a rated table is created by a signed-in account (log in at /login)")
    seats = body.seats or []
    if not seats or any(s.kind != "human" for s in seats):
        raise NotAllowedError("rated: every seat of a rated table is a person (games against the AI are unrated); "
                              "give seats: your own human seat and open seats for the others")
    if body.hot_seat or sum(not s.open for s in seats) != 1:
        raise NotAllowedError("rated: a rated table has one seat for its creator and every other seat open, for "
                              "signed-in accounts to join")
    if body.max_turns is not None:
        raise NotAllowedError("rated: a rated table plays to the rules' own end (leave out max_turns)")
    if body.hints:
        raise NotAllowedError("rated: the AI gives no hint or analysis where ratings are at stake (leave out "
                              "hints, or make the table casual)")
