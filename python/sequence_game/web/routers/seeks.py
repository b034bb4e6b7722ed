"""Finding a game: play the computer in one click, post a seek, list and accept seeks, quick
pairing. The routes translate HTTP to the lobby's calls (``lobby.py``; docs/web.md, "Finding a
game")."""

from __future__ import annotations

from typing import Annotated, Optional

from fastapi import APIRouter, Depends, Path, Query, Response
from fastapi.security import HTTPAuthorizationCredentials

from .. import models
from ..club.web import AccountWrite
from ..deps import BaseUrl, Client, LobbyDep, bearer, errors_for
from ..longpoll import DEFAULT_WAIT, MAX_WAIT

router = APIRouter(tags=["seeks"])

SeekId = Annotated[str, Path(min_length=1, max_length=models.TABLE_ID_MAX, description="the seek's id")]
Bearer = Annotated[Optional[HTTPAuthorizationCredentials], Depends(bearer)]


def _token(credentials: Optional[HTTPAuthorizationCredentials]) -> Optional[str]:
    return credentials.credentials if credentials else None


@router.post("/api/play-computer", status_code=201, response_model=models.TableCreated,
             responses=errors_for(422, 429, 503), summary="Play the computer: one click, a level, your seat")
async def play_computer(body: models.PlayComputer, base: BaseUrl, lobby: LobbyDep,
                        client: Client, account: AccountWrite) -> models.TableCreated:
    """A table of you against the AI at `level` (1 to 8, the ladder of GET /api/presets), at your
    `seat` (null: a random one): its team's colour (seat p plays for team p mod teams, R2). The
    answer carries your seat's link. Limited per client address like creating a table (429).
    Signed in, your seat records your account (under its name): the game is unrated, and your
    player page counts it in your record against that level (docs/club.md)."""
    return await lobby.play_computer(body, client, account, base)


@router.post("/api/seeks", status_code=201, response_model=models.SeekPosted,
             responses=errors_for(403, 422, 429, 503), summary="Post a seek: the game you want, for others to accept")
async def post_seek(body: models.SeekRequest, lobby: LobbyDep, client: Client,
                    account: AccountWrite) -> models.SeekPosted:
    """An open seek, listed in the lobby until someone accepts it, you cancel it, it expires
    (`seek_seconds`), or you stop asking about it (`seek_idle_seconds`: your page long-polls GET
    /api/seeks/{seek_id} with the token). Signed in, the seek is posted under your account's name
    and your seat will record it; rated seeks need an account (403 for a guest). Limited per
    client address (429: the creation quota, and `max_seeks_per_client` open seeks)."""
    return lobby.post(body, client, account)


@router.get("/api/seeks", response_model=models.SeekList, responses=errors_for(422, 429),
            summary="The open seeks (public); long-poll with after_version")
async def list_seeks(lobby: LobbyDep, client: Client,
                     after_version: Optional[int] = Query(None, ge=0, le=models.VERSION_MAX,
                                                          description="wait until the list changes after this "
                                                                      "version (or `wait` seconds pass)"),
                     wait: float = Query(DEFAULT_WAIT, ge=0, le=MAX_WAIT, description="the longest a long-poll waits"),
                     ) -> models.SeekList:
    """The open seeks, oldest first: the game each wants and its poster's name (no token, no
    address). With `after_version=N` the answer waits for the next change after version N (at most
    `wait` seconds), counted among the client's open connections (429 past the cap)."""
    return await lobby.seeks(client, after_version, wait)


@router.get("/api/seeks/{seek_id}", response_model=models.SeekStatus, responses=errors_for(401, 403, 404, 422, 429),
            summary="Your seek (its token): open, or accepted with your seat; a long-poll that keeps it open")
async def seek_status(seek_id: SeekId, lobby: LobbyDep, client: Client, credentials: Bearer,
                      base: BaseUrl,
                      wait: float = Query(0.0, ge=0, le=MAX_WAIT, description="while it is open, wait up to this "
                                                                                "long for it to be accepted")) -> models.SeekStatus:
    """Your seek as you see it (send its token): `open`; `accepted` with the table and your seat's
    link (the only place it is sent); `cancelled` or `expired`. Asking keeps an open seek open
    (`seek_idle_seconds`); with `wait` the answer waits while it stays open."""
    return await lobby.status(seek_id, _token(credentials), client, wait, base)


@router.delete("/api/seeks/{seek_id}", status_code=204, responses=errors_for(401, 403, 404, 422),
               summary="Cancel your seek (its token)")
async def cancel_seek(seek_id: SeekId, lobby: LobbyDep, credentials: Bearer) -> Response:
    """Take your open seek off the lobby (a taken one stays taken)."""
    lobby.cancel(seek_id, _token(credentials))
    return Response(status_code=204)


@router.post("/api/seeks/{seek_id}/accept", status_code=201, response_model=models.SeatLink,
             responses=errors_for(403, 404, 409, 422, 429, 503),
             summary="Accept a seek: a table with its poster, your seat's link",
             openapi_extra={"security": [{}]})  # a seek token is optional here (your own seek is refused)
async def accept_seek(seek_id: SeekId, body: models.AcceptSeek, base: BaseUrl, lobby: LobbyDep,
                      client: Client, credentials: Bearer, account: AccountWrite) -> models.SeatLink:
    """Take the open seek `seek_id`: a new table with its poster at seat 0 and you at seat 1
    (opponents), other seats open; the answer is your seat's link (the only time its token is
    sent). Signed in, your seat records your account. 409 if it was taken, cancelled or expired;
    403 for a rated seek without an account, for a rating range that does not admit you (a range
    admits no guest), or for your own seek (its token sent, or your account posted it)."""
    return await lobby.accept(seek_id, body.name, client, _token(credentials), account, base)


@router.post("/api/seeks/quick", status_code=201, response_model=models.QuickPairing,
             responses=errors_for(403, 422, 429, 503), summary="Quick pairing: a compatible seek at once, or yours waits",
             openapi_extra={"security": [{}]})  # a seek token is optional here (never paired with it)
async def quick_pairing(body: models.SeekRequest, base: BaseUrl, lobby: LobbyDep, client: Client,
                        credentials: Bearer, account: AccountWrite) -> models.QuickPairing:
    """If an open seek wants the same game (players, teams, rated, time control) and its range
    admits you, and your range admits its poster, it is accepted at once (`paired`, your seat's
    link); otherwise your seek is posted (`waiting`, its token: ask about it as for POST
    /api/seeks). Send a seek token of yours as the bearer token and you are never paired with that
    seek; nor with a seek of your own account."""
    return await lobby.quick_pairing(body, client, _token(credentials), account, base)
