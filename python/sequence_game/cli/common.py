"""What the subcommands share: the error type, safe printing, argument types, the table options,
the game and agents a command line describes, and the one-line descriptions of moves and results."""

from __future__ import annotations

import argparse
import os
import re
import sys
from typing import TYPE_CHECKING, Callable, List, NamedTuple, Optional, TextIO

from ..agents import factory
from ..cards import cell_name
from ..errors import printable
from ..game_setup import MAX_TURNS, VALID_PLAYERS
from ..i18n import LANGUAGES, _, ngettext
from ..referee import HistoryEntry, MissedDraw, TableTalkPenalty
from ..seeds import SEED_LIMIT, derive_seed
from ..terminal import team_name

if TYPE_CHECKING:
    from ..agents import Agent
    from ..gamebase import GameBase, GameClass
    from ..records import GameRecord

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2

# The engines and the default AI: one home (agents/factory.py) for the command line and the web server.
game_class = factory.game_class
default_ai_spec = factory.default_ai_spec


class CLIError(Exception):
    """A user-facing error: printed as ``sequence-game: error: ...`` with exit status 1."""


def int_arg(lo: int, hi: Optional[int], what: str) -> Callable[[str], int]:
    """An argparse type: ASCII digits (``int()`` would also take ``"1_0"`` and other scripts'
    digits) in ``lo..hi``; argparse turns the error into a one-line usage error."""

    def parse(text: str) -> int:
        if not re.fullmatch(r"[+-]?[0-9]{1,30}", text.strip()):
            raise argparse.ArgumentTypeError(f"{what} is a whole number, not {printable(text)[:40]!r}")
        value = int(text)
        if value < lo or (hi is not None and value > hi):
            bound = f"from {lo} to {hi}" if hi is not None else f"at least {lo}"
            raise argparse.ArgumentTypeError(f"{what} must be {bound}, not {value}")
        return value

    return parse


class Parents(NamedTuple):
    """The option groups several subcommands share (argparse parents)."""

    common: argparse.ArgumentParser  #: --engine, --no-color, --ascii
    table: argparse.ArgumentParser  #: --players, --teams, --seed, --max-turns


def parent_parsers() -> Parents:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--engine", choices=("core", "reference"), default="core",
                        help="game engine: the compiled core (default) or the pure-Python reference")
    common.add_argument("--no-color", action="store_true", help="no colours (also when NO_COLOR is set)")
    common.add_argument("--ascii", action="store_true", help="write cards as 7H/TS instead of suit symbols")
    common.add_argument("--lang", choices=tuple(LANGUAGES), default=None,
                        help="the language of the game's words: " + ", ".join(f"{k} ({v})" for k, v in LANGUAGES.items())
                             + " (default: from LANG / LC_ALL, else English)")

    table = argparse.ArgumentParser(add_help=False)
    table.add_argument("--players", type=int_arg(2, 12, "--players"), default=2, choices=VALID_PLAYERS, metavar="P",
                       help=f"number of players: {', '.join(map(str, VALID_PLAYERS))} (default 2)")
    table.add_argument("--teams", type=int_arg(2, 3, "--teams"), choices=(2, 3), default=None,
                       help="2 or 3 teams where the player count allows both (6, 12)")
    table.add_argument("--seed", type=int_arg(0, SEED_LIMIT - 1, "--seed"), default=None,
                       help="seed of the deal, 0 to 2**64-1 (default: random)")
    table.add_argument("--max-turns", type=int_arg(1, MAX_TURNS, "--max-turns"), default=None,
                       help="draw after this many turns")
    return Parents(common, table)


def new_game(cls: GameClass, args: argparse.Namespace, seed: Optional[int] = None) -> GameBase:
    """The game the table options describe; a bad combination (``--players 2 --teams 3``) is a
    ``CLIError`` before anything is played."""
    try:
        return cls(players=args.players, teams=args.teams, seed=args.seed if seed is None else seed,
                   max_turns=args.max_turns)
    except (TypeError, ValueError) as e:
        raise CLIError(str(e)) from None


def check_writable(path: str, option: str = "--save") -> None:
    """A ``CLIError`` now, before a game is played (or a network trained), if a file could not be
    written at ``path`` (given as ``option``)."""
    where = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise CLIError(f"{option} {printable(path)}: that is a directory; give a file name")
    if not os.path.isdir(where):
        raise CLIError(f"{option} {printable(path)}: the directory {printable(where)} does not exist")
    existed = os.path.exists(path)
    try:  # opening for append is the one test that also knows read-only and virtual file systems
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise CLIError(f"{option} {printable(path)}: {e.strerror or e}") from None
    if not existed:
        try:
            os.remove(path)
        except OSError:
            pass


def save_record(record: GameRecord, path: str) -> None:
    try:
        record.save(path)
    except OSError as e:
        raise CLIError(f"--save {printable(path)}: {e.strerror or e}") from None


def split_agent_specs(text: str) -> List[str]:
    """The specs of ``--agents``: comma-separated, where a piece with ``=`` and no ``:`` is another
    option of the spec before it (agent names never hold ``=``), so
    ``"mcts:iters=50,threads=2,greedy"`` is ``["mcts:iters=50,threads=2", "greedy"]``.

    >>> split_agent_specs("mcts:iters=50,threads=2,greedy, random:seed=3")
    ['mcts:iters=50,threads=2', 'greedy', 'random:seed=3']
    """
    specs: List[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if specs and "=" in piece and ":" not in piece and ":" in specs[-1]:
            specs[-1] += "," + piece
        else:
            specs.append(piece)
    return specs


_MAX_LINE = 1000  # characters of one command line: a move is at most 256


def read_line(stream: TextIO) -> Optional[str]:
    """One line of ``stream`` without its newline, ``None`` at end of input. An over-long line is
    read to its end in bounded pieces and returned as ``""`` after a message: nothing on standard
    input can make the session hold it whole. Undecodable bytes arrive as U+FFFD (see ``lenient_stdin``)."""
    line = stream.readline(_MAX_LINE + 1)
    if not line:
        return None
    if len(line) > _MAX_LINE and not line.endswith("\n"):
        while True:
            rest = stream.readline(_MAX_LINE)
            if not rest or rest.endswith("\n"):
                break
        print(f"sequence-game: a line of input longer than {_MAX_LINE} characters was skipped", file=sys.stderr)
        return ""
    return line.rstrip("\r\n")


def lenient_stdin() -> TextIO:
    """Standard input with undecodable bytes read as U+FFFD (then refused like any bad command)
    instead of a UnicodeDecodeError out of ``readline``."""
    import io

    stream = sys.stdin
    if stream is None:  # started without standard input at all
        return io.StringIO("")
    try:
        if isinstance(stream, io.TextIOWrapper):  # not a StringIO (tests pass one)
            stream.reconfigure(errors="replace")
    except (ValueError, OSError):
        pass
    return stream


def make_agent(spec: str, seed: Optional[int] = None) -> Agent:
    """An agent from a spec (``greedy``, ``random``, ``mcts:time=1``); ``seed`` unless the spec sets one."""
    try:
        return factory.make_agent(spec, seed=seed)
    except ValueError as e:
        raise CLIError(str(e)) from None


def ai_seed(game_seed: Optional[int], seat: int) -> Optional[int]:
    """The seed of the AI at ``seat`` in a game dealt from ``game_seed`` (so a seed fixes the AI's play
    too): ``derive_seed(game_seed, seat)``, as self-play seeds its seats."""
    return None if game_seed is None else derive_seed(game_seed, seat)


def describe_move(game: GameBase, player: int, move: HistoryEntry) -> str:
    team = team_name(game.team_of(player))
    if isinstance(move, TableTalkPenalty):
        return _("referee: team {team} penalised for table talk: {cards}", team=team_name(move.team), cards=", ".join(
            _("P{p} discards {card}", p=p, card=card) for p, card in move.cards))
    if isinstance(move, MissedDraw):
        return _("referee: P{p} missed a draw; the card goes back on the draw pile", p=move.player)
    if move.kind == "trade":
        what = _("trades the dead card {card}", card=move.card)
    elif move.kind == "pass":
        what = _("passes (no legal play)")
    elif move.kind == "remove":
        assert move.cell is not None  # Move requires a cell for a removal
        what = _("removes the chip on {cell} with {card}", cell=cell_name(move.cell), card=move.card)
    else:
        what = _("plays {move}", move=move)
        if move.declares:
            what += "  -- " + ngettext("{n} sequence!", "{n} sequences!", len(move.declares))
    return _("P{p} ({team}) {what}", p=player, team=team, what=what)


def result_line(game: GameBase) -> str:
    if game.winner is not None:
        seats = [p for p in range(game.players) if game.team_of(p) == game.winner]
        who = ", ".join(f"P{p}" for p in seats)
        return ngettext("Team {team} ({who}) wins after {n} turn.", "Team {team} ({who}) wins after {n} turns.", game.turn,
                        team=team_name(game.winner), who=who)
    if game.is_draw:
        return ngettext("The game is drawn after {n} turn.", "The game is drawn after {n} turns.", game.turn)
    return ngettext("The game is unfinished after {n} turn.", "The game is unfinished after {n} turns.", game.turn)
