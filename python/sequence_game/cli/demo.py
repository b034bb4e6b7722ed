"""``sequence-game demo``: AI against AI, the board after every turn, then the result."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, List

from .._args import seed_or_random
from ..errors import printable
from ..game_setup import TEAM_NAMES
from ..move import Move
from .common import (
    EXIT_OK,
    CLIError,
    Parents,
    ai_seed,
    check_writable,
    describe_move,
    game_class,
    make_agent,
    new_game,
    result_line,
    save_record,
    split_agent_specs,
)

if TYPE_CHECKING:
    from rich.console import Console

    from ..gamebase import GameBase


def cmd_demo(args: argparse.Namespace, console: Console) -> int:
    from ..records import play_game
    from ..terminal import can_encode_suits, render_table

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
        console.print(describe_move(game, player, move))
        if move.kind != "trade" and not game.is_over:
            render_table(console, game, last_move=move, ascii=ascii)

    record = play_game(agents, players=args.players, teams=args.teams, seed=seed, max_turns=args.max_turns,
                       game_class=cls, on_move=on_move)
    game = final[0] if final else record.replay(cls)
    console.print()
    render_table(console, game, last_move=game.last_move, ascii=ascii)
    console.print(result_line(game), style="bold")
    if args.save:
        save_record(record, args.save)
        console.print(f"record saved to {printable(args.save)}")
    return EXIT_OK


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser], parents: Parents) -> None:
    p = sub.add_parser("demo", parents=[parents.common, parents.table], help="watch AI against AI",
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
