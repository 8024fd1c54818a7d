"""In the real browser (Playwright driving /usr/bin/chromium) against real servers: seeds above 2^53
survive the page, a game survives the server being killed and restarted, best times ignore games
by seed, and the statistics count a win and a loss.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import numpy as np
import pytest
from playwright.sync_api import expect

from sweeplab import generators
from sweeplab.board import Board
from sweeplab.play.server import bind
from sweeplab.play.store import Store

from .play_server import running

ROOT = Path(__file__).resolve().parent.parent
BIG_SEED = 2 ** 63 - 7  # above 2^53, and within 512 of 2^63: a JavaScript number rounds it past the limit


expect.set_options(timeout=20_000)  # the shared 2-core box is often busy: wait longer than 5 s for the page


def board_for(seed, x, y, w=9, h=9, m=10):
    return generators.make("uniform", w, h, m, seed, first_click="safe").board_for(x, y)[0]




@pytest.fixture()
def server(tmp_path):
    """A real server in this process, so that a test can look at the boards (a player cannot)."""
    store = Store(tmp_path / "play.db")
    with running(store) as (url, app):
        yield url, store, app.state.hub
    store.close()


def cell(page, x, y):
    return page.locator(f'#board .cell[data-x="{x}"][data-y="{y}"]')


def cells(page):
    return page.evaluate("window.sweeplab.board.cells")


def wait_idle(page):
    page.evaluate("window.sweeplab.queue")


def open_all_safe(page, board: Board):
    """Click every safe cell still hidden, until the game is won (a cascade may finish it early)."""
    for i in np.flatnonzero(~board.flat_mines):
        wait_idle(page)
        if page.evaluate("window.sweeplab.state.status") != "playing":
            break
        if cells(page)[i] in "#?":
            cell(page, i % board.width, i // board.width).click()
    wait_idle(page)


def expected_cells(board: Board, opened: str) -> str:
    """What the page must show: the board's numbers where the page shows an open cell."""
    return "".join(str(board.flat_numbers[i]) if ch.isdigit() else ch for i, ch in enumerate(opened))


def test_a_replay_link_with_a_seed_above_2_53_plays_the_same_board(server, page):
    url, store, hub = server
    b = board_for(BIG_SEED, 4, 4)
    page.goto(f"{url}?seed={BIG_SEED}&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    cell(page, 4, 4).click()
    wait_idle(page)
    mx, my = b.mine_positions()[0]
    cell(page, mx, my).click()
    wait_idle(page)
    expect(page.locator("#last-game")).to_contain_text(f"Seed {BIG_SEED}")
    rows, _ = store.records()
    assert rows[0]["seed"] == BIG_SEED
    # the records page shows it exactly, and its link plays it again
    page.goto(f"{url}records#{rows[0]['id']}")
    expect(page.locator("#r-seed")).to_contain_text(f"Seed {BIG_SEED}")
    link = page.locator("#r-seed-link")
    assert f"seed={BIG_SEED}&" in link.get_attribute("href")
    link.click()
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    cell(page, 4, 4).click()
    wait_idle(page)
    gid = page.evaluate("window.sweeplab.state.id")
    assert hub.get(gid).seed == BIG_SEED and hub.get(gid).game.board == b
    shown = cells(page)
    assert shown != "#" * 81 and shown == expected_cells(b, shown)
    open_all_safe(page, b)
    expect(page.locator("#result-line")).to_have_attribute("data-status", "won")
    assert store.records()[0][0]["seed"] == BIG_SEED and store.records()[0][0]["practice"] == 1


def test_best_times_ignore_a_seeded_game_and_statistics_count_a_win_and_a_loss(server, page):
    url, store, hub = server
    # a game by seed, won: practice, no best time, not in the statistics
    page.goto(f"{url}?seed=12&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    cell(page, 4, 4).click()
    wait_idle(page)
    open_all_safe(page, board_for(12, 4, 4))
    expect(page.locator("#result-line")).to_contain_text("practice: not eligible for best times")
    expect(page.locator("#best-times")).to_contain_text("No best times yet")
    # a game the server drew, won: the best time; the player's name is asked once
    page.keyboard.press("F2")
    wait_idle(page)
    cell(page, 4, 4).click()
    wait_idle(page)
    pg = hub.get(page.evaluate("window.sweeplab.state.id"))
    assert not pg.practice
    open_all_safe(page, pg.game.board)
    expect(page.locator("#result-line")).to_contain_text("New best time!")
    expect(page.locator("#name-dialog")).to_be_visible()
    page.fill("#player-name", "Ada")
    page.click("#name-ok")
    expect(page.locator("#name-dialog")).to_be_hidden()
    expect(page.locator("#best-table tr[data-level=beginner][data-mode=safe]")).to_have_count(1)
    expect(page.locator("#best-table")).to_contain_text("Ada")
    assert page.evaluate("localStorage.getItem('sweeplab.player')") == "Ada"
    # a game the server drew, lost
    page.keyboard.press("F2")
    wait_idle(page)
    cell(page, 4, 4).click()
    wait_idle(page)
    pg = hub.get(page.evaluate("window.sweeplab.state.id"))
    x, y = pg.game.board.mine_positions()[0]
    cell(page, x, y).click()
    wait_idle(page)
    expect(page.locator("#result-line")).to_have_attribute("data-status", "lost")
    assert store.records()[0][0]["player"] == "Ada"  # remembered: it went with the next game
    # the statistics: 2 played (the practice game is not counted), 1 won, 50%, streak 0, best streak 1
    page.click("#game-menu-button")
    page.click('#game-menu [data-cmd="stats"]')
    row = page.locator('#stats-table tr[data-mode="safe"][data-level="beginner"] td')
    expect(row).to_have_text(["Uniform, safe first click", "beginner", "2", "1", "50.0", "0", "1"])
    top = page.locator('.top-table[data-mode="safe"][data-level="beginner"] tr[data-id]')
    expect(top).to_have_count(1)
    expect(top.first).to_contain_text("Ada")
    (ROOT / "artifacts").mkdir(exist_ok=True)
    page.screenshot(path=str(ROOT / "artifacts" / "play_stats.png"))
    page.keyboard.press("Escape")
    # the records page filters, and plays a board again as practice
    page.goto(f"{url}records")
    expect(page.locator("#records-table tr[data-id]")).to_have_count(3)
    page.select_option("#f-status", "lost")
    expect(page.locator("#records-table tr[data-id]")).to_have_count(1)
    page.select_option("#f-status", "won")
    expect(page.locator("#records-table tr[data-id]")).to_have_count(2)
    best_id = store.best_times()[0]["id"]
    page.locator(f'#records-table tr[data-id="{best_id}"]').click()
    page.click("#r-again")
    expect(page.locator("#status")).to_contain_text("Practice: the board of game")
    wait_idle(page)
    played = Board.from_dict(store.get(best_id)["record"]["played_board"])
    x, y = next((x, y) for y in range(9) for x in range(9) if not played.is_mine(x, y) and (x, y) != (4, 4))
    cell(page, x, y).click()  # not the first click the record had: the same board all the same
    wait_idle(page)
    pg = hub.get(page.evaluate("window.sweeplab.state.id"))
    assert pg.practice and pg.game.board == played
    open_all_safe(page, pg.game.board)
    expect(page.locator("#result-line")).to_contain_text("practice")
    assert [b["id"] for b in store.best_times()] == [best_id]


def free_port() -> int:
    s = bind("127.0.0.1", 0)
    port = s.getsockname()[1]
    s.close()
    return port


def start_server(db, port) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    p = subprocess.Popen([sys.executable, "-m", "sweeplab.play.server", str(db), str(port)], stdout=subprocess.PIPE,
                         text=True, env=env)
    line = p.stdout.readline()
    assert line.startswith("http://"), line
    return p


def test_a_game_survives_a_server_restart(tmp_path, page):
    db, port = tmp_path / "play.db", free_port()
    url = f"http://127.0.0.1:{port}/"
    seed = 2 ** 60 + 3
    b = board_for(seed, 4, 4, 16, 16, 40)
    proc = start_server(db, port)
    try:
        page.goto(f"{url}?seed={seed}&mode=safe&level=intermediate")
        expect(page.locator("#board .cell")).to_have_count(256)
        wait_idle(page)
        cell(page, 4, 4).click()
        mx, my = b.mine_positions()[0]
        cell(page, mx, my).click(button="right")
        wait_idle(page)
        before = cells(page)
        gid = page.evaluate("window.sweeplab.state.id")
        page.wait_for_timeout(1200)
        timer_before = int(page.get_attribute("#timer", "data-value"))
        assert before[my * 16 + mx] == "F" and timer_before >= 2

        proc.send_signal(signal.SIGKILL)  # no goodbye: the game must be in the file already
        proc.wait(10)
        proc.stdout.close()
        target = next(i for i, ch in enumerate(before) if ch == "#" and not b.flat_mines[i])
        cell(page, target % 16, target // 16).click()
        expect(page.locator("#status")).to_contain_text("not answering")
        proc = start_server(db, port)
        expect(page.locator("#status")).to_contain_text("The server is back", timeout=15_000)
        assert page.evaluate("window.sweeplab.state.id") == gid and cells(page) == before
        assert int(page.get_attribute("#timer", "data-value")) >= timer_before  # the clock went on

        # a reload continues it as well, and it is won to the end
        page.reload()
        expect(page.locator("#status")).to_contain_text("Your game goes on")
        wait_idle(page)
        assert page.evaluate("window.sweeplab.state.id") == gid and cells(page) == before
        open_all_safe(page, b)
        expect(page.locator("#result-line")).to_have_attribute("data-status", "won")
        rec = httpx.get(f"{url}api/records", headers={"host": f"127.0.0.1:{port}"}).json()["records"][0]
        assert rec["seed"] == str(seed) and rec["status"] == "won"
        assert rec["elapsed"] >= timer_before - 1
    finally:
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=30)[0]
    assert proc.returncode == 0 and "stopped" in out
    assert not (tmp_path / "play.db-wal").exists() and not (tmp_path / "play.db-shm").exists()
    store = Store(db)
    assert store.records()[0][0]["game_id"] == gid  # the one game, from the kill to the win
    store.close()


def test_giving_up_a_game_in_play_asks_first_and_counts_as_a_loss(server, page):
    url, store, hub = server
    asked = []

    def answer(yes):
        page.once("dialog", lambda d: (asked.append(d.message), d.accept() if yes else d.dismiss()))

    page.goto(url)
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    page.keyboard.press("n")  # nothing clicked yet: a new game at once, nothing asked, nothing filed
    wait_idle(page)
    for _ in range(5):  # (a board the server drew may open whole at the first click: won, not in play)
        cell(page, 4, 4).click()
        wait_idle(page)
        if page.evaluate("window.sweeplab.state.status") == "playing":
            break
        page.keyboard.press("n")
        wait_idle(page)
    won = store.records()[1]
    gid = page.evaluate("window.sweeplab.state.id")
    assert asked == [] and page.evaluate("window.sweeplab.state.status") == "playing"
    answer(False)
    page.keyboard.press("n")  # in play: asked, and kept
    wait_idle(page)
    assert len(asked) == 1 and "count as a loss" in asked[0]
    assert page.evaluate("window.sweeplab.state.id") == gid
    answer(True)
    page.keyboard.press("2")  # asked again (another level), and given up
    expect(page.locator("#board .cell")).to_have_count(256)
    wait_idle(page)
    assert len(asked) == 2 and page.evaluate("window.sweeplab.state.id") != gid
    rows, total = store.records()
    assert total == won + 1 and rows[0]["status"] == "quit" and rows[0]["game_id"] == gid
    (stats,) = store.statistics()
    assert (stats["played"], stats["won"], stats["streak"]) == (won + 1, won, 0)
