"""Forced guesses: pairs of hidden cells holding one mine that no later reveal can tell apart.

Such a pair must be guessed sooner or later at even odds, so guessing it at once costs nothing
and, when it goes well, leaves the rest of the game with one fewer unknown.
"""

from __future__ import annotations

import numpy as np

from ..view import View


def forced_pairs(view: View, mines: np.ndarray, undecided: np.ndarray) -> list[tuple[int, int]]:
    """Each pair (a, b) of flat cell indexes: a number sees exactly these two undecided cells and
    needs one more mine among them, no hidden cell that could still be opened touches one of them
    but not the other, and every open number beside them sees no other undecided cell."""
    cells = view.cells.reshape(-1)
    nbr = view.neighbours
    known = mines.reshape(-1)
    und = view.hidden.reshape(-1) & ~known  # hidden cells a reveal could still show (safe ones too)
    pairs_mask = undecided.reshape(-1)
    n_und = np.append(pairs_mask, False)[nbr].sum(axis=1)  # index -1 (off the grid) reads False
    n_known = np.append(known, False)[nbr].sum(axis=1)
    out, seen = [], set()
    for i in np.flatnonzero((cells > 0) & (n_und == 2) & (cells - n_known == 1)):
        ns = nbr[i][nbr[i] >= 0]
        pair = ns[und[ns]]
        if pair.size != 2:  # a safe hidden cell beside it as well
            continue
        a, b = int(pair[0]), int(pair[1])
        if (a, b) in seen:
            continue
        na, nb_ = set(nbr[a][nbr[a] >= 0].tolist()), set(nbr[b][nbr[b] >= 0].tolist())
        if any(und[c] for c in (na ^ nb_) - {a, b}):  # a hidden cell beside only one could show which
            continue
        ok = True
        for c in (na | nb_) - {a, b}:  # every open number beside them must see no other undecided cell
            if cells[c] >= 0:
                others = nbr[c][nbr[c] >= 0]
                if np.count_nonzero(und[others]) != np.count_nonzero(und[others] & ((others == a) | (others == b))):
                    ok = False
                    break
        if ok:
            seen.add((a, b))
            out.append((a, b))
    return out
