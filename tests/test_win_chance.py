"""The win-chance estimator (sequence_game.review.estimator) and its fit
(sequence_game.training.fit_win_chance): chances that sum to 1, a model file read strictly, and
calibration numbers that come from the command, not from hand."""

from __future__ import annotations

import json
import os
import re

import numpy as np
import pytest

pytest.importorskip("sequence_game._core")

from sequence_game import Game
from sequence_game.review.estimator import (
    DEFAULT_PATH,
    HAND_FEATURES,
    PUBLIC_FEATURES,
    RATING_KNOTS,
    load_win_chance_model,
    parse_win_chance_model,
    rated_rows,
    rating_hats,
    seat_rating,
    seat_ratings,
)
from sequence_game.training.fit_win_chance import (
    BEGIN,
    END,
    SETS,
    StrengthSet,
    _write_table,
    calibration,
    fit_softmax,
    fit_win_chance,
    main,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_chances_sum_to_one_in_every_view(players):
    model = load_win_chance_model()
    g = Game(players=players, seed=11)
    for _ in range(3 * players):
        for view in [None, *range(players)]:
            p = model.chances(g, view)
            assert len(p) == g.teams and abs(sum(p) - 1) < 1e-9 and all(0 < v < 1 for v in p)
        g.play(g.legal_moves()[0])


def test_a_finished_game_is_scored_by_its_result():
    from sequence_game.agents import GreedyAgent
    from sequence_game.records import play_game

    rec = play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], players=2, seed=3)
    game = rec.replay()
    assert game.is_over and load_win_chance_model().chances(game) == [float(t == game.winner) for t in range(2)]


def test_fit_softmax_recovers_a_known_model():
    rng = np.random.default_rng(1)
    w_true = np.array([1.5, -0.7])
    x = rng.normal(size=(4000, 2, 2))
    s = x @ w_true
    p0 = 1 / (1 + np.exp(s[:, 1] - s[:, 0]))
    won = rng.random(4000) < p0
    y = np.stack([won, ~won], axis=1).astype(float)
    w = fit_softmax(x, y, l2=1e-6)
    assert np.allclose(w, w_true, atol=0.15)


def test_calibration_of_a_perfect_forecast_and_of_the_base_rate():
    rng = np.random.default_rng(2)
    p0 = rng.random(5000)
    won = rng.random(5000) < p0
    p = np.stack([p0, 1 - p0], axis=1)
    y = np.stack([won, ~won], axis=1).astype(float)
    games = np.arange(5000) // 50
    good = calibration(p, y, games, np.array([0.5, 0.5]), resamples=50)
    assert good["ece"][0] < 0.03 and good["bss"][0] > 0.2 and good["ece"][1] <= good["ece"][0] <= good["ece"][2]
    flat = calibration(np.full_like(p, 0.5), y, games, np.array([0.5, 0.5]), resamples=50)
    assert abs(flat["bss"][0]) < 0.01  # perfectly calibrated and useless: no skill


def _model_json() -> dict:
    with open(DEFAULT_PATH, encoding="utf-8") as f:
        return json.load(f)


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(format="x"), "format must be"),
    (lambda d: d.update(public_features=["a"]), "refit it"),
    (lambda d: d["public"].update({"2": [1.0]}), r"public\.2 must be"),
    (lambda d: d["player"].update({"2": [float("nan")] * (len(PUBLIC_FEATURES) + len(HAND_FEATURES))}),
     r"player\.2 must be"),
    (lambda d: d.update(player={"5": []}), "number of teams"),
    (lambda d: d.update(grading={"mistake": "big"}), "grading"),
    (lambda d: d["rated_public"].update({"2": [1.0] * len(PUBLIC_FEATURES)}), r"rated_public\.2 must be"),
    (lambda d: d.update(rating_knots=[0, 1]), "refit it"),
])
def test_a_bad_model_file_is_refused_by_field(change, message):
    data = _model_json()
    change(data)
    with pytest.raises(ValueError, match=message):
        parse_win_chance_model(data, "m.json")


def test_the_fit_command_writes_the_model_table_and_picture_from_its_own_numbers(tmp_path):
    sets = (StrengthSet("random", ("random",), 10, 1), StrengthSet("medium", ("medium",), 10, 2),
            StrengthSet("mixed", ("random", "medium"), 20, 4, rotate=True),
            StrengthSet("3 teams", ("medium", "random", "easy"), 30, 3, players=3, rotate=True))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "measurements.md").write_text("# Measurements\n\nkept\n")
    out = tmp_path / "model.json"
    report = fit_win_chance(str(tmp_path / "data"), out=str(out), docs=str(docs), holdout=2, search_positions=2,
                            sets=sets)
    model = load_win_chance_model(out)
    assert set(model.public) == {"2", "3"} and model.training["calibration"] == report["calibration"]
    g = model.grading
    assert 0 < g["inaccuracy"] < g["mistake"] < g["blunder"]
    text = (docs / "measurements.md").read_text()
    assert text.startswith("# Measurements\n\nkept\n") and BEGIN in text and END in text
    brier = report["calibration"]["medium"]["public"]["brier"]
    assert f"| medium | {report['calibration']['medium']['public']['games']} / " in text
    assert f"{brier[0]:.3f} [{brier[1]:.3f}, {brier[2]:.3f}]" in text
    assert report["search_comparison"]["medium"]["positions"] == 2
    # a rotated set: one run per rotation of the agents over the seats, numbered as one set
    assert sorted(os.listdir(tmp_path / "data")) == ["3-teams", "3-teams-r1", "3-teams-r2", "medium", "mixed",
                                                     "mixed-r1", "random"]
    assert report["calibration"]["mixed"]["public"]["games"] == 10  # every second game of 20 held out
    assert sets[2].runs()[1] == ("mixed-r1", ("medium", "random"), 10, 1004)
    svg = (docs / "images" / "win-chance-reliability.svg").read_text()
    assert svg.startswith("<svg") and svg.count("<polyline") == 2 * len(sets)  # rated solid, unrated dashed
    assert set(report["calibration"]["mixed"]) == {"public", "public, rated", "mover", "mover, rated"}
    assert set(model.rated_public) == {"2", "3"} and set(model.rated_player) == {"2", "3"}
    # a second run resumes the data (no new games) and rewrites the same section in place
    fit_win_chance(str(tmp_path / "data"), out=str(out), docs=str(docs), holdout=2, search_positions=0, sets=sets)
    again = (docs / "measurements.md").read_text()
    assert again.count(BEGIN) == 1 and again.startswith("# Measurements\n\nkept\n")


def test_the_fit_plays_the_same_games_on_any_number_of_workers(tmp_path):
    sets = (StrengthSet("random", ("random",), 10, 5), StrengthSet("mixed", ("random", "easy"), 10, 6, rotate=True))
    one = fit_win_chance(str(tmp_path / "one"), out=str(tmp_path / "one.json"), docs=None, holdout=2,
                         search_positions=0, sets=sets)
    two = fit_win_chance(str(tmp_path / "two"), out=str(tmp_path / "two.json"), docs=None, holdout=2,
                         search_positions=0, sets=sets, workers=2)
    assert one["calibration"] == two["calibration"]
    assert load_win_chance_model(str(tmp_path / "one.json")).public == load_win_chance_model(str(tmp_path / "two.json")).public


def test_every_strength_set_is_rated_and_the_search_plays_uncapped():
    """The fit reads every seat's ladder rating; the search's time cap is wall-clock time, so a
    capped search's games would depend on the machine's load: the sets play it uncapped."""
    for s in SETS:
        assert seat_ratings(list(s.agents)) is not None, s.name
        for spec in s.agents:
            if spec.partition(":")[0] == "hard":
                assert "time=none" in spec.split(":", 1)[1].split(","), spec


def test_a_quicker_fit_plays_fewer_games_of_the_search_and_a_later_run_extends_them():
    from sequence_game.training.fit_win_chance import HARD_GAMES, scaled_sets

    full = scaled_sets()
    assert [s.games for s in full] == [s.games for s in SETS]
    quick = scaled_sets(hard_games=40)
    for before, after in zip(full, quick):
        searched = any(a.partition(":")[0] == "hard" for a in before.agents)
        assert after.games == (40 if searched else before.games) and after.seed == before.seed
    assert {s.name for s in full if s.games == HARD_GAMES} >= {"hard", "mixed-hard"}


@pytest.mark.parametrize("args", [["--workers", "0"], ["--scale", "0"], ["--search-positions", "-1"],
                                  ["--hard-games", "5"]])
def test_the_fit_command_refuses_bad_arguments_in_one_line(args, capsys):
    with pytest.raises(SystemExit) as e:
        main(args)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("python -m sequence_game.training.fit_win_chance: error: --")


def test_the_documented_calibration_is_the_packaged_models_own():
    """docs/measurements.md's calibration section is what the fit wrote with the packaged model's
    report: regenerating it from the model file gives the same text."""
    model = load_win_chance_model()
    path = os.path.join(ROOT, "docs", "measurements.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    section = re.search(re.escape(BEGIN) + ".*?" + re.escape(END), text, re.S)
    assert section is not None, "docs/measurements.md has no win-chance calibration section"
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        tmp = os.path.join(d, "m.md")
        _write_table(tmp, dict(model.training), dict(model.grading))
        with open(tmp, encoding="utf-8") as f:
            regenerated = re.search(re.escape(BEGIN) + ".*?" + re.escape(END), f.read(), re.S)
    assert regenerated is not None and regenerated.group(0) == section.group(0)


def test_seats_ratings_come_from_the_ladder_and_a_person_has_none():
    from sequence_game.agents.levels import level_of, packaged_ratings

    ladder = packaged_ratings()
    hard = level_of("hard").name  # the presets are levels of the ladder (level:N)
    assert seat_rating("random") == ladder["random"]["rating"]
    assert seat_rating("hard") == seat_rating(hard) == seat_rating("hard:time=1") == ladder[hard]["rating"]
    assert seat_rating("easy") == ladder[level_of("easy").name]["rating"]
    assert seat_rating("level:2") == ladder["level:2"]["rating"]
    for unknown in ("human", "mcts:iterations=5", "easy:temperature=3", "", None, 3):
        assert seat_rating(unknown) is None
    assert seat_ratings(["easy", "random"]) == [seat_rating("easy"), 0.0]
    assert seat_ratings(["easy", "human"]) is None and seat_ratings([]) is None


def test_the_rated_weights_interpolate_between_the_measured_table_strengths():
    ratings = np.linspace(-200.0, 1000.0, 61)
    hats = rating_hats(ratings)
    assert hats.shape == (61, len(RATING_KNOTS)) and np.allclose(hats.sum(axis=1), 1.0) and (hats >= 0).all()
    for k, knot in enumerate(RATING_KNOTS):  # at a measured strength: that strength's weights alone
        assert rating_hats(np.array([knot]))[0].tolist() == [1.0 if j == k else 0.0 for j in range(len(RATING_KNOTS))]
    # between two knots the two neighbours share linearly; beyond the range the end knot holds
    mid = (RATING_KNOTS[1] + RATING_KNOTS[2]) / 2
    assert np.allclose(rating_hats(np.array([mid]))[0][1:3], [0.5, 0.5])
    assert rating_hats(np.array([5000.0]))[0][-1] == 1.0 and rating_hats(np.array([-50.0]))[0][0] == 1.0
    x = np.arange(6, dtype=float).reshape(2, 3)  # two teams, three features
    row = rated_rows(x, np.array([RATING_KNOTS[2] + 100, RATING_KNOTS[2] - 100]))
    assert row.shape == (2, 3 + 1 + 3 * len(RATING_KNOTS))
    assert np.allclose(row[:, 3], [0.25, -0.25])  # the team's rating less the table's, in 400s
    blocks = row[:, 4:].reshape(2, len(RATING_KNOTS), 3)
    assert np.allclose(blocks[:, 2], x) and np.allclose(np.delete(blocks, 2, axis=1), 0.0)


def test_known_strengths_move_the_chances_and_unknown_ones_are_symmetric():
    model = load_win_chance_model()
    g = Game(players=2, seed=5)
    for _ in range(6):
        g.play(g.legal_moves()[0])
    strong, weak = seat_rating("hard"), seat_rating("random")
    first = model.chances(g, ratings=[strong, weak])
    second = model.chances(g, ratings=[weak, strong])
    assert first[0] > 0.7 and second[0] < 0.3 and abs(sum(first) - 1) < 1e-9
    # an unknown seat (a person): no information about anybody, the unrated weights
    assert model.chances(g, ratings=[strong, None]) == model.chances(g) == model.chances(g, ratings=None)
    assert abs(sum(model.chances(g, viewer=0, ratings=[strong, weak])) - 1) < 1e-9
    three = Game(players=3, seed=5)  # three teams: read unrated (RATED_TEAMS)
    assert model.chances(three, ratings=[strong, weak, weak]) == model.chances(three)
    for bad, message in (([1.0], "one rating"), ("ab", "one rating"), ([1.0, float("nan")], "finite"),
                         ([True, 1.0], "finite")):
        with pytest.raises(ValueError, match=message):
            model.chances(g, ratings=bad)


# --------------------------------------------------------------------------- how well each team has played


def _quality_only_model():
    """The packaged model with every weight zero but the play-quality ones."""
    from dataclasses import replace

    model = load_win_chance_model()
    k = PUBLIC_FEATURES.index("play_quality")

    def only(table, size):
        return {t: [3.0 if i == k else 0.0 for i in range(size)] for t in table}

    pub, ply = len(PUBLIC_FEATURES), len(PUBLIC_FEATURES) + len(HAND_FEATURES)
    return replace(model, public=only(model.public, pub), player=only(model.player, ply),
                   rated_public={}, rated_player={})


def test_play_quality_starts_at_the_prior_and_reads_only_public_information():
    """R9: a move's quality is the heuristic's score of that move (the board, the sequences and the
    move), so the hand it came from does not change it."""
    from helpers import board_rows
    from sequence_game.game import move_from_id
    from sequence_game.review.estimator import QUALITY_PRIOR, move_quality, play_quality

    assert np.allclose(play_quality(Game(players=3, seed=2))[:, 0], QUALITY_PRIOR)
    chips = {(2, c): "B" for c in range(1, 4)}
    a = Game.from_dict({"players": 2, "board": board_rows(chips), "hands": [["4D", "2S", "3S", "9H", "KS"], ["2H"]]})
    b = Game.from_dict({"players": 2, "board": board_rows(chips), "hands": [["4D", "AH", "AC", "QD", "JD"], ["7C"]]})
    both = set(a.legal_move_ids()) & set(b.legal_move_ids())
    placing = [m for m in both if move_from_id(m).card == "4D"]
    assert placing and all(move_quality(a._state, m) == move_quality(b._state, m) for m in placing)
    assert {round(move_quality(a._state, m), 6) for m in placing} != {0.0}


def test_strong_play_reads_as_better_than_random_play():
    from sequence_game.agents import agent_from_spec
    from sequence_game.review.estimator import play_quality

    strong = weak = 0.0
    for seed in range(8):
        g = Game(players=2, seed=seed)
        seats = [agent_from_spec("greedy", seed=seed), agent_from_spec("random", seed=seed)]
        for _ in range(30):
            if g.is_over:
                break
            g.play(seats[g.current_player].select_move(g))
        q = play_quality(g)[:, 0]
        strong, weak = strong + q[0], weak + q[1]
    assert strong > weak + 0.3  # 8 games: greedy's moves read better in (nearly) every one


def test_a_candidate_move_is_valued_by_the_play_before_it():
    """The review values each legal move with the teams' play up to the position, not with the
    candidate itself: with only the play-quality weight, every candidate is worth the same."""
    from sequence_game.agents import agent_from_spec
    from sequence_game.review import move_values

    g = Game(players=2, seed=5)
    a = agent_from_spec("greedy", seed=1)
    for _ in range(12):
        g.play(a.select_move(g))
    values = move_values(g, _quality_only_model())
    assert len(values) > 3 and max(values.values()) - min(values.values()) < 1e-9
    assert not np.isclose(max(values.values()), 0.5)  # the play so far does weigh


def test_the_curve_counts_the_same_play_as_each_position_alone():
    """The curve and the review walk the history once for the whole game; each point must be what
    the position alone gives (its own history walked), trades and all."""
    from sequence_game.agents import agent_from_spec
    from sequence_game.records import play_game
    from sequence_game.review import curve, review_game

    model = _quality_only_model()
    rec = play_game([agent_from_spec("greedy", seed=1), agent_from_spec("level:2", seed=2)], players=2, seed=8)
    steps = list(rec.positions())
    alone = [[round(p, 4) for p in model.chances(step.game)] for step in steps]
    assert len({tuple(a) for a in alone}) > 5  # the play does move the quality-only chances
    for got, want in zip(curve(rec, model), alone):
        assert np.allclose(got, want, atol=1e-4)
    for got, want in zip(review_game(rec, model).curve, alone):
        assert np.allclose(got, want, atol=1e-4)


def test_the_public_row_reads_the_position_early_and_through_saturating_counts():
    from sequence_game.review.estimator import feature_rows, play_quality

    g = Game(players=2, seed=11)
    for _ in range(30):
        g.play(g.legal_moves()[0])
    rows = feature_rows(g)
    assert rows.shape == (2, len(PUBLIC_FEATURES))
    col = {name: rows[:, i] for i, name in enumerate(PUBLIC_FEATURES)}
    quality = play_quality(g)
    early = quality[:, 1] / quality[:, 0]
    assert np.all((early >= 0) & (early < 1))  # 30 moves in: part of the game is gone
    for name in ("sequences", "open3", "open4", "threats", "to_move", "last_threats"):
        assert np.allclose(col[f"{name}*early"], col[name] * early)
    for name in ("sequences", "open3", "open4", "threats"):
        c = col[name]
        assert np.allclose(col[f"min1({name})"], np.minimum(c, 1)) and np.allclose(col[f"min2({name})"], np.minimum(c, 2))
        assert np.allclose(col[f"sqrt({name})"], np.sqrt(c))
    assert col["open3"].max() > 0 or col["open4"].max() > 0  # the position has counts to transform
