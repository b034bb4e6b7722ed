"""The surface an app embeds around one AI decision (python/sequence_game/agents/control.py,
docs/api.md "Agents"): a per-call ``Limit``, the awaitable forms with cancellation, ``stop()``
(the best move so far), and one hint API (``analyze``) on every agent that never advances the
agent's own generator. Ends with an app written as docs/api.md shows: an asyncio program that plays
whole games against every preset while asking for hints."""

from __future__ import annotations

import asyncio
import dataclasses
import math
import threading
import time

import pytest
import sequence_game
from sequence_game.agents import (
    GreedyAgent,
    Limit,
    MCTSAgent,
    RandomAgent,
    RolloutAgent,
    SearchResult,
    agent_from_spec,
)
from sequence_game.agents.presets import DIFFICULTIES, PRESETS

LONG = Limit(time=60, iterations=10**15)  # a budget no test waits for: only stop() or a cancel ends it


def _midgame(seed=3, plies=6):
    g = sequence_game.Game(players=2, seed=seed)
    for _ in range(plies):
        g.play(GreedyAgent(seed=0).select_move(g))
    return g


# --------------------------------------------------------------------------- Limit


def test_limit_is_a_small_immutable_value():
    lim = Limit(time=1, iterations=500)
    assert (lim.time, lim.iterations) == (1.0, 500) and isinstance(lim.time, float)
    assert lim == Limit(time=1.0, iterations=500) and hash(lim) == hash(Limit(time=1.0, iterations=500))
    with pytest.raises(AttributeError):
        lim.time = 2  # type: ignore[misc]


@pytest.mark.parametrize("kwargs, exc, words", [
    ({}, ValueError, ["time", "iterations"]),
    ({"time": 0}, ValueError, ["time", "> 0"]),
    ({"time": float("nan")}, ValueError, ["time"]),
    ({"time": 2e6}, ValueError, ["at most"]),
    ({"time": "1"}, TypeError, ["time", "str"]),
    ({"time": True}, TypeError, ["time"]),
    ({"iterations": 0}, ValueError, ["iterations", "from 1 to 2**62"]),
    ({"iterations": 2**62 + 1}, ValueError, ["iterations", "from 1 to 2**62"]),
    ({"iterations": 1.5}, TypeError, ["iterations", "float"]),
])
def test_limit_refuses_bad_budgets_naming_the_field(kwargs, exc, words):
    with pytest.raises(exc) as e:
        Limit(**kwargs)
    for w in words:
        assert w in str(e.value)


@pytest.mark.parametrize("spec", ["random", "easy", "medium", "hard", "rollout:iters=50"])
def test_a_limit_that_is_not_a_limit_is_a_type_error(spec):
    g = _midgame()
    agent = agent_from_spec(spec)
    for call in (agent.select_move, agent.analyze):
        with pytest.raises(TypeError, match="Limit"):
            call(g, limit=0.5)


def test_a_limit_changes_the_budget_for_one_call_only():
    g = _midgame()
    agent = MCTSAgent(iterations=700, seed=1)
    before = repr(agent.options)
    assert agent.analyze(g, limit=Limit(iterations=150)).iterations == 150
    assert agent.analyze(g, limit=Limit(iterations=1500)).iterations == 1500  # a field given replaces
    assert agent.analyze(g).iterations == 700  # the agent's own budget is still the default
    assert repr(agent.options) == before
    hard = agent_from_spec("hard", seed=2)
    r = hard.analyze(g, limit=Limit(time=0.05, iterations=10**15))
    assert not r.interrupted and r.seconds < 2.0
    assert hard.options.iterations == PRESETS["hard"].options["iterations"]
    rollout = RolloutAgent(iterations=400, seed=1)
    assert rollout.analyze(g, limit=Limit(iterations=96)).iterations == 96


def test_a_limit_keeps_every_cap_it_does_not_name():
    """Limit(iterations=10**12) on hard keeps hard's time cap; Limit(time=...) keeps hard's
    iterations; a cap goes only when the limit names it (time=math.inf)."""
    import math

    hard = agent_from_spec("hard", seed=2)
    cap, iterations = PRESETS["hard"].time_cap, PRESETS["hard"].options["iterations"]
    kept = hard._options_for(Limit(iterations=10**12))
    assert (kept.time_limit, kept.iterations) == (cap, 10**12)
    kept = hard._options_for(Limit(time=30))
    assert (kept.time_limit, kept.iterations) == (30, iterations)
    lifted = hard._options_for(Limit(iterations=10**12, time=math.inf))
    assert (lifted.time_limit, lifted.iterations) == (None, 10**12)
    g = _midgame()
    assert hard.analyze(g, limit=Limit(time=30)).iterations == iterations  # stopped by the kept cap
    with pytest.raises(ValueError, match="no iteration budget"):
        MCTSAgent(time_limit=1).analyze(g, limit=Limit(time=math.inf))
    assert Limit(time=math.inf).time == math.inf
    with pytest.raises(ValueError, match=r"math\.inf"):
        Limit(time=-math.inf)
    # the kept cap ends a search with a huge iteration limit: a short cap stands in for hard's 5 s
    start = time.perf_counter()
    r = agent_from_spec("hard:time=0.2", seed=1).analyze(g, limit=Limit(iterations=10**12))
    assert r.seconds < 1.0 and time.perf_counter() - start < 5 and not r.interrupted
    streamed = list(agent_from_spec("hard:time=0.2", seed=1).analysis(g, limit=Limit(iterations=10**12), every=0.1))
    assert streamed[-1].seconds < 1.0 and not streamed[-1].interrupted


def test_a_stop_token_ends_one_call_and_not_the_agents_others():
    """A shared agent, two sessions: the "move now" of one ends its own search only."""
    from sequence_game.agents import StopToken

    g = _midgame()
    agent = MCTSAgent(seed=1)
    mine, theirs = StopToken(), StopToken()
    out = {}
    workers = [threading.Thread(target=lambda k=k, t=t: out.setdefault(k, agent.analyze(g, limit=LONG, stop=t)))
               for k, t in (("mine", mine), ("theirs", theirs))]
    for w in workers:
        w.start()
    time.sleep(0.3)
    mine.set()
    workers[0].join(timeout=30)
    assert not workers[0].is_alive() and out["mine"].interrupted
    time.sleep(0.2)
    assert workers[1].is_alive() and "theirs" not in out  # the other session's search goes on
    theirs.set()
    workers[1].join(timeout=30)
    assert out["theirs"].interrupted and out["theirs"].iterations > out["mine"].iterations / 2
    assert repr(mine) == "StopToken(set)"

    async def app():
        token = StopToken()
        task = asyncio.create_task(agent.select_move_async(g, limit=LONG, stop=token))
        await asyncio.sleep(0.2)
        token.set()
        return await asyncio.wait_for(task, 30)

    assert asyncio.run(app()) in g.legal_moves()
    token = StopToken()
    threading.Timer(0.2, token.set).start()
    infos = list(agent.analysis(g, limit=LONG, every=30, stop=token))
    assert len(infos) == 1 and infos[0].interrupted
    for a in (agent, GreedyAgent(), RandomAgent()):
        with pytest.raises(TypeError, match="StopToken"):
            a.select_move(g, stop=threading.Event())
        assert a.select_move(g, limit=Limit(iterations=50), stop=StopToken()) in g.legal_moves()


def test_a_limit_gives_the_same_move_as_an_agent_built_with_that_budget():
    g = _midgame(seed=8)
    a = MCTSAgent(iterations=5000, seed=4)
    b = MCTSAgent(iterations=300, seed=4)
    assert a.select_move(g, limit=Limit(iterations=300)) == b.select_move(g)


# --------------------------------------------------------------------------- hints


@pytest.mark.parametrize("spec", ["random:seed=5", "easy:seed=5", "medium:seed=5", "mcts:iters=200,seed=5",
                                  "rollout:iters=64,seed=5"])
def test_a_hint_never_advances_the_agents_generator(spec):
    """Two agents with one seed play the same moves whether or not one of them gave hints first."""
    hinting, plain = agent_from_spec(spec), agent_from_spec(spec)
    g = sequence_game.Game(players=2, seed=11)
    for _ in range(8):
        result = hinting.analyze(g)
        assert isinstance(result, SearchResult) and result.move in g.legal_moves()
        assert {s.move for s in result.moves} <= set(g.legal_moves())
        move = hinting.select_move(g)
        assert move == plain.select_move(g)
        g.play(move)


def test_greedy_hint_ranks_the_scored_moves():
    g = _midgame(seed=5)
    greedy = agent_from_spec("greedy")
    r = greedy.analyze(g)
    scores = {m: s for s, m in greedy.score_moves(g)}
    assert [s.value for s in r.moves] == sorted((s.value for s in r.moves), reverse=True)
    assert {s.move: s.value for s in r.moves} == scores
    assert r.move == r.moves[0].move and scores[r.move] == max(scores.values())
    assert all(s.visits == 0 for s in r.moves) and r.iterations == 0 and r.nodes == 0


def test_greedy_hint_puts_a_dead_card_trade_first():
    """GreedyAgent always trades a dead card first (R5 step 1); its hint says so."""
    for seed in range(400):
        g = sequence_game.Game(players=2, seed=seed)
        for _ in range(60):
            if g.is_over:
                break
            moves = g.legal_moves()
            if any(m.kind == "trade" for m in moves):
                r = GreedyAgent().analyze(g)
                assert r.move.kind == "trade" and r.move == GreedyAgent(seed=1).select_move(g)
                return
            g.play(GreedyAgent(seed=seed).select_move(g))
    pytest.fail("no dead card in 400 games")  # pragma: no cover


def test_a_level_hint_is_its_own_move_weak_or_not():
    """A level's hint is the move that level would play (docs/agents.md): easy's hint is easy's
    own choice, so on some seeds it is not the heuristic's top move."""
    g = _midgame(seed=2, plies=4)
    top = agent_from_spec("greedy").analyze(g).move
    hints = []
    for s in range(40):
        hint = agent_from_spec(f"easy:seed={s}").analyze(g).move
        assert hint == agent_from_spec(f"easy:seed={s}").select_move(g)
        hints.append(hint)
    assert set(hints) - {top}  # a weak level's hint is a weak move


def test_random_hint_gives_every_move_the_same_chance():
    g = _midgame()
    r = RandomAgent(seed=1).analyze(g)
    assert [s.move for s in r.moves] == g.legal_moves() and r.move == g.legal_moves()[0]
    assert {s.value for s in r.moves} == {1 / len(g.legal_moves())}


@pytest.mark.parametrize("spec", ["random", "medium", "mcts:iters=50", "rollout:iters=20"])
def test_no_hint_once_the_game_is_over(spec):
    record = sequence_game.play_game(["greedy"], seed=4)
    g = record.replay()
    with pytest.raises(ValueError, match="over"):
        agent_from_spec(spec).analyze(g)


# --------------------------------------------------------------------------- streaming analysis


def test_analysis_streams_the_search_so_far_and_ends_with_its_budget():
    g = _midgame()
    infos = list(MCTSAgent(seed=1).analysis(g, limit=Limit(iterations=3000), every=1000))
    assert [i.iterations for i in infos] == [1000, 2000, 3000]
    for before, after in zip(infos, infos[1:]):
        assert after.seconds >= before.seconds and after.nodes > before.nodes
        assert {m.move: m.visits for m in after.moves}.keys() >= {m.move for m in before.moves if m.visits}
    last = infos[-1]
    assert not last.interrupted and last.move == last.moves[0].move and last.move in g.legal_moves()
    assert sum(m.visits for m in last.moves) == last.iterations  # each iteration visits one root move
    assert [m.visits for m in last.moves] == sorted((m.visits for m in last.moves), reverse=True)
    assert all(0.0 <= m.value <= 1.0 for m in last.moves)
    # a seeded agent's stream over an iteration budget is reproducible
    again = list(MCTSAgent(seed=1).analysis(g, limit=Limit(iterations=3000), every=1000))
    assert again == [dataclasses.replace(i, seconds=j.seconds) for i, j in zip(infos, again)]


def test_analysis_by_time_gives_an_info_about_every_slice():
    g = _midgame()
    start = time.perf_counter()
    infos = list(MCTSAgent(seed=2).analysis(g, limit=Limit(time=0.6, iterations=10**15), every=0.2))
    assert 3 <= len(infos) <= 4 and time.perf_counter() - start < 5
    assert infos[-1].seconds == pytest.approx(0.6, abs=0.15)
    assert [i.iterations for i in infos] == sorted(i.iterations for i in infos) and infos[0].iterations > 0
    default = list(MCTSAgent(seed=2, iterations=500).analysis(g))  # iterations alone: ten slices
    assert [i.iterations for i in default] == list(range(50, 501, 50))


def test_an_analysis_given_a_time_alone_searches_that_time_past_the_agents_iteration_budget():
    """An analysis pane asks for a time: ``analysis(limit=Limit(time=t))`` searches t seconds, the
    preset's iteration budget does not cut it short (as over HTTP); ``analyze`` and ``select_move``
    keep the agent's budget (a field the limit leaves None keeps the agent's)."""
    g = _midgame()
    budget = 400  # hard with a small budget: 400 iterations take milliseconds, 0.5 s far more
    agent = agent_from_spec(f"hard:iterations={budget}", seed=1)
    infos = list(agent.analysis(g, limit=Limit(time=0.5), every=0.25))
    assert infos[-1].iterations > 4 * budget and not infos[-1].interrupted, infos[-1]
    assert infos[-1].seconds == pytest.approx(0.5, abs=0.2)
    assert agent.analyze(g, limit=Limit(time=0.5)).iterations == budget  # the hint keeps the budget
    # the preset itself: past its 6,000 playouts (about 0.1 s on one core) in a generous 2 s
    hard = PRESETS["hard"].options["iterations"]
    assert list(agent_from_spec("hard", seed=1).analysis(g, limit=Limit(time=2), every=1))[-1].iterations > hard
    # a time with iterations keeps both (whichever comes first); no time cap keeps the agent's iterations
    # (320: whole deals of hard's eight candidates in each of the ten slices)
    assert list(agent.analysis(g, limit=Limit(time=5, iterations=320)))[-1].iterations == 320
    assert list(agent.analysis(g, limit=Limit(time=math.inf), every=100))[-1].iterations == budget


def test_analysis_stop_from_another_thread_ends_the_running_slice():
    g = _midgame()
    for stopper in ("analysis", "agent"):
        agent = MCTSAgent(seed=1)
        analysis = agent.analysis(g, limit=LONG, every=30)  # one slice would take 30 s
        target = analysis.stop if stopper == "analysis" else agent.stop
        threading.Timer(0.3, target).start()
        start = time.perf_counter()
        infos = list(analysis)
        assert time.perf_counter() - start < 10
        assert len(infos) == 1 and infos[0].interrupted and infos[0].iterations > 0 and analysis.done
        assert analysis.info is infos[-1] and not agent._running()


def test_analysis_break_and_with_leave_nothing_running():
    g = _midgame()
    agent = MCTSAgent(seed=1)
    analysis = agent.analysis(g, limit=LONG, every=0.05)
    for i, _info in enumerate(analysis):
        if i == 2:
            break
    assert not agent._running() and not analysis.done
    with agent.analysis(g, limit=LONG, every=0.05) as stream:
        first = next(stream)
    assert not first.interrupted and list(stream) == [] and stream.done and stream.info.interrupted
    analysis.stop()  # stopped between two slices: the stream ends, its last info says so
    assert list(analysis) == [] and analysis.info.interrupted


def test_analysis_as_an_async_iterator_keeps_the_loop_free_and_cancels():
    g = _midgame()
    agent = MCTSAgent(seed=1)

    async def app():
        ticks = 0

        async def tick():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticker = asyncio.create_task(tick())
        infos = [info async for info in agent.analysis(g, limit=Limit(time=0.4, iterations=10**15), every=0.1)]
        assert ticks >= 10  # the loop ran while the search did

        async def consume():
            async for _ in agent.analysis(g, limit=LONG, every=30):
                pass

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        ticker.cancel()
        for _ in range(600):  # the cancelled slice's search ends at its next iteration
            if not agent._running():
                return infos
            await asyncio.sleep(0.05)
        raise AssertionError("the cancelled analysis kept searching")

    infos = asyncio.run(app())
    assert 3 <= len(infos) <= 5 and infos[-1].move in g.legal_moves()


def test_analysis_of_the_rollout_search_and_of_agents_that_answer_at_once():
    g = _midgame()
    infos = list(RolloutAgent(iterations=400, seed=2).analysis(g, every=100))
    assert infos[-1].iterations == 400 and len(infos) >= 2
    values = [m.value for m in infos[-1].moves]
    assert values == sorted(values, reverse=True) and infos[-1].move == infos[-1].moves[0].move
    for agent in (GreedyAgent(seed=1), RandomAgent(seed=1)):
        (only,) = agent.analysis(g)
        assert only == dataclasses.replace(agent.analyze(g), seconds=only.seconds)


def test_analysis_copies_the_game_and_refuses_bad_arguments():
    g = _midgame()
    agent = MCTSAgent(seed=1)
    analysis = agent.analysis(g, limit=Limit(iterations=400), every=200)
    before = g.legal_moves()
    g.play(g.legal_moves()[0])  # the caller's game moves on; the analysis searches the copy
    assert all(info.move in before for info in analysis)
    for every, exc in [(0, ValueError), (-1, ValueError), (float("inf"), ValueError), ("0.1", TypeError),
                       (True, TypeError)]:
        with pytest.raises(exc, match="every"):
            agent.analysis(g, every=every)
    with pytest.raises(ValueError, match="whole number of iterations"):
        agent.analysis(g, limit=Limit(iterations=100), every=2.5)
    with pytest.raises(TypeError, match="Limit"):
        agent.analysis(g, limit=5)
    over = sequence_game.play_game(["greedy"], seed=4).replay()
    for a in (agent, GreedyAgent()):
        with pytest.raises(ValueError, match=r"the game is over: team \d \((blue|green)\) won"):
            a.analysis(over)


def test_analysis_iterated_from_two_threads_at_once_is_refused():
    g = _midgame()
    analysis = MCTSAgent(seed=1).analysis(g, limit=LONG, every=30)
    worker = threading.Thread(target=lambda: next(analysis))
    worker.start()
    time.sleep(0.2)
    with pytest.raises(RuntimeError, match="already running"):
        next(analysis)
    analysis.stop()
    worker.join(timeout=30)
    assert not worker.is_alive()


# --------------------------------------------------------------------------- stop and async


def test_stop_ends_a_search_with_its_best_move_so_far():
    g = _midgame()
    agent = MCTSAgent(seed=1)
    out = {}
    worker = threading.Thread(target=lambda: out.setdefault("r", agent.analyze(g, limit=LONG)))
    worker.start()
    time.sleep(0.3)
    agent.stop()
    worker.join(timeout=30)
    assert not worker.is_alive()
    r = out["r"]
    assert r.interrupted and r.iterations > 0 and r.move in g.legal_moves() and r.move == r.moves[0].move
    # a later search is not affected by the earlier stop
    assert not agent.analyze(g, limit=Limit(iterations=100)).interrupted


def test_stop_on_an_agent_that_answers_at_once_is_a_no_op():
    g = _midgame()
    for agent in (RandomAgent(seed=1), GreedyAgent(seed=1)):
        agent.stop()
        assert agent.select_move(g) in g.legal_moves()


def test_select_move_async_stop_returns_the_best_move_so_far():
    g = _midgame()
    agent = RolloutAgent(seed=3)

    async def app():
        task = asyncio.create_task(agent.select_move_async(g, limit=LONG))
        await asyncio.sleep(0.3)
        assert not task.done()  # the loop ran while the search held a worker thread
        agent.stop()
        return await asyncio.wait_for(task, 30)

    assert asyncio.run(app()) in g.legal_moves()


def test_cancelling_the_task_stops_its_search():
    g = _midgame()
    agent = MCTSAgent(seed=1)

    async def app():
        task = asyncio.create_task(agent.analyze_async(g, limit=LONG))
        await asyncio.sleep(0.2)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        for _ in range(600):  # the worker thread's search ends at its next iteration
            if not agent._running():
                return True
            await asyncio.sleep(0.05)
        return False

    assert asyncio.run(app())


def test_the_app_may_change_its_game_while_the_ai_thinks():
    """select_move_async searches a copy taken at the call: the caller's game is free meanwhile."""
    g = _midgame()
    agent = MCTSAgent(seed=1)
    expected = MCTSAgent(seed=1).select_move(g, limit=Limit(iterations=2000))

    async def app():
        task = asyncio.create_task(agent.select_move_async(g, limit=Limit(iterations=2000)))
        await asyncio.sleep(0)
        g.play(g.legal_moves()[0])
        g.undo()
        return await task

    assert asyncio.run(app()) == expected


def test_select_move_async_calls_a_subclass_own_select_move():
    """An app's subclass that overrides select_move (say, to play a book move) gets the same move
    from select_move_async, with the limit passed on only when the caller gave one."""
    from sequence_game.agents import GreedyAgent

    calls = []

    class LastMove(GreedyAgent):
        def select_move(self, game, limit=None):
            calls.append(limit)
            return game.legal_moves()[-1]

    g = _midgame()
    agent = LastMove(seed=1)
    assert asyncio.run(agent.select_move_async(g)) == g.legal_moves()[-1]
    assert asyncio.run(agent.select_move_async(g, limit=Limit(iterations=5))) == g.legal_moves()[-1]
    assert calls == [None, Limit(iterations=5)]
    assert asyncio.run(GreedyAgent(seed=1).select_move_async(g)) == GreedyAgent(seed=1).select_move(g)


def test_searches_of_one_agent_in_several_threads():
    g = _midgame()
    agent = MCTSAgent(iterations=300, seed=1)
    results = []
    threads = [threading.Thread(target=lambda: results.append(agent.select_move(g))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(results) == 4 and all(m in g.legal_moves() for m in results)


# --------------------------------------------------------------------------- an app


async def _app_game(preset: str, seed: int) -> sequence_game.Game:
    """One game as an app plays it: the person (a greedy player here) at seat 0 asks for a hint each
    turn; the AI at seat 1 moves through select_move_async; searches get a small per-call limit."""
    game = sequence_game.Game(players=2, seed=seed)
    ai = agent_from_spec(preset, seed=seed)
    helper = agent_from_spec("medium", seed=seed)
    person = GreedyAgent(seed=seed)
    limit = Limit(iterations=150)
    while not game.is_over:
        if game.current_player == 0:
            hint = await helper.analyze_async(game)
            assert hint.move in game.legal_moves()
            game.play(person.select_move(game))
        else:
            game.play(await ai.select_move_async(game, limit=limit))
    return game


@pytest.mark.parametrize("preset", DIFFICULTIES)
def test_an_async_app_plays_whole_games_against_every_preset(preset):
    game = asyncio.run(_app_game(preset, seed=DIFFICULTIES.index(preset) + 30))
    assert game.is_over and (game.winner is not None or game.is_draw)
    record = sequence_game.GameRecord.from_game(game)
    assert record.replay().to_dict() == game.to_dict()


def test_the_python_examples_of_docs_api_md_run(tmp_path, monkeypatch):
    """The app code docs/api.md shows (presets, limit, async turn, sealed save, saving after an undo)
    runs as written."""
    import pathlib
    import re

    text = (pathlib.Path(__file__).parent.parent / "docs" / "api.md").read_text(encoding="utf-8")
    text = text[text.index("## Agents"):]
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 3
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "docs/api.md", "exec"), namespace)
    game = namespace["game"]
    assert game.turn >= 1
    saved = sequence_game.GameRecord.load_sealed(tmp_path / "game.json", namespace["key"])
    assert len(saved.redeals) == 1 and saved.replay().to_dict() == game.to_dict()  # saved after the undo
    move = asyncio.run(namespace["ai_turn"](game, agent_from_spec("hard:iters=200")))
    assert move in game.legal_moves()
