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
SMALL_COMPONENT = 12  # frontier cells: components this small are always enumerated together

_U, _OPEN, _MINE = np.int8(0), np.int8(1), np.int8(2)


@nb.njit(cache=True)
def _open_safe(st, numbers, nbr, start, work, inwork, wtop, fstack, tm, clk):
    """Open the known-safe hidden cell `start` with its cascade; push opened numbers on `work`.

    Stamps each opened cell with the clock `clk[0]` in `tm`. Returns (cells opened, new work top).
    """
    opened = 0
    if st[start] != _U:
        return 0, wtop
    st[start] = _OPEN
    tm[start] = clk[0]
    clk[0] += 1
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
                tm[j] = clk[0]
                clk[0] += 1
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
def _enumerate(m, cell_cons, cell_ncons, need, nfree, kset, can_mine, can_safe, budget, cur, nxt, assigned):
    """Backtrack over the m cells of one component (in `order`, positions 0..m-1).

    cell_cons[p, :cell_ncons[p]] are the constraint ids of cell p; `need` is each constraint's
    remaining mines and `nfree` its unassigned cells (both updated in place and restored).
    Writes kset[k] (the component can hold k mines) and can_mine/can_safe[k, p].
    Returns the number of consistent assignments found, or -1 when over `budget` (then `need`
    and `nfree` are left changed). cur, nxt, assigned: scratch of length >= m + 1.
    """
    nxt[0] = 0
    assigned[0] = False
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
    order = np.empty(maxm, dtype=np.int32)
    pos_of = np.full(nf, -1, dtype=np.int32)
    cell_cons = np.empty((maxm, 8), dtype=np.int32)
    cell_ncons = np.zeros(maxm, dtype=np.int32)
    need = need0.copy()
    nfree = nfree0.copy()
    km = np.empty((maxm + 1, maxm), dtype=np.bool_)
    ks = np.empty((maxm + 1, maxm), dtype=np.bool_)
    kk = np.empty(maxm + 1, dtype=np.bool_)
    cur = np.empty(maxm + 1, dtype=np.int8)
    nxt = np.empty(maxm + 1, dtype=np.int8)
    assigned = np.empty(maxm + 1, dtype=np.bool_)
    # smallest components first: most stalls are broken by a small one, and then we stop
    by_size = np.argsort(size[1:], kind="mergesort")
    over_budget = False
    found = 0
    for ci in range(ncomp):
        c = by_size[ci]
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
        # scratch shared by all components (allocation dominates small enumerations)
        km[:m + 1, :m] = False
        ks[:m + 1, :m] = False
        kk[:m + 1] = False
        got = _enumerate(m, cell_cons, cell_ncons, need, nfree, kk, km, ks, budget, cur, nxt, assigned)
        if got < 0:  # a finished enumeration restores need/nfree itself; a cut-off one does not
            need[:] = need0
            nfree[:] = nfree0
            over_budget = True
            continue
        decided = 0
        for p in range(m):
            cm = False
            cs = False
            for kq in range(m + 1):
                cm = cm or km[kq, p]
                cs = cs or ks[kq, p]
            if cm != cs:
                decided += 1
                if cm:
                    mine_out[front[order[p]]] = True
                else:
                    safe_out[front[order[p]]] = True
        found += decided
        # take every small component's decisions in one round (fewer rounds), but stop before a
        # large one once something is decided
        if found > 0 and (ci + 1 == ncomp or size[by_size[ci + 1] + 1] > SMALL_COMPONENT):
            return found, SOLVED, False
        for kq in range(m + 1):
            kslab[c, kq] = kk[kq]
            for p in range(m):
                mine_slab[order[p], kq] = km[kq, p]
                safe_slab[order[p], kq] = ks[kq, p]
    if found > 0:
        return found, SOLVED, False
    if over_budget:
        return 0, BUDGET, False
    # the constraints alone decide nothing: bring in the mine total
    decided = _decide(st, fidx, front, nf, comp, ncomp, maxm, kslab, mine_slab, safe_slab, off, mines_left,
                      True, safe_out, mine_out)
    return decided, SOLVED, True


@nb.njit(cache=True)
def _shift_or(dst, src, sh):
    """dst |= src << sh, on bitsets held in uint64 words (bits past the end drop off)."""
    nw = dst.shape[0]
    q = sh // 64
    r = sh % 64
    for w in range(nw - q):
        v = src[w]
        if v == 0:
            continue
        dst[w + q] |= v << np.uint64(r)
        if r and w + q + 1 < nw:
            dst[w + q + 1] |= v >> np.uint64(64 - r)


@nb.njit(cache=True)
def _bit(bits, i):
    return (bits[i // 64] >> np.uint64(i % 64)) & np.uint64(1)


@nb.njit(cache=True)
def _others(kslab, ncomp, maxm, nf):
    """others[c]: the frontier totals the components other than c reach together (bitsets),
    from prefix and suffix sums, so the cost grows with ncomp, not ncomp squared."""
    nw = (nf + 1) // 64 + 2
    pre = np.zeros((ncomp + 1, nw), dtype=np.uint64)
    suf = np.zeros((ncomp + 1, nw), dtype=np.uint64)
    pre[0, 0] = 1
    suf[ncomp, 0] = 1
    for c in range(ncomp):
        for kq in range(maxm + 1):
            if kslab[c, kq]:
                _shift_or(pre[c + 1], pre[c], kq)
    for c in range(ncomp - 1, -1, -1):
        for kq in range(maxm + 1):
            if kslab[c, kq]:
                _shift_or(suf[c], suf[c + 1], kq)
    others = np.zeros((ncomp, nw), dtype=np.uint64)
    for c in range(ncomp):
        for s1 in range(nf + 1):
            if _bit(pre[c], s1):
                _shift_or(others[c], suf[c + 1], s1)
    return others, pre[ncomp]


@nb.njit(cache=True)
def _decide(st, fidx, front, nf, comp, ncomp, maxm, kslab, mine_slab, safe_slab, off, mines_left, use_total,
            safe_out, mine_out):
    """Mark the cells no consistent layout leaves undecided; with or without the mine total."""
    feas = np.zeros((ncomp, maxm + 1), dtype=np.bool_)
    lo = mines_left - off  # the frontier must hold between lo and mines_left mines
    others, everything = _others(kslab, ncomp, maxm, nf)
    if use_total:
        for c in range(ncomp):
            for kq in range(maxm + 1):
                if not kslab[c, kq]:
                    continue
                for s in range(max(0, lo - kq), min(nf, mines_left - kq) + 1):
                    if _bit(others[c], s):
                        feas[c, kq] = True
                        break
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
        cm = False
        cs = False
        for s in range(max(0, lo), min(nf, mines_left) + 1):
            if _bit(everything, s):
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
    n = mines.shape[0]
    st = np.zeros(n, dtype=np.int8)
    tm = np.empty(n, dtype=np.int32)
    return certify_into(mines, nbr, click, budget, st, tm, -1)



# neighbour slots of grid.neighbour_table: dy in (-1, 0, 1), dx in (-1, 0, 1), centre skipped
_DX = np.array([-1, 0, 1, -1, 1, -1, 0, 1], dtype=np.int64)
_DY = np.array([-1, -1, -1, 0, 0, 1, 1, 1], dtype=np.int64)


@nb.njit(cache=True)
def _pairs_safe(nbr):
    """The pair rule maps cells to offsets within +-3; that needs no wrap-around aliasing (a
    torus narrower than 5 would alias). Bounded grids are always fine."""
    if nbr[0, 0] < 0:
        return True
    seen = np.zeros(nbr.shape[0], dtype=np.bool_)
    count = 0
    for k1 in range(8):
        a = nbr[0, k1]
        for k2 in range(8):
            b = nbr[a, k2]
            if not seen[b]:
                seen[b] = True
                count += 1
    return count == 25


@nb.njit(cache=True)
def _frame(st, nbr, c, ox, oy):
    """Bits of c's hidden undecided neighbours in a 7x7 frame whose centre is c - (ox, oy)."""
    f = np.int64(0)
    for k in range(8):
        j = nbr[c, k]
        if j >= 0 and st[j] == _U:
            f |= np.int64(1) << ((oy + _DY[k] + 3) * 7 + ox + _DX[k] + 3)
    return f


@nb.njit(cache=True)
def _rest(st, numbers, nbr, c):
    r = numbers[c]
    for k in range(8):
        j = nbr[c, k]
        if j >= 0 and st[j] == _MINE:
            r -= 1
    return r


@nb.njit(cache=True)
def _popcount(x):
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@nb.njit(cache=True)
def _pair_pass(st, numbers, nbr, dirty, stamp, safe_out, mine_out):
    """The subset rule on pairs of numbers within distance 2, for numbers whose surroundings
    changed since the last pass: if B's mines outside A must fill B\\A, those are mines and A\\B
    is safe. Cheap, and it settles most of what would otherwise need a round of enumeration."""
    n = st.shape[0]
    decided = 0
    for a in range(n):
        if not dirty[a]:
            continue
        dirty[a] = False
        if st[a] != _OPEN or numbers[a] == 0:
            continue
        fa = _frame(st, nbr, a, 0, 0)
        if fa == 0:
            continue
        ra = _rest(st, numbers, nbr, a)
        stamp[a] = a + 1
        for k1 in range(8):
            j = nbr[a, k1]
            if j < 0:
                continue
            for k2 in range(-1, 8):
                if k2 < 0:
                    b, ox, oy = j, _DX[k1], _DY[k1]
                else:
                    b = nbr[j, k2]
                    if b < 0:
                        continue
                    ox, oy = _DX[k1] + _DX[k2], _DY[k1] + _DY[k2]
                if stamp[b] == a + 1 or st[b] != _OPEN or numbers[b] == 0:
                    continue
                stamp[b] = a + 1
                fb = _frame(st, nbr, b, ox, oy)
                if fb == 0:
                    continue
                rb = _rest(st, numbers, nbr, b)
                for side in range(2):  # (A, B) and (B, A)
                    x, y, rx, ry = (fa, fb, ra, rb) if side == 0 else (fb, fa, rb, ra)
                    only_y = y & ~x
                    only_x = x & ~y
                    if (only_y == 0 and only_x == 0) or ry - rx != _popcount(only_y):
                        continue
                    # only_y all mines, only_x all safe; map bits back through the slots
                    for k in range(8):
                        q = nbr[a, k]
                        if q >= 0 and st[q] == _U:
                            bit = np.int64(1) << ((_DY[k] + 3) * 7 + _DX[k] + 3)
                            if (side == 0 and only_x & bit) or (side == 1 and only_y & bit):
                                if side == 0:
                                    safe_out[q] = True
                                else:
                                    mine_out[q] = True
                                decided += 1
                        q = nbr[b, k]
                        if q >= 0 and st[q] == _U:
                            bit = np.int64(1) << ((oy + _DY[k] + 3) * 7 + ox + _DX[k] + 3)
                            if (side == 0 and only_y & bit) or (side == 1 and only_x & bit):
                                if side == 0:
                                    mine_out[q] = True
                                else:
                                    safe_out[q] = True
                                decided += 1
    return decided


@nb.njit(cache=True)
def first_touch(tm, st, nbr, a, b):
    """The earliest time a play could have seen a change at cells a and b (their state or a
    neighbour's number): where a resumed play must start after moving a mine from a to b."""
    t = np.int64(1) << 40
    for c in (a, b):
        if st[c] != _U and tm[c] < t:
            t = tm[c]
        for k in range(8):
            j = nbr[c, k]
            if j >= 0 and st[j] == _OPEN and tm[j] < t:
                t = tm[j]
    return t


@nb.njit(cache=True)
def certify_into(mines, nbr, click, budget, st, tm, resume):
    """`certify_kernel` that leaves the final position in `st` (0 hidden, 1 open, 2 known mine)
    and, in `tm`, when each cell was opened or flagged (an event clock).

    With resume < 0 it starts afresh (`st` is reset). With resume = t >= 0, `st` and `tm` hold a
    previous play of a board that differs from `mines` only in cells whose own state or number
    was first revealed at time >= t: everything decided before t was decided from identical
    information, so the play goes on from there. Complete deduction is monotone (more
    information never undecides a cell), so the answer equals a fresh play's; only
    `needed_total` then covers just the resumed part."""
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
    clk = np.zeros(1, dtype=np.int64)
    dirty = np.zeros(n, dtype=np.bool_)
    stamp = np.zeros(n, dtype=np.int64)
    use_pairs = _pairs_safe(nbr)
    flagged = 0
    opened = 0
    wtop = 0
    if resume < 0:
        st[:] = _U
        opened, wtop = _open_safe(st, numbers, nbr, click, work, inwork, 0, fstack, tm, clk)
    else:
        clk[0] = resume
        for i in range(n):
            if st[i] != _U and tm[i] >= resume:
                st[i] = _U
        for i in range(n):
            if st[i] == _OPEN:
                opened += 1
                if numbers[i] > 0:
                    inwork[i] = True
                    work[wtop] = i
                    wtop += 1
            elif st[i] == _MINE:
                flagged += 1
        if opened == 0:  # nothing survived: the click itself changed
            opened, wtop = _open_safe(st, numbers, nbr, click, work, inwork, 0, fstack, tm, clk)
    needed_total = False
    while True:
        # single-number rule until it stalls
        while wtop > 0:
            wtop -= 1
            i = work[wtop]
            inwork[i] = False
            dirty[i] = True
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
                        o, wtop = _open_safe(st, numbers, nbr, j, work, inwork, wtop, fstack, tm, clk)
                        opened += o
            elif rest == h:
                for k in range(8):
                    j = nbr[i, k]
                    if j >= 0 and st[j] == _U:
                        st[j] = _MINE
                        tm[j] = clk[0]
                        clk[0] += 1
                        flagged += 1
                        wtop = _push_open_neighbours(st, nbr, j, work, inwork, wtop)
        if opened == goal:
            return SOLVED, needed_total, opened
        safe_out[:] = False
        mine_out[:] = False
        got = 0
        if use_pairs:
            got = _pair_pass(st, numbers, nbr, dirty, stamp, safe_out, mine_out)
        if got == 0:
            got, status, used_total = _complete_step(st, numbers, nbr, total - flagged, safe_out, mine_out, budget)
            if status != SOLVED:
                return status, needed_total, opened
            if got == 0:
                return STUCK, needed_total, opened
            needed_total = needed_total or used_total
        for i in range(n):
            if mine_out[i] and st[i] == _U:
                st[i] = _MINE
                tm[i] = clk[0]
                clk[0] += 1
                flagged += 1
                wtop = _push_open_neighbours(st, nbr, i, work, inwork, wtop)
        for i in range(n):
            if safe_out[i] and st[i] == _U:
                o, wtop = _open_safe(st, numbers, nbr, i, work, inwork, wtop, fstack, tm, clk)
                opened += o


def certify(board, x: int, y: int, *, budget: int = DEFAULT_LEAF_BUDGET) -> tuple[bool, bool]:
    """(certified, needs the mine total) for `board` played from the first click (x, y)."""
    nbr = grid.neighbour_table(board.width, board.height, board.topology)
    status, needed, _ = certify_kernel(board.flat_mines, nbr, y * board.width + x, budget)
    return status == SOLVED, bool(needed)
