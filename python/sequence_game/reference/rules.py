"""The rules of Sequence in plain Python: the reference the compiled core is checked against.

Every function works on a ``position.Position`` (cards are ids ``4 * rank + suit``, cells are
indices ``10 * row + col``, board codes -1 empty, 0..2 a team's chip, 3 corner). Rule ids R1..R10
refer to docs/rules.md; the randomness follows docs/rng.md and the order of legal moves
docs/notation.md. The names mirror the C++ core: ``new_game``, ``legal_moves``, ``apply``,
``dead_cards``, ``draw_card``, ``reshuffle``, ``detect_sequences``, ``is_over``.

Read top to bottom: the cards, the deal, drawing, sequences (over the tables of ``board.py``), legal moves,
applying a move, the referee calls.
"""

from __future__ import annotations

import bisect
from functools import cache, lru_cache
from typing import List, Optional, Sequence, Tuple, cast

from .._args import seed_or_random
from ..board import CELLS_OF_NAME, DIRECTIONS, PLAYABLE_CELLS, WINDOW_AT, WINDOWS, Window, ray
from ..cards import CARD_IDS, CARD_NAMES
from ..game_setup import HAND_SIZE, MAX_TURNS, check_max_turns, check_players_teams, sequences_to_win
from ..move import Move
from ..position import CORNER_CODE, EMPTY, Position, empty_board
from .rng import SplitMix64

# --------------------------------------------------------------------------- cards and the board (R1)

TWO_EYED = frozenset({CARD_IDS["JD"], CARD_IDS["JC"]})  # wild: place on any empty cell
ONE_EYED = frozenset({CARD_IDS["JH"], CARD_IDS["JS"]})  # anti-wild: remove another team's unlocked chip
JACK_IDS = TWO_EYED | ONE_EYED

# The two cells of every normal card by card id; () for jacks (the board's tables: board.py).
CELLS_OF_ID: Tuple[Tuple[int, ...], ...] = tuple(CELLS_OF_NAME.get(name, ()) for name in CARD_NAMES)


def is_jack(card: int) -> bool:
    return card in JACK_IDS


def rank(card: int) -> int:
    """Rank 0..12 (2 .. A, aces high), as in the dealer cut (R4)."""
    return card // 4


# --------------------------------------------------------------------------- a new game (R2, R3, R4)


def fresh_deck() -> List[int]:
    """Two standard decks, no jokers (R1): ids 0..51 twice, in that order (docs/rng.md)."""
    return list(range(52)) * 2


def choose_dealer(deck: List[int], players: int, rng: SplitMix64) -> int:
    """R4: every player cuts; the lowest rank deals; players tied for lowest cut again.

    Every cut round reshuffles the whole deck and the cutters take its top cards in seat order.
    """
    cutters = list(range(players))
    while True:
        rng.shuffle(deck)
        cut = {p: deck[k] for k, p in enumerate(cutters)}
        low = min(rank(c) for c in cut.values())
        cutters = [p for p in cutters if rank(cut[p]) == low]
        if len(cutters) == 1:
            return cutters[0]


def deal(deck: List[int], players: int, dealer: int, rng: SplitMix64) -> Tuple[List[List[int]], List[int]]:
    """R3, R4: the dealer shuffles and deals one card at a time from the dealer's left.

    Returns the hands (canonical order: ascending id) and the draw pile (index 0 on top).
    """
    rng.shuffle(deck)
    hands: List[List[int]] = [[] for _ in range(players)]
    top = 0
    for _ in range(HAND_SIZE[players]):
        for k in range(1, players + 1):
            hands[(dealer + k) % players].append(deck[top])
            top += 1
    for hand in hands:
        hand.sort()
    return hands, deck[top:]


def new_game(players: int = 2, teams: Optional[int] = None, seed: Optional[int] = None,
             max_turns: Optional[int] = None) -> Position:
    """A freshly dealt game (docs/rng.md: the box shuffle, the cut, the deal)."""
    players, teams = check_players_teams(players, teams)
    seed = seed_or_random(seed)
    max_turns = check_max_turns(max_turns)
    rng = SplitMix64(seed)
    deck = fresh_deck()
    rng.shuffle(deck)  # the cards coming out of the box
    dealer = choose_dealer(deck, players, rng)
    hands, draw_pile = deal(deck, players, dealer, rng)
    return Position(
        players=players,
        teams=teams,
        hands=hands,
        board=empty_board(),
        sequences=[],
        discards=[[] for _ in range(players)],
        draw_pile=draw_pile,
        current_player=(dealer + 1) % players,  # the dealer's left plays first (R4)
        dealer=dealer,
        turn=0,
        traded_this_turn=False,
        passes=0,
        winner=None,
        is_draw=False,
        max_turns=max_turns,
        seed=seed,
        rng=rng.state,
        last_draw=None,
    )


def copy_position(pos: Position) -> Position:
    """An independent copy (lists copied; tuples and ints are immutable)."""
    return Position(
        players=pos.players,
        teams=pos.teams,
        hands=[list(h) for h in pos.hands],
        board=list(pos.board),
        sequences=list(pos.sequences),
        discards=[list(d) for d in pos.discards],
        draw_pile=list(pos.draw_pile),
        current_player=pos.current_player,
        dealer=pos.dealer,
        turn=pos.turn,
        traded_this_turn=pos.traded_this_turn,
        passes=pos.passes,
        winner=pos.winner,
        is_draw=pos.is_draw,
        max_turns=pos.max_turns,
        seed=pos.seed,
        rng=pos.rng,
        last_draw=pos.last_draw,
    )


# --------------------------------------------------------------------------- state queries


def team_of(pos: Position, player: int) -> int:
    """Seats alternate teams: seat p plays for team p mod T (R2)."""
    return player % pos.teams


def is_over(pos: Position) -> bool:
    return pos.winner is not None or pos.is_draw


def locked_cells(pos: Position) -> set[int]:
    """Cells of completed sequences: their chips can never be removed (R7)."""
    return {i for _, cells in pos.sequences for i in cells}


def is_dead(pos: Position, card: int) -> bool:
    """R5: a non-jack card both of whose cells hold chips. Jacks are never dead."""
    return not is_jack(card) and all(pos.board[i] != EMPTY for i in CELLS_OF_ID[card])


def dead_cards(pos: Position, player: int) -> List[int]:
    """The distinct dead cards in a player's hand, ascending id (R5 step 1)."""
    return sorted({c for c in pos.hands[player] if is_dead(pos, c)})


# --------------------------------------------------------------------------- drawing (R6)


def reshuffle(pos: Position) -> None:
    """R6: gather every discard pile into a new draw pile and shuffle it (docs/rng.md).

    Piles are gathered in seat order 0..n-1, each oldest first, and emptied.
    """
    gathered = [c for pile in pos.discards for c in pile]
    for pile in pos.discards:
        pile.clear()
    rng = SplitMix64(pos.rng)
    rng.shuffle(gathered)
    pos.rng = rng.state
    pos.draw_pile = gathered


def draw_card(pos: Position, player: int) -> Optional[int]:
    """Draw the top card into ``player``'s hand (kept in ascending id); None if there is none (R6)."""
    if not pos.draw_pile:
        reshuffle(pos)
    if not pos.draw_pile:
        return None
    card = pos.draw_pile.pop(0)
    bisect.insort(pos.hands[player], card)
    return card


def discard(pos: Position, player: int, card: int) -> None:
    """Move one copy of ``card`` from the player's hand onto their own discard pile (R5)."""
    pos.hands[player].remove(card)
    pos.discards[player].append(card)


# --------------------------------------------------------------------------- sequences (R7)


def window(cell: int, direction: int, k: int) -> Window:
    """The five cells along ``DIRECTIONS[direction]`` starting ``k`` steps before ``cell``, ascending.

    Requires the window to lie on the board (``board.WINDOW_AT[cell][direction][k]`` is not None).
    """
    w = WINDOW_AT[cell][direction][k]
    assert w is not None, "the window leaves the board"
    return WINDOWS[w]


def run_length(pos: Position, team: int, cells: Tuple[int, ...]) -> int:
    """How many of ``cells``, from the first on, are the team's chips or corners (R7: corners count
    for every team)."""
    n = 0
    for i in cells:
        if pos.board[i] != team and pos.board[i] != CORNER_CODE:
            break
        n += 1
    return n


def shares_at_most_one(pos: Position, team: int, cells: Window) -> bool:
    """R7: a new sequence shares at most one cell with each existing sequence of the same team."""
    cell_set = set(cells)
    return all(len(cell_set.intersection(seq)) <= 1 for t, seq in pos.sequences if t == team)


def candidate_windows(pos: Position, team: int, cell: int, direction: int) -> List[Optional[Window]]:
    """Entry ``k`` (0..4): the window starting ``k`` steps before ``cell`` if it is a candidate, else None.

    A candidate (docs/notation.md) is five cells in line through the placed cell, all the team's
    chips or corners, sharing at most one cell with each existing sequence of the team. Entry 0
    starts at the cell, entry 4 ends at it.
    """
    back = run_length(pos, team, ray(cell, direction, -1))
    forward = run_length(pos, team, ray(cell, direction, +1))
    out: List[Optional[Window]] = [None] * 5
    if back + 1 + forward < 5:  # the run is too short for any window
        return out
    for k in range(5):
        if k <= back and 4 - k <= forward:  # the window lies inside the run through the cell
            w = window(cell, direction, k)
            if shares_at_most_one(pos, team, w):
                out[k] = w
    return out


def direction_options(pos: Position, team: int, cell: int, direction: int) -> List[Tuple[Window, ...]]:
    """The ways one direction can contribute sequences to a placement on ``cell`` (docs/notation.md).

    Two windows in one direction share at most one cell only when they are the window ending at
    the cell and the window starting at it (9 in a row, the cell in the middle). So: that pair when
    both are candidates; else each single candidate (6 to 8 in a row: choose which five); else
    nothing (one empty option).
    """
    candidates = candidate_windows(pos, team, cell, direction)
    if candidates[0] is not None and candidates[4] is not None:
        return [(candidates[4], candidates[0])]
    singles: List[Tuple[Window, ...]] = [(w,) for w in candidates if w is not None]
    return singles or [()]


def detect_sequences(pos: Position, team: int, cell: int) -> List[Tuple[Window, ...]]:
    """Every maximal choice of sequences that ``team``'s chip, just placed on ``cell``, declares (R7).

    Only windows through the placed cell count. Windows in different directions meet only in the
    cell, so the choices are the product of the per-direction options. Each choice is a tuple of
    windows (possibly empty: no sequence formed). The chip must already be on the board.
    """
    choices: List[Tuple[Window, ...]] = [()]
    for d in range(len(DIRECTIONS)):
        options = direction_options(pos, team, cell, d)
        choices = [chosen + option for chosen in choices for option in options]
    return choices


# --------------------------------------------------------------------------- moves


@cache
def _cell(index: int) -> Tuple[int, int]:
    return divmod(index, 10)


@lru_cache(maxsize=1 << 16)
def make_move(kind: str, card: Optional[int] = None, cell: Optional[int] = None,
              declares: Tuple[Window, ...] = ()) -> Move:
    """The shared ``Move`` value for ids and indices (cached: moves are immutable)."""
    return Move(
        kind,
        None if card is None else CARD_NAMES[card],
        None if cell is None else _cell(cell),
        tuple(tuple(_cell(i) for i in w) for w in declares),
    )


def placement_moves(pos: Position, team: int, card: int, cell: int) -> List[Move]:
    """One Move per maximal declares choice for placing ``card`` on the empty ``cell`` (R7)."""
    pos.board[cell] = team  # look at the board as it will be after the chip is placed
    try:
        choices = detect_sequences(pos, team, cell)
    finally:
        pos.board[cell] = EMPTY
    return [make_move("place", card, cell, tuple(sorted(choice))) for choice in choices]


def legal_moves(pos: Position) -> List[Move]:
    """Every legal move of the current player, in the order of docs/notation.md; [] once over.

    Trades (R5 step 1), placements and removals (R5 step 2); with no placement and no removal,
    the open trades plus one pass (R5, "No legal play").
    """
    if is_over(pos):
        return []
    p = pos.current_player
    team = team_of(pos, p)
    board = pos.board
    cards = sorted(set(pos.hands[p]))
    trades = [] if pos.traded_this_turn else [make_move("trade", c) for c in cards if is_dead(pos, c)]
    plays: List[Move] = []
    locked = None
    for card in cards:
        if card in TWO_EYED:  # R5: a two-eyed jack goes on any empty cell (never a corner)
            for cell in PLAYABLE_CELLS:
                if board[cell] == EMPTY:
                    plays.extend(placement_moves(pos, team, card, cell))
        elif card in ONE_EYED:  # R5: remove another team's chip that no sequence has locked (R7)
            if locked is None:
                locked = locked_cells(pos)
            for cell in PLAYABLE_CELLS:
                if board[cell] != EMPTY and board[cell] != team and cell not in locked:
                    plays.append(make_move("remove", card, cell))
        else:  # R5: a normal card goes on one of its two cells that is empty
            for cell in CELLS_OF_ID[card]:
                if board[cell] == EMPTY:
                    plays.extend(placement_moves(pos, team, card, cell))
    moves = trades + plays if plays else trades + [make_move("pass")]
    moves.sort(key=Move.sort_key)
    return moves


# --------------------------------------------------------------------------- applying a move


def apply(pos: Position, move: Move) -> None:
    """Play ``move`` (one of ``legal_moves(pos)``) for the current player."""
    if move.kind == "pass":
        apply_pass(pos)
        return
    # Move's constructor requires a card for trades and placements and a cell for placements.
    assert move.card is not None
    if move.kind == "trade":
        apply_trade(pos, CARD_IDS[move.card])
    else:
        assert move.cell is not None
        r, c = move.cell
        declares = [cast(Window, tuple(10 * sr + sc for sr, sc in seq)) for seq in move.declares]
        apply_play(pos, move.kind, CARD_IDS[move.card], 10 * r + c, declares)


def apply_trade(pos: Position, card: int) -> None:
    """R5 step 1: discard a dead card and draw a replacement (R6); the same player then plays.

    A trade is not a turn: ``turn`` and ``passes`` are unchanged. Its draw cannot be missed (R10).
    """
    p = pos.current_player
    discard(pos, p, card)
    draw_card(pos, p)
    pos.traded_this_turn = True
    pos.last_draw = None


def apply_play(pos: Position, kind: str, card: int, cell: int, declares: Sequence[Window]) -> None:
    """R5 step 2 and 3: play a card onto the board, then draw (R6), unless the play wins (R8)."""
    p = pos.current_player
    team = team_of(pos, p)
    discard(pos, p, card)
    if kind == "place":
        pos.board[cell] = team
        pos.sequences.extend((team, tuple(w)) for w in declares)  # R7: listing them locks their chips
    else:  # "remove": a one-eyed jack empties the cell; removals never form sequences (R7)
        pos.board[cell] = EMPTY
    pos.passes = 0
    pos.turn += 1
    pos.traded_this_turn = False
    if sum(1 for t, _ in pos.sequences if t == team) >= sequences_to_win(pos.teams):
        pos.winner = team  # R8: the game ends at once, before the winner draws
        return
    drawn = draw_card(pos, p)
    pos.last_draw = None if drawn is None else (p, drawn)
    end_turn(pos)


def apply_pass(pos: Position) -> None:
    """R5 "No legal play": nothing is discarded or drawn.

    The pass counts toward a stalemate when the player did not trade this turn and holds no dead
    card; a full round of counted passes ends the game in a draw.
    """
    p = pos.current_player
    counts = not pos.traded_this_turn and not dead_cards(pos, p)
    pos.passes = pos.passes + 1 if counts else 0
    pos.turn += 1
    pos.traded_this_turn = False
    if pos.passes == pos.players:
        pos.is_draw = True
        return
    end_turn(pos)


def end_turn(pos: Position) -> None:
    """The turn cap (digital convention): reaching ``max_turns`` is a draw; else the next seat plays.

    Without a cap a game still ends in a draw at ``MAX_TURNS`` (the bound of the turn counter).
    """
    if pos.turn >= (MAX_TURNS if pos.max_turns is None else pos.max_turns):
        pos.is_draw = True
        return
    pos.current_player = (pos.current_player + 1) % pos.players


# --------------------------------------------------------------------------- referee calls (R10)


def table_talk_penalty(pos: Position, team: int, cards: dict[int, int]) -> None:
    """R10 table talk: each member of ``team`` (seat order) discards the named card; nobody draws.

    ``cards`` maps each member's seat to a card id in that hand (checked by GameBase). If the card
    of the most recent draw has left its player's hand, that draw can no longer be missed.
    """
    for p in sorted(cards):
        discard(pos, p, cards[p])
    if pos.last_draw is not None:
        player, card = pos.last_draw
        if card not in pos.hands[player]:
            pos.last_draw = None


def missed_draw(pos: Position, player: int) -> None:
    """R10 loss of a card: the player's most recent draw goes back on top of the draw pile."""
    assert pos.last_draw is not None  # Game.missed_draw refuses a player with no draw to take back
    _, card = pos.last_draw
    pos.hands[player].remove(card)
    pos.draw_pile.insert(0, card)
    pos.last_draw = None
