"""End-to-end in Japanese, Korean and Spanish (docs/i18n.md): Chromium with ``Accept-Language`` ja,
ko and es plays the computer from the lobby, finishes a game, reads its review, fails a login and
switches the language with the menu; every page's ``lang``, its words in the language (CJK fonts
present), no horizontal scrolling at phone width, and axe without violations. Screenshots at
desktop and phone width go where test_web_e2e.py puts its own (``i18n-<lang>-<page>-<width>.png``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

from test_web_e2e import _near_final_with_r7_choice, api, browser, server, shot  # the same server and browser

pytestmark = pytest.mark.e2e
__all__ = ["browser", "server"]

LANGS = ["ja", "ko", "es"]
WIDTHS = {"desktop": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
#: a word of each page in each language (the catalogs' own translations)
WORDS = {
    "ja": {"lobby": "コンピューターと対戦", "turn": "あなたの番", "won": "あなたの勝ち\uff01", "review": "精度", "login": "名前かパスワードが違います",
           "rules": "片目のジャック"},
    "ko": {"lobby": "컴퓨터와 대결", "turn": "내 차례", "won": "이겼습니다!", "review": "정확도", "login": "이름이나 비밀번호가 틀렸습니다",
           "rules": "옆을 보는 잭"},
    "es": {"lobby": "Jugar contra la computadora", "turn": "Tu turno", "won": "¡Has ganado!", "review": "Precisión",
           "login": "Nombre o contraseña incorrectos", "rules": "jota de un ojo"},
}
FONTS = {"ja": "Noto Sans CJK JP", "ko": "Noto Sans CJK KR"}


def _axe(page):
    """Every axe violation on ``page`` (any impact), and the serious or critical "incomplete" findings
    but one kind: a contrast axe could not measure because it cannot see the text's background (an
    SVG text of the board: tests/test_svg.py measures those; the game-over dialog's text over the
    page behind the dialog: the dialog's own colours are those of every box, measured where axe can)."""
    axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright")
    r = axe_sync.Axe().run(page).response
    found = r["violations"] + [v for v in r["incomplete"] if v["impact"] in ("serious", "critical")]
    out = []
    for v in found:
        nodes = [n for n in v["nodes"] if not (v in r["incomplete"] and v["id"] == "color-contrast"
                                               and (n["html"].startswith("<text") or "gameover" in str(n["target"])))]
        if nodes:
            why = [c["message"] for n in nodes[:1] for c in n.get("any", []) + n.get("all", []) + n.get("none", [])]
            out.append((v["id"], v["impact"], [n["target"] for n in nodes][:3], why[:2]))
    return out


def _check(page, lang, name, width):
    """The page is in ``lang``, fits the screen's width, passes axe; a screenshot is kept."""
    assert page.get_attribute("html", "lang") == lang
    page.wait_for_timeout(150)  # fonts and the last render
    wide = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert wide <= 1, f"{lang} {name} at {width}: {wide} px wider than the screen"
    if lang in FONTS:
        assert page.evaluate(f"document.fonts.check('16px \"{FONTS[lang]}\"', '日本語한국어')"), "no CJK font"
    shot(page, f"i18n-{lang}-{name}-{width}")
    assert not _axe(page), (lang, name, width, _axe(page))


def _context(browser, lang, width):
    return browser.new_context(viewport=WIDTHS[width], locale=lang, extra_http_headers={"Accept-Language": f"{lang},en;q=0.3"})


def _english_words():
    """The words of the English messages that no Spanish message uses ("the", "card", "turn", ...):
    one of them in a page in another language is English that bypassed the catalogs."""
    from babel.messages.pofile import read_po

    root = Path(__file__).resolve().parent.parent / "python" / "sequence_game" / "locale"
    english, spanish = set(), set()
    with (root / "es" / "LC_MESSAGES" / "sequence_game.po").open("rb") as f:
        for m in read_po(f):
            ids = m.id if isinstance(m.id, tuple) else (m.id,)
            strings = m.string if isinstance(m.string, tuple) else (m.string,)
            english.update(w.lower() for i in ids for w in re.findall(r"[A-Za-z]{3,}", re.sub(r"\{\w*\}", " ", i)))
            spanish.update(w.lower() for s in strings for w in re.findall(r"[A-Za-zÀ-ÿ]{3,}", re.sub(r"\{\w*\}", " ", s)))
    return english - spanish - {"sequence", "http", "api"}


ENGLISH = _english_words()


def _no_english(text, allowed=()):
    """Words of English a player would meet in ``text`` (names, cards and cells left out)."""
    return [w for w in re.findall(r"[A-Za-z]{3,}", text) if w.lower() in ENGLISH and w not in allowed]


@pytest.mark.parametrize("width", list(WIDTHS))
@pytest.mark.parametrize("lang", LANGS)
def test_play_the_computer_in_each_language(server, browser, lang, width):
    ctx = _context(browser, lang, width)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server + "/")
    page.wait_for_selector("#pc-level option", state="attached")
    assert WORDS[lang]["lobby"] in page.inner_text("main")
    _check(page, lang, "lobby", width)
    # the lobby's form in one click: level 1, seat 1, no clock; the table in the same language
    page.select_option("#pc-level", "1")
    page.select_option("#pc-seat", "0")
    page.click("#pc-play")
    page.wait_for_url("**/table/**")
    page.wait_for_selector("#status.mine")
    assert WORDS[lang]["turn"] in page.inner_text("#status")
    card = page.locator(".hand-card:not(.nomove):not(.dead)").first
    card.click()
    page.locator("#board .cell.target").first.click()
    page.wait_for_function("document.querySelectorAll('#log li').length >= 2")  # the move and the computer's answer
    page.wait_for_selector("#status.mine")
    seats = page.inner_text("#seats")
    assert "level" not in seats and "AI" not in seats, seats  # the computer's seat named in the language
    assert not _no_english(page.inner_text(".panel"), allowed=("Enter", "Esc")), _no_english(page.inner_text(".panel"))
    _check(page, lang, "table", width)
    page.click("details.keyboard-help summary") if width == "desktop" else None
    ctx.close()
    assert not errors, errors


@pytest.mark.parametrize("lang", LANGS)
def test_finish_a_game_and_review_it_in_each_language(server, browser, lang):
    seed, moves, winner, last = _near_final_with_r7_choice()
    seats = [{"kind": "human", "name": "Ann"} if p == winner else {"kind": "ai", "ai": "easy"} for p in range(2)]
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": seed, "seats": seats, "moves": moves})
    for width in WIDTHS:
        ctx = _context(browser, lang, width)
        page = ctx.new_page()
        if width == "desktop":
            page.goto(t["seats"][0]["url"])
            page.wait_for_selector("#status.mine")
            card, cell = last.split()[0].split("@")
            page.click(f'.hand-card[data-card="{card}"]')
            page.click(f'#board .cell[data-cell="{cell}"]')
            page.wait_for_selector("#choices:not([hidden])")
            page.locator("#choices button[data-choice='1']").click()
        else:
            page.goto(t["seats"][0]["url"])
        page.wait_for_selector("dialog#gameover[open]")
        assert page.inner_text("#gameover-title") == WORDS[lang]["won"]
        text = page.inner_text("#gameover-text")
        assert "Ann" in text and not _no_english(text, allowed=("Ann",)), text
        _check(page, lang, "game-over", width)
        page.goto(server + f"/review/{t['table']}")
        page.wait_for_selector("#accuracy tr:nth-child(3)", timeout=120_000)
        assert WORDS[lang]["review"] in page.inner_text("#accuracy")
        about = page.inner_text("#about")
        assert not _no_english(about), about
        page.click("#first")
        page.click("#next")
        verdict = page.inner_text("#verdict")
        assert verdict and not _no_english(verdict, allowed=("Ann",)), verdict
        _check(page, lang, "review", width)
        page.goto(server + f"/replay/{t['table']}")
        page.wait_for_selector("#log li")
        _check(page, lang, "replay", width)
        ctx.close()


@pytest.mark.parametrize("lang", LANGS)
def test_login_rules_and_the_language_menu(server, browser, lang):
    for width in WIDTHS:
        ctx = _context(browser, lang, width)
        page = ctx.new_page()
        page.goto(server + "/login")
        page.fill("#login-name", "nobody")
        page.fill("#login-password", "wrong-password")
        page.click("#login-submit")
        page.wait_for_selector("#login-error:not(:empty)")
        assert page.inner_text("#login-error") == WORDS[lang]["login"] + ("." if lang != "ja" else "。")
        _check(page, lang, "login", width)
        page.goto(server + "/rules")
        assert WORDS[lang]["rules"] in page.inner_text("main").lower() or WORDS[lang]["rules"] in page.inner_text("main")
        assert page.evaluate("document.querySelector('.rules-board img').naturalWidth") > 0  # the board picture
        _check(page, lang, "rules", width)
        page.goto(server + "/players")
        page.wait_for_selector("#list:not([hidden])")
        _check(page, lang, "players", width)
        ctx.close()
    # the menu: from the browser's language to English and back; the choice is remembered (cookie)
    ctx = _context(browser, lang, "desktop")
    page = ctx.new_page()
    page.goto(server + "/")
    with page.expect_navigation():
        page.select_option("#lang-menu", "en")
    assert page.get_attribute("html", "lang") == "en" and "Play the computer" in page.inner_text("main")
    page.goto(server + "/rules")
    assert page.get_attribute("html", "lang") == "en"
    assert any(c["name"] == "lang" and c["value"] == "en" for c in ctx.cookies())
    with page.expect_navigation():
        page.select_option("#lang-menu", lang)
    assert page.get_attribute("html", "lang") == lang
    ctx.close()
