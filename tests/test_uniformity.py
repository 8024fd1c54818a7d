"""`sweeplab uniformity`: its per-board figures and comparisons against plain recomputations,
its JSON, and references drawn in pieces on the lab runner."""

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
from sweeplab.cli.uniformity import FIGURES, Sample, chi2_per_dof, compare, draw_sample, layout_figures, rim
from sweeplab.generators.noguess import INNER_WEIGHT, LADDER_SHAPES, ladder_shape


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


def test_ladder_weights_follow_the_rings_from_the_edge():
    (d0, rings0, corner0, clump0, _, near0, _), (d1, rings1, corner1, clump1, _, near1, _), \
        (d2, rings2, corner2, clump2, _, near2, _) = LADDER_SHAPES
    for w, h, topology, mines, rings, corner, clump, near in (
            (30, 16, "bounded", 130, rings0, corner0, clump0, near0),
            (30, 16, "bounded", 170, rings1, corner1, clump1, near1),
            (30, 16, "bounded", 200, rings2, corner2, clump2, near2),
            (30, 16, "bounded", 300, rings2, corner2, clump2, near2),
            (30, 30, "bounded", 450, rings2, corner2, clump2, near2),
            (5, 1, "bounded", 1, rings0, corner0, clump0, near0), (7, 2, "bounded", 6, rings2, corner2, clump2, near2),
            (9, 8, "bounded", 10, rings0, corner0, clump0, near0), (4, 4, "bounded", 7, rings2, corner2, clump2, near2),
            (6, 5, "torus", 3, rings0, corner0, clump0, near0)):
        weights, got_clump = ladder_shape(grid.neighbour_table(w, h, topology), mines)
        assert got_clump == clump
        corners = [(cx, cy) for cx in (0, w - 1) for cy in (0, h - 1)] if topology == "bounded" and w > 1 and h > 1 \
            else []
        for y in range(h):
            for x in range(w):
                ring = min(x, w - 1 - x, y, h - 1 - y) if topology == "bounded" else None
                if ring is None or ring >= len(rings):
                    want = INNER_WEIGHT
                elif (x, y) in corners:
                    want = corner
                else:
                    want = rings[ring]
                steps = min((max(abs(x - cx), abs(y - cy)) for cx, cy in corners), default=0)
                if steps in (1, 2):  # one or two king steps from a corner
                    want = (want * near[steps - 1] + INNER_WEIGHT // 2) // INNER_WEIGHT
                assert weights[y * w + x] == want, (w, h, x, y)
    # in between, each weight lies between those of the two measured densities around it, and
    # moves with the density only one way there
    nbr = grid.neighbour_table(30, 16)
    for low, high in ((130, 170), (170, 200)):
        lo, lo_clump = ladder_shape(nbr, low)
        hi, hi_clump = ladder_shape(nbr, high)
        last = lo
        for mines in range(low + 1, high):
            mid, mid_clump = ladder_shape(nbr, mines)
            assert (np.minimum(lo, hi) <= mid).all() and (mid <= np.maximum(lo, hi)).all()
            assert min(lo_clump, hi_clump) <= mid_clump <= max(lo_clump, hi_clump)
            assert ((mid - last) * (hi - lo) >= 0).all()
            last = mid


def test_the_two_rings_around_the_click_scale_the_ladder_weights():
    """Cells two and three steps (king moves) from the click, i.e. the two rings around its block,
    get their ring-from-the-edge weight times the click ring's weight over INNER_WEIGHT, rounded."""
    (_, _, _, _, click0, _, _), (_, _, _, _, click1, _, _), (_, _, _, _, click2, _, _) = LADDER_SHAPES
    for w, h, topology, mines, (cx, cy), click in (
            (30, 16, "bounded", 130, (15, 8), click0), (30, 16, "bounded", 170, (15, 8), click1),
            (30, 16, "bounded", 200, (15, 8), click2), (30, 16, "bounded", 170, (28, 3), click1),
            (30, 16, "bounded", 130, (0, 0), click0), (30, 16, "bounded", 400, (28, 3), click2),
            (9, 8, "bounded", 10, (4, 4), click0), (11, 10, "torus", 20, (1, 9), click0)):
        nbr = grid.neighbour_table(w, h, topology)
        plain, clump = ladder_shape(nbr, mines)
        weights, got_clump = ladder_shape(nbr, mines, grid.block_mask(w, h, cx, cy, topology))
        assert got_clump == clump
        for y in range(h):
            for x in range(w):
                dx, dy = abs(x - cx), abs(y - cy)
                if topology == "torus":
                    dx, dy = min(dx, w - dx), min(dy, h - dy)
                steps = max(dx, dy)
                base = int(plain[y * w + x])
                want = (base * click[steps - 2] + INNER_WEIGHT // 2) // INNER_WEIGHT if steps in (2, 3) else base
                assert weights[y * w + x] == want, (w, h, x, y)


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
    from make_reference import REFERENCE_OFFSET, draw_chunk

    from sweeplab.lab.runner import fan_out

    work = functools.partial(draw_chunk, 9, 9, 10, 7, str(tmp_path))
    done = dict(fan_out(work, [(0, 3), (3, 5), (5, 8)], workers=2))
    assert sorted(done) == [(0, 3), (3, 5), (5, 8)]
    joined = Sample.join([Sample.load(p) for p in sorted(glob.glob(str(tmp_path / "chunk_*.npz")))])
    whole = draw_sample(9, 9, 10, 4, 4, 8, 7 + REFERENCE_OFFSET, method="rejection", tries=1 << 40)
    assert (joined.counts == whole.counts).all()
    for name in FIGURES:
        assert list(getattr(joined, name)) == list(getattr(whole, name))


def test_the_ladders_draw_gives_each_free_cell_its_weight():
    """Every value of the draw's range, walked: each free cell gets weight x (clump base + mine
    neighbours) of them, a mine or an excluded cell none."""
    from sweeplab.generators.noguess import _pick
    w, h = 7, 5
    nbr = grid.neighbour_table(w, h)
    rng = np.random.default_rng(11)
    mines = rng.random(w * h) < 0.3
    excluded = grid.block_mask(w, h, 3, 2) & ~mines
    weight, clump = ladder_shape(nbr, 11)
    near = np.array([sum(bool(mines[j]) for j in nbr[i] if j >= 0) for i in range(w * h)], dtype=np.int64)
    want = [0 if mines[i] or excluded[i] else int(weight[i]) * (clump + int(near[i])) for i in range(w * h)]
    got = [0] * (w * h)
    for r in range(sum(want)):
        got[_pick(mines, excluded, weight, clump, near, r)] += 1
    assert got == want
