"""Where a certifying play's time goes, in each checkout: Linux perf's samples per compiled kernel.

    python research/one_engine/profile_play.py --old OLD_TREE --new NEW_TREE [--passes 500] [--rounds 4]
    python research/one_engine/profile_play.py --old OLD_TREE --new NEW_TREE --generate [--passes 4]

The plays: certified 30x16 boards with 130 and 170 mines (clicked at the centre), each with one
mine moved at random 40 times; most of those boards get stuck, as most of a no-guess chain's
proposals do. With `--generate` each pass generates no-guess boards instead (`noguess.generate`,
seeds 0 to `--boards` - 1 at each level, each paying its own chain as a game's board does), the
chain's replays of moved boards included. Each tree runs them `--passes` times under `perf record` (software clock; no
hardware counters needed; counting starts once the kernels are compiled), in its own
interpreter, the passes split into `--rounds` runs that take turns (old, new, old, ...), so that
a drift in the shared machine's speed weighs on both sides alike. numba's kernels are compiled
afresh (an empty cache) so that their addresses can be written to perf's map of the process,
and the samples are summed per kernel. Samples are CPU time, so the two columns compare within
one run only as far as the machine's speed held; the shares within a column do not depend on it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

W, H, X, Y = 30, 16, 15, 8
LEVELS = (130, 170)
PERF_MAPS = Path("/tmp")  # perf's own fixed place for the symbol maps of JIT-compiled code


def make_boards(path: Path, per_level: int, moves: int, seed: int) -> None:
    """Certified boards (this checkout's generator) and, for each, `moves` boards one mine away."""
    from sweeplab import grid
    from sweeplab.generators.noguess import generate
    rng = np.random.default_rng(seed)
    block = grid.block_mask(W, H, X, Y, "bounded")
    out = []
    for mines in LEVELS:
        for s in range(per_level):
            flat = generate(W, H, mines, X, Y, s).board.flat_mines
            mine_cells = np.flatnonzero(flat)
            free = np.flatnonzero(~flat & ~block)
            for _ in range(moves):
                moved = flat.copy()
                moved[rng.choice(mine_cells)] = False
                moved[rng.choice(free)] = True
                out.append(moved)
    np.save(path, np.array(out))


def worker(path: str, passes: int, generate: int) -> None:
    """Play every board (or generate `generate` boards a level) `passes` times, then write perf's
    map of the compiled kernels."""
    from sweeplab import grid
    from sweeplab.generators import certify as C
    from sweeplab.generators import noguess
    nbr = grid.neighbour_table(W, H, "bounded")
    room = C.workspace(W, H)
    boards = [] if generate else [(m, C.count_numbers(m, nbr)) for m in np.load(path)]

    def play_all():
        if generate:
            for mines in LEVELS:
                for seed in range(generate):
                    noguess.generate(W, H, mines, X, Y, seed)
            return
        for mines, numbers in boards:
            C.start(C.Candidate(mines, numbers, nbr, Y * W + X, C.DEFAULT_LEAF_BUDGET, *room))

    play_all()  # (compiled before perf starts counting)
    control = os.environ.get("PROFILE_CONTROL")
    if control:
        with open(control, "w") as fifo:
            fifo.write("enable\n")
    for _ in range(passes):
        play_all()
    write_perf_map()


def write_perf_map() -> None:
    """perf-PID.map in PERF_MAPS (where perf looks for code it cannot name): every function of
    every kernel this process compiled, sized up to the next one's address."""
    import gc

    from numba.core.registry import CPUDispatcher
    names = {}
    for obj in gc.get_objects():
        try:
            if type(obj) is not CPUDispatcher:
                continue
        except Exception:  # (objects that refuse attribute lookups)
            continue
        for cres in obj.overloads.values():
            library = cres.library
            for f in library._final_module.functions:
                if not f.is_declaration:
                    address = library.get_pointer_to_function(f.name)
                    if address:
                        names[address] = f.name
    addresses = sorted(names)
    with open(PERF_MAPS / f"perf-{os.getpid()}.map", "w") as out:
        for i, a in enumerate(addresses):
            size = addresses[i + 1] - a if i + 1 < len(addresses) and addresses[i + 1] - a < 1 << 20 else 4096
            out.write(f"{a:x} {size:x} {names[a]}\n")


def kernel_name(symbol: str) -> str | None:
    """sweeplab's module.function of a numba symbol (`_ZN8sweeplab6solver4play3runB...`), else None."""
    m = re.match(r"_ZN8sweeplab((?:\d+\w+?)+?)B\d", symbol)
    if not m:
        return None
    parts, rest = [], m.group(1)
    while rest:
        k = re.match(r"\d+", rest).group(0)
        rest = rest[len(k):]
        parts.append(rest[:int(k)])
        rest = rest[int(k):]
    return ".".join(parts)


def profile(side: str, tree: str, boards: Path, passes: int, scratch: Path, generate: int) -> dict[str, int]:
    """Samples per kernel (and per allocator / reference-count routine) of `tree` playing the boards,
    in a fresh interpreter with an empty cache (`side` names its files, one run each)."""
    data = scratch / f"{side}.perf"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(scratch / f"cache-{side}"), PYTHONPATH=os.path.join(tree, "src"))
    python = os.path.join(tree, ".venv", "bin", "python")
    control = scratch / f"{side}.ctl"
    os.mkfifo(control)
    env["PROFILE_CONTROL"] = str(control)
    subprocess.run(["perf", "record", "-q", "-D", "-1", "--control", f"fifo:{control}", "-F", "1000", "-e",
                    "cpu-clock", "-o", str(data), python, __file__,
                    "--worker", str(boards), "--passes", str(passes), "--generate-boards", str(generate)],
                   env=env, check=True, cwd=tree, stdout=subprocess.DEVNULL)
    report = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort", "symbol", "--stdio",
                             "-F", "sample,symbol"], capture_output=True, text=True, check=True).stdout
    samples: dict[str, int] = {}
    for line in report.splitlines():
        m = re.match(r"\s*(\d+)\s+\[[.k]\]\s+(\S+)", line)
        if not m:
            continue
        name = kernel_name(m.group(2))
        if name is None and re.search(r"^NRT_|malloc|free|memset|memmove", m.group(2)):
            name = "(allocation and reference counts, the Python loop's too)"
        if name is None:
            name = "(other code: the interpreter, numpy, the system)"
        samples[name] = samples.get(name, 0) + int(m.group(1))
    return samples


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old")
    ap.add_argument("--new")
    ap.add_argument("--passes", type=int, default=500)
    ap.add_argument("--rounds", type=int, default=4, help="runs a side, taking turns, sharing the passes")
    ap.add_argument("--boards", type=int, default=12, help="certified boards a level")
    ap.add_argument("--moves", type=int, default=40, help="boards one move away from each")
    ap.add_argument("--generate", action="store_true", help="profile no-guess generation, not plays")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--generate-boards", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker, args.passes, args.generate_boards)
        return
    if not (args.old and args.new):
        ap.error("--old and --new are both needed")
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        boards = scratch / "boards.npy"
        if not args.generate:  # (generation makes its own boards)
            make_boards(boards, args.boards, args.moves, seed=3)
        sides: dict[str, dict[str, int]] = {"old": {}, "new": {}}
        for r in range(args.rounds):
            passes = args.passes // args.rounds + (r < args.passes % args.rounds)
            for side, tree in (("old", args.old), ("new", args.new)):
                for name, count in profile(f"{side}{r}", tree, boards, passes, scratch,
                                           args.boards if args.generate else 0).items():
                    sides[side][name] = sides[side].get(name, 0) + count
    print("| kernel | old samples | new samples |")
    print("|---|---|---|")
    names = sorted(set(sides["old"]) | set(sides["new"]), key=lambda k: -(sides["old"].get(k, 0) + sides["new"].get(k, 0)))
    for name in names:
        print(f"| {name} | {sides['old'].get(name, 0)} | {sides['new'].get(name, 0)} |")
    print(f"| all | {sum(sides['old'].values())} | {sum(sides['new'].values())} |")


if __name__ == "__main__":
    sys.exit(main())
