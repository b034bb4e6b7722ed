"""The club's side of a request: who is signed in (the session cookie), the CSRF check of a write
signed in by its cookie, and the cookie itself (docs/club.md; what a rated table must be:
``lobby.py``)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Optional, Tuple

from fastapi import Depends, Request, Response
from starlette.requests import HTTPConnection

from ..errors import AccountsOffError, NeedsSeatError, NotAllowedError
from . import Club
from .accounts import Account
from .sessions import COOKIE

__all__ = ["AccountWrite", "ClubDep", "NeedsAccountError", "OptionalAccount", "OptionalClub", "account_of_cookie",
           "seat_account", "set_cookie"]


class NeedsAccountError(NeedsSeatError):
    """This needs a signed-in account (401): a rated table, a wrong name or password."""


async def get_optional_club(request: Request) -> Optional[Club]:
    """The club, or None when the operator switched accounts off (``serve --no-accounts``)."""
    club: Optional[Club] = request.app.state.club
    return club


async def get_club(request: Request) -> Club:
    """The club, or 404 when the operator switched accounts off (``serve --no-accounts``)."""
    club = await get_optional_club(request)
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
OptionalClub = Annotated[Optional[Club], Depends(get_optional_club)]
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
