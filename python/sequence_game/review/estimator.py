"""The win-chance estimator: every team's chance of winning from an information set, in well under a
millisecond, with no search.

Two views, one model file (``review/data/win_chance.json``, made by
``python -m sequence_game.training.fit_win_chance``, docs/review.md):

* **public**: what a spectator sees (the board, the sequences, the discards, whose turn it is; R9:
  never a hand). The review's graph and :func:`sequence_game.review.win_chance` by default.
* **player** (``viewer=p``): the public information and player ``p``'s own hand, as ``p`` sees it
  when deciding (R9: never a partner's hand or another team's). The review values a decision in it.

Each team ``t`` gets a score ``w . x_t`` over its feature row ``x_t`` and the chances are the softmax
of the scores: they sum to 1 by construction (two teams: the logistic of the difference). The rows
are built from the core's per-team features (``_core.eval_features``,
``cpp/include/sequence/search/features.hpp``): the board features for every team, and, in the
player's view, the hand features of the viewer's row only (computed on a copy of the position in
which the viewer's partners' hands are put back among the unseen cards).

**The players' strengths.** The same position means more for a strong team against a weak one
than for two equal teams: when every seat's measured rating is known (an AI level's rating on the
ladder, :func:`seat_rating`), the *rated* weights read the row together with the team's rating
against the table's mean and the row's interactions with the table's strength
(:func:`rated_rows`); when any seat is unknown (a person), the unrated weights, fitted on games of
every strength pooled: no information about who plays, the same for every team.

>>> from sequence_game import Game
>>> g = Game(players=2, seed=3)
>>> p = load_win_chance_model().chances(g)
>>> len(p), abs(sum(p) - 1) < 1e-9
(2, True)
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .. import _core
from .threats import GameLike, core_state

__all__ = [
    "DECISIVE_DEFAULTS",
    "HAND_FEATURES",
    "KEPT_FEATURES",
    "MODEL_FORMAT",
    "PUBLIC_FEATURES",
    "RATED_FEATURES",
    "RATED_TEAMS",
    "RATING_KNOTS",
    "WinChanceModel",
    "core_state",
    "entry_qualities",
    "feature_rows",
    "load_win_chance_model",
    "move_qualities",
    "move_quality",
    "parse_win_chance_model",
    "play_quality",
    "rated_rows",
    "rating_hats",
    "seat_rating",
    "seat_ratings",
    "team_ratings",
    "viewer_state",
    "with_decisive",
]

MODEL_FORMAT = "sequence-game-win-chance/4"
DEFAULT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "win_chance.json")

_CORE = list(_core.EVAL_FEATURES)
_BOARD = ["sequences", "open1", "open2", "open3", "open4", "threats", "multi_threat", "shared_windows",
          "removable", "to_move"]
_HAND = ["threats_in_hand", "can_complete", "complete_on_move", "threat_copies_unseen", "two_eyed",
         "one_eyed", "dead_cards"]
_BOARD_IDX = [_CORE.index(n) for n in _BOARD]
_HAND_IDX = [_CORE.index(n) for n in _HAND]
_POSITION = (*_BOARD, "threats_to_move", "last_open4", "last_threats", "last_threats_to_move")
#: Counts read through saturating transforms as well: the first threat or sequence is worth more
#: than the next (a linear score over counts is under-confident where a lead is decisive).
_SATURATED = ("sequences", "open3", "open4", "threats")
_SATURATED_IDX = [_POSITION.index(n) for n in _SATURATED]
#: The public row of a team: the core's board features, then interactions with tempo and with
#: being one sequence from the win (R8: two teams need two sequences, three teams one), then how
#: well the team has played so far (:func:`play_quality`) and that quality early in the game, then
#: the position's features again times how early the game is (the same lead means more with fewer
#: moves to answer it by), then ``min(c, 1)``, ``min(c, 2)`` and ``sqrt(c)`` of the counts in
#: ``_SATURATED``.
PUBLIC_FEATURES: Tuple[str, ...] = (
    *_POSITION, "play_quality", "play_quality_early", *(f"{n}*early" for n in _POSITION),
    *(f"{f}({n})" for n in _SATURATED for f in ("min1", "min2", "sqrt")))
#: The viewer's team row adds the viewer's hand features (zero in the other rows).
HAND_FEATURES: Tuple[str, ...] = (*_HAND, "last_can_complete", "last_complete_on_move")


#: The rated rows: the unrated row ``x``, then ``rating`` (the team's mean rating less the table's,
#: in units of :data:`RATING_SCALE` ladder points), then ``x * h_k`` for every knot ``k`` of
#: :data:`RATING_KNOTS`, ``h_k`` the piecewise-linear "hat" of the table's mean rating at that knot
#: (1 there, 0 at the neighbouring knots and beyond; the mean rating clipped to the knots' range):
#: the weights are those fitted at the measured strengths, interpolated between them. A polynomial
#: in the strength was tried and left ``easy`` tables under-confident: how decisive a position is
#: does not change steadily with strength (``easy`` builds threats but misses blocks and is the
#: most decisive table of all).
RATING_KNOTS: Tuple[float, ...] = (0.0, 300.0, 550.0, 770.0)  # random, mixed, easy, hard tables
RATED_FEATURES: Tuple[str, ...] = ("rating", *(f"x*table_at_{k:g}" for k in RATING_KNOTS))
RATING_SCALE = 400.0

Ratings = Optional[Sequence[Optional[float]]]
#: The numbers of teams whose tables are read with the rated weights. Three-team tables are read
#: unrated: the three-team games the fit learns from always seat the same three strengths (rotated),
#: so the table-strength interactions are not identified there, and the rated weights calibrated
#: worse on held-out three-team games than the unrated ones (docs/measurements.md).
RATED_TEAMS: Tuple[int, ...] = (2,)


def seat_rating(spec: Any) -> Optional[float]:
    """The measured rating of an agent spec on the ladder (``agents/data/ladder.json``, ``random`` =
    0): ``"random"``, ``"level:N"``, ``"easy"``, ``"medium"``, ``"hard"`` (with at most ``seed`` and
    ``time`` options, as the web's seats carry them); None for a person or any other spec (its
    strength is unknown).

    >>> seat_rating("random"), seat_rating("human"), seat_rating("hard:time=1") is not None
    (0.0, None, True)
    """
    from ..agents.levels import level_of, packaged_ratings

    if not isinstance(spec, str):
        return None
    name, _, options = spec.strip().lower().partition(":")
    if name == "level":
        number, _, options = options.partition(",")
        name = f"level:{number.strip()}"
    if any(o.partition("=")[0].strip() not in ("", "seed", "time") for o in options.split(",")):
        return None
    ratings = packaged_ratings()
    if name != "random":
        try:
            name = level_of(name).name
        except ValueError:
            return None
    rated = ratings.get(name)
    return None if rated is None else float(rated["rating"])


def seat_ratings(agents: Sequence[Any]) -> Optional[List[float]]:
    """Every seat's rating (:func:`seat_rating`) when all are known, else None."""
    out = [seat_rating(a) for a in agents]
    return None if not out or any(r is None for r in out) else [float(r) for r in out if r is not None]


def team_ratings(ratings: Sequence[float], teams: int) -> np.ndarray:
    """Each team's mean seat rating (seat ``p`` plays for team ``p mod teams``, R2)."""
    r = np.asarray(ratings, dtype=np.float64)
    return np.array([r[t::teams].mean() for t in range(teams)])


def rating_hats(table_rating: np.ndarray) -> np.ndarray:
    """``(..., len(RATING_KNOTS))``: the hat functions of :data:`RATED_FEATURES` at the table mean
    ratings ``table_rating`` (ladder points), each row summing to 1.

    >>> rating_hats(np.array([0.0, 425.0, 2000.0])).round(3).tolist()
    [[1.0, 0.0, 0.0, 0.0], [0.0, 0.5, 0.5, 0.0], [0.0, 0.0, 0.0, 1.0]]
    """
    knots = np.asarray(RATING_KNOTS)
    r = np.clip(np.asarray(table_rating, dtype=np.float64), knots[0], knots[-1])
    out = np.zeros(r.shape + (knots.size,))
    right = np.clip(np.searchsorted(knots, r, side="right"), 1, knots.size - 1)
    left = right - 1
    t = (r - knots[left]) / (knots[right] - knots[left])
    np.put_along_axis(out, left[..., None], (1.0 - t)[..., None], axis=-1)
    np.put_along_axis(out, right[..., None], t[..., None], axis=-1)
    return out


def rated_rows(x: np.ndarray, teams_rating: np.ndarray) -> np.ndarray:
    """The rated rows (:data:`RATED_FEATURES`) of unrated rows ``x`` (``(..., teams, k)``) and the
    teams' ratings ``teams_rating`` (``(..., teams)``, ladder points)."""
    tr = np.asarray(teams_rating, dtype=np.float64)
    table = tr.mean(axis=-1)
    d = ((tr - table[..., None]) / RATING_SCALE)[..., None]
    hats = rating_hats(table)[..., None, None, :]  # (..., 1, 1, knots)
    return np.concatenate([x, d, *(x * hats[..., k] for k in range(len(RATING_KNOTS)))], axis=-1)


def _check_ratings(ratings: Ratings, players: int) -> Optional[List[float]]:
    """``ratings`` checked: one number (or None) per seat; None unless every seat's is known."""
    if ratings is None:
        return None
    if isinstance(ratings, (str, bytes)) or not isinstance(ratings, Sequence) or len(ratings) != players:
        raise ValueError(f"ratings must be one rating (or None) per seat, {players} in all, not {ratings!r:.80}")
    out: List[float] = []
    for r in ratings:
        if r is None:
            return None
        if isinstance(r, bool) or not isinstance(r, (int, float)) or not math.isfinite(r):
            raise ValueError(f"a seat's rating must be a finite number or None, not {r!r:.40}")
        out.append(float(r))
    return out


def _needed(teams: int) -> int:
    return 2 if teams == 2 else 1  # R8


def viewer_state(state: _core.Game, viewer: int, hide_last_draw: bool = False) -> _core.Game:
    """``state`` as ``viewer`` knows it, for its team's hand features: the viewer's partners' cards
    (and, with ``hide_last_draw``, the card the viewer just drew) back among the unseen cards."""
    players, teams = state.players, state.teams
    partners = [p for p in range(players) if p != viewer and p % teams == viewer % teams]
    last = state.last_draw
    drawn = last[1] if hide_last_draw and last is not None and last[0] == viewer else None  # a card id
    if not partners and drawn is None:
        return state
    pos = state.to_position()
    pile = list(pos["draw_pile"])
    for p in partners:
        pile.extend(pos["hands"][p])
        pos["hands"][p] = []
    if drawn is not None:
        pos["hands"][viewer].remove(drawn)
        pile.append(drawn)
    pos["draw_pile"] = sorted(pile)  # the draw pile's order is hidden; the features do not read it
    pos["last_draw"] = None
    return _core.Game.from_position(pos)


#: :func:`play_quality`: a move's quality is ``log(1 + s) / log(1 + QUALITY_CAP)`` of its
#: one-ply heuristic score ``s`` clipped to ``[0, QUALITY_CAP]``; a team's quality is the mean over
#: its moves shrunk towards ``QUALITY_PRIOR`` by ``QUALITY_WEIGHT`` moves' worth; ``early`` fades
#: from 1 at the deal to 0 after ``QUALITY_EARLY_MOVES`` moves (skill matters more with more of the
#: game to come).
QUALITY_CAP = 1000.0
QUALITY_PRIOR = 0.5
QUALITY_WEIGHT = 4.0
QUALITY_EARLY_MOVES = 60.0


def move_quality(state: _core.Game, move_id: int) -> Optional[float]:
    """The quality of the move ``move_id`` of the player to move in ``state`` (a ``_core.Game``, before
    the move), from 0 to 1; None for a trade or a pass (they say nothing of skill). Public (R9): the
    heuristic's score of one move reads only the board, the sequences and the move."""
    from ..game import move_from_id

    if move_from_id(move_id).kind in ("trade", "pass"):
        return None
    score = dict(_core.heuristic_scores(state)).get(move_id)
    if score is None:
        raise ValueError(f"move {move_id} is not legal for the player to move")
    return math.log1p(min(max(score, 0.0), QUALITY_CAP)) / math.log1p(QUALITY_CAP)


def move_qualities(game: GameLike) -> List[Tuple[int, float]]:
    """``(team, quality)`` of every move of ``game``'s history so far, in order (trades and passes
    left out): how good each move looked by the one-ply heuristic's score of that move, which reads
    only the board, the sequences and the move (public, R9; never the hand it came from). Walks the
    history back on a copy: about 0.4 ms for a whole two-player game."""
    return [e for e in entry_qualities(game) if e is not None]


def entry_qualities(game: GameLike) -> List[Optional[Tuple[int, float]]]:
    """One item per entry of ``game``'s history, in order: ``(team, quality)`` of a move, None for
    a trade, a pass or a referee's change (R10). The first ``n`` items are those of the position
    after ``n`` entries, so one call serves a whole game's positions."""
    state = core_state(game)
    copy = state.copy()
    out: List[Optional[Tuple[int, float]]] = []
    for entry in reversed(state.history()):
        copy.undo()
        q = move_quality(copy, entry) if isinstance(entry, int) else None
        out.append(None if q is None else (copy.current_player % copy.teams, q))
    out.reverse()
    return out


def play_quality(game: GameLike, qualities: Optional[Sequence[Tuple[int, float]]] = None) -> np.ndarray:
    """``(teams, 2)``: each team's play quality so far (:func:`move_qualities` averaged, shrunk to the
    prior) and the same times how early the game is. ``qualities``: the moves to count (None: all of
    ``game``'s history; the review passes the moves before a candidate move, so that a move is
    never judged by how it looks to the heuristic)."""
    state = core_state(game)
    moves = move_qualities(state) if qualities is None else qualities
    total = np.zeros(state.teams)
    count = np.zeros(state.teams)
    for team, q in moves:
        total[team] += q
        count[team] += 1
    quality = (total + QUALITY_WEIGHT * QUALITY_PRIOR) / (count + QUALITY_WEIGHT)
    early = max(0.0, 1.0 - len(moves) / QUALITY_EARLY_MOVES)
    return np.column_stack([quality, quality * early])


def feature_rows(game: GameLike, viewer: Optional[int] = None, hide_last_draw: bool = False,
                 quality: Optional[np.ndarray] = None, seen: Optional[_core.Game] = None) -> np.ndarray:
    """The ``(teams, P)`` public rows (:data:`PUBLIC_FEATURES`), or with ``viewer`` the
    ``(teams, P + H)`` rows with the viewer's hand features (:data:`HAND_FEATURES`) in its team's
    row. ``hide_last_draw``: leave out the card the viewer drew last (its view right after its move,
    before it saw the draw). ``quality``: the :func:`play_quality` columns (None: from ``game``'s
    history). ``seen``: the viewer's state (:func:`viewer_state`) when the caller has it."""
    state = core_state(game)
    raw = _core.eval_features(state).astype(np.float64)
    board = raw[:, _BOARD_IDX]
    seq, open4, threats, to_move = board[:, 0], board[:, 4], board[:, 5], board[:, 9]
    last = (seq >= _needed(state.teams) - 1).astype(np.float64)
    if quality is None:
        quality = play_quality(state)
    position = np.column_stack([board, threats * to_move, last * open4, last * threats, last * threats * to_move])
    early = quality[:, 1:2] / quality[:, 0:1]  # play_quality's second column is the first times how early
    counts = position[:, _SATURATED_IDX]
    saturated = np.stack([np.minimum(counts, 1.0), np.minimum(counts, 2.0), np.sqrt(counts)], axis=-1)
    pub = np.column_stack([position, quality, position * early, saturated.reshape(state.teams, -1)])
    if viewer is None:
        return pub
    if not (isinstance(viewer, int) and 0 <= viewer < state.players):
        raise ValueError(f"viewer must be a seat from 0 to {state.players - 1}, not {viewer!r}")
    if seen is None:
        seen = viewer_state(state, viewer, hide_last_draw)
    team = viewer % state.teams  # R2
    hand_raw = (_core.eval_features(seen) if seen is not state else raw)[team, _HAND_IDX].astype(np.float64)
    hand = np.zeros((state.teams, len(HAND_FEATURES)))
    hand[team, :len(_HAND)] = hand_raw
    hand[team, len(_HAND):] = last[team] * hand_raw[1:3]
    return np.hstack([pub, hand])


def softmax_rows(scores: np.ndarray) -> np.ndarray:
    """The softmax over the last axis (stable)."""
    z = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(z)
    out: np.ndarray = e / e.sum(axis=-1, keepdims=True)
    return out


#: The hand features whose weight a model may set rather than fit (``WinChanceModel.kept``): what
#: a jack kept in hand is worth. Fitted on outcomes, a jack in hand weighs next to nothing (the
#: games' players spend jacks on sight, so holding one says little about who wins), and a review
#: that reads the fitted weight advises spending it at once; the search values one by its
#: evaluation's weight on its logistic scale (``_core.EvalWeights``).
KEPT_FEATURES: Tuple[str, ...] = ("two_eyed", "one_eyed")

#: The race's parameters when a model file has none (:func:`with_decisive`).
DECISIVE_DEFAULTS: Mapping[str, float] = {"take": 1.0, "open_mover": 0.0, "open_next": 0.0}


def with_decisive(p: np.ndarray, state: GameLike, viewer: Optional[int] = None,
                  params: Mapping[str, float] = DECISIVE_DEFAULTS) -> np.ndarray:
    """The fitted chances ``p`` combined with the race of immediate wins
    (:func:`sequence_game.review.threats.decisive`): the player to move wins now with chance
    ``take * a`` (in its own view exactly ``a``: 1 when its hand holds a winning move, which it
    plays); else the next player's team wins on its move with chance ``take * b`` (exactly ``b``
    in that player's own view); else the game goes on as the fitted chances say, each team's score
    shifted by ``open_mover`` / ``open_next`` when it is the mover's / the next team and has a winning
    cell (the fitted model read those threats as counts, for every outcome of the race at once).
    ``take`` is how often a player who holds a winning move plays it. The chances still sum to 1.
    ``state``: the position as the view knows it (the viewer's state, or the public one)."""
    from .threats import decisive

    race = decisive(state, viewer)
    if not race.mover_cells and not race.next_cells:
        return p
    take = float(params.get("take", 1.0))
    mover = state.current_player
    nxt = (mover + 1) % state.players
    mine, theirs = mover % state.teams, nxt % state.teams
    a = race.win_now * (1.0 if viewer == mover else take)
    b = race.next_wins * (1.0 if viewer == nxt else take)
    shift = np.zeros_like(p)
    if race.mover_cells:
        shift[mine] += float(params.get("open_mover", 0.0))
    if race.next_cells:
        shift[theirs] += float(params.get("open_next", 0.0))
    rest = softmax_rows(np.log(np.clip(p, 1e-12, 1.0)) + shift)
    out = rest * ((1.0 - a) * (1.0 - b))
    out[mine] += a
    out[theirs] += (1.0 - a) * b
    return out


def _result_chances(state: _core.Game) -> List[float]:
    teams = state.teams
    if state.winner is None:
        return [1.0 / teams] * teams
    return [1.0 if t == state.winner else 0.0 for t in range(teams)]


@dataclass(frozen=True)
class WinChanceModel:
    """A validated model: one weight vector per view and per number of teams (``"2"``, ``"3"``),
    unrated (``public``, ``player``) and rated (``rated_public``, ``rated_player``: read when every
    seat's rating is known), the review's grading thresholds, how it was made (``training``,
    free-form), the race of immediate wins' parameters (``decisive``: :func:`with_decisive`), and
    ``kept``: what a card kept in hand is worth in the player's view, by hand feature
    (:data:`KEPT_FEATURES`), in place of the fitted weight (see :data:`KEPT_FEATURES`)."""

    public: Mapping[str, Sequence[float]]
    player: Mapping[str, Sequence[float]]
    grading: Mapping[str, float] = field(default_factory=dict)
    training: Mapping[str, Any] = field(default_factory=dict)
    rated_public: Mapping[str, Sequence[float]] = field(default_factory=dict)
    rated_player: Mapping[str, Sequence[float]] = field(default_factory=dict)
    decisive: Mapping[str, float] = field(default_factory=lambda: dict(DECISIVE_DEFAULTS))
    kept: Mapping[str, float] = field(default_factory=dict)

    def weights(self, teams: int, viewer: Optional[int], rated: bool = False) -> np.ndarray:
        if rated:
            table = self.rated_public if viewer is None else self.rated_player
        else:
            table = self.public if viewer is None else self.player
        key = "2" if teams == 2 else "3"
        if key not in table:  # a model fitted on two-team games only: the closest rule set
            key = next(iter(table))
        w = np.asarray(table[key], dtype=np.float64)
        if viewer is None or not self.kept:
            return w
        w = w.copy()
        row = len(PUBLIC_FEATURES) + len(HAND_FEATURES)
        for name, value in self.kept.items():
            i = len(PUBLIC_FEATURES) + HAND_FEATURES.index(name)
            w[i] = value
            if rated:  # the rated rows: x, the rating, then x times each hat (the hats sum to 1)
                w[[row + 1 + k * row + i for k in range(len(RATING_KNOTS))]] = 0.0
        return w

    def uses_ratings(self, teams: int, ratings: Ratings, viewer: Optional[int] = None) -> bool:
        """Whether :meth:`chances` reads ``ratings`` at a table of ``teams`` teams: every seat's is
        known, the model has rated weights for the view, and ``teams`` is in :data:`RATED_TEAMS`."""
        known = ratings is not None and all(r is not None for r in ratings)
        return known and teams in RATED_TEAMS and bool(self.rated_public if viewer is None else self.rated_player)

    def chances(self, game: GameLike, viewer: Optional[int] = None, hide_last_draw: bool = False,
                ratings: Ratings = None, quality: Optional[np.ndarray] = None) -> List[float]:
        """Every team's chance of winning (a list summing to 1): exact once the game is over (1 for
        the winner, an equal share each for a draw), else the softmax of the teams' scores in the
        public view (``viewer`` None) or player ``viewer``'s. ``ratings``: every seat's rating
        (:func:`seat_rating`; None, or any seat's None: unknown, the unrated weights; read at
        two-team tables only, :data:`RATED_TEAMS`). ``quality``: the teams' :func:`play_quality`
        (None: from ``game``'s history)."""
        state = core_state(game)
        known = _check_ratings(ratings, state.players)
        if state.is_over:
            return _result_chances(state)
        seen = None
        if viewer is not None:
            if not (isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < state.players):
                raise ValueError(f"viewer must be a seat from 0 to {state.players - 1}, not {viewer!r}")
            seen = viewer_state(state, viewer, hide_last_draw)
        x = feature_rows(state, viewer, hide_last_draw, quality, seen)
        if known is not None and self.uses_ratings(state.teams, known, viewer):
            x = rated_rows(x, team_ratings(known, state.teams))
            p = softmax_rows(x @ self.weights(state.teams, viewer, rated=True))
        else:
            p = softmax_rows(x @ self.weights(state.teams, viewer))
        return [float(v) for v in with_decisive(p, state if seen is None else seen, viewer, self.decisive)]

    def to_json(self) -> Dict[str, Any]:
        return {"format": MODEL_FORMAT, "public_features": list(PUBLIC_FEATURES),
                "hand_features": list(HAND_FEATURES), "rated_features": list(RATED_FEATURES),
                "rating_scale": RATING_SCALE, "rating_knots": list(RATING_KNOTS),
                **{view: {k: [float(v) for v in w] for k, w in getattr(self, view).items()}
                   for view in ("public", "player", "rated_public", "rated_player")},
                "grading": dict(self.grading), "training": dict(self.training), "decisive": dict(self.decisive),
                **({"kept": dict(self.kept)} if self.kept else {})}


def parse_win_chance_model(data: Any, source: str = "the model") -> WinChanceModel:
    """A :class:`WinChanceModel` from a model file's JSON; ``ValueError`` naming ``source`` and the
    field when it is not a model for this version."""
    if not isinstance(data, dict):
        raise ValueError(f"{source}: a win-chance model is a JSON object, not {type(data).__name__}")
    if data.get("format") != MODEL_FORMAT:
        raise ValueError(f"{source}: format must be {MODEL_FORMAT!r}, not {data.get('format')!r:.60}")
    if (data.get("public_features") != list(PUBLIC_FEATURES) or data.get("hand_features") != list(HAND_FEATURES)
            or data.get("rated_features") != list(RATED_FEATURES) or data.get("rating_scale") != RATING_SCALE
            or data.get("rating_knots") != list(RATING_KNOTS)):
        raise ValueError(f"{source}: public_features/hand_features/rated_features differ from this version's "
                         "(refit it: python -m sequence_game.training.fit_win_chance)")
    pub, ply = len(PUBLIC_FEATURES), len(PUBLIC_FEATURES) + len(HAND_FEATURES)
    sizes = {"public": pub, "player": ply, "rated_public": (1 + len(RATING_KNOTS)) * pub + 1,
             "rated_player": (1 + len(RATING_KNOTS)) * ply + 1}
    views: Dict[str, Dict[str, List[float]]] = {}
    for view, size in sizes.items():
        table = data.get(view)
        if not isinstance(table, dict) or not table or not set(table) <= {"2", "3"}:
            raise ValueError(f"{source}: {view} must map the number of teams (\"2\", \"3\") to weights")
        for k, w in table.items():
            if (not isinstance(w, list) or len(w) != size
                    or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in w)):
                raise ValueError(f"{source}: {view}.{k} must be {size} finite numbers")
        views[view] = {k: [float(v) for v in w] for k, w in table.items()}
    grading = data.get("grading", {})
    if not isinstance(grading, dict) or not all(isinstance(v, (int, float)) for v in grading.values()):
        raise ValueError(f"{source}: grading must map names to numbers")
    training = data.get("training", {})
    if not isinstance(training, dict):
        raise ValueError(f"{source}: training must be an object")
    decisive = data.get("decisive", DECISIVE_DEFAULTS)
    if (not isinstance(decisive, dict) or set(decisive) != set(DECISIVE_DEFAULTS)
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                       for v in decisive.values())
            or not 0.0 <= decisive["take"] <= 1.0):
        raise ValueError(f"{source}: decisive must map {', '.join(sorted(DECISIVE_DEFAULTS))} to finite numbers "
                         "(take from 0 to 1)")
    kept = data.get("kept", {})
    if (not isinstance(kept, dict) or not set(kept) <= set(KEPT_FEATURES)
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in kept.values())):
        raise ValueError(f"{source}: kept must map some of {', '.join(KEPT_FEATURES)} to finite numbers")
    return WinChanceModel(views["public"], views["player"], {k: float(v) for k, v in grading.items()}, training,
                          views["rated_public"], views["rated_player"], {k: float(v) for k, v in decisive.items()},
                          {k: float(v) for k, v in kept.items()})


_DEFAULT: Optional[WinChanceModel] = None


def load_win_chance_model(path: Optional[Union[str, os.PathLike[str]]] = None) -> WinChanceModel:
    """The model in ``path`` (None: the packaged one, read once)."""
    global _DEFAULT
    if path is None and _DEFAULT is not None:
        return _DEFAULT
    file = os.fspath(path) if path is not None else DEFAULT_PATH
    with open(file, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{file}: not JSON ({e})") from None
    model = parse_win_chance_model(data, file)
    if path is None:
        _DEFAULT = model
    return model
