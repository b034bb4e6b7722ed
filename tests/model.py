"""An independent executable model of the rules, written from docs/rules.md, docs/notation.md and the
turn procedure, over plain ``to_dict()`` dicts. The property tests check both implementations
against it move by move (legal moves in order, and the whole state after each move), so a rule
bug shared by the core and the reference is still caught.

It is deliberately simple and slow: clarity over speed."""

from __future__ import annotations

import copy
from itertools import combinations
from typing import Dict, List, Optional, Tuple

from helpers import CORNERS, DIRECTIONS, HAND_SIZE, model_reshuffle
from sequence_game import Move
from sequence_game.cards import CARD_IDS, CARD_NAMES, cells_of

Cell = Tuple[int, int]
LETTERS = "BGR"
ONE_EYED, TWO_EYED = ("JH", "JS"), ("JD", "JC")


def _grid(d: dict) -> Dict[Cell, str]:
    return {(r, c): d["board"][r][c] for r in range(10) for c in range(10)}


def _locked(d: dict) -> set:
    return {tuple(x) for s in d["sequences"] for x in s["cells"]}


def is_over(d: dict) -> bool:
    return d["winner"] is not None or d["is_draw"]


def dead_cards(d: dict, p: int) -> List[str]:
    g = _grid(d)
    return sorted({c for c in d["hands"][p] if c[0] != "J" and all(g[x] != "." for x in cells_of(c))},
                  key=CARD_IDS.__getitem__)


def declare_choices(d: dict, team: int, target: Cell, grid: Optional[Dict[Cell, str]] = None) -> List[Tuple]:
    """Every legal ``declares`` for a chip of ``team`` placed on ``target`` (R7), by brute force:
    all sets of candidate windows, pairwise sharing at most one cell, of the largest size."""
    g = dict(grid if grid is not None else _grid(d))
    g[target] = LETTERS[team]
    mine = {LETTERS[team], "*"}
    own = [set(map(tuple, s["cells"])) for s in d["sequences"] if s["team"] == team]
    cands = []
    for dr, dc in DIRECTIONS:
        for back in range(5):
            w = [(target[0] + (i - back) * dr, target[1] + (i - back) * dc) for i in range(5)]
            if not all(0 <= r < 10 and 0 <= c < 10 for r, c in w):
                continue
            if all(g[x] in mine for x in w) and all(len(s & set(w)) <= 1 for s in own):
                cands.append(tuple(sorted(w)))
    best: List[Tuple] = [()]
    for k in range(len(cands), 0, -1):
        found = [combo for combo in combinations(cands, k)
                 if all(len(set(a) & set(b)) <= 1 for a, b in combinations(combo, 2))]
        if found:
            best = [tuple(sorted(f)) for f in found]
            break
    return best


def legal_moves(d: dict) -> List[Move]:
    if is_over(d):
        return []
    p = d["current_player"]
    team = p % d["teams"]
    g = _grid(d)
    locked = _locked(d)
    hand = sorted(set(d["hands"][p]), key=CARD_IDS.__getitem__)
    trades = [] if d["traded_this_turn"] else [Move("trade", c) for c in dead_cards(d, p)]
    plays = []
    for card in hand:
        if card in ONE_EYED:
            for x, v in g.items():
                if v in LETTERS and v != LETTERS[team] and x not in locked:
                    plays.append(Move("remove", card, x))
            continue
        targets = [x for x, v in g.items() if v == "."] if card in TWO_EYED else [x for x in cells_of(card) if g[x] == "."]
        for x in targets:
            for decl in declare_choices(d, team, x, g):
                plays.append(Move("place", card, x, decl))
    moves = trades + plays if plays else trades + [Move("pass")]
    return sorted(moves, key=Move.sort_key)


def _draw(d: dict, p: int) -> Optional[str]:
    if not d["draw_pile"]:  # R6
        pile, state = model_reshuffle(d["discards"], d["rng"])
        d["draw_pile"], d["rng"] = pile, state
        d["discards"] = [[] for _ in d["discards"]]
    if not d["draw_pile"]:
        return None
    card = d["draw_pile"].pop(0)
    d["hands"][p].append(card)
    d["hands"][p].sort(key=CARD_IDS.__getitem__)
    return card


def _end_turn(d: dict) -> None:
    if d["max_turns"] is not None and d["turn"] >= d["max_turns"]:
        d["is_draw"] = True
    else:
        d["current_player"] = (d["current_player"] + 1) % d["players"]


def apply(d: dict, move: Move) -> dict:
    """The state after ``move`` (one of ``legal_moves(d)``), following the documented turn procedure."""
    d = copy.deepcopy(d)
    p = d["current_player"]
    team = p % d["teams"]
    if move.kind == "trade":
        d["hands"][p].remove(move.card)
        d["discards"][p].append(move.card)
        _draw(d, p)
        d["traded_this_turn"] = True
        d["last_draw"] = None
        return d
    if move.kind == "pass":
        counts = not d["traded_this_turn"] and not dead_cards(d, p)
        d["passes"] = d["passes"] + 1 if counts else 0
        d["turn"] += 1
        d["traded_this_turn"] = False
        if d["passes"] == d["players"]:
            d["is_draw"] = True
        else:
            _end_turn(d)
        return d
    d["hands"][p].remove(move.card)
    d["discards"][p].append(move.card)
    r, c = move.cell
    row = list(d["board"][r])
    row[c] = LETTERS[team] if move.kind == "place" else "."
    d["board"][r] = "".join(row)
    for s in move.declares:
        d["sequences"].append({"team": team, "cells": [list(x) for x in s]})
    d["passes"] = 0
    d["turn"] += 1
    d["traded_this_turn"] = False
    need = 2 if d["teams"] == 2 else 1
    if sum(1 for s in d["sequences"] if s["team"] == team) >= need:
        d["winner"] = team
        return d
    card = _draw(d, p)
    d["last_draw"] = None if card is None else {"player": p, "card": card}
    _end_turn(d)
    return d


def missed_draw(d: dict, player: int) -> dict:
    d = copy.deepcopy(d)
    card = d["last_draw"]["card"]
    d["hands"][player].remove(card)
    d["draw_pile"].insert(0, card)
    d["last_draw"] = None
    return d


def check_invariants(d: dict) -> None:
    """Structural facts that hold in every reachable position."""
    from collections import Counter

    cards = Counter(c for h in d["hands"] for c in h) + Counter(c for pile in d["discards"] for c in pile) \
        + Counter(d["draw_pile"])
    assert cards == Counter(dict.fromkeys(CARD_NAMES, 2)), "cards are not conserved (104)"
    g = _grid(d)
    assert all(g[x] == "*" for x in CORNERS)
    assert sum(v == "*" for v in g.values()) == 4
    for s in d["sequences"]:
        cells = [tuple(x) for x in s["cells"]]
        assert cells == sorted(cells) and len(set(cells)) == 5
        assert all(g[x] in (LETTERS[s["team"]], "*") for x in cells)
    for a, b in combinations(d["sequences"], 2):
        if a["team"] == b["team"]:
            assert len({tuple(x) for x in a["cells"]} & {tuple(x) for x in b["cells"]}) <= 1
    for h in d["hands"]:
        assert h == sorted(h, key=CARD_IDS.__getitem__)
        assert len(h) <= HAND_SIZE[d["players"]]
    assert 0 <= d["passes"] <= d["players"]
    if d["last_draw"] is not None:
        assert d["last_draw"]["card"] in d["hands"][d["last_draw"]["player"]]
