"""The lab runner: Wilson intervals, task splitting, seeds per game, equal results whatever the
backend (in-process, local processes, a real Dask LocalCluster) or worker count, CSV resume."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sweeplab.errors import SweeplabError
from sweeplab.generators import make_rule
from sweeplab.lab import BenchSpec, Counts, game_seeds, play_games, read_done, run, wilson
from sweeplab.lab.intervals import Z95
from sweeplab.lab.runner import append_row, missing, split

SPEC = BenchSpec("safest", 9, 9, 10, "opening", (3, 3), seed=2024)


def _wilson_by_bisection(k, n, z=Z95):
    """The Wilson interval as the set of p with |k/n - p| <= z sqrt(p(1-p)/n), found by bisection."""
    phat = k / n

    def inside(p):
        return abs(phat - p) <= z * math.sqrt(p * (1 - p) / n) + 1e-15

    def edge(a, b):  # a inside, b outside
        for _ in range(200):
            m = (a + b) / 2
            a, b = (m, b) if inside(m) else (a, m)
        return a

    lo = 0.0 if k == 0 else edge(phat, 0.0)
    hi = 1.0 if k == n else edge(phat, 1.0)
    return lo, hi


@given(st.integers(1, 100_000), st.data())
def test_wilson_is_the_score_test_inversion(n, data):
    k = data.draw(st.integers(0, n))
    lo, hi = wilson(k, n)
    blo, bhi = _wilson_by_bisection(k, n)
    assert lo == pytest.approx(blo, abs=1e-9)
    assert hi == pytest.approx(bhi, abs=1e-9)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


def test_wilson_published_value():
    # Newcombe (1998), Statistics in Medicine 17:857, table I: 81/263 -> 0.2553 to 0.3662
    lo, hi = wilson(81, 263)
    assert (round(lo, 4), round(hi, 4)) == (0.2553, 0.3662)
    with pytest.raises(SweeplabError, match="successes"):
        wilson(5, 3)


def test_split_and_missing_cover_every_game_once():
    assert split([(0, 2500)], 1000) == [(0, 1000), (1000, 2000), (2000, 2500)]
    assert missing(100, {(0, 30): None, (50, 60): None}) == [(30, 50), (60, 100)]
    assert missing(40, {(0, 30): None, (30, 80): None}) == []
    with pytest.raises(SweeplabError, match="task size"):
        split([(0, 5)], 0)


def test_game_board_depends_only_on_seed_and_index():
    # game 7 played alone gives the same counts as inside a batch
    whole = [play_games(SPEC, i, i + 1) for i in range(5, 9)]
    batch = play_games(SPEC, 5, 9)
    summed = sum(whole, Counts())
    assert summed.outcome() == batch.outcome()
    # and its board is the board of seed stream_key(seed, 7)
    b1, _ = game_seeds(SPEC.seed, 7)
    b2, _ = game_seeds(SPEC.seed, 8)
    board7 = make_rule("opening", 9, 9, 10, b1).board_for(3, 3)[0]
    assert board7 == make_rule("opening", 9, 9, 10, game_seeds(SPEC.seed, 7)[0]).board_for(3, 3)[0]
    assert board7 != make_rule("opening", 9, 9, 10, b2).board_for(3, 3)[0]


@pytest.mark.slow
def test_same_results_whatever_the_backend_or_worker_count():
    from dask.distributed import Client, LocalCluster

    games = 60
    one = run(SPEC, games, workers=1, task_games=1000)
    two = run(SPEC, games, workers=2, task_games=7)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        seen = []
        on_dask = run(SPEC, games, task_games=11, client=client, on_task=lambda a, b, c: seen.append((a, b)))
    assert one.games == games and one.wins > 0
    assert one.outcome() == two.outcome() == on_dask.outcome()
    assert sorted(seen) == split([(0, games)], 11)
    # a different seed gives different games
    other = run(BenchSpec("safest", 9, 9, 10, "opening", (3, 3), seed=2025), games, workers=1)
    assert other.outcome() != one.outcome()


def test_csv_resume_plays_only_what_is_missing(tmp_path):
    out = tmp_path / "runs.csv"
    rows = []
    first = run(SPEC, 30, workers=1, task_games=10, on_task=lambda a, b, c: append_row(out, SPEC, a, b, c))
    done = read_done(out, SPEC)
    assert sorted(done) == [(0, 10), (10, 20), (20, 30)]
    assert sum(done.values(), Counts()).outcome() == first.outcome()
    # another spec's rows in the same file are ignored
    other = BenchSpec("rules", 9, 9, 10, "opening", (3, 3), seed=2024)
    assert read_done(out, other) == {}
    resumed = run(SPEC, 50, workers=1, task_games=10, done=done, on_task=lambda a, b, c: rows.append((a, b)))
    assert rows == [(30, 40), (40, 50)]
    assert resumed.outcome() == run(SPEC, 50, workers=1).outcome()


def test_bad_csv_and_bad_specs_are_refused(tmp_path):
    bad = tmp_path / "x.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(SweeplabError, match="not a sweeplab bench CSV"):
        read_done(bad, SPEC)
    with pytest.raises(SweeplabError, match="unknown player"):
        run(BenchSpec("nobody", 9, 9, 10), 5)
    with pytest.raises(SweeplabError, match="off the 9x9 board"):
        run(BenchSpec("safest", 9, 9, 10, at=(9, 0)), 5)
    with pytest.raises(SweeplabError, match="first-click rule"):
        run(BenchSpec("safest", 9, 9, 10, first_click="lucky"), 5)
    with pytest.raises(SweeplabError, match="cluster"):
        run(SPEC, 5, cluster="far")


def test_bench_command_prints_rate_interval_and_json(tmp_path):
    import json

    from click.testing import CliRunner

    from sweeplab.cli import cli

    out = tmp_path / "b.csv"
    args = ["bench", "--player", "safest", "--preset", "beginner", "--at", "3,3", "--games", "40", "--seed", "2024",
            "--workers", "1", "--no-progress", "--out", str(out)]
    r = CliRunner().invoke(cli, args + ["--json"])
    assert r.exit_code == 0, r.output
    res = json.loads(r.output)
    direct = run(SPEC, 40, workers=1)
    assert res["wins"] == direct.wins and res["games"] == 40
    lo, hi = wilson(direct.wins, 40)
    assert res["wilson95"] == pytest.approx([lo, hi])
    r2 = CliRunner().invoke(cli, args)
    assert r2.exit_code == 0, r2.output
    assert f"of 40; 95% Wilson {lo:.2%} - {hi:.2%}" in r2.output
    assert "0 games in" in r2.output  # everything came from the CSV
