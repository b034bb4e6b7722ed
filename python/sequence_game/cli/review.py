"""``sequence-game review``: every move of a saved game graded, and each team's chance of winning
along the game (sequence_game.review)."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any, Mapping

from ..errors import printable
from ..i18n import _, ngettext
from .common import EXIT_OK, CLIError, Parents

if TYPE_CHECKING:
    from rich.console import Console

NAME = "review"

_TIER_MARK = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}


def cmd_review(args: argparse.Namespace, console: Console) -> int:
    from ..records import GameRecord
    from ..review import review_game
    from ..review.estimator import load_win_chance_model

    try:
        record = GameRecord.load(args.file)
        model = None if args.model is None else load_win_chance_model(args.model)
        review = review_game(record, model=model)
    except OSError as e:
        raise CLIError(f"{printable(args.file if args.model is None else args.model)}: {e.strerror or e}") from None
    except ValueError as e:
        raise CLIError(str(e)) from None
    if args.json:
        console.print_json(json.dumps(review.to_dict()))
        return EXIT_OK
    tiers = ", ".join(f"{tier_name(name)} {_TIER_MARK[name]} >= {100 * least:.0f}" for name, least in reversed(review.tiers))
    console.print(_("review of {file}: the mover's team's chance of winning with the best move and with the move played "
                    "(points lost: {tiers}); then every team's chance as a spectator sees it", file=printable(args.file),
                    tiers=tiers), highlight=False)
    for m in review.moves:
        seen = " ".join(f"{100 * c:3.0f}%" for c in m.chances)
        if m.kind != "move":
            line = f"{m.index:>3}. P{m.player} {m.move:<16} " + _("({kind}, not graded)", kind=kind_name(m.kind))
        else:
            line = f"{m.index:>3}. P{m.player} {m.move:<16} {100 * (m.before or 0):4.0f}% -> {100 * (m.after or 0):4.0f}%"
            if m.tier is not None:
                line += f" {_TIER_MARK[m.tier]:<2} -{100 * (m.loss or 0):.0f} " + _("{tier}, best {move}", tier=tier_name(m.tier),
                                                                                    move=m.best)
        console.print(f"{line:<72} | {seen}", highlight=False)
        for note in m.notes:
            console.print(f"       {note_words(note)}", highlight=False)
    for event in review.events:
        if event["kind"] == "resignation":
            console.print("     " + _("P{p} resigned: team {team} wins (no move is blamed for it)", p=event["player"],
                                          team=event["winner"]), highlight=False)
        elif event["kind"] == "turn-cap":
            console.print("     " + ngettext("the game stopped at its turn limit ({n} turn): a draw",
                                             "the game stopped at its turn limit ({n} turns): a draw", event["turns"]),
                          highlight=False)
    for p in review.players:
        acc = "-" if p["accuracy"] is None else f"{p['accuracy']:.1f}%"
        counts = ", ".join((ngettext("{n} inaccuracy", "{n} inaccuracies", p["inaccuracy"]),
                            ngettext("{n} mistake", "{n} mistakes", p["mistake"]),
                            ngettext("{n} blunder", "{n} blunders", p["blunder"])))
        console.print(_("P{p} (team {team}): accuracy {accuracy} over {graded}; {counts}", p=p["player"],
                        team=p["team"], accuracy=acc,
                        graded=ngettext("{n} graded move", "{n} graded moves", p["graded"]), counts=counts), highlight=False)
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    p = sub.add_parser(NAME, parents=[parents.common], help="grade every move of a saved game",
                       description="Grade every decision of a saved record by the chance of winning it lost against "
                                   "the best move (the mover's view: its own hand, never another's), with accuracy per "
                                   "player and every team's chance along the game (docs/review.md).")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--model", default=None, help="a win-chance model file (default: the packaged one)")
    p.add_argument("--json", action="store_true", help="print the review as JSON")
    p.set_defaults(func=cmd_review)


def note_words(note: Mapping[str, Any]) -> str:
    """A threat the review names (:func:`sequence_game.review.threats.note_text`) in the active language."""
    from ..review.threats import NOTE_TEMPLATES
    from ..terminal import team_name

    kind = note["kind"]
    key = f"{kind}-2" if note.get("sequences", 1) >= 2 and f"{kind}-2" in NOTE_TEMPLATES else kind
    other = note.get("other")
    return _(NOTE_TEMPLATES[key], team=team_name(note["team"]), cells=", ".join(note["cells"]),
             other="" if other is None else team_name(other))


def tier_name(tier: str) -> str:
    """A grade (docs/review.md) in the active language."""
    return {"inaccuracy": _("inaccuracy"), "mistake": _("mistake"), "blunder": _("blunder")}[tier]


def kind_name(kind: str) -> str:
    """Why an entry is not graded, in the active language."""
    return {"forced": _("the only legal move"), "trade": _("a dead-card trade"), "timeout": _("played by the turn timer"),
            "referee": _("a referee's call")}.get(kind, kind)
