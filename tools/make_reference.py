"""Draw a no-guess reference sample in chunks on the lab runner (`sweeplab.lab.runner.fan_out`:
local processes, or a Dask cluster), so that a long run can be stopped, resumed and joined.

    python tools/make_reference.py --mines 130 --boards 2000 --chunk 25 --dir refs/130 --workers 1
    python tools/make_reference.py --mines 130 --dir refs/130 --join tests/data/noguess_rejection_30x16_130.npz
    python tools/make_reference.py --mines 170 --boards 2000 --chunk 100 --chains insert --dir refs/170

By rejection (the default) the boards are exactly those `sweeplab uniformity --seed S
--reference-boards K --save-reference` would draw (board i seeded by stream_key(S + 1000003, i)),
whatever the workers or the chunks: exactly uniform over the certified boards. Where rejection is
out of reach, `--chains START` draws each chunk as one warm chain from that start (`insert` or
`repair`; `noguess.boards`, seeded by stream_key(S + 1000003, first board)): a long-chain
reference. Each chunk is written as it finishes (chunk_<first board>.npz); chunks already on disk
are skipped.
"""

from __future__ import annotations

import argparse
import functools
import glob
import os
import time

from sweeplab.lab.runner import fan_out
from sweeplab.lab.uniformity import REFERENCE_OFFSET, Sample, draw_sample
from sweeplab.rng import stream_key


def draw_chunk(width, height, mines, seed, folder, start, stop, chains=None, click=None) -> str:
    """Boards start..stop-1 of the reference (by rejection, or one warm chain from `chains`), saved as
    one chunk; its path."""
    t = time.perf_counter()
    x, y = click if click is not None else (width // 2, height // 2)
    if chains is None:
        part = draw_sample(width, height, mines, x, y, stop - start, seed + REFERENCE_OFFSET, method="rejection",
                           tries=1 << 40, label="rejection", start=start)
    else:
        part = draw_sample(width, height, mines, x, y, stop - start, stream_key(seed + REFERENCE_OFFSET, start),
                           method="chain", chain_start=chains, batch=True, label=f"chains from the {chains} start")
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
    ap.add_argument("--click", type=int, nargs=2, default=None, metavar=("X", "Y"), help="default: the centre")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--boards", type=int, default=2000)
    ap.add_argument("--chunk", type=int, default=25)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--chains", choices=("insert", "repair"), default=None,
                    help="one warm chain a chunk from this start, instead of rejection")
    ap.add_argument("--workers", type=int, default=1, help="local processes (1: this one)")
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler's address instead of local processes")
    ap.add_argument("--cluster", choices=["local"], help="a Dask LocalCluster of --workers processes")
    ap.add_argument("--join", default=None, help="join the chunks on disk into this .npz and stop")
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    if a.join:
        paths = sorted(glob.glob(os.path.join(a.dir, "chunk_*.npz")))
        ref = Sample.join([Sample.load(p) for p in paths])
        ref.save(a.join, f"python tools/make_reference.py --width {a.width} --height {a.height} "
                         f"--mines {a.mines} --seed {a.seed} --boards {ref.boards} --chunk {a.chunk}"
                         + (f" --click {a.click[0]} {a.click[1]}" if a.click else "")
                         + (f" --chains {a.chains}" if a.chains else ""))
        print(f"{len(paths)} chunks, {ref.boards} boards -> {a.join}")
        return
    todo = [(s, min(s + a.chunk, a.boards)) for s in range(0, a.boards, a.chunk)
            if not os.path.exists(os.path.join(a.dir, f"chunk_{s:06d}.npz"))]
    work = functools.partial(draw_chunk, a.width, a.height, a.mines, a.seed, a.dir, chains=a.chains,
                             click=tuple(a.click) if a.click else None)
    for _ in fan_out(work, todo, workers=a.workers, scheduler=a.scheduler, cluster=a.cluster):
        pass


if __name__ == "__main__":
    main()
