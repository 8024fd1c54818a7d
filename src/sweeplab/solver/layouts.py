"""Every mine layout of a View's undecided cells, listed by the engine's walk (`deduction.next_layout`).

The end game's search needs the layouts themselves, not only their counts; the certifier walks
the same way to decide its components (generators/certify.py).
"""

from __future__ import annotations

import numpy as np

from .._numba_cache import njit
from ..view import FLAG, HIDDEN, View
from .deduction import next_layout, start_layouts


@njit
def _list_layouts(order, cell_cons, cell_ncons, need, nfree, limit):
    """Every layout of the cells (visited in `order`, safe before mine) that keeps every
    constraint satisfiable, as a bool (layouts, cells) array; stops after limit + 1 of them."""
    m = order.shape[0]
    # the walk takes its cells as positions 0..m-1: each position's constraints, in `order`
    pos_cons = np.empty_like(cell_cons)
    pos_ncons = np.empty_like(cell_ncons)
    for q in range(m):
        pos_cons[q] = cell_cons[order[q]]
        pos_ncons[q] = cell_ncons[order[q]]
    out = np.zeros((16, m), dtype=np.bool_)
    count = 0
    cur = np.zeros(m + 1, dtype=np.int64)
    nxt = np.zeros(m + 1, dtype=np.int64)
    assigned = np.zeros(m + 1, dtype=np.bool_)
    bits = np.zeros((m + 63) // 64 + 1, dtype=np.uint64)
    start_layouts(m, nxt, assigned, bits)
    pos, mines = next_layout(m, pos_cons, pos_ncons, need, nfree, cur, nxt, assigned, bits, 0, 0)
    while pos == m:
        if count == out.shape[0]:
            grown = np.zeros((2 * count, m), dtype=np.bool_)
            grown[:count] = out
            out = grown
        for q in range(m):
            out[count, order[q]] = cur[q] == 1
        count += 1
        if count > limit:
            break
        pos, mines = next_layout(m, pos_cons, pos_ncons, need, nfree, cur, nxt, assigned, bits, pos - 1, mines)
    return out[:count]


def enumerate_layouts(view: View, mines: np.ndarray, undecided: np.ndarray, limit: int) -> np.ndarray | None:
    """Every assignment of mines to the undecided cells consistent with the view and the mine
    total, as a bool (layouts, cells) array in the order of np.flatnonzero(undecided); None
    when there are more than `limit`. Known mines (`mines`) are taken as mines.

    The mine total is one more constraint, over every undecided cell."""
    cells = view.cells.reshape(-1)
    nbr = view.neighbours
    var = np.flatnonzero(undecided.reshape(-1))
    nv = len(var)
    known = mines.reshape(-1) | (cells == FLAG)  # flags count as mines in the numbers
    index = np.full(len(cells), -1, dtype=np.int64)
    index[var] = np.arange(nv)
    total = view.mines_left - int(np.count_nonzero(known & (cells == HIDDEN)))
    if total < 0 or total > nv:
        return np.zeros((0, nv), dtype=np.bool_)
    cell_cons = np.full((nv, 9), -1, dtype=np.int64)
    cell_ncons = np.zeros(nv, dtype=np.int64)
    need: list[int] = []
    nfree: list[int] = []
    numbers = np.flatnonzero(cells >= 0)
    around = nbr[numbers]
    touching = (np.where(around >= 0, index[around], -1) >= 0).any(axis=1)
    for i in numbers[touching]:  # only the numbers next to an undecided cell constrain the layouts
        ns = nbr[i][nbr[i] >= 0]
        vs = index[ns][index[ns] >= 0]
        cell_cons[vs, cell_ncons[vs]] = len(need)
        cell_ncons[vs] += 1
        need.append(int(cells[i]) - int(np.count_nonzero(known[ns])))
        nfree.append(len(vs))
    # frontier cells first (constrained), off-frontier last (only the total binds them)
    order = sorted(range(nv), key=lambda v: (not cell_ncons[v], -int(cell_ncons[v])))
    cell_cons[np.arange(nv), cell_ncons] = len(need)  # the mine total
    cell_ncons += 1
    need.append(total)
    nfree.append(nv)
    L = _list_layouts(np.array(order, dtype=np.int64), cell_cons, cell_ncons, np.array(need, dtype=np.int64),
                      np.array(nfree, dtype=np.int64), limit)
    return None if len(L) > limit else L
