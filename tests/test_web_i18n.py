"""The pages in the reader's language (docs/i18n.md): chosen from Accept-Language, the cookie, the
account's choice; every page's ``lang`` and words; the menu; the refusal codes that stay the same."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("argon2")

from fastapi.testclient import TestClient
from sequence_game import i18n
from sequence_game.web.app import create_app
from sequence_game.web.club import ClubSettings
from web_support import BASE, first_moves

CHEAP = ClubSettings(hash_overrides=(("time_cost", 1), ("memory_cost", 8), ("parallelism", 1)), signup_burst=100)
PAGES = ["/", "/login", "/players", "/players/nobody", "/rules", "/table/abc", "/replay/abc", "/review/abc"]
TITLES = {"en": "How to play", "ja": "遊び方", "ko": "게임 방법", "es": "Cómo se juega"}


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(":memory:", ai_pause=0, club=CHEAP), base_url=BASE) as c:
        yield c


def _lang_of(html):
    return re.search(r'<html lang="([^"]+)">', html).group(1)


@pytest.mark.parametrize("lang", list(i18n.LANGUAGES))
def test_every_page_in_every_language(client, lang):
    for path in PAGES:
        r = client.get(path, headers={"Accept-Language": f"{lang},en;q=0.5"})
        assert r.status_code == 200, path
        assert _lang_of(r.text) == lang and r.headers["content-language"] == lang, path
        assert "{{" not in r.text, path  # every message filled in
        assert 'id="lang-menu"' in r.text and f'<option value="{lang}" lang="{lang}" selected>' in r.text, path
        assert "Accept-Language" in r.headers["vary"]
        if path != "/rules":
            assert TITLES[lang] in r.text, path  # the rules page is linked from every page but its own header
    rules = client.get("/rules", headers={"Accept-Language": lang}).text
    assert '<img src="/board.svg"' in rules and TITLES[lang] in rules


def test_the_pages_catalog_is_in_the_page(client):
    page = client.get("/table/abc", headers={"Accept-Language": "ko"}).text
    assert '<script id="i18n-catalog" type="application/json">' in page and "힌트: {move}" in page
    english = client.get("/table/abc", headers={"Accept-Language": "en"}).text
    assert '"messages": {}' in english


def test_an_unknown_language_is_english(client):
    r = client.get("/", headers={"Accept-Language": "fr-FR,de;q=0.9"})
    assert _lang_of(r.text) == "en" and "Play the computer" in r.text


def test_the_lobby_speaks_to_players_not_developers(client):
    """The API link is in the footer, not among the player's links; no "Seed" or "AI think time"."""
    page = client.get("/", headers={"Accept-Language": "en"}).text
    header, footer = re.search(r"<header.*?</header>", page, re.S).group(0), re.search(r"<footer.*?</footer>", page, re.S).group(0)
    assert "/docs" not in header and 'href="/docs"' in footer
    main = re.search(r"<main.*?</main>", page, re.S).group(0)
    for developer in ("Seed", "AI think time", "HTTP API", "(R10)"):
        assert developer not in main


def test_the_cookie_beats_the_browser_and_the_menu_sets_it(client):
    r = client.put("/api/session/language", json={"language": "es"})
    assert r.status_code == 204 and "lang=es" in r.headers["set-cookie"]
    page = client.get("/", headers={"Accept-Language": "ja"}, cookies={"lang": "es"})
    assert _lang_of(page.text) == "es"
    client.cookies.clear()


@pytest.mark.parametrize("bad", ["fr", "", "ja-JP; drop table", "x" * 17, 7])
def test_a_language_the_server_does_not_have_is_refused(client, bad):
    r = client.put("/api/session/language", json={"language": bad})
    assert r.status_code == 422
    assert r.json()["error"] in ("InvalidRequestError", "ValidationError")


def test_an_account_keeps_its_language_in_every_browser():
    app = create_app(":memory:", ai_pause=0, club=CHEAP)
    with TestClient(app, base_url=BASE) as a:
        origin = {"Origin": BASE}
        assert a.post("/api/accounts", json={"name": "kim", "password": "password1"}, headers=origin).status_code == 201
        assert a.put("/api/session/language", json={"language": "ko"}, headers=origin).status_code == 204
        session = a.cookies.get("sequence-session") or next(v for k, v in a.cookies.items() if k != "lang")
        # another browser: no language cookie, a Japanese browser, the same account signed in
        with TestClient(app, base_url=BASE) as b:
            b.cookies.clear()
            assert b.post("/api/session", json={"name": "kim", "password": "password1"}, headers=origin).status_code == 200
            assert "lang" not in b.cookies
            assert _lang_of(b.get("/", headers={"Accept-Language": "ja"}).text) == "ko"
        assert session


def test_the_menu_change_needs_the_pages_origin_when_signed_in():
    """Signed in by the cookie, a change from another site is refused (CSRF), as for any account write."""
    app = create_app(":memory:", ai_pause=0, club=CHEAP)
    with TestClient(app, base_url=BASE) as a:
        assert a.post("/api/accounts", json={"name": "lee", "password": "password1"}, headers={"Origin": BASE}).status_code == 201
        r = a.put("/api/session/language", json={"language": "ja"})  # no Origin
        assert r.status_code == 403 and r.json()["error"] == "NotAllowedError"


def test_refusal_codes_are_the_same_in_every_language(client):
    """The API's machine-readable code does not change with the language (the pages translate from it)."""
    codes = {client.get("/api/tables/nosuch", headers={"Accept-Language": lang}).json()["error"] for lang in i18n.LANGUAGES}
    assert codes == {"NoSuchTableError"}


def test_results_carry_their_parts(client):
    """A finished table's result has the fields a page builds its sentence from (who resigned, on
    time or not, the turns), so the sentence is in the reader's language."""
    r = client.post("/api/tables", json={"players": 2, "seats": [{"kind": "human"}, {"kind": "human"}]})
    t = r.json()
    token = t["seats"][0]["token"]
    first_moves(client, t["table"], {s["seat"]: s["token"] for s in t["seats"]})  # no abort: a resignation
    assert client.post(f"/api/tables/{t['table']}/resign", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    result = client.get(f"/api/tables/{t['table']}").json()["result"]
    assert result["resigned"] == 0 and result["on_time"] is False and result["turns"] == 2 and result["winner"] == 1
    assert result["aborted"] is None


def test_the_board_picture_speaks_the_language(client):
    svg = client.get("/board.svg", headers={"Accept-Language": "ja"})
    assert "フリー" in svg.text and "FREE" not in svg.text and "コーナースペース" in svg.text
    assert "Accept-Language" in svg.headers["vary"]
    assert "FREE" in client.get("/board.svg", headers={"Accept-Language": "en"}).text
