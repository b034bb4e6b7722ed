"""The SVG board (sequence_game.svg): well-formed, one chip per chip, one lock mark per locked chip."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest
from conftest import load_game_class
from sequence_game import BOARD_LAYOUT, Move
from sequence_game.svg import TEAM_COLOURS, board, board_svg

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(params=["core", "reference"])
def Game(request):
    return load_game_class(request.param)


def _classes(el) -> set:
    return set((el.get("class") or "").split())


def _find(root, cls: str):
    return [el for el in root.iter() if cls in _classes(el)]


def _played(Game, players=2, seed=1, until=lambda g: g.is_over, teams=None):
    g = Game(players=players, teams=teams, seed=seed)
    rnd = random.Random(seed)
    last = None
    while not g.is_over and not until(g):
        last = rnd.choice(g.legal_moves())
        g.play(last)
    return g, last


def _chip_cells(g):
    return {(r, c) for r in range(10) for c in range(10) if g.cell((r, c)) in "BGR"}


def test_empty_board_is_well_formed_with_every_card_and_the_corners(Game):
    g = Game(players=2, seed=3)
    svg = board_svg(g)
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg" and root.get("width") == "560"
    assert _find(root, "chip") == [] and _find(root, "lock") == [] and _find(root, "last-move") == []
    assert len(_find(root, "cell")) == 100
    assert len(_find(root, "corner")) == 4 and svg.count("FREE") == 4
    texts = [el.text for el in root.iter(NS + "text")]
    # R1 labels: rank (10 for tens) and suit symbol; each non-jack card is printed twice
    assert texts.count("10\u2665") == 2 and texts.count("A\u2660") == 2 and texts.count("7\u2663") == 2
    assert "T\u2665" not in texts
    assert [t for t in texts if t in "abcdefghij"] == list("abcdefghij")
    # red suits red, black suits black
    for el in root.iter(NS + "text"):
        if el.text and el.text[-1] in "\u2665\u2666":
            assert el.get("fill") == "#c8102e"
        elif el.text and el.text[-1] in "\u2660\u2663":
            assert el.get("fill") == "#1a1a1a"


def test_chips_and_locked_marks_match_the_board(Game):
    g, last = _played(Game, seed=1, until=lambda g: len(g.sequences) >= 1)
    assert g.sequences, "the seeded game forms a sequence"
    root = ET.fromstring(board_svg(g, last_move=last))
    chips = _find(root, "chip")
    assert len(chips) == len(_chip_cells(g))
    for el in chips:
        cell = el.get("data-cell")
        r, c = int(cell[1:]) - 1, "abcdefghij".index(cell[0])
        team = "BGR".index(g.cell((r, c)))
        assert f"team-{team}" in _classes(el) and el.get("fill") == TEAM_COLOURS[team][0]
    locked = {(r, c) for r, c in _chip_cells(g) if g.locked((r, c))}
    locks = _find(root, "lock")
    assert len(locks) == len(locked) > 0
    assert {el.get("data-cell") for el in locks} == {"abcdefghij"[c] + str(r + 1) for r, c in locked}
    assert len(_find(root, "sequence")) == len(g.sequences)
    (mark,) = _find(root, "last-move")
    assert Move.parse(mark.get("data-move")) == last


def test_three_teams_use_blue_green_red(Game):
    g, last = _played(Game, players=3, seed=2, until=lambda g: g.turn >= 45)
    root = ET.fromstring(board_svg(g, size=300, last_move=str(last)))
    assert root.get("width") == "300"
    teams = {t for el in _find(root, "chip") for t in range(3) if f"team-{t}" in _classes(el)}
    assert teams == {0, 1, 2}
    fills = {el.get("fill") for el in _find(root, "chip")}
    assert fills == {face for face, _ in TEAM_COLOURS}


def test_highlight_and_removal_marks(Game):
    g = Game(players=2, seed=5)
    rnd = random.Random(5)
    while True:  # play until a one-eyed jack removes a chip
        last = rnd.choice(g.legal_moves())
        g.play(last)
        if last.kind == "remove" or g.is_over:
            break
    svg = board_svg(g, highlight=["a2", (9, 8)], last_move=last)
    root = ET.fromstring(svg)
    highlighted = _find(root, "highlight")
    assert len(highlighted) == 2 and all(el.get("fill") == "#ffe97a" for el in highlighted)
    (mark,) = _find(root, "last-move")
    if last.kind == "remove":
        assert mark.get("stroke-dasharray")  # a removed chip's cell gets a dashed outline


def test_alias_repr_svg_and_bad_arguments(Game):
    g = Game(players=2, seed=1)
    assert board is board_svg
    assert g._repr_svg_() == board_svg(g)
    with pytest.raises(ValueError):
        board_svg(g, size=0)
    with pytest.raises(ValueError):
        board_svg(g, highlight=["z9"])
    with pytest.raises(ValueError):
        board_svg(g, last_move="nonsense")


def test_board_layout_is_what_the_cells_show(Game):
    root = ET.fromstring(board_svg(Game(players=2, seed=1), coordinates=False))
    cells = {el.get("data-cell"): el for el in _find(root, "cell")}
    d6 = cells["d6"]  # (5, 3) is 7H in R1
    assert BOARD_LAYOUT[5][3] == "7H"
    assert [t.text for t in d6.iter(NS + "text")] == ["7\u2665"]
    assert "7H" in d6.find(NS + "title").text


def _luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def _contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_every_text_of_the_board_has_enough_contrast(Game):
    """WCAG AA (4.5:1) for every text drawn on the board: the coordinates on the felt, every card's
    label on its cell, FREE on the corners, also on a highlighted cell. (Browser accessibility checkers
    cannot measure an SVG text's background, so this test measures it.)"""
    g, _ = _played(Game, until=lambda g: len(g.history) >= 30)
    root = ET.fromstring(board_svg(g, highlight=[(0, 1), (4, 4)]))
    felt = root.find(f"{NS}rect").get("fill")
    coords = [t for t in root.iter(f"{NS}text") if "coord" in _classes(t)]
    assert len(coords) == 20
    checked = 0
    for t in coords:
        assert _contrast(t.get("fill"), felt) >= 4.5, (t.text, t.get("fill"), felt)
        checked += 1
    for cell in _find(root, "cell"):
        paper = cell.find(f"{NS}rect").get("fill")
        for t in cell.iter(f"{NS}text"):
            assert _contrast(t.get("fill"), paper) >= 4.5, (cell.get("data-cell"), t.text, t.get("fill"), paper)
            checked += 1
    assert checked >= 120
