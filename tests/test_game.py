"""Game: cascade, chord, flags and marks, win and loss, clock, first-click rules, replay, view."""

import gc
from collections import deque

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sweeplab import Board, Game, GameOverError, IllegalMoveError, InvalidBoardError, View, make_rule, replay
from sweeplab.grid import neighbour_table

from .strategies import boards


class FakeClock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def expected_cascade(board: Board, start: int) -> set[int]:
    """The connected zero region reached from `start`, plus its border (independent BFS)."""
    nbr = neighbour_table(board.width, board.height, board.topology)
    nums, mines = board.flat_numbers, board.flat_mines
    out = {start}
    if nums[start] != 0:
        return out
    todo = deque([start])
    while todo:
        i = todo.popleft()
        for j in nbr[i]:
            if j >= 0 and not mines[j] and j not in out:
                out.add(int(j))
                if nums[j] == 0:
                    todo.append(int(j))
    return out


@given(boards(), st.data())
def test_cascade_opens_exactly_the_zero_region_and_its_border(board, data):
    safe = np.flatnonzero(~board.flat_mines)
    if safe.size == 0:
        return
    start = int(data.draw(st.sampled_from(list(safe))))
    game = Game(board)
    x, y = start % board.width, start // board.width
    opened = game.open(x, y)
    got = set(np.flatnonzero(game.view().opened.reshape(-1)))
    want = expected_cascade(board, start)
    assert got == want and opened == len(want)


@pytest.mark.slow
@given(boards(), st.data())
def test_cascade_never_opens_a_flagged_cell(board, data):
    zeros = np.flatnonzero(~board.flat_mines & (board.flat_numbers == 0))
    if zeros.size < 2:
        return
    start, flagged = data.draw(st.lists(st.sampled_from(list(zeros)), min_size=2, max_size=2, unique=True))
    game = Game(board)
    game.flag(flagged % board.width, flagged // board.width)
    game.open(start % board.width, start // board.width)
    assert game.cell_state(flagged % board.width, flagged // board.width) == "flag"


@pytest.mark.slow
@given(boards(), st.data())
def test_win_exactly_when_every_safe_cell_is_open(board, data):
    if board.mine_count == board.size:
        return
    game = Game(board)
    order = data.draw(st.permutations(list(np.flatnonzero(~board.flat_mines))))
    for i in order:
        if game.over:
            break
        before = game.view().opened.sum()
        game.open(int(i) % board.width, int(i) // board.width)
        all_open = game.view().opened.sum() == board.size - board.mine_count
        assert (game.status == "won") == all_open
        assert game.view().opened.sum() >= before
    assert game.status == "won" and game.mines_left == 0


def test_opening_a_mine_loses_and_records_it():
    game = Game(Board("*..\n...\n..."))
    game.open(0, 0)
    assert game.status == "lost" and game.exploded == [(0, 0)]
    with pytest.raises(GameOverError, match="over"):
        game.open(1, 1)


def test_chord_opens_unflagged_neighbours_including_question_marks():
    board = Board("*...\n....\n....")
    game = Game(board)
    game.open(1, 1)  # a 1
    game.flag(0, 0)
    game.flag(2, 2)
    game.flag(2, 2)  # -> "?"
    assert game.cell_state(2, 2) == "question"
    game.chord(1, 1)
    assert game.status == "won"


def test_chord_with_a_wrong_flag_loses():
    game = Game(Board("*...\n....\n...."))
    game.open(1, 1)
    game.flag(1, 0)  # wrong flag
    game.chord(1, 1)
    assert game.status == "lost" and game.exploded == [(0, 0)]


@given(boards(max_side=8), st.data())
def test_chord_semantics(board, data):
    """A chord opens every unflagged neighbour iff the open number's flags match it; else nothing."""
    safe = np.flatnonzero(~board.flat_mines & (board.flat_numbers > 0))
    if safe.size == 0:
        return
    i = int(data.draw(st.sampled_from(list(safe))))
    x, y = i % board.width, i // board.width
    game = Game(board)
    game.open(x, y)
    if game.over:  # the only safe cell: nothing left to chord
        return
    nbr = [int(j) for j in board.neighbours[i] if j >= 0]
    to_flag = data.draw(st.lists(st.sampled_from(nbr), unique=True))
    for j in to_flag:
        game.flag(j % board.width, j // board.width)
    before = game.view()
    game.chord(x, y)
    after = game.view()
    if len(to_flag) != board.flat_numbers[i]:
        assert after == before and game.status != "lost"
        return
    wrong = [j for j in to_flag if not board.flat_mines[j]]
    if wrong:
        assert game.status == "lost"
        assert {(j % board.width, j // board.width) for j in nbr if board.flat_mines[j] and j not in to_flag} \
            == set(game.exploded)
    else:
        for j in nbr:
            if j not in to_flag:
                assert after.cells.reshape(-1)[j] >= 0


def test_flag_cycle_with_and_without_marks():
    game = Game(Board("*..\n...\n..."))
    assert [game.flag(2, 2) for _ in range(3)] == ["flag", "question", "hidden"]
    game.marks = False
    assert [game.flag(2, 2) for _ in range(2)] == ["flag", "hidden"]


def test_counter_may_go_negative():
    game = Game(Board("*..\n...\n..."))
    for x in range(3):
        game.flag(x, 2)
    assert game.mines_left == -2


def test_clock_starts_at_the_first_opening_action_and_freezes_at_the_end():
    clock = FakeClock()
    game = Game(Board("*...\n....\n....\n...."), clock=clock)
    clock.now += 5
    game.flag(0, 0)
    assert game.elapsed == 0 and game.timer == 0
    clock.now += 1
    game.open(1, 1)  # a 1: opens one cell
    assert game.timer == 1
    clock.now += 12.5
    assert game.elapsed == pytest.approx(12.5) and game.timer == 13
    game.open(3, 3)  # the opening: wins
    clock.now += 100
    assert game.status == "won" and game.elapsed == pytest.approx(12.5)


def test_timer_stops_at_999():
    clock = FakeClock()
    game = Game(Board("*...\n....\n....\n...."), clock=clock)
    game.open(1, 1)
    clock.now += 5000
    assert game.timer == 999


@pytest.mark.parametrize("bad", [(-1, 0), (0, 3), (3, 0), (1.5, 0), ("a", 0), (True, 0)])
def test_actions_off_the_board_raise(bad):
    game = Game(Board("*..\n...\n..."))
    with pytest.raises(IllegalMoveError, match="0..2|integers"):
        game.open(*bad)
    assert game.status == "ready" and game.log == []


def test_unknown_action_raises():
    with pytest.raises(IllegalMoveError, match="allowed: open, flag, chord"):
        Game(Board("*..\n...\n...")).act("dig", 0, 0)


@given(st.integers(3, 20), st.integers(3, 20), st.data())
def test_first_click_rules_hold_on_every_seed(w, h, data):
    x, y = data.draw(st.integers(0, w - 1)), data.draw(st.integers(0, h - 1))
    seed = data.draw(st.integers(0, 2**64 - 1))
    rule_name = data.draw(st.sampled_from(["safe", "opening"]))
    room = w * h - (1 if rule_name == "safe" else 9)
    mines = data.draw(st.integers(0, room))
    game = Game(rule=make_rule(rule_name, w, h, mines, seed))
    assert game.board is None  # the game starts before its board exists
    game.open(x, y)
    assert game.status != "lost" and game.board.mine_count == mines
    nbr = game.board.neighbours[y * w + x]
    cells = [y * w + x] + ([int(j) for j in nbr if j >= 0] if rule_name == "opening" else [])
    assert not game.board.flat_mines[cells].any()
    again = Game(rule=make_rule(rule_name, w, h, mines, seed))
    again.open(x, y)
    assert again.board == game.board


def test_opening_rule_rejects_too_many_mines():
    with pytest.raises(InvalidBoardError, match="allowed 0..72"):
        make_rule("opening", 9, 9, 73, seed=1)


def test_unknown_rule_is_rejected():
    with pytest.raises(InvalidBoardError, match="allowed"):
        make_rule("lucky", 9, 9, 10, seed=1)


@pytest.mark.slow
@given(boards(max_side=8), st.lists(st.tuples(st.sampled_from(["open", "flag", "chord"]),
                                              st.integers(0, 7), st.integers(0, 7)), max_size=40))
def test_replay_reproduces_the_game(board, actions):
    clock = FakeClock()
    game = Game(board, clock=clock)
    for kind, x, y in actions:
        if game.over:
            break
        if x < board.width and y < board.height:
            clock.now += 0.25
            game.act(kind, x, y)
    again = replay(game.laid, game.log)
    assert again.view() == game.view()
    assert again.status == game.status and again.exploded == game.exploded
    if game.over:  # a finished game's clock is frozen: the replay's must read the same
        assert again.elapsed == pytest.approx(game.elapsed)
    else:  # a running replay's clock goes on in real time from the last action
        assert (again.timer > 0) == (game.timer > 0)
    assert [a.to_list() for a in again.log] == [a.to_list() for a in game.log]


@given(boards(max_side=8), st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=30), st.data())
def test_open_cells_is_each_open_in_turn(board, clicks, data):
    """A list of clicks in one call plays as the same clicks one by one, a click on an open cell no
    move; flags and a first click beforehand are kept."""
    clicks = [(x, y) for x, y in clicks if x < board.width and y < board.height]
    one, each = Game(board, clock=FakeClock()), Game(board, clock=FakeClock())
    if data.draw(st.booleans()):  # a flag placed first is never opened
        x, y = data.draw(st.integers(0, board.width - 1)), data.draw(st.integers(0, board.height - 1))
        one.flag(x, y)
        each.flag(x, y)
    expected = []
    for x, y in clicks:
        if each.over:
            break
        expected.append(-1 if each.cell_state(x, y) == "open" else each.open(x, y))
    got = one.open_cells(clicks) if clicks else []
    assert got == expected
    assert one.view() == each.view() and one.status == each.status and one.exploded == each.exploded
    assert [a.to_list() for a in one.log] == [a.to_list() for a in each.log]
    assert one.mines_left == each.mines_left


def test_open_cells_with_a_cell_off_the_board_opens_none_of_them():
    game = Game(Board("*..\n...\n..."))
    game.open(1, 1)  # a 1: the game goes on
    before = game.view()
    assert game.status == "playing"
    with pytest.raises(IllegalMoveError, match="off the board"):
        game.open_cells([(2, 2), (3, 0)])
    assert game.view() == before and len(game.log) == 1


def test_open_cells_after_the_end_is_refused():
    game = Game(Board("*..\n...\n..."))
    assert game.open_cells([(2, 2), (1, 1)]) == [8]  # the first click wins: the second is not made
    with pytest.raises(GameOverError, match="over"):
        game.open_cells([(0, 0)])


def test_replay_of_a_first_click_game():
    game = Game(rule=make_rule("opening", 30, 16, 99, seed=3))
    game.open(3, 3)
    game.open(29, 15)
    again = replay(game.laid, game.log)
    assert again.view() == game.view() and again.status == game.status


def test_view_reveals_nothing_of_the_mines():
    game = Game(Board("*..\n...\n..*"))
    game.open(2, 0)
    view = game.view()
    assert isinstance(view, View)
    # The view holds copies of visible cells only: no reference to the game, its board or its mines.
    reachable = gc.get_referents(*[getattr(view, s) for s in View.__slots__])
    assert not any(isinstance(o, (Board, Game)) for o in reachable)
    assert not hasattr(view, "board") and not hasattr(view, "game")
    assert view.cells.tolist() == [[-1, 1, 0], [-1, 2, 1], [-1, -1, -1]]
    with pytest.raises(ValueError):
        view.cells[0, 0] = 1  # read-only


def test_view_text_round_trip():
    game = Game(rule=make_rule("opening", 16, 16, 40, seed=9))
    game.open(8, 8)
    game.flag(0, 0)
    view = game.view()
    assert View.from_text(view.to_text()) == view
