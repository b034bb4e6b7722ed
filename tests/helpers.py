"""Helpers shared by the test modules: hand-built positions, lines on the board, and an
independent model of docs/rng.md (so the deal and the reshuffle are checked against the spec,
not against either implementation)."""

from __future__ import annotations

import json
import os
from collections import Counter
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from sequence_game.cards import BOARD_LAYOUT, CARD_IDS, CARD_NAMES, parse_cell

Cell = Tuple[int, int]

CORNERS = ((0, 0), (0, 9), (9, 0), (9, 9))
VALID_PLAYERS = (2, 3, 4, 6, 8, 9, 10, 12)
HAND_SIZE = {2: 7, 3: 6, 4: 6, 6: 5, 8: 4, 9: 4, 10: 3, 12: 3}  # R3, written out independently
DEFAULT_TEAMS = {2: 2, 3: 3, 4: 2, 6: 2, 8: 2, 9: 3, 10: 2, 12: 2}  # R2
# every (players, teams) split allowed by R2
CONFIGS = [(2, 2), (3, 3), (4, 2), (6, 2), (6, 3), (8, 2), (9, 3), (10, 2), (12, 2), (12, 3)]
LETTER = "BGR"
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))

SOAK = os.environ.get("SEQUENCE_SOAK", "") not in ("", "0")


def cell(x) -> Cell:
    """'d6' -> (5, 3); a tuple passes through."""
    return parse_cell(x) if isinstance(x, str) else tuple(x)


def card_at(c) -> str:
    r, col = cell(c)
    return BOARD_LAYOUT[r][col]


def line(start, direction: Cell, n: int = 5) -> List[Cell]:
    r, c = cell(start)
    dr, dc = direction
    return [(r + i * dr, c + i * dc) for i in range(n)]


def seq(cells: Iterable) -> Tuple[Cell, ...]:
    """A declared sequence as the Move/Game API writes it: five cells sorted ascending."""
    return tuple(sorted(cell(x) for x in cells))


def empty_rows() -> List[str]:
    rows = [["."] * 10 for _ in range(10)]
    for r, c in CORNERS:
        rows[r][c] = "*"
    return ["".join(r) for r in rows]


def board_rows(chips: Optional[Dict] = None, **teams: Iterable) -> List[str]:
    """10 board strings. ``chips`` maps cells to 'B'/'G'/'R' (or team ints); keyword ``B=[cells]``,
    ``G=[cells]``, ``R=[cells]`` add more. Corners in the lists are ignored (they stay '*')."""
    rows = [list(r) for r in empty_rows()]
    items = list((chips or {}).items())
    for letter, cells in teams.items():
        items += [(x, letter) for x in cells]
    for x, v in items:
        r, c = cell(x)
        if (r, c) in CORNERS:
            continue
        rows[r][c] = LETTER[v] if isinstance(v, int) else v
    return ["".join(r) for r in rows]


def full_deck() -> Counter:
    return Counter(dict.fromkeys(CARD_NAMES, 2))


def rest_of_deck(hands, discards=()) -> List[str]:
    """Every card not in ``hands``/``discards``, ascending id (the from_dict default draw pile)."""
    left = full_deck()
    for pile in list(hands) + list(discards):
        for c in pile:
            left[c] -= 1
    assert all(v >= 0 for v in left.values()), "a card appears more than twice"
    return [name for name in CARD_NAMES for _ in range(left[name])]


def position_dict(players: int = 2, board=None, hands=None, draw_top: Sequence[str] = (),
                  **kw) -> dict:
    """A from_dict dict. ``board``: 10 strings, or a dict of chips for ``board_rows``.
    ``draw_top``: cards to put on top of the (otherwise ascending) draw pile."""
    d: dict = {"players": players, "hands": [list(h) for h in hands]}
    if board is not None:
        d["board"] = board_rows(board) if isinstance(board, dict) else list(board)
    d.update(kw)
    if draw_top:
        assert "draw_pile" not in kw
        rest = rest_of_deck(d["hands"], d.get("discards", ()))
        for c in draw_top:
            rest.remove(c)
        d["draw_pile"] = list(draw_top) + rest
    return d


def json_round(d: dict) -> dict:
    return json.loads(json.dumps(d))


def moves_at(game, target, kind="place") -> list:
    target = cell(target)
    return [m for m in game.legal_moves() if m.kind == kind and m.cell == target]


def deck_counter(d: dict) -> Counter:
    cnt = Counter()
    for h in d["hands"]:
        cnt.update(h)
    for pile in d["discards"]:
        cnt.update(pile)
    cnt.update(d["draw_pile"])
    return cnt


# --------------------------------------------------------------------------- docs/rng.md, independently

M64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, s: int) -> None:
        self.s = s

    def next(self) -> int:
        self.s = (self.s + 0x9E3779B97F4A7C15) & M64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        x = self.next()
        m = x * n
        low = m & M64
        if low < n:
            t = ((1 << 64) - n) % n
            while low < t:
                x = self.next()
                m = x * n
                low = m & M64
        return m >> 64

    def shuffle(self, a: list) -> None:
        for i in range(len(a) - 1, 0, -1):
            j = self.below(i + 1)
            a[i], a[j] = a[j], a[i]


def model_deal(players: int, seed: int) -> dict:
    """docs/rng.md: cut for the dealer, shuffle, deal. Returns hands (canonical order), draw pile,
    dealer, current player and the generator state after the deal."""
    rng = SplitMix64(seed)
    deck = list(range(52)) * 2
    rng.shuffle(deck)
    cutters = list(range(players))
    while True:
        rng.shuffle(deck)
        cut = {p: deck[k] for k, p in enumerate(cutters)}
        low = min(c // 4 for c in cut.values())
        cutters = [p for p in cutters if cut[p] // 4 == low]
        if len(cutters) == 1:
            dealer = cutters[0]
            break
    rng.shuffle(deck)
    hands: List[List[int]] = [[] for _ in range(players)]
    for _ in range(HAND_SIZE[players]):
        for k in range(1, players + 1):
            hands[(dealer + k) % players].append(deck.pop(0))
    return {
        "hands": [[CARD_NAMES[c] for c in sorted(h)] for h in hands],
        "draw_pile": [CARD_NAMES[c] for c in deck],
        "dealer": dealer,
        "current_player": (dealer + 1) % players,
        "rng": f"{rng.s:016x}",
    }


def model_reshuffle(discards: List[List[str]], rng_hex: str) -> Tuple[List[str], str]:
    """R6 / docs/rng.md: gather discards in seat order, oldest first, shuffle; (new pile, rng)."""
    rng = SplitMix64(int(rng_hex, 16))
    pile = [CARD_IDS[c] for p in discards for c in p]
    rng.shuffle(pile)
    return [CARD_NAMES[c] for c in pile], f"{rng.s:016x}"


def random_midgame(Game, players, teams=None, seed=0, max_plies=120):
    """A game after a random number (0..max_plies) of random plies from a seeded deal, or None if it ended."""
    import random

    rng = random.Random(seed)
    g = Game(players=players, teams=teams, seed=seed)
    for _ in range(rng.randrange(0, max_plies)):
        if g.is_over:
            return None
        g.play(rng.choice(g.legal_moves()))
    return None if g.is_over else g


def research_build() -> bool:
    """Whether the compiled core is a research build (CMake SEQUENCE_RESEARCH): its SearchOptions has
    the options of docs/research/ besides the product's."""
    import sequence_game

    return bool(sequence_game.build_info().get("research"))
