"""Hypothesis strategies shared by the tests: boards of every shape and topology."""

import numpy as np
from hypothesis import strategies as st

from sweeplab import Board


@st.composite
def boards(draw, topology=None, max_side=12, min_side=1):
    topo = topology or draw(st.sampled_from(["bounded", "torus"]))
    low = max(min_side, 3 if topo == "torus" else 1)
    w = draw(st.integers(low, max_side))
    h = draw(st.integers(low, max_side))
    density = draw(st.floats(0, 0.5))
    seed = draw(st.integers(0, 2**32 - 1))
    mines = np.random.default_rng(seed).random((h, w)) < density
    return Board(mines, topology=topo)
