"""The analysis board's worker: a child process that analyses one position at a time.

The solver's kernels hold the interpreter while they count, and a thread cannot be stopped, so a
position that runs past its time limit could only be waited out. A process can be killed: the server
sends each job here and stops this process when the job's time is up (see analyse.Worker).

Protocol, one JSON object a line: the server writes {"code", "trust_flags", "click", "optimal"}; this
process answers ["ready"] once at start (its kernels loaded), then per job ["core", {...}],
["optimal", {...}] where asked, and ["done"]; a bug answers ["error", "Type: message"].
"""

from __future__ import annotations

import json
import sys


def _warm() -> None:
    """Load every kernel a job uses (numba's cache, or a compile on the first run after an install),
    so that no job's time is spent on it."""
    from .analyse_position import Position
    from .analyse_report import report
    for text in ("3x3x2.bH8", "3x3x3.b2H7", "2x3x-.cH5"):
        for _ in report(Position.from_code(text), click=("open", 2, 2)):
            pass


def main() -> None:
    from .analyse_position import Position
    from .analyse_report import report

    out = sys.stdout

    def send(*msg):
        out.write(json.dumps(msg) + "\n")
        out.flush()

    _warm()
    send("ready")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            job = json.loads(line)
            click = job.get("click")
            for part, value in report(Position.from_code(job["code"]), trust_flags=job["trust_flags"],
                                      click=None if click is None else tuple(click), optimal=job["optimal"]):
                send(part, value)
            send("done")
        except Exception as e:  # a bug: said, and the next job still served
            send("error", f"{type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
