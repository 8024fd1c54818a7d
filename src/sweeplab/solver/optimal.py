"""Exact optimal play on small boards: the win probability of perfect play, by searching the game tree.

Every layout a uniform first-click rule allows is equally likely. A knowledge state S is the set of
layouts consistent with everything seen so far; perfect play wins W(S) of them, where W(S) is |S|
when one layout is left (every safe cell is then known), and otherwise the best, over the hidden
cells c that are safe in some layout of S, of the sum of W(part) over the parts of S that opening c
tells apart (what it shows, the cascade of a 0 included, exactly as `kernels.flood_open` opens it;
layouts where c is a mine are lost). The win probability is W(S) / |S|, an exact Fraction.

Flags and chords never change what a player can know, so they do not change W. Prunings keep the
tree small: the cells safe in every layout of S are opened together at once (more knowledge never
hurts); cells are tried safest first, and a cell stops as soon as it cannot beat the best so far
(alpha bounds handed down to the parts). States are memoised by what the player sees (the opened
cells and their numbers, at the least of its images under the board's symmetries), which fixes S:
after the first click every rule sweeplab calls uniform (none, safe, opening) leaves exactly the
layouts of the mine count that agree with the view, so one memo serves every first click and rule
on a board size.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np
from numba import types
from numba.typed import Dict

from .. import grid
from .._numba_cache import njit
from ..errors import InconsistentPositionError, SearchTooLargeError, SweeplabError
from ..kernels import HIDDEN_STATE, OPEN_STATE, count_numbers, flood_open
from ..view import View
from .sweep import _grow
from .frontier import InconsistentPositionError

MAX_CELLS = 64            # a view packs into four 64-bit words, 4 bits a cell
MAX_LAYOUTS = 3_000_000   # layouts held in memory (a mine row and a number row each)
MAX_STATES = 20_000_000   # memoised states (about 150 bytes each: 3 GB) before the search gives up

_KEY = types.UniTuple(types.uint64, 4)


@njit
def _layouts(n, mines, cells, count, nbr):
    """Every layout of `mines` mines on the given cells (combinations in lexicographic order): the mine
    rows (bool[count, n]) and the number rows (int8[count, n])."""
    mine_rows = np.zeros((count, n), dtype=np.bool_)
    number_rows = np.zeros((count, n), dtype=np.int8)
    f = cells.shape[0]
    pick = np.arange(mines)
    for t in range(count):
        for k in range(mines):
            mine_rows[t, cells[pick[k]]] = True
        number_rows[t] = count_numbers(mine_rows[t], nbr)
        k = mines - 1
        while k >= 0 and pick[k] == f - mines + k:
            k -= 1
        if k < 0:
            break
        pick[k] += 1
        for i in range(k + 1, mines):
            pick[i] = pick[i - 1] + 1
    return mine_rows, number_rows


@njit
def _key(state, numbers, images):
    """What the player sees, packed 4 bits a cell (0 hidden, 1 + its number when open), taken at the
    least of its images under the board's symmetries (rows of `images`): W is the same for all."""
    best = (np.uint64(0), np.uint64(0), np.uint64(0), np.uint64(0))
    w = np.zeros(4, dtype=np.uint64)
    for s in range(images.shape[0]):
        w[:] = 0
        for j in range(state.shape[0]):
            if state[j] == OPEN_STATE:
                i = images[s, j]
                w[i >> 4] |= np.uint64(1 + numbers[j]) << np.uint64(4 * (i & 15))
        k = (w[3], w[2], w[1], w[0])
        if s == 0 or k < best:
            best = k
    return best


@njit
def _partition(idx, move, state, mine_rows, number_rows, nbr, queue):
    """The layouts of `idx` where the cells `move` are safe, grouped by what opening them shows (sorted
    by it), and the group bounds: group g is sub[starts[g]:starts[g + 1]]."""
    n = state.shape[0]
    c = move[0]
    k = 0
    for L in idx:
        if not mine_rows[L, c]:
            k += 1
    sub = np.empty(k, dtype=np.int32)
    keys = np.zeros((4, k), dtype=np.uint64)
    scratch = np.empty(n, dtype=np.int8)
    t = 0
    for L in idx:
        if mine_rows[L, c]:
            continue
        sub[t] = L
        if move.shape[0] == 1 and number_rows[L, c] != 0:
            keys[c >> 4, t] = np.uint64(1 + number_rows[L, c]) << np.uint64(4 * (c & 15))
        else:
            scratch[:] = state
            for i in move:
                flood_open(scratch, number_rows[L], nbr, i, queue)
            for j in range(n):
                if scratch[j] != state[j]:
                    keys[j >> 4, t] |= np.uint64(1 + number_rows[L, j]) << np.uint64(4 * (j & 15))
        t += 1
    order = np.arange(k)
    for w in range(3, -1, -1):  # least significant word first, stable: a lexicographic sort
        if (n + 15) >> 4 > w:
            order = order[np.argsort(keys[w][order], kind="mergesort")]
    starts = np.empty(k + 1, dtype=np.int64)
    groups = 0
    for t in range(k):
        if t == 0:
            starts[groups] = 0
            groups += 1
            continue
        a, b = order[t - 1], order[t]
        if keys[0, a] != keys[0, b] or keys[1, a] != keys[1, b] or keys[2, a] != keys[2, b] \
                or keys[3, a] != keys[3, b]:
            starts[groups] = t
            groups += 1
    starts[groups] = k
    return sub[order], starts[:groups + 1]


@njit
def _search(root, state, mine_rows, number_rows, nbr, images, memo, stats, force):
    """W(S) for the layouts `root` under the view `state` (restored on return), opening `force` first
    when it is >= 0 (that state is not memoised); -1 when the state cap `stats[1]` stops the search.

    Depth-first with an explicit stack (numba cannot cache a recursive function). A state is asked
    only whether it wins more than `alpha` layouts (what its parent needs for the cell it tries to
    beat the best cell so far): it answers W exactly when W > alpha, else a bound <= alpha. The memo
    keeps 2W + 1 for an exact W, 2U for a bound W <= U. Frame d holds its layouts in
    pool[lo[d]:hi[d]] and the parts of the cell it tries in pool[top[d]:...], cut at
    bounds[btop[d]:...]; every move opens a cell, so the depth is at most the cell count.
    """
    n = state.shape[0]
    queue = np.empty(n, dtype=np.int32)
    depth = n + 2
    pool = np.empty(2 * root.shape[0] + 16, dtype=np.int32)
    pool[:root.shape[0]] = root
    bounds = np.empty(64, dtype=np.int64)
    lo = np.zeros(depth, dtype=np.int64)
    hi = np.zeros(depth, dtype=np.int64)
    alpha = np.zeros(depth, dtype=np.int64)     # the state must win more than this to matter
    top = np.zeros(depth, dtype=np.int64)
    btop = np.zeros(depth, dtype=np.int64)
    keys = np.zeros((depth, 4), dtype=np.uint64)
    safe = np.zeros((depth, n), dtype=np.int64)
    order = np.zeros((depth, n), dtype=np.int64)
    cands = np.zeros(depth, dtype=np.int64)
    pos = np.zeros(depth, dtype=np.int64)
    cell = np.full(depth, -1, dtype=np.int64)   # the cell being tried, -1 between cells
    move = np.zeros((depth, n), dtype=np.int64)  # the cells it opens: itself, or every certain cell
    moves = np.zeros(depth, dtype=np.int64)
    groups = np.zeros(depth, dtype=np.int64)
    g = np.zeros(depth, dtype=np.int64)
    total = np.zeros(depth, dtype=np.int64)     # wins of the parts of the cell counted so far
    left = np.zeros(depth, dtype=np.int64)      # layouts in its parts still to play
    best = np.zeros(depth, dtype=np.int64)
    saved = np.zeros((depth, n), dtype=np.int8)

    d = 0
    lo[0], hi[0] = 0, root.shape[0]
    alpha[0] = -1
    enter = True
    ret = -1
    while True:
        if enter:  # a new state: settle it at once if we can, else list its cells
            enter = False
            forced = d == 0 and force >= 0
            size = hi[d] - lo[d]
            value = -1
            if size == 1 and not forced:
                value = 1  # one layout left: every safe cell is known
            elif size <= alpha[d]:
                value = size  # even winning them all does not matter
            else:
                k = _key(state, number_rows[pool[lo[d]]], images)
                keys[d, 0], keys[d, 1], keys[d, 2], keys[d, 3] = k
                if not forced:
                    e = memo.get(k, -1)
                    if e >= 0 and (e & 1 or e >> 1 <= alpha[d]):
                        value = e >> 1
                    elif stats[0] >= stats[1]:
                        return -1
                    elif e < 0:
                        stats[0] += 1
            if value >= 0:
                if d == 0:
                    return value
                d -= 1
                ret = value
                continue
            safe[d, :] = 0
            for t in range(lo[d], hi[d]):
                L = pool[t]
                for j in range(n):
                    if state[j] == HIDDEN_STATE and not mine_rows[L, j]:
                        safe[d, j] += 1
            moves[d] = 0  # each candidate opens itself alone
            if forced:
                order[d, 0] = force
                cands[d] = 1
            else:
                certain = 0
                for j in range(n):
                    if state[j] == HIDDEN_STATE and safe[d, j] == size:
                        move[d, certain] = j
                        certain += 1
                if certain > 0:  # free knowledge: open every certain cell at once, and nothing else
                    order[d, 0] = move[d, 0]
                    cands[d] = 1
                else:
                    order[d, :] = np.argsort(-safe[d], kind="mergesort")
                    cands[d] = n
                moves[d] = certain
            pos[d] = 0
            cell[d] = -1
            best[d] = max(alpha[d], 0)
            top[d] = hi[0] if d == 0 else top[d - 1] + bounds[btop[d - 1] + groups[d - 1]]
            btop[d] = 0 if d == 0 else btop[d - 1] + groups[d - 1] + 1
        elif ret >= 0:  # a part of the cell being tried came back
            state[:] = saved[d]
            if ret <= alpha[d + 1]:
                g[d] = groups[d] + 1  # that part wins too few: the cell cannot beat the best
            else:
                total[d] += ret
                g[d] += 1
            ret = -1
        c = cell[d]
        if c >= 0 and g[d] < groups[d]:  # play the next part of cell c
            s0 = top[d] + bounds[btop[d] + g[d]]
            s1 = top[d] + bounds[btop[d] + g[d] + 1]
            left[d] -= s1 - s0
            saved[d] = state
            for i in range(max(moves[d], 1)):
                flood_open(state, number_rows[pool[s0]], nbr, move[d, i], queue)
            d += 1
            lo[d], hi[d] = s0, s1
            alpha[d] = best[d - 1] - total[d - 1] - left[d - 1]  # the part must win more than this
            enter = True
            continue
        if c >= 0:
            if g[d] == groups[d] and total[d] > best[d]:
                best[d] = total[d]
            cell[d] = -1
        if pos[d] < cands[d]:
            c = order[d, pos[d]]
            pos[d] += 1
            if safe[d, c] > best[d] or (d == 0 and force >= 0):
                if moves[d] == 0:
                    move[d, 0] = c
                sub, b = _partition(pool[lo[d]:hi[d]], move[d, :max(moves[d], 1)], state, mine_rows, number_rows,
                                    nbr, queue)
                pool = _grow(pool, top[d] + sub.shape[0])
                pool[top[d]:top[d] + sub.shape[0]] = sub
                bounds = _grow(bounds, btop[d] + b.shape[0])
                bounds[btop[d]:btop[d] + b.shape[0]] = b
                cell[d] = c
                groups[d] = b.shape[0] - 1
                g[d] = 0
                total[d] = 0
                left[d] = safe[d, c]
                continue
            pos[d] = cands[d]  # sorted by safety: no cell left can beat the best
        value = best[d]
        exact = value > alpha[d]
        if not (d == 0 and force >= 0):
            memo[(keys[d, 0], keys[d, 1], keys[d, 2], keys[d, 3])] = 2 * value + (1 if exact else 0)
        if d == 0:
            return value
        d -= 1
        ret = value


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
    """The exact search on one board size and mine count; its memo serves every first click asked.

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
        self._nbr = grid.neighbour_table(width, height, topology)
        self._memo = Dict.empty(key_type=_KEY, value_type=types.int64)
        self._stats = np.array([0, max_states], dtype=np.int64)
        xs, ys = np.meshgrid(np.arange(width), np.arange(height))
        self._images = np.array([[b * width + a for a, b in zip(*f(xs.ravel(), ys.ravel()))]
                                 for f in _symmetries(width, height)], dtype=np.int32)

    @property
    def states(self) -> int:
        """Knowledge states memoised so far."""
        return int(self._stats[0])

    def layout_count(self, free: np.ndarray) -> int:
        return math.comb(self.width * self.height - int(np.count_nonzero(free)), self.mines)

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
        mine_rows, number_rows = _layouts(n, self.mines, cells, count, self._nbr)
        state = np.full(n, HIDDEN_STATE, dtype=np.int8)
        idx = np.arange(count, dtype=np.int32)
        wins = _search(idx, state, mine_rows, number_rows, self._nbr, self._images, self._memo, self._stats,
                       y * self.width + x)
        if wins < 0:
            raise SearchTooLargeError(
                f"the exact search of {self.width}x{self.height}/{self.mines} passed its cap of "
                f"{self.max_states:,} states ({count:,} layouts); this board is beyond it")
        return Optimum(self.width, self.height, self.mines, (x, y), int(wins), count, self.states,
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
        seen = view.cells.reshape(-1)
        opened = seen >= 0
        if not opened.any():
            raise SweeplabError("the view shows no open cell; give the first click (first_click) instead")
        cells = np.flatnonzero(~opened).astype(np.int32)
        count = math.comb(len(cells), self.mines)
        if count > self.max_layouts:
            raise SearchTooLargeError(f"the view leaves {count:,} layouts to filter; the exact search holds at "
                                      f"most {self.max_layouts:,}")
        mine_rows, number_rows = _layouts(self.width * self.height, self.mines, cells, count, self._nbr)
        agree = (number_rows[:, opened] == seen[opened]).all(axis=1)
        idx = np.flatnonzero(agree).astype(np.int32)
        if len(idx) == 0:
            raise InconsistentPositionError("no layout of the mine count agrees with the view's numbers")
        state = np.where(opened, OPEN_STATE, HIDDEN_STATE).astype(np.int8)
        out = {}
        for c in cells:
            if mine_rows[idx, c].all():
                continue
            wins = _search(idx, state, mine_rows, number_rows, self._nbr, self._images, self._memo, self._stats,
                           int(c))
            if wins < 0:
                raise SearchTooLargeError(f"the exact search passed its cap of {self.max_states:,} states")
            out[int(c) % self.width, int(c) // self.width] = Fraction(int(wins), len(idx))
        return out

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
