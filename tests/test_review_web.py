"""The review of a web table's game: the moves a turn timer played for an absent player are kept in
the table's record and shown by the review as timeouts (events, not graded)."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient
from sequence_game import GameRecord
from sequence_game.web import create_app
from web_support import BASE, auth, first_moves, new_table, service_of, wait_for

TWO_HUMANS = [{"kind": "human", "name": "Ann"}, {"kind": "human", "name": "Bob"}]


def test_a_timeout_move_is_recorded_and_the_review_shows_it(tmp_path):
    db = tmp_path / "t.sqlite3"
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:
        tid, tokens = new_table(c, players=2, seed=8, seats=TWO_HUMANS, turn_seconds=10)
        service = service_of(c)
        table = service.tables[tid]
        first_moves(c, tid, tokens)  # a first move is never played by the timer: it has a grace
        p = table.game.current_player
        c.post(f"/api/tables/{tid}/moves", json={"move": str(table.game.legal_moves()[0])}, headers=auth(tokens[p]))
        late = table.game.current_player

        async def shorten():  # the same clock with a short turn, so the test need not wait ten seconds
            table.clock.cancel()
            table.clock = None
            table.options.turn_seconds = 0.2
            service.clock.start(table, late, asyncio.get_running_loop())

        c.portal.call(shorten)
        wait_for(lambda: table.version == 4)
        assert table.movers[2:] == [p, late] and table.record.timeouts == [4]
        c.post(f"/api/tables/{tid}/moves", json={"move": str(table.game.legal_moves()[0])},
               headers=auth(tokens[table.game.current_player]))
        assert table.record.timeouts == [4]  # an ordinary move is not a timeout
        c.post(f"/api/tables/{tid}/resign", headers=auth(tokens[0]))
        record = GameRecord.from_json(c.get(f"/api/tables/{tid}/record").text)
        assert record.timeouts == [4]
        c.post(f"/api/tables/{tid}/review")
        wait_for(lambda: c.get(f"/api/tables/{tid}/review").json()["status"] == "ready", timeout=60)
        review = c.get(f"/api/tables/{tid}/review").json()["review"]
        assert [m["kind"] for m in review["moves"]][3] == "timeout"
        assert review["moves"][3]["player"] == late and review["moves"][3]["loss"] is None
        assert {"kind": "timeout", "after": 3, "player": late, "move": record.moves[3]} in review["events"]
    with TestClient(create_app(db, ai_pause=0), base_url=BASE) as c:  # the stored record keeps it
        assert GameRecord.from_json(c.get(f"/api/tables/{tid}/record").text).timeouts == [4]


def test_the_evaluation_bar_is_for_ai_tables_finished_games_and_replays_only():
    with TestClient(create_app(ai_pause=0), base_url=BASE) as c:
        tid, tokens = new_table(c, players=2, seed=4, seats=[{"kind": "human", "name": "Ann"}, {"kind": "ai"}])
        table = service_of(c).tables[tid]
        # a person plays a live game: no bar for the player, nor for a spectator who could tell them
        assert c.get(f"/api/tables/{tid}", headers=auth(tokens[0])).json()["chances"] is None
        assert c.get(f"/api/tables/{tid}").json()["chances"] is None
        c.post(f"/api/tables/{tid}/resign", headers=auth(tokens[0]))
        assert c.get(f"/api/tables/{tid}").json()["chances"] == [0.0, 1.0]  # over: the result
        steps = c.get(f"/api/tables/{tid}/replay").json()["steps"]
        assert steps[-1]["chances"] == [0.0, 1.0] and len(steps) == len(table.record.moves) + 1
        assert all(abs(sum(s["chances"]) - 1) < 1e-3 for s in steps)
        seats = [{"kind": "ai", "ai": "easy"}, {"kind": "ai", "ai": "random"}, {"kind": "ai", "ai": "medium"}]
        tid, _ = new_table(c, players=3, seed=4, seats=seats)
        wait_for(lambda: len(service_of(c).tables[tid].movers) >= 3)
        view = c.get(f"/api/tables/{tid}").json()
        chances = view["chances"]
        assert len(chances) == 3 and abs(sum(chances) - 1) < 1e-3
        assert view["over"] or all(0 < p < 1 for p in chances)
