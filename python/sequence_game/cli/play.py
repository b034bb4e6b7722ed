"""``sequence-game play``: humans against AI agents in the terminal, one command a line."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Dict, List, Literal, Optional, Sequence, Union

from ..cards import cell_name, parse_card
from ..errors import AmbiguousMoveError, printable
from ..game_setup import TEAM_NAMES
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
            notes.append(f"{card}@<any empty cell> ({len({m.cell for m in ms})} cells, e.g. {ms[0]})")
        else:
            shown.extend(ms)
    return "\n".join(filter(None, [moves_text(list(shown), width)] + notes))


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


_PLAY_HELP = """commands:
  7H@d6        place a chip (card @ cell; a two-eyed jack JD/JC goes on any empty cell)
  JSxe5        remove a chip with a one-eyed jack (JH/JS)
  trade 7H     discard a dead card and draw (then play as usual)
  pass         only when you have no legal play
  7H           a card alone, when it has just one legal cell
  ?            list your legal moves       hint   ask the AI
  undo         take back your last move    board  show the board again
  quit         leave the game"""


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
        from ..agents.levels import rating_note

        note = rating_note(self.ai_spec)
        return f" ({note})" if note else ""

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
        teams_desc = ", ".join(
            f"{TEAM_NAMES[t]}: " + " ".join(f"P{p}" for p in range(g.players) if g.team_of(p) == t)
            for t in range(g.teams)
        )
        self.say(
            f"Sequence: {g.players} players, {g.teams} teams ({teams_desc}); seed {g.seed}. "
            f"You play seat{'s' if len(self.humans) > 1 else ''} {', '.join(map(str, self.humans))}; "
            f"AI: {self.ai_spec}{self._ai_note()}. Type ? for your moves, help for commands."
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
            self.say(f"record saved to {self.args.save}" + ("" if g.is_over else " (unfinished game)"))
        return EXIT_OK

    def human_turn(self, p: int) -> bool:
        """Read commands until player ``p`` has moved. False when the game is left (quit or EOF)."""
        g = self.game
        self.show(p)
        while True:
            line = self.input.read(f"P{p} ({TEAM_NAMES[g.team_of(p)]}) > ")
            if line is None:
                self.say("end of input: leaving the game")
                return False
            low = line.lower()
            if not low:
                continue
            if low in ("quit", "exit", "q"):
                self.say("leaving the game")
                return False
            if low in ("?", "moves", "legal"):
                self.say(legal_moves_text(g.legal_moves()))
                continue
            if low in ("help", "h"):
                self.say(_PLAY_HELP)
                continue
            if low == "board":
                self.show(p)
                continue
            if low == "hint":
                self.say(f"hint: {self.hint()}")
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
                    self.say(f"{card}: you do not hold it; your hand is {' '.join(hand)}", style="red")
                elif not plays:
                    self.say(f"{card}: it has no legal play now (type ? for your moves)", style="red")
                else:
                    self.say(
                        f"{card} can go on {len(cells)} cells: "
                        + ", ".join(cell_name(c) for c in cells[:12])
                        + (" ..." if len(cells) > 12 else "")
                        + f"; write the cell too, e.g. {plays[0].with_declares(())}",
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
            self.say(str(e), style="red")
            return None

    def choose(self, choices: List[Move]) -> Union[Move, Literal[False], None]:
        self.say("this placement forms sequences in several ways (R7); choose which five:")
        for i, m in enumerate(choices, 1):
            self.say(f"  {i}. {m}")
        while True:
            line = self.input.read(f"which (1-{len(choices)}, or 0 to cancel) > ")
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
            self.say(f"type a number from 1 to {len(choices)} (0 cancels)", style="red")

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
                self.say(f"took back P{p}'s {entry}")
                return True
        for entry in reversed(taken):  # only AI moves: put them back
            replay_entry(g, entry)
        self.say("nothing to undo: no move of yours to take back", style="red")
        return False


def cmd_play(args: argparse.Namespace, console: Console) -> int:
    return PlaySession(args, console, game_class(args.engine)).run()


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    p = sub.add_parser("play", parents=[parents.common, parents.table], help="play against the AI in the terminal",
                       description="Play against AI opponents. " + _PLAY_HELP.replace("\n", " "))
    p.add_argument("--human", type=int_arg(0, 11, "--human"), action="append", metavar="SEAT",
                   help="a seat played by a human (repeat for several; default 0)")
    p.add_argument("--ai", default=None, metavar="SPEC",
                   help="AI opponents: a level, level:1 (a beginner) to level:8 (the strongest), shown with its "
                        "rating; easy, medium, hard are levels 6, 7, 8 (docs/agents.md); or an agent spec "
                        "(greedy, mcts:time=1, ...); default: hard")
    p.add_argument("--hint-ai", default=None, metavar="SPEC", help="the agent behind `hint` (default: hard)")
    p.add_argument("--save", metavar="FILE", help="save the finished game as a record (JSON)")
    p.set_defaults(func=cmd_play)
