"""How long the no-guess chain runs: a board's chain, a batch's spacing, and how many boards `auto`
tries by rejection before it runs the chain. Its constants are measured (benchmarks/
bench_noguess_mixing.py, benchmarks/bench_noguess.py; docs/findings/noguess-uniformity.md, "The
rule"), so they change when the study is run again, and nothing else here does.

`free` counts the cells outside the first click's 3x3 block, where mines may lie.
"""

from __future__ import annotations

import math

# chain_moves = BURN_IN x mines x min(free / (free - mines), RATIO_CAP) ** BURN_IN_POWER
# x (free / SIZE_UNIT) ** SIZE_POWER: a dense board mixes slower per mine the larger it is. The
# powers are those whose largest margin (rule / need) where boards are light (below 40% of the free
# cells mined) is least; BURN_IN the least giving every measured point 1.5 times its need and the
# small levels their exact need (rounded up). Past half the free cells mined (RATIO_CAP), the
# densest the study measured beyond 9x9, the rule grows with the mines and the size alone.
BURN_IN = 0.47
BURN_IN_POWER = 11.5
RATIO_CAP = 2.0
SIZE_UNIT = 100  # free cells
SIZE_POWER = 0.25
# A batch hands out a board every SPACING relaxations (`relaxation`, the study's clock): about the
# largest integrated autocorrelation time the study measures (2.2 to 2.9 of them, half mined).
SPACING = 3
# What a rejection board's play costs in chain moves (benchmarks/bench_noguess.py --stages): `auto`
# lays at most the boards that cost what the chain would.
MOVES_PER_PLAY = 4


def relaxation(free: int, mines: int) -> float:
    """The mixing study's clock: about the moves in which each mine is moved once (a move is kept
    about (1 - mines / free) ** 3 of the time)."""
    return mines * (free / (free - mines)) ** 3 if 0 < mines < free else 0.0


def rule_form(free: int, mines: int, burn_in: float = BURN_IN, power: float = BURN_IN_POWER,
              size_power: float = SIZE_POWER) -> float:
    """The rule's moves before rounding, for 0 < mines < free; other constants give the forms the
    study fits."""
    ratio = min(free / (free - mines), RATIO_CAP)
    return burn_in * mines * ratio ** power * (free / SIZE_UNIT) ** size_power


def chain_moves(free: int, mines: int) -> int:
    """The chain's moves for a board: the rule."""
    return int(math.ceil(rule_form(free, mines))) if 0 < mines < free else 0


def batch_spacing(free: int, mines: int) -> int:
    """Moves between two boards a batch hands out (after the first board's `chain_moves`)."""
    return max(1, int(math.ceil(SPACING * relaxation(free, mines))))


def rejection_tries(free: int, mines: int) -> int:
    """Boards `auto` lays by rejection before it runs the chain (at least one)."""
    return max(1, chain_moves(free, mines) // MOVES_PER_PLAY)
