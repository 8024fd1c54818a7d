"""benchmarks/bench_noguess_uniform.py: its samples drawn chunk by chunk on the lab's fan-out (a real
Dask LocalCluster here), the same chunks however they are run, read back by a rerun."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_the_samples_draw_on_a_local_cluster_as_in_one_process_and_a_rerun_reads_them_back(tmp_path):
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_noguess_uniform.py"), "--points", "0", "--boards",
               "20", "--batch-boards", "0"]
    on_dask = subprocess.run(command + ["--dir", str(tmp_path / "dask"), "--cluster", "local", "--workers", "1"],
                             capture_output=True, text=True, timeout=900)
    assert on_dask.returncode == 0, on_dask.stderr[-2000:]
    assert "3 chunks drawn, 0 read back" in on_dask.stdout  # two references and the default sample
    here = subprocess.run(command + ["--dir", str(tmp_path / "here")], capture_output=True, text=True, timeout=900)
    assert here.returncode == 0, here.stderr[-2000:]
    names = sorted(p.name for p in (tmp_path / "dask").iterdir())
    assert len(names) == 3 and names == sorted(p.name for p in (tmp_path / "here").iterdir())
    for name in names:
        a, b = np.load(tmp_path / "dask" / name), np.load(tmp_path / "here" / name)
        assert a["bbbv"].size == 20 and all((a[k] == b[k]).all() for k in ("counts", "bbbv", "openings", "edge"))
    table = [line for line in on_dask.stdout.splitlines() if "against" in line]
    again = subprocess.run(command + ["--dir", str(tmp_path / "dask"), "--cluster", "local", "--workers", "1"],
                           capture_output=True, text=True, timeout=900)
    assert again.returncode == 0 and "0 chunks drawn, 3 read back" in again.stdout
    assert [line for line in again.stdout.splitlines() if "against" in line] == table
