"""The ceiling on perfect play (research/ceiling.py) against the exact optimum (solver/optimal.py): never
below it on any position, equal to it where the end game solves the position, and over a whole board
the average of first-guess ceilings is perfect play's win rate. research/bench_ceiling.py plays the
games `sweeplab bench` plays for the same seed."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from bench_ceiling import EXACT, NONE, needs, pass_chance, play
from ceiling import ceiling
from hypothesis import HealthCheck, assume, given, settings
from tests.test_players import small_views

from sweeplab import Board, Game
from sweeplab.generators import kept_free
from sweeplab.lab import BenchSpec, run
from sweeplab.solver import analyse
from sweeplab.solver.fifty import forced_pairs
from sweeplab.solver.optimal import OptimalPlay


@settings(max_examples=60, suppress_health_check=list(HealthCheck), deadline=None)
@given(small_views())
def test_the_ceiling_is_never_below_perfect_play_and_is_it_where_solved(view):
    a = analyse(view)
    assume(not a.safe.any() and a.layouts > 1)
    best = max(OptimalPlay(view.width, view.height, view.mine_count).moves(view).values())
    solved = ceiling(view, a)
    assert solved.exact and solved.value == pytest.approx(float(best), abs=1e-12)
    bound = ceiling(view, a, exact_layouts=0)  # no end game at all: the bound
    assert not bound.exact
    assert bound.value >= float(best) - 1e-12
    assert bound.value <= 1.0 - float(a.probability[view.hidden & ~a.mines].min()) + 1e-12  # <= best safety
    between = ceiling(view, a, exact_layouts=a.layouts - 1)  # the bound, with the end game after each number
    assert float(best) - 1e-12 <= between.value <= bound.value + 1e-12
    if forced_pairs(view, a.mines, view.hidden & ~a.mines):  # a 50/50 no reveal tells apart: a coin at best
        assert bound.value <= 0.5 + 1e-12


def first_guess_ceilings(board: Board, at, **kw) -> float:
    """Open `at`, then every cell complete deduction finds safe; perfect play's chance from there."""
    game = Game(board)
    game.open(*at)
    while not game.over:
        a = analyse(game.view())
        if not a.safe.any():
            return ceiling(game.view(), a, **kw).value
        for y, x in zip(*np.nonzero(a.safe)):
            if game.cell_state(int(x), int(y)) != "open":
                game.open(int(x), int(y))
    return 1.0


def test_first_guess_ceilings_average_to_perfect_play_over_a_whole_board():
    w, h, m, at = 4, 4, 5, (0, 0)
    free = kept_free("safe", w, h, m, *at)
    optimum = OptimalPlay(w, h, m).first_click(*at, free).probability
    cells = np.flatnonzero(~free)
    exact, bound, memo = [], [], {}  # (boards showing the same first number meet the same position)
    for mines in combinations(cells.tolist(), m):  # every layout the safe first click allows, once
        flat = np.zeros(w * h, dtype=bool)
        flat[list(mines)] = True
        board = Board(flat.reshape(h, w))
        exact.append(first_guess_ceilings(board, at, memo=memo))
        bound.append(first_guess_ceilings(board, at, exact_layouts=0, memo=memo))
    assert optimum == Fraction(1433, 3003)  # the docs' figure, from the search itself
    assert np.mean(exact) == pytest.approx(float(optimum), abs=1e-12)
    assert np.mean(bound) > float(optimum) + 0.01  # a real bound there, and above


def test_bench_ceiling_plays_the_games_sweeplab_bench_plays():
    got = play("beginner-safe-corner", 5, 0, 40, 20000, 2_000_000)
    counts = run(BenchSpec("strong", 9, 9, 10, "safe", (0, 0), 5), 40, workers=1)
    assert sum(got["won"]) == counts.wins
    kinds = np.array(got["kind"])
    assert (np.array(got["won"])[kinds == NONE]).all()  # no guess: won by deduction
    assert ((0 < np.array(got["value"])) & (np.array(got["value"]) <= 1)).all()
    assert (kinds == EXACT).any() and (kinds != EXACT).any()


def test_needs_is_the_least_rate_whose_wilson_interval_starts_at_the_target():
    from sweeplab.lab.intervals import wilson
    p = needs(0.972, 200_000)
    assert wilson(round(p * 200_000), 200_000)[0] >= 0.972 > wilson(round(p * 200_000) - 2, 200_000)[0]
    assert 0.9726 < p < 0.9728  # 0.972 + 1.96 x sqrt(0.972 x 0.028 / 200,000) = 0.97272


def test_pass_chance_is_the_normal_tail_of_a_run():
    se = (0.97 * 0.03 / 200_000) ** 0.5
    assert pass_chance(0.97, 0.97, 200_000) == pytest.approx(0.5)
    assert pass_chance(0.97, 0.97 + 1.959964 * se, 200_000) == pytest.approx(0.025, abs=1e-5)
    assert pass_chance(0.97, 0.97 - 1.959964 * se, 200_000) == pytest.approx(0.975, abs=1e-5)
