"""What a seat, a spectator and the lobby see of a table (R9), as the typed models of ``models/views.py``.

A seat gets ``game.observation(seat)`` (its own hand, every other hand as a size, the draw pile as
a size, no seed), a spectator gets :func:`public_observation` (every hand as a size), and the legal
moves go only to the seat to move. Nothing else about the game is ever serialized for a browser;
the seed (which predicts every hidden card) leaves the server only in the record of a finished game.
"""

from __future__ import annotations

import time
from typing import Any, Dict, FrozenSet, List, Optional

from ...game_setup import TEAM_NAMES, sequences_to_win
from ...gamebase import GameBase
from ...position import observation_dict
from ...review import win_chances
from ...review.estimator import seat_ratings
from .. import models
from ..store import TableRow
from .clockstate import clock_view
from .opening import can_abort
from .rematch import offer_view
from .table import Seat, Table

__all__ = ["HISTORY_TAIL", "live_chances", "public_observation", "shown_name", "shown_seat", "stored_summary", "summary",
           "time_control", "view"]

HISTORY_TAIL = 40  # moves of the move list in each view (the whole list: the record, after the game)


def public_observation(game: GameBase) -> Dict[str, Any]:
    """What anyone may see (R9): the board, sequences, discard piles, hand sizes, the draw pile's size.

    >>> from sequence_game.reference import Game
    >>> obs = public_observation(Game(players=2, seed=1))
    >>> obs["hands"], obs["draw_pile"], "seed" in obs
    ([7, 7], 90, False)
    """
    return _public(game.to_dict())


def _public(state: Dict[str, Any]) -> Dict[str, Any]:
    obs = observation_dict(state, 0)
    obs["hands"] = [len(h) for h in state["hands"]]
    obs["player"] = None
    if obs.get("last_draw") is not None:
        obs["last_draw"] = {"player": obs["last_draw"]["player"]}
    return obs


def shown_seat(table: Table, seats: FrozenSet[int]) -> Optional[int]:
    """The seat whose hand a connection sees: its own seat; at a hot seat, the human to move once
    they asked to see it (the hand is hidden between turns); None for a spectator."""
    if len(seats) == 1:
        return next(iter(seats))
    g = table.game
    if seats and not table.over and g.current_player in seats and table.revealed == (g.current_player, g.turn):
        return g.current_player
    return None


def view(table: Table, seats: FrozenSet[int], full: Optional[Dict[str, Any]] = None) -> models.TableView:
    """The whole message a connection gets about ``table``: ``state`` is exactly
    ``game.observation(seat)`` (or :func:`public_observation`), the rest is public table data.
    ``full``: ``game.to_dict()`` if the caller has it (one per broadcast, not one per view)."""
    clock = clock_view(table)
    g = table.game
    shown = shown_seat(table, seats)
    if full is None:
        full = g.to_dict()
    state = observation_dict(full, shown) if shown is not None else _public(full)
    over = table.over
    abortable = can_abort(table)
    # while a seat is open the table waits for its players: nobody has a move to make yet
    to_move = shown is not None and not over and g.current_player == shown and not any(s.open for s in table.seats)
    # the record holds every entry's text already (prefix + the game's own history), so the tail
    # costs HISTORY_TAIL strings, not a rebuild of the whole history per view
    n = len(table.movers)
    tail = list(zip(table.movers[max(0, n - HISTORY_TAIL):], table.record.moves[max(0, n - HISTORY_TAIL):n]))
    last = tail[-1] if tail else None
    return models.TableView(
        table=table.id,
        version=table.version,
        players=g.players,
        teams=g.teams,
        to_win=sequences_to_win(g.teams),
        seats=[models.SeatView(seat=p, team=g.team_of(p), kind=s.kind, name=s.name or "(open seat)",
                               ai=s.ai, connected=p in table.present, open=s.open, account=s.account)
               for p, s in enumerate(table.seats)],
        you=sorted(seats),
        seat=shown,
        hot_seat=table.options.hot_seat,
        hand_hidden=bool(seats) and shown is None and not over and g.current_player in seats,
        state=models.Observation.model_validate(state),
        legal=[str(m) for m in g.legal_moves()] if to_move else [],
        moves=len(table.movers),
        history=tail,
        last_move=None if last is None else models.LastMove(player=last[0], move=last[1]),
        thinking=table.thinking,
        can_undo=bool(seats) and table.undo_allowed() and table.undo_target(seats) is not None,
        hints=table.options.hints,
        rated=table.options.rated,
        can_abort=bool(seats) and abortable,
        can_resign=bool(seats) and not over and g.teams == 2 and not abortable,
        rematch=table.options.rematch,
        rematch_allowed=bool(seats) and over,
        rematch_offer=None if (offer := offer_view(table)) is None else models.RematchOffer.model_validate(offer),
        turn_seconds=table.options.turn_seconds,
        turn_left=None if over or table.deadline is None else max(0.0, table.deadline - time.time()),
        grace_left=None if over or table.grace is None or table.deadline is None
        else max(0.0, table.deadline - time.time()),
        clock=None if clock is None else models.ClockView.model_validate(clock),
        over=over,
        result=result(table),
        chances=live_chances(table),
    )


def live_chances(table: Table) -> Optional[List[float]]:
    """The live evaluation bar: every team's chance of winning in the public view (R9: no hand is
    read), with the seats' ratings when every seat is a rated AI; only once the game is over or at
    a table where no person plays. None at a table where a person plays a live game: it would help
    them (docs/review.md)."""
    if (not table.over and any(s.kind != "ai" for s in table.seats)) or table.record.ending is not None:
        return None  # nobody won an aborted game, and nobody had the chances of a draw
    res = table.record.result
    if table.over and res is not None:  # the result, a resignation included
        teams = table.game.teams
        return [1.0 / teams] * teams if res["winner"] is None else [float(t == res["winner"]) for t in range(teams)]
    try:
        chances = win_chances(table.game, ratings=seat_ratings(table.record.agents))
    except TypeError:  # a game class other than the compiled core's: no estimator
        return None
    return [round(p, 4) for p in chances]


def result(table: Table) -> Optional[models.Result]:
    """How the table's game ended (None while it goes on)."""
    res = table.record.result
    if res is None:
        return None
    return _result_of(res, table.game.teams, table.seats, table.record.resigned,
                      _flagged(table.options.clock_state), table.record.aborted)


def _flagged(state: Any) -> bool:
    """Whether a table's resignation was its clock running out (tables/clock.py)."""
    return isinstance(state, dict) and isinstance(state.get("flagged"), int)


def time_control(options: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """A table's time control from its stored options (``TableOptions.to_dict``): its game clock
    (kind, seconds, increment), its turn timer (kind ``turn``), or None."""
    clock, turn = options.get("clock"), options.get("turn_seconds")
    if isinstance(clock, dict) and clock.get("kind") in ("fischer", "bank"):
        return {"kind": clock["kind"], "seconds": float(clock.get("seconds", 0)),
                "increment": float(clock.get("increment", 0))}
    if isinstance(turn, (int, float)) and not isinstance(turn, bool):
        return {"kind": "turn", "seconds": float(turn), "increment": 0.0}
    return None


def _time_control(options: Dict[str, Any]) -> Optional[models.TimeControlView]:
    found = time_control(options)
    return None if found is None else models.TimeControlView.model_validate(found)


def summary(table: Table) -> models.TableSummary:
    """A line of the table list: public only."""
    g = table.game
    return models.TableSummary(
        table=table.id, players=g.players, teams=g.teams, created=table.created, turn=g.turn, over=table.over,
        result=result(table),
        seats=[models.SummarySeat(kind=s.kind, name=s.name, ai=s.ai, open=s.open and not table.over,
                                  account=s.account) for s in table.seats], rated=table.options.rated,
        moves=len(table.movers), time_control=_time_control(table.options.to_dict()))


def stored_summary(row: TableRow) -> models.TableSummary:
    """:func:`summary` of a stored table, read from its row without replaying the game."""
    rec, seats = row.record, [Seat(**s) for s in row.seats]
    res = rec.get("result")
    return models.TableSummary(
        table=row.id, players=rec["players"], teams=rec["teams"], created=row.created,
        turn=res["turns"] if res else len(rec["moves"]), over=res is not None,
        result=None if res is None else _result_of(res, rec["teams"], seats, rec.get("resigned"),
                                                   _flagged(row.options.get("clock_state")), rec.get("aborted")),
        seats=[models.SummarySeat(kind=s.kind, name=s.name, ai=s.ai, open=False, account=s.account)
               for s in seats], rated=row.options.get("rated") is True, moves=len(rec["moves"]),
        time_control=_time_control(row.options))


def shown_name(seat: Seat) -> str:
    """A seat's name in a text the server writes: a person without an account marked as a guest,
    so a guest called "alice" never reads as the account alice (docs/club.md, "Names")."""
    return seat.name if seat.account or seat.kind != "human" else f"{seat.name} (guest)"


def _result_of(res: Dict[str, Any], teams: int, seats: List[Seat], resigned: Optional[int] = None,
               flagged: bool = False, aborted: Optional[Dict[str, Any]] = None) -> models.Result:
    """A record's result with a line of text naming the winners (seat p is on team p mod teams, R2).
    It counts turns as the rules do and as its ``turns`` does (R5: a play or a pass is a turn, a
    dead-card trade is not), so the text and the number agree; the move list, where a trade is an
    entry of its own, may be longer. ``aborted``: the record's (an aborted game: nobody won)."""
    count = f"{res['turns']} turn" + ("" if res["turns"] == 1 else "s")
    if aborted is not None:
        who = shown_name(seats[aborted["seat"]])
        how = "did not make a first move in time" if aborted["why"] == "no-first-move" else "aborted it"
        return models.Result(winner=None, is_draw=False, turns=res["turns"], resigned=None,
                             aborted=models.Aborted.model_validate(aborted),
                             text=f"Game aborted after {count}: {who} {how}. Nobody wins or loses; no rating changes.")
    if res["winner"] is None:
        return models.Result(winner=None, is_draw=bool(res["is_draw"]), turns=res["turns"], resigned=None,
                             text=f"Draw after {count}.")
    winners = [shown_name(s) for p, s in enumerate(seats) if p % teams == res["winner"]]
    how = "" if resigned is None else f", {shown_name(seats[resigned])} {'ran out of time' if flagged else 'resigned'}"
    # the winners' names after the sentence, not in brackets: a name may hold brackets itself
    # ("AI 2 (easy)"), and brackets in brackets read badly
    return models.Result(winner=res["winner"], is_draw=bool(res["is_draw"]), turns=res["turns"], resigned=resigned,
                         on_time=resigned is not None and flagged,
                         text=f"Team {TEAM_NAMES[res['winner']]} wins after {count}{how}. "
                              f"Winner{'s' if len(winners) > 1 else ''}: {', '.join(winners)}.")
