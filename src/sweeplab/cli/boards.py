"""`sweeplab board` (make and write a board) and `sweeplab stats` (read one and measure it)."""

from __future__ import annotations

import json
import sys

import click

from .. import generators
from ..board import load_board
from ..errors import InvalidBoardError
from ..stats import board_stats
from .options import CELL, level_options, resolve_level

FORMATS = ("text", "mbf", "json", "svg")


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


def write_board(board, fmt, out, append=False):
    if fmt == "mbf":
        data = board.to_mbf()
    elif fmt == "json":
        data = (json.dumps(board.to_dict()) + "\n").encode()
    elif fmt == "svg":
        data = (board.to_svg() + "\n").encode()
    else:
        data = board.to_text().encode()
    if out is None or out == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        with open(out, "ab" if append else "wb") as f:
            f.write(data)


@click.command()
@level_options
@click.option("--seed", type=int, default=0, show_default=True, help="Seed (non-negative integer).")
@click.option("--generator", "generator", default="uniform", show_default=True,
              help="Generator name (uniform; and winxp, win98, win7, noguess when installed).")
@click.option("--first-click", "first_click", default=None,
              help="First-click rule: none, safe, opening (default: the generator's own).")
@click.option("--click", "click_at", type=CELL, default=None, help="The first click X,Y (0-based).")
@click.option("--state", type=int, default=None,
              help="WinMine generators: start from this rand() state (0..2**32-1) instead of the 16-bit --seed.")
@click.option("--topology", type=click.Choice(["bounded", "torus"]), default="bounded", show_default=True)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("--out", "-o", default=None, help="Write to this file instead of stdout.")
@click.option("--count", type=int, default=1, show_default=True,
              help="Write this many boards one after another, board i from seed --seed + i.")
def board(preset, width, height, mines, seed, generator, first_click, click_at, topology, fmt, out, state=None,
          count=1):
    """Make a board and print or write it, with its 3BV.

    WinMine generators (winxp, win98, ...) take their version's levels (8x8 beginner up to
    win98) and the 16-bit start-up --seed or a --state; --count N then writes the session's next
    N boards. Other generators write board i from seed --seed + i.
    """
    info = generators.lookup(generator)
    winmine_version = _winmine_version(info.name)
    if winmine_version is not None and preset is not None:
        w, h, m = winmine_version.level(preset, width, height, mines)
    else:
        w, h, m = resolve_level(preset, width, height, mines)
    if seed < 0:
        raise InvalidBoardError(f"--seed must be a non-negative integer, got {seed}")
    if first_click is None and click_at is None and info.name == "uniform":
        first_click = "none"
    if count < 1:
        raise InvalidBoardError(f"--count must be a positive integer, got {count}")
    options = {} if state is None else {"state": state}
    for i in range(count):
        if i and fmt == "text":
            write_board_separator(out)
        if winmine_version is not None:
            b = lay_board(generator, w, h, m, seed, first_click, click_at, topology, game=i, **options)
        else:
            b = lay_board(generator, w, h, m, seed + i, first_click, click_at, topology, **options)
        write_board(b, fmt, out, append=i > 0)
        st = board_stats(b)
        msg = f"{b.width}x{b.height}, {b.mine_count} mines, 3BV {st.bbbv}, openings {st.openings}, islands {st.islands}"
        # The summary goes to stderr when stdout carries the board itself, so pipes stay clean.
        click.echo(msg, err=out is None)


def _winmine_version(name):
    from ..generators import winmine
    return winmine.VERSIONS.get(name)


def write_board_separator(out):
    """A blank line between text boards, so a file of several still reads board by board."""
    if out is None or out == "-":
        sys.stdout.buffer.write(b"\n")
    else:
        with open(out, "ab") as f:
            f.write(b"\n")


@click.command()
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--topology", type=click.Choice(["bounded", "torus"]), default="bounded",
              help="Topology for text and MBF files (JSON carries its own).")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def stats(path, topology, as_json):
    """Read a board (text, MBF or JSON) and print its statistics."""
    b = load_board(path, topology)
    st = board_stats(b)
    if as_json:
        click.echo(json.dumps(st.as_dict()))
        return
    for key, value in st.as_dict().items():
        label = {"bbbv": "3BV", "zini": "ZiNi"}.get(key, key)
        click.echo(f"{label:>10}: {value:.4f}" if isinstance(value, float) else f"{label:>10}: {value}")
