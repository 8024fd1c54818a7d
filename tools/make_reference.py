"""Draw a no-guess rejection reference in chunks on the lab runner (`sweeplab.lab.runner.fan_out`:
local processes, or a Dask cluster), so that a long run (about 20 minutes of one core at 130
mines) can be stopped, resumed and joined; the boards are exactly those `sweeplab uniformity
--seed S --reference-boards K --save-reference` would draw (board i seeded by
stream_key(S + 1000003, i)), whatever the workers or the chunks.

    python tools/make_reference.py --mines 130 --boards 2000 --chunk 25 --dir refs/130 --workers 1
    python tools/make_reference.py --mines 130 --dir refs/130 --join tests/data/noguess_reference_130.npz

Each chunk is written as it finishes (chunk_<first board>.npz); chunks already on disk are skipped.
Where rejection is out of reach (170 mines on 30x16), `--steps S` draws each board instead with a
chain of S moves (`generate(..., method="mcmc", steps=S)`): a long-chain reference, not an exact one;
`--chain-start repair` starts each chain from the repair instead of the ladder (another start,
with other biases, to tell a chain's start from its limit).
"""

from __future__ import annotations

import argparse
import functools
import glob
import os
import time

from sweeplab.cli.uniformity import Sample, draw_sample
from sweeplab.lab.runner import fan_out

REFERENCE_OFFSET = 1_000_003  # as `sweeplab uniformity`: the reference's seed is the command's + this


def draw_chunk(width, height, mines, seed, folder, start, stop, steps=None, chain_start="auto") -> str:
    """Boards start..stop-1 of the reference (by rejection, or chains of `steps` moves), saved as one chunk; its path."""
    t = time.perf_counter()
    if steps is None:
        part = draw_sample(width, height, mines, width // 2, height // 2, stop - start, seed + REFERENCE_OFFSET,
                           method="rejection", tries=1 << 40, label="rejection", start=start)
    else:
        part = draw_sample(width, height, mines, width // 2, height // 2, stop - start, seed + REFERENCE_OFFSET,
                           method="mcmc", steps=steps, label=f"chain of {steps} moves from the {chain_start} start",
                           start=start, chain_start=chain_start)
    path = os.path.join(folder, f"chunk_{start:06d}.npz")
    part.save(path + ".tmp.npz", "chunk")
    os.replace(path + ".tmp.npz", path)
    print(f"boards {start}..{stop - 1}: {time.perf_counter() - t:.1f} s", flush=True)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--width", type=int, default=30)
    ap.add_argument("--height", type=int, default=16)
    ap.add_argument("--mines", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--boards", type=int, default=2000)
    ap.add_argument("--chunk", type=int, default=25)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--steps", type=int, default=None, help="chain moves per board instead of rejection")
    ap.add_argument("--chain-start", choices=("auto", "repair"), default="auto",
                    help="with --steps: the chain's first board from the ladder (auto) or always from the repair")
    ap.add_argument("--workers", type=int, default=1, help="local processes (1: this one)")
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler's address instead of local processes")
    ap.add_argument("--join", default=None, help="join the chunks on disk into this .npz and stop")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    if a.join:
        paths = sorted(glob.glob(os.path.join(a.dir, "chunk_*.npz")))
        ref = Sample.join([Sample.load(p) for p in paths])
        ref.save(a.join, f"python tools/make_reference.py --width {a.width} --height {a.height} "
                         f"--mines {a.mines} --seed {a.seed} --boards {ref.boards} --chunk {a.chunk}"
                         + (f" --steps {a.steps}" if a.steps else "")
                         + (f" --chain-start {a.chain_start}" if a.chain_start != "auto" else ""))
        print(f"{len(paths)} chunks, {ref.boards} boards -> {a.join}")
        return
    todo = [(s, min(s + a.chunk, a.boards)) for s in range(0, a.boards, a.chunk)
            if not os.path.exists(os.path.join(a.dir, f"chunk_{s:06d}.npz"))]
    work = functools.partial(draw_chunk, a.width, a.height, a.mines, a.seed, a.dir, steps=a.steps, chain_start=a.chain_start)
    for _ in fan_out(work, todo, workers=a.workers, scheduler=a.scheduler):
        pass


if __name__ == "__main__":
    main()
