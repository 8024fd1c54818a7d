"""How long the no-guess chain runs: a board's chain, a batch's spacing, and how many boards `auto`
tries by rejection before it runs the chain. Its constants are measured (benchmarks/
bench_noguess_mixing.py, benchmarks/bench_noguess.py; docs/findings/noguess-uniformity.md, "The
rule"), so they change when the study is run again, and nothing else here does.

`free` counts the cells outside the first click's 3x3 block, where mines may lie; `corner` says
whether that block holds a corner cell of the board (`corner_click`).
"""

from __future__ import annotations

import math

# chain_moves = BURN_IN x mines x min(free / (free - mines), RATIO_CAP) ** (BURN_IN_POWER x (free /
# SIZE_UNIT) ** DENSITY_SIZE_POWER) x (free / SIZE_UNIT) ** SIZE_POWER, times CORNER_FACTOR where the
# first click's block holds a corner cell. The density's power grows with the size because the need's
# growth with density does: per mine, at 30% of the free cells mined the need is about the same at
# 9x9, 16x16, 30x16 and 30x24, at 40% it rises steeply with the size (16x16 34 moves a mine, 30x16
# 77, 30x24 175); the size term, negative, takes back what that power adds where boards are light
# (per mine a light board needs less the larger it is). The powers and the factor are those whose
# largest margin (rule / need) where boards are light (below 40% of the free cells mined) is least;
# BURN_IN the least giving every measured point 1.5 times its need and the small levels their exact
# need (rounded up). Past half the free cells mined (RATIO_CAP), the densest the study measured
# beyond 9x9, the rule grows with the mines and the size alone.
BURN_IN = 0.5
BURN_IN_POWER = 10.0
RATIO_CAP = 2.0
SIZE_UNIT = 100  # free cells
SIZE_POWER = -0.625
DENSITY_SIZE_POWER = 0.2
CORNER_FACTOR = 1.25
# A batch hands out a board every SPACING relaxations (`relaxation`, the study's clock): about the
# largest integrated autocorrelation time the study measures (2.2 to 2.9 of them, half mined).
SPACING = 3
# `auto` lays at most one rejection board per MOVES_PER_PLAY of the chain's moves. A rejection board's
# play costs 1 to 3 chain moves at expert densities (benchmarks/bench_noguess.py --stages), so where
# no board certifies, rejection spends a quarter to four fifths of what the chain then costs: the
# price of not knowing the solvable share (where it is large, rejection's boards are exact and cheap).
MOVES_PER_PLAY = 4


def relaxation(free: int, mines: int) -> float:
    """The mixing study's clock: about the moves in which each mine is moved once (a move is kept
    about (1 - mines / free) ** 3 of the time)."""
    return mines * (free / (free - mines)) ** 3 if 0 < mines < free else 0.0


def corner_click(width: int, height: int, x: int, y: int, topology: str = "bounded") -> bool:
    """Whether the first click's 3x3 block holds a corner cell of the board (a torus has none)."""
    return topology == "bounded" and min(x, width - 1 - x) <= 1 and min(y, height - 1 - y) <= 1


def rule_form(free: int, mines: int, corner: bool, burn_in: float = BURN_IN, power: float = BURN_IN_POWER,
              size_power: float = SIZE_POWER, density_size_power: float = DENSITY_SIZE_POWER,
              corner_factor: float = CORNER_FACTOR) -> float:
    """The rule's moves before rounding, for 0 < mines < free (`corner`: `corner_click`); other
    constants give the forms the study fits."""
    ratio = min(free / (free - mines), RATIO_CAP)
    size = free / SIZE_UNIT
    moves = burn_in * mines * ratio ** (power * size ** density_size_power) * size ** size_power
    return moves * corner_factor if corner else moves


def chain_moves(free: int, mines: int, corner: bool) -> int:
    """The chain's moves for a board (`corner`: `corner_click`): the rule."""
    return int(math.ceil(rule_form(free, mines, corner))) if 0 < mines < free else 0


def batch_spacing(free: int, mines: int) -> int:
    """Moves between two boards a batch hands out (after the first board's `chain_moves`)."""
    return max(1, int(math.ceil(SPACING * relaxation(free, mines))))


def rejection_tries(free: int, mines: int, corner: bool) -> int:
    """Boards `auto` lays by rejection before it runs the chain (at least one)."""
    return max(1, chain_moves(free, mines, corner) // MOVES_PER_PLAY)
