"""Timing helpers for the benchmark scripts: medians of many short runs, and a machine line."""

from __future__ import annotations

import os
import platform
import statistics
import time


def median_us(fn, repeat: int = 2000, warmup: int = 50) -> float:
    """Median wall time of fn() in microseconds."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples) * 1e6


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
