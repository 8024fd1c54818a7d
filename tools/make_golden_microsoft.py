"""Write tests/data/golden_microsoft.json: first boards of WinMine sessions and Windows 7 boards.

    python tools/make_golden_microsoft.py

The file pins the emulation: tests check every entry against the code AND against a plain
Python transcription of the placement (tests/test_winmine.py, tests/test_win7.py), so a change to
either shows up. Regenerate it
only when the emulation was wrong, and say why in the commit.
"""

from __future__ import annotations

import json
from pathlib import Path

from sweeplab.generators.win7 import win7_board
from sweeplab.generators.winmine import WinMineSession
from sweeplab.msvc import MsvcRand

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "golden_microsoft.json"


def main() -> None:
    rand = []
    for seed in (0, 1, 12345, 0xFFFFFFFF):
        r = MsvcRand(seed)
        rand.append({"seed": seed, "values": [r.rand() for _ in range(8)], "state_after": r.state})

    sessions = []
    plans = [  # (version, start, [level per game]); a level is a preset name or [w, h, m]
        ("win98", {"tick": 0}, ["beginner"] * 3),
        ("win98", {"tick": 65535}, ["beginner", "intermediate", "expert"]),
        ("win31", {"tick": 4242}, [[8, 8, 49], "beginner"]),
        ("winxp", {"tick": 0}, ["beginner"] * 3),
        ("winxp", {"tick": 12345}, ["intermediate", [30, 24, 667], "expert"]),
        ("win2000", {"state": 0xDEADBEEF}, ["expert", [9, 9, 10], "beginner"]),
        ("winnt", {"state": 2**31 + 7}, [[16, 16, 20], "intermediate"]),
    ]
    for version, start, levels in plans:
        s = WinMineSession(version, **start)
        games = []
        for lv in levels:
            before = s.state
            if isinstance(lv, str):
                b = s.next_board(lv)
            else:
                b = s.next_board(width=lv[0], height=lv[1], mines=lv[2])
            games.append({"level": lv, "state_before": before, "state_after": s.state, "board": b.to_text()})
        sessions.append({"version": version, **start, "games": games})

    win7 = []
    for seed, (w, h, m), click in [(0, (9, 9, 10), (4, 4)), (1262304000, (9, 9, 10), (0, 0)),
                                   (1262304000, (16, 16, 40), (15, 15)), (1700000000, (30, 16, 99), (10, 7)),
                                   (0xFFFFFFFF, (30, 24, 667), (29, 0)), (123456789, (9, 9, 72), (8, 4))]:
        b = win7_board(seed, w, h, m, *click)
        win7.append({"seed": seed, "width": w, "height": h, "mines": m, "click": list(click), "board": b.to_text()})

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({"rand": rand, "winmine": sessions, "win7": win7}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
