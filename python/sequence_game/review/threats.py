"""Threats that decide a game: the cells where one chip wins (R7, R8), the chance that the side to
move holds a card for one, and the words the review uses for them.

The fitted estimator (:mod:`.estimator`) reads threats as counts; a count cannot say "won". This
module reads them exactly:

* :func:`winning_cells`: every empty cell where one chip of a team completes the sequences it still
  needs (R8: two with two teams, one with three), counting what R7 lets one placement declare (a
  new sequence shares at most one cell with each of the team's sequences and with the others it
  declares with it; the corners count for every team).
* :func:`filling_cards`: the cards that put a chip on a cell: the card printed there (two copies in
  the deck) and the two-eyed jacks (four, R1, R5).
* :func:`win_now_chance`: the chance that the player to move can win on this move: exact from the
  mover's own hand (any legal move that ends the game), else hypergeometric over the unseen cards
  (the hand is a draw from the cards nobody in the view has seen: R9, the discard piles are public).
* :func:`decisive`: the two-ply race those chances make (the mover wins now; else the next team
  wins on its move unless the mover blocked its only cell), which the estimator combines with its
  fitted chance of the rest of the game.

>>> from sequence_game import Game
>>> g = Game(players=2, seed=3)
>>> winning_cells(g, 0), win_now_chance(g)
((), 0.0)
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _core
from ..board import CELLS, WINDOWS, card_name_at, cell_of_index
from ..cards import CARD_IDS, TWO_EYED_JACKS, cell_name
from ..game_setup import TEAM_NAMES
from ..gamebase import GameBase
from ..i18n import N_

__all__ = ["NOTE_TEMPLATES", "GameLike", "Race", "completions", "decisive", "filling_cards", "holds_win", "move_notes", "needed_sequences",
           "note_text", "threats", "unseen_copies", "win_now_chance", "winning_cells"]

EMPTY = -1  # the core's board codes: -1 empty, 0..2 a team's chip, 3 a corner
CORNER = 3
COPIES = 2  # the deck is two standard decks (R1): two copies of every card
_WINDOW_CELLS = np.asarray(WINDOWS, dtype=np.int64)  # (192, 5)
_JACK_IDS = tuple(CARD_IDS[j] for j in sorted(TWO_EYED_JACKS))
_CARD_AT = tuple(CARD_IDS.get(card_name_at(i), -1) for i in range(CELLS))


def needed_sequences(teams: int) -> int:
    """The sequences a team needs to win (R8): two with two teams, one with three."""
    return 2 if teams == 2 else 1


#: What the review reads a position from: a game (:class:`sequence_game.Game`; the reference's is
#: refused, the review reads the core's features) or the compiled core's own state.
GameLike = Union[GameBase, _core.Game]


def core_state(game: GameLike) -> _core.Game:
    """The compiled core's state of ``game`` (a :class:`sequence_game.Game` or a ``_core.Game``);
    ``TypeError`` for anything else (the estimator and the threats read the core's features)."""
    state = getattr(game, "_state", game)
    if not isinstance(state, _core.Game):
        raise TypeError(f"the win chance needs a sequence_game.Game (the compiled core's), not {type(game).__name__}")
    return state


def _declarable(new: Sequence[Tuple[int, ...]], held: Sequence[frozenset[int]]) -> int:
    """How many of the windows ``new`` (all through the placed cell) one placement can declare:
    each shares at most one cell with every sequence ``held`` and with each other (R7)."""
    fit = [w for w in new if all(len(h.intersection(w)) <= 1 for h in held)]
    for size in range(len(fit), 1, -1):
        if any(all(len(set(a).intersection(b)) <= 1 for a, b in combinations(group, 2))
               for group in combinations(fit, size)):
            return size
    return len(fit)


def completions(game: GameLike, team: int) -> Dict[int, int]:
    """``{cell: sequences}``: every empty cell where one chip of ``team`` completes at least one
    sequence (R7), and how many it completes at once (what one placement can declare). Public
    (R9: the board and the sequences only)."""
    state = core_state(game)
    board = np.asarray(state.board(), dtype=np.int64).reshape(-1)
    cells = board[_WINDOW_CELLS]
    own = (cells == team) | (cells == CORNER)
    empty = cells == EMPTY
    near = np.flatnonzero((own.sum(axis=1) == 4) & (empty.sum(axis=1) == 1))
    if near.size == 0:
        return {}
    held = [frozenset(c) for t, c in state.sequences() if t == team]
    by_cell: Dict[int, List[Tuple[int, ...]]] = {}
    for w in near.tolist():
        cell = int(_WINDOW_CELLS[w][empty[w]][0])
        by_cell.setdefault(cell, []).append(tuple(int(c) for c in _WINDOW_CELLS[w]))
    out = {c: _declarable(ws, held) for c, ws in sorted(by_cell.items())}
    return {c: n for c, n in out.items() if n > 0}


def winning_cells(game: GameLike, team: int) -> Tuple[int, ...]:
    """The empty cells (indices ``10 * row + col``, ascending) where one chip of ``team`` wins the
    game (R7, R8), whoever is to move; public (R9: the board and the sequences only)."""
    state = core_state(game)
    if state.is_over:
        return ()
    needed = needed_sequences(state.teams) - sum(1 for t, _ in state.sequences() if t == team)
    return tuple(c for c, n in completions(state, team).items() if n >= needed)


def filling_cards(cells: Sequence[int]) -> Tuple[int, ...]:
    """The card ids that put a chip on any of ``cells``: each cell's printed card and the two-eyed
    jacks (R5), ascending, each once."""
    return tuple(sorted({_CARD_AT[c] for c in cells if _CARD_AT[c] >= 0} | (set(_JACK_IDS) if cells else set())))


def unseen_copies(game: GameLike, cards: Sequence[int], viewer: Optional[int] = None) -> Tuple[int, int]:
    """``(k, n)``: how many copies of ``cards`` and how many cards in all nobody in the view has
    seen: the deck less every discard pile (public, R9) and, with ``viewer``, less its own hand."""
    state = core_state(game)
    seen: Dict[int, int] = {}
    discarded = 0
    for p in range(state.players):
        pile = state.discards(p)
        discarded += len(pile)
        for c in pile:
            seen[c] = seen.get(c, 0) + 1
    n = state.draw_pile_size + sum(len(state.hand(p)) for p in range(state.players))
    if viewer is not None:
        hand = state.hand(viewer)
        n -= len(hand)
        for c in hand:
            seen[c] = seen.get(c, 0) + 1
    k = sum(max(0, COPIES - seen.get(c, 0)) for c in cards)
    return min(k, n), n


def _hypergeometric_any(k: int, n: int, h: int) -> float:
    """The chance that ``h`` cards drawn from ``n`` hold at least one of ``k`` marked ones."""
    if k <= 0 or h <= 0 or n <= 0:
        return 0.0
    if h > n - k:
        return 1.0
    return 1.0 - math.comb(n - k, h) / math.comb(n, h)


def holds_win(game: GameLike) -> bool:
    """Whether a legal move of the player to move ends the game in its team's win (exact)."""
    state = core_state(game)
    team = state.current_player % state.teams
    cells = set(winning_cells(state, team))
    if not cells:
        return False
    from ..game import move_from_id

    for mid in state.legal_moves():
        move = move_from_id(mid)
        if move.kind == "place" and move.cell is not None and (10 * move.cell[0] + move.cell[1]) in cells:
            after = state.copy()
            after.play(mid)
            if after.winner == team:
                return True
    return False


def win_now_chance(game: GameLike, viewer: Optional[int] = None) -> float:
    """The chance that the player to move wins on this move. ``viewer`` the mover: exact (1 when its
    hand holds a winning move, else 0). Otherwise (the public view, or another player's): the
    chance that its hand holds a card filling one of its team's :func:`winning_cells`, the hand a
    draw from the cards unseen in that view."""
    state = core_state(game)
    if state.is_over:
        return 0.0
    mover = state.current_player
    if viewer == mover:
        return 1.0 if holds_win(state) else 0.0
    cells = winning_cells(state, mover % state.teams)
    if not cells:
        return 0.0
    k, n = unseen_copies(state, filling_cards(cells), viewer)
    return _hypergeometric_any(k, n, len(state.hand(mover)))


class Race(NamedTuple):
    """What :func:`decisive` reads: ``win_now`` the chance that the player to move wins on this move,
    ``next_wins`` the chance that, when it does not, the next player's team wins on the next move,
    and the winning cells of the mover's team and of the next team (R8)."""

    win_now: float
    next_wins: float
    mover_cells: Tuple[int, ...]
    next_cells: Tuple[int, ...]


def decisive(game: GameLike, viewer: Optional[int] = None) -> Race:
    """The race of immediate wins from ``game`` in a view (:class:`Race`): the chance that the player
    to move wins now (:func:`win_now_chance`), and the chance that, when it does not, the next
    player's team wins on the next move: its hand (unseen in the view, or the viewer's own: exact)
    holds a card for one of its winning cells, less the chance that the mover blocked the only one
    (the mover holds a card for it). Public in the public view (R9)."""
    state = core_state(game)
    if state.is_over:
        return Race(0.0, 0.0, (), ())
    mover = state.current_player
    nxt = (mover + 1) % state.players
    mine = winning_cells(state, mover % state.teams)
    cells = winning_cells(state, nxt % state.teams)
    a = win_now_chance(state, viewer) if mine else 0.0
    if not cells:
        return Race(a, 0.0, mine, cells)
    fill = filling_cards(cells)
    if viewer == nxt:
        b = 1.0 if set(state.hand(nxt)).intersection(fill) else 0.0
    else:
        k, n = unseen_copies(state, fill, viewer)
        b = _hypergeometric_any(k, n, len(state.hand(nxt)))
    if len(cells) == 1:
        # The mover blocks a single cell when it holds a card for it (one of the same cards).
        if viewer == mover:
            blocked = 1.0 if set(state.hand(mover)).intersection(fill) else 0.0
        else:
            k, n = unseen_copies(state, fill, viewer)
            blocked = _hypergeometric_any(k, n, len(state.hand(mover)))
        b *= 1.0 - blocked
    return Race(a, b, mine, cells)


def threats(game: GameLike) -> List[Tuple[int, Tuple[int, ...]]]:
    """``(team, winning cells)`` of every team with at least one of :func:`winning_cells`."""
    state = core_state(game)
    out = []
    for t in range(state.teams):
        cells = winning_cells(state, t)
        if cells:
            out.append((t, cells))
    return out


#: The review's words for a deciding threat, one template per kind (``-2``: the cell completes two
#: sequences at once). ``{team}``: the team the note is about; ``{other}``: the team it blocks or
#: fails to block; ``{cells}``: the cells. The web page holds the same table (review.js).
NOTE_TEMPLATES: Dict[str, str] = {  # N_: the catalogs translate them where they are shown (docs/i18n.md)
    "win": N_("{team} wins at {cells}"),
    "win-2": N_("{team} wins at {cells} with two sequences at once"),
    "missed-win": N_("{team} could have won at {cells}"),
    "threat": N_("{team} threatens {cells} for the win"),
    "threat-2": N_("{team} threatens {cells} for two sequences"),
    "double-threat": N_("{team} threatens {cells}: one move cannot block them all"),
    "block": N_("{team} blocks {other} at {cells}"),
    "missed-block": N_("{team} left {other} the win at {cells}"),
}


def note_text(note: Mapping[str, Any], team_names: Sequence[str] = TEAM_NAMES) -> str:
    """The words of one note (:func:`move_notes`) from its parts: ``kind``, ``team``, ``other``,
    ``cells`` (names) and ``sequences`` (how many the cell completes at once).

    >>> note_text({"kind": "threat", "team": 0, "cells": ["i5"], "sequences": 2})
    'blue threatens i5 for two sequences'
    """
    kind = note["kind"]
    key = f"{kind}-2" if note.get("sequences", 1) >= 2 and f"{kind}-2" in NOTE_TEMPLATES else kind
    other = note.get("other")
    return NOTE_TEMPLATES[key].format(team=team_names[note["team"]], cells=", ".join(note["cells"]),
                                      other="" if other is None else team_names[other])


def _names(cells: Sequence[int]) -> List[str]:
    return [cell_name(cell_of_index(c)) for c in sorted(cells)]


def _note(kind: str, team: int, cells: Sequence[int], sequences: int = 1, other: Optional[int] = None) -> Dict[str, Any]:
    out: Dict[str, Any] = {"kind": kind, "team": team, "cells": _names(cells), "sequences": sequences}
    if other is not None:
        out["other"] = other
    return out


def move_notes(game: GameLike, move_id: int) -> List[Dict[str, Any]]:
    """The threats that decide at the move ``move_id`` of the player to move in ``game`` (before the
    move), each a note of parts for :func:`note_text`, the mover's team's first:

    * ``win``: the move wins (R8); ``missed-win``: the mover held a winning move and played another;
    * ``block``: the move takes a cell where another team would have won; ``missed-block``: another
      team could win at one cell, the mover held a card for it, and the cell is still open after
      the move (a team with several cells was named when it made them: one move cannot block them
      all, and the mover is not blamed);
    * ``threat`` / ``double-threat``: after the move the mover's team has new winning cells (one,
      or several: one move cannot block them all).

    Reads the mover's hand (the review judges a decision in the mover's view) and the board."""
    state = core_state(game)
    mover = state.current_player
    team = mover % state.teams
    before = {t: set(winning_cells(state, t)) for t in range(state.teams)}
    after_state = state.copy()
    after_state.play(move_id)
    from ..game import move_from_id

    move = move_from_id(move_id)
    cell = None if move.cell is None else 10 * move.cell[0] + move.cell[1]
    notes: List[Dict[str, Any]] = []
    mine = completions(state, team)
    if after_state.winner == team:
        return [_note("win", team, [cell] if cell is not None else sorted(before[team]), mine.get(cell, 1) if cell is not None else 1)]
    if before[team] and holds_win(state):
        hand = set(state.hand(mover))
        open_cells = [c for c in sorted(before[team]) if hand.intersection(filling_cards([c]))]
        notes.append(_note("missed-win", team, open_cells, max(mine.get(c, 1) for c in open_cells)))
    after = {t: set(winning_cells(after_state, t)) for t in range(state.teams)}
    for other in range(state.teams):
        if other == team or not before[other]:
            continue
        if cell is not None and cell in before[other]:
            notes.append(_note("block", team, [cell], other=other))
        elif len(after[other]) == 1 and set(state.hand(mover)).intersection(filling_cards(sorted(after[other]))):
            notes.append(_note("missed-block", team, sorted(after[other]), other=other))
    new = after[team] - before[team]
    if new:
        theirs = completions(after_state, team)
        if len(after[team]) >= 2:
            notes.append(_note("double-threat", team, sorted(after[team])))
        else:
            notes.append(_note("threat", team, sorted(new), max(theirs.get(c, 1) for c in new)))
    return notes
