"""Property-based fuzzing of every HTTP endpoint from the app's own OpenAPI schema (schemathesis):
no 500, every response (refusals included) conforms to the schema and its documented statuses,
and schema-invalid input is refused.

Half the requests that name a table name a real one, with its seat's token half of the time, so
the generated bodies reach the game and not only the 404. The run here is short (CI);
``SEQUENCE_SCHEMA_EXAMPLES=N`` makes it longer (docs/hardening.md has a long run's results).
"""

from __future__ import annotations

import os
import random

import pytest

pytest.importorskip("schemathesis")
pytest.importorskip("fastapi")

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.python import asgi
from sequence_game.web import create_app
from sequence_game.web.limits import ServerLimits

EXAMPLES = int(os.environ.get("SEQUENCE_SCHEMA_EXAMPLES", "25"))
BASE = "http://testserver"  # the host name of schemathesis's in-process client, allowed below

# generous per-client limits: the fuzzer is one client that creates many tables
app = create_app(ai_pause=0, max_ai_seconds=0.2,
                 limits=ServerLimits(create_burst=100000, create_per_minute=100000, max_tables_per_client=100000,
                                     max_tables=100000, allowed_hosts=("testserver",)))


async def fuzzed(scope, receive, send):
    """The app, its lifespan answered here: the test client may end a lifespan between calls, and
    the service (its database thread) must serve the whole run."""
    if scope["type"] != "lifespan":
        await app(scope, receive, send)
        return
    while True:
        message = await receive()
        await send({"type": message["type"] + ".complete"})
        if message["type"] == "lifespan.shutdown":
            return


schema = schemathesis.openapi.from_asgi("/openapi.json", fuzzed)
_tables: list = []


def _real_tables():
    """Two tables made through the same in-process client as the fuzzer (one event loop): two humans
    (moves, hints, analyses), and one finished game (record, replay)."""
    if not _tables:
        with asgi.get_client(fuzzed) as client:
            for body in ({"players": 2, "seed": 5, "hints": True, "seats": [{"kind": "human"}, {"kind": "human"}]},
                         {"players": 2, "seed": 5, "ai_seconds": 0.05,
                          "seats": [{"kind": "human"}, {"kind": "human"}],
                          "moves": _a_whole_game(5)}):
                r = client.post(BASE + "/api/tables", json=body)
                assert r.status_code == 201, r.text
                data = r.json()
                _tables.append((data["table"], [s["token"] for s in data["seats"]]))
    return _tables


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
    if case.path_parameters and "table_id" in case.path_parameters and random.random() < 0.5:
        table, tokens = random.choice(_real_tables())
        case.path_parameters["table_id"] = table
        if random.random() < 0.5:
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {random.choice(tokens)}"}
    # the schema cannot say which moves are legal, or that a seat list matches the player count:
    # a schema-valid body the rules refuse is a 409 or 422 with a message, not a failure
    case.call_and_validate(excluded_checks=[schemathesis.checks.positive_data_acceptance])
