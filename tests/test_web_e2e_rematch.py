"""End-to-end in Chromium: a rematch is an offer (docs/web.md, "Rematch"), answered in the table
page's own dialog: offered and declined, withdrawn, expired, and accepted by everyone; axe on the
offer's dialog and banner. Screenshots go where tests/test_web_e2e.py puts them."""

# ruff: noqa: F811  (the fixtures of test_web_e2e.py are imported, then named as test arguments)
from __future__ import annotations

import contextlib

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("playwright.sync_api")

from sequence_game.web.tables import rematch as rematch_module
from test_web_e2e import TIMEOUT, api, axe_report, browser, server, shot  # noqa: F401

pytestmark = pytest.mark.e2e


@contextlib.contextmanager
def _finished_game(server, browser):
    """Ann's and Bob's pages at a game between them that Ann resigned (both see its end)."""
    t = api(server, "POST", "/api/tables", {"players": 2, "seats": [{"kind": "human", "name": "Ann"},
                                                                     {"kind": "human", "name": "Bob"}]})
    pages, errors = [], []
    try:
        for seat in t["seats"]:
            ctx = browser.new_context(viewport={"width": 1200, "height": 900})
            pg = ctx.new_page()
            pg.set_default_timeout(TIMEOUT)
            pg.on("pageerror", lambda e: errors.append(str(e)))
            pg.on("dialog", lambda d: errors.append(f"a browser pop-up: {d.message}"))
            pg.goto(seat["url"])
            pg.wait_for_selector("#seats li")
            pages.append((ctx, pg))
        api(server, "POST", f"/api/tables/{t['table']}/resign", {}, t["seats"][0]["token"])
        for _, pg in pages:
            pg.wait_for_selector("dialog#gameover[open]")
        yield t, pages[0][1], pages[1][1]
        assert not errors, errors
    finally:
        for ctx, _ in pages:
            ctx.close()


def _offer(ann, bob):
    """Ann offers; Bob's page asks him in its own dialog; Ann's banner waits for him."""
    ann.click("#gameover-rematch")
    bob.wait_for_selector("dialog#rematch-offer[open]")
    assert bob.inner_text("#rematch-offer-text") == "Ann (guest) offers a rematch."
    assert "s left to answer" in bob.inner_text("#rematch-offer-left")
    ann.wait_for_selector("#rematch-waiting")
    assert "Waiting for Bob (guest) to accept the rematch" in ann.inner_text("#rematch-waiting")


def test_a_rematch_offer_declined_makes_no_table(server, browser):
    with _finished_game(server, browser) as (t, ann, bob):
        _offer(ann, bob)
        shot(bob, "60-rematch-offer-dialog")
        shot(ann, "61-rematch-offer-waiting")
        assert axe_report(bob) == []  # the offer's dialog
        assert axe_report(ann) == []  # the waiting banner
        bob.click("#rematch-decline")
        ann.wait_for_selector("#rematch-note")
        assert ann.inner_text("#rematch-note") == "Bob (guest) declined the rematch."
        ann.wait_for_selector("#banner-rematch")  # Ann may offer again
        shot(ann, "62-rematch-declined")
        assert api(server, "GET", f"/api/tables/{t['table']}")["rematch"] is None
        assert bob.url.split("#")[0].endswith(t["table"])


def test_a_rematch_offer_withdrawn_closes_the_others_dialog(server, browser):
    with _finished_game(server, browser) as (t, ann, bob):
        _offer(ann, bob)
        assert ann.inner_text("#banner-decline") == "Withdraw the offer"
        ann.click("#banner-decline")
        bob.wait_for_selector("dialog#rematch-offer:not([open])", state="attached")
        bob.wait_for_selector("#rematch-note")
        assert bob.inner_text("#rematch-note") == "Ann (guest) withdrew the rematch offer."
        assert api(server, "GET", f"/api/tables/{t['table']}")["rematch"] is None


def test_a_rematch_offer_expires_unanswered(server, browser, monkeypatch):
    # the server runs in this process; 10 s: long enough for _offer to see the banner on a slow machine
    monkeypatch.setattr(rematch_module, "OFFER_SECONDS", 10.0)
    with _finished_game(server, browser) as (t, ann, bob):
        _offer(ann, bob)
        for pg in (ann, bob):
            pg.wait_for_selector("#rematch-note")
            assert pg.inner_text("#rematch-note") == "The rematch offer expired: nobody answered within a minute."
        assert not bob.locator("dialog#rematch-offer").evaluate("d => d.open")
        assert api(server, "GET", f"/api/tables/{t['table']}")["rematch"] is None


def test_a_rematch_accepted_by_everyone_takes_both_to_the_new_table(server, browser):
    with _finished_game(server, browser) as (t, ann, bob):
        _offer(ann, bob)
        assert api(server, "GET", f"/api/tables/{t['table']}")["rematch"] is None  # not before Bob accepts
        bob.click("#rematch-accept")
        for pg in (ann, bob):
            pg.wait_for_function(f"!location.pathname.endsWith('/{t['table']}')")
            pg.wait_for_selector("#seats li")
        assert ann.url.split("#")[0] == bob.url.split("#")[0]
        new = ann.url.split("/table/")[1].split("#")[0]
        for seat in (0, 1):
            view = api(server, "GET", f"/api/tables/{new}", token=t["seats"][seat]["token"])
            assert view["you"] == [seat] and not view["over"]
        shot(bob, "63-rematch-accepted")
