"""Players: given only a `View`, choose the next moves. `rules`, `safest` and `strong`, found by name.

A player returns a list of `Move`s: every cell its deduction proved safe (each marked
`certain`), or else one guess. Random choices come from the player's own seed, so a game
replays exactly. Players never flag: a mine they know is simply never opened.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Callable, NamedTuple

import numpy as np

from ..errors import SweeplabError
from ..rng import seed_key
from ..view import FLAG, HIDDEN, View
from .complete import analyse
from .frontier import InconsistentPositionError, TooComplexError
from .layouts import enumerate_layouts
from .local import deduce_rules

# Positions whose exact count the core declines (a bound it reports) are played by a local estimate.
BEYOND_EXACT = "beyond-exact"


class Move(NamedTuple):
    kind: str      # "open" (the players here only open)
    x: int
    y: int
    certain: bool  # True when the player's deduction proved the cell safe
    note: str = ""  # BEYOND_EXACT when the exact analysis declined the position


def rules_until_safe(view: View) -> tuple[np.ndarray, np.ndarray]:
    """(safe, mines) by the rules, applied again with the mines they found as trusted flags until
    they free a cell or find nothing new (the rules are one level; a solver repeats them)."""
    safe, mines = deduce_rules(view)
    hidden = view.hidden
    while not safe.any() and mines.any():
        cells = view.cells.copy()
        cells[cells == FLAG] = HIDDEN  # the view's own flags stay unknown: only proven mines are trusted
        cells[mines & hidden] = FLAG
        safe, more = deduce_rules(View(cells, view.mine_count, view.topology), trust_flags=True)
        more &= hidden & ~mines
        if not more.any():
            break
        mines = mines | more
    return safe, mines


class Player(ABC):
    """Base of every player: a name, and a seeded source for its random choices."""

    name = "?"
    summary = ""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed_key(seed))

    @abstractmethod
    def moves(self, view: View) -> list[Move]:
        """The moves to make on this view (certain ones first)."""

    # --- shared helpers --------------------------------------------------------------
    @staticmethod
    def _certain(safe: np.ndarray) -> list[Move]:
        ys, xs = np.nonzero(safe)
        return [Move("open", int(x), int(y), True) for y, x in zip(ys, xs)]

    def _pick(self, flat_cells: np.ndarray, width: int) -> Move:
        i = int(flat_cells[self.rng.integers(len(flat_cells))]) if len(flat_cells) > 1 else int(flat_cells[0])
        return Move("open", i % width, i // width, False)


class RandomPlayer(Player):
    """Opens a random hidden cell; the floor every other player must beat."""

    name = "random"
    summary = "a random hidden cell every move"

    def moves(self, view):
        hidden = np.flatnonzero(view.hidden)
        return [self._pick(hidden, view.width)]


class RulesPlayer(Player):
    """Single-number and subset rules; when they are stuck, a random cell not known to be a mine."""

    name = "rules"
    summary = "single-number and subset rules, else a random guess"

    def moves(self, view):
        safe, mines = rules_until_safe(view)
        if safe.any():
            return self._certain(safe)
        free = np.flatnonzero(view.hidden & ~mines)
        if free.size == 0:  # cannot happen on a consistent view; guard against a wrong deduction
            raise SweeplabError("rules player: every hidden cell is a known mine but the game is not won")
        return [self._pick(free, view.width)]


def opening_odds(view: View, undecided: np.ndarray) -> np.ndarray:
    """Per cell, how many undecided hidden neighbours it has (fewer: likelier to be a 0 and open)."""
    nbr = view.neighbours
    flat = undecided.reshape(-1)
    padded = np.append(flat, False)  # index -1 (off a bounded grid) reads False
    return padded[nbr].sum(axis=1).reshape(view.cells.shape)


class SafestPlayer(Player):
    """Complete deduction; else the safest cell, ties broken towards cells likely to open (corners,
    edges, few unknown neighbours), then at random."""

    name = "safest"
    summary = "complete deduction, else the cell most likely safe"

    def moves(self, view):
        certain, a = self._certain_or_analysis(view)
        if certain is not None:
            return certain
        undecided = view.hidden & ~a.mines
        return [self._safest(view, a.probability, undecided)]

    def _certain_or_analysis(self, view):
        """(certain moves, None), or (None, the complete analysis) when a guess is needed.

        The rules go first because they find most certain moves cheaply; a position too complex
        for the exact count gets a local guess."""
        safe, rule_mines = rules_until_safe(view)
        if safe.any():
            return self._certain(safe), None
        try:
            a = analyse(view)
        except TooComplexError:
            return [self._local_guess(view, rule_mines)], None
        if a.safe.any():
            return self._certain(a.safe), None
        return None, a

    def _local_guess(self, view, mines) -> Move:
        """A guess without the exact analysis: each cell's risk estimated by its most demanding
        number (mines still needed / unknown cells around it), off-frontier by the density left."""
        cells = view.cells.reshape(-1)
        nbr = view.neighbours
        unknown = view.hidden.reshape(-1) & ~mines.reshape(-1)
        pad_u = np.append(unknown, False)
        pad_m = np.append(mines.reshape(-1), False)
        risk = np.full(cells.size, (view.mines_left - np.count_nonzero(mines)) / max(1, np.count_nonzero(unknown)))
        for i in np.flatnonzero(cells > 0):
            ns = nbr[i]
            u = int(pad_u[ns].sum())
            if u:
                r = (cells[i] - int(pad_m[ns].sum())) / u
                hit = ns[(ns >= 0)]
                hit = hit[unknown[hit]]
                risk[hit] = np.maximum(risk[hit], r)
        risk[~unknown] = np.inf
        ties = np.flatnonzero(risk <= risk.min() + 1e-12)
        m = self._pick(ties, view.width)
        return m._replace(note=BEYOND_EXACT)

    def _safest(self, view, probability, undecided) -> Move:
        p = np.where(undecided, probability, np.inf).reshape(-1)
        best = p.min()
        ties = np.flatnonzero(p <= best + 1e-12)
        if ties.size > 1:
            unknown = opening_odds(view, undecided).reshape(-1)[ties]
            ties = ties[unknown == unknown.min()]
        return self._pick(ties, view.width)


class StrongPlayer(SafestPlayer):
    """Complete deduction; forced 50/50s guessed at once; an exhaustive end game when few layouts
    remain; otherwise one move of look-ahead on the safest few cells, scoring each by
    P(safe) x E[safety of the best next move] (1 when the reveal leads to a certain cell), each
    number the cell can show weighted by its exact share of the layouts; a cell that can show only
    one number (its reveal tells nothing) scores less."""

    name = "strong"
    summary = "deduction, forced 50/50s first, end-game search, look-ahead on the best guesses"
    # knobs, chosen by short paired win-rate runs (see docs/benchmarks.md)
    near_tie = 0.20          # look ahead on cells whose safety is within 20% (relative) of the best
    lookahead_cells = 8      # ... but on at most this many of them
    endgame_layouts = 60     # search the end game exhaustively when this few layouts remain
    endgame_cells = 24       # ... over at most this many undecided cells
    endgame_budget = 1500    # positions searched before giving up on the end game
    fifty_first = True
    dead_penalty = 0.3       # "progress": relative score cut for a cell that can show only one number
    LOOKAHEADS = ("progress", "exact", "fast")

    def __init__(self, seed, *, lookahead: str = "progress"):
        """`lookahead`: "progress" (exact odds of each number and complete deduction after it),
        "exact" (the same without the dead-cell cut) or "fast" (the odds as if independent and
        the rules only)."""
        super().__init__(seed)
        if lookahead not in self.LOOKAHEADS:
            raise SweeplabError(f"unknown look-ahead {lookahead!r}; allowed: {', '.join(self.LOOKAHEADS)}")
        self.lookahead = lookahead

    def moves(self, view):
        certain, a = self._certain_or_analysis(view)
        if certain is not None:
            return certain
        undecided = view.hidden & ~a.mines
        fifty = self._forced_fifty(view, a.mines, undecided) if self.fifty_first else None
        if fifty is not None:
            return [fifty]
        if self.endgame_layouts and a.layouts <= self.endgame_layouts \
                and np.count_nonzero(undecided) <= self.endgame_cells:
            move = endgame_move(view, a.mines, undecided, a.layouts, self.endgame_budget)
            if move is not None:
                return [move]
        return [self._lookahead(view, a, undecided, analyse)]

    # --- forced 50/50 ------------------------------------------------------------------------
    def _forced_fifty(self, view, mines, undecided) -> Move | None:
        """Two cells, one mine between them, that no later reveal can ever tell apart."""
        w = view.width
        cells = view.cells.reshape(-1)
        nbr = view.neighbours
        known = mines.reshape(-1)
        und = (view.hidden.reshape(-1) & ~known)  # hidden cells a reveal could still show (safe ones too)
        pairs = undecided.reshape(-1)
        n_und = np.append(pairs, False)[nbr].sum(axis=1)  # index -1 (off the grid) reads False
        n_known = np.append(known, False)[nbr].sum(axis=1)
        for i in np.flatnonzero((cells > 0) & (n_und == 2) & (cells - n_known == 1)):
            ns = nbr[i][nbr[i] >= 0]
            pair = ns[und[ns]]
            if pair.size != 2:  # a safe hidden cell beside it as well
                continue
            a, b = int(pair[0]), int(pair[1])
            na, nb_ = set(nbr[a][nbr[a] >= 0].tolist()), set(nbr[b][nbr[b] >= 0].tolist())
            ok = True
            for c in (na ^ nb_) - {a, b}:
                if und[c]:  # a hidden cell beside only one of them could show which
                    ok = False
                    break
            if ok:  # every open number beside them must see no other undecided cell
                for c in (na | nb_) - {a, b}:
                    if cells[c] >= 0:
                        others = nbr[c][nbr[c] >= 0]
                        if np.count_nonzero(und[others]) != np.count_nonzero(und[others] & ((others == a) | (others == b))):
                            ok = False
                            break
            if ok:
                pick = a if self.rng.integers(2) == 0 else b
                return Move("open", pick % w, pick // w, False)
        return None

    # --- look-ahead -----------------------------------------------------------------------------
    def _lookahead(self, view, a, undecided, analyse) -> Move:
        w = view.width
        p = np.where(undecided, a.probability, np.inf).reshape(-1)
        order = np.lexsort((opening_odds(view, undecided).reshape(-1), p))
        best_safety = 1.0 - p[order[0]]
        cands = [int(i) for i in order[:self.lookahead_cells * 4]
                 if np.isfinite(p[i]) and 1.0 - p[i] >= best_safety * (1.0 - self.near_tie)]
        cands = self._spread(cands, view, undecided)[:self.lookahead_cells]
        if len(cands) == 1:
            return Move("open", cands[0] % w, cands[0] // w, False)
        nbr = view.neighbours
        mines = a.mines.reshape(-1)
        und = undecided.reshape(-1)
        # known mines become trusted flags: the same layouts, a smaller system to count
        base = view.cells.reshape(-1).copy()
        base[mines & (base == HIDDEN)] = FLAG
        best, best_score = cands[0], -1.0
        for c in cands:
            ns = nbr[c][nbr[c] >= 0]
            known = int(np.count_nonzero(mines[ns] | (base[ns] == FLAG)))
            unknown = ns[und[ns]]
            if self.lookahead == "progress":
                try:
                    score = self._score_progress(view, a, base, c, known, len(unknown))
                except TooComplexError:
                    score = self._score_fast(view, a, base, c, known, unknown, p)
            elif self.lookahead == "exact":
                try:
                    score = self._score_exact(view, a, base, c, known, len(unknown))
                except TooComplexError:
                    score = self._score_fast(view, a, base, c, known, unknown, p)
            else:
                score = self._score_fast(view, a, base, c, known, unknown, p)
            if score > best_score + 1e-12:
                best, best_score = c, score
        return Move("open", best % w, best // w, False)

    @staticmethod
    def _trial(view, base, c, v):
        trial = base.copy()
        trial[c] = v
        return View(trial.reshape(view.cells.shape), view.mine_count, view.topology)

    def _outcomes(self, view, a, base, c, known, unknown):
        """Each number cell c can show, as (its exact share of the layouts, the analysis after it)."""
        for v in range(known, known + unknown + 1):
            try:
                b = analyse(self._trial(view, base, c, v), trust_flags=True)
            except InconsistentPositionError:  # no layout shows v there
                continue
            weight = b.layouts / a.layouts
            if weight:
                yield weight, b

    def _score_exact(self, view, a, base, c, known, unknown) -> float:
        """P(c safe) x E[safety of the next move]: 1 when the number shown leads to a certain cell,
        else the best safety then; each number weighted by its exact share of the layouts."""
        score = 0.0
        for weight, b in self._outcomes(view, a, base, c, known, unknown):
            if b.safe.any():
                score += weight
            else:
                q = np.where(b.safe | ~np.isfinite(b.probability) | (view.cells == FLAG), np.inf,
                             b.probability).reshape(-1)
                q[c] = np.inf
                q = q[base == HIDDEN].min() if (base == HIDDEN).any() else np.inf
                score += weight * (1.0 - q if np.isfinite(q) else 1.0)
        return score

    def _score_progress(self, view, a, base, c, known, unknown) -> float:
        """Each number c can show, weighted by its exact share of the layouts: 1 when it leads to a
        certain cell (progress), else the best safety then."""
        hidden = base == HIDDEN
        hidden[c] = False
        score = 0.0
        shown = 0
        for weight, b in self._outcomes(view, a, base, c, known, unknown):
            shown += 1
            if b.safe.any():
                score += weight
            elif hidden.any():
                score += weight * (1.0 - float(b.probability.reshape(-1)[hidden].min()))
            else:
                score += weight
        if shown == 1:  # a dead cell: its number is known in advance, so opening it tells nothing
            score *= 1.0 - self.dead_penalty
        return score

    def _score_fast(self, view, a, base, c, known, unknown, p) -> float:
        """The same score with the numbers' odds from the neighbours' own mine probabilities (as if
        independent) and progress judged by the rules alone: a few times cheaper."""
        dist = np.ones(1)
        for q in p[unknown]:  # Poisson-binomial: the chance of t mines among the unknown neighbours
            dist = np.append(dist * (1 - q), 0.0) + np.append(0.0, dist * q)
        others = p.copy()
        others[c] = np.inf
        fallback = 1.0 - others.min() if np.isfinite(others.min()) else 1.0
        got = mass = 0.0
        for t, pt in enumerate(dist):
            if pt < 1e-9:
                continue
            if t == 0 and len(unknown):
                progress = True  # a number that its flags already fill frees every other neighbour
            else:
                try:
                    safe, _ = deduce_rules(self._trial(view, base, c, known + t), trust_flags=True)
                except InconsistentPositionError:
                    continue
                progress = bool(safe.any())
            mass += pt
            got += pt * (1.0 if progress else fallback)
        return (1.0 - p[c]) * (got / mass if mass > 0 else fallback)

    @staticmethod
    def _spread(cands, view, undecided):
        """Keep one off-frontier cell per opening-odds class: they are alike, and each costs a look."""
        cells = view.cells.reshape(-1)
        nbr = view.neighbours
        seen, out = set(), []
        odds = opening_odds(view, undecided).reshape(-1)
        for c in cands:
            ns = nbr[c][nbr[c] >= 0]
            if not (cells[ns] >= 0).any():
                if odds[c] in seen:
                    continue
                seen.add(odds[c])
            out.append(c)
        return out


class _OverBudget(Exception):
    pass


def endgame_move(view: View, mines: np.ndarray, undecided: np.ndarray, layouts: int,
                 budget: int = 4000) -> Move | None:
    """The guess with the highest chance of winning the whole game, by searching every sequence
    of reveals over the remaining layouts (all equally likely). None when over budget.

    A reveal is modelled as showing the cell's number only (a 0's cascade is extra information,
    so the chance found is a lower bound on what play achieves)."""
    L = enumerate_layouts(view, mines, undecided, layouts)
    if L is None or len(L) == 0:
        return None
    if len(L) != layouts:
        raise SweeplabError(f"end game: enumerated {len(L)} layouts where the analysis counted {layouts}")
    var = np.flatnonzero(undecided.reshape(-1))
    nbr = view.neighbours
    known = mines.reshape(-1) | (view.cells.reshape(-1) == FLAG)
    adj = np.zeros((len(var), len(var)), dtype=np.int64)
    pos = {int(c): k for k, c in enumerate(var)}
    base = np.zeros(len(var), dtype=np.int64)
    for k, c in enumerate(var):
        ns = nbr[c][nbr[c] >= 0]
        base[k] = int(np.count_nonzero(known[ns]))
        for j in ns:
            if int(j) in pos:
                adj[k, pos[int(j)]] = 1
    values = base + L.astype(np.int64) @ adj
    values[L] = -1
    # masks[c] = [(value, bitmask of layouts showing it)], the mine "value" -1 first
    masks = []
    for k in range(len(var)):
        col = values[:, k]
        groups = []
        for v in np.unique(col):
            bits = 0
            for l in np.flatnonzero(col == v):
                bits |= 1 << int(l)
            groups.append((int(v), bits))
        masks.append(groups)
    full = (1 << len(L)) - 1
    memo: dict[int, float] = {}
    spent = [0]

    def win(s: int) -> tuple[float, int]:
        if s in memo:
            return memo[s], -1
        spent[0] += 1
        if spent[0] > budget:
            raise _OverBudget
        n = s.bit_count()
        best, best_cell = -1.0, -1
        for k, groups in enumerate(masks):
            parts = [(v, s & bits) for v, bits in groups if s & bits]
            if len(parts) == 1:
                continue  # decided in s, and it would tell nothing
            got = 0.0
            for v, part in parts:
                if v >= 0:
                    got += part.bit_count() * win(part)[0]
            got /= n
            if got > best + 1e-12:
                best, best_cell = got, k
        if best_cell < 0:
            best = 1.0  # every undecided cell decided: the rest opens safely
        memo[s] = best
        return best, best_cell

    try:
        _, k = win(full)
    except _OverBudget:
        return None
    if k < 0:
        return None
    c = int(var[k])
    return Move("open", c % view.width, c // view.width, False)


PlayerFactory = Callable[..., Player]
PLAYERS: dict[str, PlayerFactory] = {
    p.name: p for p in (RulesPlayer, SafestPlayer, StrongPlayer, RandomPlayer)
}


def make_player(name: str, seed) -> Player:
    """A player by name, seeded for its random choices."""
    try:
        factory = PLAYERS[name]
    except KeyError:
        raise SweeplabError(f"unknown player {name!r}; allowed: {', '.join(sorted(PLAYERS))}") from None
    return factory(seed)
