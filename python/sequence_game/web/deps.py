"""FastAPI dependencies shared by the routers: the table service, the lobby, the reviews, the
creation quota, the tournaments (each read from the server's ``Env``, ``env.py``, typed), the table of the path,
the seats a request acts for (its bearer token), the client's address, the server's URL.

Every dependency is ``async def``: FastAPI runs a plain ``def`` dependency in a worker thread, and
that hand-off (twice per dependency, through the GIL) cost more than the work itself on every
request, refusals included. The service, the quota and the client's address serve a websocket
too (an ``HTTPConnection``). None of them blocks: a stored table is read through the database
thread (``get_async``)."""

from __future__ import annotations

from typing import Annotated, Any, Dict, FrozenSet, Optional, Union

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.requests import HTTPConnection

from . import models
from .env import Env
from .errors import AccountsOffError, NeedsSeatError
from .http import CreationQuota, client_of
from .lobby import Lobby
from .reviews import ReviewService
from .tables import Table, TableService
from .tournaments.service import TournamentService

__all__ = ["ERRORS", "BaseUrl", "Client", "LobbyDep", "Quota", "Reviews", "Seats", "SeatsRequired", "Service",
           "TableDep", "TableId", "Tournaments"]


async def get_env(connection: HTTPConnection) -> Env:
    """The server's parts (``env.py``), as ``create_app`` put them on the app."""
    env: Env = connection.app.state.env
    return env


async def get_service(env: Annotated[Env, Depends(get_env)]) -> TableService:
    return env.service


async def get_lobby(env: Annotated[Env, Depends(get_env)]) -> Lobby:
    return env.lobby


async def get_reviews(env: Annotated[Env, Depends(get_env)]) -> ReviewService:
    return env.reviews


async def get_quota(env: Annotated[Env, Depends(get_env)]) -> CreationQuota:
    return env.quota


async def get_tournaments(env: Annotated[Env, Depends(get_env)]) -> TournamentService:
    """The tournaments, or 404 when accounts are off (a tournament is for accounts)."""
    if env.tournaments is None:
        raise AccountsOffError("accounts are switched off on this server (serve --no-accounts), and tournaments are "
                               "for accounts")
    return env.tournaments


bearer = HTTPBearer(auto_error=False, description="a seat token from a join link")

TableId = Annotated[str, Path(min_length=1, max_length=models.TABLE_ID_MAX, description="the table's id")]


async def get_table(table_id: TableId, service: Annotated[TableService, Depends(get_service)]) -> Table:
    return await service.get_async(table_id)


async def get_seats(
    table: Annotated[Table, Depends(get_table)],
    service: Annotated[TableService, Depends(get_service)],
    credentials: Annotated[Optional[HTTPAuthorizationCredentials], Depends(bearer)],
) -> FrozenSet[int]:
    return service.seats_of(table, credentials.credentials if credentials else None)


async def require_seat(seats: Annotated[FrozenSet[int], Depends(get_seats)]) -> FrozenSet[int]:
    if not seats:
        raise NeedsSeatError("this needs a seat: send its token as 'Authorization: Bearer <token>'")
    return seats


async def get_client(connection: HTTPConnection) -> str:
    return client_of(connection.scope)


async def get_base_url(request: Request) -> str:
    """The server's URL as the request reached it, without the final slash: a seat's link starts with it."""
    return str(request.base_url).rstrip("/")


Service = Annotated[TableService, Depends(get_service)]
LobbyDep = Annotated[Lobby, Depends(get_lobby)]
Reviews = Annotated[ReviewService, Depends(get_reviews)]
Quota = Annotated[CreationQuota, Depends(get_quota)]
Tournaments = Annotated[TournamentService, Depends(get_tournaments)]
TableDep = Annotated[Table, Depends(get_table)]
Seats = Annotated[FrozenSet[int], Depends(get_seats)]
SeatsRequired = Annotated[FrozenSet[int], Depends(require_seat)]
Client = Annotated[str, Depends(get_client)]
BaseUrl = Annotated[str, Depends(get_base_url)]


def errors_for(*statuses: int) -> Dict[Union[int, str], Dict[str, Any]]:
    """The ``responses`` of a route: each refusal status with the error body."""
    return {s: {"model": models.ErrorBody} for s in statuses}


ERRORS = errors_for(401, 403, 404, 409, 422)
