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
legal moves on a log scale (progressive bias). Playouts play the heuristic's best move (a random
legal move with probability ``playout_epsilon``); ``greedy_playouts=False`` gives the older cheap
informed policy (complete a sequence when possible, else block another team's completion cell,
else trade a dead card, else a random play: ``cpp/include/sequence/playout.hpp``), about 3x as
many iterations per second. In 2-player matches against ``GreedyAgent`` at a fixed iteration
budget the guided search (``prior_weight=0.5, widen_base=2, ordered_expansion=True,
greedy_playouts=True``) won as often as the plain one (56% of 100 games each at 10,000
iterations) at a fifth of the iterations per second, so the plain search stays the default.
A game that ends inside the tree or the playout scores exactly: 1 for the winning team,
0 for the others, ``1/teams`` each for a draw. With ``threads > 1`` every thread grows its own tree
(root parallelism) and the root visit counts are summed. The move with the most visits is played
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

import math
from typing import Any, Dict, Optional, Sequence, Tuple

from .. import _core
from .._args import is_int as _is_int
from ..game import Game
from ..move import Move
from .search import SearchAgent, check_number, is_number

__all__ = ["MCTSAgent"]


DEFAULT_ITERATIONS = 10000
# The evaluation weights (evaluate.hpp EvalWeights), in the order ``weights`` takes them.
DEFAULT_WEIGHTS: Tuple[float, ...] = (1.0, 4.0, 15.0, 50.0, 150.0, 80.0, 30.0, 20.0)


class MCTSAgent(SearchAgent):
    """Information-set MCTS (see the module docstring).

    Parameters:
        iterations: total iterations per move (all threads together), an int >= 1.
        time_limit: seconds per move, a number > 0. With both, the search stops at whichever comes
            first; with neither, ``iterations=10000``.
        threads: 1..256 search threads (root parallelism).
        seed: None (random) or an int in ``0 .. 2**64 - 1``. A seeded agent is reproducible: its
            n-th search uses the n-th output of an internal generator seeded with ``seed`` (with an
            iteration budget and no time limit, the same seed gives the same moves).
        exploration: the UCB constant ``c`` (>= 0; rewards are in [0, 1]). Default 0.2 (was 0.7 with
            win/loss playouts).
        max_nodes: the tree size bound (all threads together; >= threads). When the trees are full
            the search keeps iterating without growing them.
        playout_turns: playouts stop this many turns after leaving the tree (then, with
            ``align_playouts``, at the end of that round) and the position is evaluated. Default 6
            (was 200: play to the end). With ``evaluate=False`` a playout that stops early counts as
            a draw, so use a large value there.
        cheat: TEST ONLY. Search the true state (other hands and the draw pile included) instead of
            sampling the unseen cards; for measuring what hidden information is worth.
        evaluate: score a playout that stops before the end with the static evaluation (default
            True); False = as a draw (the old behaviour, with ``playout_turns=200``).
        informed_playouts: the informed playout policy (default True); False = uniformly random
            legal moves (``random_legal_move``).
        playout_candidates: with informed playouts, how many random plays are drawn and compared by
            their local value when there is nothing to complete, block or trade (default 1; 0 =
            a uniformly random legal move there). Larger is better informed but slower.
        align_playouts: stop each evaluated playout with the searching player to move (default
            True), so that odd and even tree depths are evaluated alike.
        weights: None (defaults, ``DEFAULT_WEIGHTS``) or 8 numbers >= 0: the values of an open
            window holding 1, 2, 3 cells, of each distinct threat (an empty cell completing an open
            four), of each completed sequence, the logistic scale (> 0), and the value of each
            two-eyed and one-eyed jack in a team's hands.
        prior_weight: progressive bias weight (>= 0, default 0 = none; 0.5 tested).
        widen_base, widen_coef, widen_exponent: progressive widening (defaults 0, 1, 0.4;
            ``widen_base=2`` makes a node with n visits consider at most ``2 + n**0.4`` children
            legal in the current sample); ``widen_base=0`` = no widening (every legal move is
            expanded before UCB selects).
        ordered_expansion: expand untried moves in heuristic order (default False = at random).
        greedy_playouts: playouts by the heuristic (default False = the informed or random
            policy; True takes precedence over ``informed_playouts``).
        playout_epsilon: in greedy playouts, the chance of a uniformly random legal move instead
            (0..1, default 0.3).
    """

    agent_label = "MCTSAgent"

    def __init__(self, iterations: Optional[int] = None, time_limit: Optional[float] = None, threads: int = 1,
                 seed: Optional[int] = None, exploration: float = 0.2, max_nodes: int = 1_000_000,
                 playout_turns: int = 6, cheat: bool = False, evaluate: bool = True,
                 informed_playouts: bool = True, weights: Optional[Sequence[float]] = None,
                 playout_candidates: int = 1, align_playouts: bool = True, prior_weight: float = 0.0,
                 widen_base: float = 0.0, widen_coef: float = 1.0, widen_exponent: float = 0.4,
                 ordered_expansion: bool = False, greedy_playouts: bool = False,
                 playout_epsilon: float = 0.3) -> None:
        self._init_budget(iterations, time_limit, threads, seed, default_iterations=DEFAULT_ITERATIONS)
        exploration = check_number("exploration", exploration)
        if not _is_int(max_nodes):
            raise TypeError(f"max_nodes must be an int, not {type(max_nodes).__name__} {max_nodes!r}")
        if max_nodes < threads:
            raise ValueError(f"max_nodes must be at least threads ({threads}): one root per tree, not {max_nodes}")
        if not _is_int(playout_turns):
            raise TypeError(f"playout_turns must be an int, not {type(playout_turns).__name__}")
        if playout_turns < 1:
            raise ValueError(f"playout_turns must be at least 1, not {playout_turns}")
        for flag, value in (("cheat", cheat), ("evaluate", evaluate), ("informed_playouts", informed_playouts),
                            ("align_playouts", align_playouts), ("ordered_expansion", ordered_expansion),
                            ("greedy_playouts", greedy_playouts)):
            if not isinstance(value, bool):
                raise TypeError(f"{flag} must be True or False, not {value!r}")
        if not _is_int(playout_candidates):
            raise TypeError(f"playout_candidates must be an int, not {type(playout_candidates).__name__}")
        if not 0 <= playout_candidates <= 64:
            raise ValueError(f"playout_candidates must be from 0 to 64, not {playout_candidates}")
        for label, value in (("prior_weight", prior_weight), ("widen_base", widen_base), ("widen_coef", widen_coef),
                             ("widen_exponent", widen_exponent)):
            check_number(label, value)
        check_number("playout_epsilon", playout_epsilon, upper=1)
        if weights is not None:
            try:
                weights = tuple(weights)
            except TypeError:
                raise TypeError(f"weights must be None or 8 numbers, not {weights!r}") from None
            if len(weights) != 8 or not all(is_number(w) for w in weights):
                raise TypeError(f"weights must be None or 8 numbers, not {weights!r}")
            if not all(w >= 0 and math.isfinite(w) for w in weights) or not weights[5] > 0:
                raise ValueError(f"weights must be finite and >= 0, the scale (6th) > 0: {weights!r}")
            weights = tuple(float(w) for w in weights)
        self.exploration = exploration
        self.max_nodes = max_nodes
        self.playout_turns = playout_turns
        self.cheat = cheat
        self.evaluate = evaluate
        self.informed_playouts = informed_playouts
        self.playout_candidates = playout_candidates
        self.align_playouts = align_playouts
        self.weights: Optional[Tuple[float, ...]] = weights
        self.prior_weight = float(prior_weight)
        self.widen_base = float(widen_base)
        self.widen_coef = float(widen_coef)
        self.widen_exponent = float(widen_exponent)
        self.ordered_expansion = ordered_expansion
        self.greedy_playouts = greedy_playouts
        self.playout_epsilon = float(playout_epsilon)
        shown = [f"iterations={self.iterations}" if self.iterations is not None else None,
                 f"time={time_limit}" if time_limit is not None else None,
                 f"threads={threads}" if threads != 1 else None,
                 f"seed={seed}" if seed is not None else None,
                 "cheat" if cheat else None]
        shown_text = ",".join(s for s in shown if s)
        self.name = "mcts" + (":" + shown_text if shown_text else "")

    def __repr__(self) -> str:
        return (f"MCTSAgent(iterations={self.iterations!r}, time_limit={self.time_limit!r}, threads={self.threads}, "
                f"seed={self.seed!r}, exploration={self.exploration}, max_nodes={self.max_nodes}, "
                f"playout_turns={self.playout_turns}, cheat={self.cheat}, evaluate={self.evaluate}, "
                f"informed_playouts={self.informed_playouts}, playout_candidates={self.playout_candidates}, "
                f"align_playouts={self.align_playouts}, weights={self.weights!r}, prior_weight={self.prior_weight}, "
                f"widen_base={self.widen_base}, widen_coef={self.widen_coef}, widen_exponent={self.widen_exponent}, "
                f"ordered_expansion={self.ordered_expansion}, greedy_playouts={self.greedy_playouts}, "
                f"playout_epsilon={self.playout_epsilon})")

    # ------------------------------------------------------------------ searching

    def _search(self, game: Game) -> Dict[str, Any]:
        return _core.mcts_search(game._state, self.iterations, self.time_limit, self.threads,
                                 self._rng.getrandbits(64), self.exploration, self.max_nodes,
                                 self.playout_turns, self.cheat, self.evaluate, self.informed_playouts,
                                 self.weights, self.playout_candidates, self.align_playouts, self.prior_weight,
                                 self.widen_base, self.widen_coef, self.widen_exponent, self.ordered_expansion,
                                 self.greedy_playouts, self.playout_epsilon)

    def _report(self, result: Dict[str, Any]) -> Dict[str, Any]:
        return {"nodes": result["nodes"], "bytes_per_node": result["bytes_per_node"]}

    def select_move(self, game: Any) -> Move:
        """The move with the most search visits for the player to move (the game is not changed)."""
        return super().select_move(game)

    def analyze(self, game: Any) -> Dict[str, Any]:
        """Search the position and report the root statistics.

        Returns ``{"moves": [{"move", "visits", "value"}, ...] (visits descending), "best",
        "iterations", "seconds", "nodes", "bytes_per_node"}``; ``value`` is the mean reward of the
        move for the mover's team in [0, 1] (1 win, 0 loss, ``1/teams`` draw; evaluated
        positions in between).
        """
        return super().analyze(game)
