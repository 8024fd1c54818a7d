"""First-click rules: how the board a game is played on comes to be at its first opening click.

A rule may lay the board before any click (`none`, WinMine's `shift`) or at the first
click (`safe`, `opening`, Windows 7, `noguess`), so a game can start before its board
exists. Rules are deterministic: the same rule, seed and click give the same board,
which is what makes replay exact. New rules register a factory by name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from . import grid
from .board import Board
from .errors import InvalidBoardError
from .rng import Seed


class FirstClick(ABC):
    """Base of every rule. Subclasses set `name` and implement `board_for`."""

    name = "?"
    check_win_on_first = True  # WinMine's shift skips the win test (the one-click bug)

    def __init__(self, width: int, height: int, mines: int, topology: str = "bounded"):
        grid.check_size(width, height, topology)
        grid.check_mines(width, height, mines)
        self.width, self.height, self.mines, self.topology = width, height, mines, topology

    def board_before(self) -> Board | None:
        """The board when it exists before any click, else None."""
        return None

    @abstractmethod
    def board_for(self, x: int, y: int) -> tuple[Board, bool] | None:
        """The board to play once the first opening click lands on (x, y), and whether to test
        for a win after that click; None when the click does nothing (WinMine with no free cell)."""

    def spec(self) -> dict:
        """What a record stores to rebuild this rule."""
        return {"rule": self.name}

    def board_note(self) -> str | None:
        """What the player is told, once the game is over, about how its board came to be (None: nothing
        to tell). Said after the game only: before, it could hint at the board."""
        return None


class Fixed(FirstClick):
    """`none`: the board is fixed before play; the first click can lose."""

    name = "none"

    def __init__(self, board: Board):
        super().__init__(board.width, board.height, board.mine_count, board.topology)
        self.board = board

    def board_before(self) -> Board:
        return self.board

    def board_for(self, x: int, y: int) -> tuple[Board, bool]:
        return self.board, True


class Safe(FirstClick):
    """`safe`: mines are laid uniformly after the first click, never on the clicked cell."""

    name = "safe"
    reserved = 1

    def __init__(self, width: int, height: int, mines: int, seed: Seed, topology: str = "bounded") -> None:
        super().__init__(width, height, mines, topology)
        grid.check_mines(width, height, mines, min(self.reserved, width * height))
        self.seed = seed

    def excluded(self, x: int, y: int) -> np.ndarray:
        mask = np.zeros(self.width * self.height, dtype=np.bool_)
        mask[y * self.width + x] = True
        return mask

    def board_for(self, x: int, y: int) -> tuple[Board, bool]:
        from .generators.uniform import uniform_board
        return uniform_board(self.width, self.height, self.mines, self.seed, topology=self.topology,
                             exclude=self.excluded(x, y)), True

    def spec(self) -> dict:
        return {"rule": self.name, "seed": self.seed}


class Opening(Safe):
    """`opening`: no mine in the 3x3 block around the first click, so it always opens."""

    name = "opening"
    reserved = 9

    def excluded(self, x: int, y: int) -> np.ndarray:
        return grid.block_mask(self.width, self.height, x, y, self.topology)


# The rules by name live in the generators' registry (generators/__init__.py): each generator registers
# once, naming the rules it defines, and these look them up there (lazily: generators imports this module).

def rule_names() -> list[str]:
    """Every first-click rule, by name."""
    from .generators import rule_names
    return rule_names()


def rule_seed(name: str, key: int) -> int:
    """The seed rule `name` takes for a 64-bit stream key: its low bits where the rule's seed is narrower
    (WinMine's shift takes a 32-bit rand() state, Windows 7 a 32-bit time(0))."""
    from .generators import rule_generator
    return key & ((1 << rule_generator(name).seed_bits) - 1)


def make_rule(name: str, width: int, height: int, mines: int, seed: Seed, topology: str = "bounded",
              **options: Any) -> FirstClick:
    """Build a first-click rule by name: none, safe, opening, shift, win7, noguess, ... (see `rule_names`)."""
    from .generators import rule_generator
    info = rule_generator(name)
    return info.factory(width, height, mines, seed, first_click=name, topology=topology, **options)


UNIFORM_RULES = ("none", "safe", "opening")


def kept_free(name: str, width: int, height: int, mines: int, x: int, y: int, topology: str = "bounded") -> np.ndarray:
    """The cells (flat bool mask) that rule `name` keeps free of mines at a first click on (x, y), for the
    rules that lay every layout with those cells free equally likely: none (no cell kept), safe, opening.
    Other rules (WinMine's shift, Windows 7, noguess) are not uniform over such layouts and raise."""
    rule = make_rule(name, width, height, mines, 0, topology)
    if type(rule) is Fixed:
        return np.zeros(width * height, dtype=np.bool_)
    if isinstance(rule, Safe) and type(rule) in (Safe, Opening):
        return rule.excluded(x, y)
    raise InvalidBoardError(f"first-click rule {name!r} does not lay its boards uniformly over the layouts it "
                            f"allows; allowed: {', '.join(UNIFORM_RULES)}")
