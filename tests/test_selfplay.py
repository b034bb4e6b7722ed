"""Self-play datasets (python/sequence_game/selfplay.py): every row is the position the mover saw,
a legal move, and the game's real result; the data does not depend on the number of workers;
an interrupted run resumes."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from sequence_game import Game
from sequence_game.selfplay import LOG_NAME, MANIFEST_NAME, SelfplayJob, load_dataset, selfplay

pytestmark = pytest.mark.skipif(not hasattr(Game, "observation_tensor"), reason="needs Game.observation_tensor")


def test_rows_are_the_games_replayed(tmp_path):
    manifest = selfplay(["greedy"], games=4, out=str(tmp_path), seed=3, shard_games=3)
    data = load_dataset(str(tmp_path))
    n = manifest["positions"]
    assert [s["games"] for s in manifest["shards"]] == [[0, 3], [3, 4]]
    assert data["observation"].shape == (n, manifest["observation_features"]) and n > 40
    assert data["legal_mask"][np.arange(n), data["action"]].all()  # every move played was legal
    assert not data["searched"].any() and data["policy_offsets"].tolist() == [0] * (n + 1)
    for k, g in enumerate(data["game_index"]):
        rows = np.flatnonzero(data["game"] == g)
        game = Game(players=2, seed=int(data["game_seed"][k]), max_turns=manifest["max_turns"])
        for i in rows:
            p = game.current_player
            assert data["player"][i] == p and data["team"][i] == game.team_of(p) and data["turn"][i] == game.turn
            assert np.array_equal(data["observation"][i], game.observation_tensor(p))  # the mover's view (R9)
            assert np.array_equal(data["legal_mask"][i], game.legal_mask())
            game.play_id(int(data["move_id"][i]))
        assert game.is_over and game.turn == data["game_turns"][k]
        winner = -1 if game.winner is None else game.winner
        assert data["game_winner"][k] == winner
        expected = [0, 0] if winner < 0 else [1 if t == winner else -1 for t in range(2)]
        assert (data["outcome"][rows] == expected).all()


def test_workers_do_not_change_the_data(tmp_path):
    one = selfplay(["greedy", "random"], games=4, out=str(tmp_path / "one"), seed=5, shard_games=2)
    two = selfplay(["greedy", "random"], games=4, out=str(tmp_path / "two"), seed=5, shard_games=2, workers=2)
    a, b = load_dataset(str(tmp_path / "one")), load_dataset(str(tmp_path / "two"))
    assert one["positions"] == two["positions"] and a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), k


def test_a_search_records_its_root_visits(tmp_path):
    selfplay(["mcts:iters=64", "greedy"], games=1, out=str(tmp_path), seed=2, shard_games=1)
    d = load_dataset(str(tmp_path))
    searched = np.flatnonzero(d["searched"])
    assert len(searched) > 5 and set(d["team"][searched]) == {0}  # the mcts seat, where it had a choice
    o = d["policy_offsets"]
    for i in searched:
        acts, visits = d["policy_actions"][o[i]:o[i + 1]], d["policy_visits"][o[i]:o[i + 1]]
        assert d["legal_mask"][i, acts].all() and d["action"][i] in acts
        assert visits.sum() >= 64 - 1  # every iteration visits a root child
    assert all(o[i] == o[i + 1] for i in np.flatnonzero(~d["searched"]))


def test_resume_plays_only_the_missing_shards(tmp_path):
    out = str(tmp_path)
    full = selfplay(["greedy"], games=6, out=out, seed=9, shard_games=2)
    log = os.path.join(out, LOG_NAME)
    with open(log) as f:
        lines = f.read().splitlines()
    with open(log, "w") as f:  # as if killed before the last shard was logged
        f.write("\n".join(lines[:-1]) + "\n")
    os.remove(os.path.join(out, full["shards"][-1]["file"]))
    os.remove(os.path.join(out, MANIFEST_NAME))
    with pytest.raises(ValueError, match="already holds"):
        selfplay(["greedy"], games=6, out=out, seed=9, shard_games=2)
    again = selfplay(["greedy"], games=6, out=out, seed=9, shard_games=2, resume=True)
    assert again["shards"][:2] == full["shards"][:2]
    assert again["positions"] == full["positions"]
    with pytest.raises(ValueError, match="another job"):
        selfplay(["greedy"], games=6, out=out, seed=10, shard_games=2, resume=True)


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unknown agent"):
        SelfplayJob(["chess"], 2, str(tmp_path))
    with pytest.raises(ValueError, match="greedy takes only seed"):
        SelfplayJob(["greedy:depth=3"], 2, str(tmp_path))
    with pytest.raises(ValueError, match="games"):
        SelfplayJob(["greedy"], 0, str(tmp_path))
    with pytest.raises(TypeError, match="list of agent specs"):
        SelfplayJob("greedy", 2, str(tmp_path))
    with pytest.raises(ValueError, match="shard index"):
        SelfplayJob(["greedy"], 2, str(tmp_path), shard_games=1).execute(2)


def test_load_checks_the_manifest(tmp_path):
    selfplay(["greedy"], games=1, out=str(tmp_path), seed=1)
    manifest = json.loads((tmp_path / MANIFEST_NAME).read_text())
    shard = tmp_path / manifest["shards"][0]["file"]
    good = shard.read_bytes()
    bad = bytearray(good)
    bad[len(bad) // 2] ^= 0xFF
    shard.write_bytes(bytes(bad))
    with pytest.raises(ValueError, match="sha256"):
        load_dataset(str(tmp_path))
    shard.write_bytes(good)
    d = load_dataset(str(tmp_path), fields=["action"])
    assert set(d) == {"action"}


def test_cli_selfplay(tmp_path, capsys):
    from sequence_game.cli import main

    rc = main(["selfplay", "--games", "2", "--shard-games", "1", "--out", str(tmp_path / "d"), "--workers", "1",
               "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0 and "positions from 2 games in 2 shard(s)" in out
    assert (tmp_path / "d" / MANIFEST_NAME).exists()
    rc = main(["selfplay", "nonsense", "--games", "1", "--out", str(tmp_path / "e")])
    assert rc == 1 and "unknown agent" in capsys.readouterr().err


@pytest.mark.parametrize("key,value,message", [
    ("file", "../../outside.npz", r"line 2: shard 0's file is shard-00000.npz, not '../../outside.npz'"),
    ("sha256", "XYZ", r"line 2: 'sha256' must be 64 lowercase hex digits"),
    ("games", [0, 5], r"line 2: shard 0 holds games \[0, 2\], not \[0, 5\]"),
    ("positions", -1, r"line 2: 'positions' must be an int"),
    ("index", 3, r"line 2: 'index' must be an int 0..1, not 3"),
])
def test_resume_checks_every_log_line(tmp_path, key, value, message):
    out = str(tmp_path)
    selfplay(["greedy"], games=4, out=out, seed=9, shard_games=2)
    log = os.path.join(out, LOG_NAME)
    with open(log) as f:
        lines = [json.loads(x) for x in f]
    lines[1][key] = value
    with open(log, "w") as f:
        f.write("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(ValueError, match=message):
        selfplay(["greedy"], games=4, out=out, seed=9, shard_games=2, resume=True)


def test_the_default_cap_is_recorded_and_a_run_resumes_with_its_own(tmp_path, capsys):
    from sequence_game.cli import main
    from sequence_game.game_setup import RUN_MAX_TURNS

    assert selfplay(["greedy"], games=1, out=str(tmp_path / "new"), seed=1)["max_turns"] == RUN_MAX_TURNS
    old = str(tmp_path / "old")
    selfplay(["greedy"], games=2, out=old, seed=1, shard_games=1, max_turns=None)  # a run without a cap
    assert main(["selfplay", "greedy", "--out", old, "--games", "3", "--shard-games", "1", "--seed", "1",
                 "--resume", "--no-progress", "--workers", "1"]) == 0
    with open(os.path.join(old, MANIFEST_NAME)) as f:
        manifest = json.load(f)
    assert manifest["max_turns"] is None and manifest["games"] == 3


def test_capped_games_are_counted_as_draws(tmp_path, capsys):
    from sequence_game.cli import main

    manifest = selfplay(["greedy"], games=3, out=str(tmp_path / "a"), seed=2, shard_games=2, max_turns=4)
    assert manifest["draws"] == manifest["capped_games"] == 3
    data = load_dataset(str(tmp_path / "a"))
    assert (data["game_winner"] == -1).all() and (data["game_turns"] == 4).all()
    assert main(["selfplay", "greedy", "--games", "2", "--max-turns", "4", "--out", str(tmp_path / "b"),
                 "--no-progress", "--workers", "1"]) == 0
    assert "2 draws, 2 of them stopped at the turn cap (4 turns)" in capsys.readouterr().out
