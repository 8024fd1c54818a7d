"""`sweeplab optimal`: the exact win probability of perfect play on a small board, as a fraction."""

from __future__ import annotations

import json
import time

import click

from ..errors import SweeplabError
from ..generators import UNIFORM_RULES
from .options import CELL, level_options, positive, resolve_level


@click.command()
@level_options
@click.option("--first-click", "first_click", type=click.Choice(UNIFORM_RULES), default="safe", show_default=True,
              help="First-click rule, one that lays boards uniformly: none (the first click can lose), "
                   "safe (the clicked cell is free), opening (the 3x3 around it is free).")
@click.option("--at", "at", type=CELL, default=None,
              help="The first click X,Y (0-based); default: every cell, and the best one.")
@click.option("--max-states", "max_states", type=int, default=None,
              help="Give up past this many memoised states (default: the search's own cap).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def optimal(preset, width, height, mines, first_click, at, max_states, as_json):
    """Search the game tree of a small board exactly and print the win probability of perfect play."""
    from ..generators import kept_free
    from ..solver.optimal import MAX_STATES, OptimalPlay

    w, h, m = resolve_level(preset, width, height, mines, default=None)
    positive("max-states", max_states)
    if at is not None and not (0 <= at[0] < w and 0 <= at[1] < h):
        raise SweeplabError(f"--at {at[0]},{at[1]} is off the {w}x{h} board; x in 0..{w - 1}, y in 0..{h - 1}")
    kept_free(first_click, w, h, m, 0, 0)  # the rule's name and the mine count, checked before any work
    search = OptimalPlay(w, h, m, max_states=max_states or MAX_STATES)
    compile_seconds = warm_up(first_click, at is None)
    t0 = time.perf_counter()
    if at is not None:
        results = {at: search.first_click(*at, kept_free(first_click, w, h, m, *at))}
    else:
        results = search.every_first_click(lambda x, y: kept_free(first_click, w, h, m, x, y))
    wall = time.perf_counter() - t0
    best = at if at is not None else max(results, key=lambda c: (results[c].probability, -c[1], -c[0]))
    r = results[best]
    p = r.probability
    if as_json:
        out = {"width": w, "height": h, "mines": m, "first_click": first_click, "at": list(best),
               "best_of_every_cell": at is None, "wins": r.wins, "layouts": r.layouts,
               "probability": f"{p.numerator}/{p.denominator}", "decimal": float(p),
               "states": search.states, "seconds": wall, "compile_seconds": compile_seconds}
        if at is None:
            out["cells"] = [{"at": [x, y], "wins": results[x, y].wins, "layouts": results[x, y].layouts,
                             "probability": f"{results[x, y].probability.numerator}/"
                                            f"{results[x, y].probability.denominator}",
                             "decimal": float(results[x, y].probability)}
                            for y in range(h) for x in range(w)]
        click.echo(json.dumps(out))
        return
    where = f"at ({best[0]}, {best[1]})" if at is not None else f"best at ({best[0]}, {best[1]}) of every cell"
    click.echo(f"perfect play on {w}x{h}/{m}, first click {first_click} {where}")
    click.echo(f"  win probability  {p.numerator}/{p.denominator} = {float(p):.6f}")
    click.echo(f"  layouts          {r.layouts:,} equally likely after the first click")
    click.echo(f"  states searched  {search.states:,} (memoised knowledge states)")
    compiled = f" (and {compile_seconds:.1f} s compiling kernels before it)" if compile_seconds >= 0.5 else ""
    click.echo(f"  time             {wall:.2f} s searching{compiled}")
    if at is None:
        click.echo("  by first click (win probability):")
        for y in range(h):
            click.echo("    " + " ".join(f"{float(results[x, y].probability):.4f}" for x in range(w)))


def warm_up(first_click: str, every_cell: bool) -> float:
    """Seconds spent searching a 4x4 board with 1 mine the same way: the kernels compile (on a first run)
    or load from the cache there, so the time reported is the search's own."""
    from ..generators import kept_free
    from ..solver.optimal import OptimalPlay

    t0 = time.perf_counter()
    tiny = OptimalPlay(4, 4, 1)
    if every_cell:
        tiny.every_first_click(lambda x, y: kept_free(first_click, 4, 4, 1, x, y))
    else:
        tiny.first_click(0, 0, kept_free(first_click, 4, 4, 1, 0, 0))
    return time.perf_counter() - t0
