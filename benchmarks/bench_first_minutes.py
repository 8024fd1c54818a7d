"""A new user's first minutes: how soon the first `sweeplab play` (no compiled kernels: an empty
NUMBA_CACHE_DIR) prints its URL and answers the first click of an expert no-guess game (over HTTP,
as the page sends it, right after the URL), and how soon one Ctrl-C stops `sweeplab bench` (two
workers, the kernels cached) with its exit status and the lines it wrote on stderr.

    python benchmarks/bench_first_minutes.py [--src DIR ...] [--rounds 3]

Each run is a fresh process (`python -m sweeplab`); with several --src (source trees, e.g. another
checkout's src/) the trees take turns within each round and the table gives each tree's medians.
A tree whose play prints nothing within --timeout seconds, or whose bench does not stop within it,
reads inf.
"""

from __future__ import annotations

import argparse
import os
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine  # noqa: E402

from sweeplab._tiers import stop_compilers  # noqa: E402

HERE = Path(__file__).resolve().parent.parent / "src"


def first_url(src: str, work: Path, timeout: float) -> tuple[float, float]:
    """Seconds from the start of `sweeplab play --no-browser` on an empty kernel cache to its URL line,
    and from the URL to the answer of an expert no-guess game's first click at the centre."""
    cache = Path(tempfile.mkdtemp(dir=work))
    env = {**os.environ, "PYTHONPATH": src, "NUMBA_CACHE_DIR": str(cache)}
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "sweeplab", "play", "--no-browser", "--db", str(cache / "p.db")],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        seconds = float("inf")
        while time.perf_counter() - t0 < timeout:
            ready, _, _ = select.select([proc.stdout], [], [], timeout - (time.perf_counter() - t0))
            if not ready:
                break
            line = proc.stdout.readline()
            if not line:
                break
            if "serving at http" in line:
                seconds = time.perf_counter() - t0
                break
        click = float("inf")
        if seconds < timeout:
            url = line.split("serving at ")[1].split()[0]
            t1 = time.perf_counter()
            with httpx.Client(base_url=url, timeout=timeout) as c:
                game = c.post("/api/games", json={"mode": "noguess", "level": "expert"}).json()
                r = c.post(f"/api/games/{game['id']}/actions", json={"kind": "open", "x": 15, "y": 8})
            if r.status_code == 200:
                click = time.perf_counter() - t1
    finally:
        proc.kill()  # (the kernels still compile behind it: nothing of this run is kept)
        proc.wait()
        stop_compilers(str(cache))
    return seconds, click


def bench_stop(src: str, work: Path, cache: Path, timeout: float) -> tuple[float, int, int]:
    """(seconds from one Ctrl-C to the exit, exit status, lines on stderr) of a two-worker `sweeplab
    bench` of ten million games, interrupted once its first tasks are written. The Ctrl-C goes to the
    command's whole process group, as a terminal sends it; a run still going at `timeout` is killed,
    workers and all, and reads inf."""
    out = Path(tempfile.mkdtemp(dir=work)) / "runs.csv"
    env = {**os.environ, "PYTHONPATH": src, "NUMBA_CACHE_DIR": str(cache)}
    proc = subprocess.Popen([sys.executable, "-m", "sweeplab", "bench", "--player", "safest", "--preset", "beginner",
                             "--games", "10000000", "--workers", "2", "--task-size", "20", "--seed", "3",
                             "--out", str(out)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.perf_counter() + 600
        while not out.exists() or len(out.read_text().splitlines()) < 3:  # a header and two tasks
            if proc.poll() is not None or time.perf_counter() > deadline:
                raise SystemExit(f"bench ended or wrote nothing: {proc.communicate()[1]}")
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)
        t0 = time.perf_counter()
        try:
            _, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
            return float("inf"), proc.returncode, len([ln for ln in err.splitlines() if ln.strip()])
        return time.perf_counter() - t0, proc.returncode, len([ln for ln in err.splitlines() if ln.strip()])
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # (workers left by a run that did not stop)
        except ProcessLookupError:
            pass
        proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--src", action="append", default=None, help="a source tree (default: this checkout's src)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=120, help="seconds before a run counts as never done")
    a = ap.parse_args()
    srcs = a.src or [str(HERE)]
    work = Path(tempfile.mkdtemp())
    caches = {src: Path(tempfile.mkdtemp(dir=work)) for src in srcs}
    for src in srcs:  # the bench's kernels compiled once, so that its stop is timed on a warm start
        subprocess.run([sys.executable, "-m", "sweeplab", "bench", "--player", "safest", "--preset", "beginner",
                        "--games", "4", "--workers", "1", "--no-progress"], check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, "PYTHONPATH": src, "NUMBA_CACHE_DIR": str(caches[src])})
    urls = {src: [] for src in srcs}
    stops = {src: [] for src in srcs}
    for _ in range(a.rounds):
        for src in srcs:  # alternating trees within each round
            urls[src].append(first_url(src, work, a.timeout))
            stops[src].append(bench_stop(src, work, caches[src], a.timeout))
    print(f"machine: {machine()} (shared; medians of {a.rounds} rounds)")
    head = f"{'figure':52}" + "".join(f" | {'tree ' + str(i + 1):>14}" for i in range(len(srcs)))
    print(head)
    print("-" * len(head))
    rows = [("first play, empty kernel cache: s to the URL", lambda s: f"{statistics.median(u[0] for u in urls[s]):.2f}"),
            ("  (every round)", lambda s: " ".join(f"{u[0]:.1f}" for u in urls[s])),
            ("  then s to its first expert no-guess click's answer",
             lambda s: f"{statistics.median(u[1] for u in urls[s]):.2f}"),
            ("  (every round)", lambda s: " ".join(f"{u[1]:.1f}" for u in urls[s])),
            ("bench, 2 workers: s from one Ctrl-C to the exit",
             lambda s: f"{statistics.median(r[0] for r in stops[s]):.2f}"),
            ("  (every round)", lambda s: " ".join(f"{r[0]:.2f}" for r in stops[s])),
            ("  exit status (every round)", lambda s: " ".join(str(r[1]) for r in stops[s])),
            ("  lines on stderr (every round)", lambda s: " ".join(str(r[2]) for r in stops[s]))]
    for name, cell in rows:
        print(f"{name:52}" + "".join(f" | {cell(src):>14}" for src in srcs))
    for i, src in enumerate(srcs):
        print(f"tree {i + 1}: {src}")


if __name__ == "__main__":
    main()
