"""`sweeplab solve FILE`: read a position (View text format) and print its certain cells and probabilities."""

from __future__ import annotations

import json
import math

import click

from ..errors import FormatError
from ..userfile import MiB, read_user_file
from ..view import View

POSITION_BYTES = 16 * MiB  # a 2,000 x 2,000 position, far past what the solver takes in one go


def _read(path: str) -> View:
    data = read_user_file(path, what="a position (the View text)", limit=POSITION_BYTES)
    try:
        text = data.decode()
    except UnicodeDecodeError as e:
        raise FormatError(f"cannot read {path!r} as a text view ({e}); expected a 'mines: N' line and rows of "
                          "'#', 'F' and '0'-'8'") from None
    return View.from_text(text)


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="Print the analysis as JSON.")
@click.option("--trust-flags", is_flag=True, help="Treat flags as certain mines (by default they are unknown).")
@click.option("--hint", "with_hint", is_flag=True, help="Add the hint: the certain moves or the best guess.")
@click.option("--player", default="strong", show_default=True,
              help="Whose guess the hint gives when no cell is certain: strong, safest, rules, learned, random.")
def solve(path, as_json, trust_flags, with_hint, player):
    """Read a position (`mines: N`, then rows of '#' hidden, 'F' flag, '0'-'8' open) and print the
    certain cells and every hidden cell's mine probability. FILE may be '-' for stdin."""
    from ..solver import analyse, hint

    view = _read(path)
    a = analyse(view, trust_flags=trust_flags)
    w, h = view.width, view.height
    def unknown_cell(x, y):
        return view.cells[y, x] < 0 and not math.isnan(a.probability[y, x])

    unknown = [(x, y) for y in range(h) for x in range(w) if unknown_cell(x, y)]
    safe = [(x, y) for x, y in unknown if a.safe[y, x]]
    mines = [(x, y) for x, y in unknown if a.mines[y, x]]
    tip = hint(view, trust_flags=trust_flags, player=player) if with_hint else None
    if as_json:
        out = {
            "width": w, "height": h, "mines": view.mine_count, "trust_flags": trust_flags,
            "layouts": exact_digits(a.layouts), "components": a.components, "mine_range": list(a.mine_range),
            "safe": [list(c) for c in safe], "mines_certain": [list(c) for c in mines],
            # null where a cell has no probability to give: open cells, and flags taken as mines
            "probability": [[float(a.probability[y, x]) if unknown_cell(x, y) else None for x in range(w)] for y in range(h)],
            "probability_null": "open cells" + (" and trusted flags" if trust_flags else ""),
        }
        if tip is not None:
            out["hint"] = tip.as_dict()
        click.echo(json.dumps(out))
        return
    click.echo(f"{w}x{h}, {view.mine_count} mines, {len(unknown)} unknown cells, {a.components} undecided "
               f"frontier component{'s' * (a.components != 1)}, frontier holds {a.mine_range[0]}..{a.mine_range[1]} mines")
    click.echo(f"consistent layouts: {count_text(a.layouts)}")
    click.echo("certain safe:  " + (" ".join(f"{x},{y}" for x, y in safe) or "none"))
    click.echo("certain mines: " + (" ".join(f"{x},{y}" for x, y in mines) or "none"))
    click.echo("hidden cells: mine probability in % (<1% and >99% where it rounds to 0 or 100), S certain safe, "
               "M certain mine" + (", F a flag taken as a mine" if trust_flags else "") + "; open cells: their number")
    for y in range(h):
        click.echo("".join(f"{_cell_text(view, a, x, y):>5}" for x in range(w)))
    if tip is not None:
        cells = " ".join(f"{x},{y}" for x, y in tip.cells)
        click.echo(f"hint: {tip.kind} {cells}: {tip.reason}")


SHOWN_DIGITS = 60  # a count longer than this is shown as about m.mmmmmmeN (with its digit count)


def count_text(n: int) -> str:
    """A layout count for a person: exact up to SHOWN_DIGITS digits, else its leading digits and
    power of ten (a 150x150 position has counts of thousands of digits)."""
    if n < 10 ** SHOWN_DIGITS:
        return str(n)
    bits = n.bit_length() - 64
    log10 = math.log10(n >> bits) + bits * math.log10(2)
    power = math.floor(log10)
    return f"about {10 ** (log10 - power):.6f}e{power} ({power + 1} digits)"


def exact_digits(n: int) -> str:
    """All of n's digits (JSON keeps the count exact), past Python's guard on converting integers of
    over 4,300 digits: that guard is for reading untrusted text, and this number is the solver's own."""
    import sys
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return str(n)
    finally:
        sys.set_int_max_str_digits(limit)


def _cell_text(view, a, x, y) -> str:
    """Hidden cells always end in '%' or read S/M/F, so none can be taken for an open number."""
    c = int(view.cells[y, x])
    p = float(a.probability[y, x])
    if c >= 0:
        return str(c)
    if math.isnan(p):
        return "F"
    if a.safe[y, x]:
        return "S"
    if a.mines[y, x]:
        return "M"
    pct = 100 * p
    return "<1%" if pct < 0.5 else (">99%" if pct >= 99.5 else f"{pct:.0f}%")
