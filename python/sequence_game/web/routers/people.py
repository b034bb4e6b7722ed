"""People to play with: follows and presence, blocks, the profile, the leaderboard and challenges
(``club/people.py``; docs/club.md, "People to play with").

Every write needs a signed-in account (its session cookie, from this server's pages: the Origin
check of ``club/web.py``) and spends one of the account's ``people_burst`` changes (429 past them).
"""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any, Dict, Optional

from fastapi import APIRouter, Depends, Path, Query, Request, Response

from .. import models
from ..club.accounts import Account
from ..club.people import Challenge
from ..club.sessions import COOKIE
from ..club.web import AccountWrite, ClubDep, NeedsAccountError, OptionalAccount, OptionalClub
from ..deps import BaseUrl, Client, LobbyDep, errors_for
from ..errors import BusyError
from ..lobby import check_game

router = APIRouter(tags=["people"])

PlayerName = Annotated[str, Path(min_length=1, max_length=40, description="the account's name (any case)")]
ChallengeId = Annotated[str, Path(min_length=1, max_length=64, description="the challenge's id")]


def _needs(account: Optional[Account]) -> Account:
    if account is None:
        raise NeedsAccountError("this needs a signed-in account (log in at /login)")
    return account


async def _writer(request: Request, club: ClubDep, account: AccountWrite) -> Account:
    """The signed-in account of a write, which spends one of its changes (429 past them). A
    session refused here has its next changes refused before routing for a second (``gate.py``)."""
    me = _needs(account)
    try:
        club.people_changes.take(me.key)
    except BusyError:
        club.sessions.found_spent(request.cookies.get(COOKIE), me.key)
        raise
    return me


async def _reader(club: ClubDep, account: OptionalAccount) -> Account:
    return _needs(account)


Writer = Annotated[Account, Depends(_writer)]
Reader = Annotated[Account, Depends(_reader)]


def _view(c: Challenge, me: Account, base: str, now: float) -> models.ChallengeView:
    seat = None
    if c.status == "accepted" and c.maker == me.key and c.table and c.maker_token:
        seat = models.SeatLink(seat=0, token=c.maker_token, url=f"{base}/table/{c.table}#seat={c.maker_token}")
    return models.ChallengeView(**c.public(now, me.key), seat=seat)


# ---------------------------------------------------------------------- follows, blocks, presence

@router.get("/api/people", response_model=models.People, responses=errors_for(401, 404),
            summary="Your people: who you follow (online, playing), who you block, your challenges")
async def people(base: BaseUrl, club: ClubDep, me: Reader) -> models.People:
    """The players you follow with their presence (playing first, then online), the players you
    block, and your challenges (open ones to you; yours, open or closed lately). Your pages ask
    every few seconds."""
    now = time.time()

    def read() -> Dict[str, Any]:
        return {"following": club.people.following(me), "blocked": club.people.blocked_names(me),
                "challenges": club.people.challenges(me, now)}

    got = await asyncio.to_thread(read)
    ch = got["challenges"]
    return models.People(following=got["following"], blocked=got["blocked"],
                         challenges=models.ChallengeList(incoming=[_view(c, me, base, now) for c in ch["incoming"]],
                                                         outgoing=[_view(c, me, base, now) for c in ch["outgoing"]]))


@router.put("/api/people/follows/{name}", status_code=204, responses=errors_for(401, 403, 404, 422, 429),
            summary="Follow a player")
async def follow(name: PlayerName, club: ClubDep, me: Writer) -> Response:
    """Follow `name`: your people list shows when they are online and where they play (at most
    `max_follows`)."""
    await asyncio.to_thread(club.people.follow, me, name)
    return Response(status_code=204)


@router.delete("/api/people/follows/{name}", status_code=204, responses=errors_for(401, 403, 404, 422, 429),
               summary="Unfollow a player")
async def unfollow(name: PlayerName, club: ClubDep, me: Writer) -> Response:
    """Stop following `name` (nothing happens if you did not)."""
    await asyncio.to_thread(club.people.unfollow, me, name)
    return Response(status_code=204)


@router.put("/api/people/blocks/{name}", status_code=204, responses=errors_for(401, 403, 404, 422, 429),
            summary="Block a player: no challenges from them, none of their chat on your pages")
async def block(name: PlayerName, club: ClubDep, me: Writer) -> Response:
    """Block `name`: they cannot challenge you (nor you them), your open challenges with them close,
    and their chat messages no longer reach your pages. They are not told (at most `max_blocks`)."""
    await asyncio.to_thread(club.people.block, me, name)
    return Response(status_code=204)


@router.delete("/api/people/blocks/{name}", status_code=204, responses=errors_for(401, 403, 404, 422, 429),
               summary="Unblock a player")
async def unblock(name: PlayerName, club: ClubDep, me: Writer) -> Response:
    """`name` may challenge you again and their chat reaches your pages again (the messages written
    meanwhile stay hidden from the pages that were open)."""
    await asyncio.to_thread(club.people.unblock, me, name)
    return Response(status_code=204)


@router.put("/api/profile", response_model=models.Profile, responses=errors_for(401, 403, 404, 422, 429),
            summary="Your profile: a short bio and a country, plain text")
async def set_profile(body: models.ProfileRequest, club: ClubDep, me: Writer) -> models.Profile:
    """Both fields plain text, trimmed (empty: none): the bio at most 300 characters (line breaks
    kept), the country at most 40; a control or format character is refused (422)."""
    return models.Profile(**await asyncio.to_thread(club.people.set_profile, me, body.bio, body.country))


@router.get("/api/leaderboard", response_model=models.Leaderboard, responses=errors_for(422),
            summary="The highest ratings (public), provisional ones apart")
async def leaderboard(club: OptionalClub, limit: Annotated[int, Query(ge=1, le=100)] = 50) -> models.Leaderboard:
    """The `limit` highest settled ratings of accounts that played a rated game and, apart, the
    `limit` highest provisional ones (a "?" rating: not settled yet, docs/club.md). Empty when the
    server has no accounts."""
    if club is None:
        return models.Leaderboard(settled=[], provisional=[])
    board = await asyncio.to_thread(club.people.leaderboard, limit)
    return models.Leaderboard(settled=board["settled"], provisional=board["provisional"])


# ---------------------------------------------------------------------- challenges

def _game(body: models.ChallengeRequest) -> Dict[str, Any]:
    players, teams, clock = check_game(body, "a challenge")
    return {"players": players, "teams": teams, "rated": body.rated, "turn_seconds": body.turn_seconds, "clock": clock}


@router.post("/api/challenges", status_code=201, response_model=models.ChallengeView,
             responses=errors_for(401, 403, 404, 409, 422, 429), summary="Challenge a player")
async def challenge(body: models.ChallengeRequest, base: BaseUrl, club: ClubDep, me: Writer) -> models.ChallengeView:
    """A challenge to `to` for this game; nothing is created until they accept. 403 when one of you
    blocks the other; 409 for a second open challenge to the same player; 429 past
    `max_challenges_out` open challenges of yours or `max_challenges_in` open to them. It expires
    after `challenge_seconds`."""
    game = _game(body)
    now = time.time()
    c = await asyncio.to_thread(club.people.challenge, me, body.to, game, now)
    return _view(c, me, base, now)


@router.get("/api/challenges/{challenge_id}", response_model=models.ChallengeView,
            responses=errors_for(401, 404, 422), summary="A challenge you made or received")
async def get_challenge(challenge_id: ChallengeId, base: BaseUrl, club: ClubDep, me: Reader) -> models.ChallengeView:
    """Its status; the maker's seat once it is accepted."""
    now = time.time()
    return _view(await asyncio.to_thread(club.people.get, me, challenge_id, now), me, base, now)


@router.post("/api/challenges/{challenge_id}/decline", response_model=models.ChallengeView,
             responses=errors_for(401, 403, 404, 409, 422, 429), summary="Decline a challenge to you")
async def decline(challenge_id: ChallengeId, base: BaseUrl, club: ClubDep, me: Writer) -> models.ChallengeView:
    """Say no to an open challenge to you: nothing is made, its maker's page says it was declined
    (403 for the maker: withdraw it instead; 409 once it is closed)."""
    now = time.time()
    return _view(await asyncio.to_thread(club.people.close, me, challenge_id, "declined", now), me, base, now)


@router.delete("/api/challenges/{challenge_id}", response_model=models.ChallengeView,
               responses=errors_for(401, 403, 404, 409, 422, 429), summary="Withdraw your challenge")
async def withdraw(challenge_id: ChallengeId, base: BaseUrl, club: ClubDep, me: Writer) -> models.ChallengeView:
    """Take back your open challenge before it is answered (403 for its target: decline it instead;
    409 once it is closed)."""
    now = time.time()
    return _view(await asyncio.to_thread(club.people.close, me, challenge_id, "withdrawn", now), me, base, now)


@router.post("/api/challenges/{challenge_id}/accept", status_code=201, response_model=models.SeatLink,
             responses=errors_for(401, 403, 404, 409, 422, 429, 503),
             summary="Accept a challenge to you: the table is made, your seat's link")
async def accept(challenge_id: ChallengeId, base: BaseUrl, club: ClubDep, me: Writer, lobby: LobbyDep,
                 client: Client) -> models.SeatLink:
    """The table of the challenge: its maker at seat 0, you at seat 1 (opponents), further seats
    open; rated if the challenge is. The answer is your seat's link (the only time its token is
    sent); the maker's page finds its own seat in the challenge. Spends your address's creation
    quota like creating a table (429)."""
    return await lobby.accept_challenge(club, challenge_id, me, client, base)
