"""Players: given only a `View`, choose the next moves. `rules`, `safest` and `strong`, found by name.

A player returns a list of `Move`s: every cell its deduction proved safe (each marked
`certain`), or else one guess. Random choices come from the player's own seed, so a game
replays exactly. Players never flag: a mine they know is simply never opened.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import InconsistentPositionError, SweeplabError, TooComplexError
from ..grid import DOWN, LEFT, RIGHT, UP, around
from ..view import FLAG, HIDDEN, View
from .complete import analyse
from .endgame import endgame_search
from .fifty import unavoidable_sets
from .layouts import enumerate_layouts  # noqa: F401  (kept importable from here, as before)
from .lookahead import progress_detail, safe_whenever, trial_view
from .player import BEYOND_EXACT, Move, Player, rules_until_safe  # noqa: F401  (importable from here too)
from .rules import deduce_rules

# How `strong` chose a guess (a Move's note): an unavoidable guess (a forced 50/50 or a larger set
# no reveal can tell apart), the end-game search, the look-ahead.
FIFTY, ENDGAME, LOOKAHEAD = "unavoidable", "end game", "look-ahead"


class RandomPlayer(Player):
    """Opens a random hidden cell; the floor every other player must beat."""

    name = "random"
    summary = "a random hidden cell every move"

    def moves(self, view):
        hidden = np.flatnonzero(view.hidden)
        return [self._pick(hidden, view.width)]


class RulesPlayer(Player):
    """Single-number rules and the pair rule on any two overlapping numbers (stronger than the subset rule
    alone); when they are stuck, a random cell not known to be a mine."""

    name = "rules"
    summary = "single-number and overlapping-pair rules, else a random guess"

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
    return around(undecided.reshape(-1), view.neighbours).sum(axis=1).reshape(view.cells.shape)


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
        n_unknown = around(unknown, nbr).sum(axis=1)
        n_mines = around(mines.reshape(-1), nbr).sum(axis=1)
        risk = np.full(cells.size, (view.mines_left - np.count_nonzero(mines)) / max(1, np.count_nonzero(unknown)))
        for i in np.flatnonzero(cells > 0):
            ns = nbr[i]
            u = int(n_unknown[i])
            if u:
                r = (cells[i] - int(n_mines[i])) / u
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
    """Complete deduction; unavoidable guesses (forced 50/50s) at once; an exhaustive end game
    (`solver.endgame`) when few layouts remain; otherwise one move of look-ahead on the safest few
    cells, scoring each by P(safe) x E[safety of the best next move, blended 4:1 with the second
    best] (1 when the reveal leads to a certain cell), each number the cell can show weighted by its
    exact share of the layouts, and the score raised by a fifth of the chance that the reveal frees
    some cell (progress) while more than 40 undecided cells are left. The cells looked at are
    JSMinesweeper's: every frontier cell within 10% of the best safety and, when the cells off the
    frontier are nearly as safe, the off-frontier cells whose number could tell something soon (two
    steps from a number, or with two or three hidden neighbours). A dead cell (it can show only
    one number: its reveal tells nothing) is never chosen while a live one is left, and a guess
    dominated by a cell that is safe whenever it is (and more often) gives way to that cell."""

    name = "strong"
    summary = "deduction, unavoidable guesses first, end-game search, look-ahead on the best guesses"
    # knobs, chosen by short paired win-rate runs (see docs/benchmarks.md)
    # search the end game exhaustively when this few layouts remain, giving up (then: look-ahead)
    # past this many states: by bench_endgame.py, what fits in the speed floor (docs/benchmarks.md)
    endgame_layouts = 3000
    endgame_budget = 200_000
    fifty_first = True
    # score cut for a cell that can show only one number. 1: such a dead cell is never chosen
    # while a live candidate is left (opening it later is never worse)
    dead_penalty = 1.0
    dominance = True         # a guess that another cell dominates is replaced by that cell
    # the next move's safety blended with the second best's by this (JSMinesweeper's 4:1; +94 net
    # in 80,000 paired expert games, z +3.4, docs/benchmarks.md)
    blend = 0.2
    # score x (1 + this x the chance that the guess leaves a certain cell): the score alone
    # counts a reveal that leaves a safer next guess almost as much as one that frees a cell
    progress_weight = 0.2
    progress_cells = 40      # ... only while more undecided cells than this are left (on 4x4/5 it loses)
    # the look-ahead's candidates are JSMinesweeper's (`_wide_candidates`): +117 in 40,000 held-out
    # paired expert safe-corner games (z +2.40) against the eight safest within 20%, level on the
    # opening (docs/benchmarks.md)
    wide_near = 0.10         # frontier cells within this (relative) of the best safety
    off_near = 0.05          # ... off-frontier cells too when within this of the best frontier cell
    few_off = 30             # ... all of them when fewer than this lie off the frontier

    def moves(self, view):
        certain, a = self._certain_or_analysis(view)
        if certain is not None:
            return certain
        return [self.guess(view, a)]

    def guess(self, view, a) -> Move:
        """The guess on a position whose complete analysis `a` found no certain cell; its note
        says how it was chosen (FIFTY, ENDGAME or LOOKAHEAD)."""
        undecided = view.hidden & ~a.mines
        fifty = self._forced_fifty(view, a.mines, undecided, a.probability) if self.fifty_first else None
        if fifty is not None:
            return fifty._replace(note=FIFTY)
        if self.endgame_layouts and a.layouts <= self.endgame_layouts:
            move = endgame_move(view, a.mines, undecided, a.layouts, self.endgame_budget)
            if move is not None:
                return move._replace(note=ENDGAME)
        return self._lookahead(view, a, undecided)._replace(note=LOOKAHEAD)

    # --- forced 50/50 ------------------------------------------------------------------------
    def _forced_fifty(self, view, mines, undecided, probability) -> Move | None:
        """A guess no later reveal can spare: of a 50/50 pair, either cell; of a larger unavoidable
        set, its safest cell (by `probability`, the position's P(mine))."""
        sets = unavoidable_sets(view, mines, undecided)
        if not sets:
            return None
        t = sets[0]
        if len(t) == 2:
            pick = t[0] if self.rng.integers(2) == 0 else t[1]
            return Move("open", pick % view.width, pick // view.width, False)
        p = probability.reshape(-1)[list(t)]
        return self._pick(np.array(t)[p <= p.min() + 1e-12], view.width)

    # --- look-ahead -----------------------------------------------------------------------------
    def _lookahead(self, view, a, undecided) -> Move:
        w = view.width
        p = np.where(undecided, a.probability, np.inf).reshape(-1)
        # known mines become trusted flags: the same layouts, a smaller system to count
        base = view.cells.reshape(-1).copy()
        base[a.mines.reshape(-1) & (base == HIDDEN)] = FLAG
        cands = self._candidates(view, a, base, p, undecided)
        looks: dict[int, np.ndarray] = {}  # per guess looked at to the end, the cells safe whenever it is
        if len(cands) == 1:
            best = self._undominated(view, a, base, cands[0], undecided, looks)
            return Move("open", best % w, best // w, False)
        best, best_score = cands[0], -1.0
        # a guess must pass the best score by more than 1e-12: one that cannot is cut short (the
        # bound holds while no knob can raise a score past the guess's safety)
        cut = 0.0 <= self.blend <= 1.0 and self.progress_weight >= 0.0 and self.dead_penalty >= 0.0
        for c in cands:
            beat = best_score + 1e-12 if cut and c != cands[0] else None
            score = self._score(view, a, base, c, p, undecided, beat, looks)
            if score is not None and score > best_score + 1e-12:
                best, best_score = c, score
        best = self._undominated(view, a, base, best, undecided, looks)
        return Move("open", best % w, best // w, False)

    def _candidates(self, view, a, base, p, undecided) -> list[int]:
        """The cells to look ahead on, safest first."""
        return self._wide_candidates(view, p, undecided)

    def _score(self, view, a, base, c, p, undecided, beat=None, looks=None) -> float | None:
        """Guess c's look-ahead score: exact (`_score_progress`), or by the neighbours' own odds
        where the exact analysis declines a position after it; None when the exact score cannot
        pass `beat` (see `_score_progress`)."""
        nbr = view.neighbours
        ns = nbr[c][nbr[c] >= 0]
        known = int(np.count_nonzero(base[ns] == FLAG))
        try:
            return self._score_progress(view, a, base, c, beat, looks)
        except TooComplexError:
            return self._score_fast(view, a, base, c, known, ns[undecided.reshape(-1)[ns]], p)

    def _wide_candidates(self, view, p, undecided) -> list[int]:
        """The cells to look ahead on, safest first (`p`: flat P(mine), inf where not undecided):
        every frontier cell within `wide_near` of the best safety; and when the cells off the frontier
        (all equally safe) are within `off_near` of the best frontier cell, those of them whose number
        could soon tell something: two steps (orthogonally) from a number that still sees an
        undecided cell, or with two or three hidden neighbours; all of them when fewer than `few_off`.
        (JSMinesweeper's candidates, `getBestCandidates` and `getOffEdgeCandidates`.)"""
        nbr = view.neighbours
        cells = view.cells.reshape(-1)
        und = undecided.reshape(-1)
        front = und & around(cells >= 0, nbr).any(axis=1)
        off = np.flatnonzero(und & ~front)
        safety = 1.0 - p
        best = safety.max()  # (an undecided cell exists: a guess is due)
        out = np.flatnonzero(front & (safety >= best * (1.0 - self.wide_near)))
        best_front = safety[front].max() if front.any() else 0.0
        if off.size and safety[off].max() > best_front * (1.0 - self.off_near):
            if off.size >= self.few_off:
                hidden = around(cells == HIDDEN, nbr[off]).sum(axis=1)
                near_number = np.zeros(cells.size, dtype=bool)
                numbers = np.flatnonzero((cells > 0) & around(und, nbr).any(axis=1))
                for side in (UP, LEFT, RIGHT, DOWN):  # two steps that way, by the grid's own neighbours
                    one = nbr[numbers, side]
                    two = nbr[one[one >= 0], side]  # (-1: off a bounded grid)
                    near_number[two[two >= 0]] = True
                off = off[near_number[off] | ((hidden > 1) & (hidden < 4))]
            out = np.concatenate([out, off])
        if not out.size:  # (no frontier cell near the best, and no off-frontier cell that tells anything)
            out = np.array([int(np.argmin(p))])
        return out[np.argsort(p[out], kind="stable")].tolist()

    def _undominated(self, view, a, base, c, undecided, looks=None) -> int:
        """c, or a cell that dominates it (safe in every layout where c is safe, and in more), the
        safest such, then the likeliest to open; again for that one, a few times. `looks`: the
        cells safe whenever a guess is, for the guesses already looked at (filled as it goes)."""
        if not self.dominance:
            return c
        looks = {} if looks is None else looks
        odds = opening_odds(view, undecided).reshape(-1)
        p = a.probability.reshape(-1)
        for _ in range(4):
            try:  # strictly safer: a cell safe in exactly the same layouts is as good, not better
                if c not in looks:
                    looks[c] = safe_whenever(view, a, base, c)
                better = np.flatnonzero(looks[c] & (p < p[c] - 1e-12))
            except TooComplexError:
                return c
            if better.size == 0:
                return c
            c = int(better[np.lexsort((odds[better], p[better]))[0]])
        return c

    def _score_progress(self, view, a, base, c, beat=None, looks=None) -> float | None:
        """Each number c can show, weighted by its exact share of the layouts: 1 when it leads to a
        certain cell (progress), else the best safety then (blended with the second best), times
        1 + `progress_weight` x the chance of progress. None as soon as the score cannot pass
        `beat` (the rest of c's numbers are then not analysed); a guess looked at to the end puts
        the cells safe whenever it is in `looks`."""
        weight = self.progress_weight if np.count_nonzero(base == HIDDEN) > self.progress_cells else 0.0
        d = progress_detail(view, a, base, c, self.blend, beat, weight)
        if d is None:
            return None
        if looks is not None:
            looks[c] = d.whenever
        score = d.score * (1.0 + weight * d.progress)
        if d.shown == 1:  # a dead cell: its number is known in advance, so opening it tells nothing
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
                    safe, _ = deduce_rules(trial_view(view, base, c, known + t), trust_flags=True)
                except InconsistentPositionError:
                    continue
                progress = bool(safe.any())
            mass += pt
            got += pt * (1.0 if progress else fallback)
        return (1.0 - p[c]) * (got / mass if mass > 0 else fallback)


def endgame_move(view: View, mines: np.ndarray, undecided: np.ndarray, layouts: int, budget: int) -> Move | None:
    """The guess with the highest chance of winning the whole game, by searching every sequence
    of reveals over the remaining layouts (all equally likely): a `Move`, or None when the search
    goes over `budget` states. `layouts`: how many the analysis counted (checked)."""
    e = endgame_search(view, mines, undecided, layouts, budget)
    if e is None or e.cell < 0:
        return None
    return Move("open", e.cell % view.width, e.cell // view.width, False)


PlayerFactory = Callable[..., Player]
PLAYERS: dict[str, PlayerFactory] = {
    p.name: p for p in (RulesPlayer, SafestPlayer, StrongPlayer, RandomPlayer)
}


def _learned(seed) -> Player:
    """The learned player (solver/learned.py), imported when first asked for: it loads its weights."""
    from .learned import LearnedPlayer
    return LearnedPlayer(seed)


PLAYERS["learned"] = _learned


def make_player(name: str, seed) -> Player:
    """A player by name, seeded for its random choices."""
    try:
        factory = PLAYERS[name]
    except KeyError:
        raise SweeplabError(f"unknown player {name!r}; allowed: {', '.join(sorted(PLAYERS))}") from None
    return factory(seed)
