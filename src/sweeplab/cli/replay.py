"""`sweeplab replay FILE...`: read replay files (AVF, RMV, MVF, EVF), their statistics and judged clicks;
`sweeplab replay export RECORD_ID -o game.evf`: a game played in `sweeplab play` as EVF."""

from __future__ import annotations

import csv
import io
import json
import sys
from pathlib import Path

import click

from ..errors import SweeplabError

COLUMNS = (("file", "file"), ("program", "program"), ("player", "player"), ("date", "date"), ("level", "level"),
           ("board", None), ("won", "won"), ("time", "time"), ("3BV", "bbbv"), ("3BV/s", "bbbv_per_second"),
           ("left", "left"), ("right", "right"), ("chords", "chords"), ("IOE", "ioe"), ("RQP", "rqp"),
           ("ZiNi", "zini"), ("checksum", "checksum"))
JUDGED = (("guesses", "guesses"), ("forced", "forced"), ("needless", "needless"), ("50/50", "fifty_fifties"),
          ("luck", "luck"), ("max risk", "largest_risk"))


class _ReplayGroup(click.Group):
    """`replay FILE...` reads files; `replay export ...` writes one. A first argument that is not a
    subcommand's name is a file."""

    def parse_args(self, ctx, args):
        if not args:
            raise click.UsageError("give replay files (FILE, FOLDER or GLOB ...) or: export RECORD_ID -o FILE.evf",
                                   ctx)
        if args[0] not in self.commands and args[0] not in ("-h", "--help"):
            args = ["read", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_ReplayGroup)
def replay():
    """Replay files of the community's programs: Minesweeper Arbiter (.avf), Viennasweeper (.rmv),
    Minesweeper Clone (.mvf), Metasweeper (.evf). Needs sweeplab[replays] (ms-toollib).

    \b
    sweeplab replay FILE|FOLDER|GLOB... [--analyse] [--json|--csv]
    sweeplab replay export RECORD_ID -o game.evf"""


def _fmt(key, value):
    if value is None:
        return "-"
    if key in ("bbbv_per_second", "ioe", "rqp", "luck", "largest_risk"):
        return f"{value:.3f}"
    if key == "time":
        return f"{value:.3f}"
    if key == "won":
        return "won" if value else "lost"
    return str(value)


@replay.command("read")
@click.argument("files", nargs=-1, required=True)
@click.option("--analyse", "--analyze", "analyse", is_flag=True,
              help="Judge every click by its exact mine probability (guesses, forced, needless, 50/50s, luck).")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per file (with --analyse: every judged click).")
@click.option("--csv", "as_csv", is_flag=True, help="CSV, one row per file.")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False),
              help="With --analyse and one file: draw the position before its riskiest guess (or --click N).")
@click.option("--click", "click_index", type=int, default=None,
              help="With --svg: the judged click to draw (its index in the game's actions).")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
def read(files, analyse, as_json, as_csv, svg_path, click_index, no_progress):
    """Read replay files, folders of them, or globs: one row per file, its statistics, and where
    sweeplab's reading disagrees with ms-toollib's. A file that cannot be read gets one line on stderr;
    the others are still read. Exit status 0 when every file was read, 1 when some were not, 2 when none."""
    from ..replays.read import read_many, replay_paths, toollib_analysis_later

    if as_json and as_csv:
        raise click.UsageError("give --json or --csv, not both")
    paths, missing = replay_paths(files)
    for line in missing:
        click.echo(f"sweeplab replay: {line}", err=True)
    if svg_path and (len(paths) != 1 or not analyse):
        raise click.UsageError("--svg draws one file's judged clicks: give one file and --analyse")
    rows, bad = [], len(missing)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    err = Console(stderr=True)
    progress = Progress(TextColumn("reading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        console=err, transient=True, disable=no_progress or len(paths) < 20)
    with progress:
        task = progress.add_task("reading", total=len(paths))
        # one file: ms-toollib's own click analysis (for the comparison) runs in a process of its own
        # while this one reads and judges; many files: each worker does both
        later = toollib_analysis_later(paths[0]) if analyse and len(paths) == 1 else None
        for path, rp in read_many(paths, features=analyse and later is None):
            progress.advance(task)
            if isinstance(rp, SweeplabError):
                bad += 1
                progress.console.print(f"sweeplab replay: {rp}", markup=False, highlight=False, soft_wrap=True)
                continue
            s = rp.stats()
            s["path"], s["check"] = str(path), rp.check(s)
            if analyse:
                from ..replays.judge import judge
                j = judge(rp.game)
                s.update(j.summary())
                if later is not None:
                    rp.toollib.update(later())
                s["toollib"] = _toollib_view(rp)
                s["judged"] = j
                s["replay"] = rp
            rows.append(s)
    if as_json:
        out = []
        for s in rows:
            d = {k: v for k, v in s.items() if k not in ("judged", "replay")}
            if analyse:
                d["clicks"] = [c.as_dict() for c in s["judged"].clicks]
            out.append(d)
        click.echo(json.dumps(out, ensure_ascii=False, default=str))
    elif as_csv:
        buf = io.StringIO()
        keys = [k for _, k in COLUMNS if k] + ["width", "height", "mines", "check"]
        if analyse:
            keys += [k for _, k in JUDGED]
        w = csv.writer(buf)
        w.writerow(keys)
        for s in rows:
            w.writerow([("; ".join(s[k]) if k == "check" else s[k]) for k in keys])
        click.echo(buf.getvalue(), nl=False)
    elif rows:
        _table(rows, analyse)
    if svg_path and rows:
        _svg(rows[0], svg_path, click_index)
    if rows and not bad:
        return
    sys.exit(2 if not rows else 1)


def _toollib_view(rp) -> dict:
    """ms-toollib's own click analysis, for comparison: its pluck and the clicks it flagged."""
    t = rp.toollib
    notes = [{"t": k[0], "x": k[2] // rp.cell, "y": k[3] // rp.cell, "comment": v} for k, v in t["notes"].items()]
    return {"pluck": t["pluck"], "flagged": notes, "failed": t.get("toollib_analysis_failed")}


TABLE = (("file", "file"), ("program", "program"), ("player", "player"), ("date", "day"), ("level", "level"),
         ("result", "won"), ("time s", "time"), ("3BV", "bbbv"), ("3BV/s", "bbbv_per_second"),
         ("clicks L/R/C", "lrc"), ("IOE", "ioe"), ("RQP", "rqp"), ("ZiNi", "zini"), ("checksum", "checksum"))


def _table(rows, analyse):
    from rich.console import Console
    from rich.table import Table
    console = Console()
    if not console.is_terminal:  # piped: no wrapping at 80 columns
        console = Console(width=250)
    cols = TABLE + (JUDGED if analyse else ())
    table = Table()
    for head, key in cols:
        table.add_column(head, justify="left" if key in ("file", "program", "player", "day", "level", "checksum")
                         else "right")
    table.add_column("vs ms-toollib")
    for s in rows:
        r = dict(s, day=(s["date"] or "-")[:10], level=f"{s['level']} {s['width']}x{s['height']}/{s['mines']}",
                 lrc=f"{s['left']}/{s['right']}/{s['chords']}")
        table.add_row(*[_fmt(k, r[k]) for _, k in cols], "agrees" if not s["check"] else "; ".join(s["check"]))
    console.print(table)
    if analyse and len(rows) == 1:
        _clicks_table(console, rows[0])


def _clicks_table(console, s):
    from rich.table import Table
    j = s["judged"]
    table = Table(title=f"{s['file']}: guesses (of {len(j.clicks)} judged clicks)")
    for head in ("#", "time", "click", "cell", "P(mine)", "exact", "safest cell", "certain safe cells", "kind"):
        table.add_column(head)
    for c in j.guesses:
        kind = ("forced 50/50" if c.fifty_fifty else "forced") if c.forced else "needless"
        if c.hit:
            kind += ", hit a mine"
        table.add_row(str(c.index), f"{c.t:.2f}", c.kind, f"{c.x},{c.y}", f"{float(c.risk):.3f}",
                      f"{c.risk.numerator}/{c.risk.denominator}" if len(str(c.risk)) < 24 else "…",
                      f"{c.best:.3f}", str(c.safe_elsewhere), kind)
    console.print(table)
    tl = s["toollib"]
    ours = pluck_text(s["pluck"])
    if tl["pluck"] is None:
        console.print(f"ms-toollib's own click analysis failed on this file ({tl['failed']}); sweeplab: pluck {ours}",
                      markup=False, highlight=False)
        return
    theirs = pluck_text(tl["pluck"])
    console.print(f"ms-toollib: pluck {theirs} (sweeplab: {ours}); flagged: "
                  + (", ".join(f"{n['comment'].rstrip(';')} at {n['x']},{n['y']} ({n['t']:.2f} s)" for n in tl["flagged"])
                     or "nothing"), markup=False, highlight=False)


def _svg(s, path, click_index):
    from ..replays.draw import judged_svg
    Path(path).write_text(judged_svg(s["replay"].game, s["judged"], click_index))
    click.echo(f"sweeplab replay: wrote {path}", err=True)


@replay.command("export")
@click.argument("record_id", type=int)
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), required=True, help="The EVF file to write.")
@click.option("--db", "db", type=click.Path(dir_okay=False), default=None,
              help="The play store [default: the one `sweeplab play` uses].")
@click.option("--player", default="", help="Player name to write in the file.")
@click.option("--country", default="", help="Two-letter ISO 3166 country code to write in the file.")
def export(record_id, output, db, player, country):
    """Write a game finished in `sweeplab play` (its record id, as the records page shows it) as EVF."""
    from ..play.store import Store, default_db_path
    from ..replays.evf import record_to_evf
    db_path = Path(db) if db else default_db_path()
    if not db_path.exists():
        raise SweeplabError(f"no play store at {db_path}; give --db PATH of the store `sweeplab play --db` used")
    store = Store(db_path)
    try:
        data = record_to_evf(store.get(record_id), player=player, country=country)
    finally:
        store.close()
    try:
        Path(output).write_bytes(data)
    except OSError as e:
        raise SweeplabError(f"cannot write {output!r} ({e.strerror})") from None
    click.echo(f"sweeplab replay: wrote record {record_id} to {output} ({len(data)} bytes, EVF v4)", err=True)


def pluck_text(pluck: float | None) -> str:
    """A pluck as printed: 4 decimals, 'infinite' for a certain mine clicked (ms-toollib's is a huge
    float), and 0.0000 for a game that needed no luck (-log10 of 1 is -0.0 in floats)."""
    if pluck is None or pluck > 1e300:
        return "infinite"
    return f"{max(pluck, 0.0) + 0.0:.4f}"
