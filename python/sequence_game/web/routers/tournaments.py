"""Tournaments: announce, list, join, start early, withdraw, pause, berserk, the live standings,
your game's seat, a player's tournaments (``web/tournaments``; docs/club.md, "Tournaments")."""

from __future__ import annotations

from typing import Annotated, List, Optional

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse

from .. import models
from ..club.accounts import Account
from ..club.web import AccountWrite, ClubDep, NeedsAccountError, OptionalAccount
from ..deps import BaseUrl, Client, Quota, Service, Tournaments, errors_for
from ..errors import NoSuchPlayerError
from ..pages import page
from ..tournaments import Tournament

router = APIRouter(tags=["tournaments"])

TournamentId = Annotated[str, Path(min_length=1, max_length=models.TOURNAMENT_ID_MAX,
                                   description="the tournament's id")]


def _member(account: Optional[Account]) -> Account:
    if account is None:
        raise NeedsAccountError("tournaments are for signed-in members: log in at /login")
    return account


def summary(t: Tournament) -> models.TournamentSummary:
    s = t.settings
    return models.TournamentSummary.model_validate({
        "tournament": t.id, "kind": t.kind, "name": t.name, "creator": str(s.get("creator_name", t.creator)),
        "status": t.status, "starts": t.starts, "ends": t.ends, "rounds": s.get("rounds"), "round": t.round,
        "minutes": s.get("minutes"), "clock": models.TournamentClock(seconds=float(s["clock"]["seconds"]),
                                         increment=float(s["clock"]["increment"])),
        "rated": t.rated, "team_size": t.team_size, "berserk": bool(s.get("berserk")),
        "entrants": sum(1 for e in t.entrants.values() if e.state in ("in", "withdrawn"))})


def view(t: Tournament, version: int) -> models.TournamentView:
    games = [models.TournamentGame(round=g.round, board=g.board, first=g.first, second=g.second, table=g.table_id,
                                   result=g.result, forfeit=g.forfeit, aborted=g.aborted,
                                   berserk=g.berserk) for g in t.games]
    return models.TournamentView(
        **dict(summary(t)), standings=[models.TournamentStanding(**row) for row in t.standings()],
        games=games, pending=[e.names for e in t.entrants.values() if e.state == "pending"], version=version)


@router.get("/api/tournaments", response_model=models.TournamentList, responses=errors_for(404),
            summary="The tournaments announced and running, then the last finished (public)")
async def list_tournaments(tournaments: Tournaments, service: Service) -> models.TournamentList:
    """Announced and running tournaments by start time, then the 20 last finished."""
    live = tournaments.lobby()
    done = await service.db(lambda: [tournaments.get(i) for i in tournaments.store.finished(20)])
    return models.TournamentList(version=tournaments.version, tournaments=[summary(t) for t in live + done])


@router.post("/api/tournaments", status_code=201, response_model=models.TournamentView,
             responses=errors_for(401, 403, 404, 422, 429, 503), summary="Announce a tournament (signed in)")
async def create_tournament(body: models.CreateTournament, quota: Quota, tournaments: Tournaments,
                            service: Service, client: Client, account: AccountWrite) -> models.TournamentView:
    """A Swiss (`rounds`) or an arena (`minutes`) starting at `starts`; members join from the lobby
    until it starts (an arena: until it ends). At most `max_open_per_account` announced or running
    per account (403) and `max_open` on the server (503); limited per client address like creating a
    table (429)."""
    member = _member(account)
    quota.take(client)
    t = await tournaments.run(tournaments.create, member, body.kind, body.name, body.starts, body.rounds,
                                       body.minutes, body.clock.model_dump(), body.rated, body.team_size,
                                       body.berserk)
    return view(t, tournaments.version)


@router.get("/api/tournaments/{tournament_id}", response_model=models.TournamentView, responses=errors_for(404, 422),
            summary="A tournament: live standings and games (public)")
async def get_tournament(tournament_id: TournamentId, tournaments: Tournaments,
                         service: Service) -> models.TournamentView:
    """What it is, its status, the standings (ranks, points, tie-breaks, games, who plays whom now)
    and every game paired so far; `version` goes up at every change."""
    live = tournaments.live.get(tournament_id)
    t = live if live is not None else await service.db(tournaments.get, tournament_id)
    return view(t, tournaments.version)


@router.post("/api/tournaments/{tournament_id}/join", response_model=models.TournamentView,
             responses=errors_for(401, 403, 404, 422, 503), summary="Join (signed in): alone, or naming your partner")
async def join_tournament(tournament_id: TournamentId, body: models.JoinTournament, tournaments: Tournaments,
                          account: AccountWrite) -> models.TournamentView:
    """Enter an announced tournament (an arena also while it runs, and again after withdrawing). A
    team tournament: name your partner; the team is in once the partner joins naming you."""
    t = await tournaments.run(tournaments.join, tournament_id, _member(account), body.partner)
    return view(t, tournaments.version)


@router.post("/api/tournaments/{tournament_id}/start", response_model=models.TournamentView,
             responses=errors_for(401, 403, 404, 422, 503),
             summary="Its creator starts it now, before its time (signed in)")
async def start_tournament(tournament_id: TournamentId, tournaments: Tournaments,
                           account: AccountWrite) -> models.TournamentView:
    """The account that announced the tournament starts it before its announced time, once at
    least two entrants are in (a team tournament: two complete teams); anyone else, a tournament
    with fewer, or one that started already, is refused (403). The first games are paired at once."""
    t = await tournaments.run(tournaments.start_now, tournament_id, _member(account))
    return view(t, tournaments.version)


@router.post("/api/tournaments/{tournament_id}/withdraw", response_model=models.TournamentView,
             responses=errors_for(401, 403, 404, 422, 503), summary="Withdraw (signed in): your results stand")
async def withdraw_tournament(tournament_id: TournamentId, tournaments: Tournaments,
                              account: AccountWrite) -> models.TournamentView:
    """You are paired no more (a team: both of you); the games you played stand, and a game you are
    playing goes on (resign it at its table)."""
    t = await tournaments.run(tournaments.withdraw, tournament_id, _member(account))
    return view(t, tournaments.version)


@router.post("/api/tournaments/{tournament_id}/pause", response_model=models.TournamentView,
             responses=errors_for(401, 403, 404, 422, 503), summary="An arena: pause between games (signed in)")
async def pause_tournament(tournament_id: TournamentId, body: models.PauseTournament, tournaments: Tournaments,
                           account: AccountWrite) -> models.TournamentView:
    """While paused you are paired no more; the game you are playing goes on."""
    t = await tournaments.run(tournaments.pause, tournament_id, _member(account), body.paused)
    return view(t, tournaments.version)


@router.post("/api/tournaments/{tournament_id}/berserk", status_code=204, responses=errors_for(401, 403, 404, 422),
             summary="An arena: halve your time in your game now, for a point more on a win (signed in)")
async def berserk_tournament(tournament_id: TournamentId, tournaments: Tournaments, account: AccountWrite) -> None:
    """Before your first move of the game: your clock is halved; a win of at least seven turns of
    yours then scores one point more."""
    await tournaments.berserk(tournament_id, _member(account))


@router.get("/api/tournaments/{tournament_id}/seat", response_model=models.TournamentSeat,
            responses=errors_for(401, 404, 422), summary="Your game now and your seat's link (signed in)")
async def tournament_seat(tournament_id: TournamentId, base: BaseUrl, tournaments: Tournaments,
                          account: OptionalAccount) -> models.TournamentSeat:
    """The table of your game being played and your seat's link, sent only to the account that sits
    there; both null when you have no game now."""
    found = await tournaments.seat(tournament_id, _member(account))
    if found is None:
        return models.TournamentSeat(table=None, seat=None)
    table, seat, token = found
    return models.TournamentSeat(table=table, seat=models.SeatLink(seat=seat, token=token,
                                                                   url=f"{base}/table/{table}#seat={token}"))


@router.get("/api/players/{name}/tournaments", response_model=List[models.PlayerTournament],
            responses=errors_for(404, 422), summary="A player's finished tournaments: places and points (public)")
async def player_tournaments(name: Annotated[str, Path(min_length=1, max_length=40)], tournaments: Tournaments,
                             club: ClubDep, service: Service) -> List[models.PlayerTournament]:
    """Each finished tournament the player entered (alone or in a team), latest first: its place
    among the entrants and its points."""
    # the club after the tournaments: without accounts, the tournaments' refusal says why (404)
    account = await service.db(club.accounts.get, name)
    if account is None or account.disabled:
        raise NoSuchPlayerError(f"no player named {name[:40]!r}")
    rows = await service.db(tournaments.results_of, account.key)
    return [models.PlayerTournament(tournament=r["id"], name=r["name"], kind=r["kind"], place=r["place"],
                                    points=r["points"], entrants=r["entrants"], names=r["names"],
                                    finished=r["finished"]) for r in rows]


@router.get("/tournaments/{tournament_id}", include_in_schema=False)
async def tournament_page(request: Request, tournament_id: TournamentId) -> HTMLResponse:
    return await page(request, "tournament.html")

