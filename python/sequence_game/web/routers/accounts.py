"""Accounts: sign up, log in, log out, who is signed in; the login page (docs/club.md)."""

from __future__ import annotations

import asyncio
from typing import Optional

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from ..club import Club
from ..club.accounts import NAME, LoginError, NameTakenError, check_name, check_password, name_key, taken
from ..club.sessions import COOKIE
from ..club.web import AccountWrite, ClubDep, NeedsAccountError, OptionalAccount, OptionalClub, set_cookie
from ..deps import Client, errors_for
from ..models import Credentials, Me, PasswordChange
from ..pages import page

router = APIRouter(tags=["accounts"])


def _me(club: Optional[Club], name: Optional[str], rating: Optional[int] = None,
        provisional: Optional[bool] = None) -> Me:
    return Me(accounts=club is not None, name=name, rating=rating, provisional=provisional)


@router.get("/api/session", response_model=Me, summary="Who is signed in (the session cookie)")
async def who(club: OptionalClub, account: OptionalAccount) -> Me:
    """The account the session cookie signs in (`name` null: a guest), and whether this server has
    accounts at all."""
    if account is None:
        return _me(club, None)
    s = Club.summary(account)
    return _me(club, account.name, s["rating"], s["provisional"])


@router.post("/api/accounts", status_code=201, response_model=Me, responses=errors_for(403, 404, 422, 429, 503),
             summary="Sign up: a new account, signed in")
async def sign_up(body: Credentials, request: Request, response: Response, club: ClubDep, client: Client,
                  _: AccountWrite) -> Me:
    """A new account (names are public: the player list shows them), signed in at once. Limited per
    client address (429)."""
    # a refused name or password spends none of the address's sign-ups: one of bad form, and one
    # taken (the player list shows every name anyway), checked before the sign-up is counted
    check_name(body.name)
    check_password(body.password)
    if await asyncio.to_thread(club.accounts.get, body.name) is not None:
        raise NameTakenError(taken(body.name))
    club.signups.take(client)
    try:
        account = await club.hashing(club.accounts.create, body.name, body.password)
    except NameTakenError:  # taken meanwhile by another sign-up: still not an acceptable name
        club.signups.give_back(client)
        raise
    sid = await asyncio.to_thread(club.sessions.start, account.key, request.cookies.get(COOKIE))
    set_cookie(request, response, sid)
    club.people.saw(account.key)  # online from now (club/people.py)
    s = Club.summary(account)
    return _me(club, account.name, s["rating"], s["provisional"])


@router.post("/api/session", response_model=Me, responses=errors_for(401, 403, 404, 422, 429, 503),
             summary="Log in: a new session cookie")
async def log_in(body: Credentials, request: Request, response: Response, club: ClubDep, client: Client,
                 _: AccountWrite) -> Me:
    """Log in with a name and a password. The answer to an unknown name and to a wrong password is
    the same (401, after the same work); attempts are limited per client address and per name (429).
    A new session id every time: the cookie the browser had is ended."""
    club.login_by_address.take(client)
    club.login_by_name.take(name_key(body.name) if NAME.fullmatch(body.name) else "(not a name)")
    try:
        account = await club.hashing(club.accounts.login, body.name, body.password)
    except LoginError as e:
        raise NeedsAccountError(str(e)) from None
    sid = await asyncio.to_thread(club.sessions.start, account.key, request.cookies.get(COOKIE))
    set_cookie(request, response, sid)
    club.people.saw(account.key)  # online from now (club/people.py)
    s = Club.summary(account)
    return _me(club, account.name, s["rating"], s["provisional"])


@router.put("/api/session/password", response_model=Me, responses=errors_for(401, 403, 404, 422, 429, 503),
            summary="Change the signed-in account's password (its other sessions end)")
async def change_password(body: PasswordChange, request: Request, response: Response, club: ClubDep, client: Client,
                          account: AccountWrite) -> Me:
    """The signed-in account's new password: the old one is required (401 if wrong), and attempts
    are limited like a log-in's, per client address and per account (429). Every session of the
    account ends but this browser's, which gets a new session id."""
    if account is None:
        raise NeedsAccountError("sign in first: only a signed-in account changes its password (log in at /login)")
    check_password(body.new)  # a new password of bad form spends no attempt
    club.login_by_address.take(client)
    club.login_by_name.take(account.key)
    try:
        account = await club.hashing(club.accounts.change_password, account.key, body.old, body.new)
    except LoginError as e:
        raise NeedsAccountError(str(e)) from None
    sid = await asyncio.to_thread(club.sessions.start, account.key, None)
    set_cookie(request, response, sid)
    s = Club.summary(account)
    return _me(club, account.name, s["rating"], s["provisional"])


@router.delete("/api/session", status_code=204, responses=errors_for(403, 404), summary="Log out")
async def log_out(request: Request, club: ClubDep, _: AccountWrite) -> Response:
    """End the session of the cookie (the server forgets it) and clear the cookie."""
    await asyncio.to_thread(club.sessions.end, request.cookies.get(COOKIE))
    response = Response(status_code=204)
    set_cookie(request, response, None)
    return response


@router.get("/login", include_in_schema=False)
async def login_page(request: Request) -> HTMLResponse:
    return await page(request, "login.html")
