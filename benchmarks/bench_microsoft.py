"""Benchmark of the Microsoft generators and the board-cycle lab; prints the table quoted in docs/benchmarks.md.

    python benchmarks/bench_microsoft.py            # all but Brent on expert (about a minute)
    python benchmarks/bench_microsoft.py --brent    # also Brent's method on expert (about four laps)

Times are after compilation (every kernel is called once first). "cpu" is this process's CPU
time, which the other users of a shared machine do not inflate; "wall" is what you wait.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine, median_us  # noqa: E402

from sweeplab import cycles as C  # noqa: E402
from sweeplab.generators.win7 import Win7  # noqa: E402
from sweeplab.generators.winmine import WinMineSession, winmine_board  # noqa: E402
from sweeplab.lab import cycles as L  # noqa: E402
from sweeplab.msvc import jump  # noqa: E402


def timed(fn, repeat=3):
    """Best-of-`repeat` (wall, cpu) seconds of fn(), and its last result."""
    best = None
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        w, c = time.perf_counter() - w0, time.process_time() - c0
        best = (w, c) if best is None or w < best[0] else best
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--brent", action="store_true", help="also time Brent's method on expert")
    ap.add_argument("--nine", action="store_true", help="also find the 9x9 cycle (about a lap of 100M boards)")
    args = ap.parse_args()
    rows = []

    # warm every kernel
    winmine_board(1, 30, 16, 99)
    Win7(30, 16, 99, 1).board_for(3, 3)
    C.analyse_space(C.Size(8, 8, 10))
    C.walk(C.Size(16, 16, 40), 0)
    C.walk(C.Size(16, 16, 40), 0, method="brent")

    states = iter(np.random.default_rng(0).integers(0, 2**32, 40000).tolist())
    for name, (w, h, m) in [("beginner 9x9/10", (9, 9, 10)), ("expert 30x16/99", (30, 16, 99))]:
        us = median_us(lambda: winmine_board(next(states), w, h, m), repeat=5000)
        rows.append((f"WinMine board + numbers, {name}", f"{us:.2f} us", "median of 5000", "<= 10 us"))
    s = WinMineSession("winxp", tick=0, preset="expert")
    us = median_us(s.next_board, repeat=5000)
    rows.append(("WinMineSession.next_board, expert", f"{us:.2f} us", "median of 5000", ""))
    rule = Win7(30, 16, 99, 1262304000)
    us = median_us(lambda: rule.board_for(10, 7), repeat=5000)
    rows.append(("Windows 7 board at first click, expert", f"{us:.2f} us", "median of 5000", ""))
    us = median_us(lambda: jump(12345, 2**62 + 12345), repeat=5000)
    rows.append(("rand() jump-ahead by 2**62 steps", f"{us:.2f} us", "median of 5000", ""))

    for size, target in [(C.Size(8, 8, 10), ""), (C.Size(16, 16, 40), "<= 2 s, < 1 GiB")]:
        (wall, cpu), (rep, _) = timed(lambda: C.analyse_space(size, distinct=False))
        lengths = " + ".join(f"{c.length:,}" for c in rep.cycles)
        rows.append((f"whole space {size.width}x{size.height}/{size.mines} (2**{size.bits} states): cycles, basins, "
                     f"tails", f"{wall:.2f} s wall, {cpu:.2f} s cpu", f"cycles {lengths}", target))
    (wall, cpu), (rep, _) = timed(lambda: C.analyse_space(C.Size(16, 16, 40)), repeat=1)
    rows.append(("  the same with distinct boards counted", f"{wall:.2f} s wall, {cpu:.2f} s cpu",
                 f"{rep.distinct_boards:,} distinct", ""))
    (wall, cpu), sv = timed(lambda: L.survey(C.Size(16, 16, 40), rep.cycles[0].start, rep.cycles[0].length), repeat=1)
    rows.append(("3BV + dream + one-click survey of the 12,096 cycle", f"{wall:.2f} s wall, {cpu:.2f} s cpu",
                 f"min 3BV {sv.dream[0]['bbbv']}", ""))

    expert = C.Size(30, 16, 99)
    (wall, cpu), wk = timed(lambda: C.walk(expert, 0), repeat=1)
    rows.append(("expert cycle from tick 0, distinguished points", f"{wall:.2f} s wall, {cpu:.2f} s cpu",
                 f"tail {wk.tail}, cycle {wk.length:,}, {wk.boards_run:,} boards", "<= 10 s"))
    if args.brent:
        (wall, cpu), wk = timed(lambda: C.walk(expert, 0, method="brent"), repeat=1)
        rows.append(("expert cycle from tick 0, Brent", f"{wall:.2f} s wall, {cpu:.2f} s cpu",
                     f"tail {wk.tail}, cycle {wk.length:,}, {wk.boards_run:,} boards", ""))
    if args.nine:
        (wall, cpu), wk = timed(lambda: C.walk(C.Size(9, 9, 10), 0), repeat=1)
        rows.append(("9x9/10 cycle from tick 0, distinguished points", f"{wall:.2f} s wall, {cpu:.2f} s cpu",
                     f"tail {wk.tail}, cycle {wk.length:,}", ""))
    # memory of the 16x16 whole-space analysis alone: a fresh process, Python and numba included
    code = ("import resource; from sweeplab import cycles as C; C.analyse_space(C.Size(16, 16, 40)); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    base = ("import resource; from sweeplab import cycles as C; C.analyse_space(C.Size(2, 2, 1)); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)")
    peak, idle = (int(subprocess.run([sys.executable, "-c", c], capture_output=True, text=True, check=True).stdout)
                  / 1024 for c in (code, base))
    rows.append(("memory, whole space 16x16/40 (max RSS of a fresh process)", f"{peak:.0f} MiB",
                 f"{idle:.0f} MiB for Python + numba alone", "< 1 GiB"))

    print(f"machine: {machine()}")
    widths = [max(len(r[i]) for r in rows + [("what", "time", "result", "target")]) for i in range(4)]
    head = ("what", "time", "result", "target")
    print(" | ".join(h.ljust(w) for h, w in zip(head, widths)))
    print("-|-".join("-" * w for w in widths))
    for r in rows:
        print(" | ".join(c.ljust(w) for c, w in zip(r, widths)))


if __name__ == "__main__":
    main()
