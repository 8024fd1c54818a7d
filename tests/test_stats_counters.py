"""The counters of a game (effective and wasted clicks, IOE, correctness, throughput, RQP), from
`sweeplab.stats`, against ms-toollib's reading of the same game written as EVF."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sweeplab import Board, Game
from sweeplab.replays import read_replay
from sweeplab.replays.evf import game_to_evf
from sweeplab.stats import game_stats, rqp

from .test_replays import StepClock, boards, play_random


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(board=boards(), seed=st.integers(0, 10 ** 6), steps=st.integers(0, 60))
def test_click_counters_equal_ms_toollibs(board, seed, steps):
    game = play_random(board, random.Random(seed), steps)
    ours = game_stats(game)
    t = read_replay(game_to_evf(game, player="tester", finished_at=1_700_000_000.0), name="game.evf").toollib
    assert ours.clicks == t["cl"] and ours.effective_clicks == t["ce"], (ours, t["cl"], t["ce"])
    assert ours.wasted_clicks == t["cl"] - t["ce"]
    assert ours.correctness == pytest.approx(t["ce"] / t["cl"]) if t["cl"] else ours.correctness == 0.0
    if ours.bbbv_solved:  # (ms-toollib's RQP is infinite with nothing solved; sweeplab's 0.0)
        assert ours.rqp == pytest.approx(t["rqp"], rel=1e-3)  # ms-toollib's time is the file's milliseconds
        assert ours.throughput == pytest.approx(ours.bbbv_solved / t["ce"])
    if game.status == "won":  # (a lost game's 3BV solved can differ: see Replay.check)
        assert ours.ioe == pytest.approx(t["ioe"], abs=1e-9)
        assert ours.rqp == pytest.approx(t["rqp"], rel=1e-3)  # ms-toollib's time is the file's milliseconds


def test_a_right_click_counts_once_and_only_on_a_mine():
    board = Board("*..\n...\n..*")
    clock = StepClock()
    game = Game(board, marks=False, clock=clock)
    game.open(2, 0)                      # opens one number: effective
    game.flag(1, 1)                      # a flag on a safe cell: wasted
    game.flag(1, 1)                      # taken off: wasted
    game.flag(0, 0)                      # a mine flagged: effective
    game.flag(0, 0)                      # taken off: wasted
    game.flag(0, 0)                      # the same mine again: wasted (it was flagged before)
    game.open(2, 0)                      # an open cell: wasted
    st_ = game_stats(game)
    assert (st_.clicks, st_.effective_clicks, st_.wasted_clicks) == (7, 2, 5)
    assert st_.correctness == pytest.approx(2 / 7) and st_.throughput == pytest.approx(st_.bbbv_solved / 2)


def test_rqp_is_time_squared_over_3bv():
    assert rqp(10.0, 25) == pytest.approx(4.0) and rqp(3.0, 0) == 0.0
    assert rqp(98.763, 134) == pytest.approx(72.792, abs=5e-4)  # r10.rmv in docs/replays.md, as ms-toollib gives it
