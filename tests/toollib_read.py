"""ms-toollib's own reading of an EVF file, every event (moves too) and its counters, for the tests that
check what sweeplab writes. Run in a process of its own: ms-toollib aborts its process on a file it
cannot read, which must fail one test, not the test run."""

from __future__ import annotations

import json
import subprocess
import sys

SCRIPT = """
import json, sys
import ms_toollib as ms
v = ms.EvfVideo(raw_data=list(sys.stdin.buffer.read()))
v.parse()
v.analyse()
v.current_time = 1e9  # the counters as at the end of the game
events = []
for e in v.events:
    m = e.event.unwrap_mouse()
    if m is not None:
        events.append([m.mouse, e.time, m.x, m.y])
out = {k: getattr(v, k) for k in ("bbbv", "bbbv_solved", "left", "right", "double", "ce", "lce", "rce", "dce",
                                  "cl", "flag", "is_completed", "rtime", "level", "player_identifier", "row",
                                  "column", "mine_num", "path")}
out["events"] = events
print(json.dumps(out))
"""


def toollib_read(data: bytes) -> dict:
    """ms-toollib's counters of an EVF file and its events [kind, seconds, x, y], moves included."""
    done = subprocess.run([sys.executable, "-c", SCRIPT], input=data, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-2000:]
    return json.loads(done.stdout)
