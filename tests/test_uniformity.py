"""`sweeplab uniformity` and its library: per-board figures and comparisons against plain recomputations,
the list of certified boards against brute force, the exact chi-square, the CLI's JSON, and references
drawn in pieces on the lab runner."""

from __future__ import annotations

import json
import math
import statistics

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from sweeplab import grid
from sweeplab.lab.uniformity import (
    FIGURES,
    Sample,
    certified_boards,
    chi2_per_dof,
    compare,
    draw_sample,
    exact_chi_square,
    layout_figures,
    rim,
)


def plain_figures(mines: np.ndarray, width: int, height: int) -> tuple[int, int, int]:
    """Edge mines, corner mines, and mine neighbours summed over mines, by walking coordinates."""
    edge = corner = touching = 0
    for y in range(height):
        for x in range(width):
            if not mines[y * width + x]:
                continue
            on_x, on_y = x in (0, width - 1), y in (0, height - 1)
            edge += on_x or on_y
            corner += on_x and on_y
            touching += sum(bool(mines[(y + dy) * width + x + dx]) for dy in (-1, 0, 1) for dx in (-1, 0, 1)
                            if (dx or dy) and 0 <= x + dx < width and 0 <= y + dy < height)
    return edge, corner, touching


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(width=st.integers(1, 9), height=st.integers(1, 7), seed=st.integers(0, 2**32), density=st.floats(0, 1))
def test_layout_figures_match_a_plain_count(width, height, seed, density):
    mines = np.random.default_rng(seed).random(width * height) < density
    edge, corner = rim(width, height)
    assert layout_figures(mines, grid.neighbour_table(width, height), edge, corner) == \
        plain_figures(mines, width, height)


def _sample(rng, width, height, boards, mines) -> Sample:
    """A sample of uniform layouts (not no-guess: the arithmetic does not care) with made-up 3BV."""
    nbr = grid.neighbour_table(width, height)
    edge, corner = rim(width, height)
    layouts = np.zeros((boards, width * height), dtype=bool)
    for b in range(boards):
        layouts[b, rng.choice(width * height, mines, replace=False)] = True
    figs = np.array([layout_figures(m, nbr, edge, corner) for m in layouts])
    return Sample(width, height, layouts.sum(axis=0), rng.integers(20, 60, boards), rng.integers(0, 9, boards),
                  rng.random(boards) < 0.4, "test", edge=figs[:, 0], corner=figs[:, 1], touching=figs[:, 2]), layouts


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), ka=st.integers(2, 30), kb=st.integers(2, 30), mines=st.integers(1, 20))
def test_compare_matches_a_plain_computation(seed, ka, kb, mines):
    rng = np.random.default_rng(seed)
    w, h = 6, 4
    a, la = _sample(rng, w, h, ka, mines)
    b, lb = _sample(rng, w, h, kb, mines)
    r = compare(a, b)

    def per_board(layouts, s, name):
        if name == "edge":
            return [plain_figures(m, w, h)[0] / mines for m in layouts]
        if name == "corner":
            return [plain_figures(m, w, h)[1] / 4 for m in layouts]
        if name == "touching":
            return [plain_figures(m, w, h)[2] / mines for m in layouts]
        return [float(v) for v in getattr(s, name)]

    for name in FIGURES:
        va, vb = per_board(la, a, name), per_board(lb, b, name)
        se = math.sqrt(statistics.variance(va) / ka + statistics.variance(vb) / kb)
        f = r["figures"][name]
        assert math.isclose(f["gen"], statistics.fmean(va), abs_tol=1e-12)
        assert math.isclose(f["ref"], statistics.fmean(vb), abs_tol=1e-12)
        if se > 0:
            assert math.isclose(f["diff_in_se"], (statistics.fmean(va) - statistics.fmean(vb)) / se, rel_tol=1e-9, abs_tol=1e-9)
    # the chi-square of the heat maps, cell by cell
    chi2, dof = 0.0, 0
    for c in range(w * h):
        pa, pb = la[:, c].mean(), lb[:, c].mean()
        pooled = (la[:, c].sum() + lb[:, c].sum()) / (ka + kb)
        var = pooled * (1 - pooled) * (1 / ka + 1 / kb)
        if var > 0:
            chi2 += (pa - pb) ** 2 / var
            dof += 1
    assert r["dof"] == dof and math.isclose(r["chi2_per_dof"], chi2 / max(dof, 1), rel_tol=1e-9)


def test_a_sample_keeps_its_figures_through_save_load_and_join(tmp_path):
    rng = np.random.default_rng(3)
    a, _ = _sample(rng, 5, 5, 7, 6)
    b, _ = _sample(rng, 5, 5, 4, 6)
    a.save(tmp_path / "a.npz", "cmd")
    back = Sample.load(tmp_path / "a.npz")
    joined = Sample.join([back, b])
    for name in FIGURES:
        assert list(getattr(back, name)) == list(getattr(a, name))
        assert list(getattr(joined, name)) == list(getattr(a, name)) + list(getattr(b, name))
    assert chi2_per_dof(back, a)[0] == 0


def test_cli_json_is_the_comparison_of_the_samples_it_drew(tmp_path):
    from sweeplab.cli import cli
    ref_path = tmp_path / "ref.npz"
    res = CliRunner().invoke(cli, ["uniformity", "--preset", "intermediate", "--boards", "12", "--seed", "4",
                                   "--reference-boards", "10", "--save-reference", str(ref_path), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    gen = draw_sample(16, 16, 40, 8, 8, 12, 4)
    ref = draw_sample(16, 16, 40, 8, 8, 10, 4 + 1_000_003, method="rejection", tries=1 << 40)
    want = compare(gen, ref)
    (got,) = out["against"]
    assert got["chi2_per_dof"] == want["chi2_per_dof"] and set(got["figures"]) == set(FIGURES)
    for name in FIGURES:
        assert got["figures"][name] == want["figures"][name]
    # two references: each compared, then the two joined
    res = CliRunner().invoke(cli, ["uniformity", "--preset", "intermediate", "--boards", "12", "--seed", "4",
                                   "--reference", str(ref_path), "--reference", str(ref_path)])
    assert res.exit_code == 0, res.output
    assert res.output.count("\nagainst ") == 3 and "against all references joined (rejection, 20 boards):" in res.output
    for line in ("edge share", "corner rate", "clumping", "mine total", "mean 3BV", "chi-square per dof"):
        assert line in res.output


def test_a_reference_drawn_in_chunks_on_the_lab_runner_is_the_one_drawn_at_once(tmp_path):
    import functools
    import glob
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tools"))
    from make_reference import draw_chunk

    from sweeplab.lab.runner import fan_out
    from sweeplab.lab.uniformity import REFERENCE_OFFSET

    work = functools.partial(draw_chunk, 9, 9, 10, 7, str(tmp_path))
    done = dict(fan_out(work, [(0, 3), (3, 5), (5, 8)], workers=2))
    assert sorted(done) == [(0, 3), (3, 5), (5, 8)]
    joined = Sample.join([Sample.load(p) for p in sorted(glob.glob(str(tmp_path / "chunk_*.npz")))])
    whole = draw_sample(9, 9, 10, 4, 4, 8, 7 + REFERENCE_OFFSET, method="rejection", tries=1 << 40)
    assert (joined.counts == whole.counts).all()
    for name in FIGURES:
        assert list(getattr(joined, name)) == list(getattr(whole, name))


# A small level whose every layout is listed: 4x4 with 5 mines, clicked in a corner's block.
SMALL = (4, 4, 5, 0, 3)


def every_layout_and_brute_force_verdict(w, h, m, x, y) -> tuple[list[np.ndarray], list[bool]]:
    """Every flat layout of the level's free cells, and whether brute force finds each no-guess."""
    import itertools

    from sweeplab.board import Board
    from tests.test_noguess import brute_force_no_guess
    free = np.flatnonzero(~grid.block_mask(w, h, x, y))
    layouts = []
    for cells in itertools.combinations(free.tolist(), m):
        flat = np.zeros(w * h, dtype=bool)
        flat[list(cells)] = True
        layouts.append(flat)
    return layouts, [brute_force_no_guess(Board._from_flat(w, h, flat, "bounded"), x, y) for flat in layouts]


def test_the_list_of_certified_boards_is_every_layout_brute_force_certifies():
    layouts, verdicts = every_layout_and_brute_force_verdict(*SMALL)
    want = [flat for flat, ok in zip(layouts, verdicts) if ok]
    got = certified_boards(*SMALL)
    assert 0 < len(want) < len(layouts)
    assert sorted(map(bytes, got)) == sorted(map(bytes, np.array(want)))


def test_the_exact_chi_square_matches_a_plain_computation():
    counts = np.array([3, 7, 5, 5, 10])
    chi2 = sum((c - 6) ** 2 / 6 for c in counts)
    per_dof, dof, z = exact_chi_square(counts)
    assert dof == 4 and per_dof == pytest.approx(chi2 / 4)
    assert z == pytest.approx(((chi2 / 4) ** (1 / 3) - (1 - 2 / 36)) / math.sqrt(2 / 36))
    assert exact_chi_square(np.full(10, 8))[2] < -3  # exactly even counts: far below an exact sampler's spread


def test_a_sample_of_any_generators_layouts_says_which_certify_and_keeps_their_figures():
    from sweeplab.lab.uniformity import sample_of
    w, h, _, x, y = SMALL
    layouts, want = every_layout_and_brute_force_verdict(*SMALL)
    sample, certified = sample_of(w, h, x, y, iter(layouts), len(layouts), "every layout")
    assert 0 < sum(want) < len(want) and list(certified) == want
    assert not sample.needs_total[~certified].any() and sample.needs_total[certified].any()
    assert (sample.counts == np.sum(layouts, axis=0)).all() and sample.boards == len(layouts)
    assert [tuple(r) for r in zip(sample.edge, sample.corner, sample.touching)] == [
        plain_figures(flat, w, h) for flat in layouts]


def test_a_sample_given_more_or_fewer_layouts_than_its_boards_says_so():
    from sweeplab.errors import SweeplabError
    from sweeplab.lab.uniformity import sample_of
    flat = np.zeros(16, dtype=bool)
    flat[[0, 5]] = True
    for layouts, boards in ((2, 3), (3, 2)):
        with pytest.raises(SweeplabError, match=f"a sample of {boards} boards was given"):
            sample_of(4, 4, 3, 3, [flat] * layouts, boards, "short or long")
