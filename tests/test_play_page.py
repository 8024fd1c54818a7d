"""The play page's look and layout in Debian's chromium against a real server: the counters beside the
board (live from what the player has seen, the server's exact figures at the end, checked against
stats.py of the same board and clicks), the skins, a flag inside its cell, long notes, the replay's
buttons, the mode's label, a slow first click, and the phone (Playwright's Pixel 5): expert fits the
screen after Fit, and the analysis page lays out at the phone's width."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image
from playwright.sync_api import expect, sync_playwright

from sweeplab.board import Board
from sweeplab.game import replay_steps
from sweeplab.play.store import Store
from sweeplab.stats import game_stats

from .play_server import running
from .test_play_browser import board_for, cell, cells, wait_idle

HIDDEN = "#F?"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("page") / "play.db")
    with running(store) as (url, _):
        yield url, store
    store.close()


@pytest.fixture(scope="module")
def pw(chromium):
    with sync_playwright() as p:
        b = p.chromium.launch(**chromium)
        yield p, b
        b.close()


@pytest.fixture(scope="module")
def browser(pw):
    return pw[1]


def counter(page, which) -> str:
    return page.text_content(f"#c-{which}")


def first_click_beside_an_opening():
    """A seed and a first click on a number that borders a zero: opening it shows one number only, and
    whether that number is part of an opening (3BV 0 so far) or a lone one (3BV 1) is hidden."""
    for seed in range(200):
        b = board_for(seed, 4, 4)
        around = [(4 + dx, 4 + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
        if b.number(4, 4) > 0 and any(not b.is_mine(u, v) and b.number(u, v) == 0 for u, v in around):
            return seed, b
    raise AssertionError("no such seed in 0..199")


def no_hidden_cell_in(body, hidden: set[int]) -> None:
    """A game's answer while it is played: no board or figures of the end, and no cells text anywhere in
    it that says more of a hidden cell than the player sees."""
    def walk(v, key=""):
        if isinstance(v, dict):
            assert "board" not in v and "stats" not in v and "played_board" not in v, v.keys()
            for k, x in v.items():
                walk(x, k)
        elif isinstance(v, list):
            for x in v:
                walk(x, key)
        elif isinstance(v, str) and len(v) == 81:
            assert all(v[i] in HIDDEN for i in hidden), f"{key} tells of a hidden cell"
    walk(body)


def test_counters_show_only_what_the_player_saw_and_the_servers_figures_at_the_end(server, page):
    url, store = server
    seed, b = first_click_beside_an_opening()
    answers = []  # every answer of the games API, read as it comes
    page.on("response", lambda r: answers.append(r.json()) if "/api/games" in r.url else None)
    page.goto(f"{url}?seed={seed}&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    expect(page.locator("#counters")).to_be_visible()
    assert counter(page, "clicks") == "0" and counter(page, "bbbv") == "?"

    # a click shows in the counters in the same frame, before the server answers
    assert page.evaluate("""() => { window.sweeplab.act("open", 4, 4);
        return document.getElementById("c-left").textContent; }""") == "1"
    wait_idle(page)
    assert cells(page).count("#") == 80  # one number open, its opening still hidden
    # the number borders a hidden zero (so it is no 3BV of its own yet): the live count is 1, as for a
    # lone number, and says nothing of the hidden neighbour
    assert counter(page, "done") == "1" and counter(page, "ioe") == "1.00"

    # flags: one on a mine, taken off (to "?") and put back (wasted: not a first flag); a left click on
    # an open number (wasted); then every safe cell opened
    mx, my = b.mine_positions()[0]
    for _ in range(4):  # F, ?, hidden, F
        cell(page, mx, my).click(button="right")
        wait_idle(page)
    cell(page, 4, 4).click()
    wait_idle(page)
    assert (counter(page, "right"), counter(page, "left"), counter(page, "wasted")) == ("4", "2", "4")
    page.reload()  # the tab keeps its counts of the game it goes on with
    expect(page.locator("#status")).to_contain_text("Your game goes on")
    assert (counter(page, "right"), counter(page, "left"), counter(page, "wasted")) == ("4", "2", "4")
    cell(page, 4, 4).click(button="middle")  # a chord on the first number, beside the one flag or not
    wait_idle(page)
    assert counter(page, "chords") == "1"
    while "#" in (c := cells(page)) and page.evaluate("window.sweeplab.state.status") == "playing":
        x, y = next((i % 9, i // 9) for i, ch in enumerate(c) if ch == "#" and not b.flat_mines[i])
        live_wasted = counter(page, "wasted")  # (the winning click, an open, wastes nothing)
        page.evaluate("([x, y]) => window.sweeplab.act('open', x, y)", [x, y])
        wait_idle(page)
    expect(page.locator("#result-line")).to_have_attribute("data-status", "won")
    expect(page.locator("#counters")).to_have_attribute("data-exact", "true")

    # every answer of the game in play held nothing of a hidden cell (its last, the win, shows the board)
    in_play = [a for a in answers if isinstance(a, dict) and a.get("status") in ("ready", "playing")]
    assert len(in_play) >= 10
    board_text = [a for a in answers if isinstance(a, dict) and a.get("status") == "won"][0]["board"]
    assert "*" in board_text and len(board_text) == 81
    for body in in_play:
        no_hidden_cell_in(body, {i for i, ch in enumerate(body["cells"]) if ch in HIDDEN})
        assert board_text not in json.dumps(body)

    # the end: the panel shows stats.py's figures of the same board and clicks, replayed from the store
    rec = store.get(page.evaluate("window.sweeplab.state.record_id"))["record"]
    steps = replay_steps(Board.from_dict(rec["played_board"]), rec["actions"], marks=rec.get("marks", True))
    next(steps)
    assert game_stats(next(steps)).bbbv_solved == 0  # the first click's number: no 3BV solved yet, as said
    *_, game = steps
    st = game_stats(game)
    assert st.status == "won" and st.right_clicks == 4 and st.chords == 1
    assert counter(page, "bbbv") == str(st.bbbv) and counter(page, "done") == str(st.bbbv_solved)
    assert counter(page, "clicks") == str(st.clicks) and counter(page, "left") == str(st.left_clicks)
    assert counter(page, "right") == str(st.right_clicks) and counter(page, "chords") == str(st.chords)
    assert counter(page, "wasted") == str(st.clicks - st.effective_clicks) == live_wasted  # live rule, same count
    for which, value in (("time", st.time), ("bbbvs", st.bbbv_per_second), ("ioe", st.ioe), ("rqp", st.rqp),
                         ("correctness", st.correctness), ("throughput", st.throughput)):
        assert counter(page, which) == f"{value:.3f}", which

    # hidden from the menu, and still hidden after a reload
    page.click("#counters-close")
    expect(page.locator("#counters")).to_be_hidden()
    page.reload()
    expect(page.locator("#board .cell")).to_have_count(81)
    expect(page.locator("#counters")).to_be_hidden()
    page.click("#game-menu-button")
    page.click('#game-menu [data-cmd="counters"]')
    expect(page.locator("#counters")).to_be_visible()


def test_a_skin_chosen_in_the_menu_is_kept_after_a_reload_and_on_the_analysis_board(server, page):
    url, _ = server
    page.goto(f"{url}?seed=3&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    desk = page.evaluate("getComputedStyle(document.body).backgroundColor")
    looks = {}
    for skin in ("win7", "dark", "win98"):
        page.click("#game-menu-button")
        page.click(f'#game-menu [data-skin="{skin}"]')
        assert page.evaluate("document.documentElement.dataset.skin") == skin
        looks[skin] = page.evaluate("""() => [getComputedStyle(document.body).backgroundColor,
            getComputedStyle(document.querySelector('#board .cell')).backgroundImage,
            getComputedStyle(document.querySelector('#board .cell')).backgroundColor]""")
    assert len({tuple(v) for v in looks.values()}) == 3 and looks["win98"][0] == desk
    page.click("#game-menu-button")
    page.click('#game-menu [data-skin="dark"]')
    page.reload()
    expect(page.locator("#board .cell")).to_have_count(81)
    assert page.evaluate("document.documentElement.dataset.skin") == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == looks["dark"][0]
    page.goto(f"{url}analyse")
    expect(page.locator("#r-summary")).not_to_have_text("", timeout=120_000)  # (its analysis answered)
    assert page.evaluate("document.documentElement.dataset.skin") == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == looks["dark"][0]
    page.evaluate("localStorage.clear()")


def test_a_flag_on_the_bottom_row_stays_inside_its_cell(server, page):
    url, _ = server
    page.goto(f"{url}?seed=3&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    cell(page, 2, 8).click(button="right")
    wait_idle(page)
    assert cells(page)[8 * 9 + 2] == "F"

    def under(x):  # the board's border under cell (x, 8), and the cell's last pixel row
        box = cell(page, x, 8).bounding_box()
        clip = {"x": box["x"], "y": box["y"] + box["height"] - 1, "width": box["width"], "height": 5}
        return Image.open(io.BytesIO(page.screenshot(clip=clip))).convert("RGB").tobytes()
    assert under(2) == under(5)  # beside a hidden cell's own edge and border, the flag draws nothing


def test_a_long_note_unfolds_and_the_mode_is_named_in_words(server, page):
    url, _ = server
    page.goto(f"{url}?seed=5&mode=win98&level=expert")
    expect(page.locator("#board .cell")).to_have_count(480)
    expect(page.locator("#status")).to_contain_text("Windows 98, expert 30x16/99")
    page.goto(f"{url}?seed=3&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    before = page.locator("#window").bounding_box()
    text = "Hint: safe column 3, row 4: " + "the 1 at column 2, row 3 has its mine. " * 8
    page.evaluate("t => window.sweeplab.note(t)", text)
    assert page.locator("#window").bounding_box() == before  # the window keeps its size...
    page.click("#status .more")  # ...until the player asks for the whole note
    status = page.locator("#status")
    assert status.evaluate("e => e.scrollHeight <= e.clientHeight")
    assert status.evaluate("e => e.getBoundingClientRect().bottom") <= page.locator("#window").bounding_box()["y"] + \
        page.locator("#window").bounding_box()["height"]
    expect(status).to_contain_text(text.strip())


def test_the_replay_buttons_stay_on_one_line_under_a_beginner_board(server, page):
    url, store = server
    seed = 5
    page.goto(f"{url}?seed={seed}&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    cell(page, 0, 0).click()
    wait_idle(page)
    mx, my = board_for(seed, 0, 0).mine_positions()[0]
    cell(page, mx, my).click()
    wait_idle(page)
    rid = page.evaluate("window.sweeplab.state.record_id")
    page.goto(f"{url}records#{rid}")
    expect(page.locator("#window")).to_be_visible()
    boxes = [page.locator(f"#{b}").bounding_box() for b in ("r-first", "r-prev", "r-play", "r-next", "r-last")]
    assert len({round(b["y"]) for b in boxes}) == 1 and len({round(b["height"]) for b in boxes}) == 1
    for b in ("r-first", "r-play", "r-last"):  # no button's text is cut
        assert page.locator(f"#{b}").evaluate("e => e.scrollWidth <= e.clientWidth"), b
    win = page.locator("#window").bounding_box()
    for b in page.locator(".statusbar .replay-controls .btn").all():  # and every button of the row, whole
        box = b.bounding_box()
        assert box["x"] >= win["x"] and box["x"] + box["width"] <= win["x"] + win["width"], b.text_content()
        assert b.evaluate("e => e.scrollWidth <= e.clientWidth"), b.text_content()


def test_a_slow_first_click_shows_the_board_being_laid_and_its_seconds(server, page):
    url, _ = server
    # the first click's answer held back 2.5 s in the page (as a dense no-guess board or the first compile
    # would hold it); the page must say it is working, with the seconds, over the board as it was
    page.add_init_script("""(() => { const real = window.fetch;
        window.fetch = async (u, o) => { if (String(u).endsWith("/actions") && !window.held) {
            window.held = true; await new Promise(r => setTimeout(r, 2500)); } return real(u, o); }; })()""")
    page.goto(f"{url}?seed=3&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    cell(page, 4, 4).click()
    expect(page.locator("#board")).to_have_class("board busy")
    expect(page.locator("#status .busy-note")).to_contain_text("Laying the board")
    expect(page.locator("#status .busy-note")).to_contain_text("1 s")
    assert cells(page) == "#" * 81 and page.locator("#board .cell.hidden").count() == 81  # never a blank board
    wait_idle(page)
    expect(page.locator("#board")).to_have_class("board")
    assert page.locator("#status .busy-note").count() == 0 and cells(page)[4 * 9 + 4] != "#"


# --- the phone ------------------------------------------------------------------------------------------
@pytest.fixture()
def phone(pw):
    device = pw[0].devices["Pixel 5"]
    ctx = pw[1].new_context(**device)
    pg = ctx.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg, device["viewport"]["width"]
    ctx.close()
    assert errors == []


def test_on_a_phone_expert_fits_the_screen_and_the_analysis_page_its_width(server, phone):
    url, _ = server
    page, width = phone
    page.goto(f"{url}?seed=3&mode=safe&level=expert")
    expect(page.locator("#board .cell")).to_have_count(480)
    wait_idle(page)
    assert "user-scalable" not in page.locator('meta[name="viewport"]').get_attribute("content")  # pinch zoom
    assert page.evaluate("window.sweeplab.settings.zoom") == "fit"
    for part in ("#window", "#counter", "#timer", "#face"):
        box = page.locator(part).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, part
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.goto(f"{url}analyse")
    expect(page.locator("#board .cell")).not_to_have_count(0)
    expect(page.locator("#r-summary")).not_to_have_text("", timeout=120_000)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for part in ("#window", "#setup", "#report"):
        box = page.locator(part).bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width, part
    assert page.locator("#status").count() == 0  # no empty box under the board
    page.click('[data-preset="30,16,99"]')  # an expert position: its board scrolls in the window, the page not
    expect(page.locator("#board .cell")).to_have_count(480)
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.locator("#window .game").evaluate("e => e.scrollWidth > e.clientWidth")
    box = page.locator("#window").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width


def test_the_analysis_title_wraps_under_a_nine_wide_board(server, page):
    url, _ = server
    page.goto(f"{url}analyse")
    expect(page.locator("#board .cell")).to_have_count(81)
    expect(page.locator("#r-summary")).not_to_have_text("", timeout=120_000)
    page.evaluate("document.getElementById('title').textContent = "
                  "'Analysis board · game 12, before move 14 of 20'")
    title = page.locator("#title")
    assert title.evaluate("e => e.scrollWidth <= e.clientWidth")
    assert title.bounding_box()["x"] + title.bounding_box()["width"] <= \
        page.locator("#window").bounding_box()["x"] + page.locator("#window").bounding_box()["width"]
