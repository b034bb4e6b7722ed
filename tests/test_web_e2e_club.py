"""End-to-end, the club (docs/club.md): sign-up, login, a rated game between two accounts played to
its end in two browsers with both ratings updated, the player page, names shown as text, axe on
the new pages. The real server (uvicorn, in a thread) and Debian's Chromium through Playwright;
screenshots go to ``$SEQUENCE_WEB_SCREENSHOTS`` (default ``build/web-screenshots``)."""

# ruff: noqa: F811  (test_web_e2e.py's browser fixture is imported, then named as a test argument)
from __future__ import annotations

import json
import os
import time
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
pytest.importorskip("argon2")
pytest.importorskip("playwright.sync_api")

from sequence_game.web import create_app
from sequence_game.web.club import ClubSettings
from sequence_game.web.limits import ServerLimits
from test_web_e2e import axe_report, browser, play_one_click_move  # noqa: F401  (browser: the fixture)
from web_support import serving

pytestmark = pytest.mark.e2e

SHOTS = Path(os.environ.get("SEQUENCE_WEB_SCREENSHOTS")
             or Path(__file__).resolve().parent.parent / "build" / "web-screenshots")
TIMEOUT = 20_000  # ms
#: cheap argon2 (the real parameters are tested in test_web_accounts.py); sign-ups not limited here
SETTINGS = ClubSettings(hash_overrides=(("time_cost", 1), ("memory_cost", 8), ("parallelism", 1)),
                        signup_burst=100, login_burst=100)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    limits = ServerLimits(create_burst=200, create_per_minute=600.0, max_tables_per_client=200)
    app = create_app(tmp_path_factory.mktemp("club") / "tables.sqlite3", ai_pause=0.2, limits=limits, club=SETTINGS)
    with serving(app) as url:
        yield url


class Person:
    """One person: a browser context of their own (their own cookie), one page."""

    def __init__(self, browser):
        self.context = browser.new_context(viewport={"width": 1200, "height": 860})
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT)
        self.errors = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))


@pytest.fixture
def people(browser):
    made = []

    def make():
        made.append(Person(browser))
        return made[-1]

    yield make
    for p in made:
        p.context.close()
    assert not [e for p in made for e in p.errors]


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def get(base, path):
    with urllib.request.urlopen(base + path) as r:
        return json.load(r)


def sign_up(server, page, name, password="password1"):
    page.goto(server + "/login")
    page.fill("#signup-name", name)
    page.fill("#signup-password", password)
    page.click("#signup-submit")
    page.wait_for_url(server + "/")
    page.wait_for_selector("#account #logout")
    assert name in page.inner_text("#account")


def play_moves(server, table, by_seat, n):
    """``n`` moves at ``table`` in turn, each clicked on the page of the seat to move
    (``by_seat[seat]``) and waited for until the table's version moves on."""
    for _ in range(n):
        view = get(server, f"/api/tables/{table}")
        play_one_click_move(by_seat[view["state"]["current_player"]])
        end = time.monotonic() + 20
        while get(server, f"/api/tables/{table}")["version"] == view["version"]:
            assert time.monotonic() < end, "the move did not reach the table"
            time.sleep(0.05)


def test_sign_up_log_out_and_log_in_again(server, people):
    ann = people()
    page = ann.page
    sign_up(server, page, "ann")
    shot(page, "club-01-lobby-signed-in")
    page.click("#logout")
    page.wait_for_selector("#account #login-link")
    page.click("#login-link")
    page.fill("#login-name", "ann")
    page.fill("#login-password", "wrong password")
    page.click("#login-submit")
    page.wait_for_function("document.getElementById('login-error').textContent.length > 0")
    assert page.inner_text("#login-error") == "Wrong name or password."
    shot(page, "club-02-login-refused")
    page.fill("#login-password", "password1")
    page.click("#login-submit")
    page.wait_for_selector("#account #logout")
    assert "ann" in page.inner_text("#account")
    cookie = next(c for c in ann.context.cookies() if c["name"] == "sg_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert page.evaluate("document.cookie") == ""  # the page's scripts cannot read it


def test_a_signed_in_player_changes_the_password_and_another_browser_is_signed_out(server, people):
    eve, other = people(), people()
    page = eve.page
    sign_up(server, page, "eve")
    sign_up(server, other.page, "eve2")
    other.page.goto(server + "/login")
    other.page.click("#logout")
    other.page.wait_for_selector("#account #login-link")
    other.page.fill("#login-name", "eve")
    other.page.fill("#login-password", "password1")
    other.page.click("#login-submit")
    other.page.wait_for_selector("#account #logout")
    page.click("#password-link")  # the header's link to the form
    page.wait_for_selector("#password-card:not([hidden])")
    page.fill("#password-old", "not my password")
    page.fill("#password-new", "password2")
    page.click("#password-submit")
    page.wait_for_function("document.getElementById('password-error').textContent.length > 0")
    assert page.inner_text("#password-error") == "The password you gave as your password now is wrong."
    page.fill("#password-old", "password1")
    page.fill("#password-new", "password2")
    page.click("#password-submit")
    page.wait_for_function("document.getElementById('password-done').textContent.length > 0")
    assert page.inner_text("#password-done") == "Your password is changed; your other sessions have ended."
    shot(page, "club-08-password-changed")
    assert axe_report(page) == []
    page.reload()
    page.wait_for_selector("#account #logout")  # this browser stays signed in
    other.page.reload()
    other.page.wait_for_selector("#account #login-link")  # the other one is signed out


def test_a_rated_game_between_two_accounts_to_the_end_updates_both_ratings(server, people):
    alice, bob = people(), people()
    sign_up(server, alice.page, "alice")
    sign_up(server, bob.page, "bob")
    # alice: a rated table, her seat and an open one
    a = alice.page
    a.locator(".seat-row .kind").nth(1).select_option("open")
    a.check("#rated")
    a.click("#create")
    a.wait_for_url("**/table/**")
    table = a.url.split("/table/")[1].split("#")[0]
    # bob joins it from the lobby
    b = bob.page
    b.goto(server + "/")
    row = b.locator("#opentables tr", has_text=table)
    row.wait_for()
    assert "rated (accounts only)" in row.inner_text()
    row.locator("button").click()
    b.click("#join-yes")  # the page's name dialog, left empty: an account plays under its own name
    b.wait_for_url(f"**/table/{table}#**")
    b.wait_for_selector("#seats a")
    assert [s["account"] for s in get(server, f"/api/tables/{table}")["seats"]] == ["alice", "bob"]
    # one move each, then alice resigns
    play_moves(server, table, (a, b), 2)
    a.wait_for_selector("#resign:not([hidden])")
    a.click("#resign")
    a.click("#resign-yes")  # the page's own dialog asks first
    for page in (a, b):
        page.wait_for_selector("dialog#gameover[open]")
        page.wait_for_selector("#gameover-ratings li")
        text = page.inner_text("#gameover-ratings")
        assert "alice: 500 \u2192" in text and "bob: 500 \u2192" in text, text
        assert "(\u2212" in text and "(+" in text
    shot(b, "club-03-rated-game-over")
    b.click("#gameover-close")
    assert b.locator("#ratings li").count() == 2  # stays in the table's end state
    changes = {r["name"]: r for r in get(server, f"/api/tables/{table}/ratings")}
    assert changes["bob"]["after"] > 500 > changes["alice"]["after"]
    # bob's page: the rating, its graph, the game with its links
    b.goto(server + "/players/bob")
    b.wait_for_selector("#graph svg polyline")
    assert f"Rating {changes['bob']['after']}?" in b.inner_text("#summary")
    games = b.locator("#games tr")
    assert games.count() == 1 and "won (resignation)" in games.first.inner_text()
    assert games.first.locator("a", has_text="replay").get_attribute("href") == f"/replay/{table}"
    assert games.first.locator("a", has_text="review").get_attribute("href") == f"/review/{table}"
    shot(b, "club-04-player-page")
    b.goto(server + "/players")
    b.wait_for_selector("#players a")
    assert b.locator("#players tr").first.inner_text().startswith("bob")
    shot(b, "club-05-player-list")
    b.goto(server + "/")
    b.wait_for_selector(".seat-row")
    shot(b, "club-06-lobby-with-rated")


def test_a_rated_seek_accepted_from_the_lobby_then_resigned_changes_both_ratings(server, people):
    gil, hana = people(), people()
    sign_up(server, gil.page, "gil")
    sign_up(server, hana.page, "hana")
    g, h = gil.page, hana.page
    g.wait_for_selector("#sk-rated:not([disabled])")  # offered to a signed-in account
    g.check("#sk-rated")
    g.click("#sk-post")
    g.wait_for_selector("#myseek:not([hidden])")
    row = h.locator("#seeks tr", has_text="gil")
    row.wait_for()
    assert "gil (500?)" in row.inner_text() and "rated" in row.inner_text()
    shot(h, "club-07-lobby-rated-seek")
    row.get_by_role("button", name="accept the seek of gil").click()
    h.wait_for_url("**/table/**")
    g.wait_for_url("**/table/**")  # the poster's page follows its seek to the table
    table = h.url.split("/table/")[1].split("#")[0]
    assert [s["account"] for s in get(server, f"/api/tables/{table}")["seats"]] == ["gil", "hana"]
    play_moves(server, table, (g, h), 2)  # one move each: a game nobody aborted
    h.wait_for_selector("#resign:not([hidden])")
    h.click("#resign")
    h.click("#resign-yes")  # the page's own dialog asks first
    for page in (g, h):
        page.wait_for_selector("dialog#gameover[open]")
        page.wait_for_selector("#gameover-ratings li")
        text = page.inner_text("#gameover-ratings")
        assert "gil: 500 \u2192" in text and "hana: 500 \u2192" in text, text
    shot(g, "club-08-rated-seek-game-over")
    changes = {r["name"]: r for r in get(server, f"/api/tables/{table}/ratings")}
    assert changes["gil"]["after"] > 500 > changes["hana"]["after"]
    assert get(server, "/api/players/gil")["rating"] == changes["gil"]["after"]


def _axe_serious(page):
    """The serious and critical axe findings on ``page`` (violations, and "incomplete" ones too)."""
    axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright")
    results = axe_sync.Axe().run(page)
    found = results.response["violations"] + results.response["incomplete"]
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in found
            if v["impact"] in ("serious", "critical") and v["nodes"]]


def test_a_rated_seek_with_a_rating_range_is_shown_with_its_range(server, people):
    guest, ivy, jon = people(), people(), people()
    # a guest: the name field, no rated box, no range
    guest.page.goto(server + "/")
    guest.page.wait_for_selector("#account #login-link")
    assert guest.page.is_visible("#sk-name") and not guest.page.is_visible("#sk-as")
    assert guest.page.is_disabled("#sk-rated") and guest.page.is_disabled("#sk-min")
    shot(guest.page, "club-09-seek-form-guest")
    sign_up(server, ivy.page, "ivy")
    sign_up(server, jon.page, "jon")
    i = ivy.page
    i.wait_for_selector("#sk-rated:not([disabled])")
    # signed in: "as ivy" instead of the name field (the server would ignore it)
    assert not i.is_visible("#sk-name") and i.inner_text("#sk-as") == "as ivy"
    assert i.is_disabled("#sk-min") and i.is_disabled("#sk-max")  # a casual seek has no range
    i.check("#sk-rated")
    assert i.is_enabled("#sk-min") and i.is_enabled("#sk-max")
    # checked in the page before anything is sent: a range upside down, a bound out of bounds
    i.fill("#sk-min", "700")
    i.fill("#sk-max", "600")
    i.click("#sk-post")
    i.wait_for_function("document.getElementById('sk-error').textContent.length > 0")
    assert i.inner_text("#sk-error") == "The lowest rating (700) is above the highest (600)."
    i.fill("#sk-min", "400")
    i.fill("#sk-max", "9000")
    i.click("#sk-post")
    i.wait_for_function("document.getElementById('sk-error').textContent.includes('9000')")
    assert "whole number from 0 to 5000" in i.inner_text("#sk-error")
    assert get(server, "/api/seeks")["seeks"] == []
    i.fill("#sk-max", "600")
    assert i.inner_text("#sk-error") == ""  # a corrected field clears the message
    assert not _axe_serious(i)  # the lobby with the form in this state
    shot(i, "club-10-seek-form-rated-range")
    i.click("#sk-post")
    i.wait_for_selector("#myseek:not([hidden])")
    (posted,) = [s for s in get(server, "/api/seeks")["seeks"] if s["name"] == "ivy"]
    assert (posted["rated"], posted["rating_min"], posted["rating_max"]) == (True, 400, 600)
    # jon sees the range in the lobby's list
    row = jon.page.locator("#seeks tr", has_text="ivy")
    row.wait_for()
    assert "rated, opponents rated 400 to 600" in row.inner_text()
    shot(jon.page, "club-11-lobby-seek-range")
    assert not _axe_serious(jon.page)
    i.click("#myseek button")  # cancelled: the list is empty again
    row.wait_for(state="detached")


def test_hostile_names_are_shown_as_text_on_the_player_page(server, people):
    carol = people()
    page = carol.page
    sign_up(server, page, "carol")
    hostile = "<img src=x onerror=pwned=1>"  # names are at most 32 characters
    r = page.evaluate("""async (name) => {
        const res = await fetch('/api/tables', {method: 'POST', headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({players: 2, seats: [{kind: 'human'}, {kind: 'human', name}]})});
        return res.json();
    }""", hostile)
    table, tokens = r["table"], {s["seat"]: s["token"] for s in r["seats"]}
    for _ in range(2):
        view = get(server, f"/api/tables/{table}")
        p = view["state"]["current_player"]
        page.evaluate("""async ([t, tok]) => {
            const h = {'Content-Type': 'application/json', 'Authorization': 'Bearer ' + tok};
            const v = await (await fetch('/api/tables/' + t, {headers: h})).json();
            await fetch('/api/tables/' + t + '/moves', {method: 'POST', headers: h, body: JSON.stringify({move: v.legal[0]})});
        }""", [table, tokens[p]])
    page.evaluate("""async ([t, tok]) => fetch('/api/tables/' + t + '/resign', {method: 'POST',
        headers: {'Content-Type': 'application/json', 'Authorization': 'Bearer ' + tok}, body: '{}'})""",
                  [table, tokens[0]])
    page.goto(server + "/players/carol")
    page.wait_for_selector("#games tr td a")
    assert f"{hostile} (guest)" in page.inner_text("#games")
    assert page.locator("#games img").count() == 0 and page.evaluate("window.pwned") is None
    page.goto(server + "/players/%3Cimg%20src%3Dx%20onerror%3Dpwned%3D1%3E")
    page.wait_for_function("document.getElementById('error').textContent.length > 0")
    assert "There is no player by that name" in page.inner_text("#error") and page.evaluate("window.pwned") is None


@pytest.mark.parametrize("where", ["login", "player"])
def test_no_serious_accessibility_violations_on_the_club_pages(server, people, where):
    pytest.importorskip("axe_playwright_python.sync_playwright")
    page = people().page
    if where == "login":
        page.goto(server + "/login")
        page.wait_for_selector("#signup-name")
    else:
        sign_up(server, page, "dora")
        page.goto(server + "/players/dora")
        page.wait_for_selector("#graph svg")
    # "incomplete" (axe could not decide) counts too, except the contrast of the graph's SVG <text>,
    # which axe cannot measure (no background it can see behind SVG text): #444 on #fffdf5, 9.6:1
    bad = axe_report(page, serious_only=True)
    assert not bad, bad


def test_login_returns_to_this_site_only_and_never_carries_a_seat_token(server, people):
    page = people().page
    sign_up(server, page, "erin")
    page.click("#logout")
    page.wait_for_selector("#login-link")
    for hostile in ("//example.org/x", "/\\example.org/x", "https://example.org/"):
        page.goto(server + "/login?next=" + urllib.request.quote(hostile, safe=""))
        page.fill("#login-name", "erin")
        page.fill("#login-password", "password1")
        page.click("#login-submit")
        page.wait_for_selector("#account #logout")
        assert page.url == server + "/", page.url
        page.click("#logout")
        page.wait_for_selector("#login-link")
    # at a table (its join link's #seat= token in the address), the login link names the path only
    r = page.evaluate("""async () => (await fetch('/api/tables', {method: 'POST', headers: {'Content-Type':
        'application/json'}, body: JSON.stringify({players: 2, seats: [{kind: 'human'}, {kind: 'ai', ai: 'random'}]})})).json()""")
    page.goto(r["seats"][0]["url"])
    page.wait_for_selector("#login-link")
    href = page.get_attribute("#login-link", "href")
    assert href == f"/login?next=%2Ftable%2F{r['table']}" and r["seats"][0]["token"] not in href


#: ``next`` as an attacker writes it in a login link (the raw query), and the path the login must go
#: to: the lobby for each that would leave this server, read by the browser's own URL parser (it
#: drops tab, newline and carriage return, reads "\" as "/" and "//host" as another host)
NEXT = [
    ("/%09/evil.example/", "/"), ("/%0A/evil.example/", "/"), ("/%0D/evil.example/", "/"),
    ("/%09%0A/evil.example/", "/"), ("/%5Cevil.example/", "/"), ("/%5C/evil.example/", "/"),
    ("/%5C%09evil.example/", "/"), ("//evil.example/", "/"), ("%2F%2Fevil.example/", "/"),
    ("///evil.example/", "/"), ("/%2F/evil.example/", "/"), ("%09//evil.example/", "/"),
    ("%20//evil.example/", "/"), ("%5C%5Cevil.example/", "/"), ("https://evil.example/", "/"),
    ("https:evil.example", "/"), ("http:evil.example", "/"), ("javascript:alert(document.domain)", "/"),
    ("data:text/html,x", "/"), ("", "/"),
    # paths of this server are kept, as the parser reads them
    ("/players/erin", "/players/erin"), ("%2Fplayers%2Ferin%3Fx%3D1%23top", "/players/erin?x=1#top"),
    ("/.//evil.example/", "//evil.example/"),  # a path of this server (404), never the host evil.example
]


def test_login_next_is_a_path_on_this_server_as_the_browsers_url_parser_reads_it(server, people):
    person = people()
    page = person.page
    left = []  # every request that would leave the server: recorded and answered here, never sent

    def leave(route):
        left.append(route.request.url)
        route.fulfill(status=200, content_type="text/html", body="<p>left the server</p>")

    person.context.route(lambda url: not url.startswith(server + "/"), leave)
    wrong = []
    for i, (raw, path) in enumerate(NEXT):
        # the sign-up form and the login form in turn (one login per name: the per-name limit)
        form, name = ("signup", f"next{i}") if i % 2 == 0 else ("login", f"next{i - 1}")
        person.context.clear_cookies()
        page.goto(f"{server}/login?next={raw}")
        page.fill(f"#{form}-name", name)
        page.fill(f"#{form}-password", "password1")
        page.click(f"#{form}-submit")
        page.wait_for_url(lambda url: "/login" not in url)
        if page.url != server + path:
            wrong.append((form, raw, page.url))
    assert not wrong and not left, (wrong, left)
    # the server itself reads no `next`: the login page is the same file, never a redirect
    with urllib.request.urlopen(f"{server}/login?next=//evil.example/") as r:
        assert r.status == 200 and r.url == f"{server}/login?next=//evil.example/" and "Location" not in r.headers


def test_an_account_and_a_guest_of_the_same_name_look_different_on_every_page(server, people):
    alice, guest = people(), people()
    sign_up(server, alice.page, "alicia")
    a, g = alice.page, guest.page
    post = """async ([path, body]) => (await fetch(path, {method: 'POST', headers: {'Content-Type':
        'application/json'}, body: JSON.stringify(body)})).json()"""
    a.evaluate(post, ["/api/seeks", {}])
    g.goto(server + "/")
    refused = g.evaluate(post, ["/api/seeks", {"name": "alicia (500?)"}])
    assert "number in brackets" in refused["detail"]  # a guest cannot look rated
    g.evaluate(post, ["/api/seeks", {"name": "alicia"}])
    # the lobby's seeks: the account's name links to its page, with its rating; the guest's is marked
    rows = g.locator("#seeks tr", has_text="alicia")
    rows.nth(1).wait_for()
    texts = sorted(rows.nth(i).locator("td").first.inner_text() for i in range(2))
    assert texts == ["alicia (500?)", "alicia (guest)"], texts
    assert g.locator("#seeks td a.account-name", has_text="alicia").get_attribute("href") == "/players/alicia"
    assert g.locator("#seeks td .guest-name").count() == 1
    shot(g, "club-06-seeks-of-an-account-and-a-guest")
    # a table: the account's seat, and a guest who joins it as "alicia"
    made = a.evaluate(post, ["/api/tables", {"players": 2, "seats": [{"kind": "human"}, {"kind": "human", "open": True}]}])
    table = made["table"]
    g.goto(server + "/")
    row = g.locator("#opentables tr", has_text=table)
    row.wait_for()
    assert row.locator("a.account-name").inner_text() == "alicia"
    row.locator("button").click()
    g.fill("#join-name", "alicia")  # the page's own name dialog
    g.click("#join-yes")
    g.wait_for_url(f"**/table/{table}#**")
    g.wait_for_function("document.querySelector('#seats').textContent.includes('(guest)')")
    seats = [g.locator("#seats li").nth(p).inner_text().splitlines()[1] for p in range(2)]
    assert seats == ["alicia", "alicia (guest) (you)"], seats
    assert g.locator("#seats a").inner_text() == "alicia" and g.locator("#seats a").count() == 1
    g.fill("#chattext", "it is me")
    g.press("#chattext", "Enter")
    g.wait_for_selector("#chatlog li")
    assert g.locator("#chatlog li strong").first.inner_text().strip() == "alicia (guest):"
    shot(g, "club-07-account-and-guest-named-alike")
    # the lobby's list of games in play marks them alike
    a.goto(server + "/")
    live = a.locator(f'#livetables tr[data-table="{table}"]')
    live.wait_for()
    assert "alicia (500?), alicia (guest)" in live.inner_text()  # an account with its rating, a guest marked
