"""Teams: teammates cooperate in every agent (R2 seats alternate teams, R7 a sequence is a team's).

Chips belong to a team, not to a player (R1 one colour per team, R7), so a player extends and
completes lines made of a teammate's chips, never "blocks" them, and a one-eyed jack removes only
another team's chip (R5). These tests check it in GreedyAgent (Python), the search's move heuristic
(``cpp/include/sequence/search/heuristic.hpp``) and the ISMCTS, whose rewards are per team.

The strength in 3-player and 2x2 games is measured in docs/measurements.md.
"""

from __future__ import annotations

import pytest
from helpers import board_rows, random_midgame
from sequence_game import Game as CoreGame
from sequence_game import _core
from sequence_game.agents import GreedyAgent, MCTSAgent
from sequence_game.agents._peeking import peeking_mcts

# (players, teams, seats per rotation that keep every seat on its team: the number of teams, R2)
SPLITS = [(4, None), (6, 2), (6, 3), (8, None)]


def _rotated(d: dict, shift: int) -> dict:
    """The same position with every seat's hand, discards and turn moved ``shift`` seats on.
    With ``shift`` a multiple of the number of teams, every seat stays on its team (R2)."""
    n = d["players"]
    out = dict(d)
    out["hands"] = [d["hands"][(i - shift) % n] for i in range(n)]
    out["discards"] = [d["discards"][(i - shift) % n] for i in range(n)]
    out["current_player"] = (d["current_player"] + shift) % n
    out["dealer"] = (d["dealer"] + shift) % n
    if d.get("last_draw"):
        out["last_draw"] = {**d["last_draw"], "player": (d["last_draw"]["player"] + shift) % n}
    return out


def _positions(Game, players, teams, count=8):
    return [g for g in (random_midgame(Game, players, teams, seed=40 + s) for s in range(count)) if g is not None]


@pytest.mark.parametrize("players,teams", SPLITS)
def test_r2_greedy_scores_do_not_depend_on_which_teammate_moves(Game, players, teams):
    """Hand a seat's cards and turn to its teammate: every move scores the same, so a teammate's
    chips are this player's own (no blocking a teammate, R2/R7)."""
    for g in _positions(Game, players, teams):
        d = g.to_dict()
        mate = Game.from_dict(_rotated(d, g.teams))
        assert mate.team_of(mate.current_player) == g.team_of(g.current_player)
        mine = {str(m): s for s, m in GreedyAgent().score_moves(g)}
        theirs = {str(m): s for s, m in GreedyAgent().score_moves(mate)}
        assert mine == theirs


@pytest.mark.parametrize("players,teams", SPLITS)
def test_r2_search_heuristic_does_not_depend_on_which_teammate_moves(players, teams):
    for g in _positions(CoreGame, players, teams):
        mate = CoreGame.from_dict(_rotated(g.to_dict(), g.teams))
        assert sorted(_core.heuristic_scores(g._state)) == sorted(_core.heuristic_scores(mate._state))


def _team_position(Game, mover: int) -> object:
    """Four players (teams 0: seats 0, 2; 1: seats 1, 3). Team 0 has a sequence (row 10) and a
    four a6-d6 whose gap e6 is the 2H; team 1 has a four b3-e3 whose gap f3 is the 5D (one more
    sequence would be team 1's first, not a win). ``mover`` holds the 2H and the 5D."""
    chips = {(5, c): "B" for c in range(4)}
    chips.update({(9, c): "B" for c in range(1, 5)})
    chips.update({(2, c): "G" for c in range(1, 5)})
    hands = [["3S", "4S", "6S", "7S", "8S", "9S"], ["3H", "4H", "5H", "6H", "7H", "8H"],
             ["3C", "4C", "5C", "6C", "7C", "8C"], ["3D", "4D", "6D", "7D", "8D", "9D"]]
    hands[mover] = ["2H", "5D", "KS", "QS", "AS", "9H"]
    return Game.from_dict({
        "players": 4, "board": board_rows(chips), "hands": hands, "current_player": mover,
        "dealer": (mover - 1) % 4,
        "sequences": [{"team": 0, "cells": [[9, 0], [9, 1], [9, 2], [9, 3], [9, 4]]}],
    })


@pytest.mark.parametrize("mover", [0, 2])
def test_r7_r8_greedy_completes_the_teams_line_from_a_teammates_chips(Game, mover):
    g = _team_position(Game, mover)
    move = GreedyAgent(seed=0).select_move(g)
    assert (move.card, move.cell) == ("2H", (5, 4)) and move.declares
    g.play(move)
    assert g.winner == 0  # the team's second sequence (R8), whichever teammate placed the chips


@pytest.mark.parametrize("mover", [1, 3])
def test_r8_greedy_blocks_the_other_teams_winning_gap(Game, mover):
    g = _team_position(Game, mover)
    assert GreedyAgent(seed=0).select_move(g).cell == (5, 4)


@pytest.mark.parametrize("mover", [0, 2])
def test_r7_r8_mcts_wins_with_a_teammates_chips(mover):
    g = _team_position(CoreGame, mover)
    move = MCTSAgent(iterations=500, seed=1).select_move(g)
    assert (move.card, move.cell) == ("2H", (5, 4)) and move.declares


def test_r2_mcts_rewards_a_teammates_win():
    """The search backs up each team's reward (R2, R8): seat 0 cannot win now, but its teammate
    (seat 2) completes the team's second sequence next round whatever seats 0 and 1 do (neither
    holds a 2H or a jack), so every move of seat 0 is worth a win to seat 0. The peeking search (a test
    hook) lets the
    search read the hands, to make the teammate's win certain rather than likely."""
    d = _team_position(CoreGame, 0).to_dict()
    d["hands"][0] = ["KS", "QS", "AS", "9H", "3C", "4C"]
    d["hands"][2] = ["2H", "5C", "6C", "7C", "8C", "5D"]
    del d["draw_pile"]  # the rest of the deck, for the hands above
    g = CoreGame.from_dict(d)
    result = peeking_mcts(iterations=2000, seed=3).analyze(g)
    for stats in result.moves:
        assert stats.value > 0.95, (str(stats.move), stats.value)
