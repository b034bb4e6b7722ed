"""``RolloutAgent``: determinized rollout search with common random numbers, in the compiled core.

The search (``cpp/include/sequence/search/rollout.hpp``) improves on the move heuristic of
:class:`~sequence_game.agents.GreedyAgent` by looking ahead. It keeps the ``candidates`` moves the
heuristic rates highest (a move that wins at once, R8, is played without search), then over and over
samples one *world* -- the cards the player cannot see (R9: the other hands and the draw pile) dealt
at random -- and plays every candidate in that same world, each followed by the same heuristic
playout for ``horizon`` turns (to the end of the game by default), scored 1 for a win, 0 for a loss
and ``1/teams`` for a draw (a position still open at the horizon gets the static evaluation of
``evaluate.hpp``). The candidate with the best mean is played.

Why not a tree: Sequence is a game of heavy luck. When each move is tried in worlds of its own (as the
iterations of :class:`~sequence_game.agents.MCTSAgent` do), the luck of the deal swamps the difference
between moves; when all candidates meet the *same* cards (common random numbers) the luck cancels out
of their comparison. With short playouts (``horizon=10``, then the static evaluation) at 6,000 playouts a
move it is the ``hard`` preset, level 8: against ``greedy`` it measured stronger than
:class:`~sequence_game.agents.MCTSAgent` at 30,000 iterations, for about the same CPU time
(``docs/measurements.md``). Its shared deals also make it the low-variance way to compare a few
candidate moves (the tool behind the measurements of what hidden information is worth) and the base
for opponent modelling.

Opponent modelling is a research build's option (CMake ``SEQUENCE_RESEARCH``,
``build_info()["research"]``), as the inference of hidden cards that measured no gain
(docs/research/inference.md): with
``inference_strength`` the last play of another player is evidence about the hand it was made from.
A sampled world in which that player could have made a much better move -- completed a sequence,
blocked a four -- but did not is unlikely, so worlds are drawn by rejection (at most
``inference_tries`` a world), each accepted with probability ``exp(-inference_strength *
shortfall)`` (the shortfall on a log scale of the heuristic's scores). Only public information is
read: the board before and after that play and the card it put on the discard pile.

>>> import sequence_game
>>> g = sequence_game.Game(players=2, seed=4)
>>> RolloutAgent(iterations=200, seed=1).select_move(g) in g.legal_moves()
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, List, Optional

from .. import _core
from ..game import Game
from .control import Limit, StopToken
from .search import SearchAgent, SearchResult, budget

if TYPE_CHECKING:
    from ..gamebase import GameBase

__all__ = ["RolloutAgent"]

#: The options of a research build's RolloutOptions (CMake SEQUENCE_RESEARCH) that RolloutAgent takes.
_RESEARCH_OPTIONS = ("inference_strength", "inference_tries", "keep_two_eyed", "halving")


class RolloutAgent(SearchAgent):
    """Determinized rollout search with common random numbers (see the module docstring). Every
    parameter is checked when the agent is built and kept in ``options``, a
    ``_core.RolloutOptions``.

    Parameters:
        iterations: playouts per move (all candidates and threads together), an int >= 1.
        time_limit: seconds per move, a number > 0. With both, whichever comes first; with
            neither, ``time_limit=1.0``.
        threads: 1..256 threads (the worlds are split between them).
        seed: None (random) or an int in ``0 .. 2**64 - 1``; with an iteration budget and no time
            limit, a seeded agent makes the same moves.
        candidates: how many of the heuristic's best moves are compared (1..1024, default 8).
        horizon: playout turns after the candidate move (default 200: to the end of the game).
        epsilon: the chance (0..1) of a random legal move at each playout turn (default 0).
        research: a research build's options, ``inference_strength`` (0..1e6; default 0 = off)
            and ``inference_tries`` (opponent modelling, see the module docstring), and
            ``keep_two_eyed`` (default False): keep the two-eyed jacks (R5) for the cells that
            decide, a wild jack on a cell that neither completes a sequence nor takes another
            team's completing cell not compared while another play or a trade is, and ``halving``
            (default False): sequential halving, the budget spent in rounds, after each of which
            the worse half of the candidates still in play (by mean reward over the same deals) is
            dropped, so that the best few are compared on more deals (neither measured a gain,
            docs/research/ceilings.md). A product build refuses them by name
            (``TypeError`` saying to build with ``-DSEQUENCE_RESEARCH=ON``).

    Reading hidden cards is not a parameter: it breaks R9 and is a test hook (``agents/_peeking.py``)
    for measuring what hidden information is worth.
    """

    agent_label = "RolloutAgent"
    spec_label = "rollout"
    _rank = "value"  # its moves rank best mean first (with halving: the last in play first)

    def __init__(self, iterations: Optional[int] = None, time_limit: Optional[float] = None, threads: int = 1,
                 seed: Optional[int] = None, candidates: int = 8, horizon: int = 200, epsilon: float = 0.0,
                 **research: Any) -> None:
        for key in research:
            if key not in _RESEARCH_OPTIONS:
                raise TypeError(f"RolloutAgent() got an unexpected keyword argument {key!r}")
        options = _core.RolloutOptions(
            **budget(iterations, time_limit), threads=threads, candidates=candidates, horizon=horizon,
            epsilon=epsilon, **research)
        self._init_search(options, seed)
        if research.get("halving"):
            self._rank = "visits-value"

    def _spec_extras(self) -> List[Optional[str]]:
        levels = {"none": 0, "hands": 1, "all": 2}  # the names of recorded matches: reveal=1, reveal=2
        return [f"reveal={levels[self._peek]}" if self._peek != "none" else None]

    def _run(self, game: Game, seed: int, options: Any, stop: Any) -> Any:
        return _core.rollout_search(game._state, options, seed, stop, self._peek)

    def analyze(self, game: GameBase, limit: Optional[Limit] = None, stop: Optional[StopToken] = None) -> SearchResult:
        """Search the position and report every candidate: a :class:`SearchResult` whose ``moves``
        are best mean first; ``visits`` is the number of deals the move was played in (the same
        for every candidate; with the research build's ``halving``, the candidates that stayed in play longest first,
        each group best mean first) and ``value`` its mean reward for the mover's team in [0, 1]."""
        return super().analyze(game, limit, stop)
