"""Tournaments: Swiss and arena, their standings and games (docs/club.md)."""

from __future__ import annotations

from typing import List, Literal, Optional

from pydantic import BaseModel, Field

from .common import Strict
from .tables import SeatLink

TOURNAMENT_ID_MAX = 64


class TournamentClock(Strict):
    """A tournament game's clock: a Fischer clock per seat; at zero the seat's team loses on time."""

    seconds: float = Field(ge=10, le=86400, description="each seat's time for the game, in seconds")
    increment: float = Field(0.0, ge=0, le=3600, description="seconds added after each move")


class CreateTournament(Strict):
    """A tournament a signed-in member announces (POST /api/tournaments)."""

    kind: Literal["swiss", "arena"] = Field(description="swiss: rounds paired by score; arena: a fixed time, "
                                                        "paired again as soon as a game ends")
    name: str = Field(min_length=1, max_length=40, description="shown in the lobby and on the tournament's page")
    starts: float = Field(ge=0, le=2**53, description="when it starts, in seconds since the epoch (now to 30 days "
                                                      "ahead)")
    rounds: Optional[int] = Field(None, ge=1, le=15, description="a Swiss's rounds")
    minutes: Optional[float] = Field(None, ge=0, le=1440, description="an arena's length in minutes")
    clock: TournamentClock
    rated: bool = Field(False, description="its games change ratings as rated games do")
    team_size: Literal[1, 2] = Field(1, description="1: two players a game; 2: teams of two (four players)")
    berserk: bool = Field(True, description="an arena: a player may halve its time for one extra point on a win")


class JoinTournament(Strict):
    partner: Optional[str] = Field(None, min_length=1, max_length=40,
                                   description="a team tournament: your partner's account name (the team is in "
                                               "once the partner joins naming you)")


class PauseTournament(Strict):
    paused: bool = Field(description="true: no new arena game for you until false")


class TournamentStanding(BaseModel):
    """One line of the live standings."""

    rank: int
    entrant: str = Field(description="the entrant's id: its account, or a team's two joined by '+'")
    names: List[str]
    rating: int = Field(description="the display rating on joining (a team's: its two's mean)")
    points: float
    buchholz: Optional[float] = Field(None, description="a Swiss: the sum of the opponents' points")
    sonneborn_berger: Optional[float] = Field(None, description="a Swiss: beaten opponents' points, half a drawn's")
    direct: Optional[float] = Field(None, description="a Swiss: points among the entrants tied on everything else")
    games: int
    wins: int
    draws: int
    losses: int
    byes: int = 0
    fire: bool = Field(False, description="an arena: on a streak, the next game counts double")
    performance: Optional[int] = Field(None, description="an arena: the tie-break after points, the mean of each "
                                                     "game played's opponent rating, +400 for a win, -400 for a loss "
                                                     "(null: no game played)")
    sheet: List[int] = Field(default_factory=list, description="an arena: the points of each game, in order")
    state: Literal["in", "withdrawn"]
    paused: bool
    opponent: Optional[str] = Field(description="whom it plays now (an entrant id), or null")
    table: Optional[str] = Field(description="the table of its game now, or null")


class TournamentGame(BaseModel):
    """A paired game (``second`` null: ``first``'s bye)."""

    round: int
    board: int
    first: str
    second: Optional[str]
    table: Optional[str]
    result: Optional[float] = Field(description="what first scored: 1, 0.5, 0; null while played (or aborted)")
    forfeit: bool
    aborted: bool = Field(False, description="aborted at its table before the first moves: it scores nothing for "
                                             "either side")
    berserk: List[str]


class TournamentSummary(BaseModel):
    """A tournament as the lobby lists it."""

    tournament: str
    kind: Literal["swiss", "arena"]
    name: str
    creator: str
    status: Literal["upcoming", "running", "finished"]
    starts: float
    ends: Optional[float] = Field(description="an arena's end once started")
    rounds: Optional[int]
    round: int
    minutes: Optional[float]
    clock: TournamentClock
    rated: bool
    team_size: int
    berserk: bool
    entrants: int


class TournamentView(TournamentSummary):
    """A tournament's page: the standings and the games."""

    standings: List[TournamentStanding]
    games: List[TournamentGame]
    pending: List[List[str]] = Field(description="teams waiting for their second member to join: their names, "
                                                 "the member who joined first")
    version: int = Field(description="goes up at every change of any tournament: poll again when it moved")


class TournamentList(BaseModel):
    version: int
    tournaments: List[TournamentSummary]


class TournamentSeat(BaseModel):
    """Your game in the tournament now, if any."""

    table: Optional[str]
    seat: Optional[SeatLink]


class PlayerTournament(BaseModel):
    """A finished tournament on a player's page."""

    tournament: str
    name: str
    kind: Literal["swiss", "arena"]
    place: Optional[int]
    points: Optional[float]
    entrants: int
    names: List[str]
    finished: Optional[float]
