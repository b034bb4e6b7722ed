"""Finding a game: play the computer in one click, post a seek, list and accept seeks, quick
pairing (``seeks.py``; docs/web.md, "Finding a game")."""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Annotated, Any, Dict, List, Optional

from fastapi import APIRouter, Depends, Path, Query, Request, Response
from fastapi.security import HTTPAuthorizationCredentials

from ...game_setup import check_players_teams
from ...seeds import fresh_seed
from .. import models
from ..club import ratings
from ..club.accounts import Account
from ..club.standing import Standing
from ..club.web import AccountWrite, seat_account
from ..deps import Client, Service, bearer, errors_for
from ..errors import InvalidRequestError, NotAllowedError
from ..http import CreationQuota
from ..seeks import Seek, SeekBoard
from ..tables import TableService, check_clock, token_hash

router = APIRouter(tags=["seeks"])

MAX_WAIT, DEFAULT_WAIT = 60.0, 25.0
SeekId = Annotated[str, Path(min_length=1, max_length=models.TABLE_ID_MAX, description="the seek's id")]
Bearer = Annotated[Optional[HTTPAuthorizationCredentials], Depends(bearer)]


def _check_rated(request: Request, account: Optional[Account], doing: str) -> None:
    """A rated seek is posted and taken by signed-in accounts only (a rated game changes ratings,
    docs/club.md); 403 saying why for a guest, or when the operator switched accounts off."""
    if request.app.state.club is None:
        raise NotAllowedError(f"{doing}: accounts are switched off on this server (serve --no-accounts), so no "
                              "game is rated; play casual (rated: false)")
    if account is None:
        raise NotAllowedError(f"{doing}: a rated game needs an account: sign in (at /login), or play casual "
                              "(rated: false)")


def _rating_of(account: Optional[Account]) -> Optional[int]:
    """The displayed rating of ``account`` (None for a guest: a seek's rating range admits no guest)."""
    return None if account is None else ratings.display(account.mu)


async def board_of(request: Request) -> SeekBoard:
    board: SeekBoard = request.app.state.seeks
    return board


Board = Annotated[SeekBoard, Depends(board_of)]


def _base(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def _check(body: models.SeekRequest, request: Request, account: Optional[Account]) -> Dict[str, Any]:
    """The seek's game, checked like a table's (players and teams R2, one time control, the range)."""
    if body.rated:
        _check_rated(request, account, "rated")
    if request.app.state.club is None and (body.rating_min is not None or body.rating_max is not None):
        raise InvalidRequestError("rating_min, rating_max: accounts are switched off on this server, so nobody has "
                                  "a rating for a range to admit; leave the range out")
    try:
        players, teams = check_players_teams(body.players, body.teams)
    except ValueError as e:
        raise InvalidRequestError(str(e)) from None
    if body.clock is not None and body.turn_seconds is not None:
        raise InvalidRequestError("a seek has one time control: a turn timer (turn_seconds) or a game clock "
                                  "(clock), not both")
    clock = check_clock(None if body.clock is None else body.clock.model_dump(), teams)
    if body.rating_min is not None and body.rating_max is not None and body.rating_min > body.rating_max:
        raise InvalidRequestError(f"rating_min {body.rating_min} is above rating_max {body.rating_max}")
    return {"players": players, "teams": teams, "rated": body.rated, "turn_seconds": body.turn_seconds,
            "clock": clock, "rating_min": body.rating_min, "rating_max": body.rating_max,
            "name": account.name if account is not None else (body.name or "").strip() or "Guest",
            "account": seat_account(account), "rating": _rating_of(account),
            "provisional": None if account is None else ratings.provisional(account.sigma)}


def _summary(seek: Seek, now: float) -> models.SeekSummary:
    return models.SeekSummary(seek=seek.id, players=seek.players, teams=seek.teams, rated=seek.rated,
                              turn_seconds=seek.turn_seconds,
                              clock=None if seek.clock is None else models.TimeControl(**seek.clock),
                              rating_min=seek.rating_min, rating_max=seek.rating_max, name=seek.name,
                              account=None if seek.account is None else seek.account[0], rating=seek.rating, provisional=seek.provisional,
                              age=round(now - seek.created, 1))


def _posted(board: SeekBoard, seek: Seek, token: str) -> models.SeekPosted:
    return models.SeekPosted(seek=seek.id, token=token,
                             expires_in=round(board.limits.seek_seconds - (time.monotonic() - seek.created), 1))


async def _table_for(service: TableService, board: SeekBoard, seek: Seek, name: Optional[str],
                     account: Optional[Account], client: str, base: str) -> models.SeatLink:
    """Accept ``seek`` (call with ``board.lock`` held): the table with its poster at seat 0 and the
    accepter at seat 1, the other seats open; the accepter's seat link. Each seat records the
    account that took it; a rated seek makes a rated table (both are accounts: checked before)."""
    board.take(seek)
    seats: List[Dict[str, Any]] = [{"kind": "human", "name": seek.name, "account": seek.account},
                                   {"kind": "human", "name": (name or "").strip() or "Guest",
                                    "account": seat_account(account)}]
    seats += [{"kind": "human", "open": True} for _ in range(seek.players - 2)]
    try:
        table, tokens = await service.create(seek.players, seek.teams, seats, client=client,
                                             ai_seconds=min(2.0, service.max_ai_seconds),
                                             turn_seconds=seek.turn_seconds, clock=seek.clock,
                                             rated=seek.rated and seek.account is not None and account is not None)
    except BaseException:
        board.reopen(seek)
        raise
    board.made(seek, table.id, tokens[0])
    return models.SeatLink(seat=1, token=tokens[1], url=f"{base}/table/{table.id}#seat={tokens[1]}")


@router.post("/api/play-computer", status_code=201, response_model=models.TableCreated,
             responses=errors_for(422, 429, 503), summary="Play the computer: one click, a level, your seat")
async def play_computer(body: models.PlayComputer, request: Request, service: Service,
                        client: Client, account: AccountWrite) -> models.TableCreated:
    """A table of you against the AI at `level` (1 to 8, the ladder of GET /api/presets), at your
    `seat` (null: a random one): its team's colour (seat p plays for team p mod teams, R2). The
    answer carries your seat's link. Limited per client address like creating a table (429).
    Signed in, your seat records your account (under its name): the game is unrated, and your
    player page counts it in your record against that level (docs/club.md)."""
    if body.clock is not None and body.turn_seconds is not None:
        raise InvalidRequestError("one time control: a turn timer (turn_seconds) or a game clock (clock), not both")
    seat = fresh_seed() % body.players if body.seat is None else body.seat
    if seat >= body.players:
        raise InvalidRequestError(f"seat must be from 0 to {body.players - 1} at a table of {body.players}, not {seat}")
    quota: CreationQuota = request.app.state.quota
    quota.take(client)
    ai = {"kind": "ai", "ai": f"level:{body.level}"}
    seats = [{"kind": "human", "name": (body.name or "").strip() or "You"} if p == seat else dict(ai)
             for p in range(body.players)]
    table, tokens = await service.create(body.players, None, seats, client=client, turn_seconds=body.turn_seconds,
                                         ai_seconds=min(2.0, service.max_ai_seconds),
                                         clock=None if body.clock is None else body.clock.model_dump(),
                                         account=seat_account(account))
    base = _base(request)
    link = models.SeatLink(seat=seat, token=tokens[seat], url=f"{base}/table/{table.id}#seat={tokens[seat]}")
    return models.TableCreated(table=table.id, seats=[link], spectate_url=f"{base}/table/{table.id}")


@router.post("/api/seeks", status_code=201, response_model=models.SeekPosted,
             responses=errors_for(403, 422, 429, 503), summary="Post a seek: the game you want, for others to accept")
async def post_seek(body: models.SeekRequest, request: Request, board: Board, client: Client,
                    account: AccountWrite) -> models.SeekPosted:
    """An open seek, listed in the lobby until someone accepts it, you cancel it, it expires
    (`seek_seconds`), or you stop asking about it (`seek_idle_seconds`: your page long-polls GET
    /api/seeks/{seek_id} with the token). Signed in, the seek is posted under your account's name
    and your seat will record it; rated seeks need an account (403 for a guest). Limited per
    client address (429: the creation quota, and `max_seeks_per_client` open seeks)."""
    game = _check(body, request, account)
    quota: CreationQuota = request.app.state.quota
    quota.take(client)
    seek, token = board.post(client, **game)
    return _posted(board, seek, token)


@router.get("/api/seeks", response_model=models.SeekList, responses=errors_for(422, 429),
            summary="The open seeks (public); long-poll with after_version")
async def list_seeks(board: Board, service: Service, client: Client,
                     after_version: Optional[int] = Query(None, ge=0, le=models.VERSION_MAX,
                                                          description="wait until the list changes after this "
                                                                      "version (or `wait` seconds pass)"),
                     wait: float = Query(DEFAULT_WAIT, ge=0, le=MAX_WAIT, description="the longest a long-poll waits"),
                     ) -> models.SeekList:
    """The open seeks, oldest first: the game each wants and its poster's name (no token, no
    address). With `after_version=N` the answer waits for the next change after version N (at most
    `wait` seconds), counted among the client's open connections (429 past the cap)."""
    board.expire()
    if after_version is not None and after_version > board.version:
        raise InvalidRequestError(f"after_version {after_version} is ahead of the list's version {board.version}: "
                                  "send a version you read from this list")
    if after_version is not None and after_version == board.version:
        with service.holding(client):
            await _wait(board, after_version, wait)
    now = time.monotonic()
    return models.SeekList(version=board.version, seeks=[_summary(s, now) for s in board.open_seeks()])


async def _wait(board: SeekBoard, after_version: int, seconds: float) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while board.version <= after_version:
        remaining = min(deadline - loop.time(), board.limits.seek_idle_seconds / 2)
        if deadline - loop.time() <= 0:
            return
        try:
            await asyncio.wait_for(board.changed.wait(), remaining)
        except asyncio.TimeoutError:
            board.expire()  # a seek whose poster went away leaves the list while the lobby waits


@router.get("/api/seeks/{seek_id}", response_model=models.SeekStatus, responses=errors_for(401, 403, 404, 422, 429),
            summary="Your seek (its token): open, or accepted with your seat; a long-poll that keeps it open")
async def seek_status(seek_id: SeekId, board: Board, service: Service, client: Client, credentials: Bearer,
                      request: Request,
                      wait: float = Query(0.0, ge=0, le=MAX_WAIT, description="while it is open, wait up to this "
                                                                                "long for it to be accepted")) -> models.SeekStatus:
    """Your seek as you see it (send its token): `open`; `accepted` with the table and your seat's
    link (the only place it is sent); `cancelled` or `expired`. Asking keeps an open seek open
    (`seek_idle_seconds`); with `wait` the answer waits while it stays open."""
    seek = board.owned(seek_id, credentials.credentials if credentials else None)
    if wait and seek.status == "open":
        with service.holding(client):
            loop = asyncio.get_running_loop()
            deadline = loop.time() + min(wait, board.limits.seek_idle_seconds / 2)
            while seek.status == "open" and loop.time() < deadline:
                try:
                    await asyncio.wait_for(board.changed.wait(), deadline - loop.time())
                except asyncio.TimeoutError:
                    break
        seek.seen = time.monotonic()
    seat = None
    if seek.status == "accepted" and seek.table is not None and seek.poster_token is not None:
        token = seek.poster_token
        seat = models.SeatLink(seat=0, token=token, url=f"{_base(request)}/table/{seek.table}#seat={token}")
    return models.SeekStatus(seek=seek.id, status=seek.status, table=seek.table, seat=seat)


@router.delete("/api/seeks/{seek_id}", status_code=204, responses=errors_for(401, 403, 404, 422),
               summary="Cancel your seek (its token)")
async def cancel_seek(seek_id: SeekId, board: Board, credentials: Bearer) -> Response:
    """Take your open seek off the lobby (a taken one stays taken)."""
    board.cancel(board.owned(seek_id, credentials.credentials if credentials else None))
    return Response(status_code=204)


@router.post("/api/seeks/{seek_id}/accept", status_code=201, response_model=models.SeatLink,
             responses=errors_for(403, 404, 409, 422, 429, 503),
             summary="Accept a seek: a table with its poster, your seat's link",
             openapi_extra={"security": [{}]})  # a seek token is optional here (your own seek is refused)
async def accept_seek(seek_id: SeekId, body: models.AcceptSeek, request: Request, board: Board, service: Service,
                      client: Client, credentials: Bearer, account: AccountWrite) -> models.SeatLink:
    """Take the open seek `seek_id`: a new table with its poster at seat 0 and you at seat 1
    (opponents), other seats open; the answer is your seat's link (the only time its token is
    sent). Signed in, your seat records your account. 409 if it was taken, cancelled or expired;
    403 for a rated seek without an account, for a rating range that does not admit you (a range
    admits no guest), or for your own seek (its token sent, or your account posted it)."""
    seek = board.get(seek_id)
    if credentials is not None and board.seeks.get(seek_id) is seek and _is_own(seek, credentials.credentials):
        raise NotAllowedError("this is your own seek: wait for someone to accept it, or cancel it")
    if account is not None and seek.account is not None and seek.account[0] == account.key:
        raise NotAllowedError("this is your own seek (your account posted it): wait for someone to accept it, or "
                              "cancel it")
    if seek.rated:
        _check_rated(request, account, "this seek is for a rated game")
    if not seek.admits(_rating_of(account)):
        rating = _rating_of(account)
        raise NotAllowedError(f"this seek wants opponents rated {_range_text(seek)}, "
                              + ("and a guest has no rating: sign in" if rating is None else f"and yours is {rating}"))
    quota: CreationQuota = request.app.state.quota
    quota.take(client)
    async with board.lock:
        if request.app.state.standing is not None:  # a disabled account's seek closes instead (club/standing.py)
            await request.app.state.standing.check_seek(seek)
        return await _table_for(service, board, seek, body.name, account, client, _base(request))


def _range_text(seek: Seek) -> str:
    if seek.rating_max is None:
        return f"{seek.rating_min} or more"
    if seek.rating_min is None:
        return f"{seek.rating_max} or less"
    return f"{seek.rating_min} to {seek.rating_max}"


def _is_own(seek: Seek, token: str) -> bool:
    return len(token) <= 128 and secrets.compare_digest(seek.token_hash, token_hash(token))


@router.post("/api/seeks/quick", status_code=201, response_model=models.QuickPairing,
             responses=errors_for(403, 422, 429, 503), summary="Quick pairing: a compatible seek at once, or yours waits",
             openapi_extra={"security": [{}]})  # a seek token is optional here (never paired with it)
async def quick_pairing(body: models.SeekRequest, request: Request, board: Board, service: Service, client: Client,
                        credentials: Bearer, account: AccountWrite) -> models.QuickPairing:
    """If an open seek wants the same game (players, teams, rated, time control) and its range
    admits you, and your range admits its poster, it is accepted at once (`paired`, your seat's
    link); otherwise your seek is posted (`waiting`, its token: ask about it as for POST
    /api/seeks). Send a seek token of yours as the bearer token and you are never paired with that
    seek; nor with a seek of your own account."""
    game = _check(body, request, account)
    quota: CreationQuota = request.app.state.quota
    quota.take(client)
    want = (game["players"], game["teams"], game["rated"], game["turn_seconds"],
            None if game["clock"] is None else tuple(sorted(game["clock"].items())))
    standing: Optional[Standing] = request.app.state.standing
    async with board.lock:
        while True:
            found = board.match(want, game["rating"], credentials.credentials if credentials else None,
                                None if account is None else account.key, (game["rating_min"], game["rating_max"]))
            if found is None or standing is None:
                break
            try:
                await standing.check_seek(found)  # a disabled account's seek closes: look again
                break
            except NotAllowedError:
                continue
        if found is not None:
            link = await _table_for(service, board, found, game["name"], account, client, _base(request))
            return models.QuickPairing(status="paired", seat=link, seek=None)
        seek, token = board.post(client, **game)
    return models.QuickPairing(status="waiting", seat=None, seek=_posted(board, seek, token))
