"""FastAPI dependencies shared by the routers: the table service, the lobby, the table of the
path, the seats a request acts for (its bearer token), the client's address, the server's URL.

Every dependency is ``async def``: FastAPI runs a plain ``def`` dependency in a worker thread, and
that hand-off (twice per dependency, through the GIL) cost more than the work itself on every
request, refusals included. None of them blocks: a stored table is read through the database
thread (``get_async``)."""

from __future__ import annotations

from typing import Annotated, Any, Dict, FrozenSet, Optional, Union

from fastapi import Depends, Path, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from . import models
from .errors import NeedsSeatError
from .http import client_of
from .lobby import Lobby
from .tables import Table, TableService

__all__ = ["ERRORS", "BaseUrl", "Client", "LobbyDep", "Seats", "SeatsRequired", "Service", "TableDep", "TableId"]


async def get_service(request: Request) -> TableService:
    service: TableService = request.app.state.service
    return service


async def get_lobby(request: Request) -> Lobby:
    lobby: Lobby = request.app.state.lobby
    return lobby


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


async def get_client(request: Request) -> str:
    return client_of(request.scope)


async def get_base_url(request: Request) -> str:
    """The server's URL as the request reached it, without the final slash: a seat's link starts with it."""
    return str(request.base_url).rstrip("/")


Service = Annotated[TableService, Depends(get_service)]
LobbyDep = Annotated[Lobby, Depends(get_lobby)]
TableDep = Annotated[Table, Depends(get_table)]
Seats = Annotated[FrozenSet[int], Depends(get_seats)]
SeatsRequired = Annotated[FrozenSet[int], Depends(require_seat)]
Client = Annotated[str, Depends(get_client)]
BaseUrl = Annotated[str, Depends(get_base_url)]


def errors_for(*statuses: int) -> Dict[Union[int, str], Dict[str, Any]]:
    """The ``responses`` of a route: each refusal status with the error body."""
    return {s: {"model": models.ErrorBody} for s in statuses}


ERRORS = errors_for(401, 403, 404, 409, 422)
