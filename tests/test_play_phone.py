"""The game on a phone: Playwright's emulation of a Pixel 5 (touch, a 393 px wide screen, the page's
viewport meta honoured) in Debian's chromium against a real server. A tap opens, a long press flags,
the Tap toggle swaps them; the window fills the screen's width. Screenshots go to artifacts/ (kept
out of the repository)."""

from __future__ import annotations

import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

from sweeplab.play.store import Store

from .play_server import running
from .test_play_browser import board_for, cell, cells, wait_idle

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
LONG_PRESS = 0.7  # seconds a finger stays down: past the page's 400 ms


def long_press(cdp, page, x, y):
    """A finger held on cell (x, y), through the browser's own touch input (Chrome DevTools Protocol)."""
    box = cell(page, x, y).bounding_box()
    point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [point]})
    time.sleep(LONG_PRESS)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    wait_idle(page)


def test_the_game_is_playable_by_touch_on_a_phone(tmp_path, chromium):
    ARTIFACTS.mkdir(exist_ok=True)
    store = Store(tmp_path / "play.db")
    with running(store) as (url, _), sync_playwright() as p:
        browser = p.chromium.launch(**chromium)
        phone = p.devices["Pixel 5"]
        context = browser.new_context(**phone)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        seed = 8
        board = board_for(seed, 4, 4)
        page.goto(f"{url}?seed={seed}&mode=safe&level=beginner")
        expect(page.locator("#board .cell")).to_have_count(81)
        wait_idle(page)
        assert page.locator('meta[name="viewport"]').get_attribute("content") == "width=device-width, initial-scale=1"
        window = page.locator("#window").bounding_box()
        assert window["x"] >= 0 and window["x"] + window["width"] <= phone["viewport"]["width"]
        assert window["width"] > 0.8 * phone["viewport"]["width"]  # zoomed to fill the screen
        assert cell(page, 0, 0).bounding_box()["width"] >= 28  # a cell a finger can hit (CSS px)
        expect(page.locator("#touch-mode")).to_be_visible()

        page.tap('#board .cell[data-x="4"][data-y="4"]')  # a tap opens
        wait_idle(page)
        assert cells(page)[4 * 9 + 4] == str(board.number(4, 4))
        cdp = context.new_cdp_session(page)
        mx, my = board.mine_positions()[0]
        long_press(cdp, page, mx, my)  # a long press flags
        assert cells(page)[my * 9 + mx] == "F"
        page.screenshot(path=str(ARTIFACTS / "play-phone-flag.png"))

        page.tap("#touch-mode")  # the toggle: now a tap flags and a long press opens
        expect(page.locator("#touch-mode")).to_have_attribute("aria-pressed", "true")
        page.tap(f'#board .cell[data-x="{mx}"][data-y="{my}"]')
        wait_idle(page)
        assert cells(page)[my * 9 + mx] == "?"  # a tap now marks as a right click does: flag, then "?" (Marks on)
        safe = next((x, y) for y in range(9) for x in range(9)
                    if not board.is_mine(x, y) and cells(page)[y * 9 + x] == "#")
        long_press(cdp, page, *safe)
        assert cells(page)[safe[1] * 9 + safe[0]] == str(board.number(*safe))
        page.screenshot(path=str(ARTIFACTS / "play-phone.png"), full_page=True)
        browser.close()
    store.close()
    assert errors == []
