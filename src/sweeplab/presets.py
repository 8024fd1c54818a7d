"""Named levels. `beginner` is 9x9/10 as on Windows 2000 and later; win98's 8x8 comes via the version."""

from __future__ import annotations

from typing import NamedTuple

from .errors import InvalidBoardError


class Level(NamedTuple):
    """A board's size and mine count."""

    width: int
    height: int
    mines: int


PRESETS = {
    "beginner": Level(9, 9, 10),
    "intermediate": Level(16, 16, 40),
    "expert": Level(30, 16, 99),
}


def preset(name: str) -> Level:
    """The level called `name` (beginner, intermediate, expert)."""
    try:
        return PRESETS[name]
    except KeyError:
        raise InvalidBoardError(f"unknown preset {name!r}; allowed: {', '.join(PRESETS)}") from None
