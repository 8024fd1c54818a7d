"""The board-cycle lab: the published cycle numbers, graph analysis vs brute force, both cycle finders,
the survey, and each phenomenon of docs/board-cycles.md."""

import json

import ms_toollib
import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from sweeplab import Game
from sweeplab import cycles as C
from sweeplab.cli import cli
from sweeplab.generators.winmine import Shift, WinMineSession, winmine_board
from sweeplab.lab import cycles as L
from sweeplab.stats import bbbv

BEGINNER, INTERMEDIATE = C.Size(8, 8, 10), C.Size(16, 16, 40)


@pytest.fixture(scope="module")
def beginner():
    return C.analyse_space(BEGINNER)


@pytest.fixture(scope="module")
def intermediate():
    return C.analyse_space(INTERMEDIATE)


@pytest.mark.slow
def test_published_beginner_cycles(beginner):
    rep, _ = beginner
    # players' count by hand: 24,320 and 24,304 boards, 48,624 distinct in all
    assert [c.length for c in rep.cycles] == [24320, 24304]
    assert [c.distinct_boards for c in rep.cycles] == [24320, 24304]
    assert rep.distinct_boards == 48624
    assert sum(c.basin for c in rep.cycles) == 2**19 and sum(c.seeds for c in rep.cycles) == 65536
    assert sum(rep.tail_histogram) == 65536 and len(rep.tail_histogram) == rep.tail_max + 1


@pytest.mark.slow
def test_published_intermediate_cycles(intermediate):
    rep, _ = intermediate
    assert [c.length for c in rep.cycles] == [12096, 12064]
    assert rep.distinct_boards == 12096 + 12064
    assert [c.laps for c in rep.cycles] == [1, 1]  # each cycle goes once round the 2**20 states


def plain_next(state, size):
    """The state after one board, straight from the spec (every rand() step written out)."""
    w, h, m = size.width, size.height, size.mines
    mines = set()
    while len(mines) < m:
        state = (state * 214013 + 2531011) % 2**32
        x = ((state >> 16) & 0x7FFF) % w
        state = (state * 214013 + 2531011) % 2**32
        y = ((state >> 16) & 0x7FFF) % h
        mines.add((x, y))
    return state


def test_successor_table_against_the_spec(beginner):
    _, arrays = beginner
    rng = np.random.default_rng(1)
    for s in rng.integers(0, 2**32, 300).tolist():
        assert arrays["next"][s % 2**19] == plain_next(s, BEGINNER) % 2**19
        # the board depends only on the low 19 bits: any high bits give the same board
        assert winmine_board(s, 8, 8, 10)[0] == winmine_board(s % 2**19, 8, 8, 10)[0]


def brute_cycles(nxt):
    """Cycle length and tail of every state by walking with a dictionary (slow and obvious)."""
    out = []
    for s in range(len(nxt)):
        seen, x, i = {}, s, 0
        while x not in seen:
            seen[x] = i
            x = int(nxt[x])
            i += 1
        out.append((i - seen[x], seen[x]))
    return out


@given(st.lists(st.integers(0, 59), min_size=60, max_size=60))
def test_functional_graph_against_brute_force(values):
    nxt = np.array(values, dtype=np.uint32)
    cyc, dist, lengths, firsts = C.functional_graph(nxt)
    brute = brute_cycles(nxt)
    assert [(int(lengths[cyc[s]]), int(dist[s])) for s in range(60)] == brute
    for c, first in enumerate(firsts):  # firsts are the smallest state on each cycle
        on = [s for s in range(60) if cyc[s] == c and dist[s] == 0]
        assert first == min(on)


@pytest.mark.slow
@pytest.mark.parametrize("method", C.METHODS)
def test_cycle_finders_agree_with_the_exhaustive_analysis(intermediate, method):
    rep, arrays = intermediate
    length = {int(arrays["cycle"][c.start]): c.length for c in rep.cycles}
    for s in (0, 1, 2, 3, 4242, 65535, 2**20 - 1, 2**32 - 1):
        w = C.walk(INTERMEDIATE, s, method=method)
        x = s % 2**20
        assert w.tail == arrays["tail"][x] and w.length == length[int(arrays["cycle"][x])]
        assert arrays["tail"][w.entry] == 0 and w.parity == x & 1


def test_parity_two_cycles_and_why(beginner):
    rep, arrays = beginner
    for c in rep.cycles:  # every state on a cycle has the cycle's low bit
        on = np.flatnonzero((arrays["tail"] == 0) & (arrays["cycle"] == arrays["cycle"][c.start]))
        assert set((on & 1).tolist()) == {c.parity}
    assert {c.parity for c in rep.cycles} == {0, 1}
    out, panels = L.parity_demo(BEGINNER)
    assert all(r["first_board_calls"] % 2 == 0 for r in out["cycles"]) and len(panels) == 2


@pytest.mark.slow
def test_survey_over_a_cycle(beginner):
    rep, _ = beginner
    c = rep.cycles[0]
    sv = L.survey(BEGINNER, c.start, c.length, keep=4)
    assert sum(sv.bbbv_histogram.values()) == c.length
    states = C.walk_states(np.uint32(c.start), c.length, *BEGINNER.args(), np.uint32(BEGINNER.mask))
    sample = np.random.default_rng(0).choice(c.length, 60, replace=False)
    want = {}
    for i in sample.tolist():
        b = C.board_at(BEGINNER, states[i])
        rows = [[-1 if b.mines[y, x] else int(b.numbers[y, x]) for x in range(8)] for y in range(8)]
        assert bbbv(b) == ms_toollib.cal_bbbv(rows)  # a second opinion on 3BV
        want[bbbv(b)] = want.get(bbbv(b), 0) + 1
    assert all(sv.bbbv_histogram.get(v, 0) >= n for v, n in want.items())
    lowest = [v for v, n in sorted(sv.bbbv_histogram.items()) for _ in range(n)][:4]
    assert [d["bbbv"] for d in sv.dream] == lowest
    for d in sv.dream:
        assert bbbv(C.board_at(BEGINNER, d["state"])) == d["bbbv"] and states[d["index"]] == d["state"]
    # one-click wins by the shift: replay each through Game; every safe cell opens, no win is declared
    assert sv.one_click >= 1
    for e in sv.one_click_examples:
        b = C.board_at(BEGINNER, e["state"])
        g = Game(rule=Shift(b))
        x, y = e["click"]
        assert b.is_mine(x, y)
        assert g.open(x, y) == 64 - 10 and g.status == "playing"


@pytest.mark.slow
def test_convergence_blends_two_consecutive_cycle_boards():
    out, panels = L.convergence_demo(INTERMEDIATE, 3, limit=4)
    assert out["tail"] > 4
    for r in out["boards"]:
        a, b = r["between_cycle_boards"]
        assert b == a + 1
        assert r["mines_from_first"] + r["mines_from_second"] >= 38 and r["mines_from_second"] >= 1


@pytest.mark.slow
def test_order_of_mines():
    rep, _ = C.analyse_space(INTERMEDIATE, distinct=False)
    out, _ = L.order_demo(INTERMEDIATE, rep.cycles[0].start, 20)
    assert out["custom_is_first_mines"]
    o = out["next_full_board"]
    assert o["leftover_mines"] + o["first_mines_of_next"] == 40
    # and by a session, as a player would do it
    s = WinMineSession("win98", state=rep.cycles[0].start, preset="intermediate")
    probe = WinMineSession("win98", state=rep.cycles[0].start, preset="intermediate")
    full = probe.next_board()
    custom = s.next_board(width=16, height=16, mines=20)
    assert not (custom.flat_mines & ~full.flat_mines).any()


@given(st.integers(0, 2**32 - 1))
def test_quadrant_superposition(state):
    out, _ = L.quadrant_demo(state)
    assert out["small_equals_folded_draws"]


def test_shift_leaves_the_sequence_unchanged():
    out, _ = L.shift_demo("win98", (8, 8, 10), 1234, games=15)
    assert out["shifts"] == 15 and out["laid_boards_equal"] == 15
    assert out["next_board_equal"] and out["state_after_equal"]


@pytest.mark.slow
def test_cycles_command_json_and_figures(tmp_path):
    svg, png = tmp_path / "f.svg", tmp_path / "f.png"
    r = CliRunner().invoke(cli, ["cycles", "--version", "win98", "--preset", "beginner", "--json", "--no-survey",
                                 "--svg", str(svg), "--png", str(png)])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output)
    assert [c["length"] for c in data["space"]["cycles"]] == [24320, 24304]
    assert svg.read_text().startswith("<svg") and png.read_bytes()[:4] == b"\x89PNG"
    r = CliRunner().invoke(cli, ["cycles", "quadrants", "--version", "win95", "--state", "77"])
    assert r.exit_code == 0 and "True" in r.output


@pytest.mark.parametrize("args, message", [
    (["parity", "--preset", "expert"], "power-of-two"),
    (["quadrants", "--version", "winxp"], "8x8"),
    (["--version", "win98", "--width", "7", "--height", "8", "--mines", "10"], "allowed 8..30"),
    (["order", "--version", "win98"], "fewer mines"),
    (["--state", "-1"], "out of range"),
])
def test_cycles_command_errors(args, message, capsys):
    from sweeplab.cli import main
    with pytest.raises(SystemExit) as e:
        main(["cycles", *args])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("sweeplab: error:") and message in err and err.count("\n") == 1


def test_reduced_bits():
    assert C.reduced_bits(8, 8) == 19 and C.reduced_bits(16, 16) == 20 and C.reduced_bits(16, 8) == 20
    assert C.reduced_bits(9, 9) == 31 and C.reduced_bits(30, 16) == 31


@pytest.mark.slow
def test_seed_map_matches_the_exhaustive_analysis(beginner):
    # the seed map walks each seed only to the nearest marked cycle state; the exhaustive tails check it
    rep, arrays = beginner
    seeds = np.arange(0, 65536, 15)  # odd and even seeds
    r = C.seed_map(BEGINNER, seeds=seeds)
    assert sorted(c["length"] for c in r.cycles) == [24304, 24320]
    assert sum(c["seeds"] for c in r.cycles) == seeds.size
    assert r.tail_histogram == np.bincount(arrays["tail"][seeds]).tolist()
