"""Accounts and the session: signing up, signing in, the password, the page language."""

from __future__ import annotations

from typing import Optional

from pydantic import BaseModel, Field

from ...i18n import LANGUAGES
from .common import Strict


class Credentials(Strict):
    """A name and a password: a sign-up (POST /api/accounts) or a login (POST /api/session)."""

    name: str = Field(max_length=40, description="3 to 20 letters, digits, '_' or '-'")
    password: str = Field(max_length=256, description="8 to 256 characters")


class Me(BaseModel):
    """The session: whether the server has accounts, and the account signed in (null: a guest)."""

    accounts: bool = Field(description="whether this server has accounts (serve --no-accounts: false)")
    name: Optional[str] = Field(description="the signed-in account's name; null: a guest")
    rating: Optional[int] = Field(None, description="its rating on the ladder's scale (docs/club.md)")
    provisional: Optional[bool] = None


class PasswordChange(Strict):
    old: str = Field(max_length=256, description="the account's password now")
    new: str = Field(max_length=256, description="the new password: 8 to 256 characters")


class LanguageChoice(Strict):
    language: str = Field(max_length=16, description="a language code: " + ", ".join(LANGUAGES))
