"""`sweeplab board` (make and write a board) and `sweeplab stats` (read one and measure it)."""

from __future__ import annotations

import itertools
import json
import sys

import click

from .. import generators, grid
from ..board import dump_board, iter_layouts
from ..errors import FormatError, InvalidBoardError, SweeplabError
from ..stats import BOARD_FIGURES, figure_rows, stats_of_layouts
from ..userfile import MiB, read_user_file
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
    x, y = grid.check_click(*click_at, width, height)
    placed = rule.board_for(x, y)
    if placed is None:
        raise InvalidBoardError(f"the first click at ({x}, {y}) does nothing on this board (no free cell to shift to)")
    return placed[0]


class BoardWriter:
    """Writes boards to a file or stdout as they are made, so a long --count loses nothing already made
    and holds nothing in memory. Text, JSON and MBF are multi-board formats (see board.py); SVG boards
    are drawn one under another in one document, whose size is known from the first drawing and the
    count (every board of a run has the same size)."""

    GAP = 10  # pixels between SVG drawings

    def __init__(self, fmt, out, count=1):
        self.fmt, self.out, self.count, self.written, self.file = fmt, out, count, 0, None

    def add(self, board, click=None):
        if self.fmt == "svg":
            svg = board.to_svg()
            if self.count > 1:
                if not self.written:
                    self._write(_svg_head(svg, self.count, self.GAP).encode())
                height = float(_svg_size(svg)[1])
                svg = f'<g transform="translate(0,{self.written * (height + self.GAP):g})">{svg}</g>'
            self._write(svg.encode())
        else:
            data = dump_board(board, self.fmt, click=click)
            if self.written and self.fmt == "text":
                data = b"\n" + data  # a blank line between text boards
            self._write(data)
        self.written += 1

    def close(self):
        if self.fmt == "svg" and self.written:
            self._write(b"</svg>\n" if self.count > 1 else b"\n")
        if self.file is not None:
            self.file.close()

    def _write(self, data):
        if self.out is None or self.out == "-":
            sys.stdout.buffer.write(data)
            sys.stdout.flush()
            return
        if self.file is None:
            self.file = open(self.out, "wb")
        self.file.write(data)
        self.file.flush()


def _svg_size(svg: str) -> tuple[str, str]:
    import xml.etree.ElementTree as ET
    root = ET.fromstring(svg)
    return root.attrib["width"], root.attrib["height"]


def _svg_head(first: str, count: int, gap: int) -> str:
    """The opening tag of a document of `count` drawings the size of `first`, one under another."""
    w, h = (float(v) for v in _svg_size(first))
    total = count * h + gap * (count - 1)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:g}" height="{total:g}" '
            f'viewBox="0 0 {w:g} {total:g}">')


class RegistryOption(click.Option):
    """An option whose help is its `help` followed by names read from the generator registry when the
    help is shown (so that listing the commands loads no generator): `names()` gives them."""

    def __init__(self, *args, names, **kw):
        super().__init__(*args, **kw)
        self.names, self.lead = names, kw.get("help", "")

    def get_help_record(self, ctx):
        self.help = f"{self.lead}: {self.names()}."
        return super().get_help_record(ctx)


def generator_names() -> str:
    """Every registered generator, each with its aliases: 'uniform (random), winmine, ...'."""
    generators.lookup("uniform")  # (loads every generator into the registry)
    return ", ".join(name + (f" ({', '.join(i.aliases)})" if i.aliases else "")
                     for name, i in generators.GENERATORS.items())


def rule_names() -> str:
    """The first-click rules each generator takes, generators alike grouped: 'uniform: safe, opening, none; ...'."""
    generators.lookup("uniform")  # (loads every generator into the registry)
    groups: dict[tuple[str, ...], list[str]] = {}
    for name, info in generators.GENERATORS.items():
        groups.setdefault(info.first_clicks, []).append(name)
    return "; ".join(f"{', '.join(names)}: {', '.join(rules)}" for rules, names in groups.items())


@click.command()
@level_options
@click.option("--seed", type=int, default=None, help="Seed (non-negative integer)  [default: 0].")
@click.option("--generator", "generator", default="uniform", show_default=True, cls=RegistryOption,
              names=generator_names, help="Generator name")
@click.option("--first-click", "first_click", default=None, cls=RegistryOption, names=rule_names,
              help="First-click rule, by default the first its generator takes")
@click.option("--click", "click_at", type=CELL, default=None, help="The first click X,Y (0-based).")
@click.option("--state", type=int, default=None,
              help="WinMine generators: start from this rand() state (0..2**32-1) instead of the 16-bit --seed.")
@click.option("--topology", type=click.Choice(["bounded", "torus"]), default="bounded", show_default=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--out", "-o", type=OutputPath(dash=True), default=None, help="Write to this file instead of stdout.")
@click.option("--count", type=int, default=1, show_default=True,
              help="Write this many boards one after another, as they are made (text: a blank line between boards; "
                   "JSON: one object a line; MBF: records in a row; SVG: one drawing), and one summary of them all.")
def board(preset, width, height, mines, seed, generator, first_click, click_at, topology, fmt, out, state=None,
          count=1):
    """Make a board and print or write it, with its 3BV, openings and islands (`sweeplab stats` measures
    more). A board laid at a first click (--click) keeps it in text and JSON files.

    WinMine generators (winxp, win98, ...) take their version's levels (8x8 beginner up to
    win98) and the 16-bit start-up --seed or a --state; --count N then writes the session's next
    N boards. noguess makes the N boards as one batch seeded by --seed: where its chain serves, one warm
    chain hands out a board every few moves (uniform each, far cheaper than a chain per board). Other
    generators write board i from seed --seed + i. On a terminal a progress bar runs while a batch is made,
    and a line with the seconds spent while a no-guess board is (a dense one runs its chain for seconds).
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
    if fmt == "mbf" and (out is None or out == "-") and sys.stdout.isatty():
        raise SweeplabError("MBF is binary and would garble the terminal; write it to a file with --out "
                            "FILE.mbf, or redirect it: sweeplab board ... --format mbf > board.mbf")
    if first_click is None and click_at is None and info.name == "uniform":
        first_click = "none"
    options = {} if state is None else {"state": state}
    writer = BoardWriter(fmt, out, count)
    batch = Batch()
    try:
        with batch_progress(count, f"{generator} {w}x{h}/{m}", single=info.name == "noguess") as advance:
            for b in made_boards(info.name, winmine_version, w, h, m, seed, first_click, click_at, topology, count,
                                 **options):
                writer.add(b, click=click_at)
                # only what is printed: ZiNi takes far longer and `sweeplab stats` is where it is shown
                batch.add(next(stats_of_layouts([(b.width, b.height, b.flat_mines, b.topology)], with_zini=False)))
                advance()
    finally:
        writer.close()
    at = f", first click {click_at[0]},{click_at[1]}" if click_at is not None else ""
    # The summary goes to stderr when stdout carries the boards themselves, so pipes stay clean.
    click.echo(batch.summary(at), err=out is None or out == "-")


def made_boards(name, winmine_version, w, h, m, seed, first_click, click_at, topology, count, **options):
    """The boards `board` writes, one at a time as they are made: a WinMine session's next boards; a
    no-guess batch (one seed, where the chain serves one warm chain handing out a board every few
    moves, see generators/noguess.py); else board i from seed + i."""
    if name == "noguess" and count > 1 and click_at is not None:
        from ..generators import noguess
        generators.make(name, w, h, m, seed, first_click=first_click, topology=topology, **options)  # (checks them)
        for made in noguess.boards(w, h, m, *grid.check_click(*click_at, w, h), seed, count, topology=topology):
            yield made.board
        return
    for i in range(count):
        if winmine_version is not None:
            yield lay_board(name, w, h, m, seed, first_click, click_at, topology, game=i, **options)
        else:
            yield lay_board(name, w, h, m, seed + i, first_click, click_at, topology, **options)


class Batch:
    """What `board` says of the boards it made: one board's figures, or for a batch their means and
    ranges, kept as running sums (a batch of millions holds nothing per board)."""

    FIGURES = ("bbbv", "openings", "islands")

    def __init__(self):
        self.count, self.first = 0, None
        self.sums = dict.fromkeys(self.FIGURES, 0)
        self.low = dict.fromkeys(self.FIGURES, None)
        self.high = dict.fromkeys(self.FIGURES, None)

    def add(self, st) -> None:
        self.count += 1
        self.first = self.first or st
        for k in self.FIGURES:
            v = getattr(st, k)
            self.sums[k] += v
            self.low[k] = v if self.low[k] is None else min(self.low[k], v)
            self.high[k] = v if self.high[k] is None else max(self.high[k], v)

    def summary(self, at: str = "") -> str:
        st = self.first
        size = f"{st.width}x{st.height}, {plural(st.mines, 'mine')}"
        if self.count == 1:
            return f"{size}, 3BV {st.bbbv}, openings {st.openings}, islands {st.islands}{at}"
        figures = ", ".join(f"{_label(k)} {self.sums[k] / self.count:.2f} ({self.low[k]}..{self.high[k]})"
                            for k in self.FIGURES)
        return f"{self.count:,} boards, {size}{at}; mean (least..most): {figures}"


PROGRESS_AFTER = 2  # boards: a single board needs no bar


def batch_progress(count: int, label: str, single: bool = False):
    """A progress bar on stderr while a batch is made, only where stderr is a terminal (a log or a pipe
    gets the summary alone); with `single`, a line with the time spent while one board is made (a
    dense no-guess board runs its chain for seconds). A context giving the function that counts one
    board done."""
    import contextlib
    if (count < PROGRESS_AFTER and not single) or not sys.stderr.isatty():
        return contextlib.nullcontext(lambda: None)
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    @contextlib.contextmanager
    def shown():
        # (the seconds spent too: a dense no-guess batch's first board runs the whole chain)
        columns = ((TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn())
                   if count > 1 else (SpinnerColumn(), TextColumn(f"laying a {label} board"), TimeElapsedColumn()))
        bar = Progress(*columns, console=Console(stderr=True), transient=True)
        task = bar.add_task(label, total=count)
        with bar:
            yield lambda: bar.advance(task)
    return shown()


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


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
    data = read_user_file(path, what="a board file (text, MBF or JSON)", limit=BOARD_FILE_BYTES)
    rows = figure_rows(_layouts(data, path, topology))  # tuples in BOARD_FIGURES order
    first = next(rows)  # (a file holds at least one board: an empty one is an error)
    second = next(rows, None)
    if second is None:  # one board: an object, or "name: value" lines
        if table == "json":
            click.echo(json.dumps(dict(zip(BOARD_FIGURES, first))))
        elif table == "csv":
            _write(_csv_lines([first]))
        else:
            for key, value in zip(BOARD_FIGURES, first):
                click.echo(f"{_label(key):>10}: {_cell(value)}")
        return
    rows = itertools.chain([first, second], rows)  # several: one row each, written as they are measured
    if table == "json":
        _write(itertools.chain(["["], (("" if i == 1 else ", ") + json.dumps(dict(zip(BOARD_FIGURES, row)))
                                       for i, row in enumerate(rows, 1)), ["]\n"]))
    elif table == "csv":
        _write(_csv_lines(rows))
    else:
        keys = ["board", *BOARD_FIGURES]
        widths = [max(len(_label(k)), TABLE_WIDTH) for k in keys]
        click.echo("  ".join(_label(k).rjust(wd) for k, wd in zip(keys, widths)))
        _write("  ".join(v.rjust(wd) for v, wd in zip([str(i), *map(_cell, row)], widths)) + "\n"
               for i, row in enumerate(rows, 1))


BOARD_FILE_BYTES = 64 * MiB  # some 600,000 9x9 text boards
TABLE_WIDTH = 7  # columns of a table of many boards: as wide as "bounded", fixed, so rows go out as measured
REPLAY_SUFFIXES = (".avf", ".rmv", ".mvf", ".evf")


def _layouts(data: bytes, path: str, topology):
    """The boards of a file, one at a time; a replay or a position (a game in play) read as a board is
    refused with the command that reads it."""
    if path.lower().endswith(REPLAY_SUFFIXES):
        raise FormatError(f"{path} is a replay file, not a board; read it with: sweeplab replay {path}")
    try:
        yield from iter_layouts(data, topology)
    except FormatError as e:
        if _is_position(data):
            raise FormatError(f"{path} holds a position (a game in play: 'mines: N' and rows of '#', 'F' and "
                              f"numbers), not a board; analyse it with: sweeplab solve {path}") from None
        raise FormatError(f"{path}: {e}") from None


def _is_position(data: bytes) -> bool:
    """A position's text: a 'mines:' header, or rows of hidden cells ('#'), flags and numbers only."""
    lines = [ln.strip().lower() for ln in data[:4096].decode("utf-8", "replace").splitlines() if ln.strip()]
    if any(ln.split(":")[0].strip() == "mines" for ln in lines if ":" in ln):
        return True
    return bool(lines) and all(set(ln) <= set("#f012345678") for ln in lines) and any("#" in ln for ln in lines)


def _cell(value) -> str:
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def _csv_lines(rows):
    """The CSV of `rows` (a header, then `board` and the figures), a line at a time. The values hold
    no commas or quotes (numbers and a topology's name), so each line is joined as it is."""
    yield ",".join(["board", *BOARD_FIGURES]) + "\n"
    for i, row in enumerate(rows, 1):
        yield f"{i},{','.join(map(str, row))}\n"


def _write(pieces, chunk: int = 4096) -> None:
    """Write text pieces to stdout in chunks (thousands of rows a second; nothing held whole)."""
    out, pieces = sys.stdout, iter(pieces)
    for part in iter(lambda: list(itertools.islice(pieces, chunk)), []):
        out.write("".join(part))
    out.flush()


def _label(key):
    return {"bbbv": "3BV", "zini": "ZiNi"}.get(key, key)
