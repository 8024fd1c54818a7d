"""Compile time: what a first run costs from an empty numba cache, scenario by scenario and kernel by
kernel.

Each scenario runs in a fresh process (`python -m ...` with PYTHONPATH at a source tree) whose
NUMBA_CACHE_DIR is a fresh empty folder, so every kernel it needs compiles:

- click: the first no-guess expert click, `Game(rule=make_rule("noguess", 30, 16, 99, 1)).open(15, 8)`;
- dense: the first dense no-guess click, 170 mines on 30x16 (the chain of mine moves, not rejection);
- analysis: the analysis board's report of an expert position (the web game's first analysis: certain
  cells, probabilities, strong's move, unavoidable guesses, perfect play where it fits);
- solve: `sweeplab solve FILE` of the same expert position.

Each scenario runs in each kernel mode of --modes: `compiled` (every kernel compiles at its first call:
what the compile costs) and `tiered` (the default a user gets: the kernels run as Python while a
compiler beside the process fills the cache; that compiler is stopped when the scenario ends and is
not counted: what the user waits for). A tree without the tiers compiles in both.

Per scenario: the process's wall and CPU seconds (its children's rusage), medians over the rounds.
Per kernel (with --kernels): numba's compile events (`numba.core.event`, "numba:compile") timed in
the process's CPU seconds (a loaded machine stretches wall time, not these): a kernel's inclusive
time (its start to its end, the kernels it compiles meanwhile included), its own time (less
those), and how many signatures it was compiled for. A kernel inlined into its callers
(`inline='always'`) has no compile of its own: its cost is its callers'.

    python benchmarks/bench_compile.py [--src DIR ...] [--rounds 3] [--scenarios click,dense,analysis,solve]
                                       [--modes compiled,tiered] [--kernels 15]

With several --src (source trees, e.g. another checkout's src/) the trees take turns within each
round; the table gives each tree's medians.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _timing import machine  # noqa: E402

from sweeplab._tiers import stop_compilers  # noqa: E402

HERE = Path(__file__).resolve().parent.parent / "src"

# An expert position mid-game (`opening` 30x16, 99 mines, seed 7, opened at (15, 8) and played on by
# the local rules until they decide nothing): a frontier of several components, as a player meets it.
EXPERT = """mines: 99
###########201################
######2####313################
######1123#21#################
#####2100111123###############
######111111212234############
######21#11#3#1112############
######111123#211#2############
#####322111#21012#############
#######2#11110002#############
###4##22221012223#############
###322101#101##3###3##########
#4#2011111101223#5333#########
#31101#10000000112#13#########
222111221000111012212#########
1#2#212#20001#102#2012########
1122#12#200011102#2001########
"""

SCENARIOS = {
    "click": """
from sweeplab import make_rule
from sweeplab.game import Game
Game(rule=make_rule("noguess", 30, 16, 99, 1)).open(15, 8)
""",
    "dense": """
from sweeplab import make_rule
from sweeplab.game import Game
Game(rule=make_rule("noguess", 30, 16, 170, 1)).open(15, 8)
""",
    "analysis": """
from sweeplab.play.analyse_position import read_position
from sweeplab.play.analyse_report import report
position, _ = read_position(open(POSITION).read())
for _ in report(position, click=("open", 0, 0)):
    pass
""",
    "solve": """
from sweeplab.cli import main
main(["solve", POSITION])
""",
}

# Runs inside the measured process: times every numba compile, then runs the scenario.
CHILD = """
import json, sys, time
from numba.core import event

POSITION = sys.argv[1]
stack, kernels = [], {}

class Timer(event.Listener):
    def on_start(self, ev):
        stack.append([time.process_time(), 0.0])

    def on_end(self, ev):
        start, inner = stack.pop()
        took = time.process_time() - start
        if stack:
            stack[-1][1] += took
        d = ev.data["dispatcher"]
        f = d.py_func
        k = kernels.setdefault(f.__module__ + "." + f.__qualname__, {"own": 0.0, "inclusive": 0.0, "compiles": 0})
        k["own"] += took - inner
        k["inclusive"] += took
        k["compiles"] += 1
        k["signatures"] = len(d.signatures)

event.register("numba:compile", Timer())
exec(SCENARIO)
print("\\nBENCH_COMPILE " + json.dumps({"kernels": kernels}))
"""


def run(src: str, scenario: str, mode: str, position: Path, work: Path) -> dict:
    """One scenario in a fresh process on an empty kernel cache: its wall and CPU seconds and its compiles."""
    cache = Path(tempfile.mkdtemp(dir=work))
    env = {**os.environ, "PYTHONPATH": src, "NUMBA_CACHE_DIR": str(cache), "SWEEPLAB_KERNELS": mode}
    code = CHILD.replace("exec(SCENARIO)", SCENARIOS[scenario].strip())
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, str(position)], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    stop_compilers(str(cache))
    if out.returncode != 0:
        raise SystemExit(f"{scenario} on {src} failed:\n{out.stderr[-3000:]}")
    line = [ln for ln in out.stdout.splitlines() if ln.startswith("BENCH_COMPILE ")][-1]
    data = json.loads(line.split(" ", 1)[1])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, **data}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", action="append", help="source tree(s) to measure (default: this checkout's src/)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--modes", default="compiled,tiered", help="kernel modes (SWEEPLAB_KERNELS) to run each scenario in")
    ap.add_argument("--kernels", type=int, default=15, help="kernels listed per scenario and tree (0: none)")
    a = ap.parse_args()
    srcs = [str(Path(s).resolve()) for s in (a.src or [str(HERE)])]
    scenarios = a.scenarios.split(",")
    unknown = set(scenarios) - set(SCENARIOS)
    if unknown:
        raise SystemExit(f"unknown scenario(s) {sorted(unknown)}; allowed: {', '.join(SCENARIOS)}")
    modes = a.modes.split(",")
    if set(modes) - {"compiled", "tiered"}:
        raise SystemExit(f"unknown mode(s) in {a.modes!r}; allowed: compiled, tiered")
    results: dict[tuple[str, str, str], list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        position = work / "expert.txt"
        position.write_text(EXPERT)
        for r in range(a.rounds):
            for scenario in scenarios:
                order = srcs if r % 2 == 0 else srcs[::-1]  # which tree goes first alternates
                for src in order:
                    for mode in modes:
                        res = run(src, scenario, mode, position, work)
                        results.setdefault((src, scenario, mode), []).append(res)
                        print(f"round {r + 1} {scenario:8s} {mode:8s} {src}: {res['wall']:.1f} s wall, "
                              f"{res['cpu']:.1f} s CPU", file=sys.stderr, flush=True)
    print(f"# compile time from an empty numba cache; {machine()}; load {os.getloadavg()[0]:.1f}; "
          f"medians of {a.rounds} rounds")
    print("| scenario | kernels | source | wall s | CPU s | CPU s in compiles | kernels compiled | signatures |")
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for scenario in scenarios:
        for src in srcs:
            for mode in modes:
                rs = results[(src, scenario, mode)]
                tops = [sum(k["own"] for k in r["kernels"].values()) for r in rs]
                last = rs[-1]["kernels"]
                print(f"| {scenario} | {mode} | {src} | {statistics.median(r['wall'] for r in rs):.1f} | "
                      f"{statistics.median(r['cpu'] for r in rs):.1f} | {statistics.median(tops):.1f} | {len(last)} | "
                      f"{sum(k['signatures'] for k in last.values())} |")
    if a.kernels and "compiled" in modes:
        for scenario in scenarios:
            for src in srcs:
                rs = results[(src, scenario, "compiled")]
                names = set().union(*(r["kernels"] for r in rs))

                def med(name, key, rs=rs):
                    return statistics.median(r["kernels"].get(name, {}).get(key, 0) for r in rs)
                ranked = sorted(names, key=lambda n: -med(n, "own"))[:a.kernels]
                print(f"\n{scenario}, {src}: the {len(ranked)} kernels of most own compile time (of {len(names)})")
                print("| kernel | own s | inclusive s | signatures |")
                print("|---|---:|---:|---:|")
                for n in ranked:
                    print(f"| `{n.removeprefix('sweeplab.')}` | {med(n, 'own'):.2f} | {med(n, 'inclusive'):.2f} | "
                          f"{med(n, 'signatures'):.0f} |")


if __name__ == "__main__":
    main()
