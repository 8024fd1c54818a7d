"""benchmarks/bench_noguess_mixing.py: a point's records do not depend on how its chains are cut into
tasks, the fitted rule meets every need by its margin and every small level's exact need, a need's
interval, named points, and the study runs on a real Dask LocalCluster and resumes from the
records it left."""

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


POINT = st.tuples(st.integers(20, 700), st.floats(0.05, 0.6), st.floats(1.0, 1e6), st.sampled_from(["centre", "corner"]))


def as_results(points):
    return [{"free": free, "mines": max(1, int(share * free)), "need": need, "click": click}
            for free, share, need, click in points]


@settings(max_examples=50, deadline=None)
@given(st.lists(POINT, min_size=2, max_size=12), st.sampled_from(M.FIT_POWERS), st.sampled_from(M.FIT_SIZES),
       st.sampled_from(M.FIT_CLICKS), st.sampled_from(M.FIT_DENSITY_SIZES))
def test_the_fit_gives_every_point_its_margin_and_each_small_level_its_exact_need(points, p, q, c, s):
    results, exact = as_results(points), M.exact_points()
    burn, margins = M.fit_rule(results, exact, p, q, c, s)
    assert min(margins) >= M.MARGIN * (1 - 1e-9)
    assert all(burn * M.shape(r, p, q, c, s) >= r["need"] * (1 - 1e-9) for r in exact)
    for r, m in zip(results, margins):
        assert m == pytest.approx(burn * M.shape(r, p, q, c, s) / r["need"])
    # the least such constant: one measured point at exactly the margin, or one small level at its need
    assert min(margins) == pytest.approx(M.MARGIN) or any(
        burn * M.shape(r, p, q, c, s) == pytest.approx(r["need"]) for r in exact)


@settings(max_examples=10, deadline=None)
@given(st.lists(POINT, min_size=3, max_size=8), st.sampled_from(M.FIT_POWERS), st.sampled_from(M.FIT_SIZES),
       st.sampled_from(M.FIT_CLICKS), st.sampled_from(M.FIT_DENSITY_SIZES))
def test_each_form_takes_its_least_light_margin_and_a_term_is_kept_only_where_it_earns_it(points, p, q, c, s):
    results, exact = as_results(points), M.exact_points()
    forms = M.fit_forms(results, exact)
    assert [f[0] for f in forms] == [name for name, *_ in M.FORMS]
    for _, fp, fq, fc, fs, burn, margins, _ in forms:  # each form's best is fit_rule's at its constants
        one_burn, one_margins = M.fit_rule(results, exact, fp, fq, fc, fs)
        assert burn == pytest.approx(one_burn, rel=1e-9) and margins == pytest.approx(one_margins, rel=1e-9)
    richest = forms[-1]  # its grid holds every other form's constants and (p, q, c, s)
    assert M.light_margin(results, richest[6]) <= M.light_margin(results,
                                                                 M.fit_rule(results, exact, p, q, c, s)[1]) + 1e-9
    light = [M.light_margin(results, f[6]) for f in forms]
    # each form holds the one before it (the fit ranks the light margins to 6 decimals)
    assert all(later <= earlier + 1e-6 for earlier, later in zip(light, light[1:]))
    chosen = M.chosen_form(results, forms)
    i = forms.index(chosen)
    assert light[i] <= min(light) * (1 + M.FORM_GAIN) + 1e-12
    assert all(m > min(light) * (1 + M.FORM_GAIN) for m in light[:i])


def test_a_needs_interval_collapses_where_every_chain_of_a_start_is_the_same():
    """Drawing the chains again changes nothing when they are copies of one: the 90% interval is
    the need itself; with chains that differ, the interval holds more than one value."""
    rng = np.random.default_rng(3)
    records, figures = 8 * M.RECORDS_PER_UNIT + 1, len(M.FIGURES)
    decay = np.exp(-np.arange(records) / 6.0)
    one = np.stack([decay * 3 + 0.05 * rng.standard_normal(records) for _ in range(figures)], axis=1)
    long = rng.standard_normal((4, (M.LONG_UNITS - M.BURN_UNITS) * M.RECORDS_PER_UNIT, figures))
    d = {"burn": np.stack([np.repeat(one[None], 32, axis=0), np.repeat(-one[None], 32, axis=0)]), "long": long,
         "every": 10, "acc": 0.5, "free": 400, "mines": 120}
    r = M.analyse(d, None, False)
    assert r["need"] > 0 and r["need_90"] == pytest.approx((r["need"], r["need"]))
    d["burn"] = d["burn"] + rng.standard_normal(d["burn"].shape)
    lo, hi = M.analyse(d, None, False)["need_90"]
    assert lo < hi


def test_points_are_named_width_height_mines_and_click(tmp_path):
    assert M.parse_point(" 30x16/120/corner") == (30, 16, 120, "corner")
    for bad in ("30x16/120", "30x16/120/middle", "30x16/480/centre", "3x16/10/centre"):
        with pytest.raises(ValueError, match="WxH/MINES/CLICK|sides 4 to 60"):
            M.parse_point(bad)
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_noguess_mixing.py"), "--dir",
                          str(tmp_path / "records"), "--points", "30x16/999/centre"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "bad point '30x16/999/centre'" in out.stderr
    assert not (tmp_path / "records").exists()


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
