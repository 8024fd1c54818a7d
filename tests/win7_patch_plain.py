"""The Windows 7 no-guess patch transcribed plainly from its description, with no code of sweeplab's:
the oracle of tests/test_win7_noguess.py, and the writer of its golden vectors.

    python -m tests.win7_patch_plain     # writes tests/data/golden_win7_noguess.json

Written for clarity, not speed: Python lists and sets, the rules applied all at once per round
(every conclusion of the position, then act on all of them) until a round finds nothing new.
"""

from __future__ import annotations

import json
from pathlib import Path

ATTEMPTS = 500
GOLDEN = Path(__file__).parent / "data" / "golden_win7_noguess.json"


def rand_stream(seed):
    """Microsoft's rand() after srand(seed)."""
    state = seed
    while True:
        state = (state * 214013 + 2531011) % 2**32
        yield (state >> 16) & 0x7FFF


def neighbours(width, height, c):
    x, y = c % width, c // width
    return {(y + dy) * width + x + dx for dy in (-1, 0, 1) for dx in (-1, 0, 1)
            if (dx or dy) and 0 <= x + dx < width and 0 <= y + dy < height}


def lay(rand, width, height, mines, cx, cy, removal="shift"):
    """One Windows 7 placement from the rand() stream: the set of mine cells."""
    candidates = [y * width + x for y in range(height) for x in range(width)
                  if not (abs(x - cx) <= 1 and abs(y - cy) <= 1)]
    laid = set()
    while len(laid) < mines and candidates:
        i = next(rand) % len(candidates)
        if removal == "shift":
            laid.add(candidates.pop(i))
        else:  # the last candidate takes the picked one's place
            laid.add(candidates[i])
            candidates[i] = candidates[-1]
            candidates.pop()
    return laid


def conclusions(width, height, number, opened, flagged):
    """Every cell the three rules decide in this position: (safe set, mine set)."""
    unknown, rest = {}, {}
    for c in opened:
        around = neighbours(width, height, c)
        unknown[c] = around - opened - flagged
        rest[c] = number[c] - len(around & flagged)
    safe, mines = set(), set()
    for a in opened:
        if not unknown[a]:
            continue
        if rest[a] == 0:  # a satisfied number
            safe |= unknown[a]
        if rest[a] == len(unknown[a]):  # its unknown cells must all be mines
            mines |= unknown[a]
        sharing = set().union(*(neighbours(width, height, u) for u in unknown[a])) & opened
        for b in sharing:  # the subset rule: a's unknown cells among b's (so b shares a cell with a)
            if unknown[a] < unknown[b]:
                extra, need = unknown[b] - unknown[a], rest[b] - rest[a]
                if need == 0:
                    safe |= extra
                if need == len(extra):
                    mines |= extra
    return safe, mines


def fixed_point(width, height, laid, cx, cy, opened=None, flagged=None):
    """Open the click, then apply the rules until they find nothing new: (opened, flagged)."""
    number = {c: len(neighbours(width, height, c) & laid) for c in range(width * height)}
    opened = {cy * width + cx} if opened is None else set(opened)
    flagged = set() if flagged is None else set(flagged)
    while True:
        safe, mines = conclusions(width, height, number, opened, flagged)
        if safe <= opened and mines <= flagged:
            return opened, flagged
        assert not (safe & laid) and mines <= laid, "an unsound conclusion"
        opened |= safe
        flagged |= mines


def patch(seed, width, height, mines, cx, cy, removal="shift", attempts=ATTEMPTS):
    """The patch's loop: (board text, attempts laid, whether it fell back)."""
    mines = min(mines, width * height - 9)
    rand = rand_stream(seed)
    for t in range(1, attempts + 1):
        laid = lay(rand, width, height, mines, cx, cy, removal)
        opened, _ = fixed_point(width, height, laid, cx, cy)
        if len(opened) == width * height - len(laid):
            return text(width, height, laid), t, False
    return text(width, height, laid), attempts, True


def text(width, height, laid):
    return "".join("".join("*" if y * width + x in laid else "." for x in range(width)) + "\n" for y in range(height))


# (seed, width, height, mines, click, removal): each level, the clamp, a fallback, the swap reading
CASES = [(0, 9, 9, 10, (4, 4), "shift"), (1262304000, 9, 9, 10, (0, 0), "shift"),
         (1262304000, 16, 16, 40, (15, 15), "shift"), (1700000000, 30, 16, 99, (15, 8), "shift"),
         (123456789, 30, 16, 99, (0, 15), "shift"), (4000000000, 10, 10, 89, (5, 5), "shift"),
         (77, 10, 10, 95, (4, 4), "shift"), (3141592653, 30, 24, 668, (29, 0), "shift"),
         (1700000000, 30, 16, 99, (15, 8), "swap"), (2024, 16, 16, 40, (3, 12), "swap")]


def main() -> None:
    entries = []
    for seed, w, h, m, click, removal in CASES:
        text, attempts, fell_back = patch(seed, w, h, m, *click, removal=removal)
        entries.append({"seed": seed, "width": w, "height": h, "mines": m, "click": list(click), "removal": removal,
                        "attempts": attempts, "fell_back": fell_back, "board": text})
    GOLDEN.write_text(json.dumps(entries, indent=1) + "\n")
    print(f"wrote {GOLDEN.name}: {len(entries)} boards")


if __name__ == "__main__":
    main()
