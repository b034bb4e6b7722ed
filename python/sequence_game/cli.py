"""The ``sequence-game`` command: play against the AI, watch a demo, run a match, replay a record.

::

    sequence-game play [--players 2] [--teams T] [--human 0 ...] [--ai easy|medium|hard|max|SPEC] [--seed N]
    sequence-game demo --seed N [--players P] [--agents greedy,random | --agent SPEC ...] [--save FILE]
    sequence-game arena AGENT AGENT --games N [--players P] [--seed S] [--workers N | --ray [ADDRESS]]
    sequence-game arena --resume FILE | --summary FILE | --compare A B
    sequence-game selfplay [AGENT ...] --games N --out DIR [--workers N | --ray [ADDRESS]]
    sequence-game replay FILE [--step]
    sequence-game serve [--port 8000] [--host 127.0.0.1] [--db FILE] [--no-browser]
    sequence-game bench ...

``play`` reads one command a line from standard input, so it can be scripted (``EOF`` ends the
game cleanly): a move in the text notation (``7H@d6``, ``JSxe5``, ``trade 7H``, ``pass``; a card
alone when it has one legal cell), ``?`` for the legal moves, ``hint``, ``undo``, ``board``,
``help``, ``quit``. Every subcommand takes ``--engine {core,reference}`` (default ``core``, the
compiled engine) and ``--no-color`` (``NO_COLOR`` in the environment does the same).

The agents (``sequence_game.agents``), game records (``sequence_game.records``) and the arena
(``sequence_game.arena``) are imported only by the subcommands that use them.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import re
import sys
import unicodedata
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Literal, Optional, Sequence, TextIO, Union

from ._args import SEED_LIMIT, seed_or_random
from .cards import cell_name, parse_card
from .errors import AmbiguousMoveError
from .game_setup import MAX_TURNS, TEAM_NAMES, VALID_PLAYERS
from .move import Move
from .referee import HistoryEntry, MissedDraw, TableTalkPenalty, replay_entry

if TYPE_CHECKING:  # the subcommands import these lazily (see above)
    from rich.console import Console
    from rich.table import Table

    from .agents import Agent
    from .arena import MatchResult
    from .gamebase import GameBase, GameClass
    from .records import GameRecord

EXIT_OK, EXIT_ERROR, EXIT_USAGE = 0, 1, 2


class CLIError(Exception):
    """A user-facing error: printed as ``sequence-game: error: ...`` with exit status 1."""


# --------------------------------------------------------------------------- shared helpers


def printable(text: str) -> str:
    """``text`` safe for a terminal: control and format characters (escape sequences, bidi
    overrides, NUL, ...) each become ``?``. For anything read from a file or standard input."""
    return "".join("?" if unicodedata.category(ch)[0] == "C" else ch for ch in text)


def _int_arg(lo: int, hi: Optional[int], what: str) -> Callable[[str], int]:
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


def new_game(cls: GameClass, args: argparse.Namespace, seed: Optional[int] = None) -> GameBase:
    """The game the table options describe; a bad combination (``--players 2 --teams 3``) is a
    ``CLIError`` before anything is played."""
    try:
        return cls(players=args.players, teams=args.teams, seed=args.seed if seed is None else seed,
                   max_turns=args.max_turns)
    except (TypeError, ValueError) as e:
        raise CLIError(str(e)) from None


def check_writable(path: str) -> None:
    """A ``CLIError`` now, before a game is played, if a record could not be saved at ``path``."""
    where = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise CLIError(f"--save {printable(path)}: that is a directory; give a file name")
    if not os.path.isdir(where):
        raise CLIError(f"--save {printable(path)}: the directory {printable(where)} does not exist")
    existed = os.path.exists(path)
    try:  # opening for append is the one test that also knows read-only and virtual file systems
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as e:
        raise CLIError(f"--save {printable(path)}: {e.strerror or e}") from None
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
    input can make the session hold it whole. Undecodable bytes arrive as U+FFFD (see ``_Input``)."""
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


def game_class(engine: str) -> GameClass:
    """The ``Game`` class of an engine name: ``core`` (compiled) or ``reference`` (pure Python)."""
    if engine == "reference":
        from .reference import Game as ReferenceGame

        return ReferenceGame
    from .game import Game

    return Game


def make_agent(spec: str, seed: Optional[int] = None) -> Agent:
    """An agent from a spec (``greedy``, ``random``, ``mcts:time=1``); ``seed`` unless the spec sets one."""
    from .agents import agent_from_spec

    try:
        agent: Agent = agent_from_spec(spec, seed=seed) if seed is not None else agent_from_spec(spec)
        return agent
    except ValueError as e:
        raise CLIError(str(e)) from None


def ai_seed(game_seed: Optional[int], seat: int) -> Optional[int]:
    """The seed of the AI at ``seat`` in a game dealt from ``game_seed`` (so a seed fixes the AI's play too)."""
    return None if game_seed is None else (game_seed + 1000 * (seat + 1)) % 2**64


def mcts_available() -> bool:
    """Whether ``sequence_game.agents.mcts`` exists and imports (it needs the compiled core)."""
    if importlib.util.find_spec("sequence_game.agents.mcts") is None:
        return False
    try:
        importlib.import_module("sequence_game.agents.mcts")
    except ImportError:
        return False
    return True


def default_ai_spec() -> str:
    """The ``hard`` preset (MCTS, agents/presets.py) when the search is available, else ``medium``."""
    return "hard" if mcts_available() else "medium"


def _describe_move(game: GameBase, player: int, move: HistoryEntry) -> str:
    team = TEAM_NAMES[game.team_of(player)]
    if isinstance(move, TableTalkPenalty):
        return f"referee: team {move.team} ({TEAM_NAMES[move.team]}) penalised for table talk: " + ", ".join(
            f"P{p} discards {card}" for p, card in move.cards)
    if isinstance(move, MissedDraw):
        return f"referee: P{move.player} missed a draw; the card goes back on the draw pile"
    if move.kind == "trade":
        what = f"trades the dead card {move.card}"
    elif move.kind == "pass":
        what = "passes (no legal play)"
    elif move.kind == "remove":
        assert move.cell is not None  # Move requires a cell for a removal
        what = f"removes the chip on {cell_name(move.cell)} with {move.card}"
    else:
        what = f"plays {move}"
        if move.declares:
            what += f"  -- {len(move.declares)} sequence{'s' if len(move.declares) > 1 else ''}!"
    return f"P{player} ({team}) {what}"


def _result_line(game: GameBase) -> str:
    if game.winner is not None:
        seats = [p for p in range(game.players) if game.team_of(p) == game.winner]
        who = ", ".join(f"P{p}" for p in seats)
        return f"Team {game.winner} ({TEAM_NAMES[game.winner]}: {who}) wins after {game.turn} turns."
    if game.is_draw:
        return f"The game is drawn after {game.turn} turns."
    return f"The game is unfinished after {game.turn} turns."


# --------------------------------------------------------------------------- play


def legal_moves_text(moves: Sequence[Move], width: int = 78) -> str:
    """The legal moves for ``?``: grouped by card, a two-eyed jack's many cells summarised."""
    from .terminal import moves_text

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
        self.stream = _lenient_stdin()
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


def _lenient_stdin() -> TextIO:
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
        from .terminal import can_encode_suits

        self.ascii = args.ascii or not can_encode_suits(console)

    # -- display
    def show(self, player: Optional[int]) -> None:
        from .terminal import render_table

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
            f"AI: {self.ai_spec}. Type ? for your moves, help for commands."
        )
        while not g.is_over:
            p = g.current_player
            if p not in self.humans:
                move = g.parse_move(self.agents[p].select_move(g))  # declares filled in
                g.play(move)
                self.say(_describe_move(g, p, move), style="dim")
                continue
            if not self.human_turn(p):
                break
        self.show(None)
        self.say(_result_line(g), style="bold")
        if self.args.save:
            from .records import GameRecord

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
            self.say(_describe_move(g, p, move))
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


# --------------------------------------------------------------------------- demo


def cmd_demo(args: argparse.Namespace, console: Console) -> int:
    from .records import play_game
    from .terminal import can_encode_suits, render_table

    cls = game_class(args.engine)
    if args.agent and args.agents is not None:
        raise CLIError("give the agents with --agent SPEC (repeated) or --agents SPEC,SPEC, not both")
    specs = args.agent or split_agent_specs("greedy,random" if args.agents is None else args.agents)
    if not specs:
        raise CLIError("--agents: give at least one agent spec, e.g. greedy,random")
    if args.save:
        check_writable(args.save)
    # the seed is fixed up front so that the agents' seeds derive from it too
    seed = seed_or_random(args.seed)
    probe = new_game(cls, args, seed)
    agents = [make_agent(specs[p % len(specs)], seed=ai_seed(seed, p)) for p in range(probe.players)]
    ascii = args.ascii or not can_encode_suits(console)
    console.print(
        f"demo: {probe.players} players, {probe.teams} teams, seed {seed}; "
        + ", ".join(f"P{p} ({TEAM_NAMES[probe.team_of(p)]}) {specs[p % len(specs)]}" for p in range(probe.players))
    )
    final: List[Any] = []

    def on_move(game: GameBase, move: Move, player: int) -> None:
        final[:] = [game]
        if args.quiet:
            return
        console.print()
        console.print(_describe_move(game, player, move))
        if move.kind != "trade" and not game.is_over:
            render_table(console, game, last_move=move, ascii=ascii)

    record = play_game(agents, players=args.players, teams=args.teams, seed=seed, max_turns=args.max_turns,
                       game_class=cls, on_move=on_move)
    game = final[0] if final else record.replay(cls)
    console.print()
    render_table(console, game, last_move=game.last_move, ascii=ascii)
    console.print(_result_line(game), style="bold")
    if args.save:
        save_record(record, args.save)
        console.print(f"record saved to {printable(args.save)}")
    return EXIT_OK


# --------------------------------------------------------------------------- arena


def cmd_arena(args: argparse.Namespace, console: Console) -> int:
    from . import arena

    if args.compare:
        if args.agents or args.resume or args.summary:
            raise CLIError("--compare A B reads two results files: give no agents, no --resume and no --summary")
        try:
            comparison = arena.compare(*args.compare)
        except ValueError as e:
            raise CLIError(str(e)) from None
        console.print(str(comparison))
        return EXIT_OK
    if args.summary:
        if args.agents or args.resume:
            raise CLIError("--summary FILE reads a results file: give no agents and no --resume")
        try:
            result = arena.summary(args.summary)
        except ValueError as e:
            raise CLIError(str(e)) from None
        _print_match(console, result)
        return EXIT_OK
    settings = _arena_settings(args)
    if len(settings["agents"]) < 2:
        raise CLIError("arena needs at least two agents, e.g. `arena greedy random`")
    if settings["games"] < 1:
        raise CLIError("--games must be at least 1")
    if args.workers is not None and args.workers < 1:
        raise CLIError("--workers must be at least 1")
    for s in settings["agents"]:  # fail fast with the spec's own message
        make_agent(s, seed=0)
    path = args.resume or args.results or _default_results_name()
    try:
        job = arena.MatchJob(arena.jobs.normalise_contenders(settings["agents"]), settings["games"],
                             players=settings["players"], teams=settings["teams"], seed=settings["seed"],
                             max_turns=settings["max_turns"], game_class=game_class(settings["engine"]))
    except ValueError as e:
        raise CLIError(str(e)) from None
    if path == "-":
        path = None
    where = f"Ray ({args.ray})" if args.ray not in (None, True) else "Ray" if args.ray else \
        f"{args.workers or arena.default_workers()} worker(s)"
    console.print(f"{job.title}: {job.games} games on {where}" + (f", results in {path}" if path else ""))
    reporter = None if args.no_progress else arena.RichProgress(job, console=console)
    try:
        entries = arena.run_job(job, workers=args.workers, ray=args.ray, results=path, resume=bool(args.resume),
                                progress=reporter,
                                on_retry=lambda i, code: console.print(
                                    f"a worker died (exit code {code}) playing game {i}: playing it again"))
    except KeyboardInterrupt:
        if path:
            console.print(f"interrupted: the finished games are in {path}; continue with --resume {path}")
        raise
    except (ValueError, TypeError, ImportError, arena.JobError, arena.WorkerCrashedError) as e:
        raise CLIError(str(e)) from None
    _print_match(console, job.outcomes(entries))
    if path:
        console.print(f"results: {path} (recompute with `sequence-game arena --summary {path}`)")
    return EXIT_OK


def _arena_settings(args: argparse.Namespace) -> Dict[str, Any]:
    """The match to play: the command line's, or with --resume the results file's job, where the
    command line may change only --games (to extend the match)."""
    defaults = {"agents": list(args.agents), "games": 10, "players": 2, "teams": None, "seed": 0,
                "max_turns": None, "engine": args.engine}
    given = {"games": args.games, "players": args.players, "teams": args.teams, "seed": args.seed,
             "max_turns": args.max_turns}
    import os

    if not args.resume or not os.path.exists(args.resume):
        defaults.update({k: v for k, v in given.items() if v is not None})
        return defaults
    from .arena import read_results

    try:
        header, _ = read_results(args.resume)
    except ValueError as e:
        raise CLIError(str(e)) from None
    if not header.get("agents"):
        raise CLIError(f"{args.resume} has no agent specs to resume with (it was played from Python)")
    settings = {"agents": header["agents"], "games": header["games"], "players": header["players"],
                "teams": header["teams"], "seed": header["seed"], "max_turns": header["max_turns"],
                "engine": header.get("engine", "core")}
    if args.agents and list(args.agents) != settings["agents"]:
        raise CLIError(f"{args.resume} is a match of {' '.join(settings['agents'])}, not {' '.join(args.agents)}")
    for k, v in given.items():
        if v is not None and k != "games" and v != settings[k]:
            raise CLIError(f"{args.resume} was played with --{k.replace('_', '-')} {settings[k]}, not {v}")
    if args.games is not None:
        settings["games"] = args.games
    return settings


def _default_results_name() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).strftime("arena-%Y%m%d-%H%M%S.jsonl")


def _print_match(console: Console, result: MatchResult) -> None:
    console.print(match_table(result))
    if len(result.names) >= 2:
        console.print(result.elo_line())
    console.print(seat_table(result))


def match_table(result: MatchResult) -> Table:
    """A ``rich`` table of a ``MatchResult``: games, wins, draws, losses, win rate and its 95% CI, Elo."""
    from rich.table import Table

    from .arena import format_elo

    title = f"{result.games} games, {result.players} players ({result.teams} teams), seed {result.seed}"
    if result.planned is not None and result.planned != result.games:
        title += f" -- {result.planned - result.games} of {result.planned} not played yet"
    table = Table(title=title)
    for col in ("agent", "games", "wins", "draws", "losses", "win rate", "95% CI", "Elo"):
        table.add_column(col, justify="left" if col == "agent" else "right")
    losses = result.losses
    n = len(result.names)
    for i, name in enumerate(result.names):
        lo, hi = result.win_rate_interval(i)
        elo = format_elo(result.elo(i, (i + 1) % n)) if n >= 2 else "-"
        table.add_row(
            name, str(result.played[i]), str(result.wins[i]), str(result.draws_of(i)), str(losses[i]),
            f"{100 * result.win_rate(i):.1f}%", f"{100 * lo:.1f}-{100 * hi:.1f}%", elo,
        )
    return table


def seat_table(result: MatchResult) -> Table:
    """A ``rich`` table of each contender's results per team (team 0 moves first)."""
    from rich.table import Table

    table = Table(title="by team (team 0 moves first)")
    for col in ("agent", "team", "games", "wins", "draws", "win rate", "95% CI"):
        table.add_column(col, justify="left" if col == "agent" else "right")
    for s in result.seat_results():
        lo, hi = s.win_rate_interval()
        table.add_row(result.names[s.contender], str(s.team), str(s.games), str(s.wins), str(s.draws),
                      f"{100 * s.win_rate:.1f}%", f"{100 * lo:.1f}-{100 * hi:.1f}%")
    return table


# --------------------------------------------------------------------------- selfplay


def cmd_selfplay(args: argparse.Namespace, console: Console) -> int:
    from .arena import JobError, RichProgress, WorkerCrashedError
    from .selfplay import SelfplayJob, selfplay

    if args.workers is not None and args.workers < 1:
        raise CLIError("--workers must be at least 1")
    agents = list(args.agents) or ["greedy"]
    try:
        job = SelfplayJob(agents, args.games, args.out, players=args.players, teams=args.teams, seed=args.seed,
                          max_turns=args.max_turns, shard_games=args.shard_games)
    except (TypeError, ValueError) as e:
        raise CLIError(str(e)) from None
    console.print(f"{job.title}: {job.games} games in {job.size} shard(s) into {job.out}")
    reporter = None if args.no_progress else RichProgress(job, console=console, unit="shards")
    try:
        manifest = selfplay(agents, args.games, args.out, players=args.players, teams=args.teams, seed=args.seed,
                            max_turns=args.max_turns, shard_games=args.shard_games, workers=args.workers,
                            ray=args.ray, resume=args.resume, progress=reporter)
    except KeyboardInterrupt:
        console.print(f"interrupted: the finished shards are in {args.out}; continue with --resume")
        raise
    except (ValueError, TypeError, ImportError, JobError, WorkerCrashedError) as e:
        raise CLIError(str(e)) from None
    cpu = manifest["cpu_seconds"]
    rate = manifest["positions"] / cpu * 3600 if cpu else 0.0
    console.print(f"{manifest['positions']:,} positions from {manifest['games']} games in "
                  f"{len(manifest['shards'])} shard(s): {args.out}/manifest.json "
                  f"({rate:,.0f} positions per core-hour)")
    return EXIT_OK


# --------------------------------------------------------------------------- replay


def cmd_replay(args: argparse.Namespace, console: Console) -> int:
    from .records import GameRecord
    from .terminal import can_encode_suits, render_table

    try:
        record = GameRecord.load(args.file)  # at most records.MAX_RECORD_BYTES are read
    except OSError as e:
        raise CLIError(f"{printable(args.file)}: {e.strerror or e}") from None
    except ValueError as e:
        raise CLIError(str(e)) from None
    cls = game_class(args.engine)
    ascii = args.ascii or not can_encode_suits(console)
    step = args.step and sys.stdin is not None and sys.stdin.isatty()
    agents = ", ".join(f"P{p} {printable(a)[:80]}" for p, a in enumerate(record.agents))  # from the file
    console.print(f"replay of {printable(args.file)}: {record.players} players, {record.teams} teams, "
                  f"seed {record.seed}, "
                  f"{len(record.moves)} moves" + (f"; {agents}" if agents else ""))
    game: Optional[GameBase] = None
    prev: Optional[GameBase] = None
    try:
        for index, move, game in record.positions(cls):
            if move is not None:
                assert prev is not None  # positions() yields the deal (move None) first
                console.print(f"{index:>3}. {_describe_move(prev, prev.current_player, move)}")
                if step:
                    render_table(console, game, last_move=game.last_move, ascii=ascii)
                    console.print("(Enter for the next move, q to stop stepping) ", end="")
                    answer = read_line(_lenient_stdin())
                    if answer is None or answer.strip().lower() == "q":
                        step = False
            prev = game
    except ValueError as e:
        raise CLIError(str(e)) from None
    assert game is not None  # positions() yields the deal at least
    console.print()
    render_table(console, game, last_move=game.last_move, ascii=ascii)
    console.print(_result_line(game), style="bold")
    return EXIT_OK


# --------------------------------------------------------------------------- serve


def cmd_serve(args: argparse.Namespace, console: Console) -> int:
    from . import web

    missing = web.missing_dependencies()
    if missing:
        raise CLIError(f"{web.MISSING_EXTRA} (missing: {', '.join(missing)})")
    from .web.serve import main as serve_main

    return serve_main(args)


# --------------------------------------------------------------------------- bench


# --------------------------------------------------------------------------- argument parsing


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--engine", choices=("core", "reference"), default="core",
                        help="game engine: the compiled core (default) or the pure-Python reference")
    common.add_argument("--no-color", action="store_true", help="no colours (also when NO_COLOR is set)")
    common.add_argument("--ascii", action="store_true", help="write cards as 7H/TS instead of suit symbols")

    table = argparse.ArgumentParser(add_help=False)
    table.add_argument("--players", type=_int_arg(2, 12, "--players"), default=2, choices=VALID_PLAYERS, metavar="P",
                       help=f"number of players: {', '.join(map(str, VALID_PLAYERS))} (default 2)")
    table.add_argument("--teams", type=_int_arg(2, 3, "--teams"), choices=(2, 3), default=None,
                       help="2 or 3 teams where the player count allows both (6, 12)")
    table.add_argument("--seed", type=_int_arg(0, SEED_LIMIT - 1, "--seed"), default=None,
                       help="seed of the deal, 0 to 2**64-1 (default: random)")
    table.add_argument("--max-turns", type=_int_arg(1, MAX_TURNS, "--max-turns"), default=None,
                       help="draw after this many turns")

    parser = argparse.ArgumentParser(prog="sequence-game", description="Play the board game Sequence.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("play", parents=[common, table], help="play against the AI in the terminal",
                       description="Play against AI opponents. " + _PLAY_HELP.replace("\n", " "))
    p.add_argument("--human", type=_int_arg(0, 11, "--human"), action="append", metavar="SEAT",
                   help="a seat played by a human (repeat for several; default 0)")
    p.add_argument("--ai", default=None, metavar="SPEC",
                   help="AI opponents: a difficulty (easy, medium, hard, max: docs/agents.md) or an agent spec "
                        "(greedy, mcts:time=1, ...); default: hard")
    p.add_argument("--hint-ai", default=None, metavar="SPEC", help="the agent behind `hint` (default: hard)")
    p.add_argument("--save", metavar="FILE", help="save the finished game as a record (JSON)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("demo", parents=[common, table], help="watch AI against AI",
                       description="AI against AI: the board after every turn, then the result.")
    p.add_argument("--agents", default=None, metavar="SPEC,SPEC",
                   help="agent specs for the seats in turn, cycled (default greedy,random); a piece with '=' "
                        "and no ':' is another option of the spec before it: mcts:iters=50,threads=2,greedy")
    p.add_argument("--agent", action="append", default=[], metavar="SPEC",
                   help="one agent spec, repeated for the seats in turn (instead of --agents): "
                        "--agent mcts:iters=50,threads=2 --agent greedy")
    p.add_argument("--save", metavar="FILE", help="save the game as a record (JSON)")
    p.add_argument("--quiet", action="store_true", help="print only the moves' result and the final board")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("arena", parents=[common], help="a match between agents, on every core or on Ray",
                       description="A match between agents, e.g. `arena greedy random --games 20`. Games run "
                                   "on every core (--workers), or on Ray (--ray); each finished game is "
                                   "appended to a JSON-lines results file, which --resume continues and "
                                   "--summary reads. With fixed iteration budgets (mcts:iters=N) the results "
                                   "do not depend on where the games ran; time budgets depend on the machine.")
    p.add_argument("agents", nargs="*", metavar="AGENT", help="agent specs: random, greedy, mcts:time=0.5, ...")
    p.add_argument("--games", type=_int_arg(1, None, "--games"), default=None, help="number of games (default 10)")
    p.add_argument("--players", type=_int_arg(2, 12, "--players"), default=None, choices=VALID_PLAYERS, metavar="P")
    p.add_argument("--teams", type=_int_arg(2, 3, "--teams"), choices=(2, 3), default=None)
    p.add_argument("--seed", type=_int_arg(0, SEED_LIMIT - 1, "--seed"), default=None, help="match seed (default 0): game i depends on it and i only")
    p.add_argument("--max-turns", type=_int_arg(1, MAX_TURNS, "--max-turns"), default=None)
    p.add_argument("--workers", type=_int_arg(1, None, "--workers"), default=None, metavar="N",
                   help="worker processes (default: every core; 1 plays in this process)")
    p.add_argument("--ray", nargs="?", const=True, default=None, metavar="ADDRESS",
                   help="run each game as a Ray task: on the local Ray instance (started if none runs), or "
                        "on the cluster at ADDRESS (needs sequence-game[ray])")
    p.add_argument("--results", metavar="FILE",
                   help="JSON-lines results file (default arena-<UTC time>.jsonl; - for none)")
    p.add_argument("--resume", metavar="FILE", help="continue the match of a results file: play only its missing "
                                                    "games (--games N extends it)")
    p.add_argument("--summary", metavar="FILE", help="print the statistics of a results file and exit")
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="compare game by game the first contenders of two results files of matches that differ "
                        "only in that contender (same opponents and --seed: the same deals), and exit")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_arena)

    p = sub.add_parser("selfplay", help="write a self-play dataset (npz shards + manifest)",
                       description="Self-play positions (observation tensors, legal masks, the move played, a "
                                   "search's root visits, the final result per team) in .npz shards with a "
                                   "manifest, on every core or on Ray. See sequence_game.selfplay.")
    p.add_argument("agents", nargs="*", metavar="AGENT",
                   help="agent specs cycled over the seats (default greedy: the core's heuristic)")
    p.add_argument("--games", type=_int_arg(1, None, "--games"), default=100, help="number of games (default 100)")
    p.add_argument("--out", required=True, metavar="DIR", help="directory of the dataset")
    p.add_argument("--shard-games", type=_int_arg(1, None, "--shard-games"), default=50, metavar="K", help="games per shard (default 50)")
    p.add_argument("--players", type=_int_arg(2, 12, "--players"), default=2, choices=VALID_PLAYERS, metavar="P")
    p.add_argument("--teams", type=_int_arg(2, 3, "--teams"), choices=(2, 3), default=None)
    p.add_argument("--seed", type=_int_arg(0, SEED_LIMIT - 1, "--seed"), default=0, help="run seed (default 0): game g depends on it and g only")
    p.add_argument("--max-turns", type=_int_arg(1, MAX_TURNS, "--max-turns"), default=None)
    p.add_argument("--workers", type=_int_arg(1, None, "--workers"), default=None, metavar="N", help="worker processes (default: every core)")
    p.add_argument("--ray", nargs="?", const=True, default=None, metavar="ADDRESS",
                   help="run each shard as a Ray task (local instance, or the cluster at ADDRESS)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out (play the missing shards)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_selfplay)

    p = sub.add_parser("replay", parents=[common], help="step through a saved game record",
                       description="Print each move of a saved record and the final board.")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--step", action="store_true", help="show the board and wait for Enter after each move")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("serve", help="play in the browser (needs the [web] extra)",
                       description="Serve the web board and the HTTP API (docs/web.md) and open the browser.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 opens it to the network, with a warning)")
    p.add_argument("--port", type=_int_arg(0, 65535, "--port"), default=8000, help="port (default 8000)")
    p.add_argument("--db", metavar="FILE", default=None,
                   help="the SQLite database of tables (default: sequence-game/tables.sqlite3 in the user's "
                        "data directory)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--ai-workers", type=_int_arg(1, None, "--ai-workers"), default=None, metavar="N",
                   help="threads for AI searches (default: one per CPU)")
    p.set_defaults(func=cmd_serve)

    # `bench` is dispatched to sequence_game.bench by main() before parsing; listed here for --help.
    sub.add_parser("bench", help="the performance table, core vs reference (--quick for a short run)")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Entry point of ``sequence-game`` (and ``python -m sequence_game``); returns the exit status."""
    from .terminal import make_console

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:  # every option after "bench" belongs to sequence_game.bench
        from . import bench

        return bench.main(argv[1:]) or 0
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    console = make_console(color=not getattr(args, "no_color", False))
    try:
        status: int = args.func(args, console)
        return status
    except CLIError as e:
        print(f"sequence-game: error: {printable(str(e))}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(file=sys.stderr)
        return 130
