"""The Windows 7 no-guess patch's claims, measured (docs/win7-noguess.md).

    python benchmarks/bench_win7_noguess.py                   # the claims table, 500 boards a level
    python benchmarks/bench_win7_noguess.py --free-cells      # 10x10 with 89 and 90 mines: which boards open
    python benchmarks/bench_win7_noguess.py --readings        # the solver's readings: same boards, their time
    python benchmarks/bench_win7_noguess.py --uniformity      # expert: its law, its boards beside noguess's

Boards are seeded with 32-bit time(0) values drawn from numpy's generator with `--seed`. Times
are the CPU time of this thread (time.thread_time_ns) around the patch's compiled loop, per
board; the box is a shared 2-core x86_64 machine, so wall time would measure the neighbours.
A fallback board, and the first `--rejected` attempts of each board that the patch's rules
reject, are played by sweeplab's certifier (complete deduction with the mine total, no leaf
budget): certified or not, and whether it needed the mine total.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import time

import numpy as np

from sweeplab import grid
from sweeplab.board import Board
from sweeplab.generators.certify import certify
from sweeplab.generators.win7_noguess import ORDERS, PROGRESS, Win7NoGuess, _generate, opens_completely, visit_order
from sweeplab.kernels import count_numbers, lay_uniform
from sweeplab.rng import seed_key, stream_key

LEVELS = [("beginner", 9, 9, 10), ("intermediate", 16, 16, 40), ("expert", 30, 16, 99),
          *((f"30x24/{m}", 30, 24, m) for m in (150, 175, 200, 250, 300, 400, 500, 600, 668)),
          ("10x10/89", 10, 10, 89)]
NO_LIMIT = 1 << 40  # the certifier's leaf budget: none, so that "not certified" means a guess


def seeds(seed: int, k: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 1 << 32, size=k, dtype=np.uint64)


def timed_board(seed, w, h, m, x, y, nbr, order, swap=False, restart=False):
    """(mines, attempts, opened, CPU ns) of one board of the patch."""
    t = time.thread_time_ns()
    flat, used, ok = _generate(np.uint32(seed), w, h, m, x, y, 500, swap, nbr, order, restart)
    return flat, int(used), bool(ok), time.thread_time_ns() - t


def p99(values) -> float:
    return float(np.percentile(values, 99, method="inverted_cdf"))


def claims(boards: int, seed: int, rejected: int) -> None:
    print(f"{boards} boards a level, first click in the centre; CPU ms per board; rejected: the first {rejected} "
          "attempts of each board the three rules reject, played by the certifier (with the mine total)")
    print(f"{'level':>14} {'at 1st':>7} {'attempts':>9} {'p99':>4} {'ms':>8} {'p99 ms':>8} {'fell back':>9} "
          f"{'certified':>9} {'(total)':>7} {'guess':>5} {'rejected':>8} {'certified':>9} {'(total)':>7}")
    for name, w, h, m in LEVELS:
        x, y = w // 2, h // 2
        nbr, order = grid.neighbour_table(w, h), visit_order(w, h, "rows")
        timed_board(0, w, h, m, x, y, nbr, order)  # compiled before the clock
        tries, ns = [], []
        fell = cert = cert_total = 0
        seen = rej_cert = rej_total = 0
        for s in seeds(seed, boards):
            flat, used, ok, dt = timed_board(int(s), w, h, m, x, y, nbr, order)
            tries.append(used)
            ns.append(dt)
            if not ok:
                fell += 1
                c, total = certify(Board._from_flat(w, h, flat), x, y, budget=NO_LIMIT)
                cert += c
                cert_total += c and total
            taken = 0
            for b, opened in itertools.islice(Win7NoGuess(w, h, m, int(s)).each_attempt(x, y), used):
                if opened or taken == rejected:
                    continue
                taken += 1
                c, total = certify(b, x, y, budget=NO_LIMIT)
                seen += 1
                rej_cert += c
                rej_total += c and total
        ms = np.array(ns) / 1e6
        first = sum(t == 1 for t in tries) / boards
        print(f"{name:>14} {first:>7.1%} {np.median(tries):>9g} {p99(tries):>4g} {np.median(ms):>8.2f} "
              f"{p99(ms):>8.2f} {fell / boards:>9.1%} {cert:>9} {cert_total:>7} {fell - cert:>5} {seen:>8} "
              f"{rej_cert / max(seen, 1):>9.1%} {rej_total / max(seen, 1):>7.1%}", flush=True)


def ring_place(dx: int, dy: int) -> str:
    """Where a cell two steps from the click sits on the ring around its 3x3 block."""
    a, b = sorted((abs(dx), abs(dy)))
    return {(2, 2): "diagonal to a corner", (1, 2): "beside a corner", (0, 2): "beside a side's middle"}[(a, b)]


def free_cells(attempts: int, seed: int) -> None:
    """10x10 from the centre: each attempt by where its free cells outside the click's block lie."""
    x, y = 5, 5
    for m in (89, 90):
        counts = collections.Counter()
        per_seed = 50
        for s in seeds(seed, attempts // per_seed):
            for b, opened in itertools.islice(Win7NoGuess(10, 10, m, int(s)).each_attempt(x, y), per_seed):
                free = [(i % 10 - x, i // 10 - y) for i in np.flatnonzero(~b.flat_mines)
                        if max(abs(i % 10 - x), abs(i // 10 - y)) > 1]
                touching = [f for f in free if max(map(abs, f)) == 2]
                where = ", ".join(sorted(ring_place(*f) for f in touching)) if len(touching) == len(free) else \
                    f"{len(free) - len(touching)} of {len(free)} away from the block"
                counts[where, opened] += 1
        print(f"10x10/{m}, click (5, 5): {100 - 9 - m} free cell(s) outside the block; attempts by where they lie")
        print(f"  {'where the free cells lie':<56} {'attempts':>8} {'opened':>7}")
        for where in sorted({w for w, _ in counts}):
            total = counts[where, True] + counts[where, False]
            print(f"  {where:<56} {total:>8} {counts[where, True]:>7}")


def readings(boards: int, seed: int) -> None:
    """The solver's order and progress readings at expert: the same boards, in a different time."""
    w, h, m, x, y = 30, 16, 99, 15, 8
    nbr = grid.neighbour_table(w, h)
    names = list(itertools.product(ORDERS, PROGRESS))
    orders = {o: visit_order(w, h, o) for o in ORDERS}
    for o, p in names:
        timed_board(0, w, h, m, x, y, nbr, orders[o], restart=p == "restart")
    ns = {r: [] for r in names}
    for s in seeds(seed, boards):  # the readings take turns on each board
        results = set()
        for o, p in names:
            flat, used, ok, dt = timed_board(int(s), w, h, m, x, y, nbr, orders[o], restart=p == "restart")
            ns[o, p].append(dt)
            results.add((flat.tobytes(), used, ok))
        assert len(results) == 1, "the readings gave different boards"
    base = np.median(ns["rows", "sweep"])
    print(f"expert, {boards} boards, each by every reading in turn: the same board every time")
    print(f"  {'order':>8} {'progress':>8} {'median ms':>10} {'ratio':>6}")
    for o, p in names:
        print(f"  {o:>8} {p:>8} {np.median(ns[o, p]) / 1e6:>10.2f} {np.median(ns[o, p]) / base:>6.2f}")


def patch_sample(w, h, m, x, y, boards, seed):
    """The patch's boards from `boards` time seeds, as a uniformity Sample (fallbacks counted apart)."""
    from sweeplab.lab.uniformity import Sample
    nbr = grid.neighbour_table(w, h)
    order = visit_order(w, h, "rows")
    kept, fell = [], 0
    t0 = time.perf_counter()
    for s in seeds(seed, boards):
        flat, _, ok, _ = timed_board(int(s), w, h, m, x, y, nbr, order)
        if ok:
            kept.append(flat)
        fell += not ok
    return _sample(kept, w, h, x, y, "win7-noguess", time.perf_counter() - t0, Sample), fell


def rules_reference(w, h, m, x, y, boards, seed):
    """Uniform boards with the click's 3x3 free, kept iff the patch's three rules open them: exactly
    uniform over the boards those rules finish."""
    from sweeplab.lab.uniformity import Sample
    n = w * h
    nbr = grid.neighbour_table(w, h)
    order = visit_order(w, h, "rows")
    excluded = grid.block_mask(w, h, x, y)
    cells, queue, scratch = np.empty(n, dtype=np.int8), np.empty(n, dtype=np.int32), np.empty((3, 8), dtype=np.int32)
    state = np.uint64(seed_key(stream_key(seed, 1)))
    kept, laid = [], 0
    t0 = time.perf_counter()
    while len(kept) < boards:
        mines, state = lay_uniform(n, m, excluded, state)
        laid += 1
        if opens_completely(mines, count_numbers(mines, nbr), nbr, w, y * w + x, order, False, cells, queue, scratch):
            kept.append(mines)
    return _sample(kept, w, h, x, y, "uniform, kept iff the three rules open it", time.perf_counter() - t0,
                   Sample), laid


def _sample(boards, w, h, x, y, label, seconds, Sample):
    from sweeplab.lab.uniformity import layout_figures, rim
    from sweeplab.stats import bbbv_kernel, label_openings
    nbr = grid.neighbour_table(w, h)
    edge, corner = rim(w, h)
    counts = np.zeros(w * h, dtype=np.int64)
    bv, op, need, fig = [], [], [], []
    for flat in boards:
        numbers = count_numbers(flat, nbr)
        counts += flat
        bv.append(bbbv_kernel(flat, numbers, nbr))
        op.append(label_openings(flat, numbers, nbr)[1])
        fig.append(layout_figures(flat, nbr, edge, corner))
        ok, total = certify(Board._from_flat(w, h, flat), x, y, budget=NO_LIMIT)
        need.append(ok and total)
    fig = np.array(fig)
    return Sample(w, h, counts, bv, op, need, label, seconds, edge=fig[:, 0], corner=fig[:, 1], touching=fig[:, 2])


def uniformity(boards: int, seed: int) -> None:
    from sweeplab.lab.uniformity import NAMES, compare, draw_sample
    w, h, m, x, y = 30, 16, 99, 15, 8
    patch, fell = patch_sample(w, h, m, x, y, boards, seed)
    ref, laid = rules_reference(w, h, m, x, y, boards, seed)
    noguess = draw_sample(w, h, m, x, y, boards, seed, label="noguess")
    certified = draw_sample(w, h, m, x, y, boards, seed + 1_000_003, method="rejection", tries=1 << 40,
                            label="rejection (certified)")
    print(f"expert 30x16/99, click ({x}, {y}), {boards} boards each; the patch fell back on {fell}; its rules "
          f"open {boards / laid:.2%} of uniform boards; the certifier {certified.boards} boards")
    pairs = [("patch", patch, "rules' rejection", ref), ("noguess", noguess, "certified rejection", certified),
             ("patch", patch, "noguess", noguess)]
    print(f"  {'sample':>8} {'against':>20} {'chi2/dof':>8} " + " ".join(f"{k:>18}" for k in NAMES))
    for a_name, a, b_name, b in pairs:
        r = compare(a, b)
        cols = " ".join(f"{f['gen']:>8.3f} ({f['diff_in_se']:+6.1f})" for f in r["figures"].values())
        print(f"  {a_name:>8} {b_name:>20} {r['chi2_per_dof']:>8.3f} {cols}")
    print("  each figure: the sample's mean (its difference from the other in standard errors)")
    for k, v in NAMES.items():
        print(f"    {k}: {v}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boards", type=int, default=500)
    ap.add_argument("--seed", type=int, default=2009)
    ap.add_argument("--rejected", type=int, default=20, help="rejected attempts of each board to certify")
    ap.add_argument("--free-cells", action="store_true")
    ap.add_argument("--readings", action="store_true")
    ap.add_argument("--uniformity", action="store_true")
    a = ap.parse_args()
    if a.free_cells:
        free_cells(20 * a.boards, a.seed)
    elif a.readings:
        readings(a.boards, a.seed)
    elif a.uniformity:
        uniformity(a.boards, a.seed)
    else:
        claims(a.boards, a.seed, a.rejected)


if __name__ == "__main__":
    main()
