"""R8: winning. Two sequences with two teams, one with three; the game ends before the winner draws."""

import pytest
from helpers import board_rows, line, seq
from sequence_game import IllegalMoveError

FILLER = ["9C", "5C", "2D", "3D", "4D", "6D", "7D", "8D", "9D", "TD", "QD", "KD"]


def _hands(players):
    return [[FILLER[p]] for p in range(players)]


def _seqdict(team, cells):
    return {"team": team, "cells": [list(c) for c in seq(cells)]}


ROW6 = line((5, 0), (0, 1))  # a6-e6
ROW8 = line((7, 0), (0, 1))  # a8-e8: KC 8S TC QC KC


def _one_away(position, players=2, teams=None, player=0, **kw):
    """Team of ``player`` has a6-e6 and needs e8 (KC) for a8-e8."""
    t = player % (teams or {2: 2, 3: 3}.get(players, 2))
    letter = "BGR"[t]
    hands = _hands(players)
    hands[player] = ["KC", "QS"]
    return position(players=players, board=board_rows(**{letter: ROW6 + ROW8[:4]}), hands=hands,
                    sequences=[_seqdict(t, ROW6)], current_player=player, **({"teams": teams} if teams else {}), **kw)


def test_r8_two_teams_need_two_sequences(Game, position):
    g = position(board=board_rows(B=ROW8[:4]), hands=[["KC"], ["9C"]])
    g.play("KC@e8")
    assert len(g.sequences) == 1 and not g.is_over and g.winner is None
    assert g.legal_moves() != []


def test_r8_second_sequence_wins_and_ends_before_the_draw(Game, position):
    g = _one_away(position)
    size = g.draw_pile_size
    g.play("KC@e8")
    assert g.is_over and g.winner == 0 and not g.is_draw
    assert g.hand(0) == ["QS"]  # the winner does not draw
    assert g.draw_pile_size == size
    assert g.discards(0) == ["KC"]
    assert g.current_player == 0  # play does not pass on
    assert g.turn == 1  # the winning play counts as a turn
    assert g.legal_moves() == []
    d = g.to_dict()
    assert d["winner"] == 0 and d["is_draw"] is False and d["last_draw"] is None


@pytest.mark.parametrize("players, teams, player", [(3, None, 1), (3, None, 2), (9, None, 5), (6, 3, 4), (12, 3, 2)])
def test_r8_three_teams_need_one_sequence(Game, position, players, teams, player):
    t = player % 3
    hands = _hands(players)
    hands[player] = ["KC"]
    g = position(players=players, board=board_rows(**{"BGR"[t]: ROW8[:4]}), hands=hands, current_player=player,
                 **({"teams": teams} if teams else {}))
    g.play("KC@e8")
    assert g.winner == t and g.is_over and g.hand(player) == [] and g.legal_moves() == []


@pytest.mark.parametrize("players, teams, player", [(4, None, 3), (6, 2, 4), (8, None, 1), (10, None, 6), (12, 2, 9)])
def test_r8_two_team_games_with_partners_need_two(Game, position, players, teams, player):
    g = _one_away(position, players=players, teams=teams, player=player)
    t = player % 2
    g2 = g.copy()
    g.play("KC@e8")
    assert g.winner == t and g.is_over
    # one sequence alone is not enough with two teams
    rows = board_rows(**{"BG"[t]: ROW8[:4]})
    d = g2.to_dict()
    d.update(board=rows, sequences=[])
    g3 = type(g2).from_dict(d)
    g3.play("KC@e8")
    assert not g3.is_over


def test_r8_a_partner_completes_the_teams_second_sequence(Game, position):
    # chips of team 0 placed by either partner count alike: player 2 finishes it
    g = _one_away(position, players=4, player=2)
    g.play("KC@e8")
    assert g.winner == 0


def test_r8_nine_in_a_row_wins_in_one_move(Game, position):
    row = line((5, 0), (0, 1), 9)
    g = position(board=board_rows(G=[c for c in row if c != (5, 4)]), hands=[["9C"], ["2H"]], current_player=1)
    g.play("2H@e6")
    assert g.winner == 1 and len(g.sequences) == 2 and g.hand(1) == []


def test_r8_play_after_the_end_raises(Game, position):
    g = _one_away(position)
    g.play("KC@e8")
    before = g.to_dict()
    for move in ["QS@b5", "pass", "trade QS", "JDxa1".replace("JD", "JS")]:
        with pytest.raises(IllegalMoveError) as e:
            g.play(move)
        assert "over" in str(e.value)
    assert not g.is_legal("QS@b5")
    with pytest.raises(ValueError) as e:
        g.missed_draw(0)
    assert "over" in str(e.value)
    with pytest.raises(ValueError):
        g.table_talk_penalty(0, {0: "QS"})
    assert g.to_dict() == before


def test_r8_undo_takes_back_the_win(Game, position):
    g = _one_away(position)
    before = g.to_dict()
    g.play("KC@e8")
    g.undo()
    assert g.to_dict() == before and not g.is_over and g.winner is None
    assert g.is_legal("KC@e8")


def test_r8_winner_is_derived_from_sequences_in_from_dict(Game, position):
    g = position(board=board_rows(B=ROW6 + ROW8), hands=[["9C"], ["9C"]],
                 sequences=[_seqdict(0, ROW6), _seqdict(0, ROW8)])
    assert g.winner == 0 and g.is_over and g.legal_moves() == []


def test_r8_win_on_the_capped_turn_is_a_win_not_a_draw(Game, position):
    g = _one_away(position, turn=9, max_turns=10)
    g.play("KC@e8")
    assert g.winner == 0 and not g.is_draw and g.turn == 10
