"""The autoplayer: the loop view -> player -> moves -> Game, on the real `Game`, recording each move.

Every move carries whether the player called it *certain* (its deduction proved the cell safe)
or a guess, so soundness is checkable: a certain open that hits a mine is a bug, never luck.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import IllegalMoveError, SweeplabError
from ..firstclick import Fixed
from ..game import LOST, PLAYING, READY, WON, Game
from ..solver.players import BEYOND_EXACT, Move, Player


@dataclass
class Played:
    """One move as it was played: the move and what it did."""

    move: Move
    opened: int
    exploded: bool


@dataclass
class GameResult:
    """The outcome of one autoplayed game."""

    won: bool
    guesses: int  # moves the player did not call certain (a first click the rule keeps safe excluded)
    certain: int  # moves the player called certain
    unsound: int  # certain opens that hit a mine: must always be 0
    lost_on_guess: bool
    beyond_exact: int = 0  # guesses made without the exact analysis (it declined the position)
    moves: list[Played] = field(default_factory=list)  # filled only when recording


def autoplay(game: Game, player: Player, first: tuple[int, int] | None = None, *, record: bool = False,
             max_rounds: int | None = None) -> GameResult:
    """Play `game` to its end with `player`, opening `first` as the first click when given.

    The player sees only `game.view()`; it never touches the game. Raises if the player
    returns no move, or moves that change nothing (a player bug that would loop forever).
    A first click the first-click rule keeps safe (every rule but a fixed board's) is no guess,
    whoever chooses the cell: on no-guess boards a game needs no guess at all.
    """
    guesses = certain = unsound = beyond = 0
    lost_on_guess = False
    first_is_safe = not isinstance(game.rule, Fixed)
    played: list[Played] = []
    if first is not None and not game.over:
        game.open(*first)
    rounds = 0
    limit = max_rounds if max_rounds is not None else 4 * game.width * game.height + 8
    while not game.over:
        rounds += 1
        if rounds > limit:
            raise SweeplabError(f"player {player.name!r} made no end of the game in {limit} rounds")
        view = game.view()
        moves = player.moves(view)
        if not moves:
            raise SweeplabError(f"player {player.name!r} returned no move on a game still in play")
        made, changed = _play_round(game, moves, player.name)
        for mv, opened, exploded, first_click in made:
            if first_click and first_is_safe:
                pass  # the rule's first click: safe by the rule, neither a guess nor a deduction
            elif mv.certain:
                certain += 1
                unsound += exploded
            else:
                guesses += 1
                lost_on_guess |= exploded
                beyond += mv.note == BEYOND_EXACT
            if record:
                played.append(Played(mv, opened, exploded))
        if not changed:
            raise SweeplabError(f"player {player.name!r} made moves that changed nothing: {moves[:3]}")
    return GameResult(game.status == WON, guesses, certain, unsound, lost_on_guess, beyond, played)


def _play_round(game: Game, moves: list[Move], name: str) -> tuple[list[tuple[Move, int, bool, bool]], bool]:
    """One round's moves made on `game`: per move made (the move, cells it opened, whether it
    exploded, whether it was the first click), and whether any changed the game. A certain open of
    a cell an earlier cascade of the round opened is no move; a round of certain opens goes to the
    game in one call."""
    if game.status == PLAYING and all(mv.kind == "open" and mv.certain for mv in moves):
        got = game.open_cells([(mv.x, mv.y) for mv in moves])
        lost = game.status == LOST
        made = [(mv, n, lost and j == len(got) - 1, False) for j, (mv, n) in enumerate(zip(moves, got)) if n >= 0]
        return made, any(n > 0 for n in got) or game.over
    made = []
    changed = False
    for mv in moves:
        if game.over:
            break
        before = game.status
        if mv.kind == "open":
            if mv.certain and game.cell_state(mv.x, mv.y) == "open":
                continue
            opened = game.act("open", mv.x, mv.y)
            exploded = game.status == LOST
            changed |= opened > 0 or exploded or before != game.status
        elif mv.kind == "flag":
            game.flag(mv.x, mv.y)
            opened, exploded, changed = 0, False, True
        else:
            raise IllegalMoveError(f"player {name!r} made a {mv.kind!r} move; allowed: open, flag")
        made.append((mv, opened, exploded, mv.kind == "open" and before == READY))
    return made, changed
