"""The strong harnesses: bench_search.py replays the very searches the games made (the same results
as the games' own end games), and profile_strong.py accounts a profile by the parts of a move."""

from __future__ import annotations

import numpy as np
from strong import bench_search, profile_strong


def test_recorded_searches_give_what_the_games_got(tmp_path, capsys):
    from sweeplab.solver import endgame
    from sweeplab.solver.perfect import new_memo, search, signatures
    path = tmp_path / "obs.npz"
    wins = []
    real = endgame.search

    def noted(*args):
        out = real(*args)
        wins.append((int(out[0]), int(out[1]), int(out[2])))
        return out

    endgame.search = noted
    try:
        bench_search.record("expert-safe-corner", 20, str(path))
    finally:
        endgame.search = real
    assert f"{len(wins)} end-game searches in 20 games" in capsys.readouterr().out
    assert wins  # (20 expert games meet at least one end game)
    data = np.load(path)
    for i, want in enumerate(wins):
        obs = data[f"o{i}"]
        got = search(obs, int(data["budget"][i]), False, -1, *signatures(obs.shape[1]), new_memo(1 << 10))
        assert (int(got[0]), int(got[1]), int(got[2])) == want
    bench_search.time_all(str(path), 1, every=False)
    assert f"{len(wins)} searches:" in capsys.readouterr().out


def test_profile_names_every_part_of_a_move(capsys):
    profile_strong.main(["--case", "expert-opening", "--games", "3"])
    out = capsys.readouterr().out
    assert "games 0..2" in out
    for label, _, _ in profile_strong.PARTS:
        if label:
            assert label in out
