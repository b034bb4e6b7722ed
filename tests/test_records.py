"""Game records and play_game (python/sequence_game/records.py)."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from sequence_game import Move
from sequence_game.agents import GreedyAgent, RandomAgent
from sequence_game.records import RECORD_FORMAT, AgentMoveError, GameRecord, Step, default_game_class, play_game


def _played(Game, players=2, seed=5, agents=None, **kw):
    final = {}

    def keep(game, move, player):
        final["state"] = game.to_dict()

    agents = agents or [GreedyAgent(seed=1), RandomAgent(seed=2)]
    rec = play_game(agents, players=players, seed=seed, game_class=Game, on_move=keep, **kw)
    return rec, final["state"]


def test_play_game_record_fields(Game):
    rec, final = _played(Game)
    assert rec.players == 2 and rec.teams == 2 and rec.seed == 5 and rec.max_turns is None
    assert rec.agents == ["greedy:seed=1", "random:seed=2"]
    assert rec.result == {"winner": final["winner"], "is_draw": final["is_draw"], "turns": final["turn"]}
    assert rec.result["winner"] is not None or rec.result["is_draw"]
    assert all(isinstance(m, str) for m in rec.moves) and len(rec.moves) >= rec.result["turns"]
    for stamp in (rec.started, rec.finished):
        assert stamp.endswith("Z")
        t = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        assert t.tzinfo is not None and t.utcoffset() == timezone.utc.utcoffset(None)
    assert rec.started <= rec.finished


def test_save_load_replay_round_trip(Game, tmp_path):
    rec, final = _played(Game, seed=11)
    path = tmp_path / "game.json"
    rec.save(path)
    data = json.loads(path.read_text())
    assert data["format"] == RECORD_FORMAT
    loaded = GameRecord.load(path)
    assert loaded == rec
    assert GameRecord.from_json(rec.to_json()) == rec
    assert loaded.replay(Game).to_dict() == final


def test_replay_reproduces_every_player_count(Game):
    for players, teams in ((3, None), (4, None), (6, 3), (9, None), (12, 2)):
        rec, final = _played(Game, players=players, seed=players, agents=["greedy", "random"], teams=teams)
        assert rec.players == players
        assert GameRecord.from_json(rec.to_json()).replay(Game).to_dict() == final


def test_record_with_trades_and_passes_replays(Game):
    # Random play with a turn cap: long games pass through trades (and sometimes passes).
    kinds = set()
    for seed in range(6):
        rec, final = _played(Game, seed=seed, agents=[RandomAgent(seed=seed)], max_turns=300)
        kinds |= {Move.parse(m).kind for m in rec.moves}
        assert rec.replay(Game).to_dict() == final
    assert "trade" in kinds


def test_positions_steps_through_the_game(Game):
    rec, final = _played(Game, seed=3)
    steps = list(rec.positions(Game))
    assert len(steps) == len(rec.moves) + 1
    assert isinstance(steps[0], Step) and steps[0].index == 0 and steps[0].move is None
    assert steps[0].game.turn == 0
    assert [str(s.move) for s in steps[1:]] == rec.moves
    assert steps[-1].game.to_dict() == final
    assert steps[1].game is not steps[2].game and steps[1].game.to_dict() != steps[-1].game.to_dict()


def test_corrupt_record_is_refused_naming_the_first_bad_move(Game):
    rec, _ = _played(Game, seed=4)
    # Replace move 6 by a play of a card the player does not hold.
    g = rec.new_game(Game)
    for m in rec.moves[:6]:
        g.play(m)
    hand = set(g.hand(g.current_player))
    bad_card = next(c for c in ("2S", "3S", "4S", "5S", "6S", "7S", "8S") if c not in hand)
    bad = f"{bad_card}@" + "bcdefgh"["2345678".index(bad_card[0])] + "1"
    edited = GameRecord.from_dict({**rec.to_dict(), "moves": rec.moves[:6] + [bad] + rec.moves[7:]})
    with pytest.raises(ValueError) as err:
        edited.replay(Game)
    msg = str(err.value)
    assert "move 6" in msg and bad in msg and "does not hold" in msg
    with pytest.raises(ValueError, match="move 6"):
        list(edited.positions(Game))


def test_malformed_move_text_is_refused_by_index(Game):
    rec, _ = _played(Game, seed=4)
    edited = GameRecord.from_dict({**rec.to_dict(), "moves": rec.moves[:2] + ["7H@z99"] + rec.moves[3:]})
    with pytest.raises(ValueError, match=r"move 2 '7H@z99'"):
        edited.replay(Game)


def test_moves_after_the_end_and_wrong_results_are_refused(Game):
    rec, _ = _played(Game, seed=6)
    longer = GameRecord.from_dict({**rec.to_dict(), "moves": rec.moves + ["pass"]})
    with pytest.raises(ValueError, match=rf"move {len(rec.moves)} 'pass'.*over"):
        longer.replay(Game)
    shorter = GameRecord.from_dict({**rec.to_dict(), "moves": rec.moves[:-1]})
    with pytest.raises(ValueError, match="still going"):
        shorter.replay(Game)
    lied = GameRecord.from_dict({**rec.to_dict(), "result": {**rec.result, "turns": rec.result["turns"] + 1}})
    with pytest.raises(ValueError, match="record says"):
        lied.replay(Game)
    # An unfinished record (no result) replays to wherever its moves lead.
    unfinished = GameRecord.from_dict({**rec.to_dict(), "moves": rec.moves[:10], "result": None})
    assert unfinished.replay(Game).turn <= 10


def test_malformed_records_are_refused(tmp_path):
    rec = GameRecord(players=2, teams=2, seed=1, agents=["a", "b"], moves=["pass"])
    good = rec.to_dict()
    with pytest.raises(ValueError, match="not valid JSON"):
        GameRecord.from_json("{not json")
    with pytest.raises(ValueError, match="format"):
        GameRecord.from_dict({**good, "format": "something-else/1"})
    with pytest.raises(ValueError, match=r"Game\.from_dict"):
        GameRecord.from_dict({**good, "format": "sequence-game/1"})
    with pytest.raises(ValueError, match="format"):
        GameRecord.from_dict({k: v for k, v in good.items() if k != "format"})
    for field in ("players", "teams", "seed", "moves"):
        with pytest.raises(ValueError, match=f"missing field.*{field}"):
            GameRecord.from_dict({k: v for k, v in good.items() if k != field})
    with pytest.raises(ValueError, match="unknown field"):
        GameRecord.from_dict({**good, "extra": 1})
    with pytest.raises(ValueError, match="moves"):
        GameRecord.from_dict({**good, "moves": "7H@d6"})
    with pytest.raises(ValueError, match="seed"):
        GameRecord.from_dict({**good, "seed": "12"})
    with pytest.raises(ValueError, match="result"):
        GameRecord.from_dict({**good, "result": {"winner": 0}})
    with pytest.raises(ValueError, match="a game record is a JSON object"):
        GameRecord.from_json("[1, 2]")
    path = tmp_path / "bad.json"
    path.write_text('{"format": "nope"}')
    with pytest.raises(ValueError, match=r"bad\.json"):
        GameRecord.load(path)
    with pytest.raises(ValueError, match="cannot be set up"):
        GameRecord.from_dict({**good, "players": 5}).replay()


def test_play_game_names_an_agent_that_plays_illegally(Game):
    class Cheater:
        name = "cheater"

        def select_move(self, game):
            return Move("pass")  # never legal while a play exists

    with pytest.raises(AgentMoveError, match=r"agent 'cheater' \(player \d\) chose an illegal move pass") as err:
        play_game([Cheater(), RandomAgent(seed=1)], players=2, seed=1, game_class=Game)
    assert err.value.agent == "cheater" and err.value.move == Move("pass")

    class Nonsense:
        def select_move(self, game):
            return 42

    with pytest.raises(AgentMoveError, match="Nonsense"):
        play_game([Nonsense()], players=2, seed=1, game_class=Game)


def test_play_game_refuses_an_agent_that_changes_the_game(Game):
    class Meddler:
        def select_move(self, game):
            m = game.legal_moves()[0]
            game.play(m)
            return m

    with pytest.raises(RuntimeError, match="changed the game"):
        play_game([Meddler()], players=2, seed=1, game_class=Game)


def test_play_game_accepts_text_moves_and_cycles_agents(Game):
    class Texter:
        name = "texter"

        def select_move(self, game):
            legal = game.legal_moves()
            m = legal[-1]
            same = [x for x in legal if (x.kind, x.card, x.cell) == (m.kind, m.card, m.cell)]
            if m.kind == "place" and len(same) == 1:  # declares left out: the engine fills it in
                return str(Move(m.kind, m.card, m.cell))
            return str(m)

    rec = play_game([Texter(), "random:seed=1"], players=4, seed=2, game_class=Game, max_turns=60)
    assert rec.agents == ["texter", "random:seed=1", "texter", "random:seed=1"]
    assert rec.replay(Game).turn == rec.result["turns"]
    with pytest.raises(ValueError, match="at most one per seat"):
        play_game(["random"] * 3, players=2, game_class=Game)


def test_play_game_seed_is_reproducible(Game):
    a = play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], seed=8, game_class=Game)
    b = play_game([GreedyAgent(seed=1), GreedyAgent(seed=2)], seed=8, game_class=Game)
    assert a.moves == b.moves and a.result == b.result
    c = play_game(["random"], game_class=Game)  # seed None: a random seed, recorded
    assert isinstance(c.seed, int) and c.replay(Game).turn == c.result["turns"]


def test_default_game_class():
    cls = default_game_class()
    assert cls.__name__ == "Game"
    try:
        from sequence_game import _core  # noqa: F401
    except ImportError:
        assert cls.__module__ == "sequence_game.reference.game"
    else:
        assert cls.__module__ == "sequence_game.game"


def test_redeals_replay_round_trip_and_are_checked():
    """A record with redeals (an undo at a table, Game.redealt) replays through them; the field is
    left out when empty and a malformed one is refused naming it."""
    import random

    from sequence_game import Game

    g = Game(players=3, seed=12)
    rng = random.Random(12)
    moves = []
    for _ in range(6):
        m = rng.choice(g.legal_moves())
        moves.append(str(m))
        g.play(m)
    redealt = g.redealt([0], seed=99)
    more = str(redealt.legal_moves()[0])
    redealt.play(more)
    rec = GameRecord(players=3, teams=3, seed=12, moves=[*moves, more],
                     redeals=[{"at": 6, "keep": [0], "seed": 99}])
    assert rec.replay().to_dict() == redealt.to_dict()
    game, history, movers = rec.rebuild()
    assert [str(e) for e in history] == rec.moves and game.history == history[6:] and len(movers) == 7
    assert [s.game.to_dict() for s in rec.positions()][-1] == redealt.to_dict()
    assert GameRecord.from_json(rec.to_json()) == rec
    assert "redeals" not in GameRecord(players=2, teams=2, seed=1).to_dict()
    for bad, fragment in [({"at": 9, "keep": [0], "seed": 1}, "out of range"),
                          ({"at": 1, "keep": [0]}, "a redeal must be"),
                          ({"at": 1, "keep": [0], "seed": -1}, "out of range"),
                          ({"at": 1, "keep": "0", "seed": 1}, "a redeal must be")]:
        d = rec.to_dict()
        d["redeals"] = [bad]
        with pytest.raises(ValueError, match=fragment):
            GameRecord.from_dict(d)
    d = rec.to_dict()
    d["redeals"] = [{"at": 6, "keep": [7], "seed": 1}]
    with pytest.raises(ValueError, match="redeal after 6 moves is refused"):
        GameRecord.from_dict(d).replay()


def test_from_game_refuses_a_game_without_a_deal_seed(Game):
    # a record replays from the deal's seed: a game-like object without one gives no record, not a
    # record that fails only when replayed
    class NoSeed(Game):
        seed = property(lambda self: None)

    with pytest.raises(ValueError, match="dealt from a seed"):
        GameRecord.from_game(NoSeed(seed=3))
