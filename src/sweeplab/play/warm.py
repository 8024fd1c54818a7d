"""The kernels' compiler: `python -m sweeplab.play.warm [--jobs 1|2] [--background]`.

Compiles into numba's cache what a player meets first (every mode's boards and their statistics, the
analysis, a dense board's chain), then marks the cache complete, so that the processes running the
kernels as Python meanwhile switch to them (_tiers.py). One compiler a cache: a second waits for the
first's lock, then finds the cache complete. The warm-ups run in child processes that compile
(SWEEPLAB_KERNELS=compiled); `--jobs 2` runs the dense board's chain beside the rest (the test suite,
before its workers start). `--background`: started by a process that interprets meanwhile, so at a
lower priority, its output in the cache's warm.log.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from .._numba_cache import cache_dir
from .._tiers import is_complete, lock, mark_complete

# In the order a player meets them: a game's boards, the analysis board, a dense no-guess board.
PARTS = ("from sweeplab.play import server; server.warm_up()",
         "from sweeplab.play import analyse_worker; analyse_worker.warm()",
         "from sweeplab.play import board_child; board_child.warm()")


def groups(jobs: int) -> list[str]:
    """The warm-ups as `jobs` programs: one in order, or the dense board's chain beside the rest."""
    return ["; ".join(PARTS)] if jobs == 1 else ["; ".join(PARTS[:-1]), PARTS[-1]]


def compile_kernels(jobs: int = 1, log=None) -> bool:
    """Compile unless the cache is complete (waiting for another compiler first); True when this one
    marked it. A warm-up that fails still marks it: the kernels then compile at their first call, as
    they would with no tiers, rather than run as Python for good (its error is in the log)."""
    cache = cache_dir()
    held = lock(cache)
    try:
        if is_complete(cache):
            return False
        held.truncate(0)
        held.write(f"{os.getpid()}\n")  # who compiles (a background compiler leads its own process group)
        held.flush()
        env = dict(os.environ, SWEEPLAB_KERNELS="compiled")
        children = [subprocess.Popen([sys.executable, "-c", code], env=env, stdin=subprocess.DEVNULL, stdout=log,
                                     stderr=log) for code in groups(jobs)]
        codes = [child.wait() for child in children]
        if any(code < 0 for code in codes):  # stopped by a signal: the next compiler goes on from the cache
            return False
        mark_complete(cache)
        return True
    finally:
        held.truncate(0)  # (no compiler now: its pid names no one to stop)
        held.close()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(prog="python -m sweeplab.play.warm", description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, choices=(1, 2), default=1, help="warm-up processes side by side")
    parser.add_argument("--background", action="store_true", help="lower priority; output to the cache's warm.log")
    args = parser.parse_args(argv)
    if not args.background:
        compile_kernels(args.jobs)
        return
    os.nice(10)
    os.makedirs(cache_dir(), exist_ok=True)
    with open(os.path.join(cache_dir(), "warm.log"), "a") as log:
        compile_kernels(args.jobs, log)


if __name__ == "__main__":
    main()
