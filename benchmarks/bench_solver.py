"""Exact probabilities: sweeplab's `analyse` against ms-toollib's `cal_probability_onboard`, side by
side on the same expert positions from real games, plus large positions (worst cases).

    python benchmarks/bench_solver.py [--positions 1000] [--seed 11]

Every position is also checked: the two must agree to 1e-9 on every unknown cell.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import ms_toollib
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.solver_positions import play_positions, toollib_board  # noqa: E402
from tests.test_solver_oracle import lattice_view, ones_view, ring_view  # noqa: E402

from sweeplab.errors import TooComplexError  # noqa: E402
from sweeplab.solver import analyse, deduce_rules  # noqa: E402


def timed(f, *args, repeat=1, cpu=None):
    """Best wall-clock time of `repeat` calls; with a list `cpu`, also append that call's CPU time."""
    best = float("inf")
    out = None
    for _ in range(repeat):
        c = time.thread_time()
        t = time.perf_counter()
        out = f(*args)
        took = time.perf_counter() - t
        if cpu is not None:
            cpu.append(time.thread_time() - c)
        best = min(best, took)
    return best, out


def row(name, ts, cpu):
    ts = np.asarray(ts) * 1e3
    return (f"| {name} | {np.median(ts):.3f} | {np.percentile(ts, 90):.3f} | {np.percentile(ts, 99):.3f} | "
            f"{ts.max():.3f} | {np.median(cpu) * 1e3:.3f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    views = play_positions(args.positions, seed=args.seed, moves=(5, 150))
    boards = [toollib_board(v) for v in views]
    analyse(views[0])  # load compiled kernels
    deduce_rules(views[0])
    ours, theirs, rules = [], [], []
    ours_cpu, theirs_cpu, rules_cpu = [], [], []
    worst_diff = 0.0
    comps, revealed = [], []
    for v, b in zip(views, boards):  # interleaved, so both see the same machine load
        t1, a = timed(analyse, v, cpu=ours_cpu)
        t2, (p, _) = timed(ms_toollib.cal_probability_onboard, b, float(v.mine_count), cpu=theirs_cpu)
        t3, _ = timed(deduce_rules, v, cpu=rules_cpu)
        ours.append(t1)
        theirs.append(t2)
        rules.append(t3)
        u = v.cells < 0
        worst_diff = max(worst_diff, float(np.abs(np.asarray(p)[u] - a.probability[u]).max()))
        comps.append(a.components)
        revealed.append(float((v.cells >= 0).mean()))
    assert worst_diff < 1e-9, worst_diff
    print(f"machine: {platform.machine()}, {platform.python_implementation()} {platform.python_version()}, "
          f"numpy {np.__version__}; {len(views)} expert positions (30x16/99, first click opens at (3,3), "
          f"5-150 safe moves), revealed {np.median(revealed):.0%} median, {np.median(comps):.0f} components "
          f"median; max |difference| from ms-toollib {worst_diff:.1e}")
    print()
    print("| one position | median ms | p90 ms | p99 ms | max ms | median CPU ms |")
    print("|---|---|---|---|---|---|")
    print(row("sweeplab `analyse` (exact probabilities, complete deduction)", ours, ours_cpu))
    print(row("ms-toollib `cal_probability_onboard`", theirs, theirs_cpu))
    print(row("sweeplab `deduce_rules` (local rules only)", rules, rules_cpu))
    print()
    print(f"median ratio ms-toollib / sweeplab `analyse`: {np.median(theirs) / np.median(ours):.1f}x wall-clock, "
          f"{np.median(theirs_cpu) / np.median(ours_cpu):.1f}x CPU")
    print()
    rev = np.asarray(revealed)
    print("| revealed | positions | sweeplab median ms | ms-toollib median ms |")
    print("|---|---|---|---|")
    for lo, hi in ((0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.01)):
        sel = (rev >= lo) & (rev < hi)
        if sel.any():
            print(f"| {lo:.0%}-{min(hi, 1):.0%} | {int(sel.sum())} | {np.median(np.asarray(ours)[sel]) * 1e3:.3f} | "
                  f"{np.median(np.asarray(theirs)[sel]) * 1e3:.3f} |")
    print()
    print("| large position | unknown cells | components left after the local rules | largest frontier component "
          "before them | layouts | sweeplab ms (+ exact layouts ms) | ms-toollib ms |")
    print("|---|---|---|---|---|---|---|")
    from sweeplab.solver.frontier import frontier
    cases = [("ring, margin 1 (expert, 60 mines)", ring_view(margin=1, mines=60)),
             ("ring, margin 2 (expert, 99 mines)", ring_view(margin=2, mines=99)),
             ("ring, margin 3 (expert, 150 mines)", ring_view(margin=3, mines=150, seed=3)),
             ("row of 1s, 400 wide, hidden ground both sides", ones_view(400)),
             ("tangled strip 80x3 (numbers on a lattice; a component past 2^53 layouts)", lattice_view(80, 3, 48)),
             ("tangled strip 200x3", lattice_view(200, 3, 120)),
             ("tangled block 30x9", lattice_view(30, 9, 50)),
             ("hardest of the positions above (most CPU time)", views[int(np.argmax(ours_cpu))])]
    for name, v in cases:
        _ = analyse(v).layouts  # compile every kernel first
        t, a = timed(analyse, v, repeat=3)
        tl = time.perf_counter()
        _ = a.layouts
        tl = time.perf_counter() - tl
        fr = frontier(v)
        big = int(np.diff(fr.comp_start).max()) if fr.components else 0
        if v.width <= 30 and v.height <= 24:
            t2, _ = timed(ms_toollib.cal_probability_onboard, toollib_board(v), float(v.mine_count))
            t2s = f"{t2 * 1e3:.1f}"
        else:
            t2s = "-"
        lay = a.layouts
        lays = f"{lay:.3e}" if lay < 10 ** 300 else f"10^{len(str(lay)) - 1}"
        print(f"| {name} | {int((v.cells < 0).sum())} | {a.components} | {big} | {lays} | {t * 1e3:.1f} "
              f"(+{tl * 1e3:.1f}) | {t2s} |")
    v = lattice_view(30, 16, 99)
    t = time.perf_counter()
    try:
        analyse(v)
        outcome = "solved"
    except TooComplexError:
        outcome = "TooComplexError"
    print(f"| tangled block 30x16 (whole expert board a lattice of numbers) | {int((v.cells < 0).sum())} | 1 | "
          f"{int((v.cells < 0).sum())} | - | {outcome} after {(time.perf_counter() - t) * 1e3:.0f} | "
          "no answer in 9 minutes (stopped) |")


if __name__ == "__main__":
    main()
