"""End-to-end: the real server (uvicorn, in a thread) and the page in headless Chromium (Playwright
driving Debian's ``chromium`` by its path). Screenshots of the main states go to
``$SEQUENCE_WEB_SCREENSHOTS`` (default ``build/web-screenshots``)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from sequence_game import GameRecord  # noqa: E402
from sequence_game.agents import GreedyAgent  # noqa: E402
from sequence_game.records import play_game  # noqa: E402
from sequence_game.web import create_app  # noqa: E402
from sequence_game.web.limits import ServerLimits  # noqa: E402
from web_support import serving, shared  # noqa: E402

pytestmark = pytest.mark.e2e

CHROMIUM = os.environ.get("SEQUENCE_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
SHOTS = Path(os.environ.get("SEQUENCE_WEB_SCREENSHOTS")
             or Path(__file__).resolve().parent.parent / "build" / "web-screenshots")
TIMEOUT = 20_000  # ms


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # one client (this test) creates every table and writes every chat message: the per-client
    # creation and chat limits are raised for it
    limits = ServerLimits(create_burst=200, create_per_minute=600.0, max_tables_per_client=200, chat_burst=100)
    app = create_app(tmp_path_factory.mktemp("web") / "tables.sqlite3", ai_pause=0.2, limits=limits)
    with serving(app) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM):
        if os.environ.get("CI"):
            pytest.fail(f"no chromium at {CHROMIUM}: .ci/run installs Debian's chromium")
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1200, "height": 860})
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT)
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    context.close()
    assert not errors, errors


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def api(base, method, path, body=None, token=None):
    if path == "/api/tables" and body is not None and shared(body) and not body.get("moves"):
        body = {k: v for k, v in body.items() if k != "seed"}  # the server deals these itself (R9)
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(req) as r:
        return json.load(r)


def axe_report(page, serious_only=False):
    """What axe finds on the page, as (rule, impact, the first targets): its violations (with
    ``serious_only``, the serious and critical ones only), and the serious or critical items it
    could not decide ("incomplete", needs review: not a pass), except the contrast of the board's
    own SVG text, which axe cannot measure (it finds no background behind an SVG <text>):
    tests/test_svg.py checks those colours itself."""
    axe_sync = pytest.importorskip("axe_playwright_python.sync_playwright")
    results = axe_sync.Axe().run(page)
    serious = ("serious", "critical")
    found = [v for v in results.response["violations"] if not serious_only or v["impact"] in serious] + [
        {**v, "nodes": [n for n in v["nodes"] if not (v["id"] == "color-contrast" and n["html"].startswith("<text"))]}
        for v in results.response["incomplete"] if v["impact"] in serious]
    return [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in found if v["nodes"]]


def against_ai(seed):
    return {"players": 2, "seed": seed, "seats": [{"kind": "human"}, {"kind": "ai", "ai": "easy"}]}


def wait_my_turn(page):
    page.wait_for_selector("#status.mine")


def play_one_click_move(page):
    """Click the first card with a legal cell, then its first lit cell; returns the cell's name."""
    wait_my_turn(page)
    for card in page.locator(".hand-card:not(.nomove):not(.dead)").all():
        card.click()
        target = page.locator("#board .cell.target").first
        if target.count():
            name = target.get_attribute("data-cell")
            target.click()
            return name
    raise AssertionError("no card with a legal cell")


def history_length(page) -> int:
    return page.locator("#log li").count() + max(0, int(page.locator("#log").get_attribute("start") or 1) - 1)


# --------------------------------------------------------------------------- scenarios


def test_create_a_table_against_the_ai_play_by_clicking_and_see_the_answer(server, page):
    page.goto(server + "/")
    shot(page, "01-lobby")
    page.select_option("#players", "2")
    page.locator(".seat-row").nth(1).locator(".ai").select_option("easy")
    page.fill("#seed", "12")
    page.click("#create")
    page.wait_for_url("**/table/**")
    wait_my_turn(page)
    before = page.locator("#log li").count()
    page.locator(".hand-card:not(.nomove):not(.dead)").first.click()
    assert page.locator("#board .cell.target").count() >= 1
    shot(page, "02-card-selected")
    cell = page.locator("#board .cell.target").first.get_attribute("data-cell")
    page.click(f'#board .cell[data-cell="{cell}"]')
    page.wait_for_function(f"document.querySelectorAll('#log li').length >= {before + 2}")  # the AI answered
    assert page.locator(f'#board .chip[data-cell="{cell}"]').count() == 1
    last = page.locator("#log li").last.inner_text()
    assert last.startswith("Computer 2 (easy):")  # the AI seat's name built from its parts
    assert page.locator("#board .last-move").count() == 1
    wait_my_turn(page)
    shot(page, "03-ai-answered")


def test_an_illegal_click_is_refused_in_the_pages_words(server, page):
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": 5, "seats": [{"kind": "human"}, {"kind": "human"}]})
    tokens = {s["seat"]: s for s in t["seats"]}
    view = api(server, "GET", f"/api/tables/{t['table']}", token=tokens[0]["token"])
    me = view["state"]["current_player"]
    page.goto(tokens[me]["url"])
    wait_my_turn(page)
    card = page.locator(".hand-card:not(.nomove):not(.dead)").first
    code = card.get_attribute("data-card")
    card.click()
    targets = {c.get_attribute("data-cell") for c in page.locator("#board .cell.target").all()}
    wrong = next(n for n in ("b2", "c3", "d4", "e5", "f6", "g7", "h8") if n not in targets)
    page.click(f'#board .cell[data-cell="{wrong}"]')
    page.wait_for_selector("#message.error")
    text = page.inner_text("#message")
    label = ("10" if code[0] == "T" else code[0]) + {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}[code[1]]
    # the refusal in the page's words (from its code, docs/i18n.md): the card as the board shows it
    # and where it can go, no rule id
    assert text == f"{label} cannot go there: pick one of the lit spaces.", text
    assert "player 0" not in text and "player 1" not in text and "(R" not in text, text
    shot(page, "04-illegal-click")
    assert api(server, "GET", f"/api/tables/{t['table']}")["version"] == 0  # nothing was played


def test_two_humans_in_two_browsers_each_see_only_their_own_hand(server, browser):
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": 8, "seats": [{"kind": "human", "name": "Ann"},
                                                                           {"kind": "human", "name": "Bob"}]})
    pages, frames = {}, {}
    contexts = []
    try:
        for link in t["seats"]:
            ctx = browser.new_context(viewport={"width": 1100, "height": 820})
            contexts.append(ctx)
            pg = ctx.new_page()
            pg.set_default_timeout(TIMEOUT)
            seat = link["seat"]
            frames[seat] = []
            got = frames[seat]
            pg.on("websocket", lambda ws, got=got: ws.on("framereceived", lambda f, got=got: got.append(f)))
            pg.goto(link["url"])
            pages[seat] = pg
        for seat, pg in pages.items():
            pg.wait_for_selector(".hand-card")
            own = api(server, "GET", f"/api/tables/{t['table']}", token=t["seats"][seat]["token"])
            shown = [c.get_attribute("data-card") for c in pg.locator(".hand-card").all()]
            assert shown == own["state"]["hands"][seat]
        to_move = api(server, "GET", f"/api/tables/{t['table']}")["state"]["current_player"]
        cell = play_one_click_move(pages[to_move])
        other = pages[1 - to_move]
        other.wait_for_selector(f'#board .chip[data-cell="{cell}"]')
        wait_my_turn(other)
        shot(pages[0], "05-two-humans-ann")
        shot(pages[1], "06-two-humans-bob")
        for seat, got in frames.items():  # R9 in the browser: every websocket frame it received
            assert got
            for frame in got:
                msg = json.loads(frame if isinstance(frame, str) else frame.decode())
                assert "seed" not in json.dumps(msg)
                if msg["type"] == "state":
                    hands = msg["view"]["state"]["hands"]
                    assert isinstance(hands[1 - seat], int) and isinstance(hands[seat], list)
                    assert isinstance(msg["view"]["state"]["draw_pile"], int)
    finally:
        for ctx in contexts:
            ctx.close()


def test_a_reload_resumes_the_seat(server, page):
    t = api(server, "POST", "/api/tables", against_ai(3))
    page.goto(t["seats"][0]["url"])
    page.wait_for_selector(".hand-card")
    hand = [c.get_attribute("data-card") for c in page.locator(".hand-card").all()]
    page.reload()
    page.wait_for_selector(".hand-card")
    assert [c.get_attribute("data-card") for c in page.locator(".hand-card").all()] == hand
    page.goto(server + f"/table/{t['table']}")  # the link without its token: the browser remembers the seat
    page.wait_for_selector(".hand-card")
    assert "(you)" in page.inner_text("#seats")
    play_one_click_move(page)
    page.wait_for_function("document.querySelectorAll('#log li').length >= 2")


def test_spectator_sees_no_hand(server, page):
    t = api(server, "POST", "/api/tables", {"players": 4, "seed": 6, "seats": [{"kind": "ai", "ai": "easy"}] * 4})
    page.goto(server + f"/table/{t['table']}")
    page.wait_for_function("document.querySelectorAll('#log li').length >= 3")
    assert page.locator(".hand-card").count() == 0
    assert "Spectating" in page.inner_text("#handtitle")
    shot(page, "07-spectator-4-players")


def test_keyboard_play(server, page):
    t = api(server, "POST", "/api/tables", against_ai(21))
    page.goto(t["seats"][0]["url"])
    wait_my_turn(page)
    cards = page.locator(".hand-card")
    for i in range(cards.count()):
        page.keyboard.press(str(i + 1))
        if page.locator("#board .cell.target").count():
            break
    page.keyboard.press("n")
    cursor = page.locator("#board .cell.cursor").get_attribute("data-cell")
    assert "target" in page.locator("#board .cell.cursor").get_attribute("class")
    shot(page, "08-keyboard-cursor")
    page.keyboard.press("Enter")
    page.wait_for_selector(f'#board .chip[data-cell="{cursor}"]')
    page.keyboard.press("h")  # hint, once it is our turn again
    wait_my_turn(page)
    page.keyboard.press("h")
    page.wait_for_selector("#board .cell.hinted")
    assert page.inner_text("#message").startswith("Hint: ")


def test_undo_against_the_ai(server, page):
    t = api(server, "POST", "/api/tables", against_ai(30))
    page.goto(t["seats"][0]["url"])
    wait_my_turn(page)
    n = page.locator("#log li").count()
    cell = play_one_click_move(page)
    page.wait_for_function(f"document.querySelectorAll('#log li').length >= {n + 2}")
    wait_my_turn(page)
    page.click("#undo")
    page.wait_for_function(f"document.querySelectorAll('#log li').length === {n}")
    assert page.locator(f'#board .chip[data-cell="{cell}"]').count() == 0


def _near_final_with_r7_choice():
    """A greedy game cut just before its winning move, where that placement can declare its
    sequences in several ways (R7): (seed, moves so far, the winner's seat, the winning move)."""
    for seed in range(4, 60):
        rec = play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], players=2, seed=seed)
        if rec.result["winner"] is None:
            continue
        game = GameRecord(players=2, teams=2, seed=seed, moves=rec.moves[:-1]).replay()
        last = game.parse_move(rec.moves[-1])
        ways = [m for m in game.legal_moves() if (m.kind, m.card, m.cell) == ("place", last.card, last.cell)]
        if len(ways) > 1:
            return seed, rec.moves[:-1], game.current_player, str(last)
    pytest.fail("no greedy game in seeds 4..59 ends with an R7 choice")


def _at_the_r7_choice(server, page):
    """The winner's page of a game one move from its end (:func:`_near_final_with_r7_choice`), its
    last card played and the R7 choice shown; returns the moves before it, the winner and that last
    move."""
    seed, moves, winner, last = _near_final_with_r7_choice()
    seats = [{"kind": "human", "name": "Ann"} if p == winner else {"kind": "ai", "ai": "easy"} for p in range(2)]
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": seed, "seats": seats, "moves": moves})
    page.goto(t["seats"][0]["url"])
    wait_my_turn(page)
    card, cell = last.split()[0].split("@")
    page.click(f'.hand-card[data-card="{card}"]')
    page.click(f'#board .cell[data-cell="{cell}"]')
    page.wait_for_selector("#choices:not([hidden])")  # R7: the ways to declare, on the board and as buttons
    return moves, winner, last


def test_finish_a_game_from_a_near_final_position_then_replay_it(server, page):
    moves, winner, last = _at_the_r7_choice(server, page)
    assert page.locator("#board .choices-layer .choice").count() >= 2
    # every choice's number is drawn at its own place, so each one can be read and clicked
    centres = page.eval_on_selector_all("#board .choices-layer circle", "cs => cs.map(c => [c.getAttribute('cx'), c.getAttribute('cy')])")
    assert len(set(map(tuple, centres))) == len(centres) >= 2, centres
    shot(page, "09-r7-choices")
    declared = " and ".join(d.lstrip("=").replace("-", "\u2013") for d in last.split()[1:])
    page.locator("#choices button", has_text=declared).click()
    page.wait_for_selector("#banner:not([hidden])")
    assert "wins" in page.inner_text("#banner")
    assert page.locator("#board .sequence").count() >= 2
    # the game-over dialog speaks to the winner and names the winning sequences
    page.wait_for_selector("dialog#gameover[open]")
    assert page.inner_text("#gameover-title") == "You won!"
    named = page.locator("#gameover-sequences li").all_inner_texts()
    for d in last.split()[1:]:
        assert any(d.lstrip("=").replace("-", "\u2013") in n for n in named), (d, named)
    shot(page, "10-game-over")
    page.click("#gameover-replay")
    page.wait_for_url("**/replay/**")
    page.wait_for_selector("#log li")
    assert page.locator("#log li").count() == len(moves) + 1
    page.keyboard.press("ArrowLeft")
    assert page.inner_text("#status").startswith(f"Move {len(moves)} of {len(moves) + 1}")
    shot(page, "11-replay")
    with page.expect_download() as download:
        page.click("#download")
    record = GameRecord.load(download.value.path())
    assert record.moves == [*moves, last] and record.result["winner"] == winner % 2


def test_hot_seat_hides_the_hand_until_asked(server, page):
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": 17, "hot_seat": True,
                                            "seats": [{"kind": "human", "name": "Ann"},
                                                      {"kind": "human", "name": "Bob"}]})
    page.goto(t["seats"][0]["url"])
    page.wait_for_selector("#reveal:not([hidden])")
    assert page.locator(".hand-card").count() == 0
    shot(page, "12-hot-seat-hidden")
    page.click("#reveal")
    play_one_click_move(page)
    page.wait_for_selector("#reveal:not([hidden])")
    assert page.locator(".hand-card").count() == 0


@contextlib.contextmanager
def phone_page(browser):
    """A page in a phone-sized browser context (390 x 844, touch), closed after."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                              has_touch=True)
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(TIMEOUT)
        yield pg
    finally:
        ctx.close()


def test_phone_sized_layout(server, browser):
    t = api(server, "POST", "/api/tables", against_ai(12))
    with phone_page(browser) as pg:
        pg.goto(t["seats"][0]["url"])
        wait_my_turn(pg)
        board = pg.locator("#board svg").bounding_box()
        assert board["width"] <= 390 and board["x"] >= 0
        hand = pg.locator("#hand").bounding_box()
        assert hand["y"] + hand["height"] <= 844, "the hand must be on the first screen under the board"
        pg.locator(".hand-card:not(.nomove):not(.dead)").first.tap()
        shot(pg, "13-phone-390x844")
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scrolling


# --------------------------------------------------------------------------- what players expect at a table


def test_moves_read_like_the_cards_and_any_earlier_position_can_be_browsed(server, page):
    t = api(server, "POST", "/api/tables", against_ai(40))
    page.goto(t["seats"][0]["url"])
    for _ in range(3):
        play_one_click_move(page)
        page.wait_for_function("document.querySelectorAll('#log li').length % 2 === 0")
    wait_my_turn(page)
    entries = page.locator("#log button.move").all_inner_texts()
    assert all("@" not in e and ("\u2660" in e or "\u2665" in e or "\u2666" in e or "\u2663" in e or "pass" in e)
               for e in entries), entries
    page.locator("#log button.move").first.click()  # the position after the first move
    page.wait_for_selector("#live:not([hidden])")
    assert page.locator("#board .chip").count() == 1 and "after move 1" in page.inner_text("#browsing")
    shot(page, "14-browsing-move-1")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.querySelectorAll('#board .chip').length === 2")
    page.click("#live")
    page.wait_for_selector("#live[hidden]", state="attached")
    board = api(server, "GET", f"/api/tables/{t['table']}")["state"]["board"]
    chips = sum(ch in "BGR" for line in board for ch in line)
    page.wait_for_function(f"document.querySelectorAll('#board .chip').length === {chips}")


def test_hints_are_not_offered_between_people_and_messages_clear(server, browser):
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": 41, "seats": [{"kind": "human", "name": "Ann"},
                                                                            {"kind": "human", "name": "Bob"}]})
    ctx = browser.new_context(viewport={"width": 1200, "height": 860})
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(TIMEOUT)
        pg.goto(t["seats"][0]["url"])
        pg.wait_for_selector(".hand-card")
        assert pg.locator("#hint").is_hidden()
        spectator = browser.new_context(viewport={"width": 1200, "height": 860}).new_page()  # no seat stored
        spectator.set_default_timeout(TIMEOUT)
        spectator.goto(server + f"/table/{t['table']}")
        spectator.wait_for_selector("#seats li")
        assert spectator.locator("#actionsbox").is_hidden()  # no empty box for a spectator
        spectator.click('#board .cell[data-cell="e5"]')
        spectator.wait_for_selector("#message.error")
        view = api(server, "GET", f"/api/tables/{t['table']}")
        mover = view["state"]["current_player"]
        mover_page = pg if mover == 0 else ctx.new_page()
        if mover != 0:
            mover_page.set_default_timeout(TIMEOUT)
            mover_page.goto(t["seats"][1]["url"])
        play_one_click_move(mover_page)
        spectator.wait_for_function("document.querySelectorAll('#log li').length === 1")
        assert spectator.inner_text("#message") == ""  # the message belonged to the position before
        assert spectator.locator("#board .cell.cursor").count() == 0  # no keyboard outline for spectators
        spectator.context.close()
    finally:
        ctx.close()


def test_resign_then_rematch_with_the_same_seats(server, page):
    t = api(server, "POST", "/api/tables", against_ai(42))
    page.goto(t["seats"][0]["url"])
    play_one_click_move(page)
    wait_my_turn(page)
    page.click("#resign")
    page.click("#resign-yes")  # the page's own dialog asks first
    page.wait_for_selector("dialog#gameover[open]")
    assert page.inner_text("#gameover-title") == "You lost"
    assert "resigned" in page.inner_text("#gameover-text")
    shot(page, "15-resigned")
    page.click("#gameover-rematch")
    page.wait_for_function(f"!location.pathname.endsWith('/{t['table']}')")
    page.wait_for_selector(".hand-card")
    new = page.url.split("/table/")[1].split("#")[0]
    view = api(server, "GET", f"/api/tables/{new}", token=t["seats"][0]["token"])
    assert view["you"] == [0] and not view["over"]  # the same token, a new game
    assert "(you)" in page.inner_text("#seats")


def test_resign_asks_in_the_pages_own_dialog_and_cancel_keeps_playing(server, page):
    popups = []
    page.on("dialog", lambda d: (popups.append(d.message), d.dismiss()))  # the browser's own pop-ups
    t = api(server, "POST", "/api/tables", against_ai(43))
    page.goto(t["seats"][0]["url"])
    play_one_click_move(page)
    wait_my_turn(page)
    page.click("#resign")
    page.wait_for_selector("dialog#resign-confirm[open]")
    assert "Resign this game?" in page.inner_text("#resign-confirm")
    assert page.evaluate("document.activeElement.id") == "resign-no"  # Enter does not resign
    shot(page, "31-resign-confirm")
    page.click("#resign-no")
    assert page.locator("dialog#resign-confirm[open]").count() == 0
    assert not api(server, "GET", f"/api/tables/{t['table']}")["over"]
    page.click("#resign")
    page.click("#resign-yes")
    page.wait_for_selector("dialog#gameover[open]")
    assert "resigned" in page.inner_text("#gameover-text")
    assert popups == []


def test_the_turn_timer_is_shown(server, page):
    body = {"players": 2, "seed": 43, "turn_seconds": 60, "seats": [{"kind": "human"}, {"kind": "human"}]}
    t = api(server, "POST", "/api/tables", body)
    view = api(server, "GET", f"/api/tables/{t['table']}")
    seat = view["state"]["current_player"]
    page.goto(next(s for s in t["seats"] if s["seat"] == seat)["url"])
    # a game between people: each first move has its grace instead (docs/club.md, "Abort")
    _clock_shows(page, "Your first move: (\\d+) s left, not taken from your clock", 20, 30)
    tokens = {s["seat"]: s["token"] for s in t["seats"]}
    for p in (seat, 1 - seat):
        legal = api(server, "GET", f"/api/tables/{t['table']}", token=tokens[p])["legal"]
        api(server, "POST", f"/api/tables/{t['table']}/moves", {"move": legal[0]}, tokens[p])
    _clock_shows(page, "You have (\\d+) s for this turn; then the computer moves for you\\.", 50, 60)


def _clock_shows(page, pattern, low, high):
    """The clock's text matches ``pattern``, whose number is in [low, high]: a range, not one second,
    as the page counts down from the moment the grace or the turn started (a slow machine loses some)."""
    page.wait_for_function("""([pattern, low, high]) => {
        const m = new RegExp(pattern).exec(document.querySelector('#clock').textContent);
        return m !== null && +m[1] >= low && +m[1] <= high;
    }""", arg=[pattern, low, high])


def test_join_an_open_seat_from_the_lobby(server, page):
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": 44, "seats": [{"kind": "ai", "ai": "easy"},
                                                                            {"kind": "human", "open": True}]})
    page.goto(server + "/")
    row = page.locator("#opentables tr", has_text=t["table"])
    row.wait_for()
    shot(page, "16-lobby-open-seat")
    popups = []
    page.on("dialog", lambda d: (popups.append(d.message), d.dismiss()))  # the browser's own pop-ups
    row.locator("button", has_text="Join").click()
    page.wait_for_selector("dialog#join-dialog[open]")  # the page's own dialog asks for the name
    shot(page, "17-lobby-join-dialog")
    assert axe_report(page) == []
    page.fill("#join-name", "Zoe")
    page.click("#join-yes")
    page.wait_for_url(f"**/table/{t['table']}**")
    page.wait_for_selector(".hand-card")
    assert "Zoe (guest) (you)" in page.inner_text("#seats")  # a guest, marked as one (docs/club.md, "Names")
    assert popups == []


def test_the_review_page_shows_the_graph_and_the_preferred_moves(server, page):
    seed, moves, winner, last = _near_final_with_r7_choice()
    seats = [{"kind": "human", "name": "Ann"} if p == winner else {"kind": "ai", "ai": "easy"} for p in range(2)]
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": seed, "seats": seats, "moves": [*moves, last]})
    page.goto(server + f"/review/{t['table']}")
    page.wait_for_selector("#graph svg polyline", timeout=120_000)  # reviewed in the server's threads
    assert page.locator("#log li").count() == len(moves) + 1
    page.keyboard.press("End")
    assert page.inner_text("#verdict").startswith("Chance of winning")
    marked = page.locator("#mistakes button.move")
    if marked.count():
        marked.first.click()
        assert page.locator("#board .cell.hinted").count() == 1  # the AI's preferred move, on the board
    shot(page, "17-review")


def test_the_review_of_a_resigned_game_names_the_resignation_and_curves_sum_to_100(server, page):
    """The review page asks with POST (no 404 on a first visit), draws both teams' chances summing to
    100% at every position, and shows the resignation as the end of the game, blaming no move."""
    rec = play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], players=2, seed=21)
    seats = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]
    # a hot seat: the creator may choose the deal (docs/security.md), and no AI moves meanwhile
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": 21, "seats": seats, "moves": rec.moves[:16],
                                            "hot_seat": True})
    api(server, "POST", f"/api/tables/{t['table']}/resign", {}, token=t["seats"][0]["token"])
    missing = []
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    page.goto(server + f"/review/{t['table']}")
    page.wait_for_selector("#graph svg polyline", timeout=120_000)
    assert page.locator("#graph svg polyline").count() == 2
    sums = page.evaluate("""() => {
        const lines = [...document.querySelectorAll('#graph svg polyline')].map(l => l.getAttribute('points').split(' ')
            .map(p => +p.split(',')[1]));
        return lines[0].map((y, k) => y + lines[1][k]);
    }""")
    assert len(sums) == 16 + 2 and all(abs(v - 150) < 0.01 for v in sums)  # y(p) + y(1 - p) = the height: 100%
    page.keyboard.press("End")
    verdict = page.inner_text("#verdict")
    # at a hot seat the seat to move resigns: whoever it was, the resignation is named, not blamed
    who = next(name for name in ("Ann (guest)", "Bob (guest)") if f"{name} resigned" in verdict)
    assert "no move is blamed" in verdict
    assert f"{who} resigned" in page.inner_text("#log li.event")
    assert "Accuracy" in page.inner_text("#accuracy") and page.locator("#accuracy tr").count() == 3
    assert page.locator(".resign-mark").count() == 1
    assert not missing, missing
    shot(page, "18-review-resigned")


@pytest.mark.parametrize("where", ["lobby", "table", "replay", "review"])
def test_no_serious_accessibility_violations(server, page, where):
    seed, moves, winner, last = _near_final_with_r7_choice()
    if where in ("replay", "review"):
        seats = [{"kind": "ai", "ai": "easy"}, {"kind": "ai", "ai": "easy"}]
        t = api(server, "POST", "/api/tables", {"players": 2, "seed": seed, "seats": seats, "moves": [*moves, last]})
        page.goto(server + f"/{where}/{t['table']}")
        page.wait_for_selector("#log li")
        if where == "review":
            page.wait_for_selector("#graph svg polyline", timeout=120_000)
    elif where == "table":
        t = api(server, "POST", "/api/tables", against_ai(45))
        page.goto(t["seats"][0]["url"])
        page.locator(".hand-card:not(.nomove):not(.dead)").first.click()
    else:
        page.goto(server + "/")
        page.wait_for_selector(".seat-row")
    bad = [found for found in axe_report(page) if found[1] in ("serious", "critical")]
    assert not bad, bad


def test_touch_targets_are_at_least_44_px_on_a_phone(server, browser):
    t = api(server, "POST", "/api/tables", against_ai(46))
    with phone_page(browser) as pg:
        pg.goto(t["seats"][0]["url"])
        wait_my_turn(pg)
        for sel in (".hand-card", "#actionsbox button:not([hidden])", "#sound"):
            for el in pg.locator(sel).all():
                if el.is_visible():
                    box = el.bounding_box()
                    assert box["height"] >= 44 and box["width"] >= 44, (sel, box)
        assert pg.locator(".keyboard-help").is_hidden() and pg.locator(".hand-card .key").first.is_hidden()


def test_enter_after_a_hint_plays_the_hinted_move(server, page):
    """A mouse click on Hint leaves no focus on the button, and the cursor moves to the hinted cell,
    so Enter plays the hint (not Hint again, not the old cursor's cell)."""
    t = api(server, "POST", "/api/tables", against_ai(21))
    page.goto(t["seats"][0]["url"])
    for _ in range(6):
        wait_my_turn(page)
        n = page.locator("#log li").count()
        page.click("#hint")
        page.wait_for_selector("#message:has-text('Hint: ')")
        if page.locator("#board .cell.hinted").count() == 1:
            cell = page.locator("#board .cell.hinted").get_attribute("data-cell")
            assert page.evaluate("document.activeElement.id") != "hint"
            page.keyboard.press("Enter")
            page.wait_for_function(f"document.querySelectorAll('#log li').length > {n}")
            assert page.locator("#log li").nth(n).inner_text().split(": ", 1)[1].split(",")[0].endswith(cell)
            return
        page.keyboard.press("Escape")
        play_one_click_move(page)  # a hinted trade: try again on a later turn
    pytest.fail("no placement hinted in six turns")


def test_the_hinted_card_clicked_stays_picked_and_the_hinted_cell_plays_the_hint(server, page):
    """Clicking the card a hint picked takes it (it is not put back); and with no card picked, a
    click on the hinted cell plays the hint rather than asking for a card."""
    t = api(server, "POST", "/api/tables", against_ai(21))
    page.goto(t["seats"][0]["url"])
    for _ in range(6):
        wait_my_turn(page)
        n = page.locator("#log li").count()
        page.click("#hint")
        page.wait_for_selector("#message:has-text('Hint: ')")
        if page.locator("#board .cell.hinted").count() == 1:
            cell = page.locator("#board .cell.hinted").get_attribute("data-cell")
            card = page.locator(".hand-card.selected")
            assert card.count() == 1
            card.click()  # the player follows the hint by clicking its card
            assert page.locator(".hand-card.selected").count() == 1
            assert page.locator(f'#board .cell.target[data-cell="{cell}"]').count() == 1
            shot(page, "30-hinted-card-kept")
            page.locator(".hand-card.selected").click()  # a second click puts it back, as any card
            assert page.locator(".hand-card.selected").count() == 0
            page.locator(f'#board .cell[data-cell="{cell}"]').click()
            page.wait_for_function(f"document.querySelectorAll('#log li').length > {n}")
            assert page.locator("#log li").nth(n).inner_text().split(": ", 1)[1].split(",")[0].endswith(cell)
            assert "Pick a card" not in page.inner_text("#message")
            return
        page.keyboard.press("Escape")
        play_one_click_move(page)  # a hinted trade: try again on a later turn
    pytest.fail("no placement hinted in six turns")


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_placed_chip_is_animated_unless_motion_is_reduced(server, browser, motion):
    t = api(server, "POST", "/api/tables", against_ai(47))
    ctx = browser.new_context(viewport={"width": 1200, "height": 860}, reduced_motion=motion)
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(TIMEOUT)
        pg.goto(t["seats"][0]["url"])
        play_one_click_move(pg)
        pg.wait_for_selector("#board .chip-new", state="attached")  # the new chip is marked
        # (a later state of the same position redraws it unmarked, so read the style on a chip marked now)
        name = pg.evaluate("""() => { const c = document.querySelector('#board .chip');
                                      c.classList.add('chip-new'); return getComputedStyle(c).animationName; }""")
        assert name == ("none" if motion == "reduce" else "chip-in"), name
    finally:
        ctx.close()


def test_sound_is_off_by_default_and_the_toggle_is_remembered(server, page):
    t = api(server, "POST", "/api/tables", against_ai(48))
    page.goto(t["seats"][0]["url"])
    page.wait_for_selector(".hand-card")
    assert page.inner_text("#sound") == "Sound: off" and page.get_attribute("#sound", "aria-pressed") == "false"
    page.click("#sound")
    assert page.inner_text("#sound") == "Sound: on" and page.get_attribute("#sound", "aria-pressed") == "true"
    page.reload()
    page.wait_for_selector(".hand-card")
    assert page.inner_text("#sound") == "Sound: on"


def test_a_removed_chip_stays_visible_crossed_out(server, page):
    """The last move a one-eyed jack made: the chip it took is drawn faded and crossed out."""
    for seed in range(60):
        rec = play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], players=2, seed=seed)
        k = next((i for i, m in enumerate(rec.moves) if "x" in m.split()[0]), None)
        if k is not None:
            break
    else:
        pytest.fail("no removal in 60 greedy games")
    seats = [{"kind": "human"}, {"kind": "human"}]  # at one screen: the saved moves replay from the seed
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": seed, "seats": seats, "hot_seat": True,
                                            "moves": rec.moves[:k + 1]})
    page.goto(server + f"/table/{t['table']}")
    cell = rec.moves[k].split("x")[1]
    page.wait_for_selector(f'#board .removed-chip[data-cell="{cell}"]', state="attached")
    assert page.locator(f'#board .removed-chip[data-cell="{cell}"] line').count() == 2  # the cross
    assert page.locator(f'#board .chip[data-cell="{cell}"]').count() == 0


def test_a_socket_refused_in_its_handshake_is_explained_on_the_page(server, page):
    """The browser sees no status for a refused websocket: the page asks for the table over HTTP.
    No such table: its message, and no more tries. Over the connection caps: the table as it is,
    a message, and the page gets in once a place is free."""
    from websockets.exceptions import InvalidStatus
    from websockets.sync.client import connect

    page.goto(server + "/table/nosuch")
    page.wait_for_selector("#message.error")
    assert "There is no such table" in page.inner_text("#message")  # the refusal's code, in the page's words
    page.wait_for_function("document.getElementById('conn').textContent === 'disconnected'")
    assert not page.is_visible("#board") and not page.is_visible("#hint")  # nothing to play on
    assert page.get_attribute("#lobbylink", "href") == "/"  # the way back to the lobby

    t = api(server, "POST", "/api/tables", {"players": 2, "seed": 3, "seats": [{"kind": "human"}, {"kind": "human"}]})
    url = server.replace("http", "ws") + f"/api/tables/{t['table']}/ws"
    with contextlib.ExitStack() as held:
        sockets = []
        while True:  # every place this address (or the table) may hold
            try:
                ws = held.enter_context(connect(url, open_timeout=10))
            except InvalidStatus as e:
                assert e.response.status_code in (429, 503)
                break
            ws.send(json.dumps({"type": "hello", "token": None}))
            sockets.append(ws)
            assert len(sockets) <= 64
        page.goto(server + f"/table/{t['table']}")
        page.wait_for_selector("#message.error")
        assert "refused a live connection" in page.inner_text("#message")
        assert page.inner_text("#tablename") == f"table {t['table']} (spectating)"  # the HTTP view, shown
        assert page.inner_text("#conn") == "reconnecting..."
        sockets.pop().close()
        page.wait_for_function("document.getElementById('conn').textContent === ''")
        assert page.inner_text("#message") == ""


# --------------------------------------------------------------------------- the table's details


def test_the_replay_reads_moves_like_cards(server, page):
    seed, moves, winner, last = _near_final_with_r7_choice()
    seats = [{"kind": "ai", "ai": "easy"}, {"kind": "ai", "ai": "easy"}]
    t = api(server, "POST", "/api/tables", {"players": 2, "seed": seed, "seats": seats, "moves": [*moves, last]})
    page.goto(server + f"/replay/{t['table']}")
    page.wait_for_selector("#log li")
    entries = page.locator("#log li").all_inner_texts()
    assert len(entries) == len(moves) + 1
    # the engine's notation (7H@d6, JSxd5, =f6-b10) never shows; cards read as the board shows them
    assert not any("@" in e or "=" in e or "x" in e.split(": ", 1)[1].split()[0] for e in entries), entries
    assert all(any(sym in e for sym in "\u2660\u2665\u2666\u2663") or e.endswith("pass") for e in entries), entries
    assert "sequence" in entries[-1]  # the winning move names the sequence it declared
    page.keyboard.press("ArrowLeft")
    status = page.inner_text("#status")
    assert "@" not in status and any(w in status for w in (" on ", " removes ", "trade ", "pass")), status


def test_two_copies_of_a_card_are_selected_one_at_a_time(server, page):
    # seed 16 deals seat 0 two 3\u2666 and gives it the first move (Game(players=2, seed=16))
    t = api(server, "POST", "/api/tables", against_ai(16))
    page.goto(t["seats"][0]["url"])
    wait_my_turn(page)
    copies = page.locator('.hand-card[data-card="3D"]')
    assert copies.count() == 2
    copies.nth(1).click()
    assert page.locator(".hand-card.selected").count() == 1
    assert "selected" in copies.nth(1).get_attribute("class")
    assert page.locator("#board .cell.target").count() >= 1
    copies.nth(0).click()  # the other copy: it is selected instead, the selection stays
    assert page.locator(".hand-card.selected").count() == 1
    assert "selected" in copies.nth(0).get_attribute("class")
    assert page.locator("#board .cell.target").count() >= 1
    copies.nth(0).click()  # the same copy again: unselected
    assert page.locator(".hand-card.selected").count() == 0


def test_the_rematch_stays_offered_after_the_end_dialog_is_closed(server, page):
    t = api(server, "POST", "/api/tables", against_ai(47))
    page.goto(t["seats"][0]["url"])
    wait_my_turn(page)
    page.click("#resign")
    page.click("#resign-yes")  # the page's own dialog asks first
    page.wait_for_selector("dialog#gameover[open]")
    page.click("#gameover-close")
    page.wait_for_selector("#banner-rematch")
    assert page.inner_text("#banner-rematch") == "Rematch"
    page.click("#banner-rematch")
    page.wait_for_function(f"!location.pathname.endsWith('/{t['table']}')")
    page.wait_for_selector(".hand-card")


def test_a_table_with_an_open_seat_waits_for_players(server, page):
    t = api(server, "POST", "/api/tables", {"players": 2, "seats": [{"kind": "human", "name": "Ann"},
                                                                  {"kind": "human", "open": True}]})
    page.goto(t["seats"][0]["url"])
    page.wait_for_selector("#status.waiting")
    assert page.inner_text("#status").startswith("Waiting for players: 1 open seat")
    page.goto(server + "/")
    row = page.locator("#opentables tr", has_text=t["table"])
    row.wait_for()
    assert "waiting for 1 player" in row.inner_text()
    assert page.locator(f'#livetables tr[data-table="{t["table"]}"]').count() == 0  # not "in play" yet


def test_the_lobby_fits_a_phone_and_the_end_dialog_leaves_the_board_in_view(server, browser):
    api(server, "POST", "/api/tables", {"players": 4, "seats": [
        {"kind": "human", "name": "Someone with a very long name"}, {"kind": "ai", "ai": "easy"},
        {"kind": "human", "open": True}, {"kind": "ai", "ai": "hard"}]})
    t = api(server, "POST", "/api/tables", against_ai(48))
    with phone_page(browser) as pg:
        pg.goto(server + "/")
        pg.wait_for_selector("#opentables tr button")
        assert pg.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scrolling
        shot(pg, "18-lobby-phone")
        pg.goto(t["seats"][0]["url"])
        wait_my_turn(pg)
        pg.click("#resign")
        pg.click("#resign-yes")  # the page's own dialog asks first
        pg.wait_for_selector("dialog#gameover[open]")
        board = pg.locator("#board svg").bounding_box()
        dialog = pg.locator("dialog#gameover").bounding_box()
        assert dialog["y"] >= board["y"] + board["height"] - 1, (board, dialog)  # the final board stays visible
        shot(pg, "19-game-over-phone")


def test_picking_a_card_while_browsing_returns_to_the_live_position(server, page):
    t = api(server, "POST", "/api/tables", against_ai(49))
    page.goto(t["seats"][0]["url"])
    play_one_click_move(page)
    page.wait_for_function("document.querySelectorAll('#log li').length >= 2")  # the AI answered
    wait_my_turn(page)
    page.locator("#log button.move").first.click()
    page.wait_for_selector("#live:not([hidden])")
    page.locator(".hand-card:not(.nomove):not(.dead)").first.click()
    page.wait_for_selector("#live[hidden]", state="attached")  # the live position, where the card can be played
    assert page.locator("#board .cell.target").count() >= 1
    assert "Back to the live position" in page.inner_text("#message")


def test_copy_link_says_whether_it_copied(server, browser):
    ctx = browser.new_context(viewport={"width": 1200, "height": 860})
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(TIMEOUT)
        pg.goto(server + "/")
        pg.wait_for_selector(".seat-row")
        pg.locator(".seat-row").nth(1).locator(".kind").select_option("human")
        pg.click("#create")
        pg.wait_for_selector("#created:not([hidden])")
        pg.locator("#links button", has_text="Copy link").first.click()
        note = pg.locator("#links [role=status]").first
        pg.wait_for_function("document.querySelector('#links [role=status]').textContent !== ''")
        assert note.inner_text() in ("Copied", "Could not copy: select the link below and copy it")
    finally:
        ctx.close()


def test_the_r7_choice_numbers_sit_between_chips(server, page):
    _at_the_r7_choice(server, page)
    numbers = page.eval_on_selector_all("#board .choices-layer circle", "cs => cs.map(c => [+c.getAttribute('cx'), +c.getAttribute('cy')])")
    chips = page.eval_on_selector_all("#board .overlay .chip", "cs => cs.map(c => c.getBBox()).map(b => [b.x, b.y, b.width, b.height])")
    for x, y in numbers:  # no number is drawn over a chip (R7 lines leave the chips readable)
        assert not any(bx + bw * 0.2 < x < bx + bw * 0.8 and by + bh * 0.2 < y < by + bh * 0.8 for bx, by, bw, bh in chips), (x, y)


def test_the_turn_timer_choices_match_the_server(server, page):
    schema = json.load(urllib.request.urlopen(server + "/openapi.json"))
    minimum = schema["components"]["schemas"]["CreateTable"]["properties"]["turn_seconds"]["anyOf"][0]["minimum"]
    page.goto(server + "/")
    page.wait_for_selector(".seat-row")
    offered = [float(v) for v in page.eval_on_selector_all("#turnseconds option", "os => os.map(o => o.value)") if v]
    assert min(offered) == minimum


def test_the_lobby_says_when_the_server_cannot_be_reached(server, browser):
    ctx = browser.new_context(viewport={"width": 1200, "height": 860})
    try:
        pg = ctx.new_page()
        pg.set_default_timeout(TIMEOUT)
        errors = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.route("**/api/tables?*", lambda route: route.abort())
        pg.goto(server + "/")
        pg.wait_for_function("document.getElementById('listerror').textContent !== ''")
        assert "cannot be reached" in pg.inner_text("#listerror")
        assert "no open seats right now" not in pg.inner_text("#opentables")  # not an empty list
        assert not errors, errors
    finally:
        ctx.close()
