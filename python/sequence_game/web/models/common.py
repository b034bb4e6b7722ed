"""What every model of the HTTP API shares: the bounds of ids, versions, move texts and AI think
times, the strict base of every request body, a guest's name, and the error body."""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Optional

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..limits import ServerLimits

MOVE_TEXT_MAX = 64  # "2H@e6 =a6-e6 =e6-i6" is 19 characters; declares of 3 sequences fit easily
TABLE_ID_MAX = 64  # a table id is 8 characters; longer path segments are not looked up
VERSION_MAX = 2**53  # a table's version counts its changes; JSON numbers are exact up to here


#: The AI think time a request may ask for: one truth with the server's default cap
#: (ServerLimits.max_ai_seconds); a server configured lower caps it further.
AI_SECONDS_MIN, AI_SECONDS_MAX = 0.05, ServerLimits().max_ai_seconds


#: a number in brackets, as a rating is shown beside an account's name ("alice (500?)"); full-width
#: and other look-alike brackets and digits are read as these first (NFKC)
_RATING_LOOK = re.compile(r"[(\[{<]\s*[-+]?\s*\d[\d\s.,]*\??\s*[)\]}>]")


def check_guest_name(name: Optional[str]) -> Optional[str]:
    """A name a request gives a seat or a seek (a guest's: an account plays under its own): free
    text, but never a number in brackets, which would read as a rating (docs/club.md, "Names")."""
    if name is not None and _RATING_LOOK.search(unicodedata.normalize("NFKC", name)):
        raise ValueError("a guest's name may not hold a number in brackets: it would read as an account's "
                         "rating (sign in to play under your account)")
    return name


#: the name of a guest's seat or seek (``check_guest_name``)
GuestName = Annotated[Optional[str], Field(None, max_length=32), AfterValidator(check_guest_name)]


class Strict(BaseModel):
    # every field bounded (lengths, ranges, finite numbers) so that no request does work in
    # proportion to a number it sends before that number is checked; strict: a number is a number
    # (false is not the seed 0, "2" not the player count 2)
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class ErrorBody(BaseModel):
    detail: str = Field(description="what was wrong (the Python API's message for a refused move)")
    error: str = Field(description="the error class: IllegalMoveError, InvalidMoveError, TableError, ...")
