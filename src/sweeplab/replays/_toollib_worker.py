"""A child process that reads replay files with ms-toollib, one request at a time over its stdin/stdout.

Run as a script (`python _toollib_worker.py`), so it imports only ms-toollib and the standard
library. It lives in its own process because ms-toollib aborts the whole process (a Rust panic,
SIGABRT) on many truncated or malformed files; the parent notices the death, reports that one
file as unreadable and starts a new worker for the rest.

Request: a pickled tuple (fmt, data: bytes, features: bool). Answer: a pickled dict, or
{"error": message} when ms-toollib returned an error instead of aborting.
"""

import pickle
import sys
from array import array

import ms_toollib as ms

CLASSES = {"avf": ms.AvfVideo, "rmv": ms.RmvVideo, "mvf": ms.MvfVideo, "evf": ms.EvfVideo}
KINDS = ("mv", "lc", "lr", "rc", "rr", "mc", "mr", "pf", "cc", "l", "r", "m")
FIELDS = ("software", "player_identifier", "race_identifier", "unique_identifier", "country", "start_time",
          "end_time", "level", "mode", "row", "column", "mine_num", "pix_size", "rtime", "is_completed",
          "bbbv", "zini", "hzini", "op", "isl", "left", "right", "double", "cl", "ce", "flag", "bbbv_solved",
          "ioe", "rqp", "bbbv_s")


def read(fmt, data, features):
    v = CLASSES[fmt](raw_data=data)
    err = v.parse()
    if err:  # some readers return a reason instead of raising
        return {"error": str(err)}
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


def main():
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            fmt, data, features = pickle.load(stdin)
        except EOFError:
            return
        try:
            answer = read(fmt, data, features)
        except Exception as e:  # noqa: BLE001  (an error ms-toollib raised: reported, not fatal)
            answer = {"error": f"{type(e).__name__}: {e}"}
        pickle.dump(answer, stdout)
        stdout.flush()


if __name__ == "__main__":
    main()
