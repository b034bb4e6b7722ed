"""Making, joining and listing tables: the seats, the time control, the join links, a line of the
lobby's list."""

from __future__ import annotations

from typing import Annotated, List, Literal, Optional

from pydantic import BaseModel, Field

from ...game_setup import VALID_PLAYERS
from ..presets import AI_PRESETS, AIPreset
from .common import AI_SECONDS_MAX, AI_SECONDS_MIN, MOVE_TEXT_MAX, GuestName, Strict
from .views import Result

MAX_PRESET_MOVES = 2000
MAX_TURNS_MAX = 100000


class SeatSpec(Strict):
    """One seat of a new table."""

    kind: Literal["human", "ai"] = Field(description="a person (gets a join link) or the computer")
    ai: Optional[AIPreset] = Field(None, description="the AI's strength: " + ", ".join(AI_PRESETS))
    name: GuestName = Field(None, description="shown at the table (a guest's: no number in brackets)")
    open: bool = Field(False, description="a human seat offered in the lobby: whoever joins it first gets its "
                                          "token (POST /api/tables/{id}/join); no link is made for it here")


class JoinRequest(Strict):
    seat: Optional[int] = Field(None, ge=0, le=11, description="the open seat to take (null: the first open one)")
    name: GuestName = Field(None, description="shown at the table (a guest's: no number in brackets)")


class CreateTable(Strict):
    """A new table: players, team split (R2), one seat spec per player."""

    players: int = Field(2, ge=min(VALID_PLAYERS), le=max(VALID_PLAYERS), json_schema_extra={"enum": list(VALID_PLAYERS)},
                         description=f"one of {', '.join(map(str, VALID_PLAYERS))} (R2)")
    teams: Optional[int] = Field(None, ge=2, le=3,
                                 description="2 or 3 where the player count allows both (6, 12); null: default")
    seats: Optional[List[SeatSpec]] = Field(
        None, max_length=12, description="seat p at index p; default: seat 0 human, the others AI 'medium' (at a "
                                         "rated table: the others open human seats)")
    seed: Optional[int] = Field(None, ge=0, lt=2**64, description="seed of the deal (null: random); refused where anyone but the creator "
                                "may sit (an open seat, two or more links): the server deals those (R9)")
    max_turns: Optional[int] = Field(None, ge=1, le=MAX_TURNS_MAX, description="a draw after this many turns")
    hot_seat: bool = Field(
        False, description="all human seats play at one screen (one link, hands hidden between turns)")
    ai_seconds: float = Field(2.0, ge=AI_SECONDS_MIN, le=AI_SECONDS_MAX,
                              description=f"the longest an AI may think per move at this table, {AI_SECONDS_MIN:g} "
                                          f"to {AI_SECONDS_MAX:g} s (a server configured lower caps it further)")
    turn_seconds: Optional[float] = Field(
        None, ge=10, le=86400, description="a turn timer for the human seats: when it runs out, the 'medium' AI "
                                           "plays one move for that seat and the game goes on; null: no timer")
    clock: Optional[TimeControl] = Field(
        None, description="a game clock per human seat instead of a turn timer (Fischer or a time bank); null: none")
    hints: Optional[bool] = Field(
        None, description="whether seats may ask the AI for a hint or an analysis; null: only when at most one "
                          "human sits at the table (no engine help in games between people); never at a rated "
                          "table (true is refused there)")
    rated: bool = Field(False, description="the game changes its players' ratings (docs/club.md): made by a "
                                           "signed-in account, no AI seat, every other seat open for accounts")
    moves: List[Annotated[str, Field(max_length=MOVE_TEXT_MAX)]] = Field(
        [], max_length=MAX_PRESET_MOVES,
        description="moves to play first (text notation), to go on with a saved game: "
                    "the 'moves' of a sequence-game-record/1 with its seed (refused, like seed, where anyone "
                    "but the creator may sit)")


class TimeControl(Strict):
    """A game clock per human seat (tables/clock.py; docs/web.md, "Time controls")."""

    kind: Literal["fischer", "bank"] = Field(
        description="fischer: `seconds` for the game, `increment` added after each of your moves; bank (as on "
                    "Board Game Arena): a bank of `seconds`, `increment` added at the start of each of your turns, "
                    "never past `seconds`")
    seconds: float = Field(ge=10, le=86400, description="each human seat's time for the game (the bank), in seconds")
    increment: float = Field(0.0, ge=0, le=3600, description="seconds added per move (fischer) or per turn (bank)")
    at_zero: Literal["ai", "lose"] = Field(
        "ai", description="when a seat's time runs out: the AI moves for it (ai), or its team loses on time "
                          "(lose; two-team games only)")


class SeatLink(BaseModel):
    seat: int = Field(description="the seat (several seats of a hot-seat table share one link)")
    token: str = Field(description="the seat's secret: send it as 'Authorization: Bearer <token>'")
    url: str = Field(description="the join link (the token rides in the #fragment, never in server logs)")


class TableCreated(BaseModel):
    table: str = Field(description="the table's id, in every /api/tables/{table_id} path")
    seats: List[SeatLink] = Field(description="one join link per human seat (hot seat: one link for all)")
    spectate_url: str


class SummarySeat(BaseModel):
    kind: Literal["human", "ai"]
    name: Optional[str] = Field(description="the seat's name (null: an open seat without one)")
    ai: Optional[str] = Field(description="the AI seat's preset, null for a person")
    open: bool = Field(description="a human seat nobody has taken yet")
    account: Optional[str] = Field(None, description="the account that took the seat (/players/{name}); null: a "
                                                     "guest or the computer")
    rating: Optional[int] = Field(None, description="the account's rating now (docs/club.md); null: no account")
    provisional: Optional[bool] = Field(None, description="that rating is not settled yet")


class TimeControlView(BaseModel):
    """A table's time control: a game clock per seat (``fischer``, ``bank``) or a turn timer (``turn``)."""

    kind: Literal["fischer", "bank", "turn"]
    seconds: float = Field(description="a clock's time for the game, or the turn timer's time for a turn")
    increment: float = Field(0.0, description="a clock's increment (seconds); 0 for a turn timer")


class TableSummary(BaseModel):
    """A line of the table list (public information only)."""

    table: str
    players: int
    teams: int
    created: str = Field(description="ISO 8601 UTC")
    turn: int = Field(description="completed turns")
    over: bool
    result: Optional[Result] = Field(description="null until the game is over")
    seats: List[SummarySeat]
    rated: bool = Field(False, description="a rated table: its seats are for signed-in accounts (docs/club.md)")
    moves: int = Field(0, description="entries in the game's history so far (moves and referee calls)")
    time_control: Optional[TimeControlView] = Field(None, description="the table's time control, or null: none")
