"""benchmarks/bench_optimal.py's every-layout count: each layout the first-click rule allows is played
once, so perfect play wins exactly optimum x layouts of them on average."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_optimal import every_layout, layouts  # noqa: E402

from sweeplab.board import Board  # noqa: E402
from sweeplab.generators import kept_free  # noqa: E402
from sweeplab.solver.optimal import OptimalPlay  # noqa: E402


def _allowed(board: Board, rule: str, x: int, y: int) -> bool:
    """The rule's own words, from the board: safe keeps the click free, opening its 3x3 too."""
    if rule == "safe":
        return not board.mines[y, x]
    return not board.mines[max(0, y - 1):y + 2, max(0, x - 1):x + 2].any()


@pytest.mark.parametrize("w,h,m,rule,at", [(3, 3, 2, "safe", (0, 0)), (4, 3, 3, "safe", (1, 1)),
                                           (4, 4, 4, "opening", (0, 0)), (4, 4, 3, "opening", (1, 2))])
def test_every_layout_is_each_allowed_layout_once(w, h, m, rule, at):
    got = [tuple(ms) for ms in layouts(w, h, m, kept_free(rule, w, h, m, *at))]
    assert len(got) == len(set(got))
    brute = [ms for ms in itertools.combinations(range(w * h), m)
             if _allowed(Board.from_indices(w, h, list(ms)), rule, *at)]
    assert sorted(got) == brute
    # the optimum is a count of these layouts: wins / layouts, so optimum x layouts is whole
    optimum = OptimalPlay(w, h, m).first_click(*at, kept_free(rule, w, h, m, *at)).probability
    assert (optimum * len(got)).denominator == 1


def test_a_board_perfect_play_always_wins_is_won_on_every_layout():
    # one mine on 3x3 with the corner safe: the corner's number and the cells it frees find it (optimum 1/1)
    assert OptimalPlay(3, 3, 1).first_click(0, 0, kept_free("safe", 3, 3, 1, 0, 0)).probability == 1
    corner = kept_free("safe", 3, 3, 1, 0, 0)
    assert every_layout("strong", 3, 3, 1, corner, (0, 0), seed=1) == (8, 8)
    # the random player does not: it opens mines on some layouts
    won, total = every_layout("random", 3, 3, 1, corner, (0, 0), seed=1)
    assert total == 8 and won < 8


@pytest.mark.slow
@pytest.mark.parametrize("w,h,m,rule,at", [(3, 3, 2, "safe", (0, 0)), (3, 3, 3, "safe", (1, 1)),
                                           (4, 3, 3, "safe", (0, 0)), (4, 4, 4, "opening", (0, 0))])
def test_one_seed_is_one_strategy_no_better_than_perfect_play(w, h, m, rule, at):
    """With one player seed a player is a fixed strategy, so over every layout it wins at most what perfect
    play wins there (the optimum of the separate search, solver.optimal, times the layouts), whatever its seed;
    `strong`, whose exhaustive end game covers these small boards, wins exactly that."""
    optimum = OptimalPlay(w, h, m).first_click(*at, kept_free(rule, w, h, m, *at)).probability
    for player in ("random", "rules", "safest", "strong"):
        for seed in (1, 2, 3):
            won, total = every_layout(player, w, h, m, kept_free(rule, w, h, m, *at), at, seed)
            assert won <= optimum * total, (player, seed)
            if player == "strong":
                assert won == optimum * total, seed
