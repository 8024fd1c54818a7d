"""research/bench_hill.py without the Java solver: its `strong` side plays the counted games it is
asked for (as game i of `sweeplab bench`, so its win count is the bench's), and a folder that is
not a checkout of the Java solver is refused with what is missing."""

import pytest
from bench_hill import build, strong_round

from sweeplab.lab.runner import BenchSpec, play_games


def test_strong_round_plays_the_games_of_the_bench():
    played, won, cpu = strong_round("opening", (3, 3), 4, seed=7, core=0)
    assert played == 4
    assert won == play_games(BenchSpec("strong", 30, 16, 99, "opening", (3, 3), 7), 0, 4).wins
    assert cpu > 0


def test_build_refuses_a_folder_that_is_not_the_java_solver(tmp_path):
    (tmp_path / "Asynchronous").mkdir()
    with pytest.raises(SystemExit, match="MinesweeperGameState, MineSweeperSolver"):
        build(tmp_path, tmp_path)
