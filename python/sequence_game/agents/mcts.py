"""``MCTSAgent``: information-set Monte Carlo tree search in the compiled core.

The search (``cpp/include/sequence/search/ismcts.hpp``) is single-observer ISMCTS with
determinization (Cowling, Powley & Whitehouse 2012). It reads only what the player to move may see
(R9): its own hand, the board, sequences, discard piles, hand sizes and the draw pile's size. Each
iteration deals the unseen cards at random into the other hands and the draw pile, walks one shared
tree of moves with availability-corrected UCB (a move that wins at once, R8, is the only one
considered at its node), then plays a *short* playout of ``playout_turns`` turns (extended to the
end of the round so that it stops with the searching player to move), and scores the position with a
static evaluation (``cpp/include/sequence/search/evaluate.hpp``): per team, completed sequences,
open five-cell windows weighted by the chips they hold, distinct completion cells ("threats") and
the jacks in hand, turned into a reward in [0, 1] per team by a logistic (a softmax for three
teams). Optionally (all off by default) the tree and the playouts are guided by a move heuristic, a C++ port of
:class:`~sequence_game.agents.GreedyAgent`'s one-ply scoring
(``cpp/include/sequence/search/heuristic.hpp``): at every node the untried move of highest score
is expanded first, a node grows a new child only while it has fewer than
``widen_base + widen_coef * visits**widen_exponent`` (progressive widening), and UCB gets a bonus
``prior_weight * h / (visits + 1)`` with ``h`` the move's score mapped to [0, 1] over the node's
legal moves on a log scale (progressive bias). The playout policy is ``playout``: ``"informed"``
(the default: complete a sequence when possible, else block another team's completion cell, else
trade a dead card, else a random play: ``cpp/include/sequence/playout.hpp``), ``"greedy"`` (the
heuristic's best move, a random legal move with probability ``playout_epsilon``; about a fifth as
many iterations per second) or ``"random"``. In 2-player matches against ``GreedyAgent`` at a
fixed iteration budget the guided search (``prior_weight=0.5, widen_base=2,
ordered_expansion=True, playout="greedy"``) won as often as the plain one (56% of 100 games each
at 10,000 iterations) at a fifth of the iterations per second, so the plain search stays the
default; ``docs/agents.md`` ("Tuning the search by matches", :mod:`sequence_game.training.tune`)
measures these options against ``mcts-v1`` head to head, at equal iterations and at equal cost.
A game that ends inside the tree or the playout scores exactly: 1 for the winning team,
0 for the others, ``1/teams`` each for a draw. With ``threads > 1`` every thread grows its own tree
(root parallelism, ``cpp/include/sequence/parallel.hpp``) and the root visit counts are summed.
The move with the most visits is played
(ties: lowest core move id).

Measured strength, and how it compares with :class:`~sequence_game.agents.RolloutAgent` and with
searches allowed to see hidden cards: ``docs/agents.md``.

>>> import sequence_game
>>> g = sequence_game.Game(players=2, seed=4)
>>> agent = MCTSAgent(iterations=300, seed=1)
>>> agent.select_move(g) in g.legal_moves()
True
"""

from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence, Tuple, Union

from .. import _core
from ..game import Game
from .control import Limit
from .learned import EvalModel, load_eval_model
from .search import SearchAgent, SearchResult, budget

__all__ = ["MCTSAgent", "format_weights", "parse_weights"]

#: The evaluation weights (``_core.EvalWeights``) in the order ``weights`` takes them as numbers:
#: window1, window2, window3, threat, sequence, scale, two_eyed, one_eyed.
DEFAULT_WEIGHTS: Tuple[float, ...] = tuple(getattr(_core.EvalWeights(), k) for k in _core.EvalWeights.fields)


def parse_weights(text: str) -> Tuple[float, ...]:
    """The 8 evaluation weights of a spec, written with slashes (window1/window2/window3/threat/
    sequence/scale/two_eyed/one_eyed; a spec separates its options with commas).

    >>> parse_weights("1/4/15/50/150/80/30/20") == DEFAULT_WEIGHTS
    True
    """
    parts = text.split("/")
    if len(parts) != len(DEFAULT_WEIGHTS):
        raise ValueError(f"weights as text must be {len(DEFAULT_WEIGHTS)} numbers separated by '/' "
                         f"({'/'.join(_core.EvalWeights.fields)}, e.g. '1/4/15/50/150/80/30/20'), not {text[:60]!r}")
    try:
        return tuple(float(p) for p in parts)
    except ValueError:
        raise ValueError(f"weights as text must be numbers separated by '/' "
                         f"({'/'.join(_core.EvalWeights.fields)}), not {text[:60]!r}") from None


def format_weights(weights: Any) -> str:
    """An ``EvalWeights`` as the slash-separated text :func:`parse_weights` reads.

    >>> format_weights(_core.EvalWeights())
    '1/4/15/50/150/80/30/20'
    """
    return "/".join(f"{getattr(weights, k):g}" for k in _core.EvalWeights.fields)


class MCTSAgent(SearchAgent):
    """Information-set MCTS (see the module docstring). Every parameter is checked when the agent
    is built (``TypeError``/``ValueError`` naming it and its bounds) and kept in ``options``, a
    ``_core.SearchOptions``.

    Parameters:
        iterations: total iterations per move (all threads together), an int >= 1.
        time_limit: seconds per move, a number > 0. With both, the search stops at whichever comes
            first; with neither, ``iterations=10000``.
        threads: 1..256 search threads (root parallelism).
        seed: None (random) or an int in ``0 .. 2**64 - 1``. A seeded agent is reproducible: its
            n-th search uses the n-th output of an internal generator seeded with ``seed`` (with an
            iteration budget and no time limit, the same seed gives the same moves).
        exploration: the UCB constant ``c`` (0..1000; rewards are in [0, 1]). Default 0.2.
        max_nodes: the tree size bound (all threads together; from ``threads`` to 2**31 - 1).
            When the trees are full the search keeps iterating without growing them; memory is
            taken as the trees grow.
        playout_turns: playouts stop this many turns after leaving the tree (then, with
            ``align_playouts``, at the end of that round) and the position is evaluated. Default
            6. With ``evaluate=False`` a playout that stops early counts as a draw, so use a large
            value there.
        cheat: TEST ONLY. Search the true state (other hands and the draw pile included) instead of
            sampling the unseen cards; for measuring what hidden information is worth.
        cheat_hands: TEST ONLY. Read the other players' hands from the true state but sample the
            draw pile's order (and the world's generator): what a perfect inference of the hands
            would be worth. Ignored with ``cheat``.
        evaluate: score a playout that stops before the end with the static evaluation (default
            True); False = as a draw.
        playout: ``"informed"`` (default), ``"greedy"`` or ``"random"`` (or a ``_core.PlayoutKind``).
        playout_candidates: with informed playouts, how many random plays are drawn and compared by
            their local value when there is nothing to complete, block or trade (0..64, default 1;
            0 = a uniformly random legal move there). Larger is better informed but slower.
        align_playouts: stop each evaluated playout with the searching player to move (default
            True), so that odd and even tree depths are evaluated alike.
        weights: None (defaults, ``DEFAULT_WEIGHTS``), a ``_core.EvalWeights`` or 8 numbers: the
            values of an open window holding 1, 2, 3 cells, of each distinct threat (an empty cell
            completing an open four), of each completed sequence, the logistic scale, and the value
            of each two-eyed and one-eyed jack in a team's hands. In a spec (where commas separate
            options) the 8 numbers are written with slashes: ``mcts:weights=1/4/15/50/150/80/30/20``.
        prior_weight: progressive bias weight (>= 0, default 0 = none; 0.5 tested).
        widen_base, widen_coef, widen_exponent: progressive widening (defaults 0, 1, 0.4;
            ``widen_base=2`` makes a node with n visits consider at most ``2 + n**0.4`` children
            legal in the current sample); ``widen_base=0`` = no widening (every legal move is
            expanded before UCB selects).
        ordered_expansion: expand untried moves in heuristic order (default False = at random).
        playout_epsilon: in greedy playouts, the chance of a uniformly random legal move instead
            (0..1, default 0.3).
        inference: ``"off"`` (default: every deal consistent with what the player sees is equally
            likely) or ``"recent"``: inference of hidden cards from the other players' recent
            turns (``cpp/include/sequence/search/inference.hpp``). Each sampled deal is drawn by
            rejection: a deal in which another player could have made a much better move than one
            of their last ``inference_plays`` turns (completed a sequence, blocked a four, placed a
            plain card instead of spending a jack), kept a dead card, or passed while holding a
            playable card, is unlikely. Reads only the public moves of the game (R9): a game
            loaded from a dict, with no history, gives no evidence.
        inference_plays: turns of each other player used as evidence (1..64, default 4).
        inference_strength: how sharply the evidence weighs, ``exp(-strength * shortfall)`` with
            the shortfall on the heuristic's log scale (0..1e6, default 1; 0 = no weighting).
        inference_margin: a play counts against a hand only when the hand's best play scores more
            than this above it on the heuristic's log scale (0..1e6, default 1; 0 = the other
            players are expected to make the heuristic's best play, as ``GreedyAgent`` does).
        inference_tries: proposals per player and sampled deal before the most likely one is
            kept (1..65536, default 16).
        evaluation: how an unfinished playout is scored: ``"handset"`` (``weights``, the default) or
            ``"learned"`` (a linear model over the features of
            ``cpp/include/sequence/search/features.hpp`` fitted on self-play positions:
            :mod:`sequence_game.agents.learned`, :mod:`sequence_game.training.fit_eval`).
        learned_weights: the learned evaluation's weights: None (with ``evaluation="learned"``: the
            model that ships in the package), the path of a model file, an
            :class:`~sequence_game.agents.learned.EvalModel`, a ``_core.LearnedWeights`` or one number per
            feature of ``_core.EVAL_FEATURES``.
        expansion_candidates: the learned evaluation as an expansion prior (0..1024, default 0 =
            off): a node expands, of this many untried moves drawn at random, the one after which
            the learned evaluation (``learned_weights``, the packaged model if None) is best for the
            mover, instead of a random one.
        decisive: at every tree node a move that wins at once (R8) is the only one considered
            (default True).
        playout_block_chance: with informed playouts, how often (out of 256) a player blocks
            another team's completion cell when it can (0..256, default 256 = always).
        playout_block: with informed playouts and ``playout_candidates > 1``, the local value of
            taking a cell of another team's open window, relative to extending an own window of
            the same size (0..1e6, default 0.6).
        playout_two_eyed_cost, playout_one_eyed_cost: with informed playouts and
            ``playout_candidates > 1``, how much more a placement (removal) must be worth than
            the other candidates before a two-eyed (one-eyed) jack is spent on it outside a
            completion or a block (0..1e6, defaults 40 and 30).
    """

    agent_label = "MCTSAgent"
    spec_label = "mcts"

    def __init__(self, iterations: Optional[int] = None, time_limit: Optional[float] = None, threads: int = 1,
                 seed: Optional[int] = None, exploration: float = 0.2, max_nodes: int = 1_000_000,
                 playout_turns: int = 6, cheat: bool = False, cheat_hands: bool = False, evaluate: bool = True,
                 playout: Union[str, Any] = "informed", weights: Optional[Union[Sequence[float], Any]] = None,
                 playout_candidates: int = 1, align_playouts: bool = True, prior_weight: float = 0.0,
                 widen_base: float = 0.0, widen_coef: float = 1.0, widen_exponent: float = 0.4,
                 ordered_expansion: bool = False, playout_epsilon: float = 0.3,
                 inference: Union[str, Any] = "off", inference_plays: int = 4, inference_strength: float = 1.0,
                 inference_margin: float = 1.0, inference_tries: int = 16, evaluation: str = "handset",
                 learned_weights: Optional[Union[str, os.PathLike[str], EvalModel, Sequence[float], Any]] = None,
                 expansion_candidates: int = 0, decisive: bool = True, playout_block_chance: int = 256,
                 playout_block: float = 0.6, playout_two_eyed_cost: float = 40.0,
                 playout_one_eyed_cost: float = 30.0) -> None:
        if isinstance(weights, str):
            weights = parse_weights(weights)
        if (evaluation == "learned" or expansion_candidates) and learned_weights is None:
            learned_weights = load_eval_model().learned_weights()
        elif isinstance(learned_weights, EvalModel):
            learned_weights = learned_weights.learned_weights()
        elif isinstance(learned_weights, (str, os.PathLike)):
            learned_weights = load_eval_model(learned_weights).learned_weights()
        options = _core.SearchOptions(
            **budget(iterations, time_limit), threads=threads, exploration=exploration, max_nodes=max_nodes,
            playout_turns=playout_turns, cheat=cheat, cheat_hands=cheat_hands, evaluate=evaluate, playout=playout, weights=weights,
            playout_candidates=playout_candidates, align_playouts=align_playouts, prior_weight=prior_weight,
            widen_base=widen_base, widen_coef=widen_coef, widen_exponent=widen_exponent,
            ordered_expansion=ordered_expansion, playout_epsilon=playout_epsilon, inference=inference,
            inference_plays=inference_plays, inference_strength=inference_strength,
            inference_margin=inference_margin, inference_tries=inference_tries,
            evaluation=evaluation, learned_weights=learned_weights, expansion_candidates=expansion_candidates,
            decisive=decisive, playout_block_chance=playout_block_chance, playout_block=playout_block,
            playout_two_eyed_cost=playout_two_eyed_cost, playout_one_eyed_cost=playout_one_eyed_cost)
        self._init_search(options, seed)

    def _spec_extras(self) -> List[Optional[str]]:
        o = self.options
        return ["cheat" if o.cheat else None,
                "cheat_hands" if o.cheat_hands and not o.cheat else None,
                f"inference={o.inference}" if o.inference != "off" else None,
                "evaluation=learned" if o.evaluation == "learned" else None]

    def _run(self, game: Game, seed: int, options: Any, stop: Any) -> Any:
        return _core.mcts_search(game._state, options, seed, stop)

    def analyze(self, game: Any, limit: Optional[Limit] = None) -> SearchResult:
        """Search the position and report the root statistics: a :class:`SearchResult` whose
        ``moves`` are in visits order (most first; ties: lowest core move id) and ``move`` is the
        first of them, the move :meth:`select_move` plays."""
        return super().analyze(game, limit)
