"""End-to-end in Chromium (docs/club.md, "Abort"): at a rated table the page offers Abort until
every player made a first move, then Resign; an aborted game says so on the table and the player
page and changes no rating; without a clock the page tells the waiting player it may abort; the
table page in Korean; a challenge to a player who sits at a table
shown on the table page with Accept and Decline. Screenshots in ``build/web-screenshots``."""

# ruff: noqa: F811  (the fixtures of test_web_e2e_club.py are imported, then named as test arguments)
from __future__ import annotations

import time

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("argon2")
pytest.importorskip("playwright.sync_api")

from test_web_e2e import axe_report
from test_web_e2e_club import TIMEOUT, browser, get, people, play_one_click_move, server, shot, sign_up  # noqa: F401
from test_web_e2e_people import _challenge

pytestmark = pytest.mark.e2e


def _rated_game(server, poster, name, taker, clock="f10+5"):
    """``poster`` (the account ``name``) posts a rated seek (``clock``: the lobby's choice, 10 min
    + 5 s unless told) and ``taker`` accepts it: both pages at the table."""
    poster.select_option("#sk-clock", clock)
    poster.check("#sk-rated")
    poster.click("#sk-post")
    poster.wait_for_selector("#myseek:not([hidden])")
    row = taker.locator("#seeks tr", has_text=name)
    row.wait_for()
    row.get_by_role("button", name=f"accept the seek of {name}").click()
    for pg in (taker, poster):
        pg.wait_for_url("**/table/**")
        pg.wait_for_selector("#seats .seat-clock" if clock != "none" else "#seats li")
    return taker.url.split("/table/")[1].split("#")[0]


def _wait_version(server, table, version):
    end = time.monotonic() + 20
    while get(server, f"/api/tables/{table}")["version"] == version:
        assert time.monotonic() < end, "the move did not reach the table"
        time.sleep(0.05)


def test_abort_at_a_rated_table_before_every_first_move(server, people):
    kim, lee = people(), people()
    sign_up(server, kim.page, "kim")
    sign_up(server, lee.page, "lee")
    k, m = kim.page, lee.page
    table = _rated_game(server, k, "kim", m)
    for pg in (k, m):  # Abort, not Resign; no clock runs in the first move's grace
        pg.wait_for_selector("#abort:not([hidden])")
        assert pg.is_hidden("#resign")
        assert "first move" in pg.inner_text("#clock")
    shot(k, "abort-01-rated-table-before-the-first-move")
    view = get(server, f"/api/tables/{table}")
    assert view["clock"]["running"] is None and view["clock"]["left"] == [600, 600]
    first = view["state"]["current_player"]
    play_one_click_move((k, m)[first])
    _wait_version(server, table, view["version"])
    second = (k, m)[1 - first]
    second.wait_for_selector("#abort:not([hidden])")  # its own first move is still to come
    second.click("#abort")
    second.wait_for_selector("dialog#abort-confirm[open]")
    assert axe_report(second) == []  # the page's own dialog
    second.click("#abort-yes")
    for pg in (k, m):
        pg.wait_for_selector("dialog#gameover[open]")
        assert pg.inner_text("#gameover-title") == "Game aborted"
        assert "Nobody wins or loses; no rating changes." in pg.inner_text("#gameover-text")
        assert pg.is_hidden("#abort") and pg.is_hidden("#resign")
    shot(second, "abort-02-aborted")
    assert get(server, f"/api/tables/{table}/ratings") == []
    for name in ("kim", "lee"):
        page = get(server, f"/api/players/{name}")
        assert page["rating"] == 500 and page["games"][0]["outcome"] == "aborted"
    k.goto(f"{server}/players/kim")
    row = k.locator("#games tr", has_text="aborted")
    row.wait_for()
    assert "not counted: the game was aborted before every player's first move" in row.inner_text()
    shot(k, "abort-03-player-page")


def test_at_a_table_without_a_clock_the_waiting_player_is_told_it_may_abort(server, people):
    """Nothing runs out at a rated table without a clock: a person who never makes a first move
    would hold the other forever, so the other's page says it may abort, and the abort counts for
    nobody."""
    ida, joe = people(), people()
    sign_up(server, ida.page, "ida")
    sign_up(server, joe.page, "joe")
    i, j = ida.page, joe.page
    table = _rated_game(server, i, "ida", j, clock="none")
    view = get(server, f"/api/tables/{table}")
    assert view["clock"] is None and view["turn_seconds"] is None and view["rated"]
    first = view["state"]["current_player"]
    mover, other = (i, j)[first], (i, j)[1 - first]
    names = [s["name"] for s in view["seats"]]
    waiting = f"{names[first]} has not made a first move yet: you may abort the game"
    other.wait_for_selector(f"#clock:has-text('{waiting}')")
    assert mover.inner_text("#clock") == ""  # its own turn: the page asks for the move, as before
    play_one_click_move(mover)
    _wait_version(server, table, view["version"])
    # now the other has not moved: the one who did waits, told it may end the wait
    mover.wait_for_selector(f"#clock:has-text('{names[1 - first]} has not made a first move yet')")
    assert other.inner_text("#clock") == ""
    shot(mover, "abort-08-no-clock-waiting-for-the-first-move")
    mover.click("#abort")
    mover.wait_for_selector("dialog#abort-confirm[open]")
    mover.click("#abort-yes")
    for pg in (i, j):
        pg.wait_for_selector("dialog#gameover[open]")
        assert "Nobody wins or loses; no rating changes." in pg.inner_text("#gameover-text")
        assert pg.inner_text("#clock") == ""
    record = get(server, f"/api/tables/{table}/record")
    assert record["ending"] == "aborted" and record["aborted"] == {"seat": first, "why": "abort"}
    assert get(server, f"/api/tables/{table}/ratings") == []
    assert [get(server, f"/api/players/{n}")["rating"] for n in ("ida", "joe")] == [500, 500]


def test_resign_replaces_abort_once_every_first_move_is_made_in_korean_too(server, browser, people):
    ko_context = browser.new_context(viewport={"width": 1200, "height": 860}, locale="ko-KR")
    try:
        han = ko_context.new_page()
        han.set_default_timeout(TIMEOUT)
        errors = []
        han.on("pageerror", lambda e: errors.append(str(e)))
        ned = people()
        sign_up(server, han, "han")
        sign_up(server, ned.page, "ned")
        table = _rated_game(server, han, "han", ned.page)
        han.wait_for_selector("#abort:not([hidden])")
        assert han.inner_text("#abort") != "Abort" and han.get_attribute("html", "lang") == "ko"
        shot(han, "abort-04-korean-before-the-first-move")
        for _ in range(2):  # one move each
            view = get(server, f"/api/tables/{table}")
            play_one_click_move((han, ned.page)[view["state"]["current_player"]])
            _wait_version(server, table, view["version"])
        for pg in (han, ned.page):
            pg.wait_for_selector("#resign:not([hidden])")
            assert pg.is_hidden("#abort")
        assert get(server, f"/api/tables/{table}")["clock"]["running"] is not None  # the clocks run now
        shot(ned.page, "abort-05-resign-after-the-first-moves")
        shot(han, "abort-06-korean-after-the-first-moves")
        assert not errors, errors
    finally:
        ko_context.close()


def test_a_challenge_reaches_a_player_at_a_table(server, people):
    ola, pia = people(), people()
    sign_up(server, ola.page, "ola")
    sign_up(server, pia.page, "pia")
    o = ola.page
    o.select_option("#pc-level", "1")
    o.click("#pc-play")  # ola plays the computer
    o.wait_for_url("**/table/**")
    o.wait_for_selector("#seats li")
    assert o.is_hidden("#challenge-notice")
    _challenge(pia.page, server, "ola")
    notice = o.locator("#challenge-notice li", has_text="pia")
    notice.wait_for()  # within the page's next question
    assert "challenges you" in notice.inner_text()
    shot(o, "abort-07-challenge-at-the-table")
    assert axe_report(o) == []
    notice.get_by_role("button", name="Decline the challenge of pia").click()
    o.wait_for_selector("#challenge-notice", state="hidden")
    pia.page.locator("#challenges-out li", has_text="declined").wait_for()
