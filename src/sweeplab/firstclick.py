"""First-click rules: how the board a game is played on comes to be at its first opening click.

A rule may lay the board before any click (`none`, WinMine's `shift`) or at the first
click (`safe`, `opening`, Windows 7, `noguess`), so a game can start before its board
exists. Rules are deterministic: the same rule, seed and click give the same board,
which is what makes replay exact. The rules by name (`make_rule`, `rule_names`) are the generators'
registry's (generators/__init__.py): each generator registers the rules it defines.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from . import grid
from .board import Board
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
