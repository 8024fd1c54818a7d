"""Two moves of look-ahead (research/two_moves.py) against brute force over the layouts."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from tests.test_players import _brute_progress, _groups, _guess_position, small_views
from two_moves import TwoMovePlayer, two_move_score

from sweeplab.solver.lookahead import flagged
from sweeplab.view import HIDDEN


@settings(max_examples=40, suppress_health_check=list(HealthCheck))
@given(small_views())
def test_two_move_score_matches_brute_force(view):
    """The two-move score (every next guess considered) recomputed from brute-force layouts: each
    number c can show weighted by its share; 1 when some cell is then safe in every layout, else the
    best one-move score of a next guess d among the cells not a mine in every layout left."""
    a, layouts, cells, nbr, mines = _guess_position(view)
    base = flagged(view, a)
    for c in np.flatnonzero((cells == HIDDEN) & ~mines):
        got, shown = two_move_score(view, a, base, int(c), count=10**3, near=0.0)
        parts = _groups(layouts, int(c), nbr)
        want = 0.0
        for group in parts.values():
            share = len(group) / len(layouts)
            live = [int(j) for j in np.flatnonzero(cells == HIDDEN)
                    if j != c and not all(j in lay for lay in group)]
            if not live or any(not any(j in lay for lay in group) for j in live):
                want += share  # a certain cell follows (or nothing is left to open)
            else:
                want += share * max(_brute_progress(group, d, live, nbr) for d in live)
        assert shown == len(parts)
        assert got == pytest.approx(want, abs=1e-9)


def test_the_two_move_player_plays_sound_guesses():
    from tests.test_players import _stuck_views
    for view, a in _stuck_views(6, 500):
        player = TwoMovePlayer(1)
        player.endgame_layouts, player.fifty_first = 0, False
        (move,) = player.moves(view)
        assert not move.certain and view.hidden[move.y, move.x] and not a.mines[move.y, move.x]
