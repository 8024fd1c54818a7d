"""The recorded mouse path at its cap: what it takes on the wire and in the database, and what the server's
check of it costs.

    python benchmarks/bench_paths.py [--repeat 5]

The path is an expert win (every safe cell clicked, a left press and release each) with mouse moves
between the clicks, a random walk of steps up to 6 px every 8 to 24 ms, up to the cap of 20,000 events.
The check is what `POST /api/games/ID/path` does in its worker thread: the path's bounds
(paths.check_path) and its clicks played by the community's rules against the game's moves
(record_routes.same_moves). Prints the median over --repeat runs.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._timing import machine  # noqa: E402

from sweeplab.generators.uniform import uniform_board  # noqa: E402
from sweeplab.play.paths import CELL, KINDS, MAX_EVENTS, check_path, encode_path  # noqa: E402
from sweeplab.play.record_routes import same_moves  # noqa: E402
from sweeplab.replays.evf import button_events  # noqa: E402
from sweeplab.replays.mouse import MouseEvent, play_events  # noqa: E402


def expert_path(seed: int) -> tuple[list[int], dict]:
    """A path of MAX_EVENTS events (wire form) and the record of the game its clicks make."""
    rng = random.Random(seed)
    board = uniform_board(30, 16, 99, seed)
    w, h = board.width * CELL, board.height * CELL
    events, t, x, y = [], 0.0, w // 2, h // 2
    for cx, cy in [(x, y) for y in range(16) for x in range(30) if not board.is_mine(x, y)]:
        for _ in range(48):
            t += rng.randint(8, 24) / 1000
            x, y = min(w - 1, max(0, x + rng.randint(-6, 6))), min(h - 1, max(0, y + rng.randint(-6, 6)))
            events.append(MouseEvent("mv", t, x, y))
        for kind in ("lc", "lr"):
            t += 0.05
            events.append(MouseEvent(kind, t, cx * CELL + 8, cy * CELL + 8))
    events = events[:MAX_EVENTS]
    path, last = [], None
    for e in events:
        ms = round(e.t * 1000)
        path += [KINDS.index(e.kind), ms, e.x, e.y] if last is None else \
            [KINDS.index(e.kind), ms - last[0], e.x - last[1], e.y - last[2]]
        last = (ms, e.x, e.y)
    game = play_events(board, button_events(events), CELL).game
    return path, {"played_board": board.to_dict(), "actions": [a.to_list() for a in game.log]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    path, record = expert_path(1)
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        check_path(path, 30, 16)
        assert same_moves(record, path)
        times.append(time.perf_counter() - t0)
    wire = len(json.dumps({"path": path}, separators=(",", ":")))
    print(f"machine: {machine()}")
    print("| events | clicks | JSON on the wire | kept (compressed) | server's check, median |")
    print("|---|---|---|---|---|")
    print(f"| {len(path) // 4:,} | {len(record['actions'])} | {wire / 1000:.0f} kB | {len(encode_path(path)) / 1000:.0f} kB "
          f"| {statistics.median(times) * 1000:.0f} ms |")


if __name__ == "__main__":
    main()
