"""People to play with (``club/people.py``): profiles, presence, following, challenges, the
leaderboard."""

from __future__ import annotations

from typing import List, Literal, Optional

from pydantic import BaseModel, Field

from ...game_setup import VALID_PLAYERS
from .common import Strict
from .tables import SeatLink, TimeControl


class ProfileRequest(Strict):
    """A player's profile (PUT /api/profile): plain text, trimmed; empty clears a field."""

    bio: str = Field("", max_length=1000, description="at most 300 characters after trimming; line breaks kept, no "
                                                     "other control or format character")
    country: str = Field("", max_length=200, description="at most 40 characters after trimming, no control or format "
                                                         "character")


class Profile(BaseModel):
    bio: str = Field(description="plain text: show it as text, never as HTML")
    country: str = Field(description="plain text")


class InPlay(BaseModel):
    """A live unfinished table where a player holds a seat: anyone may watch it (/table/{table})."""

    table: str
    players: List[Optional[str]] = Field(description="the names of its seats (null: an open seat)")
    rated: bool


class Presence(BaseModel):
    online: bool = Field(description="a page of theirs reached the server lately, or a seat of theirs is connected")
    playing: List[InPlay]


class Relation(BaseModel):
    """What the signed-in account has to do with a player (null on its own page and for a guest)."""

    following: bool
    blocked: bool


class Followed(Presence):
    name: str
    rating: int
    provisional: bool


class ChallengeRequest(Strict):
    """A challenge to one player (POST /api/challenges): the game, as a seek's."""

    to: str = Field(min_length=1, max_length=40, description="the challenged account's name")
    players: int = Field(2, ge=min(VALID_PLAYERS), le=max(VALID_PLAYERS), json_schema_extra={"enum": list(VALID_PLAYERS)},
                         description="the maker and the target sit at seats 0 and 1 (opponents, R2); further seats "
                                     "are open seats")
    teams: Optional[int] = Field(None, ge=2, le=3, description="2 or 3 where the player count allows both")
    rated: bool = Field(False, description="a rated game: the table is rated once the target accepts")
    turn_seconds: Optional[float] = Field(None, ge=10, le=86400, description="a turn timer; null: none")
    clock: Optional[TimeControl] = Field(None, description="a game clock per seat instead of a turn timer")


class ChallengeView(BaseModel):
    """A challenge as its maker or its target reads it."""

    id: str
    maker: str = Field(description="the challenging account's name")
    target: str = Field(description="the challenged account's name")
    players: int
    teams: int
    rated: bool
    turn_seconds: Optional[float]
    clock: Optional[TimeControl]
    status: Literal["open", "accepting", "accepted", "declined", "withdrawn", "expired"]
    table: Optional[str] = Field(description="the table made on acceptance")
    expires_in: float = Field(description="seconds until an open challenge expires (0 once closed)")
    yours: bool = Field(description="true: you made it")
    seat: Optional[SeatLink] = Field(None, description="your seat once accepted (the maker's here; the target's in "
                                                       "the answer to its acceptance)")


class ChallengeList(BaseModel):
    incoming: List[ChallengeView] = Field(description="open challenges to you, newest first")
    outgoing: List[ChallengeView] = Field(description="your challenges, open or closed lately, newest first")


class People(BaseModel):
    """The signed-in account's people (GET /api/people)."""

    following: List[Followed] = Field(description="the players you follow: those playing, then online, first")
    blocked: List[str] = Field(description="the players you block")
    challenges: ChallengeList


class LeaderRow(BaseModel):
    rank: int
    name: str
    rating: int
    provisional: bool
    rated_games: int


class Leaderboard(BaseModel):
    settled: List[LeaderRow] = Field(description="the highest settled ratings")
    provisional: List[LeaderRow] = Field(description="apart: the highest ratings not settled yet")
