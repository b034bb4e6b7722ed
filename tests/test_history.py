"""The game's history: ``Game.history`` / ``Game.moves`` / ``Game.last_move``, ``undo()`` returning
what it took back, the referee calls (R10) as history entries, ``GameRecord.from_game``, and what
``current_player`` is once the game is over (R5, R8 and the turn cap)."""

import random

import pytest
from helpers import board_rows, line, seq
from sequence_game import Move
from sequence_game.records import GameRecord, play_game
from sequence_game.referee import MissedDraw, TableTalkPenalty, parse_history_entry, replay_entry


def _random_game(Game, seed, plies, players=2):
    g = Game(players=players, seed=seed)
    rng = random.Random(seed)
    played = []
    for _ in range(plies):
        if g.is_over:
            break
        move = rng.choice(g.legal_moves())
        g.play(move)
        played.append(move)
    return g, played


def test_history_is_empty_at_the_deal(Game):
    g = Game(players=2, seed=1)
    assert g.history == [] and g.moves == [] and g.last_move is None


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_moves_are_the_moves_played_in_order(Game, seed):
    g, played = _random_game(Game, seed, 40)
    assert g.moves == played and g.history == played
    assert all(isinstance(m, Move) for m in g.moves)
    assert g.last_move == played[-1]
    assert len(g.moves) == g.turn + sum(1 for m in played if m.kind == "trade")  # a trade is not a turn (R5)


def test_history_is_a_new_list_each_time(Game):
    g, _ = _random_game(Game, 4, 5)
    g.moves.clear()
    g.history.clear()
    assert len(g.moves) == 5 and len(g.history) == 5


def test_undo_returns_the_move_it_took_back(Game):
    g, played = _random_game(Game, 5, 30)
    states = []
    replay = Game(players=2, seed=5)
    for m in played:
        states.append(replay.to_dict())
        replay.play(m)
    for k in range(len(played) - 1, -1, -1):
        assert g.undo() == played[k]
        assert g.moves == played[:k] and g.to_dict() == states[k]
    with pytest.raises(ValueError, match="nothing to undo"):
        g.undo()
    assert g.history == []


def test_r10_referee_calls_are_history_entries(Game):
    g = Game(players=4, seed=3)
    first = g.legal_moves()[0]
    g.play(first)
    mover = g.to_dict()["last_draw"]["player"]
    after_move = g.to_dict()
    g.missed_draw(mover)
    after_missed = g.to_dict()
    team = g.team_of(0)
    cards = {p: g.hand(p)[0] for p in range(4) if g.team_of(p) == team}
    g.table_talk_penalty(team, cards)
    penalty = TableTalkPenalty(team, cards)
    assert g.history == [first, MissedDraw(mover), penalty]
    assert g.moves == [first] and g.last_move == first  # referee calls are not moves
    assert [str(e) for e in g.history[1:]] == [
        f"missed-draw {mover}", f"table-talk {team} " + " ".join(f"{p}:{c}" for p, c in sorted(cards.items()))]
    assert penalty.cards_by_player == cards
    assert g.undo() == penalty and g.to_dict() == after_missed
    assert g.undo() == MissedDraw(mover) and g.to_dict() == after_move
    assert g.history == [first]


def test_r10_history_of_referee_calls_agrees_between_core_and_reference():
    import sequence_game
    from sequence_game import reference

    games = [cls(players=4, seed=11) for cls in (sequence_game.Game, reference.Game)]
    for g in games:
        for _ in range(6):
            g.play(g.legal_moves()[-1] if g.legal_moves()[-1].kind != "pass" else g.legal_moves()[0])
        last = g.to_dict()["last_draw"]
        g.missed_draw(last["player"])
        team = 1
        g.table_talk_penalty(team, {p: g.hand(p)[-1] for p in (1, 3)})
    assert games[0].history == games[1].history
    assert [str(e) for e in games[0].history] == [str(e) for e in games[1].history]
    assert games[0].undo() == games[1].undo()
    assert games[0].to_dict() == games[1].to_dict()


def test_copies_carry_their_own_history(Game):
    g, played = _random_game(Game, 6, 10)
    c = g.copy()
    assert c.history == played
    c.undo()
    assert g.history == played and c.history == played[:-1]


def test_a_loaded_game_starts_with_an_empty_history(Game):
    g, _ = _random_game(Game, 7, 10)
    loaded = Game.from_dict(g.to_dict())
    assert loaded.history == [] and loaded.last_move is None
    with pytest.raises(ValueError, match="played from its deal"):
        GameRecord.from_game(loaded)
    with pytest.raises(ValueError, match="played from its deal"):
        GameRecord.from_game(loaded.copy())


def test_record_from_game_replays_to_the_same_game(Game):
    g, _ = _random_game(Game, 8, 25, players=4)
    g.missed_draw(g.to_dict()["last_draw"]["player"])
    rec = GameRecord.from_game(g, agents=["a", "b", "c", "d"])
    assert rec.moves == [str(e) for e in g.history] and rec.result is None
    assert (rec.players, rec.teams, rec.seed, rec.max_turns) == (g.players, g.teams, g.seed, g.max_turns)
    again = GameRecord.from_json(rec.to_json()).replay(type(g))
    assert again.to_dict() == g.to_dict() and again.history == g.history
    steps = list(rec.positions(type(g)))
    assert [s.move for s in steps[1:]] == g.history


def test_record_from_game_of_a_finished_game_has_its_result(Game):
    g, _ = _random_game(Game, 9, 10_000)
    assert g.is_over
    rec = GameRecord.from_game(g)
    assert rec.result == {"winner": g.winner, "is_draw": g.is_draw, "turns": g.turn}
    assert rec.replay(type(g)).to_dict() == g.to_dict()


def test_record_from_game_checks_the_agent_names(Game):
    g = Game(players=2, seed=1)
    with pytest.raises(ValueError, match="one per seat"):
        GameRecord.from_game(g, agents=["only one"])


def test_play_game_record_is_the_games_history(Game):
    from sequence_game.agents import RandomAgent

    seen = []
    rec = play_game([RandomAgent(seed=1), RandomAgent(seed=2)], seed=3, game_class=Game,
                    on_move=lambda game, move, player: seen.append(game))
    assert rec.moves == [str(m) for m in seen[-1].history]
    assert rec.started is not None and rec.finished is not None and rec.agents == ["random:seed=1", "random:seed=2"]


@pytest.mark.parametrize("text, entry", [
    ("missed-draw 3", MissedDraw(3)),
    ("table-talk 1 3:9s 1:10h", TableTalkPenalty(1, {1: "TH", 3: "9S"})),
    ("7H@d6", Move("place", "7H", (5, 3))),
    ("pass", Move("pass")),
])
def test_history_entry_text_round_trips(text, entry):
    assert parse_history_entry(text) == entry
    assert parse_history_entry(str(entry)) == entry


@pytest.mark.parametrize("text", ["missed-draw", "missed-draw x", "missed-draw -1", "table-talk 0",
                                  "table-talk 0 1-7H", "table-talk 0 1:ZZ", "table-talk 0 1:7H 1:8H", "hello"])
def test_malformed_history_entry_text_is_a_value_error(text):
    with pytest.raises(ValueError):
        parse_history_entry(text)


def test_replay_entry_refuses_an_illegal_referee_call_and_leaves_the_game(Game):
    g = Game(players=2, seed=1)
    before = g.to_dict()
    with pytest.raises(ValueError):
        replay_entry(g, MissedDraw(1))
    assert g.to_dict() == before and g.history == []


# --------------------------------------------------------------------------- current_player once over


def test_r8_once_won_current_player_is_the_winner_who_played_last(Game, position):
    row6, row8 = line((5, 0), (0, 1)), line((7, 0), (0, 1))
    g = position(board=board_rows(G=row6 + row8[:4]), hands=[["9C"], ["KC", "QS"]], current_player=1,
                 sequences=[{"team": 1, "cells": [list(c) for c in seq(row6)]}])
    g.play("KC@e8")
    assert g.winner == 1 and g.current_player == 1


def test_r5_once_stalemated_current_player_made_the_last_pass(Game, position):
    g = position(players=3, hands=[["JH"], ["JS"], ["JH"]])
    for _ in range(3):
        g.play("pass")
    assert g.is_draw and g.current_player == 2 and g.last_move == Move("pass")


def test_turn_cap_current_player_made_the_last_move(Game):
    g = Game(players=3, seed=2, max_turns=4)
    movers = []
    while not g.is_over:
        movers.append(g.current_player)
        g.play(g.legal_moves()[-1])
    assert g.is_draw and g.turn == 4 and g.current_player == movers[-1]


def test_repr_svg_outlines_the_last_move_of_the_history(Game):
    import xml.etree.ElementTree as ET

    def marks(game):
        return [e for e in ET.fromstring(game._repr_svg_()).iter() if e.get("class") == "last-move"]

    g = Game(players=2, seed=1)
    assert marks(g) == []
    move = next(m for m in g.legal_moves() if m.kind == "place")
    g.play(move)
    g.missed_draw(g.to_dict()["last_draw"]["player"])  # a referee call does not hide the last move
    (mark,) = marks(g)
    assert ET.tostring(mark) == ET.tostring(marks_for(g, move)[0])


def marks_for(game, move):
    import xml.etree.ElementTree as ET

    from sequence_game.svg import board_svg

    return [e for e in ET.fromstring(board_svg(game, last_move=move)).iter() if e.get("class") == "last-move"]
