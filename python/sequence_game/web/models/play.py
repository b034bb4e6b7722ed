"""Playing at a table: a move, an undo, resigning, aborting, the rematch, and the moves so far and
the replay of a game."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional

from pydantic import BaseModel, Field

from .common import MOVE_TEXT_MAX, VERSION_MAX, Strict
from .views import RematchOffer, TableView


class MoveRequest(Strict):
    move: str = Field(max_length=MOVE_TEXT_MAX, description="text notation: 7H@d6, JSxe5, 'trade 7H', pass")
    version: Optional[int] = Field(None, ge=0, le=VERSION_MAX,
                                   description="the table version you saw; a stale one is refused (409)")


class MoveResponse(BaseModel):
    move: str = Field(description="the move played, declares filled in (text notation)")
    view: TableView = Field(description="the table after the move, as your seat sees it")


class UndoResponse(BaseModel):
    undone: int = Field(description="how many entries of the history were taken back (yours and the AI's after it)")
    view: TableView = Field(description="the table after the undo, as your seat sees it")


class ResignResponse(BaseModel):
    resigned: int = Field(description="the seat that resigned (its team lost; before every first move of a game "
                                      "between people the game is aborted instead: the view's result says so)")
    view: TableView = Field(description="the table as your seat sees it now")


class AbortResponse(BaseModel):
    aborted: int = Field(description="the seat that aborted the game (nobody won or lost)")
    view: TableView = Field(description="the table as your seat sees it now")


class Rematch(BaseModel):
    """Where a rematch stands: made (``table``, ``url``), offered and waiting for the others
    (``offer``), or ended (both null: declined, withdrawn, expired, or a person left)."""

    table: Optional[str] = Field(description="the new table's id, once every person accepted")
    url: Optional[str] = Field(description="its page; your seat token from this table works there too")
    offer: Optional[RematchOffer] = Field(None, description="the open offer while it waits for the others")


class RematchAnswer(BaseModel):
    """The open offer ended by this answer."""

    ended: Literal["declined", "withdrawn"] = Field(description="withdrawn by its maker, declined by anyone else")


class PublicMove(BaseModel):
    player: int = Field(description="the seat that made it (0-based)")
    move: str = Field(description="text notation (docs/notation.md)")


class MoveList(BaseModel):
    """Every move of a table so far: public information (the board, sequences and discards follow
    from it; no card in a hand does, R9)."""

    version: int
    moves: List[PublicMove]


class ReplayStep(BaseModel):
    index: int = Field(description="entries of the history replayed (0: the deal)")
    player: Optional[int] = Field(description="the seat that made the move (null at the deal)")
    move: Optional[str] = Field(description="the move just replayed (null at the deal)")
    state: Dict[str, Any] = Field(description="the whole position, format sequence-game/1 (docs/state-format.md) "
                                              "without rng: the game is over, every card may be shown")
    chances: Optional[List[float]] = Field(
        None, description="every team's chance of winning at this position, in the public view (the evaluation "
                          "bar; the last step of a finished game: its result)")


class Replay(BaseModel):
    record: Dict[str, Any] = Field(description="the game record, format sequence-game-record/1")
    names: List[str] = Field(description="the seats' names")
    accounts: List[Optional[str]] = Field([], description="the seats' accounts (null: a guest or the computer)")
    steps: List[ReplayStep]
