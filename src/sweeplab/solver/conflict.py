"""A position read without its mine total, and, where its numbers cannot all hold, a minimal set of
them that cannot: the engine's answers for a position whose total is unknown or wrong.

Without a total, a layout may hold any number of mines. The analysis (solver.complete) is run once
on the position with as many cells again beside it, touching nothing, and a total that fills them
with whatever the frontier leaves: every count of mines the frontier can hold then fits, and the
position's own cells off the frontier stay free. So what it decides is what the numbers decide for
every total (by existence, as every decision of the engine: the components' layouts, the local
rules, no float), and the frontier's mine counts it reports are all those the numbers allow. The
totals that fit are those counts plus 0 to U mines off the frontier (U cells) plus the trusted flags:
a sumset, whose gaps `AnalysisWithoutTotal.fits` sees.

A set of numbers holds when some layout fits it with every other open cell unopened (so its cell
is an unknown one too, which can matter to its neighbours). Holding is monotone: dropping numbers
keeps a layout, so a minimal set that cannot hold is found by QuickXplain (Junker 2004), in about
k log(n / k) checks for k numbers of n. A contradiction is local, so the numbers are first cut to the
first square window (8 cells wide, then 16, 32 ...; each shifted by half its width) whose numbers
alone cannot hold: each check then reads only a few numbers, the rest of the board unopened.
"""

from __future__ import annotations

import numpy as np

from .. import grid
from ..errors import InconsistentPositionError, TooComplexError
from ..view import FLAG, HIDDEN, View
from .complete import analyse_kernel
from .sweep import MAX_CELLS
from .total import combine

FIRST_WINDOW = 8  # cells: the first windows cut; a wrong number's contradiction usually fits one

_PADDED: dict = {}  # (width, height, topology): the grid's neighbour table and as many free cells again


def _padded(width: int, height: int, topology: str) -> np.ndarray:
    key = (width, height, topology)
    table = _PADDED.get(key)
    if table is None:  # (kept for good: the analysis keeps its scratch by the table it is given)
        nbr = grid.neighbour_table(width, height, topology)
        table = _PADDED[key] = np.vstack([nbr, np.full_like(nbr, -1)])
        table.setflags(write=False)
    return table


def _read(cells: np.ndarray, width: int, height: int, topology: str, trust_flags: bool):
    """The analysis kernel on flat `cells` without a total: its answer, (status, bad cell, probability,
    safe, mines, counts, lo, hi, U, M, components, reasons), for the padded grid."""
    n = cells.shape[0]
    padded = np.full(2 * n, HIDDEN, dtype=cells.dtype)
    padded[:n] = cells
    known = int((cells == FLAG).sum()) if trust_flags else 0
    # with known + n mines, M = n - (mines the rules found) is at least the frontier's size and at
    # most the cells off it (n of them are the padding): every frontier count fits
    return analyse_kernel(padded, _padded(width, height, topology), trust_flags, known + n)


def _too_complex() -> TooComplexError:
    return TooComplexError(f"a frontier component of this position needs more than {MAX_CELLS:,} counting-table "
                           "entries, past what sweeplab counts exactly: open more cells, or split the position")


class AnalysisWithoutTotal:
    """What the numbers of a position decide alone, for every mine total.

    safe, mines: bool (h, w), unknown cells safe / a mine in every layout that fits the numbers,
    whatever its number of mines. low, high: the lowest and highest mine total of the whole board
    (trusted flags included) that some layout fits; `fits(total)` whether one fits exactly that
    total (the totals between may have gaps). components: the frontier components counted.
    """

    __slots__ = ("safe", "mines", "low", "high", "components", "_supports", "_off", "_fixed")

    def __init__(self, safe, mines, low, high, components, supports, off, fixed):
        self.safe, self.mines, self.low, self.high, self.components = safe, mines, low, high, components
        self._supports, self._off, self._fixed = supports, off, fixed

    def fits(self, total: int) -> bool:
        """Whether some layout that fits the numbers has exactly `total` mines on the whole board:
        the components' mine counts combined under it, as the analysis combines them."""
        if not self.low <= total <= self.high:
            return False
        supp = self._supports
        sizes = np.array([int(np.flatnonzero(row).max()) for row in supp], dtype=np.int64)
        ok = combine(supp.astype(np.float64), supp, sizes, np.int64(self._off), np.int64(total - self._fixed),
                     False, 0)[7]
        return bool(ok)

    def __repr__(self) -> str:
        return (f"<AnalysisWithoutTotal safe={int(self.safe.sum())} mines={int(self.mines.sum())} "
                f"totals={self.low}..{self.high}>")


def analyse_without_total(view: View, *, trust_flags: bool = False) -> AnalysisWithoutTotal:
    """What the numbers of `view` decide for every mine total (the view's own total is not read), and
    the totals that fit them, in one analysis.

    Flags count as unknown hidden cells unless `trust_flags` (then they are mines). Raises
    InconsistentPositionError when no layout fits the numbers (`conflict_core` says which cannot
    hold), TooComplexError past the counting budget, as `analyse` does.
    """
    if not isinstance(view, View):
        raise TypeError(f"solvers take only a sweeplab View (what a player sees), not {type(view).__name__}")
    cells = view.cells.reshape(-1)
    n = cells.shape[0]
    status, bad, _, safe, mines, counts, lo, hi, U, M, C, _ = _read(cells, view.width, view.height, view.topology,
                                                                     bool(trust_flags))
    if status == 6:
        raise _too_complex()
    if status == 1:
        x, y = bad % view.width, bad // view.width
        raise InconsistentPositionError(f"the {cells[bad]} at ({x}, {y}) cannot be satisfied by its hidden neighbours"
                                        + (" and flags" if trust_flags else "") + ", whatever the mine total")
    if status:
        raise InconsistentPositionError("the numbers contradict each other: no layout of mines fits them, whatever "
                                        "the mine total")
    known = int((cells == FLAG).sum()) if trust_flags else 0
    fixed = known + n - int(M)  # the trusted flags and the mines the local rules found (M: the mines left)
    shape = (view.height, view.width)
    return AnalysisWithoutTotal(safe[:n].reshape(shape), mines[:n].reshape(shape), known + int(lo),
                                known + int(hi) + int(U) - n, int(C), counts > 0, int(U) - n, fixed)


def conflict_core(view: View, *, trust_flags: bool = False) -> list[tuple[int, int]]:
    """A minimal set of the view's open numbers that cannot all hold, whatever the mine total: with
    every other open cell unopened no layout fits them, and with any one of them unopened as well,
    one does. Cells (x, y) in reading order; empty when the numbers hold. Flags as in `analyse`."""
    if not isinstance(view, View):
        raise TypeError(f"solvers take only a sweeplab View (what a player sees), not {type(view).__name__}")
    cells = view.cells
    w, h, topology, trust = view.width, view.height, view.topology, bool(trust_flags)
    unopened = np.where(cells >= 0, HIDDEN, cells).astype(cells.dtype)
    whole = (0, 0, w, h)

    def holds(keep: np.ndarray, box: tuple[int, int, int, int]) -> bool:
        # the numbers at flat cells `keep` open, every other open cell unopened, read on the cells of
        # `box` (x0, y0, x1, y1) alone: what lies beyond a kept number's neighbours is free
        x0, y0, x1, y1 = box
        trial = unopened[y0:y1, x0:x1].copy()
        ys, xs = np.divmod(keep, w)
        trial[ys - y0, xs - x0] = cells[ys, xs]
        status = _read(trial.reshape(-1), x1 - x0, y1 - y0, topology if box == whole else "bounded", trust)[0]
        if status == 6:
            raise _too_complex()
        return status == 0

    opened = np.flatnonzero(cells.reshape(-1) >= 0)
    if holds(opened, whole):
        return []
    pool, box = _window(opened, w, h, topology, holds)
    found = _minimal(pool, lambda keep: holds(np.array(keep, dtype=np.int64), box))
    return [(int(i % w), int(i // w)) for i in sorted(found)]


def _window(opened: np.ndarray, w: int, h: int, topology: str, holds):
    """(open cells, box): those of the first square window whose numbers alone cannot hold, the
    smallest width first, and the window with the ring around it (on a bounded grid; a torus's
    window is read on the whole board); all of them and the board when no window short of it will do."""
    xs, ys = opened % w, opened // w
    size = FIRST_WINDOW
    while size < max(w, h):
        step = size // 2
        for y0 in _starts(h, size, step):
            for x0 in _starts(w, size, step):
                inside = opened[(xs >= x0) & (xs < x0 + size) & (ys >= y0) & (ys < y0 + size)]
                box = (max(x0 - 1, 0), max(y0 - 1, 0), min(x0 + size + 1, w), min(y0 + size + 1, h)) \
                    if topology == "bounded" else (0, 0, w, h)
                if 0 < inside.size < opened.size and not _holds_or_too_complex(holds, inside, box):
                    return inside, box
        size *= 2
    return opened, (0, 0, w, h)


def _holds_or_too_complex(holds, keep, box) -> bool:
    """Whether the numbers at `keep` hold, a window too tangled to count taken as holding (not shown
    not to: the contradiction is then sought in larger windows, and at last on the whole board)."""
    try:
        return holds(keep, box)
    except TooComplexError:
        return True


def _starts(length: int, size: int, step: int) -> list[int]:
    """Window starts along one side, `step` apart, the last flush with the edge."""
    if size >= length:
        return [0]
    return list(range(0, length - size, step)) + [length - size]


def _minimal(candidates: np.ndarray, holds) -> list[int]:
    """QuickXplain: a minimal subset of `candidates` (which cannot all hold) that cannot hold."""

    def split(background: list[int], changed: bool, pool: list[int]) -> list[int]:
        # a minimal part of `pool` that cannot hold with `background`, which cannot hold with all of pool
        if changed and not holds(background):
            return []
        if len(pool) == 1:
            return pool
        half = len(pool) // 2
        first, second = pool[:half], pool[half:]
        from_second = split(background + first, bool(first), second)
        from_first = split(background + from_second, bool(from_second), first)
        return from_first + from_second

    # QuickXplain prefers the first numbers of its order: given the last first, it prefers the later
    # ones in reading order, as a deletion in reading order does
    return split([], False, [int(i) for i in candidates[::-1]])


__all__ = ["AnalysisWithoutTotal", "analyse_without_total", "conflict_core"]
