"""The state format ``sequence-game/1`` (docs/state-format.md), shared by the core and the reference.

``Position`` is the whole state of a game in plain ints (card ids, cell indices ``10 * row + col``);
``position_from_dict`` validates a ``to_dict()``-style dict into one (every inconsistency is a
``ValueError`` or ``TypeError`` naming the field), ``position_to_dict`` writes one back, and
``observation_dict`` hides what a player may not see (R9). Both ``Game`` classes load and save
through these functions, so their dicts agree by construction.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Optional

from ._args import check_seed, is_int, plain_int
from .board import CORNER_CELLS
from .cards import CARD_IDS, CARD_NAMES, parse_card
from .errors import short_repr
from .game_setup import HAND_SIZE, MAX_TURNS, TEAM_LETTERS, check_max_turns, check_players_teams, sequences_to_win
from .move import line_cells

FORMAT = "sequence-game/1"

EMPTY, CORNER_CODE = -1, 3  # board codes; 0, 1, 2 are team chips
_CELL_CHARS = {EMPTY: ".", CORNER_CODE: "*", 0: "B", 1: "G", 2: "R"}
_CHAR_CODES = {v: k for k, v in _CELL_CHARS.items()}
CORNER_INDICES = frozenset(CORNER_CELLS)

_FIELDS = (
    "format", "players", "teams", "seed", "board", "sequences", "hands", "discards", "draw_pile",
    "current_player", "dealer", "turn", "traded_this_turn", "passes", "winner", "is_draw",
    "max_turns", "rng", "last_draw",
)


def empty_board() -> list[int]:
    return [CORNER_CODE if i in CORNER_INDICES else EMPTY for i in range(100)]


@dataclass
class Position:
    """The whole game state in plain ints; field meanings as in docs/state-format.md."""

    players: int
    teams: int
    hands: list[list[int]]
    board: list[int] = field(default_factory=empty_board)
    sequences: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    discards: list[list[int]] = field(default_factory=list)
    draw_pile: list[int] = field(default_factory=list)
    current_player: int = 0
    dealer: int = 0
    turn: int = 0
    traded_this_turn: bool = False
    passes: int = 0
    winner: Optional[int] = None
    is_draw: bool = False
    max_turns: Optional[int] = None
    seed: Optional[int] = None
    rng: int = 0
    last_draw: Optional[tuple[int, int]] = None

    def as_core_dict(self) -> dict[str, Any]:
        """The plain dict the compiled core's ``Game.from_position`` takes."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


# --------------------------------------------------------------------------- writing


def position_to_dict(pos: Position) -> dict[str, Any]:
    """The JSON-able ``sequence-game/1`` dict of a position."""
    return {
        "format": FORMAT,
        "players": pos.players,
        "teams": pos.teams,
        "seed": pos.seed,
        "board": ["".join(_CELL_CHARS[pos.board[10 * r + c]] for c in range(10)) for r in range(10)],
        "sequences": [
            {"team": team, "cells": [[i // 10, i % 10] for i in cells]} for team, cells in pos.sequences
        ],
        "hands": [[CARD_NAMES[c] for c in hand] for hand in pos.hands],
        "discards": [[CARD_NAMES[c] for c in pile] for pile in pos.discards],
        "draw_pile": [CARD_NAMES[c] for c in pos.draw_pile],
        "current_player": pos.current_player,
        "dealer": pos.dealer,
        "turn": pos.turn,
        "traded_this_turn": pos.traded_this_turn,
        "passes": pos.passes,
        "winner": pos.winner,
        "is_draw": pos.is_draw,
        "max_turns": pos.max_turns,
        "rng": f"{pos.rng:016x}",
        "last_draw": None
        if pos.last_draw is None
        else {"player": pos.last_draw[0], "card": CARD_NAMES[pos.last_draw[1]]},
    }


def observation_dict(state: dict[str, Any], player: int) -> dict[str, Any]:
    """What ``player`` may see of a ``to_dict()`` (R9): other hands and the draw pile as sizes."""
    obs = dict(state)
    obs["player"] = player
    obs["hands"] = [list(h) if p == player else len(h) for p, h in enumerate(state["hands"])]
    obs["draw_pile"] = len(state["draw_pile"])
    del obs["rng"], obs["seed"]
    last = state["last_draw"]
    if last is not None and last["player"] != player:
        obs["last_draw"] = {"player": last["player"]}
    return obs


# --------------------------------------------------------------------------- reading


# The deepest valid input nests five containers (the dict, 'sequences', one sequence, its 'cells',
# one cell); deeper input is refused while it is copied, before any recursion can run out.
_MAX_DEPTH = 8
_HEX = re.compile(r"[0-9a-fA-F]{1,16}")


def _plain(value: object, depth: int = 0) -> object:
    """A copy of ``value`` in plain built-in types, read through the built-in types' own methods.

    Validation then runs on data that cannot change under it or answer differently twice: a
    ``list`` subclass whose ``__len__`` lies, a ``dict`` subclass whose ``get`` does, an ``int``
    subclass with its own comparisons all become the plain values they hold.
    """
    if isinstance(value, (bool, float)) or value is None:
        return value
    if isinstance(value, int):
        return plain_int(value)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, (dict, list, tuple)):
        if depth >= _MAX_DEPTH:
            raise ValueError(f"from_dict: the input nests more than {_MAX_DEPTH} levels deep; a state nests at most 5")
        if isinstance(value, dict):
            return {_plain_key(k): _plain(v, depth + 1) for k, v in dict.items(value)}
        items = list.__iter__(value) if isinstance(value, list) else tuple.__iter__(value)
        return [_plain(v, depth + 1) for v in items]
    return value  # anything else is refused by the checks, by type


def _plain_key(key: object) -> object:
    if isinstance(key, str):
        return str.__str__(key)
    return plain_int(key) if isinstance(key, int) and not isinstance(key, bool) else key


def _int(d: dict[str, Any], name: str, default: Any, lo: int, hi: Optional[int] = None) -> Any:
    v = d.get(name, default)
    if v is None and default is None:
        return None
    if not is_int(v):
        raise TypeError(f"from_dict: {name!r} must be an int, not {type(v).__name__} {short_repr(v)}")
    if v < lo or (hi is not None and v > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"from_dict: {name!r} is {short_repr(v)}, out of range: it must be {rng}")
    return v


def _bool(d: dict[str, Any], name: str) -> bool:
    v = d.get(name, False)
    if not isinstance(v, bool):
        raise TypeError(f"from_dict: {name!r} must be true or false, not {short_repr(v)}")
    return v


def _card(v: object, where: str) -> int:
    try:
        return CARD_IDS[parse_card(v)]
    except (TypeError, ValueError) as e:
        raise type(e)(f"from_dict: {where}: {e}") from None


def _card_lists(d: dict[str, Any], name: str, players: int, required: bool) -> list[list[int]]:
    if name not in d:
        if required:
            raise ValueError(f"from_dict: {name!r} is required: a list of {players} lists of cards")
        return [[] for _ in range(players)]
    v = d[name]
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, (list, tuple)) for x in v):
        raise TypeError(f"from_dict: {name!r} must be a list of {players} lists of cards")
    if len(v) != players:
        raise ValueError(f"from_dict: {name!r} has {len(v)} lists; {players} players need {players}")
    return [[_card(c, f"{name}[{p}]") for c in cards] for p, cards in enumerate(v)]


def _board(d: dict[str, Any], teams: int) -> list[int]:
    if "board" not in d:
        return empty_board()
    rows = d["board"]
    if not isinstance(rows, (list, tuple)) or len(rows) != 10 or not all(isinstance(r, str) for r in rows):
        raise TypeError("from_dict: 'board' must be a list of 10 strings of 10 characters from '*.BGR'")
    board = []
    allowed = "*." + "".join(TEAM_LETTERS[:teams])
    for r, row in enumerate(rows):
        if len(row) != 10:
            raise ValueError(f"from_dict: board row {r} {short_repr(row)} has {len(row)} characters; it needs 10")
        for c, ch in enumerate(row):
            if ch not in allowed:
                raise ValueError(
                    f"from_dict: board row {r} col {c} is {ch!r}; use one of {allowed!r} "
                    f"('*' corner, '.' empty, {', '.join(TEAM_LETTERS[:teams])} for teams 0..{teams - 1})"
                )
            code = _CHAR_CODES[ch]
            corner = 10 * r + c in CORNER_INDICES
            if corner and code != CORNER_CODE:
                raise ValueError(f"from_dict: board ({r}, {c}) is a corner and must be '*', not {ch!r} (R1, R5)")
            if not corner and code == CORNER_CODE:
                raise ValueError(f"from_dict: board ({r}, {c}) is not a corner; '*' only stands on the four corners")
            board.append(code)
    return board


def _sequences(d: dict[str, Any], teams: int, board: list[int]) -> list[tuple[int, tuple[int, ...]]]:
    raw = d.get("sequences", [])
    if not isinstance(raw, (list, tuple)):
        raise TypeError("from_dict: 'sequences' must be a list of {'team': t, 'cells': [[r, c] x 5]}")
    seqs: list[tuple[int, tuple[int, ...]]] = []
    for k, s in enumerate(raw):
        if not isinstance(s, dict) or set(s) != {"team", "cells"}:
            raise TypeError(
                f"from_dict: sequences[{k}] must be {{'team': t, 'cells': [[r, c] x 5]}}, not {short_repr(s)}"
            )
        team = _int(s, "team", None, 0, teams - 1) if s["team"] is not None else None
        if team is None:
            raise TypeError(f"from_dict: sequences[{k}]['team'] must be an int 0..{teams - 1}")
        cells = s["cells"]
        if (
            not isinstance(cells, (list, tuple))
            or len(cells) != 5
            or not all(
                isinstance(c, (list, tuple)) and len(c) == 2 and all(is_int(v) and 0 <= v < 10 for v in c)
                for c in cells
            )
        ):
            raise ValueError(f"from_dict: sequences[{k}] cells must be five [row, col] pairs with 0 <= row, col <= 9")
        pts = sorted((r, c) for r, c in cells)
        if line_cells(pts[0], pts[-1]) != tuple(pts):
            raise ValueError(f"from_dict: sequences[{k}] {short_repr(cells)} is not five cells in a straight line (R7)")
        idx = tuple(10 * r + c for r, c in pts)
        for i in idx:
            if board[i] not in (team, CORNER_CODE):
                raise ValueError(
                    f"from_dict: sequences[{k}] of team {team} covers ({i // 10}, {i % 10}), which holds "
                    f"{_CELL_CHARS[board[i]]!r}; a sequence is the team's chips or corners (R7)"
                )
        for j, (other_team, other) in enumerate(seqs):
            if other_team == team and len(set(other) & set(idx)) > 1:
                raise ValueError(
                    f"from_dict: sequences[{k}] shares {len(set(other) & set(idx))} cells with sequences[{j}] "
                    "of the same team; they may share at most one (R7)"
                )
        seqs.append((team, idx))
    return seqs


def position_from_dict(d: object) -> Position:
    """Validate a ``sequence-game/1`` dict (docs/state-format.md) and return its ``Position``."""
    if not isinstance(d, dict):
        raise TypeError(f"from_dict takes a dict (as made by to_dict), not {type(d).__name__}")
    unknown = set(dict.keys(d)) - set(_FIELDS)
    if unknown:
        names = sorted(map(short_repr, unknown))
        raise ValueError(
            f"from_dict: unknown field(s) {', '.join(names[:5])}{' ...' if len(names) > 5 else ''}; "
            f"the fields are {', '.join(_FIELDS)}"
        )
    d = _plain(d)
    assert isinstance(d, dict)
    if d.get("format", FORMAT) != FORMAT:
        raise ValueError(f"from_dict: format {short_repr(d.get('format'))} is not supported; expected {FORMAT!r}")
    if "players" not in d:
        raise ValueError("from_dict: 'players' is required (2, 3, 4, 6, 8, 9, 10 or 12)")
    try:
        players, teams = check_players_teams(d["players"], d.get("teams"))
    except (TypeError, ValueError) as e:
        raise type(e)(f"from_dict: {e}") from None
    seed = check_seed(d.get("seed"))
    max_turns = check_max_turns(d.get("max_turns"))
    board = _board(d, teams)
    seqs = _sequences(d, teams, board)

    hands = _card_lists(d, "hands", players, required=True)
    for p, hand in enumerate(hands):
        if len(hand) > HAND_SIZE[players]:
            raise ValueError(
                f"from_dict: player {p} holds {len(hand)} cards; with {players} players a hand holds at most "
                f"{HAND_SIZE[players]} (R3)"
            )
        hand.sort()
    discards = _card_lists(d, "discards", players, required=False)
    counts = Counter(c for h in hands for c in h) + Counter(c for pile in discards for c in pile)
    over = sorted(c for c, n in counts.items() if n > 2)
    if over:
        raise ValueError(
            f"from_dict: {CARD_NAMES[over[0]]} appears {counts[over[0]]} times across hands and discard piles; "
            "the deck has exactly two of each card (R1)"
        )
    if "draw_pile" in d:
        raw = d["draw_pile"]
        if not isinstance(raw, (list, tuple)):
            raise TypeError("from_dict: 'draw_pile' must be a list of cards, the next card to draw first")
        draw_pile = [_card(c, "draw_pile") for c in raw]
        counts += Counter(draw_pile)
    else:
        draw_pile = [c for c in range(52) for _ in range(2 - counts[c])]
        counts += Counter(draw_pile)
    for c in range(52):
        if counts[c] != 2:
            raise ValueError(
                f"from_dict: {CARD_NAMES[c]} appears {counts[c]} times across hands, discard piles and draw "
                "pile; the deck has exactly two of each card (R1)"
            )

    current = _int(d, "current_player", 0, 0, players - 1)
    dealer = _int(d, "dealer", (current - 1) % players, 0, players - 1)
    turn = _int(d, "turn", 0, 0, MAX_TURNS)
    traded = _bool(d, "traded_this_turn")
    passes = _int(d, "passes", 0, 0, players)
    is_draw = _bool(d, "is_draw")
    rng_raw = d.get("rng", seed if seed is not None else 0)
    if isinstance(rng_raw, str):
        if not _HEX.fullmatch(rng_raw):  # int(, 16) would also take "0x10", " 1", "1_0", other scripts' digits
            raise ValueError(f"from_dict: 'rng' {short_repr(rng_raw)} is not 1 to 16 hex digits 0-9a-f (docs/rng.md)")
        rng = int(rng_raw, 16)
    elif is_int(rng_raw):
        rng = rng_raw
    else:
        raise TypeError(f"from_dict: 'rng' must be 16 hex digits (or an int), not {short_repr(rng_raw)}")
    if not 0 <= rng < 2**64:
        raise ValueError("from_dict: 'rng' must fit in 64 bits")

    need = sequences_to_win(teams)
    won = sorted({t for t, _ in seqs if sum(1 for u, _ in seqs if u == t) >= need})
    if len(won) > 1:
        raise ValueError(f"from_dict: teams {won} have all won (R8); only one team can win")
    derived = won[0] if won else None
    winner = _int(d, "winner", derived, 0, teams - 1) if d.get("winner", derived) is not None else None
    if winner != derived:
        raise ValueError(
            f"from_dict: 'winner' is {winner!r} but the sequences say {derived!r}: a team wins with {need} "
            f"sequence{'s' if need > 1 else ''} (R8)"
        )
    if winner is not None and is_draw:
        raise ValueError("from_dict: a game cannot be both won and drawn ('winner' and 'is_draw')")
    if passes >= players and not is_draw:
        raise ValueError(
            f"from_dict: 'passes' is {passes}, but {players} counted passes in a row end the game in a draw "
            f"(R5): use 0..{players - 1} or set is_draw"
        )

    cap = MAX_TURNS if max_turns is None else max_turns
    if turn >= cap and winner is None and not is_draw:
        raise ValueError(
            f"from_dict: 'turn' {turn} has reached the turn cap {cap}, so the game is a draw: "
            "set is_draw, or raise max_turns above turn"
        )

    last = d.get("last_draw")
    last_draw = None
    if last is not None:
        if not isinstance(last, dict) or set(last) != {"player", "card"}:
            raise TypeError("from_dict: 'last_draw' must be null or {'player': p, 'card': c}")
        lp = _int(last, "player", None, 0, players - 1)
        lc = _card(last["card"], "last_draw")
        # A winning play may leave its player's last draw already played (R8: the game ends at once),
        # so the card must be in the hand only while the game is going.
        if lc not in hands[lp] and winner is None and not is_draw:
            raise ValueError(
                f"from_dict: last_draw card {CARD_NAMES[lc]} is not in player {lp}'s hand; "
                "the referee can only take back a card the player holds (R10)"
            )
        last_draw = (lp, lc)

    return Position(
        players=players, teams=teams, hands=hands, board=board, sequences=seqs, discards=discards,
        draw_pile=draw_pile, current_player=current, dealer=dealer, turn=turn, traded_this_turn=traded,
        passes=passes, winner=winner, is_draw=is_draw, max_turns=max_turns, seed=seed, rng=rng,
        last_draw=last_draw,
    )
