"""Matches and their statistics (python/sequence_game/arena.py)."""

from __future__ import annotations

import io
import math
from collections import Counter

import pytest
from sequence_game.agents import GreedyAgent, RandomAgent
from sequence_game.arena import MatchResult, PairedComparison, derive_seed, elo_difference, match, wilson_interval
from sequence_game.arena.stats import newton, sign_test

# --------------------------------------------------------------------------- statistics


@pytest.mark.parametrize("k,n,lo,hi", [
    (70, 100, 0.6042, 0.7811),  # textbook values
    (0, 10, 0.0, 0.2775),
    (10, 10, 0.7225, 1.0),
    (5, 10, 0.2366, 0.7634),
    (1, 20, 0.0089, 0.2361),
])
def test_wilson_interval_known_values(k, n, lo, hi):
    got = wilson_interval(k, n)
    assert got == pytest.approx((lo, hi), abs=1e-4)


def test_wilson_interval_edges():
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)
    lo, hi = wilson_interval(7.5, 10)  # fractional successes (draws as half) are fine
    assert lo < 0.75 < hi


def test_elo_difference_known_values():
    assert elo_difference(0.5) == 0.0
    assert elo_difference(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_difference(0.25) == pytest.approx(-190.85, abs=0.01)
    assert elo_difference(10 / 11) == pytest.approx(400.0)  # odds 10:1 is 400 points
    assert elo_difference(1.0) == math.inf and elo_difference(0.0) == -math.inf


def test_sign_test_known_values():
    assert sign_test(0, 0) == 1.0
    assert sign_test(5, 0) == sign_test(0, 5) == 2 / 32  # both 5-0 splits out of 32 equally likely ones
    assert sign_test(3, 3) == 1.0
    exact = 2 * sum(math.comb(101, j) for j in range(39)) / 2 ** 101  # 63 vs 38: the tail up to 38
    assert sign_test(63, 38) == pytest.approx(exact) and 0.016 < exact < 0.018
    with pytest.raises(ValueError, match="counts must be >= 0"):
        sign_test(-1, 2)


def test_newton_halves_a_step_that_would_rise():
    # sqrt(1 + x^2): a whole Newton step from x goes to -x^3, away from the minimum at 0 once |x| > 1
    np = pytest.importorskip("numpy")

    def grad_hess(x):
        r = np.sqrt(1 + x * x)
        return x / r, np.diag(1 / r ** 3)

    def f(x):
        return float(np.sqrt(1 + x * x).sum())

    whole = newton(grad_hess, np.array([2.0]), iterations=2)
    assert abs(float(whole[0])) == pytest.approx(2.0 ** 9)
    halved = newton(grad_hess, np.array([2.0]), objective=f)
    assert abs(float(halved[0])) < 1e-6
    with pytest.raises(np.linalg.LinAlgError):
        newton(lambda x: (x, np.zeros((1, 1))), np.array([1.0]))


def test_paired_comparison_from_known_scores():
    a, b = [1.0, 1.0, 0.0, 0.5, 1.0], [0.0, 1.0, 0.0, 1.0, 0.0]
    c = PairedComparison.from_scores(("A", "B"), ("X",), a, b)
    diffs = [1.0, 0.0, 0.0, -0.5, 1.0]
    mean = sum(diffs) / 5
    half = 1.959963984540054 * math.sqrt(sum((d - mean) ** 2 for d in diffs) / 4) / math.sqrt(5)
    assert c.games == 5 and c.score_a == pytest.approx(0.7) and c.score_b == pytest.approx(0.4)
    assert c.difference == pytest.approx(0.3) and c.interval == pytest.approx((mean - half, mean + half))
    assert (c.a_only, c.b_only) == (2, 1) and c.p_value == sign_test(2, 1)
    assert "5 games dealt alike, against X" in str(c) and "+30.0 points" in str(c)
    with pytest.raises(ValueError, match="one score of each per game"):
        PairedComparison.from_scores(("A", "B"), ("X",), a, b[:3])


def test_match_result_from_known_counts():
    r = MatchResult(names=["alpha", "beta"], games=100, wins=[60, 30], draws=10, played=[100, 100])
    assert r.win_rate(0) == 0.6 and r.win_rate(1) == 0.3
    assert r.win_rate_interval(0) == pytest.approx(wilson_interval(60, 100))
    assert r.score() == pytest.approx(0.65)  # draws count half
    assert r.elo() == pytest.approx(-400 * math.log10(1 / 0.65 - 1))
    lo, hi = r.elo_interval()
    wlo, whi = wilson_interval(65, 100)
    assert (lo, hi) == pytest.approx((elo_difference(wlo), elo_difference(whi)))
    assert lo < r.elo() < hi
    assert r.losses == [30, 60]
    text = str(r)
    assert "alpha" in text and "beta" in text and "60.0%" in text and "Elo alpha - beta: +108" in text


def test_derive_seed_is_stable_and_spread():
    assert derive_seed(0, 0) == derive_seed(0, 0)
    seeds = {derive_seed(s, i) for s in range(10) for i in range(100)}
    assert len(seeds) == 1000 and all(0 <= x < 2**64 for x in seeds)


# --------------------------------------------------------------------------- matches


def _seat_logging(name, log):
    """A factory of random agents that log (contender, game seed, seat, team) the first time they move."""

    class Logger(RandomAgent):
        def select_move(self, game):
            if not self.logged:
                self.logged = True
                log.append((name, game.seed, game.current_player, game.team_of(game.current_player)))
            return super().select_move(game)

    def make():
        a = Logger(seed=len(log))
        a.logged = False
        a.name = name
        return a

    return make


def test_seat_rotation_two_contenders_four_players(Game):
    log = []
    r = match([("A", _seat_logging("A", log)), ("B", _seat_logging("B", log))], games=6, players=4,
              seed=3, game_class=Game, keep_records=True, max_turns=40)
    assert r.names == ["A", "B"] and r.played == [6, 6]
    for g, (rec, out) in enumerate(zip(r.records, r.outcomes)):
        assert out.team_contenders == ([0, 1] if g % 2 == 0 else [1, 0])
        assert rec.agents == (["A", "B", "A", "B"] if g % 2 == 0 else ["B", "A", "B", "A"])
        assert rec.seed == out.seed
    # the agents really sat there: A on seats 0 and 2 in even games, 1 and 3 in odd ones
    seats = Counter((name, seat) for name, _, seat, _ in log)
    assert seats == Counter({(n, s): 3 for n in "AB" for s in range(4)})
    assert all(team == seat % 2 for _, _, seat, team in log)
    # a rotation shares one deal, the next rotation gets a new one
    seeds = [o.seed for o in r.outcomes]
    assert seeds[0] == seeds[1] != seeds[2] == seeds[3] != seeds[4] == seeds[5]


def test_seat_rotation_two_players(Game):
    r = match(["random", "random"], games=4, seed=0, game_class=Game, keep_records=True)
    assert r.names == ["random #0", "random #1"]
    assert [rec.agents for rec in r.records] == [
        ["random #0", "random #1"], ["random #1", "random #0"]] * 2


def test_three_contenders_three_players(Game):
    r = match(["greedy", "random", "random:seed=5"], games=6, players=3, seed=2, game_class=Game)
    assert r.played == [6, 6, 6]
    assert sum(r.wins) + r.draws == 6
    for g, o in enumerate(r.outcomes):
        assert o.team_contenders == [(t + g) % 3 for t in range(3)]
    text = str(r)
    assert "random:seed=5" in text


def test_match_is_reproducible_and_reports_progress(Game):
    calls = []
    a = match(["greedy", "random"], games=4, seed=9, game_class=Game, progress=lambda d, t: calls.append((d, t)))
    b = match(["greedy", "random"], games=4, seed=9, game_class=Game)
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert a.outcomes == b.outcomes
    assert a.games == 4 and sum(a.wins) + a.draws == 4


def test_match_counts_draws(Game):
    r = match(["random", "random"], games=4, seed=1, max_turns=6, game_class=Game)
    assert r.draws == 4 and r.wins == [0, 0]
    assert r.score() == 0.5 and r.elo() == 0.0


def test_match_accepts_factories_agents_and_classes(Game):
    r = match([GreedyAgent, lambda: RandomAgent(seed=1)], games=2, seed=0, game_class=Game)
    assert r.names == ["greedy", "random:seed=1"]


def test_match_refuses_bad_arguments(Game):
    with pytest.raises(ValueError, match="two contenders"):
        match(["greedy"], games=2, game_class=Game)
    with pytest.raises(ValueError, match="unknown agent"):
        match(["greedy", "chess"], games=2, game_class=Game)
    with pytest.raises(ValueError, match="games"):
        match(["greedy", "random"], games=0, game_class=Game)
    with pytest.raises(TypeError, match="contender 1"):
        match(["greedy", 42], games=2, game_class=Game)
    with pytest.raises(ValueError, match="players"):
        match(["greedy", "random"], games=2, players=5, game_class=Game)


def test_greedy_beats_random_in_a_match(Game):
    r = match(["greedy", "random"], games=20, seed=0, game_class=Game)
    assert r.win_rate(0) >= 0.7, str(r)
    assert r.elo() > 0


def test_mcts_v1_pins_the_yardstick_settings():
    """``mcts-v1`` (the yardstick of changes to the search) keeps the 2026-11-30 MCTSAgent settings whatever
    the defaults become: ``MCTS_V1`` pins the ones that differ from the defaults, and this test holds them
    all, so a changed default fails here until its former value is pinned in ``MCTS_V1``."""
    from sequence_game import _core
    from sequence_game.agents import agent_from_spec
    from sequence_game.agents.registry import MCTS_V1

    v1 = {"exploration": 0.2, "max_nodes": 1_000_000, "playout_turns": 6, "playout_candidates": 1,
          "playout_block_chance": 256, "playout_block": 0.6, "playout_two_eyed_cost": 40.0,
          "playout_one_eyed_cost": 30.0, "decisive": True,
          "weights": _core.EvalWeights(window1=1.0, window2=4.0, window3=15.0, threat=50.0, sequence=150.0,
                                       scale=80.0, two_eyed=30.0, one_eyed=20.0)}
    a = agent_from_spec("mcts-v1")
    assert a.iterations == 10_000 and a.time_limit is None and a.name == "mcts-v1"
    assert {k: getattr(a, k) for k in v1} == v1
    defaults = _core.SearchOptions()
    assert {k: v for k, v in v1.items() if getattr(defaults, k) != v} == MCTS_V1, "pin exactly what differs"
    if not _core.build_info()["research"]:  # every product option is in the record (a research build has more)
        assert set(v1) == set(_core.SearchOptions.fields) - {"iterations", "time_limit", "threads", "seed"}
    b = agent_from_spec("mcts-v1:iters=50,seed=3")
    assert b.iterations == 50 and b.seed == 3 and b.exploration == 0.2
    r = match(["mcts-v1:iters=50", "greedy"], games=2, seed=1)
    assert r.names == ["mcts-v1:iters=50", "greedy"] and sum(r.wins) + r.draws == 2


def test_arena_tables_show_whole_agent_names_on_a_narrow_terminal():
    """Two policy files that share a long prefix stay told apart: the agent column folds a name
    over lines instead of cutting it with an ellipsis."""
    from rich.console import Console
    from sequence_game.cli.arena import match_table, seat_table

    names = ["policy:/data/models/gym_greedy_run_a.npz", "policy:/data/models/gym_greedy_run_b.npz"]
    result = match([(names[0], RandomAgent), (names[1], RandomAgent)], games=2, seed=1, max_turns=30)
    for table in (match_table(result), seat_table(result)):
        console = Console(width=60, record=True, file=io.StringIO())
        console.print(table)
        text = console.export_text()
        cells = "".join(line.split("│")[1].strip() for line in text.splitlines() if line.count("│") > 2)
        assert all(name in cells for name in names)


def test_the_live_progress_line_shows_whole_agent_names_on_a_narrow_terminal():
    """The progress display's win rates name the agents too: folded over lines, not cut."""
    from rich.console import Console
    from sequence_game.arena.runner import RichProgress

    names = ["policy:/data/models/gym_greedy_run_a.npz", "policy:/data/models/gym_greedy_run_b.npz"]

    class Job:
        title = "match"

        def progress_text(self, entries):
            return "  ".join(f"{n} 50% [30-70]" for n in names)

    console = Console(width=60, record=True, file=io.StringIO(), force_terminal=False)
    progress = RichProgress(Job(), console=console)
    progress.start([], 10)
    progress.update([{}] * 3)
    progress.stop()
    text = console.export_text()
    assert "…" not in text
    lines = text.rstrip("\n").splitlines()
    last = [line for line in lines if "3/10" in line][-1]
    column = last.index("policy:")  # the statistics column: its folded rows start where its first does
    block = "".join(line[column:].strip() for line in lines[lines.index(last):])
    assert all(name in block for name in names)


@pytest.mark.parametrize("spec", ["net", "level:2"])
def test_the_shipped_network_and_the_ladder_levels_play_in_a_match(spec):
    r = match([spec, "random"], games=2, seed=1, max_turns=200)
    assert r.names == [spec, "random"] and sum(r.wins) + r.draws == 2


# --------------------------------------------------------------------------- the multi-player rating fit


def test_fit_of_two_agents_is_the_elo_of_their_score():
    from sequence_game.arena.stats import fit_ratings

    games = [(("a", "random"), "a")] * 30 + [(("a", "random"), "random")] * 10
    fit = fit_ratings(games, prior=0)
    assert fit.rating("random") == 0.0
    assert fit.rating("a") == pytest.approx(elo_difference(0.75), abs=1e-6)
    lo, hi = fit.interval("a")
    assert lo < fit.rating("a") < hi and fit.interval("random") == (0.0, 0.0)
    # the Fisher interval of a proportion: sd of theta = 1 / sqrt(n p (1 - p))
    half = 1.959963984540054 * 400 / math.log(10) / math.sqrt(40 * 0.75 * 0.25)
    assert hi - fit.rating("a") == pytest.approx(half, rel=1e-6)


def test_fit_recovers_the_strengths_of_three_sided_games():
    """Luce's model: a side wins with probability g / sum(g); games drawn from known strengths
    give back those ratings within their intervals."""
    import random

    from sequence_game.arena.stats import fit_ratings

    true = {"random": 0.0, "b": 200.0, "c": 400.0, "d": 500.0}
    rng = random.Random(3)
    games = []
    names = list(true)
    for _ in range(6000):
        sides = rng.sample(names, 3)
        g = [10 ** (true[s] / 400) for s in sides]
        games.append((sides, rng.choices(sides, weights=g)[0]))
    fit = fit_ratings(games, prior=0, anchor_rating=0)
    for name, r in true.items():
        lo, hi = fit.interval(name)
        assert lo - 1e-9 <= r <= hi + 1e-9, (name, fit.rating(name), lo, hi)
    assert fit.names == ("d", "c", "b", "random")
    d, (dlo, dhi) = fit.difference("c", "b")
    assert dlo > 0 and dlo < d < dhi


def test_fit_counts_a_draw_as_a_shared_win_and_keeps_a_sweep_finite():
    from sequence_game.arena.stats import fit_ratings

    fit = fit_ratings([(("a", "random"), None)] * 10, prior=0)
    assert fit.rating("a") == pytest.approx(0.0, abs=1e-6)
    sweep = fit_ratings([(("a", "random"), "a")] * 20)  # one virtual draw per pair
    assert math.isfinite(sweep.rating("a")) and sweep.rating("a") > 400


@pytest.mark.parametrize("games, anchor, message", [
    ([(("a",), "a")], "random", "two or more different names"),
    ([(("a", "a"), "a")], "random", "two or more different names"),
    ([(("a", "b"), "c")], "random", "did not play"),
    ([(("a", "b"), "a")], "random", "the anchor 'random' played no game"),
    ([(("a", "random"), "a"), (("b", "c"), "b")], "random", "never met 'random'"),
    ([42], "random", "write each game as"),
])
def test_fit_refuses_bad_games(games, anchor, message):
    from sequence_game.arena.stats import fit_ratings

    with pytest.raises(ValueError, match=message):
        fit_ratings(games, anchor=anchor)


def test_fit_reads_match_outcomes_by_contender():
    from sequence_game.arena.stats import fit_ratings, outcome_sides

    r = match(["greedy", "random", "random:seed=1"], games=6, players=3, seed=2)
    fit = fit_ratings([outcome_sides(r.names, o) for o in r.outcomes])
    assert set(fit.names) == set(r.names) and sum(fit.score) == pytest.approx(6)
