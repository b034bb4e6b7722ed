"""A tournament on the server as data and the changes it goes through (docs/club.md,
"Tournaments"): entry, withdrawal, the Swiss's rounds and the arena's games, results, no-shows,
standings. No I/O here: ``service.py`` stores each change (``store.py``) and runs the tables.

The rules themselves (pairing, tie-breaks, arena scoring) are ``sequence_game.tournaments``'.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Set, Tuple

from ...tournaments import (
    NO_SHOWS_TO_WITHDRAW,
    ArenaResult,
    Waiting,
    arena_pairs,
    arena_points,
    on_fire,
    pair_round,
    performance,
    standings,
)
from ...tournaments import (
    Entrant as DomainEntrant,
)
from ...tournaments import (
    Game as DomainGame,
)
from ..errors import InvalidRequestError, NotAllowedError

__all__ = ["KINDS", "MIN_TO_START", "Entrant", "TGame", "Tournament", "check_settings"]

KINDS = ("swiss", "arena")
MAX_ROUNDS = 15
MAX_MINUTES = 24 * 60.0  #: an arena's longest (its shortest is the server's, TournamentSettings)
MAX_NAME = 40
#: entrants (players, or complete teams) a tournament needs for its creator to start it early
MIN_TO_START = 2


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def check_settings(kind: Any, rounds: Any, minutes: Any, team_size: Any) -> None:
    """ValueError (a 400) naming what is wrong with a new tournament's shape."""
    if kind not in KINDS:
        raise InvalidRequestError(f"kind must be one of {', '.join(KINDS)}, not {kind!r}")
    if team_size not in (1, 2):
        raise InvalidRequestError(f"team_size must be 1 (two players) or 2 (teams of two), not {team_size!r}")
    if kind == "swiss" and (not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= MAX_ROUNDS):
        raise InvalidRequestError(f"a Swiss has from 1 to {MAX_ROUNDS} rounds, not {rounds!r}")
    if kind == "arena" and (not _number(minutes) or not 0 < minutes <= MAX_MINUTES):
        raise InvalidRequestError(f"an arena lasts more than 0 and at most {MAX_MINUTES:g} minutes, not {minutes!r}")


@dataclass
class Entrant:
    """A player or a team of two in one tournament. ``state``: in, withdrawn, pending (a team
    whose second member has not joined yet) or left (a pending team given up: no entrant)."""

    id: str
    accounts: List[str]
    names: List[str]
    rating: float
    joined: float
    state: str = "in"
    no_shows: int = 0
    paused: bool = False
    place: Optional[int] = None
    points: Optional[float] = None

    def row(self) -> Dict[str, Any]:
        return {"entrant": self.id, "accounts": self.accounts, "names": self.names, "rating": self.rating,
                "joined": self.joined, "state": self.state, "no_shows": self.no_shows, "paused": int(self.paused),
                "place": self.place, "points": self.points}

    @classmethod
    def from_row(cls, r: Dict[str, Any]) -> Entrant:
        return cls(r["entrant"], list(r["accounts"]), list(r["names"]), float(r["rating"]), float(r["joined"]),
                   str(r["state"]), int(r["no_shows"]), bool(r["paused"]), r["place"], r["points"])

    @property
    def label(self) -> str:
        return " & ".join(self.names)


@dataclass
class TGame:
    """A paired game (``second`` None: ``first``'s bye). ``result``: what ``first`` scored; a game
    that ``finished`` without a result was aborted (before its first moves): it scores nothing for
    either side and is no meeting. ``no_show``: the seat called a no-show at its table, stored
    before the table resigns it, so its end is scored as a forfeit even if the server stops before
    the tournament hears of it."""

    n: int
    round: int
    board: int
    first: str
    second: Optional[str]
    started: float
    table_id: Optional[str] = None
    result: Optional[float] = None
    forfeit: bool = False
    berserk: List[str] = field(default_factory=list)
    turns: List[int] = field(default_factory=lambda: [0, 0])
    finished: Optional[float] = None
    no_show: Optional[int] = None

    def row(self) -> Dict[str, Any]:
        return {"n": self.n, "round": self.round, "board": self.board, "first": self.first, "second": self.second,
                "table_id": self.table_id, "result": self.result, "forfeit": int(self.forfeit),
                "berserk": self.berserk, "turns": self.turns, "started": self.started, "finished": self.finished,
                "no_show": self.no_show}

    @classmethod
    def from_row(cls, r: Dict[str, Any]) -> TGame:
        return cls(int(r["n"]), int(r["round"]), int(r["board"]), r["first"], r["second"], float(r["started"]),
                   r["table_id"], r["result"], bool(r["forfeit"]), list(r["berserk"]), list(r["turns"]),
                   r["finished"], r.get("no_show"))

    @property
    def bye(self) -> bool:
        return self.second is None

    @property
    def playing(self) -> bool:
        return self.second is not None and self.result is None and self.finished is None

    @property
    def aborted(self) -> bool:
        return self.second is not None and self.result is None and self.finished is not None

    def score_of(self, entrant: str) -> Optional[float]:
        if self.result is None:
            return None
        return self.result if entrant == self.first else 1.0 - self.result


@dataclass
class Tournament:
    """One tournament; every method that changes it returns the rows to store (the tournament's
    own row is always stored with them)."""

    id: str
    kind: str
    name: str
    creator: str
    settings: Dict[str, Any]
    starts: float
    created: float
    status: str = "upcoming"
    round: int = 0
    ends: Optional[float] = None
    finished: Optional[float] = None
    entrants: Dict[str, Entrant] = field(default_factory=dict)
    games: List[TGame] = field(default_factory=list)

    # -------------------------------------------------------------- rows

    def row(self) -> Dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "name": self.name, "creator": self.creator,
                "settings": self.settings, "starts": self.starts, "status": self.status, "round": self.round,
                "ends": self.ends, "created": self.created, "finished": self.finished}

    @classmethod
    def from_rows(cls, r: Dict[str, Any]) -> Tournament:
        t = cls(r["id"], r["kind"], r["name"], r["creator"], dict(r["settings"]), float(r["starts"]),
                float(r["created"]), r["status"], int(r["round"]), r["ends"], r["finished"])
        for e in r.get("entrants", ()):
            entrant = Entrant.from_row(e)
            t.entrants[entrant.id] = entrant
        t.games = [TGame.from_row(g) for g in r.get("games", ())]
        return t

    @property
    def team_size(self) -> int:
        return int(self.settings.get("team_size", 1))

    @property
    def rated(self) -> bool:
        return bool(self.settings.get("rated", False))

    def active(self) -> List[Entrant]:
        return [e for e in self.entrants.values() if e.state == "in"]

    def entrant_of(self, account: str) -> Optional[Entrant]:
        return next((e for e in self.entrants.values() if account in e.accounts and e.state != "left"), None)

    def game_of_table(self, table_id: str) -> Optional[TGame]:
        return next((g for g in self.games if g.table_id == table_id), None)

    def playing_entrants(self) -> Set[str]:
        return {x for g in self.games if g.playing for x in (g.first, g.second) if x is not None}

    # -------------------------------------------------------------- entry

    def join(self, account: str, name: str, rating: float, now: float,
             partner: Optional[Tuple[str, str, float]] = None) -> List[Entrant]:
        """``account`` enters (again, after withdrawing: an arena any time, a Swiss before it
        starts). In a team tournament ``partner`` (key, name, rating) is its teammate: the team
        is in once the partner has joined naming it too. Returns the entrants changed."""
        if self.status == "finished":
            raise NotAllowedError(f"the tournament {self.name!r} is over")
        mine = self.entrant_of(account)
        if mine is not None:
            if mine.state == "withdrawn":
                if self.kind == "swiss" and self.status != "upcoming":
                    raise NotAllowedError("a Swiss that started takes no one back: its pairings count every round")
                mine.state, mine.paused = "in", False
                return [mine]
            if mine.state == "in":
                raise NotAllowedError(f"{name} is in the tournament already")
            # a pending team: its partner joins below
        if self.kind == "swiss" and self.status != "upcoming":
            raise NotAllowedError("the Swiss has started: entries are closed")
        if self.team_size == 1:
            if partner is not None:
                raise InvalidRequestError("this tournament is for two players: join without a partner")
            e = Entrant(account, [account], [name], float(rating), now)
            self.entrants[e.id] = e
            return [e]
        if partner is None:
            raise InvalidRequestError("this tournament is for teams of two: name your partner")
        pkey, pname, prating = partner
        if pkey == account:
            raise InvalidRequestError("a team is two different accounts")
        theirs = self.entrant_of(pkey)
        if theirs is not None and theirs.state == "pending" and theirs.accounts == [pkey, account]:
            theirs.state = "in"  # the partner named us first: the team is complete
            theirs.names = [theirs.names[0], name]
            theirs.rating = (theirs.rating + float(rating)) / 2.0
            return [theirs]
        if mine is not None:
            raise NotAllowedError(f"{mine.names[0]} named you as partner: join naming {mine.names[0]}, or ask them "
                                  "to withdraw first")
        if theirs is not None:
            raise NotAllowedError(f"{pname} is in the tournament already, in another team")
        e = Entrant(f"{account}+{pkey}", [account, pkey], [name, pname], float(rating), now, state="pending")
        self.entrants[e.id] = e
        return [e]

    def start_early(self, account: str, now: float) -> None:
        """The creator (``account``) starts the tournament now, before its announced time, once at
        least :data:`MIN_TO_START` entrants are in (teams: complete ones)."""
        if account != self.creator:
            raise NotAllowedError("only the tournament's creator may start it before its time")
        if self.status != "upcoming":
            raise NotAllowedError(f"the tournament {self.name!r} has started already" if self.status == "running"
                                  else f"the tournament {self.name!r} is over")
        entrants = len(self.active())
        if entrants < MIN_TO_START:
            raise NotAllowedError(f"a tournament starts with at least {MIN_TO_START} entrants in"
                                  f"{' (complete teams)' if self.team_size == 2 else ''}; it has {entrants}")
        self.starts = now

    def withdraw(self, account: str) -> Entrant:
        """``account``'s entrant leaves: it is paired no more; its results stand."""
        e = self.entrant_of(account)
        if e is None or e.state == "withdrawn":
            raise NotAllowedError("you are not in this tournament")
        e.state = "left" if e.state == "pending" else "withdrawn"
        return e

    def set_paused(self, account: str, paused: bool) -> Entrant:
        """An arena entrant takes a pause between games (or ends it): no new game meanwhile."""
        if self.kind != "arena":
            raise InvalidRequestError("only an arena has pauses: in a Swiss, withdraw")
        e = self.entrant_of(account)
        if e is None or e.state != "in":
            raise NotAllowedError("you are not in this tournament")
        e.paused = paused
        return e

    # -------------------------------------------------------------- games

    def _domain(self) -> Tuple[List[DomainEntrant], List[DomainGame], Dict[int, str]]:
        entrants = [DomainEntrant(e.id, e.rating) for e in self.entrants.values() if e.state in ("in", "withdrawn")]
        games = [DomainGame(g.round, g.first, g.second, g.result, g.forfeit) for g in self.games
                 if g.second is not None and not g.aborted]
        byes = {g.round: g.first for g in self.games if g.bye}
        return entrants, games, byes

    def next_round(self, now: float) -> List[TGame]:
        """Pair the Swiss's next round: the new games (a bye is decided at once)."""
        if self.kind != "swiss":
            raise InvalidRequestError("only a Swiss has rounds")
        entrants, games, byes = self._domain()
        active = {e.id for e in self.active()}
        pairing = pair_round([e for e in entrants if e.id in active], games, byes)
        self.round += 1
        made: List[TGame] = []
        for board, (first, second) in enumerate(pairing.games, 1):
            made.append(TGame(len(self.games) + len(made) + 1, self.round, board, first, second, now))
        if pairing.bye is not None:
            made.append(TGame(len(self.games) + len(made) + 1, self.round, len(made) + 1, pairing.bye, None, now,
                              result=1.0, finished=now))
        self.games.extend(made)
        return made

    def round_over(self) -> bool:
        return all(not g.playing for g in self.games if g.round == self.round)

    def free(self) -> List[Entrant]:
        """The entrants an arena would pair now: in, not paused, not playing."""
        busy = self.playing_entrants()
        return [e for e in self.active() if not e.paused and e.id not in busy]

    def arena_next(self, now: float) -> List[TGame]:
        """Pair the arena's free entrants (:meth:`free`): the new games."""
        points = self.arena_scores()
        waiting = []
        for e in self.free():
            mine = [g for g in self.games if e.id in (g.first, g.second) and not g.bye]
            last = mine[-1] if mine else None
            waiting.append(Waiting(e.id, points.get(e.id, 0), e.rating,
                                   None if last is None else (last.second if last.first == e.id else last.first),
                                   sum(1 for g in mine if g.first == e.id), len(mine)))
        made: List[TGame] = []
        for first, second in arena_pairs(waiting):
            made.append(TGame(len(self.games) + len(made) + 1, 0, 0, first, second, now))
        self.games.extend(made)
        return made

    def result(self, game: TGame, first_score: float, now: float, turns: Tuple[int, int] = (0, 0),
               forfeit: bool = False) -> List[Entrant]:
        """``game`` ended: ``first_score`` for its first entrant. A forfeit (no-show) counts a
        no-show of the loser, withdrawn after :data:`NO_SHOWS_TO_WITHDRAW` (an arena's is paused
        before that). Returns the entrants changed."""
        if game.result is not None or game.aborted:
            return []
        game.result, game.finished, game.forfeit, game.turns = float(first_score), now, forfeit, list(turns)
        changed = []
        if forfeit and first_score != 0.5:
            loser = self.entrants.get((game.second if first_score == 1.0 else game.first) or "")
            if loser is not None:
                loser.no_shows += 1
                if loser.no_shows >= NO_SHOWS_TO_WITHDRAW and loser.state == "in":
                    loser.state = "withdrawn"
                elif self.kind == "arena" and loser.state == "in":
                    loser.paused = True  # as on lichess: gone, so nobody else waits for it; Play on brings it back
                changed.append(loser)
        return changed

    def abort(self, game: TGame, now: float) -> None:
        """``game`` was aborted at its table before its first moves: it ends scoring nothing for
        either side; a Swiss does not count it as a meeting (the two may be paired again)."""
        if game.playing:
            game.finished = now

    def go_berserk(self, account: str) -> Tuple[TGame, Entrant]:
        """``account``'s entrant halves its time in its arena game that has not started."""
        if self.kind != "arena" or not self.settings.get("berserk", True):
            raise InvalidRequestError("berserk is for an arena that allows it")
        e = self.entrant_of(account)
        game = next((g for g in self.games if g.playing and e is not None and e.id in (g.first, g.second)), None)
        if e is None or game is None:
            raise NotAllowedError("you have no game in this arena now")
        if e.id in game.berserk:
            raise NotAllowedError("you went berserk in this game already")
        game.berserk.append(e.id)
        return game, e

    # -------------------------------------------------------------- standings

    def arena_results(self, entrant: str) -> List[ArenaResult]:
        out = []
        for g in self.games:
            if g.bye or g.result is None or entrant not in (g.first, g.second):
                continue
            score = g.score_of(entrant)
            assert score is not None
            side = 0 if g.first == entrant else 1
            other = self.entrants.get((g.second if side == 0 else g.first) or "")
            out.append(ArenaResult(score, entrant in g.berserk, int(g.turns[side]), g.forfeit,
                                   None if other is None else other.rating))
        return out

    def arena_scores(self) -> Dict[str, int]:
        return {e: sum(s.points for s in arena_points(self.arena_results(e))) for e in self.entrants}

    def standings(self) -> List[Dict[str, Any]]:
        """The table as the page shows it: rank, entrant, points, tie-breaks, games, current game."""
        now_playing = {x: g for g in self.games if g.playing for x in (g.first, g.second) if x is not None}
        rows: List[Dict[str, Any]] = []
        if self.kind == "swiss":
            entrants, games, byes = self._domain()
            for s in standings(entrants, games, byes):
                rows.append({"rank": s.rank, "entrant": s.id, "points": s.points, "buchholz": s.buchholz,
                             "sonneborn_berger": s.sonneborn_berger, "direct": s.direct, "games": s.games,
                             "wins": s.wins, "draws": s.draws, "losses": s.losses, "byes": s.byes})
        else:
            scored = {}
            for e in self.entrants.values():
                if e.state not in ("in", "withdrawn"):
                    continue
                results = self.arena_results(e.id)
                points = arena_points(results)
                scored[e.id] = (sum(p.points for p in points), performance(results), results, points)
            # points, then the performance (none played: below every performance), then rating
            order = sorted(scored, key=lambda i: (-scored[i][0], scored[i][1] is None, -(scored[i][1] or 0.0),
                                                  -self.entrants[i].rating, i))
            for rank, i in enumerate(order, 1):
                total, perf, results, points = scored[i]
                rows.append({"rank": rank, "entrant": i, "points": float(total), "games": len(results),
                             "performance": None if perf is None else round(perf),
                             "wins": sum(1 for r in results if r.score == 1.0),
                             "draws": sum(1 for r in results if r.score == 0.5),
                             "losses": sum(1 for r in results if r.score == 0.0),
                             "fire": on_fire(results), "sheet": [p.points for p in points]})
        for row in rows:
            e = self.entrants[row["entrant"]]
            row.update({"names": e.names, "rating": round(e.rating), "state": e.state, "paused": e.paused})
            g = now_playing.get(e.id)
            row["opponent"] = None if g is None else (g.second if g.first == e.id else g.first)
            row["table"] = None if g is None else g.table_id
        return rows

    def close(self, now: float) -> List[Entrant]:
        """The tournament ends: places and points filed on each entrant."""
        self.status, self.finished = "finished", now
        changed = []
        for row in self.standings():
            e = self.entrants[row["entrant"]]
            e.place, e.points = int(row["rank"]), float(row["points"])
            changed.append(e)
        for e in self.entrants.values():
            if e.state == "pending":
                e.state = "left"
                changed.append(e)
        return changed
