"""The lobby: where a game starts (docs/web.md, "Finding a game"). Create a table of your own or
take an open seat at one, accept a challenge, play the computer in one click, post a seek, list
the open seeks and wait for a change, accept one, or let quick pairing find a compatible one; the
routes (``routers/tables.py``, ``routers/seeks.py``, ``routers/people.py``) only translate HTTP to
these calls.

The seeks themselves live on the board (``seeks.py``), kept across restarts by ``social.py``; a
seek accepted becomes a table of the table service (``tables/``), with its poster at seat 0 and the
accepter at seat 1. Creating (a table, a seek) spends the client address's creation quota
(``http.CreationQuota``), and so does taking a seat. With accounts on, a rated table or seek is for
accounts only (:meth:`Lobby.create_table` says what a rated table must be), a rating range admits
accounts whose rating lies in it, and no game starts with a disabled account (``club/standing.py``).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from typing import Any, Dict, List, Optional, Tuple

from ..game_setup import check_players_teams
from ..seeds import fresh_seed
from . import models
from .club import Club, ratings
from .club.accounts import Account
from .club.standing import Standing
from .club.web import NeedsAccountError, seat_account
from .errors import InvalidRequestError, NotAllowedError
from .http import CreationQuota
from .longpoll import wait_until
from .seeks import Seek, SeekBoard
from .tables import Table, TableService, check_clock, token_hash

__all__ = ["Lobby", "check_game", "default_seats"]


def check_game(body: Any, what: str) -> Tuple[int, int, Optional[Dict[str, Any]]]:
    """The players, teams and game clock a seek's or a challenge's ``body`` asks for (``what`` names
    it in a refusal); InvalidRequestError for a player count, teams or clock the rules do not
    allow, or both a turn timer and a game clock."""
    try:
        players, teams = check_players_teams(body.players, body.teams)
    except ValueError as e:
        raise InvalidRequestError(str(e)) from None
    if body.clock is not None and body.turn_seconds is not None:
        raise InvalidRequestError(f"{what} has one time control: a turn timer (turn_seconds) or a game clock "
                                  "(clock), not both")
    return players, teams, check_clock(None if body.clock is None else body.clock.model_dump(), teams)


def default_seats(players: int, rated: bool) -> List[models.SeatSpec]:
    """The seats of a table created without ``seats``: the creator's human seat, then the AI
    ``medium`` at every other seat; at a rated table, where no AI sits (docs/club.md), seats open
    to the accounts that join."""
    other = models.SeatSpec(kind="human", open=True) if rated else models.SeatSpec(kind="ai", ai="medium")
    return [models.SeatSpec(kind="human")] + [other for _ in range(players - 1)]


def _rating_of(account: Optional[Account]) -> Optional[int]:
    """The displayed rating of ``account`` (None for a guest: a seek's rating range admits no guest)."""
    return None if account is None else ratings.display(account.mu)


def _range_text(seek: Seek) -> str:
    if seek.rating_max is None:
        return f"{seek.rating_min} or more"
    if seek.rating_min is None:
        return f"{seek.rating_max} or less"
    return f"{seek.rating_min} to {seek.rating_max}"


def _is_own(seek: Seek, token: str) -> bool:
    return len(token) <= 128 and secrets.compare_digest(seek.token_hash, token_hash(token))


def _link(base: str, table: str, seat: int, token: str) -> models.SeatLink:
    return models.SeatLink(seat=seat, token=token, url=f"{base}/table/{table}#seat={token}")


class Lobby:
    """Tables created and joined, challenges accepted, seeks, their acceptance and quick pairing,
    and the one-click game against the computer. ``accounts``: the server has accounts (rated seeks and ranges need them); ``standing``: the
    club's check of disabled accounts (None without accounts). ``base``, in the calls that answer
    a seat's link: the server's URL the link starts with."""

    def __init__(self, board: SeekBoard, service: TableService, quota: CreationQuota, accounts: bool,
                 standing: Optional[Standing] = None) -> None:
        self.board, self.service, self.quota = board, service, quota
        self.accounts, self.standing = accounts, standing

    # ------------------------------------------------------------------ a table of one's own

    async def create_table(self, body: models.CreateTable, client: str, account: Optional[Account],
                           base: str) -> models.TableCreated:
        """A new table of ``body`` (without ``seats``: :func:`default_seats`), the signed-in
        ``account`` at its first human seat that is not open; each human seat's link (one per
        token: a hot seat's seats share one). A rated table is checked first (:meth:`_check_rated_table`),
        then the creation spends the client's quota."""
        if body.seats is None:  # the body's bounds are checked (models/tables.py) first: at most 12 seats
            body = body.model_copy(update={"seats": default_seats(body.players, body.rated)})
        self._check_rated_table(body, account)
        self.quota.take(client)
        seats = body.seats or []
        table, tokens = await self.service.create(
            body.players, body.teams, [s.model_dump() for s in seats], seed=body.seed, max_turns=body.max_turns,
            hot_seat=body.hot_seat, ai_seconds=min(body.ai_seconds, self.service.max_ai_seconds), moves=body.moves,
            client=client, hints=body.hints, turn_seconds=body.turn_seconds, account=seat_account(account),
            rated=body.rated, clock=None if body.clock is None else body.clock.model_dump())
        links, seen = [], set()
        for seat, token in sorted(tokens.items()):
            if token in seen:
                continue
            seen.add(token)
            links.append(_link(base, table.id, seat, token))
        return models.TableCreated(table=table.id, seats=links, spectate_url=f"{base}/table/{table.id}")

    async def join(self, table: Table, body: models.JoinRequest, client: str, account: Optional[Account],
                   base: str) -> models.SeatLink:
        """Take an open human seat of ``table`` (``body.seat``, or the first open one) under
        ``body.name``, recording the signed-in ``account``: its link. A rated table's seats are
        for accounts only, no game starts with a disabled account, and taking a seat spends the
        client's creation quota (it hands out a seat, as creating a table does)."""
        if table.options.rated and account is None:
            raise NeedsAccountError("this table is rated: its seats are for signed-in accounts (log in at /login)")
        if self.standing is not None:  # no game starts with a disabled account (club/standing.py)
            await self.standing.check_table(table)
        self.quota.take(client)
        seat, token = await self.service.join(table, body.seat, body.name, seat_account(account))
        return _link(base, table.id, seat, token)

    # ------------------------------------------------------------------ a challenge accepted

    async def accept_challenge(self, club: Club, challenge_id: str, me: Account, client: str,
                               base: str) -> models.SeatLink:
        """Accept the challenge ``challenge_id`` to ``me`` (``club/people.py``): its table, the
        maker at seat 0 and ``me`` at seat 1 (opponents), further seats open, rated if the
        challenge is; ``me``'s seat link (the maker's is kept on the challenge). Spends the
        client's creation quota; a table that cannot be made opens the challenge again."""
        self.quota.take(client)
        people = club.people
        c = await asyncio.to_thread(people.take, me, challenge_id)
        maker = await asyncio.to_thread(club.accounts.get, c.maker)
        if maker is None:  # deleted meanwhile: take() saw it a moment ago
            await asyncio.to_thread(people.reopen, c)
            raise NotAllowedError("the player who made this challenge can no longer play")
        seats: List[Dict[str, Any]] = [{"kind": "human", "name": maker.name, "account": seat_account(maker)},
                                       {"kind": "human", "name": me.name, "account": seat_account(me)}]
        seats += [{"kind": "human", "open": True} for _ in range(c.players - 2)]
        try:
            table, tokens = await self.service.create(c.players, c.teams, seats, client=client,
                                                      ai_seconds=min(2.0, self.service.max_ai_seconds),
                                                      turn_seconds=c.turn_seconds, clock=c.clock, rated=c.rated)
        except BaseException:
            await asyncio.to_thread(people.reopen, c)
            raise
        await asyncio.to_thread(people.made, c, table.id, tokens[0])
        return _link(base, table.id, 1, tokens[1])

    # ------------------------------------------------------------------ the computer

    async def play_computer(self, body: models.PlayComputer, client: str, account: Optional[Account],
                            base: str) -> models.TableCreated:
        """A table of the asker against the AI at ``body.level``, at their seat (a random one if
        none is given); the answer carries that seat's link."""
        if body.clock is not None and body.turn_seconds is not None:
            raise InvalidRequestError("one time control: a turn timer (turn_seconds) or a game clock (clock), not both")
        seat = fresh_seed() % body.players if body.seat is None else body.seat
        if seat >= body.players:
            raise InvalidRequestError(f"seat must be from 0 to {body.players - 1} at a table of {body.players}, "
                                      f"not {seat}")
        self.quota.take(client)
        ai = {"kind": "ai", "ai": f"level:{body.level}"}
        seats = [{"kind": "human", "name": (body.name or "").strip() or "You"} if p == seat else dict(ai)
                 for p in range(body.players)]
        table, tokens = await self.service.create(
            body.players, None, seats, client=client, turn_seconds=body.turn_seconds,
            ai_seconds=min(2.0, self.service.max_ai_seconds),
            clock=None if body.clock is None else body.clock.model_dump(), account=seat_account(account))
        return models.TableCreated(table=table.id, seats=[_link(base, table.id, seat, tokens[seat])],
                                   spectate_url=f"{base}/table/{table.id}")

    # ------------------------------------------------------------------ seeks

    def post(self, body: models.SeekRequest, client: str, account: Optional[Account]) -> models.SeekPosted:
        """An open seek for the game of ``body``, under the account signed in (if any)."""
        game = self._wanted(body, account)
        self.quota.take(client)
        seek, token = self.board.post(client, **game)
        return self._posted(seek, token)

    async def seeks(self, client: str, after_version: Optional[int], wait: float) -> models.SeekList:
        """The open seeks, oldest first; with ``after_version``, once the list changed after it (at
        most ``wait`` seconds), the wait counted among the client's open connections."""
        board = self.board
        board.expire()
        if after_version is not None and after_version > board.version:
            raise InvalidRequestError(f"after_version {after_version} is ahead of the list's version {board.version}: "
                                      "send a version you read from this list")
        if after_version is not None and after_version == board.version:
            with self.service.holding(client):
                # a seek whose poster went away leaves the list while the lobby waits
                await wait_until(lambda: board.version > after_version, lambda: board.changed, wait,
                                 every=board.limits.seek_idle_seconds / 2, quiet=board.expire)
        now = time.monotonic()
        return models.SeekList(version=board.version, seeks=[self._summary(s, now) for s in board.open_seeks()])

    async def status(self, seek_id: str, token: Optional[str], client: str, wait: float,
                     base: str) -> models.SeekStatus:
        """The seek ``seek_id`` as its poster (``token``) sees it; asking keeps it open, and with
        ``wait`` the answer waits while it stays open."""
        board = self.board
        seek = board.owned(seek_id, token)
        if wait and seek.status == "open":
            with self.service.holding(client):
                await wait_until(lambda: seek.status != "open", lambda: board.changed,
                                 min(wait, board.limits.seek_idle_seconds / 2))
            seek.seen = time.monotonic()
        seat = None
        if seek.status == "accepted" and seek.table is not None and seek.poster_token is not None:
            seat = _link(base, seek.table, 0, seek.poster_token)
        return models.SeekStatus(seek=seek.id, status=seek.status, table=seek.table, seat=seat)

    def cancel(self, seek_id: str, token: Optional[str]) -> None:
        """Take the poster's (``token``) open seek off the lobby (a taken one stays taken)."""
        self.board.cancel(self.board.owned(seek_id, token))

    async def accept(self, seek_id: str, name: Optional[str], client: str, token: Optional[str],
                     account: Optional[Account], base: str) -> models.SeatLink:
        """Take the open seek ``seek_id``: the new table and the accepter's seat link. Refused for
        the asker's own seek (``token`` is its, or its account posted it), a rated seek without an
        account, a range that does not admit the asker."""
        board = self.board
        seek = board.get(seek_id)
        if token is not None and board.seeks.get(seek_id) is seek and _is_own(seek, token):
            raise NotAllowedError("this is your own seek: wait for someone to accept it, or cancel it")
        if account is not None and seek.account is not None and seek.account[0] == account.key:
            raise NotAllowedError("this is your own seek (your account posted it): wait for someone to accept it, or "
                                  "cancel it")
        if seek.rated:
            self._check_rated(account, "this seek is for a rated game")
        if not seek.admits(_rating_of(account)):
            rating = _rating_of(account)
            raise NotAllowedError(f"this seek wants opponents rated {_range_text(seek)}, "
                                  + ("and a guest has no rating: sign in" if rating is None else f"and yours is {rating}"))
        self.quota.take(client)
        async with board.lock:
            if self.standing is not None:  # a disabled account's seek closes instead (club/standing.py)
                await self.standing.check_seek(seek)
            return await self._table_for(seek, name, account, client, base)

    async def quick_pairing(self, body: models.SeekRequest, client: str, token: Optional[str],
                            account: Optional[Account], base: str) -> models.QuickPairing:
        """The oldest compatible open seek accepted at once, or the asker's own seek posted. Never
        paired with the seek of ``token`` nor with one of the asker's account."""
        game = self._wanted(body, account)
        self.quota.take(client)
        want = (game["players"], game["teams"], game["rated"], game["turn_seconds"],
                None if game["clock"] is None else tuple(sorted(game["clock"].items())))
        board = self.board
        async with board.lock:
            while True:
                found = board.match(want, game["rating"], token, None if account is None else account.key,
                                    (game["rating_min"], game["rating_max"]))
                if found is None or self.standing is None:
                    break
                try:
                    await self.standing.check_seek(found)  # a disabled account's seek closes: look again
                    break
                except NotAllowedError:
                    continue
            if found is not None:
                link = await self._table_for(found, game["name"], account, client, base)
                return models.QuickPairing(status="paired", seat=link, seek=None)
            seek, seek_token = board.post(client, **game)
        return models.QuickPairing(status="waiting", seat=None, seek=self._posted(seek, seek_token))

    # ------------------------------------------------------------------ the rules of a rated game and of a seek

    def _check_rated_table(self, body: models.CreateTable, account: Optional[Account]) -> None:
        """A rated table (``CreateTable.rated``) is one every seat of which an account will take: the
        creator signed in, no AI seat (games against the AI are unrated), no hot seat, every other seat
        open, the rules' own turn cap, no engine help (hints). Raises saying what is missing."""
        if not body.rated:
            return
        if not self.accounts:
            raise NotAllowedError("rated: accounts are switched off on this server, so no game is rated")
        if account is None:
            raise NeedsAccountError("rated: a rated table is created by a signed-in account (log in at /login)")
        seats = body.seats or []
        if not seats or any(s.kind != "human" for s in seats):
            raise NotAllowedError("rated: every seat of a rated table is a person (games against the AI are unrated); "
                                  "give seats: your own human seat and open seats for the others")
        if body.hot_seat or sum(not s.open for s in seats) != 1:
            raise NotAllowedError("rated: a rated table has one seat for its creator and every other seat open, for "
                                  "signed-in accounts to join")
        if body.max_turns is not None:
            raise NotAllowedError("rated: a rated table plays to the rules' own end (leave out max_turns)")
        if body.hints:
            raise NotAllowedError("rated: the AI gives no hint or analysis where ratings are at stake (leave out "
                                  "hints, or make the table casual)")

    def _check_rated(self, account: Optional[Account], doing: str) -> None:
        """A rated seek is posted and taken by signed-in accounts only (a rated game changes
        ratings, docs/club.md); 403 saying why for a guest, or when accounts are off."""
        if not self.accounts:
            raise NotAllowedError(f"{doing}: accounts are switched off on this server (serve --no-accounts), so no "
                                  "game is rated; play casual (rated: false)")
        if account is None:
            raise NotAllowedError(f"{doing}: a rated game needs an account: sign in (at /login), or play casual "
                                  "(rated: false)")

    def _wanted(self, body: models.SeekRequest, account: Optional[Account]) -> Dict[str, Any]:
        """The seek's game, checked like a table's (players and teams R2, one time control, the range)."""
        if body.rated:
            self._check_rated(account, "rated")
        if not self.accounts and (body.rating_min is not None or body.rating_max is not None):
            raise InvalidRequestError("rating_min, rating_max: accounts are switched off on this server, so nobody "
                                      "has a rating for a range to admit; leave the range out")
        players, teams, clock = check_game(body, "a seek")
        if body.rating_min is not None and body.rating_max is not None and body.rating_min > body.rating_max:
            raise InvalidRequestError(f"rating_min {body.rating_min} is above rating_max {body.rating_max}")
        return {"players": players, "teams": teams, "rated": body.rated, "turn_seconds": body.turn_seconds,
                "clock": clock, "rating_min": body.rating_min, "rating_max": body.rating_max,
                "name": account.name if account is not None else (body.name or "").strip() or "Guest",
                "account": seat_account(account), "rating": _rating_of(account),
                "provisional": None if account is None else ratings.provisional(account.sigma)}

    async def _table_for(self, seek: Seek, name: Optional[str], account: Optional[Account], client: str,
                         base: str) -> models.SeatLink:
        """Accept ``seek`` (call with ``board.lock`` held): the table with its poster at seat 0 and the
        accepter at seat 1, the other seats open; the accepter's seat link. Each seat records the
        account that took it; a rated seek makes a rated table (both are accounts: checked before)."""
        board = self.board
        board.take(seek)
        seats: List[Dict[str, Any]] = [{"kind": "human", "name": seek.name, "account": seek.account},
                                       {"kind": "human", "name": (name or "").strip() or "Guest",
                                        "account": seat_account(account)}]
        seats += [{"kind": "human", "open": True} for _ in range(seek.players - 2)]
        try:
            table, tokens = await self.service.create(
                seek.players, seek.teams, seats, client=client, ai_seconds=min(2.0, self.service.max_ai_seconds),
                turn_seconds=seek.turn_seconds, clock=seek.clock,
                rated=seek.rated and seek.account is not None and account is not None)
        except BaseException:
            board.reopen(seek)
            raise
        board.made(seek, table.id, tokens[0])
        return _link(base, table.id, 1, tokens[1])

    # ------------------------------------------------------------------ the answers

    def _posted(self, seek: Seek, token: str) -> models.SeekPosted:
        return models.SeekPosted(seek=seek.id, token=token, expires_in=round(
            self.board.limits.seek_seconds - (time.monotonic() - seek.created), 1))

    @staticmethod
    def _summary(seek: Seek, now: float) -> models.SeekSummary:
        return models.SeekSummary(seek=seek.id, players=seek.players, teams=seek.teams, rated=seek.rated,
                                  turn_seconds=seek.turn_seconds,
                                  clock=None if seek.clock is None else models.TimeControl(**seek.clock),
                                  rating_min=seek.rating_min, rating_max=seek.rating_max, name=seek.name,
                                  account=None if seek.account is None else seek.account[0], rating=seek.rating,
                                  provisional=seek.provisional, age=round(now - seek.created, 1))
