"""The exact optimum of perfect play (solver/optimal.py), checked against a second search written
plainly here (explicit sets of layouts, Fractions, its own numbers and cascade, no pruning), against
facts worked out by hand, and against the symmetries of the board."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from functools import cache
from itertools import combinations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sweeplab import View
from sweeplab.errors import InconsistentPositionError, InvalidBoardError, SearchTooLargeError, SweeplabError
from sweeplab.generators import kept_free, make_rule
from sweeplab.solver.optimal import OptimalPlay

from .test_cli import run


# --- the oracle: perfect play by brute force, sharing nothing with the search under test ----------
def neighbours(w, h, c):
    x, y = c % w, c // w
    return [(y + dy) * w + x + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if (dx or dy) and 0 <= x + dx < w and 0 <= y + dy < h]


def brute_search(w, h, m):
    """open_value(layouts, opened, c): the win probability of perfect play after opening c next, for
    equally likely layouts (each the set of its mine cells, as the bits of an int)."""
    around = [sum(1 << n for n in neighbours(w, h, c)) for c in range(w * h)]

    def number(layout, c):
        return bin(layout & around[c]).count("1")

    def reveal(layout, opened, c):
        seen, todo = {c: number(layout, c)}, [c]
        while todo:  # a 0 opens its neighbours, and so on
            i = todo.pop()
            if seen[i] == 0:
                for j in neighbours(w, h, i):
                    if j not in seen and j not in opened:
                        seen[j] = number(layout, j)
                        todo.append(j)
        return frozenset(seen.items())

    def open_value(layouts, opened, c):
        parts = {}
        for layout in layouts:
            if not layout >> c & 1:
                parts.setdefault(reveal(layout, opened, c), set()).add(layout)
        return sum((Fraction(len(p), len(layouts)) * value(frozenset(p), opened | {i for i, _ in r})
                    for r, p in parts.items()), Fraction(0))

    @cache
    def value(layouts, opened):
        if w * h - len(opened) == m:
            return Fraction(1)
        return max(open_value(layouts, opened, c) for c in range(w * h) if c not in opened)

    return open_value, number, reveal


def brute_optimum(w, h, m, rule, at) -> Fraction:
    """The win probability of perfect play after the first click `at`."""
    click = at[1] * w + at[0]
    free = {"none": set(), "safe": {click}, "opening": {click, *neighbours(w, h, click)}}[rule]
    layouts = frozenset(sum(1 << c for c in cs) for cs in combinations([c for c in range(w * h) if c not in free], m))
    return brute_search(w, h, m)[0](layouts, frozenset(), click)


def fast(w, h, m, rule, at, **caps):
    return OptimalPlay(w, h, m, **caps).first_click(*at, kept_free(rule, w, h, m, *at))


# --- agreement with the oracle ------------------------------------------------------------------
CASES = ([(3, 3, m, "safe", at) for m in range(0, 9) for at in ((0, 0), (1, 1), (1, 0))]
         + [(3, 3, m, "none", (0, 0)) for m in (1, 3, 5)]
         + [(4, 3, m, "safe", at) for m in (1, 2, 6, 8) for at in ((0, 0), (1, 1))]
         + [(4, 3, m, "opening", (0, 0)) for m in (1, 2, 3)]
         + [(3, 4, 2, "opening", (1, 1)), (4, 3, 3, "safe", (0, 0)), (4, 3, 4, "safe", (1, 1)),
            (4, 3, 2, "none", (1, 0))])


@pytest.mark.slow
@pytest.mark.parametrize("w, h, m, rule, at", CASES, ids=lambda v: str(v))
def test_the_search_agrees_with_brute_force(w, h, m, rule, at):
    r = fast(w, h, m, rule, at)
    assert r.layouts == comb(w * h - int(kept_free(rule, w, h, m, *at).sum()), m)
    assert r.probability == brute_optimum(w, h, m, rule, at)


@st.composite
def small_games(draw):
    w = draw(st.integers(1, 4))
    h = draw(st.integers(1, max(1, min(4, 9 // w))))
    rule = draw(st.sampled_from(["none", "safe", "opening"]))
    at = (draw(st.integers(0, w - 1)), draw(st.integers(0, h - 1)))
    room = w * h - {"none": 0, "safe": 1, "opening": min(9, w * h)}[rule]
    return w, h, draw(st.integers(0, max(0, room))), rule, at


@settings(max_examples=40)
@given(small_games())
def test_the_search_agrees_with_brute_force_on_any_small_game(game):
    w, h, m, rule, at = game
    assert fast(w, h, m, rule, at).probability == brute_optimum(w, h, m, rule, at)


# --- facts worked out by hand ------------------------------------------------------------------
def test_a_2x2_board_is_a_pure_guess():
    # Every cell of a 2x2 touches the other three, so no number tells them apart: with 1 mine left
    # among 3 cells, the two safe ones are found with chance 2/3 * 1/2; with 2 mines, 1/3.
    assert fast(2, 2, 1, "safe", (0, 0)).probability == Fraction(1, 3)
    assert fast(2, 2, 2, "safe", (1, 1)).probability == Fraction(1, 3)
    assert fast(2, 2, 3, "safe", (0, 1)).probability == 1  # the click opens the only safe cell


def test_one_mine_in_a_row_is_always_found_from_its_end():
    # From the end of a 1xN row, zeros cascade up to the cell beside the mine, which shows 1.
    for n in range(2, 8):
        assert fast(n, 1, 1, "safe", (0, 0)).probability == 1
    # From the middle of a 1x3 row the 1 shown cannot say which side: a coin toss.
    assert fast(3, 1, 1, "safe", (1, 0)).probability == Fraction(1, 2)
    assert fast(2, 1, 1, "safe", (1, 0)).probability == 1


def test_a_3x3_torus_is_a_pure_guess():
    # On a 3x3 torus every cell touches the other eight, so every number is the mine count: the
    # 8 - m safe cells must be picked blind, which one order in C(8, m) does.
    for m in range(0, 9):
        free = kept_free("safe", 3, 3, m, 1, 2, "torus")
        r = OptimalPlay(3, 3, m, "torus").first_click(1, 2, free)
        assert r.probability == Fraction(1, comb(8, m))


def test_no_mines_or_no_room_is_won_at_once():
    assert fast(4, 3, 0, "safe", (2, 1)).probability == 1
    assert fast(4, 3, 11, "safe", (2, 1)).probability == 1
    assert fast(4, 4, 7, "opening", (1, 1)).probability == 1


@settings(max_examples=25)
@given(small_games())
def test_a_first_click_that_can_lose_wins_the_same_layouts(game):
    # Under `none` the clicked cell is safe in C(n-1, m) of the C(n, m) layouts, and those are exactly
    # the layouts `safe` plays, so the wins are the same and only the denominators differ.
    w, h, m, _, at = game
    if m > w * h - 1:
        return
    none, safe = fast(w, h, m, "none", at), fast(w, h, m, "safe", at)
    assert none.wins == safe.wins
    assert none.probability == safe.probability * Fraction(comb(w * h - 1, m), comb(w * h, m))


@st.composite
def small_positions(draw):
    """A small board, a layout on it, and what a few safe clicks opened: (w, h, m, open cell -> number)."""
    w, h = draw(st.integers(2, 4)), draw(st.integers(1, 3))
    m = draw(st.integers(1, max(1, w * h - 2)))
    layout = sum(1 << c for c in draw(st.sets(st.integers(0, w * h - 1), min_size=m, max_size=m)))
    _, number, reveal = brute_search(w, h, m)
    seen = {}
    for c in draw(st.lists(st.integers(0, w * h - 1), min_size=1, max_size=3)):
        if not layout >> c & 1 and c not in seen:
            seen.update(reveal(layout, set(seen), c))
    return w, h, m, seen


@settings(max_examples=30)
@given(small_positions())
def test_the_value_of_each_move_in_a_position_agrees_with_brute_force(position):
    w, h, m, seen = position
    if not seen or w * h - len(seen) == m:
        return
    cells = np.full((h, w), -1, dtype=np.int8)
    for c, k in seen.items():
        cells[c // w, c % w] = k
    got = OptimalPlay(w, h, m).moves(View(cells, m))
    open_value, number, _ = brute_search(w, h, m)
    layouts = frozenset(sum(1 << c for c in cs) for cs in combinations([c for c in range(w * h) if c not in seen], m)
                        if all(number(sum(1 << c for c in cs), c) == k for c, k in seen.items()))
    want = {(c % w, c // w): open_value(layouts, frozenset(seen), c) for c in range(w * h)
            if c not in seen and any(not layout >> c & 1 for layout in layouts)}
    assert got == want


def test_a_position_no_layout_fits_is_refused():
    with pytest.raises(InconsistentPositionError):
        OptimalPlay(3, 1, 1).moves(View.from_text("mines: 1\n2##\n"))


# --- symmetry, and one memo for every first click ------------------------------------------------
def images(w, h, x, y):
    out = {(x, y), (w - 1 - x, y), (x, h - 1 - y), (w - 1 - x, h - 1 - y)}
    if w == h:
        out |= {(b, a) for a, b in out}
    return out


@pytest.mark.slow
@pytest.mark.parametrize("w, h, m, rule", [(4, 4, 3, "safe"), (4, 3, 3, "safe"), (5, 3, 3, "opening")])
def test_the_result_is_the_same_at_every_image_of_the_click(w, h, m, rule):
    for x in range(w):
        for y in range(h):
            # a fresh search for each image: nothing learned at one click is reused at another
            got = {fast(w, h, m, rule, c).probability for c in images(w, h, x, y)}
            assert len(got) == 1, (x, y, got)


@pytest.mark.slow
def test_every_first_click_matches_each_click_searched_alone():
    search = OptimalPlay(5, 3, 4)
    every = search.every_first_click(lambda x, y: kept_free("safe", 5, 3, 4, x, y))
    assert set(every) == {(x, y) for x in range(5) for y in range(3)}
    for (x, y), r in every.items():
        assert r.at == (x, y)
        assert r.probability == fast(5, 3, 4, "safe", (x, y)).probability


# --- the rules the search models are uniform -----------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("w, h, mines, rule, at", [(3, 3, 2, "safe", (0, 0)), (4, 4, 2, "opening", (0, 0)),
                                                   (3, 3, 2, "none", (1, 1))])
def test_the_rules_lay_every_allowed_layout_equally_often(w, h, mines, rule, at):
    free = kept_free(rule, w, h, mines, *at)
    allowed = [frozenset(c) for c in combinations(np.flatnonzero(~free).tolist(), mines)]
    draws = 200 * len(allowed)
    seen = Counter()
    for seed in range(draws):
        board, _ = make_rule(rule, w, h, mines, seed).board_for(*at)
        seen[frozenset(np.flatnonzero(board.mines.reshape(-1)).tolist())] += 1
    assert set(seen) == set(allowed)
    chi2 = sum((seen[a] - 200) ** 2 / 200 for a in allowed)
    assert chi2 < len(allowed) + 6 * (2 * len(allowed)) ** 0.5  # about six standard deviations


# --- caps and errors -----------------------------------------------------------------------------
def test_caps_stop_the_search_with_a_clear_error():
    with pytest.raises(SearchTooLargeError, match="cap of 50 states"):
        fast(4, 4, 5, "safe", (0, 0), max_states=50)
    with pytest.raises(SearchTooLargeError, match="at most 1,000"):
        fast(4, 4, 5, "safe", (0, 0), max_layouts=1000)
    with pytest.raises(SearchTooLargeError, match="at most 64 cells"):
        OptimalPlay(9, 9, 10)
    with pytest.raises(InvalidBoardError, match="allowed: none, safe, opening"):
        kept_free("shift", 4, 4, 3, 0, 0)
    with pytest.raises(SweeplabError, match="off the 4x4 board"):
        OptimalPlay(4, 4, 3).first_click(4, 0, np.zeros(16, dtype=bool))


@pytest.mark.slow
def test_the_command_prints_the_fraction_and_the_best_first_click(capsys):
    code, out, err = run(capsys, "optimal", "--width", "4", "--height", "3", "--mines", "3", "--at", "0,0")
    assert code == 0, err
    p = brute_optimum(4, 3, 3, "safe", (0, 0))
    assert f"{p.numerator}/{p.denominator} = {float(p):.6f}" in out
    code, out, err = run(capsys, "optimal", "--width", "4", "--height", "3", "--mines", "2", "--first-click",
                         "opening", "--json")
    assert code == 0, err
    res = json.loads(out)
    cells = {tuple(c["at"]): Fraction(c["probability"]) for c in res["cells"]}
    assert len(cells) == 12 and Fraction(res["probability"]) == max(cells.values()) == cells[tuple(res["at"])]
    assert cells[0, 0] == brute_optimum(4, 3, 2, "opening", (0, 0))
    assert res["layouts"] == comb(12 - len(neighbours(4, 3, res["at"][1] * 4 + res["at"][0])) - 1, 2)


@pytest.mark.parametrize("args, needle", [
    (["--width", "4", "--height", "4", "--mines", "3", "--first-click", "shift"], "not one of 'none', 'safe', 'opening'"),
    (["--width", "4", "--height", "4", "--mines", "3", "--first-click", "nope"], "not one of 'none', 'safe', 'opening'"),
    (["--width", "9", "--height", "9", "--mines", "10"], "at most 64 cells"),
    (["--width", "8", "--height", "8", "--mines", "10"], "layouts for this first click"),
    (["--width", "4", "--height", "4", "--mines", "3", "--at", "4,0"], "off the 4x4 board"),
    (["--width", "4", "--height", "4", "--mines", "8", "--first-click", "opening"], "do not fit"),
    (["--width", "5", "--height", "5", "--mines", "4", "--max-states", "100"], "cap of 100 states"),
    (["--width", "4", "--height", "4", "--mines", "3", "--max-states", "0"], "--max-states"),
    (["--width", "4", "--height", "4"], "needs --width, --height and --mines"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, args, needle):
    code, out, err = run(capsys, "optimal", *args)
    assert code == 2, (code, out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert needle in err, err
