"""Agents: RandomAgent, GreedyAgent, agent_from_spec (python/sequence_game/agents/).

Run against the pure-Python reference and, when it is built, the compiled core.
"""

from __future__ import annotations

import random

import pytest
from helpers import random_midgame
from sequence_game import Move, cells_of
from sequence_game.agents import Agent, GreedyAgent, RandomAgent, agent_from_spec, agent_name

# (players, teams) for every valid split (R2)
SPLITS = [(2, None), (3, None), (4, None), (6, 2), (6, 3), (8, None), (9, None), (10, None), (12, 2), (12, 3)]


def board_with(chips: dict) -> list:
    """Ten row strings: corners '*', empty '.', and ``chips`` {(r, c): 'B'/'G'/'R'}."""
    rows = []
    for r in range(10):
        row = ""
        for c in range(10):
            if (r, c) in ((0, 0), (0, 9), (9, 0), (9, 9)):
                row += "*"
            else:
                row += chips.get((r, c), ".")
        rows.append(row)
    return rows


def random_positions(Game, players, teams, count, seed):
    """Positions reached by random play from several deals, at varied depths."""
    games = (random_midgame(Game, players, teams, seed=seed * 1000 + k) for k in range(count))
    return [g for g in games if g is not None]


# --------------------------------------------------------------------------- legality, determinism


@pytest.mark.parametrize("players,teams", SPLITS)
def test_agents_return_legal_moves_for_every_player_count(Game, players, teams):
    for g in random_positions(Game, players, teams, 6, seed=players * 10 + (teams or 0)):
        legal = g.legal_moves()
        before = g.to_dict()
        for agent in (RandomAgent(seed=1), GreedyAgent(seed=1)):
            move = agent.select_move(g)
            assert isinstance(move, Move)
            assert move in legal, (agent, str(move))
        assert g.to_dict() == before  # agents do not change the game


@pytest.mark.parametrize("players,teams", [(2, None), (3, None), (4, None), (6, 3), (12, 2)])
def test_greedy_plays_whole_games(Game, players, teams):
    for seed in range(2):
        g = Game(players=players, teams=teams, seed=seed, max_turns=400)
        agent = GreedyAgent(seed=seed)
        while not g.is_over:
            move = agent.select_move(g)
            g.play(move)  # raises if illegal
        assert g.is_over


def test_agents_refuse_a_finished_game(Game):
    g = Game.from_dict({"players": 3, "board": board_with({(0, c): "B" for c in range(1, 5)}),
                        "sequences": [{"team": 0, "cells": [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]}],
                        "hands": [["2S"], ["3S"], ["4C"]]})
    assert g.is_over
    for agent in (RandomAgent(), GreedyAgent()):
        with pytest.raises(ValueError, match="over"):
            agent.select_move(g)


def test_same_seed_same_move(Game):
    positions = random_positions(Game, 2, None, 8, seed=3) + random_positions(Game, 4, None, 4, seed=4)
    for g in positions:
        for cls in (RandomAgent, GreedyAgent):
            a, b = cls(seed=11), cls(seed=11)
            assert [a.select_move(g) for _ in range(3)] == [b.select_move(g) for _ in range(3)]


def test_random_agent_is_uniform_over_legal_moves(Game):
    g = Game(players=2, seed=1)
    legal = g.legal_moves()
    agent = RandomAgent(seed=0)
    seen = {agent.select_move(g) for _ in range(50 * len(legal))}
    assert seen == set(legal)


def test_a_lone_pass_is_returned(Game):
    # Player 0 holds only a card whose cells are covered and already traded this turn: pass (R5).
    chips = dict.fromkeys(cells_of("7H"), "G")
    g = Game.from_dict({"players": 2, "board": board_with(chips), "hands": [["7H"], ["2S"]],
                        "traded_this_turn": True})
    assert g.legal_moves() == [Move("pass")]
    assert GreedyAgent().select_move(g) == Move("pass")
    assert RandomAgent().select_move(g) == Move("pass")


# --------------------------------------------------------------------------- greedy tactics


def test_greedy_takes_an_immediate_win(Game):
    # Team 0 already has one sequence (row 10); 5S on e1 completes a1-e1, the second one (R8).
    # A block (2H on e6 against green's four) and a two-eyed jack are on offer as distractions.
    chips = {(9, c): "B" for c in range(1, 5)}
    chips.update({(0, c): "B" for c in range(1, 4)})
    chips.update({(5, c): "G" for c in range(4)})
    g = Game.from_dict({
        "players": 2,
        "board": board_with(chips),
        "sequences": [{"team": 0, "cells": [[9, 0], [9, 1], [9, 2], [9, 3], [9, 4]]}],
        "hands": [["2H", "3C", "5S", "9D", "JD", "KS", "AH"], ["2S", "3S", "4S", "6S", "7S", "8S", "9S"]],
    })
    move = GreedyAgent(seed=0).select_move(g)
    assert (move.card, move.cell) == ("5S", (0, 4))
    assert move.declares
    g.play(move)
    assert g.winner == 0


def test_greedy_completes_a_sequence_with_a_two_eyed_jack(Game):
    chips = {(3, c): "B" for c in range(2, 6)}  # c4..f4 blue; g4 (2C) and b4 (KS) open
    g = Game.from_dict({"players": 3, "board": board_with(chips),
                        "hands": [["2S", "3S", "4D", "5D", "9H", "JC"], ["6S"], ["7S"]]})
    move = GreedyAgent(seed=0).select_move(g)
    assert move.card == "JC" and move.cell in ((3, 1), (3, 6)) and move.declares


def test_greedy_keeps_its_two_eyed_jack_for_an_ordinary_move(Game):
    chips = {(2, 2): "B"}
    g = Game.from_dict({"players": 2, "board": board_with(chips),
                        "hands": [["2S", "3D", "4D", "6H", "8C", "JD", "KS"], ["2H"]]})
    for seed in range(5):
        assert GreedyAgent(seed=seed).select_move(g).card != "JD"


@pytest.mark.parametrize("green_sequences", [0, 1])
def test_greedy_blocks_a_four_in_a_row(Game, green_sequences):
    # Green holds a6-d6; e6 (2H) is the gap. Blue has 2H among tempting cards of its own.
    chips = {(5, c): "G" for c in range(4)}
    chips.update({(2, c): "B" for c in range(1, 4)})  # blue b3-d3, e3 (4D) extends it to four
    seqs = []
    if green_sequences:
        chips.update({(9, c): "G" for c in range(1, 5)})
        seqs = [{"team": 1, "cells": [[9, 0], [9, 1], [9, 2], [9, 3], [9, 4]]}]
    g = Game.from_dict({"players": 2, "board": board_with(chips), "sequences": seqs,
                        "hands": [["2H", "4D", "5D", "9H", "KS", "QC", "AH"], ["2S"]]})
    move = GreedyAgent(seed=0).select_move(g)
    assert move == Move("place", "2H", (5, 4))


def test_greedy_removes_a_chip_of_a_four_with_a_one_eyed_jack(Game):
    chips = {(5, c): "G" for c in range(4)}
    chips[(7, 5)] = "G"  # a lone green chip: not worth a jack
    g = Game.from_dict({"players": 2, "board": board_with(chips),
                        "hands": [["3S", "4D", "5D", "9H", "JS", "KS", "AH"], ["2S"]]})
    move = GreedyAgent(seed=0).select_move(g)
    assert move.kind == "remove" and move.cell in [(5, c) for c in range(4)]


def test_greedy_keeps_its_one_eyed_jack_when_nothing_is_dangerous(Game):
    chips = {(7, 5): "G", (2, 2): "G"}
    g = Game.from_dict({"players": 2, "board": board_with(chips),
                        "hands": [["3S", "4D", "5D", "9H", "JS", "KS", "AH"], ["2S"]]})
    for seed in range(5):
        assert GreedyAgent(seed=seed).select_move(g).kind == "place"


def test_greedy_never_removes_a_locked_chip(Game):
    # Green's row-6 line is a completed sequence (locked): only the loose chip can go.
    chips = {(5, c): "G" for c in range(5)}
    chips[(6, 6)] = "G"
    g = Game.from_dict({"players": 2, "board": board_with(chips),
                        "sequences": [{"team": 1, "cells": [[5, 0], [5, 1], [5, 2], [5, 3], [5, 4]]}],
                        "hands": [["JH"], ["2S"]]})
    assert GreedyAgent().select_move(g) == Move("remove", "JH", (6, 6))


def test_greedy_trades_a_dead_card(Game):
    chips = dict.fromkeys(cells_of("7H"), "G")
    g = Game.from_dict({"players": 2, "board": board_with(chips),
                        "hands": [["2S", "3S", "7H", "9D", "JD", "KS", "AH"], ["2H"]]})
    assert GreedyAgent(seed=0).select_move(g) == Move("trade", "7H")


def test_greedy_ignores_hidden_information(Game):
    """Other hands, the draw pile's order and the generator state do not change its choice (R9)."""
    rng = random.Random(5)
    for g in random_positions(Game, 2, None, 6, seed=8) + random_positions(Game, 4, None, 4, seed=9):
        d = g.to_dict()
        me = d["current_player"]
        choice = GreedyAgent(seed=3).select_move(g)
        for _ in range(4):
            e = dict(d)
            pool = [c for p, h in enumerate(d["hands"]) if p != me for c in h] + list(d["draw_pile"])
            rng.shuffle(pool)
            hands, k = [], 0
            for p, h in enumerate(d["hands"]):
                if p == me:
                    hands.append(list(h))
                else:
                    hands.append(pool[k:k + len(h)])
                    k += len(h)
            e["hands"], e["draw_pile"] = hands, pool[k:]
            e["rng"] = f"{rng.getrandbits(64):016x}"
            e["last_draw"] = None
            assert GreedyAgent(seed=3).select_move(Game.from_dict(e)) == choice


def test_greedy_beats_random(Game):
    from sequence_game.arena import match

    result = match([lambda: GreedyAgent(), lambda: RandomAgent()], games=20, seed=1, game_class=Game)
    assert result.wins[0] >= 14, str(result)


# --------------------------------------------------------------------------- specs and the protocol


def test_agent_protocol_and_names():
    assert isinstance(RandomAgent(), Agent) and isinstance(GreedyAgent(), Agent)
    assert agent_name(GreedyAgent()) == "greedy"
    assert agent_name(RandomAgent(seed=4)) == "random:seed=4"

    class Bare:
        def select_move(self, game):
            return game.legal_moves()[0]

    assert isinstance(Bare(), Agent)
    assert agent_name(Bare()) == "Bare"


def test_agent_from_spec():
    a = agent_from_spec("random")
    assert isinstance(a, RandomAgent) and a.seed is None and a.name == "random"
    a = agent_from_spec("Random:seed=3")
    assert isinstance(a, RandomAgent) and a.seed == 3 and a.name == "random:seed=3"
    g = agent_from_spec(" greedy : seed = 7 ")
    assert isinstance(g, GreedyAgent) and g.seed == 7
    # defaults fill what the spec leaves out, without changing the displayed name
    d = agent_from_spec("greedy", seed=9)
    assert d.seed == 9 and d.name == "greedy"
    assert agent_from_spec("greedy:seed=1", seed=9).seed == 1


@pytest.mark.parametrize("spec,words", [
    ("alphazero", "unknown agent"),
    ("greedy:depth=3", "depth"),
    ("random:seed", "key=value"),
    ("", "unknown agent"),
])
def test_agent_from_spec_refuses_bad_specs(spec, words):
    with pytest.raises(ValueError, match=words):
        agent_from_spec(spec)


def test_agent_from_spec_mcts():
    try:
        from sequence_game.agents import MCTSAgent  # noqa: F401
    except ImportError:
        with pytest.raises(ValueError, match="MCTS agent is not available"):
            agent_from_spec("mcts:time=0.5")
        return
    a = agent_from_spec("mcts:iterations=50,threads=1,seed=2")
    assert a.name == "mcts:iterations=50,threads=1,seed=2"
    from sequence_game.reference import Game

    g = Game(players=2, seed=1)
    assert a.select_move(g) in g.legal_moves()


@pytest.mark.parametrize("cls", [RandomAgent, GreedyAgent])
@pytest.mark.parametrize("seed, error", [("abc", TypeError), (1.5, TypeError), (True, TypeError), ([1], TypeError),
                                         (-5, ValueError), (2**64, ValueError), (-(2**70), ValueError)])
def test_simple_agents_refuse_bad_seeds(cls, seed, error):
    """A seed is None or an int from 0 to 2**64 - 1, the same check as every seeded API (docs/rng.md)."""
    with pytest.raises(error, match="seed"):
        cls(seed=seed)
    assert cls(seed=2**64 - 1).seed == 2**64 - 1
    assert cls(seed=None).seed is None


def test_agents_subpackage_exports():
    """The agents live in one subpackage; AgentMoveError is one of the package's exceptions."""
    import sequence_game.agents as agents
    from sequence_game import errors, records

    assert agents.AgentMoveError is errors.AgentMoveError is records.AgentMoveError
    assert issubclass(agents.AgentMoveError, ValueError)
    for name in ("MCTSAgent", "RolloutAgent", "GreedyAgent", "RandomAgent", "SearchOptions", "agent_from_spec",
                 "register_agent"):
        assert name in agents.__all__ and getattr(agents, name) is not None
    assert agents.MCTSAgent.__module__ == "sequence_game.agents.mcts"
    assert agents.RolloutAgent.__module__ == "sequence_game.agents.rollout"


_HUGE = [10**400, -(10**400), 10**5000, 2**1024, float("inf"), float("nan"), 1e300, -1e300]


_HUGE_IDS = ["1e400", "-1e400", "1e5000", "2**1024", "inf", "nan", "1e300", "-1e300"]


@pytest.mark.parametrize("value", _HUGE, ids=_HUGE_IDS)
@pytest.mark.parametrize("agent, option", [
    ("mcts", "time_limit"), ("mcts", "exploration"), ("mcts", "playout_block"), ("mcts", "playout_two_eyed_cost"),
    ("mcts", "playout_one_eyed_cost"),
    ("rollout", "time_limit"), ("rollout", "epsilon"),
])
def test_float_options_refuse_absurd_values_at_construction(agent, option, value):
    """Huge ints never raise OverflowError and absurd finite values are refused when the agent is
    built (not at select_move), with the option's bounds in the message."""
    from sequence_game.agents import MCTSAgent, RolloutAgent

    with pytest.raises(ValueError, match=rf"{option} must be .*(from|at most) "):
        if agent == "rollout" or option == "time_limit":
            (MCTSAgent if agent == "mcts" else RolloutAgent)(**{option: value})
        else:
            MCTSAgent(options={option: value})


@pytest.mark.parametrize("index", range(8))
@pytest.mark.parametrize("value", _HUGE, ids=_HUGE_IDS)
def test_evaluation_weights_refuse_absurd_values(index, value):
    from sequence_game.agents import MCTSAgent
    from sequence_game.agents.mcts import DEFAULT_WEIGHTS

    weights = list(DEFAULT_WEIGHTS)
    weights[index] = value
    with pytest.raises(ValueError, match="must be from"):
        MCTSAgent(options={"weights": weights})


@pytest.mark.parametrize("spec", [
    pytest.param(s, id=s if len(s) < 40 else s[:30] + f"...{len(s)}") for s in [
    "mcts:time=" + "9" * 400, "mcts:exploration=" + "9" * 400, "mcts:exploration=1e999",
    "mcts:iters=" + "9" * 30, "mcts:iters=" + "9" * 5000, "mcts:threads=" + "9" * 40,
    "mcts:max_nodes=" + "9" * 40, "mcts:seed=" + "9" * 40, "mcts:playout_turns=" + "9" * 40,
    "rollout:candidates=" + "9" * 40, "rollout:horizon=" + "9" * 40, "rollout:epsilon=1e400",
    "random:seed=" + "9" * 40, "greedy:seed=-" + "9" * 40, "mcts:weights=" + "9" * 40,
]])
def test_agent_specs_with_overflowing_numbers_give_one_line_value_errors(spec):
    """Overflowing numbers in a spec (as the command line and the arena take them) are refused
    with a short one-line ValueError naming the spec, never an OverflowError or a traceback."""
    with pytest.raises(ValueError) as err:
        agent_from_spec(spec)
    message = str(err.value)
    assert "\n" not in message and len(message) < 400 and message.startswith("agent spec"), message


def test_search_options_are_values():
    """The search parameters are one named value (checked once, in the core), not positional args."""
    from sequence_game import _core
    from sequence_game.agents import MCTSAgent, RolloutAgent

    a = MCTSAgent(iterations=50, options={"exploration": 0.5, "decisive": False})
    assert isinstance(a.options, _core.SearchOptions)
    assert a.options == _core.SearchOptions(iterations=50, exploration=0.5, decisive=False)
    assert a.options.decisive is False and a.exploration == 0.5
    with pytest.raises(ValueError, match="exploration must be from 0 to 1000"):
        a.options.exploration = 5000
    assert a.options.exploration == 0.5  # a refused assignment changes nothing
    with pytest.raises(TypeError, match="unexpected keyword"):
        _core.SearchOptions(explore=1)
    r = RolloutAgent(iterations=10, candidates=3)
    assert isinstance(r.options, _core.RolloutOptions) and r.candidates == 3 and r.time_limit is None
    assert RolloutAgent().time_limit == 1.0 and RolloutAgent().iterations is None


# --------------------------------------------------------------------------- what an app passes by mistake

AGENT_SPECS = ["random", "rules", "level:1", "easy", "medium", "hard:iters=50", "rollout:iters=20", "net",
               "net-search:iters=20"]


@pytest.mark.parametrize("spec", AGENT_SPECS)
@pytest.mark.parametrize("wrong", ["7H@d6", Move.parse("7H@d6"), None, 3, {"players": 2}])
def test_an_agent_given_a_move_or_anything_but_a_game_says_so(spec, wrong):
    import asyncio

    agent = agent_from_spec(spec)
    calls = {"select_move": agent.select_move, "analyze": agent.analyze, "analysis": agent.analysis}
    for name, call in calls.items():
        with pytest.raises(TypeError) as e:
            call(wrong)
        text = str(e.value)
        assert text.startswith(f"{name} takes the game") and type(wrong).__name__ in text and "\n" not in text
        if isinstance(wrong, (str, Move)):
            assert "game.play(move)" in text
    for name, coro in (("select_move_async", agent.select_move_async), ("analyze_async", agent.analyze_async)):
        with pytest.raises(TypeError, match=f"^{name} takes the game"):
            asyncio.run(coro(wrong))


def test_a_policy_agent_given_a_move_says_so():
    import numpy as np
    from sequence_game.agents import PolicyAgent

    with pytest.raises(TypeError, match=r"select_move takes the game .* not str '7H@d6'"):
        PolicyAgent(lambda obs, mask: int(np.flatnonzero(mask)[0])).select_move("7H@d6")


@pytest.mark.parametrize("spec", AGENT_SPECS)
def test_an_agent_asked_to_move_in_a_finished_game_says_the_result(spec, Game):
    from sequence_game import play_game

    won = play_game(["greedy"], seed=4, game_class=Game).replay(Game)
    team = won.winner
    drawn = play_game(["random"], seed=4, max_turns=3, game_class=Game).replay(Game)
    assert team is not None and drawn.is_draw
    agent = agent_from_spec(spec)
    names = ("blue", "green", "red")
    for call, what in ((agent.select_move, "select"), (agent.analyze, "analyze")):
        with pytest.raises(ValueError) as e:
            call(won)
        assert str(e.value) == f"the game is over: team {team} ({names[team]}) won; there is no move to {what}"
        with pytest.raises(ValueError, match=f"the game is over: it is a draw; there is no move to {what}"):
            call(drawn)
