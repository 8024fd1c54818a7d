"""The terminal game: the keys (and the cursor) are on the board from the start, a game kept while the
program was closed goes on with the clock where it was left, and the counters under the board say
only what the player knows while playing and the standard figures at the end."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest
from textual import events
from textual.widgets import Button, Static

from sweeplab import generators
from sweeplab.play.store import Store
from sweeplab.play.tui import BoardView, MinesweeperApp
from sweeplab.stats import bbbv

SEED = 2024


@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "tui.db")
    yield s
    s.close()


def cursor_on_screen(app) -> bool:
    """Whether the screen as drawn (not as the board would draw itself now) shows the cursor on its cell."""
    board = app.query_one(BoardView)
    region = board.content_region
    cx, cy = board.cursor
    row = app.screen._compositor.render_strips()[region.y + cy]
    x = 0
    for seg in row:
        if region.x + 2 * cx <= x < region.x + 2 * cx + 2 and seg.text.strip("\n"):
            return bool(seg.style and seg.style.reverse)
        x += len(seg.text)
    raise AssertionError("the cursor's cell is not on the screen")


def test_the_board_has_the_keys_and_shows_the_cursor_from_the_start(store):
    async def run():
        app = MinesweeperApp(store, mode="safe", seed=SEED)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.pause()
            assert isinstance(app.focused, BoardView) and cursor_on_screen(app)
            await pilot.press("right", "down")  # the first keys move the cursor: no Tab needed
            await pilot.pause()
            assert app.query_one(BoardView).cursor == (1, 1) and cursor_on_screen(app)
            # Textual does not draw a widget again when only its focus changes: the board must, or the
            # screen keeps the frame it drew before (no cursor at the start, a stale one after)
            board, drawn = app.query_one(BoardView), []
            render = board.render
            board.render = lambda: (drawn.append(board.has_focus), render())[1]
            app.query_one("#face", Button).focus()  # the keys elsewhere: the cursor goes from the screen
            await pilot.pause()
            assert drawn and drawn[-1] is False and not cursor_on_screen(app)
            await pilot.press("tab")  # and comes back with them
            await pilot.pause()
            assert isinstance(app.focused, BoardView) and drawn[-1] is True and cursor_on_screen(app)
            # the focus nowhere, as after a terminal reports its window out of focus at the start: the
            # first arrow gives the board the keys, and the cursor shows where it moved
            app.set_focus(None)
            await pilot.pause()
            await pilot.press("left")
            await pilot.pause()
            assert isinstance(app.focused, BoardView) and board.cursor == (0, 1) and cursor_on_screen(app)
            # the terminal window loses focus and gets it back: the keys return to the board
            app.set_focus(None)
            app.post_message(events.AppBlur())
            await pilot.pause()
            app.post_message(events.AppFocus())
            await pilot.pause()
            assert isinstance(app.focused, BoardView) and cursor_on_screen(app)

    asyncio.run(run())


@pytest.mark.slow
def test_the_clock_goes_on_from_where_the_game_was_left(tmp_path):
    path = tmp_path / "tui.db"
    clock = [100.0]

    async def first():
        store = Store(path)
        app = MinesweeperApp(store, mode="safe", clock=lambda: clock[0])
        async with app.run_test(size=(100, 40)) as pilot:
            clock[0] += 2.0  # the first click two seconds after the game was made
            await pilot.click(BoardView, offset=(8, 4))
            clock[0] += 6.5  # a flag 6.5 s after the first click
            await pilot.click(BoardView, offset=(0, 0), button=3)
            await pilot.pause()
            state = dict(app.query_one(BoardView).state)
        store.close()
        return state

    async def second():
        store = Store(path)
        app = MinesweeperApp(store)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.pause()
            g = app.pg.game
            got = (app.query_one(BoardView).state["id"], g.elapsed, str(app.query_one("#timer", Static).render()))
        store.close()
        return got

    before = asyncio.run(first())
    assert before["status"] == "playing"
    with sqlite3.connect(path) as db:  # the program stays closed for an hour
        db.execute("UPDATE live_games SET created = created - 3600")
    gid, elapsed, timer = asyncio.run(second())
    assert gid == before["id"]
    assert 6.5 <= elapsed < 6.5 + 30, elapsed  # from the last move kept (and the seconds this test took), not 3606
    assert timer == f"{int(elapsed) + 1:03d}" or int(timer) >= 7


@pytest.mark.slow
def test_the_counters_say_what_the_player_knows_and_the_figures_at_the_end(store):
    clock = [0.0]
    b = generators.make("uniform", 9, 9, 10, SEED, first_click="safe").board_for(4, 4)[0]

    async def run():
        app = MinesweeperApp(store, mode="safe", seed=SEED, clock=lambda: clock[0])
        async with app.run_test(size=(100, 40)) as pilot:
            board = app.query_one(BoardView)
            counters = app.query_one("#counters", Static)
            await pilot.click(BoardView, offset=(8, 4))  # (4, 4)
            await pilot.pause()
            # a right click on a safe cell, then one on a mine: both clicks, only the second effective
            safe = next((x, y) for y in range(9) for x in range(9)
                        if not b.is_mine(x, y) and board.state["cells"][y * 9 + x] == "#")
            mine = next((x, y) for x, y in b.mine_positions() if board.state["cells"][y * 9 + x] == "#")
            for x, y in (safe, safe, mine):  # flag the safe cell, then make it '?'; flag the mine
                await pilot.click(BoardView, offset=(2 * x, y), button=3)
            await pilot.pause()
            clock[0] += 3.0
            app.tick()
            during = str(counters.render())
            assert during == "time 3.0 s   clicks 1 left, 3 right, 0 chords", during
            assert "3BV" not in during and "wasted" not in during  # both would tell of unseen mines
            lefts = 1
            for y in range(9):
                for x in range(9):
                    if not b.is_mine(x, y) and board.state["cells"][y * 9 + x] in "#?":  # (marks are on)
                        await pilot.click(BoardView, offset=(2 * x, y))
                        await pilot.pause()  # (the next cell is chosen from the board as this click left it)
                        lefts += 1
            await pilot.pause()
            assert board.state["status"] == "won"
            clock[0] += 1.0
            app.tick()
            return str(counters.render()), lefts

    end, lefts = asyncio.run(run())
    total = bbbv(b)
    clicks, effective, t = lefts + 3, lefts + 1, 3.0  # every left click opened something; one right click did
    first, second = end.split("\n")
    assert first == f"time {t:.1f} s   clicks {lefts} left, 3 right, 0 chords, 2 wasted", end
    assert second == (f"3BV {total}/{total}   3BV/s {total / t:.3f}   IOE {total / clicks:.3f}   RQP {t * t / total:.3f}"
                      f"   correctness {effective / clicks:.3f}   throughput {total / effective:.3f}"), end
