"""The exhaustive end game: when few layouts remain, the guess with the highest chance of winning.

Every remaining layout is equally likely. A state is the set of layouts still consistent (a
bitset over them); revealing a cell splits it by what the reveal shows: its number, and when that
is a 0, every cell its cascade opens with their numbers. A cell safe in every layout of a state
is opened for free when it tells something. The search is a memoised expectimax, cells tried
safest first and cut off when even surviving them could not beat the best found; over `budget`
states it gives up (the caller falls back to its heuristic), so it never hangs.
"""

from __future__ import annotations

import numpy as np

from ..errors import SweeplabError
from ..view import FLAG, View
from .layouts import enumerate_layouts


class _OverBudget(Exception):
    pass


def observations(view: View, mines: np.ndarray, undecided: np.ndarray, L: np.ndarray) -> list[dict]:
    """For each undecided cell k, {what its reveal shows: bitmask of the layouts showing it}, the
    mine "shown" as None. A reveal shows the cell's number, and for a 0 the numbers of every cell
    its cascade opens (the cascade stays among undecided cells: no other hidden cell is left)."""
    var = np.flatnonzero(undecided.reshape(-1))
    n = len(var)
    nbr = view.neighbours
    known = mines.reshape(-1) | (view.cells.reshape(-1) == FLAG)
    pos = {int(c): k for k, c in enumerate(var)}
    adj = np.zeros((n, n), dtype=np.int64)
    base = np.zeros(n, dtype=np.int64)
    near: list[list[int]] = []
    for k, c in enumerate(var):
        ns = nbr[c][nbr[c] >= 0]
        base[k] = int(np.count_nonzero(known[ns]))
        near.append([pos[int(j)] for j in ns if int(j) in pos])
        adj[k, near[k]] = 1
    values = base + L.astype(np.int64) @ adj
    values[L] = -1
    out: list[dict] = [{} for _ in range(n)]
    for k in range(n):
        col = values[:, k]
        for v in np.unique(col):
            rows = np.flatnonzero(col == v)
            if v != 0:
                bits = 0
                for r in rows:
                    bits |= 1 << int(r)
                out[k][None if v < 0 else int(v)] = bits
                continue
            for r in rows:  # a 0: what the cascade opens depends on the layout
                seen, stack = {k}, [k]
                while stack:
                    j = stack.pop()
                    if values[r, j] == 0:
                        for i in near[j]:
                            if i not in seen:
                                seen.add(i)
                                stack.append(i)
                key = tuple(sorted((int(j), int(values[r, j])) for j in seen))
                out[k][key] = out[k].get(key, 0) | (1 << int(r))
    return out


def best_reveal(obs: list[dict], count: int, budget: int) -> tuple[float, int]:
    """(the best chance of winning from all `count` layouts, the cell to reveal first); cell -1
    when nothing is left to guess. Raises _OverBudget past `budget` states."""
    mine = [o.get(None, 0) for o in obs]
    shows = [[b for key, b in o.items() if key is not None] for o in obs]
    memo: dict[int, float] = {}
    spent = 0

    def win(s: int) -> tuple[float, int]:
        nonlocal spent
        got = memo.get(s)
        if got is not None:
            return got, -1
        spent += 1
        if spent > budget:
            raise _OverBudget
        n = s.bit_count()
        guesses = []
        for k in range(len(obs)):
            safe = s & ~mine[k]
            if not safe:
                continue
            parts = [s & b for b in shows[k] if s & b]
            if safe == s:
                if len(parts) > 1:  # safe in every layout and telling: open it, for free
                    v = sum(p.bit_count() * win(p)[0] for p in parts) / n
                    memo[s] = v
                    return v, k
                continue
            guesses.append((safe.bit_count(), k, parts))
        best, best_k = -1.0, -1
        guesses.sort(key=lambda g: -g[0])
        for alive, k, parts in guesses:
            if alive / n <= best + 1e-12:
                break  # even surviving this guess cannot beat the best found
            got, left = 0.0, alive
            for p in parts:
                c = p.bit_count()
                got += c * win(p)[0]
                left -= c
                if (got + left) / n <= best + 1e-12:
                    break
            got /= n
            if got > best + 1e-12:
                best, best_k = got, k
        if best_k < 0:
            best = 1.0  # every cell decided: the rest opens safely
        memo[s] = best
        return best, best_k

    return win((1 << count) - 1)


def endgame_move(view: View, mines: np.ndarray, undecided: np.ndarray, layouts: int, budget: int = 4000):
    """The guess with the highest chance of winning the whole game, by searching every sequence
    of reveals over the remaining layouts (all equally likely): a `Move`, or None when the search
    goes over `budget` states. `layouts`: how many the analysis counted (checked)."""
    from .players import Move
    L = enumerate_layouts(view, mines, undecided, layouts)
    if L is None or len(L) == 0:
        return None
    if len(L) != layouts:
        raise SweeplabError(f"end game: enumerated {len(L)} layouts where the analysis counted {layouts}")
    try:
        _, k = best_reveal(observations(view, mines, undecided, L), len(L), budget)
    except _OverBudget:
        return None
    if k < 0:
        return None
    c = int(np.flatnonzero(undecided.reshape(-1))[k])
    return Move("open", c % view.width, c // view.width, False)
