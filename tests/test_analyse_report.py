"""What the analysis board says, checked against brute force over every layout on small boards: the
probabilities and layouts, what the numbers decide without a mine total, why an impossible position
is impossible, perfect play, and a lost game's fatal click."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import combinations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sweeplab.board import Board
from sweeplab.game import Game
from sweeplab.grid import neighbour_table
from sweeplab.play.analyse_position import AnalysisPosition
from sweeplab.play.analyse_report import explain_conflict, judged_click, report
from sweeplab.replays.judge import judge

from .test_optimal import brute_search


def layouts_by_total(cells: np.ndarray) -> dict[int, list[int]]:
    """Every set of unknown cells (hidden or flagged: flags may be wrong) that fits the numbers, as
    bit masks over the flat cells, by its number of mines."""
    h, w = cells.shape
    flat = cells.reshape(-1)
    nbr = neighbour_table(w, h, "bounded")
    unknown = [int(i) for i in np.flatnonzero(flat < 0)]
    around = {int(i): sum(1 << int(j) for j in nbr[i] if j >= 0 and flat[j] < 0) for i in np.flatnonzero(flat >= 0)}
    out: dict[int, list[int]] = {}
    for bits in range(1 << len(unknown)):
        mask = sum(1 << c for k, c in enumerate(unknown) if bits >> k & 1)
        if all(bin(mask & a).count("1") == int(flat[i]) for i, a in around.items()):
            out.setdefault(bin(mask).count("1"), []).append(mask)
    return out


@st.composite
def small_positions(draw, max_unknown=12):
    w, h = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    cells = draw(st.lists(st.sampled_from([-1, -1, -1, -2, 0, 1, 1, 2, 3]), min_size=w * h, max_size=w * h))
    cells = np.array(cells, dtype=np.int8).reshape(h, w)
    if (cells < 0).sum() > max_unknown:
        cells[cells < 0] = 1
    mines = draw(st.one_of(st.none(), st.integers(0, w * h)))
    return AnalysisPosition(cells, mines)


def cell_set(cells) -> set:
    return {tuple(c) for c in cells}


@settings(max_examples=250, deadline=None)
@given(small_positions())
def test_the_report_agrees_with_every_layout(pos):
    core = dict(report(pos, optimal=False))["core"]
    by_total = layouts_by_total(pos.cells)
    w = pos.width
    unknown = [(int(i % w), int(i // w)) for i in np.flatnonzero(pos.cells.reshape(-1) < 0)]
    if pos.mines is None:
        every = [L for ls in by_total.values() for L in ls]
        if not every:
            assert core["status"] == "impossible"
            return
        assert core["status"] == "no_total"
        low, high = min(by_total), max(by_total)
        assert (f"totals {low} fit" if low == high else f"totals from {low} to {high} fit") in core["message"]
        bit = {c: 1 << (c[1] * w + c[0]) for c in unknown}
        assert cell_set(core["safe"]) == {c for c in unknown if not any(L & bit[c] for L in every)}
        assert cell_set(core["mines_certain"]) == {c for c in unknown if all(L & bit[c] for L in every)}
        return
    fits = by_total.get(pos.mines, [])
    if not fits:
        assert core["status"] == "impossible"
        return
    assert core["status"] == "ok" and int(core["layouts"]) == len(fits)
    for x, y in unknown:
        b = 1 << (y * w + x)
        share = Fraction(sum(1 for L in fits if L & b), len(fits))
        assert abs(core["probability"][y][x] - float(share)) < 1e-12
        assert ([x, y] in core["safe"]) == (share == 0) and ([x, y] in core["mines_certain"]) == (share == 1)


@settings(max_examples=250, deadline=None)
@given(small_positions())
# The 0s in the right column touch no unopened cell, yet the named numbers must not hold without
# them either: with those 0s unopened, the 1 could have its mine there.
@example(AnalysisPosition(np.array([[-1, 0, 0], [0, 1, 0]], dtype=np.int8), 0))
def test_an_impossible_position_names_what_cannot_hold(pos):
    by_total = layouts_by_total(pos.cells)
    if pos.mines is None or by_total.get(pos.mines):
        return
    why = explain_conflict(pos, False)
    flat = pos.cells.reshape(-1)
    w = pos.width
    if why["kind"] == "number":
        nbr = neighbour_table(w, pos.height, "bounded")
        for x, y in why["numbers"]:
            i = y * w + x
            assert flat[i] > sum(1 for j in nbr[i] if j >= 0 and flat[j] < 0)
    elif why["kind"] == "numbers":
        named = {y * w + x for x, y in why["numbers"]}

        def holds(keep):  # the named numbers in `keep` open, every other open cell unopened
            cells = flat.copy()
            cells[[i for i in np.flatnonzero(flat >= 0) if i not in keep]] = -1
            return bool(layouts_by_total(cells.reshape(pos.cells.shape)))

        assert not holds(named)
        assert all(holds(named - {i}) for i in named)
    else:
        assert why["kind"] == "total" and by_total
        assert (why["low"], why["high"]) == (min(by_total), max(by_total))
        assert pos.mines not in by_total


def test_a_conflict_of_two_numbers():
    pos = AnalysisPosition(np.array([[2, -1, 2], [-1, 1, -1]], dtype=np.int8), 2)
    why = explain_conflict(pos, False)
    assert why["kind"] == "numbers" and len(why["numbers"]) == 2 and "cannot all hold" in why["message"]


def small_views():
    """Positions after the first opening on boards small enough for the brute-force oracle."""
    out = []
    for w, h, m in ((3, 3, 2), (4, 3, 2), (4, 3, 3), (3, 4, 3)):
        for seed in range(5):
            rng = np.random.default_rng(seed)
            mines = np.zeros(w * h, dtype=bool)
            mines[rng.permutation(w * h)[:m]] = True
            board = Board(mines.reshape(h, w))
            g = Game(board)
            safe = np.flatnonzero(~mines)
            g.open(int(safe[0] % w), int(safe[0] // w))
            if not g.over:
                out.append(g.view())
    return out


def test_perfect_play_agrees_with_brute_force():
    checked = 0
    for v in small_views():
        pos = AnalysisPosition(v.cells, v.mine_count)
        parts = dict(report(pos))
        opt = parts["optimal"]
        assert opt["status"] == "ok", opt
        w, h, m = pos.width, pos.height, pos.mines
        open_value, number, _ = brute_search(w, h, m)
        flat = pos.cells.reshape(-1)
        opened = frozenset(int(i) for i in np.flatnonzero(flat >= 0))
        layouts = frozenset(L for L in (sum(1 << c for c in cs) for cs in combinations(
            [c for c in range(w * h) if c not in opened], m)) if all(number(L, i) == flat[i] for i in opened))
        values = {tuple(mv["at"]): Fraction(mv["wins"]) for mv in opt["moves"]}
        for (x, y), value in values.items():
            assert value == open_value(layouts, opened, y * w + x)
        assert Fraction(opt["best"]) == max(values.values())
        checked += 1
    assert checked >= 10


def test_a_lost_game_s_fatal_click_is_judged_as_judge_judges_it():
    rng = random.Random(5)
    lost = 0
    for seed in range(40):
        mines = np.zeros(81, dtype=bool)
        mines[np.random.default_rng(seed).permutation(81)[:10]] = True
        g = Game(Board(mines.reshape(9, 9)))
        before = None
        while not g.over:
            v = g.view()
            hidden = np.flatnonzero(v.cells.reshape(-1) == -1)
            i = int(rng.choice(list(hidden)))
            before = v
            g.open(i % 9, i // 9)
        if g.status != "lost" or len(g.log) < 2:
            continue
        last = judge(g).clicks[-1]
        a = g.log[-1]
        c = judged_click(AnalysisPosition(before.cells, before.mine_count), a.kind, a.x, a.y)
        assert Fraction(c["risk_exact"]) == last.risk and c["forced"] == last.forced
        assert c["fifty_fifty"] == last.fifty_fifty and c["safe_elsewhere"] == last.safe_elsewhere
        assert c["best"] == last.best
        lost += 1
    assert lost >= 5
