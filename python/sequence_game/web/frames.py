"""The frames of the real-time channels, shared by their routers: the websocket's client frames
(``routers/socket.py`` reads them), the NDJSON streams' response (``routers/events.py``,
``routers/ai.py``) and the description of both in the OpenAPI document (FastAPI describes no
websocket). The server's frames are declared in ``models/frames.py`` (``models.ServerFrame``)."""

from __future__ import annotations

from typing import Annotated, Any, Dict, Literal, Optional, Tuple, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from starlette.responses import StreamingResponse

from . import models
from .errors import BadMessageError
from .tables import MAX_CHAT_TEXT

__all__ = ["AnalysisMsg", "AnyClientMsg", "ChatMsg", "ClientMessage", "Hello", "NDJSONResponse", "PlayMsg",
           "ReportMsg", "SimpleMsg", "document_frames", "parse_client_frame"]


class NDJSONResponse(StreamingResponse):
    """A stream of JSON objects, one a line (the table's events, an analysis as it goes)."""

    media_type = "application/x-ndjson"


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Hello(_Msg):
    type: Literal["hello"]
    token: Optional[str] = Field(None, max_length=128)
    chat: bool = False  # take part in the table's chat (tables/chat.py)


class PlayMsg(_Msg):
    type: Literal["move"]
    move: str = Field(max_length=models.MOVE_TEXT_MAX)
    version: Optional[int] = Field(None, ge=0, le=models.VERSION_MAX)


class SimpleMsg(_Msg):
    type: Literal["undo", "hint", "reveal", "ping", "resign", "abort", "rematch", "decline", "stop"]


class AnalysisMsg(models.AnalysisStreamRequest):
    """Start a streaming analysis of your position: ``analysis`` frames to this connection alone."""

    type: Literal["analysis"]


class ChatMsg(_Msg):
    type: Literal["chat"]
    text: str = Field(max_length=MAX_CHAT_TEXT)


class ReportMsg(_Msg):
    type: Literal["report"]
    message: int = Field(ge=1, le=models.VERSION_MAX)


AnyClientMsg = Union[PlayMsg, SimpleMsg, AnalysisMsg, Hello, ChatMsg, ReportMsg]
ClientMessage: TypeAdapter[AnyClientMsg] = TypeAdapter(Annotated[AnyClientMsg, Field(discriminator="type")])


def parse_client_frame(text: str) -> AnyClientMsg:
    """The client frame ``text`` (JSON), or BadMessageError naming the first thing wrong with it."""
    try:
        return ClientMessage.validate_json(text)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(x) for x in first.get("loc", ()))
        raise BadMessageError(f"bad message ({where}: {first.get('msg')}); see the protocol in docs/web.md") from None


def document_frames(schema: Dict[str, Any]) -> Dict[str, Any]:
    """Add the websocket's frames to an OpenAPI document (FastAPI describes no websocket): their
    schemas under ``components/schemas`` and, on the websocket's GET operation, ``x-client-frames``
    and ``x-server-frames`` (a ``oneOf`` of references each); and the NDJSON streams' lines as
    their 200 answers."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    refs = "#/components/schemas/{model}"
    frames = {}
    for key, adapter in (("x-server-frames", TypeAdapter(models.ServerFrame)), ("x-client-frames", ClientMessage)):
        js = adapter.json_schema(ref_template=refs)
        components.update(js.pop("$defs", {}))
        frames[key] = js
    paths = schema.get("paths", {})
    op = paths.get("/api/tables/{table_id}/ws", {}).get("get")
    if op is not None:
        op.update(frames)
    streams: Tuple[Tuple[str, str, TypeAdapter[Any]], ...] = (
        ("/api/tables/{table_id}/stream", "get", TypeAdapter(models.StreamLine)),
        ("/api/tables/{table_id}/analysis/stream", "post", TypeAdapter(models.AnalysisLine)))
    for path, method, line in streams:
        op = paths.get(path, {}).get(method)
        if op is None:
            continue
        lines = line.json_schema(ref_template=refs)
        components.update(lines.pop("$defs", {}))
        op["responses"]["200"] = {"description": "one JSON object a line (NDJSON), as the websocket's frames",
                                  "content": {NDJSONResponse.media_type: {"schema": lines}}}
        for code, response in op["responses"].items():  # refusals are JSON, before the stream starts
            if code != "200" and "content" in response:
                response["content"] = {"application/json": next(iter(response["content"].values()))}
    return schema
