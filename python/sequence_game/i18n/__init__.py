"""The languages a player reads: the message catalogs and how a language is chosen.

Catalogs are gettext ``.po`` files, one per language, in ``sequence_game/locale/<lang>/LC_MESSAGES/``;
the build compiles each to ``.mo`` (read here with the standard library's :mod:`gettext`) and to
``pages.json`` (the messages of the web pages' scripts, :mod:`sequence_game.i18n.build`). Adding a
language is one catalog file and one line of :data:`LANGUAGES` (docs/i18n.md).

Messages use ``str.format`` fields (``"{name} resigned"``), the same in every language.
"""

from __future__ import annotations

import gettext
import json
import os
import sys
from functools import cache
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional

__all__ = [
    "DEFAULT",
    "DOMAIN",
    "LANGUAGES",
    "N_",
    "_",
    "activate",
    "active",
    "catalog_dirs",
    "from_environment",
    "gettext_for",
    "negotiate",
    "ngettext",
    "normalize",
    "page_catalog",
    "translation",
]

#: Every language a player can choose: its code and its own name, as the menu shows it.
LANGUAGES: Dict[str, str] = {
    "en": "English",
    "ja": "日本語",
    "ko": "한국어",
    "es": "Español",
}
DEFAULT = "en"
DOMAIN = "sequence_game"


def catalog_dirs() -> List[Path]:
    """Where compiled catalogs may be: ``locale/`` beside the package's modules on each of its
    paths (a wheel's one directory; an editable install's build output and its sources)."""
    package = sys.modules.get(__name__.rpartition(".")[0])
    paths = list(getattr(package, "__path__", None) or [Path(__file__).resolve().parent.parent])
    return [Path(p) / "locale" for p in paths]


def normalize(code: Optional[str]) -> Optional[str]:
    """The language of ``code`` (``"ja_JP.UTF-8"``, ``"es-MX"``, ``"KO"``) if it is one of
    :data:`LANGUAGES`, else None."""
    if not code:
        return None
    base = code.strip().split(".")[0].split("@")[0].replace("_", "-").split("-")[0].lower()
    return base if base in LANGUAGES else None


def negotiate(accept_language: Optional[str]) -> str:
    """The language to answer an HTTP ``Accept-Language`` header with: the highest-weighted one we
    have (``"ja,en;q=0.8"`` -> ``"ja"``), else :data:`DEFAULT`."""
    best, best_q = DEFAULT, -1.0
    for i, part in enumerate((accept_language or "").split(",")[:32]):
        fields = part.strip().split(";")
        lang = normalize(fields[0])
        q = 1.0
        for f in fields[1:]:
            key, _, value = f.strip().partition("=")
            if key == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if lang is not None and q > 0 and q - i * 1e-6 > best_q:  # the earlier of two equal weights
            best, best_q = lang, q - i * 1e-6
    return best


def from_environment(environ: Optional[Mapping[str, str]] = None) -> str:
    """The terminal's language from the locale variables as gettext reads them (``LANGUAGE``,
    ``LC_ALL``, ``LC_MESSAGES``, ``LANG``: the first set one decides), else :data:`DEFAULT`."""
    env = os.environ if environ is None else environ
    for var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value:
            for code in value.split(":"):  # LANGUAGE is a list
                lang = normalize(code)
                if lang is not None:
                    return lang
            if var != "LANGUAGE":
                return DEFAULT  # C, POSIX or a language we do not have
    return DEFAULT


@cache
def translation(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of ``lang``; English (the messages themselves) for an unknown one or
    when no catalog was built."""
    if lang != DEFAULT and lang in LANGUAGES:
        for d in catalog_dirs():
            mo = d / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
            if mo.is_file():
                with mo.open("rb") as f:
                    return gettext.GNUTranslations(f)
    return gettext.NullTranslations()


def gettext_for(lang: str) -> Callable[[str], str]:
    """The ``gettext`` function of ``lang``."""
    return translation(lang).gettext


@cache
def page_catalog(lang: str) -> str:
    """The web pages' catalog of ``lang`` as JSON text: ``{"lang", "plural", "messages"}`` where
    ``plural`` lists the language's CLDR plural categories in the order of its forms and each
    message maps to its translation (a list of forms for a plural message). English: no messages
    (the ids are the text)."""
    if lang != DEFAULT and lang in LANGUAGES:
        for d in catalog_dirs():
            path = d / lang / "pages.json"
            if path.is_file():
                return path.read_text(encoding="utf-8")
    return json.dumps({"lang": DEFAULT if lang not in LANGUAGES else lang, "plural": ["one", "other"], "messages": {}})


_active: List[str] = [DEFAULT]


def activate(lang: Optional[str]) -> str:
    """Make ``lang`` (a code or locale name; None or unknown: English) the language of :func:`_`
    and :func:`ngettext` in this process (the terminal game's); returns the language chosen."""
    _active[0] = normalize(lang) or DEFAULT
    return _active[0]


def active() -> str:
    """The language :func:`activate` chose."""
    return _active[0]


def N_(message: str) -> str:  # noqa: N802 (gettext's name for a message marked, not translated)
    """``message`` itself, marked for the catalogs (where the language is chosen later)."""
    return message


def _(message: str, **fields: Any) -> str:
    """``message`` in the active language, its ``{fields}`` filled in."""
    text = translation(_active[0]).gettext(message)
    return text.format(**fields) if fields else text


def ngettext(singular: str, plural: str, n: int, **fields: Any) -> str:
    """The form of ``singular``/``plural`` for the count ``n`` in the active language; ``{n}`` and
    the ``fields`` filled in."""
    return translation(_active[0]).ngettext(singular, plural, n).format(n=n, **fields)


def languages_menu(selected: str) -> Iterable[tuple[str, str, bool]]:
    """(code, own name, is selected) for each language, for a menu."""
    return ((code, name, code == selected) for code, name in LANGUAGES.items())
