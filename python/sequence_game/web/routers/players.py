"""The players: the list, a player's page and its JSON, a rated game's rating changes (docs/club.md)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Dict, List

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import HTMLResponse

from ..club.web import OptionalAccount, OptionalClub
from ..deps import Service, TableId, errors_for
from ..errors import NoSuchPlayerError
from ..pages import page

router = APIRouter(tags=["players"])

PlayerName = Annotated[str, Path(min_length=1, max_length=40, description="the account's name (any case)")]


@router.get("/api/players", summary="The players, strongest first (public)")
async def players(club: OptionalClub, limit: Annotated[int, Query(ge=1, le=200)] = 100,
                  offset: Annotated[int, Query(ge=0, le=1_000_000)] = 0) -> List[Dict[str, Any]]:
    """Every account that is not disabled: name, rating (the ladder's scale), whether it is
    provisional, rated games; ordered by the conservative rating (mu - 3 sigma). Empty when the
    server has no accounts."""
    if club is None:
        return []
    return await asyncio.to_thread(club.players, limit, offset)


@router.get("/api/players/{name}", responses=errors_for(404, 422), summary="A player's page (public)")
async def player(name: PlayerName, club: OptionalClub, viewer: OptionalAccount) -> Dict[str, Any]:
    """A player's rating and its history, games (results, links to replay and review) and record
    against each AI level, with the AI levels' ratings on the same scale for orientation; the
    profile (plain text), presence (online, the tables they play at: watch them) and, signed in,
    whether you follow or block them (`relation`, null on your own page)."""
    account = None if club is None else await asyncio.to_thread(club.accounts.get, name)
    if club is None or account is None or account.disabled:
        raise NoSuchPlayerError(f"no player named {name[:40]!r}")

    def read() -> Dict[str, Any]:
        return {**club.player(account), **club.people.about(account.key, viewer)}

    return await asyncio.to_thread(read)


@router.get("/api/tables/{table_id}/ratings", responses=errors_for(404, 410, 422),
            summary="A finished rated game's rating changes (public)")
async def table_ratings(table_id: TableId, club: OptionalClub, service: Service) -> List[Dict[str, Any]]:
    """Each account's rating before and after the game (empty: the game is not over, or unrated;
    ``counted`` false: played, but not counted, with why); 404 for no such table."""
    changes = [] if club is None else await asyncio.to_thread(club.rating_changes, table_id)
    if not changes:
        await service.get_async(table_id)  # NoSuchTableError (404) where there is no table to say "none" of
    return changes


@router.get("/players/{name}", include_in_schema=False)
async def player_page(request: Request, name: PlayerName) -> HTMLResponse:
    return await page(request, "player.html")


@router.get("/players", include_in_schema=False)
async def players_page(request: Request) -> HTMLResponse:
    return await page(request, "player.html")
