"""The server's parts, built and wired in one place (as lila's ``Env`` builds its modules).

:func:`build_env` makes every long-lived part of the web server from the settings of
``create_app`` and hands each the others it calls, as constructor arguments: no part is patched
after it was made. Read it to see what calls what:

- the database thread (``tables/database.py``) runs every store call; the seeks, the chat and the
  reports (``social.py``) queue their writes to it, in order with the tables';
- the club (``club/``, with accounts on) files every finished game and rates the rated ones, and
  then its tournament (``tournaments/``, for accounts) scores it: the table service calls them once
  a game is over and stored;
- the club's people (``club/people.py``: follows, presence, challenges, blocks) read the live
  tables, and the chat hides what a blocked account writes;
- the standing (``club/standing.py``) refuses to start a game with a disabled account: the table
  service asks it before a rematch, the routers before a join or a seek is taken, and its sweep
  closes such seeks and forming tables;
- the seek board (``seeks.py``) comes back from the stored open seeks;
- the table service (``tables/``) resumes the unfinished tables; the reviews
  (``reviews.py``) run in its analysis threads; the tournaments make their games' tables there;
- the lobby (``lobby.py``) turns seeks into tables of the service, spending the creation quota.

``create_app`` puts the parts on ``app.state`` and the routes reach them through ``deps.py``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from ..gamebase import GameClass
from .club import Club, ClubSettings
from .club.standing import Standing
from .http import CreationQuota
from .limits import ServerLimits
from .lobby import Lobby
from .reviews import ReviewService
from .seeks import SeekBoard
from .social import Social
from .store import TableStore
from .tables import DatabaseThread, Table, TableService
from .tournaments.service import TournamentService, TournamentSettings

__all__ = ["Env", "build_env"]

log = logging.getLogger("sequence_game.web")


@dataclass(frozen=True)
class Env:
    """Every long-lived part of one server (the module doc says who calls whom)."""

    limits: ServerLimits
    store: TableStore
    social: Social
    club: Optional[Club]  # None: accounts are off (``serve --no-accounts``)
    seeks: SeekBoard
    standing: Optional[Standing]  # with the club only
    service: TableService
    reviews: ReviewService
    quota: CreationQuota
    tournaments: Optional[TournamentService]  # with the club only
    lobby: Lobby

    def start(self) -> None:
        """Start the parts' background work: the AI seats that are to move, the sweeps (call inside
        the event loop)."""
        self.service.start_ai()
        if self.standing is not None:
            self.standing.start(self.service)
        if self.tournaments is not None:
            self.tournaments.start()

    async def close(self) -> None:
        """Stop everything, the queued writes (tables, seeks, chat, reports) done first."""
        if self.tournaments is not None:
            await self.tournaments.stop()
        if self.standing is not None:
            self.standing.stop()
        self.reviews.close()
        await self.service.close()  # closes the database thread once its writes are done
        if self.tournaments is not None:
            self.tournaments.close()
        self.social.close()
        if self.club is not None:
            self.club.close()


def build_env(db_path: Union[str, Path], limits: ServerLimits, game_class: Optional[GameClass] = None,
              accounts: bool = True, club: Optional[ClubSettings] = None, chat: bool = True,
              tournaments: Optional[TournamentSettings] = None) -> Env:
    """The server's parts over the database file ``db_path`` (``create_app`` says what the
    arguments mean), wired together and restored from the file: the unfinished tables and the
    open seeks are back."""
    store = TableStore(db_path)
    database = DatabaseThread()
    # the club's people (club/people.py) see who is at a live table: the service's, made below
    club_service = Club(db_path, club, tables=lambda: service.tables.values()) if accounts else None
    # the open seeks, the tables' chat and the chat reports are kept in the same file (social.py)
    social = Social(db_path, database.soon)
    seeks = SeekBoard(limits, keeper=social)
    came_back = seeks.restore(social.open_seeks(), accounts=club_service is not None)
    if came_back:
        log.info("%d open seek(s) came back from %s", came_back, db_path)
    # a disabled account's seeks and forming tables close, and no game starts with it (club/standing.py)
    standing = None if club_service is None else Standing(club_service, seeks)
    # the tournaments make their tables in the table service, which tells them when a game ends:
    # the hook reads them once they are made, below (a game cannot end before the server starts)
    tournament_service: Optional[TournamentService] = None

    def game_over(table: Table) -> None:
        if club_service is not None:
            club_service.game_over(table)  # filed and rated first, then scored
        if tournament_service is not None:
            tournament_service.game_over(table)

    service = TableService(store, game_class=game_class, limits=limits, database=database, chat_keeper=social,
                           chat_enabled=chat, on_over=None if club_service is None else game_over,
                           check_rematch=None if standing is None else standing.check_table,
                           # a blocker's pages get none of the blocked account's chat
                           chat_hides=None if club_service is None else club_service.people.blocks)
    if club_service is not None:
        club_service.people.recover()  # an acceptance a restart cut short opens its challenge again
    resumed = service.resume()
    if resumed:
        log.info("resumed %d unfinished table(s) from %s", resumed, db_path)
    # tournaments are for accounts
    if club_service is not None:
        tournament_service = TournamentService(db_path, service, club_service.accounts.get, tournaments)
    quota = CreationQuota(limits)
    return Env(limits=limits, store=store, social=social, club=club_service, seeks=seeks, standing=standing,
               service=service, reviews=ReviewService(service), quota=quota, tournaments=tournament_service,
               lobby=Lobby(seeks, service, quota, accounts=club_service is not None, standing=standing))
