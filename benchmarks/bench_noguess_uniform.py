"""No-guess boards against exact and long-chain references at levels and clicks nobody tuned on.

    python benchmarks/bench_noguess_uniform.py --dir uniform            # the table (resumable)
    python benchmarks/bench_noguess_uniform.py --dir uniform --workers 2
    python benchmarks/bench_noguess_uniform.py --dir uniform --cluster local --workers 2   # on Dask
    python benchmarks/bench_noguess_uniform.py --dir uniform --points 0 --boards 4000   # one point, smaller
    python benchmarks/bench_noguess_uniform.py --others 3000 --tatham DIR   # Tatham's and ms-toollib's boards

At each point (size, mines, first click; off-centre and corner clicks, sizes other than the
mixing study's, 25% to 40% mines, none of them used to choose anything) these samples:

- `default`: 10,000 boards from `generate` as a game gets them (seed stream_key(1, i): each its
  own chain, or rejection where `auto` finds it cheap);
- two references of 10,000 boards each: by rejection (seeds 2 and 3; exact by construction)
  where rejection is feasible, else one warm chain from the insertion and one from the repair
  (`noguess.boards`, 20 chains of 500 boards each, seeded 2 and 3), each board a chain's length
  (`batch_spacing`) after the last;
- at a rejection point, where `auto` serves most boards by rejection, the chain alone:
  `--batch-boards` boards of batches (`noguess.boards` from the insertion, a chain each 500
  boards, seeded 4) and `--chain-boards` boards each of its own chain of the rule's length
  (`method="chain"`, seed 5): fewer, since a chain move costs about as much as a rejection board.

Compared (`sweeplab.lab.uniformity.compare`): the chi-square per degree of freedom of the per-cell
mine frequencies (two-sample, one degree per cell that can hold a mine; an exact sampler scores 1
with a standard deviation of sqrt(2 / dof), printed as `sd`), and 3BV, openings, the edge share,
the corner rate and the share needing the mine total as the difference of the means in standard
errors (an exact sampler: standard normal). Rows: each sample against both references joined, and
the two references against each other (what two exact samples of the same law score).

`--others N` sets other no-guess generators beside the same yardstick: at 30x16/99 and 30x16/130
clicked at the centre, N boards of sweeplab's default, of Simon Tatham's Mines (its `minegen`,
built from the source folder given to `--tatham` as `bench_noguess.py --against` builds it; board
i seeded "sweeplab-<i>") and of ms-toollib's `laymine_solvable_adjust` (which takes no seed, so its
sample differs run to run; a try it reports failed is asked again, and its time counted), each
against the exact rejection reference kept in tests/data. Every board is played again by the
project's certifier (how many it fails is printed), and the figures are printed as means with
their difference from the reference's in standard errors; a second block compares only the boards
that need no mine total, on both sides, since a generator whose solver uses the total less
certifies fewer of the boards that need it.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import resource
import subprocess
import time

import numpy as np

from sweeplab.generators import noguess as G
from sweeplab.lab.runner import fan_out
from sweeplab.lab.uniformity import FIGURES as ALL_FIGURES
from sweeplab.lab.uniformity import Sample, compare, draw_sample, plot, sample_of
from sweeplab.rng import stream_key

# (width, height, mines, click x, click y, reference): "rejection" or "chains". The first six are the
# table (seconds to minutes a sample); the others cost an hour or more a sample here (a game's board
# at 20x12/70 takes about 0.3 s, and the larger ones run a long chain a board), so they run only
# when named with --points; the last four are of the mixing study's expert sizes and densities, the
# last two with a reference kept in tests/data (`--stored`).
POINTS = ((9, 9, 26, 2, 6, "rejection"), (12, 12, 40, 3, 3, "rejection"), (16, 16, 64, 3, 3, "rejection"),
          (8, 8, 20, 7, 0, "rejection"), (10, 10, 30, 0, 5, "rejection"), (12, 8, 28, 11, 7, "rejection"),
          (20, 12, 70, 17, 2, "rejection"), (24, 20, 150, 0, 19, "chains"), (30, 16, 170, 6, 11, "chains"),
          (16, 30, 190, 8, 3, "chains"), (30, 16, 130, 15, 8, "chains"), (30, 16, 170, 0, 0, "chains"),
          (30, 24, 200, 15, 12, "chains"), (30, 16, 200, 15, 8, "chains"))
TABLE = 6
BOARDS = 10_000
CHUNK = 500
FIGURES = ("bbbv", "openings", "edge", "corner", "needs_total")


def chunk_path(point, what, folder, start, stop) -> str:
    w, h, m, x, y, _ = point
    size = "" if stop - start == CHUNK else f"_{stop - start}"
    return os.path.join(folder, f"{w}x{h}_{m}_{x}_{y}_{what}_{start:06d}{size}.npz")


def draw_chunk(point, what, folder, start, stop) -> str:
    """Boards start..stop-1 of one sample of `point`, saved as a chunk; its path."""
    w, h, m, x, y, reference = point
    path = chunk_path(point, what, folder, start, stop)
    if os.path.exists(path):
        return path
    if what == "default":
        part = draw_sample(w, h, m, x, y, stop - start, 1, start=start, label="default")
    elif what == "chain":  # the chain alone, each board its own chain of the rule's length
        part = draw_sample(w, h, m, x, y, stop - start, 5, method="chain", start=start, label="own chains")
    elif what == "batch":  # the chain alone, one warm chain a chunk, as `board --count` draws
        part = draw_sample(w, h, m, x, y, stop - start, stream_key(4, start), method="chain", batch=True,
                           label="batches")
    elif reference == "rejection":
        part = draw_sample(w, h, m, x, y, stop - start, {"a": 2, "b": 3}[what[-1]], method="rejection",
                           tries=1 << 40, start=start, label="rejection")
    else:  # one warm chain a chunk, from the insertion (a) or the repair (b)
        how = {"a": "insert", "b": "repair"}[what[-1]]
        part = draw_sample(w, h, m, x, y, stop - start, stream_key({"a": 2, "b": 3}[what[-1]], start),
                           method="chain", chain_start=how, batch=True, label=f"chains from the {how} start")
    part.save(path + ".tmp.npz", what)
    os.replace(path + ".tmp.npz", path)
    return path


def samples(point, a) -> list[tuple[str, int]]:
    """The samples of a point and their sizes: at a rejection point, also the chain alone (its
    batches, and boards of their own chain), since `auto` serves most boards there by rejection."""
    out = [("ref a", a.boards), ("ref b", a.boards), ("default", a.boards)]
    return out + [("batch", a.batch_boards), ("chain", a.chain_boards)] if point[5] == "rejection" else out


def chunks(k: int) -> list[tuple[int, int]]:
    return [(s, min(s + CHUNK, k)) for s in range(0, k, CHUNK)]


def sample(point, what, folder, boards) -> Sample:
    return Sample.join([Sample.load(draw_chunk(point, what, folder, s, t)) for s, t in chunks(boards)])


def methods(point, k: int = 200) -> str:
    """How `auto` served the default sample's first k boards (the same seeds): rejection or chain."""
    from collections import Counter

    from sweeplab.lab.uniformity import seed_key

    w, h, m, x, y, _ = point
    tally = Counter(G.generate(w, h, m, x, y, stream_key(seed_key(1), i)).method for i in range(k))
    return ", ".join(f"{n} by {how}" for how, n in sorted(tally.items()))


def row(name: str, c: dict) -> str:
    sd = math.sqrt(2 / c["dof"])
    zs = " ".join(f"{c['figures'][f]['diff_in_se']:>+8.2f}" for f in FIGURES)
    return f"  {name:<30} {c['chi2_per_dof']:>8.3f} {sd:>6.3f} {zs}"


# (width, height, mines, click x, click y, the exact rejection reference kept for it)
OTHERS = ((30, 16, 99, 15, 8, "tests/data/noguess_rejection_30x16_99.npz"),
          (30, 16, 130, 15, 8, "tests/data/noguess_rejection_30x16_130.npz"))


def tatham_layouts(binary: str, w: int, h: int, m: int, x: int, y: int, k: int) -> list[np.ndarray]:
    """Tatham's boards 0..k-1 of a level, as flat layouts."""
    out = subprocess.run([binary, str(w), str(h), str(m), str(x), str(y), str(k), "0", "layouts"], check=True,
                         capture_output=True, text=True).stdout
    return [np.frombuffer(line.split()[2].encode(), dtype=np.uint8) == ord("1") for line in out.splitlines()]


def adjust_layouts(w: int, h: int, m: int, x: int, y: int, k: int) -> list[np.ndarray]:
    """k boards ms-toollib's laymine_solvable_adjust says it made solvable, as flat layouts (it takes
    rows, columns, mines, the click's row and column, and returns the numbers, -1 a mine, and
    whether it succeeded; a game would ask again where it did not, and so does this)."""
    import ms_toollib as mst

    out = []
    while len(out) < k:
        numbers, ok = mst.laymine_solvable_adjust(h, w, m, y, x)
        if ok:
            out.append((np.array(numbers) == -1).ravel())
    return out


def figures_row(name: str, s: Sample, ref: Sample, ms: float, uncertified: int | str, keep=None,
                keep_ref=None) -> str:
    """Means of each figure and their difference from the reference's in standard errors; with
    `keep`, `keep_ref`, over those boards only (and no heat map: a sample keeps its sum)."""
    cells = []
    for f in ALL_FIGURES[:-1] if keep is not None else ALL_FIGURES:
        a = s.per_board(f) if keep is None else s.per_board(f)[keep]
        b = ref.per_board(f) if keep_ref is None else ref.per_board(f)[keep_ref]
        se = math.hypot(a.std(ddof=1) / math.sqrt(a.size), b.std(ddof=1) / math.sqrt(b.size))
        cells.append(f"{a.mean():>8.3f} {'':>7}" if s is ref else f"{a.mean():>8.3f} {(a.mean() - b.mean()) / se:>+7.1f}")
    chi2 = "" if keep is not None or s is ref else f"{compare(s, ref)['chi2_per_dof']:>8.2f}"
    boards = s.boards if keep is None else int(np.count_nonzero(keep))
    return f"  {name:<22} {boards:>6} {uncertified!s:>5} {ms:>8.2f} {chi2:>8} " + " ".join(cells)


def cpu() -> float:
    """CPU seconds of this process and its finished children (Tatham's driver runs as one)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def others(k: int, tatham: str | None, plots: str | None) -> None:
    """The --others table: other generators' boards against the exact rejection references (and,
    with `plots`, each one's heat maps against the reference's, saved in that folder)."""
    from bench_noguess import build_tatham

    binary = build_tatham(tatham) if tatham else None
    heads = ("3BV", "openings", "edge", "corner", "clumping", "total")
    print("machine: shared 2-core x86_64; each figure's mean, then its difference from the reference's in "
          "standard errors")
    for w, h, m, x, y, path in OTHERS:
        ref = Sample.load(path)
        print(f"{w}x{h}/{m} from ({x}, {y}), against {os.path.basename(path)} (rejection: exact)")
        print(f"  {'generator':<22} {'boards':>6} {'fails':>5} {'ms/board':>8} {'chi2/dof':>8} "
              + " ".join(f"{f:>16}" for f in heads) + f"   (sd of chi2/dof {math.sqrt(2 / compare(ref, ref)['dof']):.3f})")
        drawn = [("sweeplab default", "sweeplab",
                  lambda: [G.generate(w, h, m, x, y, stream_key(1, i)).board.flat_mines for i in range(k)])]
        if binary:
            drawn.append(("Tatham's minegen", "tatham", lambda: tatham_layouts(binary, w, h, m, x, y, k)))
        drawn.append(("ms-toollib adjust", "ms-toollib", lambda: adjust_layouts(w, h, m, x, y, k)))
        rows, kept = [], []
        for name, key, draw in drawn:
            t = cpu()
            layouts = draw()
            ms = (cpu() - t) / k * 1e3
            s, certified = sample_of(w, h, x, y, layouts, k, name)
            rows.append(figures_row(name, s, ref, ms, int(np.count_nonzero(~certified))))
            if plots:
                plot(s, ref, os.path.join(plots, f"noguess-{key}-{w}x{h}-{m}.png"),
                     f"{name} against rejection (exact), {w}x{h}/{m} from ({x}, {y})")
            kept.append((name, s, certified))
        print(figures_row("reference", ref, ref, float("nan"), "-"))
        print("\n".join(rows))
        print("  the boards that need no mine total, on both sides:")
        alone = ~ref.needs_total
        print(figures_row("reference", ref, ref, float("nan"), "-", alone, alone))
        for name, s, certified in kept:
            print(figures_row(name, s, ref, float("nan"), "-", certified & ~s.needs_total, alone))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", help="folder for the samples' chunks (a rerun reads them back)")
    ap.add_argument("--others", type=int, default=0, help="boards a generator for the table of other generators")
    ap.add_argument("--tatham", help="Tatham's Puzzles source folder for --others (mines.c and what it needs)")
    ap.add_argument("--plots", help="folder for --others' heat maps, one a generator and level")
    ap.add_argument("--workers", type=int, default=1, help="worker processes (or the LocalCluster's)")
    ap.add_argument("--cluster", choices=["local"], help="a Dask LocalCluster of --workers processes")
    ap.add_argument("--scheduler", help="a Dask scheduler, tcp://HOST:PORT (its workers import sweeplab)")
    ap.add_argument("--boards", type=int, default=BOARDS, help=f"boards a sample (a multiple of {CHUNK})")
    ap.add_argument("--batch-boards", type=int, default=1000, help="boards of batches a rejection point")
    ap.add_argument("--chain-boards", type=int, default=0, help="boards of their own chain a rejection point "
                    "(each pays the rule's whole chain: over a second a board at 9x9/26)")
    ap.add_argument("--stored", default=None, help="a stored reference of the (one) point named by --points "
                    "(tests/data/noguess_*.npz), which the default sample is also compared with")
    ap.add_argument("--points", default=",".join(str(i) for i in range(TABLE)),
                    help="the points to measure, by their index in POINTS (comma-separated)")
    a = ap.parse_args()
    if a.others < 0:
        ap.error(f"--others is a number of boards, at least 1 (0: the table instead), got {a.others}")
    if a.others:
        others(a.others, a.tatham, a.plots)
        return
    if not a.dir:
        ap.error("--dir is needed for the table (or --others N for other generators)")
    os.makedirs(a.dir, exist_ok=True)
    chosen = [POINTS[int(i)] for i in a.points.split(",")]
    if a.stored and len(chosen) != 1:
        ap.error("--stored compares with one point's reference: name one point with --points")
    todo = [(point, what, s, t) for point in chosen for what, k in samples(point, a) for s, t in chunks(k)]
    work = [(i, i + 1) for i, job in enumerate(todo) if not os.path.exists(chunk_path(job[0], job[1], a.dir, *job[2:]))]
    t = time.time()
    for _ in fan_out(functools.partial(_chunk, todo, a.dir), work, workers=a.workers, cluster=a.cluster,
                     scheduler=a.scheduler):
        pass
    print(f"machine: shared 2-core x86_64; {a.boards} boards a sample ({time.time() - t:.0f} s drawing here: "
          f"{len(work)} chunks drawn, {len(todo) - len(work)} read back)")
    print(f"  {'':<30} {'chi2/dof':>8} {'sd':>6} " + " ".join(f"{f:>8}" for f in
                                                               ("3BV", "openings", "edge", "corner", "total")))
    for point in chosen:
        w, h, m, x, y, reference = point
        level = G.Level(w, h, m, x, y, "bounded", G.DEFAULT_LEAF_BUDGET)
        free = level.free
        default, ref_a, ref_b = (sample(point, what, a.dir, a.boards) for what in ("default", "ref a", "ref b"))
        both = Sample.join([ref_a, ref_b])
        share = f"{m / free:.0%} of the free cells"
        k = 200 if reference == "rejection" else 20  # (at a chains point a board costs up to seconds)
        print(f"{w}x{h}/{m} from ({x}, {y}) ({share}); reference: {reference}; the rule: "
              f"{G.chain_moves(free, m, level.corner)} moves, a batch every {G.batch_spacing(free, m)}; the default's first {k} "
              f"boards: {methods(point, k)}")
        print(row("default against both refs", compare(default, both)))
        if a.stored:
            print(row(f"default against {os.path.basename(a.stored)}", compare(default, Sample.load(a.stored))))
        if reference == "rejection" and a.batch_boards:
            print(row(f"{a.batch_boards} of batches against both", compare(sample(point, "batch", a.dir,
                                                                                 a.batch_boards), both)))
        if reference == "rejection" and a.chain_boards:
            print(row(f"{a.chain_boards} own chains against both", compare(sample(point, "chain", a.dir,
                                                                                a.chain_boards), both)))
        print(row("ref a against ref b", compare(ref_a, ref_b)))


def _chunk(todo, folder, i, _):
    point, what, s, t = todo[i]
    return draw_chunk(point, what, folder, s, t)


if __name__ == "__main__":
    main()
