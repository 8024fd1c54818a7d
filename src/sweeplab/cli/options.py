"""Option parsers shared by the subcommands (cells, sizes, levels), each with a clear error."""

from __future__ import annotations

import click

from ..presets import PRESETS, preset


class CellType(click.ParamType):
    """A cell as X,Y (0-based column, row)."""

    name = "X,Y"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        try:
            x, y = (int(v) for v in str(value).split(","))
        except ValueError:
            self.fail(f"{value!r} is not a cell; write X,Y with 0-based integers, e.g. 3,3", param, ctx)
        return x, y


CELL = CellType()


def level_options(f):
    """--preset / --width / --height / --mines."""
    f = click.option("--mines", type=int, help="Mine count (custom level).")(f)
    f = click.option("--height", type=int, help="Rows (custom level).")(f)
    f = click.option("--width", type=int, help="Columns (custom level).")(f)
    f = click.option("--preset", type=click.Choice(sorted(PRESETS)), help="A named level.")(f)
    return f


def resolve_level(preset_name, width, height, mines, default="expert"):
    """(width, height, mines) from a preset, overridden field by field by custom values."""
    if preset_name is None and width is None and height is None and mines is None:
        preset_name = default
    base = preset(preset_name) if preset_name else None
    w = width if width is not None else (base.width if base else None)
    h = height if height is not None else (base.height if base else None)
    m = mines if mines is not None else (base.mines if base else None)
    if None in (w, h, m):
        raise click.UsageError("a custom level needs --width, --height and --mines (or a --preset)")
    return w, h, m
