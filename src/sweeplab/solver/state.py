"""The engine's state of a position: each cell's state and counts, and a log of what was decided.

Every client of the engine (the analysis of a View, the no-guess certifier's plays, the local
rules) holds a position the same way, so the rules, the constraint builder and the sweep are
written once against it:

- per cell, its state (`ST`): HIDDEN_STATE, OPEN_STATE (a number the position shows),
  FLAG_STATE (a mine it knows) or SAFE_STATE (a cell it knows is safe without seeing its number:
  an analysis decides cells it cannot open);
- per cell, its hidden neighbours (`HID`), which of its 8 neighbour slots they are (`HMASK`, bit
  k: slot k of grid.neighbour_table) and its known mines around (`KNO`), kept up to date as cells
  are decided (`reveal`);
- a log of events: every cell decided, in order, with the reason (deduction.WHY_*) and the
  numbers behind it, so that a play can be certified again after a change (solver.recertify) and an
  analysis can say why a cell is decided.

A play's log lives in three arrays (int32 rows, int8 rows, int64 counters) so that two logs
(before and after a move) can be swapped. Scratch shared by the plays on one grid holds the work
list, the grid's tables (the 24 cells within two steps of each cell, and the frames the pair
rule compares neighbourhoods in) and what its plays' rounds remember of the components they swept
to no avail (solver.playthrough `quiet`: such a component, unchanged, is not swept again).
"""

from __future__ import annotations

import functools

import numpy as np

from .. import grid
from .._numba_cache import njit
from ..kernels import FLAG_STATE, HIDDEN_STATE, OPEN_STATE

# A cell known to be safe whose number is not seen (the game's own states are 0..3).
SAFE_STATE = np.int8(4)

# A log's int32 rows:
TM = 0  # when each cell was decided (event number)
EV_CELL = 1  # event -> cell
EV_A = 2  # event -> first number of its reason
EV_B = 3  # event -> second number of its reason (pairs)
HID = 4  # per cell: hidden neighbours
KNO = 5  # per cell: neighbours known to be mines
HMASK = 6  # per cell: which of its 8 neighbour slots are hidden
# int8 rows:
ST = 0  # per cell: its state
EV_WHY = 1  # event -> reason
# int64 counters (STALE_NOW: a replay's count of stale cells):
EVENTS, OPENED, FLAGGED, NEEDED_TOTAL, STALE_NOW = 0, 1, 2, 3, 4

# Scratch (int32 rows, bool rows, int64 grid tables). NEAR + s: the cell at offset NEAR_DX/DY[s]
# (the 24 cells within two steps), or -1; FULL: every existing neighbour slot; STALE1: stale cells
# (see solver.recertify) within one step of a cell, itself included; CHECKED: the replay's event count
# when a number was last put through the rules; RA / RB and REST_A / REST_B: the numbers that
# decided a cell and the mines they still needed then. After the 24 NEAR rows, what a play
# remembers of the components its rounds swept to no avail (see `quiet`).
WORK, RA, RB, DEG, FULL, STALE1, CHECKED, REST_A, REST_B, NEAR = range(10)
QUIET = NEAR + 24  # per number: the stamp of the last component it was in that decided nothing
QUIET_SIZE = QUIET + 1  # ... how many numbers that component had
QUIET_MASK = QUIET + 2  # ... and the number's hidden neighbours (HMASK) and mines still needed then
QUIET_NEED = QUIET + 3
ROUNDS = QUIET + 4  # [STAMP]: the last stamp given; [REUSE]: 1 while quiet components are skipped;
STAMP, REUSE, SKIPPED = 0, 1, 2  # [SKIPPED]: how many were (a count to measure by, kept below 2**30)
INWORK, DIRTY, SAFE_OUT, MINE_OUT, STALE = range(5)
# grid tables (int64): FRAMES + s * 256 + mask: the hidden cells `mask` of the number at NEAR
# offset s (s = 24: the cell itself) drawn in the 7x7 frame of the cell; SLOTS + s * 8 + k: the
# bit of its neighbour slot k there
FRAMES = 0
SLOTS = FRAMES + 25 * 256
TABLES = SLOTS + 25 * 8

# neighbour slots of grid.neighbour_table: dy in (-1, 0, 1), dx in (-1, 0, 1), centre skipped
DX = np.array([-1, 0, 1, -1, 1, -1, 0, 1], dtype=np.int64)
DY = np.array([-1, -1, -1, 0, 0, 1, 1, 1], dtype=np.int64)
NEAR_DX = np.array([dx for dy in range(-2, 3) for dx in range(-2, 3) if dx or dy], dtype=np.int64)
NEAR_DY = np.array([dy for dy in range(-2, 3) for dx in range(-2, 3) if dx or dy], dtype=np.int64)
# SHARED[s]: the neighbour slots of a cell that also touch the cell at NEAR offset s; a pair can
# only decide something when the first number has a hidden cell there
SHARED = np.array([sum(1 << k for k in range(8) if abs(DX[k] - dx) <= 1 and abs(DY[k] - dy) <= 1)
                   for dx, dy in zip(NEAR_DX, NEAR_DY)], dtype=np.int64)


@njit
def new_play(n):
    """Empty arrays (int32 rows, int8 rows, counters) for one play's log on n cells."""
    return np.zeros((7, n), dtype=np.int32), np.zeros((2, n), dtype=np.int8), np.zeros(5, dtype=np.int64)


@njit
def _slot(dx, dy):
    """The neighbour slot of the step (dx, dy), each in -1..1 and not both 0."""
    for k in range(8):
        if DX[k] == dx and DY[k] == dy:
            return k
    return -1


@njit
def _step(nbr, i, dx, dy):
    """The cell (dx, dy) away from i (each within +-3) by neighbour steps, or -1 off the grid."""
    while dx != 0 or dy != 0:
        sx = int(dx > 0) - int(dx < 0)
        sy = int(dy > 0) - int(dy < 0)
        i = nbr[i, _slot(sx, sy)]
        if i < 0:
            return -1
        dx -= sx
        dy -= sy
    return i


@njit
def _frame_tables(nbr, tables):
    """Fill the pair rule's frames: a cell at offset (dx, dy) from a number is bit (dy + 3) * 7 +
    dx + 3 of the number's frame. On a torus narrower than 7 one cell has several offsets; it
    then takes the bit of the nearest one (its own neighbours are theirs), so that the same cell
    is the same bit whichever number it is seen from. (A torus is the same around every cell:
    cell 0 shows which offsets meet.)"""
    torus = nbr[0, 0] >= 0
    canon = np.empty(49, dtype=np.int64)
    for oy in range(-3, 4):
        for ox in range(-3, 4):
            best = (oy + 3) * 7 + ox + 3
            if torus:  # the nearest offset of the same cell, the first in reading order on ties
                here = _step(nbr, np.int64(0), ox, oy)  # (np.int64: a literal is a signature of its own)
                dist = 99
                for qy in range(-3, 4):
                    for qx in range(-3, 4):
                        d = abs(qx) + abs(qy)
                        if d < dist and _step(nbr, np.int64(0), qx, qy) == here:
                            best = (qy + 3) * 7 + qx + 3
                            dist = d
            canon[(oy + 3) * 7 + ox + 3] = best
    for s in range(25):
        ox = NEAR_DX[s] if s < 24 else 0
        oy = NEAR_DY[s] if s < 24 else 0
        for k in range(8):
            tables[SLOTS + s * 8 + k] = np.int64(1) << canon[(oy + DY[k] + 3) * 7 + ox + DX[k] + 3]
        for mask in range(256):
            f = np.int64(0)
            for k in range(8):
                if mask >> k & 1:
                    f |= tables[SLOTS + s * 8 + k]
            tables[FRAMES + s * 256 + mask] = f


@njit
def new_scratch(nbr):
    """Scratch (int32 rows, bool rows, grid tables) for plays on the grid `nbr`."""
    n = nbr.shape[0]
    si = np.zeros((ROUNDS + 1, n), dtype=np.int32)
    sb = np.zeros((5, n), dtype=np.bool_)
    sm = np.zeros(TABLES, dtype=np.int64)
    for i in range(n):
        for k in range(8):
            if nbr[i, k] >= 0:
                si[DEG, i] += 1
                si[FULL, i] |= 1 << k
        for s in range(24):
            si[NEAR + s, i] = _step(nbr, i, NEAR_DX[s], NEAR_DY[s])
    _frame_tables(nbr, sm)
    if n > REUSE:
        si[ROUNDS, REUSE] = 1
    return si, sb, sm


@functools.lru_cache(maxsize=4)  # a few grids: a 1000x1000 one holds about 130 MB
def _scratch_tables(width: int, height: int, topology: str):
    return new_scratch(grid.neighbour_table(width, height, topology))


def scratch_for(width: int, height: int, topology: str = "bounded"):
    """A fresh play scratch for this grid, copied from a cached one (building its tables costs
    50 µs on 30x16, a sixth of a no-guess board at 99 mines); the frames, which no play writes,
    are shared."""
    si, sb, sm = _scratch_tables(width, height, topology)
    return si.copy(), sb.copy(), sm


def grid_tables(width: int, height: int, topology: str = "bounded"):
    """The cached scratch of this grid, to read its tables (NEAR, DEG, FULL, frames) only."""
    return _scratch_tables(width, height, topology)


def reuse_quiet(scratch, on: bool) -> None:
    """Let the plays on this scratch skip a component swept to no avail before (the default), or
    sweep every component every round (the decisions are the same; tests compare the two)."""
    if scratch[0].shape[1] > REUSE:
        scratch[0][ROUNDS, REUSE] = 1 if on else 0


@njit(inline='always')
def popcount(x):
    """Set bits of a frame (x >= 0, below 2**56), without a branch per bit."""
    x = np.int64(x)  # (interpreted, a narrower integer would not hold the masks)
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return (x * 0x0101010101010101) >> 56 & 0xFF


@njit(inline='always')
def log_event(pi, pb, meta, cell, state, why, a, b):
    """Log `cell` as decided (FLAG_STATE: a mine; OPEN_STATE or SAFE_STATE: safe), and why,
    without its neighbours' counts."""
    if state == FLAG_STATE:
        meta[FLAGGED] += 1
    else:
        meta[OPENED] += 1
    ev = meta[EVENTS]
    pb[ST, cell] = state
    pi[TM, cell] = ev
    pi[EV_CELL, ev] = cell
    pb[EV_WHY, ev] = why
    pi[EV_A, ev] = a
    pi[EV_B, ev] = b
    meta[EVENTS] = ev + 1


@njit(inline='always')
def reveal(play, nbr, cell, state, why, a, b):
    """Record in `play` (pi, pb, meta) that the position now knows `cell` (in `state`), and why, with
    its neighbours' counts."""
    pi, pb, meta = play
    log_event(pi, pb, meta, cell, state, why, a, b)
    mine = state == FLAG_STATE
    for k in range(8):
        j = nbr[cell, k]
        if j >= 0:
            pi[HID, j] -= 1
            pi[HMASK, j] &= ~(1 << (7 - k))  # cell is in j's slot 7 - k (the opposite step)
            if mine:
                pi[KNO, j] += 1


@njit(inline='always')
def shown(numbers, cell, mine):
    """The state a decided cell takes: a mine; open with its number when the position can see it
    (a play's board answers; an analysis sees no number, numbers < 0 there); else known safe."""
    if mine:
        return FLAG_STATE
    return OPEN_STATE if numbers[cell] >= 0 else SAFE_STATE


@njit(inline='always')
def push(si, sb, wtop, i):
    if not sb[INWORK, i]:
        sb[INWORK, i] = True
        si[WORK, wtop] = i
        wtop += 1
    return wtop


@njit(inline='always')
def push_around(pb, si, sb, nbr, cell, wtop):
    """After `cell` is decided: it (if open) and the open numbers around it may now decide more."""
    if pb[ST, cell] == OPEN_STATE:
        wtop = push(si, sb, wtop, cell)
    for k in range(8):
        j = nbr[cell, k]
        if j >= 0 and pb[ST, j] == OPEN_STATE:
            wtop = push(si, sb, wtop, j)
    return wtop


@njit(_nrt=False)
def reset_scratch(sb, n):
    for r in range(5):
        for i in range(n):
            sb[r, i] = False


@njit(inline='always')
def sync(pi, st, nbr, c):
    """Bring c's counts (HID, KNO, HMASK) up to date with the states `st` (a replay keeps counts
    only where it looks)."""
    m = 0
    kn = 0
    for k in range(8):
        j = nbr[c, k]
        if j >= 0:  # counted without branching on the cell's state, which is unpredictable
            v = st[j]
            m |= np.int32(v == HIDDEN_STATE) << k
            kn += v == FLAG_STATE
    h = popcount(m)
    pi[HID, c] = h
    pi[KNO, c] = kn
    pi[HMASK, c] = m


__all__ = ["SAFE_STATE", "new_play", "new_scratch", "scratch_for", "grid_tables", "reuse_quiet"]
