"""Self-play datasets: positions, the move played, the search's visits and the final result, in
``.npz`` shards with a manifest.

>>> import tempfile
>>> out = tempfile.mkdtemp()
>>> manifest = selfplay(["greedy"], games=2, out=out, seed=1)
>>> data = load_dataset(out)
>>> data["observation"].shape[0] == manifest["positions"], data["legal_mask"].shape[1]
(True, 5253)

A run is a job like a match (:mod:`sequence_game.arena.jobs`): game ``g`` is dealt from
``derive_seed(seed, g)`` and seat ``p``'s agent is seeded with ``derive_seed(deal seed, p)``, so
the data does not depend on how many processes or machines made it (with fixed budgets:
``mcts:iters=800``, not ``mcts:time=...``). The unit of work is a *shard* of ``shard_games``
consecutive games; a worker plays the shard and compresses it, this process writes
``shard-NNNNN.npz`` (atomically: a killed run never leaves half a shard) and appends a line to
``shards.jsonl``; ``resume`` plays only the shards missing there; ``manifest.json`` describes the
finished dataset.

One row per move, for every seat, at the start of the move (before any follow-up declare choice,
R7):

============== ================= ===============================================================
field          shape, dtype      meaning
============== ================= ===============================================================
observation    (N, F) float32    ``Game.observation_tensor(player)`` of the player to move
                                 (docs/observation.md): only what that player may see (R9)
legal_mask     (N, A) bool       ``Game.legal_mask()`` over the action space (docs/action-space.md)
action         (N,) int16        the action of the move played (its first action)
move_id        (N,) uint32       the move played, as a core move id (docs/notation.md)
player, team   (N,) int8         the player to move and its team
turn           (N,) int16        the game's turn counter before the move
game           (N,) int32        the game's index in the run
outcome        (N, T) int8       the game's final result for each team: +1 won, -1 lost, 0 draw
searched       (N,) bool         whether ``policy_*`` holds a search's root visits for the row
policy_offsets (N + 1,) int64    row ``i``'s visits are ``policy_actions/visits[o[i]:o[i+1]]``
policy_actions (M,) int16        actions searched at the root (visits of moves that share a first
                                 action are summed)
policy_visits  (M,) int32        their visit counts
game_index     (G,) int32        per game: its index, deal seed (``game_seed``, uint64), winning
game_seed                        team (``game_winner``, -1 for a draw) and turns (``game_turns``)
game_winner
game_turns
============== ================= ===============================================================

``greedy`` seats play the compiled core's move heuristic (``search/heuristic.hpp``, the port of
``GreedyAgent.score_moves``; a dead card is traded first, ties broken by the seat's seed): about
two orders of magnitude faster than the Python ``GreedyAgent``. Any other agent spec plays
through ``agent_from_spec``; a search (``mcts``, ``rollout``) also gives its root visits.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import _core
from ._args import check_seed, is_int
from .actions import action_of_move_id
from .arena.results import MAX_GAMES
from .arena.runner import run_job
from .game import Game, move_from_id
from .game_setup import RUN_MAX_TURNS
from .seeds import derive_seed

if TYPE_CHECKING:
    from .gamebase import GameBase

__all__ = ["SelfplayJob", "load_dataset", "selfplay"]

DATASET_FORMAT = "sequence-game-selfplay/1"
LOG_NAME = "shards.jsonl"
MANIFEST_NAME = "manifest.json"


class _CoreGreedy:
    """The core's one-ply heuristic as a policy: trade a dead card first (R5), else the best score,
    ties broken by a seeded generator."""

    name = "greedy"

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def choose(self, game: Game, ids: Sequence[int]) -> Tuple[int, Optional[Dict[int, int]]]:
        scored = _core.heuristic_scores(game._state)
        trades = [m for m, _ in scored if m & 3 == _TRADE_KIND]
        if trades:
            return trades[0], None
        best = max(s for _, s in scored)
        top = [m for m, s in scored if s >= best - 1e-9]
        return (top[0] if len(top) == 1 else top[self._rng.randrange(len(top))]), None


_TRADE_KIND = 2  # move id bits 0-1: 0 place, 1 remove, 2 trade, 3 pass (docs/notation.md)


class _AgentPolicy:
    """Any agent; a search (an ``analyze`` method) also reports its root visits."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.search = callable(getattr(agent, "analyze", None))

    def choose(self, game: GameBase, ids: Sequence[int]) -> Tuple[int, Optional[Dict[int, int]]]:
        if len(ids) == 1:
            return ids[0], None  # nothing to decide, nothing searched
        by_move = {move_from_id(i): i for i in reversed(ids)}  # first id of each move
        if not self.search:
            return by_move[game.parse_move(self.agent.select_move(game))], None
        report = self.agent.analyze(game)
        return by_move[report.move], {by_move[m.move]: m.visits for m in report.moves}


def _policy(spec: str, seed: int) -> Any:
    name, _, rest = spec.strip().partition(":")
    if name.strip().lower() == "greedy":
        params = dict(item.split("=", 1) for item in rest.split(",") if "=" in item)
        unknown = set(params) - {"seed"}
        if unknown or ("=" not in rest and rest.strip()):
            raise ValueError(f"self-play spec {spec!r}: greedy takes only seed=N")
        return _CoreGreedy(int(params["seed"]) if "seed" in params else seed)
    from .agents import agent_from_spec

    return _AgentPolicy(agent_from_spec(spec, seed=seed))


@dataclass
class SelfplayJob:
    """A self-play run: ``games`` games by the seats' ``agents`` (specs, cycled over the seats),
    written in shards of ``shard_games`` games to the directory ``out``."""

    agents: List[str]
    games: int
    out: str
    players: int = 2
    teams: Optional[int] = None
    seed: int = 0
    max_turns: Optional[int] = RUN_MAX_TURNS  # None: no cap
    shard_games: int = 50
    extra: Dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.agents, str) or not self.agents or not all(isinstance(a, str) for a in self.agents):
            raise TypeError(f"agents must be a list of agent specs like ['greedy'], not {self.agents!r}")
        for spec in self.agents:
            _policy(spec, 0)  # a bad spec fails here with its own message
        for label, value in (("games", self.games), ("shard_games", self.shard_games)):
            if not is_int(value) or not 1 <= value <= MAX_GAMES:
                raise ValueError(f"{label} must be an int from 1 to {MAX_GAMES:,}, not {value!r}")
        if self.seed is None:
            raise TypeError("self-play needs an int seed (game g is played from the seed and g)")
        check_seed(self.seed, "the self-play seed")
        probe = Game(players=self.players, teams=self.teams, seed=0, max_turns=self.max_turns)
        if not callable(getattr(probe, "observation_tensor", None)):  # pragma: no cover - an older core
            raise RuntimeError("self-play needs Game.observation_tensor (docs/observation.md)")
        self.team_count = probe.teams
        self.features = int(probe.observation_tensor(0).shape[0])
        self.action_count = int(probe.legal_mask().shape[0])

    # ------------------------------------------------------------------ the job interface

    @property
    def size(self) -> int:
        return -(-self.games // self.shard_games)

    @property
    def title(self) -> str:
        return "self-play " + ",".join(self.agents)

    def header(self) -> Dict[str, Any]:
        return {"format": DATASET_FORMAT, "agents": list(self.agents), "games": self.games, "players": self.players,
                "teams": self.team_count, "seed": self.seed, "max_turns": self.max_turns,
                "shard_games": self.shard_games, "observation_features": self.features,
                "action_count": self.action_count}

    def identity(self) -> Dict[str, Any]:
        h = self.header()
        del h["games"]
        return h

    def check_portable(self) -> None:
        """Specs only: always portable."""

    def progress_text(self, entries: Sequence[Dict[str, Any]]) -> str:
        positions = sum(e["positions"] for e in entries)
        return f"{positions:,} positions"

    def shard_path(self, index: int) -> str:
        return os.path.join(self.out, f"shard-{index:05d}.npz")

    def execute(self, index: int) -> Dict[str, Any]:
        """Play shard ``index`` (games ``index * shard_games ..``); its log line, with the
        compressed shard in ``"npz"`` (bytes) for :meth:`store` to write."""
        if not 0 <= index < self.size:
            raise ValueError(f"shard index must be from 0 to {self.size - 1}, not {index}")
        lo, hi = index * self.shard_games, min(self.games, (index + 1) * self.shard_games)
        t0, cpu0 = time.perf_counter(), time.process_time()
        arrays = self._play_games(range(lo, hi))
        buf = io.BytesIO()
        np.savez_compressed(buf, **arrays)  # type: ignore[arg-type]  # the stub checks **arrays against allow_pickle: bool
        data = buf.getvalue()
        drawn = arrays["game_winner"] < 0
        capped = drawn & (arrays["game_turns"] >= self.max_turns) if self.max_turns else np.zeros_like(drawn)
        return {"index": index, "games": [lo, hi], "positions": int(arrays["action"].shape[0]),
                "draws": int(drawn.sum()), "capped": int(capped.sum()),
                "file": os.path.basename(self.shard_path(index)), "bytes": len(data),
                "sha256": hashlib.sha256(data).hexdigest(), "seconds": round(time.perf_counter() - t0, 4),
                "cpu_seconds": round(time.process_time() - cpu0, 4), "npz": data}

    def store(self, entry: Dict[str, Any]) -> Dict[str, Any]:
        """Write a finished shard's file (atomically) in this process; the entry without its bytes."""
        data = entry.pop("npz")
        path = self.shard_path(entry["index"])
        tmp = path + f".tmp{os.getpid()}"
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
        return entry

    # ------------------------------------------------------------------ playing

    def _play_games(self, indices: range) -> Dict[str, np.ndarray]:
        rows: Dict[str, List[Any]] = {k: [] for k in ("observation", "legal_mask", "action", "move_id", "player",
                                                      "team", "turn", "game", "searched")}
        outcome_rows: List[int] = []  # per row: its game's position in `games`
        pol_actions: List[int] = []
        pol_visits: List[int] = []
        offsets = [0]
        games: Dict[str, List[int]] = {"game_index": [], "game_seed": [], "game_winner": [], "game_turns": []}
        for g in indices:
            deal_seed = derive_seed(self.seed, g)
            game = Game(players=self.players, teams=self.teams, seed=deal_seed, max_turns=self.max_turns)
            seats = [_policy(self.agents[p % len(self.agents)], derive_seed(deal_seed, p)) for p in range(self.players)]
            while not game.is_over:
                p = game.current_player
                ids = game.legal_move_ids()
                rows["observation"].append(game.observation_tensor(p))
                rows["legal_mask"].append(game.legal_mask())
                move_id, visits = seats[p].choose(game, ids)
                rows["action"].append(action_of_move_id(move_id))
                rows["move_id"].append(move_id)
                rows["player"].append(p)
                rows["team"].append(game.team_of(p))
                rows["turn"].append(game.turn)
                rows["game"].append(g)
                rows["searched"].append(visits is not None)
                if visits is not None:
                    per_action: Dict[int, int] = {}
                    for m, v in visits.items():
                        a = action_of_move_id(m)
                        per_action[a] = per_action.get(a, 0) + v
                    for a in sorted(per_action):
                        pol_actions.append(a)
                        pol_visits.append(per_action[a])
                offsets.append(len(pol_actions))
                outcome_rows.append(len(games["game_index"]))
                game.play_id(move_id)
            winner = game.winner
            games["game_index"].append(g)
            games["game_seed"].append(deal_seed)
            games["game_winner"].append(-1 if winner is None else winner)
            games["game_turns"].append(game.turn)
        teams = self.team_count
        per_game = np.zeros((len(games["game_index"]), teams), dtype=np.int8)
        for k, w in enumerate(games["game_winner"]):
            if w >= 0:
                per_game[k, :] = -1
                per_game[k, w] = 1
        n = len(rows["action"])
        return {
            "observation": np.stack(rows["observation"]).astype(np.float32, copy=False) if n else
            np.zeros((0, self.features), np.float32),
            "legal_mask": np.stack(rows["legal_mask"]).astype(bool, copy=False) if n else
            np.zeros((0, self.action_count), bool),
            "action": np.asarray(rows["action"], dtype=np.int16),
            "move_id": np.asarray(rows["move_id"], dtype=np.uint32),
            "player": np.asarray(rows["player"], dtype=np.int8),
            "team": np.asarray(rows["team"], dtype=np.int8),
            "turn": np.asarray(rows["turn"], dtype=np.int32),  # the core's turn counter is 32-bit
            "game": np.asarray(rows["game"], dtype=np.int32),
            "outcome": per_game[np.asarray(outcome_rows, dtype=np.int64)] if n else np.zeros((0, teams), np.int8),
            "searched": np.asarray(rows["searched"], dtype=bool),
            "policy_offsets": np.asarray(offsets, dtype=np.int64),
            "policy_actions": np.asarray(pol_actions, dtype=np.int16),
            "policy_visits": np.asarray(pol_visits, dtype=np.int32),
            "game_index": np.asarray(games["game_index"], dtype=np.int32),
            "game_seed": np.asarray(games["game_seed"], dtype=np.uint64),
            "game_winner": np.asarray(games["game_winner"], dtype=np.int8),
            "game_turns": np.asarray(games["game_turns"], dtype=np.int32),
        }


def selfplay(agents: Sequence[str] = ("greedy",), games: int = 100, out: str = "selfplay", players: int = 2,
             teams: Optional[int] = None, seed: int = 0, max_turns: Optional[int] = RUN_MAX_TURNS, shard_games: int = 50,
             workers: Optional[int] = 1, ray: Any = None, resume: bool = False, progress: Any = None,
             ) -> Dict[str, Any]:
    """Play a self-play run into the directory ``out``; returns the manifest (also in
    ``out/manifest.json``).

    ``agents``: specs cycled over the seats (``["greedy"]``, ``["mcts:iters=800"]``,
    ``["mcts:iters=800", "greedy"]``). ``workers``/``ray`` as for
    :func:`sequence_game.arena.match`. ``resume=True`` continues a run in ``out`` (the same
    settings; a larger ``games`` extends it).
    """
    job = SelfplayJob(list(agents), games, str(out), players=players, teams=teams, seed=seed, max_turns=max_turns,
                      shard_games=shard_games)
    log = os.path.join(job.out, LOG_NAME)
    if os.path.exists(log) and not resume:
        raise ValueError(f"{job.out!r} already holds a self-play run: resume it or choose another directory")
    os.makedirs(job.out, exist_ok=True)
    t0 = time.perf_counter()
    entries = run_job(job, workers=workers, ray=ray, results=log, resume=resume, progress=progress)
    missing = [e for e in entries if not os.path.exists(job.shard_path(e["index"]))]
    if missing:  # a shard file removed by hand: play it again
        raise ValueError(f"{job.out!r}: the log lists shards whose files are missing "
                         f"({', '.join(e['file'] for e in missing)}); delete their lines from {LOG_NAME} and resume")
    manifest = dict(job.header())
    manifest.update({
        "positions": sum(e["positions"] for e in entries),
        "shards": [{k: e[k] for k in ("file", "games", "positions", "bytes", "sha256")} for e in entries],
        # CPU time of the worker processes that played and compressed the shards (load-independent).
        "cpu_seconds": round(sum(e["cpu_seconds"] for e in entries), 3),
        "wall_seconds_last_run": round(time.perf_counter() - t0, 3),
        "fields": _FIELDS,
    })
    if all("draws" in e for e in entries):  # a log written before these counts has none
        manifest["draws"] = sum(e["draws"] for e in entries)
        manifest["capped_games"] = sum(e["capped"] for e in entries)  # draws at the turn cap
    per_node: Dict[str, int] = {}
    for e in entries:  # the Ray node of each shard (docs/scale.md); none for local runs
        if e.get("node"):
            per_node[e["node"]] = per_node.get(e["node"], 0) + e["games"][1] - e["games"][0]
    if per_node:
        manifest["games_per_node"] = dict(sorted(per_node.items()))
    tmp = os.path.join(job.out, MANIFEST_NAME + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    os.replace(tmp, os.path.join(job.out, MANIFEST_NAME))
    return manifest


_FIELDS = {
    "observation": "Game.observation_tensor(player) of the player to move (docs/observation.md)",
    "legal_mask": "Game.legal_mask() (docs/action-space.md)",
    "action": "the first action of the move played",
    "move_id": "the move played (core move id, docs/notation.md)",
    "player": "the player to move", "team": "its team", "turn": "turn counter before the move",
    "game": "index of the game in the run",
    "outcome": "per team: +1 won, -1 lost, 0 draw",
    "searched": "policy_* holds root visits for the row",
    "policy_offsets": "row i: policy_actions/policy_visits[o[i]:o[i+1]]",
    "policy_actions": "root actions", "policy_visits": "root visit counts",
    "game_index": "per game", "game_seed": "per game: deal seed", "game_winner": "per game: -1 draw",
    "game_turns": "per game",
}


def load_dataset(path: str, fields: Optional[Sequence[str]] = None, verify: bool = True) -> Dict[str, np.ndarray]:
    """All shards of a finished run in ``path`` concatenated (``policy_offsets`` rebased), checking
    each file's sha256 against the manifest unless ``verify=False``. ``fields`` limits the arrays
    loaded (the ``policy_*`` fields come together)."""
    with open(os.path.join(path, MANIFEST_NAME), encoding="utf-8") as f:
        manifest = json.load(f)
    if manifest.get("format") != DATASET_FORMAT:
        raise ValueError(f"{path!r} is not a self-play dataset (format {manifest.get('format')!r})")
    parts: Dict[str, List[np.ndarray]] = {}
    rows, visits = 0, 0
    for shard in manifest["shards"]:
        file = os.path.join(path, shard["file"])
        with open(file, "rb") as fh:
            data = fh.read()
        if verify and hashlib.sha256(data).hexdigest() != shard["sha256"]:
            raise ValueError(f"{file}: contents do not match the manifest's sha256")
        with np.load(io.BytesIO(data)) as z:
            for name in z.files:
                if fields is not None and name not in fields and not (
                        name.startswith("policy_") and any(f.startswith("policy_") for f in fields)):
                    continue
                a = z[name]
                if name == "policy_offsets":
                    a = (a[1:] if rows else a) + visits
                parts.setdefault(name, []).append(a)
            rows += int(shard["positions"])
            visits += int(z["policy_actions"].shape[0])
    return {k: np.concatenate(v) for k, v in parts.items()}
