"""benchmarks/bench_noguess_mixing.py: a point's records do not depend on how its chains are cut into
tasks, the fitted rule meets every need by its margin, and the study runs on a real Dask
LocalCluster and resumes from the records it left."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_noguess_mixing as M  # noqa: E402


def test_a_points_records_are_the_same_however_its_chains_are_batched():
    point = (9, 9, 20, "corner")
    whole = M.run_batch(point, 2, 0, 3, 7)
    parts = [M.run_batch(point, 2, first, first + 1, 7) for first in range(3)]
    joined = M.join_batches(parts)
    assert np.array_equal(whole["burn"], joined["burn"]) and np.array_equal(whole["long"], joined["long"])
    n_long = whole["long"].shape[0] * whole["long"].shape[1] * int(whole["every"])
    assert joined["acc"] == pytest.approx(whole["kept"] / n_long)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(20, 700), st.floats(0.05, 0.6), st.floats(1.0, 1e6)), min_size=2, max_size=12))
def test_the_fit_gives_every_point_its_margin_and_one_point_exactly_that(points):
    results = [{"free": free, "mines": max(1, int(share * free)), "need": need} for free, share, need in points]
    for p, burn, margins, cost in M.fit_rule(results):
        assert min(margins) == pytest.approx(M.MARGIN)
        for r, m in zip(results, margins):
            assert m == pytest.approx(burn * M.shape(r, p) / r["need"])
        assert cost == int(sum(burn * M.shape(r, p) for r in results))
    p, burn, margins, _ = M.best(results, M.fit_rule(results))
    assert all(M.light_margin(results, margins) <= M.light_margin(results, f[2]) + 1e-9 for f in M.fit_rule(results))


@pytest.mark.slow
def test_the_study_runs_on_a_local_cluster_and_resumes(tmp_path):
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_noguess_mixing.py"), "--dir", str(tmp_path),
               "--grid", "quick", "--chains", "2", "--batch", "1", "--check-chains", "1", "--cluster", "local",
               "--workers", "1"]
    first = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert first.returncode == 0, first.stderr[-2000:]
    assert "ran 12 tasks" in first.stdout  # 4 points: 2 batches of chains and a check each
    rows = [line for line in first.stdout.splitlines() if line.lstrip().startswith(("9x9/", "16x16/", "30x"))]
    assert len(rows) == 4 and len(list(tmp_path.glob("*_u*.npz"))) == 8  # each point's records and its check
    again = subprocess.run(command, capture_output=True, text=True, timeout=900)
    assert again.returncode == 0 and "ran 0 tasks" in again.stdout
    strip = [line.rsplit(None, 1)[0] for line in rows]  # (the last column is CPU time)
    assert [line.rsplit(None, 1)[0] for line in again.stdout.splitlines()
            if line.lstrip().startswith(("9x9/", "16x16/", "30x"))] == strip
