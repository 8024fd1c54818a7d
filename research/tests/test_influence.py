"""The 50/50 influence of a guess (research/influence.py): its counts against brute force over the
layouts, and the look-ahead's choice it changes against the exact optimum."""

from __future__ import annotations

from fractions import Fraction

import influence as influence_module
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from influence import Influence, InfluencePlayer
from tests.test_players import _brute_layouts, small_views

from sweeplab import View
from sweeplab.solver import analyse
from sweeplab.solver.lookahead import flagged
from sweeplab.solver.players import StrongPlayer
from sweeplab.view import HIDDEN


def _fifty_layouts(layouts, known, near, hidden, a, mirror):
    """From the layouts alone: how many have the mines at `a`, the cells of `mirror` safe, and a twin
    (the same with the mines at `mirror` instead) that is a layout too and that no reveal tells
    apart (every hidden cell safe in both, outside the shape, sees as many mines of `a` as of
    `mirror`); and the shape's ends: the hidden cells not a mine in every layout that see a
    different number of them."""
    shape = set(a) | set(mirror)
    ends = {o for o in hidden - shape - known
            if len(near[o] & set(a)) != len(near[o] & set(mirror))}
    count = 0
    for lay in layouts:
        if not set(a) <= lay or lay & set(mirror):
            continue
        twin = (lay - set(a)) | set(mirror)
        if twin in layouts and all(len(near[o] & set(a)) == len(near[o] & set(mirror))
                                   for o in hidden - shape - lay):
            count += 1
    return count, ends


def _brute_influences(view, cells, pair_ends=3, box_ends=2):
    """Each cell's influence from the brute-force layouts and the board's coordinates: the pairs c is
    in (c the mine, at most `pair_ends` undecided ends), added; the most of the 2x2 boxes it is in
    (c and its diagonal the mines, at most `box_ends` undecided ends); the pairs whose one
    undecided end is c, added; capped by the layouts where c is a mine and those where it is safe."""
    layouts = set(_brute_layouts(view))
    w, h = view.width, view.height
    hidden = set(np.flatnonzero(view.cells.reshape(-1) == HIDDEN).tolist())
    known = set.intersection(*map(set, layouts))
    near = {i: {x2 + w * y2 for x2 in range(i % w - 1, i % w + 2) for y2 in range(i // w - 1, i // w + 2)
                if 0 <= x2 < w and 0 <= y2 < h and (x2, y2) != (i % w, i // w)} for i in range(w * h)}
    memo = {}

    def fifty(a, mirror):
        if (a, mirror) not in memo:
            memo[a, mirror] = _fifty_layouts(layouts, known, near, hidden, a, mirror)
        return memo[a, mirror]

    steps = ((1, 0), (-1, 0), (0, 1), (0, -1))
    pairs = [(n, n + dx + w * dy) for n in range(w * h) for dx, dy in steps[::2]
             if n % w + dx < w and n // w + dy < h]  # each pair once: to the right, below
    out = []
    for c in cells:
        x, y = c % w, c // w
        total = 0
        for dx, dy in steps:
            if 0 <= x + dx < w and 0 <= y + dy < h:
                n, ends = fifty((c,), (c + dx + w * dy,))
                total += n if len(ends) <= pair_ends else 0
        boxes = 0
        for dx in (-1, 1):
            for dy in (-1, 1):
                if 0 <= x + dx < w and 0 <= y + dy < h:
                    n, ends = fifty((c, c + dx + w * dy), (c + dx, c + w * dy))
                    boxes = max(boxes, n if len(ends) <= box_ends else 0)
        total += boxes
        for n, m in pairs:
            if c not in (n, m):
                k, ends = fifty((n,), (m,))
                total += k if ends == {c} else 0
        mine = sum(c in lay for lay in layouts)
        out.append(min(total, mine, len(layouts) - mine))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("pair_ends,box_ends", [(3, 2), (8, 8)])
@settings(max_examples=80, suppress_health_check=list(HealthCheck), deadline=None)
@given(view=small_views())
@example(view=View.from_text("mines: 4\n1##\n###\n###\n"))
@example(view=View.from_text("mines: 6\n012###\n02####\n13####\n##2###\n######\n"))
def test_influence_matches_brute_force(view, pair_ends, box_ends, monkeypatch):
    """Every undecided cell's influence, exactly, on positions where a guess is due; with the
    limits on ends as the player has them, and raised so every shape counts (the cap then binds
    more often). `Influence.reach` marks every cell whose influence is not 0."""
    monkeypatch.setattr(influence_module, "PAIR_ENDS", pair_ends)
    monkeypatch.setattr(influence_module, "BOX_ENDS", box_ends)
    a = analyse(view)
    assume(not a.safe.any())
    shapes = Influence(view, a, flagged(view, a))
    und = np.flatnonzero((view.hidden & ~a.mines).reshape(-1))
    got = [shapes.of(int(c)) for c in und]
    assert got == _brute_influences(view, und.tolist(), pair_ends, box_ends)
    # the quick pass over the board finds every cell that counts (the player looks no further)
    assert all(shapes.reach()[c] for c, n in zip(und, got) if n)


def test_influence_counts_a_closed_pair_and_what_it_needs():
    """3x3/4 with the 1 at (0,0) open: (2,0) and (2,1) form a pair whose ends are (1,2) and (2,2)
    (each sees one of the two; (1,0) and (1,1) see both). It counts with two undecided ends allowed,
    not with one, and holds in the layouts with (2,0), (1,2), (2,2) mines and (2,1) safe: the
    fourth mine is the 1's, at (1,0), (0,1) or (1,1)."""
    view = View.from_text("mines: 4\n1##\n###\n###\n")
    a = analyse(view)
    shapes = Influence(view, a, flagged(view, a))
    pair = shapes.shape((2,), (5,), 2)
    assert pair is not None and pair.ends == (7, 8)
    assert shapes.shape((2,), (5,), 1) is None
    want = sum(1 for lay in _brute_layouts(view) if {2, 7, 8} <= lay and 5 not in lay)
    assert want == 3 and shapes.layouts(pair) == want
    assert shapes.shape((5,), (2,), 2).ends == (7, 8)  # the other way round: the same ends


# A 6x5/6 position from a real game (seed 7000 of `make_rule("safe", 6, 5, 6, ...)`, the first
# click in the corner): without the influence the look-ahead opens (2,4), which perfect play wins
# 31/44 from; with it, (1,4): its mine layouts are mostly ones where the bottom-left pair closes
# into a 50/50, and perfect play wins 43/55 from it, the best of any cell.
FIFTY_VIEW = "mines: 6\n012###\n02####\n13####\n##2###\n######\n"


WEIGHT = 0.9  # JSMinesweeper's weight, the one measured in docs/benchmarks.md


def test_the_influence_changes_the_guess_to_the_optimal_one():
    from sweeplab.solver.optimal import OptimalPlay
    view = View.from_text(FIFTY_VIEW)
    values = OptimalPlay(6, 5, 6).moves(view)
    best = max(values.values())
    picks = {}
    for weight in (0.0, WEIGHT):
        for seed in range(4):
            player = InfluencePlayer(seed)
            player.endgame_layouts = 0  # the look-ahead plays (the end game would solve it exactly)
            player.blend = 0.0  # the look-ahead without the blend, which finds the optimum here alone (below)
            player.fifty_influence = weight
            (move,) = player.moves(view)
            picks.setdefault(weight, set()).add((move.x, move.y))
    (without,), (with_,) = picks[0.0], picks[WEIGHT]
    assert values[with_] == best > values[without]
    assert (values[without], values[with_]) == (Fraction(31, 44), Fraction(43, 55))
    player = StrongPlayer(0)  # the default look-ahead: the next move's safety blended with the second best's
    player.endgame_layouts = 0
    (move,) = player.moves(view)
    assert player.blend > 0 and values[(move.x, move.y)] == best
