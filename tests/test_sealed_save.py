"""Sealed saves (GameRecord.seal, records.py): a save a local player cannot read hidden cards from
(R9). The seeds (the first and every redeal's after an undo) predict every hidden card, so they are
the fields sealed; everything in the clear is public (the setup, the seats, every move, where the
redeals were, the result) and must not depend on any seed at all."""

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
    assert "seed" not in a and "rng" not in text and set(a["sealed"]) == {"nonce", "seeds", "tag"}
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
    flipped = dict(sealed["sealed"], seeds=format(int(sealed["sealed"]["seeds"], 16) ^ 1, "016x"))
    with pytest.raises(ValueError, match="does not open"):
        GameRecord.unseal({**sealed, "sealed": flipped}, key)


@pytest.mark.parametrize("bad, exc, words", [
    ({"format": "sequence-game-record/1"}, ValueError, ["not a sealed save", "GameRecord.from_dict"]),
    ([], ValueError, ["not a sealed save"]),
    ({"format": SEALED_FORMAT, "sealed": {"nonce": "zz", "seeds": "", "tag": ""}}, ValueError, ["'sealed' must be"]),
    ({"format": SEALED_FORMAT, "sealed": {"nonce": "0" * 32, "seeds": "0" * 16, "tag": "0" * 64},
      "redeals": [{"at": 0, "keep": [0], "seed": 1}]}, ValueError, ["'redeals' must be", "in 'sealed'"]),
    ({"format": SEALED_FORMAT, "sealed": {"nonce": "0" * 32, "seeds": "0" * 16, "tag": "0" * 64},
      "redeals": [{"at": 0, "keep": [0]}]}, ValueError, ["'seeds': 32"]),
    ({"format": SEALED_FORMAT, "redeals": "x"}, ValueError, ["'redeals' must be"]),
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


# --------------------------------------------------------------------------- games with undos

def _game_with_undos(seed, rounds=3, Game=None):
    """A game played by random moves in which, ``rounds`` times, the seat to move takes back one to
    three entries and the game is redealt keeping that seat's knowledge (R9, Game.redealt), as an
    app does after an undo. Returns the final game and, for each redeal, ``(before, after, keep)``:
    the position before it and the game right after it."""
    import random

    rng = random.Random(seed)
    game = (Game or sequence_game.Game)(players=rng.choice([2, 3, 4]), seed=rng.randrange(2**64))
    redeals = []
    for _ in range(rounds):
        for _ in range(rng.randrange(2, 12)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        for _ in range(min(rng.randrange(1, 4), len(game.history))):
            game.undo()
        keep = [game.current_player]
        after = game.redealt(keep)
        redeals.append((game.copy(), after.copy(), keep))
        game = after
    for _ in range(rng.randrange(0, 6)):
        if not game.is_over:
            game.play(rng.choice(game.legal_moves()))
    return game, redeals


def _hidden(game, seat):
    """What ``seat`` cannot see: the other hands and the draw pile."""
    d = game.to_dict()
    return [h for p, h in enumerate(d["hands"]) if p != seat], d["draw_pile"]


def _leaves(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}.{k}" if path else k)
    elif isinstance(value, list):
        for v in value:
            yield from _leaves(v, path + "[]")
    else:
        yield path, value


def _candidate_seeds(sealed):
    """Every number a player can read from a sealed save: each int in it, and each 8-byte word of
    every hex string (either byte order), the ciphertext and the nonce included."""
    found = set()
    for _, v in _leaves(sealed):
        if isinstance(v, bool):
            continue
        if isinstance(v, int) and 0 <= v < 2**64:
            found.add(v)
        if isinstance(v, str) and v and all(c in "0123456789abcdef" for c in v):
            raw = bytes.fromhex(v) if len(v) % 2 == 0 else b""
            for i in range(len(raw) - 7):
                found.update({int.from_bytes(raw[i:i + 8], "little"), int.from_bytes(raw[i:i + 8], "big")})
    return found


#: Every field of a sealed save a player can read, all public (R9). A new field must be added here
#: only once it is known not to depend on a seed.
PUBLIC_FIELDS = {"format", "players", "teams", "max_turns", "agents[]", "moves[]", "result", "result.winner",
                 "result.is_draw", "result.turns", "started", "finished", "redeals[].at", "redeals[].keep[]",
                 "resigned", "sealed.nonce", "sealed.seeds", "sealed.tag"}


@pytest.mark.parametrize("seed", range(6))
def test_r9_a_sealed_save_of_a_game_with_undos_hides_every_hidden_card(seed):
    """The attack a readable redeal seed allows: the cards a redeal shuffles are all the cards a seat
    cannot see, a set its own view determines, so with the seed it computes the other hands and the
    draw pile. From every number in a sealed save (and each seat's view), no deal and no redeal is
    reproduced; and every readable field is a public one."""
    game, redeals = _game_with_undos(seed)
    record = GameRecord.from_game(game)
    assert len(record.redeals) == len(redeals)
    sealed = json.loads(json.dumps(record.seal(new_key())))
    assert {path for path, _ in _leaves(sealed)} <= PUBLIC_FIELDS
    candidates = _candidate_seeds(sealed)
    for seat in range(game.players):
        candidates |= _candidate_seeds(game.observation(seat))
    dealt = record.new_game()
    for x in candidates:
        guess = sequence_game.Game(players=record.players, teams=record.teams, seed=x)
        assert [guess.hand(p) for p in range(1, record.players)] != [dealt.hand(p) for p in range(1, record.players)]
        for before, after, keep in redeals:
            assert _hidden(before.redealt(keep, seed=x), keep[0]) != _hidden(after, keep[0])
    # the attack works with the real seeds: the test would see a readable one
    for (before, after, keep), r in zip(redeals, record.redeals):
        assert _hidden(before.redealt(keep, seed=r["seed"]), keep[0]) == _hidden(after, keep[0])


@pytest.mark.parametrize("seed", range(4))
def test_r9_nothing_in_the_clear_depends_on_any_seed_of_a_game_with_undos(seed):
    """Each seed replaced in turn (the first, then each redeal's): the clear part is unchanged, so it
    says nothing about any of them; the sealed part is the same size."""
    game, _ = _game_with_undos(seed)
    record = GameRecord.from_game(game)
    key = new_key()
    clear = {k: v for k, v in record.seal(key).items() if k != "sealed"}
    variants = [GameRecord.from_dict({**record.to_dict(), "seed": record.seed ^ 0x9E3779B97F4A7C15})]
    for i in range(len(record.redeals)):
        redeals = [dict(r) for r in record.redeals]
        redeals[i]["seed"] ^= 0x9E3779B97F4A7C15
        variants.append(GameRecord.from_dict({**record.to_dict(), "redeals": redeals}))
    for other in variants:
        sealed = other.seal(key)
        assert {k: v for k, v in sealed.items() if k != "sealed"} == clear
        assert len(sealed["sealed"]["seeds"]) == 16 * (1 + len(record.redeals))
        assert GameRecord.unseal(sealed, key) == other


@pytest.mark.parametrize("impl", ["core", "reference"])
def test_a_game_redealt_after_an_undo_is_recorded_from_its_deal(impl):
    from sequence_game.reference import Game as ReferenceGame

    Game = sequence_game.Game if impl == "core" else ReferenceGame
    game, redeals = _game_with_undos(11, rounds=3, Game=Game)
    record = GameRecord.from_game(game.copy())  # a copy keeps where it came from
    assert [r["keep"] for r in record.redeals] == [keep for _, _, keep in redeals]
    assert [r["at"] for r in record.redeals] == sorted(r["at"] for r in record.redeals)
    assert record.replay(Game).to_dict() == game.to_dict()
    assert GameRecord.from_json(record.to_json()) == record
    key = new_key()
    reopened = GameRecord.unseal(record.seal(key), key)
    assert reopened == record and reopened.replay(Game).to_dict() == game.to_dict()
    chosen = redeals[0][0].redealt([0], seed=123)  # a seed chosen by the caller is the one recorded
    assert GameRecord.from_game(chosen).redeals[-1]["seed"] == 123


def test_a_game_redealt_from_a_loaded_position_is_refused_by_name():
    g = sequence_game.Game(players=2, seed=3)
    g.play(g.legal_moves()[0])
    loaded = sequence_game.Game.from_dict(g.to_dict())
    for game in (loaded, loaded.redealt([0])):
        with pytest.raises(ValueError, match="from_dict or pickle"):
            GameRecord.from_game(game)


def test_a_save_of_the_first_sealed_format_still_opens():
    """Saves written before the redeal seeds were sealed too ("sequence-game-sealed/1": the first
    seed alone under a pad of HMAC-SHA256(key, label + nonce)) still open with their key."""
    import hashlib
    import hmac as hmac_

    record = _record(plies=6)
    key = new_key()
    public = {**record.to_dict(), "format": "sequence-game-sealed/1"}
    del public["seed"]
    nonce = bytes(range(16))
    pad = hmac_.new(key, b"sequence-game-sealed/1 seed " + nonce, hashlib.sha256).digest()[:8]
    cipher = bytes(a ^ b for a, b in zip(record.seed.to_bytes(8, "little"), pad))
    body = json.dumps(public, sort_keys=True, separators=(",", ":")).encode()
    tag = hmac_.new(key, b"sequence-game-sealed/1 tag " + nonce + cipher + body, hashlib.sha256).digest()
    old = {**public, "sealed": {"nonce": nonce.hex(), "seed": cipher.hex(), "tag": tag.hex()}}
    assert GameRecord.unseal(old, key) == record
    with pytest.raises(ValueError, match="does not open"):
        GameRecord.unseal({**old, "moves": old["moves"][:-1]}, key)


@pytest.mark.parametrize("change, words", [
    ({"seed": -1}, ["'seed' must be from 0 to 2**64 - 1"]),
    ({"seed": 2**64}, ["'seed' must be from 0 to 2**64 - 1"]),
    ({"redeals": [{"at": 0, "keep": [0], "seed": 2**64}]}, ["redeal", "out of range"]),
    ({"players": "2"}, ["'players' must be an int"]),
])
def test_a_record_built_by_hand_is_checked_before_it_is_sealed(change, words):
    import dataclasses

    record = dataclasses.replace(_record(plies=2), **change)
    with pytest.raises(ValueError) as e:
        record.seal(new_key())
    for w in words:
        assert w in str(e.value)
