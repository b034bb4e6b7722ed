"""End-to-end, people to play with (docs/club.md): a challenge from a player page accepted (both
browsers reach the rated table) and one declined; a block (no challenge from the blocked, none of
their chat at the blocker's table); follows and presence with a link to watch; the profile shown
as text; the leaderboard; axe with no violation on the pages changed. Debian's Chromium through
Playwright, as test_web_e2e_club.py; screenshots in ``build/web-screenshots``."""

# ruff: noqa: F811  (the fixtures of test_web_e2e_club.py are imported, then named as test arguments)
from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("argon2")
pytest.importorskip("playwright.sync_api")

from test_web_e2e import axe_report
from test_web_e2e_club import browser, get, people, server, shot, sign_up  # noqa: F401

pytestmark = pytest.mark.e2e


def _challenge(page, base, name, clock="none", rated=False, players="2"):
    page.goto(f"{base}/players/{name}")
    page.wait_for_selector("#challenge:not([hidden])")
    page.select_option("#ch-players", players)
    page.select_option("#ch-clock", clock)
    if rated:
        page.check("#ch-rated")
    page.click("#ch-send")


def test_a_challenge_from_a_player_page_accepted_takes_both_to_the_rated_table(server, people):
    amy, ben = people(), people()
    sign_up(server, amy.page, "amy")
    sign_up(server, ben.page, "ben")
    a, b = amy.page, ben.page
    _challenge(a, server, "ben", clock="f3+2", rated=True)
    a.wait_for_function("document.getElementById('ch-status').textContent.includes('Challenge sent')")
    a.locator("#challenges-out li", has_text="waiting for an answer").wait_for()
    assert not axe_report(a)
    shot(a, "people-01-challenge-sent")
    # ben, in the lobby, sees it come in (the card asks every few seconds)
    b.goto(server + "/")
    row = b.locator("#challenges-in li", has_text="amy")
    row.wait_for()
    assert "rated" in row.inner_text() and "3 min + 2 s" in row.inner_text()
    assert not axe_report(b)
    shot(b, "people-02-challenge-incoming")
    row.get_by_role("button", name="Accept the challenge of amy").click()
    b.wait_for_url("**/table/*#seat=*")
    a.wait_for_url("**/table/*#seat=*")  # amy's page went to her seat by itself
    table = b.url.split("/table/")[1].split("#")[0]
    assert a.url.split("/table/")[1].split("#")[0] == table
    view = get(server, f"/api/tables/{table}")
    assert view["rated"] and [(s["name"], s["account"]) for s in view["seats"]] == [("amy", "amy"), ("ben", "ben")]
    b.wait_for_selector("#board")
    shot(b, "people-03-challenge-table")


def test_a_challenge_declined_is_told_to_its_maker_and_makes_no_table(server, people):
    cat, dan = people(), people()
    sign_up(server, cat.page, "cat")
    sign_up(server, dan.page, "dan")
    tables = len(get(server, "/api/tables"))
    _challenge(cat.page, server, "dan")
    dan.page.goto(server + "/")
    row = dan.page.locator("#challenges-in li", has_text="cat")
    row.wait_for()
    row.get_by_role("button", name="Decline the challenge of cat").click()
    row.wait_for(state="detached")
    cat.page.locator("#challenges-out li", has_text="declined").wait_for()
    shot(cat.page, "people-04-challenge-declined")
    assert len(get(server, "/api/tables")) == tables


def test_follows_show_presence_and_a_link_to_watch_the_game(server, people):
    eve, fred, gus = people(), people(), people()
    for who, name in ((eve, "eve"), (fred, "fred"), (gus, "gus")):
        sign_up(server, who.page, name)
    e = eve.page
    e.goto(server + "/players/fred")
    e.wait_for_selector("#relation:not([hidden])")
    assert e.inner_text("#follow") == "Follow"
    e.click("#follow")
    e.wait_for_function("document.getElementById('follow').textContent === 'Unfollow'")
    assert e.get_attribute("#follow", "aria-pressed") == "true"
    row = e.locator("#following tr", has_text="fred")
    row.wait_for()
    assert row.locator("td").nth(2).inner_text() == "online"
    # fred plays gus (a casual challenge): eve's card says he is playing, with a link to watch
    _challenge(fred.page, server, "gus")
    gus.page.goto(server + "/")
    gus.page.locator("#challenges-in li", has_text="fred").get_by_role("button", name="Accept the challenge of fred").click()
    gus.page.wait_for_url("**/table/*")
    fred.page.wait_for_url("**/table/*")
    table = gus.page.url.split("/table/")[1].split("#")[0]
    e.goto(server + "/")
    watch = e.locator("#following tr", has_text="fred").get_by_role("link", name="watch the game of fred, gus")
    watch.wait_for()
    assert not axe_report(e)
    shot(e, "people-05-following-playing")
    e.goto(server + "/players/fred")
    e.wait_for_selector("#presence a")
    assert e.inner_text("#presence").startswith("Playing now:")
    e.click("#presence a")
    e.wait_for_url(f"**/table/{table}")
    e.wait_for_selector("#board")
    assert "#seat=" not in e.url  # a spectator


def test_a_block_stops_the_blocked_players_challenges_and_chat(server, people):
    hal, ida = people(), people()
    sign_up(server, hal.page, "hal")
    sign_up(server, ida.page, "ida")
    h, i = hal.page, ida.page
    # a game between them first, then hal blocks ida: her chat no longer reaches his page
    _challenge(i, server, "hal")
    h.goto(server + "/")
    h.locator("#challenges-in li", has_text="ida").get_by_role("button", name="Accept the challenge of ida").click()
    h.wait_for_url("**/table/*")
    i.wait_for_url("**/table/*")
    table_url = h.url
    for pg in (h, i):
        pg.wait_for_selector("#chatbox:not([hidden])")
    i.fill("#chattext", "hello hal")
    i.press("#chattext", "Enter")
    h.locator("#chatlog li", has_text="hello hal").wait_for()
    h.goto(server + "/players/ida")
    h.wait_for_selector("#relation:not([hidden])")
    h.click("#block")
    h.wait_for_function("document.getElementById('block').textContent === 'Unblock'")
    assert "cannot challenge you" in h.inner_text("#relation-error")
    assert h.is_hidden("#challenge")  # nor does he challenge her
    assert not axe_report(h)
    shot(h, "people-06-blocked")
    h.goto(table_url)
    h.wait_for_selector("#chatbox:not([hidden])")
    assert "hello hal" not in h.inner_text("#chatlog")  # the history hides her messages too
    i.fill("#chattext", "are you there")
    i.press("#chattext", "Enter")
    i.locator("#chatlog li", has_text="are you there").wait_for()
    h.fill("#chattext", "ping from hal")
    h.press("#chattext", "Enter")
    i.locator("#chatlog li", has_text="ping from hal").wait_for()  # his reach her
    assert "are you there" not in h.inner_text("#chatlog")
    # and ida's challenge is refused, said on her page
    _challenge(i, server, "hal")
    i.wait_for_function("document.getElementById('ch-status').textContent.length > 0")
    assert i.inner_text("#ch-status") == "You cannot challenge this player."
    assert get(server, "/api/players/hal")["presence"]["playing"]  # the block ended no game


def test_a_profile_is_saved_and_shown_as_text_and_the_leaderboard_lists_players(server, people):
    jo = people()
    page = jo.page
    sign_up(server, page, "joan")
    page.goto(server + "/players/joan")
    page.wait_for_selector("#profile:not([hidden])")
    hostile = "<img src=x onerror=pwned=1> likes\ntwo-eyed jacks"
    page.fill("#pf-country", "Chile")
    page.fill("#pf-bio", hostile)
    page.click("#pf-save")
    page.wait_for_function("document.getElementById('pf-status').textContent === 'Saved.'")
    page.wait_for_function("!document.getElementById('bio').hidden")
    assert page.inner_text("#country") == "Country: Chile"
    assert page.inner_text("#bio") == hostile
    assert page.locator("#bio img").count() == 0 and page.evaluate("window.pwned") is None
    assert not axe_report(page)
    shot(page, "people-07-profile")
    page.goto(server + "/players")
    page.wait_for_selector("#leaderboard:not([hidden])")
    assert not axe_report(page)
    shot(page, "people-08-leaderboard")
