"""The board and the table in a terminal, drawn with ``rich`` (used by the ``sequence-game`` command).

The board is compact enough for an 80x24 terminal: a 3-character row label and ten 4-character
cells, 43 columns in all. Each cell is a one-character marker slot and three characters of content:

* an empty cell shows its card, ``10`` for tens and a suit symbol (``" 7♥"``, ``"10♠"``; ``7H`` /
  ``TS`` with ``ascii=True``), red for hearts and diamonds;
* a corner shows `` * `` (R1 free space);
* a chip shows its team letter ``[B]`` / ``[G]`` / ``[R]`` on the team colour, ``(B)`` once it is
  locked in a completed sequence (R7);
* the last move's cell is marked ``>`` (``x`` when a chip was removed) and drawn reversed.

The letters and brackets carry all the information, so the board reads the same with no colour
(``NO_COLOR``, ``--no-color``, or output to a file).
"""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, Iterable, List, Optional, Sequence, Union

from rich.console import Console
from rich.text import Text

from .cards import BOARD_LAYOUT, SUIT_SYMBOLS, Cell, cells_of, check_cell, is_jack
from .game_setup import TEAM_LETTERS, sequences_to_win
from .i18n import _
from .move import Move, as_move

if TYPE_CHECKING:
    from .gamebase import GameBase

TEAM_STYLES = ("bold white on blue", "bold white on green", "bold white on red")
TEAM_TEXT_STYLES = ("bold blue", "bold green", "bold red")
_RED_SUITS = "HD"


def make_console(color: bool = True, file: Optional[IO[str]] = None, width: Optional[int] = None) -> Console:
    """A ``rich`` console for the CLI: colour unless ``color`` is false or ``NO_COLOR`` is set."""
    import os

    no_color = (not color) or bool(os.environ.get("NO_COLOR"))
    columns = os.environ.get("COLUMNS", "").strip()
    if width is None and columns and not (columns.isascii() and columns.isdigit() and int(columns) >= 20):
        width = 80  # rich would take COLUMNS=0 (or -5) as the width and print nothing at all
    return Console(
        file=file,
        no_color=no_color,
        highlight=False,
        markup=False,
        emoji=False,
        width=width,
        soft_wrap=True,
    )


def can_encode_suits(console: Console) -> bool:
    """Whether the console's output encoding has the suit symbols (else cards are written ``7H``)."""
    enc = getattr(console.file, "encoding", None) or "utf-8"
    try:
        "".join(SUIT_SYMBOLS.values()).encode(enc)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def card_label(card: str, ascii: bool = False) -> str:
    """``"7H"`` -> ``"7♥"``, ``"TS"`` -> ``"10♠"`` (``ascii=True``: the card text unchanged)."""
    if ascii:
        return card
    return ("10" if card[0] == "T" else card[0]) + SUIT_SYMBOLS[card[1]]


def card_text(card: str, ascii: bool = False) -> Text:
    """A card as styled text: red for hearts and diamonds, jacks bold."""
    style = "red" if card[1] in _RED_SUITS else ""
    if is_jack(card):
        style = (style + " bold").strip()
    return Text(card_label(card, ascii), style=style)


def cards_text(cards: Iterable[str], ascii: bool = False, sep: str = " ") -> Text:
    out = Text()
    for i, card in enumerate(cards):
        if i:
            out.append(sep)
        out.append_text(card_text(card, ascii))
    return out


def board_text(
    game: GameBase,
    last_move: Optional[Union[Move, str]] = None,
    highlight: Iterable[Union[Cell, str]] = (),
    ascii: bool = False,
) -> Text:
    """The board as ``rich`` text, 43 columns wide (see the module docstring for the symbols)."""
    move = as_move(last_move) if last_move is not None else None
    last_cell = move.cell if move is not None else None
    last_kind = move.kind if move is not None else None
    marked = {check_cell(c) for c in highlight}
    out = Text()
    out.append("   " + "".join(f"  {ch} " for ch in "abcdefghij") + "\n", style="dim")
    for r in range(10):
        out.append(f"{r + 1:>2} ", style="dim")
        for c in range(10):
            card = BOARD_LAYOUT[r][c]
            state = game.cell((r, c))
            is_last = (r, c) == last_cell
            marker = " " if not is_last else ("x" if last_kind == "remove" else ">")
            out.append(marker, style="bold yellow" if is_last else "")
            if card == "*":
                content, style = " * ", "yellow"
            elif state in "BGR":
                team = "BGR".index(state)
                locked = game.locked((r, c))
                content = ("(" if locked else "[") + TEAM_LETTERS[team] + (")" if locked else "]")
                style = TEAM_STYLES[team] + (" underline" if locked else "")
            else:
                content = card_label(card, ascii).rjust(3)
                style = "red" if card[1] in _RED_SUITS else ""
            if (r, c) in marked:
                style = (style + " on yellow").strip() if state not in "BGR" else style + " underline"
            if is_last:
                style = (style + " reverse").strip()
            out.append(content, style=style)
        out.append("\n")
    out.rstrip()
    return out


def team_name(team: int) -> str:
    """A team by its colour (R1), in the active language (:mod:`sequence_game.i18n`)."""
    return (_("blue"), _("green"), _("red"))[team]


def status_text(game: GameBase, ascii: bool = False) -> Text:
    """Turn, who moves or who won, sequences per team, draw pile and each player's discard top."""
    out = Text()
    counts = [0] * game.teams
    for team, _cells in game.sequences:
        counts[team] += 1
    out.append(_("turn {n}", n=game.turn) + "  ")
    if game.winner is not None:
        out.append(_("team {team} won", team=team_name(game.winner)), style=TEAM_TEXT_STYLES[game.winner])
    elif game.is_draw:
        out.append(_("the game is drawn"), style="bold")
    else:
        p = game.current_player
        out.append(_("P{p} ({team}) to move", p=p, team=team_name(game.team_of(p))), style=TEAM_TEXT_STYLES[game.team_of(p)])
    out.append("  " + _("draw pile {n}", n=game.draw_pile_size) + "\n")
    out.append(_("sequences (need {n}):", n=sequences_to_win(game.teams)) + " ")
    for t in range(game.teams):
        if t:
            out.append("  ")
        out.append(f"{team_name(t)} {counts[t]}", style=TEAM_TEXT_STYLES[t])
    out.append("\n" + _("discards:") + " ")
    for p in range(game.players):
        if p:
            out.append("  ")
        pile = game.discards(p)
        out.append(f"P{p}", style=TEAM_TEXT_STYLES[game.team_of(p)])
        out.append(" ")
        if pile:
            out.append_text(card_text(pile[-1], ascii))
        else:
            out.append("-")
    return out


def hand_text(game: GameBase, player: int, ascii: bool = False) -> Text:
    """``player``'s hand, dead cards (R5) marked ``(dead)``."""
    out = Text()
    out.append(_("P{p} hand:", p=player) + " ", style=TEAM_TEXT_STYLES[game.team_of(player)])
    for i, card in enumerate(game.hand(player)):
        if i:
            out.append(" ")
        out.append_text(card_text(card, ascii))
        if is_dead(game, card):
            out.append(_("(dead)"), style="dim")
    return out


def is_dead(game: GameBase, card: str) -> bool:
    """A non-jack card both of whose cells are covered (R5)."""
    cells = cells_of(card)
    return bool(cells) and all(game.cell(c) != "." for c in cells)


def render_table(
    console: Console,
    game: GameBase,
    last_move: Optional[Union[Move, str]] = None,
    hand_of: Sequence[int] = (),
    ascii: Optional[bool] = None,
) -> None:
    """Print the board, the status lines and the hands of the players in ``hand_of``."""
    if ascii is None:
        ascii = not can_encode_suits(console)
    console.print(board_text(game, last_move=last_move, ascii=ascii))
    console.print(status_text(game, ascii=ascii))
    for p in hand_of:
        console.print(hand_text(game, p, ascii=ascii))


def moves_text(moves: List[Move], width: int = 78) -> str:
    """Legal moves as text lines, several to a line."""
    lines, line = [], ""
    for m in moves:
        s = str(m)
        if line and len(line) + 2 + len(s) > width:
            lines.append(line)
            line = ""
        line = f"{line}  {s}" if line else s
    if line:
        lines.append(line)
    return "\n".join(lines)
