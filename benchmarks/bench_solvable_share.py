"""How likely a uniform board is to be certified no-guess from its first click, by size and density.

    python benchmarks/bench_solvable_share.py                       # the table (minutes)
    python benchmarks/bench_solvable_share.py --boards 4000 --plot docs/figures/noguess-solvable-share.png

For each level and mine count, `--boards` boards are laid uniformly by the first-click rule (`safe`:
the clicked cell kept free; `opening`: its 3x3 kept free), board i from seed i, clicked at the
centre, and each is played by the project's certifier (`generators.certify.certify`, the verdict
`noguess`'s rejection keeps or throws away). Printed: the share certified with its 95% Wilson
interval, and the share of the certified that need the mine total. The share is where rejection
stops paying: `noguess` draws about 1 / share boards per board it hands out by rejection.
"""

from __future__ import annotations

import argparse
import platform
import time

from sweeplab.generators import make_rule
from sweeplab.generators.certify import certify
from sweeplab.lab.intervals import wilson

LEVELS = {  # name: (width, height, mine counts)
    "beginner 9x9": (9, 9, (10,)),
    "intermediate 16x16": (16, 16, (40,)),
    "expert 30x16": (30, 16, (10, 30, 50, 70, 99, 110, 130, 150, 170, 200)),
}


def share(width: int, height: int, mines: int, rule: str, boards: int) -> tuple[int, int, float]:
    """(certified, of those needing the mine total, CPU seconds) over `boards` boards of seeds 0..boards-1."""
    x, y = width // 2, height // 2
    certified = needed = 0
    t0 = time.process_time()
    for seed in range(boards):
        laid = make_rule(rule, width, height, mines, seed).board_for(x, y)
        assert laid is not None
        ok, total = certify(laid[0], x, y)
        certified += ok
        needed += ok and total
    return certified, needed, time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boards", type=int, default=1000, help="boards per point (default 1000)")
    ap.add_argument("--rules", default="safe,opening", help="first-click rules, comma-separated")
    ap.add_argument("--plot", help="also draw the expert rows into this PNG (needs matplotlib)")
    args = ap.parse_args()
    rules = args.rules.split(",")
    print(f"machine: {platform.machine()}, Python {platform.python_version()}; {args.boards} boards a point, "
          "clicked at the centre")
    print("| level | mines | density | rule | certified | share | 95% interval | of those, need the total | CPU s |")
    print("|---|---:|---:|---|---:|---:|---|---:|---:|")
    rows = []
    for name, (w, h, counts) in LEVELS.items():
        for m in counts:
            for rule in rules:
                ok, needed, cpu = share(w, h, m, rule, args.boards)
                lo, hi = wilson(ok, args.boards)
                rows.append((name, m, rule, ok / args.boards, lo, hi))
                print(f"| {name} | {m} | {m / (w * h):.1%} | {rule} | {ok:,} | {ok / args.boards:.3%} | "
                      f"{lo:.3%} .. {hi:.3%} | {needed / ok if ok else 0:.1%} | {cpu:.1f} |", flush=True)
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 3.6))
        for rule in rules:
            pts = [(m, s, lo, hi) for name, m, r, s, lo, hi in rows if name.startswith("expert") and r == rule]
            ms = [p[0] for p in pts]
            ax.plot(ms, [p[1] for p in pts], marker="o", label=f"first click: {rule}")
            ax.fill_between(ms, [p[2] for p in pts], [p[3] for p in pts], alpha=0.25)
        ax.set_xlabel("mines on 30x16 (clicked at the centre)")
        ax.set_ylabel("share certified no-guess")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)


if __name__ == "__main__":
    main()
