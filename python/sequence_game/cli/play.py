"""``sequence-game play``: humans against AI agents in the terminal, one command a line."""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING, Dict, List, Literal, Optional, Sequence, Union

from ..cards import cell_name, parse_card
from ..errors import AmbiguousMoveError, IllegalMoveError, printable
from ..i18n import DEFAULT, _, active, ngettext
from ..move import Move
from ..referee import replay_entry
from .common import (
    EXIT_OK,
    CLIError,
    Parents,
    ai_seed,
    check_writable,
    default_ai_spec,
    describe_move,
    game_class,
    int_arg,
    lenient_stdin,
    make_agent,
    new_game,
    read_line,
    result_line,
    save_record,
)

if TYPE_CHECKING:
    from rich.console import Console

    from ..gamebase import GameBase, GameClass


#: The rule ids the engine's messages cite ("(R5)"): for developers, not for players.
RULE_IDS = re.compile(r"\s*\(R\d+(?:, R\d+)*\)")


def legal_moves_text(moves: Sequence[Move], width: int = 78) -> str:
    """The legal moves for ``?``: grouped by card, a two-eyed jack's many cells summarised."""
    from ..terminal import moves_text

    by_card: Dict[tuple[str, Optional[str]], List[Move]] = {}
    for m in moves:
        by_card.setdefault((m.kind, m.card), []).append(m)
    shown: List[Move] = []
    notes: List[str] = []
    for (kind, card), ms in by_card.items():
        if kind == "place" and card in ("JD", "JC") and len(ms) > 8:
            notes.append(_("{card}@<any empty space> ({n} spaces, e.g. {example})", card=card, n=len({m.cell for m in ms}),
                           example=ms[0]))
        else:
            shown.extend(ms)
    return "\n".join(filter(None, [moves_text(list(shown), width)] + notes))


def ai_name(spec: str) -> str:
    """An AI spec as a player reads it: ``level:3`` -> "level 3", ``hard`` -> "hard" in the active
    language; a spec of agent options as written."""
    name = spec.strip().lower()
    if name.startswith("level:") and name[6:].isdigit():
        return _("level {n}", n=int(name[6:]))
    return {"random": _("random"), "rules": _("rules"), "easy": _("easy"), "medium": _("medium"), "hard": _("hard"),
            "max": _("strongest")}.get(name, spec)


class _Input:
    """Lines from standard input; echoes them when stdin is not a terminal (for readable transcripts)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.stream = lenient_stdin()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())

    def read(self, prompt: str) -> Optional[str]:
        """The next line, stripped, or ``None`` at end of input."""
        self.console.print(prompt, end="")
        self.console.file.flush()
        line = read_line(self.stream)
        if line is None:
            self.console.print()
            return None
        line = line.strip()
        if not self.tty:
            self.console.print(printable(line))
        return line


def play_help() -> str:
    """The commands of the game, in the active language (the command words stay as typed)."""
    return "\n".join([
        _("commands:"),
        "  7H@d6        " + _("place a chip (card @ space; a two-eyed jack JD/JC goes on any empty space)"),
        "  JSxe5        " + _("remove a chip with a one-eyed jack (JH/JS)"),
        "  trade 7H     " + _("discard a dead card and draw (then play as usual)"),
        "  pass         " + _("only when you have no legal play"),
        "  7H           " + _("a card alone, when it has just one space to go"),
        "  ?            " + _("list your legal moves"),
        "  hint         " + _("ask the computer for a move"),
        "  undo         " + _("take back your last move"),
        "  board        " + _("show the board again"),
        "  quit         " + _("leave the game"),
    ])


class PlaySession:
    """The ``play`` loop: humans at some seats, AI agents at the others."""

    def __init__(self, args: argparse.Namespace, console: Console, game_cls: GameClass,
                 game: Optional[GameBase] = None) -> None:
        self.args = args
        self.console = console
        self.game_cls = game_cls
        if args.save:
            check_writable(args.save)
        if game is None:
            game = new_game(game_cls, args)
        self.game = game
        humans = sorted(set(args.human if args.human else [0]))
        for h in humans:
            if not 0 <= h < self.game.players:
                raise CLIError(f"--human {h}: seats are 0..{self.game.players - 1}")
        self.humans = humans
        spec = args.ai or default_ai_spec()
        self.ai_spec = spec
        self.agents = {
            p: make_agent(spec, seed=ai_seed(self.game.seed, p))
            for p in range(self.game.players)
            if p not in humans
        }
        # built now, so that a bad --hint-ai is refused at start-up rather than at the first hint
        self.hint_agent = make_agent(args.hint_ai or default_ai_spec(), seed=ai_seed(self.game.seed, self.game.players))
        self.input = _Input(console)
        from ..terminal import can_encode_suits

        self.ascii = args.ascii or not can_encode_suits(console)

    def _ai_note(self) -> str:
        """The AI's level and its rating on the ladder (agents/data/ladder.json), when it has one."""
        from ..agents.levels import level_of, packaged_ratings, rating_note

        if not rating_note(self.ai_spec):  # not a rated spec (options that change how it plays)
            return ""
        name = self.ai_spec.strip().lower().split(",")[0].replace(" ", "")
        try:
            level = level_of(name)
        except ValueError:
            level = None
        rated = packaged_ratings().get(level.name if level is not None else name)
        parts = [_("level {n}", n=level.number)] if level is not None and not name.startswith("level:") else []
        if rated:
            parts.append(_("rating {rating}", rating=rated["rating"]))
        return f" ({', '.join(parts)})" if parts else ""

    def _seats_text(self) -> str:
        return ", ".join(map(str, self.humans))

    # -- display
    def show(self, player: Optional[int]) -> None:
        from ..terminal import render_table

        hands = [player] if player is not None else []
        self.console.print()
        render_table(self.console, self.game, last_move=self.game.last_move, hand_of=hands, ascii=self.ascii)

    def say(self, text: str, style: Optional[str] = None) -> None:
        self.console.print(text, style=style)

    # -- the loop
    def run(self) -> int:
        g = self.game
        from ..terminal import team_name

        teams_desc = ", ".join(
            f"{team_name(t)}: " + " ".join(f"P{p}" for p in range(g.players) if g.team_of(p) == t)
            for t in range(g.teams)
        )
        self.say(
            _("Sequence: {players} players, {teams} teams ({desc}); deal number {seed}.", players=g.players, teams=g.teams,
              desc=teams_desc, seed=g.seed) + " "
            + ngettext("You play seat {seats}.", "You play seats {seats}.", len(self.humans), seats=self._seats_text()) + " "
            + _("Computer: {ai}{note}.", ai=ai_name(self.ai_spec), note=self._ai_note()) + " "
            + _("Type ? for your moves, help for the commands.")
        )
        while not g.is_over:
            p = g.current_player
            if p not in self.humans:
                move = g.parse_move(self.agents[p].select_move(g))  # declares filled in
                g.play(move)
                self.say(describe_move(g, p, move), style="dim")
                continue
            if not self.human_turn(p):
                break
        self.show(None)
        self.say(result_line(g), style="bold")
        if self.args.save:
            from ..records import GameRecord

            names = ["human" if p in self.humans else self.ai_spec for p in range(g.players)]
            save_record(GameRecord.from_game(g, agents=names), self.args.save)
            self.say(_("record saved to {path}", path=self.args.save) if g.is_over
                     else _("record saved to {path} (unfinished game)", path=self.args.save))
        return EXIT_OK

    def human_turn(self, p: int) -> bool:
        """Read commands until player ``p`` has moved. False when the game is left (quit or EOF)."""
        g = self.game
        self.show(p)
        while True:
            from ..terminal import team_name

            line = self.input.read(f"P{p} ({team_name(g.team_of(p))}) > ")
            if line is None:
                self.say(_("end of input: leaving the game"))
                return False
            low = line.lower()
            if not low:
                continue
            if low in ("quit", "exit", "q"):
                self.say(_("leaving the game"))
                return False
            if low in ("?", "moves", "legal"):
                self.say(legal_moves_text(g.legal_moves()))
                continue
            if low in ("help", "h"):
                self.say(play_help())
                continue
            if low == "board":
                self.show(p)
                continue
            if low == "hint":
                self.say(_("hint: {move}", move=self.hint()))
                continue
            if low == "undo":
                if self.undo():
                    return True  # the turn loop starts over with whoever is to move now
                continue
            move = self.parse(line)
            if move is None:
                continue
            if move is False:
                return False
            g.play(move)
            self.say(describe_move(g, p, move))
            if move.kind == "trade" and not g.is_over:
                self.show(p)
            if g.current_player != p or g.is_over:
                return True

    def parse(self, line: str) -> Union[Move, Literal[False], None]:
        """The legal move ``line`` names (asking which sequences when that is ambiguous), ``None`` after
        an error (printed), ``False`` at end of input."""
        g = self.game
        try:
            card = parse_card(line)
        except ValueError:
            card = None
        if card is not None:
            plays = [m for m in g.legal_moves() if m.card == card and m.kind in ("place", "remove")]
            cells = sorted({m.cell for m in plays if m.cell is not None})  # placements and removals all have one
            trades = [m for m in g.legal_moves() if m.card == card and m.kind == "trade"]
            if len(cells) == 1:
                line = str(plays[0].with_declares(()))
            elif not plays and trades:
                line = str(trades[0])
            else:
                hand = g.hand(g.current_player)
                if card not in hand:
                    self.say(_("{card}: you do not hold it; your hand is {hand}", card=card, hand=" ".join(hand)), style="red")
                elif not plays:
                    self.say(_("{card}: it cannot be played now (type ? for your moves)", card=card), style="red")
                else:
                    self.say(
                        ngettext("{card} can go on {n} space: {cells}; write the space too, e.g. {example}",
                                 "{card} can go on {n} spaces: {cells}; write the space too, e.g. {example}", len(cells),
                                 card=card, cells=", ".join(cell_name(c) for c in cells[:12]) + (" ..." if len(cells) > 12 else ""),
                                 example=plays[0].with_declares(())),
                        style="red",
                    )
                return None
        try:
            return g.parse_move(line)
        except AmbiguousMoveError:
            base = Move.parse(line)
            choices = [m for m in g.legal_moves() if m.kind == "place" and m.card == base.card
                       and m.cell == base.cell]
            return self.choose(choices)
        except ValueError as e:  # IllegalMoveError, InvalidMoveError
            # the engine explains a refusal in English; the other languages get a translated sentence
            if active() == DEFAULT:
                reason = RULE_IDS.sub("", str(e))
            elif isinstance(e, IllegalMoveError):
                reason = _("{move}: the rules do not allow that move now (type ? for your moves)", move=line)
            else:
                reason = _("{text}: not a move; type help for the commands", text=line)
            self.say(reason, style="red")
            return None

    def choose(self, choices: List[Move]) -> Union[Move, Literal[False], None]:
        self.say(_("this chip makes sequences in several ways; choose which five chips count:"))
        for i, m in enumerate(choices, 1):
            self.say(f"  {i}. {m}")
        while True:
            line = self.input.read(_("which (1-{n}, or 0 to cancel) > ", n=len(choices)))
            if line is None:
                return False
            if line.isascii() and line.isdigit() and 0 <= int(line) <= len(choices):  # int("²") fails
                return None if int(line) == 0 else choices[int(line) - 1]
            try:
                m = self.game.parse_move(line)
                if m in choices:
                    return m
            except ValueError:
                pass
            self.say(_("type a number from 1 to {n} (0 cancels)", n=len(choices)), style="red")

    def hint(self) -> Move:
        return self.hint_agent.select_move(self.game)

    def undo(self) -> bool:
        """Take back the last human move and the AI moves after it. True when something was undone."""
        g = self.game
        taken = []
        while g.history:
            entry = g.undo()
            taken.append(entry)
            p = g.current_player  # undo restores the position before the move: its mover is to move
            if p in self.humans:
                self.say(_("took back P{p}'s {move}", p=p, move=entry))
                return True
        for entry in reversed(taken):  # only AI moves: put them back
            replay_entry(g, entry)
        self.say(_("nothing to undo: no move of yours to take back"), style="red")
        return False


def cmd_play(args: argparse.Namespace, console: Console) -> int:
    return PlaySession(args, console, game_class(args.engine)).run()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    p = sub.add_parser("play", parents=[parents.common, parents.table], help="play against the AI in the terminal",
                       description=_("Play against the computer.") + " " + play_help().replace("\n", " "))
    p.add_argument("--human", type=int_arg(0, 11, "--human"), action="append", metavar="SEAT",
                   help="a seat played by a human (repeat for several; default 0)")
    p.add_argument("--ai", default=None, metavar="SPEC",
                   help="AI opponents: a level, level:1 (a beginner) to level:8 (the strongest), shown with its "
                        "rating; easy, medium, hard are levels 6, 7, 8 (docs/agents.md); or an agent spec "
                        "(greedy, mcts:time=1, ...); default: hard")
    p.add_argument("--hint-ai", default=None, metavar="SPEC", help="the agent behind `hint` (default: hard)")
    p.add_argument("--save", metavar="FILE", help="save the finished game as a record (JSON)")
    p.set_defaults(func=cmd_play)
