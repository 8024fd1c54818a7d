"""The analysis board's worker: a child process that analyses one position at a time.

The solver's kernels hold the interpreter while they count, and a thread cannot be stopped, so a
position that runs past its time limit could only be waited out. A process can be killed: the server
sends each job here and stops this process when the job's time is up (replays/child.py's Child), and
its memory is limited as the replay readers' is.

A job is {"code", "trust_flags", "click", "optimal"}; its answer comes in parts (child.py's protocol:
"ready" once at start, its kernels loaded, then per job ("core", {...}), ("optimal", {...}) where
asked, and "done"); a bug answers ("error", "Type: message") and the next job is still served.
"""

from __future__ import annotations


def warm() -> None:
    """Load every kernel a job uses (numba's cache, or a compile on the first run after an install),
    so that no job's time is spent on it."""
    from .analyse_position import AnalysisPosition
    from .analyse_report import report
    for text in ("3x3x2.bH8", "3x3x3.b2H7", "2x3x-.cH5"):
        for _ in report(AnalysisPosition.from_code(text), click=("open", 2, 2)):
            pass


def answer(job: dict):
    """The parts of a job's report, as they are found."""
    from .analyse_position import AnalysisPosition
    from .analyse_report import report

    try:
        click = job.get("click")
        yield from report(AnalysisPosition.from_code(job["code"]), trust_flags=job["trust_flags"],
                          click=None if click is None else tuple(click), optimal=job["optimal"])
    except Exception as e:  # a bug: said, and the next job still served
        yield "error", f"{type(e).__name__}: {e}"


def main() -> None:
    import sys

    from ..replays.child import limit_memory, serve

    limit_memory(sys.argv)  # (before the kernels load: --memory BYTES, from the server)
    warm()
    serve(answer, parts=True)


if __name__ == "__main__":
    main()
