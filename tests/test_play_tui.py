"""The terminal version, driven headless by Textual's pilot: mouse and keyboard, counter, timer, face, records."""

from __future__ import annotations

import asyncio

import pytest
from textual.widgets import Button, Static

from sweeplab import generators
from sweeplab.play.store import Store
from sweeplab.play.tui import BoardView, MinesweeperApp, lcd

SEED = 2024


def board_for(seed, x, y):
    return generators.make("uniform", 9, 9, 10, seed, first_click="safe").board_for(x, y)[0]


def test_lcd_reads_like_the_classic_counter():
    assert [lcd(v) for v in (0, 7, 42, 999, 1500, -3, -120)] == ["000", "007", "042", "999", "999", "-03", "-99"]


@pytest.mark.slow
def test_play_with_mouse_and_keyboard_and_file_the_game(tmp_path):
    store = Store(tmp_path / "tui.db")
    clock = [100.0]

    async def run():
        app = MinesweeperApp(store, mode="safe", seed=SEED, clock=lambda: clock[0])
        async with app.run_test(size=(100, 40)) as pilot:
            board = app.query_one(BoardView)
            counter, timer = app.query_one("#counter", Static), app.query_one("#timer", Static)
            face = app.query_one("#face", Button)
            assert board.state["cells"] == "#" * 81 and str(counter.render()) == "010"
            assert str(timer.render()) == "000" and str(face.label) == ":)"
            # left click (press, then release) opens (4, 4); two columns per cell
            await pilot.click(BoardView, offset=(8, 4))
            await pilot.pause()
            b = board_for(SEED, 4, 4)
            assert board.state["status"] == "playing" and board.state["cells"][4 * 9 + 4] == str(b.number(4, 4))
            assert str(timer.render()) == "001"
            # right click flags a hidden mine; the counter goes down
            mx, my = next((x, y) for x, y in b.mine_positions() if board.state["cells"][y * 9 + x] == "#")
            await pilot.click(BoardView, offset=(2 * mx, my), button=3)
            await pilot.pause()
            assert board.state["cells"][my * 9 + mx] == "F" and str(counter.render()) == "009"
            # keyboard: move the cursor to every safe hidden cell and press space
            clock[0] += 41.5
            for y in range(9):
                for x in range(9):
                    if not b.is_mine(x, y) and board.state["cells"][y * 9 + x] == "#":
                        cx, cy = board.cursor
                        for _ in range(abs(x - cx)):
                            await pilot.press("right" if x > cx else "left")
                        for _ in range(abs(y - cy)):
                            await pilot.press("down" if y > cy else "up")
                        assert board.cursor == (x, y)
                        await pilot.press("space")
            await pilot.pause()
            assert board.state["status"] == "won" and str(face.label) == "B)"
            assert str(counter.render()) == "000" and str(timer.render()) == "042"
            assert "practice: no best time" in str(app.query_one("#status", Static).render())  # a seed chosen
            # F2 starts a new game
            await pilot.press("f2")
            await pilot.pause()
            assert board.state["status"] == "ready" and str(face.label) == ":)"

    asyncio.run(run())
    rows, total = store.records()
    assert total == 1 and rows[0]["status"] == "won" and rows[0]["seed"] == SEED and rows[0]["elapsed"] == 41.5
    assert store.best_times() == [] and rows[0]["practice"] == 1
    store.close()


@pytest.mark.slow
def test_lose_with_a_chord_and_change_level_and_mode(tmp_path):
    store = Store(tmp_path / "tui.db")

    async def run():
        app = MinesweeperApp(store, mode="safe", seed=SEED)
        async with app.run_test(size=(100, 40)) as pilot:
            board = app.query_one(BoardView)
            await pilot.click(BoardView, offset=(8, 4))
            b = board_for(SEED, 4, 4)
            # flag a wrong cell next to an open number so that its chord hits a mine
            s = board.state
            for i, ch in enumerate(s["cells"]):
                if ch in "12345678":
                    x, y = i % 9, i // 9
                    around = [(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx or dy)
                              and 0 <= x + dx < 9 and 0 <= y + dy < 9 and s["cells"][(y + dy) * 9 + x + dx] == "#"]
                    safe = [c for c in around if not b.is_mine(*c)]
                    if len(safe) >= int(ch) and len(around) > len(safe):
                        break
            for c in safe[:int(ch)]:
                await pilot.click(BoardView, offset=(2 * c[0], c[1]), button=3)
            await pilot.click(BoardView, offset=(2 * x, y), button=2)  # the middle button chords
            await pilot.pause()
            assert board.state["status"] == "lost" and str(app.query_one("#face", Button).label) == "X("
            assert "X" in board.state["cells"] and "W" in board.state["cells"]
            await pilot.press("3")
            await pilot.pause()
            assert (board.state["width"], board.state["height"], board.state["mines"]) == (30, 16, 99)
            await pilot.press("m")
            await pilot.pause()
            assert board.state["mode"] != "safe"

    asyncio.run(run())
    assert store.records()[0][0]["status"] == "lost"
    store.close()


@pytest.mark.slow
def test_a_timer_tick_after_the_app_closed_is_harmless(tmp_path):
    """The interval timer can fire once more while the app tears its screen down (CI saw
    NoMatches from it); a tick then must neither fail nor touch the game."""
    store = Store(tmp_path / "tui.db")

    async def run():
        app = MinesweeperApp(store, mode="safe", seed=SEED)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.click(BoardView, offset=(8, 4))
            await pilot.pause()
            assert app.pg is not None and app.pg.game.status == "playing"
        return app

    app = asyncio.run(run())
    app.tick()
    assert app.pg.game.status == "playing"
    store.close()


@pytest.fixture()
def store(tmp_path):
    s = Store(tmp_path / "tui.db")
    yield s
    s.close()


@pytest.mark.slow
def test_every_cell_state_has_its_own_glyph_without_colour(store):
    from sweeplab.play.tui import CELL_LOOK
    glyphs = {ch: look[0] for ch, look in CELL_LOOK.items()}
    glyphs.update({str(n): f"{n} " for n in range(1, 9)})
    assert len(set(glyphs.values())) == len(glyphs)  # hidden, open 0, numbers, flag, ?, mines: all differ
    assert all(len(g) == 2 for g in glyphs.values())

    async def run():
        app = MinesweeperApp(store, mode="safe", seed=SEED)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.click(BoardView, offset=(8, 4))
            await pilot.pause()
            board = app.query_one(BoardView)
            plain = board.render().plain.split("\n")
            cells = board.state["cells"]
            for y, line in enumerate(plain):  # the text alone, styles dropped, says what each cell is
                for x in range(9):
                    assert line[2 * x:2 * x + 2] == glyphs[cells[y * 9 + x]]
            assert "#" in cells and "0" in cells

    asyncio.run(run())


def test_the_footer_fits_80_columns(store):
    from textual.widgets._footer import FooterKey

    async def run():
        app = MinesweeperApp(store, mode="safe")
        async with app.run_test(size=(80, 30)) as pilot:
            for _ in range(100):  # the footer lays its keys out after the first refresh (later on a busy box)
                await pilot.pause(0.05)
                keys = list(app.query(FooterKey))
                if len(keys) >= 6 and all(k.region.width > 0 for k in keys):
                    break
            assert len(keys) >= 6
            assert all(0 <= k.region.x and k.region.right <= 80 and k.region.width > 0 for k in keys)
            shown = {k.description for k in keys}
            assert {"New", "Custom", "Mode", "Hint", "Best", "Quit"} <= shown

    asyncio.run(run())


@pytest.mark.slow
def test_custom_size_asks_before_throwing_a_game_away_and_shows_records(store):

    async def run():
        app = MinesweeperApp(store, mode="winxp")
        async with app.run_test(size=(100, 40)) as pilot:
            board = app.query_one(BoardView)
            await pilot.click(BoardView, offset=(8, 4))
            await pilot.pause()
            assert board.state["status"] == "playing"
            gid = board.state["id"]
            await pilot.press("2")  # a level change would throw the game away: asked first
            await pilot.pause()
            assert "thrown away" in str(app.screen.query_one("#question", Static).render())
            await pilot.press("n")
            await pilot.pause()
            assert board.state["id"] == gid and board.state["level"] == "beginner"
            await pilot.press("u")
            await pilot.press("y")
            await pilot.pause()
            limits = str(app.screen.query_one("#custom-limits", Static).render())
            assert "min(999" in limits and "mines 10" in limits  # WinMine's own limits
            inp = app.screen.query_one("#size")
            inp.value = "30x24/999"
            await pilot.press("enter")
            await pilot.pause()
            assert "10..667" in str(app.screen.query_one("#custom-error", Static).render())
            inp.value = "12x10/20"
            await pilot.press("enter")
            await pilot.pause()
            s = board.state
            assert (s["width"], s["height"], s["mines"], s["level"]) == (12, 10, 20, "custom")
            await pilot.click(BoardView, offset=(0, 0))
            await pilot.pause()
            pg = app.pg
            mx, my = next((a, b) for a, b in pg.game.board.mine_positions()
                          if board.state["cells"][b * 12 + a] == "#")
            await pilot.click(BoardView, offset=(2 * mx, my))
            await pilot.pause()
            assert board.state["status"] == "lost"
            await pilot.press("b")
            await pilot.pause()
            text = str(app.screen.query_one("#records", Static).render())
            assert "Best times" in text and "Statistics" in text and "custom" in text and "lost" in text
            assert all(len(line) <= 78 for line in text.splitlines())

    asyncio.run(run())


@pytest.mark.slow
def test_a_game_in_play_goes_on_at_the_next_start(store):

    async def first():
        app = MinesweeperApp(store, mode="safe")
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.click(BoardView, offset=(8, 4))
            await pilot.click(BoardView, offset=(0, 0), button=3)
            await pilot.pause()
            return dict(app.query_one(BoardView).state)

    async def second():
        app = MinesweeperApp(store)
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.pause()
            return dict(app.query_one(BoardView).state), str(app.query_one("#status", Static).render())

    before = asyncio.run(first())
    after, status = asyncio.run(second())
    assert after["id"] == before["id"] and after["cells"] == before["cells"] and "goes on" in status


def test_a_first_click_while_the_kernels_compile_says_so_and_keeps_the_screen_alive(tmp_path):
    from sweeplab.play import modes as M

    store = Store(tmp_path / "tui.db")

    async def run():
        app = MinesweeperApp(store, mode="safe", seed=SEED)
        async with app.run_test(size=(100, 40)) as pilot:
            board = app.query_one(BoardView)
            said = []
            say = app.say
            app.say = lambda text: (said.append(text), say(text))
            M.WARMING.set()  # as `sweeplab play --tui` runs its first time after an install
            try:
                await pilot.press("space")
                await app.workers.wait_for_complete()
                await pilot.pause()
            finally:
                M.WARMING.clear()
            x, y = board.cursor
            assert board.state["status"] == "playing" and board.state["cells"][y * 9 + x] != "#"
            assert said[0].startswith("Laying the board")  # said while the click waited in its thread
            assert "Laying the board" not in str(app.query_one("#status", Static).render())

    asyncio.run(run())
    store.close()
