"""Hints: the certain moves of a position, or the best guess, each with a reason a player can follow."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import SweeplabError
from ..view import FLAG, HIDDEN, View
from .complete import Analysis, analyse
from .deduction import WHY_COMPONENT, WHY_NUMBER, WHY_PAIR
from .lookahead import flagged, outcomes
from .players import ENDGAME, FIFTY, PLAYERS

KINDS = ("safe", "mine", "guess")


@dataclass(frozen=True)
class Hint:
    """kind: 'safe' (open these), 'mine' (flag these) or 'guess' (no certain move; open this one).

    cells: (x, y) pairs. probability: the chance the advice is right (1.0 for certain moves; for
    a guess, the chance the cell is safe). reason: in words. progress: for a guess, the chance
    that opening it is safe and then gives a new certain cell. named: the other cells the reason
    names (the number that shows it, the mines it touches, a wrong flag), for a front end to mark.
    """

    kind: str
    cells: list = field(default_factory=list)
    probability: float = 1.0
    reason: str = ""
    progress: float | None = None
    named: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"kind": self.kind, "cells": [list(c) for c in self.cells], "probability": self.probability,
                "reason": self.reason, "progress": self.progress, "named": [list(c) for c in self.named]}


def _xy(i: int | np.integer, width: int) -> tuple[int, int]:
    return int(i % width), int(i // width)


def coordinates(x: int, y: int) -> str:
    """How a reason names a cell by default: (x, y) from 0, as in the API."""
    return f"({x}, {y})"


class _Namer:
    """Names cells for a reason in the caller's words and remembers which it named."""

    def __init__(self, width: int, name):
        self.width, self.name = width, name
        self.said: list[tuple[int, int]] = []

    def __call__(self, i: int | np.integer) -> str:
        xy = _xy(i, self.width)
        self.said.append(xy)
        return self.name(*xy)

    def others(self, cells) -> list:
        return [c for c in dict.fromkeys(self.said) if c not in cells]


def _plural(k: int, word: str) -> str:
    return f"{k} {word}{'s' * (k != 1)}"


def _why_certain(view: View, a: Analysis, i: int, safe: bool, cell: _Namer) -> str:
    """The engine's own reason for cell i (`Analysis.reason`), in words."""
    cells = view.cells.reshape(-1)
    nbr = view.neighbours
    known_mine = a.mines.reshape(-1)
    r = a.reason(*_xy(i, view.width))
    assert r is not None, "the engine gives every certain cell a reason"
    if r.why == WHY_NUMBER:
        n = int(cells[r.a])
        number = cell(r.a)
        if safe:
            mines = [int(q) for q in nbr[r.a] if q >= 0 and cells[q] < 0 and known_mine[q]]
            where = "; ".join(cell(q) for q in mines)
            return (f"The {n} at {number} already touches {_plural(n, 'certain mine')}"
                    + (f" ({where})" if mines else "") + f", so its other hidden neighbours, {cell(i)} among "
                    "them, are safe.")
        return (f"The {n} at {number} has only {n} hidden neighbour{'s' * (n != 1)} that could hold a "
                f"mine, so each of them, {cell(i)} among them, is a mine.")
    if r.why == WHY_PAIR:
        # the subset rule: b's hidden cells away from a were mines, a's away from b safe
        na, nb = int(cells[r.a]), int(cells[r.b])
        away = r.rest_b - r.rest_a  # b's cells away from a (all mines)
        if safe:
            b_at, a_at = cell(r.b), cell(r.a)
            if away == 0:
                shared = (f"Every hidden neighbour of the {nb} at {b_at} touches the {na} at {a_at} too, so the "
                          f"{_plural(r.rest_b, 'mine')} it still needs {'lies' if r.rest_b == 1 else 'lie'} next to "
                          "both")
            else:
                shared = (f"The {nb} at {b_at} needs {_plural(r.rest_b, 'more mine')} and only {away} of its hidden "
                          f"neighbours are away from the {na} at {a_at}, so at least {r.rest_a} of its mines lie "
                          "next to both")
            return (f"{shared}: all that the {na} still needs. So the other hidden neighbours of the {na} at "
                    f"{a_at}, {cell(i)} among them, are safe.")
        return (f"The {na} at {cell(r.a)} needs {_plural(r.rest_a, 'more mine')}, and the {nb} at {cell(r.b)} "
                f"needs {r.rest_b}: at most {r.rest_a} of those lie next to both, so the {nb}'s "
                f"{_plural(away, 'hidden neighbour')} away from the {na}, {cell(i)} among them, "
                f"{'are mines' if away != 1 else 'is a mine'}.")
    what = "safe" if safe else "a mine"
    if r.why == WHY_COMPONENT:
        return (f"{cell(i)} is {what} in every layout of mines that fits the numbers around it; no single "
                "number or pair of numbers shows it, but counting the layouts of those numbers does.")
    return (f"{cell(i)} is {what} in every layout of mines that fits the numbers and the mine total "
            f"({view.mine_count}); no single number shows it, but counting all {a.layouts} layouts with "
            "the mine total does.")


def guess_progress(view: View, a: Analysis, i: int, *, trust_flags: bool = False) -> tuple[float, float]:
    """(chance cell i is safe and opening it gives a new certain cell, chance it shows a 0): the
    look-ahead's own one-move look (`lookahead.outcomes`, each number it could show)."""
    view = _untrusted_flags_hidden(view, trust_flags)
    base = flagged(view, a)
    others = base == HIDDEN
    others[i] = False
    progress = zero = 0.0
    for weight, shown, b in outcomes(view, a, base, i):
        if (b.safe.reshape(-1) & others).any():
            progress += weight
        if shown.cells.reshape(-1)[i] == 0:
            zero += weight
    return progress, zero


def _untrusted_flags_hidden(view: View, trust_flags: bool) -> View:
    """The view as the analysis saw it: flags not trusted are hidden cells."""
    if trust_flags:
        return view
    cells = view.cells.copy()
    cells[cells == FLAG] = HIDDEN
    return View(cells, view.mine_count, view.topology)


def hint(view: View, *, trust_flags: bool = False, name=coordinates, player: str = "strong") -> Hint:
    """The certain safe cells; else the certain mines not yet flagged; else the best guess.

    A guess is the `strong` player's (the default player): a forced 50/50 at once, the best cell
    by an exhaustive search when few layouts are left, else among the safest cells the one most
    likely to lead on (looking one move ahead at every number it could show). `player` names
    another player (`solver.players.PLAYERS`, e.g. "learned") to give the guess instead. `name(x, y)`
    words a cell in the reason (default: `(x, y)` from 0).
    """
    if player not in PLAYERS:
        raise SweeplabError(f"unknown player {player!r} for the hint's guess; allowed: {', '.join(sorted(PLAYERS))}")
    a = analyse(view, trust_flags=trust_flags)
    w = view.width
    cell = _Namer(w, name)
    cells = view.cells.reshape(-1)
    safe = np.flatnonzero(a.safe.reshape(-1))
    if len(safe):
        wrong_flags = [i for i in safe if cells[i] == FLAG]
        reason = _why_certain(view, a, int(safe[0]), True, cell)
        if wrong_flags:
            reason += (" Your flag" + "s" * (len(wrong_flags) > 1) + " at "
                       + "; ".join(cell(i) for i in wrong_flags) + " cover" + "s" * (len(wrong_flags) == 1)
                       + " a safe cell: remove it.")
        found = [_xy(i, w) for i in safe]
        return Hint("safe", found, 1.0, reason, named=cell.others(found))
    mines = np.flatnonzero(a.mines.reshape(-1) & (cells == HIDDEN))
    if len(mines):
        found = [_xy(i, w) for i in mines]
        reason = _why_certain(view, a, int(mines[0]), False, cell)
        return Hint("mine", found, 1.0, reason, named=cell.others(found))
    prob = a.probability.reshape(-1)
    open_to = np.flatnonzero(cells == HIDDEN)
    if not len(open_to):
        return Hint("guess", [], 0.0, "Every hidden cell is flagged; the position has no cell left to open.")
    p = prob[open_to]
    best = p.min()
    ties = open_to[p <= best + 1e-9]
    i, how = _strong_guess(view, a, trust_flags) if player == "strong" else _player_guess(view, player, trust_flags)
    prog, zero = guess_progress(view, a, i, trust_flags=trust_flags)
    safe_p = 1.0 - float(prob[i])
    if how == FIFTY:
        what = "a 50/50" if abs(safe_p - 0.5) < 1e-12 else f"safe with probability {safe_p:.1%}"
        reason = (f"No cell is certain. {cell(i)} is one of a few cells around one number that no later reveal "
                  f"can ever tell apart: a guess ({what}) that must be made sooner or later, so make it now.")
    elif how == ENDGAME:
        reason = (f"No cell is certain, and only {a.layouts} layouts of mines are left: searching every order "
                  f"of reveals over them, opening {cell(i)} first gives the best chance of winning. "
                  f"It is safe with probability {safe_p:.1%}.")
    elif how == player:
        safest = "the safest cell" if i in ties else f"the safest cell is {cell(int(ties[0]))} ({1.0 - float(best):.1%})"
        reason = (f"No cell is certain. The {player} player opens {cell(i)}: safe with probability {safe_p:.1%} "
                  f"({safest}).")
    else:
        tie = f", tied with {len(ties) - 1} other cell{'s' * (len(ties) != 2)}" if len(ties) > 1 else ""
        if i in ties:
            reason = f"No cell is certain. {cell(i)} is the safest cell{tie}: safe with probability {safe_p:.1%}."
        else:
            reason = (f"No cell is certain. {cell(i)} is safe with probability {safe_p:.1%}, a little less than the "
                      f"safest cell {cell(int(ties[0]))} ({1.0 - float(best):.1%}), but looking one move ahead at "
                      f"every number it could show, it leads on more often.")
        reason += (f" If you open it, the chance it is safe and gives a new certain cell is {prog:.1%}"
                   + (f" (it shows a 0 and opens an area with probability {zero:.1%})" if zero else "") + ".")
    return Hint("guess", [_xy(i, w)], safe_p, reason, prog, named=cell.others([_xy(i, w)]))


def _strong_guess(view: View, a: Analysis, trust_flags: bool) -> tuple[int, str]:
    """The cell the `strong` player would guess here, and how it chose it. Untrusted flags are
    hidden cells to it, as to the analysis `a`."""
    from .players import StrongPlayer
    move = StrongPlayer(0).guess(_untrusted_flags_hidden(view, trust_flags), a)
    return move.y * view.width + move.x, move.note


def _player_guess(view: View, player: str, trust_flags: bool) -> tuple[int, str]:
    """The cell the player of that name opens here (seed 0), and its name as how it chose."""
    from .players import make_player
    move = make_player(player, 0).moves(_untrusted_flags_hidden(view, trust_flags))[0]
    return move.y * view.width + move.x, player
