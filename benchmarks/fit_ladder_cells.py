"""Fit a LADDER_ALONE level's per-cell scales (`noguess.cell_scales`) against long Metropolis chains.

The ladder alone is uniform only by measurement. Its ring, corner and click weights leave a thin
excess spread over the cells (about 0.002 of a cell's mine rate at 130 mines on 30x16), finer than a
rejection reference of 16,000 boards can steer: fitted to one, the table would learn its noise. The
target here is the chain's stationary law instead, which is uniform over certified boards by
construction, drawn as thinned long chains (cheap per effective board), and the fit is a few rounds
of: draw ladder boards with the current table, move each cell's scale by the gap in its mine rate
over the share of that rate the ladder's adds lay.

    python benchmarks/fit_ladder_cells.py chain --chains 6000 --seed 1 --out DIR/chain_1.npz
    python benchmarks/fit_ladder_cells.py ladder --boards 50000 --seed 11 --table T0 --out DIR/ladder_11.npz
    python benchmarks/fit_ladder_cells.py step --chain DIR/chain_1.npz --ladder DIR/ladder_11.npz --table T0 --out T1

`--table -` is all ones (1024 of 1024); the level's own table is left out while fitting (its base
weights are the level's without it). `step` prints the ladder's chi-square per dof against the
chains (their samples, 50 moves apart, are correlated: `--tau`) and against the level's rejection
references; the figures (3BV, openings, the share needing the total...) answer the level's keeps,
which stay set by hand in LADDER_ALONE.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction

import numpy as np

from sweeplab import grid
from sweeplab.cli.uniformity import Sample, compare, layout_figures, rim
from sweeplab.generators import noguess as G
from sweeplab.generators.certify import DEFAULT_LEAF_BUDGET, NEEDED_TOTAL, workspace
from sweeplab.rng import seed_key, stream_key
from sweeplab.stats import openings_and_bbbv

UNIT = G.CELL_UNIT
BURN, EVERY, SAMPLES = 1500, 50, 200  # a chain's moves before its first sample, between samples; samples


def level_of(a):
    return a.width, a.height, a.mines, a.width // 2, a.height // 2


def untabled(level):
    """The level's ladder shape without its per-cell table: (base weights, clump base). The table is
    applied last, by multiplying, so it divides out exactly."""
    weight, clump = G._ladder_shape_for(level[0], level[1], "bounded", *level[2:])
    alone = G.ladder_alone(*level)
    return (weight // G.cell_scales(*level) if alone is not None and alone.cells else weight), clump


def load_table(path, n):
    return np.full(n, UNIT, dtype=np.int64) if path == "-" else np.load(path).astype(np.int64)


def chain(a) -> None:
    """Thinned chains from the level's ladder start: the per-cell mine counts over their samples."""
    level = level_of(a)
    w, h, m, x, y = level
    n, nbr, excluded = w * h, grid.neighbour_table(w, h), grid.block_mask(w, h, x, y)
    shape = G.ladder_draws(w, h, m, x, y)
    counts = np.zeros(n, dtype=np.int64)
    key, t0 = seed_key(a.seed), time.perf_counter()
    for c in range(a.chains):
        begun = G._start(n, m, excluded, nbr, y * w + x, np.uint64(stream_key(key, c)), 20_000, DEFAULT_LEAF_BUDGET,
                         workspace(w, h), shape)
        state, _, p = G._chain(begun.position, excluded, np.uint64(begun.state), BURN)
        for _ in range(SAMPLES):
            state, _, p = G._chain(p, excluded, state, EVERY)
            counts += p.mines
    np.savez(a.out, counts=counts, samples=a.chains * SAMPLES,
             command=f"fit_ladder_cells.py chain --mines {m} --chains {a.chains} --seed {a.seed}")
    print(f"{a.chains} chains of {BURN + EVERY * SAMPLES} moves, {time.perf_counter() - t0:.0f} s -> {a.out}")


def ladder(a) -> None:
    """The level's ladder boards (no chain) drawn with `--table` on its untabled weights."""
    level = level_of(a)
    w, h, m, x, y = level
    n, nbr, excluded = w * h, grid.neighbour_table(w, h), grid.block_mask(w, h, x, y)
    edge, corner = rim(w, h)
    base, clump = untabled(level)
    keep_total, keep_openings, keep_bbbv, keep_bbbv_up = G.ladder_keeps(w, h, m, x, y)
    if a.keep_total:
        keep_total = Fraction(a.keep_total)
    if a.keep_openings:
        keep_openings = a.keep_openings
    if a.keep_bbbv_up:
        keep_bbbv_up = a.keep_bbbv_up
    if a.clump:
        clump = Fraction(a.clump)
    shape = (base * load_table(a.table, n), clump, keep_total, keep_openings, keep_bbbv, keep_bbbv_up)
    counts = np.zeros(n, dtype=np.int64)
    figures = np.zeros((a.boards, 6), dtype=np.int64)
    key, t0 = seed_key(a.seed), time.perf_counter()
    for i in range(a.boards):
        p = G._start(n, m, excluded, nbr, y * w + x, np.uint64(stream_key(key, i)), 20_000, DEFAULT_LEAF_BUDGET,
                     workspace(w, h), shape).position
        counts += p.mines
        openings, bbbv = openings_and_bbbv(p.mines, p.numbers, nbr)
        figures[i] = (bbbv, openings, p.play[2][NEEDED_TOTAL], *layout_figures(p.mines, nbr, edge, corner))
    Sample(w, h, counts, figures[:, 0], figures[:, 1], figures[:, 2].astype(bool), "ladder",
           edge=figures[:, 3], corner=figures[:, 4], touching=figures[:, 5]).save(
        a.out, f"fit_ladder_cells.py ladder --mines {m} --boards {a.boards} --seed {a.seed} --table {a.table}"
               f" --keep-total {keep_total} --keep-openings {keep_openings} --keep-bbbv-up {keep_bbbv_up}"
               f" --clump {clump}")
    print(f"{a.boards} boards, {time.perf_counter() - t0:.0f} s -> {a.out}")


def alike(w, h, x, y) -> np.ndarray:
    """Each cell's group of cells alike: the same steps to the nearest side across and down (up to 5) and
    to the click across (up to 7) and down (up to 6). The ladder's excess varies little within a group
    (at 130 mines its spread there is about the noise's), so a step moves a group as one: it averages
    4.7 cells, and the noise a step carries into the table shrinks by half."""
    col, row = np.arange(w * h) % w, np.arange(w * h) // w
    key = np.stack([np.minimum(np.minimum(col, w - 1 - col), 5), np.minimum(np.minimum(row, h - 1 - row), 5),
                    np.minimum(abs(col - x), 7), np.minimum(abs(row - y), 6)], axis=1)
    return np.unique(key, axis=0, return_inverse=True)[1].ravel()


def step(a) -> None:
    """Compare the ladder's boards with the chains (and the references); write the next table."""
    parts = [np.load(f) for f in a.chain.split(",")]
    samples = sum(int(p["samples"]) for p in parts)
    t = sum(p["counts"] for p in parts) / samples
    lad = Sample.join([Sample.load(f) for f in a.ladder.split(",")])
    w, h = lad.width, lad.height
    free = ~grid.block_mask(w, h, w // 2, h // 2)
    lad_rate = lad.counts / lad.boards
    var = lad_rate * (1 - lad_rate) / lad.boards + t * (1 - t) * a.tau / samples
    gap = (t - lad_rate)[free]
    print(f"chains: {samples} samples; ladder: {lad.boards} boards")
    print(f"ladder against the chains: chi-square per dof {np.mean(gap ** 2 / var[free]):.3f}, "
          f"excess rate rms {np.sqrt(max(np.mean(gap ** 2 - var[free]), 0)):.5f}")
    if a.reference:
        ref = Sample.join([Sample.load(f) for f in a.reference.split(",")])
        r = ref.counts / ref.boards
        vr = r * (1 - r) / ref.boards + t * (1 - t) * a.tau / samples
        c = compare(lad, ref)
        print(f"chains against the references: chi-square per dof {np.mean(((t - r) ** 2 / vr)[free]):.3f}")
        print(f"ladder against the references: chi-square per dof {c['chi2_per_dof']:.3f}; "
              + " ".join(f"{k} {v['diff_in_se']:+.2f}" for k, v in c["figures"].items()))
    if a.out:
        table = load_table(a.table, w * h)
        group = alike(w, h, w // 2, h // 2)
        shared = np.zeros(w * h)
        for g in np.unique(group[free]):
            cells = free & (group == g)
            shared[cells] = (t - lad_rate)[cells].mean()
        base_rate = int(G.LADDER_BASE_DENSITY * w * h) / free.sum()  # the rejection sample under the ladder
        laid = np.maximum(lad_rate - base_rate, 0.02)  # the share of a cell's rate the ladder's adds lay
        new = np.where(free, np.rint(table * (1 + a.eta * shared / laid)), UNIT).astype(np.int64)
        np.save(a.out, new)
        moved = (new - table)[free] / table[free]
        print(f"table -> {a.out}: moved rms {np.sqrt(np.mean(moved ** 2)):.4f}, "
              f"range {new[free].min()}..{new[free].max()}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("chain", "ladder", "step"))
    ap.add_argument("--width", type=int, default=30)
    ap.add_argument("--height", type=int, default=16)
    ap.add_argument("--mines", type=int, default=130)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--chains", type=int, default=1000)
    ap.add_argument("--boards", type=int, default=50_000)
    ap.add_argument("--table", default="-")
    ap.add_argument("--keep-total", default=None, help="of 16, a fraction allowed (default: the level's)")
    ap.add_argument("--keep-openings", type=int, default=None, help="of 256 (default: the level's)")
    ap.add_argument("--keep-bbbv-up", type=int, default=None, help="of 256 adds that raise 3BV (default: the level's)")
    ap.add_argument("--clump", default=None, help="the clump base, a fraction allowed (default: the level's)")
    ap.add_argument("--chain", help="chain files, comma-separated")
    ap.add_argument("--ladder", help="ladder files, comma-separated")
    ap.add_argument("--reference", help="rejection references, comma-separated")
    ap.add_argument("--eta", type=float, default=0.7, help="the share of the gap a step closes")
    ap.add_argument("--tau", type=float, default=6.16,
                    help="the chains' autocorrelation, in samples (6.16 at 130 mines: batch means over 400 chains)")
    ap.add_argument("--out")
    a = ap.parse_args()
    {"chain": chain, "ladder": ladder, "step": step}[a.what](a)


if __name__ == "__main__":
    main()
