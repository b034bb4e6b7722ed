"""The bot runner: any agent plays a seat of a table on a ``sequence-game serve`` server until the
game ends (``sequence-game bot --server URL --table ID --token T --agent hard``), like lichess-bot.

The agent is a spec (``hard``, ``mcts:time=0.5``: ``agent_from_spec``) or a Python class
``module:Class`` built with no arguments: anything with ``select_move(game) -> Move``. It is given a
``Game`` made from the seat's view (:meth:`sequence_game.client.TableView.game`), so it sees what
the seat may see (R9) and nothing more. A move the server refuses because the table moved on (409:
an undo, a referee call) is dropped and the table read again; a failure that may pass (a dropped
stream, an unreachable server, 429, 5xx) is waited out with a bounded, jittered backoff
(:class:`Backoff`); any other refusal ends the run with the server's message, and an answer of the
wrong shape with :class:`~sequence_game.client.BadAnswerError`.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
import time
from contextlib import closing
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .client import BadAnswerError, Client, ClientError, TableView
from .seeds import fresh_seed

__all__ = ["Backoff", "BotResult", "load_agent", "run_bot"]


#: The backoff's jitter (not a seed of anything a game replays), from the one home of fresh entropy.
_JITTER = random.Random(fresh_seed())

@dataclass(frozen=True)
class BotResult:
    """How a run ended: the final view, the moves the bot played and the time it spent thinking."""

    view: TableView
    moves: int
    thinking_seconds: float

    @property
    def result(self) -> Optional[dict[str, Any]]:
        return self.view.result


def load_agent(text: str, seed: Optional[int] = None) -> Any:
    """The agent named by ``text``: ``module:Class`` (a class importable from the Python path, built
    with no arguments; ``module:function`` works too) or an agent spec (``agent_from_spec``, with
    ``seed`` as its default seed)."""
    if _is_import(text):
        module_name, _, attr = text.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:
            where = (f"; the module must be in the working directory ({os.getcwd()}) or on PYTHONPATH"
                     if isinstance(e, ModuleNotFoundError) and e.name == module_name.split(".")[0] else "")
            raise ValueError(f"agent {text!r}: cannot import module {module_name!r} ({e}){where}") from None
        factory = getattr(module, attr, None)
        if not callable(factory):
            raise ValueError(f"agent {text!r}: module {module_name!r} has no class or function {attr!r}")
        agent = factory()
        if not callable(getattr(agent, "select_move", None)):
            raise ValueError(f"agent {text!r}: {attr}() gave an object without select_move(game)")
        return agent
    from .agents import agent_from_spec

    return agent_from_spec(text, seed=seed) if seed is not None else agent_from_spec(text)


def _is_import(text: str) -> bool:
    """``module:Class`` rather than a spec ``name:key=value``: the part after the colon has no '='
    and names a Python identifier, and the part before is not a registered agent."""
    from .agents.registry import agent_names

    name, colon, attr = text.partition(":")
    return bool(colon) and "=" not in attr and attr.isidentifier() and name.strip().lower() not in agent_names()


@dataclass(frozen=True)
class Backoff:
    """How the bot waits after a failure (a dropped or ended stream, an unreachable server, 429,
    5xx): ``first`` seconds, doubling up to ``cap``, each pause with random jitter (between half
    and all of it, so bots that failed together retry apart); after ``tries`` failures in a row
    with no new table version in between, the run ends with the last error."""

    first: float = 0.5
    cap: float = 30.0
    tries: int = 8

    def __post_init__(self) -> None:
        if not (isinstance(self.first, (int, float)) and isinstance(self.cap, (int, float))
                and 0 < self.first <= self.cap < float("inf")):
            raise ValueError(f"Backoff needs 0 < first <= cap (seconds), not first={self.first!r} cap={self.cap!r}")
        if not isinstance(self.tries, int) or isinstance(self.tries, bool) or self.tries < 0:
            raise ValueError(f"Backoff tries must be an int of at least 0, not {self.tries!r}")

    def delay(self, failures: int) -> float:
        """The pause after the ``failures``-th failure in a row (from 1)."""
        return min(self.cap, self.first * 2.0 ** min(failures - 1, 60)) * _JITTER.uniform(0.5, 1.0)


def _transient(e: ClientError) -> bool:
    """A failure that may pass: no answer (status 0), too many requests, a server error."""
    return not isinstance(e, BadAnswerError) and (e.status == 0 or e.status == 429 or 500 <= e.status <= 599)


def run_bot(client: Client, table_id: str, agent: Any, log: Optional[Callable[[str], None]] = None,
            seed: Optional[int] = None, reconnects: Optional[int] = None,
            backoff: Optional[Backoff] = None) -> BotResult:
    """Play the client's seat at ``table_id`` with ``agent`` until the table is over (a resignation
    included), following the table's event stream. Every failure that may pass (the stream
    dropped or ended before the game did, the server unreachable, 429, 5xx) is waited out with
    ``backoff`` (``reconnects``, if given, replaces its ``tries``); a refusal (4xx) ends the run
    with :class:`ClientError`, an answer of the wrong shape with :class:`BadAnswerError`."""
    say = log or (lambda _text: None)
    backoff = backoff or Backoff()
    if reconnects is not None:
        backoff = Backoff(backoff.first, backoff.cap, reconnects)
    moves, thinking, acted, newest, failures = 0, 0.0, -1, -1, 0
    view: Optional[TableView] = None

    def failed(reason: str) -> None:
        nonlocal failures
        failures += 1
        if failures > backoff.tries:
            raise ClientError(0, f"table {table_id}: gave up after {failures} failures in a row; the last: {reason}")
        pause = backoff.delay(failures)
        say(f"{reason}; trying again in {pause:.1f} s")
        time.sleep(pause)

    while view is None or not view.over:
        try:
            if view is None:
                view = client.table(table_id)
                if view.seat is None:
                    raise ValueError(f"table {table_id}: this token holds no seat (a spectator cannot play)")
                say(f"table {table_id}: playing seat {view.seat} (team {view.seat % max(view.teams, 1)}) with "
                    f"{getattr(agent, 'name', type(agent).__name__)}")
                if view.over:
                    break
            with closing(client.stream(table_id)) as frames:
                for frame in frames:
                    if frame["type"] != "state":
                        continue
                    try:
                        view = TableView.from_json(frame.get("view"))
                    except BadAnswerError as e:
                        raise BadAnswerError(f"GET /api/tables/{table_id}/stream: {e.detail}", 200) from None
                    if view.version > newest:  # progress: the failures so far are behind us
                        newest, failures = view.version, 0
                    # act once per version: states queued before our move was played are stale
                    if view.over or not view.legal or view.version <= acted:
                        continue
                    acted = view.version
                    start = time.perf_counter()
                    game = view.game(seed=None if seed is None else seed + view.version)
                    move = str(agent.select_move(game))
                    thinking += time.perf_counter() - start
                    try:
                        client.play(table_id, move, version=view.version)
                    except ClientError as e:
                        if e.status != 409:
                            raise
                        # the table moved on (an undo, a referee call): the stream brings its state
                        say(f"move {move} not played ({e.detail})")
                        continue
                    moves += 1
                    say(f"turn {view.state['turn']}: {move}")
            if not view.over:
                failed("the event stream ended before the game did")
        except ClientError as e:
            if not _transient(e):
                raise
            # a move whose answer was lost is tried again: its version makes a second play a 409
            acted = -1
            failed(str(e))
    say(f"game over: {view.result}")
    return BotResult(view=view, moves=moves, thinking_seconds=thinking)


def working_directory_on_path() -> None:
    """Put the working directory first on ``sys.path``, as ``python -m`` does, so that ``--agent
    mymodule:MyAgent`` finds ``mymodule.py`` in the folder the bot is started from (an installed
    ``sequence-game`` script would search only its own folder and site-packages)."""
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)


def main(args: Any) -> int:
    """``sequence-game bot``: the command's options in ``args``; the exit status."""
    say: Callable[[str], None] = (lambda _text: None) if args.quiet else (lambda s: print(s, flush=True))
    working_directory_on_path()
    agent = load_agent(args.agent, seed=args.seed)
    client = Client(args.server, token=args.token)
    table = args.table
    if args.join is not None:
        table = args.join
        name = args.name or f"{getattr(agent, 'name', type(agent).__name__)} bot"[:32]
        link = client.join(table, seat=args.seat, name=name)
        client = client.with_token(link.token)
        # the token is shown once, so that a run that stops can be resumed with --table and --token
        say(f"table {table}: took seat {link.seat} as {name!r}; to resume: --table={table} --token={link.token}")
    result = run_bot(client, table, agent, log=say, seed=args.seed)
    if not args.quiet:
        print(f"played {result.moves} moves, {result.thinking_seconds:.1f} s thinking", file=sys.stderr)
    return 0
