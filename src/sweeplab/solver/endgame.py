"""The exhaustive end game: when few layouts remain, the guess with the highest chance of winning.

Every remaining layout of the undecided cells (`layouts.enumerate_layouts`) is equally likely; the
cascade of a 0 is modelled (`perfect.sights`), and perfect play over them is searched exactly
(`perfect.search`). Past `budget` new states the search gives up (the caller falls back to its
heuristic), so it never hangs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..errors import SweeplabError
from ..view import View
from .layouts import enumerate_layouts
from .perfect import new_memo, search, sights, signatures

# What each reveal shows costs up to cells x cells x layouts steps to list (a 0's cascade can cross
# every cell, in every layout): past this the end game declines the position (about 0.7 s here).
MAX_SIGHT_WORK = 10_000_000


class EndGame(NamedTuple):
    """The exact end game of a position: `wins` of its `layouts` are won by perfect play, revealing
    `cell` (a flat index) first; `cell_wins[c]`: the wins after revealing c first (-1 for a cell
    that is no guess; only when asked for every cell); `states`: new states searched."""

    wins: int
    layouts: int
    cell: int
    states: int
    cell_wins: dict


def endgame_search(view: View, mines: np.ndarray, undecided: np.ndarray, layouts: int, budget: int,
                   every: bool = False) -> EndGame | None:
    """The exact end game over the undecided cells, or None when there are more than `layouts`
    layouts (the analysis's count: checked) or the search passes `budget` new states. `every`:
    also each guess's own wins (the root searched without cut-offs). None too for a position whose
    sights would take more than MAX_SIGHT_WORK steps to list."""
    if np.count_nonzero(undecided) ** 2 * layouts > MAX_SIGHT_WORK:
        return None
    L = enumerate_layouts(view, mines, undecided, layouts)
    if L is None or len(L) == 0:
        return None
    if len(L) != layouts:
        raise SweeplabError(f"end game: enumerated {len(L)} layouts where the analysis counted {layouts}")
    z1, z2 = signatures(len(L))
    wins, k, states, rootw, _ = search(sights(view, mines, undecided, L), budget, every, -1, z1, z2, new_memo(1 << 10))
    if wins < 0:
        return None
    var = np.flatnonzero(undecided.reshape(-1))
    cell_wins = {int(var[j]): int(w) for j, w in enumerate(rootw) if w >= 0}
    return EndGame(int(wins), len(L), int(var[k]) if k >= 0 else -1, int(states), cell_wins)
