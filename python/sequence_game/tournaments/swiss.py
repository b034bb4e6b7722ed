"""Swiss pairing: a simplified Dutch system (FIDE Handbook C.04.3), for players or teams.

An *entrant* is whatever sits on one side of a game: one player, or a team of two whose rating is
its members' mean. The pairing never looks inside it.

The order (C.04.3 1.2): score, highest first, then the pairing number; pairing numbers come from
the entry list sorted by rating, highest first, then by id (C.04.2's initial order).

The steps of :func:`pair_round`:

1. **Bye** (C.04.1 article c): with an odd number of entrants, the lowest-ranked one who has had
   no bye yet sits out and scores one point, provided the others can still all be paired. When
   every entrant has had a bye, the one with the fewest byes, lowest-ranked first, gets it.
2. **Brackets** (C.04.3 1.3): the scoregroups from the top down. A bracket is the players left
   unpaired above it (moved down) and the scoregroup's own. In a bracket of ``n`` players that is
   to give ``p`` pairs, S1 is its first ``p`` players and S2 the rest; S1's ``i``-th player meets
   S2's ``i``-th. When that pairing is not allowed, S2 is transposed, in the lexicographic order of
   C.04.3 4.2 (the example there: 6 7 8 9 10, then 6 7 8 10 9, then 6 7 9 8 10 ...), and after all
   transpositions players are exchanged between S1 and S2, the smallest exchange (by the sum of
   the pairing-order differences) first. When no pairing of ``p`` pairs works, ``p`` drops by one
   and the two lowest players float down to the next bracket.
3. **Allowed** means the two never met (C.04.1 article b: a forfeit does not count as a meeting)
   *and* what is left -- this bracket's floaters and every bracket below -- can still be paired
   completely. That look-ahead (an exact matching search, :func:`_pairable`) is what replaces the
   Dutch system's rules for backtracking into a bracket already paired (C.04.3 3.8 and 3.9): the
   last bracket always pairs.
4. **Seats** (C.04.3 article 5): see :func:`allocate_seats`. The seat is the colour: the first seat
   plays team blue, the second team green (R2). Who moves first is the cut's (R4), not the
   pairing's, so the seats balance the colours only.

Where this is simpler than the Dutch system, on purpose for a club night of a few rounds:

* players moved down are paired as if the bracket were homogeneous (they rank on top, so they
  land in S1) instead of being paired first against the top of the residents;
* seat (colour) preferences are a quality, not a rule: among the first pairings allowed, the one
  with the fewest pairs of two players who both must have the same seat is chosen, instead of
  the absolute colour criterion C.04.3 3.1.3 refusing them;
* floats are not remembered (C.04.3 1.4): a player may float two rounds running;
* no acceleration, no late entries renumbering.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

__all__ = [
    "BYE_POINTS",
    "Entrant",
    "Game",
    "Pairing",
    "allocate_seats",
    "pair_round",
    "pairing_order",
    "scores",
    "seat_history",
]

BYE_POINTS = 1.0
#: the allowed pairings of one bracket tried before the fewest seat conflicts found so far is taken
_CANDIDATES = 5000
#: the transpositions of one bracket looked at before the rest of the field is paired by the
#: look-ahead's own search (:func:`_matching`): a bound on the work, never reached at a club's size
_TRANSPOSITIONS = 200_000


@dataclass(frozen=True)
class Entrant:
    """One side of a game: a player, or a team (``rating``: its members' mean)."""

    id: str
    rating: float


@dataclass(frozen=True)
class Game:
    """A game of round ``round``: ``first`` has the first seat (team blue). ``result``: what ``first`` scored (1, 0.5
    or 0), None while it is being played. ``forfeit``: decided without play (a no-show): it counts
    for the score but is no meeting and gives no seat (C.04.1)."""

    round: int
    first: str
    second: str
    result: Optional[float] = None
    forfeit: bool = False

    def __post_init__(self) -> None:
        if self.first == self.second:
            raise ValueError(f"a game needs two different entrants, not {self.first!r} twice")
        if self.result not in (None, 0.0, 0.5, 1.0):
            raise ValueError(f"a result is 1, 0.5, 0 or None (playing), not {self.result!r}")

    def score_of(self, entrant: str) -> Optional[float]:
        if self.result is None:
            return None
        return self.result if entrant == self.first else 1.0 - self.result

    def opponent(self, entrant: str) -> str:
        return self.second if entrant == self.first else self.first


@dataclass(frozen=True)
class Pairing:
    """A round's games as ``(first, second)`` id pairs, board 1 first, and who has the bye."""

    games: Tuple[Tuple[str, str], ...]
    bye: Optional[str] = None


@dataclass
class _Card:
    """What the pairing knows of one entrant: its pairing number, score, meetings and seats."""

    id: str
    number: int
    score: float = 0.0
    met: Set[str] = field(default_factory=set)
    seats: List[int] = field(default_factory=list)  # 0 first, 1 second, in round order
    byes: int = 0


def pairing_order(entrants: Sequence[Entrant]) -> List[str]:
    """The ids by pairing number: rating, highest first, then id."""
    return [e.id for e in sorted(entrants, key=lambda e: (-e.rating, e.id))]


def scores(entrants: Sequence[str], games: Sequence[Game], byes: Mapping[int, str]) -> Dict[str, float]:
    """Each entrant's points: the results of ``games`` and :data:`BYE_POINTS` a bye."""
    points = dict.fromkeys(entrants, 0.0)
    for g in games:
        for side in (g.first, g.second):
            s = g.score_of(side)
            if s is not None and side in points:
                points[side] += s
    for who in byes.values():
        if who in points:
            points[who] += BYE_POINTS
    return points


def seat_history(entrant: str, games: Sequence[Game]) -> List[int]:
    """The seats ``entrant`` played, by round (0: the first seat), forfeits left out."""
    mine = sorted((g for g in games if entrant in (g.first, g.second) and not g.forfeit), key=lambda g: g.round)
    return [0 if g.first == entrant else 1 for g in mine]


def _cards(entrants: Sequence[Entrant], games: Sequence[Game], byes: Mapping[int, str]) -> Dict[str, _Card]:
    ids = [e.id for e in entrants]
    if len(set(ids)) != len(ids):
        raise ValueError(f"the entrants' ids repeat: {sorted(ids)}")
    points = scores(ids, games, byes)
    cards = {i: _Card(i, n + 1, points[i]) for n, i in enumerate(pairing_order(entrants))}
    for g in games:
        if g.forfeit:
            continue
        for side in (g.first, g.second):
            if side in cards:
                cards[side].met.add(g.opponent(side))
    for i, card in cards.items():
        card.seats = seat_history(i, games)
    for who in byes.values():
        if who in cards:
            cards[who].byes += 1
    return cards


# -- seats (C.04.3 article 5) ---------------------------------------------------------------------

def _preference(seats: Sequence[int]) -> Tuple[int, Optional[int]]:
    """(strength, seat): 3 absolute, 2 strong, 1 mild, 0 none (C.04.3 1.6 and 1.7). The
    difference is games first minus games second."""
    if not seats:
        return 0, None
    diff = seats.count(0) - seats.count(1)
    if diff <= -2 or (len(seats) >= 2 and seats[-1] == seats[-2] == 1):
        return 3, 0
    if diff >= 2 or (len(seats) >= 2 and seats[-1] == seats[-2] == 0):
        return 3, 1
    if diff == -1:
        return 2, 0
    if diff == 1:
        return 2, 1
    return 1, 1 - seats[-1]


def allocate_seats(high: str, low: str, history: Mapping[str, Sequence[int]], numbers: Mapping[str, int]) -> Tuple[str, str]:
    """``(first, second)`` for a game of ``high`` (the higher-ranked) and ``low``, by C.04.3 5.2:
    both preferences when they agree; else the stronger (two absolute ones: the wider difference);
    else alternate from the latest round the two had different seats; else the higher-ranked
    player's preference; with no preference at all, the higher-ranked player has the first seat when its
    pairing number is odd (5.2.5, the first seat as the initial colour)."""
    hs, ls = list(history.get(high, ())), list(history.get(low, ()))
    (hp, hseat), (lp, lseat) = _preference(hs), _preference(ls)

    def order(high_seat: int) -> Tuple[str, str]:
        return (high, low) if high_seat == 0 else (low, high)

    if hseat is not None and lseat is not None and hseat != lseat:
        return order(hseat)
    if hseat is None and lseat is not None:
        return order(1 - lseat)
    if lseat is None and hseat is not None:
        return order(hseat)
    if hseat is not None and lseat is not None:  # the same seat wanted
        if hp != lp:
            return order(hseat) if hp > lp else order(1 - lseat)
        if hp == 3:
            hdiff, ldiff = abs(hs.count(0) - hs.count(1)), abs(ls.count(0) - ls.count(1))
            if hdiff != ldiff:
                return order(hseat) if hdiff > ldiff else order(1 - lseat)
        for a, b in zip(reversed(hs), reversed(ls)):
            if a != b:
                return order(1 - a)
        return order(hseat)
    return order(0 if numbers[high] % 2 == 1 else 1)


def _conflict(a: _Card, b: _Card) -> bool:
    """Both must have the same seat (absolute preferences, C.04.3 3.1.3)."""
    pa, sa = _preference(a.seats)
    pb, sb = _preference(b.seats)
    return pa == 3 and pb == 3 and sa == sb


# -- the pairing ----------------------------------------------------------------------------------

def _pairable(players: FrozenSet[str], cards: Mapping[str, _Card], memo: Dict[FrozenSet[str], bool]) -> bool:
    """Whether ``players`` (an even number) can all be paired with no one meeting twice."""
    if not players:
        return True
    known = memo.get(players)
    if known is not None:
        return known
    first = min(players, key=lambda p: cards[p].number)
    rest = players - {first}
    ok = any(q not in cards[first].met and _pairable(rest - {q}, cards, memo) for q in rest)
    memo[players] = ok
    return ok


def _matching(players: FrozenSet[str], cards: Mapping[str, _Card],
              memo: Dict[FrozenSet[str], bool]) -> List[Tuple[str, str]]:
    """A pairing of ``players`` with no repeat (they are :func:`_pairable`): each in rank order
    meets the nearest one below it that leaves the rest pairable."""
    pairs = []
    left = players
    while left:
        first = min(left, key=lambda p: cards[p].number)
        rest = left - {first}
        mate = next(q for q in sorted(rest, key=lambda p: cards[p].number)
                    if q not in cards[first].met and _pairable(rest - {q}, cards, memo))
        pairs.append((first, mate))
        left = rest - {mate}
    return pairs


class _TooManyError(Exception):
    """A bracket's transpositions ran past :data:`_TRANSPOSITIONS`."""


def _exchanges(bracket: Sequence[str], p: int) -> Iterator[Tuple[List[str], List[str]]]:
    """(S1, S2) splits of ``bracket`` with ``len(S1) == p``: the plain split first, then exchanges,
    the smallest (sum of positions moved) first, as C.04.3 4.3 orders them."""
    n = len(bracket)
    splits = sorted(itertools.combinations(range(n), p), key=lambda c: (sum(c), c))
    for chosen in splits:
        s1 = [bracket[i] for i in chosen]
        s2 = [bracket[i] for i in range(n) if i not in chosen]
        yield s1, s2


def _pair_bracket(bracket: Sequence[str], below: FrozenSet[str], cards: Mapping[str, _Card],
                  memo: Dict[FrozenSet[str], bool]) -> Tuple[List[Tuple[str, str]], List[str]]:
    """The pairs of one bracket and its floaters (ranked), as the module's steps 2 and 3 say."""
    looked = 0
    for p in range(len(bracket) // 2, -1, -1):
        best: Optional[Tuple[int, List[Tuple[str, str]], List[str]]] = None
        tried = 0
        for s1, s2 in _exchanges(bracket, p):
            seen: Set[Tuple[str, ...]] = set()
            for perm in itertools.permutations(s2):
                looked += 1
                if looked > _TRANSPOSITIONS:
                    raise _TooManyError
                head = perm[:p]
                if head in seen:
                    continue
                seen.add(head)
                pairs = list(zip(s1, head))
                if any(b in cards[a].met for a, b in pairs):
                    continue
                floaters = [x for x in bracket if x not in set(s1) | set(head)]
                if not below and floaters:
                    continue  # the last bracket leaves no one
                if not _pairable(below | frozenset(floaters), cards, memo):
                    continue
                conflicts = sum(_conflict(cards[a], cards[b]) for a, b in pairs)
                if best is None or conflicts < best[0]:
                    best = (conflicts, pairs, floaters)
                if conflicts == 0:
                    return pairs, floaters
                tried += 1
                if tried >= _CANDIDATES:
                    return best[1], best[2]
        if best is not None:
            return best[1], best[2]
    raise AssertionError("the bracket's look-ahead promised a pairing")  # pragma: no cover


def pair_round(entrants: Sequence[Entrant], games: Sequence[Game], byes: Mapping[int, str]) -> Pairing:
    """The next round's pairing of ``entrants`` (those still in: withdrawn ones left out), given
    every game so far (withdrawn entrants' included: they give their opponents their points) and
    ``byes`` (round -> who had it). Raises ValueError when no pairing without a repeat exists (a
    tournament of more rounds than its entrants can play)."""
    if len(entrants) < 2:
        raise ValueError(f"a round needs at least 2 entrants, not {len(entrants)}")
    cards = _cards(entrants, games, byes)
    ranked = sorted(cards, key=lambda i: (-cards[i].score, cards[i].number))
    memo: Dict[FrozenSet[str], bool] = {}
    bye: Optional[str] = None
    playing = frozenset(ranked)
    if len(ranked) % 2:
        # the lowest-ranked without a bye, then (everyone had one) the fewest byes, lowest first
        position = {i: n for n, i in enumerate(ranked)}
        order = sorted(ranked, key=lambda i: (cards[i].byes, -position[i]))
        bye = next((i for i in order if _pairable(playing - {i}, cards, memo)), None)
        if bye is None:
            raise ValueError("no pairing is left without a repeated game: the entrants have all met")
        playing = playing - {bye}
    elif not _pairable(playing, cards, memo):
        raise ValueError("no pairing is left without a repeated game: the entrants have all met")
    ranked = [i for i in ranked if i in playing]
    groups: List[List[str]] = []
    for i in ranked:
        if groups and cards[groups[-1][0]].score == cards[i].score:
            groups[-1].append(i)
        else:
            groups.append([i])
    pairs: List[Tuple[str, str]] = []
    floaters: List[str] = []
    for k, group in enumerate(groups):
        below = frozenset(itertools.chain.from_iterable(groups[k + 1:]))
        try:
            got, floaters = _pair_bracket(floaters + group, below, cards, memo)
        except _TooManyError:
            pairs.extend(_matching(below | frozenset(floaters + group), cards, memo))
            break
        pairs.extend(got)
    history = {i: cards[i].seats for i in cards}
    numbers = {i: cards[i].number for i in cards}
    position = {i: n for n, i in enumerate(ranked)}
    # boards: the pair with the higher-ranked player first (C.04.3 5.1)
    pairs.sort(key=lambda ab: min(position[ab[0]], position[ab[1]]))
    seated = []
    for a, b in pairs:
        high, low = (a, b) if position[a] < position[b] else (b, a)
        seated.append(allocate_seats(high, low, history, numbers))
    return Pairing(tuple(seated), bye)
