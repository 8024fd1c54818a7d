"""`sweeplab bench`: a player's win rate over many seeded games, with a 95% Wilson interval."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import socket
import sys
import time
from urllib.parse import urlsplit

import click

from ..errors import SweeplabError
from ..extras import install_hint
from ..lab.runner import TASK_GAMES, BenchSpec, append_row, read_done, run, summary
from .options import CELL, OutputPath, level_options, positive, resolve_level


@click.command()
@click.option("--player", default="strong", show_default=True, help="Player: rules, safest, strong, learned (or random).")
@level_options
@click.option("--first-click", "first_click", default="opening", show_default=True,
              help="First-click rule: none (a fixed board; the first click can lose), safe (the clicked cell), "
                   "opening (the 3x3 around it), shift (WinMine), win7, noguess (certified boards).")
@click.option("--at", "at", type=CELL, default=None,
              help="The first click X,Y (0-based); default: the player chooses it.")
@click.option("--games", type=int, default=1000, show_default=True, help="Games to play.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the run (non-negative).")
@click.option("--workers", type=int, default=None, help="Worker processes (default: one per CPU).")
@click.option("--scheduler", default=None, help="A Dask scheduler address, tcp://host:port (needs sweeplab[dask]).")
@click.option("--cluster", type=click.Choice(["local"]), default=None,
              help="Start a Dask LocalCluster of --workers processes (needs sweeplab[dask]).")
@click.option("--task-size", "task_games", type=int, default=TASK_GAMES, show_default=True,
              help="Games per task.")
@click.option("--out", "out", type=OutputPath(), default=None,
              help="Append each finished task to this CSV; games already in it are not played again.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--no-progress", is_flag=True, help="Do not show the progress bar.")
def bench(player, preset, width, height, mines, first_click, at, games, seed, workers, scheduler, cluster,
          task_games, out, as_json, no_progress):
    """Play GAMES seeded games with a player and print its win rate, 3BV of wins and speed."""
    w, h, m = resolve_level(preset, width, height, mines)
    if games < 1:
        raise SweeplabError(f"--games must be at least 1, got {games}")
    if seed < 0:
        raise SweeplabError(f"--seed must be a non-negative integer, got {seed}")
    if scheduler and cluster:
        raise SweeplabError("give either --scheduler or --cluster, not both")
    if workers is not None and workers < 1:
        raise SweeplabError(f"--workers must be at least 1, got {workers}")
    positive("task-size", task_games)
    spec = BenchSpec(player, w, h, m, first_click, at, seed).check()
    if scheduler:
        check_scheduler(scheduler)
    try:
        done = read_done(out, spec) if out else {}
    except (UnicodeDecodeError, csv.Error) as e:
        raise SweeplabError(f"{out} is not a sweeplab bench CSV ({e}); give a new file or one an earlier "
                            "bench --out wrote") from None
    already = sum(b - a for a, b in done if b <= games)

    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("{task.fields[won]}"), TimeRemainingColumn(),
                        console=Console(stderr=True), disable=no_progress, transient=True)
    state = {"wins": sum(c.wins for (a, b), c in done.items() if b <= games), "games": already}

    def on_task(a, b, c):
        if out:
            append_row(out, spec, a, b, c)
        state["wins"] += c.wins
        state["games"] += c.games
        progress.update(bar, won=won_so_far(state["wins"], state["games"]), refresh=True)

    def on_progress(played):  # per game (per task on Dask); the win rate moves as tasks finish
        progress.update(bar, completed=already + played)

    t0 = time.perf_counter()
    try:
        with progress:
            bar = progress.add_task(spec.player, total=games, completed=already,
                                    won=won_so_far(state["wins"], state["games"]))
            with _scheduler_errors(scheduler):
                total = run(spec, games, workers=workers, task_games=task_games, scheduler=scheduler,
                            cluster=cluster, done=done, on_task=on_task, on_progress=on_progress)
    except KeyboardInterrupt:
        interrupted(state, already, games, out)
    wall = time.perf_counter() - t0
    played = total.games - already
    res = summary(total, wall=wall)
    backend = f"dask {scheduler}" if scheduler else ("dask LocalCluster" if cluster else "local processes")
    res.update({"spec": {"player": player, "width": w, "height": h, "mines": m, "first_click": first_click,
                         "at": list(at) if at else None, "seed": seed},
                "played_now": played, "games_per_second": played / wall if wall > 0 else None,
                "workers": workers or os.cpu_count(), "backend": backend})
    if as_json:
        click.echo(json.dumps(res))
        return
    lo, hi = res["wilson95"]
    where = "chosen by the player" if at is None else f"at ({at[0]}, {at[1]})"
    click.echo(f"player {player} on {w}x{h}/{m}, first click {first_click} {where}, seed {seed}")
    click.echo(f"  win rate   {res['win_rate']:.2%}  ({total.wins} of {total.games}; 95% Wilson {lo:.2%} - {hi:.2%})")
    if total.wins:
        click.echo(f"  3BV        {res['bbbv_won_mean']:.1f} on average in won games")
    speed = f"{res['games_per_second']:.1f} games/s" if played else "nothing left to play"
    click.echo(f"  speed      {speed} ({plural(played, 'game')} in {wall:.1f} s, {plural(res['workers'], 'worker')}, "
               f"{backend})")
    if res["games_per_cpu_second"]:
        click.echo(f"             {res['games_per_cpu_second']:.1f} games per CPU-second of the workers "
                   "(what one free core gives; the machine may be shared)")
    click.echo(f"  guesses    {res['guesses_per_game']:.2f} per game; certain moves that hit a mine: {total.unsound}")
    if total.beyond_exact:
        click.echo(f"  note       {total.beyond_exact} guesses were made by a local estimate: the exact analysis "
                   "declined those positions as too complex")


def won_so_far(wins: int, games: int) -> str:
    """The progress bar's win rate: over the games of the tasks finished so far (a task reports its wins
    when it ends), and nothing before the first one ends rather than a rate of 0."""
    if not games:
        return "win rate: after a task ends"
    return f"won {wins / games:.2%} of {games:,}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def interrupted(state: dict, already: int, games: int, out) -> None:
    """Ctrl-C: the workers are stopped already; one line on what was kept, exit status 130."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C while this line is written changes nothing
    done = state["games"]
    rate = f", won {state['wins'] / done:.2%} so far" if done else ""
    if out:
        kept = (f"; the finished tasks are in {out}, and the same command goes on from there" if done > already
                else f"; no task finished in this run, {out} holds what it held")
    else:
        kept = " (finished tasks are kept only with --out FILE)"
    click.echo(f"sweeplab bench: interrupted with {done:,} of {games:,} games in finished tasks{rate}{kept}", err=True)
    sys.exit(130)


CONNECT_SECONDS = 5.0  # how long to wait for a scheduler to answer before saying it cannot be reached


def check_scheduler(address: str) -> None:
    """A Dask scheduler address that parses and answers, checked before any game is played: a typo
    or a scheduler that is down gets one clear line within seconds, not Dask's 30 s wait."""
    import importlib.util
    if importlib.util.find_spec("distributed") is None:
        raise SweeplabError(f"the Dask backend needs the extra: {install_hint('dask')}")
    parts = urlsplit(address)
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in ("tcp", "tls") or not parts.hostname or port is None:
        raise SweeplabError(f"--scheduler {address!r} is not a scheduler address; write tcp://HOST:PORT "
                            "(as `dask scheduler` prints it), or use --cluster local")
    try:
        socket.create_connection((parts.hostname, port), timeout=CONNECT_SECONDS).close()
    except OSError as e:
        raise SweeplabError(f"cannot reach the Dask scheduler at {address} ({e.strerror or e}); start one with "
                            "`dask scheduler`, or leave out --scheduler to play in local processes") from None


@contextlib.contextmanager
def _scheduler_errors(scheduler):
    """A scheduler that fails mid-run (it stopped, the network went) is one line naming it; tasks already
    finished are in --out, and a rerun resumes from there."""
    try:
        yield
    except OSError as e:
        if not scheduler:
            raise
        raise SweeplabError(f"the Dask scheduler at {scheduler} failed: {e}") from None
