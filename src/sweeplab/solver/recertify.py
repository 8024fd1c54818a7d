"""Re-certifying a changed board from the old board's play: the engine's incremental play.

The generators change a board one or two mines at a time, and `play_moved` certifies the changed
board from the old board's log (solver.state): events from before the change could be seen are
kept; later ones are kept unchecked where nothing they rest on changed, re-checked against the
new numbers where something did, and the usual play (solver.playthrough) finishes what is left. Every
kept event is a sound deduction on the new board and complete deduction is monotone, so the
verdict is a fresh play's, at a fraction of the cost. (The one exception is the leaf budget: a
component past it counts as a guess, and whether a play meets such a component can depend on
the order it went in. This is rare, and either way a board is accepted only on sound
deductions: one order may give up where another solves the board.)
"""

from __future__ import annotations

import numpy as np

from .._numba_cache import njit
from ..kernels import FLAG_STATE, HIDDEN_STATE, OPEN_STATE
from .deduction import (
    ALL_MINES,
    ALL_SAFE,
    UNDECIDED,
    WHY_CLICK,
    WHY_COMPONENT,
    WHY_NUMBER,
    WHY_PAIR,
    WHY_TOTAL,
    number_rule,
)
from .playthrough import BOOM, PLAY_ON, SOLVED, run
from .rules import next_decision
from .state import (
    CHECKED,
    EV_A,
    EV_B,
    EV_CELL,
    EV_WHY,
    EVENTS,
    FLAGGED,
    HID,
    HMASK,
    INWORK,
    KNO,
    MINE_OUT,
    NEEDED_TOTAL,
    OPENED,
    ST,
    STALE,
    STALE1,
    STALE_NOW,
    TM,
    WORK,
    log_event,
    push,
    reset_scratch,
    shown,
    sync,
)


@njit(_nrt=False)
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
def _push_near_stale(pb, si, sb, nbr, cell, wtop):
    """`cell` and its neighbours that are open numbers next to a stale cell go on the work list."""
    if si[STALE1, cell] > 0 and pb[ST, cell] == OPEN_STATE:
        wtop = push(si, sb, wtop, cell)
    for k in range(8):
        j = nbr[cell, k]
        if j >= 0:
            if (si[STALE1, j] > 0) & (pb[ST, j] == OPEN_STATE):  # one branch, not two
                wtop = push(si, sb, wtop, j)
    return wtop


@njit(inline='always')
def _settle_cell(pi, pb, meta, si, sb, nbr, numbers, q, mine, why, a, b, wtop):
    """Log hidden cell q as decided (by numbers a, b); a stale q is stale no more. Returns the work
    list with what q's news may decide next."""
    log_event(pi, pb, meta, q, shown(numbers, q, mine), why, a, b)
    if sb[STALE, q]:
        sb[STALE, q] = False
        _mark_stale(si, nbr, q, -1)
        meta[STALE_NOW] -= 1
    return _push_near_stale(pb, si, sb, nbr, q, wtop)


@njit(_nrt=False)
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
def play_moved(board, click, budget, old, play, scratch, moved):
    """Play `board` (mines, numbers, neighbour table), which differs from the board logged in `old`
    (a play's log: pi, pb, meta) by `moved` (src, dst, src2, dst2: int32): a mine moved from `src` to
    `dst` (or, with src = -1, a mine added at `dst`) and, unless dst2 = -1, a second mine moved from
    `src2` to `dst2`, logging into `play` with the grid's `scratch` (si, sb, sm). Same verdict as
    `play_fresh` (but for the leaf budget: see the module docstring); meta[NEEDED_TOTAL] here says
    whether the log uses the total, not whether it had to. How: see `_replay`."""
    status, wtop = _replay(board, click, old, play, scratch, moved)
    if status != PLAY_ON:
        return status
    return run(board, budget, play, scratch, wtop)


@njit(_nrt=False)
def _replay(board, click, old, play, scratch, moved):
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
    reached is a fresh play's, as sound deductions have one closure. A second moved mine (dst2 >= 0)
    is one more pair of stale cells, and one more number gone: a board two mines away is replayed
    once, not through the board between."""
    mines, numbers, nbr = board
    src, dst, src2, dst2 = moved
    old_i, old_b, old_m = old
    pi, pb, meta = play
    si, sb, sm = scratch
    n = mines.shape[0]
    reset_scratch(sb, n)
    meta[:] = 0
    if mines[click]:
        return BOOM, 0
    st = pb[ST]
    stale = sb[STALE]
    near = si[STALE1]
    added = src < 0  # the total grew: deductions that used it no longer hold
    end, dst_spoke, dst_quiet, dst2_spoke, dst2_quiet = _keep_first(nbr, old_i, old_b, old_m, pi, pb, meta, si, sb,
                                                                    src, dst, src2, dst2)
    meta[STALE_NOW] = (1 if added else 2) + (2 if dst2 >= 0 else 0)
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
                            added and why == WHY_TOTAL) or (dst2 >= 0 and (a == dst2 or b == dst2 or (
                                why >= WHY_COMPONENT and dst2_spoke <= e <= dst2_quiet))):
                        break
                    if why == WHY_TOTAL:
                        meta[NEEDED_TOTAL] = 1
                    log_event(pi, pb, meta, x, old_b[ST, x], why, a, b)
                e += 1
            if e == last:
                break
        ev = e
        e += 1
        x = old_i[EV_CELL, ev]
        if st[x] != HIDDEN_STATE or x == src or x == dst or x == src2 or x == dst2:
            continue
        why = old_b[EV_WHY, ev]
        a = old_i[EV_A, ev]
        b = old_i[EV_B, ev]
        mine = old_b[ST, x] == FLAG_STATE
        if why == WHY_NUMBER:
            ok = near[a] == 0
            if not ok and st[a] == OPEN_STATE:
                sync(pi, st, nbr, a)
                ok = _number_implies(numbers, pi, pb, a, mine)
        elif why == WHY_PAIR:
            ok = near[a] == 0 and near[b] == 0
            if not ok and st[a] == OPEN_STATE and st[b] == OPEN_STATE:
                sync(pi, st, nbr, a)
                sync(pi, st, nbr, b)
                ok = _pair_implies(numbers, nbr, pi, pb, si, sm, a, b, x, mine)
        elif why == WHY_CLICK:
            ok = True
        else:  # over a component, or with the total: clean when nothing stale touches it
            ok = (ev < dst_spoke or ev > dst_quiet) and (ev < dst2_spoke or ev > dst2_quiet) and not (
                added and why == WHY_TOTAL)
            if ok and meta[STALE_NOW] > 0:
                ok = why == WHY_COMPONENT and _component_clean(pb, nbr, si, sb, x)
            if ok and why == WHY_TOTAL:
                meta[NEEDED_TOTAL] = 1
        if ok:
            log_event(pi, pb, meta, x, shown(numbers, x, mine), why, a, b)
        else:
            stale[x] = True
            meta[STALE_NOW] += 1
            _mark_stale(si, nbr, x, 1)
        wtop = _push_near_stale(pb, si, sb, nbr, x, 0)
        if wtop > 0:
            _settle(numbers, nbr, pi, pb, meta, si, sb, sm, wtop)
    if meta[OPENED] + meta[FLAGGED] == n:
        return SOLVED, 0
    return PLAY_ON, _recount(mines, numbers, nbr, pi, pb, si, sb)



@njit(_nrt=False)
def _keep_first(nbr, old_i, old_b, old_m, pi, pb, meta, si, sb, src, dst, src2, dst2):
    """Start the replay: the old log up to the first event that could have seen the change stands
    as it was; src (unless the mine was added), dst and the second move's cells are stale. Returns
    (events kept, when dst's old number began to speak, when it went quiet, the same for dst2:
    never when there is no second move)."""
    n = nbr.shape[0]
    st = pb[ST]
    stale = sb[STALE]
    near = si[STALE1]
    t = first_touch(old_i, old_b, nbr, src, dst)
    if dst2 >= 0:
        t = min(t, first_touch(old_i, old_b, nbr, src2, dst2))
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
    dst_spoke, dst_quiet = _gone_number(nbr, old_i, old_b, old_m, si, sb, dst)
    never = np.int64(1) << 40
    dst2_spoke = dst2_quiet = never
    if dst2 >= 0:
        stale[src2] = True
        _mark_stale(si, nbr, src2, 1)
        dst2_spoke, dst2_quiet = _gone_number(nbr, old_i, old_b, old_m, si, sb, dst2)
    return end, dst_spoke, dst_quiet, dst2_spoke, dst2_quiet


@njit(inline='always')
def _gone_number(nbr, old_i, old_b, old_m, si, sb, dst):
    """Mark `dst`, the cell a mine moved to, stale, and return (when its old number began to speak,
    when it went quiet)."""
    sb[STALE, dst] = True
    _mark_stale(si, nbr, dst, 1)
    si[STALE1, dst] += 1  # for good: dst is no number now, so no event that reasoned from it is clean
    # while dst's number spoke (from when it opened until its neighbours were all known), a
    # deduction over a whole component may have leaned on it
    spoke = np.int64(old_i[TM, dst]) if old_b[ST, dst] == OPEN_STATE else old_m[EVENTS]
    quiet = spoke
    for k in range(8):
        j = nbr[dst, k]
        if j >= 0:
            quiet = max(quiet, np.int64(old_i[TM, j]) if old_b[ST, j] != HIDDEN_STATE else old_m[EVENTS])
    return spoke, quiet


@njit(_nrt=False)
def _recount(mines, numbers, nbr, pi, pb, si, sb):
    """The counts of the whole position for the usual play to go on from (the replay kept them only
    where it looked: all known but the hidden cells, whose neighbours count them); returns its work
    list."""
    n = mines.shape[0]
    st = pb[ST]
    stale = sb[STALE]
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
                        wtop = push(si, sb, wtop, j)
    return wtop


@njit(_nrt=False, inline='always')  # into the replay, its one caller
def _settle(numbers, nbr, pi, pb, meta, si, sb, sm, wtop):
    """The single-number rule, then the pair rule, on the waiting numbers next to stale cells, and
    on those next to stale cells that their deductions touch. Counts are taken from the position
    as it is."""
    st = pb[ST]
    while wtop > 0:
        wtop -= 1
        a = si[WORK, wtop]
        sb[INWORK, a] = False
        if si[STALE1, a] == 0 or si[CHECKED, a] == meta[EVENTS]:
            continue  # not next to a stale cell, or seen in this very position: nothing new to decide
        si[CHECKED, a] = meta[EVENTS]
        sync(pi, st, nbr, a)
        h = pi[HID, a]
        if h == 0:
            continue
        rule = number_rule(numbers[a] - pi[KNO, a], h)
        if rule != UNDECIDED:
            for k in range(8):
                j = nbr[a, k]
                if j >= 0 and st[j] == HIDDEN_STATE:
                    wtop = _settle_cell(pi, pb, meta, si, sb, nbr, numbers, j, rule == ALL_MINES, WHY_NUMBER, a, -1,
                                        wtop)
            continue
        s = 0
        while True:  # (one call of the inlined search: numba types it again at each)
            s, b, lo, hi, a_mines, a_safe, b_mines, b_safe = next_decision(st, numbers, nbr, pi, (si, sm), a, s, True)
            if s == 24:
                break
            for side in range(2):
                c, mines_k, safe_k = (a, a_mines, a_safe) if side == 0 else (b, b_mines, b_safe)
                for k in range(8):
                    q = nbr[c, k]
                    if (mines_k | safe_k) >> k & 1 and st[q] == HIDDEN_STATE:  # (decided once, seen twice)
                        wtop = _settle_cell(pi, pb, meta, si, sb, nbr, numbers, q, mines_k >> k & 1 == 1, WHY_PAIR,
                                            lo, hi, wtop)
            s += 1


@njit(inline='always')
def _number_implies(numbers, pi, pb, a, mine):
    """Does the single-number rule on number a decide its hidden neighbours as `mine`, now?"""
    return pb[ST, a] == OPEN_STATE and number_rule(numbers[a] - pi[KNO, a], pi[HID, a]) == (ALL_MINES if mine else ALL_SAFE)


@njit(_nrt=False)
def _pair_implies(numbers, nbr, pi, pb, si, sm, a, b, x, mine):
    """Does the subset rule on numbers a and b decide hidden cell x as `mine`, now? (The pair
    search from a, up to b: only a pair that decides something is found.)"""
    st = pb[ST]
    if st[a] != OPEN_STATE or st[b] != OPEN_STATE:
        return False
    s = 0
    while True:
        s, c, _, _, a_mines, a_safe, b_mines, b_safe = next_decision(st, numbers, nbr, pi, (si, sm), a, s, False)
        if s == 24:
            return False
        if c == b:
            break
        s += 1
    for k in range(8):
        if nbr[a, k] == x:
            return ((a_mines if mine else a_safe) >> k & 1) == 1
        if nbr[b, k] == x:
            return ((b_mines if mine else b_safe) >> k & 1) == 1
    return False
