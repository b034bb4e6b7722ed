"""Property-based fuzzing of every HTTP endpoint from the app's own OpenAPI schema (schemathesis):
no 500, every response (refusals included) conforms to the schema and its documented statuses,
and schema-invalid input is refused.

Half the requests that name a table name a real one, with its seat's token half of the time, so
the generated bodies reach the game and not only the 404; likewise half the seek ids, player names
and challenge ids are real. Half the requests are signed in, as a browser on this server's pages sends them
(a live session cookie of one of two accounts and this server's ``Origin``), so those of the
club's operations reach its logic (rated tables and seeks, joins, the session) instead of
stopping at 401 or 403; a last test checks that they did. The run here is short (CI);
``SEQUENCE_SCHEMA_EXAMPLES=N`` makes it longer (docs/hardening.md has a long run's results).
"""

from __future__ import annotations

import asyncio
import os
import random
from collections import Counter, defaultdict

import pytest

pytest.importorskip("schemathesis")
pytest.importorskip("fastapi")

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.python import asgi
from sequence_game.web import create_app
from sequence_game.web.club import ClubSettings
from sequence_game.web.club.sessions import COOKIE
from sequence_game.web.limits import ServerLimits

EXAMPLES = int(os.environ.get("SEQUENCE_SCHEMA_EXAMPLES", "25"))
BASE = "http://testserver"  # the host name of schemathesis's in-process client, allowed below

# generous per-client limits: the fuzzer is one client that creates many tables and seeks, signs
# up and logs in; cheap argon2 (the real parameters are tested in test_web_accounts.py)
MANY = 100000
app = create_app(ai_pause=0, max_ai_seconds=0.2,
                 limits=ServerLimits(create_burst=MANY, create_per_minute=MANY, max_tables_per_client=MANY,
                                     max_tables=MANY, max_seeks=MANY, max_seeks_per_client=MANY,
                                     allowed_hosts=("testserver",)),
                 club=ClubSettings(hash_overrides=(("time_cost", 1), ("memory_cost", 8), ("parallelism", 1)),
                                   login_burst=MANY, login_per_hour=MANY, name_burst=MANY, name_per_hour=MANY,
                                   signup_burst=MANY, signup_per_hour=MANY))
ACCOUNTS = ("fuzzer", "rival")
#: the choices above each example's body: hypothesis seeds the global random module the same way for
#: every example, so a draw from it would be the same draw every time (all real tables or none)
RNG = random.Random()  # the accounts whose sessions sign the requests in
#: what the club's operations answered the signed-in requests: "METHOD path" -> status counts
SIGNED_IN: dict = defaultdict(Counter)
#: the operations whose answer depends on who is signed in (a guest is refused, or acts as a guest)
CLUB_OPERATIONS = {"POST /api/tables", "POST /api/tables/{table_id}/join", "POST /api/seeks",
                   "POST /api/seeks/quick", "POST /api/seeks/{seek_id}/accept", "POST /api/play-computer",
                   "GET /api/session", "DELETE /api/session", "PUT /api/session/password", "GET /api/people",
                   "PUT /api/people/follows/{name}", "DELETE /api/people/follows/{name}",
                   "PUT /api/people/blocks/{name}", "DELETE /api/people/blocks/{name}", "PUT /api/profile",
                   "POST /api/challenges", "GET /api/challenges/{challenge_id}",
                   "POST /api/challenges/{challenge_id}/accept", "POST /api/challenges/{challenge_id}/decline",
                   "DELETE /api/challenges/{challenge_id}"}


#: the event loop the in-process client runs the app in (the app's AI turns and timers run there)
RUNNING: dict = {}


async def fuzzed(scope, receive, send):
    """The app, its lifespan answered here: the test client may end a lifespan between calls, and
    the service (its database thread) must serve the whole run."""
    if scope["type"] != "lifespan":
        RUNNING["loop"] = asyncio.get_running_loop()
        await app(scope, receive, send)
        return
    while True:
        message = await receive()
        await send({"type": message["type"] + ".complete"})
        if message["type"] == "lifespan.shutdown":
            return


schema = schemathesis.openapi.from_asgi("/openapi.json", fuzzed)
_tables: list = []
_seeks: list = []
_challenges: list = []


@pytest.fixture(scope="module", autouse=True)
def _the_app_stops_with_this_module():
    """The fuzzer's tables, AI against AI among them, would play on after this module in the
    in-process client's event loop, which lives as long as the test process: their turns would take
    the CPU from the modules that follow (and call any agent a later test patches). The app stops
    here, as its lifespan's end would stop it."""
    yield
    loop = RUNNING.get("loop")
    if loop is not None and loop.is_running():
        asyncio.run_coroutine_threadsafe(app.state.env.close(), loop).result(60)


def _signed_in(name):
    """The headers of a request signed in as account ``name`` from this server's pages: a new session
    (a fuzzed logout ends only its own) and the Origin every browser sends with a write."""
    club = app.state.club
    if club.accounts.get(name) is None:
        club.accounts.create(name, "password1")
    return {"Cookie": f"{COOKIE}={club.sessions.start(name)}", "Origin": BASE}


def _real_tables():
    """Three tables made through the same in-process client as the fuzzer (one event loop): two humans
    (moves, hints, analyses), one finished game (record, replay, review, ratings), and a rated table
    waiting for an account (join)."""
    if not _tables:
        with asgi.get_client(fuzzed) as client:
            # two people's links: the server deals (R9), so no seed; a game replayed from its seed
            # and moves has one person's link (and an AI)
            for body in ({"players": 2, "hints": True, "seats": [{"kind": "human"}, {"kind": "human"}]},
                         {"players": 2, "seed": 5, "ai_seconds": 0.05,
                          "seats": [{"kind": "human"}, {"kind": "ai", "ai": "random"}],
                          "moves": _a_whole_game(5)}):
                r = client.post(BASE + "/api/tables", json=body)
                assert r.status_code == 201, r.text
                data = r.json()
                _tables.append((data["table"], [s["token"] for s in data["seats"]]))
            # a rated table of the first account, its other seat open for an account to join
            r = client.post(BASE + "/api/tables", json={"players": 2, "rated": True}, headers=_signed_in(ACCOUNTS[0]))
            assert r.status_code == 201, r.text
            _tables.append((r.json()["table"], [s["token"] for s in r.json()["seats"]]))
    return _tables


def _real_seek():
    """An open rated seek of the first account (a new one once the last is taken or gone)."""
    board = app.state.seeks
    if not _seeks or board.seeks.get(_seeks[-1]) is None or board.seeks[_seeks[-1]].status != "open":
        with asgi.get_client(fuzzed) as client:
            r = client.post(BASE + "/api/seeks", json={"rated": True}, headers=_signed_in(ACCOUNTS[0]))
            assert r.status_code == 201, r.text
            _seeks.append(r.json()["seek"])
    return _seeks[-1]


def _real_challenge():
    """An open challenge of the first account to the second (a new one once the last is closed)."""
    club = app.state.club
    maker = club.accounts.get(ACCOUNTS[0]) or club.accounts.create(ACCOUNTS[0], "password1")
    target = club.accounts.get(ACCOUNTS[1]) or club.accounts.create(ACCOUNTS[1], "password1")
    if not _challenges or club.people.get(maker, _challenges[-1]).status != "open":
        club.people.unblock(maker, target.name)
        club.people.unblock(target, maker.name)
        for c in club.people.challenges(maker)["outgoing"]:
            if c.status == "open":
                club.people.close(maker, c.id, "withdrawn")
        game = {"players": 2, "teams": 2, "rated": True, "turn_seconds": None, "clock": None}
        _challenges.append(club.people.challenge(maker, target.name, game).id)
    return _challenges[-1]


def _a_whole_game(seed):
    from sequence_game import Game

    g, rng = Game(players=2, seed=seed), random.Random(seed)
    moves = []
    while not g.is_over:
        m = rng.choice(g.legal_moves())
        moves.append(str(m))
        g.play(m)
    return moves


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_endpoint_against_its_schema(case):
    excluded = [schemathesis.checks.positive_data_acceptance]
    if case.path_parameters and "table_id" in case.path_parameters and RNG.random() < 0.5:
        table, tokens = RNG.choice(_real_tables())
        if case.path == "/api/tables/{table_id}/stream":
            # a live table's stream ends only with its game (the client would time out): the finished
            # game's stream sends its state and ends (with rematch=true a seat's stream stays open for
            # the rematch offers: left out here, test_bot.py follows one)
            table, tokens = _real_tables()[1]
            case.query = {k: v for k, v in (case.query or {}).items() if k != "rematch"}
            # the case is no longer the one generated (a real table, its query rewritten): a negative
            # case's unknown query fields are ignored, as by every route, and its table id is real now
            excluded.append(schemathesis.checks.negative_data_rejection)
        case.path_parameters["table_id"] = table
        if RNG.random() < 0.5:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {RNG.choice(tokens)}"}
            # the case may have been made to leave the token out or to send a made-up one (a negative
            # example): it has a real one now
            excluded += [schemathesis.checks.missing_required_header, schemathesis.checks.ignored_auth]
    if case.method.upper() == "GET" and "after_version" in (case.query or {}):
        # a long-poll on a real table waits 1 s at most (its default is 25 s; the client gives up at 10)
        wait = case.query.get("wait")
        try:
            short = wait is None or float(wait) > 1
        except (TypeError, ValueError):
            short = False  # not a number: refused at once
        if short:
            case.query = {**case.query, "wait": 1}
    if case.path_parameters and "seek_id" in case.path_parameters and RNG.random() < 0.5:
        case.path_parameters["seek_id"] = _real_seek()
    if case.path_parameters and "challenge_id" in case.path_parameters and RNG.random() < 0.5:
        case.path_parameters["challenge_id"] = _real_challenge()
    if case.path_parameters and "name" in case.path_parameters and RNG.random() < 0.5:
        case.path_parameters["name"] = RNG.choice(ACCOUNTS)
    declared = {p.name for p in case.operation.iter_parameters() if p.location.value == "query"}
    if set(case.query or {}) - declared:
        # a query parameter the operation does not declare (the fuzzer's negative cases make up
        # names, even ""): HTTP lets a server ignore it, as FastAPI does, so the answer may be 2xx
        excluded += [schemathesis.checks.negative_data_rejection]
    signed_in = RNG.random() < 0.5
    if signed_in:  # the other account than the seek's and the rated table's poster, most of the time
        case.headers = {**(case.headers or {}), **_signed_in(RNG.choice((ACCOUNTS[0],) + ACCOUNTS[1:] * 3))}
    # the schema cannot say which moves are legal, or that a seat list matches the player count:
    # a schema-valid body the rules refuse is a 409 or 422 with a message, not a failure
    response = case.call_and_validate(excluded_checks=excluded)
    operation = f"{case.method.upper()} {case.path}"
    if signed_in and operation in CLUB_OPERATIONS:
        SIGNED_IN[operation][response.status_code] += 1


def test_signed_in_requests_reached_the_clubs_logic():
    """Run after the fuzzing above (this module's order): for each of the club's operations it
    called signed in, some answer was neither 401 nor 403 (a session cookie without this server's
    Origin, or a dead session, would stop every one of them there)."""
    if not SIGNED_IN:
        pytest.skip("the fuzzing test above did not run (deselected)")
    stopped = {op: dict(counts) for op, counts in SIGNED_IN.items() if set(counts) <= {401, 403}}
    assert not stopped, stopped
