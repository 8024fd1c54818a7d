"""Perfect play over a set of layouts, searched once: the end game's and `sweeplab optimal`'s search.

Every layout of a state is equally likely. A state is the set of layouts still consistent with
what was seen; revealing a cell splits it by what the reveal shows (`sights`: its number, and for a
0 every cell its cascade opens with their numbers). W(S), the layouts of S perfect play wins, is an
exact integer: one layout left is won; a guess wins the sum of W over the parts its safe layouts
split into; W(S) is the best guess's. A cell safe in every layout of S whose reveal tells
something is opened for free (more knowledge never hurts).

`search` is a compiled memoised expectimax over numpy arrays. Each reveal's outcome per layout is
a small id (the `sights` array); a state is a run of layout numbers in one pool, split by a
counting sort on those ids, and memoised under a 128-bit Zobrist signature of its layout set (each
layout two random 64-bit words, a set the XOR of its members': two different sets agree with
chance 2**-128). Cells are tried safest first and cut off when even surviving them could not beat
the best found; a cell whose parts are all settled already (one layout, or in the memo) is counted
without entering them or moving its layouts. Past `budget` new states it gives up, so it never
hangs.
"""

from __future__ import annotations

import numpy as np

from .._numba_cache import njit
from ..view import FLAG, View


@njit
def _cascade_ids(values, near, nnear, k, rows):
    """What revealing cell k shows in each layout of `rows` where it is a 0, as an id per row (equal
    ids for equal sights, numbered in order of first sight). A sight lists, per cell, its number
    when the cascade opens it, else -2. A 0 has no mine around it, so every cell it opens is safe;
    the cascade stays among the cells the layouts cover (no other hidden cell is safe). Equal
    sights are found by hashing each row and comparing the rows whose hashes meet."""
    n = values.shape[1]
    R = rows.shape[0]
    out = np.full((R, n), -2, dtype=np.int8)
    stack = np.empty(n, dtype=np.int64)
    for t in range(R):
        r = rows[t]
        out[t, k] = values[r, k]
        stack[0] = k
        top = 1
        while top:
            top -= 1
            j = stack[top]
            if values[r, j] == 0:
                for q in range(nnear[j]):
                    i = near[j, q]
                    if out[t, i] == -2:
                        out[t, i] = values[r, i]
                        stack[top] = i
                        top += 1
    cap = 4
    while cap < 2 * R:
        cap *= 2
    mask = cap - 1
    first = np.full(cap, -1, dtype=np.int64)  # per slot: the first row met with its sight
    ids = np.empty(R, dtype=np.int64)
    m = 0
    for t in range(R):
        h = np.uint64(14695981039346656037)  # FNV-1a over the row
        for j in range(n):
            h = (h ^ np.uint64(np.uint8(out[t, j]))) * np.uint64(1099511628211)
        i = np.int64(h & np.uint64(mask))
        while first[i] >= 0:
            u = first[i]
            same = True
            for j in range(n):
                if out[u, j] != out[t, j]:
                    same = False
                    break
            if same:
                break
            i = (i + 1) & mask
        if first[i] >= 0:
            ids[t] = ids[first[i]]
        else:
            first[i] = t
            ids[t] = m
            m += 1
    return ids


def sights(view: View, mines: np.ndarray, undecided: np.ndarray, L: np.ndarray) -> np.ndarray:
    """(cells, layouts) int32: for each undecided cell k (in np.flatnonzero order) and layout (rows of
    L over the undecided cells), the id of what revealing k shows (its number, or for a 0 the cells
    its cascade opens with their numbers: equal ids for equal sights), -1 where k is a mine.
    `mines`: the cells known to be mines (besides the view's flags)."""
    var = np.flatnonzero(undecided.reshape(-1))
    n = len(var)
    nbr = view.neighbours
    known = mines.reshape(-1) | (view.cells.reshape(-1) == FLAG)
    pos = np.full(view.cells.size + 1, -1, dtype=np.int64)  # index -1 (off a bounded grid): none
    pos[var] = np.arange(n)
    ns = nbr[var]
    base = np.where(ns >= 0, known[ns], False).sum(axis=1)
    near_all = pos[ns]
    nnear = (near_all >= 0).sum(axis=1)
    near = np.full((n, 8), -1, dtype=np.int64)
    for k in range(n):
        got = near_all[k][near_all[k] >= 0]
        near[k, :len(got)] = got
    # each cell's number: its known mines and its undecided neighbours' mines, gathered (a column of
    # no mines stands for the empty slots, index -1); neighbours are mutual, so a cell's row of
    # `near` lists the cells whose mines it counts
    padded = np.zeros((L.shape[0], n + 1), dtype=np.int8)
    padded[:, :n] = L
    values = base + padded[:, near].sum(axis=2, dtype=np.int64)
    values[L] = -1
    obs = values.T.astype(np.int32)  # a nonzero number is its own id (0..8)
    for k in range(n):
        rows = np.flatnonzero(values[:, k] == 0)
        if len(rows):
            obs[k, rows] = 9 + _cascade_ids(values, near, nnear, k, rows)
    return obs


def signatures(layouts: int, seed: int = 16):
    """Each layout's two signature words, seeded: the same search on every run."""
    z = np.random.default_rng(seed).integers(0, 2**63, size=(2, layouts), dtype=np.int64).view(np.uint64)
    return z[0].copy(), z[1].copy()


@njit
def new_memo(cap):
    """An empty memo (open addressing, at most half full): its table, a row per slot (the key's two
    words, the set's size, W; size 0: an empty slot), one row a cache line's half so that a probe
    reads one line; and the entries used."""
    return np.zeros((cap, 4), dtype=np.uint64), np.zeros(1, dtype=np.int64)


@njit
def _find(table, h1, h2, size):
    """The slot of (h1, h2, size) in the memo's table, or the empty slot for it."""
    mask = table.shape[0] - 1
    i = np.int64(h1 & np.uint64(mask))
    s = np.uint64(size)
    while table[i, 2] != 0 and not (table[i, 0] == h1 and table[i, 1] == h2 and table[i, 2] == s):
        i = (i + 1) & mask
    return i


@njit
def _remember(memo, h1, h2, size, value):
    """Store W of a state in the memo, doubling its table when it would pass half full."""
    table, used = memo
    if 2 * (used[0] + 1) > table.shape[0]:
        old = table
        table = np.zeros((2 * old.shape[0], 4), dtype=np.uint64)
        for j in range(old.shape[0]):
            if old[j, 2] != 0:
                table[_find(table, old[j, 0], old[j, 1], old[j, 2])] = old[j]
    i = _find(table, h1, h2, size)
    table[i, 0], table[i, 1], table[i, 2], table[i, 3] = h1, h2, np.uint64(size), np.uint64(value)
    used[0] += 1
    return table, used


@njit(inline='always')
def _guesses(byrow, pool, lo, hi, alive, order, nsafe, low, high, d, n, force):
    """List what state d can reveal (its layouts pool[lo:hi]): a cell safe in every layout that
    tells something alone (opened for free), else the guesses safest first, then by cell; with
    `force` >= 0 (the root), that cell alone. Returns (how many, free).

    A cell's safe layouts, and whether it shows more than one thing in them, are counted without a
    branch (a loop the compiler runs on several cells at once): `byrow` read as unsigned makes a
    mine's -1 the largest value, so the least sight over the layouts skips the mines, while the
    greatest (signed) is -1 only where every layout has a mine; the cell varies iff least < greatest."""
    size = hi - lo
    for k in range(n):
        nsafe[k] = 0
        low[k] = np.uint32(0xFFFFFFFF)
        high[k] = -1
    for t in range(lo, hi):
        r = pool[t]
        for k in range(n):
            o = byrow[r, k]
            nsafe[k] += o >= 0
            low[k] = min(low[k], np.uint32(o))
            high[k] = max(high[k], o)
    for k in range(n):
        alive[d, k] = nsafe[k]
    if force >= 0:
        order[d, 0] = force
        return 1, alive[d, force] == size
    for k in range(n):
        if nsafe[k] == size and np.int64(low[k]) < high[k]:
            order[d, 0] = k
            return 1, True
    count = 0
    for k in range(n):  # an insertion sort: safest first, then by cell
        if 0 < alive[d, k] < size:
            q = count
            while q > 0 and alive[d, order[d, q - 1]] < alive[d, k]:
                order[d, q] = order[d, q - 1]
                q -= 1
            order[d, q] = k
            count += 1
    return count, False


@njit(inline='always')
def _split(obs, pool, lo, hi, c, b0, bnd, ph1, ph2, cnt, slot, ids, sg1, sg2, z1, z2):
    """Split the layouts pool[lo:hi] where c is safe by what c shows, and sign the parts: one pass
    that counts each id's layouts and XORs their signatures (in sg1 / sg2, by id). Part q, in the
    order its id is first met, will lie at bnd[b0 + q]..bnd[b0 + q + 1] (offsets from where `_place`
    writes it) with its signature in ph1 / ph2; slot[id]: where its part starts. Returns the parts."""
    m = 0
    for t in range(lo, hi):
        r = pool[t]
        o = obs[c, r]
        if o >= 0:
            if cnt[o] == 0:
                ids[m] = o
                m += 1
                sg1[o] = z1[r]
                sg2[o] = z2[r]
            else:
                sg1[o] ^= z1[r]
                sg2[o] ^= z2[r]
            cnt[o] += 1
    at = 0
    for q in range(m):
        o = ids[q]
        slot[o] = at
        bnd[b0 + q] = at
        at += cnt[o]
        cnt[o] = 0
        ph1[b0 + q] = sg1[o]
        ph2[b0 + q] = sg2[o]
    bnd[b0 + m] = at
    return m


@njit(inline='always')
def _place(obs, pool, lo, hi, c, top, slot):
    """Write the parts `_split` listed from pool[top] on, a counting sort's second pass (only when
    some part must be searched: a cell whose parts are all settled needs no layouts moved)."""
    for t in range(lo, hi):
        r = pool[t]
        o = obs[c, r]
        if o >= 0:
            pool[top + slot[o]] = r
            slot[o] += 1


@njit(inline='always')
def _settled(memo, bnd, ph1, ph2, b0, m):
    """The wins of a cell's m parts (listed from bnd[b0]) when each is settled already (one
    layout, or found in the memo), else -1."""
    table = memo[0]
    total = 0
    for q in range(m):
        size = bnd[b0 + q + 1] - bnd[b0 + q]
        if size == 1:
            total += 1
        else:
            i = _find(table, ph1[b0 + q], ph2[b0 + q], size)
            if table[i, 2] == 0:
                return -1
            total += np.int64(table[i, 3])
    return total


@njit
def search(obs, budget, every, force, z1, z2, memo):
    """(W of all layouts, the cell to reveal first, new states searched, per-cell W at the root, memo).

    obs: `sights` (cells x layouts). W is -1 when the search passes `budget` new states. With
    `every`, each cell the root can guess is searched in full (no cut-off at the root) and its W
    kept in the per-cell array (-1: not a guess). With `force` >= 0, the root reveals that cell
    (the value is then what revealing it first wins; the root is not memoised). `memo` (from
    `new_memo`) may be carried from one search to the next over the same layouts and signatures.
    Depth-first with an explicit stack (numba cannot cache a recursive function): frame d holds
    its layouts in pool[lo[d]:hi[d]], the parts of the cell it tries in pool[top[d]:...], cut at
    bnd[btop[d]:...] (offsets from top[d]); a reveal decides its cell, so the depth is at most n + 1.
    """
    n, N = obs.shape
    byrow = obs.T.copy()  # the scan of a state reads each layout's row
    depth = n + 2
    G = 1 + max(0, np.int64(obs.max())) if obs.size else 1  # ids 0..G-1
    pool = np.empty(N * (depth + 1), dtype=np.int32)
    for r in range(N):
        pool[r] = r
    # left unzeroed (each slot written before read): a large search never faults in most of them
    bnd = np.empty((N + 1) * depth + 1, dtype=np.int64)
    ph1 = np.empty((N + 1) * depth + 1, dtype=np.uint64)
    ph2 = np.empty((N + 1) * depth + 1, dtype=np.uint64)
    cnt = np.zeros(G, dtype=np.int64)       # scratch of the counting sort: layouts per id ...
    slot = np.zeros(G, dtype=np.int64)      # ... where its part starts ...
    sg = np.zeros((2, G), dtype=np.uint64)  # ... and its signature's two words
    sg1, sg2 = sg[0], sg[1]
    ids = np.empty(N, dtype=np.int64)       # the ids met, in order of first sight
    frame = np.zeros((13, depth), dtype=np.int64)  # per frame: its layouts, parts, the cell it tries
    lo, hi, top, btop, ncand, pos = frame[0], frame[1], frame[2], frame[3], frame[4], frame[5]
    cell, groups, g, got, left, best, bestk = frame[6], frame[7], frame[8], frame[9], frame[10], frame[11], frame[12]
    sh1 = np.zeros(depth, dtype=np.uint64)
    sh2 = np.zeros(depth, dtype=np.uint64)
    free = np.zeros(depth, dtype=np.bool_)
    alive = np.zeros((depth, n), dtype=np.int64)
    order = np.zeros((depth, n), dtype=np.int64)
    nsafe = np.zeros(n, dtype=np.int32)     # scratch of `_guesses`: per cell, its safe layouts, ...
    low = np.zeros(n, dtype=np.uint32)      # ... its least sight in them (a mine read as the largest) ...
    high = np.zeros(n, dtype=np.int32)      # ... and its greatest
    rootw = np.full(n, -1, dtype=np.int64)
    spent = 0
    for r in range(N):  # the root's signature: every layout's
        sh1[0] ^= z1[r]
        sh2[0] ^= z2[r]
    d = 0
    lo[0], hi[0], top[0], btop[0] = 0, N, N, 0
    enter = True
    ret = -1
    while True:
        if enter:  # a new state: settle it from the memo if we can, else list its guesses
            enter = False
            size = hi[d] - lo[d]
            value = -1
            if size == 1 and not (d == 0 and force >= 0):
                value = 1  # one layout left: every safe cell is known
            elif not (d == 0 and force >= 0):
                i = _find(memo[0], sh1[d], sh2[d], size)
                if memo[0][i, 2] != 0:
                    value = np.int64(memo[0][i, 3])
                else:
                    spent += 1
                    if spent > budget:
                        return -1, -1, spent, rootw, memo
            if value >= 0:
                if d == 0:
                    return value, -1, spent, rootw, memo
                d -= 1
                ret = value
            else:
                ncand[d], free[d] = _guesses(byrow, pool, lo[d], hi[d], alive, order, nsafe, low, high, d, n,
                                             force if d == 0 else -1)
                pos[d], cell[d], best[d], bestk[d] = 0, -1, -1, -1
                btop[d] = 0 if d == 0 else btop[d - 1] + groups[d - 1] + 1
                top[d] = N if d == 0 else top[d - 1] + alive[d - 1, cell[d - 1]]
        if ret >= 0:  # a part of the cell being tried came back
            got[d] += ret
            g[d] += 1
            ret = -1
            bound = -1 if (d == 0 and (every or force >= 0)) or free[d] else best[d]
            if got[d] + left[d] <= bound:
                g[d] = groups[d] + 1  # even winning the rest cannot beat the best: give up this cell
        c = cell[d]
        if c >= 0 and g[d] < groups[d]:  # play the next part of cell c
            b = btop[d] + g[d]
            s0, s1 = top[d] + bnd[b], top[d] + bnd[b + 1]
            left[d] -= s1 - s0
            d += 1
            lo[d], hi[d], sh1[d], sh2[d] = s0, s1, ph1[b], ph2[b]
            enter = True
            continue
        if c >= 0 and g[d] == groups[d]:  # cell c played to the end: is it the best so far?
            if d == 0 and every:
                rootw[c] = got[d]
            if got[d] > best[d]:
                best[d] = got[d]
                bestk[d] = c
        cell[d] = -1
        if pos[d] < ncand[d]:
            c = order[d, pos[d]]
            pos[d] += 1
            bound = -1 if (d == 0 and (every or force >= 0)) or free[d] else best[d]
            if alive[d, c] > bound:
                groups[d] = _split(obs, pool, lo[d], hi[d], c, btop[d], bnd, ph1, ph2, cnt, slot, ids, sg1, sg2,
                                   z1, z2)
                total = _settled(memo, bnd, ph1, ph2, btop[d], groups[d])
                if total >= 0:  # every part settled already: the cell's wins with no frame entered
                    cell[d], g[d], got[d], left[d] = c, groups[d], total, 0
                else:
                    _place(obs, pool, lo[d], hi[d], c, top[d], slot)
                    cell[d], g[d], got[d], left[d] = c, 0, 0, alive[d, c]
                continue
            pos[d] = ncand[d]  # sorted by safety: no cell left can beat the best
        # every guess tried: settle this state
        value = best[d] if bestk[d] >= 0 else hi[d] - lo[d]
        if d == 0:
            return value, bestk[0], spent, rootw, memo
        memo = _remember(memo, sh1[d], sh2[d], hi[d] - lo[d], value)
        d -= 1
        ret = value
    return -1, -1, spent, rootw, memo
