"""A playthrough: does logic alone, with the mine total, open a board from a click? (the no-guess verdict)

A play opens the click, then applies the local rules (solver.rules: the single-number rule,
cheap, settles most cells; the pair rule) and, when they stall, a round of complete deduction:
the constraints of the position (solver.frontier), each component swept for which cells can be a
mine and which safe (solver.sweep, deciding without the mine total), and only when that decides
nothing, the components counted and combined with the cells off the frontier under the mine total
(solver.total). A cell is decided iff no consistent layout gives it the other value (existence,
not a float). So a play also says whether a board needs the mine total.

A play sees the mines only to answer "what number does this opened cell show?", i.e. exactly what
a player would see; it never reads a hidden mine to make a decision. Every cell it decides is an
event of its log (solver.state), so a changed board can be certified from the old board's
play (solver.recertify).

The leaf budget: a component with more layouts than `budget` is not counted under the mine total
(BUDGET: a board is then not certified, never certified wrongly).
"""

from __future__ import annotations

import numpy as np

from .._numba_cache import njit
from ..kernels import HIDDEN_STATE
from .deduction import WHY_CLICK, WHY_COMPONENT, WHY_TOTAL
from .frontier import build, by_component, components
from .rules import BROKEN, DONE, reveal_found, settle
from .state import (
    DEG,
    FLAGGED,
    FULL,
    HID,
    HMASK,
    KNO,
    MINE_OUT,
    NEEDED_TOTAL,
    SAFE_OUT,
    ST,
    push,
    reset_scratch,
    reveal,
    shown,
)
from .sweep import GROW, OK, _backward, _grown, backward, clear, forward, sweep, workspace
from .total import combine

# Outcome codes of a play.
SOLVED = 0
STUCK = 1  # complete deduction decides nothing: a guess is needed
BUDGET = 2  # a component had more layouts than the budget allows (treated as not certified)
BOOM = 3  # the click itself is a mine (only when a caller passes a bad click)
PLAY_ON = 4  # (inside a play: the replay of an old log is done, the usual play goes on)

DEFAULT_LEAF_BUDGET = 200_000
SMALL_COMPONENT = 12  # frontier cells: components this small are all decided in one round


@njit
def _by_size(comp_start, order, front):
    """The components smallest first, those of one size by their first cell on the board: most
    stalls are broken by a small one, and then the round stops."""
    ncomp = comp_start.shape[0] - 1
    low = np.empty(ncomp, dtype=np.int64)
    for c in range(ncomp):
        low[c] = front[order[comp_start[c]]]
        for q in range(comp_start[c], comp_start[c + 1]):
            low[c] = min(low[c], front[order[q]])
    out = np.empty(ncomp, dtype=np.int64)
    for c in range(ncomp):
        j = c
        size = comp_start[c + 1] - comp_start[c]
        while j > 0 and (comp_start[out[j - 1] + 1] - comp_start[out[j - 1]] > size or (
                comp_start[out[j - 1] + 1] - comp_start[out[j - 1]] == size and low[out[j - 1]] > low[c])):
            out[j] = out[j - 1]
            j -= 1
        out[j] = c
    return out


# complete_step, _with_total and run are inlined into their one caller each (run into play_fresh and
# replay.play_moved): numba links a called kernel's code into its caller's and optimizes it all again,
# so every level of calls between kernels compiles everything below it once more.
@njit(inline='always')
def complete_step(st, numbers, nbr, hid, kno, hmask, mines_left, safe_out, mine_out, budget):
    """One round of complete deduction on the position (its states `st` and counts).

    Fills safe_out / mine_out (flat bool) with decided cells; returns (how many decided, status,
    whether the mine total was used) where status is SOLVED (fine) or BUDGET. The total is used
    only when the components alone decide nothing.
    """
    fidx, front, nf, off, con_cell, nc, need, nfree, con_start, con_front, fcons, fdeg, parent = \
        build(st, numbers, nbr, hid, kno, hmask)
    order, comp_start, con_comp, pos = components(nf, nc, con_start, con_front, fcons, fdeg, parent)
    ncomp = comp_start.shape[0] - 1
    cstart, clist = by_component(con_comp, ncomp)
    maxm = 0
    for c in range(ncomp):
        maxm = max(maxm, comp_start[c + 1] - comp_start[c])
    ws = workspace(4 * maxm + 8, maxm, nc, np.int64(1))
    F = np.zeros((4 * maxm + 8, 1))  # (floats: a layout count is never 0 by rounding, so it says which exist)
    keys, flo, fhi, child, layer, inc, inc_n, ck, cv, uniq, ints, E, W = ws
    can = np.zeros(2 * nf, dtype=np.bool_)
    can_mine = can[:nf]
    can_safe = can[nf:]
    p_out = np.zeros(1)
    anything = np.ones(1, dtype=np.bool_)
    over_budget = False
    found = 0
    by_size = _by_size(comp_start, order, front)
    for ci in range(ncomp):
        c = by_size[ci]
        m = comp_start[c + 1] - comp_start[c]
        vars_ = order[comp_start[c]:comp_start[c + 1]]
        cons = clist[cstart[c]:cstart[c + 1]]
        status = forward(m, cons, need, con_start, con_front, pos, F, 0, False, keys, flo, fhi, child, layer, inc,
                         inc_n, ck, cv, uniq, ints)
        while status == GROW:  # (the states did not fit: twice the rows, and again)
            ws, F = _grown(ws, F)
            keys, flo, fhi, child, layer, inc, inc_n, ck, cv, uniq, ints, E, W = ws
            status = forward(m, cons, need, con_start, con_front, pos, F, 0, False, keys, flo, fhi, child, layer,
                             inc, inc_n, ck, cv, uniq, ints)
        if status == OK:
            _backward(F, flo, fhi, child, layer, E, W, m, anything, anything, vars_, p_out, can_mine, can_safe, False)
        clear(F, ws, m, status)
        if status != OK:  # numbers too tangled to sweep: this board is not certified
            over_budget = True
            continue
        for q in range(m):
            v = vars_[q]
            if can_mine[v] != can_safe[v]:
                found += 1
                if can_mine[v]:
                    mine_out[front[v]] = True
                else:
                    safe_out[front[v]] = True
        # take every small component's decisions in one round (fewer rounds), but stop before a
        # large one once something is decided
        if found > 0 and (ci + 1 == ncomp or comp_start[by_size[ci + 1] + 1] - comp_start[by_size[ci + 1]]
                          > SMALL_COMPONENT):
            return found, SOLVED, False
    if found > 0:
        return found, SOLVED, False
    if over_budget:
        return 0, BUDGET, False
    # the components alone decide nothing. The total cannot help when the frontier could hold
    # anything from none of its cells to all of them and the rest still fit off the frontier
    # (a frontier total fixed at none or all would have decided its cells already)
    if nf > 0 and mines_left - off <= 0 and nf <= mines_left:
        return 0, SOLVED, False
    # nor when the frontier surely holds fewer mines than are left and the cells off it more
    # places than are left: then every frontier layout fits, and the count off the frontier is
    # neither none nor all of it (a sound bound is enough here, and saves counting every layout)
    if nf > 0 and mines_left < off and _frontier_mines_at_most(nf, nc, con_cell, need, nbr, st, fidx) < mines_left:
        return 0, SOLVED, False
    return _with_total(nf, off, front, order, comp_start, cstart, clist, need, con_start, con_front, pos,
                       mines_left, st, fidx, safe_out, mine_out, budget, ws, can_mine, can_safe)


@njit(inline='always')
def _with_total(nf, off, front, order, comp_start, cstart, clist, need, con_start, con_front, pos, mines_left, st,
                fidx, safe_out, mine_out, budget, ws, can_mine, can_safe):
    """The round's deductions with the mine total: each component counted by mine count (floats:
    which counts it reaches exactly, and whether its layouts pass `budget`: BUDGET), combined with
    the cells off the frontier, and swept back for what the total allows."""
    ncomp = comp_start.shape[0] - 1
    maxm = 0
    for c in range(ncomp):
        maxm = max(maxm, comp_start[c + 1] - comp_start[c])
    supp = np.zeros((ncomp, maxm + 1), dtype=np.bool_)
    sizes = np.empty(ncomp, dtype=np.int64)
    ws = workspace(ws[0].shape[0], maxm, ws[10].shape[0], maxm + 1)  # (now with a column per mine count)
    rows = ws[0].shape[0]
    # a table of m + 1 columns for each component, in one zeroed buffer (each sweep clears what it
    # used): reshaped, not sliced, so it is C-contiguous as every other table the sweep takes, and
    # the sweep is compiled once for them all
    table = np.zeros(rows * (maxm + 1))
    for c in range(ncomp):
        m = comp_start[c + 1] - comp_start[c]
        sizes[c] = m
        status, F, ws = sweep(m, clist[cstart[c]:cstart[c + 1]], need, con_start, con_front, pos,
                              table[:rows * (m + 1)].reshape((rows, m + 1)), 0.0, True, ws)
        if status != OK:
            return 0, BUDGET, False
        if F.shape[0] > rows:
            rows = F.shape[0]
            table = np.zeros(rows * (maxm + 1))
        fin = ws[4][m]
        layouts = 0.0
        for k in range(m + 1):
            layouts += F[fin, k]
            supp[c, k] = F[fin, k] > 0
        clear(F, ws, m, status)
        if layouts > budget:
            return 0, BUDGET, False
    _, feasible, _, off_safe, off_mine, _, _, ok, _ = combine(supp.astype(np.float64), supp, sizes, off, mines_left,
                                                              False, 0)
    if not ok:
        return 0, SOLVED, True
    p_out = np.zeros(1)
    decided = 0
    for c in range(ncomp):
        m = sizes[c]
        vars_ = order[comp_start[c]:comp_start[c + 1]]
        status, F, ws = sweep(m, clist[cstart[c]:cstart[c + 1]], need, con_start, con_front, pos,
                              table[:rows * (m + 1)].reshape((rows, m + 1)), 0.0, True, ws)
        backward(F, ws, m, feasible[c, :m + 1], feasible[c, :m + 1], vars_, p_out, can_mine, can_safe, False)
        clear(F, ws, m, status)
        for q in range(m):
            v = vars_[q]
            if can_mine[v] != can_safe[v]:
                decided += 1
                if can_mine[v]:
                    mine_out[front[v]] = True
                else:
                    safe_out[front[v]] = True
    if off > 0 and off_safe != off_mine:
        for i in range(st.shape[0]):
            if st[i] == HIDDEN_STATE and fidx[i] < 0:
                if off_mine:
                    mine_out[i] = True
                else:
                    safe_out[i] = True
                decided += 1
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


@njit(inline='always')
def run(mines, numbers, nbr, budget, pi, pb, meta, si, sb, sm, wtop):
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
        how = settle(numbers, nbr, pi, pb, meta, si, sb, sm, wtop, goal)
        if how == DONE:
            return SOLVED
        if how == BROKEN:  # (a play's numbers are the board's: they always fit)
            return STUCK
        got, status, used_total = complete_step(st, numbers, nbr, pi[HID], pi[KNO], pi[HMASK],
                                                total - meta[FLAGGED], sb[SAFE_OUT], sb[MINE_OUT], budget)
        if status != SOLVED:
            return status
        if got == 0:
            return STUCK
        if used_total:
            meta[NEEDED_TOTAL] = 1
        wtop = reveal_found(numbers, nbr, pi, pb, meta, si, sb, WHY_TOTAL if used_total else WHY_COMPONENT)


@njit
def play_fresh(mines, numbers, nbr, click, budget, pi, pb, meta, si, sb, sm):
    """Play `mines` (with `numbers`) from `click` without guessing, logging into (pi, pb, meta).
    Returns SOLVED, STUCK, BUDGET or BOOM; meta[NEEDED_TOTAL] says whether the total was needed."""
    n = mines.shape[0]
    reset_scratch(sb, n)
    meta[:] = 0
    for i in range(n):
        pb[ST, i] = HIDDEN_STATE
        pi[HID, i] = si[DEG, i]
        pi[HMASK, i] = si[FULL, i]
        pi[KNO, i] = 0
    if mines[click]:
        return BOOM
    reveal(pi, pb, meta, nbr, click, shown(numbers, click, False), WHY_CLICK, -1, -1)
    wtop = push(si, sb, 0, click)
    return run(mines, numbers, nbr, budget, pi, pb, meta, si, sb, sm, wtop)


__all__ = ["SOLVED", "STUCK", "BUDGET", "BOOM", "DEFAULT_LEAF_BUDGET", "play_fresh", "run", "complete_step"]
