"""The HTTP API's request and response bodies (pydantic), also the schemas of the OpenAPI page.

Every incoming body is validated against these models (types, ranges, lengths, no unknown
fields) before any game code sees it; the game then checks the rules.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Annotated, Any, Dict, List, Literal, Optional, Tuple, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from ..game_setup import VALID_PLAYERS
from ..i18n import LANGUAGES
from .limits import ServerLimits
from .presets import AI_PRESETS, AIPreset

MOVE_TEXT_MAX = 64  # "2H@e6 =a6-e6 =e6-i6" is 19 characters; declares of 3 sequences fit easily
MAX_PRESET_MOVES = 2000
TABLE_ID_MAX = 64  # a table id is 8 characters; longer path segments are not looked up
VERSION_MAX = 2**53  # a table's version counts its changes; JSON numbers are exact up to here
MAX_TURNS_MAX = 100000
#: The AI think time a request may ask for: one truth with the server's default cap
#: (ServerLimits.max_ai_seconds); a server configured lower caps it further.
AI_SECONDS_MIN, AI_SECONDS_MAX = 0.05, ServerLimits().max_ai_seconds


#: a number in brackets, as a rating is shown beside an account's name ("alice (500?)"); full-width
#: and other look-alike brackets and digits are read as these first (NFKC)
_RATING_LOOK = re.compile(r"[(\[{<]\s*[-+]?\s*\d[\d\s.,]*\??\s*[)\]}>]")


def check_guest_name(name: Optional[str]) -> Optional[str]:
    """A name a request gives a seat or a seek (a guest's: an account plays under its own): free
    text, but never a number in brackets, which would read as a rating (docs/club.md, "Names")."""
    if name is not None and _RATING_LOOK.search(unicodedata.normalize("NFKC", name)):
        raise ValueError("a guest's name may not hold a number in brackets: it would read as an account's "
                         "rating (sign in to play under your account)")
    return name


#: the name of a guest's seat or seek (``check_guest_name``)
GuestName = Annotated[Optional[str], Field(None, max_length=32), AfterValidator(check_guest_name)]


class Strict(BaseModel):
    # every field bounded (lengths, ranges, finite numbers) so that no request does work in
    # proportion to a number it sends before that number is checked; strict: a number is a number
    # (false is not the seed 0, "2" not the player count 2)
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, strict=True)


class SeatSpec(Strict):
    """One seat of a new table."""

    kind: Literal["human", "ai"] = Field(description="a person (gets a join link) or the computer")
    ai: Optional[AIPreset] = Field(None, description="the AI's strength: " + ", ".join(AI_PRESETS))
    name: GuestName = Field(None, description="shown at the table (a guest's: no number in brackets)")
    open: bool = Field(False, description="a human seat offered in the lobby: whoever joins it first gets its "
                                          "token (POST /api/tables/{id}/join); no link is made for it here")


class Credentials(Strict):
    """A name and a password: a sign-up (POST /api/accounts) or a login (POST /api/session)."""

    name: str = Field(max_length=40, description="3 to 20 letters, digits, '_' or '-'")
    password: str = Field(max_length=256, description="8 to 256 characters")


class Me(BaseModel):
    """The session: whether the server has accounts, and the account signed in (null: a guest)."""

    accounts: bool = Field(description="whether this server has accounts (serve --no-accounts: false)")
    name: Optional[str] = Field(description="the signed-in account's name; null: a guest")
    rating: Optional[int] = Field(None, description="its rating on the ladder's scale (docs/club.md)")
    provisional: Optional[bool] = None


class PasswordChange(Strict):
    old: str = Field(max_length=256, description="the account's password now")
    new: str = Field(max_length=256, description="the new password: 8 to 256 characters")


class LanguageChoice(Strict):
    language: str = Field(max_length=16, description="a language code: " + ", ".join(LANGUAGES))


class JoinRequest(Strict):
    seat: Optional[int] = Field(None, ge=0, le=11, description="the open seat to take (null: the first open one)")
    name: GuestName = Field(None, description="shown at the table (a guest's: no number in brackets)")


class PresetInfo(BaseModel):
    """An AI strength a seat may ask for."""

    name: AIPreset
    level: Optional[int] = Field(description="its level on the ladder, 1 (a beginner) to 8 (the strongest); null: "
                                             "not a level")
    rating: Optional[float] = Field(description="its measured rating on the ladder's scale (random = 0; "
                                              "docs/measurements.md), null when not measured")
    summary: str = Field(description="what plays (agents/levels.py; the measured ladder: docs/measurements.md)")
    time_cap: Optional[float] = Field(description="the longest it thinks per move, in seconds (null: at once)")


class CreateTable(Strict):
    """A new table: players, team split (R2), one seat spec per player."""

    players: int = Field(2, ge=min(VALID_PLAYERS), le=max(VALID_PLAYERS), json_schema_extra={"enum": list(VALID_PLAYERS)},
                         description=f"one of {', '.join(map(str, VALID_PLAYERS))} (R2)")
    teams: Optional[int] = Field(None, ge=2, le=3,
                                 description="2 or 3 where the player count allows both (6, 12); null: default")
    seats: Optional[List[SeatSpec]] = Field(
        None, max_length=12, description="seat p at index p; default: seat 0 human, the others AI 'medium' (at a "
                                         "rated table: the others open human seats)")
    seed: Optional[int] = Field(None, ge=0, lt=2**64, description="seed of the deal (null: random); refused where anyone but the creator "
                                "may sit (an open seat, two or more links): the server deals those (R9)")
    max_turns: Optional[int] = Field(None, ge=1, le=MAX_TURNS_MAX, description="a draw after this many turns")
    hot_seat: bool = Field(
        False, description="all human seats play at one screen (one link, hands hidden between turns)")
    ai_seconds: float = Field(2.0, ge=AI_SECONDS_MIN, le=AI_SECONDS_MAX,
                              description=f"the longest an AI may think per move at this table, {AI_SECONDS_MIN:g} "
                                          f"to {AI_SECONDS_MAX:g} s (a server configured lower caps it further)")
    turn_seconds: Optional[float] = Field(
        None, ge=10, le=86400, description="a turn timer for the human seats: when it runs out, the 'medium' AI "
                                           "plays one move for that seat and the game goes on; null: no timer")
    clock: Optional[TimeControl] = Field(
        None, description="a game clock per human seat instead of a turn timer (Fischer or a time bank); null: none")
    hints: Optional[bool] = Field(
        None, description="whether seats may ask the AI for a hint or an analysis; null: only when at most one "
                          "human sits at the table (no engine help in games between people); never at a rated "
                          "table (true is refused there)")
    rated: bool = Field(False, description="the game changes its players' ratings (docs/club.md): made by a "
                                           "signed-in account, no AI seat, every other seat open for accounts")
    moves: List[Annotated[str, Field(max_length=MOVE_TEXT_MAX)]] = Field(
        [], max_length=MAX_PRESET_MOVES,
        description="moves to play first (text notation), to go on with a saved game: "
                    "the 'moves' of a sequence-game-record/1 with its seed (refused, like seed, where anyone "
                    "but the creator may sit)")


class TimeControl(Strict):
    """A game clock per human seat (tables/clock.py; docs/web.md, "Time controls")."""

    kind: Literal["fischer", "bank"] = Field(
        description="fischer: `seconds` for the game, `increment` added after each of your moves; bank (as on "
                    "Board Game Arena): a bank of `seconds`, `increment` added at the start of each of your turns, "
                    "never past `seconds`")
    seconds: float = Field(ge=10, le=86400, description="each human seat's time for the game (the bank), in seconds")
    increment: float = Field(0.0, ge=0, le=3600, description="seconds added per move (fischer) or per turn (bank)")
    at_zero: Literal["ai", "lose"] = Field(
        "ai", description="when a seat's time runs out: the AI moves for it (ai), or its team loses on time "
                          "(lose; two-team games only)")


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


class SeatLink(BaseModel):
    seat: int = Field(description="the seat (several seats of a hot-seat table share one link)")
    token: str = Field(description="the seat's secret: send it as 'Authorization: Bearer <token>'")
    url: str = Field(description="the join link (the token rides in the #fragment, never in server logs)")


class TableCreated(BaseModel):
    table: str = Field(description="the table's id, in every /api/tables/{table_id} path")
    seats: List[SeatLink] = Field(description="one join link per human seat (hot seat: one link for all)")
    spectate_url: str


class SeekRequest(Strict):
    """The game a player wants (POST /api/seeks, POST /api/seeks/quick)."""

    players: int = Field(2, ge=min(VALID_PLAYERS), le=max(VALID_PLAYERS), json_schema_extra={"enum": list(VALID_PLAYERS)},
                         description=f"one of {', '.join(map(str, VALID_PLAYERS))} (R2): the poster and the accepter "
                                     "sit at seats 0 and 1 (opponents), further seats are open seats")
    teams: Optional[int] = Field(None, ge=2, le=3, description="2 or 3 where the player count allows both; null: default")
    rated: bool = Field(False, description="a rated game: needs an account (a guest's seek is casual)")
    turn_seconds: Optional[float] = Field(None, ge=10, le=86400, description="a turn timer (as for a table); null: none")
    clock: Optional[TimeControl] = Field(None, description="a game clock per seat instead of a turn timer")
    rating_min: Optional[int] = Field(None, ge=0, le=5000, description="the lowest rating of an opponent (players "
                                                                        "with a rating; null: any)")
    rating_max: Optional[int] = Field(None, ge=0, le=5000, description="the highest rating of an opponent (null: any)")
    name: GuestName = Field(None, description="your name at the table as a guest (no number in brackets)")


class SeekPosted(BaseModel):
    seek: str = Field(description="the seek's id")
    token: str = Field(description="the seek's secret: ask about it with 'Authorization: Bearer <token>' (GET "
                                   "/api/seeks/{seek_id}) at least every seek_idle_seconds, or it expires")
    expires_in: float = Field(description="seconds until it expires anyway")


class SeekSummary(BaseModel):
    """An open seek, as the lobby lists it (public: no token, no address)."""

    seek: str
    players: int
    teams: int
    rated: bool
    turn_seconds: Optional[float]
    clock: Optional[TimeControl]
    rating_min: Optional[int]
    rating_max: Optional[int]
    name: str = Field(description="the poster's name (an account's own name when signed in)")
    account: Optional[str] = Field(None, description="the poster's account (/players/{name}); null: a guest")
    rating: Optional[int] = Field(None, description="the poster's rating when it was posted (null: a guest)")
    provisional: Optional[bool] = Field(None, description="whether that rating was provisional (docs/club.md)")
    age: float = Field(description="seconds since it was posted")


class SeekList(BaseModel):
    version: int = Field(description="counts the changes of the list: send it as after_version to wait for the next")
    seeks: List[SeekSummary]


class SeekStatus(BaseModel):
    """A seek as its poster sees it."""

    seek: str
    status: Literal["open", "accepted", "cancelled", "expired"]
    table: Optional[str] = Field(description="the table made when it was accepted")
    seat: Optional[SeatLink] = Field(description="the poster's seat at that table (to the poster only)")


class AcceptSeek(Strict):
    name: GuestName = Field(None, description="your name at the table as a guest (no number in brackets)")


class QuickPairing(BaseModel):
    """Quick pairing: a table with a compatible seek's poster at once, or a seek of yours that waits."""

    status: Literal["paired", "waiting"]
    seat: Optional[SeatLink] = Field(description="paired: your seat at the new table")
    seek: Optional[SeekPosted] = Field(description="waiting: your new seek (ask about it with its token)")


class PlayComputer(Strict):
    """One click against the computer: a level, your seat (your colour: team seat mod teams, R2)."""

    level: int = Field(4, ge=1, le=8, description="the AI's level on the ladder, 1 (a beginner) to 8 (the strongest)")
    players: int = Field(2, ge=2, le=3, description="2 (you and one AI) or 3 (you and two AIs, three teams)")
    seat: Optional[int] = Field(None, ge=0, le=2, description="your seat: 0 moves first after the deal's first "
                                                              "player, ... (its team's colour); null: a random seat")
    turn_seconds: Optional[float] = Field(None, ge=10, le=86400, description="a turn timer; null: none")
    clock: Optional[TimeControl] = Field(None, description="a game clock for your seat; null: none")
    name: GuestName = Field(None, description="your name at the table as a guest (no number in brackets)")


class MoveRequest(Strict):
    move: str = Field(max_length=MOVE_TEXT_MAX, description="text notation: 7H@d6, JSxe5, 'trade 7H', pass")
    version: Optional[int] = Field(None, ge=0, le=VERSION_MAX,
                                   description="the table version you saw; a stale one is refused (409)")


class AnalyzeRequest(Strict):
    """The body of POST /api/tables/{id}/analysis (required, ``{}`` for the default)."""

    seconds: float = Field(1.0, ge=0.01, le=AI_SECONDS_MAX,
                           description=f"search time budget, 0.01 to {AI_SECONDS_MAX:g} s (a server configured lower "
                                       "caps it further)")


#: Seconds between two lines of a streaming analysis, the least and the default.
ANALYSIS_EVERY_MIN, ANALYSIS_EVERY_DEFAULT = 0.05, 0.25


class AnalysisStreamRequest(Strict):
    """The body of POST /api/tables/{id}/analysis/stream and of the websocket's ``analysis`` frame
    (``{}`` for the defaults)."""

    seconds: float = Field(AI_SECONDS_MAX, ge=0.01, le=AI_SECONDS_MAX,
                           description=f"the whole search's time budget, 0.01 to {AI_SECONDS_MAX:g} s (a server "
                                       "configured lower caps it further); stop it sooner by closing the "
                                       "stream or with a `stop` frame")
    every: float = Field(ANALYSIS_EVERY_DEFAULT, ge=ANALYSIS_EVERY_MIN, le=AI_SECONDS_MAX,
                         description=f"seconds between two updates, {ANALYSIS_EVERY_MIN:g} to {AI_SECONDS_MAX:g}")


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


class MoveResponse(BaseModel):
    move: str = Field(description="the move played, declares filled in (text notation)")
    view: TableView = Field(description="the table after the move, as your seat sees it")


class UndoResponse(BaseModel):
    undone: int = Field(description="how many entries of the history were taken back (yours and the AI's after it)")
    view: TableView = Field(description="the table after the undo, as your seat sees it")


class HintResponse(BaseModel):
    move: str = Field(description="the AI's move for your seat (text notation)")
    version: int = Field(description="the table version the hint is for")


class RootMove(BaseModel):
    move: str = Field(description="text notation")
    visits: int = Field(description="how often the search tried it")
    value: float = Field(description="mean reward of the mover's team in [0, 1]")


class Analysis(BaseModel):
    best: str = Field(description="the move the search would play (text notation)")
    iterations: int = Field(description="search iterations run")
    seconds: float = Field(description="time searched")
    moves: List[RootMove] = Field(description="every root move, most visited first")


class AnalysisInfo(BaseModel):
    """One update of a streaming analysis (a line of POST /api/tables/{id}/analysis/stream, a
    websocket frame): the search so far, to the asking seat only (R9: it reads that seat's hand)."""

    type: Literal["analysis"]
    version: int = Field(description="the table version of the position analysed")
    best: Optional[str] = Field(description="the best move so far (text notation); null only on a last "
                                            "update of a search stopped before its first")
    iterations: int = Field(description="search iterations so far")
    seconds: float = Field(description="time searched so far")
    moves: List[RootMove] = Field(description="every root move so far, most visited first")
    done: bool = Field(description="the last update: the budget is spent or the search was stopped")
    interrupted: bool = Field(description="the search was stopped before its budget was spent (a `stop`, "
                                          "the table changed, the server stopping)")


class SummarySeat(BaseModel):
    kind: Literal["human", "ai"]
    name: Optional[str] = Field(description="the seat's name (null: an open seat without one)")
    ai: Optional[str] = Field(description="the AI seat's preset, null for a person")
    open: bool = Field(description="a human seat nobody has taken yet")
    account: Optional[str] = Field(None, description="the account that took the seat (/players/{name}); null: a "
                                                     "guest or the computer")
    rating: Optional[int] = Field(None, description="the account's rating now (docs/club.md); null: no account")
    provisional: Optional[bool] = Field(None, description="that rating is not settled yet")


class TimeControlView(BaseModel):
    """A table's time control: a game clock per seat (``fischer``, ``bank``) or a turn timer (``turn``)."""

    kind: Literal["fischer", "bank", "turn"]
    seconds: float = Field(description="a clock's time for the game, or the turn timer's time for a turn")
    increment: float = Field(0.0, description="a clock's increment (seconds); 0 for a turn timer")


class TableSummary(BaseModel):
    """A line of the table list (public information only)."""

    table: str
    players: int
    teams: int
    created: str = Field(description="ISO 8601 UTC")
    turn: int = Field(description="completed turns")
    over: bool
    result: Optional[Result] = Field(description="null until the game is over")
    seats: List[SummarySeat]
    rated: bool = Field(False, description="a rated table: its seats are for signed-in accounts (docs/club.md)")
    moves: int = Field(0, description="entries in the game's history so far (moves and referee calls)")
    time_control: Optional[TimeControlView] = Field(None, description="the table's time control, or null: none")


class ErrorBody(BaseModel):
    detail: str = Field(description="what was wrong (the Python API's message for a refused move)")
    error: str = Field(description="the error class: IllegalMoveError, InvalidMoveError, TableError, ...")


class ReplayStep(BaseModel):
    index: int = Field(description="entries of the history replayed (0: the deal)")
    player: Optional[int] = Field(description="the seat that made the move (null at the deal)")
    move: Optional[str] = Field(description="the move just replayed (null at the deal)")
    state: Dict[str, Any] = Field(description="the whole position, format sequence-game/1 (docs/state-format.md) "
                                              "without rng: the game is over, every card may be shown")
    chances: Optional[List[float]] = Field(
        None, description="every team's chance of winning at this position, in the public view (the evaluation "
                          "bar; the last step of a finished game: its result)")


class Replay(BaseModel):
    record: Dict[str, Any] = Field(description="the game record, format sequence-game-record/1")
    names: List[str] = Field(description="the seats' names")
    accounts: List[Optional[str]] = Field([], description="the seats' accounts (null: a guest or the computer)")
    steps: List[ReplayStep]


class PublicMove(BaseModel):
    player: int = Field(description="the seat that made it (0-based)")
    move: str = Field(description="text notation (docs/notation.md)")


class MoveList(BaseModel):
    """Every move of a table so far: public information (the board, sequences and discards follow
    from it; no card in a hand does, R9)."""

    version: int
    moves: List[PublicMove]


class ResignResponse(BaseModel):
    resigned: int = Field(description="the seat that resigned (its team lost; before every first move of a game "
                                      "between people the game is aborted instead: the view's result says so)")
    view: TableView = Field(description="the table as your seat sees it now")


class AbortResponse(BaseModel):
    aborted: int = Field(description="the seat that aborted the game (nobody won or lost)")
    view: TableView = Field(description="the table as your seat sees it now")


class Rematch(BaseModel):
    """Where a rematch stands: made (``table``, ``url``), offered and waiting for the others
    (``offer``), or ended (both null: declined, withdrawn, expired, or a person left)."""

    table: Optional[str] = Field(description="the new table's id, once every person accepted")
    url: Optional[str] = Field(description="its page; your seat token from this table works there too")
    offer: Optional[RematchOffer] = Field(None, description="the open offer while it waits for the others")


class RematchAnswer(BaseModel):
    """The open offer ended by this answer."""

    ended: Literal["declined", "withdrawn"] = Field(description="withdrawn by its maker, declined by anyone else")


class ReviewNote(BaseModel):
    """A threat that decides at a move (docs/review.md): its parts, and its words in English."""

    kind: Literal["win", "missed-win", "threat", "double-threat", "block", "missed-block"]
    team: int = Field(description="the team the note is about")
    other: Optional[int] = Field(default=None, description="the team it blocks or leaves the win (block, missed-block)")
    cells: List[str] = Field(description="the cells, e.g. i5")
    sequences: int = Field(description="how many sequences the cell completes at once")
    text: str = Field(description="the note in words, e.g. 'blue threatens i5 for two sequences'")


class ReviewedMoveModel(BaseModel):
    index: int = Field(description="the entry's number, from 1")
    player: int
    team: int
    move: str
    kind: Literal["move", "forced", "trade", "timeout", "referee"] = Field(
        description="move: graded; forced (one legal move), trade (a dead card, R4), timeout (played by the turn "
                    "timer), referee (R10): not graded")
    before: Optional[float] = Field(description="the mover's team's chance of winning with the best move (mover's view)")
    after: Optional[float] = Field(description="its chance with the move played, valued the same way")
    best: Optional[str] = Field(description="the best move in that valuation")
    loss: Optional[float] = Field(description="before - after, never negative")
    tier: Optional[Literal["inaccuracy", "mistake", "blunder"]] = Field(description="the move's grade (null: none)")
    accuracy: Optional[float] = Field(description="the move's accuracy in percent")
    chances: List[float] = Field(description="every team's chance after the entry, as a spectator sees it (sums to 1)")
    notes: List[ReviewNote] = Field(default_factory=list, description="the threats that decide at this move")


class ReviewPlayer(BaseModel):
    player: int
    team: int
    graded: int = Field(description="moves graded")
    accuracy: Optional[float] = Field(description="mean accuracy of the graded moves, percent")
    inaccuracy: int
    mistake: int
    blunder: int


class ReviewData(BaseModel):
    method: str = Field(description="how the review was made (win-chance/5: the calibrated estimator and the exact threats)")
    teams: int
    tiers: Dict[str, float] = Field(description="the least loss of each tier")
    moves: List[ReviewedMoveModel]
    curve: List[List[float]] = Field(description="every team's chance after the deal and after every entry "
                                                 "(and the result after a resignation)")
    events: List[Dict[str, Any]] = Field(description="a resignation or the turn cap, after the last move")
    players: List[ReviewPlayer]
    result: Optional[Dict[str, Any]] = None


class ReviewStatus(BaseModel):
    """A review: ``ready`` with the review, ``running`` with its progress, ``none`` (404) before one is asked for."""

    status: Literal["ready", "running", "none"]
    review: Optional[ReviewData] = None
    done: Optional[int] = None
    total: Optional[int] = None
    detail: Optional[str] = None


# --------------------------------------------------------------------------- frames of the websocket and
# the event stream: the server's messages (routers/socket.py, routers/events.py; the client's: frames.py)


class StateFrame(BaseModel):
    """The table changed (a move, an undo, the AI starting or stopping to think, a reveal), or the
    connection just opened: the whole view as this connection may see it."""

    type: Literal["state"]
    view: TableView


class PresenceFrame(BaseModel):
    """A seat came online or left."""

    type: Literal["presence"]
    connected: List[bool] = Field(description="per seat: a websocket or event stream of it is open")


class HintFrame(BaseModel):
    """The answer to a ``hint`` frame, to the asker only."""

    type: Literal["hint"]
    move: str = Field(description="the AI's move for your seat (text notation)")
    version: int = Field(description="the table version the hint was asked at (and is for)")


class ErrorFrame(BaseModel):
    """A refused frame: nothing changed, so no ``state`` follows it. Before a close (a connection
    refused at its hello) the close code is 4000 + the HTTP status."""

    type: Literal["error"]
    error: str = Field(description="the error class: IllegalMoveError, InvalidMoveError, BadMessageError, ...")
    detail: str = Field(description="what was wrong and what would be right")


class RematchFrame(BaseModel):
    """A rematch table exists: the same seat tokens work there."""

    type: Literal["rematch"]
    table: str = Field(description="the new table's id")


class RematchOfferFrame(BaseModel):
    """A rematch offer was made or accepted (``offer``), or ended without a rematch (``offer`` null,
    ``ended`` saying how and ``seat`` by whom); a state follows."""

    type: Literal["rematch-offer"]
    offer: Optional[RematchOffer]
    ended: Optional[Literal["declined", "withdrawn", "expired", "left"]] = Field(
        description="how the offer ended: declined or withdrawn (by ``seat``), expired (60 s unanswered), or "
                    "left (every page of ``seat`` closed); null while it is open")
    seat: Optional[int] = Field(description="the seat that ended it, or null")


class TimeoutFrame(BaseModel):
    """A human seat's turn timer ran out and the AI moved for it (a state follows)."""

    type: Literal["timeout"]
    seat: int
    move: str = Field(description="the move played for that seat (text notation)")


class FlagFrame(BaseModel):
    """A human seat's game clock ran out and its team lost on time (a state follows)."""

    type: Literal["flag"]
    seat: int


class ChatFrame(BaseModel):
    """A chat message of a room this connection reads (tables/chat.py): plain text, never HTML."""

    type: Literal["chat"]
    id: int = Field(description="the message's number at this table (send it in a report frame)")
    channel: Literal["players", "spectators"]
    from_: str = Field(alias="from", description="the writer: a seat's name, a signed-in spectator's account "
                                                 "name, or 'Spectator N'")
    seat: Optional[int] = Field(description="the writer's seat, null for a spectator")
    account: Optional[str] = Field(None, description="the writer's account (null: a guest or a spectator)")
    text: str = Field(description="plain text: show it as text, never as HTML")
    at: str = Field(description="when it was sent: ISO 8601 UTC text to the millisecond, 2026-12-01T14:30:00.123Z")


class ChatLogFrame(BaseModel):
    """After the first state: whether the chat is on, the chat box's notice, and the kept messages
    this connection may read."""

    type: Literal["chat-log"]
    enabled: bool
    notice: str = Field(description="what the chat box says: who reads this room (no table talk, R10)")
    you: Optional[str] = Field(description="a spectator's name in its room (its account's name, or 'Spectator N'); "
                                           "null for a seat")
    messages: List[ChatFrame]


class ReportedFrame(BaseModel):
    """A report frame was taken: the operator will read the message."""

    type: Literal["reported"]
    message: int


class SpectatorsFrame(BaseModel):
    """To a seat's connection in the chat: how many connections watch without a seat; after its
    ``chat-log`` and whenever a spectator comes or goes."""

    type: Literal["spectators"]
    count: int = Field(description="open spectator connections (websockets and event streams)")


class PongFrame(BaseModel):
    """The answer to a ``ping`` frame."""

    type: Literal["pong"]


ServerFrame = Annotated[Union[StateFrame, PresenceFrame, HintFrame, AnalysisInfo, RematchFrame, RematchOfferFrame,
                              TimeoutFrame, FlagFrame, ChatFrame, ChatLogFrame, ReportedFrame, SpectatorsFrame,
                              ErrorFrame, PongFrame],
                        Field(discriminator="type")]
StreamLine = Annotated[Union[StateFrame, PresenceFrame, RematchFrame, RematchOfferFrame, TimeoutFrame, FlagFrame],
                       Field(discriminator="type")]
#: A line of POST /api/tables/{id}/analysis/stream: an update, or the one refusal that can come
#: after the stream started.
AnalysisLine = Annotated[Union[AnalysisInfo, ErrorFrame], Field(discriminator="type")]


# --------------------------------------------------------------------------- tournaments (docs/club.md)

TOURNAMENT_ID_MAX = 64


class TournamentClock(Strict):
    """A tournament game's clock: a Fischer clock per seat; at zero the seat's team loses on time."""

    seconds: float = Field(ge=10, le=86400, description="each seat's time for the game, in seconds")
    increment: float = Field(0.0, ge=0, le=3600, description="seconds added after each move")


class CreateTournament(Strict):
    """A tournament a signed-in member announces (POST /api/tournaments)."""

    kind: Literal["swiss", "arena"] = Field(description="swiss: rounds paired by score; arena: a fixed time, "
                                                        "paired again as soon as a game ends")
    name: str = Field(min_length=1, max_length=40, description="shown in the lobby and on the tournament's page")
    starts: float = Field(ge=0, le=2**53, description="when it starts, in seconds since the epoch (now to 30 days "
                                                      "ahead)")
    rounds: Optional[int] = Field(None, ge=1, le=15, description="a Swiss's rounds")
    minutes: Optional[float] = Field(None, ge=0, le=1440, description="an arena's length in minutes")
    clock: TournamentClock
    rated: bool = Field(False, description="its games change ratings as rated games do")
    team_size: Literal[1, 2] = Field(1, description="1: two players a game; 2: teams of two (four players)")
    berserk: bool = Field(True, description="an arena: a player may halve its time for one extra point on a win")


class JoinTournament(Strict):
    partner: Optional[str] = Field(None, min_length=1, max_length=40,
                                   description="a team tournament: your partner's account name (the team is in "
                                               "once the partner joins naming you)")


class PauseTournament(Strict):
    paused: bool = Field(description="true: no new arena game for you until false")


class TournamentStanding(BaseModel):
    """One line of the live standings."""

    rank: int
    entrant: str = Field(description="the entrant's id: its account, or a team's two joined by '+'")
    names: List[str]
    rating: int = Field(description="the display rating on joining (a team's: its two's mean)")
    points: float
    buchholz: Optional[float] = Field(None, description="a Swiss: the sum of the opponents' points")
    sonneborn_berger: Optional[float] = Field(None, description="a Swiss: beaten opponents' points, half a drawn's")
    direct: Optional[float] = Field(None, description="a Swiss: points among the entrants tied on everything else")
    games: int
    wins: int
    draws: int
    losses: int
    byes: int = 0
    fire: bool = Field(False, description="an arena: on a streak, the next game counts double")
    performance: Optional[int] = Field(None, description="an arena: the tie-break after points, the mean of each "
                                                     "game played's opponent rating, +400 for a win, -400 for a loss "
                                                     "(null: no game played)")
    sheet: List[int] = Field(default_factory=list, description="an arena: the points of each game, in order")
    state: Literal["in", "withdrawn"]
    paused: bool
    opponent: Optional[str] = Field(description="whom it plays now (an entrant id), or null")
    table: Optional[str] = Field(description="the table of its game now, or null")


class TournamentGame(BaseModel):
    """A paired game (``second`` null: ``first``'s bye)."""

    round: int
    board: int
    first: str
    second: Optional[str]
    table: Optional[str]
    result: Optional[float] = Field(description="what first scored: 1, 0.5, 0; null while played (or aborted)")
    forfeit: bool
    aborted: bool = Field(False, description="aborted at its table before the first moves: it scores nothing for "
                                             "either side")
    berserk: List[str]


class TournamentSummary(BaseModel):
    """A tournament as the lobby lists it."""

    tournament: str
    kind: Literal["swiss", "arena"]
    name: str
    creator: str
    status: Literal["upcoming", "running", "finished"]
    starts: float
    ends: Optional[float] = Field(description="an arena's end once started")
    rounds: Optional[int]
    round: int
    minutes: Optional[float]
    clock: TournamentClock
    rated: bool
    team_size: int
    berserk: bool
    entrants: int


class TournamentView(TournamentSummary):
    """A tournament's page: the standings and the games."""

    standings: List[TournamentStanding]
    games: List[TournamentGame]
    pending: List[List[str]] = Field(description="teams waiting for their second member to join: their names, "
                                                 "the member who joined first")
    version: int = Field(description="goes up at every change of any tournament: poll again when it moved")


class TournamentList(BaseModel):
    version: int
    tournaments: List[TournamentSummary]


class TournamentSeat(BaseModel):
    """Your game in the tournament now, if any."""

    table: Optional[str]
    seat: Optional[SeatLink]


class PlayerTournament(BaseModel):
    """A finished tournament on a player's page."""

    tournament: str
    name: str
    kind: Literal["swiss", "arena"]
    place: Optional[int]
    points: Optional[float]
    entrants: int
    names: List[str]
    finished: Optional[float]


# ---------------------------------------------------------------------- people to play with (club/people.py)

class ProfileRequest(Strict):
    """A player's profile (PUT /api/profile): plain text, trimmed; empty clears a field."""

    bio: str = Field("", max_length=1000, description="at most 300 characters after trimming; line breaks kept, no "
                                                     "other control or format character")
    country: str = Field("", max_length=200, description="at most 40 characters after trimming, no control or format "
                                                         "character")


class Profile(BaseModel):
    bio: str = Field(description="plain text: show it as text, never as HTML")
    country: str = Field(description="plain text")


class InPlay(BaseModel):
    """A live unfinished table where a player holds a seat: anyone may watch it (/table/{table})."""

    table: str
    players: List[Optional[str]] = Field(description="the names of its seats (null: an open seat)")
    rated: bool


class Presence(BaseModel):
    online: bool = Field(description="a page of theirs reached the server lately, or a seat of theirs is connected")
    playing: List[InPlay]


class Relation(BaseModel):
    """What the signed-in account has to do with a player (null on its own page and for a guest)."""

    following: bool
    blocked: bool


class Followed(Presence):
    name: str
    rating: int
    provisional: bool


class ChallengeRequest(Strict):
    """A challenge to one player (POST /api/challenges): the game, as a seek's."""

    to: str = Field(min_length=1, max_length=40, description="the challenged account's name")
    players: int = Field(2, ge=min(VALID_PLAYERS), le=max(VALID_PLAYERS), json_schema_extra={"enum": list(VALID_PLAYERS)},
                         description="the maker and the target sit at seats 0 and 1 (opponents, R2); further seats "
                                     "are open seats")
    teams: Optional[int] = Field(None, ge=2, le=3, description="2 or 3 where the player count allows both")
    rated: bool = Field(False, description="a rated game: the table is rated once the target accepts")
    turn_seconds: Optional[float] = Field(None, ge=10, le=86400, description="a turn timer; null: none")
    clock: Optional[TimeControl] = Field(None, description="a game clock per seat instead of a turn timer")


class ChallengeView(BaseModel):
    """A challenge as its maker or its target reads it."""

    id: str
    maker: str = Field(description="the challenging account's name")
    target: str = Field(description="the challenged account's name")
    players: int
    teams: int
    rated: bool
    turn_seconds: Optional[float]
    clock: Optional[TimeControl]
    status: Literal["open", "accepting", "accepted", "declined", "withdrawn", "expired"]
    table: Optional[str] = Field(description="the table made on acceptance")
    expires_in: float = Field(description="seconds until an open challenge expires (0 once closed)")
    yours: bool = Field(description="true: you made it")
    seat: Optional[SeatLink] = Field(None, description="your seat once accepted (the maker's here; the target's in "
                                                       "the answer to its acceptance)")


class ChallengeList(BaseModel):
    incoming: List[ChallengeView] = Field(description="open challenges to you, newest first")
    outgoing: List[ChallengeView] = Field(description="your challenges, open or closed lately, newest first")


class People(BaseModel):
    """The signed-in account's people (GET /api/people)."""

    following: List[Followed] = Field(description="the players you follow: those playing, then online, first")
    blocked: List[str] = Field(description="the players you block")
    challenges: ChallengeList


class LeaderRow(BaseModel):
    rank: int
    name: str
    rating: int
    provisional: bool
    rated_games: int


class Leaderboard(BaseModel):
    settled: List[LeaderRow] = Field(description="the highest settled ratings")
    provisional: List[LeaderRow] = Field(description="apart: the highest ratings not settled yet")
