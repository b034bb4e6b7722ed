"""Regenerate the seed corpus in fuzz/corpus/ (deterministic): run from the repo root.

* ``moves.txt``: every distinct move text played in random games of every split (places with and
  without declares, removals, trades, passes), plus hand-written edge spellings;
* ``states/*.json``: ``to_dict()`` of real games (deal, mid-game, won, drawn by the turn cap, a
  dead-card trade made, after referee calls) and edge positions (empty draw pile, short hands,
  9 in a row, 3 teams).
"""

from __future__ import annotations

import json
import os
import random

from sequence_game import Game

HERE = os.path.dirname(os.path.abspath(__file__))
SPLITS = [(2, 2), (3, 3), (4, 2), (6, 2), (6, 3), (8, 2), (9, 3), (10, 2), (12, 2), (12, 3)]


def main() -> None:
    states_dir = os.path.join(HERE, "corpus", "states")
    os.makedirs(states_dir, exist_ok=True)
    for name in os.listdir(states_dir):
        os.remove(os.path.join(states_dir, name))
    moves = set()
    states = {}
    rng = random.Random(2024)
    for players, teams in SPLITS:
        for seed in range(4):
            g = Game(players=players, teams=teams, seed=seed, max_turns=40 if seed == 3 else None)
            tag = f"{players}p{teams}t-s{seed}"
            states[f"{tag}-deal"] = g.to_dict()
            while not g.is_over:
                legal = g.legal_moves()
                m = rng.choice(legal)
                moves.add(str(m))
                g.play(m)
                if m.kind == "trade" and f"{tag}-traded" not in states:
                    states[f"{tag}-traded"] = g.to_dict()
                if g.turn == 25 and f"{tag}-mid" not in states:
                    states[f"{tag}-mid"] = g.to_dict()
                    # referee calls on a copy
                    c = g.copy()
                    last = c.to_dict()["last_draw"]
                    if last is not None:
                        c.missed_draw(last["player"])
                        states[f"{tag}-missed-draw"] = c.to_dict()
                    members = [p for p in range(c.players) if p % c.teams == 0]
                    if all(c.hand(p) for p in members):
                        c.table_talk_penalty(0, {p: c.hand(p)[0] for p in members})
                        states[f"{tag}-table-talk"] = c.to_dict()
                if any(m.declares for m in legal) and f"{tag}-declare" not in states:
                    states[f"{tag}-declare"] = g.to_dict()
            states[f"{tag}-end"] = g.to_dict()
    # Edge positions.
    d = states["2p2t-s0-mid"]
    empty = json.loads(json.dumps(d))
    empty["discards"][0] += empty["draw_pile"]
    empty["draw_pile"] = []
    states["edge-empty-draw-pile"] = empty
    short = json.loads(json.dumps(d))
    short["discards"][1] += short["hands"][1][:3]
    short["hands"][1] = short["hands"][1][3:]
    short["last_draw"] = None
    states["edge-short-hand"] = short
    states["edge-minimal"] = {"players": 2, "hands": [["7H"], ["JD"]]}
    nine = {"players": 2, "hands": [["2H", "JD"], ["3S"]],
            "board": ["*.........", "..........", "..........", "..........", "..........",
                      "BBBB.BBBB.", "..........", "..........", "..........", "*........*"]}
    nine["board"][0] = "*........*"
    states["edge-nine-in-a-row"] = nine
    three = {"players": 3, "hands": [["JC"], ["JS"], ["JH"]],
             "board": ["*GGGG....*", "..........", "..........", "..........", "..........",
                       "..........", "..........", "..........", "..........", "*RRRR...B*"]}
    states["edge-three-teams"] = three
    for name, st in sorted(states.items()):
        with open(os.path.join(states_dir, name + ".json"), "w") as f:
            json.dump(st, f, indent=None, sort_keys=True)
    extra = ["pass", "PASS", " pass ", "trade 10h", "TRADE 7h", "7h@D6", "10D@b10", "JSxe5", "jhXa2",
             "2H@e6 =a6-e6 =e6-i6", "2H@e6=a6-e6", "JD@a2 =a1-a5", "JC@j5 =j1-j5 =j5-j9", "QS@j3 =j1-j5"]
    with open(os.path.join(HERE, "corpus", "moves.txt"), "w") as f:
        for m in sorted(moves) + extra:
            f.write(m + "\n")
    write_byte_seeds(sorted(moves) + extra, states)
    print(f"{len(states)} states, {len(moves) + len(extra)} moves")


def write_byte_seeds(moves, states) -> None:
    """Raw inputs for the atheris targets (fuzz/harness.py decodes them with Reader)."""
    rng = random.Random(7)
    seeds = {
        # mode 100 = the rest as utf-8 text
        "parse": [bytes([100]) + m.encode() for m in rng.sample(moves, 60)] + [bytes([7, i, 0, 0]) for i in range(20)],
        # [state index, mode, extra, ...]: mode 0 = text, 120 = an edited legal move, 180 = a legal Move
        "play": [bytes([rng.randrange(256), 0, 1]) + m.encode() for m in rng.sample(moves, 30)]
        + [bytes([rng.randrange(256), mode, 1, rng.randrange(256), rng.randrange(256)]) for mode in (120, 180, 210, 240, 250)
           for _ in range(6)],
        "from_dict_json": [bytes([0]) + json.dumps(states[k]).encode() for k in sorted(states)[::12]],
        "from_dict": [bytes(rng.randrange(256) for _ in range(12)) for _ in range(30)],
        "core_position": [bytes(rng.randrange(256) for _ in range(12)) for _ in range(30)],
        # [state index, mode, ...]: mode < 100 a spoiled legal id, 120 a legal id, 150 random bits,
        # 190 a lying int, 210 any value, 230 an action number, 250 any value as an action
        "play_id": [bytes([rng.randrange(256), mode] + [rng.randrange(256) for _ in range(8)])
                    for mode in (10, 50, 90, 120, 150, 160, 190, 210, 230, 235, 250) for _ in range(4)],
        # mode 0 = utf-8 text, 110 = raw bytes, 200 = a mutated real record
        "record": [bytes([0]) + b'{"format": "sequence-game-record/1", "players": 2, "teams": 2, "seed": 1, "moves": []}',
                   bytes([0]) + b"[" * 5000, bytes([110]) + b"\xff\xfe\x00\x00", bytes([0]) + b'{"format": 1' + b"9" * 5000 + b"}"]
        + [bytes([200] + [rng.randrange(256) for _ in range(10)]) for _ in range(20)],
        "agent_spec": [bytes([0]) + s.encode() for s in ("greedy", "random:seed=3", "mcts:iters=50,threads=2",
                                                         "rollout:iters=10", "bogus", "mcts:", ":", "mcts:iters=x",
                                                         "GREEDY:seed=1", "random:seed=-1")],
    }
    for name, items in seeds.items():
        folder = os.path.join(HERE, "corpus", name)
        os.makedirs(folder, exist_ok=True)
        for fn in os.listdir(folder):
            os.remove(os.path.join(folder, fn))
        for i, data in enumerate(items):
            with open(os.path.join(folder, f"seed-{i:03d}"), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
