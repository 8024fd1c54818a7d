"""`sweeplab board` (make and write a board) and `sweeplab stats` (read one and measure it)."""

from __future__ import annotations

import csv
import io
import json
import sys

import click

from .. import generators
from ..board import dump_board, load_boards
from ..errors import InvalidBoardError
from ..stats import board_stats
from .options import CELL, OutputPath, check_level_options, conflict, level_options, positive, resolve_level

FORMATS = ("text", "mbf", "json", "svg")  # svg draws; the others read back (see board.py)


def lay_board(generator, width, height, mines, seed, first_click, click_at, topology, **options):
    """The board a generator makes for this seed and (where it needs one) first click."""
    rule = generators.make(generator, width, height, mines, seed, first_click=first_click, topology=topology,
                           **options)
    if click_at is None:
        board = rule.board_before()
        if board is None:
            raise InvalidBoardError(f"generator {generator!r} with first-click rule {rule.name!r} lays its mines "
                                    "at the first click; give --click X,Y")
        return board
    x, y = click_at
    if not (0 <= x < width and 0 <= y < height):
        raise InvalidBoardError(f"click ({x}, {y}) is off the {width}x{height} board; x in 0..{width - 1}, "
                                f"y in 0..{height - 1}")
    placed = rule.board_for(x, y)
    if placed is None:
        raise InvalidBoardError(f"the first click at ({x}, {y}) does nothing on this board (no free cell to shift to)")
    return placed[0]


class BoardWriter:
    """Writes boards to a file or stdout as they are made, so a long --count loses nothing already made.
    Text, JSON and MBF are multi-board formats (see board.py); SVG boards are drawn into one document,
    written at the end."""

    def __init__(self, fmt, out):
        self.fmt, self.out, self.written, self.svgs = fmt, out, 0, []

    def add(self, board):
        if self.fmt == "svg":
            self.svgs.append(board.to_svg())
            return
        data = dump_board(board, self.fmt)
        if self.written and self.fmt == "text":
            data = b"\n" + data  # a blank line between text boards
        self._write(data)
        self.written += 1

    def close(self):
        if self.svgs:
            self._write((stack_svgs(self.svgs) + "\n").encode())

    def _write(self, data):
        if self.out is None or self.out == "-":
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
        else:
            with open(self.out, "ab" if self.written else "wb") as f:
                f.write(data)


def stack_svgs(svgs: list[str], gap: int = 10) -> str:
    """One SVG document of several board drawings, one under another (a lone drawing as it is)."""
    if len(svgs) == 1:
        return svgs[0]
    import xml.etree.ElementTree as ET
    sizes = [(float(r.get("width")), float(r.get("height"))) for r in (ET.fromstring(s) for s in svgs)]
    width = max(w for w, _ in sizes)
    height = sum(h for _, h in sizes) + gap * (len(svgs) - 1)
    parts, y = [], 0.0
    for s, (_, h) in zip(svgs, sizes):
        parts.append(f'<g transform="translate(0,{y:g})">{s}</g>')
        y += h + gap
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
            f'viewBox="0 0 {width:g} {height:g}">{"".join(parts)}</svg>')


@click.command()
@level_options
@click.option("--seed", type=int, default=None, help="Seed (non-negative integer)  [default: 0].")
@click.option("--generator", "generator", default="uniform", show_default=True,
              help="Generator name (uniform; and winxp, win98, win7, noguess when installed).")
@click.option("--first-click", "first_click", default=None,
              help="First-click rule: none, safe, opening (default: the generator's own).")
@click.option("--click", "click_at", type=CELL, default=None, help="The first click X,Y (0-based).")
@click.option("--state", type=int, default=None,
              help="WinMine generators: start from this rand() state (0..2**32-1) instead of the 16-bit --seed.")
@click.option("--topology", type=click.Choice(["bounded", "torus"]), default="bounded", show_default=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--out", "-o", type=OutputPath(dash=True), default=None, help="Write to this file instead of stdout.")
@click.option("--count", type=int, default=1, show_default=True,
              help="Write this many boards one after another, board i from seed --seed + i (text: a blank line "
                   "between boards; JSON: one object a line; MBF: records in a row; SVG: one drawing).")
def board(preset, width, height, mines, seed, generator, first_click, click_at, topology, fmt, out, state=None,
          count=1):
    """Make a board and print or write it, with its 3BV.

    WinMine generators (winxp, win98, ...) take their version's levels (8x8 beginner up to
    win98) and the 16-bit start-up --seed or a --state; --count N then writes the session's next
    N boards. Other generators write board i from seed --seed + i.
    """
    info = generators.lookup(generator)
    winmine_version = _winmine_version(info.name)
    check_level_options(preset, width, height)
    if winmine_version is not None and preset is not None:
        w, h, m = winmine_version.level(preset, width, height, mines)
    else:
        w, h, m = resolve_level(preset, width, height, mines)
    positive("count", count)
    if state is not None:
        if winmine_version is None:
            raise InvalidBoardError(f"--state is the rand() state of a WinMine generator "
                                    f"({', '.join(_winmine_names())}); {info.name} takes --seed")
        conflict({"--seed": seed, "--state": state}, "a WinMine session starts from one or the other")
    seed = 0 if seed is None else seed
    if seed < 0:
        raise InvalidBoardError(f"--seed must be a non-negative integer, got {seed}")
    if fmt == "mbf" and topology != "bounded":
        raise InvalidBoardError("MBF has no topology field, so a torus board cannot be written as MBF; use "
                                "--format text or json (both carry the torus)")
    if first_click is None and click_at is None and info.name == "uniform":
        first_click = "none"
    options = {} if state is None else {"state": state}
    writer = BoardWriter(fmt, out)
    for i in range(count):
        if winmine_version is not None:
            b = lay_board(generator, w, h, m, seed, first_click, click_at, topology, game=i, **options)
        else:
            b = lay_board(generator, w, h, m, seed + i, first_click, click_at, topology, **options)
        writer.add(b)
        st = board_stats(b)
        msg = f"{b.width}x{b.height}, {b.mine_count} mines, 3BV {st.bbbv}, openings {st.openings}, islands {st.islands}"
        # The summary goes to stderr when stdout carries the board itself, so pipes stay clean.
        click.echo(msg, err=out is None or out == "-")
    writer.close()


def _winmine_version(name):
    from ..generators import winmine
    return winmine.VERSIONS.get(name)


def _winmine_names():
    from ..generators import winmine
    return list(winmine.VERSIONS)


TABLE = ("table", "csv", "json")


@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--topology", type=click.Choice(["bounded", "torus"]), default=None,
              help="Topology for text and MBF boards that do not name theirs [default: bounded]; JSON and text "
                   "with a 'topology:' line carry their own.")
@click.option("--format", "table", type=click.Choice(TABLE), default=None,
              help="table (default), csv (one row per board) or json (an object, or a list for several boards).")
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
def stats(path, topology, table, as_json):
    """Read a file of one or several boards (text, MBF or JSON; '-' for stdin) and print their statistics,
    one row per board."""
    if as_json:
        if table not in (None, "json"):
            raise click.UsageError(f"--json and --format {table} cannot be given together")
        table = "json"
    boards = load_boards(path, topology)
    rows = [board_stats(b).as_dict() for b in boards]
    if table == "json":
        click.echo(json.dumps(rows[0] if len(rows) == 1 else rows))
    elif table == "csv":
        out = io.StringIO()
        w = csv.DictWriter(out, fieldnames=["board", *rows[0]], lineterminator="\n")
        w.writeheader()
        for i, row in enumerate(rows, 1):
            w.writerow({"board": i, **row})
        click.echo(out.getvalue(), nl=False)
    elif len(rows) == 1:
        for key, value in rows[0].items():
            click.echo(f"{_label(key):>10}: {value:.4f}" if isinstance(value, float) else f"{_label(key):>10}: {value}")
    else:
        keys = ["board", *rows[0]]
        cells = [[str(i), *(f"{v:.4f}" if isinstance(v, float) else str(v) for v in row.values())]
                 for i, row in enumerate(rows, 1)]
        widths = [max(len(_label(k)), *(len(c[j]) for c in cells)) for j, k in enumerate(keys)]
        click.echo("  ".join(_label(k).rjust(wd) for k, wd in zip(keys, widths)))
        for c in cells:
            click.echo("  ".join(v.rjust(wd) for v, wd in zip(c, widths)))


def _label(key):
    return {"bbbv": "3BV", "zini": "ZiNi"}.get(key, key)
