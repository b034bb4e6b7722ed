"""Hypothesis strategies: hand-made-looking positions (partial lines near corners, existing
sequences, 6- to 9-long runs, dead cards, empty draw piles, short hands)."""

from __future__ import annotations

from helpers import CONFIGS, CORNERS, DIRECTIONS, HAND_SIZE, LETTER, full_deck
from hypothesis import assume
from hypothesis import strategies as st
from sequence_game.cards import BOARD_LAYOUT, CARD_NAMES, cells_of
from sequence_game.position import position_from_dict

NON_CORNER = [(r, c) for r in range(10) for c in range(10) if (r, c) not in CORNERS]


def _inside(cells):
    return all(0 <= r < 10 and 0 <= c < 10 for r, c in cells)


@st.composite
def positions(draw, configs=CONFIGS, allow_over=True):
    players, teams = draw(st.sampled_from(configs))
    grid = dict.fromkeys(NON_CORNER, ".")
    # scattered chips
    for _ in range(draw(st.integers(0, 30))):
        grid[draw(st.sampled_from(NON_CORNER))] = LETTER[draw(st.integers(0, teams - 1))]
    # long runs (4..9) in a line, mostly of the mover's team, with a gap for a placement; later runs
    # often cross an earlier gap (several sequences from one placement)
    current = draw(st.integers(0, players - 1))
    gaps = []
    for _ in range(draw(st.sampled_from([2, 3, 1, 0]))):
        team = current % teams if draw(st.sampled_from([True, True, False])) else draw(st.integers(0, teams - 1))
        dr, dc = draw(st.sampled_from(DIRECTIONS))
        n = draw(st.integers(4, 9))
        if gaps and draw(st.sampled_from([True, True, False])):
            gap = draw(st.integers(0, n - 1))
            anchor = gaps[-1]
            start = (anchor[0] - gap * dr, anchor[1] - gap * dc)
        else:
            start = (draw(st.integers(0, 9)), draw(st.integers(0, 9)))
            gap = draw(st.integers(-1, n - 1))
        cells = [(start[0] + i * dr, start[1] + i * dc) for i in range(n)]
        for i, x in enumerate(cells):
            if x in grid:
                grid[x] = "." if i == gap else LETTER[team]
        if 0 <= gap < n and cells[gap] in grid:
            gaps.append(cells[gap])
    gaps = [x for x in gaps if grid[x] == "."]
    # partial lines from a corner
    for _ in range(draw(st.integers(0, 2))):
        team = draw(st.integers(0, teams - 1))
        corner = draw(st.sampled_from(CORNERS))
        dirs = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)
                and _inside([(corner[0] + 4 * dr, corner[1] + 4 * dc)])]
        dr, dc = draw(st.sampled_from(dirs))
        for i in range(1, draw(st.integers(2, 5))):
            grid[(corner[0] + i * dr, corner[1] + i * dc)] = LETTER[team]
    # existing sequences
    seqs = []
    need = 2 if teams == 2 else 1
    for _ in range(draw(st.integers(0, 3))):
        team = draw(st.integers(0, teams - 1))
        have = sum(1 for t, _ in seqs if t == team)
        if have + 1 >= need and not (allow_over and draw(st.integers(0, 9)) == 0):
            continue
        dr, dc = draw(st.sampled_from(DIRECTIONS))
        start = (draw(st.integers(0, 9)), draw(st.integers(0, 9)))
        w = [(start[0] + i * dr, start[1] + i * dc) for i in range(5)]
        if not _inside(w):
            continue
        ok = True
        for t, other in seqs:
            shared = set(other) & set(w)
            if (t != team and shared - set(CORNERS)) or (t == team and len(shared) > 1):
                ok = False
        if not ok:
            continue
        for x in w:
            if x in grid:
                grid[x] = LETTER[team]
        seqs.append((team, tuple(sorted(w))))
    won = {t for t, _ in seqs if sum(1 for u, _ in seqs if u == t) >= need}
    assume(len(won) <= 1)
    rows = ["".join("*" if (r, c) in CORNERS else grid[(r, c)] for c in range(10)) for r in range(10)]

    # cards: dead cards and jacks on purpose, short hands
    deck = full_deck()
    dead = [c for c in CARD_NAMES if c[0] != "J" and all(grid[x] != "." for x in cells_of(c))]
    hands = []
    for p in range(players):
        size = draw(st.integers(0, HAND_SIZE[players])) if draw(st.booleans()) else HAND_SIZE[players]
        hand = []
        if p == current and gaps and size:  # a card that fills a gap
            gap = draw(st.sampled_from(gaps))
            card = draw(st.sampled_from(["JD", "JC", BOARD_LAYOUT[gap[0]][gap[1]]]))
            deck[card] -= 1
            hand.append(card)
            size -= 1
        for _ in range(size):
            pool = dead if dead and draw(st.integers(0, 3)) == 0 else (
                ["JD", "JC", "JH", "JS"] if draw(st.integers(0, 5)) == 0 else CARD_NAMES)
            card = draw(st.sampled_from(pool))
            if deck[card] > 0:
                deck[card] -= 1
                hand.append(card)
        hands.append(hand)
    rest = [c for c in CARD_NAMES for _ in range(deck[c])]
    rest = draw(st.permutations(rest))
    mode = draw(st.sampled_from(["pile", "empty", "one", "split"]))
    if mode == "pile":
        k = 0
    elif mode == "empty":
        k = len(rest)
    elif mode == "one":
        k = len(rest) - 1
    else:
        k = draw(st.integers(0, len(rest)))
    to_discard, pile = list(rest[:k]), list(rest[k:])
    discards = [[] for _ in range(players)]
    for card in to_discard:
        discards[draw(st.integers(0, players - 1))].append(card)
    turn = draw(st.integers(0, 60))
    d = {
        "players": players, "teams": teams, "board": rows,
        "sequences": [{"team": t, "cells": [list(x) for x in cells]} for t, cells in seqs],
        "hands": hands, "discards": discards, "draw_pile": pile, "current_player": current,
        "turn": turn, "traded_this_turn": draw(st.booleans()), "passes": draw(st.integers(0, players - 1)),
        "rng": f"{draw(st.integers(0, 2**64 - 1)):016x}",
        "max_turns": draw(st.sampled_from([None, None, turn + 1, turn + 2])),
    }
    prev = (current - 1) % players
    if hands[prev] and draw(st.booleans()):
        d["last_draw"] = {"player": prev, "card": draw(st.sampled_from(hands[prev]))}
    try:
        position_from_dict(d)
    except ValueError:
        assume(False)
    return d
