"""End to end in a real browser: Playwright driving Debian's /usr/bin/chromium (the `chromium` fixture in
conftest.py; SWEEPLAB_CHROMIUM names another) against a real uvicorn server.

A seeded game is opened with a cascade, flagged, chorded, won; another is lost; the counter,
timer, face, best-times table and records page are checked, and a screenshot is kept under
artifacts/ for a person to look at.
"""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect, sync_playwright

from sweeplab import generators
from sweeplab.play.server import bind, create_app, url_of
from sweeplab.play.store import Store

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


def board_for(seed, x, y):
    return generators.make("uniform", 9, 9, 10, seed, first_click="safe").board_for(x, y)[0]


def cascade_seed():
    """The first seed whose board opens (4, 4) as a 0 (a cascade) and leaves a chord to make."""
    for seed in range(1000):
        b = board_for(seed, 4, 4)
        if b.number(4, 4) == 0:
            return seed, b
    raise AssertionError("no cascade seed in 0..999")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import uvicorn
    store = Store(tmp_path_factory.mktemp("e2e") / "play.db")
    sock = bind("127.0.0.1", 0)
    srv = uvicorn.Server(uvicorn.Config(create_app(store), log_level="warning", access_log=False, lifespan="off"))
    t = threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True)
    t.start()
    while not srv.started:
        time.sleep(0.02)
    yield url_of(sock), store
    srv.should_exit = True
    t.join(5)
    store.close()


@pytest.fixture(scope="module")
def page(server, chromium):
    with sync_playwright() as p:
        browser = p.chromium.launch(**chromium)
        pg = browser.new_context(viewport={"width": 1200, "height": 800}).new_page()
        errors = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        browser.close()
        assert errors == []


def find_chord(c, b):
    """An open number with a hidden safe neighbour: a chord there opens something."""
    for i, ch in enumerate(c):
        if ch in "12345678":
            x, y = i % 9, i // 9
            around = [(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                      if (dx or dy) and 0 <= x + dx < 9 and 0 <= y + dy < 9]
            if any(c[v * 9 + u] == "#" and not b.is_mine(u, v) for u, v in around):
                return x, y, around
    raise AssertionError("no chord left on this board")


def go_to(page, x, y):
    """Move the keyboard cursor to (x, y) with the arrow keys, from the top-left corner."""
    page.evaluate("([x, y]) => window.sweeplab.setCursor(x, y)", [0, 0])
    for _ in range(x):
        page.keyboard.press("ArrowRight")
    for _ in range(y):
        page.keyboard.press("ArrowDown")
    assert page.evaluate("window.sweeplab.cursor") == {"x": x, "y": y}


def cell(page, x, y):
    return page.locator(f'#board .cell[data-x="{x}"][data-y="{y}"]')


def cells(page):
    return page.evaluate("window.sweeplab.board.cells")


def lcd(page, which):
    return page.get_attribute(f"#{which}", "data-value")


def wait_idle(page):
    page.evaluate("window.sweeplab.queue")  # every action sent has been answered and drawn


def test_play_win_and_lose_in_the_browser(server, page):
    url, store = server
    seed, b = cascade_seed()
    page.goto(f"{url}?seed={seed}&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    assert lcd(page, "counter") == "010" and lcd(page, "timer") == "000"
    assert page.get_attribute("#face", "data-face") == "smile"

    # press and hold: the cell presses down and the face is surprised; release opens a cascade
    box = cell(page, 4, 4).bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    assert "pressed" in cell(page, 4, 4).get_attribute("class")
    assert page.get_attribute("#face", "data-face") == "surprised"
    page.mouse.up()
    wait_idle(page)
    opened = [i for i, ch in enumerate(cells(page)) if ch != "#"]
    assert len(opened) > 1 and cells(page)[4 * 9 + 4] == "0"
    for i in opened:
        assert not b.flat_mines[i] and cells(page)[i] == str(b.flat_numbers[i])
    assert page.get_attribute("#face", "data-face") == "smile"
    assert page.evaluate("window.sweeplab.state.timer") == 1 and lcd(page, "timer") in ("001", "002")  # 1 at once
    page.wait_for_timeout(1100)
    assert int(lcd(page, "timer")) >= 2  # the clock runs between actions

    # chords, three ways as on Windows: shift+left, both buttons, the middle button. Each on an open
    # number with a hidden safe neighbour, after flagging that number's mines with right clicks.
    flags = 0
    for how in ("shift", "both", "middle", "keys"):
        x, y, around = find_chord(cells(page), b)
        for u, v in around:
            if b.is_mine(u, v) and cells(page)[v * 9 + u] != "F":
                if how == "keys":
                    go_to(page, u, v)
                    page.keyboard.press("f")
                else:
                    cell(page, u, v).click(button="right")
                flags += 1
        wait_idle(page)
        assert lcd(page, "counter") == f"{10 - flags:03d}"
        if how == "keys":
            go_to(page, x, y)
            page.keyboard.press("c")
        elif how == "shift":
            cell(page, x, y).click(modifiers=["Shift"])
        elif how == "middle":
            cell(page, x, y).click(button="middle")
        else:
            box = cell(page, x, y).bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.mouse.down(button="left")
            page.mouse.down(button="right")
            pressed = page.locator("#board .cell.pressed").count()
            assert pressed == sum(cells(page)[v * 9 + u] in "#?" for u, v in around)  # the 3x3 presses down
            page.mouse.up(button="right")
            page.mouse.up(button="left")  # the second release does nothing more
        wait_idle(page)
        for u, v in around:
            assert cells(page)[v * 9 + u] == ("F" if b.is_mine(u, v) else str(b.number(u, v))), how

    # the keyboard: arrows move the cursor, space opens
    target = next((i % 9, i // 9) for i, ch in enumerate(cells(page)) if ch == "#" and not b.flat_mines[i])
    go_to(page, *target)
    page.keyboard.press("Space")
    wait_idle(page)
    assert cells(page)[target[1] * 9 + target[0]] != "#"

    # win: open every other safe cell
    for i, ch in enumerate(cells(page)):
        if ch == "#" and not b.flat_mines[i]:
            cell(page, i % 9, i // 9).click()
    wait_idle(page)
    assert page.get_attribute("#face", "data-face") == "cool" and lcd(page, "counter") == "000"
    assert page.get_attribute("#result-line", "data-status") == "won"
    # a game by seed is practice: recorded, never a best time
    expect(page.locator("#result-line")).to_contain_text("practice")
    expect(page.locator("#best-times")).to_contain_text("No best times yet")
    won_timer = lcd(page, "timer")
    page.wait_for_timeout(1100)
    assert lcd(page, "timer") == won_timer  # stopped
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "play_won.png"))

    # F2 starts a new game; then lose one on a known board
    page.keyboard.press("F2")
    wait_idle(page)
    assert page.get_attribute("#face", "data-face") == "smile" and lcd(page, "timer") == "000"
    page.goto(f"{url}?seed=5&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    b5 = board_for(5, 0, 0)
    cell(page, 0, 0).click()
    wait_idle(page)
    mx, my = b5.mine_positions()[0]
    cell(page, mx, my).click()
    wait_idle(page)
    assert page.get_attribute("#face", "data-face") == "dead"
    assert "exploded" in cell(page, mx, my).get_attribute("class")
    assert cells(page).count("*") == 9
    page.screenshot(path=str(ARTIFACTS / "play_lost.png"))

    # every finished game is in the store; the records page lists and replays them
    rows, total = store.records()
    assert total == 2 and [r["status"] for r in rows] == ["lost", "won"]
    page.goto(f"{url}records")
    expect(page.locator("#records-table tr[data-id]")).to_have_count(2)
    page.locator(f'#records-table tr[data-id="{rows[1]["id"]}"]').click()
    expect(page.locator("#window")).to_be_visible()
    page.click("#r-last")
    assert page.get_attribute("#face", "data-face") == "cool"
    page.click("#r-first")
    assert page.evaluate("window.sweeplab.board.cells") == "#" * 81
    page.screenshot(path=str(ARTIFACTS / "play_records.png"))


def test_custom_level_limits_are_explained(server, page):
    url, _ = server
    page.goto(url)
    expect(page.locator("#board .cell")).not_to_have_count(0)
    page.click("#game-menu-button")
    page.click('#game-menu [data-level="custom"]')
    page.fill("#c-width", "31")
    page.click("#custom-ok")
    expect(page.locator("#custom-error")).to_contain_text("9..30")
    page.fill("#c-width", "20")
    page.fill("#c-height", "10")
    page.fill("#c-mines", "30")
    page.click("#custom-ok")
    expect(page.locator("#board .cell")).to_have_count(200)


def test_hints_from_the_menu_mark_the_game(server, page):
    url, store = server
    page.goto(f"{url}?seed=8&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    page.click("#game-menu-button")
    page.click('#game-menu [data-cmd="hints"]')
    expect(page.locator("#hint-button")).to_be_visible()
    cell(page, 4, 4).click()
    wait_idle(page)
    page.click("#hint-button")
    # the first hint in a fresh checkout compiles the solver's numba kernels: allow for it
    expect(page.locator("#status")).to_contain_text("Hint:", timeout=180_000)
    reason = page.inner_text("#status")  # cells named as a player counts them, never (x, y) from 0
    assert "column" in reason and "row" in reason and not re.search(r"\(\d+, \d+\)", reason), reason
    marked = page.locator("#board .cell[class*=hint-]")
    assert marked.count() >= 1
    b = board_for(8, 4, 4)
    first = marked.first
    x, y = int(first.get_attribute("data-x")), int(first.get_attribute("data-y"))
    kind = page.evaluate("document.querySelector('#board [class*=hint-]').className")
    assert ("hint-mine" in kind) == b.is_mine(x, y) or "hint-guess" in kind
    page.screenshot(path=str(ARTIFACTS / "play_hint.png"))
    for i, ch in enumerate(cells(page)):
        if ch in "#?" and not b.flat_mines[i]:
            cell(page, i % 9, i // 9).click()
    wait_idle(page)
    expect(page.locator("#last-game")).to_contain_text("not eligible for best times")
    page.click("#game-menu-button")
    page.screenshot(path=str(ARTIFACTS / "play_menu.png"))
    page.click('#game-menu [data-cmd="hints"]')  # hints off again for the other tests
    assert store.records()[0][0]["hints"] == 1


def test_two_tabs_play_their_own_games(server, page):
    url, _ = server
    other = page.context.new_page()
    try:
        page.goto(f"{url}?seed=31&mode=safe&level=beginner")
        other.goto(f"{url}?seed=32&mode=safe&level=intermediate")
        expect(page.locator("#board .cell")).to_have_count(81)
        expect(other.locator("#board .cell")).to_have_count(256)
        wait_idle(page)
        wait_idle(other)
        assert page.evaluate("window.sweeplab.state.id") != other.evaluate("window.sweeplab.state.id")
        assert page.evaluate("window.sweeplab.session") != other.evaluate("window.sweeplab.session")
        cell(page, 4, 4).click()
        cell(other, 0, 0).click(button="right")
        wait_idle(page)
        wait_idle(other)
        b = board_for(31, 4, 4)
        assert cells(page)[4 * 9 + 4] == str(b.number(4, 4)) and "F" not in cells(page)
        assert cells(other)[0] == "F" and cells(other).count("#") == 255
        assert lcd(other, "counter") == "039" and lcd(page, "counter") == "010"
    finally:
        other.close()
