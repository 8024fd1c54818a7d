"""benchmarks/fit_ladder_cells.py: the per-cell table of a LADDER_ALONE level is fitted by a rule
that moves cells alike together, towards the chains' mine rates; its chains and ladder boards are
what they say."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sweeplab import grid
from sweeplab.cli.uniformity import Sample
from sweeplab.generators.noguess import CELL_UNIT

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "fit_ladder_cells.py"
sys.path.insert(0, str(SCRIPT.parent))
from fit_ladder_cells import alike  # noqa: E402


def run(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], check=True, capture_output=True,
                          text=True).stdout


@pytest.mark.slow
def test_cells_alike_share_their_steps_to_the_sides_and_the_click():
    group = alike(30, 16, 15, 8)
    col, row = np.arange(480) % 30, np.arange(480) // 30
    for i in range(480):
        for j in range(480):
            same = (min(col[i], 29 - col[i], 5) == min(col[j], 29 - col[j], 5)
                    and min(row[i], 15 - row[i], 5) == min(row[j], 15 - row[j], 5)
                    and min(abs(col[i] - 15), 7) == min(abs(col[j] - 15), 7)
                    and min(abs(row[i] - 8), 6) == min(abs(row[j] - 8), 6))
            assert (group[i] == group[j]) == same, (i, j)


@pytest.mark.slow
def test_a_step_moves_a_group_towards_the_chains_rate(tmp_path):
    """Chains richer in mines than the ladder on one group of cells: the step raises that group's
    scales, all by the same share, and leaves the rest (and the click's block) at their scale."""
    w, h, boards, samples = 30, 16, 1000, 1000
    free = ~grid.block_mask(w, h, 15, 8)
    rate = np.where(free, 130 / free.sum(), 0.0)
    lad = np.rint(rate * boards).astype(np.int64)
    group = alike(w, h, 15, 8)
    corner_group = group == group[0]  # the four corners
    chain = np.rint(rate * samples).astype(np.int64)
    chain[corner_group] += 50  # 0.05 more mines on each corner
    np.savez(tmp_path / "chain.npz", counts=chain, samples=samples, command="test")
    zeros = np.zeros(boards, dtype=np.int64)
    Sample(w, h, lad, zeros, zeros, zeros.astype(bool), "test", edge=zeros, corner=zeros, touching=zeros).save(
        tmp_path / "ladder.npz", "test")
    out = run("step", "--chain", tmp_path / "chain.npz", "--ladder", tmp_path / "ladder.npz", "--table", "-",
              "--eta", "0.5", "--out", tmp_path / "t.npy")
    table = np.load(tmp_path / "t.npy")
    laid = max(lad[0] / boards - int(0.2 * w * h) / free.sum(), 0.02)  # the share the ladder's adds lay
    assert corner_group.sum() == 4 and "moved rms" in out
    assert (table[corner_group] == round(CELL_UNIT * (1 + 0.5 * 0.05 / laid))).all()
    assert (table[~corner_group] == CELL_UNIT).all()


@pytest.mark.slow
def test_the_chains_and_the_ladders_boards_are_certified_draws(tmp_path):
    """The chain subcommand counts 200 samples of 130 mines per chain; the ladder's boards each hold 130
    mines, off the click's block."""
    run("chain", "--chains", 1, "--seed", 3, "--out", tmp_path / "c.npz")
    c = np.load(tmp_path / "c.npz")
    assert c["counts"].sum() == 130 * int(c["samples"]) and int(c["samples"]) == 200
    assert not c["counts"][grid.block_mask(30, 16, 15, 8)].any()
    run("ladder", "--boards", 5, "--seed", 3, "--out", tmp_path / "l.npz")
    s = Sample.load(tmp_path / "l.npz")
    assert s.boards == 5 and s.counts.sum() == 5 * 130 and not s.counts[grid.block_mask(30, 16, 15, 8)].any()
    assert 0 < s.per_board("bbbv").min()


def test_the_shipped_table_is_a_fit_not_a_rewrite():
    """30x16/130's table scales every cell off the click's block by a little (the fit moved no cell by
    more than a fifth) and leaves the block, where no mine goes, at one."""
    from sweeplab.generators.noguess import cell_scales
    table = cell_scales(30, 16, 130, 15, 8)
    block = grid.block_mask(30, 16, 15, 8)
    assert table.shape == (480,) and (table[block] == CELL_UNIT).all()
    assert 0.8 * CELL_UNIT < table.min() and table.max() < 1.2 * CELL_UNIT and len(set(table[~block])) > 50
