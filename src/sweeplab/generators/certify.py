"""The no-guess generator's own certifier: does logic alone, with the mine total, open a board from a click?

One numba kernel plays a board the way a player who never guesses would: open the click,
then repeatedly apply the single-number rule (cheap, settles most cells), and when that
stalls, complete deduction: split the frontier into connected components, enumerate each
component's consistent assignments by backtracking, record which mine counts k each
component can take and, per k, which cells can be a mine and which can be safe, then
combine the components with the cells off the frontier under the global mine count. A
cell is decided iff no consistent layout gives it the other value (existence, not a float).
Deductions that need the mine total are tried only when those without it find nothing, so
the kernel also says whether a board needs the mine total.

The kernel sees the mines only to answer "what number does this opened cell show?", i.e.
exactly what a player would see; it never reads a hidden mine to make a decision.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .. import grid
from ..kernels import count_numbers

# Outcome codes of `certify_kernel`.
SOLVED = 0
STUCK = 1  # complete deduction decides nothing: a guess is needed
BUDGET = 2  # a component had more assignments than the budget allows (treated as not certified)
BOOM = 3  # the click itself is a mine (only when a caller passes a bad click)

DEFAULT_LEAF_BUDGET = 200_000

_U, _OPEN, _MINE = np.int8(0), np.int8(1), np.int8(2)


@nb.njit(cache=True)
def _open_safe(st, numbers, nbr, start, work, inwork, wtop, fstack):
    """Open the known-safe hidden cell `start` with its cascade; push opened numbers on `work`.

    Returns (cells opened, new work top).
    """
    opened = 0
    if st[start] != _U:
        return 0, wtop
    st[start] = _OPEN
    opened += 1
    top = 0
    fstack[top] = start
    top += 1
    while top > 0:
        top -= 1
        i = fstack[top]
        if numbers[i] != 0:
            if not inwork[i]:
                inwork[i] = True
                work[wtop] = i
                wtop += 1
            continue
        for k in range(8):
            j = nbr[i, k]
            if j >= 0 and st[j] == _U:
                st[j] = _OPEN
                opened += 1
                fstack[top] = j
                top += 1
    return opened, wtop


@nb.njit(cache=True)
def _push_open_neighbours(st, nbr, i, work, inwork, wtop):
    for k in range(8):
        j = nbr[i, k]
        if j >= 0 and st[j] == _OPEN and not inwork[j]:
            inwork[j] = True
            work[wtop] = j
            wtop += 1
    return wtop


@nb.njit(cache=True)
def _enumerate(order, m, cell_cons, cell_ncons, need, nfree, kset, can_mine, can_safe, budget):
    """Backtrack over the m cells of one component (in `order`, positions 0..m-1).

    cell_cons[p, :cell_ncons[p]] are the constraint ids of cell p; `need` is each constraint's
    remaining mines and `nfree` its unassigned cells (both updated in place and restored).
    Writes kset[k] (the component can hold k mines) and can_mine/can_safe[k, p].
    Returns the number of consistent assignments found, or -1 when over `budget`.
    """
    cur = np.zeros(m, dtype=np.int8)
    nxt = np.zeros(m + 1, dtype=np.int8)
    assigned = np.zeros(m + 1, dtype=np.bool_)
    placed = 0
    leaves = 0
    pos = 0
    while pos >= 0:
        if pos == m:
            leaves += 1
            if leaves > budget:
                return -1
            kset[placed] = True
            for p in range(m):
                if cur[p] == 1:
                    can_mine[placed, p] = True
                else:
                    can_safe[placed, p] = True
            pos -= 1
            continue
        if assigned[pos]:
            v = cur[pos]
            for t in range(cell_ncons[pos]):
                c = cell_cons[pos, t]
                nfree[c] += 1
                need[c] += v
            placed -= v
            assigned[pos] = False
        v = nxt[pos]
        if v > 1:
            pos -= 1
            continue
        nxt[pos] = v + 1
        ok = True
        for t in range(cell_ncons[pos]):
            c = cell_cons[pos, t]
            if need[c] - v < 0 or need[c] - v > nfree[c] - 1:
                ok = False
                break
        if not ok:
            continue
        for t in range(cell_ncons[pos]):
            c = cell_cons[pos, t]
            nfree[c] -= 1
            need[c] -= v
        cur[pos] = v
        placed += v
        assigned[pos] = True
        pos += 1
        if pos < m:
            nxt[pos] = 0
            assigned[pos] = False
    return leaves


@nb.njit(cache=True)
def _find(parent, a):
    while parent[a] != a:
        parent[a] = parent[parent[a]]
        a = parent[a]
    return a


@nb.njit(cache=True)
def _complete_step(st, numbers, nbr, mines_left, safe_out, mine_out, budget):
    """One round of complete deduction on the position `st`.

    Fills safe_out / mine_out (flat bool) with decided cells; returns (how many decided, status,
    whether the mine total was used) where status is SOLVED (fine) or BUDGET. The total is used
    only when the constraints alone decide nothing.
    """
    n = st.shape[0]
    fidx = np.full(n, -1, dtype=np.int32)
    front = np.empty(n, dtype=np.int32)
    nf = 0
    hidden = 0
    for i in range(n):
        if st[i] != _U:
            continue
        hidden += 1
        for k in range(8):
            j = nbr[i, k]
            if j >= 0 and st[j] == _OPEN:
                fidx[i] = nf
                front[nf] = i
                nf += 1
                break
    off = hidden - nf
    # constraints: open numbers touching the frontier
    cidx = np.full(n, -1, dtype=np.int32)
    con_cell = np.empty(n, dtype=np.int32)
    nc = 0
    for f in range(nf):
        i = front[f]
        for k in range(8):
            j = nbr[i, k]
            if j >= 0 and st[j] == _OPEN and cidx[j] < 0:
                cidx[j] = nc
                con_cell[nc] = j
                nc += 1
    need0 = np.empty(nc, dtype=np.int32)
    nfree0 = np.zeros(nc, dtype=np.int32)
    parent = np.arange(nf).astype(np.int32)
    for c in range(nc):
        j = con_cell[c]
        known = 0
        first = -1
        for k in range(8):
            q = nbr[j, k]
            if q < 0:
                continue
            if st[q] == _MINE:
                known += 1
            elif st[q] == _U:
                nfree0[c] += 1
                if first < 0:
                    first = fidx[q]
                else:
                    a = _find(parent, first)
                    b = _find(parent, fidx[q])
                    if a != b:
                        parent[b] = a
        need0[c] = numbers[j] - known
    # group frontier cells by component
    comp = np.empty(nf, dtype=np.int32)
    root_comp = np.full(nf, -1, dtype=np.int32)
    ncomp = 0
    for f in range(nf):
        r = _find(parent, f)
        if root_comp[r] < 0:
            root_comp[r] = ncomp
            ncomp += 1
        comp[f] = root_comp[r]
    size = np.zeros(ncomp + 1, dtype=np.int32)
    for f in range(nf):
        size[comp[f] + 1] += 1
    start = np.cumsum(size)
    members = np.empty(nf, dtype=np.int32)
    fill = start[:ncomp].copy()
    for f in range(nf):
        members[fill[comp[f]]] = f
        fill[comp[f]] += 1
    maxm = 0
    for c in range(ncomp):
        if size[c + 1] > maxm:
            maxm = size[c + 1]
    # per component: ksets and per-k witnesses, stored in flat slabs
    kslab = np.zeros((ncomp, maxm + 1), dtype=np.bool_)
    mine_slab = np.zeros((nf, maxm + 1), dtype=np.bool_)  # [frontier cell, k]
    safe_slab = np.zeros((nf, maxm + 1), dtype=np.bool_)
    seen = np.zeros(n, dtype=np.bool_)
    order = np.empty(maxm, dtype=np.int32)
    pos_of = np.full(nf, -1, dtype=np.int32)
    cell_cons = np.empty((maxm, 8), dtype=np.int32)
    cell_ncons = np.zeros(maxm, dtype=np.int32)
    for c in range(ncomp):
        m = size[c + 1]
        # breadth-first order through shared constraints, so constraints close early
        head = 0
        tail = 0
        f0 = members[start[c]]
        order[tail] = f0
        pos_of[f0] = 0
        tail += 1
        while head < tail:
            f = order[head]
            head += 1
            i = front[f]
            for k in range(8):
                j = nbr[i, k]
                if j < 0 or st[j] != _OPEN:
                    continue
                for k2 in range(8):
                    q = nbr[j, k2]
                    if q >= 0 and st[q] == _U and pos_of[fidx[q]] < 0:
                        pos_of[fidx[q]] = tail
                        order[tail] = fidx[q]
                        tail += 1
        for p in range(m):
            i = front[order[p]]
            cnt = 0
            for k in range(8):
                j = nbr[i, k]
                if j >= 0 and st[j] == _OPEN:
                    cell_cons[p, cnt] = cidx[j]
                    cnt += 1
            cell_ncons[p] = cnt
        need = need0.copy()
        nfree = nfree0.copy()
        km = np.zeros((m + 1, m), dtype=np.bool_)
        ks = np.zeros((m + 1, m), dtype=np.bool_)
        kk = np.zeros(m + 1, dtype=np.bool_)
        got = _enumerate(order, m, cell_cons, cell_ncons, need, nfree, kk, km, ks, budget)
        if got < 0:
            return 0, BUDGET, False
        for kq in range(m + 1):
            kslab[c, kq] = kk[kq]
            for p in range(m):
                mine_slab[order[p], kq] = km[kq, p]
                safe_slab[order[p], kq] = ks[kq, p]
    decided = _decide(st, fidx, front, nf, comp, ncomp, maxm, kslab, mine_slab, safe_slab, off, mines_left,
                      False, safe_out, mine_out)
    if decided > 0:
        return decided, SOLVED, False
    decided = _decide(st, fidx, front, nf, comp, ncomp, maxm, kslab, mine_slab, safe_slab, off, mines_left,
                      True, safe_out, mine_out)
    return decided, SOLVED, True


@nb.njit(cache=True)
def _sums_without(kslab, ncomp, maxm, nf, skip):
    """Which frontier totals the components other than `skip` can reach together."""
    sums = np.zeros(nf + 1, dtype=np.bool_)
    sums[0] = True
    for d in range(ncomp):
        if d == skip:
            continue
        nxt = np.zeros(nf + 1, dtype=np.bool_)
        for s in range(nf + 1):
            if sums[s]:
                for kq in range(maxm + 1):
                    if kslab[d, kq] and s + kq <= nf:
                        nxt[s + kq] = True
        sums = nxt
    return sums


@nb.njit(cache=True)
def _decide(st, fidx, front, nf, comp, ncomp, maxm, kslab, mine_slab, safe_slab, off, mines_left, use_total,
            safe_out, mine_out):
    """Mark the cells no consistent layout leaves undecided; with or without the mine total."""
    feas = np.zeros((ncomp, maxm + 1), dtype=np.bool_)
    if use_total:
        for c in range(ncomp):
            sums = _sums_without(kslab, ncomp, maxm, nf, c)
            for kq in range(maxm + 1):
                if not kslab[c, kq]:
                    continue
                for s in range(nf + 1 - kq):
                    if sums[s] and mines_left - off <= s + kq <= mines_left:
                        feas[c, kq] = True
                        break
    else:
        for c in range(ncomp):
            for kq in range(maxm + 1):
                feas[c, kq] = kslab[c, kq]
    decided = 0
    for f in range(nf):
        c = comp[f]
        cm = False
        cs = False
        for kq in range(maxm + 1):
            if feas[c, kq]:
                cm = cm or mine_slab[f, kq]
                cs = cs or safe_slab[f, kq]
        if cm and not cs:
            mine_out[front[f]] = True
            decided += 1
        elif cs and not cm:
            safe_out[front[f]] = True
            decided += 1
    if use_total and off > 0:
        sums = _sums_without(kslab, ncomp, maxm, nf, -1)
        cm = False
        cs = False
        for s in range(nf + 1):
            if sums[s] and mines_left - off <= s <= mines_left:
                left = mines_left - s
                if left >= 1:
                    cm = True
                if left <= off - 1:
                    cs = True
        if cm != cs:
            for i in range(st.shape[0]):
                if st[i] == _U and fidx[i] < 0:
                    if cm:
                        mine_out[i] = True
                    else:
                        safe_out[i] = True
                    decided += 1
    return decided


@nb.njit(cache=True)
def certify_kernel(mines, nbr, click, budget):
    """Play `mines` from `click` without guessing. Returns (status, needed_total, cells opened).

    status is SOLVED when every safe cell opened, STUCK when a guess would be needed,
    BUDGET when a component was too large to enumerate within `budget` assignments.
    """
    st = np.zeros(mines.shape[0], dtype=np.int8)
    return certify_into(mines, nbr, click, budget, st)


@nb.njit(cache=True)
def certify_into(mines, nbr, click, budget, st):
    """`certify_kernel` that leaves the final position in `st` (0 hidden, 1 open, 2 known mine),
    which the repair step reads to see where a player got stuck. `st` must start all zero."""
    n = mines.shape[0]
    numbers = count_numbers(mines, nbr)
    total = 0
    for i in range(n):
        if mines[i]:
            total += 1
    if mines[click]:
        return BOOM, False, 0
    work = np.empty(n, dtype=np.int32)
    inwork = np.zeros(n, dtype=np.bool_)
    fstack = np.empty(n, dtype=np.int32)
    safe_out = np.zeros(n, dtype=np.bool_)
    mine_out = np.zeros(n, dtype=np.bool_)
    goal = n - total
    opened, wtop = _open_safe(st, numbers, nbr, click, work, inwork, 0, fstack)
    flagged = 0
    needed_total = False
    while True:
        # single-number rule until it stalls
        while wtop > 0:
            wtop -= 1
            i = work[wtop]
            inwork[i] = False
            h = 0
            f = 0
            for k in range(8):
                j = nbr[i, k]
                if j >= 0:
                    if st[j] == _U:
                        h += 1
                    elif st[j] == _MINE:
                        f += 1
            if h == 0:
                continue
            rest = numbers[i] - f
            if rest == 0:
                for k in range(8):
                    j = nbr[i, k]
                    if j >= 0 and st[j] == _U:
                        o, wtop = _open_safe(st, numbers, nbr, j, work, inwork, wtop, fstack)
                        opened += o
            elif rest == h:
                for k in range(8):
                    j = nbr[i, k]
                    if j >= 0 and st[j] == _U:
                        st[j] = _MINE
                        flagged += 1
                        wtop = _push_open_neighbours(st, nbr, j, work, inwork, wtop)
        if opened == goal:
            return SOLVED, needed_total, opened
        safe_out[:] = False
        mine_out[:] = False
        got, status, used_total = _complete_step(st, numbers, nbr, total - flagged, safe_out, mine_out, budget)
        if status != SOLVED:
            return status, needed_total, opened
        if got == 0:
            return STUCK, needed_total, opened
        needed_total = needed_total or used_total
        for i in range(n):
            if mine_out[i] and st[i] == _U:
                st[i] = _MINE
                flagged += 1
                wtop = _push_open_neighbours(st, nbr, i, work, inwork, wtop)
        for i in range(n):
            if safe_out[i] and st[i] == _U:
                o, wtop = _open_safe(st, numbers, nbr, i, work, inwork, wtop, fstack)
                opened += o


def certify(board, x: int, y: int, *, budget: int = DEFAULT_LEAF_BUDGET) -> tuple[bool, bool]:
    """(certified, needs the mine total) for `board` played from the first click (x, y)."""
    nbr = grid.neighbour_table(board.width, board.height, board.topology)
    status, needed, _ = certify_kernel(board.flat_mines, nbr, y * board.width + x, budget)
    return status == SOLVED, bool(needed)
