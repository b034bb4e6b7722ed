"""End-to-end in Chromium: finding a game (play the computer, a seek accepted from the lobby, quick
pairing), a game clock running out, the players' and spectators' chats; axe on the new parts.
Screenshots go where tests/test_web_e2e.py puts them (``$SEQUENCE_WEB_SCREENSHOTS``)."""

# ruff: noqa: F811  (the fixtures of test_web_e2e.py are imported, then named as test arguments)
from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

from test_web_e2e import TIMEOUT, api, axe_report, browser, page, server, shot  # noqa: F401

pytestmark = pytest.mark.e2e


def _new_page(browser):
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    pg = ctx.new_page()
    pg.set_default_timeout(TIMEOUT)
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    return ctx, pg, errors


def test_play_the_computer_in_one_click(server, page):
    page.goto(server + "/")
    page.select_option("#pc-level", "2")
    page.select_option("#pc-seat", "1")
    shot(page, "30-lobby-find-a-game")
    page.click("#pc-play")
    page.wait_for_url("**/table/**")
    page.wait_for_selector("#seats li")
    seats = page.locator("#seats li").all_inner_texts()
    # the computer's seat is named from its parts ("AI 1 (level:2)" in the record), the player's as "You"
    assert "Computer 1 (level 2)" in seats[0] and "level:" not in seats[0] and seats[1].split()[1] == "You"


def test_a_seek_accepted_from_the_lobby_seats_both_players(server, browser):
    (ca, a, ea), (cb, b, eb) = _new_page(browser), _new_page(browser)
    try:
        a.goto(server + "/")
        a.fill("#sk-name", "Ann")
        a.select_option("#sk-clock", "f10+5")
        a.click("#sk-post")
        a.wait_for_selector("#myseek:not([hidden])")
        b.goto(server + "/")
        b.fill("#sk-name", "Bob")
        row = b.locator("#seeks tr", has_text="Ann")
        row.wait_for()
        assert "10 min + 5 s" in row.inner_text()
        shot(b, "31-lobby-open-seek")
        row.get_by_role("button", name="accept the seek of Ann").click()
        b.wait_for_url("**/table/**")
        a.wait_for_url("**/table/**")  # the poster's page follows its seek to the table
        for pg in (a, b):
            pg.wait_for_selector("#seats .seat-clock")
            names = pg.locator("#seats li").all_inner_texts()
            assert "Ann" in names[0] and "Bob" in names[1]
        assert a.url.split("#")[0] == b.url.split("#")[0]
        shot(a, "32-seek-table-with-clocks")
        assert not ea and not eb, ea + eb
    finally:
        ca.close()
        cb.close()


def test_quick_pairing_brings_two_players_together(server, browser):
    (ca, a, ea), (cb, b, eb) = _new_page(browser), _new_page(browser)
    try:
        for pg in (a, b):
            pg.goto(server + "/")
            pg.select_option("#sk-clock", "b5+30")
        a.click("#sk-quick")
        a.wait_for_selector("#myseek:not([hidden])")
        b.locator("#seeks tr", has_text="bank 5 min").wait_for()
        b.click("#sk-quick")
        b.wait_for_url("**/table/**")
        a.wait_for_url("**/table/**")
        assert a.url.split("#")[0] == b.url.split("#")[0]
        assert not ea and not eb, ea + eb
    finally:
        ca.close()
        cb.close()


def test_the_clock_running_out_loses_on_time(server, page):
    t = api(server, "POST", "/api/tables", {"players": 2, "seats": [{"kind": "human", "name": "Ann"},
                                                                     {"kind": "human", "name": "Bob"}],
                                             "clock": {"kind": "fischer", "seconds": 10, "at_zero": "lose"}})
    tid, tokens = t["table"], {s["seat"]: s["token"] for s in t["seats"]}
    for _ in range(2):  # the first moves have a grace off the clock (docs/club.md, "Abort"): then it runs
        p = api(server, "GET", f"/api/tables/{tid}")["state"]["current_player"]
        legal = api(server, "GET", f"/api/tables/{tid}", token=tokens[p])["legal"]
        api(server, "POST", f"/api/tables/{tid}/moves", {"move": legal[0]}, tokens[p])
    view = api(server, "GET", f"/api/tables/{tid}")
    waiting = 1 - view["state"]["current_player"]
    page.goto(t["seats"][waiting]["url"])
    page.wait_for_selector("#seats .seat-clock")
    assert "clock" in page.inner_text("#clock")
    shot(page, "33-clock-running")
    page.wait_for_function("document.querySelector('#status').textContent.includes('ran out of time')", timeout=30_000)
    assert page.locator("#seats .seat-clock.flagged").count() == 1
    shot(page, "34-lost-on-time")


def test_chat_between_players_and_spectators_stays_apart(server, browser):
    t = api(server, "POST", "/api/tables", {"players": 2, "seats": [{"kind": "human", "name": "Ann"},
                                                                     {"kind": "human", "name": "Bob"}]})
    pages = [_new_page(browser) for _ in range(3)]
    (_, ann, _), (_, bob, _), (_, fan, _) = pages
    try:
        ann.goto(t["seats"][0]["url"])
        bob.goto(t["seats"][1]["url"])
        fan.goto(server + f"/table/{t['table']}")
        for pg in (ann, bob, fan):
            pg.wait_for_selector("#chatbox:not([hidden])")
        assert "table talk" in ann.inner_text("#chat-notice") and ann.inner_text("#chat-title") == "Players' chat"
        assert fan.inner_text("#chat-title") == "Spectators' chat" and "do not read" in fan.inner_text("#chat-notice")
        ann.wait_for_selector("#spectators:has-text('1 spectator')")  # the players see how many watch
        assert fan.locator("#spectators").is_hidden()
        hostile = "<img src=x onerror=\"window.__xss=1\">hello"
        ann.fill("#chattext", hostile)
        ann.press("#chattext", "Enter")
        bob.locator("#chatlog li", has_text="hello").wait_for()
        assert bob.locator("#chatlog .chat-text").last.inner_text() == hostile  # shown as the characters typed
        assert bob.locator("#chatlog img").count() == 0 and bob.evaluate("window.__xss") is None
        fan.fill("#chattext", "Ann should block")
        fan.click("#chatsend")
        fan.locator("#chatlog li", has_text="Ann should block").wait_for()
        assert fan.locator("#chatlog li button").count() == 0  # no mute or report of one's own message
        bob.fill("#chattext", "gg")
        bob.press("#chattext", "Enter")
        ann.locator("#chatlog li", has_text="gg").wait_for()
        # spectators never reach players during play, and players' talk stays with the players
        assert "Ann should block" not in ann.inner_text("#chatlog") + bob.inner_text("#chatlog")
        assert "gg" not in fan.inner_text("#chatlog") and "hello" not in fan.inner_text("#chatlog")
        ann.get_by_role("button", name="report this message from Bob").click()
        ann.locator("#chatlog li.reported", has_text="gg").wait_for()
        ann.get_by_role("button", name="mute Bob").click()
        assert "gg" not in ann.inner_text("#chatlog")
        shot(bob, "35-players-chat")
        shot(fan, "36-spectators-chat")
        for _, _pg, errors in pages:
            assert not errors, errors
    finally:
        for ctx, _, _ in pages:
            ctx.close()


def test_a_report_is_acknowledged_beside_the_message_reported(server, browser):
    t = api(server, "POST", "/api/tables", {"players": 2, "seats": [{"kind": "human", "name": "Ann"},
                                                                     {"kind": "human", "name": "Bob"}]})
    pages = [_new_page(browser) for _ in range(2)]
    (_, ann, _), (_, bob, _) = pages
    try:
        ann.goto(t["seats"][0]["url"])
        bob.goto(t["seats"][1]["url"])
        for text in ("first", "second"):
            bob.wait_for_selector("#chatbox:not([hidden])")
            bob.fill("#chattext", text)
            bob.press("#chattext", "Enter")
            ann.locator("#chatlog li", has_text=text).wait_for()
        first = ann.locator("#chatlog li", has_text="first")
        first.get_by_role("button", name="report this message from Bob").click()
        note = first.locator(".report-note")
        note.wait_for()
        assert "the server's operator will read that message" in note.inner_text()
        button = first.get_by_role("button", name="report this message from Bob")
        assert button.is_disabled() and button.inner_text() == "Reported"
        # only the message reported is marked, and the note is in view where the click was
        second = ann.locator("#chatlog li", has_text="second")
        assert second.locator(".report-note").count() == 0
        assert second.get_by_role("button", name="report this message from Bob").is_enabled()
        assert ann.inner_text("#message") == ""
        note.scroll_into_view_if_needed()
        assert note.is_visible()
        shot(ann, "37-chat-reported")
        for _, _pg, errors in pages:
            assert not errors, errors
    finally:
        for ctx, _, _ in pages:
            ctx.close()


@pytest.mark.parametrize("where", ["lobby", "table"])
def test_no_serious_accessibility_violations_in_the_new_parts(server, page, where):
    pytest.importorskip("axe_playwright_python.sync_playwright")
    if where == "lobby":
        api(server, "POST", "/api/seeks", {"players": 2, "name": "Axe", "clock": {"kind": "bank", "seconds": 300,
                                                                                   "increment": 30}})
        page.goto(server + "/")
        page.locator("#seeks tr", has_text="Axe").wait_for()
    else:
        t = api(server, "POST", "/api/tables", {"players": 2, "seats": [{"kind": "human", "name": "Ann"},
                                                                         {"kind": "human", "name": "Bob"}],
                                                 "clock": {"kind": "fischer", "seconds": 600, "increment": 5}})
        page.goto(t["seats"][0]["url"])
        page.wait_for_selector("#chatbox:not([hidden])")
        page.fill("#chattext", "hello")
        page.press("#chattext", "Enter")
        page.locator("#chatlog li").wait_for()
    bad = axe_report(page, serious_only=True)
    assert not bad, bad
