"""`sweeplab uniformity`: how close the no-guess generator comes to uniform over the certified boards.

It draws K boards from the generator and compares them with a reference sample drawn by rejection
(exactly uniform over the certified boards), as `sweeplab.lab.uniformity` measures it: the
chi-square per degree of freedom of the per-cell mine frequencies, and 3BV, openings, the edge
share, the corner rate, clumping and the share needing the mine total in standard errors;
`--json` prints the same as one object; `--plot` draws heat maps. A reference can be saved once
(`--save-reference`) and loaded again (`--reference`).
"""

from __future__ import annotations

import json

import click

from ..errors import SweeplabError
from ..lab.intervals import uniformity_verdict
from .options import CELL, PLOT_FORMATS, OutputPath, conflict, level_options, positive, resolve_level


@click.command()
@level_options
@click.option("--generator", default="noguess", show_default=True, help="Generator (noguess and its aliases).")
@click.option("--method", type=click.Choice(["auto", "rejection", "chain"]), default="auto", show_default=True,
              help="The no-guess method to test.")
@click.option("--steps", type=int, default=None, help="Chain moves per board (default: the generator's rule).")
@click.option("--batch", is_flag=True, help="Draw the boards as one batch: one warm chain, a board every few moves.")
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
def uniformity(preset, width, height, mines, generator, method, steps, batch, boards, click_at, seed, reference,
               reference_boards, save_reference, plot_path, as_json):
    """Compare the no-guess generator with a rejection sample (uniform over the certified boards)."""
    from ..generators import lookup
    from ..lab.uniformity import NAMES, REFERENCE_OFFSET, Sample, compare, draw_sample, plot
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
        ref = draw_sample(w, h, m, x, y, kr, seed + REFERENCE_OFFSET, method="rejection", tries=1 << 40,
                          label="rejection")
        if save_reference:
            ref.save(save_reference, f"sweeplab uniformity --width {w} --height {h} --mines {m} --click {x},{y} "
                                     f"--boards 2 --reference-boards {kr} --seed {seed} --save-reference FILE")
        refs.append(("drawn here", ref))
    if len(refs) > 1:
        refs.append(("all references joined", Sample.join([r for _, r in refs])))
    gen = draw_sample(w, h, m, x, y, boards, seed, method=method, steps=steps, batch=batch)
    results = [dict(compare(gen, ref), reference=name, reference_label=ref.label) for name, ref in refs]
    for r in results:
        r["uniform"], r["verdict"] = uniformity_verdict(r)
    if as_json:
        click.echo(json.dumps({"width": w, "height": h, "mines": m, "click": [x, y], "generator": gen.label,
                               "boards": gen.boards, "seconds": gen.seconds, "seed": seed, "steps": steps,
                               "batch": batch, "against": results}, indent=2))
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
