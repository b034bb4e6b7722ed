"""``MCTSAgent``: information-set Monte Carlo tree search in the compiled core.

The search (``cpp/include/sequence/search/ismcts.hpp``) is single-observer ISMCTS with
determinization (Cowling, Powley & Whitehouse 2012). It reads only what the player to move may see
(R9): its own hand, the board, sequences, discard piles, hand sizes and the draw pile's size. Each
iteration deals the unseen cards at random into the other hands and the draw pile, walks one shared
tree of moves with availability-corrected UCB (a move that wins at once, R8, is the only one
considered at its node), then plays a *short* informed playout of ``playout_turns`` turns
(extended to the end of the round so that it stops with the searching player to move; each turn
completes a sequence when possible, else blocks another team's completion cell, else trades a dead
card, else makes a random play: ``cpp/include/sequence/playout.hpp``), and scores the position
with a static evaluation (``cpp/include/sequence/search/evaluate.hpp``): per team, completed
sequences, open five-cell windows weighted by the chips they hold, distinct completion cells
("threats") and the jacks in hand, turned into a reward in [0, 1] per team by a logistic (a
softmax for three teams). A game that ends inside the tree or the playout scores exactly: 1 for the winning team, 0 for the others, ``1/teams`` each for a draw.
With ``threads > 1`` every thread grows its own tree (root parallelism,
``cpp/include/sequence/parallel.hpp``) and the root visit counts are summed. The move with the most
visits is played (ties: lowest core move id).

The search's knobs are the fields of :class:`~sequence_game.agents.SearchOptions`, given as
``options`` (``docs/agents.md``, "Search options"). The defaults are the measured best and what
every preset plays; the options that measured no gain are in a research build only (CMake
``SEQUENCE_RESEARCH``, ``build_info()["research"]``), what each was worth in ``docs/research/``,
the search's strength in ``docs/measurements.md``.

>>> import sequence_game
>>> g = sequence_game.Game(players=2, seed=4)
>>> agent = MCTSAgent(iterations=300, seed=1)
>>> agent.select_move(g) in g.legal_moves()
True
>>> MCTSAgent(iterations=300, options={"exploration": 0.3}).options.exploration
0.3
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Tuple, Union

from .. import _core
from ..game import Game
from .control import Limit, StopToken
from .search import SearchAgent, SearchResult, budget

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["MCTSAgent", "SearchOptions", "format_weights", "make_search_options", "parse_weights"]

#: The search's options (``_core.SearchOptions``): every field a keyword with its default, each value
#: checked when set (``TypeError``/``ValueError`` naming the field and its bounds).
SearchOptions = _core.SearchOptions

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


#: The fields of SearchOptions that MCTSAgent's own arguments set.
_BUDGET_FIELDS = ("iterations", "time_limit", "threads", "seed")
#: The former option names of the test hook that lets a search read hidden cards (agents/_peeking.py):
#: refused with the rule they would break.
_PEEKING_FIELDS = ("cheat", "cheat_hands")


def make_search_options(iterations: Optional[int] = None, time_limit: Optional[float] = None, threads: int = 1,
                        options: Union[_core.SearchOptions, Mapping[str, Any], None] = None) -> _core.SearchOptions:
    """The ``SearchOptions`` of ``MCTSAgent(iterations, time_limit, threads, options=options)``.

    ``options`` is None, a ``SearchOptions`` or a mapping of its field names to values. In a
    mapping (and in an agent spec) ``weights`` may also be the 8 numbers written with slashes
    (:func:`parse_weights`); in a research build ``learned_weights`` may be a model file's path or
    an :class:`~sequence_game.research.learned_eval.EvalModel`, and with ``evaluation="learned"`` or
    ``expansion_candidates`` and no ``learned_weights`` the packaged model is loaded. The budget
    and the threads are MCTSAgent's own arguments, not options.
    """
    if options is None:
        knobs: Dict[str, Any] = {}
    elif isinstance(options, _core.SearchOptions):
        default = _core.SearchOptions()
        knobs = {k: getattr(options, k) for k in _core.SearchOptions.fields if k not in _BUDGET_FIELDS}
        budget_set = [k for k in _BUDGET_FIELDS if getattr(options, k) != getattr(default, k)]
        if budget_set:
            raise ValueError(f"options sets {', '.join(budget_set)}: give the budget and threads as "
                             "MCTSAgent(iterations=..., time_limit=..., threads=..., seed=...)")
    elif isinstance(options, Mapping):
        knobs = {str(k): v for k, v in options.items()}
        budget_set = [k for k in _BUDGET_FIELDS if k in knobs]
        if budget_set:
            raise TypeError(f"options has {', '.join(budget_set)}: give the budget and threads as "
                            "MCTSAgent(iterations=..., time_limit=..., threads=..., seed=...)")
        knobs = _convert(knobs)
    else:
        raise TypeError(f"options must be None, a SearchOptions or a mapping of its fields, not {type(options).__name__}")
    peeking = [k for k in _PEEKING_FIELDS if k in knobs]
    if peeking:
        raise TypeError(f"{peeking[0]} is not an option of MCTSAgent: the search reads only what the player to move "
                        "may see (R9)")
    return _core.SearchOptions(**budget(iterations, time_limit), threads=threads, **knobs)


def _convert(knobs: Dict[str, Any]) -> Dict[str, Any]:
    """A mapping's values in the forms ``SearchOptions`` takes (see :func:`make_search_options`)."""
    if isinstance(knobs.get("weights"), str):
        knobs["weights"] = parse_weights(knobs["weights"])
    if "learned_weights" not in _core.SearchOptions.fields:  # a product build: SearchOptions names what it lacks
        return knobs
    from ..research.learned_eval import EvalModel, load_eval_model  # the research build's

    learned = knobs.get("learned_weights")
    if learned is None and (knobs.get("evaluation") == "learned" or knobs.get("expansion_candidates")):
        knobs["learned_weights"] = load_eval_model().learned_weights()
    elif isinstance(learned, EvalModel):
        knobs["learned_weights"] = learned.learned_weights()
    elif isinstance(learned, (str, os.PathLike)):
        knobs["learned_weights"] = load_eval_model(learned).learned_weights()
    return knobs


class MCTSAgent(SearchAgent):
    """Information-set MCTS (see the module docstring). Everything is checked when the agent is
    built (``TypeError``/``ValueError`` naming the parameter and its bounds) and kept in
    ``options``, a :class:`~sequence_game.agents.SearchOptions`, whose fields read as attributes of
    the agent too (``agent.exploration``).

    Parameters:
        iterations: total iterations per move (all threads together), an int >= 1.
        time_limit: seconds per move, a number > 0. With both, the search stops at whichever comes
            first; with neither, ``iterations=10000``.
        threads: 1..256 search threads (root parallelism).
        seed: None (random) or an int in ``0 .. 2**64 - 1``. A seeded agent is reproducible: its
            n-th search uses the n-th output of an internal generator seeded with ``seed`` (with an
            iteration budget and no time limit, the same seed gives the same moves).
        options: the search's knobs: None (the defaults), a ``SearchOptions`` or a mapping of its
            fields (:func:`make_search_options`), e.g. ``{"exploration": 0.3}``; an agent spec
            gives them as ``mcts:iters=1000,exploration=0.3``.

    The knobs (``SearchOptions`` fields; the defaults are the measured best):

    - ``exploration``: the UCB constant ``c`` (0..1000; rewards are in [0, 1]). Default 0.2.
    - ``max_nodes``: the tree size bound (all threads together; from ``threads`` to 2**31 - 1).
      When the trees are full the search keeps iterating without growing them; memory is taken as
      the trees grow.
    - ``playout_turns``: playouts stop this many turns after leaving the tree (then at the end of
      that round) and the position is evaluated. Default 6.
    - ``playout_candidates`` (0..64, default 1): how many random plays the playout compares by
      their local value when there is nothing to complete, block or trade.
    - ``weights``: the static evaluation's 8 weights (a ``_core.EvalWeights`` or 8 numbers: an open
      window holding 1, 2, 3 cells, each threat, each sequence, the logistic scale, each two-eyed
      and one-eyed jack in hand); in a spec written with slashes,
      ``mcts:weights=1/4/15/50/150/80/30/20``.
    - ``decisive`` (default True), ``playout_block_chance`` (0..256), ``playout_block``,
      ``playout_two_eyed_cost``, ``playout_one_eyed_cost``: the tree's immediate-win rule and the
      informed playout's blocking and jack spending.

    A research build (CMake ``SEQUENCE_RESEARCH``) adds the options that measured no gain: the
    learned evaluation as leaf (``evaluation="learned"``, ``learned_weights``) and as expansion
    prior (``expansion_candidates``; ``docs/research/learned-evaluation.md``), and the inference of
    hidden cards (``inference="recent"``, ``inference_plays``, ``inference_strength``,
    ``inference_margin``, ``inference_tries``; ``docs/research/inference.md``). A product build
    refuses them by name (``TypeError`` saying to build with ``-DSEQUENCE_RESEARCH=ON``). Reading
    hidden cards is not an option: a search that does breaks R9; it is a test hook
    (``agents/_peeking.py``).
    """

    agent_label = "MCTSAgent"
    spec_label = "mcts"

    def __init__(self, iterations: Optional[int] = None, time_limit: Optional[float] = None, threads: int = 1,
                 seed: Optional[int] = None, options: Union[_core.SearchOptions, Mapping[str, Any], None] = None) -> None:
        self._init_search(make_search_options(iterations, time_limit, threads, options), seed)

    def _spec_extras(self) -> List[Optional[str]]:
        o = self.options
        return ["cheat" if self._peek == "all" else None,
                "cheat_hands" if self._peek == "hands" else None,
                f"inference={o.inference}" if getattr(o, "inference", "off") != "off" else None,  # research build
                "evaluation=learned" if getattr(o, "evaluation", "handset") == "learned" else None]

    def _run(self, game: Game, seed: int, options: Any, stop: Any) -> Any:
        return _core.mcts_search(game._state, options, seed, stop, self._peek)

    def analyze(self, game: GameBase, limit: Optional[Limit] = None, stop: Optional[StopToken] = None) -> SearchResult:
        """Search the position and report the root statistics: a :class:`SearchResult` whose
        ``moves`` are in visits order (most first; ties: lowest core move id) and ``move`` is the
        first of them, the move :meth:`select_move` plays."""
        return super().analyze(game, limit, stop)
