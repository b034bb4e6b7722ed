"""The AI's review of a finished game (docs/review.md, ``sequence_game.review``)."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional

from pydantic import BaseModel, Field


class ReviewNote(BaseModel):
    """A threat that decides at a move (docs/review.md): its parts, and its words in English."""

    kind: Literal["win", "missed-win", "threat", "double-threat", "block", "missed-block"]
    team: int = Field(description="the team the note is about")
    other: Optional[int] = Field(default=None, description="the team it blocks or leaves the win (block, missed-block)")
    cells: List[str] = Field(description="the cells, e.g. i5")
    sequences: int = Field(description="how many sequences the cell completes at once")
    text: str = Field(description="the note in words, e.g. 'blue threatens i5 for two sequences'")


class ReviewedMoveModel(BaseModel):
    index: int = Field(description="the entry's number, from 1")
    player: int
    team: int
    move: str
    kind: Literal["move", "forced", "trade", "timeout", "referee"] = Field(
        description="move: graded; forced (one legal move), trade (a dead card, R4), timeout (played by the turn "
                    "timer), referee (R10): not graded")
    before: Optional[float] = Field(description="the mover's team's chance of winning with the best move (mover's view)")
    after: Optional[float] = Field(description="its chance with the move played, valued the same way")
    best: Optional[str] = Field(description="the best move in that valuation")
    loss: Optional[float] = Field(description="before - after, never negative")
    tier: Optional[Literal["inaccuracy", "mistake", "blunder"]] = Field(description="the move's grade (null: none)")
    accuracy: Optional[float] = Field(description="the move's accuracy in percent")
    chances: List[float] = Field(description="every team's chance after the entry, as a spectator sees it (sums to 1)")
    notes: List[ReviewNote] = Field(default_factory=list, description="the threats that decide at this move")


class ReviewPlayer(BaseModel):
    player: int
    team: int
    graded: int = Field(description="moves graded")
    accuracy: Optional[float] = Field(description="mean accuracy of the graded moves, percent")
    inaccuracy: int
    mistake: int
    blunder: int


class ReviewData(BaseModel):
    method: str = Field(description="how the review was made (win-chance/5: the calibrated estimator and the exact threats)")
    teams: int
    tiers: Dict[str, float] = Field(description="the least loss of each tier")
    moves: List[ReviewedMoveModel]
    curve: List[List[float]] = Field(description="every team's chance after the deal and after every entry "
                                                 "(and the result after a resignation)")
    events: List[Dict[str, Any]] = Field(description="a resignation or the turn cap, after the last move")
    players: List[ReviewPlayer]
    result: Optional[Dict[str, Any]] = None


class ReviewStatus(BaseModel):
    """A review: ``ready`` with the review, ``running`` with its progress, ``none`` (404) before one is asked for."""

    status: Literal["ready", "running", "none"]
    review: Optional[ReviewData] = None
    done: Optional[int] = None
    total: Optional[int] = None
    detail: Optional[str] = None
