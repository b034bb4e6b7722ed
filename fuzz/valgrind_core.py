"""A short run over the compiled core's Python paths, for valgrind memcheck (docs/hardening.md):

    PYTHONMALLOC=malloc valgrind --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite \\
        python fuzz/valgrind_core.py

A few hundred moves on games of several splits, undo, copy, to_dict/from_dict, refused moves,
referee calls, malformed Game.from_position dicts and (when built) a short search and simulate.
"""

import random

from sequence_game import Game, _core

rng = random.Random(1)
moves = 0
for players, teams in ((2, 2), (3, 3), (6, 3), (12, 2)):
    g = Game(players=players, teams=teams, seed=players)
    while not g.is_over and moves < 400 * (players + 1):
        legal = g.legal_moves()
        g.play(rng.choice(legal))
        moves += 1
        if rng.random() < 0.1:
            g.undo()
        if rng.random() < 0.05:
            c = g.copy()
            d = c.to_dict()
            assert Game.from_dict(d).to_dict() == d
        if rng.random() < 0.05:
            for bad in ("nonsense", "JD@a1", 42, None, "pass"):
                try:
                    g.play(bad)
                except (ValueError, TypeError):
                    pass
        if rng.random() < 0.02:
            last = g.to_dict()["last_draw"]
            try:
                g.missed_draw(last["player"] if last else 0)
            except ValueError:
                pass
    _ = (g.board, g.sequences, str(g), g.observation(0))
pos = Game(players=4, seed=3)._state.to_position()
for key, value in (("players", 99), ("board", [0] * 100), ("hands", [[99]] * 4), ("rng", -1), ("draw_pile", [1] * 5000)):
    d = dict(pos)
    d[key] = value
    try:
        _core.Game.from_position(d)
    except (ValueError, TypeError):
        pass
try:
    from sequence_game.agents import MCTSAgent
    from sequence_game.simulate import simulate

    MCTSAgent(iterations=200, threads=2, seed=1).select_move(Game(players=2, seed=9))
    simulate(20, players=2, seed=1, threads=2)
    search = "search+simulate"
except ImportError:
    search = "no search module"
print(f"valgrind run: {moves} moves, {search}")
