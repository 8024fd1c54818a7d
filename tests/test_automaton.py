"""The 1997 automaton: the numba kernel against a plain transcription of the rule, soundness,
fixed points, torus wrap-around, batching, seeding, and the automaton as a Game player."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sweeplab import automaton as A
from sweeplab.board import Board
from sweeplab.errors import SweeplabError
from sweeplab.game import LOST, WON, Game
from sweeplab.lab import automaton as L
from sweeplab.view import View

C, O, M = 0, 1, 2  # noqa: E741 (the paper's closed, open, marked)


# --- a reference written from the spec, cell by cell, sharing nothing with the kernel ------------

def ref_neighbours(x, y, size, torus):
    for dx, dy in itertools.product((-1, 0, 1), repeat=2):
        if dx == dy == 0:
            continue
        nx, ny = x + dx, y + dy
        if torus:
            yield nx % size, ny % size
        elif 0 <= nx < size and 0 <= ny < size:
            yield nx, ny


def ref_nu(mines, torus):
    size = len(mines)
    return [[sum(mines[ny][nx] for nx, ny in ref_neighbours(x, y, size, torus)) for x in range(size)]
            for y in range(size)]


def ref_step(status, nu, torus):
    """One synchronous update of the rule as the spec states it."""
    size = len(status)
    new = [row[:] for row in status]
    for y in range(size):
        for x in range(size):
            if status[y][x] != C:
                continue
            opens = marks = False
            for vx, vy in ref_neighbours(x, y, size, torus):
                if status[vy][vx] != O:
                    continue
                around = [status[b][a] for a, b in ref_neighbours(vx, vy, size, torus)]
                marked, closed = around.count(M), around.count(C)
                if nu[vy][vx] == 0 or nu[vy][vx] == marked:
                    opens = True
                if closed == 1 and nu[vy][vx] - marked == 1:
                    marks = True
            if opens:
                new[y][x] = O
            elif marks:
                new[y][x] = M
    return new


def ref_run(mines, starts, torus):
    """(final status, step each cell changed or -1, steps that changed something)."""
    size = len(mines)
    nu = ref_nu(mines, torus)
    status = [[C] * size for _ in range(size)]
    changed = [[-1] * size for _ in range(size)]
    for x, y in starts:
        status[y][x] = O
        changed[y][x] = 0
    step = 0
    while True:
        new = ref_step(status, nu, torus)
        if new == status:
            return status, changed, step
        step += 1
        for y in range(size):
            for x in range(size):
                if new[y][x] != status[y][x]:
                    changed[y][x] = step
        status = new


@st.composite
def boards_with_starts(draw, max_size=9):
    size = draw(st.integers(3, max_size))
    topology = draw(st.sampled_from(["bounded", "torus"]))
    p = draw(st.sampled_from([0.0, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5]))
    bits = draw(st.lists(st.floats(0, 1, exclude_max=True), min_size=size * size, max_size=size * size))
    mines = np.array(bits).reshape(size, size) < p
    free = [(x, y) for y in range(size) for x in range(size) if not mines[y, x]]
    if not free:
        mines[0, 0] = False
        free = [(0, 0)]
    k = draw(st.integers(1, min(3, len(free))))
    starts = draw(st.lists(st.sampled_from(free), min_size=k, max_size=k, unique=True))
    return mines, starts, topology


@pytest.mark.slow
@settings(max_examples=150)
@given(boards_with_starts())
def test_kernel_matches_the_rule_as_written(case):
    mines, starts, topology = case
    evo = A.run_board(mines, starts, topology)
    status, changed, steps = ref_run(mines.tolist(), starts, topology == "torus")
    size = len(mines)
    assert evo.status[0].reshape(size, size).tolist() == status
    assert evo.changed_at[0].reshape(size, size).tolist() == changed
    assert int(evo.steps[0]) == steps
    for k in range(steps + 1):  # the stored history replays every intermediate step
        want = [[s if 0 <= c <= k else C for s, c in zip(rs, rc)] for rs, rc in zip(status, changed)]
        assert evo.at(0, k).tolist() == want


def test_a_worked_example_by_hand():
    # A 4x4 bounded board, one mine at (3, 3); start at (0, 0) whose nu is 0.
    mines = np.zeros((4, 4), dtype=bool)
    mines[3, 3] = True
    evo = A.run_board(mines, [(0, 0)])
    # step 1 opens the 3 neighbours of (0,0); (1,1) has nu 0 too, so step 2 opens to x,y<=2;
    # then (2,2) with nu 1, one closed neighbour and no mark marks (3,3) at step 3, while
    # the zeros (2,0)/(0,2) have opened the border cells; the last safe cells open by step 3.
    ch = evo.changed_at[0].reshape(4, 4)
    assert ch[0, 0] == 0 and ch[1, 1] == 1 and ch[2, 2] == 2
    assert evo.status[0].reshape(4, 4)[3, 3] == M
    assert (evo.status[0].reshape(4, 4)[~mines] == O).all()
    assert evo.steps[0] == ch.max()


def test_torus_counts_wrap_around():
    # A mine in the corner (0, 0): on a torus the opposite corner (4, 4) is its neighbour.
    mines = np.zeros((5, 5), dtype=bool)
    mines[0, 0] = True
    nu_t = ref_nu(mines.tolist(), True)
    assert nu_t[4][4] == 1 and nu_t[0][4] == 1 and nu_t[4][0] == 1
    assert ref_nu(mines.tolist(), False)[4][4] == 0
    torus = A.run_board(mines, [(2, 2)], "torus")
    bounded = A.run_board(mines, [(2, 2)], "bounded")
    # Both solve it, but the torus reaches the far corner through the wrapped edges.
    assert torus.status[0].reshape(5, 5)[0, 0] == M
    assert bounded.status[0].reshape(5, 5)[0, 0] == M
    b = A.random_batch(5, 0.0, 3, 1, topology="torus")
    assert (b.nu == 0).all()
    b = A.random_batch(6, 0.2, 3, 20, topology="torus")
    for g in range(20):
        assert b.nu[g].reshape(6, 6).tolist() == ref_nu(b.layout(g).tolist(), True)


@pytest.mark.slow
def test_batch_equals_boards_one_by_one():
    for topology in ("bounded", "torus"):
        batch = A.random_batch(12, 0.13, 77, 40, topology=topology)
        evo = A.run_batch(batch)
        for g in range(batch.games):
            one = A.run_board(batch.layout(g), batch.start_cells(g), topology)
            assert np.array_equal(one.status[0], evo.status[g])
            assert np.array_equal(one.changed_at[0], evo.changed_at[g])
            assert one.steps[0] == evo.steps[g]
        # and the chunking of the parallel loop does not matter
        again = A.evolve(batch.nu, batch.starts, 12, topology, chunks=1)
        assert np.array_equal(again.status, evo.status) and np.array_equal(again.steps, evo.steps)


@pytest.mark.parametrize("topology", ["bounded", "torus"])
def test_sound_and_at_a_fixed_point(topology):
    for p in (0.05, 0.12, 0.2, 0.35):
        batch = A.random_batch(16, p, 5, 150, topology=topology)
        evo = A.run_batch(batch)
        assert not (batch.mines & (evo.status == A.OPEN)).any(), "opened a mine"
        assert not (~batch.mines & (evo.status == A.MARKED)).any(), "marked a safe cell"
        assert L.soundness(batch, evo) == {"mines_opened": 0, "safe_marked": 0}
        wrong = A.Evolution(evo.size, evo.topology, np.where(batch.mines, A.OPEN, evo.status), evo.changed_at,
                            evo.steps)  # the check itself must be able to fail
        assert L.soundness(batch, wrong)["mines_opened"] == int(batch.mines.sum())
        for g in range(0, batch.games, 15):  # one more step of the rule changes nothing
            st_ = evo.status[g].reshape(16, 16).tolist()
            assert ref_step(st_, batch.nu[g].reshape(16, 16).tolist(), topology == "torus") == st_
        assert (evo.changed_at.max(axis=1) == evo.steps).all()


def test_seeded_batches_and_common_random_numbers():
    a = A.random_batch(10, 0.15, 42, 8)
    b = A.random_batch(10, 0.15, 42, 8)
    assert np.array_equal(a.mines, b.mines) and np.array_equal(a.starts, b.starts)
    tail = A.random_batch(10, 0.15, 42, 3, first=5)  # game 5 is game 5 whatever the batching
    assert np.array_equal(tail.mines, a.mines[5:8]) and np.array_equal(tail.starts, a.starts[5:8])
    assert not np.array_equal(A.random_batch(10, 0.15, 43, 8).mines, a.mines)
    higher = A.random_batch(10, 0.25, 42, 8)
    assert (higher.mines | ~a.mines).all() and higher.mines.sum() > a.mines.sum()
    torus = A.random_batch(10, 0.15, 42, 8, topology="torus")
    assert np.array_equal(torus.mines, a.mines)
    for g in range(8):  # three distinct mine-free starting cells
        s = a.starts[g]
        assert len(set(s.tolist())) == 3 and not a.mines[g, s].any()


def test_mine_density_is_p():
    b = A.random_batch(30, 0.12, 9, 200)
    share = b.mines.mean()
    assert abs(share - 0.12) < 4 * np.sqrt(0.12 * 0.88 / b.mines.size)


def test_start_choice_is_uniform_over_free_cells():
    b = A.random_batch(4, 0.0, 11, 4000)
    counts = np.bincount(b.starts.reshape(-1), minlength=16)
    expected = 4000 * 3 / 16
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 40  # 15 degrees of freedom: p < 0.001 above 37.7


# --- the automaton as a player of a Game, through its View only ------------------------------

@pytest.mark.slow
def test_player_reads_one_step_of_the_rule_off_a_view():
    rng = np.random.default_rng(1)
    for _ in range(60):
        size = int(rng.integers(3, 8))
        topology = str(rng.choice(["bounded", "torus"]))
        mines = rng.random((size, size)) < 0.2
        nu = ref_nu(mines.tolist(), topology == "torus")
        status = [[int(rng.choice([C, O, M], p=[0.5, 0.4, 0.1])) for _ in range(size)] for _ in range(size)]
        for y in range(size):
            for x in range(size):
                if mines[y][x] and status[y][x] == O:
                    status[y][x] = C
        cells = np.array([[nu[y][x] if status[y][x] == O else (-2 if status[y][x] == M else -1)
                           for x in range(size)] for y in range(size)])
        opens, marks = A.AutomatonPlayer()(View(cells, int(mines.sum()), topology))
        want = ref_step(status, nu, topology == "torus")
        assert sorted(opens) == sorted((x, y) for y in range(size) for x in range(size)
                                       if status[y][x] == C and want[y][x] == O)
        assert sorted(marks) == sorted((x, y) for y in range(size) for x in range(size)
                                       if status[y][x] == C and want[y][x] == M)


@pytest.mark.parametrize("topology", ["bounded", "torus"])
def test_player_is_sound_in_a_game_and_stalls_where_the_automaton_does(topology):
    batch = A.random_batch(12, 0.15, 2024, 40, topology=topology)
    evo = A.run_batch(batch)
    won = 0
    for g in range(batch.games):
        board = Board(batch.layout(g), topology)
        game = Game(board)
        A.play(game, batch.start_cells(g))
        assert game.status != LOST
        view = game.view()
        assert not (view.flagged & ~board.mines).any(), "flagged a safe cell"
        final = evo.status[g].reshape(12, 12)
        assert np.array_equal(view.opened, final == A.OPEN)
        if game.status == WON:  # a won game flags every mine itself
            won += 1
        else:
            assert np.array_equal(view.flagged, final == A.MARKED)
    assert 0 < won < batch.games  # the sample holds both outcomes, so both branches ran


def test_errors_say_what_is_allowed():
    with pytest.raises(SweeplabError, match="0 <= p < 1"):
        A.random_batch(10, 1.2, 0, 3)
    with pytest.raises(SweeplabError, match="positive"):
        A.random_batch(10, 0.1, 0, 0)
    mines = np.zeros((4, 4), dtype=bool)
    mines[1, 1] = True
    with pytest.raises(SweeplabError, match="holds a mine"):
        A.run_board(mines, [(1, 1)])
    with pytest.raises(SweeplabError, match="square"):
        A.run_board(np.zeros((3, 4), dtype=bool), [(0, 0)])


# --- the paper's measures, independently recomputed ---------------------------------------------

def test_summary_matches_a_direct_count():
    batch = A.random_batch(20, 0.15, 8, 300)
    evo = A.run_batch(batch)
    s = L.summarise(evo)
    share = [sum(1 for v in evo.status[g] if v != 0) / 400 for g in range(300)]
    assert s["solved_mean"] == pytest.approx(sum(share) / 300)
    assert s["half_closed"] == pytest.approx(sum(1 for v in share if 1 - v >= 0.5) / 300)
    assert s["solved_median"] == pytest.approx(float(np.median(share)))
    assert s["steps_max"] == max(int(evo.changed_at[g].max()) for g in range(300))
    lo, hi = s["half_closed_ci"]
    assert lo < s["half_closed"] < hi
    assert s["solved_mean_ci"][0] < s["solved_mean"] < s["solved_mean_ci"][1]


def test_densities_parse_and_refuse_nonsense():
    assert L.parse_densities("0.02:0.30:0.01") == pytest.approx([0.02 + 0.01 * k for k in range(29)])
    assert L.parse_densities("0.1,0.2") == [0.1, 0.2]
    for bad in ("0.3:0.1:0.01", "a:b:c", "0.1:0.2:0", "1.5"):
        with pytest.raises(SweeplabError, match="allowed|write"):
            L.parse_densities(bad)


def test_complete_deduction_never_solves_less_than_the_automaton():
    # The automaton's two clauses are special cases of deduction, so from the same three cells
    # a complete solver ends with at least as much of the board open or known to be a mine.
    for topology in ("bounded", "torus"):
        result = L.compare(10, 0.16, 25, topology, 4)
        assert (result["logic"] >= result["automaton"] - 1e-12).all()
        assert (result["logic"] > result["automaton"]).any()  # and it does gain somewhere


# --- the command line ---------------------------------------------------------------------------

def run_cli(capsys, *args):
    from sweeplab.cli import main
    with pytest.raises(SystemExit) as exc:
        main(list(args))
        raise SystemExit(0)
    out = capsys.readouterr()
    return exc.value.code or 0, out.out, out.err


@pytest.mark.slow
def test_cli_show_prints_every_step_and_draws(tmp_path, capsys):
    svg = tmp_path / "e.svg"
    code, out, _ = run_cli(capsys, "automaton", "show", "--size", "12", "--density", "0.1", "--seed", "3",
                           "--game", "1", "--svg", str(svg), "--png", str(tmp_path / "e.png"))
    assert code == 0
    batch = A.random_batch(12, 0.1, 3, 1, first=1)
    evo = A.run_batch(batch)
    steps = int(evo.steps[0])
    assert out.count("\nstep ") == steps + 1
    last = out.split(f"step {steps}:")[1].strip().splitlines()[1:13]
    want = [["#" if s == 0 else "F" if s == 2 else str(v) for s, v in zip(rs, rv)]
            for rs, rv in zip(evo.status[0].reshape(12, 12), batch.nu[0].reshape(12, 12))]
    assert last == ["".join(r) for r in want]
    assert svg.read_text().startswith("<svg") and "t = 0" in svg.read_text()
    assert (tmp_path / "e.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow
def test_cli_sweep_json_equals_the_library(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "automaton", "sweep", "--size", "10", "--densities", "0.1,0.2",
                           "--games", "50", "--topology", "torus", "--json")
    assert code == 0
    rows = json.loads(out)
    want = L.sweep(10, [0.1, 0.2], 50, ["torus"], 0)
    assert [r["solved_mean"] for r in rows] == pytest.approx([r["solved_mean"] for r in want])
    assert [r["half_closed"] for r in rows] == pytest.approx([r["half_closed"] for r in want])
    png = tmp_path / "s.png"
    code, out, _ = run_cli(capsys, "automaton", "sweep", "--size", "10", "--densities", "0.1", "--games", "20",
                           "--plot", str(png))
    assert code == 0 and "bounded" in out and "torus" in out
    assert png.read_bytes()[:4] == b"\x89PNG"


def test_cli_scaling_plot_and_bad_input(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "automaton", "scaling", "--sizes", "8,16", "--games", "20", "--json")
    assert code == 0 and [r["size"] for r in json.loads(out)] == [8, 16, 8, 16]
    saved = tmp_path / "rows.json"
    saved.write_text(out)
    code, _, _ = run_cli(capsys, "automaton", "plot", str(saved), "-o", str(tmp_path / "s.svg"))
    assert code == 0 and "<svg" in (tmp_path / "s.svg").read_text()
    saved.write_text("[1, 2]")
    code, _, err = run_cli(capsys, "automaton", "plot", str(saved), "-o", str(tmp_path / "t.png"))
    assert code == 2 and "expected the list of rows" in err
    code, _, err = run_cli(capsys, "automaton", "sweep", "--topology", "klein", "--games", "5")
    assert code == 2 and "allowed" in err and err.count("\n") == 1
    code, _, err = run_cli(capsys, "automaton", "show", "--density", "1.5")
    assert code == 2 and "0 <= p < 1" in err


def test_stuck_at_start_exactly_when_no_starting_cell_is_a_zero():
    batch = A.random_batch(15, 0.15, 21, 400)
    evo = A.run_batch(batch)
    no_zero = np.array([(batch.nu[g, batch.starts[g]] > 0).all() for g in range(400)])
    assert np.array_equal(evo.steps == 0, no_zero)
    assert L.summarise(evo)["stuck_at_start"] == pytest.approx(no_zero.mean())
    started = ~no_zero
    failed = evo.closed_share >= 0.5
    assert L.summarise(evo)["half_closed_given_started"] == pytest.approx(failed[started].mean())


def test_a_guessing_player_wins_every_game_deduction_alone_solves():
    result = L.compare(9, 0.14, 12, "bounded", 6, ("safest",))
    solved = result["logic"] == 1.0
    assert solved.any() and (~solved).any()
    assert result["wins"]["safest"][solved].all()
    summary = L.summarise_comparison(result)["players"]["safest"]
    assert summary["wins"] == int(result["wins"]["safest"].sum()) and summary["games"] == 12
    assert L.summarise_comparison(result)["automaton_mean_same_games"] == pytest.approx(result["automaton"].mean())


def test_stuck_share_matches_the_formula_on_a_torus():
    # On a torus every safe cell is a 0 with probability (1-p)^8, independently of being safe,
    # so the automaton cannot start with probability about (1 - (1-p)^8)^3 (starts far apart).
    p, games = 0.15, 3000
    evo = A.run_batch(A.random_batch(24, p, 13, games, topology="torus"))
    want = (1 - (1 - p) ** 8) ** 3
    got = L.summarise(evo)["stuck_at_start"]
    assert abs(got - want) < 4 * np.sqrt(want * (1 - want) / games)


def test_boards_with_fewer_than_three_safe_cells_open_what_there_is():
    batch = A.random_batch(3, 0.95, 2, 200)
    free = (~batch.mines).sum(axis=1)
    assert (free < 3).any()
    got = (batch.starts >= 0).sum(axis=1)
    assert np.array_equal(got, np.minimum(free, 3))
    evo = A.run_batch(batch)
    assert L.soundness(batch, evo) == {"mines_opened": 0, "safe_marked": 0}
    assert ((evo.status == A.OPEN).sum(axis=1) >= got).all()
