"""The "Windows 7, no-guess patch" play mode: in the menu, its own best times, and the board's story (opened
by the patch's rules, or its silent fallback) told after the game and never before; in a real browser
(Playwright driving /usr/bin/chromium), over HTTP, and in the terminal game."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import numpy as np
import pytest
from playwright.sync_api import expect, sync_playwright

from sweeplab.board import Board
from sweeplab.generators.win7_noguess import patch_board
from sweeplab.play.store import Store

from .play_server import running

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
expect.set_options(timeout=20_000)  # the shared 2-core box is often busy
MODE, LABEL = "win7-noguess", "Windows 7, no-guess patch"
FALLBACK = (1262304000, 30, 24, 400)  # every 30x24 board with 400 mines falls back (docs/win7-noguess.md)


@pytest.fixture()
def page(chromium):
    # one browser per test: Playwright's loop must be gone before the terminal game runs its own
    with sync_playwright() as p:
        browser = p.chromium.launch(**chromium)
        pg = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        errors = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        browser.close()
    assert errors == []


@pytest.fixture()
def server(tmp_path):
    store = Store(tmp_path / "play.db")
    with running(store) as (url, app):
        yield url, store, app.state.hub
    store.close()


def cell(page, x, y):
    return page.locator(f'#board .cell[data-x="{x}"][data-y="{y}"]')


def wait_idle(page):
    page.evaluate("window.sweeplab.queue")


def state(page):
    return page.evaluate("window.sweeplab.state")


def test_a_won_patch_game_is_told_after_the_game_and_keeps_its_own_best_time(server, page):
    url, store, hub = server
    page.goto(url)
    expect(page.locator("#board .cell")).not_to_have_count(0)
    page.click("#game-menu-button")
    item = page.locator(f'#mode-items [data-mode="{MODE}"]')
    expect(item).to_have_text(LABEL)
    item.click()
    page.click("#game-menu-button")
    page.click('#game-menu [data-level="beginner"]')
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    assert state(page)["mode"] == MODE
    cell(page, 4, 4).click()
    wait_idle(page)
    pg = hub.get(state(page)["id"])
    board, result = pg.game.board, pg.game.rule.last
    assert not pg.practice and board == result.board and not board.mines[3:6, 3:6].any()
    assert board == patch_board(pg.seed, 9, 9, 10, 4, 4).board  # the server's seed makes the board
    assert "board_note" not in state(page) and page.locator("#board-note").count() == 0  # not before the end
    for i in np.flatnonzero(~board.flat_mines):
        wait_idle(page)
        if state(page)["status"] != "playing":
            break
        if state(page)["cells"][i] == "#":
            cell(page, i % 9, i // 9).click()
    wait_idle(page)
    expect(page.locator("#result-line")).to_have_attribute("data-status", "won")
    expect(page.locator("#result-line")).to_contain_text("New best time!")
    expect(page.locator("#board-note")).to_have_text(result.note())
    assert not result.fell_back and f"attempt {result.attempts} of at most 500" in result.note()
    if page.locator("#name-dialog").is_visible():
        page.fill("#player-name", "Grace")
        page.click("#name-ok")
    expect(page.locator(f"#best-table tr[data-level=beginner][data-mode={MODE}]")).to_contain_text(LABEL)
    best = store.best_times()
    assert [(b["mode"], b["level"]) for b in best] == [(MODE, "beginner")]
    assert store.get(best[0]["id"])["record"]["board_note"] == result.note()


def test_a_fallback_board_is_labelled_after_the_game(server, page):
    url, store, hub = server
    seed, w, h, m = FALLBACK
    page.goto(f"{url}?seed={seed}&mode={MODE}&level=custom&width={w}&height={h}&mines={m}")
    expect(page.locator("#board .cell")).to_have_count(w * h)
    wait_idle(page)
    cell(page, 15, 12).click()
    wait_idle(page)
    pg = hub.get(state(page)["id"])
    result = pg.game.rule.last
    assert result.fell_back and result.attempts == 500 and pg.game.board == patch_board(seed, w, h, m, 15, 12).board
    assert state(page)["status"] == "playing" and "board_note" not in state(page)
    expect(page.locator("#last-game")).not_to_contain_text("fallback")
    x, y = pg.game.board.mine_positions()[0]
    cell(page, x, y).click()
    wait_idle(page)
    expect(page.locator("#result-line")).to_have_attribute("data-status", "lost")
    expect(page.locator("#board-note")).to_contain_text("fallback")
    expect(page.locator("#board-note")).to_contain_text("unchecked")
    record = store.records()[0][0]
    assert store.get(record["id"])["record"]["board_note"] == result.note()
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play_win7_noguess_fallback.png"), full_page=True)


def test_the_mode_over_http(server):
    url, store, hub = server
    with httpx.Client(base_url=url) as client:
        modes = {m["name"]: m for m in client.get("/api/modes").json()["modes"]}
        assert modes[MODE]["label"] == LABEL and modes[MODE]["available"] and modes[MODE]["best_times"] == "best"
        assert modes[MODE]["limits"]["width"] == [9, 30] and modes[MODE]["limits"]["height"] == [9, 24]
        seed, w, h, m = FALLBACK
        s = client.post("/api/games", json={"mode": MODE, "level": "custom", "width": w, "height": h, "mines": m,
                                            "seed": str(seed)}).json()
        s = client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": 15, "y": 12}).json()
        assert s["status"] == "playing" and "board_note" not in s and "seed" not in s
        board = hub.get(s["id"]).game.board
        x, y = board.mine_positions()[0]
        s = client.post(f"/api/games/{s['id']}/actions", json={"kind": "open", "x": x, "y": y}).json()
        assert s["status"] == "lost" and "fallback" in s["board_note"]
        assert Board.from_dict(store.get(s["record_id"])["record"]["played_board"]) == board
        too_big = client.post("/api/games", json={"mode": MODE, "level": "custom", "width": 31, "height": 9,
                                                  "mines": 10})
        assert too_big.status_code == 400 and "9..30" in too_big.json()["error"]


def test_the_terminal_game_tells_the_board_after_the_game(tmp_path):
    from textual.widgets import Static

    from sweeplab.play.tui import BoardView, MinesweeperApp

    store = Store(tmp_path / "tui.db")
    seed = 7

    async def run():
        app = MinesweeperApp(store, mode=MODE, seed=seed)
        async with app.run_test(size=(160, 40)) as pilot:
            board = app.query_one(BoardView)
            await pilot.click(BoardView, offset=(8, 4))
            await pilot.pause()
            status = app.query_one("#status", Static)
            assert board.state["status"] == "playing" and "attempt" not in str(status.render())
            b = app.pg.game.board
            assert b == patch_board(seed, 9, 9, 10, 4, 4).board
            x, y = b.mine_positions()[0]
            await pilot.click(BoardView, offset=(2 * x, y))
            await pilot.pause()
            assert board.state["status"] == "lost"
            assert app.pg.game.rule.last.note() in str(status.render())

    asyncio.run(run())
    assert store.records()[0][0]["mode"] == MODE
    store.close()


def test_a_patch_game_resumes_after_a_restart_with_the_same_board_and_story(tmp_path):
    from sweeplab.play.games import Hub

    store = Store(tmp_path / "play.db")
    seed, w, h, m = FALLBACK
    hub = Hub(store)
    pg = hub.new(mode=MODE, level="custom", width=w, height=h, mines=m, seed=str(seed))
    assert "board_note" not in hub.act(pg, "open", 15, 12)
    fresh = Hub(store)  # as after a restart: the game is made again from its seed and actions
    again = fresh.get(pg.id)
    assert again is not pg and again.game.board == pg.game.board and again.game.rule.last.fell_back
    x, y = again.game.board.mine_positions()[0]
    s = fresh.act(again, "open", x, y)
    assert s["status"] == "lost" and s["board_note"] == pg.game.rule.last.note()
    store.close()
