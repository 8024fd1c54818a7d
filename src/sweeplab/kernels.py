"""The rules as numba kernels over flat arrays: numbers, laying mines, opening with cascade, chord, win.

`Game` and every batched player call these same kernels, so the rules exist once.
A cell's state in a game: HIDDEN_STATE, OPEN_STATE, FLAG_STATE, QUESTION_STATE (a "?" mark,
otherwise hidden). These are what the game knows of a cell; what a player sees of it is the
View's code (view.py: a number, HIDDEN or FLAG), which is also the drawing code (svg.py).
"""

from __future__ import annotations

import numpy as np

from ._numba_cache import njit
from .rng import below

HIDDEN_STATE = np.int8(0)
OPEN_STATE = np.int8(1)
FLAG_STATE = np.int8(2)
QUESTION_STATE = np.int8(3)


@njit
def count_numbers(mines, nbr):
    """Mines among the 8 neighbours of each cell (int8); a mine cell gets its count too."""
    n = mines.shape[0]
    out = np.zeros(n, dtype=np.int8)
    for i in range(n):
        if mines[i]:
            for k in range(8):
                j = nbr[i, k]
                if j >= 0:
                    out[j] += 1
    return out


@njit
def lay_uniform(n, count, excluded, state):
    """Put `count` mines uniformly on the n cells not excluded (partial Fisher-Yates).

    `state` is a splitmix64 state; returns (mines as bool[n], new state). The caller
    checks that enough cells are free.
    """
    free = np.empty(n, dtype=np.int32)
    m = 0
    for i in range(n):
        if not excluded[i]:
            free[m] = i
            m += 1
    mines = np.zeros(n, dtype=np.bool_)
    for k in range(count):
        state, r = below(state, m - k)
        j = k + r
        t = free[k]
        free[k] = free[j]
        free[j] = t
        mines[free[k]] = True
    return mines, state


@njit
def flood_open(state, numbers, nbr, start, queue):
    """Open `start` (known safe, hidden or "?") and cascade breadth-first through zeros.

    Flagged cells are never opened; "?" cells are. Returns how many cells opened.
    `queue` is scratch space of length n.
    """
    if state[start] == OPEN_STATE or state[start] == FLAG_STATE:
        return 0
    state[start] = OPEN_STATE
    opened = 1
    if numbers[start] != 0:
        return opened
    head = 0
    tail = 0
    queue[tail] = start
    tail += 1
    while head < tail:
        i = queue[head]
        head += 1
        for k in range(8):
            j = nbr[i, k]
            if j >= 0 and (state[j] == HIDDEN_STATE or state[j] == QUESTION_STATE):
                state[j] = OPEN_STATE
                opened += 1
                if numbers[j] == 0:
                    queue[tail] = j
                    tail += 1
    return opened


@njit
def open_cell(state, numbers, mines, nbr, i, queue):
    """A left click on cell i. Returns (cells opened, exploded cell or -1)."""
    if state[i] == OPEN_STATE or state[i] == FLAG_STATE:
        return 0, -1
    if mines[i]:
        state[i] = OPEN_STATE
        return 0, i
    return flood_open(state, numbers, nbr, i, queue), -1


@njit
def open_cells(state, numbers, mines, nbr, cells, queue, opened, safe_left):
    """Left clicks on `cells` in turn, as `open_cell` each, until one hits a mine or the `safe_left`
    hidden safe cells are all open. `opened[j]`: the cells click j opened, -1 where its cell was
    already open (the click is no move). Returns (clicks made, exploded cell or -1)."""
    for j in range(cells.shape[0]):
        if safe_left == 0:
            return j, -1
        i = cells[j]
        if state[i] == OPEN_STATE:
            opened[j] = -1
            continue
        got, hit = open_cell(state, numbers, mines, nbr, i, queue)
        opened[j] = got
        if hit >= 0:
            return j + 1, hit
        safe_left -= got
    return cells.shape[0], -1


@njit
def settle_win(state, mines, opened, safe_cells):
    """Whether `opened` cells of `safe_cells` win the game; on a win the mines left get flagged, so the
    mine counter reads 0 (as Windows does)."""
    if opened != safe_cells:
        return False
    for j in range(mines.shape[0]):
        if mines[j]:
            state[j] = FLAG_STATE
    return True


@njit
def chord_ready(state, numbers, nbr, i):
    """True when cell i is an open number whose adjacent flags equal it."""
    if state[i] != OPEN_STATE or numbers[i] == 0:
        return False
    flags = 0
    for k in range(8):
        j = nbr[i, k]
        if j >= 0 and state[j] == FLAG_STATE:
            flags += 1
    return flags == numbers[i]


@njit
def chord(state, numbers, mines, nbr, i, exploded, queue):
    """Chord on cell i: open every unflagged neighbour ("?" included) if the flags match.

    Mines hit are written to `exploded` (length >= 8). Returns (cells opened, mines hit).
    """
    if not chord_ready(state, numbers, nbr, i):
        return 0, 0
    opened = 0
    hits = 0
    for k in range(8):
        j = nbr[i, k]
        if j < 0 or state[j] == OPEN_STATE or state[j] == FLAG_STATE:
            continue
        if mines[j]:
            state[j] = OPEN_STATE
            exploded[hits] = j
            hits += 1
        else:
            opened += flood_open(state, numbers, nbr, j, queue)
    return opened, hits
