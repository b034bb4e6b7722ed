"""The observation tensor (docs/observation.md): the Python mirror of
``cpp/include/sequence/observation.hpp``.

``LAYOUT`` names every field of the flat ``float32`` vector (offset, size); ``write_observation``
fills it in plain Python from any ``Game`` (the pure-Python reference uses it; the compiled
``Game`` has the core write it), and ``tests/test_observation.py`` checks that both agree.

>>> import sequence_game
>>> g = sequence_game.Game(players=2, seed=1)
>>> obs = g.observation_tensor(g.current_player)
>>> obs.shape, int(obs[field_slice("hand")].sum())
((890,), 7)
>>> planes(obs).shape
(7, 10, 10)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Optional, Tuple

import numpy as np

from .actions import DECLARE_BITS, DECLARE_NONE, DECLARE_PAIR, _window_cells

if TYPE_CHECKING:
    from .gamebase import GameBase

MAX_PLAYERS, MAX_TEAMS, CARD_KINDS = 12, 3, 52

#: The planes, in order: one value per cell (``10 * row + col``), 1 or 0.
PLANES = ("own_chips", "next_team_chips", "third_team_chips", "locked", "corners",
          "pending_cell", "pending_declared")

_FEATURES = (
    ("hand", CARD_KINDS), ("discards", CARD_KINDS), ("hand_sizes", MAX_PLAYERS), ("draw_pile", 1),
    ("sequences", MAX_TEAMS), ("traded_this_turn", 1), ("turn", 1), ("max_turns", 1),
    ("to_move", MAX_PLAYERS), ("players", 1), ("teams", 1), ("passes", 1), ("pending_card", CARD_KINDS),
)


def _layout() -> Dict[str, Tuple[int, int]]:
    out = {name: (100 * i, 100) for i, name in enumerate(PLANES)}
    offset = 100 * len(PLANES)
    for name, size in _FEATURES:
        out[name] = (offset, size)
        offset += size
    return out


#: Field name -> (offset, size) in the observation vector.
LAYOUT: Dict[str, Tuple[int, int]] = _layout()
#: Length of the observation vector.
OBSERVATION_SIZE = sum(size for _, size in LAYOUT.values())


def _high() -> np.ndarray:
    high = np.ones(OBSERVATION_SIZE, dtype=np.float32)
    bounds = {
        "hand": 2, "discards": 2, "hand_sizes": 7, "draw_pile": 104, "sequences": 16, "turn": 2**31 - 1,
        "max_turns": 2**31 - 1, "players": 12, "teams": 3, "passes": 12,
    }  # R1 two copies of each card, R3 hands of at most 7, one placement adds at most 8 sequences (R7)
    for name, bound in bounds.items():
        offset, size = LAYOUT[name]
        high[offset:offset + size] = bound
    return high


#: The largest value of each entry (the lowest is 0): the bounds of the environments' ``Box``.
OBSERVATION_HIGH: np.ndarray = _high()


def _scale() -> np.ndarray:
    scale = OBSERVATION_HIGH.copy()
    # The fields whose bound is far above what games reach: two sequences win a two-team game (R8);
    # turns and the cap scaled by the environments' default cap of 1000 turns.
    for name, value in {"sequences": 2, "turn": 1000, "max_turns": 1000}.items():
        offset, size = LAYOUT[name]
        scale[offset:offset + size] = value
    return scale


#: The per-entry divisor of normalised observations (``normalize=True`` in the environments):
#: ``obs / OBSERVATION_SCALE`` lies in 0..1 except ``sequences`` (up to 8), and ``turn`` and
#: ``max_turns`` past 1000 turns.
OBSERVATION_SCALE: np.ndarray = _scale()


def field_slice(name: str) -> slice:
    """The slice of the observation vector that holds field ``name`` (see ``LAYOUT``)."""
    offset, size = LAYOUT[name]
    return slice(offset, offset + size)


def planes(obs: np.ndarray) -> np.ndarray:
    """The spatial part of an observation (or a batch of them) as ``(..., 7, 10, 10)``: a view."""
    return obs[..., : 100 * len(PLANES)].reshape(obs.shape[:-1] + (len(PLANES), 10, 10))


def write_observation(game: GameBase, player: int, pending: Optional[int], out: np.ndarray) -> None:
    """Write ``player``'s observation of ``game`` (with the pending placement's move id, or None)
    into ``out`` in plain Python; only what ``player`` may see (R9)."""
    out[:] = 0
    players, teams = game.players, game.teams
    team = player % teams
    view = {name: out[field_slice(name)] for name in LAYOUT}
    for i in range(100):
        code = game._cell_code(i)
        if code == 3:
            view["corners"][i] = 1
        elif code >= 0:
            view[PLANES[(code - team) % teams]][i] = 1
            if game._is_locked(i):
                view["locked"][i] = 1
    if pending is not None:
        cell = (pending >> 8) & 127
        view["pending_cell"][cell] = 1
        view["pending_card"][(pending >> 2) & 63] = 1
        for d in range(4):
            code = (pending >> (15 + DECLARE_BITS * d)) & 7
            for back in () if code == DECLARE_NONE else (4, 0) if code == DECLARE_PAIR else (code - 1,):
                cells = _window_cells(cell, d, back)
                assert cells is not None  # the core declares only windows on the board
                view["pending_declared"][list(cells)] = 1
    for card in game._hand_ids(player):
        view["hand"][card] += 1
    for p in range(players):
        for card in game._discard_ids(p):  # public (R9)
            view["discards"][card] += 1
        view["hand_sizes"][p] = len(game._hand_ids((player + p) % players))
    view["draw_pile"][0] = game.draw_pile_size
    for t, _ in game._sequence_list():
        view["sequences"][(t - team) % teams] += 1
    view["traded_this_turn"][0] = game.traded_this_turn
    view["turn"][0] = game.turn
    view["max_turns"][0] = game.max_turns or 0
    if not game.is_over:
        view["to_move"][(game.current_player - player) % players] = 1
    view["players"][0] = players
    view["teams"][0] = teams
    view["passes"][0] = game.passes
