"""Option parsers shared by the subcommands (cells, sizes, levels), each with a clear error."""

from __future__ import annotations

import click

from ..extras import install_hint
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


def check_level_options(preset_name, width, height):
    """A preset fixes the size: --width or --height with --preset would keep the preset's mines on
    another size (a different level, silently). --mines may change a preset's mine count."""
    if preset_name is not None and (width is not None or height is not None):
        given = " and ".join(f"--{n} {v}" for n, v in (("width", width), ("height", height)) if v is not None)
        raise click.UsageError(f"--preset {preset_name} and {given} cannot be given together: a preset fixes the "
                               "size; give --width, --height and --mines for a custom level (--preset with "
                               "--mines changes only its mine count)")


def resolve_level(preset_name, width, height, mines, default="expert"):
    """(width, height, mines) from a preset (--mines may change its mine count) or a custom level."""
    check_level_options(preset_name, width, height)
    if preset_name is None and width is None and height is None and mines is None:
        preset_name = default
    base = preset(preset_name) if preset_name else None
    w = width if width is not None else (base.width if base else None)
    h = height if height is not None else (base.height if base else None)
    m = mines if mines is not None else (base.mines if base else None)
    if None in (w, h, m):
        raise click.UsageError("a custom level needs --width, --height and --mines (or a --preset)")
    return w, h, m


# Image formats matplotlib writes without further packages; by the file's suffix, as savefig decides.
PLOT_FORMATS = ("png", "svg", "pdf")


class OutputPath(click.ParamType):
    """A file to write, checked when the options are parsed, before any work starts (a long run must
    never be lost to a typo): its folder exists, it is not a folder, it can be written, its suffix
    names one of `formats` (if given), and the package that draws it (`needs`) is installed.
    '-' means stdout where `dash` is allowed."""

    name = "FILE"

    def __init__(self, formats: tuple[str, ...] = (), needs: str | None = None, dash: bool = False):
        self.formats, self.needs, self.dash = formats, needs, dash

    def convert(self, value, param, ctx):
        import importlib.util
        import os
        from pathlib import Path

        if value is None or (self.dash and value == "-"):
            return value
        path = Path(value)
        suffix = path.suffix.lower().lstrip(".")
        if path.is_dir():
            self.fail(f"{value!r} is a directory; give a file name", param, ctx)
        if self.formats and suffix not in self.formats:
            self.fail(f"{value!r}: the file name must end in {', '.join('.' + f for f in self.formats)} "
                      f"(its format is taken from the name)", param, ctx)
        folder = path.parent
        if not folder.is_dir():
            self.fail(f"cannot write {value!r}: the directory {str(folder)!r} does not exist", param, ctx)
        existed = path.exists()
        try:  # the real test of writability (permissions, read-only mounts), leaving the file as it was
            with open(path, "ab"):
                pass
        except OSError as e:
            self.fail(f"cannot write {value!r}: {e.strerror}", param, ctx)
        if not existed:
            os.remove(path)
        if self.needs and importlib.util.find_spec(self.needs) is None:
            self.fail(f"writing {value!r} needs {self.needs}; install it with: {install_hint('plot')}",
                      param, ctx)
        return value


def positive(name: str, value: int | None, minimum: int = 1) -> int | None:
    """`value` if it is at least `minimum` (None passes: the option was not given), else a clear error."""
    from ..errors import SweeplabError
    if value is not None and value < minimum:
        raise SweeplabError(f"--{name} must be an integer >= {minimum}, got {value}")
    return value


def conflict(given: dict[str, object], why: str) -> None:
    """Refuse options given together that cannot all hold: say which, and why (never resolve it silently)."""
    from ..errors import SweeplabError
    names = [n for n, v in given.items() if v not in (None, False, ())]
    if len(names) == len(given):
        raise SweeplabError(f"{' and '.join(names)} cannot be given together: {why}")


def given(ctx: click.Context, name: str) -> bool:
    """Whether the user typed option `name` (not just its default)."""
    from click.core import ParameterSource
    return ctx.get_parameter_source(name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
