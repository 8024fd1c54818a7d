"""`sweeplab cycles`: the board-cycle laboratory on the command line, one phenomenon per subject.

    sweeplab cycles [report|seeds|parity|convergence|order|quadrants|shift|dream|oneclick] [options]

Everything starts from a rand() state (--state; by default the start-up seed 0) and runs
forward; nothing reads a real game.
"""

from __future__ import annotations

import json

import click

from ..errors import InvalidBoardError
from ..generators.winmine import VERSIONS
from ..generators.winmine import version as winmine_version
from ..lab import cycles as C
from .options import OutputPath, check_level_options, given, positive

SUBJECTS = ("report", "seeds", "parity", "convergence", "order", "quadrants", "shift", "dream", "oneclick")


def _progress(label: str, quiet: bool):
    """A rich progress bar on stderr, fed (done, total) in boards; a no-op with --json."""
    if quiet:
        return None, None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)
    task = bar.add_task(label, total=None)
    bar.start()

    def update(done, total):
        bar.update(task, completed=done, total=total)
    return update, bar


def _draw(panels, svg_path, png_path):
    if svg_path:
        with open(svg_path, "w") as f:
            f.write(C.panels_svg(panels) + "\n")
    if png_path:
        C.panels_png(panels, png_path)


def _bars(hist: dict, unit: str, rows: int = 16) -> list[str]:
    """A text histogram of {value: count}, in at most `rows` equal bins."""
    lo, hi = min(hist), max(hist)
    step = max(1, -(-(hi - lo + 1) // rows))
    bins = [(a, min(hi, a + step - 1), sum(hist.get(v, 0) for v in range(a, a + step))) for a in range(lo, hi + 1, step)]
    peak = max(n for _, _, n in bins) or 1
    out = []
    for a, b, n in bins:
        label = f"{a}" if a == b else f"{a}-{b}"
        out.append(f"    {unit} {label:>9} {n:>10,} {'#' * (round(40 * n / peak) if n else 0)}")
    return out


def _survey_text(sv: C.Survey, size: C.Size, label: str) -> list[str]:
    hist = sv.bbbv_histogram
    lines = [f"  {label}: 3BV over {sv.boards:,} boards: mean {sv.bbbv_mean:.2f}, min {min(hist)}, max {max(hist)}"]
    lines += _bars(hist, "3BV")
    dream = ", ".join(f"#{d['index']} (state {d['state']}, 3BV {d['bbbv']})" for d in sv.dream)
    lines.append(f"    lowest 3BV (dream boards): {dream}")
    ex = "; ".join(f"#{e['index']} click {tuple(e['click'])}" for e in sv.one_click_examples[:5])
    lines.append(f"    boards a first-click shift opens in one click: {sv.one_click:,}" + (f" ({ex})" if ex else ""))
    return lines


def _report(size, state, method, do_survey, keep, quiet):
    out: dict = {"width": size.width, "height": size.height, "mines": size.mines, "bits": size.bits}
    lines = []
    panels = []
    if size.exhaustive:
        rep, _ = C.analyse_space(size)
        out["space"] = rep.as_dict()
        lines.append(f"{size.width}x{size.height}/{size.mines}: rand() % side sees only the low {size.bits} bits of the "
                     f"state, so the board map lives on {1 << size.bits:,} states (searched exhaustively)")
        lines.append(f"  {len(rep.cycles)} cycles; {rep.distinct_boards:,} distinct boards on them")
        for k, c in enumerate(rep.cycles):
            lines.append(f"  cycle {k + 1}: {c.length:,} boards ({c.distinct_boards:,} distinct), "
                         f"{'odd' if c.parity else 'even'} states, smallest state {c.start}, basin {c.basin:,} "
                         f"states, {c.seeds:,} of the 65,536 start-up seeds; its boards make {c.laps} x 2**{size.bits} "
                         f"rand() calls in all ({c.laps} lap{'s' if c.laps != 1 else ''} of the state circle)")
        hist = rep.tail_histogram
        lines.append(f"  boards before the cycle, over the 65,536 start-up seeds: mean {rep.tail_mean:.2f}, "
                     f"max {rep.tail_max} (max over all states {rep.space_tail_max})")
        lines += _bars(dict(enumerate(hist)), "boards")
        if do_survey:
            out["surveys"] = []
            for k, c in enumerate(rep.cycles):
                sv = C.survey(size, c.start, c.length, keep=keep)
                out["surveys"].append(sv.as_dict())
                lines += _survey_text(sv, size, f"cycle {k + 1}")
                for d in sv.dream[:2]:
                    panels.append(C.Panel(f"cycle {k + 1} #{d['index']}: 3BV {d['bbbv']}", C.board_at(size, d["state"])))
        for k, c in enumerate(rep.cycles):
            panels.insert(k, C.Panel(f"cycle {k + 1} ({c.length:,}), first board", C.board_at(size, c.start)))
        return out, lines, panels
    update, bar = _progress(f"walking {size.width}x{size.height}/{size.mines}", quiet)
    try:
        w = C.walk(size, state, method=method, progress=update)
    finally:
        if bar:
            bar.stop()
    out["walk"] = w.as_dict()
    lines.append(f"{size.width}x{size.height}/{size.mines}: the width or height is not a power of two, so all 31 "
                 f"low bits of the state matter ({1 << 31:,} states); walking from state {w.state} ({method})")
    lines.append(f"  {w.tail:,} boards before the cycle, then a cycle of {w.length:,} boards "
                 f"({'odd' if w.parity else 'even'} states; entered at state {w.entry}); {w.boards_run:,} boards laid")
    lines.append(f"  (a lap of the state circle is about 2**31 / {C.expected_calls(size):.1f} rand() calls per board "
                 f"= {(1 << 31) / C.expected_calls(size):,.0f} boards)")
    panels.append(C.Panel(f"entry board (state {w.entry})", C.board_at(size, w.entry)))
    if do_survey:
        update, bar = _progress("3BV over the cycle", quiet)
        try:
            sv = C.survey(size, w.entry, w.length, keep=keep, progress=update)
        finally:
            if bar:
                bar.stop()
        out["survey"] = sv.as_dict()
        lines += _survey_text(sv, size, "cycle")
        for d in sv.dream[:2]:
            panels.append(C.Panel(f"#{d['index']}: 3BV {d['bbbv']}", C.board_at(size, d["state"])))
    return out, lines, panels


@click.command()
@click.argument("subject", type=click.Choice(SUBJECTS), default="report", required=False)
@click.option("--version", "version_name", default="winxp", show_default=True,
              help=f"WinMine version: {', '.join(VERSIONS)}.")
@click.option("--preset", type=click.Choice(["beginner", "intermediate", "expert"]), default=None,
              help="A level of that version (beginner is 8x8 up to win98/winme/winnt, 9x9 from win2000).")
@click.option("--width", type=int, default=None)
@click.option("--height", type=int, default=None)
@click.option("--mines", type=int, default=None)
@click.option("--state", type=int, default=0, show_default=True,
              help="rand() state to start from (a start-up seed is 0..65535; any 0..2**32-1 is allowed).")
@click.option("--method", type=click.Choice(C.METHODS), default="distinguished", show_default=True,
              help="Cycle finding where the space is too large to search.")
@click.option("--survey/--no-survey", "do_survey", default=None,
              help="3BV histogram, dream boards and one-click boards over the cycle "
                   "(default on for power-of-two sizes, off otherwise: it lays every board of the cycle).")
@click.option("--keep", type=int, default=5, show_default=True, help="Dream boards to keep.")
@click.option("--custom-mines", type=int, default=None, help="order: mines of the custom board (default half).")
@click.option("--games", type=int, default=20, show_default=True, help="shift: games played with a shift.")
@click.option("--boards", type=int, default=6, show_default=True, help="convergence: start-up boards shown.")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.option("--svg", "svg_path", type=OutputPath(("svg",)), default=None, help="Draw the figure to this SVG file.")
@click.option("--png", "png_path", type=OutputPath(("png",), needs="matplotlib"), default=None,
              help="Draw the figure to this PNG file (matplotlib).")
@click.pass_context
def cycles(ctx, subject, version_name, preset, width, height, mines, state, method, do_survey, keep, custom_mines, games,
           boards, as_json, svg_path, png_path):
    """Board cycles of WinMine (Windows 3.1 to XP) and the phenomena players found by hand.

    \b
    report       every cycle, basin and tail (power-of-two sizes), else the cycle reached from --state
    seeds        the cycle and tail of each of the 65,536 start-up seeds, on any size
    parity       why there are two cycles
    convergence  start-up boards as blends of two consecutive cycle boards
    order        a custom board takes the first mines of the board that would have come
    quadrants    an 8x8 board is a 16x16 stream folded onto one quadrant
    shift        the first-click shift leaves the sequence of boards unchanged
    dream        the lowest-3BV boards of the cycle
    oneclick     boards a shifted first click opens completely (no win declared)
    """
    v = winmine_version(version_name)
    check_level_options(preset, width, height)
    for name, only in (("custom_mines", "order"), ("games", "shift"), ("boards", "convergence")):
        if given(ctx, name) and subject != only:
            raise InvalidBoardError(f"--{name.replace('_', '-')} is for `cycles {only}`, not `cycles {subject}`")
    positive("games", games)
    positive("boards", boards)
    if preset is None and width is None and height is None and mines is None:
        preset = "beginner"
    level = v.level(preset, width, height, mines)
    size = C.Size(*level)
    if not 0 <= state < 1 << 32:
        raise InvalidBoardError(f"--state {state} is out of range; allowed 0..{(1 << 32) - 1}")
    if keep < 1:
        raise InvalidBoardError(f"--keep must be at least 1, got {keep}")
    head = f"{v.title}, {size.width}x{size.height} with {size.mines} mines"
    if subject == "report":
        survey = size.exhaustive if do_survey is None else do_survey
        out, lines, panels = _report(size, state, method, survey, keep, as_json)
    elif subject == "dream" or subject == "oneclick":
        if size.exhaustive:
            rep, arrays = C.analyse_space(size, distinct=False)
            c = int(arrays["cycle"][state & size.mask])
            cyc = next(x for x in rep.cycles if x.start == _cycle_start(arrays, c))
            start, length = cyc.start, cyc.length
        else:
            update, bar = _progress("finding the cycle", as_json)
            try:
                w = C.walk(size, state, method=method, progress=update)
            finally:
                if bar:
                    bar.stop()
            start, length = w.entry, w.length
        update, bar = _progress("surveying the cycle", as_json)
        try:
            sv = C.survey(size, start, length, keep=keep, progress=update)
        finally:
            if bar:
                bar.stop()
        out = {"cycle_start": start, "cycle_length": length, **sv.as_dict()}
        lines = [f"the cycle reached from state {state}: {length:,} boards from state {start}"]
        lines += _survey_text(sv, size, "cycle")
        if subject == "dream":
            panels = [C.Panel(f"#{d['index']}: 3BV {d['bbbv']}", C.board_at(size, d["state"])) for d in sv.dream]
        else:
            panels = []
            for e in sv.one_click_examples[:8]:
                b = C.board_at(size, e["state"])
                x, y = e["click"]
                panels.append(C.Panel(f"#{e['index']}: click ({x}, {y})", b,
                                      {"#ff0000": C._mask(b.width, b.height, [y * b.width + x])}))
            if not panels:
                lines.append("  (none on this cycle)")
    elif subject == "seeds":
        update, bar = _progress("start-up seeds", as_json)
        try:
            # most of the time on a large size goes to finding and marking the two cycles: the bar says so
            stage = (lambda what: bar.update(bar.task_ids[0], description=what, refresh=True)) if bar else None
            rep = C.seed_map(size, progress=update, stage=stage)
        finally:
            if bar:
                bar.stop()
        out = {"seeds": rep.as_dict()}
        panels = [C.Panel(f"cycle of {c['length']:,}: entered at state {c['entry']}", C.board_at(size, c["entry"]))
                  for c in rep.cycles]
        lines = [f"Where the 65,536 start-up seeds lead ({len(rep.cycles)} cycles):"]
        for c in rep.cycles:
            lines.append(f"  cycle of {c['length']:,} boards ({'odd' if c['parity'] else 'even'} states): "
                         f"{c['seeds']:,} seeds")
        lines.append(f"  boards before the cycle: mean {rep.tail_mean:.2f}, max {rep.tail_max}")
        lines += _bars(dict(enumerate(rep.tail_histogram)), "boards")
    elif subject == "parity":
        _need_pow2(size, subject)
        out, panels = C.parity_demo(size)
        lines = ["Two cycles, not one: rand() changes the lowest state bit at every call (a and c are odd),",
                 "and every board makes an even number of calls (x and y for each draw), so the lowest bit at",
                 "the start of a board never changes: boards from even states and from odd states never meet."]
        for r in out["cycles"]:
            lines.append(f"  cycle of {r['length']:,} boards: {'odd' if r['parity'] else 'even'} states "
                         f"(its smallest, {r['first_state']}, lays a board with {r['first_board_calls']} calls), "
                         f"basin {r['basin']:,} states")
    elif subject == "convergence":
        _need_pow2(size, subject)
        if not 0 <= state < 1 << 16:
            raise InvalidBoardError(f"convergence starts from a start-up seed; --state must be 0..65535, got {state}")
        out, panels = C.convergence_demo(size, state, limit=boards)
        lines = [f"Start-up seed {state}: {out['tail']} boards before the sequence locks into the cycle of "
                 f"{out['cycle_length']:,} (cycle boards numbered from the one it locks in at, 0).",
                 "Each start-up board draws from the same stream as the cycle,",
                 "starting part-way into one cycle board's draws: it takes that board's last mines, then the",
                 "next cycle board's first mines (blue: from the first, orange: from the second)."]
        for r in out["boards"]:
            a, b = r["between_cycle_boards"]
            lines.append(f"  start-up board {r['board']}: {r['mines_from_first']} mines of cycle board #{a} "
                         f"(entered {r['offset_into_first']} calls into it), {r['mines_from_second']} of #{b}, "
                         f"{r['other_mines']} other")
    elif subject == "order":
        k = custom_mines if custom_mines is not None else max(v.min_mines, size.mines // 2)
        if custom_mines is not None and not v.min_mines <= k < size.mines:
            raise InvalidBoardError(f"--custom-mines {k}: order compares a custom board with fewer mines than the "
                                    f"level's {size.mines}; allowed {v.min_mines}..{size.mines - 1} on {v.name}")
        if k >= size.mines:
            raise InvalidBoardError(f"order needs a custom board with fewer mines than the level's {size.mines}, "
                                    f"and {v.name} custom boards hold at least {v.min_mines}; use a level with "
                                    f"more than {v.min_mines} mines (e.g. --preset intermediate)")
        v.check_custom(size.width, size.height, k)
        out, panels = C.order_demo(size, state, k)
        o = out["next_full_board"]
        lines = [f"From state {state}: a custom {size.width}x{size.height} board with {k} mines is "
                 f"{'exactly' if out['custom_is_first_mines'] else 'NOT'} the first {k} mines of the board that "
                 "would have come.",
                 f"  The next {size.mines}-mine board takes {o['leftover_mines']} leftover mines of that board and "
                 f"the first {o['first_mines_of_next']} mines of the board after it ({o['other']} other)."]
    elif subject == "quadrants":
        if v.beginner.width != 8:
            raise InvalidBoardError(f"quadrants needs the 8x8 beginner of win31..winnt; {v.name} has no 8x8 level "
                                    "(try --version win98)")
        out, panels = C.quadrant_demo(state)
        lines = [f"From state {state}: the 8x8 board takes x = rand() % 8, y = rand() % 8 where the 16x16 board "
                 "takes % 16, and r % 8 = (r % 16) % 8: its mines are the intermediate draws folded onto one quadrant.",
                 f"  8x8 mines equal the first 10 distinct folded 16x16 draws: {out['small_equals_folded_draws']}",
                 f"  of them, {out['small_mines_that_fold_a_big_mine']} fold a mine the 16x16 board placed",
                 "  16x16 mines stacked onto 8x8 (count per cell):"]
        lines += ["    " + " ".join(str(c) for c in row) for row in out["stacked_big_mines"]]
    elif subject == "shift":
        out, panels = C.shift_demo(v.name, level, state, games)
        lines = [f"{out['games']} games from state {state}, each first click on a mine: {out['shifts']} shifts.",
                 f"  boards as laid equal to those of a session without clicks: {out['laid_boards_equal']} of "
                 f"{out['games']}; next board equal: {out['next_board_equal']}; rand() state equal: "
                 f"{out['state_after_equal']}.",
                 "  The shift moves a mine but draws no random number, so the cycle is the same with or without it."]
    else:  # pragma: no cover - click restricts the choices
        raise InvalidBoardError(f"unknown subject {subject!r}; allowed: {', '.join(SUBJECTS)}")
    if as_json:
        click.echo(json.dumps({"subject": subject, "version": v.name, **out}))
    else:
        click.echo(f"{head}: {subject}")
        for line in lines:
            click.echo(line)
    _draw(panels, svg_path, png_path)  # after the results are out: a failing drawing loses nothing


def _cycle_start(arrays, cycle_id):
    import numpy as np
    on = np.flatnonzero((arrays["cycle"] == cycle_id) & (arrays["tail"] == 0))
    return int(on.min())


def _need_pow2(size, subject):
    if not size.exhaustive:
        raise InvalidBoardError(f"{subject} is shown on power-of-two sizes (8x8, 16x16), where the whole state space "
                                f"is searched; {size.width}x{size.height} is not one")
