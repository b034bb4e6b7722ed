"""The HTTP API's request and response bodies (pydantic), also the schemas of the OpenAPI page.

Every incoming body is validated against these models (types, ranges, lengths, no unknown
fields) before any game code sees it; the game then checks the rules.
"""

from __future__ import annotations

from typing import Annotated, Any, Dict, List, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field

from ..game_setup import VALID_PLAYERS
from .tables import AI_PRESETS, AIPreset

MOVE_TEXT_MAX = 64  # "2H@e6 =a6-e6 =e6-i6" is 19 characters; declares of 3 sequences fit easily
MAX_PRESET_MOVES = 2000
TABLE_ID_MAX = 64  # a table id is 8 characters; longer path segments are not looked up
VERSION_MAX = 2**53  # a table's version counts its changes; JSON numbers are exact up to here
MAX_TURNS_MAX = 100000


class Strict(BaseModel):
    # every field bounded (lengths, ranges, finite numbers) so that no request does work in
    # proportion to a number it sends before that number is checked; strict: a number is a number
    # (false is not the seed 0, "2" not the player count 2)
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class SeatSpec(Strict):
    """One seat of a new table."""

    kind: Literal["human", "ai"] = Field(description="a person (gets a join link) or the computer")
    ai: Optional[AIPreset] = Field(None, description="the AI's strength: " + ", ".join(AI_PRESETS))
    name: Optional[str] = Field(None, max_length=32, description="shown at the table")
    open: bool = Field(False, description="a human seat offered in the lobby: whoever joins it first gets its "
                                          "token (POST /api/tables/{id}/join); no link is made for it here")


class JoinRequest(Strict):
    seat: Optional[int] = Field(None, ge=0, le=11, description="the open seat to take (null: the first open one)")
    name: Optional[str] = Field(None, max_length=32, description="shown at the table")


class PresetInfo(BaseModel):
    """An AI strength a seat may ask for."""

    name: AIPreset
    summary: str = Field(description="what plays (agents/presets.py; the measured ladder: docs/measurements.md)")
    time_cap: Optional[float] = Field(description="the longest it thinks per move, in seconds (null: at once)")


class CreateTable(Strict):
    """A new table: players, team split (R2), one seat spec per player."""

    players: int = Field(2, ge=min(VALID_PLAYERS), le=max(VALID_PLAYERS), json_schema_extra={"enum": list(VALID_PLAYERS)},
                         description=f"one of {', '.join(map(str, VALID_PLAYERS))} (R2)")
    teams: Optional[int] = Field(None, ge=2, le=3,
                                 description="2 or 3 where the player count allows both (6, 12); null: default")
    seats: Optional[List[SeatSpec]] = Field(
        None, max_length=12, description="seat p at index p; default: seat 0 human, the others AI 'medium'")
    seed: Optional[int] = Field(None, ge=0, lt=2**64, description="seed of the deal (null: random)")
    max_turns: Optional[int] = Field(None, ge=1, le=MAX_TURNS_MAX, description="a draw after this many turns")
    hot_seat: bool = Field(
        False, description="all human seats play at one screen (one link, hands hidden between turns)")
    ai_seconds: float = Field(2.0, ge=0.05, le=60, description="the longest an AI may think per move at this table")
    turn_seconds: Optional[float] = Field(
        None, ge=10, le=86400, description="a turn timer for the human seats: when it runs out, the 'medium' AI "
                                           "plays one move for that seat and the game goes on; null: no timer")
    hints: Optional[bool] = Field(
        None, description="whether seats may ask the AI for a hint or an analysis; null: only when at most one "
                          "human sits at the table (no engine help in games between people)")
    moves: List[Annotated[str, Field(max_length=MOVE_TEXT_MAX)]] = Field(
        [], max_length=MAX_PRESET_MOVES,
        description="moves to play first (text notation), to go on with a saved game: "
                    "the 'moves' of a sequence-game-record/1 with its seed")


class SeatLink(BaseModel):
    seat: int
    token: str = Field(description="the seat's secret: send it as 'Authorization: Bearer <token>'")
    url: str = Field(description="the join link (the token rides in the #fragment, never in server logs)")


class TableCreated(BaseModel):
    table: str
    seats: List[SeatLink] = Field(description="one join link per human seat (hot seat: one link for all)")
    spectate_url: str


class MoveRequest(Strict):
    move: str = Field(max_length=MOVE_TEXT_MAX, description="text notation: 7H@d6, JSxe5, 'trade 7H', pass")
    version: Optional[int] = Field(None, ge=0, le=VERSION_MAX,
                                   description="the table version you saw; a stale one is refused (409)")


class AnalyzeRequest(Strict):
    seconds: float = Field(1.0, ge=0.01, le=60, description="search time budget (capped by the server)")


class MoveResponse(BaseModel):
    move: str
    view: Dict[str, Any]


class UndoResponse(BaseModel):
    undone: int
    view: Dict[str, Any]


class HintResponse(BaseModel):
    move: str


class RootMove(BaseModel):
    move: str
    visits: int
    value: float = Field(description="mean reward of the mover's team in [0, 1]")


class Analysis(BaseModel):
    best: str
    iterations: int
    seconds: float
    moves: List[RootMove]


class TableSummary(BaseModel):
    table: str
    players: int
    teams: int
    created: str
    turn: int
    over: bool
    result: Optional[Dict[str, Any]]
    seats: List[Dict[str, Any]]


class ErrorBody(BaseModel):
    detail: str = Field(description="what was wrong (the Python API's message for a refused move)")
    error: str = Field(description="the error class: IllegalMoveError, InvalidMoveError, TableError, ...")


class ReplayStep(BaseModel):
    index: int
    player: Optional[int]
    move: Optional[str]
    state: Dict[str, Any]


class Replay(BaseModel):
    record: Dict[str, Any]
    names: List[str]
    steps: List[ReplayStep]


class PublicMove(BaseModel):
    player: int = Field(description="the seat that made it (0-based)")
    move: str = Field(description="text notation (docs/notation.md)")


class MoveList(BaseModel):
    """Every move of a table so far: public information (the board, sequences and discards follow
    from it; no card in a hand does, R9)."""

    version: int
    moves: List[PublicMove]


class ResignResponse(BaseModel):
    resigned: int = Field(description="the seat that resigned (its team lost)")
    view: Dict[str, Any] = Field(description="the table as your seat sees it now")


class Rematch(BaseModel):
    table: str = Field(description="the new table's id")
    url: str = Field(description="its page; your seat token from this table works there too")


class ReviewedMoveModel(BaseModel):
    index: int = Field(description="the move's number, from 1")
    player: int
    team: int
    move: str
    before: float = Field(description="the mover's team's chance of winning with the AI's preferred move")
    after: Optional[float] = Field(description="its chance after the move played (null: not known)")
    best: str = Field(description="the move the AI preferred")
    loss: Optional[float] = Field(description="before - after")
    mistake: bool = Field(description="the move cost at least 'mistake' and was not the preferred one")


class ReviewData(BaseModel):
    iterations: int = Field(description="search iterations per position")
    seed: int
    mistake: float = Field(description="the loss from which a move is marked")
    moves: List[ReviewedMoveModel]


class ReviewStatus(BaseModel):
    """A review: ``ready`` with the review, ``running`` with its progress, ``none`` (404) before one is asked for."""

    status: Literal["ready", "running", "none"]
    review: Optional[ReviewData] = None
    done: Optional[int] = None
    total: Optional[int] = None
    detail: Optional[str] = None
