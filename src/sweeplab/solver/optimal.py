"""Exact optimal play on small boards: the win probability of perfect play, by searching the game tree.

Every layout a uniform first-click rule allows is equally likely. A knowledge state S is the set of
layouts consistent with everything seen so far; perfect play wins W(S) of them, where W(S) is |S|
when one layout is left (every safe cell is then known), and otherwise the best, over the hidden
cells c that are safe in some layout of S, of the sum of W(part) over the parts of S that opening c
tells apart (what it shows, the cascade of a 0 included; layouts where c is a mine are lost). The
win probability is W(S) / |S|, an exact Fraction. After the first click, every rule sweeplab calls
uniform (none, safe, opening) leaves exactly the layouts of the mine count that agree with the
view.

Flags and chords never change what a player can know, so they do not change W. The search is the
engine's one search of perfect play (solver.perfect), the end game's too: layouts listed, each
reveal's sight per layout, a memoised expectimax over sets of layouts.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .. import grid
from .._numba_cache import njit
from ..errors import InconsistentPositionError, SearchTooLargeError, SweeplabError
from ..view import FLAG, HIDDEN, View
from .layouts import enumerate_layouts
from .perfect import new_memo, search, sights, signatures

MAX_CELLS = 64            # boards of at most this many cells
MAX_LAYOUTS = 3_000_000   # layouts held in memory (a mine row and each cell's sight per layout)
MAX_STATES = 20_000_000   # states memoised by one search before it gives up


@njit
def _layouts(n, mines, cells, count):
    """Every layout of `mines` mines on the given cells (combinations in lexicographic order), as
    mine rows (bool[count, n])."""
    mine_rows = np.zeros((count, n), dtype=np.bool_)
    f = cells.shape[0]
    pick = np.arange(mines)
    for t in range(count):
        for k in range(mines):
            mine_rows[t, cells[pick[k]]] = True
        k = mines - 1
        while k >= 0 and pick[k] == f - mines + k:
            k -= 1
        if k < 0:
            break
        pick[k] += 1
        for i in range(k + 1, mines):
            pick[i] = pick[i - 1] + 1
    return mine_rows


def _symmetries(width: int, height: int):
    """The board's symmetries as maps of (x, y): the four of a rectangle, eight of a square."""
    maps = [lambda x, y: (x, y), lambda x, y: (width - 1 - x, y), lambda x, y: (x, height - 1 - y),
            lambda x, y: (width - 1 - x, height - 1 - y)]
    if width == height:
        maps += [lambda x, y: (y, x), lambda x, y: (height - 1 - y, x), lambda x, y: (y, width - 1 - x),
                 lambda x, y: (height - 1 - y, width - 1 - x)]
    return maps


@dataclass(frozen=True)
class Optimum:
    """The exact result of perfect play after a first click at `at`: `wins` of `layouts` are won."""

    width: int
    height: int
    mines: int
    at: tuple[int, int]
    wins: int
    layouts: int
    states: int = field(compare=False)      # states memoised by the search so far on this board size
    seconds: float = field(compare=False)

    @property
    def probability(self) -> Fraction:
        return Fraction(self.wins, self.layouts)


class OptimalPlay:
    """The exact search on one board size and mine count, for any first click asked.

    `kept_free(x, y)` gives the flat bool mask of cells the first-click rule keeps free of mines
    at a click on (x, y) (all False for `none`); the rule must lay its board uniformly over the
    layouts with those cells free (see `firstclick.uniform_free`).
    """

    def __init__(self, width: int, height: int, mines: int, topology: str = "bounded", *,
                 max_layouts: int = MAX_LAYOUTS, max_states: int = MAX_STATES):
        grid.check_size(width, height, topology)
        grid.check_mines(width, height, mines)
        if width * height > MAX_CELLS:
            raise SearchTooLargeError(f"{width}x{height} has {width * height} cells; the exact search takes at "
                                      f"most {MAX_CELLS} cells (and far fewer in practice)")
        self.width, self.height, self.mines, self.topology = width, height, mines, topology
        self.max_layouts, self.max_states = max_layouts, max_states
        self._states = 0

    @property
    def states(self) -> int:
        """Knowledge states searched so far (every search on this board size)."""
        return self._states

    def layout_count(self, free: np.ndarray) -> int:
        return math.comb(self.width * self.height - int(np.count_nonzero(free)), self.mines)

    def _search(self, view, undecided, L, cells, what):
        """W of opening each of `cells` (positions among the undecided cells) first, over the layouts L,
        with one memo for all of them."""
        obs = sights(view, np.zeros(view.cells.shape, dtype=bool), undecided, L)
        z1, z2 = signatures(len(L))
        memo = new_memo(1 << 10)
        out = []
        for c in cells:
            wins, _, spent, _, memo = search(obs, self.max_states, False, int(c), z1, z2, memo)
            self._states += spent
            if wins < 0:
                raise SearchTooLargeError(f"the exact search of {what} passed its cap of {self.max_states:,} states "
                                          f"({len(L):,} layouts); this board is beyond it")
            out.append(int(wins))
        return out

    def first_click(self, x: int, y: int, free: np.ndarray) -> Optimum:
        """Perfect play after a first click on (x, y), with the cells `free` (flat bool mask) kept free."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise SweeplabError(f"first click ({x}, {y}) is off the {self.width}x{self.height} board; "
                                f"x in 0..{self.width - 1}, y in 0..{self.height - 1}")
        n = self.width * self.height
        cells = np.flatnonzero(~np.asarray(free, dtype=np.bool_)).astype(np.int32)
        count = math.comb(len(cells), self.mines)
        if count > self.max_layouts:
            raise SearchTooLargeError(
                f"{self.width}x{self.height}/{self.mines} has {count:,} layouts for this first click; the exact "
                f"search holds at most {self.max_layouts:,}")
        t0 = time.perf_counter()
        L = _layouts(n, self.mines, cells, count)
        blank = View(np.full((self.height, self.width), HIDDEN, dtype=np.int8), self.mines, self.topology)
        (wins,) = self._search(blank, np.ones(n, dtype=bool), L, [y * self.width + x],
                               f"{self.width}x{self.height}/{self.mines}")
        return Optimum(self.width, self.height, self.mines, (x, y), wins, count, self.states,
                       time.perf_counter() - t0)

    def moves(self, view: View) -> dict[tuple[int, int], Fraction]:
        """The win probability of perfect play after opening each hidden cell of `view` next (cells that
        are a mine in every layout left out): the optimal move is the best of them. Once the first
        click is seen, every layout of the mine count that agrees with the view is equally likely
        under the uniform rules, so the rule is not needed. Flags are read as hidden cells."""
        if (view.width, view.height, view.mine_count, view.topology) != \
                (self.width, self.height, self.mines, self.topology):
            raise SweeplabError(f"the view is {view.width}x{view.height}/{view.mine_count} ({view.topology}); this "
                                f"search is {self.width}x{self.height}/{self.mines} ({self.topology})")
        seen = np.where(view.cells == FLAG, HIDDEN, view.cells)
        opened = seen.reshape(-1) >= 0
        if not opened.any():
            raise SweeplabError("the view shows no open cell; give the first click (first_click) instead")
        count = math.comb(int(np.count_nonzero(~opened)), self.mines)
        if count > self.max_layouts:
            raise SearchTooLargeError(f"the view leaves {count:,} layouts to filter; the exact search holds at "
                                      f"most {self.max_layouts:,}")
        view = View(seen, self.mines, self.topology)
        hidden = ~opened
        L = enumerate_layouts(view, np.zeros(hidden.shape, dtype=bool), hidden, count)
        if L is None or len(L) == 0:
            raise InconsistentPositionError("no layout of the mine count agrees with the view's numbers")
        cells = np.flatnonzero(hidden)
        guesses = [j for j in range(len(cells)) if not L[:, j].all()]
        wins = self._search(view, hidden, L, guesses, "this view")
        return {(int(cells[j]) % self.width, int(cells[j]) // self.width): Fraction(w, len(L))
                for j, w in zip(guesses, wins)}

    def every_first_click(self, kept_free) -> dict[tuple[int, int], Optimum]:
        """Perfect play after each first click, searching one cell of each class of the board's
        symmetries (bounded boards) and giving its result to the others."""
        out: dict[tuple[int, int], Optimum] = {}
        maps = _symmetries(self.width, self.height) if self.topology == "bounded" else [lambda x, y: (x, y)]
        for y in range(self.height):
            for x in range(self.width):
                if (x, y) in out:
                    continue
                r = self.first_click(x, y, kept_free(x, y))
                for f in maps:
                    out.setdefault(f(x, y), Optimum(self.width, self.height, self.mines, f(x, y), r.wins,
                                                    r.layouts, r.states, r.seconds))
        return out
