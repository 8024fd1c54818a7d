"""Judging every click of a game: the exact probability that what it opened held a mine, from what the player saw.

The game is played again in sweeplab's engine; before each click that opens a hidden cell (a
left click on a closed cell, or a chord that opens cells) the solver gets the View the player had
and nothing else. A cell's risk is an exact fraction of layout counts: the consistent layouts with
a mine there over all consistent layouts (numbers and mine total; the player's flags count as
unknown, as they may be wrong). A chord's risk is that of any of its cells holding a mine, by
inclusion and exclusion over the cells not certainly safe. "Certain" is decided by counting
(risk exactly 0), never by a float.

- a guess: a click whose risk was not 0 (the first click is free in every recording program: it
  is never a mine, so it is not judged);
- forced: no hidden cell anywhere was certainly safe; needless: one was;
- a forced 50/50: a forced guess where the safest cell anywhere had exactly 1/2;
- luck: the chance of surviving every guess, the product of (1 - risk).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from itertools import combinations

import numpy as np

from ..errors import InconsistentPositionError
from ..game import Game
from ..solver import analyse
from ..view import FLAG, HIDDEN, View

TOL = 1e-9  # only to pick candidate cells from the float probabilities; every decision is made exactly


def pluck(luck) -> float | None:
    """-log10 of the luck a game needed; 0.0 (never -0.0) for a game that needed none, None where a
    certain mine was clicked (luck 0)."""
    if luck <= 0:
        return None
    return 0.0 if luck >= 1 else -math.log10(luck)


@dataclass(frozen=True)
class Click:
    """One judged click: the action's index in the game's log, what and where, and its exact risk."""

    index: int
    kind: str
    x: int
    y: int
    t: float
    cells: int  # hidden cells it opens (1 for a left click)
    risk: Fraction  # P(a mine among them | what the player saw)
    first: bool  # the game's first opening click: free, not judged
    safe_elsewhere: int  # hidden cells certainly safe at that moment
    best: float  # the lowest mine probability of any hidden cell at that moment
    fifty_fifty: bool
    hit: bool  # it hit a mine

    @property
    def guess(self) -> bool:
        return not self.first and self.risk > 0

    @property
    def forced(self) -> bool:
        return self.guess and self.safe_elsewhere == 0

    @property
    def needless(self) -> bool:
        return self.guess and self.safe_elsewhere > 0

    def as_dict(self) -> dict:
        d = asdict(self)
        d.update(risk=float(self.risk), risk_exact=f"{self.risk.numerator}/{self.risk.denominator}",
                 guess=self.guess, forced=self.forced, needless=self.needless,
                 best=None if math.isnan(self.best) else self.best)
        return d


@dataclass
class Judgement:
    """A game's clicks judged, and the game's figures from them."""

    clicks: list[Click] = field(default_factory=list)

    @property
    def guesses(self) -> list[Click]:
        return [c for c in self.clicks if c.guess]

    @property
    def luck(self) -> Fraction:
        out = Fraction(1)
        for c in self.guesses:
            out *= 1 - c.risk
        return out

    def summary(self) -> dict:
        g = self.guesses
        luck = self.luck
        return {
            "judged": len(self.clicks), "guesses": len(g), "forced": sum(c.forced for c in g),
            "needless": sum(c.needless for c in g), "fifty_fifties": sum(c.fifty_fifty for c in g),
            "luck": float(luck), "pluck": pluck(luck),
            "largest_risk": float(max((c.risk for c in g), default=0)),
        }


def _layouts_with_mines(view: View, cells) -> int:
    """Consistent layouts with a mine on every cell of `cells` (the player's flags counted as unknown)."""
    codes = np.array(view.cells)
    codes[codes == FLAG] = HIDDEN
    for x, y in cells:
        codes[y, x] = FLAG
    try:
        return analyse(View(codes, view.mine_count, view.topology), trust_flags=True).layouts
    except InconsistentPositionError:  # no layout has mines on all of them together
        return 0


def cell_risk(view: View, a, x: int, y: int) -> Fraction:
    """Exact P(mine at (x, y)) from `view` and its analysis `a`."""
    if a.safe[y, x]:
        return Fraction(0)
    if a.mines[y, x]:
        return Fraction(1)
    return Fraction(_layouts_with_mines(view, [(x, y)]), a.layouts)


def cells_risk(view: View, a, cells) -> Fraction:
    """Exact P(a mine among `cells`): 1 - P(all safe), P(all safe) by inclusion and exclusion."""
    unsure = [(x, y) for x, y in cells if not a.safe[y, x]]
    if any(a.mines[y, x] for x, y in unsure):
        return Fraction(1)
    if len(unsure) <= 1:
        return cell_risk(view, a, *unsure[0]) if unsure else Fraction(0)
    total = a.layouts
    all_safe = Fraction(0)
    for k in range(len(unsure) + 1):
        for subset in combinations(unsure, k):
            n = total if k == 0 else _layouts_with_mines(view, subset)
            all_safe += (-1) ** k * Fraction(n, total)
    return 1 - all_safe


def _opens(view: View, kind: str, x: int, y: int) -> list[tuple[int, int]]:
    """Hidden cells the click would open (before it is made)."""
    cells = view.cells
    if kind == "open":
        return [(x, y)] if cells[y, x] == HIDDEN else []
    if kind != "chord" or cells[y, x] <= 0:
        return []
    nbr = view.neighbours[y * view.width + x]
    around = [(int(j) % view.width, int(j) // view.width) for j in nbr if j >= 0]
    flags = sum(cells[cy, cx] == FLAG for cx, cy in around)
    hidden = [(cx, cy) for cx, cy in around if cells[cy, cx] == HIDDEN]
    return hidden if flags == cells[y, x] else []


def _fifty_fifty(view: View, a) -> bool:
    """The safest hidden cell has exactly 1/2 (checked exactly on the few cells near 1/2 or below)."""
    p = np.where(np.isnan(a.probability), np.inf, a.probability)
    unknown = view.cells < 0
    if not unknown.any() or p[unknown].min() < 0.5 - TOL or p[unknown].min() > 0.5 + TOL:
        return False
    near = np.argwhere(unknown & (p < 0.5 + TOL))
    return min(cell_risk(view, a, int(x), int(y)) for y, x in near) == Fraction(1, 2)


def judge_click(view: View, kind: str, x: int, y: int, *, index: int = 0, t: float = 0.0,
                first: bool = False) -> Click | None:
    """The click `kind` at (x, y) judged from `view`, the position the player saw before it; None when
    it opens no hidden cell. `first`: the game's first opening click (free, not judged). Its `hit`
    is False: whether it hit a mine is not in the view."""
    cells = _opens(view, kind, x, y)
    if not cells:
        return None
    if first:
        return Click(index, kind, x, y, t, len(cells), Fraction(0), True, 0, math.nan, False, False)
    a = analyse(view)
    risk = cells_risk(view, a, cells)
    unknown = view.cells < 0
    safe = int((a.safe & unknown).sum())
    best = float(np.nanmin(np.where(unknown, a.probability, np.nan)))
    fifty = risk > 0 and safe == 0 and _fifty_fifty(view, a)
    return Click(index, kind, x, y, t, len(cells), risk, False, safe, best, fifty, False)


def judge(game: Game) -> Judgement:
    """Judge every opening click of `game` (its board and log) from the View before it."""
    if game.board is None:
        return Judgement()
    g = Game(game.board, marks=game.marks, clock=lambda: 0.0)
    out = Judgement()
    first = True
    for i, act in enumerate(game.log):
        if g.over:
            break
        click = judge_click(g.view(), act.kind, act.x, act.y, index=i, t=act.t, first=first)
        g.act(act.kind, act.x, act.y)
        if click is not None:
            first = False
            if g.status == "lost":
                click = Click(**{**click.__dict__, "hit": True})
            out.clicks.append(click)
    return out
