"""Win rates of the players on the standard levels, with 95% Wilson intervals, speed and soundness.

    python benchmarks/bench_winrate.py --games 100000 --workers 2            # the table in docs
    python benchmarks/bench_winrate.py --games 2000 --players strong --cases expert-opening
    python benchmarks/bench_winrate.py --games 200000 --players strong --cases expert-opening --out e.csv

`--out`: each finished task (1,000 games) is appended to that CSV and games already in it are not
played again, so a long run can be stopped and resumed, or reported up to the games it finished
(with 1 worker the tasks finish in order: run again with --games set to what the CSV holds).

Each row is one `sweeplab.lab.run` (the same as `sweeplab bench ...`). "unsound" counts moves a
player called certain that hit a mine: it must be 0. "beyond" counts guesses made by a local
estimate because the exact analysis declined the position as too complex.
"""

from __future__ import annotations

import argparse
import time

from sweeplab.lab import BenchSpec, run, summary
from sweeplab.lab.runner import append_row, read_done

CASES = {
    # name: (width, height, mines, first-click rule, first click), the anchors' own rules:
    # JSMinesweeper's bulk runs open expert at (3,3) or click the corner safely; PSEQ's "SNR"
    # (opening) clicks [3,3] counted from 1, i.e. (2,2), on beginner and intermediate, [4,4]
    # = (3,3) on expert, and its "SFAR" (safe) clicks the corner [1,1] = (0,0).
    "expert-opening": (30, 16, 99, "opening", (3, 3)),
    "expert-safe-corner": (30, 16, 99, "safe", (0, 0)),
    "intermediate-opening": (16, 16, 40, "opening", (2, 2)),
    "intermediate-safe-corner": (16, 16, 40, "safe", (0, 0)),
    "beginner-opening": (9, 9, 10, "opening", (2, 2)),
    "beginner-safe-corner": (9, 9, 10, "safe", (0, 0)),
}
# The bar `strong` is held to: the lower end of a run's 95% Wilson interval at least this, the best
# published win rate (JSMinesweeper's on expert) or a little above it (PSEQ-D256's on the smaller levels)
TARGETS = {"expert-opening": 0.543, "expert-safe-corner": 0.4113, "intermediate-opening": 0.905,
           "intermediate-safe-corner": 0.795, "beginner-opening": 0.972, "beginner-safe-corner": 0.920}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--players", default="rules,safest,strong")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--out", default=None, help="CSV of finished tasks (resumable); one file for all rows")
    args = ap.parse_args(argv)
    print(f"{'case':24} {'player':7} {'games':>7} {'win rate':>9} {'95% Wilson':>17} {'target':>7} "
          f"{'3BV won':>8} {'games/s':>8} {'g/cpu-s':>8} {'guesses':>8} {'unsound':>7} {'beyond':>6}")
    for case in args.cases.split(","):
        w, h, m, rule, at = CASES[case]
        for player in args.players.split(","):
            spec = BenchSpec(player, w, h, m, rule, at, args.seed)
            t0 = time.perf_counter()
            done = read_done(args.out, spec) if args.out else {}
            already = sum(b - a for a, b in done if b <= args.games)
            on_task = (lambda a, b, counts, spec=spec: append_row(args.out, spec, a, b, counts)) if args.out else None
            c = run(spec, args.games, workers=args.workers, done=done, on_task=on_task)
            wall = time.perf_counter() - t0
            played = c.games - already
            s = summary(c)
            lo, hi = s["wilson95"]
            print(f"{case:24} {player:7} {c.games:7d} {s['win_rate']:9.2%} {lo:8.2%}-{hi:7.2%} "
                  f"{TARGETS[case]:7.2%} {s['bbbv_won_mean'] or 0:8.1f} {played / wall if played else float('nan'):8.1f} "
                  f"{s['games_per_cpu_second']:8.1f} "
                  f"{s['guesses_per_game']:8.2f} {c.unsound:7d} {c.beyond_exact:6d}", flush=True)


if __name__ == "__main__":
    main()
