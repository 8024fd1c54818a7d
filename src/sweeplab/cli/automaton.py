"""`sweeplab automaton`: watch the 1997 cellular automaton play, sweep the mine density as the paper
did (with a complete solver and guessing players beside it), and measure steps against n."""

from __future__ import annotations

import json

import click
import numpy as np

from ..errors import SweeplabError
from ..figures import evolution_png, evolution_svg
from ..figures import pyplot as _pyplot
from ..grid import TOPOLOGIES
from ..lab import automaton as A
from ..userfile import MiB, read_user_file
from .options import PLOT_FORMATS, OutputPath

ROWS_BYTES = 16 * MiB  # the rows of a sweep or a scaling run are a few kB

STATUS_CHARS: dict[int, str] = {int(A.CLOSED): "#", int(A.MARKED): "F"}


def _topologies(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    bad = [t for t in names if t not in TOPOLOGIES]
    if bad or not names:
        raise SweeplabError(f"topology {','.join(bad) or text!r} unknown; allowed: a comma list of "
                            f"{', '.join(TOPOLOGIES)}")
    return names


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise SweeplabError(f"sizes {text!r}: write a comma list of lattice sides, e.g. 10,20,40") from None
    if not sizes or min(sizes) < 3:
        raise SweeplabError(f"sizes {text!r}: every side must be an integer >= 3")
    return sizes


def _positive(name, value):
    if value < 1:
        raise SweeplabError(f"--{name} must be a positive integer, got {value}")
    return value


def _check_seed(seed):
    if seed < 0:
        raise SweeplabError(f"--seed must be a non-negative integer, got {seed}")


@click.group()
def automaton():
    """Adamatzky's 1997 cellular automaton that plays Minesweeper."""


# --- show ---------------------------------------------------------------------------------------

def frame_steps(steps: int, frames: int) -> list[int]:
    """Up to `frames` steps from 0 to the fixed point, evenly spread, both ends included."""
    if steps + 1 <= frames:
        return list(range(steps + 1))
    return sorted({int(round(k * steps / (frames - 1))) for k in range(frames)})


def status_text(status: np.ndarray, nu: np.ndarray) -> str:
    """'#' closed, 'F' marked, the digit nu for an open cell (as a View prints)."""
    rows = []
    for srow, nrow in zip(status, nu):
        rows.append("".join(STATUS_CHARS.get(int(s), str(int(v))) for s, v in zip(srow, nrow)))
    return "\n".join(rows)


@automaton.command()
@click.option("--size", type=int, default=30, show_default=True, help="Lattice side n (n x n).")
@click.option("--density", type=float, default=0.12, show_default=True, help="Probability p that a site is mined.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--game", type=int, default=0, show_default=True,
              help="Which game of the seed's run (game i of `sweep --seed S` at this density).")
@click.option("--topology", type=click.Choice(TOPOLOGIES), default="bounded", show_default=True)
@click.option("--every", type=int, default=1, show_default=True, help="Print every k-th step (and the last).")
@click.option("--svg", "svg_path", type=OutputPath(("svg",)), default=None,
              help="Draw the evolution as SVG snapshots to this file.")
@click.option("--png", "png_path", type=OutputPath(("png",), needs="matplotlib"), default=None,
              help="Draw the evolution as PNG snapshots (matplotlib).")
@click.option("--frames", type=int, default=12, show_default=True, help="Snapshots in the drawing.")
def show(size, density, seed, game, topology, every, svg_path, png_path, frames):
    """Print the automaton's evolution step by step: '#' closed, 'F' marked, digits open."""
    _check_seed(seed)
    _positive("every", every)
    _positive("frames", frames)
    if game < 0:
        raise SweeplabError(f"--game must be a non-negative integer, got {game}")
    batch = A.random_batch(size, density, seed, 1, topology=topology, first=game)
    evo = A.run_batch(batch)
    nu = batch.nu[0].reshape(size, size)
    steps = int(evo.steps[0])
    mines = int(batch.mines[0].sum())
    click.echo(f"{size}x{size} {topology}, p = {density}, seed {seed} game {game}: {mines} mines, "
               f"start {' '.join(f'({x},{y})' for x, y in batch.start_cells(0))}")
    for k in range(steps + 1):
        if k % every and k != steps:
            continue
        st = evo.at(0, k)
        counts = [int(np.count_nonzero(st == s)) for s in (A.CLOSED, A.OPEN, A.MARKED)]
        click.echo(f"\nstep {k}: {counts[0]} closed, {counts[1]} open, {counts[2]} marked")
        click.echo(status_text(st, nu))
    share = float(evo.solved_share[0])
    click.echo(f"\nfixed point after {steps} steps: {share:.1%} of the board solved, "
               f"{int(np.count_nonzero(evo.status[0] == A.MARKED))} of {mines} mines marked")
    chosen = frame_steps(steps, frames)
    if svg_path:
        with open(svg_path, "w") as f:
            f.write(evolution_svg(evo, chosen) + "\n")
    if png_path:
        evolution_png(evo, chosen, png_path)


# --- sweep --------------------------------------------------------------------------------------

def _pct(v):
    return f"{100 * v:5.1f}"


def sweep_table(rows: list[dict]) -> str:
    head = (f"{'topology':<8} {'p':>5} {'games':>6} | {'solved %':>8} {'95% CI':>13} | {'q1':>5} {'med':>5} "
            f"{'q3':>5} | {'P(>=half closed)':>16} {'95% CI':>13} {'stuck@0':>7} | {'steps':>6} {'95% CI':>13}")
    extra = any("logic_mean" in r for r in rows)
    players = sorted({name for r in rows for name in r.get("players", {})})
    if extra:
        head += f" | {'games':>5} {'auto %':>6} {'logic %':>7} {'P(logic>auto)':>13}"
        for name in players:
            head += f" | {name + ' win %':>13} {'95% CI':>13}"
    lines = [head, "-" * len(head)]
    for r in rows:
        line = (f"{r['topology']:<8} {r['density']:5.3f} {r['games']:6d} | {_pct(r['solved_mean']):>8} "
                f"{_pct(r['solved_mean_ci'][0])}-{_pct(r['solved_mean_ci'][1]).strip():<6} | "
                f"{_pct(r['solved_q1'])} {_pct(r['solved_median'])} {_pct(r['solved_q3'])} | "
                f"{_pct(r['half_closed']):>16} {_pct(r['half_closed_ci'][0])}-{_pct(r['half_closed_ci'][1]).strip():<6} "
                f"{_pct(r['stuck_at_start']):>7} | "
                f"{r['steps_mean']:6.1f} {r['steps_mean_ci'][0]:6.1f}-{r['steps_mean_ci'][1]:<6.1f}")
        if extra:
            line += (f" | {r['compared_games']:5d} {_pct(r['automaton_mean_same_games']):>6} {_pct(r['logic_mean']):>7} "
                     f"{_pct(r['logic_beats_automaton']):>13}")
            for name in players:
                pr = r["players"][name]
                line += (f" | {_pct(pr['win_rate']):>13} "
                         f"{_pct(pr['win_rate_ci'][0])}-{_pct(pr['win_rate_ci'][1]).strip():<6}")
        lines.append(line)
    return "\n".join(lines)


def plot_sweep(rows: list[dict], path: str) -> None:
    plt = _pyplot()
    players = sorted({name for r in rows for name in r.get("players", {})})
    panels = 3 if players else 2
    fig, axes = plt.subplots(1, panels, figsize=(5.2 * panels, 4.2))
    colours = {"bounded": "tab:blue", "torus": "tab:orange"}
    for topology in sorted({r["topology"] for r in rows}):
        rs = [r for r in rows if r["topology"] == topology]
        p = np.array([r["density"] for r in rs])
        c = colours.get(topology, None)
        ax = axes[0]
        ax.plot(p, [r["solved_mean"] for r in rs], color=c, label=f"automaton, {topology}")
        ax.fill_between(p, [r["solved_mean_ci"][0] for r in rs], [r["solved_mean_ci"][1] for r in rs],
                        color=c, alpha=0.35, lw=0)
        ax.fill_between(p, [r["solved_q1"] for r in rs], [r["solved_q3"] for r in rs], color=c, alpha=0.12, lw=0)
        if "logic_mean" in rs[0]:
            ax.plot(p, [r["logic_mean"] for r in rs], color=c, ls="--", label=f"complete deduction, {topology}")
        ax = axes[1]
        ax.plot(p, [r["half_closed"] for r in rs], color=c, label=f"automaton, {topology}")
        ax.fill_between(p, [r["half_closed_ci"][0] for r in rs], [r["half_closed_ci"][1] for r in rs],
                        color=c, alpha=0.3, lw=0)
        ax.plot(p, [r["half_closed_given_started"] for r in rs], color=c, ls=":",
                label=f"automaton, {topology}, given a starting 0")
        if "logic_half_closed" in rs[0]:
            ax.plot(p, [r["logic_half_closed"] for r in rs], color=c, ls="--",
                    label=f"complete deduction, {topology}")
        if players:
            ax = axes[2]
            for name, ls in zip(players, ("-", "--", ":", "-.")):
                ax.plot(p, [r["players"][name]["win_rate"] for r in rs], color=c, ls=ls, label=f"{name}, {topology}")
                ax.fill_between(p, [r["players"][name]["win_rate_ci"][0] for r in rs],
                                [r["players"][name]["win_rate_ci"][1] for r in rs], color=c, alpha=0.2, lw=0)
            ax.plot(p, [r["all_solved"] for r in rs], color=c, lw=0.8, marker=".", label=f"automaton solves all, {topology}")
    size = rows[0]["size"]
    axes[0].set(xlabel="mine probability p", ylabel="share of the board solved",
                title=f"{size}x{size}: mean (band: 95% CI; light: quartiles)")
    axes[1].set(xlabel="mine probability p", ylabel="P(at least half the board stays closed)",
                title="failure as the paper defines it")
    if players:
        axes[2].set(xlabel="mine probability p", ylabel="share of games won", title="guessing players from the same 3 cells")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
        ax.set_ylim(-0.02, 1.02)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _jsonable(obj):
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


@automaton.command()
@click.option("--size", type=int, default=30, show_default=True, help="Lattice side n (n x n).")
@click.option("--densities", default="0.02:0.30:0.01", show_default=True,
              help="START:STOP:STEP (stop included) or a comma list of mine probabilities.")
@click.option("--games", type=int, default=1000, show_default=True, help="Games per density and topology.")
@click.option("--topology", "topologies", default="bounded,torus", show_default=True, help="Comma list.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--player", "players", multiple=True,
              help="Also play the same boards from the same 3 cells with this player (rules, safest, strong, "
                   "...); adds complete deduction's share solved. Repeatable.")
@click.option("--player-games", type=int, default=None,
              help="Games per density for the players (default: --games; the first games of the same run).")
@click.option("--json", "as_json", is_flag=True, help="Print the rows as JSON.")
@click.option("--plot", "plot_path", type=OutputPath(PLOT_FORMATS, needs="matplotlib"), default=None,
              help="Draw the curves to this file (matplotlib: PNG, SVG or PDF by its name).")
def sweep(size, densities, games, topologies, seed, players, player_games, as_json, plot_path):
    """The paper's experiment: share solved, failure and steps against the mine probability."""
    _check_seed(seed)
    _positive("games", games)
    dens = A.parse_densities(densities)
    topos = _topologies(topologies)
    if players:
        from ..solver.players import PLAYERS
        unknown = [p for p in players if p not in PLAYERS]
        if unknown:
            raise SweeplabError(f"unknown player {unknown[0]!r}; allowed: {', '.join(sorted(PLAYERS))}")
    if player_games is not None and not players:
        raise SweeplabError("--player-games needs --player: it is how many games each --player plays")
    rows = A.sweep(size, dens, games, topos, seed)
    if players:
        pg = _positive("player-games", player_games) if player_games else games
        for r in rows:
            result = A.compare(size, r["density"], min(pg, games), r["topology"], seed, players)
            r.update(A.summarise_comparison(result))
    if as_json:
        click.echo(json.dumps(_jsonable(rows)))
    else:
        click.echo(sweep_table(rows))
    if plot_path:  # after the table: a failing plot must not lose the sweep
        plot_sweep(rows, plot_path)


# --- scaling ------------------------------------------------------------------------------------

def plot_scaling(rows: list[dict], path: str) -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.6, 4.2))
    for topology, c in (("bounded", "tab:blue"), ("torus", "tab:orange")):
        rs = [r for r in rows if r["topology"] == topology]
        if not rs:
            continue
        n = np.array([r["size"] for r in rs], dtype=float)
        mean = np.array([r["steps_started_mean"] for r in rs])
        ax.errorbar(n, mean, yerr=[mean - [r["steps_started_mean_ci"][0] for r in rs],
                                   [r["steps_started_mean_ci"][1] for r in rs] - mean],
                    color=c, marker="o", ms=3, capsize=2, label=f"mean, {topology}")
        ax.plot(n, [r["steps_max"] for r in rs], color=c, ls=":", label=f"max, {topology}")
        slope = float(np.polyfit(n, mean, 1)[0])
        ax.plot([], [], " ", label=f"slope {slope:.2f} steps per cell of side ({topology})")
    ax.set(xlabel="lattice side n", ylabel="steps to the fixed point (games that started)",
           title=f"p = {rows[0]['density']}, {rows[0]['games']} games per point")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


@automaton.command()
@click.option("--sizes", default="10,20,40,80,160", show_default=True, help="Comma list of lattice sides n.")
@click.option("--density", type=float, default=0.05, show_default=True)
@click.option("--games", type=int, default=200, show_default=True, help="Games per size and topology.")
@click.option("--topology", "topologies", default="bounded,torus", show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.option("--plot", "plot_path", type=OutputPath(PLOT_FORMATS, needs="matplotlib"), default=None,
              help="Draw steps against n to this file (matplotlib: PNG, SVG or PDF by its name).")
def scaling(sizes, density, games, topologies, seed, as_json, plot_path):
    """Steps to the fixed point against the lattice side n (the paper: time proportional to n)."""
    _check_seed(seed)
    _positive("games", games)
    rows = A.scaling(_sizes(sizes), A.check_density(density), games, _topologies(topologies), seed)
    if as_json:
        click.echo(json.dumps(_jsonable(rows)))
        if plot_path:
            plot_scaling(rows, plot_path)
        return
    head = (f"{'topology':<8} {'n':>5} {'games':>6} | {'stuck@0':>7} | {'steps':>7} {'95% CI':>15} {'max':>5} | "
            f"{'steps/n':>7} | {'solved %':>8}")
    click.echo(head)
    click.echo("-" * len(head))
    for r in rows:
        click.echo(f"{r['topology']:<8} {r['size']:5d} {r['games']:6d} | {_pct(r['stuck_at_start']):>7} | "
                   f"{r['steps_started_mean']:7.1f} {r['steps_started_mean_ci'][0]:7.1f}-"
                   f"{r['steps_started_mean_ci'][1]:<7.1f} {r['steps_max']:5d} | {r['steps_per_side']:7.3f} | "
                   f"{_pct(r['solved_mean']):>8}")
    click.echo("steps: mean over the games that started (some starting cell a 0); steps/n uses that mean")
    if plot_path:
        plot_scaling(rows, plot_path)


# --- plot saved rows ----------------------------------------------------------------------------

@automaton.command("plot")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", "-o", "out", type=OutputPath(PLOT_FORMATS, needs="matplotlib"), required=True,
              help="Image file to write (PNG, SVG or PDF by its name).")
def plot_rows(path, out):
    """Draw the rows that `sweep --json` or `scaling --json` printed (long runs need not run twice)."""
    data = read_user_file(path, what="a JSON file of rows", limit=ROWS_BYTES, error=SweeplabError)
    try:
        rows = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise SweeplabError(f"{path} is not JSON from `sweeplab automaton sweep/scaling --json`: {e}") from None
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) and "topology" in r for r in rows):
        raise SweeplabError(f"{path}: expected the list of rows printed by `sweeplab automaton sweep/scaling --json`")
    if "steps_per_side" in rows[0]:
        plot_scaling(rows, out)
    else:
        plot_sweep(rows, out)
