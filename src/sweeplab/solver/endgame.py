"""The exhaustive end game: when few layouts remain, the guess with the highest chance of winning.

Every remaining layout is equally likely. A state is the set of layouts still consistent; revealing
a cell splits it by what the reveal shows: its number, and when that is a 0, every cell its cascade
opens with their numbers. A cell safe in every layout of a state is opened for free when it tells
something. W(S), the layouts of S perfect play wins, is an exact integer: one layout left is won;
a guess wins the sum of W over the parts its safe layouts split into; W(S) is the best guess's.

The search is a compiled (numba) memoised expectimax over numpy arrays. Each reveal's outcome per
layout is first reduced to a small id (`observations`); a state is a run of layout numbers in one
pool, split by a counting sort on those ids, and memoised under a 128-bit Zobrist signature of its
layout set (each layout two random 64-bit words, a set the XOR of its members': two different sets
agree with chance 2**-128). Cells are tried safest first and cut off when even surviving them
could not beat the best found. Past `budget` new states it gives up (the caller falls back to its
heuristic), so it never hangs.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._numba_cache import njit
from ..errors import SweeplabError
from ..view import FLAG, View
from .layouts import enumerate_layouts

# What each reveal shows costs up to cells x cells x layouts steps to list (a 0's cascade can cross
# every cell, in every layout): past this the end game declines the position (about 0.7 s here).
MAX_SIGHT_WORK = 10_000_000


@njit
def _cascade_rows(values, near, nnear, k, rows):
    """What revealing cell k shows in each layout of `rows` where it is a 0: per undecided cell, its
    number when the cascade opens it, else -2. A 0 has no mine around it, so every cell it opens is
    safe; the cascade stays among undecided cells (no other hidden cell is safe)."""
    n = values.shape[1]
    out = np.full((rows.shape[0], n), -2, dtype=np.int8)
    stack = np.empty(n, dtype=np.int64)
    for t in range(rows.shape[0]):
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
    return out


def observations(view: View, mines: np.ndarray, undecided: np.ndarray, L: np.ndarray) -> np.ndarray:
    """(cells, layouts) int32: for each undecided cell k (in np.flatnonzero order) and layout, the id
    of what revealing k shows (its number, or for a 0 the cells its cascade opens with their
    numbers: equal ids for equal sights), -1 where k is a mine."""
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
    adj = np.zeros((n, n), dtype=np.int64)
    for k in range(n):
        got = near_all[k][near_all[k] >= 0]
        near[k, :len(got)] = got
        adj[k, got] = 1
    values = base + L.astype(np.int64) @ adj
    values[L] = -1
    obs = values.T.astype(np.int32)  # a nonzero number is its own id (0..8)
    for k in range(n):
        rows = np.flatnonzero(values[:, k] == 0)
        if len(rows):
            sights = _cascade_rows(values, near, nnear, k, rows)
            _, ids = np.unique(sights, axis=0, return_inverse=True)
            obs[k, rows] = 9 + ids.reshape(-1)
    return obs


@njit
def _find(mk1, mk2, msz, h1, h2, size):
    """The slot of (h1, h2, size) in the memo's open-addressing table, or the empty slot for it."""
    mask = mk1.shape[0] - 1
    i = np.int64(h1 & np.uint64(mask))
    while msz[i] >= 0 and not (mk1[i] == h1 and mk2[i] == h2 and msz[i] == size):
        i = (i + 1) & mask
    return i


@njit
def _search(obs, budget, every, z1, z2):
    """(W of all layouts, the cell to reveal first, new states searched, per-cell W at the root).

    W is -1 when the search passes `budget` new states. With `every`, each cell the root can guess
    is searched in full (no cut-off at the root) and its W kept in the last array (-1: not a guess).
    Depth-first with an explicit stack (numba cannot cache a recursive function): frame d holds its
    layouts in pool[lo[d]:hi[d]], the parts of the cell it tries in pool[top[d]:...], cut at
    bnd[btop[d]:...] (offsets from top[d]); a reveal decides its cell, so the depth is at most n + 1.
    """
    n, N = obs.shape
    byrow = obs.T.copy()  # the scan of a state reads each layout's row
    depth = n + 2
    G = 1
    for k in range(n):
        for r in range(N):
            if obs[k, r] + 1 > G:
                G = obs[k, r] + 1
    pool = np.empty(N * (depth + 1), dtype=np.int32)
    for r in range(N):
        pool[r] = r
    bnd = np.zeros((N + 1) * depth + 1, dtype=np.int64)
    ph1 = np.zeros((N + 1) * depth + 1, dtype=np.uint64)
    ph2 = np.zeros((N + 1) * depth + 1, dtype=np.uint64)
    cap = 1 << 10
    mk1 = np.zeros(cap, dtype=np.uint64)
    mk2 = np.zeros(cap, dtype=np.uint64)
    msz = np.full(cap, -1, dtype=np.int64)
    mval = np.zeros(cap, dtype=np.int64)
    used = 0
    cnt = np.zeros(G, dtype=np.int64)       # scratch of the counting sort: layouts per id ...
    slot = np.zeros(G, dtype=np.int64)      # ... and where its part starts
    ids = np.empty(N, dtype=np.int64)       # the ids met, in order of first sight
    lo = np.zeros(depth, dtype=np.int64)
    hi = np.zeros(depth, dtype=np.int64)
    sh1 = np.zeros(depth, dtype=np.uint64)
    sh2 = np.zeros(depth, dtype=np.uint64)
    top = np.zeros(depth, dtype=np.int64)
    btop = np.zeros(depth, dtype=np.int64)
    alive = np.zeros((depth, n), dtype=np.int64)
    order = np.zeros((depth, n), dtype=np.int64)
    ncand = np.zeros(depth, dtype=np.int64)
    pos = np.zeros(depth, dtype=np.int64)
    free = np.zeros(depth, dtype=np.bool_)
    cell = np.full(depth, -1, dtype=np.int64)
    groups = np.zeros(depth, dtype=np.int64)
    g = np.zeros(depth, dtype=np.int64)
    got = np.zeros(depth, dtype=np.int64)
    left = np.zeros(depth, dtype=np.int64)
    best = np.zeros(depth, dtype=np.int64)
    bestk = np.zeros(depth, dtype=np.int64)
    first = np.zeros(n, dtype=np.int64)
    varies = np.zeros(n, dtype=np.bool_)
    rootw = np.full(n, -1, dtype=np.int64)
    spent = 0

    h1, h2 = np.uint64(0), np.uint64(0)
    for r in range(N):
        h1 ^= z1[r]
        h2 ^= z2[r]
    d = 0
    lo[0], hi[0], sh1[0], sh2[0] = 0, N, h1, h2
    top[0], btop[0] = N, 0
    enter = True
    ret = -1
    while True:
        if enter:  # a new state: settle it from the memo if we can, else list its guesses
            enter = False
            size = hi[d] - lo[d]
            value = -1
            if size == 1:
                value = 1  # one layout left: every safe cell is known
            else:
                i = _find(mk1, mk2, msz, sh1[d], sh2[d], size)
                if msz[i] >= 0:
                    value = mval[i]
                else:
                    spent += 1
                    if spent > budget:
                        return -1, -1, spent, rootw
            if value >= 0:
                if d == 0:
                    return value, -1, spent, rootw
                d -= 1
                ret = value
            else:
                for k in range(n):
                    alive[d, k] = 0
                    varies[k] = False
                    first[k] = -1
                for t in range(lo[d], hi[d]):
                    r = pool[t]
                    for k in range(n):
                        o = byrow[r, k]
                        if o >= 0:
                            alive[d, k] += 1
                            if first[k] < 0:
                                first[k] = o
                            elif o != first[k]:
                                varies[k] = True
                free[d] = False
                ncand[d] = 0
                for k in range(n):  # a cell safe in every layout that tells something: opened for free
                    if alive[d, k] == size and varies[k]:
                        free[d] = True
                        order[d, 0] = k
                        ncand[d] = 1
                        break
                if not free[d]:  # the guesses, safest first, then by cell (an insertion sort)
                    for k in range(n):
                        if 0 < alive[d, k] < size:
                            q = ncand[d]
                            while q > 0 and alive[d, order[d, q - 1]] < alive[d, k]:
                                order[d, q] = order[d, q - 1]
                                q -= 1
                            order[d, q] = k
                            ncand[d] += 1
                pos[d] = 0
                cell[d] = -1
                best[d] = -1
                bestk[d] = -1
                btop[d] = 0 if d == 0 else btop[d - 1] + groups[d - 1] + 1
                top[d] = N if d == 0 else top[d - 1] + alive[d - 1, cell[d - 1]]
        if ret >= 0:  # a part of the cell being tried came back
            got[d] += ret
            g[d] += 1
            ret = -1
            bound = -1 if (d == 0 and every) or free[d] else best[d]
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
        if c >= 0:
            if g[d] == groups[d]:
                if d == 0 and every:
                    rootw[c] = got[d]
                if got[d] > best[d]:
                    best[d] = got[d]
                    bestk[d] = c
            cell[d] = -1
        if pos[d] < ncand[d]:
            c = order[d, pos[d]]
            pos[d] += 1
            bound = -1 if (d == 0 and every) or free[d] else best[d]
            if alive[d, c] > bound:
                # split the safe layouts by what c shows: a counting sort on its ids, parts in
                # the order their ids are first met, each part's signature on the way
                m = 0
                for t in range(lo[d], hi[d]):
                    o = obs[c, pool[t]]
                    if o >= 0:
                        if cnt[o] == 0:
                            ids[m] = o
                            m += 1
                        cnt[o] += 1
                b0 = btop[d]
                at = 0
                for q in range(m):
                    o = ids[q]
                    slot[o] = at
                    bnd[b0 + q] = at
                    ph1[b0 + q] = 0
                    ph2[b0 + q] = 0
                    at += cnt[o]
                    cnt[o] = 0
                bnd[b0 + m] = at
                for t in range(lo[d], hi[d]):
                    r = pool[t]
                    o = obs[c, r]
                    if o >= 0:
                        pool[top[d] + slot[o]] = r
                        slot[o] += 1
                for q in range(m):
                    hq1, hq2 = np.uint64(0), np.uint64(0)
                    for t in range(top[d] + bnd[b0 + q], top[d] + bnd[b0 + q + 1]):
                        hq1 ^= z1[pool[t]]
                        hq2 ^= z2[pool[t]]
                    ph1[b0 + q] = hq1
                    ph2[b0 + q] = hq2
                cell[d] = c
                groups[d] = m
                g[d] = 0
                got[d] = 0
                left[d] = alive[d, c]
                continue
            pos[d] = ncand[d]  # sorted by safety: no cell left can beat the best
        # every guess tried: settle this state
        value = best[d] if bestk[d] >= 0 else hi[d] - lo[d]
        if d == 0:
            return value, bestk[0], spent, rootw
        if 2 * (used + 1) > mk1.shape[0]:  # keep the table at most half full: double it
            old1, old2, olds, oldv = mk1, mk2, msz, mval
            mk1 = np.zeros(2 * old1.shape[0], dtype=np.uint64)
            mk2 = np.zeros(2 * old1.shape[0], dtype=np.uint64)
            msz = np.full(2 * old1.shape[0], -1, dtype=np.int64)
            mval = np.zeros(2 * old1.shape[0], dtype=np.int64)
            for j in range(old1.shape[0]):
                if olds[j] >= 0:
                    i = _find(mk1, mk2, msz, old1[j], old2[j], olds[j])
                    mk1[i], mk2[i], msz[i], mval[i] = old1[j], old2[j], olds[j], oldv[j]
        i = _find(mk1, mk2, msz, sh1[d], sh2[d], hi[d] - lo[d])
        mk1[i], mk2[i], msz[i], mval[i] = sh1[d], sh2[d], hi[d] - lo[d], value
        used += 1
        d -= 1
        ret = value
    return -1, -1, spent, rootw


class EndGame(NamedTuple):
    """The exact end game of a position: `wins` of its `layouts` are won by perfect play, revealing
    `cell` (a flat index) first; `cell_wins[c]`: the wins after revealing c first (-1 for a cell
    that is no guess; only when asked for every cell); `states`: new states searched."""

    wins: int
    layouts: int
    cell: int
    states: int
    cell_wins: dict


def endgame_search(view: View, mines: np.ndarray, undecided: np.ndarray, layouts: int, budget: int,
                   every: bool = False) -> EndGame | None:
    """The exact end game over the undecided cells, or None when there are more than `layouts`
    layouts (the analysis's count: checked) or the search passes `budget` new states. `every`:
    also each guess's own wins (the root searched without cut-offs). None too for a position whose
    sights would take more than MAX_SIGHT_WORK steps to list."""
    if np.count_nonzero(undecided) ** 2 * layouts > MAX_SIGHT_WORK:
        return None
    L = enumerate_layouts(view, mines, undecided, layouts)
    if L is None or len(L) == 0:
        return None
    if len(L) != layouts:
        raise SweeplabError(f"end game: enumerated {len(L)} layouts where the analysis counted {layouts}")
    # each layout's two signature words, seeded: the same search on every run
    z = np.random.default_rng(16).integers(0, 2**63, size=(2, len(L)), dtype=np.int64).view(np.uint64)
    wins, k, states, rootw = _search(observations(view, mines, undecided, L), budget, every, z[0], z[1])
    if wins < 0:
        return None
    var = np.flatnonzero(undecided.reshape(-1))
    cell_wins = {int(var[j]): int(w) for j, w in enumerate(rootw) if w >= 0}
    return EndGame(int(wins), len(L), int(var[k]) if k >= 0 else -1, int(states), cell_wins)


def endgame_move(view: View, mines: np.ndarray, undecided: np.ndarray, layouts: int, budget: int):
    """The guess with the highest chance of winning the whole game, by searching every sequence
    of reveals over the remaining layouts (all equally likely): a `Move`, or None when the search
    goes over `budget` states. `layouts`: how many the analysis counted (checked)."""
    from .players import Move
    e = endgame_search(view, mines, undecided, layouts, budget)
    if e is None or e.cell < 0:
        return None
    return Move("open", e.cell % view.width, e.cell // view.width, False)
