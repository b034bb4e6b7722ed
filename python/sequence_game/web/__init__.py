"""Play in the browser: ``sequence-game serve`` (needs the ``[web]`` extra).

- :mod:`~sequence_game.web.tables`: live tables, seats and tokens, who sees what (R9), the AI off
  the event loop;
- :mod:`~sequence_game.web.fair`: the AI's threads shared fairly among client addresses;
- :mod:`~sequence_game.web.store`: the SQLite database of tables (``sequence-game-record/1`` records);
- :mod:`~sequence_game.web.dbfile`: the database file: its default place, the checks of a path, the
  online backup;
- :mod:`~sequence_game.web.models`: the HTTP API's request/response models;
- :mod:`~sequence_game.web.club`: optional accounts, ratings for team games, the player pages;
- :mod:`~sequence_game.web.app`: the FastAPI app (pages, API, websockets): ``create_app(db_path)``;
- ``static/``: the page (plain HTML, CSS and JavaScript, no build step).

docs/web.md describes the server, the API and the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List

if TYPE_CHECKING:
    from fastapi import FastAPI

MISSING_EXTRA = 'the web server needs the [web] extra: pip install "sequence-game[web]"'


def missing_dependencies() -> List[str]:
    """The web extra's modules that are not installed (empty when ``serve`` can run)."""
    import importlib.util

    # fastapi_offline: the Swagger UI and ReDoc files of /docs and /redoc, served locally (no CDN)
    # argon2 (passwords) and openskill (ratings): the accounts (web/club, docs/club.md)
    return [m for m in ("fastapi", "uvicorn", "websockets", "pydantic", "fastapi_offline", "argon2", "openskill")
            if importlib.util.find_spec(m) is None]


def create_app(*args: Any, **kwargs: Any) -> FastAPI:
    """``sequence_game.web.app.create_app`` (imported on first use: it needs the [web] extra)."""
    missing = missing_dependencies()
    if missing:
        raise ImportError(f"{MISSING_EXTRA} (missing: {', '.join(missing)})")
    from .app import create_app as _create

    return _create(*args, **kwargs)
