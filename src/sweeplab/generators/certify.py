"""The no-guess generator's own certifier: does logic alone, with the mine total, open a board from a click?

A play opens the click, then repeatedly applies the single-number rule (cheap, settles most
cells), the subset rule on pairs of nearby numbers, and when both stall, complete deduction:
split the frontier into connected components, enumerate each component's consistent
assignments by backtracking, record which mine counts k each component can take and, per k,
which cells can be a mine and which can be safe, then combine the components with the cells
off the frontier under the global mine count. A cell is decided iff no consistent layout gives
it the other value (existence, not a float). Components longer than SMALL_COMPONENT are not
enumerated at first: a sweep along the component's order finds which values each cell can take
(or, where the sweep would be too wide, witness searches do: one layout per value not yet
seen), and they are counted only when the mine total can bind. Deductions that need the mine
total are tried only when those without it find nothing, so a play also says whether a board
needs the mine total.

A play sees the mines only to answer "what number does this opened cell show?", i.e. exactly
what a player would see; it never reads a hidden mine to make a decision.

Plays are logs. Every cell a play reveals is an event with its reason (the number, the pair
of numbers, or the component that decided it). The generators change a board one mine at a
time, and `play_moved` certifies the changed board from the old board's log: events from
before the change could be seen are kept; later ones are kept unchecked where nothing they
rest on changed, re-checked against the new numbers where something did, and the usual play
finishes what is left (see play_moved). Every kept event is a sound deduction on the new board
and complete deduction is monotone, so the verdict is a fresh play's, at a fraction of the
cost. (The one exception is the leaf budget: a component past it counts as a guess, and
whether a play meets such a component can depend on the order it went in, so a BUDGET verdict
belongs to the play, not to the board. `settle` plays such a board afresh with no budget: its
verdict, SOLVED or STUCK, is complete deduction's closure, the board's alone.)
"""

from __future__ import annotations

import functools
from collections import namedtuple

import numpy as np

from .. import grid
from .._numba_cache import njit
from ..kernels import FLAG_STATE, HIDDEN_STATE, OPEN_STATE, count_numbers
from ..solver.deduction import (
    ALL_MINES,
    ALL_SAFE,
    UNDECIDED,
    WHY_CLICK,
    WHY_COMPONENT,
    WHY_NUMBER,
    WHY_PAIR,
    WHY_TOTAL,
    find_root,
    fits,
    next_layout,
    number_rule,
    place,
    start_layouts,
    subset_rule,
)

# Kernels that only index arrays their callers own are compiled without numba's reference
# counting (its private `_nrt` option): otherwise every array handed to a helper, and every row
# taken of one, costs two atomic operations, and the play's inner loops do that per cell. Plain
# njit instead made the no-guess generator 25% slower at 99, 130 and 170 mines
# (docs/benchmarks.md). Such a kernel cannot allocate, nor can anything it calls (numba compiles
# callees the same way), so the allocating ones stay plain njit.
unrefcounted = njit(_nrt=False)

# Outcome codes of a play.
SOLVED = 0
STUCK = 1  # complete deduction decides nothing: a guess is needed
BUDGET = 2  # a component had more assignments than the budget allows (treated as not certified)
BOOM = 3  # the click itself is a mine (only when a caller passes a bad click)
PLAY_ON = 4  # (inside a play: the replay of an old log is done, the usual play goes on)

DEFAULT_LEAF_BUDGET = 200_000
NO_BUDGET = 1 << 62  # a leaf budget no enumeration reaches: `settle`'s
SMALL_COMPONENT = 12  # frontier cells: components this small are always enumerated together
WITNESS_BUDGET = 5_000  # search nodes for one witness search; past it, the component is enumerated instead
QUICK_SEARCH = 256  # nodes for a witness search in the component's order, before one outwards from the held cell
SWEEP_STATES = 4096  # states a long component's sweep may hold in all; past it, witness searches instead

# A play's cells are in the game's states (kernels.py): HIDDEN_STATE, OPEN_STATE, or FLAG_STATE
# for a mine it knows.

# Why a play revealed a cell (the event's reason) is one of the engine's reasons (deduction.WHY_*):
# WHY_NUMBER with a = the number, WHY_PAIR with the numbers a and b, WHY_COMPONENT, WHY_TOTAL.

# A play's log lives in three arrays, so that two plays (before and after a move) can be swapped.
# int32 rows:
TM = 0  # when each cell was revealed (event number)
EV_CELL = 1  # event -> cell
EV_A = 2  # event -> first cell of its reason
EV_B = 3  # event -> second cell of its reason (pairs)
HID = 4  # per cell: hidden neighbours
KNO = 5  # per cell: neighbours known to be mines
HMASK = 6  # per cell: which of its 8 neighbour slots are hidden (bit k: slot k of grid.neighbour_table)
# int8 rows:
ST = 0  # per cell: HIDDEN_STATE, OPEN_STATE, or FLAG_STATE (a known mine)
EV_WHY = 1  # event -> reason
# int64 meta (STALE_NOW: play_moved's count of stale cells):
EVENTS, OPENED, FLAGGED, NEEDED_TOTAL, STALE_NOW = 0, 1, 2, 3, 4

# Scratch shared by plays (int32 rows, bool rows, int64 counters). NEAR + s: the cell at offset
# NEAR_DX/DY[s] (the 24 cells within two steps), or -1; FULL: every existing neighbour slot;
# STALE1: stale cells (see _replay) within one step of a cell, itself included; CHECKED: the
# replay's event count when a number was last put through the rules (the position it saw).
WORK, RA, RB, DEG, FULL, STALE1, CHECKED, NEAR = range(8)
INWORK, DIRTY, SAFE_OUT, MINE_OUT, STALE = range(5)
PAIRS_OK = 0


@njit
def new_play(n):
    """Empty arrays (int32 rows, int8 rows, counters) for one play's log on n cells."""
    return np.zeros((7, n), dtype=np.int32), np.zeros((2, n), dtype=np.int8), np.zeros(5, dtype=np.int64)


@njit
def new_scratch(nbr):
    """Scratch (int32 rows, bool rows, counters) for plays on the grid `nbr`."""
    n = nbr.shape[0]
    si = np.zeros((NEAR + 24, n), dtype=np.int32)
    sb = np.zeros((5, n), dtype=np.bool_)
    sm = np.zeros(1, dtype=np.int64)
    for i in range(n):
        for k in range(8):
            if nbr[i, k] >= 0:
                si[DEG, i] += 1
                si[FULL, i] |= 1 << k
        for s in range(24):
            si[NEAR + s, i] = _step(nbr, i, NEAR_DX[s], NEAR_DY[s])
    sm[PAIRS_OK] = 1 if _pairs_safe(nbr) else 0
    return si, sb, sm


@unrefcounted
def _enumerate(m, cell_cons, cell_ncons, need, nfree, kset, can_mine, can_safe, budget, cur, nxt, assigned, bits):
    """Walk every consistent assignment of the m cells of one component (positions 0..m-1; the
    engine's walk, `deduction.next_layout`) and record which values each cell takes.

    cell_cons[p, :cell_ncons[p]] are the constraint ids of cell p; `need` is each constraint's
    remaining mines and `nfree` its unassigned cells (both updated in place). Writes kset[k]
    (the component can hold k mines) and can_mine/can_safe[k] (bitsets over the positions: some
    assignment with k mines makes p a mine / safe) and returns how many assignments there are,
    or -1 past `budget` of them (then `need` and `nfree` are left changed; otherwise restored).
    A leaf costs a few word operations, not m: large components have many.
    cur, nxt, assigned: scratch of length >= m + 1; bits: the current assignment.
    """
    nw = (m + 63) // 64
    tail = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64((64 - m % 64) % 64)
    start_layouts(m, nxt, assigned, bits)
    leaves = 0
    pos, placed = next_layout(m, cell_cons, cell_ncons, need, nfree, cur, nxt, assigned, bits, 0, 0)
    while pos == m:
        leaves += 1
        if leaves > budget:
            return -1
        kset[placed] = True
        for w in range(nw):
            can_mine[placed, w] |= bits[w]
            can_safe[placed, w] |= ~bits[w] & (tail if w == nw - 1 else np.uint64(0xFFFFFFFFFFFFFFFF))
        pos, placed = next_layout(m, cell_cons, cell_ncons, need, nfree, cur, nxt, assigned, bits, pos - 1, placed)
    return leaves


@unrefcounted
def _search(m, cell_cons, cell_ncons, need, nfree, fp, fv, pref, budget, cur, tried, assigned):
    """Is there an assignment of the m cells (positions 0..m-1, constraints as in _enumerate) with
    cell fp = fv (fp < 0: none held)? 1 yes (left in cur), 0 no, -1 past `budget` search nodes;
    need / nfree are used up. Each cell tries its value in `pref` first: given the last layout
    found, a search that flips one cell mostly repairs it near that cell and keeps the rest.
    tried, assigned: scratch of length >= m + 1."""
    tried[0] = 0
    assigned[0] = False
    nodes = 0
    pos = 0
    while pos >= 0:
        if pos == m:
            return 1
        if assigned[pos]:
            v = cur[pos]
            place(cell_cons, cell_ncons, need, nfree, pos, v, -1)
            assigned[pos] = False
        t = tried[pos]
        if t > 1 or (pos == fp and t > 0):
            pos -= 1
            continue
        tried[pos] = t + 1
        v = fv if pos == fp else pref[pos] ^ t
        nodes += 1
        if nodes > budget:
            return -1
        if not fits(cell_cons, cell_ncons, need, nfree, pos, v):
            continue
        place(cell_cons, cell_ncons, need, nfree, pos, v, 1)
        cur[pos] = v
        assigned[pos] = True
        pos += 1
        if pos < m:
            tried[pos] = 0
            assigned[pos] = False
    return 0


@njit(inline='always')
def _carve(buf, at, k):
    """buf[at:at + k] and the offset after it: a round's arrays are carved one after another from
    one allocation per type (see _complete_step)."""
    return buf[at:at + k], at + k


@njit(inline='always')  # into _complete_step, its one caller in a play
def play_constraints(st, numbers, nbr, hid, kno, hmask):
    """The constraints of the position `st` from the play's counts (`hid`, `hmask`, `kno`): the
    certifier's own builder, beside `frontier.build_constraints` for a View (docs/architecture.md
    says why there are two).

    Returns (fidx: frontier index of each cell or -1, front: the frontier cells in cell order, nf,
    off: hidden cells off the frontier, con_cell: the numbers with hidden neighbours, nc, need0 /
    nfree0: each one's mines still needed / hidden cells, con_start / con_front: each one's frontier
    cells, fcons / fdeg: each frontier cell's numbers, parent: union-find over the frontier).
    """
    n = st.shape[0]
    # constraints: open numbers with hidden neighbours; the frontier: those neighbours, in cell order
    # (one allocation for the cells' arrays, one for the rest once nc and nf are known: see _complete_step)
    cells = np.empty(3 * n, dtype=np.int32)
    fidx, o = _carve(cells, 0, n)
    fidx[:] = -1
    con_cell, o = _carve(cells, o, n)
    front, o = _carve(cells, o, n)
    nc = 0
    for j in range(n):
        if hmask[j] != 0 and st[j] == OPEN_STATE:
            con_cell[nc] = j
            nc += 1
            for k in range(8):
                if hmask[j] >> k & 1:
                    fidx[nbr[j, k]] = -2
    nf = 0
    hidden = 0
    for i in range(n):
        hidden += st[i] == HIDDEN_STATE
        if fidx[i] == -2:
            fidx[i] = nf
            front[nf] = i
            nf += 1
    off = hidden - nf
    # each constraint's frontier cells (con_front[con_start[c]:con_start[c + 1]]) and each
    # frontier cell's constraints (fcons[f, :fdeg[f]]), both in neighbour-slot order on a
    # bounded grid; components by union-find
    rest = np.empty(11 * nc + 1 + 10 * nf, dtype=np.int32)
    need0, o = _carve(rest, 0, nc)
    nfree0, o = _carve(rest, o, nc)
    con_start, o = _carve(rest, o, nc + 1)
    con_front, o = _carve(rest, o, 8 * nc)
    fcons, o = _carve(rest, o, 8 * nf)
    fcons = fcons.reshape((nf, 8))
    fdeg, o = _carve(rest, o, nf)
    fdeg[:] = 0
    parent, o = _carve(rest, o, nf)
    for f in range(nf):
        parent[f] = f
    u = 0
    for c in range(nc):
        j = con_cell[c]
        need0[c] = numbers[j] - kno[j]
        nfree0[c] = hid[j]
        con_start[c] = u
        for k in range(8):
            if hmask[j] >> k & 1:
                f = fidx[nbr[j, k]]
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
    return fidx, front, nf, off, con_cell, nc, need0, nfree0, con_start, con_front, fcons, fdeg, parent


@njit
def _complete_step(st, numbers, nbr, hid, kno, hmask, mines_left, safe_out, mine_out, budget):
    """One round of complete deduction on the position `st`, with the play's counts of each
    cell's hidden neighbours (`hid`, and which slots: `hmask`) and known mines (`kno`).

    Fills safe_out / mine_out (flat bool) with decided cells; returns (how many decided, status,
    whether the mine total was used) where status is SOLVED (fine) or BUDGET. The total is used
    only when the constraints alone decide nothing.
    """
    fidx, front, nf, off, con_cell, nc, need0, nfree0, con_start, con_front, fcons, fdeg, parent = \
        play_constraints(st, numbers, nbr, hid, kno, hmask)
    # The round's arrays are carved from one allocation per type: a round is short, and its 45 or
    # so allocations kept malloc, free and reference counts at 8% of a 130-mine board. Sizes before
    # the components are known are bounded by the frontier's nf cells
    # and the nc numbers (an array whose length is known later takes the room of its bound).
    ints = np.empty(16 * nf + 2 * nc + 1, dtype=np.int32)
    longs = np.empty(4 * nf + 2, dtype=np.int64)
    # group frontier cells by component
    comp, o = _carve(ints, 0, nf)
    root_comp, o = _carve(ints, o, nf)
    root_comp[:] = -1
    ncomp = 0
    for f in range(nf):
        r = find_root(parent, f)
        if root_comp[r] < 0:
            root_comp[r] = ncomp
            ncomp += 1
        comp[f] = root_comp[r]
    size, o = _carve(ints, o, nf + 1)
    size = size[:ncomp + 1]
    size[:] = 0
    for f in range(nf):
        size[comp[f] + 1] += 1
    start, ol = _carve(longs, 0, nf + 1)
    start = start[:ncomp + 1]
    start[0] = 0
    for c in range(ncomp):
        start[c + 1] = start[c] + size[c + 1]
    members, o = _carve(ints, o, nf)
    fill, ol = _carve(longs, ol, nf)
    fill = fill[:ncomp]
    fill[:] = start[:ncomp]
    for f in range(nf):
        members[fill[comp[f]]] = f
        fill[comp[f]] += 1
    maxm = 0
    for c in range(ncomp):
        if size[c + 1] > maxm:
            maxm = size[c + 1]
    order, o = _carve(ints, o, nf)
    order = order[:maxm]
    pos_of, o = _carve(ints, o, nf)
    pos_of[:] = -1
    cell_cons, o = _carve(ints, o, 8 * nf)
    cell_cons = cell_cons[:8 * maxm].reshape((maxm, 8))
    cell_ncons, o = _carve(ints, o, nf)
    cell_ncons = cell_ncons[:maxm]
    cell_ncons[:] = 0
    corder, o = _carve(ints, o, nf)  # each component's cells in search order, at start[c]
    need, o = _carve(ints, o, nc)
    need[:] = need0
    nfree, o = _carve(ints, o, nc)
    nfree[:] = nfree0
    # each enumerated component's per-k bitsets, kept as words (km_kept[wstart[c]:], (m + 1) rows
    # of (m + 63) // 64 words) until the total needs them
    wstart, ol = _carve(longs, ol, nf + 1)
    wstart = wstart[:ncomp + 1]
    wstart[0] = 0
    for c in range(ncomp):
        m = size[c + 1]
        wstart[c + 1] = wstart[c] + (m + 1) * ((m + 63) // 64)
    # smallest components first: most stalls are broken by a small one, and then we stop
    # (a stable insertion sort by size: components are few)
    by_size, ol = _carve(longs, ol, nf)
    for c in range(ncomp):
        j = c
        while j > 0 and size[by_size[j - 1] + 1] > size[c + 1]:
            by_size[j] = by_size[j - 1]
            j -= 1
        by_size[j] = c
    nwords = (maxm + 63) // 64
    words = np.empty(2 * wstart[ncomp] + 2 * (maxm + 1) * nwords + 3 * nwords, dtype=np.uint64)
    km_kept, ow = _carve(words, 0, wstart[ncomp])
    ks_kept, ow = _carve(words, ow, wstart[ncomp])
    km, ow = _carve(words, ow, (maxm + 1) * nwords)
    km = km.reshape((maxm + 1, nwords))
    ks, ow = _carve(words, ow, (maxm + 1) * nwords)
    ks = ks.reshape((maxm + 1, nwords))
    bits, ow = _carve(words, ow, nwords)
    any_mine, ow = _carve(words, ow, nwords)
    any_safe, ow = _carve(words, ow, nwords)
    # per component: which mine counts it can hold (ksets), in a flat slab; then per-cell flags
    flags = np.zeros(ncomp * (maxm + 1) + 4 * maxm + 2 + ncomp + nc, dtype=np.bool_)
    kslab, ob = _carve(flags, 0, ncomp * (maxm + 1))
    kslab = kslab.reshape((ncomp, maxm + 1))
    kk, ob = _carve(flags, ob, maxm + 1)
    assigned, ob = _carve(flags, ob, maxm + 1)
    wit_mine, ob = _carve(flags, ob, maxm)
    wit_safe, ob = _carve(flags, ob, maxm)
    deferred, ob = _carve(flags, ob, ncomp)
    scanned, ob = _carve(flags, ob, nc)  # constraints the breadth-first order has been through
    walk = np.empty(2 * (maxm + 1), dtype=np.int8)
    cur = walk[:maxm + 1]
    nxt = walk[maxm + 1:]
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
            for t in range(fdeg[f]):
                cn = fcons[f, t]
                if scanned[cn]:
                    continue
                scanned[cn] = True  # all its cells are in the order now: once is enough
                for v in range(con_start[cn], con_start[cn + 1]):
                    g = con_front[v]
                    if pos_of[g] < 0:
                        pos_of[g] = tail
                        order[tail] = g
                        tail += 1
        corder[start[c]:start[c] + m] = order[:m]
        _constraints_of(order, m, fcons, fdeg, cell_cons, cell_ncons)
        # which cells can be a mine, which safe: long components by a sweep along the order (or
        # where that is too wide, a witness search; enough unless the total is needed), the others
        # by counting every layout
        if m > SMALL_COMPONENT and (_sweep(m, cell_cons, cell_ncons, need, wit_mine, wit_safe, SWEEP_STATES) > 0
                                    or _backbone(m, cell_cons, cell_ncons, need, nfree, wit_mine, wit_safe,
                                                 WITNESS_BUDGET) > 0):
            deferred[c] = True
        else:
            # scratch shared by all components (allocation dominates small enumerations)
            km[:m + 1] = 0
            ks[:m + 1] = 0
            kk[:m + 1] = False
            got = _enumerate(m, cell_cons, cell_ncons, need, nfree, kk, km, ks, budget, cur, nxt, assigned, bits)
            if got < 0:  # a finished enumeration restores need/nfree itself; a cut-off one does not
                need[:] = need0
                nfree[:] = nfree0
                over_budget = True
                continue
            nw = (m + 63) // 64
            for w in range(nw):
                any_mine[w] = 0
                any_safe[w] = 0
                for kq in range(m + 1):
                    any_mine[w] |= km[kq, w]
                    any_safe[w] |= ks[kq, w]
            for p in range(m):
                wit_mine[p] = _bit(any_mine, p) != 0
                wit_safe[p] = _bit(any_safe, p) != 0
        for p in range(m):
            if wit_mine[p] != wit_safe[p]:
                found += 1
                if wit_mine[p]:
                    mine_out[front[order[p]]] = True
                else:
                    safe_out[front[order[p]]] = True
        # take every small component's decisions in one round (fewer rounds), but stop before a
        # large one once something is decided
        if found > 0 and (ci + 1 == ncomp or size[by_size[ci + 1] + 1] > SMALL_COMPONENT):
            return found, SOLVED, False
        if not deferred[c]:
            nw = (m + 63) // 64
            for kq in range(m + 1):
                kslab[c, kq] = kk[kq]
                for w in range(nw):
                    km_kept[wstart[c] + kq * nw + w] = km[kq, w]
                    ks_kept[wstart[c] + kq * nw + w] = ks[kq, w]
    if found > 0:
        return found, SOLVED, False
    if over_budget:
        return 0, BUDGET, False
    # the constraints alone decide nothing. The total cannot help when the frontier could hold
    # anything from none of its cells to all of them and the rest still fit off the frontier
    # (a frontier total fixed at none or all would have decided its cells already)
    if nf > 0 and mines_left - off <= 0 and nf <= mines_left:
        return 0, SOLVED, False
    # nor when the frontier surely holds fewer mines than are left and the cells off it more
    # places than are left: then every frontier layout fits, and the count off the frontier is
    # neither none nor all of it (a sound bound is enough here, and saves counting every layout)
    if nf > 0 and mines_left < off and _frontier_mines_at_most(nf, nc, con_cell, need0, nbr, st, fidx) < mines_left:
        return 0, SOLVED, False
    # bring in the mine total: it needs every component's mine counts, so count the deferred ones
    mine_slab = np.zeros((nf, maxm + 1), dtype=np.bool_)  # [frontier cell, k]
    safe_slab = np.zeros((nf, maxm + 1), dtype=np.bool_)
    for c in range(ncomp):
        m = size[c + 1]
        nw = (m + 63) // 64
        order[:m] = corder[start[c]:start[c] + m]
        if deferred[c]:
            _constraints_of(order, m, fcons, fdeg, cell_cons, cell_ncons)
            km[:m + 1] = 0
            ks[:m + 1] = 0
            kk[:m + 1] = False
            if _enumerate(m, cell_cons, cell_ncons, need, nfree, kk, km, ks, budget, cur, nxt, assigned, bits) < 0:
                return 0, BUDGET, False
            kslab[c, :m + 1] = kk[:m + 1]
        else:
            for kq in range(m + 1):
                for w in range(nw):
                    km[kq, w] = km_kept[wstart[c] + kq * nw + w]
                    ks[kq, w] = ks_kept[wstart[c] + kq * nw + w]
        _keep_slabs(m, order, km, ks, mine_slab, safe_slab)
    decided = _decide(st, fidx, front, nf, comp, ncomp, maxm, kslab, mine_slab, safe_slab, off, mines_left,
                      True, safe_out, mine_out)
    return decided, SOLVED, True


@njit
def _frontier_mines_at_most(nf, nc, con_cell, need, nbr, st, fidx):
    """An upper bound on the mines the nf frontier cells can hold: a number's hidden cells hold
    its `need` mines, so for numbers taken in turn that still cover more new cells than they
    need, add their need; every frontier cell left over might be a mine."""
    covered = np.zeros(nf, dtype=np.bool_)
    bound = 0
    left = nf
    for c in range(nc):
        j = con_cell[c]
        new = 0
        for k in range(8):
            q = nbr[j, k]
            if q >= 0 and st[q] == HIDDEN_STATE and not covered[fidx[q]]:
                new += 1
        if need[c] >= new:
            continue
        for k in range(8):
            q = nbr[j, k]
            if q >= 0 and st[q] == HIDDEN_STATE:
                covered[fidx[q]] = True
        bound += need[c]
        left -= new
    return bound + left


@unrefcounted
def _constraints_of(order, m, fcons, fdeg, cell_cons, cell_ncons):
    """cell_cons[p] / cell_ncons[p]: the constraint ids of the p-th frontier cell in `order`."""
    for p in range(m):
        f = order[p]
        cell_ncons[p] = fdeg[f]
        for t in range(fdeg[f]):
            cell_cons[p, t] = fcons[f, t]


@unrefcounted
def _keep_slabs(m, order, km, ks, mine_slab, safe_slab):
    """Spread a component's per-count witnesses (bitsets over the m positions of `order`) over
    its frontier cells, for the total."""
    for kq in range(m + 1):
        for p in range(m):
            mine_slab[order[p], kq] = _bit(km[kq], p) != 0
            safe_slab[order[p], kq] = _bit(ks[kq], p) != 0


@unrefcounted
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


@njit(inline='always')
def _bit(bits, i):
    return (bits[i // 64] >> np.uint64(i % 64)) & np.uint64(1)


@njit
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


@njit
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
                if st[i] == HIDDEN_STATE and fidx[i] < 0:
                    if cm:
                        mine_out[i] = True
                    else:
                        safe_out[i] = True
                    decided += 1
    return decided


# neighbour slots of grid.neighbour_table: dy in (-1, 0, 1), dx in (-1, 0, 1), centre skipped
_DX = np.array([-1, 0, 1, -1, 1, -1, 0, 1], dtype=np.int64)
_DY = np.array([-1, -1, -1, 0, 0, 1, 1, 1], dtype=np.int64)


@njit
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


def _spread_table():
    """SPREAD[mask]: a cell's hidden-neighbour mask drawn in a 7x7 frame centred on the cell (the
    neighbour at (dx, dy) is bit (dy + 3) * 7 + dx + 3). For a cell b at (ox, oy) from a, b's
    drawing shifted by oy * 7 + ox lies in a's frame: pairs compare masks with a few word operations."""
    t = np.zeros(256, dtype=np.int64)
    for mask in range(256):
        for k in range(8):
            if mask >> k & 1:
                t[mask] |= 1 << ((_DY[k] + 3) * 7 + _DX[k] + 3)
    return t


SPREAD = _spread_table()
NEAR_DX = np.array([dx for dy in range(-2, 3) for dx in range(-2, 3) if dx or dy], dtype=np.int64)
NEAR_DY = np.array([dy for dy in range(-2, 3) for dx in range(-2, 3) if dx or dy], dtype=np.int64)
# SHARED[s]: the neighbour slots of a cell that also touch the cell at NEAR offset s; a pair can
# only decide something when the first number has a hidden cell there
SHARED = np.array([sum(1 << k for k in range(8) if abs(_DX[k] - dx) <= 1 and abs(_DY[k] - dy) <= 1)
                   for dx, dy in zip(NEAR_DX, NEAR_DY)], dtype=np.int64)


@njit
def _slot(dx, dy):
    """The neighbour slot of the step (dx, dy), each in -1..1 and not both 0."""
    for k in range(8):
        if _DX[k] == dx and _DY[k] == dy:
            return k
    return -1


@njit
def _step(nbr, i, dx, dy):
    """The cell (dx, dy) away from i (each within +-2) by neighbour steps, or -1 off the grid."""
    sx = (dx > 0) - (dx < 0)
    sy = (dy > 0) - (dy < 0)
    j = nbr[i, _slot(sx, sy)]
    if j < 0 or (dx == sx and dy == sy):
        return j
    return nbr[j, _slot(dx - sx, dy - sy)]


@njit(inline='always')
def _frame(pi, c, shift):
    """c's hidden neighbours drawn in the 7x7 frame of a cell from which c is at (ox, oy), where
    shift = oy * 7 + ox (0: c's own frame)."""
    f = SPREAD[pi[HMASK, c]]
    return f << shift if shift >= 0 else f >> -shift


@njit(inline='always')
def _slot_bit(k, shift):
    """Neighbour slot k of a cell whose frame is at `shift` (as in _frame), as a bit of the frame."""
    return np.int64(1) << ((_DY[k] + 3) * 7 + _DX[k] + 3 + shift)


@njit(inline='always')
def _popcount(x):
    """Set bits of a frame (x >= 0, below 2**56), without a branch per bit."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56 & 0xFF


@njit(inline='always')
def _pair_rule(numbers, pi, a, b, shift):
    """The subset rule on numbers a and b (b at offset `shift` in a's frame): (mine bits, safe bits)
    in a's frame, both 0 when it decides nothing. If b's mines outside a must fill b's hidden
    cells outside a, those are mines and a's own are safe; or the other way round."""
    fa = _frame(pi, a, 0)
    fb = _frame(pi, b, shift)
    if fa & fb == 0:  # nothing shared: only the single-number rule could decide them
        return np.int64(0), np.int64(0)
    a_only = fa & ~fb
    b_only = fb & ~fa
    rest_a = numbers[a] - pi[KNO, a]
    rest_b = numbers[b] - pi[KNO, b]
    if subset_rule(rest_a, rest_b, _popcount(b_only)):
        return b_only, a_only
    if subset_rule(rest_b, rest_a, _popcount(a_only)):
        return a_only, b_only
    return np.int64(0), np.int64(0)


@unrefcounted
def _pair_pass(st, numbers, nbr, pi, dirty, si, safe_out, mine_out, ra, rb):
    """The subset rule on pairs of numbers within two steps, for numbers whose surroundings
    changed since the last pass. Cheap, and it settles most of what would otherwise need a
    round of enumeration. Decisions go to safe_out / mine_out with the pair in ra / rb."""
    n = st.shape[0]
    hm = pi[HMASK]
    decided = 0
    for a in range(n):
        if not dirty[a]:
            continue
        dirty[a] = False
        if st[a] != OPEN_STATE or hm[a] == 0:
            continue
        for s in range(24):
            if hm[a] & SHARED[s] == 0:
                continue
            b = si[NEAR + s, a]
            if b < 0 or st[b] != OPEN_STATE or hm[b] == 0:
                continue
            shift = NEAR_DY[s] * 7 + NEAR_DX[s]
            mines_bits, safe_bits = _pair_rule(numbers, pi, a, b, shift)
            if mines_bits == 0 and safe_bits == 0:
                continue
            for side in range(2):
                c, sh = (a, 0) if side == 0 else (b, shift)
                for k in range(8):
                    if not hm[c] >> k & 1:
                        continue
                    q = nbr[c, k]
                    bit = _slot_bit(k, sh)
                    if mines_bits & bit and not mine_out[q]:
                        mine_out[q] = True
                    elif safe_bits & bit and not safe_out[q]:
                        safe_out[q] = True
                    else:
                        continue
                    ra[q] = a
                    rb[q] = b
                    decided += 1
    return decided


@unrefcounted
def _pair_implies(numbers, nbr, pi, pb, si, a, b, x, mine):
    """Does the subset rule on numbers a and b decide hidden cell x as `mine`, now?"""
    if pb[ST, a] != OPEN_STATE or pb[ST, b] != OPEN_STATE:
        return False
    for s in range(24):
        if si[NEAR + s, a] != b:
            continue
        shift = NEAR_DY[s] * 7 + NEAR_DX[s]
        mines_bits, safe_bits = _pair_rule(numbers, pi, a, b, shift)
        for k in range(8):
            if nbr[a, k] == x:
                bit = _slot_bit(k, 0)
            elif nbr[b, k] == x:
                bit = _slot_bit(k, shift)
            else:
                continue
            return ((mines_bits if mine else safe_bits) & bit) != 0
    return False


@njit
def _sweep(m, cell_cons, cell_ncons, need, can_mine, can_safe, max_states):
    """Which of the m cells (constraints as in _enumerate, `need` before any is assigned) can be
    a mine, which safe, in some assignment meeting every constraint: exactly, by one pass forwards
    and one backwards along the positions (a transfer-matrix sweep). A state is the running
    count of every constraint that has begun and not yet ended, 4 bits each; a frontier strip has
    a few of those, so a few states per position, where witness searches need hundreds of nodes.
    Returns 1, or -1 when more than 16 constraints are open at once or the states pass
    `max_states` (then search instead)."""
    nc = need.shape[0]
    # one allocation per type (see _complete_step)
    ints = np.empty(3 * nc + 9 * m + 18, dtype=np.int32)
    longs = np.empty(8 * m + max_states + 1, dtype=np.int64)
    last, o = _carve(ints, 0, nc)
    last[:] = -1
    left, o = _carve(ints, o, nc)  # cells of each constraint not yet passed
    left[:] = 0
    for q in range(m):
        for t in range(cell_ncons[q]):
            last[cell_cons[q, t]] = q
            left[cell_cons[q, t]] += 1
    # each constraint's 4-bit slot in the state while it is open, and its cells after position q
    rows = np.int64(m)
    shift, ol = _carve(longs, 0, 8 * m)
    shift = shift.reshape((rows, 8))
    rest, o = _carve(ints, o, 8 * m)
    rest = rest.reshape((rows, 8))
    slot, o = _carve(ints, o, nc)
    slot[:] = -1
    free, o = _carve(ints, o, 16)
    for i in range(16):
        free[i] = i
    nfree_slots = 16
    for q in range(m):
        for t in range(cell_ncons[q]):
            c = cell_cons[q, t]
            if slot[c] < 0:
                if nfree_slots == 0:
                    return -1
                nfree_slots -= 1
                slot[c] = free[nfree_slots]
            shift[q, t] = 4 * slot[c]
            left[c] -= 1
            rest[q, t] = left[c]
        for t in range(cell_ncons[q]):
            c = cell_cons[q, t]
            if last[c] == q:  # closed after this cell: its slot is free from the next one on
                free[nfree_slots] = slot[c]
                nfree_slots += 1
    keys, ol = _carve(longs, ol, max_states + 1)
    start, o = _carve(ints, o, m + 2)
    keys[0] = 0
    start[0] = 0
    start[1] = 1
    for q in range(m):
        top = start[q + 1]
        for i in range(start[q], start[q + 1]):
            for v in range(2):
                k2 = _sweep_step(keys[i], q, v, cell_cons, cell_ncons, need, shift, rest, last)
                if k2 < 0:
                    continue
                # insert into this layer's sorted keys, once
                lo = _lower_bound(keys, start[q + 1], top, k2)
                if lo < top and keys[lo] == k2:
                    continue
                if top == max_states:
                    return -1
                for j in range(top, lo, -1):
                    keys[j] = keys[j - 1]
                keys[lo] = k2
                top += 1
        start[q + 2] = top
    alive = np.zeros(start[m + 1], dtype=np.bool_)
    alive[start[m]:start[m + 1]] = True  # (the one state with every constraint met)
    can_mine[:m] = False
    can_safe[:m] = False
    for q in range(m - 1, -1, -1):
        for i in range(start[q], start[q + 1]):
            for v in range(2):
                k2 = _sweep_step(keys[i], q, v, cell_cons, cell_ncons, need, shift, rest, last)
                if k2 < 0:
                    continue
                lo = _lower_bound(keys, start[q + 1], start[q + 2], k2)
                if alive[lo]:  # (k2 is in the next layer: it was put there going forwards)
                    alive[i] = True
                    if v:
                        can_mine[q] = True
                    else:
                        can_safe[q] = True
    return 1


@njit(inline='always')
def _lower_bound(keys, lo, hi, key):
    """The first position in the sorted keys[lo:hi] whose key is not below `key`."""
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(inline='always')
def _sweep_step(key, q, v, cell_cons, cell_ncons, need, shift, rest, last):
    """The state after the cell at position q takes value v in state `key`, or -1 if some
    constraint can no longer be met."""
    for t in range(cell_ncons[q]):
        c = cell_cons[q, t]
        sh = shift[q, t]
        s = ((key >> sh) & 15) + v
        if s > need[c] or need[c] - s > rest[q, t]:
            return -1
        key = key & ~(np.int64(15) << sh)
        if last[c] != q:
            key |= s << sh
    return key


@njit
def _backbone(m, cell_cons, cell_ncons, need, nfree, can_mine, can_safe, budget):
    """Which of the m cells can be a mine, which safe, in some assignment meeting the constraints?

    One search per value not yet seen, each solution found witnessing a value for every cell:
    a few searches, where enumerating every assignment of a long component can take thousands.
    Each search starts from the last layout found, with cell p flipped; past QUICK_SEARCH nodes
    it goes again outwards from p, so that a value p cannot take fails near the root instead of
    deep in the tree. Returns 1, or -1 when a search ran over `budget` nodes (then enumerate
    instead)."""
    nc = need.shape[0]
    cur = np.empty(m + 1, dtype=np.int8)
    tried = np.empty(m + 1, dtype=np.int8)
    assigned = np.empty(m + 1, dtype=np.bool_)
    lay = np.zeros(m, dtype=np.int8)  # the last layout found (before any: safe first)
    pref = np.empty(m, dtype=np.int8)  # each cell's value to try first (ppref: in the outward order)
    ppref = np.empty(m, dtype=np.int8)
    nd = np.empty(nc, dtype=np.int32)
    nfr = np.empty(nc, dtype=np.int32)
    # which positions each constraint covers, to walk outwards from a held cell
    con_start = np.zeros(nc + 1, dtype=np.int32)
    for q in range(m):
        for t in range(cell_ncons[q]):
            con_start[cell_cons[q, t] + 1] += 1
    for c in range(nc):
        con_start[c + 1] += con_start[c]
    con_pos = np.empty(con_start[nc], dtype=np.int32)
    fill = con_start[:nc].copy()
    for q in range(m):
        for t in range(cell_ncons[q]):
            c = cell_cons[q, t]
            con_pos[fill[c]] = q
            fill[c] += 1
    perm = np.empty(m, dtype=np.int32)
    seen = np.zeros(m, dtype=np.bool_)
    pcons = np.empty((m, cell_cons.shape[1]), dtype=np.int32)
    pncons = np.empty(m, dtype=np.int32)
    can_mine[:m] = False
    can_safe[:m] = False
    for p in range(-1, m):
        for v in range(2):
            if p >= 0 and (can_mine[p] if v == 1 else can_safe[p]):
                continue
            nd[:] = need
            nfr[:] = nfree
            for q in range(m):  # values not yet seen first, so that one search covers many
                pref[q] = 0 if not can_safe[q] else (1 if not can_mine[q] else lay[q])
            r = _search(m, cell_cons, cell_ncons, nd, nfr, p, v, pref, QUICK_SEARCH if p >= 0 else budget, cur,
                        tried, assigned)
            for q in range(m):
                perm[q] = q
            if r < 0 and p >= 0:
                nd[:] = need
                nfr[:] = nfree
                seen[:m] = False
                perm[0] = p
                seen[p] = True
                size = 1
                head = 0
                while head < size:
                    q = perm[head]
                    head += 1
                    for t in range(cell_ncons[q]):
                        c = cell_cons[q, t]
                        for u in range(con_start[c], con_start[c + 1]):
                            o = con_pos[u]
                            if not seen[o]:
                                seen[o] = True
                                perm[size] = o
                                size += 1
                for q in range(m):
                    pncons[q] = cell_ncons[perm[q]]
                    pcons[q, :pncons[q]] = cell_cons[perm[q], :pncons[q]]
                    ppref[q] = pref[perm[q]]
                r = _search(m, pcons, pncons, nd, nfr, 0, v, ppref, budget, cur, tried, assigned)
            if r < 0:
                return -1
            if r == 1:
                for q in range(m):
                    lay[perm[q]] = cur[q]
                    if cur[q] == 1:
                        can_mine[perm[q]] = True
                    else:
                        can_safe[perm[q]] = True
            if p < 0:
                break
    return 1


@njit(inline='always')
def _reveal(pi, pb, meta, nbr, cell, mine, why, a, b):
    """Record that the play now knows `cell` (open, or a mine), and why."""
    _log(pi, pb, meta, cell, mine, why, a, b)
    for k in range(8):
        j = nbr[cell, k]
        if j >= 0:
            pi[HID, j] -= 1
            pi[HMASK, j] &= ~(1 << (7 - k))  # cell is in j's slot 7 - k (the opposite step)
            if mine:
                pi[KNO, j] += 1


@njit(inline='always')
def _log(pi, pb, meta, cell, mine, why, a, b):
    """Log `cell` as known (open, or a mine), and why, without its neighbours' counts."""
    if mine:
        meta[FLAGGED] += 1
    else:
        meta[OPENED] += 1
    ev = meta[EVENTS]
    pb[ST, cell] = FLAG_STATE if mine else OPEN_STATE
    pi[TM, cell] = ev
    pi[EV_CELL, ev] = cell
    pb[EV_WHY, ev] = why
    pi[EV_A, ev] = a
    pi[EV_B, ev] = b
    meta[EVENTS] = ev + 1


@njit(inline='always')
def _push(si, sb, wtop, i):
    if not sb[INWORK, i]:
        sb[INWORK, i] = True
        si[WORK, wtop] = i
        wtop += 1
    return wtop


@njit(inline='always')
def _push_around(pb, si, sb, nbr, cell, wtop):
    """After `cell` is revealed: it (if open) and the open numbers around it may now decide more."""
    if pb[ST, cell] == OPEN_STATE:
        wtop = _push(si, sb, wtop, cell)
    for k in range(8):
        j = nbr[cell, k]
        if j >= 0 and pb[ST, j] == OPEN_STATE:
            wtop = _push(si, sb, wtop, j)
    return wtop


@njit(inline='always')
def _number_implies(numbers, pi, pb, a, mine):
    """Does the single-number rule on number a decide its hidden neighbours as `mine`, now?"""
    return pb[ST, a] == OPEN_STATE and number_rule(numbers[a] - pi[KNO, a], pi[HID, a]) == (ALL_MINES if mine else ALL_SAFE)


@unrefcounted
def _single_rule(numbers, nbr, pi, pb, meta, si, sb, wtop):
    """The single-number rule on the `wtop` numbers waiting, and on those their deductions touch,
    until it stalls (a 0 opens its neighbours the same way: the cascade)."""
    st = pb[ST]
    hid = pi[HID]
    kno = pi[KNO]
    while wtop > 0:
        wtop -= 1
        i = si[WORK, wtop]
        sb[INWORK, i] = False
        sb[DIRTY, i] = True
        h = hid[i]
        if h == 0:
            continue
        rule = number_rule(numbers[i] - kno[i], h)
        if rule == UNDECIDED:
            continue
        for k in range(8):
            j = nbr[i, k]
            if j >= 0 and st[j] == HIDDEN_STATE:
                _reveal(pi, pb, meta, nbr, j, rule == ALL_MINES, WHY_NUMBER, i, -1)
                wtop = _push_around(pb, si, sb, nbr, j, wtop)


@njit
def _run(mines, numbers, nbr, budget, pi, pb, meta, si, sb, sm, wtop):
    """Play on from the position in (pi, pb, meta) with `wtop` numbers waiting in the work list,
    until the board is open (SOLVED) or nothing more can be decided."""
    n = mines.shape[0]
    total = 0
    for i in range(n):
        if mines[i]:
            total += 1
    goal = n - total
    st = pb[ST]
    while True:
        _single_rule(numbers, nbr, pi, pb, meta, si, sb, wtop)
        wtop = 0
        if meta[OPENED] == goal:
            return SOLVED
        got = 0
        why = WHY_PAIR
        if sm[PAIRS_OK]:
            got = _pair_pass(st, numbers, nbr, pi, sb[DIRTY], si, sb[SAFE_OUT], sb[MINE_OUT], si[RA], si[RB])
        if got == 0:
            got, status, used_total = _complete_step(st, numbers, nbr, pi[HID], pi[KNO], pi[HMASK],
                                                     total - meta[FLAGGED], sb[SAFE_OUT], sb[MINE_OUT], budget)
            if status != SOLVED:
                return status
            if got == 0:
                return STUCK
            why = WHY_TOTAL if used_total else WHY_COMPONENT
            if used_total:
                meta[NEEDED_TOTAL] = 1
        wtop = _reveal_found(nbr, pi, pb, meta, si, sb, why)


@unrefcounted
def _reveal_found(nbr, pi, pb, meta, si, sb, why):
    """Reveal the cells a round of deduction found (in SAFE_OUT / MINE_OUT), clearing those marks.
    Returns the work list: the numbers around them."""
    st = pb[ST]
    wtop = 0
    for i in range(st.shape[0]):
        mine = sb[MINE_OUT, i]
        if not (mine or sb[SAFE_OUT, i]):
            continue
        sb[MINE_OUT, i] = False
        sb[SAFE_OUT, i] = False
        if st[i] == HIDDEN_STATE:
            a, b = (si[RA, i], si[RB, i]) if why == WHY_PAIR else (-1, -1)
            _reveal(pi, pb, meta, nbr, i, mine, why, a, b)
            wtop = _push_around(pb, si, sb, nbr, i, wtop)
    return wtop


@unrefcounted
def _reset_scratch(sb, n):
    for r in range(5):
        for i in range(n):
            sb[r, i] = False


@njit
def play_fresh(mines, numbers, nbr, click, budget, pi, pb, meta, si, sb, sm):
    """Play `mines` (with `numbers`) from `click` without guessing, logging into (pi, pb, meta).
    Returns SOLVED, STUCK, BUDGET or BOOM; meta[NEEDED_TOTAL] says whether the total was needed."""
    n = mines.shape[0]
    _reset_scratch(sb, n)
    meta[:] = 0
    for i in range(n):
        pb[ST, i] = HIDDEN_STATE
        pi[HID, i] = si[DEG, i]
        pi[HMASK, i] = si[FULL, i]
        pi[KNO, i] = 0
    if mines[click]:
        return BOOM
    _reveal(pi, pb, meta, nbr, click, False, WHY_CLICK, -1, -1)
    wtop = _push(si, sb, 0, click)
    return _run(mines, numbers, nbr, budget, pi, pb, meta, si, sb, sm, wtop)


@unrefcounted
def first_touch(pi, pb, nbr, a, b):
    """The earliest event at which a play could have seen a change at cells a and b (their own
    state, or an open neighbour's number); a cell -1 is none."""
    t = np.int64(1) << 40
    for c in (a, b):
        if c < 0:
            continue
        if pb[ST, c] != HIDDEN_STATE and pi[TM, c] < t:
            t = pi[TM, c]
        for k in range(8):
            j = nbr[c, k]
            if j >= 0 and pb[ST, j] == OPEN_STATE and pi[TM, j] < t:
                t = pi[TM, j]
    return t


@njit(inline='always')
def _mark_stale(si, nbr, x, by):
    """Count cell x as stale (by=1) or no longer (by=-1) in the STALE1 counts around it."""
    si[STALE1, x] += by
    for k in range(8):
        j = nbr[x, k]
        if j >= 0:
            si[STALE1, j] += by


@njit(inline='always')
def _sync(pi, st, nbr, c):
    """Bring c's counts (HID, KNO, HMASK) up to date with the position `st` (play_moved keeps
    counts only where it looks)."""
    m = 0
    kn = 0
    for k in range(8):
        j = nbr[c, k]
        if j >= 0:  # counted without branching on the cell's state, which is unpredictable
            v = st[j]
            m |= np.int32(v == HIDDEN_STATE) << k
            kn += v == FLAG_STATE
    h = _popcount(m)
    pi[HID, c] = h
    pi[KNO, c] = kn
    pi[HMASK, c] = m


@njit(inline='always')
def _push_near_stale(pb, si, sb, nbr, cell, wtop):
    """`cell` and its neighbours that are open numbers next to a stale cell go on the work list."""
    if si[STALE1, cell] > 0 and pb[ST, cell] == OPEN_STATE:
        wtop = _push(si, sb, wtop, cell)
    for k in range(8):
        j = nbr[cell, k]
        if j >= 0:
            if (si[STALE1, j] > 0) & (pb[ST, j] == OPEN_STATE):  # one branch, not two
                wtop = _push(si, sb, wtop, j)
    return wtop


@njit(inline='always')
def _settle_cell(pi, pb, meta, si, sb, nbr, q, mine, why, a, b, wtop):
    """Log hidden cell q as decided (by numbers a, b); a stale q is stale no more. Returns the work
    list with what q's news may decide next."""
    _log(pi, pb, meta, q, mine, why, a, b)
    if sb[STALE, q]:
        sb[STALE, q] = False
        _mark_stale(si, nbr, q, -1)
        meta[STALE_NOW] -= 1
    return _push_near_stale(pb, si, sb, nbr, q, wtop)


@njit(_nrt=False, inline='always')  # into the replay, its one caller
def _settle(numbers, nbr, pi, pb, meta, si, sb, wtop, pairs):
    """The single-number rule, then (if `pairs`) the subset rule, on the waiting numbers next to
    stale cells, and on those next to stale cells that their deductions touch. Counts are taken
    from the position as it is."""
    st = pb[ST]
    while wtop > 0:
        wtop -= 1
        a = si[WORK, wtop]
        sb[INWORK, a] = False
        if si[STALE1, a] == 0 or si[CHECKED, a] == meta[EVENTS]:
            continue  # not next to a stale cell, or seen in this very position: nothing new to decide
        si[CHECKED, a] = meta[EVENTS]
        _sync(pi, st, nbr, a)
        h = pi[HID, a]
        if h == 0:
            continue
        rule = number_rule(numbers[a] - pi[KNO, a], h)
        if rule != UNDECIDED:
            for k in range(8):
                j = nbr[a, k]
                if j >= 0 and st[j] == HIDDEN_STATE:
                    wtop = _settle_cell(pi, pb, meta, si, sb, nbr, j, rule == ALL_MINES, WHY_NUMBER, a, -1, wtop)
            continue
        if not pairs:
            continue
        # the subset rule as in _pair_pass, with b's counts brought up to date first (one helper
        # for both loops, returning the pair's bits as a tuple, made chain moves 1.8x slower)
        ha = pi[HMASK, a]
        for s in range(24):
            if ha & SHARED[s] == 0:
                continue
            b = si[NEAR + s, a]
            if b < 0 or st[b] != OPEN_STATE:
                continue
            _sync(pi, st, nbr, b)
            if pi[HID, b] == 0:
                continue
            shift = NEAR_DY[s] * 7 + NEAR_DX[s]
            mines_bits, safe_bits = _pair_rule(numbers, pi, a, b, shift)
            if mines_bits == 0 and safe_bits == 0:
                continue
            for side in range(2):
                c, sh = (a, 0) if side == 0 else (b, shift)
                for k in range(8):
                    q = nbr[c, k]
                    if q < 0 or st[q] != HIDDEN_STATE:
                        continue
                    bit = _slot_bit(k, sh)
                    if mines_bits & bit or safe_bits & bit:
                        wtop = _settle_cell(pi, pb, meta, si, sb, nbr, q, (mines_bits & bit) != 0, WHY_PAIR, a, b,
                                            wtop)


@unrefcounted
def _component_clean(pb, nbr, si, sb, x):
    """Does no stale cell touch hidden cell x's frontier component, as the position stands (nor
    the numbers around it)? Then a deduction over that component still holds: its numbers say
    what they said, none of the old play's numbers next to it is missing, and the new play may
    only know more."""
    st = pb[ST]
    seen = sb[MINE_OUT]  # free until the play goes on
    queue = si[WORK]  # free between settles
    queue[0] = x
    seen[x] = True
    size = 1
    head = 0
    clean = True
    while head < size and clean:
        u = queue[head]
        head += 1
        if si[STALE1, u] > 0:
            clean = False
            break
        for k in range(8):
            c = nbr[u, k]
            if c < 0 or st[c] != OPEN_STATE:
                continue
            if si[STALE1, c] > 0:
                clean = False
                break
            for k2 in range(8):
                q = nbr[c, k2]
                if q >= 0 and st[q] == HIDDEN_STATE and not seen[q]:
                    seen[q] = True
                    queue[size] = q
                    size += 1
    for p in range(size):
        seen[queue[p]] = False
    return clean


@njit
def play_moved(mines, numbers, nbr, click, budget, old_i, old_b, old_m, pi, pb, meta, si, sb, sm, src, dst):
    """Play the board `mines`, which differs from the board logged in (old_i, old_b, old_m) by a
    mine moved from `src` to `dst` (or, with src = -1, by a mine added at `dst`), logging into
    (pi, pb, meta). Same verdict as `play_fresh` (but for the leaf budget: see the module
    docstring); meta[NEEDED_TOTAL] here says whether the log uses the total, not whether it had to.
    How: see `_replay`."""
    status, wtop = _replay(mines, numbers, nbr, click, old_i, old_b, old_m, pi, pb, meta, si, sb, sm, src, dst)
    if status != PLAY_ON:
        return status
    return _run(mines, numbers, nbr, budget, pi, pb, meta, si, sb, sm, wtop)


@unrefcounted
def _replay(mines, numbers, nbr, click, old_i, old_b, old_m, pi, pb, meta, si, sb, sm, src, dst):
    """play_moved's replay of the old log on the changed board. Returns (status, waiting): status
    BOOM, SOLVED, or PLAY_ON when `_run` must finish the play, with `waiting` numbers on its work
    list.

    The old log is followed event by event. A cell is *stale* while the old play knew it and the
    new one does not yet (src and dst are stale until the new play knows them: the numbers around
    them differ). An old event whose reason sees no stale cell still holds: its numbers say what
    they said (around a known src or dst the count and the known mines change together), and
    knowing more never undoes a deduction. Only events next to stale cells are checked, against
    the position as it is; one that fails leaves its cell stale, and the single-number and pair
    rules around stale cells settle what they can as the play goes on. Once nothing is stale, the
    rest of the old log holds as it stands (but for deductions that leaned on dst's old number),
    so an accepted move costs about what its damage does. An added mine changes the total, so
    no deduction that used the total is kept. What is left is played on as usual; the position
    reached is a fresh play's, as sound deductions have one closure."""
    n = mines.shape[0]
    _reset_scratch(sb, n)
    meta[:] = 0
    if mines[click]:
        return BOOM, 0
    st = pb[ST]
    stale = sb[STALE]
    near = si[STALE1]
    t = first_touch(old_i, old_b, nbr, src, dst)
    added = src < 0  # the total grew: deductions that used it no longer hold
    if added:
        for e in range(min(t, old_m[EVENTS])):
            if old_b[EV_WHY, e] == WHY_TOTAL:
                t = e
                break
    # the log up to t stands as it was
    # (copied whole: the events keep their numbers, and TM is read only for known cells)
    # (branch-free, and counted in a local: a counter in memory serialises the loop)
    tm = pi[TM]
    flagged = 0
    for i in range(n):
        near[i] = 0
        si[CHECKED, i] = -1
        s = old_b[ST, i]
        tm[i] = old_i[TM, i]
        known = s != HIDDEN_STATE and tm[i] < t
        st[i] = s if known else HIDDEN_STATE
        flagged += known and s == FLAG_STATE
    end = min(t, old_m[EVENTS])
    meta[FLAGGED] = flagged
    meta[OPENED] = end - flagged  # each event before t revealed one cell
    meta[EVENTS] = end
    for e in range(end):
        pi[EV_CELL, e] = old_i[EV_CELL, e]
        pi[EV_A, e] = old_i[EV_A, e]
        pi[EV_B, e] = old_i[EV_B, e]
        why = old_b[EV_WHY, e]
        pb[EV_WHY, e] = why
        if why == WHY_TOTAL:
            meta[NEEDED_TOTAL] = 1
    if not added:
        stale[src] = True
        _mark_stale(si, nbr, src, 1)
    stale[dst] = True
    _mark_stale(si, nbr, dst, 1)
    near[dst] += 1  # for good: dst is no number now, so no event that reasoned from it is clean
    # while dst's number spoke (from when it opened until its neighbours were all known), a
    # deduction over a whole component may have leaned on it
    dst_spoke = old_i[TM, dst] if old_b[ST, dst] == OPEN_STATE else old_m[EVENTS]
    dst_quiet = dst_spoke
    for k in range(8):
        j = nbr[dst, k]
        if j >= 0:
            dst_quiet = max(dst_quiet, old_i[TM, j] if old_b[ST, j] != HIDDEN_STATE else old_m[EVENTS])
    meta[STALE_NOW] = 1 if added else 2
    e = end
    last = old_m[EVENTS]
    while e < last:
        if meta[STALE_NOW] == 0:
            # nothing stale: the old events hold as logged, but for those that reasoned from dst
            while e < last:
                x = old_i[EV_CELL, e]
                if st[x] == HIDDEN_STATE:
                    a = old_i[EV_A, e]
                    b = old_i[EV_B, e]
                    why = old_b[EV_WHY, e]
                    if a == dst or b == dst or (why >= WHY_COMPONENT and dst_spoke <= e <= dst_quiet) or (
                            added and why == WHY_TOTAL):
                        break
                    if why == WHY_TOTAL:
                        meta[NEEDED_TOTAL] = 1
                    _log(pi, pb, meta, x, old_b[ST, x] == FLAG_STATE, why, a, b)
                e += 1
            if e == last:
                break
        ev = e
        e += 1
        x = old_i[EV_CELL, ev]
        if st[x] != HIDDEN_STATE or x == src or x == dst:
            continue
        why = old_b[EV_WHY, ev]
        a = old_i[EV_A, ev]
        b = old_i[EV_B, ev]
        mine = old_b[ST, x] == FLAG_STATE
        if why == WHY_NUMBER:
            ok = near[a] == 0
            if not ok and st[a] == OPEN_STATE:
                _sync(pi, st, nbr, a)
                ok = _number_implies(numbers, pi, pb, a, mine)
        elif why == WHY_PAIR:
            ok = near[a] == 0 and near[b] == 0
            if not ok and st[a] == OPEN_STATE and st[b] == OPEN_STATE:
                _sync(pi, st, nbr, a)
                _sync(pi, st, nbr, b)
                ok = _pair_implies(numbers, nbr, pi, pb, si, a, b, x, mine)
        elif why == WHY_CLICK:
            ok = True
        else:  # over a component, or with the total: clean when nothing stale touches it
            ok = (ev < dst_spoke or ev > dst_quiet) and not (added and why == WHY_TOTAL)
            if ok and meta[STALE_NOW] > 0:
                ok = why == WHY_COMPONENT and _component_clean(pb, nbr, si, sb, x)
            if ok and why == WHY_TOTAL:
                meta[NEEDED_TOTAL] = 1
        if ok:
            _log(pi, pb, meta, x, mine, why, a, b)
        else:
            stale[x] = True
            meta[STALE_NOW] += 1
            _mark_stale(si, nbr, x, 1)
        wtop = _push_near_stale(pb, si, sb, nbr, x, 0)
        if wtop > 0:
            _settle(numbers, nbr, pi, pb, meta, si, sb, wtop, sm[PAIRS_OK] != 0)
    if meta[OPENED] + meta[FLAGGED] == n:
        return SOLVED, 0
    # play on from here: the counts, kept only where the replay looked, for the whole position
    # (all known but the hidden cells, whose neighbours count them)
    hid = pi[HID]
    kno = pi[KNO]
    hm = pi[HMASK]
    for i in range(n):
        hid[i] = 0
        hm[i] = 0
        kno[i] = numbers[i]
    # The single-number and pair rules around stale cells have settled what they can, so only
    # the numbers next to hidden cells that are not stale (the old play never knew them) are
    # queued for those rules; complete deduction decides the rest (all the rules would, too).
    wtop = 0
    for u in range(n):
        if st[u] == HIDDEN_STATE:
            for k in range(8):
                j = nbr[u, k]
                if j >= 0:
                    hid[j] += 1
                    hm[j] |= 1 << (7 - k)
                    if mines[u]:
                        kno[j] -= 1
                    if not stale[u] and st[j] == OPEN_STATE:
                        wtop = _push(si, sb, wtop, j)
    return PLAY_ON, wtop


@unrefcounted
def move_mine(mines, numbers, nbr, src, dst):
    """Move the mine at `src` to the free cell `dst`, keeping `numbers` right."""
    mines[src] = False
    mines[dst] = True
    for k in range(8):
        j = nbr[src, k]
        if j >= 0:
            numbers[j] -= 1
        j = nbr[dst, k]
        if j >= 0:
            numbers[j] += 1


@unrefcounted
def set_mine(mines, numbers, nbr, cell, mine):
    """Lay a mine at free `cell` (mine=True) or take the one there away, keeping `numbers` right."""
    mines[cell] = mine
    by = 1 if mine else -1
    for k in range(8):
        j = nbr[cell, k]
        if j >= 0:
            numbers[j] += by


# The generators' view of the certifier: a position that can be started, have a mine moved,
# and give its verdict (SOLVED, STUCK or BUDGET). The play logs inside are the certifier's own.
Position = namedtuple("Position", "mines numbers nbr click budget play spare scratch")
Position.__doc__ = """A board being certified from its click: the flat mines and their numbers (changed in place by
`try_move` and `undo`), the grid, the click, the leaf budget, the log of the board's last play, a
spare log for a changed board's play until it is kept, and the grid's scratch. Made by
`position`, played by `start`."""


@njit(inline='always')
def position(mines, nbr, click, budget, room):
    """A Position for the board `mines` (its numbers counted here) in `room` (from `workspace`)."""
    return Position(mines, count_numbers(mines, nbr), nbr, click, budget, room[0], room[1], room[2])


@njit(inline='always')
def start(p):
    """Play the board from its click; the verdict."""
    pi, pb, meta = p.play
    si, sb, sm = p.scratch
    return play_fresh(p.mines, p.numbers, p.nbr, p.click, p.budget, pi, pb, meta, si, sb, sm)


@njit(inline='always')
def try_move(p, src, dst):
    """Move the mine at `src` to the free cell `dst` (src < 0: lay a new mine at dst) and certify
    the changed board from the last play's log; the verdict. Then `keep(p)` or `undo(p, src, dst)`."""
    if src < 0:
        set_mine(p.mines, p.numbers, p.nbr, dst, True)
    else:
        move_mine(p.mines, p.numbers, p.nbr, src, dst)
    pi, pb, meta = p.play
    qi, qb, qmeta = p.spare
    si, sb, sm = p.scratch
    return play_moved(p.mines, p.numbers, p.nbr, p.click, p.budget, pi, pb, meta, qi, qb, qmeta, si, sb, sm,
                      np.int32(src), np.int32(dst))


@njit(inline='always')
def settle(p):
    """After `start` or `try_move` answered BUDGET: the board as it stands played afresh with no leaf
    budget, into the spare log; the verdict, SOLVED or STUCK, is the board's own (no order of play
    gets further than complete deduction's closure, and a play with no budget reaches it). Then
    `keep(p)` makes that play the position's (or, after try_move, `undo`)."""
    qi, qb, qmeta = p.spare
    si, sb, sm = p.scratch
    return play_fresh(p.mines, p.numbers, p.nbr, p.click, NO_BUDGET, qi, qb, qmeta, si, sb, sm)


@njit(inline='always')
def keep(p):
    """The position after its tried move: the changed board's play becomes its play."""
    return Position(p.mines, p.numbers, p.nbr, p.click, p.budget, p.spare, p.play, p.scratch)


@njit(inline='always')
def undo(p, src, dst):
    """Take back the tried move (the last play still stands for the board)."""
    if src < 0:
        set_mine(p.mines, p.numbers, p.nbr, dst, False)
    else:
        move_mine(p.mines, p.numbers, p.nbr, dst, src)


@njit(inline='always')
def hidden(p, i):
    """Did the last play leave cell i hidden (neither opened nor known to be a mine)?"""
    return p.play[1][ST, i] == HIDDEN_STATE


@njit(inline='always')
def tried_uses_total(p):
    """Does the tried move's play (before `keep` or `undo`) use the mine total?"""
    return p.spare[2][NEEDED_TOTAL] == 1


@njit(inline='always')
def revealed(p, i):
    """Did the last play open cell i?"""
    return p.play[1][ST, i] == OPEN_STATE


def workspace(width: int, height: int, topology: str = "bounded"):
    """Room for a position on this grid: two play logs and the scratch."""
    n = width * height
    return new_play(n), new_play(n), scratch_for(width, height, topology)


@functools.lru_cache(maxsize=4)  # a few grids: a 1000x1000 one holds about 130 MB
def _scratch_tables(width: int, height: int, topology: str):
    return new_scratch(grid.neighbour_table(width, height, topology))


def scratch_for(width: int, height: int, topology: str = "bounded"):
    """A fresh play scratch for this grid, copied from a cached one (building its tables costs
    50 µs on 30x16, a sixth of a no-guess board at 99 mines)."""
    return tuple(a.copy() for a in _scratch_tables(width, height, topology))


def certify(board, x: int, y: int, *, budget: int = DEFAULT_LEAF_BUDGET) -> tuple[bool, bool]:
    """(certified, needs the mine total) for `board` played from the first click (x, y)."""
    nbr = grid.neighbour_table(board.width, board.height, board.topology)
    mines = board.flat_mines
    pi, pb, meta = new_play(mines.shape[0])
    status = play_fresh(mines, board.flat_numbers, nbr, y * board.width + x, budget, pi, pb, meta,
                        *scratch_for(board.width, board.height, board.topology))
    return status == SOLVED, bool(meta[NEEDED_TOTAL])
