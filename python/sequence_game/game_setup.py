"""How a game is set up: player counts, team splits and colours, hand sizes, the sequences a team
needs to win and the turn cap (R2, R3, R8), shared by the core and the reference."""

from __future__ import annotations

from typing import Optional

from ._args import plain_int
from .errors import short_repr

HAND_SIZE = {2: 7, 3: 6, 4: 6, 6: 5, 8: 4, 9: 4, 10: 3, 12: 3}  # R3
VALID_PLAYERS = tuple(sorted(HAND_SIZE))

# R2: every valid team split for each player count, the default first.
TEAM_CHOICES = {2: (2,), 3: (3,), 4: (2,), 6: (2, 3), 8: (2,), 9: (3,), 10: (2,), 12: (2, 3)}

TEAM_NAMES = ("blue", "green", "red")  # R1 chip colours, team 0 1 2
TEAM_LETTERS = ("B", "G", "R")


def check_players_teams(players: object, teams: object = None) -> tuple[int, int]:
    """Validate a player count and team split (R2); return ``(players, teams)``.

    >>> check_players_teams(6), check_players_teams(6, 3)
    ((6, 2), (6, 3))
    """
    number = plain_int(players)
    if number is None:
        raise TypeError(f"players must be an int, not {type(players).__name__} {short_repr(players)}")
    players = number
    if players not in HAND_SIZE:
        raise ValueError(
            f"{short_repr(players)} players is not a valid count (R2): choose one of "
            f"{', '.join(map(str, VALID_PLAYERS))}"
        )
    choices = TEAM_CHOICES[players]
    if teams is None:
        return players, choices[0]
    number = plain_int(teams)
    if number is None:
        raise TypeError(f"teams must be an int or None, not {type(teams).__name__} {short_repr(teams)}")
    teams = number
    if teams not in choices:
        raise ValueError(
            f"{players} players cannot play as {short_repr(teams)} teams (R2): "
            + " or ".join(f"teams={t}" for t in choices)
            + (" (or None for the default)" if len(choices) > 1 else "")
        )
    return players, teams


def sequences_to_win(teams: int) -> int:
    """R8: two sequences with 2 teams, one with 3."""
    return 2 if teams == 2 else 1


# The bound of the turn counter (the core counts in 32 bits): a cap is at most this, and a game
# without a cap still ends in a draw when turn reaches it (docs/state-format.md).
MAX_TURNS = 2**31 - 1


# The turn cap of unattended runs (arena, selfplay, fit_eval) unless one is given: the rules let a
# game go on for ever (a full board where every player passes holding dead cards, which R5 does not
# count toward the stalemate), and a run must end. Real games end far sooner (the longest of the
# 2-player matches in docs/agents.md took 224 turns; random games average 80-160 turns), so the cap
# changes no real game; a capped game is a draw, and the cap is recorded in the results header.
RUN_MAX_TURNS = 2000


def check_max_turns(max_turns: object) -> Optional[int]:
    """The optional turn cap: None or an int from 1 to ``MAX_TURNS``."""
    if max_turns is None:
        return None
    number = plain_int(max_turns)
    if number is None:
        raise TypeError(f"max_turns must be an int or None, not {type(max_turns).__name__}")
    if not 1 <= number <= MAX_TURNS:
        raise ValueError(f"max_turns must be from 1 to {MAX_TURNS} (or None for no cap), not {short_repr(number)}")
    return number
