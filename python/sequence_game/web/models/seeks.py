"""The lobby's seeks, quick pairing and one click against the computer (``web/lobby.py``)."""

from __future__ import annotations

from typing import List, Literal, Optional

from pydantic import BaseModel, Field

from ...game_setup import VALID_PLAYERS
from .common import GuestName, Strict
from .tables import SeatLink, TimeControl


class SeekRequest(Strict):
    """The game a player wants (POST /api/seeks, POST /api/seeks/quick)."""

    players: int = Field(2, ge=min(VALID_PLAYERS), le=max(VALID_PLAYERS), json_schema_extra={"enum": list(VALID_PLAYERS)},
                         description=f"one of {', '.join(map(str, VALID_PLAYERS))} (R2): the poster and the accepter "
                                     "sit at seats 0 and 1 (opponents), further seats are open seats")
    teams: Optional[int] = Field(None, ge=2, le=3, description="2 or 3 where the player count allows both; null: default")
    rated: bool = Field(False, description="a rated game: needs an account (a guest's seek is casual)")
    turn_seconds: Optional[float] = Field(None, ge=10, le=86400, description="a turn timer (as for a table); null: none")
    clock: Optional[TimeControl] = Field(None, description="a game clock per seat instead of a turn timer")
    rating_min: Optional[int] = Field(None, ge=0, le=5000, description="the lowest rating of an opponent (players "
                                                                        "with a rating; null: any)")
    rating_max: Optional[int] = Field(None, ge=0, le=5000, description="the highest rating of an opponent (null: any)")
    name: GuestName = Field(None, description="your name at the table as a guest (no number in brackets)")


class SeekPosted(BaseModel):
    seek: str = Field(description="the seek's id")
    token: str = Field(description="the seek's secret: ask about it with 'Authorization: Bearer <token>' (GET "
                                   "/api/seeks/{seek_id}) at least every seek_idle_seconds, or it expires")
    expires_in: float = Field(description="seconds until it expires anyway")


class SeekSummary(BaseModel):
    """An open seek, as the lobby lists it (public: no token, no address)."""

    seek: str
    players: int
    teams: int
    rated: bool
    turn_seconds: Optional[float]
    clock: Optional[TimeControl]
    rating_min: Optional[int]
    rating_max: Optional[int]
    name: str = Field(description="the poster's name (an account's own name when signed in)")
    account: Optional[str] = Field(None, description="the poster's account (/players/{name}); null: a guest")
    rating: Optional[int] = Field(None, description="the poster's rating when it was posted (null: a guest)")
    provisional: Optional[bool] = Field(None, description="whether that rating was provisional (docs/club.md)")
    age: float = Field(description="seconds since it was posted")


class SeekList(BaseModel):
    version: int = Field(description="counts the changes of the list: send it as after_version to wait for the next")
    seeks: List[SeekSummary]


class SeekStatus(BaseModel):
    """A seek as its poster sees it."""

    seek: str
    status: Literal["open", "accepted", "cancelled", "expired"]
    table: Optional[str] = Field(description="the table made when it was accepted")
    seat: Optional[SeatLink] = Field(description="the poster's seat at that table (to the poster only)")


class AcceptSeek(Strict):
    name: GuestName = Field(None, description="your name at the table as a guest (no number in brackets)")


class QuickPairing(BaseModel):
    """Quick pairing: a table with a compatible seek's poster at once, or a seek of yours that waits."""

    status: Literal["paired", "waiting"]
    seat: Optional[SeatLink] = Field(description="paired: your seat at the new table")
    seek: Optional[SeekPosted] = Field(description="waiting: your new seek (ask about it with its token)")


class PlayComputer(Strict):
    """One click against the computer: a level, your seat (your colour: team seat mod teams, R2)."""

    level: int = Field(4, ge=1, le=8, description="the AI's level on the ladder, 1 (a beginner) to 8 (the strongest)")
    players: int = Field(2, ge=2, le=3, description="2 (you and one AI) or 3 (you and two AIs, three teams)")
    seat: Optional[int] = Field(None, ge=0, le=2, description="your seat: 0 moves first after the deal's first "
                                                              "player, ... (its team's colour); null: a random seat")
    turn_seconds: Optional[float] = Field(None, ge=10, le=86400, description="a turn timer; null: none")
    clock: Optional[TimeControl] = Field(None, description="a game clock for your seat; null: none")
    name: GuestName = Field(None, description="your name at the table as a guest (no number in brackets)")
