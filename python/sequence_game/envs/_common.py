"""What the environments share: seat names, the team result as rewards, the turn cap, and the
message for a missing extra. Pure Python: no framework is imported here."""

from __future__ import annotations

from typing import Callable, List, NoReturn, Optional

from ..game import Game

#: The default turn cap of the environments: long enough that random games seldom reach it
#: (a random 2-team game lasts ~80 turns; 3-team games occasionally run into the thousands),
#: short enough that an episode always ends. Reaching it is a draw reported as truncation.
DEFAULT_MAX_TURNS = 1000


def require(extra: str, package: str, error: ImportError) -> NoReturn:
    """Raise the ImportError that tells the user which extra installs ``package``."""
    raise ImportError(
        f"{package} is not installed: it comes with the {extra!r} extra of sequence-game; "
        f"install it with: pip install 'sequence-game[{extra}]'"
    ) from error


def agent_names(players: int) -> List[str]:
    """``player_0`` .. ``player_{n-1}``: seat order (R2, R4)."""
    return [f"player_{p}" for p in range(players)]


def team_rewards(game: Game) -> List[float]:
    """Each seat's result once the game is over: +1 for every member of the winning team, -1 for
    every other player, 0 for everyone in a draw (R8, R5 stalemate, the turn cap)."""
    if game.winner is None:
        return [0.0] * game.players
    return [1.0 if game.team_of(p) == game.winner else -1.0 for p in range(game.players)]


def truncated(game: Game) -> bool:
    """True if the game ended by reaching its turn cap (a draw that is not a stalemate, R5)."""
    return game.is_draw and game.passes < game.players and game.max_turns is not None and game.turn >= game.max_turns


def render(game: Game, render_mode: Optional[str], warn: Callable[[str], None]) -> Optional[str]:
    """The environments' ``render()``: ``"ansi"`` returns the text board (``str(game)``),
    ``"human"`` prints it; without a render mode, ``warn`` says how to choose one."""
    if render_mode is None:
        warn("render() was called without a render_mode: pass render_mode='ansi' or 'human'")
        return None
    text = str(game)
    if render_mode == "ansi":
        return text
    print(text)
    return None
