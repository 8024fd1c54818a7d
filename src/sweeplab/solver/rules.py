"""The local rules on a position: the single-number rule and the pair search, each written once.

- `single_rule` applies the single-number rule (deduction.number_rule) to the numbers waiting on
  the work list, and to those its decisions touch, until it stalls (a 0 opens its neighbours the
  same way: the cascade);
- `next_pair` is the pair search: for a number a, its next partner b within two steps (a number
  that shares a hidden cell with it) on which the subset rule (deduction.subset_rule) decides
  something. Both neighbourhoods are compared as bit frames (solver.state), a few word
  operations a pair. Every user of the rule asks it: a pass over the numbers whose surroundings
  changed (`pair_pass`), the replay of a changed board (solver.recertify), and the rules one level
  (`deduce_rules`);
- `settle` runs both to a fixed point: sound, so it only shrinks what counting must do.

Decided cells are revealed on the position (solver.state.reveal): a play's board shows a
safe cell's number; an analysis, which cannot open cells, knows them safe.
"""

from __future__ import annotations

import numpy as np

from .._numba_cache import njit
from ..errors import InconsistentPositionError
from ..kernels import HIDDEN_STATE, OPEN_STATE
from ..view import View
from .deduction import ALL_MINES, ALL_SAFE, UNDECIDED, WHY_NUMBER, WHY_PAIR, number_rule, subset_rule
from .frontier import view_position
from .state import (
    DIRTY,
    FRAMES,
    HID,
    HMASK,
    INWORK,
    KNO,
    MINE_OUT,
    NEAR,
    OPENED,
    RA,
    RB,
    REST_A,
    REST_B,
    SAFE_OUT,
    SHARED,
    SLOTS,
    ST,
    WORK,
    grid_tables,
    new_play,
    popcount,
    push_around,
    reveal,
    shown,
    sync,
)

NOTHING_TOLD = np.empty(0, dtype=np.int8)  # (view_position: no hidden cell known beforehand)

# NEAR offsets from AFTER on reach the cells after a number; b sees a at the mirrored offset
# 23 - s, and the subset rule looks both ways, so a pass over every number meets each pair once
# from these alone.
AFTER = 12

# How `settle` ends: the rules stall, the play has opened every safe cell, or a number is broken
# (more mines known around it than it shows, or fewer hidden cells than it still needs).
STALLED, DONE, BROKEN = 0, 1, 2


@njit(inline='always')
def pair_rule(numbers, pi, sm, a, b, s):
    """The subset rule on numbers a and b (b at NEAR offset s of a): (mine bits, safe bits) in a's
    frame, both 0 when it decides nothing, and whether b is the number whose own cells are the
    mines (else a is)."""
    fa = sm[FRAMES + 24 * 256 + pi[HMASK, a]]
    fb = sm[FRAMES + s * 256 + pi[HMASK, b]]
    if fa & fb == 0:  # nothing shared: only the single-number rule could decide them
        return np.int64(0), np.int64(0), False
    a_only = fa & ~fb
    b_only = fb & ~fa
    rest_a = numbers[a] - pi[KNO, a]
    rest_b = numbers[b] - pi[KNO, b]
    if subset_rule(rest_a, rest_b, popcount(b_only)):
        return b_only, a_only, True
    if subset_rule(rest_b, rest_a, popcount(a_only)):
        return a_only, b_only, False
    return np.int64(0), np.int64(0), False


@njit(inline='always')
def next_pair(st, numbers, nbr, pi, tables, a, s, fresh):
    """The pair search: from NEAR offset s on, the first partner b of the open number a on which
    the subset rule decides something, as (s, b, mine bits, safe bits, b's own cells are the
    mines); s = 24 when there is none. With `fresh`, b's counts are brought up to date first
    (a replay keeps them only where it looks). `tables`: the scratch's (si, sm), for the cells near
    a and the frames."""
    si, sm = tables
    ha = pi[HMASK, a]
    while s < 24:
        if ha & SHARED[s] != 0:
            b = si[NEAR + s, a]
            if b >= 0 and st[b] == OPEN_STATE:
                if fresh:
                    sync(pi, st, nbr, b)
                if pi[HMASK, b] != 0:
                    mines_bits, safe_bits, b_fills = pair_rule(numbers, pi, sm, a, b, s)
                    if mines_bits != 0 or safe_bits != 0:
                        return s, b, mines_bits, safe_bits, b_fills
        s += 1
    return 24, -1, np.int64(0), np.int64(0), False


@njit(inline='always')
def next_decision(st, numbers, nbr, pi, tables, a, s, fresh):
    """The pair rule applied: from NEAR offset s on, the next partner b of the open number a on
    which the subset rule decides something (`next_pair`), and which of their hidden neighbours it
    decides, as neighbour-slot masks: (s, b, lo: the number whose own cells are safe, hi: the one
    whose own cells are mines, a's mines, a's safe cells, b's mines, b's safe cells); s = 24 when
    there is none. Every user of the rule (a play's pair pass, a replay's checks and settling, the
    rules one level) takes its decisions from here."""
    s, b, mines_bits, safe_bits, b_fills = next_pair(st, numbers, nbr, pi, tables, a, s, fresh)
    sm = tables[1]
    if s == 24:
        return 24, -1, -1, -1, 0, 0, 0, 0
    lo, hi = (a, b) if b_fills else (b, a)
    a_mines = 0
    a_safe = 0
    b_mines = 0
    b_safe = 0
    for k in range(8):
        q = nbr[a, k]
        if q >= 0 and st[q] == HIDDEN_STATE:
            bit = sm[SLOTS + 24 * 8 + k]
            if mines_bits & bit:
                a_mines |= 1 << k
            elif safe_bits & bit:
                a_safe |= 1 << k
        q = nbr[b, k]
        if q >= 0 and st[q] == HIDDEN_STATE:
            bit = sm[SLOTS + s * 8 + k]
            if mines_bits & bit:
                b_mines |= 1 << k
            elif safe_bits & bit:
                b_safe |= 1 << k
    return s, b, lo, hi, a_mines, a_safe, b_mines, b_safe


@njit(_nrt=False)
def single_rule(numbers, nbr, pi, pb, meta, si, sb, wtop):
    """The single-number rule on the `wtop` numbers waiting, and on those their deductions touch,
    until it stalls. False when a number is broken (no layout fits it)."""
    st = pb[ST]
    hid = pi[HID]
    kno = pi[KNO]
    while wtop > 0:
        wtop -= 1
        i = si[WORK, wtop]
        sb[INWORK, i] = False
        sb[DIRTY, i] = True
        h = hid[i]
        rest = numbers[i] - kno[i]
        if rest < 0 or rest > h:
            return False
        if h == 0:
            continue
        rule = number_rule(rest, h)
        if rule == UNDECIDED:
            continue
        mine = rule == ALL_MINES
        for k in range(8):
            j = nbr[i, k]
            if j >= 0 and st[j] == HIDDEN_STATE:
                si[REST_A, j] = rest
                reveal((pi, pb, meta), nbr, j, shown(numbers, j, mine), WHY_NUMBER, i, -1)
                wtop = push_around(pb, si, sb, nbr, j, wtop)
    return True


@njit(_nrt=False)
def pair_pass(st, numbers, nbr, pi, si, sb, sm):
    """The subset rule on every pair within two steps of a number whose surroundings changed
    since the last pass. Decisions go to SAFE_OUT / MINE_OUT, each with its pair (RA: the number
    whose own cells were safe, RB: the one whose own cells were mines) and their mines still
    needed (REST_A, REST_B). Returns how many cells it decided."""
    n = st.shape[0]
    dirty = sb[DIRTY]
    safe_out = sb[SAFE_OUT]
    mine_out = sb[MINE_OUT]
    decided = 0
    for a in range(n):
        if not dirty[a]:
            continue
        dirty[a] = False
        if st[a] != OPEN_STATE or pi[HMASK, a] == 0:
            continue
        s = 0
        while True:  # (one call of the inlined search: numba types it again at each)
            s, b, lo, hi, a_mines, a_safe, b_mines, b_safe = next_decision(st, numbers, nbr, pi, (si, sm), a, s, False)
            if s == 24:
                break
            for side in range(2):
                c, mines_k, safe_k = (a, a_mines, a_safe) if side == 0 else (b, b_mines, b_safe)
                for k in range(8):
                    q = nbr[c, k]
                    if mines_k >> k & 1 and not mine_out[q]:
                        mine_out[q] = True
                    elif safe_k >> k & 1 and not safe_out[q]:
                        safe_out[q] = True
                    else:
                        continue
                    si[RA, q] = lo
                    si[RB, q] = hi
                    si[REST_A, q] = numbers[lo] - pi[KNO, lo]
                    si[REST_B, q] = numbers[hi] - pi[KNO, hi]
                    decided += 1
            s += 1
    return decided


@njit(_nrt=False)
def reveal_found(numbers, nbr, pi, pb, meta, si, sb, why):
    """Reveal the cells a round of deduction found (SAFE_OUT / MINE_OUT), clearing those marks.
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
            reveal((pi, pb, meta), nbr, i, shown(numbers, i, mine), why, a, b)
            wtop = push_around(pb, si, sb, nbr, i, wtop)
    return wtop


@njit
def settle(numbers, nbr, play, scratch, wtop, goal):
    """The single-number rule, then the pair rule, on the position in `play` (pi, pb, meta) with
    `wtop` numbers waiting in the work list of `scratch` (si, sb, sm), again until neither decides
    anything (STALLED) or `goal` cells are open (DONE; goal -1: never); BROKEN when a number can no
    longer be met."""
    pi, pb, meta = play
    si, sb, sm = scratch
    st = pb[ST]
    while True:
        if not single_rule(numbers, nbr, pi, pb, meta, si, sb, wtop):
            return BROKEN
        if meta[OPENED] == goal:
            return DONE
        if pair_pass(st, numbers, nbr, pi, si, sb, sm) == 0:
            return STALLED
        wtop = reveal_found(numbers, nbr, pi, pb, meta, si, sb, WHY_PAIR)


@njit
def one_level(numbers, nbr, pi, pb, si, sm, safe, mines):
    """The rules one level, on the position as it stands (the Windows 7 patch's solver): each
    number alone, then each pair of numbers; nothing found feeds back."""
    st = pb[ST]
    n = st.shape[0]
    for a in range(n):
        h = pi[HID, a]
        if st[a] != OPEN_STATE or h == 0:
            continue
        rule = number_rule(numbers[a] - pi[KNO, a], h)
        if rule == UNDECIDED:
            continue
        for k in range(8):
            j = nbr[a, k]
            if j >= 0 and st[j] == HIDDEN_STATE:
                safe[j] = rule == ALL_SAFE
                mines[j] = rule == ALL_MINES
    for a in range(n):
        if st[a] != OPEN_STATE or pi[HMASK, a] == 0:
            continue
        s = AFTER
        while True:
            s, b, _, _, a_mines, a_safe, b_mines, b_safe = next_decision(st, numbers, nbr, pi, (si, sm), a, s, False)
            if s == 24:
                break
            for side in range(2):
                c, mines_k, safe_k = (a, a_mines, a_safe) if side == 0 else (b, b_mines, b_safe)
                for k in range(8):
                    if (mines_k | safe_k) >> k & 1:
                        q = nbr[c, k]
                        mines[q] = mines_k >> k & 1 == 1
                        safe[q] = not mines[q]
            s += 1


def deduce_rules(view: View, *, trust_flags: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(safe, mines): bool (h, w) arrays of what the single-number and pair rules decide now, one
    level (call it again after acting on what it found). The pair rule works on any two numbers
    whose hidden neighbours overlap: stronger than the subset rule alone of the Windows 7 "no
    guess" patch, whose solver generators/win7_noguess.py emulates. It sees no mine total.

    Like `analyse`, flags are unknown hidden cells unless `trust_flags`.
    """
    if not isinstance(view, View):
        raise TypeError(f"solvers take only a sweeplab View (what a player sees), not {type(view).__name__}")
    cells = view.flat
    n = cells.shape[0]
    pi, pb, _ = new_play(n)
    status, bad, _ = view_position(cells, view.neighbours, bool(trust_flags), pi, pb, NOTHING_TOLD)
    if status:
        x, y = bad % view.width, bad // view.width
        raise InconsistentPositionError(f"the {cells[bad]} at ({x}, {y}) cannot be satisfied by its hidden "
                                        "neighbours; every number must equal the mines around it")
    si, _, sm = grid_tables(view.width, view.height, view.topology)
    safe = np.zeros(n, dtype=np.bool_)
    mines = np.zeros(n, dtype=np.bool_)
    one_level(cells, view.neighbours, pi, pb, si, sm, safe, mines)
    shape = (view.height, view.width)
    return safe.reshape(shape), mines.reshape(shape)
