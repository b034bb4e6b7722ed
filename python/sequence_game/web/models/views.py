"""What one connection sees of a table (R9): the game's observation, the seats, the clocks, the
result (built by ``tables/views.py``)."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, Tuple, Union

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer


class SequenceView(BaseModel):
    """A completed sequence (R7)."""

    team: int = Field(description="the team that made it")
    cells: List[Tuple[int, int]] = Field(description="its five cells [row, col], sorted")


class LastDraw(BaseModel):
    """The most recent end-of-turn draw (R10 missed_draw); the card only for the player who drew it."""

    player: int
    card: Optional[str] = Field(None, description="only in that player's own view (R9); absent in the others'")

    @model_serializer(mode="wrap")
    def _absent_card(self, handler: SerializerFunctionWrapHandler) -> Dict[str, Any]:
        # a view that may not see the card has no "card" key at all (not a null): the state is
        # exactly Game.observation(seat)
        data: Dict[str, Any] = handler(self)
        if data.get("card") is None:
            data.pop("card", None)
        return data


class Observation(BaseModel):
    """What the viewer may see of the game (R9): the format sequence-game/1 of docs/state-format.md
    with every hidden card replaced by a count: ``Game.observation(seat)`` for a seat, the same
    with every hand as a size for a spectator."""

    format: Literal["sequence-game/1"]
    players: int
    teams: int
    board: List[str] = Field(description="10 rows of 10 characters: * corner, . empty, B G R a chip of team 0 1 2")
    sequences: List[SequenceView]
    hands: List[Union[List[str], int]] = Field(
        description="per seat: the cards for the viewer's own seat, a count for every other (R9)")
    discards: List[List[str]] = Field(description="per seat, its discard pile, oldest first (public)")
    draw_pile: int = Field(description="how many cards are left to draw")
    current_player: int = Field(description="the seat to move (once over: the seat that moved last)")
    dealer: int
    turn: int = Field(description="completed turns: plays and passes, not trades")
    traded_this_turn: bool = Field(description="the seat to move has traded a dead card this turn (R5)")
    passes: int = Field(description="consecutive passes counting toward a stalemate (R5)")
    winner: Optional[int] = Field(description="the winning team (R8), or null")
    is_draw: bool
    max_turns: Optional[int] = Field(description="the turn cap (a draw when reached), or null")
    last_draw: Optional[LastDraw]
    player: Optional[int] = Field(description="the seat this observation is for; null for a spectator")


class SeatView(BaseModel):
    """One seat of the table (public)."""

    seat: int
    team: int = Field(description="seat mod teams (R2)")
    kind: Literal["human", "ai"]
    name: str
    ai: Optional[str] = Field(description="the AI seat's preset, null for a person")
    connected: bool = Field(description="a websocket or event stream of this seat is open")
    open: bool = Field(description="a human seat nobody has taken yet (POST /api/tables/{table_id}/join)")
    account: Optional[str] = Field(None, description="the account that took the seat (/players/{name}); null: a "
                                                     "guest or the computer")


class LastMove(BaseModel):
    player: int = Field(description="the seat that made it")
    move: str = Field(description="the move (text notation) or a referee call")


class RematchOffer(BaseModel):
    """An open offer of a rematch (docs/web.md, "Rematch"): the new table exists once every person
    at the table accepted it."""

    by: int = Field(description="the seat that offered it")
    accepted: List[int] = Field(description="the human seats that accepted (the maker's included)")
    waiting: List[int] = Field(description="the human seats still to answer")
    rated: bool = Field(description="the rematch will be rated (the table was: everyone accepting is the consent)")
    expires_in: float = Field(description="seconds until the offer ends unanswered")


class Aborted(BaseModel):
    """How a game ended without a winner or a loser before every player's first move (docs/club.md,
    "Abort")."""

    seat: int = Field(description="the seat that aborted it, or that did not make its first move in time")
    why: Literal["abort", "no-first-move"] = Field(
        description="abort: the seat aborted the game (or resigned, which aborts it then); no-first-move: its "
                    "first move's grace ran out")


class Result(BaseModel):
    """How the game ended."""

    winner: Optional[int] = Field(description="the winning team, null for a draw")
    is_draw: bool
    turns: int
    resigned: Optional[int] = Field(description="the seat that resigned (its team lost), or null")
    on_time: bool = Field(False, description="the seat in `resigned` ran out of time on its clock (it did not resign)")
    aborted: Optional[Aborted] = Field(None, description="the game was aborted (nobody won or lost, no rating "
                                                         "changed), or null")
    text: str = Field(description="one line naming the winners (English; the pages build theirs from the fields above)")


class ClockView(BaseModel):
    """A table's game clocks (public)."""

    kind: Literal["fischer", "bank"]
    seconds: float
    increment: float
    at_zero: Literal["ai", "lose"]
    left: List[Optional[float]] = Field(description="per seat: its time left in seconds (null: an AI seat, no clock)")
    increments: List[float] = Field(description="per seat: the seconds its clock gains (`increment`, or 0 for an "
                                                "arena player gone berserk)")
    running: Optional[int] = Field(description="the seat whose clock runs now, or null")
    flagged: Optional[int] = Field(description="the seat that ran out of time and lost, or null")


class TableView(BaseModel):
    """The table as one connection may see it (R9): the same object on GET /api/tables/{id}, in
    move and undo responses, in every websocket ``state`` frame and event stream line."""

    table: str
    version: int = Field(description="counts the table's changes; send it with a move (a stale one is refused, "
                                     "409) and as after_version to wait for the next change")
    players: int
    teams: int
    to_win: int = Field(description="sequences a team needs to win (R8)")
    seats: List[SeatView]
    you: List[int] = Field(description="the seats your token holds (empty: a spectator)")
    seat: Optional[int] = Field(description="the seat whose hand the state shows (null: none, a spectator's view)")
    hot_seat: bool = Field(description="all human seats play at one screen")
    hand_hidden: bool = Field(description="hot seat: your seat is to move but its hand is not shown yet "
                                          "(send reveal)")
    state: Observation
    legal: List[str] = Field(description="your legal moves (text notation) when your seat is to move, else []")
    moves: int = Field(description="entries in the game's history (moves and referee calls)")
    history: List[Tuple[int, str]] = Field(description="the last entries of the history, [seat, move], oldest first")
    last_move: Optional[LastMove]
    thinking: Optional[int] = Field(description="the AI seat searching now, or null")
    can_undo: bool = Field(description="POST undo would take back your last move now")
    hints: bool = Field(description="seats may ask the AI for a hint or an analysis at this table")
    rated: bool = Field(False, description="the game changes its players' ratings (docs/club.md); so does its "
                                           "rematch, which every player accepts")
    can_abort: bool = Field(False, description="your seat may abort the game now (POST abort): a game between "
                                               "people before every human seat made its first move")
    can_resign: bool = Field(description="your seat may resign now (two teams, the game going on, every first "
                                         "move made at a table of people)")
    rematch: Optional[str] = Field(description="the id of the rematch table, once one exists")
    rematch_allowed: bool = Field(description="you may offer a rematch, or accept the open offer (the game is over)")
    rematch_offer: Optional[RematchOffer] = Field(None, description="the open offer of a rematch, or null")
    turn_seconds: Optional[float] = Field(description="the table's turn timer for human seats, or null")
    turn_left: Optional[float] = Field(description="seconds left on the running turn timer, or null")
    grace_left: Optional[float] = Field(None, description="seconds left of the first move's grace of the seat to "
                                                          "move (its clock does not run meanwhile; past it the game "
                                                          "is aborted), or null")
    clock: Optional[ClockView] = Field(None, description="the game clocks, or null (a turn timer, or none)")
    over: bool
    result: Optional[Result] = Field(description="null until the game is over")
    chances: Optional[List[float]] = Field(
        None, description="the live evaluation bar: every team's chance of winning, in the public view (R9: no hand "
                          "is read), for a finished game or a table where only AIs play; null at a table where a "
                          "person plays a game still going (no help in a live game)")
