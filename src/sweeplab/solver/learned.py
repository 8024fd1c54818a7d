"""The learned player: a small convolutional network, trained by `sweeplab.rl.train`, picks every move.

It sees what every player sees, a `View`, as input planes (`PLANES`): each cell hidden or its open
number, one-hot, and for each hidden cell its exact mine probability and whether the analysis
proved it safe or a mine (`analyse`: the same count every solver here uses). The network
(solver/policy_net.py, numpy only) gives each cell a score with the same weights on every board
size; the player opens the hidden cell of highest score, exact ties broken by its seed.

Nothing overrides the network: it may open a proven mine, or guess while a proven-safe cell is
left. A move is `certain` only when the analysis proved its cell safe, so the autoplayer's counts
show how often the network guesses, and benchmarks/bench_learned.py counts its unsound moves.
When the network's cell is proven safe, the position's other proven-safe cells follow it in the
same turn (as every deducing player here plays them): opening safe cells in another order opens
the same cells, so only the forward passes are saved, one per position rather than one per cell.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

from ..errors import SweeplabError
from ..view import FLAG, HIDDEN, View
from .complete import analyse
from .frontier import TooComplexError
from .player import BEYOND_EXACT, Move, Player, rules_until_safe
from .policy_net import PolicyNet

# The input planes, in order: hidden (a flag counts as hidden: a player's flags may be wrong), the
# open numbers 0..8, the exact P(mine) of a hidden cell (0 on open cells), proven safe, proven mine.
PLANES = ("hidden", *(str(k) for k in range(9)), "p_mine", "safe", "mine")
WEIGHTS = Path(__file__).with_name("learned_policy.npz")


def planes_of(cells: np.ndarray, probability: np.ndarray, safe: np.ndarray, mines: np.ndarray) -> np.ndarray:
    """The input planes (..., h, w, len(PLANES)) float32 of view cells (..., h, w) and their analysis:
    P(mine) (NaN or anything on open cells), proven safe and proven mine (bool)."""
    cells = np.asarray(cells)
    hidden = (cells == HIDDEN) | (cells == FLAG)
    out = np.zeros(cells.shape + (len(PLANES),), np.float32)
    out[..., 0] = hidden
    for k in range(9):
        out[..., 1 + k] = cells == k
    out[..., 10] = np.where(hidden, np.nan_to_num(probability, nan=0.0), 0.0)
    out[..., 11] = hidden & safe
    out[..., 12] = hidden & mines
    return out


def position_analysis(view: View) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(P(mine), proven safe, proven mine, exact) of a view. Past the exact count's budget
    (`TooComplexError`, not met in real games of the standard levels) the rules decide what they
    can and every other hidden cell gets the density of the mines left among them (exact False)."""
    try:
        a = analyse(view)
        return a.probability, a.safe, a.mines, True
    except TooComplexError:
        pass
    cells = view.cells.copy()
    cells[cells == FLAG] = HIDDEN  # untrusted, as analyse treats them
    plain = View(cells, view.mine_count, view.topology)
    safe, mines = rules_until_safe(plain)
    unknown = plain.hidden
    undecided = unknown & ~safe & ~mines
    left = view.mine_count - int(np.count_nonzero(mines & unknown))
    p = np.full(cells.shape, np.nan)
    p[undecided] = left / max(1, int(np.count_nonzero(undecided)))
    p[unknown & safe] = 0.0
    p[unknown & mines] = 1.0
    return p, safe & unknown, mines & unknown, False


@lru_cache(maxsize=1)
def shipped_net() -> PolicyNet:
    """The network shipped with sweeplab (trained by `python -m sweeplab.rl.train`, docs/rl.md)."""
    return PolicyNet.load(WEIGHTS)


class LearnedPlayer(Player):
    """Opens the hidden cell its network scores highest; `net` defaults to the shipped weights."""

    name = "learned"
    summary = "a convolutional network on the view and the exact odds, trained by imitation"

    def __init__(self, seed, net: PolicyNet | None = None):
        super().__init__(seed)
        self.net = net if net is not None else shipped_net()
        if self.net.planes != len(PLANES):
            raise SweeplabError(f"the network reads {self.net.planes} input planes; the learned player gives "
                                f"{len(PLANES)} ({', '.join(PLANES)})")

    def scores(self, view: View) -> np.ndarray:
        """The network's score of every cell (h, w); -inf where no move can go (open or flagged)."""
        return self._scored(view)[0]

    def moves(self, view: View) -> list[Move]:
        score, safe, exact = self._scored(view)
        if not view.hidden.any():
            raise SweeplabError("learned player: no hidden cell to open (every one is open or flagged)")
        flat = score.reshape(-1)
        move = self._pick(np.flatnonzero(flat == flat.max()), view.width)
        if not safe[move.y, move.x]:
            return [move._replace(certain=False, note="" if exact else BEYOND_EXACT)]
        rest = [m for m in self._certain(safe & view.hidden) if (m.x, m.y) != (move.x, move.y)]
        return [move._replace(certain=True, note=""), *rest]

    def _scored(self, view: View):
        p, safe, mines, exact = position_analysis(view)
        logits = self.net.logits(planes_of(view.cells, p, safe, mines), wrap=view.topology == "torus")
        return np.where(view.hidden, logits, -np.inf), safe, exact
