"""benchmarks/bench_noguess.py --verify: many boards checked by two independent solvers, batch by
batch on the lab's fan-out (a real Dask LocalCluster here), resuming from the batches it wrote; and
its check leaves a board that needs a guess unplayed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sweeplab.board import Board

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_noguess as N  # noqa: E402


def _row(stdout: str) -> list[str]:
    rows = [line.split() for line in stdout.splitlines() if line.lstrip().startswith("30x16/")]
    assert len(rows) == 1, stdout
    return rows[0][:6]  # level, click, boards, project, declined, ms-toollib (then CPU times)


@pytest.mark.slow
def test_the_verification_runs_on_a_local_cluster_and_resumes_from_its_batches(tmp_path):
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_noguess.py"), "--verify-mines", "60",
               "--verify-dir", str(tmp_path), "--cluster", "local", "--workers", "1"]
    first = subprocess.run(command + ["--verify", "120"], capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "ran 2 batches (0 read back" in first.stdout
    assert _row(first.stdout) == ["30x16/60", "15,8", "120", "0", "0", "0"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["verify_30x16_60_both_b00000_n100.json",
                                                          "verify_30x16_60_both_b00001_n20.json"]
    # 220 boards: batch 0 is read back, batch 1 now holds 100 boards (a batch of its own), batch 2 is new
    more = subprocess.run(command + ["--verify", "220"], capture_output=True, text=True, timeout=600)
    assert more.returncode == 0, more.stderr[-2000:]
    assert "ran 2 batches (1 read back" in more.stdout
    assert _row(more.stdout) == ["30x16/60", "15,8", "220", "0", "0", "0"]
    again = subprocess.run(command + ["--verify", "220"], capture_output=True, text=True, timeout=600)
    assert "ran 0 batches (3 read back" in again.stdout and _row(again.stdout) == _row(more.stdout)


def test_a_batch_checks_the_boards_a_batch_of_the_generator_makes():
    result = N.verify_batch(40, False, 3, 5)
    assert result["boards"] == 3 and result["bad"] == {"project": [], "ms-toollib": []}
    assert set(result["spent"]) == {"generation", "project", "ms-toollib"}


def test_the_check_leaves_a_board_that_needs_a_guess_unplayed():
    import ms_toollib as mst

    # one mine on the right edge, behind two 1s that both touch it and its neighbour: a fifty-fifty
    board = Board.from_text("...*\n....")

    def decide(shown, hidden):
        prob = np.array(mst.cal_probability_onboard(shown.reshape(2, 4).astype(int).tolist(), 1.0)[0]).reshape(-1)
        return (prob == 0) & hidden, (prob == 1) & hidden

    assert not N.play_out(board, 0, 0, decide)
    assert N.play_out(Board.from_text("...*\n...."), 3, 1, decide)  # (clicked beside the mine, no guess)
