"""Every mine layout of a View's undecided cells, listed by the engine's walk (`deduction.next_layout`)
over the engine's constraints (solver.frontier).

The end game's search needs the layouts themselves, not only their counts.
"""

from __future__ import annotations

import numpy as np

from .._numba_cache import njit
from ..kernels import HIDDEN_STATE
from ..view import FLAG, View
from .deduction import next_layout, start_layouts
from .frontier import build, view_position
from .state import HID, HMASK, KNO, ST, new_play


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
    cons, walk = (pos_cons, pos_ncons, need, nfree), (cur, nxt, assigned, bits)
    start_layouts(m, walk)
    pos, mines = next_layout(m, cons, walk, 0, 0)
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
        pos, mines = next_layout(m, cons, walk, pos - 1, mines)
    return out[:count]


@njit
def _constraints(cells, nbr, told, mine_count):
    """The walk's constraints over the undecided cells (told -1; in cell order): each cell's numbers
    and, last, the mine total over them all. Returns (ok, the walk's order: frontier cells first,
    most numbers first, off-frontier cells last; cell_cons, cell_ncons, need, nfree)."""
    n = cells.shape[0]
    pi, pb, _ = new_play(n)
    status, _, known = view_position(cells, nbr, np.bool_(True), pi, pb, told)
    st = pb[ST]
    fidx, front, nf, off, con_cell, nc, need0, nfree0, con_start, con_front, fcons, fdeg, parent = \
        build(st, cells, nbr, pi[HID], pi[KNO], pi[HMASK])
    var = np.empty(nf + off, dtype=np.int64)
    nv = 0
    for i in range(n):
        if st[i] == HIDDEN_STATE:
            var[nv] = i
            nv += 1
    total = mine_count - known
    cell_cons = np.full((nv, 9), -1, dtype=np.int64)
    cell_ncons = np.zeros(nv, dtype=np.int64)
    for v in range(nv):
        f = fidx[var[v]]
        if f >= 0:
            for e in range(fdeg[f]):
                cell_cons[v, e] = fcons[f, e]
            cell_ncons[v] = fdeg[f]
    # frontier cells first (constrained), the most constrained first; off-frontier last (only the
    # total binds them); a stable order, so ties stay in cell order
    order = np.argsort(-cell_ncons, kind="mergesort")
    need = np.empty(nc + 1, dtype=np.int64)
    nfree = np.empty(nc + 1, dtype=np.int64)
    need[:nc] = need0
    nfree[:nc] = nfree0
    need[nc] = total
    nfree[nc] = nv
    for v in range(nv):
        cell_cons[v, cell_ncons[v]] = nc
        cell_ncons[v] += 1
    ok = status == 0 and 0 <= total <= nv
    return ok, order, cell_cons, cell_ncons, need, nfree


def enumerate_layouts(view: View, mines: np.ndarray, undecided: np.ndarray, limit: int) -> np.ndarray | None:
    """Every assignment of mines to the undecided cells consistent with the view and the mine
    total, as a bool (layouts, cells) array in the order of np.flatnonzero(undecided); None
    when there are more than `limit`. Known mines (`mines`) and the view's flags are taken as
    mines; hidden cells neither undecided nor known mines as safe.

    The mine total is one more constraint, over every undecided cell."""
    cells = view.flat
    told = np.where(mines.reshape(-1) | (cells == FLAG), 1, np.where(undecided.reshape(-1), -1, 0)).astype(np.int8)
    ok, order, cell_cons, cell_ncons, need, nfree = _constraints(cells, view.neighbours, told, view.mine_count)
    if not ok:
        return np.zeros((0, len(order)), dtype=np.bool_)
    L = _list_layouts(order, cell_cons, cell_ncons, need, nfree, limit)
    return None if len(L) > limit else L
