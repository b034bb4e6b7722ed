"""The referee calls of R10 as values, for a game's history.

A game's history (``Game.history``) lists every change since the deal in order: the moves
(``Move``) and the referee calls, :class:`TableTalkPenalty` and :class:`MissedDraw`. Like a
``Move``, a call is a small immutable value with a text form that :func:`parse_history_entry`
reads back, so a history can be stored as text (game records) and replayed
(:func:`replay_entry`). The text forms::

    table-talk 0 0:7H 2:9S    team 0 is penalised: seat 0 discards 7H, seat 2 discards 9S
    missed-draw 1             seat 1's last draw goes back on top of the draw pile

A :class:`MissedDraw` does not name the card: it was drawn face down, so only its player knew it
(R9); the game knows it. A table-talk penalty's cards are discarded face up, public.

>>> from sequence_game import Game
>>> g = Game(players=2, seed=1)
>>> g.play(g.legal_moves()[0]); g.missed_draw(1)
>>> g.history[-1], str(g.history[-1])
(MissedDraw(player=1), 'missed-draw 1')
>>> parse_history_entry("table-talk 1 1:9s")
TableTalkPenalty(team=1, cards=((1, '9S'),))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Mapping, Tuple, Union

from ._args import is_int
from .cards import parse_card
from .move import Move

if TYPE_CHECKING:
    from .gamebase import GameBase

__all__ = ["HistoryEntry", "MissedDraw", "RefereeCall", "TableTalkPenalty", "parse_history_entry", "replay_entry"]


@dataclass(frozen=True)
class TableTalkPenalty:
    """R10 table talk: every member of ``team`` discarded the named card; nobody drew.

    ``cards`` are ``(seat, card)`` pairs in seat order; the constructor also takes a dict
    ``{seat: card}`` (any accepted card spelling).
    """

    team: int
    cards: Tuple[Tuple[int, str], ...]

    def __init__(self, team: int, cards: Union[Mapping[int, str], Tuple[Tuple[int, str], ...]]) -> None:
        if not is_int(team) or team < 0:
            raise ValueError(f"a table-talk penalty names a team number >= 0, not {team!r}")
        pairs = cards.items() if isinstance(cards, Mapping) else cards
        normal = []
        for entry in pairs:
            seat, card = entry
            if not is_int(seat) or seat < 0:
                raise ValueError(f"a table-talk penalty names seats as ints >= 0, not {seat!r}")
            normal.append((seat, parse_card(card)))
        normal.sort()
        if not normal or len({s for s, _ in normal}) != len(normal):
            raise ValueError("a table-talk penalty names one card for each member of the team, each seat once")
        object.__setattr__(self, "team", team)
        object.__setattr__(self, "cards", tuple(normal))

    @property
    def cards_by_player(self) -> Dict[int, str]:
        """The cards as ``{seat: card}``, the form ``Game.table_talk_penalty`` takes."""
        return dict(self.cards)

    def __str__(self) -> str:
        return f"table-talk {self.team} " + " ".join(f"{seat}:{card}" for seat, card in self.cards)


@dataclass(frozen=True)
class MissedDraw:
    """R10 loss of a card: ``player``'s most recent draw went back on top of the draw pile."""

    player: int

    def __post_init__(self) -> None:
        if not is_int(self.player) or self.player < 0:
            raise ValueError(f"a missed draw names a seat number >= 0, not {self.player!r}")

    def __str__(self) -> str:
        return f"missed-draw {self.player}"


RefereeCall = Union[TableTalkPenalty, MissedDraw]
#: One entry of ``Game.history``: a move or a referee call.
HistoryEntry = Union[Move, TableTalkPenalty, MissedDraw]


def _seat(text: str, what: str) -> int:
    if not (text.isascii() and text.isdigit() and len(text) <= 3):
        raise ValueError(f"{what}: {text!r} is not a seat number")
    return int(text)


def parse_history_entry(text: str) -> HistoryEntry:
    """A history entry from its text: a move (docs/notation.md) or a referee call (see above).

    Raises ``ValueError`` (``InvalidMoveError`` for a malformed move) naming what is wrong.

    >>> parse_history_entry("missed-draw 2"), parse_history_entry("7H@d6")
    (MissedDraw(player=2), Move('place', '7H', (5, 3)))
    """
    if not isinstance(text, str):
        raise TypeError(f"a history entry is text like '7H@d6' or 'missed-draw 1', not {type(text).__name__}")
    words = text.split()
    head = words[0].lower() if words else ""
    if head == "missed-draw":
        if len(words) != 2:
            raise ValueError(f"{text!r}: write a missed draw as 'missed-draw SEAT', e.g. 'missed-draw 1'")
        return MissedDraw(_seat(words[1], "missed-draw"))
    if head == "table-talk":
        if len(words) < 3:
            raise ValueError(
                f"{text!r}: write a table-talk penalty as 'table-talk TEAM SEAT:CARD ...', "
                "e.g. 'table-talk 0 0:7H 2:9S'"
            )
        team = _seat(words[1], "table-talk team")
        cards = []
        for word in words[2:]:
            seat, sep, card = word.partition(":")
            if not sep:
                raise ValueError(f"{text!r}: {word!r} is not SEAT:CARD (e.g. '2:9S')")
            cards.append((_seat(seat, "table-talk"), card))
        return TableTalkPenalty(team, tuple(cards))
    return Move.parse(text)


def replay_entry(game: GameBase, entry: HistoryEntry) -> None:
    """Make the change ``entry`` stands for on ``game``: play the move or make the referee call."""
    if isinstance(entry, TableTalkPenalty):
        game.table_talk_penalty(entry.team, entry.cards_by_player)
    elif isinstance(entry, MissedDraw):
        game.missed_draw(entry.player)
    else:
        game.play(entry)
