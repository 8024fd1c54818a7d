"""rounds.py records the positions at which a chain's plays start a round of complete deduction
(the kernels run as plain Python to do it): each must be a position of a play, with the counts a
play keeps, and the engine's round must decide them the same way every time."""

import subprocess
import sys
from pathlib import Path

import numpy as np

from sweeplab import grid
from sweeplab.kernels import FLAG_STATE, HIDDEN_STATE, OPEN_STATE

ROUNDS = Path(__file__).resolve().parents[1] / "one_engine" / "rounds.py"


def test_capture_records_positions_of_plays_and_the_round_decides_them_alike(tmp_path):
    out = tmp_path / "rounds.npz"
    subprocess.run([sys.executable, str(ROUNDS), "capture", "--out", str(out), "--boards", "1", "--moves", "12"],
                   check=True, capture_output=True)
    d = np.load(out)
    assert d["left"].shape[0] > 0
    nbr = grid.neighbour_table(30, 16, "bounded")
    for st, numbers, hid, kno, hmask, left in zip(d["st"], d["numbers"], d["hid"], d["kno"], d["hmask"], d["left"]):
        assert set(np.unique(st)) <= {HIDDEN_STATE, OPEN_STATE, FLAG_STATE}
        for i in np.flatnonzero(st == OPEN_STATE):
            around = [j for j in nbr[i] if j >= 0]
            assert hid[i] == sum(st[j] == HIDDEN_STATE for j in around)
            assert kno[i] == sum(st[j] == FLAG_STATE for j in around)
            assert hid[i] == bin(int(hmask[i])).count("1")
            assert kno[i] <= numbers[i] <= kno[i] + hid[i]  # a play's numbers always fit
        assert 0 <= left <= int((st == HIDDEN_STATE).sum())
    said = [subprocess.run([sys.executable, str(ROUNDS), "side", "--rounds-file", str(out), "--repeat", "1"],
                           check=True, capture_output=True, text=True).stdout.split()[1] for _ in range(2)]
    assert said[0] == said[1]
