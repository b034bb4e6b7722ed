"""The board as an SVG picture: ``board_svg(game)`` (also what Jupyter shows for a ``Game``).

>>> from sequence_game.reference import Game
>>> svg = board_svg(Game(players=2, seed=1))
>>> svg.startswith("<svg") and svg.count('class="chip') == 0
True

Every card cell shows its rank (``10`` for tens) and suit symbol in red or black, the corners a
star and ``FREE`` (R1). A chip is a disc in its team's colour (blue, green, red: R1); a chip of a
completed sequence (R7) carries a white ring and the sequence a line through its five cells.
``highlight`` tints cells; ``last_move`` outlines the cell of that move (a removed chip's cell
gets a dashed outline).

Elements carry classes so programs can read the picture back: ``cell``, ``chip team-N``,
``lock`` (one per locked chip), ``sequence``, ``highlight``, ``last-move``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Optional, Union
from xml.sax.saxutils import escape

from .cards import BOARD_LAYOUT, SUIT_SYMBOLS, Cell, cell_name, check_cell
from .game_setup import TEAM_NAMES
from .move import Move, as_move

if TYPE_CHECKING:
    from .gamebase import GameBase

__all__ = ["SUIT_SYMBOLS", "TEAM_COLOURS", "board", "board_svg"]

#: Chip colours of team 0, 1, 2 (R1): fill and a darker edge.
TEAM_COLOURS = (("#1e5bc6", "#0d3278"), ("#1f9a48", "#0c5a27"), ("#d3302f", "#7c1111"))
_SUIT_COLOURS = {"S": "#1a1a1a", "C": "#1a1a1a", "H": "#c8102e", "D": "#c8102e"}
_FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"


def _fmt(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _rank_text(card: str) -> str:
    return "10" if card[0] == "T" else card[0]


def board_svg(
    game: GameBase,
    size: int = 560,
    highlight: Iterable[Union[Cell, str]] = (),
    last_move: Optional[Union[Move, str]] = None,
    coordinates: bool = True,
) -> str:
    """An SVG (text) of ``game``'s board, ``size`` pixels square.

    ``game`` is any ``Game`` (core or reference). ``highlight``: cells (``(row, col)`` or ``"d6"``)
    to tint; ``last_move``: a ``Move`` or its text whose cell gets an outline. ``coordinates``:
    draw the column letters ``a``..``j`` and row numbers ``1``..``10`` around the board.
    """
    if not isinstance(size, (int, float)) or isinstance(size, bool) or size <= 0:
        raise ValueError(f"size must be a positive number of pixels, not {size!r}")
    marked = {check_cell(c) for c in highlight}
    move = as_move(last_move) if last_move is not None else None

    margin = size * 0.045 if coordinates else size * 0.01
    cell = (size - margin - size * 0.01) / 10
    x0 = y0 = margin

    def cx(c: int) -> float:
        return x0 + (c + 0.5) * cell

    def cy(r: int) -> float:
        return y0 + (r + 0.5) * cell

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{_fmt(size)}" height="{_fmt(size)}" '
        f'viewBox="0 0 {_fmt(size)} {_fmt(size)}" font-family="{_FONT}">',
        f'<rect class="background" x="0" y="0" width="{_fmt(size)}" height="{_fmt(size)}" fill="#2f5d3a"/>',
    ]
    if coordinates:
        # The coordinates repeat what every cell's own label says, so screen readers skip them.
        out.append('<g class="coords" aria-hidden="true">')
        fs = margin * 0.6
        for c in range(10):
            out.append(
                f'<text class="coord" x="{_fmt(cx(c))}" y="{_fmt(margin * 0.72)}" font-size="{_fmt(fs)}" '
                f'text-anchor="middle" fill="#f0ead6">{"abcdefghij"[c]}</text>'
            )
        for r in range(10):
            out.append(
                f'<text class="coord" x="{_fmt(margin * 0.5)}" y="{_fmt(cy(r) + fs * 0.35)}" '
                f'font-size="{_fmt(fs)}" text-anchor="middle" fill="#f0ead6">{r + 1}</text>'
            )
        out.append("</g>")

    pad = cell * 0.04
    label_fs = cell * 0.30
    small_fs = cell * 0.19
    chip_r = cell * 0.33
    locked_cells = []
    chips = []
    for r in range(10):
        for c in range(10):
            card = BOARD_LAYOUT[r][c]
            x, y = x0 + c * cell, y0 + r * cell
            state = game.cell((r, c))
            name = cell_name((r, c))
            if card == "*":
                desc = f"{name}: corner (free space)"
            else:
                desc = f"{name}: {card}"
                if state in "BGR":
                    team = "BGR".index(state)
                    desc += f", {TEAM_NAMES[team]} chip"
                    if game.locked((r, c)):
                        desc += " (locked in a sequence)"
            fill = "#fbf7ea" if card != "*" else "#e9dfbf"
            if (r, c) in marked:
                fill = "#ffe97a"
            out.append(
                f'<g class="cell" data-cell="{name}"><title>{escape(desc)}</title>'
                f'<rect x="{_fmt(x + pad)}" y="{_fmt(y + pad)}" width="{_fmt(cell - 2 * pad)}" '
                f'height="{_fmt(cell - 2 * pad)}" rx="{_fmt(cell * 0.08)}" fill="{fill}" '
                f'stroke="#b9ad88" stroke-width="{_fmt(cell * 0.015)}"'
                + (' class="highlight"' if (r, c) in marked else "")
                + "/>"
            )
            if card == "*":
                out.append(_star(cx(c), cy(r) - cell * 0.07, cell * 0.26, cell * 0.11))
                out.append(
                    f'<text x="{_fmt(cx(c))}" y="{_fmt(y + cell * 0.86)}" font-size="{_fmt(small_fs)}" '
                    f'font-weight="bold" text-anchor="middle" fill="#7a5c00">FREE</text>'
                )
            else:
                colour = _SUIT_COLOURS[card[1]]
                label = escape(_rank_text(card) + SUIT_SYMBOLS[card[1]])
                if state in "BGR":
                    # the card stays readable in the top-left corner, the chip takes the centre
                    out.append(
                        f'<text x="{_fmt(x + cell * 0.09)}" y="{_fmt(y + cell * 0.24)}" '
                        f'font-size="{_fmt(small_fs)}" fill="{colour}">{label}</text>'
                    )
                else:
                    out.append(
                        f'<text x="{_fmt(cx(c))}" y="{_fmt(cy(r) + label_fs * 0.36)}" '
                        f'font-size="{_fmt(label_fs)}" font-weight="bold" text-anchor="middle" '
                        f'fill="{colour}">{label}</text>'
                    )
            out.append("</g>")
            if state in "BGR":
                team = "BGR".index(state)
                face, edge = TEAM_COLOURS[team]
                px, py = cx(c) + cell * 0.04, cy(r) + cell * 0.06
                chips.append(
                    f'<circle class="chip team-{team}" data-cell="{name}" cx="{_fmt(px)}" cy="{_fmt(py)}" '
                    f'r="{_fmt(chip_r)}" fill="{face}" stroke="{edge}" stroke-width="{_fmt(cell * 0.03)}"/>'
                )
                if game.locked((r, c)):
                    locked_cells.append((px, py, name))

    # completed sequences: a line through the five cells under the chips, locked chips' rings on top
    for team, cells in game.sequences:
        (r1, c1), (r2, c2) = cells[0], cells[-1]
        out.append(
            f'<line class="sequence team-{team}" x1="{_fmt(cx(c1) + cell * 0.04)}" '
            f'y1="{_fmt(cy(r1) + cell * 0.06)}" x2="{_fmt(cx(c2) + cell * 0.04)}" '
            f'y2="{_fmt(cy(r2) + cell * 0.06)}" stroke="{TEAM_COLOURS[team][1]}" '
            f'stroke-width="{_fmt(cell * 0.07)}" stroke-linecap="round" opacity="0.8"/>'
        )
    out.extend(chips)
    for px, py, name in locked_cells:
        out.append(
            f'<circle class="lock" data-cell="{name}" cx="{_fmt(px)}" cy="{_fmt(py)}" r="{_fmt(chip_r * 0.62)}" '
            f'fill="none" stroke="#ffffff" stroke-width="{_fmt(cell * 0.055)}"/>'
        )

    if move is not None and move.cell is not None:
        r, c = move.cell
        dash = f' stroke-dasharray="{_fmt(cell * 0.1)} {_fmt(cell * 0.07)}"' if move.kind == "remove" else ""
        out.append(
            f'<rect class="last-move" data-cell="{cell_name(move.cell)}" data-move="{escape(str(move))}" '
            f'x="{_fmt(x0 + c * cell + pad)}" y="{_fmt(y0 + r * cell + pad)}" '
            f'width="{_fmt(cell - 2 * pad)}" height="{_fmt(cell - 2 * pad)}" rx="{_fmt(cell * 0.08)}" '
            f'fill="none" stroke="#ff8c00" stroke-width="{_fmt(cell * 0.08)}"{dash}/>'
        )
    out.append("</svg>")
    return "\n".join(out)


def _star(x: float, y: float, outer: float, inner: float) -> str:
    import math

    pts = []
    for k in range(10):
        rad = outer if k % 2 == 0 else inner
        a = -math.pi / 2 + k * math.pi / 5
        pts.append(f"{_fmt(x + rad * math.cos(a))},{_fmt(y + rad * math.sin(a))}")
    return f'<polygon class="corner" points="{" ".join(pts)}" fill="#d4a017" stroke="#7a5c00" stroke-width="1"/>'


board = board_svg
