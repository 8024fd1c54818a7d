"""A child process that reads replay files with ms-toollib, one request at a time (child.py's protocol).

Run as a script (`python _toollib_worker.py --memory BYTES`), so it imports only ms-toollib, the
standard library and child.py beside it. It lives in its own process because ms-toollib aborts the
whole process (a Rust panic, SIGABRT) on many truncated or malformed files, and because a crafted file
can ask it for gigabytes: its address space is limited to BYTES, and a file whose board and clicks
would need more than that is refused after the cheap parse, before the costly analysis.

Request: a pickled tuple (fmt, data: bytes, features: bool). Answer: a pickled dict, or
{"error": message} when ms-toollib returned an error instead of aborting, or {"refused": why}.
"""

import math
import sys
from array import array

from child import limit_memory, serve  # type: ignore[import-not-found]  # run as a script beside child.py

MEMORY = limit_memory(sys.argv)

import ms_toollib as ms  # noqa: E402  (after the limit: it holds for everything ms-toollib does)

CLASSES = {"avf": ms.AvfVideo, "rmv": ms.RmvVideo, "mvf": ms.MvfVideo, "evf": ms.EvfVideo}
KINDS = ("mv", "lc", "lr", "rc", "rr", "mc", "mr", "pf", "cc", "l", "r", "m")
FIELDS = ("software", "player_identifier", "race_identifier", "unique_identifier", "country", "start_time",
          "end_time", "level", "mode", "row", "column", "mine_num", "pix_size", "rtime", "is_completed",
          "bbbv", "zini", "hzini", "op", "isl", "left", "right", "double", "cl", "ce", "flag", "bbbv_solved",
          "ioe", "rqp", "bbbv_s")


# ms-toollib's analysis keeps a copy of the board (4 bytes a cell) for every press and release after the
# game starts (measured: 2.1 GB for 8,000 presses on 255x255, 0.86 GB for 20,000 on 100x100).
BYTES_PER_CELL_PRESS = 4


def refuse(v):
    """Why the parsed header and events make a file too costly to analyse, or None."""
    cells = v.row * v.column
    if v.row < 1 or v.column < 1:
        return f"its board is {v.column}x{v.row}"
    if not math.isfinite(v.rtime) or v.rtime < 0:
        return f"its time {v.rtime} is not a time"
    presses = sum(1 for e in v.events if (m := e.event.unwrap_mouse()) is not None and m.mouse != "mv")
    need = BYTES_PER_CELL_PRESS * cells * presses
    if MEMORY is not None and need > MEMORY:
        return (f"its {v.column}x{v.row} board and {presses} clicks would need {need / 2 ** 20:,.0f} MB in "
                f"ms-toollib, more than its limit of {MEMORY / 2 ** 20:,.0f} MB")
    return None


def read(fmt, data, features):
    v = CLASSES[fmt](raw_data=data)
    err = v.parse()
    if err:  # some readers return a reason instead of raising
        return {"error": str(err)}
    why = refuse(v)
    if why:
        return {"refused": why}
    v.analyse()
    if features:
        v.analyse_for_features(["high_risk_guess", "needless_guess", "pluck"])
    v.current_time = 1e9  # the figures as at the end of the game
    out = {k: getattr(v, k) for k in FIELDS}
    out["checksum"] = bytes(v.checksum)
    out["valid"] = v.is_valid()
    out["board"] = [list(r) for r in v.board]
    out["game_board"] = [list(r) for r in v.game_board]
    out["pluck"] = v.pluck if features else None
    kinds, times, xs, ys, notes = bytearray(), array("d"), array("i"), array("i"), []
    for e in v.events:
        m = e.event.unwrap_mouse()
        if m is None:
            continue
        kinds.append(KINDS.index(m.mouse))
        times.append(e.time)
        xs.append(m.x)
        ys.append(m.y)
        if features and e.comments:
            notes.append((len(times) - 1, e.comments))
    out["events"] = (bytes(kinds), times.tobytes(), xs.tobytes(), ys.tobytes())
    out["notes"] = notes
    return out


def handle(request):
    fmt, data, features = request
    try:
        return read(fmt, data, features)
    except Exception as e:  # noqa: BLE001  (an error ms-toollib raised: reported, not fatal)
        return {"error": f"{type(e).__name__}: {e}"}


def main():
    serve(handle)


if __name__ == "__main__":
    main()
