"""Draw a no-guess rejection reference in chunks, so that a long run (hours at 130 mines) can be
stopped, resumed and joined; the boards are exactly those `sweeplab uniformity --seed S
--reference-boards K --save-reference` would draw (board i seeded by stream_key(S + 1000003, i)).

    python benchmarks/make_reference.py --mines 130 --boards 2000 --chunk 25 --dir refs/130
    python benchmarks/make_reference.py --mines 130 --dir refs/130 --join tests/data/noguess_reference_130.npz

Each chunk is written as it finishes (chunk_<first board>.npz); chunks already on disk are skipped.
"""

from __future__ import annotations

import argparse
import glob
import os
import time

from sweeplab.cli.uniformity import Sample, draw_sample

REFERENCE_OFFSET = 1_000_003  # as `sweeplab uniformity`: the reference's seed is the command's + this


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--width", type=int, default=30)
    ap.add_argument("--height", type=int, default=16)
    ap.add_argument("--mines", type=int, required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--boards", type=int, default=2000)
    ap.add_argument("--chunk", type=int, default=25)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--join", default=None, help="join the chunks on disk into this .npz and stop")
    ap.add_argument("--reverse", action="store_true", help="last chunk first (a second process beside a first)")
    a = ap.parse_args()
    x, y = a.width // 2, a.height // 2
    os.makedirs(a.dir, exist_ok=True)
    if a.join:
        paths = sorted(glob.glob(os.path.join(a.dir, "chunk_*.npz")))
        ref = Sample.join([Sample.load(p) for p in paths])
        ref.save(a.join, f"python benchmarks/make_reference.py --width {a.width} --height {a.height} "
                         f"--mines {a.mines} --seed {a.seed} --boards {ref.boards} --chunk {a.chunk}")
        print(f"{len(paths)} chunks, {ref.boards} boards -> {a.join}")
        return
    starts = list(range(0, a.boards, a.chunk))
    for start in reversed(starts) if a.reverse else starts:
        path = os.path.join(a.dir, f"chunk_{start:06d}.npz")
        if os.path.exists(path):
            continue
        t = time.perf_counter()
        part = draw_sample(a.width, a.height, a.mines, x, y, min(a.chunk, a.boards - start), a.seed + REFERENCE_OFFSET,
                           method="rejection", tries=1 << 40, label="rejection", start=start)
        part.save(path + ".tmp.npz", "chunk")
        os.replace(path + ".tmp.npz", path)
        print(f"boards {start}..{start + part.boards - 1}: {time.perf_counter() - t:.1f} s", flush=True)


if __name__ == "__main__":
    main()
