"""A finished game: its record file and every position for the replay page."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from fastapi import APIRouter
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response

from ...gamebase import GameClass
from ...review import curve
from .. import models
from ..deps import ERRORS, Service, TableDep
from ..errors import NotNowError
from ..tables import Table

router = APIRouter(tags=["records"])


def _check_finished(table: Table) -> None:
    if not table.over:
        # the record holds the seed, which predicts every hidden card (R9): only after the end
        raise NotNowError("the game is not over: its record (with the seed) is kept secret until the end")


@router.get("/api/tables/{table_id}/record", responses=ERRORS,
            summary="The finished game as a sequence-game-record/1 JSON file")
async def record(table: TableDep) -> Response:
    """The game record (format sequence-game-record/1: seed and moves, `GameRecord.load` reads it),
    only once the game is over (409 before: the seed predicts every hidden card, R9)."""
    _check_finished(table)
    return Response(table.record.to_json(), media_type="application/json",
                    headers={"Content-Disposition": f'attachment; filename="sequence-{table.id}.json"'})


def _replay(table: Table, game_class: GameClass) -> Dict[str, Any]:
    steps = []
    players: List[Optional[int]] = [None, *table.movers]
    try:  # the evaluation bar: public chances at each step (a resignation's last point: the result)
        chances: List[Optional[List[float]]] = list(curve(table.record))
    except TypeError:  # a game class other than the compiled core's: no estimator
        chances = [None] * (len(table.record.moves) + 1)
    if table.record.resigned is not None and len(chances) > len(table.record.moves) + 1:
        chances[-2:] = chances[-1:]
    for step in table.record.positions(game_class):
        state = step.game.to_dict()  # the game is over: every card may be shown now
        del state["rng"]
        steps.append({"index": step.index, "player": players[step.index],
                      "move": None if step.move is None else str(step.move), "state": state,
                      "chances": chances[step.index]})
    return {"record": table.record.to_dict(), "names": [s.name for s in table.seats],
            "accounts": [s.account for s in table.seats], "steps": steps}


@router.get("/api/tables/{table_id}/replay", response_model=models.Replay, responses=ERRORS,
            summary="Every position of a finished game, for stepping through it")
async def replay(table: TableDep, service: Service) -> Dict[str, Any]:
    """Every position of a finished game with every card shown (409 before the end, R9)."""
    _check_finished(table)
    # one position per move: work that grows with the game runs off the event loop (a finished
    # game is never changed again, so the thread reads it alone)
    return await run_in_threadpool(_replay, table, service.game_class)
