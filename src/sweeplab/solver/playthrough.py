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
from .frontier import frame, order_component
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
    QUIET,
    QUIET_MASK,
    QUIET_NEED,
    QUIET_SIZE,
    REUSE,
    ROUNDS,
    SAFE_OUT,
    SKIPPED,
    ST,
    STAMP,
    push,
    reset_scratch,
    reveal,
    shown,
)
from .sweep import OK, backward, clear, sweep, workspace
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
def _by_size(cs):
    """The components smallest first, those of one size by their first cell on the board: most
    stalls are broken by a small one, and then the round stops."""
    comp_start, order, front = cs.comp_start, cs.order, cs.front
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


@njit
def mark_quiet(cs, k, pi, si):
    """Remember component k of `cs` as swept to no avail: each of its numbers gets the component's
    new stamp, its count of numbers, and the number's hidden neighbours and mines still needed."""
    rounds = si[ROUNDS]
    if rounds[STAMP] >= 1 << 30:  # (the stamps start again before they overflow)
        si[QUIET, :] = 0
        rounds[STAMP] = 0
    rounds[STAMP] += 1
    size = cs.cstart[k + 1] - cs.cstart[k]
    for q in range(cs.cstart[k], cs.cstart[k + 1]):
        c = cs.clist[q]
        j = cs.con_cell[c]
        si[QUIET, j] = rounds[STAMP]
        si[QUIET_SIZE, j] = size
        si[QUIET_MASK, j] = pi[HMASK, j]
        si[QUIET_NEED, j] = cs.need[c]


@njit
def quiet(cs, k, pi, si):
    """Is component k of `cs` one swept to no avail before, unchanged? Its numbers are then those of
    one component marked quiet, all of them (a number newly open beside it would join it through a
    shared hidden cell, and carries no stamp or another), each with the hidden neighbours and the
    mines still needed it had then: the same constraints, which decide the same nothing. A stamp
    holds on any board of the grid, since it compares the constraints themselves."""
    a = cs.cstart[k]
    b = cs.cstart[k + 1]
    first = cs.con_cell[cs.clist[a]]
    stamp = si[QUIET, first]
    if stamp == 0 or si[QUIET_SIZE, first] != b - a:
        return False
    for q in range(a, b):
        c = cs.clist[q]
        j = cs.con_cell[c]
        if si[QUIET, j] != stamp or si[QUIET_MASK, j] != pi[HMASK, j] or si[QUIET_NEED, j] != cs.need[c]:
            return False
    return True


# complete_step, _with_total and run are inlined into their one caller each (run into play_fresh and
# recertify.play_moved): numba links a called kernel's code into its caller's and optimizes it all
# again, so every level of calls between kernels compiles everything below it once more.
@njit(inline='always')
def complete_step(numbers, nbr, pi, pb, si, sb, mines_left, budget):
    """One round of complete deduction on the position in the log arrays (pi, pb), with
    `mines_left` mines not yet known.

    Marks decided cells in sb[SAFE_OUT] / sb[MINE_OUT]; returns (how many decided, status,
    whether the mine total was used) where status is SOLVED (fine) or BUDGET. The total is used
    only when the components alone decide nothing. A component an earlier round swept to no avail
    and unchanged since (`quiet`) is neither ordered nor swept again (unless the scratch says not
    to reuse: state.reuse_quiet).
    """
    cs = frame(numbers, nbr, pi, pb)
    front, comp_start, order = cs.front, cs.comp_start, cs.order
    safe_out = sb[SAFE_OUT]
    mine_out = sb[MINE_OUT]
    nf = front.shape[0]
    ncomp = comp_start.shape[0] - 1
    reuse = si.shape[1] > REUSE and si[ROUNDS, REUSE] == 1
    maxm = np.int64(0)  # (not 0: type inference asks workspace for the literal first, a compile for nothing)
    for c in range(ncomp):
        maxm = max(maxm, comp_start[c + 1] - comp_start[c])
    ws = workspace(4 * maxm + 8, maxm, cs.con_cell.shape[0], np.int64(1))
    F = np.zeros((4 * maxm + 8, 1))  # (floats: a layout count is never 0 by rounding, so it says which exist)
    can = np.zeros(2 * nf, dtype=np.bool_)
    can_mine = can[:nf]
    can_safe = can[nf:]
    out = (np.zeros(1), can_mine, can_safe)
    anything = np.ones(1, dtype=np.bool_)
    over_budget = False
    found = 0
    by_size = _by_size(cs)
    for ci in range(ncomp):
        c = by_size[ci]
        if reuse and quiet(cs, c, pi, si):
            if si.shape[1] > SKIPPED:
                si[ROUNDS, SKIPPED] = (si[ROUNDS, SKIPPED] + 1) & ((1 << 30) - 1)
        else:
            m = comp_start[c + 1] - comp_start[c]
            order_component(cs, c)
            status, F, ws = sweep(cs, c, F, 0.0, ws)  # (0.0: the float tables' one signature)
            if status == OK:
                backward(cs, c, F, ws, anything, anything, out, False)
            clear(F, ws, m, status)
            if status != OK:  # numbers too tangled to sweep: this board is not certified
                over_budget = True
                continue
            got = 0
            for q in range(comp_start[c], comp_start[c + 1]):
                v = order[q]
                if can_mine[v] != can_safe[v]:
                    got += 1
                    if can_mine[v]:
                        mine_out[front[v]] = True
                    else:
                        safe_out[front[v]] = True
            if got == 0:
                mark_quiet(cs, c, pi, si)
            found += got
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
    st = pb[ST]
    off = cs.off
    if nf > 0 and mines_left - off <= 0 and nf <= mines_left:
        return 0, SOLVED, False
    # nor when the frontier surely holds fewer mines than are left and the cells off it more
    # places than are left: then every frontier layout fits, and the count off the frontier is
    # neither none nor all of it (a sound bound is enough here, and saves counting every layout)
    if nf > 0 and mines_left < off and _frontier_mines_at_most(cs, nbr, st) < mines_left:
        return 0, SOLVED, False
    return _with_total(cs, st, mines_left, budget, ws, out, safe_out, mine_out)


@njit(inline='always')
def _with_total(cs, st, mines_left, budget, ws, out, safe_out, mine_out):
    """The round's deductions with the mine total: each component counted by mine count (floats:
    which counts it reaches exactly, and whether its layouts pass `budget`: BUDGET), combined with
    the cells off the frontier, and those whose counts the total narrows swept back for what it
    allows."""
    comp_start, order, front, off = cs.comp_start, cs.order, cs.front, cs.off
    _, can_mine, can_safe = out
    ncomp = comp_start.shape[0] - 1
    maxm = np.int64(0)
    for c in range(ncomp):
        maxm = max(maxm, comp_start[c + 1] - comp_start[c])
        order_component(cs, c)
    supp = np.zeros((ncomp, maxm + 1), dtype=np.bool_)
    sizes = np.empty(ncomp, dtype=np.int64)
    ws = workspace(ws.keys.shape[0], maxm, ws.ints.shape[0], maxm + 1)  # (now with a column per mine count)
    rows = ws.keys.shape[0]
    # a table of m + 1 columns for each component, in one zeroed buffer (each sweep clears what it
    # used): reshaped, not sliced, so it is C-contiguous as every other table the sweep takes, and
    # the sweep is compiled once for them all
    table = np.zeros(rows * (maxm + 1))
    for c in range(ncomp):
        sizes[c] = comp_start[c + 1] - comp_start[c]
    feasible = supp
    off_safe = off_mine = False
    decided = 0
    # two passes over the components in one loop (one sweep to compile, not two): count each by
    # mine count, combine under the total, then sweep back each whose mine counts the total narrows
    # (one it leaves all its counts decides what it decided alone: nothing, or the round would not
    # have come to the total)
    for back in range(2):
        for c in range(ncomp):
            m = sizes[c]
            if back and not _narrowed(feasible, supp, c, m):
                continue
            status, F, ws = sweep(cs, c, table[:rows * (m + 1)].reshape((rows, m + 1)), 0.0, ws)
            if status != OK:  # (only when counting: the second pass sweeps the same components)
                return 0, BUDGET, False
            if back:
                backward(cs, c, F, ws, feasible[c, :m + 1], feasible[c, :m + 1], out, False)
                clear(F, ws, m, status)
                for q in range(comp_start[c], comp_start[c + 1]):
                    v = order[q]
                    if can_mine[v] != can_safe[v]:
                        decided += 1
                        if can_mine[v]:
                            mine_out[front[v]] = True
                        else:
                            safe_out[front[v]] = True
                continue
            if F.shape[0] > rows:
                rows = F.shape[0]
                table = np.zeros(rows * (maxm + 1))
            fin = ws.layer[m]
            layouts = 0.0
            for k in range(m + 1):
                layouts += F[fin, k]
                supp[c, k] = F[fin, k] > 0
            clear(F, ws, m, status)
            if layouts > budget:
                return 0, BUDGET, False
        if not back:
            _, feasible, _, off_safe, off_mine, _, _, ok, _ = combine(supp.astype(np.float64), supp, sizes, off,
                                                                      mines_left, np.bool_(False), np.int64(0))
            if not ok:
                return 0, SOLVED, True
    if off > 0 and off_safe != off_mine:
        fidx = cs.fidx
        for i in range(st.shape[0]):
            if st[i] == HIDDEN_STATE and fidx[i] < 0:
                if off_mine:
                    mine_out[i] = True
                else:
                    safe_out[i] = True
                decided += 1
    return decided, SOLVED, True


@njit
def _narrowed(feasible, supp, c, m):
    """Does the total rule out a mine count that component c (of m cells) reaches alone?"""
    for k in range(m + 1):
        if feasible[c, k] != supp[c, k]:
            return True
    return False


@njit
def _frontier_mines_at_most(cs, nbr, st):
    """An upper bound on the mines the frontier cells can hold: a number's hidden cells hold
    its `need` mines, so for numbers taken in turn that still cover more new cells than they
    need, add their need; every frontier cell left over might be a mine."""
    con_cell, need, fidx = cs.con_cell, cs.need, cs.fidx
    nf = cs.front.shape[0]
    covered = np.zeros(nf, dtype=np.bool_)
    bound = 0
    left = nf
    for c in range(con_cell.shape[0]):
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
def run(board, budget, play, scratch, wtop):
    """Play on from the position in `play` (its log: pi, pb, meta) of `board` (mines, numbers,
    neighbour table) with `wtop` numbers waiting in the work list of `scratch` (si, sb, sm), until
    the board is open (SOLVED) or nothing more can be decided."""
    mines, numbers, nbr = board
    pi, pb, meta = play
    si, sb, _ = scratch
    n = mines.shape[0]
    total = 0
    for i in range(n):
        if mines[i]:
            total += 1
    goal = n - total
    while True:
        how = settle(numbers, nbr, play, scratch, wtop, goal)
        if how == DONE:
            return SOLVED
        if how == BROKEN:  # (a play's numbers are the board's: they always fit)
            return STUCK
        got, status, used_total = complete_step(numbers, nbr, pi, pb, si, sb, total - meta[FLAGGED], budget)
        if status != SOLVED:
            return status
        if got == 0:
            return STUCK
        if used_total:
            meta[NEEDED_TOTAL] = 1
        wtop = reveal_found(numbers, nbr, pi, pb, meta, si, sb, WHY_TOTAL if used_total else WHY_COMPONENT)


@njit
def play_fresh(board, click, budget, play, scratch):
    """Play `board` (mines, numbers, neighbour table) from `click` without guessing, logging into
    `play` (pi, pb, meta) with the grid's `scratch` (si, sb, sm). Returns SOLVED, STUCK, BUDGET or
    BOOM; meta[NEEDED_TOTAL] says whether the total was needed."""
    mines, numbers, nbr = board
    pi, pb, meta = play
    si, sb, _ = scratch
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
    reveal(play, nbr, click, shown(numbers, click, False), WHY_CLICK, -1, -1)
    wtop = push(si, sb, 0, click)
    return run(board, budget, play, scratch, wtop)


__all__ = ["SOLVED", "STUCK", "BUDGET", "BOOM", "DEFAULT_LEAF_BUDGET", "play_fresh", "run", "complete_step", "quiet",
           "mark_quiet"]
