"""The tournaments' rows in the server's SQLite file (docs/club.md, "Tournaments").

Three tables beside the club's, on a connection of their own like the social rows
(``web/social.py``); a database of an older version gains them when the server opens it (the
``CREATE ... IF NOT EXISTS`` of :data:`_SCHEMA` is the migration: nothing of the older tables
changes), and the columns added to them since (``TournamentStore.ADDED``, read back as NULL in the
older rows). Every change of a tournament is written before anyone is told of it, so a restart of
``serve`` finds each tournament, entrant, round, pairing, result and no-show call where it was.

No seat token is kept here: a tournament game's seats belong to accounts, and the server hands a
signed-in player the token of its own seat from memory (``service.py``); after a restart the seat
is given a fresh token (the table's row keeps only hashes).
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Sequence

from ..club.store import ClubStore

__all__ = ["TournamentStore"]

_SCHEMA = """
-- one row a tournament: what it is (settings, JSON) and where it stands
CREATE TABLE IF NOT EXISTS tournaments (
    id        TEXT PRIMARY KEY,
    kind      TEXT NOT NULL,         -- swiss, arena
    name      TEXT NOT NULL,
    creator   TEXT NOT NULL,         -- accounts.key
    settings  TEXT NOT NULL,         -- JSON: rounds or minutes, clock, rated, team size, ...
    starts    REAL NOT NULL,         -- seconds since the epoch
    status    TEXT NOT NULL,         -- upcoming, running, finished
    round     INTEGER NOT NULL,      -- a Swiss's round being played (0: none yet)
    ends      REAL,                  -- an arena's end, once started
    created   REAL NOT NULL,
    finished  REAL
);
CREATE INDEX IF NOT EXISTS tournaments_status ON tournaments (status, starts);
-- who plays: an account, or a team of two (its id joins the two keys with "+")
CREATE TABLE IF NOT EXISTS tournament_entrants (
    tournament TEXT NOT NULL,
    entrant    TEXT NOT NULL,
    accounts   TEXT NOT NULL,        -- JSON list of accounts.key, the team's in seat order
    names      TEXT NOT NULL,        -- JSON list of the accounts' names
    rating     REAL NOT NULL,        -- the display rating on joining (a team's: the mean)
    joined     REAL NOT NULL,
    state      TEXT NOT NULL,        -- in, withdrawn, pending (a team waiting for its partner), left
    no_shows   INTEGER NOT NULL,
    paused     INTEGER NOT NULL,     -- an arena entrant taking a pause
    place      INTEGER,              -- filed when the tournament ends
    points     REAL,
    PRIMARY KEY (tournament, entrant)
);
-- every game and bye, as paired: the result comes when the table's game ends
CREATE TABLE IF NOT EXISTS tournament_games (
    tournament TEXT NOT NULL,
    n          INTEGER NOT NULL,     -- the game's number in the tournament, from 1
    round      INTEGER NOT NULL,     -- a Swiss's round (an arena: 0)
    board      INTEGER NOT NULL,
    first      TEXT NOT NULL,        -- the entrant at the first seat, team blue (a bye: who has it)
    second     TEXT,                 -- NULL: a bye
    table_id   TEXT,                 -- the server's table of the game
    result     REAL,                 -- what first scored: 1, 0.5, 0; NULL: being played (aborted if finished)
    forfeit    INTEGER NOT NULL,     -- decided without play (a no-show)
    no_show    INTEGER,              -- the seat called a no-show, written before its table is told
    berserk    TEXT NOT NULL,        -- JSON list of the entrants that went berserk
    turns      TEXT NOT NULL,        -- JSON [first's turns, second's turns]
    started    REAL NOT NULL,
    finished   REAL,
    PRIMARY KEY (tournament, n)
);
CREATE INDEX IF NOT EXISTS tournament_games_table ON tournament_games (table_id);
"""

_T = ("id", "kind", "name", "creator", "settings", "starts", "status", "round", "ends", "created", "finished")
_E = ("entrant", "accounts", "names", "rating", "joined", "state", "no_shows", "paused", "place", "points")
_G = ("n", "round", "board", "first", "second", "table_id", "result", "forfeit", "berserk", "turns", "started",
      "finished", "no_show")
_JSON = {"settings", "accounts", "names", "berserk", "turns"}


def _row(names: tuple[str, ...], values: tuple[Any, ...]) -> Dict[str, Any]:
    out = dict(zip(names, values))
    for k in _JSON & set(out):
        out[k] = json.loads(out[k])
    return out


def _values(names: tuple[str, ...], row: Dict[str, Any]) -> List[Any]:
    return [json.dumps(row[k], separators=(",", ":")) if k in _JSON else row[k] for k in names]


class TournamentStore(ClubStore):
    """The tournaments, entrants and games rows (``":memory:"``: a database of its own). Each
    method blocks: the server calls them in its database thread."""

    SCHEMA = _SCHEMA
    ADDED = (("tournament_games", "no_show", "INTEGER"),)

    def save(self, tournament: Dict[str, Any], entrants: Sequence[Dict[str, Any]] = (),
             games: Sequence[Dict[str, Any]] = ()) -> None:
        """Insert or replace the tournament's row and the given entrant and game rows: one
        transaction, so a crash keeps all of a change or none of it."""
        tid = tournament["id"]
        statements = [(f"INSERT OR REPLACE INTO tournaments ({','.join(_T)}) VALUES ({','.join('?' * len(_T))})",
                       _values(_T, tournament))]
        for e in entrants:
            statements.append((f"INSERT OR REPLACE INTO tournament_entrants (tournament,{','.join(_E)}) "
                               f"VALUES (?,{','.join('?' * len(_E))})", [tid, *_values(_E, e)]))
        for g in games:
            statements.append((f"INSERT OR REPLACE INTO tournament_games (tournament,{','.join(_G)}) "
                               f"VALUES (?,{','.join('?' * len(_G))})", [tid, *_values(_G, g)]))
        self.write(*statements)

    def load(self, tournament_id: str) -> Optional[Dict[str, Any]]:
        """The tournament's row with its ``entrants`` and ``games`` (in order), or None."""
        row = self.one(f"SELECT {','.join(_T)} FROM tournaments WHERE id = ?", (tournament_id,))
        if row is None:
            return None
        out = _row(_T, row)
        out["entrants"] = [_row(_E, r) for r in self.fetch(
            f"SELECT {','.join(_E)} FROM tournament_entrants WHERE tournament = ? ORDER BY joined, entrant",
            (tournament_id,))]
        out["games"] = [_row(_G, r) for r in self.fetch(
            f"SELECT {','.join(_G)} FROM tournament_games WHERE tournament = ? ORDER BY n", (tournament_id,))]
        return out

    def ids(self, statuses: tuple[str, ...]) -> List[str]:
        """The ids of the tournaments in one of ``statuses``, by start time."""
        marks = ",".join("?" * len(statuses))
        return [r[0] for r in self.fetch(f"SELECT id FROM tournaments WHERE status IN ({marks}) ORDER BY starts, id",
                                         statuses)]

    def finished(self, limit: int) -> List[str]:
        """The ids of the last ``limit`` finished tournaments, latest first."""
        return [r[0] for r in self.fetch(
            "SELECT id FROM tournaments WHERE status = 'finished' ORDER BY finished DESC, id LIMIT ?", (limit,))]

    def results_of(self, account: str, limit: int = 50) -> List[Dict[str, Any]]:
        """The finished tournaments ``account`` played in (alone or in a team), latest first: id,
        name, kind, place, points, entrants."""
        rows = self.fetch(
            "SELECT t.id, t.name, t.kind, e.place, e.points, t.finished, e.names, "
            "(SELECT COUNT(*) FROM tournament_entrants x WHERE x.tournament = t.id AND x.state IN ('in', 'withdrawn')) "
            "FROM tournament_entrants e JOIN tournaments t ON t.id = e.tournament "
            "WHERE t.status = 'finished' AND e.state IN ('in', 'withdrawn') AND instr(e.accounts, ?) > 0 "
            "ORDER BY t.finished DESC, t.id LIMIT ?", (json.dumps(account), limit))
        keys = ("id", "name", "kind", "place", "points", "finished", "names", "entrants")
        return [_row(keys, r) for r in rows]
