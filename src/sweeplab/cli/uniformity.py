"""`sweeplab uniformity`: how close a no-guess generator comes to uniform over certifiable boards.

It samples K boards from the generator and compares them with a reference sample drawn by
rejection (uniform boards, the click's 3x3 free, kept iff certified: exactly uniform over
certifiable boards). Reported: chi-square per degree of freedom of the per-cell mine
frequencies (a two-sample test, one degree per cell that can hold a mine), and for each
per-board figure its mean against the reference's, the difference in standard errors: 3BV,
openings, the edge share (mines on edge cells, of all mines), the corner rate (share of the
four corners holding a mine), clumping (mean mine neighbours of a mine) and the share of boards
that need the mine total; `--json` prints the same as one object; `--plot` draws heat maps.
A reference can be saved once (`--save-reference`) and loaded again (`--reference`).
"""

from __future__ import annotations

import json
import math
import time

import click
import numpy as np

from ..errors import SweeplabError
from ..grid import around
from ..lab.intervals import uniformity_verdict
from ..rng import seed_key, stream_key
from ..stats import bbbv_kernel, label_openings
from .options import CELL, PLOT_FORMATS, OutputPath, conflict, level_options, positive, resolve_level


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
        try:
            d = np.load(path)
            return cls(int(d["width"]), int(d["height"]), d["counts"], d["bbbv"], d["openings"], d["needs_total"],
                       str(d["label"]), edge=d["edge"], corner=d["corner"], touching=d["touching"])
        except (OSError, ValueError, KeyError, AttributeError) as e:
            raise SweeplabError(f"cannot read reference sample {path!r} ({e}); expected a .npz written by "
                                "`sweeplab uniformity --save-reference`") from None


def draw_sample(width, height, mines, x, y, boards, seed, *, method="auto", steps=None, tries=None,
                label=None, start=0, chain_start="auto") -> Sample:
    """K no-guess boards, board i (from `start`) seeded with stream_key(seed, i): a sample can be
    drawn in pieces and put together (`Sample.join`)."""
    from .. import grid
    from ..generators.certify import certify
    from ..generators.noguess import generate

    nbr = grid.neighbour_table(width, height)
    n = width * height
    counts = np.zeros(n, dtype=np.int64)
    bv = np.empty(boards, dtype=np.int64)
    op = np.empty(boards, dtype=np.int64)
    need = np.empty(boards, dtype=np.bool_)
    figures = np.empty((boards, 3), dtype=np.int64)
    edge, corner = rim(width, height)
    key = seed_key(seed)
    t0 = time.perf_counter()
    for i in range(boards):
        r = generate(width, height, mines, x, y, stream_key(key, start + i), method=method, steps=steps,
                     tries=tries, chain_start=chain_start)
        b = r.board
        counts += b.flat_mines
        bv[i] = bbbv_kernel(b.flat_mines, b.flat_numbers, nbr)
        op[i] = label_openings(b.flat_mines, b.flat_numbers, nbr)[1]
        figures[i] = layout_figures(b.flat_mines, nbr, edge, corner)
        ok, needed = certify(b, x, y, budget=1 << 40)
        if not ok:  # the generator's promise, checked again from scratch
            raise SweeplabError(f"board {i} of the sample is not certified: a bug, please report it")
        need[i] = needed
    return Sample(width, height, counts, bv, op, need, label or f"noguess/{method}",
                  time.perf_counter() - t0, edge=figures[:, 0], corner=figures[:, 1], touching=figures[:, 2])


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
    out = {"chi2_per_dof": c, "dof": dof, "boards": gen.boards, "reference_boards": ref.boards, "figures": {}}
    for name in FIGURES:
        gm, gse = gen.mean_se(gen.per_board(name))
        rm, rse = ref.mean_se(ref.per_board(name))
        se = math.hypot(gse, rse)
        out["figures"][name] = {"gen": gm, "gen_se": gse, "ref": rm, "ref_se": rse,
                                "diff_in_se": (gm - rm) / se if se > 0 else (0.0 if gm == rm else float("nan"))}
    return out


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


@click.command()
@level_options
@click.option("--generator", default="noguess", show_default=True, help="Generator (noguess and its aliases).")
@click.option("--method", type=click.Choice(["auto", "rejection", "mcmc"]), default="auto", show_default=True,
              help="The no-guess method to test.")
@click.option("--steps", type=int, default=None, help="Chain moves per board for mcmc (default: the generator's).")
@click.option("--boards", type=int, default=1000, show_default=True, help="Boards from the generator.")
@click.option("--click", "click_at", type=CELL, default=None, help="First click X,Y (default: the centre).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--reference", "reference", multiple=True, help="Load a rejection reference from this .npz; "
              "give it again for more (each is compared, then all of them joined).")
@click.option("--reference-boards", type=int, default=None, help="Boards in a fresh rejection reference "
              "(default: as many as --boards).")
@click.option("--save-reference", type=OutputPath(("npz",)), default=None,
              help="Write the reference drawn here to this .npz.")
@click.option("--plot", "plot_path", type=OutputPath(PLOT_FORMATS, needs="matplotlib"), default=None,
              help="Draw the heat maps to this image (PNG, SVG, PDF).")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as one JSON object.")
def uniformity(preset, width, height, mines, generator, method, steps, boards, click_at, seed, reference,
               reference_boards, save_reference, plot_path, as_json):
    """Compare a no-guess generator with a rejection sample (uniform over certifiable boards)."""
    from ..generators import lookup
    if lookup(generator).name != "noguess":
        raise SweeplabError(f"uniformity measures the no-guess generator; got {generator!r} (allowed: noguess, ng)")
    w, h, m = resolve_level(preset, width, height, mines)
    positive("boards", boards, 2)  # a standard error needs two
    positive("reference-boards", reference_boards, 2)
    positive("steps", steps)
    if method == "rejection":
        conflict({"--steps": steps, "--method rejection": True}, "rejection makes no chain moves")
    conflict({"--reference": reference or None, "--reference-boards": reference_boards},
             "a loaded reference has the boards it was saved with")
    conflict({"--reference": reference or None, "--save-reference": save_reference},
             "only a reference drawn in this run can be saved")
    x, y = click_at if click_at is not None else (w // 2, h // 2)
    refs = []
    for path in reference:
        ref = Sample.load(path)
        if (ref.width, ref.height, ref.mines) != (w, h, m):
            raise SweeplabError(f"reference {path!r} is {ref.width}x{ref.height} with {ref.mines:g} mines, "
                                f"not {w}x{h} with {m}; give a reference of the same level")
        refs.append((path, ref))
    if not refs:
        kr = boards if reference_boards is None else reference_boards
        # no cap on tries: the reference must be pure rejection, however long it takes
        ref = draw_sample(w, h, m, x, y, kr, seed + 1_000_003, method="rejection", tries=1 << 40, label="rejection")
        if save_reference:
            ref.save(save_reference, f"sweeplab uniformity --width {w} --height {h} --mines {m} --click {x},{y} "
                                     f"--boards 2 --reference-boards {kr} --seed {seed} --save-reference FILE")
        refs.append(("drawn here", ref))
    if len(refs) > 1:
        refs.append(("all references joined", Sample.join([r for _, r in refs])))
    gen = draw_sample(w, h, m, x, y, boards, seed, method=method, steps=steps)
    results = [dict(compare(gen, ref), reference=name, reference_label=ref.label) for name, ref in refs]
    for r in results:
        r["uniform"], r["verdict"] = uniformity_verdict(r)
    if as_json:
        click.echo(json.dumps({"width": w, "height": h, "mines": m, "click": [x, y], "generator": gen.label,
                               "boards": gen.boards, "seconds": gen.seconds, "seed": seed, "steps": steps,
                               "against": results}, indent=2))
    else:
        click.echo(f"{w}x{h}, {m} mines, first click ({x}, {y}); generator {gen.label}: {gen.boards} boards in "
                   f"{gen.seconds:.1f} s")
        for r in results:
            click.echo(f"against {r['reference']} ({r['reference_label']}, {r['reference_boards']} boards):")
            click.echo(f"  chi-square per dof (mine frequencies): {r['chi2_per_dof']:.3f} over {r['dof']} cells")
            for name, f in r["figures"].items():
                click.echo(f"  {NAMES[name]}: {f['gen']:.4f} +- {f['gen_se']:.4f} against {f['ref']:.4f} "
                           f"+- {f['ref_se']:.4f} ({f['diff_in_se']:+.2f} standard errors)")
            click.echo(f"  verdict: {r['verdict']}")
    if plot_path:
        plot(gen, refs[-1][1], plot_path, f"{w}x{h}, {m} mines, click ({x}, {y})")
        if not as_json:
            click.echo(f"heat maps written to {plot_path}")
