"""benchmarks/bench_noguess_uniform.py --others: other generators' boards set beside the exact
rejection references; ms-toollib's boards as a game would keep them, and the table's rows."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sweeplab import grid
from sweeplab.lab.uniformity import Sample

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_noguess_uniform as U  # noqa: E402


def test_ms_toollibs_boards_are_those_it_says_it_made_solvable_laid_round_the_click():
    from sweeplab.board import Board
    from sweeplab.generators.certify import NO_BUDGET, certify

    w, h, m, x, y = 16, 16, 60, 3, 12
    layouts = U.adjust_layouts(w, h, m, x, y, 20)
    block = grid.block_mask(w, h, x, y)
    assert len(layouts) == 20
    for flat in layouts:
        assert flat.shape == (w * h,) and flat.sum() == m and not flat[block].any()
        assert certify(Board._from_flat(w, h, flat.copy(), "bounded"), x, y, budget=NO_BUDGET)[0]


@pytest.mark.slow
def test_the_table_sets_each_generator_beside_the_kept_reference():
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_noguess_uniform.py"), "--others", "4"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-2000:]
    blocks = out.stdout.split("\n30x16/")[1:]
    assert [b.split()[0] for b in blocks] == ["99", "130"]
    for (*_, path), block in zip(U.OTHERS, blocks):
        whole = block.split("the boards that need no mine total")[0]
        rows = {line[:24].strip(): line[24:].split() for line in whole.splitlines() if line.startswith("  ")}
        ref = Sample.load(ROOT / path)
        assert rows["reference"][0] == str(ref.boards)
        assert float(rows["reference"][3]) == pytest.approx(ref.bbbv.mean(), abs=5e-4)
        for name in ("sweeplab default", "ms-toollib adjust"):
            assert rows[name][:2] == ["4", "0"], block  # four boards, none the certifier fails
        assert "Tatham's minegen" not in rows  # (no source folder given)
        assert np.isfinite(float(rows["sweeplab default"][3]))  # its chi-square per dof
