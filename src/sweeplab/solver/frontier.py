"""Constraints from a position, built once: the frontier (hidden cells next to a number), its
numbers, and its independent components, each with a variable order that keeps the sweep narrow.

One builder (`build`) reads a position as the engine keeps it (solver.state: each cell's
state, hidden neighbours and known mines). It has two front doors: a play keeps those counts up
to date as it decides cells and hands them over as they are; a View is read into them first
(`view_position`). Only a View or a play's own counts go in, so nothing here can see a mine. By
default a View's flag is an unknown hidden cell (a player's flags may be wrong); with
`trust_flags` it is a mine and numbers count it.

The frontier's cells are numbered in the order the numbers (in cell order) first name them;
`frame` splits them by union-find into components and `order_component` orders one greedily from
a pseudo-peripheral cell, so that few numbers are half-assigned at any point of the sweep. Every
round of the engine takes the result as one `Constraints` (`constraints`: all of it; a play
orders only the components it sweeps).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .._numba_cache import njit
from ..errors import InconsistentPositionError, TooComplexError
from ..kernels import FLAG_STATE, HIDDEN_STATE, OPEN_STATE
from ..view import FLAG, HIDDEN
from .deduction import find_root
from .state import HID, HMASK, KNO, SAFE_STATE, ST


@njit
def view_position(cells, nbr, trust_flags, pi, pb, told):
    """The View's front door: its cells read into a position's states and counts (ST, HID, KNO,
    HMASK of the log arrays pi / pb), with what the caller already knows of its hidden cells
    (`told`, empty or per cell: 1 a mine, 0 safe, -1 unknown). Returns (status, bad cell, known
    mines): status 1 when the number at `bad cell` no layout can satisfy (more mines than its
    unknown neighbours, or fewer than its known ones)."""
    n = cells.shape[0]
    st = pb[ST]
    known = 0
    for i in range(n):
        c = cells[i]
        if c >= 0:
            st[i] = OPEN_STATE
        elif (c == FLAG and trust_flags) or (told.shape[0] > 0 and told[i] == 1):
            st[i] = FLAG_STATE
            known += 1
        elif told.shape[0] > 0 and told[i] == 0:
            st[i] = SAFE_STATE
        else:
            st[i] = HIDDEN_STATE
    for i in range(n):
        h = 0
        kn = 0
        m = 0
        for k in range(8):
            j = nbr[i, k]
            if j >= 0:
                if st[j] == HIDDEN_STATE:
                    h += 1
                    m |= 1 << k
                elif st[j] == FLAG_STATE:
                    kn += 1
        pi[HID, i] = h
        pi[KNO, i] = kn
        pi[HMASK, i] = m
        if st[i] == OPEN_STATE and (cells[i] - kn < 0 or cells[i] - kn > h):
            return 1, i, known
    return 0, -1, known


@njit  # (a kernel, not inlined: numba would type and build it again at each of its calls; LLVM inlines it)
def _carve(buf, at, k):
    """buf[at:at + k] and the offset after it: a build's arrays are carved one after another from
    one allocation per type (a build is short; allocations would be much of its cost). Its callers
    pass no literal offset (np.int64(0)): each literal would be a signature compiled anew."""
    return buf[at:at + k], at + k


@njit
def build(st, numbers, nbr, hid, kno, hmask):
    """The constraints of a position: every open number with hidden neighbours needs its mines
    still unknown (numbers - kno) among them.

    Returns (fidx: each cell's frontier index or -1, front: the frontier cells, nf, off: hidden
    cells off the frontier, con_cell: the numbers with hidden neighbours in cell order, nc, need /
    nfree: each one's mines still needed / hidden cells, con_start / con_front: each one's frontier
    cells in neighbour-slot order, fcons / fdeg: each frontier cell's numbers in their order,
    parent: union-find over the frontier)."""
    n = st.shape[0]
    cells = np.empty(3 * n, dtype=np.int32)
    fidx, o = _carve(cells, np.int64(0), n)
    fidx[:] = -1
    con_cell, o = _carve(cells, o, n)
    front, o = _carve(cells, o, n)
    nc = np.int64(0)  # (not 0: a count that starts as a literal is passed to _carve, compiled for the literal too)
    nf = np.int64(0)
    for j in range(n):
        if hmask[j] != 0 and st[j] == OPEN_STATE:
            con_cell[nc] = j
            nc += 1
            for k in range(8):
                if hmask[j] >> k & 1:
                    q = nbr[j, k]
                    if fidx[q] == -1:
                        fidx[q] = -2
                        nf += 1
    hidden = 0
    for i in range(n):
        hidden += st[i] == HIDDEN_STATE
    off = hidden - nf
    rest = np.empty(11 * nc + 1 + 10 * nf, dtype=np.int32)
    need, o = _carve(rest, np.int64(0), nc)
    nfree, o = _carve(rest, o, nc)
    con_start, o = _carve(rest, o, nc + 1)
    con_front, o = _carve(rest, o, 8 * nc)
    fcons, o = _carve(rest, o, 8 * nf)
    fcons = fcons.reshape((nf, 8))
    fdeg, o = _carve(rest, o, nf)
    fdeg[:] = 0
    parent, o = _carve(rest, o, nf)
    u = 0
    f_next = 0
    for c in range(nc):
        j = con_cell[c]
        need[c] = numbers[j] - kno[j]
        nfree[c] = hid[j]
        con_start[c] = u
        for k in range(8):
            if hmask[j] >> k & 1:
                q = nbr[j, k]
                f = fidx[q]
                if f < 0:  # first named here: the next frontier index
                    f = f_next
                    f_next += 1
                    fidx[q] = f
                    front[f] = q
                    parent[f] = f
                con_front[u] = f
                u += 1
                fcons[f, fdeg[f]] = c
                fdeg[f] += 1
        for v in range(con_start[c] + 1, u):
            ra = find_root(parent, con_front[con_start[c]])
            rb = find_root(parent, con_front[v])
            if ra != rb:
                parent[rb] = ra
    con_start[nc] = u
    return fidx, front[:nf], nf, off, con_cell[:nc], nc, need, nfree, con_start, con_front, fcons, fdeg, parent


# The constraints of a position, as every round of the engine takes them (arrays, one type each,
# so each kernel compiles once for them):
#   fidx: each cell's frontier index or -1; front: the frontier cells; off: hidden cells off the
#   frontier; con_cell: the numbers with hidden neighbours, in cell order; need / nfree: each one's
#   mines still needed / hidden cells; con_start / con_front: each one's frontier cells in
#   neighbour-slot order; fcons / fdeg: each frontier cell's numbers in their order;
#   comp_start: the components' offsets into `order`, components in the order of their first
#   frontier cell; order: each component's cells, in a narrow order once `order_component` has put
#   them in one (before it, in frontier order); pos: each ordered cell's place in its component's
#   order; con_comp: each number's component; cstart / clist: the numbers grouped by component, in
#   number order; work / flags: the ordering's work (and which components are ordered).
Constraints = namedtuple("Constraints", "fidx front off con_cell need nfree con_start con_front fcons fdeg "
                                        "comp_start order pos con_comp cstart clist work flags")


@njit
def frame(numbers, nbr, pi, pb):
    """The constraints of the position in the log arrays (pi, pb), split into components; no
    component is in its narrow order yet (`order_component`, or `constraints` for all)."""
    fidx, front, nf, off, con_cell, nc, need, nfree, con_start, con_front, fcons, fdeg, parent = \
        build(pb[ST], numbers, nbr, pi[HID], pi[KNO], pi[HMASK])
    work = np.empty(9 * nf + 1 + 2 * nc, dtype=np.int64)
    comp_start, o = _carve(work, np.int64(0), nf + 1)
    order, o = _carve(work, o, nf)
    pos, o = _carve(work, o, nf)
    con_comp, o = _carve(work, o, nc)
    rest = work[o:]
    flags = np.zeros(2 * nf + nc + nf, dtype=np.bool_)
    comp_of = rest[:nf]  # (the ordering's work until it starts)
    pos[:] = -1  # (here: each root's component)
    ncomp = np.int64(0)  # (not 0: passed to _by_component, which would compile for the literal too)
    for v in range(nf):
        r = find_root(parent, v)
        if pos[r] < 0:
            pos[r] = ncomp
            ncomp += 1
        comp_of[v] = pos[r]
    # (loops, not slices assigned: numba compiles a shape check with its message's string work)
    for k in range(ncomp + 1):
        comp_start[k] = 0
    for v in range(nf):
        comp_start[comp_of[v] + 1] += 1
    fill = rest[nf:nf + ncomp]
    for k in range(ncomp):
        comp_start[k + 1] += comp_start[k]
        fill[k] = comp_start[k]
    for v in range(nf):  # each component's cells in frontier order: its first cell first
        order[fill[comp_of[v]]] = v
        fill[comp_of[v]] += 1
    for c in range(nc):
        con_comp[c] = comp_of[con_front[con_start[c]]]
    cstart, clist = _by_component(con_comp, ncomp)
    rem = rest[6 * nf:6 * nf + nc]
    for c in range(nc):
        rem[c] = con_start[c + 1] - con_start[c]
    for v in range(nf):  # dist
        rest[v] = -1
    return Constraints(fidx, front, off, con_cell, need, nfree, con_start, con_front, fcons, fdeg,
                       comp_start[:ncomp + 1], order, pos, con_comp, cstart, clist, rest, flags)


@njit(inline='always')
def _ordering(cs):
    """The ordering's work carved from `cs.work` / `cs.flags`: (dist, queue, score, ntouch, qidx,
    cand, rem, assigned, opened, ordered)."""
    nf = cs.front.shape[0]
    nc = cs.con_cell.shape[0]
    w = cs.work
    f = cs.flags
    return (w[:nf], w[nf:2 * nf], w[2 * nf:3 * nf], w[3 * nf:4 * nf], w[4 * nf:5 * nf], w[5 * nf:6 * nf],
            w[6 * nf:6 * nf + nc], f[:nf], f[nf:nf + nc], f[nf + nc:])


@njit
def order_component(cs, k):
    """Put component k's cells in a narrow order (once): breadth first twice from its first cell,
    so that the order starts at a pseudo-peripheral cell and sweeps along the frontier, and few
    numbers are half-assigned at any time; then greedily (`_greedy`)."""
    dist, queue, score, ntouch, qidx, cand, rem, assigned, opened, ordered = _ordering(cs)
    if ordered[k]:
        return
    ordered[k] = True
    con_start, con_front, fcons, fdeg = cs.con_start, cs.con_front, cs.fcons, cs.fdeg
    at = cs.comp_start[k]
    first = cs.order[at]
    tail = 0
    for sweep in range(2):
        head = 0
        tail = 1
        queue[0] = first
        dist[first] = 0
        while head < tail:
            v = queue[head]
            head += 1
            for e in range(fdeg[v]):
                c = fcons[v, e]
                for s in range(con_start[c], con_start[c + 1]):
                    w = con_front[s]
                    if dist[w] < 0:
                        dist[w] = dist[v] + 1
                        queue[tail] = w
                        tail += 1
        if sweep == 0:
            first = queue[tail - 1]
            for q in range(tail):
                dist[queue[q]] = -1
    _greedy(queue, tail, dist, con_start, con_front, fcons, fdeg, rem, opened, assigned, score, ntouch, qidx, cand,
            cs.order, at)
    for q in range(at, at + tail):
        cs.pos[cs.order[q]] = q - at


@njit
def constraints(numbers, nbr, pi, pb):
    """The constraints of the position in (pi, pb), every component in its narrow order."""
    cs = frame(numbers, nbr, pi, pb)
    for k in range(cs.comp_start.shape[0] - 1):
        order_component(cs, k)
    return cs


@njit(inline='always')
def _leaves_open(rem, opened, c):
    """What number c adds to a cell's score (numbers left half-assigned): -1 when the cell would
    close it, +1 when it would open it, else 0."""
    if rem[c] == 1:
        return -1 if opened[c] else 0
    return 0 if opened[c] else 1


@njit(inline='always')
def _greedy(queue, tail, dist, con_start, con_front, fcons, fdeg, rem, opened, assigned, score, ntouch, qidx, cand,
            order, placed):
    """Order the component in queue[:tail] from its start: next the cell that leaves the fewest
    numbers half-assigned (closes most, opens fewest), nearer the start on ties (then the first in
    breadth-first order), among the cells next to a half-assigned number (at first, all of them).
    Scores are kept up to date as numbers open and close, and only the cells next to a
    half-assigned number are looked at, so a step costs what the order's edge holds."""
    for q in range(tail):
        v = queue[q]
        qidx[v] = q
        score[v] = 0
        ntouch[v] = 0
        for e in range(fdeg[v]):
            score[v] += _leaves_open(rem, opened, fcons[v, e])
    ncand = 0
    for step in range(tail):
        best = -1
        if step == 0:
            for q in range(tail):
                v = queue[q]
                if best < 0 or score[v] < score[best] or (score[v] == score[best] and dist[v] < dist[best]):
                    best = v
        else:
            for k in range(ncand):
                v = cand[k]
                if best < 0 or score[v] < score[best] or (score[v] == score[best] and (
                        dist[v] < dist[best] or (dist[v] == dist[best] and qidx[v] < qidx[best]))):
                    best = v
        if best < 0:  # cannot happen in a connected component; keep the breadth-first order then
            for q in range(tail):
                if not assigned[queue[q]]:
                    best = queue[q]
                    break
        assigned[best] = True
        if ntouch[best] > 0:  # out of the cells looked at
            for k in range(ncand):
                if cand[k] == best:
                    ncand -= 1
                    cand[k] = cand[ncand]
                    break
        for e in range(fdeg[best]):
            c = fcons[best, e]
            was = _leaves_open(rem, opened, c)
            was_open = opened[c]
            rem[c] -= 1
            opened[c] = rem[c] > 0
            change = _leaves_open(rem, opened, c) - was
            touch = (1 if opened[c] else 0) - (1 if was_open else 0)
            for s in range(con_start[c], con_start[c + 1]):
                u = con_front[s]
                score[u] += change
                if touch != 0:
                    if touch > 0 and ntouch[u] == 0 and not assigned[u]:
                        cand[ncand] = u
                        ncand += 1
                    ntouch[u] += touch
                    if ntouch[u] == 0 and not assigned[u]:
                        for k in range(ncand):
                            if cand[k] == u:
                                ncand -= 1
                                cand[k] = cand[ncand]
                                break
        order[placed + step] = best


@njit
def _by_component(con_comp, ncomp):
    """The numbers grouped by component, each group in number order: (cstart, clist)."""
    m = con_comp.shape[0]
    cstart = np.zeros(ncomp + 1, dtype=np.int64)
    for c in range(m):
        cstart[con_comp[c] + 1] += 1
    for k in range(ncomp):
        cstart[k + 1] += cstart[k]
    clist = np.empty(m, dtype=np.int64)
    fill = cstart[:ncomp].copy()
    for c in range(m):
        clist[fill[con_comp[c]]] = c
        fill[con_comp[c]] += 1
    return cstart, clist


__all__ = ["InconsistentPositionError", "TooComplexError", "Constraints", "build", "constraints", "frame",
           "order_component", "view_position", "FLAG", "HIDDEN"]
