"""The server's frames on the websocket and lines of the event stream (``routers/socket.py``,
``routers/events.py``); the client's frames are ``web/frames.py``."""

from __future__ import annotations

from typing import Annotated, List, Literal, Optional, Union

from pydantic import BaseModel, Field

from .ai import AnalysisInfo
from .views import RematchOffer, TableView


class StateFrame(BaseModel):
    """The table changed (a move, an undo, the AI starting or stopping to think, a reveal), or the
    connection just opened: the whole view as this connection may see it."""

    type: Literal["state"]
    view: TableView


class PresenceFrame(BaseModel):
    """A seat came online or left."""

    type: Literal["presence"]
    connected: List[bool] = Field(description="per seat: a websocket or event stream of it is open")


class HintFrame(BaseModel):
    """The answer to a ``hint`` frame, to the asker only."""

    type: Literal["hint"]
    move: str = Field(description="the AI's move for your seat (text notation)")
    version: int = Field(description="the table version the hint was asked at (and is for)")


class ErrorFrame(BaseModel):
    """A refused frame: nothing changed, so no ``state`` follows it. Before a close (a connection
    refused at its hello) the close code is 4000 + the HTTP status."""

    type: Literal["error"]
    error: str = Field(description="the error class: IllegalMoveError, InvalidMoveError, BadMessageError, ...")
    detail: str = Field(description="what was wrong and what would be right")


class RematchFrame(BaseModel):
    """A rematch table exists: the same seat tokens work there."""

    type: Literal["rematch"]
    table: str = Field(description="the new table's id")


class RematchOfferFrame(BaseModel):
    """A rematch offer was made or accepted (``offer``), or ended without a rematch (``offer`` null,
    ``ended`` saying how and ``seat`` by whom); a state follows."""

    type: Literal["rematch-offer"]
    offer: Optional[RematchOffer]
    ended: Optional[Literal["declined", "withdrawn", "expired", "left"]] = Field(
        description="how the offer ended: declined or withdrawn (by ``seat``), expired (60 s unanswered), or "
                    "left (every page of ``seat`` closed); null while it is open")
    seat: Optional[int] = Field(description="the seat that ended it, or null")


class TimeoutFrame(BaseModel):
    """A human seat's turn timer ran out and the AI moved for it (a state follows)."""

    type: Literal["timeout"]
    seat: int
    move: str = Field(description="the move played for that seat (text notation)")


class FlagFrame(BaseModel):
    """A human seat's game clock ran out and its team lost on time (a state follows)."""

    type: Literal["flag"]
    seat: int


class ChatFrame(BaseModel):
    """A chat message of a room this connection reads (tables/chat.py): plain text, never HTML."""

    type: Literal["chat"]
    id: int = Field(description="the message's number at this table (send it in a report frame)")
    channel: Literal["players", "spectators"]
    from_: str = Field(alias="from", description="the writer: a seat's name, a signed-in spectator's account "
                                                 "name, or 'Spectator N'")
    seat: Optional[int] = Field(description="the writer's seat, null for a spectator")
    account: Optional[str] = Field(None, description="the writer's account (null: a guest or a spectator)")
    text: str = Field(description="plain text: show it as text, never as HTML")
    at: str = Field(description="when it was sent: ISO 8601 UTC text to the millisecond, 2026-12-01T14:30:00.123Z")


class ChatLogFrame(BaseModel):
    """After the first state: whether the chat is on, the chat box's notice, and the kept messages
    this connection may read."""

    type: Literal["chat-log"]
    enabled: bool
    notice: str = Field(description="what the chat box says: who reads this room (no table talk, R10)")
    you: Optional[str] = Field(description="a spectator's name in its room (its account's name, or 'Spectator N'); "
                                           "null for a seat")
    messages: List[ChatFrame]


class ReportedFrame(BaseModel):
    """A report frame was taken: the operator will read the message."""

    type: Literal["reported"]
    message: int


class SpectatorsFrame(BaseModel):
    """To a seat's connection in the chat: how many connections watch without a seat; after its
    ``chat-log`` and whenever a spectator comes or goes."""

    type: Literal["spectators"]
    count: int = Field(description="open spectator connections (websockets and event streams)")


class PongFrame(BaseModel):
    """The answer to a ``ping`` frame."""

    type: Literal["pong"]


ServerFrame = Annotated[Union[StateFrame, PresenceFrame, HintFrame, AnalysisInfo, RematchFrame, RematchOfferFrame,
                              TimeoutFrame, FlagFrame, ChatFrame, ChatLogFrame, ReportedFrame, SpectatorsFrame,
                              ErrorFrame, PongFrame],
                        Field(discriminator="type")]


StreamLine = Annotated[Union[StateFrame, PresenceFrame, RematchFrame, RematchOfferFrame, TimeoutFrame, FlagFrame],
                       Field(discriminator="type")]


#: A line of POST /api/tables/{id}/analysis/stream: an update, or the one refusal that can come
#: after the stream started.
AnalysisLine = Annotated[Union[AnalysisInfo, ErrorFrame], Field(discriminator="type")]
