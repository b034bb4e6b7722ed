"""The AI at a table: its presets, a hint, an analysis and a streaming one."""

from __future__ import annotations

from typing import List, Literal, Optional

from pydantic import BaseModel, Field

from ..presets import AIPreset
from .common import AI_SECONDS_MAX, Strict


class PresetInfo(BaseModel):
    """An AI strength a seat may ask for."""

    name: AIPreset
    level: Optional[int] = Field(description="its level on the ladder, 1 (a beginner) to 8 (the strongest); null: "
                                             "not a level")
    rating: Optional[float] = Field(description="its measured rating on the ladder's scale (random = 0; "
                                              "docs/measurements.md), null when not measured")
    summary: str = Field(description="what plays (agents/levels.py; the measured ladder: docs/measurements.md)")
    time_cap: Optional[float] = Field(description="the longest it thinks per move, in seconds (null: at once)")


class AnalyzeRequest(Strict):
    """The body of POST /api/tables/{id}/analysis (required, ``{}`` for the default)."""

    seconds: float = Field(1.0, ge=0.01, le=AI_SECONDS_MAX,
                           description=f"search time budget, 0.01 to {AI_SECONDS_MAX:g} s (a server configured lower "
                                       "caps it further)")


#: Seconds between two lines of a streaming analysis, the least and the default.
ANALYSIS_EVERY_MIN, ANALYSIS_EVERY_DEFAULT = 0.05, 0.25


class AnalysisStreamRequest(Strict):
    """The body of POST /api/tables/{id}/analysis/stream and of the websocket's ``analysis`` frame
    (``{}`` for the defaults)."""

    seconds: float = Field(AI_SECONDS_MAX, ge=0.01, le=AI_SECONDS_MAX,
                           description=f"the whole search's time budget, 0.01 to {AI_SECONDS_MAX:g} s (a server "
                                       "configured lower caps it further); stop it sooner by closing the "
                                       "stream or with a `stop` frame")
    every: float = Field(ANALYSIS_EVERY_DEFAULT, ge=ANALYSIS_EVERY_MIN, le=AI_SECONDS_MAX,
                         description=f"seconds between two updates, {ANALYSIS_EVERY_MIN:g} to {AI_SECONDS_MAX:g}")


class HintResponse(BaseModel):
    move: str = Field(description="the AI's move for your seat (text notation)")
    version: int = Field(description="the table version the hint is for")


class RootMove(BaseModel):
    move: str = Field(description="text notation")
    visits: int = Field(description="how often the search tried it")
    value: float = Field(description="mean reward of the mover's team in [0, 1]")


class Analysis(BaseModel):
    best: str = Field(description="the move the search would play (text notation)")
    iterations: int = Field(description="search iterations run")
    seconds: float = Field(description="time searched")
    moves: List[RootMove] = Field(description="every root move, most visited first")


class AnalysisInfo(BaseModel):
    """One update of a streaming analysis (a line of POST /api/tables/{id}/analysis/stream, a
    websocket frame): the search so far, to the asking seat only (R9: it reads that seat's hand)."""

    type: Literal["analysis"]
    version: int = Field(description="the table version of the position analysed")
    best: Optional[str] = Field(description="the best move so far (text notation); null only on a last "
                                            "update of a search stopped before its first")
    iterations: int = Field(description="search iterations so far")
    seconds: float = Field(description="time searched so far")
    moves: List[RootMove] = Field(description="every root move so far, most visited first")
    done: bool = Field(description="the last update: the budget is spent or the search was stopped")
    interrupted: bool = Field(description="the search was stopped before its budget was spent (a `stop`, "
                                          "the table changed, the server stopping)")
