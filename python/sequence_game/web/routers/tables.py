"""Creating, listing and reading tables."""

from __future__ import annotations

from typing import Annotated, Any, Dict, List, Optional

from fastapi import APIRouter, Query, Request

from .. import models
from ..deps import ERRORS, Client, Seats, SeatsRequired, Service, TableDep, errors_for
from ..http import CreationQuota

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
             responses={**errors_for(409, 422, 429, 503), 201: {"description": "the table, its join links",
                                                                 "links": TABLE_LINKS}},
             summary="Create a table")
async def create_table(body: models.CreateTable, request: Request, service: Service,
                       client: Client) -> models.TableCreated:
    quota: CreationQuota = request.app.state.quota
    quota.take(client)
    # the body's bounds are checked (models.py) before this list is built: at most 12 seats
    seats = body.seats
    if seats is None:
        seats = [models.SeatSpec(kind="human")] + [models.SeatSpec(kind="ai", ai="medium")
                                                    for _ in range(body.players - 1)]
    table, tokens = await service.create(
        body.players, body.teams, [s.model_dump() for s in seats], seed=body.seed, max_turns=body.max_turns,
        hot_seat=body.hot_seat, ai_seconds=min(body.ai_seconds, service.max_ai_seconds), moves=body.moves,
        client=client, hints=body.hints, turn_seconds=body.turn_seconds)
    base = str(request.base_url).rstrip("/")
    links, seen = [], set()
    for seat, token in sorted(tokens.items()):
        if token in seen:
            continue
        seen.add(token)
        links.append(models.SeatLink(seat=seat, token=token, url=f"{base}/table/{table.id}#seat={token}"))
    return models.TableCreated(table=table.id, seats=links, spectate_url=f"{base}/table/{table.id}")


@router.get("/api/tables", response_model=List[models.TableSummary], summary="List the tables (public information)")
async def list_tables(service: Service, finished: Optional[bool] = None,
                      limit: Annotated[int, Query(ge=1, le=200)] = 200,
                      offset: Annotated[int, Query(ge=0, le=1_000_000, description="finished tables to skip")] = 0,
                      ) -> List[Dict[str, Any]]:
    return await service.lobby(finished, limit, offset)


@router.post("/api/tables/{table_id}/join", status_code=201, response_model=models.SeatLink,
             responses=errors_for(404, 409, 422, 429, 503),
             summary="Take an open seat: the answer carries its token (the only time it is sent)")
async def join(body: models.JoinRequest, table: TableDep, request: Request, service: Service,
               client: Client) -> models.SeatLink:
    quota: CreationQuota = request.app.state.quota
    quota.take(client)  # joining hands out a seat: limited like creating one
    seat, token = await service.join(table, body.seat, body.name)
    base = str(request.base_url).rstrip("/")
    return models.SeatLink(seat=seat, token=token, url=f"{base}/table/{table.id}#seat={token}")


@router.get("/api/tables/{table_id}", responses=ERRORS, tags=["play"],
            summary="The table as your seat sees it (no token: as a spectator)",
            openapi_extra={"security": [{}]})  # with the bearer scheme: the token is optional here
async def read_table(table: TableDep, seats: Seats, service: Service) -> Dict[str, Any]:
    return service.view(table, seats)


@router.get("/api/tables/{table_id}/moves", response_model=models.MoveList, responses=ERRORS, tags=["play"],
            summary="Every move so far, with who made it (public: for browsing earlier positions)")
async def move_list(table: TableDep) -> Dict[str, Any]:
    return {"version": table.version, "moves": [{"player": p, "move": str(m)} for p, m in table.history]}


@router.post("/api/tables/{table_id}/rematch", status_code=201, response_model=models.Rematch,
             responses=errors_for(401, 403, 404, 409, 429, 503),
             summary="After the game: a new table with the same seats and a new deal (made once)")
async def rematch(table: TableDep, seats: SeatsRequired, request: Request, service: Service,
                  client: Client) -> models.Rematch:
    quota: CreationQuota = request.app.state.quota
    quota.take(client)
    new = await service.rematch(table, seats, client)
    base = str(request.base_url).rstrip("/")
    return models.Rematch(table=new.id, url=f"{base}/table/{new.id}")
