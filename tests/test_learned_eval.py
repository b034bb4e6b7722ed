"""The learned evaluation: its features (cpp/include/sequence/search/features.hpp) against a slow
Python recomputation, what each team's features may read (R9), the weights and their file, the
search with the learned evaluation (no peeking, R9) and the training command."""

from __future__ import annotations

import random
from typing import Dict, List

import numpy as np
import pytest

sequence_game = pytest.importorskip("sequence_game")
_core = pytest.importorskip("sequence_game._core")

from helpers import research_build  # noqa: E402
from sequence_game import Game  # noqa: E402
from sequence_game.board import CELLS, CELLS_OF_NAME, CORNER_CELLS, WINDOWS, card_name_at  # noqa: E402
from sequence_game.cards import card_id, card_name  # noqa: E402

NAMES = list(_core.EVAL_FEATURES)
#: The learned evaluation in the search (evaluation, learned_weights, expansion_candidates), its model file
#: and its fit (sequence_game.research, training.fit_eval) are the research build's (CMake SEQUENCE_RESEARCH);
#: the features and the rewards are the product's (the review reads the features).
research_only = pytest.mark.skipif(not research_build(), reason="a research build's option (SEQUENCE_RESEARCH)")


def _played(seed: int, players: int = 2, teams=None, greedy: float = 0.8, max_plies: int = 100):
    """A game after a random number of plies, most of them the core heuristic's best move (so that
    threats, sequences and dead cards occur), the rest random; None if it ended."""
    rng = random.Random(seed)
    g = Game(players=players, teams=teams, seed=seed)
    for _ in range(rng.randrange(0, max_plies)):
        if g.is_over:
            return None
        if rng.random() < greedy:
            scored = _core.heuristic_scores(g._state)
            best = max(s for _, s in scored)
            g.play_id(rng.choice([m for m, s in scored if s == best]))
        else:
            g.play(rng.choice(g.legal_moves()))
    return None if g.is_over else g


def _slow_features(state) -> np.ndarray:
    """Every feature of features.hpp recomputed window by window from the public accessors."""
    teams, players = state.teams, state.players
    cell = [state.cell(i) for i in range(CELLS)]  # -1 empty, team, 3 corner
    corners = set(CORNER_CELLS)
    seq_cells: Dict[int, List[set]] = {t: [] for t in range(teams)}
    for t, cells in state.sequences():
        seq_cells[t].append(set(cells))
    discarded: Dict[int, int] = {}
    for p in range(players):
        for c in state.discards(p):
            discarded[c] = discarded.get(c, 0) + 1
    out = np.zeros((teams, len(NAMES)), np.float32)
    mover = state.current_player % teams
    for t in range(teams):
        f = dict.fromkeys(NAMES, 0.0)
        f["sequences"] = len(seq_cells[t])
        own = {i for i in range(CELLS) if cell[i] == t} | corners
        hands = [c for p in range(players) if p % teams == t for c in state.hand(p)]
        open_by_count: Dict[int, List[tuple]] = {k: [] for k in range(6)}
        threat_cells = set()
        for w in WINDOWS:
            if any(cell[i] not in (-1, 3, t) for i in w):
                continue  # another team's chip
            if any(len(set(w) & s) >= 2 for s in seq_cells[t]):
                continue  # R7: shares two cells with a sequence of the team
            k = sum(i in own for i in w)
            open_by_count[k].append(w)
            if k == 4:
                threat_cells |= {i for i in w if i not in own}
        for k in range(1, 5):
            f[f"open{k}"] = len(open_by_count[k])
        f["shared_windows"] = sum(1 for w in open_by_count[3] + open_by_count[4]
                                  if sum(len(set(w) & s) for s in seq_cells[t]) == 1)
        f["threats"] = len(threat_cells)
        f["multi_threat"] = max(len(threat_cells) - 1, 0)
        in_hand = unseen = 0
        for i in threat_cells:
            card = card_id(card_name_at(i))
            mine = hands.count(card)
            in_hand += mine > 0
            unseen += 2 - discarded.get(card, 0) - mine
        f["threats_in_hand"] = in_hand
        f["threat_copies_unseen"] = unseen
        two = sum(card_name(c) in ("JD", "JC") for c in hands)
        one = sum(card_name(c) in ("JS", "JH") for c in hands)
        f["two_eyed"], f["one_eyed"] = two, one
        can = in_hand > 0 or (threat_cells and two > 0)
        f["can_complete"] = float(bool(can))
        f["to_move"] = float(t == mover)
        f["complete_on_move"] = float(bool(can) and t == mover)
        f["dead_cards"] = sum(1 for c in hands if card_name(c)[0] != "J"
                              and all(cell[i] != -1 for i in CELLS_OF_NAME[card_name(c)]))
        near = {i for w in open_by_count[3] + open_by_count[4] for i in w}
        f["removable"] = sum(1 for i in near if cell[i] == t and not state.locked(i))
        out[t] = [f[n] for n in NAMES]
    return out


@pytest.mark.parametrize("players,teams", [(2, None), (3, None), (4, 2), (6, 3)])
def test_features_match_a_slow_recomputation_on_random_positions(players, teams):
    seen = np.zeros(len(NAMES), bool)
    checked = 0
    for seed in range(80):
        # mostly heuristic play (threats, sequences), or mostly random play that keeps dead cards
        g = _played(seed + 1000 * players, players, teams, *((0.8, 100) if seed % 2 else (0.2, 200)))
        if g is None:
            continue
        fast = _core.eval_features(g._state)
        assert fast.shape == (g.teams, len(NAMES)) and fast.dtype == np.float32
        slow = _slow_features(g._state)
        for t in range(g.teams):
            for i, name in enumerate(NAMES):
                assert fast[t, i] == slow[t, i], f"seed {seed}, team {t}, feature {name}: {fast[t, i]} != {slow[t, i]}"
        seen |= (fast != 0).any(axis=0)
        checked += 1
    assert checked >= 30
    if players == 2:  # the positions exercise every feature
        assert seen.all(), [n for n, s in zip(NAMES, seen) if not s]


def test_feature_names_are_the_documented_ones():
    assert NAMES[0] == "sequences" and NAMES[-1] == "to_move" and len(set(NAMES)) == len(NAMES)
    assert list(_core.LearnedWeights.fields) == NAMES


def test_r9_a_team_row_reads_only_public_information_and_its_own_hands():
    """Re-dealing the cards a team cannot see (other teams' hands, the draw pile) leaves its row."""
    from test_mcts import _redeal_hidden

    others_changed = False
    for seed in range(12):
        g = _played(seed, greedy=0.7)
        if g is None:
            continue
        d = g.to_dict()
        d["last_draw"] = None
        base = Game.from_dict(d)
        me = base.current_player
        other = Game.from_dict(_redeal_hidden(d, me, 77 + seed))
        fa, fb = _core.eval_features(base._state), _core.eval_features(other._state)
        assert (fa[me] == fb[me]).all()
        others_changed |= bool((fa[1 - me] != fb[1 - me]).any())
    assert others_changed, "the other team's row reads its own hand (jacks, dead cards, threat cards)"


# ------------------------------------------------------------------------------------------ weights in the options


def test_learned_weights_are_checked_and_named():
    w = _core.LearnedWeights(threats=1.5, to_move=-0.25)
    assert w.threats == 1.5 and w.to_move == -0.25 and w.open1 == 0.0
    with pytest.raises(ValueError, match="threats"):
        _core.LearnedWeights(threats=float("nan"))
    with pytest.raises(ValueError, match="open2"):
        _core.LearnedWeights(open2=1e9)
    with pytest.raises(TypeError, match="open3"):
        _core.LearnedWeights(open3="big")
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        _core.LearnedWeights(nope=1.0)


@research_only
def test_the_search_options_learned_weights_are_checked():
    with pytest.raises(ValueError, match=f"{len(NAMES)} numbers"):
        _core.SearchOptions(learned_weights=[0.0] * (len(NAMES) - 1))
    with pytest.raises(ValueError, match="'handset' or 'learned'"):
        _core.SearchOptions(evaluation="neural")
    o = _core.SearchOptions(evaluation="learned", learned_weights=[0.5] * len(NAMES))
    assert o.evaluation == "learned" and o.learned_weights.dead_cards == 0.5
    with pytest.raises(ValueError, match="sequences"):
        o.learned_weights = [float("inf")] + [0.0] * (len(NAMES) - 1)
    assert o.learned_weights.sequences == 0.5, "a refused assignment leaves the options as they were"


def test_learned_rewards_are_the_softmax_of_the_weighted_features():
    for players, teams in ((2, None), (3, None)):
        g = _played(5, players, teams, greedy=0.8, max_plies=40)
        assert g is not None
        weights = [0.3 * ((i % 5) - 2) for i in range(len(NAMES))]
        f = _core.eval_features(g._state).astype(np.float64)
        score = f @ np.asarray(weights)
        expected = np.exp(score - score.max()) / np.exp(score - score.max()).sum()
        got = _core.learned_rewards(g._state, _core.LearnedWeights(**dict(zip(NAMES, weights))))
        assert np.allclose(got, expected, atol=1e-5) and abs(sum(got) - 1) < 1e-5
    assert _core.learned_rewards(g._state, _core.LearnedWeights()) == pytest.approx([1 / g.teams] * g.teams)


# ------------------------------------------------------------------------------------------ the search


@research_only
def test_r9_no_peeking_with_the_learned_evaluation():
    from test_mcts import _redeal_hidden

    weights = [0.2 * ((i % 7) - 3) for i in range(len(NAMES))]
    learned = _core.SearchOptions(iterations=1200, evaluation="learned", learned_weights=weights)
    for seed in (3, 8):
        g = _played(seed, greedy=0.7, max_plies=40)
        assert g is not None
        d = g.to_dict()
        d["last_draw"] = None
        base = Game.from_dict(d)
        me = base.current_player
        for k in range(2):
            other = Game.from_dict(_redeal_hidden(d, me, 300 * seed + k))
            assert other.observation(me) == base.observation(me) and other.to_dict() != base.to_dict()
            a = _core.mcts_search(base._state, learned, 7)
            b = _core.mcts_search(other._state, learned, 7)
            assert a.moves == b.moves and a.nodes == b.nodes and a.best == b.best
            c = _core.mcts_search(base._state, _core.SearchOptions(iterations=1200), 7)
            assert a.moves != c.moves, "the learned evaluation should change the search's statistics"
            # The learned evaluation as an expansion prior reads no hidden card either.
            prior = _core.SearchOptions(iterations=1200, expansion_candidates=8, learned_weights=weights)
            pa = _core.mcts_search(base._state, prior, 7)
            pb = _core.mcts_search(other._state, prior, 7)
            assert pa.moves == pb.moves and pa.nodes == pb.nodes and pa.best == pb.best
            assert pa.moves != c.moves, "the expansion prior should change the search's statistics"


@research_only
def test_expansion_candidates_are_checked():
    with pytest.raises(ValueError, match=r"expansion_candidates is -1, out of range 0\.\.1024"):
        _core.SearchOptions(expansion_candidates=-1)
    with pytest.raises(TypeError, match="expansion_candidates"):
        _core.SearchOptions(expansion_candidates=2.5)
    from sequence_game.agents import MCTSAgent
    from sequence_game.research.learned_eval import load_eval_model

    a = MCTSAgent(iterations=200, seed=1, options={"expansion_candidates": 4})
    assert a.evaluation == "handset" and a.learned_weights == load_eval_model().learned_weights()
    g = _played(4, greedy=0.8, max_plies=30)
    assert a.analyze(g).iterations == 200


# ------------------------------------------------------------------------------------------ the model file


def _model_json():
    import json

    from sequence_game.research.learned_eval import DEFAULT_MODEL_PATH

    with open(DEFAULT_MODEL_PATH, encoding="utf-8") as f:
        return json.load(f)


@research_only
def test_the_packaged_model_loads_and_records_how_it_was_made():
    from sequence_game.research.learned_eval import load_eval_model

    model = load_eval_model()
    assert list(model.weights) == NAMES
    assert model.weights["sequences"] > 0 and model.weights["threats_in_hand"] > 0  # what wins, counts
    t = model.training
    # the command that made it, as it was spelled then (both spellings run the same code)
    assert t["command"].startswith(("sequence-game fit-eval", "python -m sequence_game.training.fit_eval"))
    assert t["data"]["games"] >= 1000 and t["data"]["positions"] > t["data"]["games"]
    v = t["validation"]
    # On held-out games it predicts the result better than the hand-set evaluation and than a
    # constant 1/2 (on the search's own games the hand-set one does worse than the constant).
    assert v["log_loss"] < min(v["handset_log_loss"], v["constant_log_loss"])
    assert v["accuracy"] > v["handset_accuracy"]
    w = model.learned_weights()
    assert isinstance(w, _core.LearnedWeights) and w.two_eyed == pytest.approx(model.weights["two_eyed"], rel=1e-6)


@research_only
@pytest.mark.parametrize("change,field", [
    (lambda d: d.update(format="sequence-game-eval/0"), "format"),
    (lambda d: d.update(weights=[1, 2]), "weights must be an object"),
    (lambda d: d["weights"].pop("open3"), "missing features open3"),
    (lambda d: d["weights"].update(bonus=1.0), "unknown features bonus"),
    (lambda d: d["weights"].update(threats="1.0"), "weights.threats"),
    (lambda d: d["weights"].update(to_move=float("nan")), "weights.to_move"),
    (lambda d: d["weights"].update(two_eyed=True), "weights.two_eyed"),
    (lambda d: d["weights"].update(sequences=1e7), "weights.sequences"),
    (lambda d: d.update(training="yesterday"), "training"),
])
def test_a_bad_model_file_is_refused_naming_the_field(tmp_path, change, field):
    import json

    from sequence_game.research.learned_eval import load_eval_model

    d = _model_json()
    change(d)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d))
    with pytest.raises(ValueError, match=field) as e:
        load_eval_model(path)
    assert str(path) in str(e.value)
    path.write_text("{not json")
    with pytest.raises(ValueError, match="not JSON"):
        load_eval_model(path)
    from sequence_game.agents import MCTSAgent

    with pytest.raises(ValueError):
        MCTSAgent(options={"evaluation": "learned", "learned_weights": str(tmp_path / "bad.json")})


@research_only
def test_mcts_agent_takes_the_learned_evaluation_and_mcts_v1_keeps_the_handset_one(tmp_path):
    import json

    from sequence_game.agents import MCTSAgent, agent_from_spec
    from sequence_game.research.learned_eval import load_eval_model

    model = load_eval_model()
    a = MCTSAgent(iterations=300, seed=1, options={"evaluation": "learned"})
    assert a.evaluation == "learned" and a.learned_weights == model.learned_weights()
    assert "evaluation=learned" in a.name
    assert agent_from_spec("mcts-v1").evaluation == "handset"
    spec = agent_from_spec("mcts:iters=300,evaluation=learned")
    assert spec.learned_weights == model.learned_weights()
    d = _model_json()
    d["weights"]["threats"] = 2.5
    path = tmp_path / "m.json"
    path.write_text(json.dumps(d))
    b = MCTSAgent(iterations=300, options={"evaluation": "learned", "learned_weights": str(path)})
    assert b.learned_weights.threats == 2.5
    g = _played(2, greedy=0.8, max_plies=30)
    assert a.select_move(g) in g.legal_moves()


# ------------------------------------------------------------------------------------------ the training command


@research_only
def test_the_training_command_runs_end_to_end_on_a_tiny_data_set(tmp_path, capsys):
    import json

    from sequence_game.research.learned_eval import load_eval_model
    from sequence_game.training.fit_eval import main

    out = tmp_path / "model.json"
    assert main(["--games", "12", "--seed", "3", "--out", str(out), "--data", str(tmp_path / "data"),
                 "--holdout", "4"]) == 0
    text = capsys.readouterr().out
    assert "validation log-loss" in text and "hand-set" in text
    model = load_eval_model(out)
    t = model.training
    assert t["data"]["games"] == 12 and t["data"]["seed"] == 3 and t["validation"]["games"] == 3
    assert "--games 12 --seed 3" in t["command"]
    first = json.loads(out.read_text())
    # Reproducible: the same command on the kept data set writes the same weights.
    assert main(["--games", "12", "--seed", "3", "--out", str(out), "--data", str(tmp_path / "data"),
                 "--holdout", "4"]) == 0
    assert json.loads(out.read_text())["weights"] == first["weights"]
    # --sharpen scales the written weights; --exclude leaves features out (weight 0).
    assert main(["--games", "12", "--seed", "3", "--out", str(out), "--data", str(tmp_path / "data"),
                 "--holdout", "4", "--sharpen", "2", "--exclude", "two_eyed", "one_eyed"]) == 0
    sharp = load_eval_model(out)
    assert sharp.weights["two_eyed"] == sharp.weights["one_eyed"] == 0.0
    assert sharp.training["fit"]["sharpen"] == 2.0 and "--exclude two_eyed one_eyed --sharpen 2.0" in sharp.training["command"]
    # --max-turns caps every self-play game (a draw at the cap) and is part of the recorded command.
    capped = tmp_path / "capped.json"
    assert main(["--games", "6", "--seed", "5", "--out", str(capped), "--data", str(tmp_path / "capped"),
                 "--holdout", "3", "--max-turns", "10"]) == 0
    assert "--max-turns 10" in load_eval_model(capped).training["command"]
    assert json.loads((tmp_path / "capped" / "manifest.json").read_text())["max_turns"] == 10
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["--games", "6", "--out", str(capped), "--max-turns", "0"])
    assert "--max-turns must be at least 1" in capsys.readouterr().err
    assert main(["--games", "12", "--seed", "3", "--out", str(out), "--exclude", "jokers"]) == 2
    assert "unknown features jokers" in capsys.readouterr().err
    assert main(["--games", "12", "--seed", "4", "--out", str(out), "--data", str(tmp_path / "data")]) == 2
    assert "another job" in capsys.readouterr().err  # the data set of another seed is not mixed in


@research_only
def test_the_binary_fit_is_the_two_team_fit_with_a_zero_row():
    # sigmoid(x @ w) is softmax((x @ w, 0)): both fits solve the same problem with the one Newton solver
    from sequence_game.training.fit_eval import fit_logistic
    from sequence_game.training.fit_win_chance import fit_softmax

    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 4))
    y = (rng.random(200) < 1 / (1 + np.exp(-x @ np.array([1.0, -0.5, 0.2, 0.0])))).astype(float)
    two = np.stack([x, np.zeros_like(x)], axis=1)
    assert fit_logistic(x, y) == pytest.approx(fit_softmax(two, np.stack([y, 1 - y], axis=1)), abs=1e-8)


@pytest.mark.skipif(research_build(), reason="a product build's refusal")
@pytest.mark.parametrize("module", ["sequence_game.research", "sequence_game.research.learned_eval",
                                   "sequence_game.training.fit_eval"])
def test_a_product_build_refuses_the_research_modules_saying_how_to_get_them(module):
    import importlib

    with pytest.raises(ImportError, match=r"research build: build with -DSEQUENCE_RESEARCH=ON \(pip install \. -C "
                                          r"cmake\.define\.SEQUENCE_RESEARCH=ON"):
        importlib.import_module(module)
