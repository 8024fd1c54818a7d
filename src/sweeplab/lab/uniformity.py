"""How close no-guess boards come to uniform over the certified boards: samples, comparisons, exact lists.

A `Sample` keeps the per-cell mine counts of K boards and, per board, 3BV, openings, the mines
on edge cells and on corners, the mine-mine neighbour pairs and whether it needs the mine total.
`compare` sets two samples side by side: the chi-square per degree of freedom of the per-cell mine
frequencies (a two-sample test, one degree per cell that can hold a mine; an exact sampler scores
1 on average, with a standard deviation of sqrt(2 / dof)) and each figure's means with their
difference in standard errors (an exact sampler: a standard normal). `draw_sample` draws a sample
from the generator, each board checked again from scratch, and `sample_of` makes one of any
generator's layouts, saying which of them certify. `certified_boards` lists every certified board
of a small level, so that a sampler can be judged against the exact uniform law
(`exact_chi_square`), and `chain_transition` gives the no-guess chain's exact transition matrix on
that list, so that its mixing there is computed rather than measured (`moves_within`).
"""

from __future__ import annotations

import io
import math
import time
from itertools import combinations

import numpy as np

from .. import grid
from .._numba_cache import njit
from ..board import Board
from ..errors import SweeplabError
from ..generators.certify import NO_BUDGET, SOLVED, certify, position, start, workspace
from ..grid import around
from ..rng import seed_key, stream_key
from ..stats import bbbv_kernel, label_openings
from ..userfile import MiB, read_user_file


def rim(width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    """Flat masks of the edge cells (the outer ring, corners included) and of the corners."""
    edge = np.zeros((height, width), dtype=np.bool_)
    edge[0] = edge[-1] = edge[:, 0] = edge[:, -1] = True
    corner = np.zeros((height, width), dtype=np.bool_)
    corner[0, 0] = corner[0, -1] = corner[-1, 0] = corner[-1, -1] = True
    return edge.ravel(), corner.ravel()


def layout_figures(mines, nbr, edge, corner) -> tuple[int, int, int]:
    """(mines on edge cells, mines on corners, sum over mines of their mine neighbours) of one
    flat board: the per-board figures behind the edge share, the corner rate and clumping."""
    return int(mines[edge].sum()), int(mines[corner].sum()), int(around(mines, nbr)[mines].sum())


# The per-board figures a sample keeps, each compared with the reference in standard errors.
REFERENCE_BYTES = 256 * MiB  # a saved reference of a million boards is a few tens of MiB
REFERENCE_ARRAYS = ("width", "height", "counts", "bbbv", "openings", "needs_total", "label", "edge", "corner",
                    "touching")
REFERENCE_OFFSET = 1_000_003  # a reference drawn for a run seeded S is seeded S + this
FIGURES = ("bbbv", "openings", "edge", "corner", "touching", "needs_total")


class Sample:
    """Per-cell mine counts of K boards, and per board: 3BV, openings, mines on edge cells, mines
    on corners, mine-mine neighbour pairs (from both ends) and whether it needs the mine total."""

    def __init__(self, width, height, counts, bbbv, openings, needs_total, label, seconds=0.0, *, edge,
                 corner, touching):
        self.width, self.height, self.label, self.seconds = width, height, label, seconds
        self.counts = np.asarray(counts, dtype=np.int64)
        self.bbbv = np.asarray(bbbv, dtype=np.int64)
        self.openings = np.asarray(openings, dtype=np.int64)
        self.needs_total = np.asarray(needs_total, dtype=np.bool_)
        self.edge = np.asarray(edge, dtype=np.int64)
        self.corner = np.asarray(corner, dtype=np.int64)
        self.touching = np.asarray(touching, dtype=np.int64)

    @property
    def mines(self) -> float:
        return float(self.counts.sum() / max(self.boards, 1))

    def per_board(self, figure: str) -> np.ndarray:
        """One figure per board, as compared: edge share (of the mines), corner rate (of the 4
        corners), clumping (mine neighbours per mine); the others as kept."""
        values = getattr(self, figure).astype(np.float64)
        if figure in ("edge", "touching"):
            return values / self.mines
        if figure == "corner":
            return values / int(rim(self.width, self.height)[1].sum())
        return values

    @property
    def boards(self) -> int:
        return int(self.bbbv.size)

    def mean_se(self, values) -> tuple[float, float]:
        v = np.asarray(values, dtype=np.float64)
        return float(v.mean()), float(v.std(ddof=1) / math.sqrt(v.size)) if v.size > 1 else float("nan")

    def save(self, path, command: str) -> None:
        np.savez_compressed(path, width=self.width, height=self.height, counts=self.counts, bbbv=self.bbbv,
                            openings=self.openings, needs_total=self.needs_total, label=self.label,
                            command=command, edge=self.edge.astype(np.int16), corner=self.corner.astype(np.int8),
                            touching=self.touching.astype(np.int16))

    @classmethod
    def join(cls, parts: list[Sample]) -> Sample:
        """One sample from pieces of the same level (e.g. a reference drawn in chunks)."""
        first = parts[0]
        if any((p.width, p.height) != (first.width, first.height) for p in parts):
            raise SweeplabError("samples to join differ in size")
        return cls(first.width, first.height, sum(p.counts for p in parts),
                   np.concatenate([p.bbbv for p in parts]), np.concatenate([p.openings for p in parts]),
                   np.concatenate([p.needs_total for p in parts]), first.label, sum(p.seconds for p in parts),
                   edge=np.concatenate([p.edge for p in parts]), corner=np.concatenate([p.corner for p in parts]),
                   touching=np.concatenate([p.touching for p in parts]))

    @classmethod
    def load(cls, path) -> Sample:
        expected = "expected a .npz written by `sweeplab uniformity --save-reference`"
        data = read_user_file(path, what="a reference sample (.npz)", limit=REFERENCE_BYTES, error=SweeplabError,
                              name=f"cannot read reference sample {str(path)!r}")
        if not data:
            raise SweeplabError(f"cannot read reference sample {str(path)!r}: the file is empty; {expected}")
        try:  # never pickles: a reference holds arrays and strings only, and a pickle runs code
            d = np.load(io.BytesIO(data), allow_pickle=False)
            missing = [k for k in REFERENCE_ARRAYS if k not in getattr(d, "files", ())]
            if not missing:
                return cls(int(d["width"]), int(d["height"]), d["counts"], d["bbbv"], d["openings"],
                           d["needs_total"], str(d["label"]), edge=d["edge"], corner=d["corner"],
                           touching=d["touching"])
        except Exception as e:  # noqa: BLE001  (a truncated, foreign or damaged file raises many kinds)
            # numpy's own words may advise allow_pickle, which would run code from the file: never pass that on
            why = "not a .npz archive of arrays" if "pickle" in str(e) or not str(e) else str(e)
            raise SweeplabError(f"cannot read reference sample {str(path)!r} ({why}); {expected}") from None
        raise SweeplabError(f"cannot read reference sample {str(path)!r}: it has no {', '.join(missing)} "
                            f"array{'s' * (len(missing) > 1)}; {expected}")


def chi2_per_dof(a: Sample, b: Sample) -> tuple[float, int]:
    """Two-sample chi-square of per-cell mine frequencies, per degree of freedom (cells that can hold a mine)."""
    if (a.width, a.height) != (b.width, b.height):
        raise SweeplabError(f"samples differ in size: {a.width}x{a.height} against {b.width}x{b.height}")
    ka, kb = a.boards, b.boards
    pa, pb = a.counts / ka, b.counts / kb
    pooled = (a.counts + b.counts) / (ka + kb)
    var = pooled * (1 - pooled) * (1 / ka + 1 / kb)
    live = var > 0
    chi2 = float(np.sum((pa[live] - pb[live]) ** 2 / var[live]))
    dof = int(np.count_nonzero(live))
    return chi2 / max(dof, 1), dof


NAMES = {"bbbv": "mean 3BV", "openings": "mean openings", "edge": "edge share (mines on edge cells)",
         "corner": "corner rate (corners holding a mine)", "touching": "clumping (mine neighbours of a mine)",
         "needs_total": "share needing the mine total"}


def compare(gen: Sample, ref: Sample) -> dict:
    """Chi-square per dof of the heat maps, and each per-board figure's mean and standard error
    in both samples with their difference in standard errors (of the difference)."""
    c, dof = chi2_per_dof(gen, ref)
    figures: dict[str, dict[str, float]] = {}
    for name in FIGURES:
        gm, gse = gen.mean_se(gen.per_board(name))
        rm, rse = ref.mean_se(ref.per_board(name))
        se = math.hypot(gse, rse)
        figures[name] = {"gen": gm, "gen_se": gse, "ref": rm, "ref_se": rse,
                         "diff_in_se": (gm - rm) / se if se > 0 else (0.0 if gm == rm else float("nan"))}
    return {"chi2_per_dof": c, "dof": dof, "boards": gen.boards, "reference_boards": ref.boards, "figures": figures}


def plot(gen: Sample, ref: Sample, path: str, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shape = (gen.height, gen.width)
    fg = (gen.counts / gen.boards).reshape(shape)
    fr = (ref.counts / ref.boards).reshape(shape)
    pooled = (gen.counts + ref.counts) / (gen.boards + ref.boards)
    var = pooled * (1 - pooled) * (1 / gen.boards + 1 / ref.boards)
    z = np.where(var > 0, (gen.counts / gen.boards - ref.counts / ref.boards) / np.sqrt(np.where(var > 0, var, 1)), 0)
    fig, axes = plt.subplots(3, 1, figsize=(8, 10), constrained_layout=True)
    vmax = max(fg.max(), fr.max())
    for ax, data, name in ((axes[0], fg, f"{gen.label}: {gen.boards} boards"),
                           (axes[1], fr, f"{ref.label}: {ref.boards} boards")):
        im = ax.imshow(data, cmap="viridis", vmin=0, vmax=vmax)
        ax.set_title(f"mine frequency, {name}")
        fig.colorbar(im, ax=ax, shrink=0.8)
    im = axes[2].imshow(z.reshape(shape), cmap="coolwarm", vmin=-4, vmax=4)
    axes[2].set_title("difference in standard errors (generator - reference)")
    fig.colorbar(im, ax=axes[2], shrink=0.8)
    fig.suptitle(title)
    fig.savefig(path, dpi=100)
    plt.close(fig)


def draw_sample(width, height, mines, x, y, boards, seed, *, method="auto", steps=None, tries=None, label=None,
                start=0, chain_start="insert", batch=False) -> Sample:
    """K no-guess boards, each certified again from scratch. Board i (from `start`) is generate's
    for the seed stream_key(seed, i), so a sample can be drawn in pieces and put together
    (`Sample.join`); with `batch`, the boards of one warm chain instead (`noguess.boards`)."""
    from ..generators.noguess import boards as batch_of
    from ..generators.noguess import generate

    key = seed_key(seed)
    options = dict(method=method, steps=steps, tries=tries, chain_start=chain_start)
    t0 = time.perf_counter()
    made = (batch_of(width, height, mines, x, y, key, boards, **options) if batch else
            (generate(width, height, mines, x, y, stream_key(key, start + i), **options) for i in range(boards)))
    sample, certified = sample_of(width, height, x, y, (r.board.flat_mines for r in made), boards,
                                  label or f"noguess/{method}")
    if not certified.all():  # the generator's promise, checked again from scratch
        raise SweeplabError(f"board {int(np.argmin(certified))} of the sample is not certified: a bug, please "
                            "report it")
    sample.seconds = time.perf_counter() - t0
    return sample


def sample_of(width, height, x, y, layouts, boards: int, label: str) -> tuple[Sample, np.ndarray]:
    """The sample of `boards` flat layouts (any generator's) clicked first at (x, y), and which of them
    the certifier passes from there, each played from scratch (a board it fails counts as not
    needing the total)."""
    nbr = grid.neighbour_table(width, height)
    counts = np.zeros(width * height, dtype=np.int64)
    bv, op = np.empty(boards, dtype=np.int64), np.empty(boards, dtype=np.int64)
    need, certified = np.zeros(boards, dtype=np.bool_), np.empty(boards, dtype=np.bool_)
    figures = np.empty((boards, 3), dtype=np.int64)
    edge, corner = rim(width, height)
    made = 0
    for i, flat in enumerate(layouts):
        if i == boards:  # (the arrays are sized for `boards`)
            raise SweeplabError(f"a sample of {boards} boards was given more layouts")
        made += 1
        b = Board._from_flat(width, height, np.array(flat, dtype=np.bool_), "bounded")
        counts += b.flat_mines
        bv[i] = bbbv_kernel(b.flat_mines, b.flat_numbers, nbr)
        op[i] = label_openings(b.flat_mines, b.flat_numbers, nbr)[1]
        figures[i] = layout_figures(b.flat_mines, nbr, edge, corner)
        certified[i], needed = certify(b, x, y, budget=NO_BUDGET)
        need[i] = certified[i] and needed
    if made < boards:
        raise SweeplabError(f"a sample of {boards} boards was given {made} layouts")
    return Sample(width, height, counts, bv, op, need, label, edge=figures[:, 0], corner=figures[:, 1],
                  touching=figures[:, 2]), certified


@njit
def _certified_among(layouts, nbr, click, room):
    """Which of the flat layouts [k, cells] certify (the verdict with no leaf budget)."""
    ok = np.zeros(layouts.shape[0], dtype=np.bool_)
    for k in range(layouts.shape[0]):
        # np.int64: a global passed as it is reaches the certifier as a literal, compiled a second time for it
        ok[k] = start(position(layouts[k].copy(), nbr, click, np.int64(NO_BUDGET), room)) == SOLVED
    return ok


def certified_boards(width: int, height: int, mines: int, x: int, y: int, topology: str = "bounded") -> np.ndarray:
    """Every certified board of a small level clicked at (x, y), as flat bool layouts [board, cell]
    in the order of their mines' cells (every layout of the mines outside the click's block is
    played; mind the count: C(free cells, mines) of them)."""
    excluded = grid.block_mask(width, height, x, y, topology)
    free = np.flatnonzero(~excluded)
    if math.comb(free.size, mines) > 5_000_000:
        raise SweeplabError(f"{math.comb(free.size, mines):,} layouts are too many to list; at most 5,000,000")
    nbr, room = grid.neighbour_table(width, height, topology), workspace(width, height, topology)
    found = []
    chunk = np.zeros((50_000, width * height), dtype=np.bool_)
    combos = combinations(free.tolist(), mines)
    while True:
        rows = 0
        for cells in combos:
            chunk[rows] = False
            chunk[rows, list(cells)] = True
            rows += 1
            if rows == chunk.shape[0]:
                break
        if rows == 0:
            break
        ok = _certified_among(chunk[:rows], nbr, y * width + x, room)
        found.append(chunk[:rows][ok].copy())
        if rows < chunk.shape[0]:
            break
    return np.concatenate(found) if found else np.zeros((0, width * height), dtype=np.bool_)


def exact_chi_square(counts) -> tuple[float, int, float]:
    """Chi-square of how often each board of a list was drawn against the uniform law on the list:
    (chi-square per degree of freedom, degrees, its z-score by the Wilson-Hilferty cube root, which
    an exact sampler keeps a standard normal)."""
    counts = np.asarray(counts, dtype=np.float64)
    dof = counts.size - 1
    expected = counts.sum() / counts.size
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    z = ((chi2 / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))
    return chi2 / dof, dof, z


def chain_transition(width: int, height: int, mines: int, x: int, y: int,
                     boards: np.ndarray | None = None) -> np.ndarray:
    """The no-guess chain's exact transition matrix on the certified boards of a small level (rows and
    columns in the order of `certified_boards`, or of the flat layouts `boards` given), from the
    move's three kinds as `noguess.chain` draws them: a uniform mine to a uniform free cell; one in
    PAIR_SHARE two distinct mines to two distinct free cells; one in FRESH_SHARE a uniform layout;
    each kept iff the board it gives is on the list, and what is not kept stays."""
    from ..generators.noguess import FRESH_SHARE, PAIR_SHARE
    boards = certified_boards(width, height, mines, x, y) if boards is None else boards
    excluded = grid.block_mask(width, height, x, y)
    keys = boards.astype(np.int64) @ (np.int64(1) << np.arange(width * height, dtype=np.int64))
    index = {int(k): i for i, k in enumerate(keys)}
    fresh = 1 / FRESH_SHARE
    pair = (FRESH_SHARE // PAIR_SHARE) / FRESH_SHARE
    single = 1 - fresh - pair
    layouts = math.comb(width * height - int(excluded.sum()), mines)
    p = np.zeros((keys.size, keys.size))
    for s, board in enumerate(boards):
        key, held, free = int(keys[s]), np.flatnonzero(board), np.flatnonzero(~board & ~excluded)
        if held.size < 2 or free.size < 2:
            raise SweeplabError("the chain's pair moves need two mines and two free cells; this level has "
                                f"{held.size} and {free.size}")
        for a in held:
            for b in free:
                t = index.get(key ^ (1 << int(a)) ^ (1 << int(b)))
                if t is not None:
                    p[s, t] += single / (held.size * free.size)
        pairs = math.comb(held.size, 2) * math.comb(free.size, 2)
        for a1, a2 in combinations(held.tolist(), 2):
            for b1, b2 in combinations(free.tolist(), 2):
                t = index.get(key ^ (1 << a1) ^ (1 << a2) ^ (1 << b1) ^ (1 << b2))
                if t is not None:
                    p[s, t] += pair / pairs
        p[s] += fresh / layouts
        p[s, s] += 1 - p[s].sum()
    return p


def farthest_from_uniform(spectrum, moves: int) -> float:
    """The largest total variation distance from the uniform law after `moves` moves of a symmetric
    transition matrix, over every start; `spectrum` is its `np.linalg.eigh` (computed once)."""
    values, vectors = spectrum
    after = (vectors * values ** moves) @ vectors.T
    return float(0.5 * np.abs(after - 1 / values.size).sum(axis=1).max())


def moves_within(spectrum, distance: float) -> int:
    """The fewest moves of a symmetric transition matrix (`spectrum`: its `np.linalg.eigh`) after which
    every start's law is within `distance` of the uniform one in total variation."""
    low, high = 1, 1
    while farthest_from_uniform(spectrum, high) > distance:
        low, high = high + 1, high * 2
    while low < high:
        mid = (low + high) // 2
        low, high = (low, mid) if farthest_from_uniform(spectrum, mid) <= distance else (mid + 1, high)
    return low
