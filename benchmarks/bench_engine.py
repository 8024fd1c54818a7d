"""Engine speed: lay an expert board with numbers, its 3BV, open-with-cascade on a fresh game.

    python benchmarks/bench_engine.py

Prints medians in microseconds, with ms-toollib's laymine + cal_bbbv measured in the same run.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine, median_us  # noqa: E402

from sweeplab import Game, uniform_board  # noqa: E402
from sweeplab.stats import bbbv, zini  # noqa: E402

W, H, M = 30, 16, 99


def main() -> None:
    seeds = itertools.count()
    boards = [uniform_board(W, H, M, s) for s in range(4000)]
    # a zero cell per board, so the first open cascades
    starts = []
    for b in boards:
        zeros = np.flatnonzero(~b.flat_mines & (b.flat_numbers == 0))
        starts.append(int(zeros[0]) if zeros.size else int(np.flatnonzero(~b.flat_mines)[0]))
    cyc = itertools.cycle(range(len(boards)))

    def lay():
        uniform_board(W, H, M, next(seeds))

    b0 = boards[0]

    def three_bv():
        bbbv(boards[next(cyc)])

    def open_cascade():
        k = next(cyc)
        g = Game(boards[k])
        g.open(starts[k] % W, starts[k] // W)

    def new_game():
        Game(boards[next(cyc)])

    rows = [
        ("lay expert board + numbers", median_us(lay), 20.0),
        ("3BV of an expert board", median_us(three_bv), 20.0),
        ("new expert Game + open with cascade", median_us(open_cascade), 50.0),
        ("  of which: new Game", median_us(new_game), None),
        ("ZiNi of an expert board", median_us(lambda: zini(b0), repeat=300), None),
    ]
    try:
        import ms_toollib as ms
        mseeds = itertools.count()
        rows.append(("ms-toollib laymine (expert)", median_us(lambda: ms.laymine(H, W, M, 0, next(mseeds) % H)), None))
        grid = ms.laymine(H, W, M, 0, 0)
        rows.append(("ms-toollib cal_bbbv (expert)", median_us(lambda: ms.cal_bbbv(grid)), None))
        rows.append(("ms-toollib laymine + cal_bbbv", median_us(lambda: ms.cal_bbbv(ms.laymine(H, W, M, 0, 0))), None))
    except ImportError:
        pass
    print(f"machine: {machine()}")
    print(f"{'operation':40} {'median us':>10} {'target us':>10}")
    for name, us, target in rows:
        t = f"{target:10.0f}" if target else f"{'':>10}"
        print(f"{name:40} {us:10.2f} {t}")


if __name__ == "__main__":
    main()
