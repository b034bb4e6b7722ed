"""End-to-end: the live evaluation bar (docs/review.md) in headless Chromium. It is offered to a
spectator of a table where only AIs play and in the replay of a finished game, and never at a table
where a person plays a game still going (no help in a live game). Screenshots go where
test_web_e2e.py puts its own."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

from test_web_e2e import (  # the same server, browser and page fixtures
    _near_final_with_r7_choice,
    against_ai,
    api,
    browser,
    page,
    server,
    shot,
    wait_my_turn,
)

pytestmark = pytest.mark.e2e
__all__ = ["browser", "page", "server"]


def _bar(page):
    """The bar's segment widths (fractions of the bar) and its legend's texts, read in one script: at a
    live table each move draws the bar anew, and elements found by one call could be gone by the next."""
    widths, legend = page.evaluate("""() => [
        [...document.querySelectorAll('#chancebox .chance-bar .seg')].map(
            s => s.getBoundingClientRect().width / s.parentElement.getBoundingClientRect().width),
        [...document.querySelectorAll('#chancebox .chance-legend > span')].map(s => s.innerText)]""")
    return widths, [" ".join(t.split()) for t in legend]


def test_a_spectator_of_an_ai_only_table_sees_the_evaluation_bar(server, page):
    seats = [{"kind": "ai", "ai": "easy"}, {"kind": "ai", "ai": "medium"}]
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": 21, "seats": seats})
    page.goto(server + f"/table/{t['table']}")
    page.wait_for_function("document.querySelectorAll('#log li').length >= 4")
    page.wait_for_selector("#chancebox:not([hidden]) .chance-bar")
    widths, legend = _bar(page)
    # two AIs can finish the game before the bar is read (a busy machine): then it shows the result
    over = api(server, "GET", f"/api/tables/{t['table']}")["over"]
    assert len(widths) == 2 and abs(sum(widths) - 1) < 0.02 and (over or all(0 < w < 1 for w in widths)), widths
    assert legend[0].startswith("B blue ") and legend[1].startswith("G green "), legend
    assert sum(int(s.rsplit(" ", 1)[1].rstrip("%")) for s in legend) in (99, 100, 101), legend
    label = page.get_attribute("#chancebox .chance-bar", "aria-label")
    assert label.startswith("chance of winning: blue ") and "green" in label
    assert page.locator(".hand-card").count() == 0  # still the spectator's view: no hand (R9)
    shot(page, "20-evaluation-bar-ai-table")


def test_the_replay_shows_the_bar_at_every_step_ending_at_the_result(server, page):
    seed, moves, winner, last = _near_final_with_r7_choice()
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "ai", "ai": "easy"}]
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": seed, "seats": seats, "moves": [*moves, last]})
    page.goto(server + f"/replay/{t['table']}")
    page.wait_for_selector("#chancebox:not([hidden]) .chance-bar")
    widths, legend = _bar(page)
    assert widths[winner % 2] > 0.99 and legend[winner % 2].endswith(" 100%"), legend
    page.keyboard.press("Home")  # the deal: an open game, neither team sure of anything
    page.wait_for_function("document.querySelector('#status').textContent === 'The deal'")
    widths, _ = _bar(page)
    assert all(0.2 < w < 0.8 for w in widths), widths
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")  # one move before the end
    widths, legend = _bar(page)
    assert len(widths) == 2 and abs(sum(widths) - 1) < 0.02, widths
    shot(page, "21-evaluation-bar-replay")


def test_no_bar_where_a_person_plays_a_live_game(server, browser):
    t = api(server, "POST", "/api/tables", against_ai(22))
    assert api(server, "GET", f"/api/tables/{t['table']}")["chances"] is None
    for who, url in (("player", t["seats"][0]["url"]), ("spectator", server + f"/table/{t['table']}")):
        context = browser.new_context(viewport={"width": 1200, "height": 860})
        pg = context.new_page()
        pg.goto(url)
        if who == "player":
            wait_my_turn(pg)
        else:
            pg.wait_for_selector("#status:not(:empty)")
        assert pg.locator("#chancebox").is_hidden() and pg.locator(".chance-bar").count() == 0, who
        if who == "player":
            shot(pg, "22-no-evaluation-bar-for-a-player")
        context.close()
