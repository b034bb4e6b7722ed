"""Sealed saves (GameRecord.seal, records.py): a save a local player cannot read hidden cards from
(R9). The seed predicts every hidden card, so it is the one field sealed; everything in the clear
is public (the setup, the seats, every move, the result) and must not depend on the seed at all."""

from __future__ import annotations

import json
import re

import pytest
import sequence_game
from sequence_game import GameRecord
from sequence_game.records import SEALED_FORMAT, new_key

CARD = re.compile(r"\b(?:10|[2-9TJQKA])[SHDC]\b")


def _record(seed=17, plies=None):
    if plies is None:
        return sequence_game.play_game(["greedy", "random:seed=1"], seed=seed)
    g = sequence_game.Game(players=2, seed=seed)
    for _ in range(plies):
        g.play(g.legal_moves()[0])
    return GameRecord.from_game(g)


def test_a_sealed_save_reopens_with_its_key_and_replays_with_undo():
    record = _record(plies=12)
    key = new_key()
    reopened = GameRecord.unseal(json.loads(json.dumps(record.seal(key))), key)
    assert reopened == record
    game, original = reopened.replay(), record.replay()
    assert game.to_dict() == original.to_dict()
    game.undo()  # a record keeps the history, so undo works after loading
    original.undo()
    assert game.to_dict() == original.to_dict()


def test_r9_nothing_in_the_clear_depends_on_the_seed():
    """The same moves under another seed (other hands, another draw pile) give the same clear part."""
    record = _record(seed=None)  # a 64-bit seed from the OS: its digits cannot appear by chance
    key = new_key()
    other = GameRecord.from_dict({**record.to_dict(), "seed": record.seed ^ 0x5DEECE66D})
    a, b = record.seal(key), other.seal(key)
    assert a["format"] == SEALED_FORMAT
    assert {k: v for k, v in a.items() if k != "sealed"} == {k: v for k, v in b.items() if k != "sealed"}
    text = json.dumps(a)
    assert "seed" not in a and "rng" not in text and set(a["sealed"]) == {"nonce", "seed", "tag"}
    assert str(record.seed) not in text and format(record.seed, "016x") not in text


@pytest.mark.parametrize("seed", [3, 17, 40])
def test_r9_every_card_in_a_sealed_save_is_one_every_player_saw(seed):
    """The save names only cards that were played (moves, trades): each is on a discard pile that
    every player's observation shows."""
    record = _record(seed=seed)
    game = record.replay()
    text = json.dumps({k: v for k, v in record.seal(new_key()).items() if k != "sealed"})
    named = CARD.findall(text)
    assert named
    for p in range(game.players):
        seen = [c for pile in game.observation(p)["discards"] for c in pile]
        for card in set(named):
            assert named.count(card) <= seen.count(card), (p, card)


def test_sealing_twice_gives_different_data():
    record = _record(plies=4)
    key = new_key()
    assert record.seal(key)["sealed"] != record.seal(key)["sealed"]


def test_another_key_or_a_changed_save_is_refused():
    record = _record(plies=6)
    key = new_key()
    sealed = record.seal(key)
    with pytest.raises(ValueError, match="does not open"):
        GameRecord.unseal(sealed, new_key())
    changed = {**sealed, "moves": sealed["moves"][:-1]}
    with pytest.raises(ValueError, match="does not open"):
        GameRecord.unseal(changed, key)
    flipped = dict(sealed["sealed"], seed=format(int(sealed["sealed"]["seed"], 16) ^ 1, "016x"))
    with pytest.raises(ValueError, match="does not open"):
        GameRecord.unseal({**sealed, "sealed": flipped}, key)


@pytest.mark.parametrize("bad, exc, words", [
    ({"format": "sequence-game-record/1"}, ValueError, ["not a sealed save", "GameRecord.from_dict"]),
    ([], ValueError, ["not a sealed save"]),
    ({"format": SEALED_FORMAT, "sealed": {"nonce": "zz", "seed": "", "tag": ""}}, ValueError, ["'sealed' must be"]),
    ({"format": SEALED_FORMAT, "seed": 3}, ValueError, ["no 'seed'"]),
])
def test_a_malformed_sealed_save_is_named(bad, exc, words):
    with pytest.raises(exc) as e:
        GameRecord.unseal(bad, new_key())
    for w in words:
        assert w in str(e.value)


@pytest.mark.parametrize("key, exc", [("secret", TypeError), (b"short", ValueError), (None, TypeError)])
def test_a_bad_key_is_named(key, exc):
    with pytest.raises(exc, match="key"):
        _record(plies=2).seal(key)


def test_save_sealed_and_load_sealed(tmp_path):
    record = _record(plies=8)
    key = new_key()
    path = tmp_path / "game.json"
    record.save_sealed(path, key)
    assert GameRecord.load_sealed(path, key) == record
    with pytest.raises(ValueError, match=str(path)):
        GameRecord.load_sealed(path, new_key())
    (tmp_path / "junk.json").write_text("{")
    with pytest.raises(ValueError, match="not JSON"):
        GameRecord.load_sealed(tmp_path / "junk.json", key)
