"""This checkout's speed against an earlier commit, side by side in one run: no-guess generation
(30x16 from the centre at 99, 130 and 170 mines) and `analyse` on the 1,000 benchmark positions
(bench_solver.py's: real expert games, seed 11).

    python benchmarks/bench_against.py --base 69efa5d [--pairs 5] [--boards 40]

The base commit's `src` is unpacked with `git archive` into a temporary folder; each pair of runs
is one process on the base and one on this checkout, alternating, so a busy neighbour hits both
alike. Each run reports CPU-time medians (per board, per position); the table gives the median
over the runs and the ratio this / base. The positions are made once, by this checkout, and
handed to both as cell arrays.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import platform
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
LEVELS = (99, 130, 170)

# One run: timings printed as JSON on the last line (the sweeplab imported is the one on PYTHONPATH).
RUN = r"""
import json, pickle, sys, time
import numpy as np
from sweeplab import View
from sweeplab.generators.noguess import generate
from sweeplab.solver import TooComplexError, analyse
positions, boards, levels = sys.argv[1], int(sys.argv[2]), [int(m) for m in sys.argv[3].split(",")]
out = {}
generate(30, 16, levels[0], 15, 8, 0)  # load the compiled kernels
for m in levels:
    ts = []
    for seed in range(1000, 1000 + boards):
        c = time.thread_time()
        generate(30, 16, m, 15, 8, seed)
        ts.append(time.thread_time() - c)
    out[f"noguess {m}"] = float(np.median(ts))
views = [View(c, k, t) for c, k, t in pickle.load(open(positions, "rb"))]
analyse(views[0])
ts = []
for v in views:
    c = time.thread_time()
    try:
        analyse(v)
    except TooComplexError:
        pass
    ts.append(time.thread_time() - c)
out["analyse"] = float(np.median(ts))
print(json.dumps(out))
"""


def one_run(src: Path, positions: str, boards: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), PYTHONHASHSEED="0")
    done = subprocess.run([sys.executable, "-c", RUN, positions, str(boards), ",".join(map(str, LEVELS))],
                          env=env, capture_output=True, text=True, check=True, cwd=tempfile.gettempdir())
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="the commit to compare with (e.g. 69efa5d)")
    ap.add_argument("--pairs", type=int, default=5, help="alternating pairs of runs")
    ap.add_argument("--boards", type=int, default=40, help="no-guess boards per level per run")
    ap.add_argument("--positions", type=int, default=1000)
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    from tests.solver_positions import play_positions
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "base"
        base.mkdir()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base, "src"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        positions = str(Path(tmp) / "positions.pkl")
        views = play_positions(args.positions, seed=11, moves=(5, 150))
        with open(positions, "wb") as f:
            pickle.dump([(v.cells.copy(), v.mine_count, v.topology) for v in views], f)
        runs = {"base": [], "this": []}
        for k in range(args.pairs):
            runs["base"].append(one_run(base / "src", positions, args.boards))
            runs["this"].append(one_run(ROOT / "src", positions, args.boards))
            print(f"pair {k + 1}: " + "  ".join(f"{name} {runs['this'][-1][name] / runs['base'][-1][name]:.3f}"
                                                for name in runs["this"][-1]), flush=True)
    print(f"\nmachine: {platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end; "
          f"{args.pairs} alternating pairs, {args.boards} boards per level per run")
    print(f"\n| CPU median | {args.base} (median of runs) | this checkout | ratio | median of the pairs' ratios |\n"
          "|---|---|---|---|---|")
    for name in runs["this"][0]:
        b = float(np.median([r[name] for r in runs["base"]]))
        t = float(np.median([r[name] for r in runs["this"]]))
        pairs = float(np.median([r[name] / q[name] for r, q in zip(runs["this"], runs["base"])]))
        unit = "ms/board" if name.startswith("noguess") else "ms/position"
        print(f"| {name} ({unit}) | {b * 1e3:.3f} | {t * 1e3:.3f} | {t / b:.3f} | {pairs:.3f} |")


if __name__ == "__main__":
    main()
