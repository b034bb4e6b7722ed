"""The bot runner: any agent plays a seat of a table on a ``sequence-game serve`` server until the
game ends (``sequence-game bot --server URL --table ID --token T --agent hard``), like lichess-bot.

The agent is a spec (``hard``, ``mcts:time=0.5``: ``agent_from_spec``) or a Python class
``module:Class`` built with no arguments: anything with ``select_move(game) -> Move``. It is given a
``Game`` made from the seat's view (:meth:`sequence_game.client.TableView.game`), so it sees what
the seat may see (R9) and nothing more. A move the server refuses because the table moved on (409:
an undo, a referee call) is dropped and the table read again; any other refusal ends the run with
the server's message.
"""

from __future__ import annotations

import importlib
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .client import Client, ClientError, TableView

__all__ = ["BotResult", "load_agent", "run_bot"]


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
            raise ValueError(f"agent {text!r}: cannot import module {module_name!r} ({e})") from None
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


def run_bot(client: Client, table_id: str, agent: Any, log: Optional[Callable[[str], None]] = None,
            seed: Optional[int] = None, reconnects: int = 5) -> BotResult:
    """Play the client's seat at ``table_id`` with ``agent`` until the game is over, following the
    table's event stream (a dropped stream is opened again up to ``reconnects`` times in a row)."""
    say = log or (lambda _text: None)
    view = client.table(table_id)
    if view.seat is None:
        raise ValueError(f"table {table_id}: this token holds no seat (a spectator cannot play)")
    say(f"table {table_id}: playing seat {view.seat} (team {view.seat % view.teams}) with "
        f"{getattr(agent, 'name', type(agent).__name__)}")
    moves, thinking, acted, dropped = 0, 0.0, -1, 0
    while not view.over:
        try:
            for frame in client.stream(table_id):
                dropped = 0
                if frame.get("type") != "state":
                    continue
                view = TableView.from_json(frame["view"])
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
        except ClientError as e:
            if e.status != 0 or dropped >= reconnects:
                raise
            dropped += 1
            say(f"{e}; opening the stream again")
            time.sleep(min(2.0, 0.1 * 2**dropped))
        if not view.over:  # the stream ended without the end of the game: read the table again
            view = client.table(table_id)
    say(f"game over: {view.result}")
    return BotResult(view=view, moves=moves, thinking_seconds=thinking)


def main(args: Any) -> int:
    """``sequence-game bot``: the command's options in ``args``; the exit status."""
    client = Client(args.server, token=args.token)
    agent = load_agent(args.agent, seed=args.seed)
    result = run_bot(client, args.table, agent, log=None if args.quiet else (lambda s: print(s, flush=True)),
                     seed=args.seed)
    if not args.quiet:
        print(f"played {result.moves} moves, {result.thinking_seconds:.1f} s thinking", file=sys.stderr)
    return 0
