"""What the analysis board says about a position, from the solver's public calls alone: the exact
analysis (certain cells, every hidden cell's mine probability, the layouts), the local rules, the
move `strong` would play and why, the unavoidable guesses (forced 50/50s), perfect play on small
boards, a judged click, and for an impossible position which numbers cannot all hold.

Everything here only reads an `AnalysisPosition` (what a player sees). It runs in the analysis worker, which
the server stops when a position runs past its time (see analyse.py), so nothing here needs a clock.

Without a mine total the probabilities are not defined (they depend on the total); what the numbers
decide alone, the totals that fit them, and which numbers cannot all hold are the engine's
(solver.conflict); this module says them in words.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from .. import grid
from ..errors import InconsistentPositionError, SearchTooLargeError, TooComplexError
from ..replays.judge import judge_click
from ..solver import analyse, analyse_without_total, conflict_core, deduce_rules, hint
from ..solver.fifty import unavoidable_sets
from ..solver.optimal import OptimalPlay
from ..solver.players import ENDGAME, FIFTY, LOOKAHEAD, StrongPlayer
from ..view import FLAG, HIDDEN, View
from .analyse_position import AnalysisPosition

OPTIMAL_CELLS = 64           # solver.optimal packs a view in 64 cells
OPTIMAL_LAYOUTS = 300_000    # layouts it lists before filtering (a mine row and a number row each: ~40 MB)
OPTIMAL_STATES = 1_000_000   # memoised states (~150 MB) before it gives up; the time limit may stop it first
_searches: dict = {}         # the last board size's search, whose memo serves the next edit of it


def name(x: int, y: int) -> str:
    """A cell as the page names it, as a player counts: column and row from 1."""
    return f"column {x + 1}, row {y + 1}"


def _xy(flat_cells) -> list[list[int]]:
    return [[int(i[1]), int(i[0])] for i in flat_cells]


def _cells(mask: np.ndarray) -> list[list[int]]:
    return _xy(np.argwhere(mask))


def report(pos: AnalysisPosition, *, trust_flags: bool = False, click: tuple[str, int, int] | None = None,
           optimal: bool = True) -> Iterator[tuple[str, dict]]:
    """The parts of the report as they are ready: ("core", ...) at once, then ("optimal", ...) where
    the board is small enough for perfect play."""
    core = analysis(pos, trust_flags)
    if click is not None:
        core["click"] = judged_click(pos, *click)
    yield "core", core
    if optimal:
        yield "optimal", perfect_play(pos, core)


def analysis(pos: AnalysisPosition, trust_flags: bool) -> dict:
    out: dict[str, Any] = {"trust_flags": trust_flags, "local": local_rules(pos, trust_flags)}
    if pos.mines is None:
        out.update(_without_total(pos, trust_flags))
        return out
    view = pos.view()
    try:
        a = analyse(view, trust_flags=trust_flags)
    except InconsistentPositionError:
        out.update(_impossible(pos, trust_flags))
        return out
    except TooComplexError as e:
        out.update(status="too_complex", message=str(e))
        return out
    hidden = view.cells == HIDDEN
    prob = a.probability
    out.update(
        status="ok", layouts=str(a.layouts), components=a.components, mine_range=list(a.mine_range),
        safe=_cells(a.safe & (view.cells < 0)), mines_certain=_cells(a.mines & (view.cells < 0)),
        # null where a cell has no probability: open cells, and flags taken as mines
        probability=[[None if math.isnan(p) else float(p) for p in row] for row in prob],
    )
    out["move"] = strong_move(view, trust_flags, prob)
    out["unavoidable"] = unavoidable(view, a, trust_flags)
    if not hidden.any():
        out["move"]["reason"] = "Every hidden cell is flagged; nothing is left to open."
    return out


HOW = {FIFTY: "it is an unavoidable guess (no later reveal can tell its cells apart), so it is made now",
       ENDGAME: "searching every order of reveals over the layouts left, it gives the best chance of winning",
       LOOKAHEAD: "among the safest cells, looking one move ahead at every number it could show, it leads on "
                  "most often"}


def strong_move(view: View, trust_flags: bool, probability: np.ndarray) -> dict:
    """The move `strong` plays here, and why: the hint's words where the hint is its move (the certain
    safe cells, or its guess); where the hint would flag certain mines, strong (which never flags)
    guesses, and its guess is said with how it chose it."""
    h = hint(view, trust_flags=trust_flags, name=name)
    move = {"kind": h.kind, "cells": [list(c) for c in h.cells], "probability": h.probability,
            "reason": h.reason, "progress": h.progress, "named": [list(c) for c in h.named]}
    if h.kind != "mine":
        return move
    cells = view.cells.copy()
    cells[cells == FLAG] = HIDDEN  # strong never trusts a flag
    m = StrongPlayer(0).moves(View(cells, view.mine_count, view.topology))[0]
    if m.certain:  # (the hint found no safe cell, so neither does strong; said plainly if it ever did)
        return move
    safe = 1.0 - float(probability[m.y, m.x])
    reason = (f"No cell is certain; the certain mines are simply left alone (strong never flags). It opens "
              f"{name(m.x, m.y)}, safe with probability {safe:.1%}: {HOW.get(m.note, 'its guess')}. "
              f"The mines: {h.reason}")
    return {"kind": "guess", "cells": [[m.x, m.y]], "probability": safe, "reason": reason, "progress": None,
            "named": move["named"]}


def local_rules(pos: AnalysisPosition, trust_flags: bool) -> dict | None:
    """What the single-number and subset rules decide at once (one level; no mine total)."""
    try:
        safe, mines = deduce_rules(pos.view(pos.mines if pos.mines is not None else 0), trust_flags=trust_flags)
    except InconsistentPositionError:
        return None
    unknown = pos.cells < 0
    return {"safe": _cells(safe & unknown), "mines": _cells(mines & unknown)}


def unavoidable(view: View, a, trust_flags: bool) -> list[dict]:
    """The sets of cells no later reveal can tell apart (a forced 50/50 is one of two), each with its
    cells' mine probability. Flags count as hidden cells, except where trusted as mines."""
    cells = view.cells.copy()
    known = a.mines | ((cells == FLAG) if trust_flags else False)
    cells[cells == FLAG] = HIDDEN
    plain = View(cells, view.mine_count, view.topology)
    undecided = plain.hidden & ~known
    out = []
    for t in unavoidable_sets(plain, known, undecided):
        xy = [[int(i % view.width), int(i // view.width)] for i in t]
        out.append({"cells": xy, "probability": [float(a.probability[y, x]) for x, y in xy],
                    "fifty_fifty": len(t) == 2})
    return out


# --- without a mine total -------------------------------------------------------------------------
def _without_total(pos: AnalysisPosition, trust_flags: bool) -> dict:
    try:
        a = analyse_without_total(pos.view(0), trust_flags=trust_flags)
    except InconsistentPositionError:
        return _impossible(pos, trust_flags)
    except TooComplexError as e:
        return {"status": "too_complex", "message": str(e)}
    unknown = pos.cells < 0
    totals = f"{a.low}" if a.low == a.high else f"from {a.low} to {a.high}"
    return {"status": "no_total", "safe": _cells(a.safe & unknown), "mines_certain": _cells(a.mines & unknown),
            "message": f"No mine total: the cells shown are decided by the numbers alone, for any total (totals "
                       f"{totals} fit them). Mine probabilities, the layouts and the best move depend on the "
                       "total; give it."}


# --- an impossible position -------------------------------------------------------------------------
def _impossible(pos: AnalysisPosition, trust_flags: bool) -> dict:
    try:
        return {"status": "impossible", "conflict": explain_conflict(pos, trust_flags)}
    except TooComplexError as e:  # (numbers too tangled to count even once cut to a window)
        return {"status": "too_complex", "message": str(e)}


def explain_conflict(pos: AnalysisPosition, trust_flags: bool) -> dict:
    """Why no layout fits: a number that its unopened neighbours cannot satisfy alone; else a minimal
    set of numbers that cannot all hold (each needed: with any one of them unopened instead, a layout
    fits); else the mine total, with the totals the numbers allow."""
    cells = pos.cells.reshape(-1)
    h, w = pos.cells.shape
    nbr = grid.neighbour_table(w, h, pos.topology)
    unopened = grid.around(cells < 0, nbr).sum(axis=1)
    flags = grid.around(cells == FLAG, nbr).sum(axis=1)
    single = []
    for i in np.flatnonzero(cells >= 0):
        k, u, f, x, y = int(cells[i]), int(unopened[i]), int(flags[i]), int(i % w), int(i // w)
        if k > u:
            single.append((i, f"the {k} at {name(x, y)} has only {u} unopened neighbour{'s' * (u != 1)}"))
        elif trust_flags and f > k:
            single.append((i, f"the {k} at {name(x, y)} touches {f} flags, taken as mines"))
    if single:
        return {"kind": "number", "numbers": _xy([(i // w, i % w) for i, _ in single]),
                "message": "; ".join(s for _, s in single).capitalize() + "."}
    view = pos.view(0)
    try:
        a = analyse_without_total(view, trust_flags=trust_flags)
    except InconsistentPositionError:
        needed = conflict_core(view, trust_flags=trust_flags)
        where = "; ".join(f"the {int(pos.cells[y, x])} at {name(x, y)}" for x, y in needed)
        return {"kind": "numbers", "numbers": [list(c) for c in needed],
                "message": f"These {len(needed)} numbers cannot all hold: {where}. No layout of mines fits them "
                           "together, and with any one of them unopened instead, one does."}
    m = pos.mines
    assert m is not None  # without a total, the numbers alone decide whether a position holds
    low, high = a.low, a.high
    if m < low:
        why = f"they need at least {low} mines in all, more than the total of {m}"
    elif m > high:
        why = f"at most {high} mine{'s' * (high != 1)} fit{'s' * (high == 1)} with them, fewer than {m}"
    else:
        why = f"totals from {low} to {high} fit, but no layout has exactly {m}"
    return {"kind": "total", "numbers": [], "low": low, "high": high,
            "message": f"The numbers can all hold, but not with a mine total of {m}: {why}."}


# --- a judged click, and perfect play ------------------------------------------------------------------
def judged_click(pos: AnalysisPosition, kind: str, x: int, y: int) -> dict:
    """The click made from this position (a lost game's fatal one): its exact risk, the safest cell
    then, and whether it was a forced guess. Flags count as unknown, as the player's may be wrong."""
    if pos.mines is None:
        return {"kind": kind, "x": x, "y": y, "error": "a click is judged only with a mine total"}
    view = pos.view()
    try:
        c = judge_click(view, kind, x, y)
    except InconsistentPositionError:
        return {"kind": kind, "x": x, "y": y, "error": "the position is impossible"}
    if c is None:
        return {"kind": kind, "x": x, "y": y, "error": "that click opens no hidden cell here"}
    a = analyse(view)
    p = np.where(view.cells < 0, a.probability, np.inf)
    safest = _cells(p <= c.best + 1e-12) if c.safe_elsewhere == 0 else _cells(a.safe & (view.cells < 0))
    return {"kind": kind, "x": x, "y": y, "cells": c.cells, "risk": float(c.risk),
            "risk_exact": f"{c.risk.numerator}/{c.risk.denominator}", "guess": c.guess, "forced": c.forced,
            "needless": c.needless, "fifty_fifty": c.fifty_fifty, "safe_elsewhere": c.safe_elsewhere,
            "best": c.best, "safest": safest[:50]}


def perfect_play(pos: AnalysisPosition, core: dict) -> dict:
    """Perfect play's win probability after opening each hidden cell next (exact fractions), where the
    board is small enough; else why not."""
    w, h, m = pos.width, pos.height, pos.mines
    unopened = int((pos.cells < 0).sum())
    why = None
    if m is None:
        why = "perfect play needs the mine total"
    elif core.get("status") != "ok":
        why = "the position has no exact analysis"
    elif w * h > OPTIMAL_CELLS:
        why = f"perfect play is searched on boards of at most {OPTIMAL_CELLS} cells; this one has {w * h}"
    elif not (pos.cells >= 0).any():
        why = "perfect play is searched once a cell is open"
    elif math.comb(unopened, m) > OPTIMAL_LAYOUTS:
        why = (f"{m} mines among {unopened} unopened cells make {math.comb(unopened, m):,} layouts to list; perfect "
               f"play here lists at most {OPTIMAL_LAYOUTS:,}")
    if why:
        return {"status": "unavailable", "message": why}
    assert m is not None  # (why says so otherwise)
    key = (w, h, m, pos.topology)
    search = _searches.get(key)
    if search is None or search.states > OPTIMAL_STATES // 2:
        _searches.clear()
        search = _searches[key] = OptimalPlay(w, h, m, pos.topology, max_layouts=OPTIMAL_LAYOUTS,
                                              max_states=OPTIMAL_STATES)
    try:
        values = search.moves(pos.view())
    except SearchTooLargeError as e:
        _searches.clear()
        return {"status": "unavailable", "message": str(e)}
    if not values:
        return {"status": "unavailable", "message": "every unopened cell is a mine: nothing is left to open"}
    best = max(values.values())
    return {"status": "ok", "best": f"{best.numerator}/{best.denominator}", "best_value": float(best),
            "best_cells": [list(c) for c, v in values.items() if v == best],
            "moves": [{"at": list(c), "wins": f"{v.numerator}/{v.denominator}", "value": float(v)}
                      for c, v in sorted(values.items(), key=lambda kv: (kv[0][1], kv[0][0]))]}
