"""Board and game statistics: 3BV, openings, islands, ZiNi, and the click statistics of a game.

3BV counts one click per opening (a connected region of zeros with its border) plus one per
numbered safe cell that borders no zero.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ._numba_cache import njit
from .board import Board
from .kernels import count_numbers


@njit
def label_openings(mines, numbers, nbr):
    """Label each opening: zeros and their border get the opening's id (1..k); 0 elsewhere.

    A border cell touching two openings keeps the first id. Returns (labels, k).
    """
    n = mines.shape[0]
    labels = np.zeros(n, dtype=np.int32)
    seen = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int32)
    k = 0
    for s in range(n):
        if mines[s] or numbers[s] != 0 or seen[s]:
            continue
        k += 1
        seen[s] = True
        labels[s] = k
        head, tail = 0, 1
        queue[0] = s
        while head < tail:
            i = queue[head]
            head += 1
            for d in range(8):
                j = nbr[i, d]
                if j < 0 or mines[j]:
                    continue
                if labels[j] == 0:
                    labels[j] = k
                if numbers[j] == 0 and not seen[j]:
                    seen[j] = True
                    queue[tail] = j
                    tail += 1
    return labels, k


@njit
def openings_and_bbbv(mines, numbers, nbr):
    """(openings, 3BV): 3BV is the openings plus the numbered safe cells that border no zero."""
    n = mines.shape[0]
    labels, k = label_openings(mines, numbers, nbr)
    count = k
    for i in range(n):
        if not mines[i] and labels[i] == 0:
            count += 1
    return k, count


@njit
def bbbv_kernel(mines, numbers, nbr):
    """3BV: openings plus numbered safe cells that border no zero."""
    return openings_and_bbbv(mines, numbers, nbr)[1]


@njit
def islands_kernel(mines, numbers, nbr):
    """Islands: 8-connected groups of numbered safe cells outside every opening."""
    labels, _ = label_openings(mines, numbers, nbr)
    return count_components(~mines & (labels == 0), nbr)


@njit
def count_components(member, nbr):
    """Number of 8-connected groups of the cells where `member` is True."""
    n = member.shape[0]
    seen = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int32)
    count = 0
    for s in range(n):
        if not member[s] or seen[s]:
            continue
        count += 1
        seen[s] = True
        head, tail = 0, 1
        queue[0] = s
        while head < tail:
            i = queue[head]
            head += 1
            for d in range(8):
                j = nbr[i, d]
                if j >= 0 and member[j] and not seen[j]:
                    seen[j] = True
                    queue[tail] = j
                    tail += 1
    return count


@njit
def solved_bbbv_kernel(mines, numbers, nbr, opened):
    """3BV already done in a position: openings whose zeros are all open, plus open lone numbers."""
    n = mines.shape[0]
    labels, k = label_openings(mines, numbers, nbr)
    whole = np.ones(k + 1, dtype=np.bool_)
    for i in range(n):
        if labels[i] > 0 and numbers[i] == 0 and not opened[i]:
            whole[labels[i]] = False
    count = 0
    for o in range(1, k + 1):
        if whole[o]:
            count += 1
    for i in range(n):
        if not mines[i] and labels[i] == 0 and opened[i]:
            count += 1
    return count


@njit
def _zini_premium(i, mines, numbers, labels, nbr, opened, flagged, seen):
    """(3BV units a chord at i would complete, clicks it costs: open i if closed, flags, chord)."""
    gain = 0
    cost = 1
    if not opened[i]:
        cost += 1
        if labels[i] == 0:
            gain += 1  # a lone number opened by the click itself
    m = 0
    for d in range(8):
        j = nbr[i, d]
        if j < 0 or opened[j]:
            continue
        if mines[j]:
            if not flagged[j]:
                cost += 1
        elif labels[j] == 0:
            gain += 1
        elif numbers[j] == 0:
            new = True
            for q in range(m):
                if seen[q] == labels[j]:
                    new = False
            if new:
                seen[m] = labels[j]
                m += 1
                gain += 1
    return gain, cost


# The kernels that can run for long (a large board, or thousands of boards in one call) let go of
# Python's lock while they run, so that one Ctrl-C still stops the command at once (cli/stop.py).
# The tiny kernels keep it: letting go and taking it back costs about 0.4 µs a call.
@njit(nogil=True)
def zini_kernel(mines, numbers, nbr):
    """Greedy ZiNi (Zimmermann and Nikolaus): while some number's chord completes at least as much
    3BV as it costs in clicks, take the best (first in row-major order on ties); otherwise left-click
    the first 3BV unit still closed. Counts every click: left, flag and chord.

    Near-linear: a chord's premium changes only where a cell around it opens or is flagged, so the
    premiums live in a heap, each refreshed when its 3x3 changes (O(n log n) in all, where scanning
    every number before every move took O(n^2): minutes on 400x400).
    """
    n = mines.shape[0]
    labels, k = label_openings(mines, numbers, nbr)
    opened = np.zeros(n, dtype=np.bool_)
    flagged = np.zeros(n, dtype=np.bool_)
    queue = np.empty(n, dtype=np.int32)
    changed = np.empty(n, dtype=np.int32)  # the cells the last move opened or flagged
    seen = np.empty(8, dtype=np.int32)
    stamp = np.full(n, -1, dtype=np.int64)  # the move that last refreshed a cell's premium
    heap = np.empty(2 * n + 16, dtype=np.int64)  # keys (8 - premium) * n + cell: best premium, then first cell
    size = np.int64(0)  # (a literal 0 would compile _zini_push and _heap_pop once more, for it)
    for i in range(n):
        size, heap = _zini_push(i, mines, numbers, labels, nbr, opened, flagged, seen, heap, size)
    clicks = 0
    first = 0  # cells before it can never again take a plain click (closed only ever turns open)
    move = 0
    while True:
        best = -1
        while size > 0:
            key = heap[0]
            size = _heap_pop(heap, size)
            i = key % n
            gain, cost = _zini_premium(i, mines, numbers, labels, nbr, opened, flagged, seen)
            if gain > 0 and gain - cost == 8 - key // n:
                best = i
                break
            # else stale: the cell's 3x3 changed since, and its current premium was pushed then
        m = 0
        if best >= 0:
            i = best
            if not opened[i]:
                clicks += 1
                opened[i] = True
                changed[m] = i
                m += 1
            for d in range(8):
                j = nbr[i, d]
                if j >= 0 and mines[j] and not flagged[j]:
                    flagged[j] = True
                    clicks += 1
                    changed[m] = j
                    m += 1
            clicks += 1
            for d in range(8):
                j = nbr[i, d]
                if j >= 0 and not mines[j] and not opened[j]:
                    m = _zini_open(j, mines, numbers, nbr, opened, queue, changed, m)
        else:
            while first < n and (mines[first] or opened[first] or (numbers[first] != 0 and labels[first] != 0)):
                first += 1
            if first == n:
                break
            clicks += 1
            m = _zini_open(first, mines, numbers, nbr, opened, queue, changed, 0)
        move += 1
        for q in range(m):
            c = changed[q]
            for d in range(9):
                j = c if d == 8 else nbr[c, d]
                if j >= 0 and stamp[j] != move:
                    stamp[j] = move
                    size, heap = _zini_push(j, mines, numbers, labels, nbr, opened, flagged, seen, heap, size)
    return clicks


@njit
def _zini_push(i, mines, numbers, labels, nbr, opened, flagged, seen, heap, size):
    """Push cell i's chord premium if it is a candidate (a number whose chord gains and costs no more)."""
    if mines[i] or numbers[i] == 0:
        return size, heap
    gain, cost = _zini_premium(i, mines, numbers, labels, nbr, opened, flagged, seen)
    if gain <= 0 or gain - cost < 0:
        return size, heap
    if size == heap.shape[0]:
        bigger = np.empty(2 * size, dtype=np.int64)
        bigger[:size] = heap
        heap = bigger
    n = mines.shape[0]
    key = (8 - (gain - cost)) * n + i
    at = size
    while at > 0:  # sift up
        up = (at - 1) // 2
        if heap[up] <= key:
            break
        heap[at] = heap[up]
        at = up
    heap[at] = key
    return size + 1, heap


@njit
def _heap_pop(heap, size):
    """Remove the smallest key (heap[0]); the new size."""
    size -= 1
    last = heap[size]
    at = 0
    while True:
        child = 2 * at + 1
        if child >= size:
            break
        if child + 1 < size and heap[child + 1] < heap[child]:
            child += 1
        if heap[child] >= last:
            break
        heap[at] = heap[child]
        at = child
    heap[at] = last
    return size


@njit
def _zini_open(s, mines, numbers, nbr, opened, queue, changed, m):
    """Open s (with its cascade); every cell opened is appended to `changed` from m on. The new m."""
    opened[s] = True
    changed[m] = s
    m += 1
    if numbers[s] != 0:
        return m
    head, tail = 0, 1
    queue[0] = s
    while head < tail:
        i = queue[head]
        head += 1
        for d in range(8):
            j = nbr[i, d]
            if j >= 0 and not mines[j] and not opened[j]:
                opened[j] = True
                changed[m] = j
                m += 1
                if numbers[j] == 0:
                    queue[tail] = j
                    tail += 1
    return m


@njit(nogil=True)
def figures_kernel(mines, nbr, zini):
    """3BV, openings, islands and (if `zini`) ZiNi of many boards of one size: row b of `mines` is
    board b's flat layout; one call for them all (a file of thousands of small boards)."""
    count = mines.shape[0]
    out = np.zeros((count, 4), dtype=np.int64)
    for b in range(count):
        m = mines[b]
        numbers = count_numbers(m, nbr)
        openings, total = openings_and_bbbv(m, numbers, nbr)
        out[b, 0] = total
        out[b, 1] = openings
        out[b, 2] = islands_kernel(m, numbers, nbr)
        if zini:
            out[b, 3] = zini_kernel(m, numbers, nbr)
    return out


def bbbv(board: Board) -> int:
    """Bechtel's Board Benchmark Value: fewest left clicks to open the board without flags."""
    return int(bbbv_kernel(board.flat_mines, board.flat_numbers, board.neighbours))


def openings(board: Board) -> int:
    return int(label_openings(board.flat_mines, board.flat_numbers, board.neighbours)[1])


def islands(board: Board) -> int:
    return int(islands_kernel(board.flat_mines, board.flat_numbers, board.neighbours))


def zini(board: Board) -> int:
    return int(zini_kernel(board.flat_mines, board.flat_numbers, board.neighbours))


@dataclass(frozen=True)
class BoardStats:
    width: int
    height: int
    mines: int
    topology: str
    bbbv: int
    openings: int
    islands: int
    zini: int
    density: float

    def as_dict(self) -> dict:
        return {name: getattr(self, name) for name in BOARD_FIGURES}


BOARD_FIGURES = ("width", "height", "mines", "topology", "bbbv", "openings", "islands", "zini", "density")


def board_stats(board: Board) -> BoardStats:
    return next(iter(stats_of_layouts([(board.width, board.height, board.flat_mines, board.topology)])))


BATCH = 4096  # layouts measured together: kernel calls per size, not per board; memory bounded


def stats_of_layouts(layouts, *, with_zini: bool = True):
    """BoardStats of each layout (width, height, flat mines, topology), in order, as they come: a file
    of thousands of tiny boards is measured in batches, each size of a batch in one kernel call, and
    never held whole. Without `with_zini` ZiNi is not computed (0), for who does not show it."""
    return (BoardStats(*row) for row in figure_rows(layouts, with_zini=with_zini))


def figure_rows(layouts, *, with_zini: bool = True):
    """What `stats_of_layouts` gives, as plain tuples in BOARD_FIGURES order (a row to print, thousands
    a second)."""
    from itertools import islice

    from . import grid
    layouts = iter(layouts)
    while True:
        batch = list(islice(layouts, BATCH))
        if not batch:
            return
        sizes: dict[tuple, list[int]] = {}
        for i, (w, h, _, topo) in enumerate(batch):
            sizes.setdefault((w, h, topo), []).append(i)
        figures: list[tuple] = [()] * len(batch)
        for (w, h, topo), members in sizes.items():
            stack = np.stack([batch[i][2] for i in members])
            counts = np.count_nonzero(stack, axis=1).tolist()
            found = figures_kernel(stack, grid.neighbour_table(w, h, topo), with_zini).tolist()
            for i, mines, (b3v, opens, isles, zn) in zip(members, counts, found):
                figures[i] = (w, h, mines, topo, b3v, opens, isles, zn, mines / (w * h))
        yield from figures


@dataclass(frozen=True)
class GameStats:
    """Click statistics of a game, as minesweepergame.com defines them and ms-toollib counts them.
    Effective clicks: a left click or a chord that opened a cell, a right click that flagged a mine
    for the first time; wasted clicks are the others. IOE = 3BV / clicks; correctness = effective /
    clicks; throughput = 3BV / effective clicks; 3BV/s = 3BV / time; RQP = time / (3BV/s) = time² /
    3BV (0 before any 3BV is solved). 3BV in each is the 3BV solved (all of it for a win)."""

    status: str
    time: float
    bbbv: int
    bbbv_solved: int
    clicks: int
    left_clicks: int
    right_clicks: int
    chords: int
    effective_clicks: int
    bbbv_per_second: float
    ioe: float
    correctness: float
    throughput: float
    wasted_clicks: int = 0
    rqp: float = 0.0

    def as_dict(self) -> dict:
        return asdict(self)


def game_stats(game) -> GameStats:
    """Statistics of a game from its board and action log (the game may be unfinished)."""
    board = game.board
    log = game.log
    clicks = len(log)
    left = sum(1 for a in log if a.kind == "open")
    right = sum(1 for a in log if a.kind == "flag")
    chords = sum(1 for a in log if a.kind == "chord")
    if board is None:
        total = solved = effective = 0
    else:
        effective = effective_clicks(log, board.flat_mines, board.width, lost=game.status == "lost")
        total = bbbv(board)
        opened = game.view().opened.reshape(-1)
        solved = int(solved_bbbv_kernel(board.flat_mines, board.flat_numbers, board.neighbours, opened))
    t = game.elapsed

    def ratio(a, b):
        return a / b if b else 0.0

    return GameStats(game.status, t, total, solved, clicks, left, right, chords, effective, ratio(solved, t),
                     ratio(solved, clicks), ratio(effective, clicks), ratio(solved, effective), clicks - effective,
                     rqp(t, solved))


def effective_clicks(log, mines, width: int, *, lost: bool = False) -> int:
    """Clicks that did something (ms-toollib's rule): a left click that opened a safe cell; a chord
    that opened a cell, a mine too (the chord that lost a game, its last click; a left click on a
    mine is not effective); and a right click that flagged a mine no flag had been on before
    (re-flagging, or flagging a safe cell, does not count). `mines` is the board's flat mine array."""
    flagged_once: set[int] = set()
    effective = 0
    for k, a in enumerate(log):
        if a.kind == "open":
            effective += a.opened > 0
        elif a.kind == "chord":
            effective += a.opened > 0 or (lost and k == len(log) - 1)
        elif a.kind == "flag" and a.flagged:
            i = a.y * width + a.x
            if mines[i] and i not in flagged_once:
                flagged_once.add(i)
                effective += 1
    return effective


def rqp(time: float, bbbv_solved: int) -> float:
    """RQP = time / (3BV/s) = time² / 3BV solved: seconds per 3BV per 3BV/s, lower is better (0 before
    any 3BV is solved, where it has no value)."""
    return time * time / bbbv_solved if bbbv_solved else 0.0
