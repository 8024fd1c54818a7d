"""Benchmark of the cellular automaton: the paper's full sweep (29 densities x 1,000 games x 2 topologies
on 30x30) end to end, and its parts, with 1 and all numba threads. Prints a table of medians.

    python benchmarks/bench_automaton.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numba
import numpy as np

from sweeplab.lab import automaton as A

DENSITIES = A.parse_densities("0.02:0.30:0.01")
TOPOLOGIES = ("bounded", "torus")


def full_sweep(games=1000, size=30):
    return A.sweep(size, DENSITIES, games, TOPOLOGIES, 0)


def parts(games=1000, size=30):
    """Seconds spent laying boards and running the automaton, over the whole sweep."""
    lay = run = 0.0
    cells = 0
    for topology in TOPOLOGIES:
        for p in DENSITIES:
            t0 = time.perf_counter()
            batch = A.random_batch(size, p, 0, games, topology=topology)
            t1 = time.perf_counter()
            evo = A.run_batch(batch)
            t2 = time.perf_counter()
            lay += t1 - t0
            run += t2 - t1
            cells += int(np.count_nonzero(evo.status))
    return lay, run, cells


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), float(min(times))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    t = time.perf_counter()
    A.sweep(8, [0.1], 4, TOPOLOGIES, 0)  # compile (or load the numba cache)
    warmup = time.perf_counter() - t
    threads = numba.get_num_threads()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, numba {numba.__version__}, "
          f"{threads} numba threads; first call (compile or cache load) {warmup:.2f} s")
    print()
    print(f"{'what':<58} {'threads':>7} {'median s':>9} {'best s':>8} {'games/s':>9}")
    print("-" * 95)
    games_total = len(DENSITIES) * len(TOPOLOGIES) * 1000
    for nthreads in sorted({1, threads}):
        numba.set_num_threads(nthreads)
        med, best = median_time(full_sweep, args.repeats)
        print(f"{'full sweep 29 p x 1000 games x 2 topologies, 30x30':<58} {nthreads:>7} {med:9.2f} {best:8.2f} "
              f"{games_total / med:9.0f}")
        lays, runs = [], []
        for _ in range(args.repeats):
            lay, run, cells = parts()
            lays.append(lay)
            runs.append(run)
        print(f"{'  of which laying boards (mines, nu, 3 starting cells)':<58} {nthreads:>7} {np.median(lays):9.2f} "
              f"{min(lays):8.2f} {games_total / np.median(lays):9.0f}")
        print(f"{'  of which the automaton to its fixed point':<58} {nthreads:>7} {np.median(runs):9.2f} "
              f"{min(runs):8.2f} {games_total / np.median(runs):9.0f}")
    numba.set_num_threads(threads)
    for size in (100, 300):
        games = max(10, 1000 * 900 // (size * size))
        med, best = median_time(lambda: A.run_batch(A.random_batch(size, 0.1, 0, games)), args.repeats)
        print(f"{f'{games} games on {size}x{size}, p = 0.1, bounded':<58} {threads:>7} {med:9.2f} {best:8.2f} "
              f"{games / med:9.0f}")
    print()
    print("target: full sweep at most 20 s after compilation")


if __name__ == "__main__":
    main()
