"""Could the certifier build its constraints with the View's builder? Both builders timed on the
positions where a no-guess play needs complete deduction (30x16 at 130 mines, from the centre).

    python research/bench_constraints.py [--boards 40] [--repeat 200]

The certifier's builder (`certify.play_constraints`) reads the counts its play keeps up to date
(hidden neighbours and which, known mines); the View's (`frontier.build_constraints`) counts
them again from the cells, and the certifier would also need each cell's numbers
(`frontier.numbers_touching`) and the union-find, and a View's cells made from its play. Each row
is the median over the positions of the CPU time per build, timed inside one compiled loop; the
last row is a whole round of complete deduction (`certify._complete_step`), for scale.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np

from sweeplab import grid
from sweeplab._numba_cache import njit
from sweeplab.generators import certify as C
from sweeplab.generators.noguess import generate
from sweeplab.kernels import FLAG_STATE, OPEN_STATE
from sweeplab.solver.deduction import find_root
from sweeplab.solver.frontier import build_constraints, numbers_touching
from sweeplab.view import FLAG, HIDDEN


@njit
def _certifier(st, numbers, nbr, hid, kno, hmask, repeat):
    nc = 0
    for _ in range(repeat):
        nc += C.play_constraints(st, numbers, nbr, hid, kno, hmask)[5]
    return nc


@njit
def _view_cells(st, numbers, cells):
    for i in range(st.shape[0]):
        cells[i] = numbers[i] if st[i] == OPEN_STATE else (FLAG if st[i] == FLAG_STATE else HIDDEN)


@njit
def _view_builder(st, numbers, nbr, repeat, with_cells, with_rest):
    cells = np.empty(st.shape[0], dtype=np.int8)
    _view_cells(st, numbers, cells)
    nc = 0
    for _ in range(repeat):
        if with_cells:
            _view_cells(st, numbers, cells)
        status, bad, var_cell, con_vars, con_target, con_size, unknown, known, con_cell = \
            build_constraints(cells, nbr, True)
        nc += con_vars.shape[0]
        if with_rest:  # what the certifier needs beside: each cell's numbers, and the components
            touch, deg = numbers_touching(var_cell.shape[0], con_vars, con_size)
            parent = np.arange(var_cell.shape[0])
            for c in range(con_vars.shape[0]):
                a = find_root(parent, con_vars[c, 0])
                for s in range(1, con_size[c]):
                    b = find_root(parent, con_vars[c, s])
                    if a != b:
                        parent[b] = a
    return nc


@njit
def _complete(st, numbers, nbr, hid, kno, hmask, mines_left, repeat):
    safe = np.zeros(st.shape[0], dtype=np.bool_)
    mine = np.zeros(st.shape[0], dtype=np.bool_)
    got = 0
    for _ in range(repeat):
        got += C._complete_step(st, numbers, nbr, hid, kno, hmask, mines_left, safe, mine, C.DEFAULT_LEAF_BUDGET)[0]
    return got


def positions(boards: int):
    """(st, numbers, hid, kno, hmask, mines left) before each round of complete deduction in the
    plays of `boards` no-guess boards."""
    nbr = grid.neighbour_table(30, 16, "bounded")
    out = []
    for seed in range(boards):
        b = generate(30, 16, 130, 15, 8, seed).board
        mines, numbers = b.flat_mines, b.flat_numbers
        pi, pb, meta = C.new_play(mines.shape[0])
        C.play_fresh(mines, numbers, nbr, 8 * 30 + 15, C.DEFAULT_LEAF_BUDGET, pi, pb, meta, *C.scratch_for(30, 16))
        why = pb[C.EV_WHY, :meta[C.EVENTS]]
        for e in np.flatnonzero((why >= C.WHY_COMPONENT) & (np.roll(why, 1) < C.WHY_COMPONENT)):
            known = (pb[C.ST] != 0) & (pi[C.TM] < e)  # the position before event e
            st = np.where(known, pb[C.ST], 0).astype(np.int8)
            hidden = np.append(st == 0, False)
            hid = hidden[nbr].sum(axis=1).astype(np.int32)
            kno = np.append(st == FLAG_STATE, False)[nbr].sum(axis=1).astype(np.int32)
            hmask = (hidden[nbr] << np.arange(8)).sum(axis=1).astype(np.int32)
            out.append((st, numbers, hid, kno, hmask, int(mines.sum()) - int((st == FLAG_STATE).sum())))
    return nbr, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--boards", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=200)
    args = ap.parse_args()
    nbr, pos = positions(args.boards)
    rows = {"certifier's builder (play_constraints)": [],
            "View builder (build_constraints) on ready cells": [],
            "View builder + the play's cells made each time": [],
            "View builder + cells + each cell's numbers + union-find": [],
            "a whole round of complete deduction (_complete_step)": []}
    names = list(rows)
    r = args.repeat
    for st, numbers, hid, kno, hmask, left in pos[:1]:  # compile
        _certifier(st, numbers, nbr, hid, kno, hmask, 1)
        _view_builder(st, numbers, nbr, 1, True, True)
        _complete(st, numbers, nbr, hid, kno, hmask, left, 1)
    for st, numbers, hid, kno, hmask, left in pos:
        for name, run in zip(names, (
                lambda: _certifier(st, numbers, nbr, hid, kno, hmask, r),
                lambda: _view_builder(st, numbers, nbr, r, False, False),
                lambda: _view_builder(st, numbers, nbr, r, True, False),
                lambda: _view_builder(st, numbers, nbr, r, True, True),
                lambda: _complete(st, numbers, nbr, hid, kno, hmask, left, max(1, r // 20)))):
            c = time.thread_time()
            run()
            rows[name].append((time.thread_time() - c) / (r if "whole" not in name else max(1, r // 20)))
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; "
          f"{len(pos)} positions from {args.boards} boards (30x16/130)\n")
    base = float(np.median(rows[names[0]]))
    print("| build | CPU median (µs) | / the certifier's |\n|---|---|---|")
    for name in names:
        t = float(np.median(rows[name]))
        print(f"| {name} | {t * 1e6:.2f} | {t / base:.2f} |")


if __name__ == "__main__":
    main()
