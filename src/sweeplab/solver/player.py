"""What every player is: a `Move`, the `Player` base with its seeded choices, and the rules repeated
until they free a cell. Apart from `players` so that a player defined elsewhere (the learned one) can
build on it without an import circle."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import NamedTuple

import numpy as np

from ..rng import seed_key
from ..view import FLAG, HIDDEN, View
from .rules import deduce_rules

# Positions whose exact count the core declines (a bound it reports) are played by a local estimate.
BEYOND_EXACT = "beyond-exact"


class Move(NamedTuple):
    kind: str      # "open" (the players here only open)
    x: int
    y: int
    certain: bool  # True when the player's deduction proved the cell safe
    note: str = ""  # BEYOND_EXACT when the exact analysis declined the position; how strong chose a guess


def rules_until_safe(view: View) -> tuple[np.ndarray, np.ndarray]:
    """(safe, mines) by the rules, applied again with the mines they found as trusted flags until
    they free a cell or find nothing new (the rules are one level; a solver repeats them)."""
    safe, mines = deduce_rules(view)
    hidden = view.hidden
    while not safe.any() and mines.any():
        cells = view.cells.copy()
        cells[cells == FLAG] = HIDDEN  # the view's own flags stay unknown: only proven mines are trusted
        cells[mines & hidden] = FLAG
        safe, more = deduce_rules(View(cells, view.mine_count, view.topology), trust_flags=True)
        more &= hidden & ~mines
        if not more.any():
            break
        mines = mines | more
    return safe, mines


class Player(ABC):
    """Base of every player: a name, and a seeded source for its random choices."""

    name = "?"
    summary = ""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed_key(seed))

    @abstractmethod
    def moves(self, view: View) -> list[Move]:
        """The moves to make on this view (certain ones first)."""

    # --- shared helpers --------------------------------------------------------------
    @staticmethod
    def _certain(safe: np.ndarray) -> list[Move]:
        ys, xs = np.nonzero(safe)
        return [Move("open", int(x), int(y), True) for y, x in zip(ys, xs)]

    def _pick(self, flat_cells: np.ndarray, width: int) -> Move:
        i = int(flat_cells[self.rng.integers(len(flat_cells))]) if len(flat_cells) > 1 else int(flat_cells[0])
        return Move("open", i % width, i // width, False)
