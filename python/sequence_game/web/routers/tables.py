"""Creating, listing, joining and reading tables, and their rematch (who may create or join which
table: the lobby, ``lobby.py``)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Dict, List, Optional

from fastapi import APIRouter, Query, Response

from .. import models
from ..club.web import AccountWrite, OptionalClub
from ..deps import ERRORS, BaseUrl, Client, LobbyDep, Quota, Seats, SeatsRequired, Service, TableDep, errors_for
from ..errors import InvalidRequestError
from ..longpoll import DEFAULT_WAIT, MAX_WAIT, wait_until

router = APIRouter(tags=["tables"])


def _link(path: str, method: str) -> Dict[str, Any]:
    pointer = path.replace("~", "~0").replace("/", "~1")
    return {"operationRef": f"#/paths/{pointer}/{method}", "parameters": {"table_id": "$response.body#/table"}}


#: OpenAPI links: the new table's id is the ``table_id`` of the table's own operations (clients and
#: tools such as schemathesis follow them)
TABLE_LINKS = {name: _link(path, method) for name, path, method in [
    ("read", "/api/tables/{table_id}", "get"),
    ("play", "/api/tables/{table_id}/moves", "post"),
    ("undo", "/api/tables/{table_id}/undo", "post"),
    ("hint", "/api/tables/{table_id}/hint", "post"),
    ("analysis", "/api/tables/{table_id}/analysis", "post"),
    ("record", "/api/tables/{table_id}/record", "get"),
    ("replay", "/api/tables/{table_id}/replay", "get"),
]}


@router.post("/api/tables", status_code=201, response_model=models.TableCreated,
             responses={**errors_for(401, 403, 409, 422, 429, 503), 201: {"description": "the table, its join links",
                                                                 "links": TABLE_LINKS}},
             summary="Create a table")
async def create_table(body: models.CreateTable, base: BaseUrl, lobby: LobbyDep,
                       client: Client, account: AccountWrite) -> models.TableCreated:
    """A new table with its seats: each human seat gets a token (send it as `Authorization: Bearer
    <token>`) and a join link; AI seats play by themselves. `moves` replays a saved game's moves
    first. Rate-limited per client address (429) and bounded in total (503). Signed in (the session
    cookie), your account takes the first human seat that is not open; `rated` (docs/club.md): without
    `seats`, every seat but yours is open to the accounts that join."""
    return await lobby.create_table(body, client, account, base)


@router.get("/api/tables", response_model=List[models.TableSummary], summary="List the tables (public information)")
async def list_tables(service: Service, club: OptionalClub, finished: Optional[bool] = None,
                      limit: Annotated[int, Query(ge=1, le=200)] = 200,
                      offset: Annotated[int, Query(ge=0, le=1_000_000, description="finished tables to skip")] = 0,
                      ) -> List[models.TableSummary]:
    """The tables, newest first (at most `limit`, from `offset` among the finished ones): live ones and
    finished ones from the database; `finished=true` or `false` keeps one kind. No hand, no seed (R9).
    Each account's seat carries its rating now (docs/club.md)."""
    tables = await service.lobby(finished, limit, offset)
    keys = {s.account for t in tables for s in t.seats if s.account}
    if club is not None and keys:
        found = await asyncio.to_thread(club.ratings_of, keys)
        for t in tables:
            for s in t.seats:
                if s.account in found:
                    s.rating, s.provisional = found[s.account]
    return tables


@router.post("/api/tables/{table_id}/join", status_code=201, response_model=models.SeatLink,
             responses=errors_for(401, 403, 404, 409, 422, 429, 503),
             summary="Take an open seat: the answer carries its token (the only time it is sent)")
async def join(body: models.JoinRequest, table: TableDep, base: BaseUrl, lobby: LobbyDep,
               client: Client, account: AccountWrite) -> models.SeatLink:
    """Take an open human seat (`seat`, or the first open one) under your `name`: the answer is the
    only time its token is sent. Limited per client address like creating a table (429). Signed in,
    the seat records your account (under its name); a rated table's seats are for accounts only."""
    return await lobby.join(table, body, client, account, base)


@router.get("/api/tables/{table_id}", response_model=models.TableView, responses=errors_for(401, 403, 404, 409, 422, 429),
            tags=["play"],
            summary="The table as your seat sees it (no token: as a spectator); long-poll with after_version",
            openapi_extra={"security": [{}]})  # with the bearer scheme: the token is optional here
async def read_table(
    table: TableDep, seats: Seats, service: Service, client: Client,
    after_version: Optional[int] = Query(
        None, ge=0, le=models.VERSION_MAX,
        description="wait until the table's version is past this one (or the game is over, or `wait` seconds "
                    "passed), then answer: a long-poll for the next change instead of polling"),
    wait: float = Query(DEFAULT_WAIT, ge=0, le=MAX_WAIT, description="the longest a long-poll waits, in seconds"),
) -> models.TableView:
    """The table as your seat sees it (R9: your own hand, the others' as counts): the same view as
    a websocket `state` frame. With `after_version=N` the answer waits for the next change after
    version N (at most `wait` seconds: then the view is answered unchanged, check its `version`);
    a version ahead of the table's is refused (422). A waiting long-poll counts as one of the
    client's open connections (with its websockets and streams; 429 past the cap). For every change
    as it happens, read /api/tables/{table_id}/stream or the websocket."""
    if after_version is not None:
        if after_version > table.version:
            raise InvalidRequestError(f"after_version {after_version} is ahead of the table's version "
                                      f"{table.version}: send a version you read from this table")
        if table.version == after_version and not table.over:
            with service.holding(client):
                await wait_until(lambda: table.version > after_version or table.over, lambda: table.changed, wait)
    return service.view(table, seats)


@router.get("/api/tables/{table_id}/moves", response_model=models.MoveList, responses=ERRORS, tags=["play"],
            summary="Every move so far, with who made it (public: for browsing earlier positions)")
async def move_list(table: TableDep) -> Dict[str, Any]:
    """Every move of the game so far with the seat that made it, oldest first (public: the board and
    discards follow from it, no hidden card does, R9)."""
    return {"version": table.version, "moves": [{"player": p, "move": str(m)} for p, m in table.history]}


@router.post("/api/tables/{table_id}/rematch", status_code=201, response_model=models.Rematch,
             responses={**errors_for(401, 403, 404, 409, 429, 503),
                        202: {"description": "offered (or accepted): the offer waits for the others",
                              "model": models.Rematch}},
             summary="After the game: offer a rematch, or accept the open offer (made once all accepted)")
async def rematch(table: TableDep, seats: SeatsRequired, response: Response, service: Service, quota: Quota,
                  client: Client, base: BaseUrl) -> models.Rematch:
    """After the game: offer a rematch to the others at the table, or accept the open offer. Once
    every person at the table accepted (at once at a table of one person against the AI), the new
    table exists: the same seats (your tokens work there), options and rating, a new deal, made
    once (201, asking again answers it). Until then, 202 with the offer: it ends when someone
    declines it (`DELETE`), after 60 s, or when a person leaves the table (docs/web.md, "Rematch")."""
    quota.take(client)
    new = await service.rematch(table, seats, client)
    if new is None:
        response.status_code = 202
        return models.Rematch(table=None, url=None, offer=service.view(table, seats).rematch_offer)
    return models.Rematch(table=new.id, url=f"{base}/table/{new.id}")


@router.delete("/api/tables/{table_id}/rematch", response_model=models.RematchAnswer,
               responses=errors_for(401, 403, 404, 409, 429),
               summary="Decline the open rematch offer (its maker: withdraw it)")
async def decline_rematch(table: TableDep, seats: SeatsRequired, service: Service, quota: Quota,
                          client: Client) -> models.RematchAnswer:
    """End the open rematch offer: declined, or withdrawn by the seat that made it; everyone at the
    table is told. 409 when no offer is open. Limited per client address like a rematch (429)."""
    quota.take(client)
    return models.RematchAnswer(ended=await service.decline_rematch(table, seats))
