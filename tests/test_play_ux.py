"""The play pages as a new user meets them, in a real browser (Playwright driving Debian's chromium)
against a real server: the Custom dialog's real limit, the records page before a record is chosen,
the status bar after Custom and under a long note, the replay's title and times, cells counted from 1,
the "Last game" panel after a reload; and the limits and words of the server behind them."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect
from starlette.testclient import TestClient

from sweeplab import generators
from sweeplab.errors import GenerationError
from sweeplab.play import modes as M
from sweeplab.play.server import create_app
from sweeplab.play.store import Store

from .play_server import running
from .test_play_browser import board_for, cell, wait_idle


# --- 13: the no-guess Custom limit is the generator's, refused in plain words ----------------------------
def test_noguess_custom_limit_comes_from_the_generator_and_is_refused_in_plain_words(tmp_path):
    limits = generators.lookup("noguess").limits
    top = limits.max_mines(30, 24)
    assert top < 29 * 23  # the generator's own limit, below the classic dialog's (width-1)(height-1)
    with TestClient(create_app(Store(tmp_path / "p.db")), base_url="http://127.0.0.1") as c:
        noguess = {m["name"]: m for m in c.get("/api/modes").json()["modes"]}["noguess"]["limits"]
        assert noguess["max_mines"][24 - 9][30 - 9] == top and noguess["max_mines"][0][0] == limits.max_mines(9, 9)
        body = {"mode": "noguess", "level": "custom", "width": 30, "height": 24}
        r = c.post("/api/games", json={**body, "mines": 600})
        assert r.status_code == 400
        error = r.json()["error"]
        assert f"1 to {top} mines" in error and "No guess" in error, error
        assert not re.search(r"mcmc|repair|\(width-1\)", error), error
        assert c.post("/api/games", json={**body, "mines": top}).status_code == 201


def test_a_generator_that_gives_up_is_told_in_a_players_words():
    rule = M.PlayersWords(generators.make("noguess", 9, 9, 43, 1, tries=1, method="rejection"), "No guess")
    with pytest.raises(GenerationError) as caught:
        rule.board_for(4, 2)
    text = str(caught.value)
    assert "column 5, row 3" in text and "fewer mines" in text
    assert not re.search(r"mcmc|repair|rejection|\(4, 2\)", text), text


def test_the_players_words_rule_passes_on_everything_its_rule_says():
    # FirstClick's own methods are found on the wrapper before __getattr__ is asked: each must be passed on
    # (a board note of the Windows 7 no-guess patch was lost so)
    from sweeplab.firstclick import FirstClick
    methods = [name for name, v in vars(FirstClick).items() if callable(v) and not name.startswith("_")]
    assert {"board_before", "board_for", "spec", "board_note"} <= set(methods)
    assert all(name in vars(M.Passed) for name in methods), methods
    from sweeplab.play.games import Laid
    assert issubclass(M.PlayersWords, M.Passed) and issubclass(Laid, M.Passed)  # the wrappers of a rule

    class Told(FirstClick):
        name = "told"

        def board_for(self, x, y):
            return None

        def board_note(self):
            return "laid by the fallback"
    assert M.PlayersWords(Told(9, 9, 10), "Told").board_note() == "laid by the fallback"


# --- the browser ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("ux") / "play.db")
    with running(store) as (url, _):
        yield url, store
    store.close()


@pytest.fixture(scope="module")
def viewport():
    return {"width": 1200, "height": 800}


def lose(page, url, seed=5):
    """Play the seeded beginner game to a loss: open (0, 0), then a mine."""
    page.goto(f"{url}?seed={seed}&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    cell(page, 0, 0).click()
    wait_idle(page)
    mx, my = board_for(seed, 0, 0).mine_positions()[0]
    cell(page, mx, my).click()
    wait_idle(page)
    expect(page.locator("#result-line")).to_have_attribute("data-status", "lost")


def test_custom_dialog_shows_the_real_limit_as_the_player_types(server, page):
    url, _ = server
    page.goto(url)
    expect(page.locator("#board .cell")).not_to_have_count(0)
    page.click("#game-menu-button")
    page.click('#game-menu [data-level="custom"]')
    page.fill("#c-width", "30")
    page.fill("#c-height", "24")
    top = generators.lookup("noguess").limits.max_mines(30, 24)
    expect(page.locator("#custom-limits")).to_contain_text(f"On 30×24: 1 to {top} mines")
    page.fill("#c-height", "16")
    expect(page.locator("#custom-limits")).to_contain_text(
        f"On 30×16: 1 to {generators.lookup('noguess').limits.max_mines(30, 16)} mines")
    page.fill("#c-mines", str(top + 1))
    page.fill("#c-height", "24")
    page.click("#custom-ok")
    expect(page.locator("#custom-error")).to_contain_text(f"1 to {top} mines")
    # --- 16: after a Custom game starts, the status bar names it, not the level before
    page.fill("#c-width", "20")
    page.fill("#c-height", "10")
    page.fill("#c-mines", "30")
    page.click("#custom-ok")
    expect(page.locator("#board .cell")).to_have_count(200)
    expect(page.locator("#status")).to_contain_text("custom 20x10/30")


def test_the_window_keeps_its_size_under_a_long_note_and_has_no_dead_buttons(server, page):
    url, _ = server
    page.goto(f"{url}?seed=3&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    before = page.locator("#window").bounding_box()
    page.evaluate("window.sweeplab.note('Hint: safe column 3, row 4: ' + 'the 1 at column 2, row 3 has its mine. '.repeat(8))")
    assert page.locator("#window").bounding_box() == before
    assert page.locator(".titlebar").evaluate("t => [...t.children].map(c => c.className)") == ["title-icon", "title"]


def test_the_last_game_panel_survives_a_reload(server, page):
    url, _ = server
    lose(page, url)
    page.reload()
    expect(page.locator("#board .cell")).not_to_have_count(0)
    expect(page.locator("#last-game #result-line")).to_have_attribute("data-status", "lost")
    expect(page.locator("#last-game")).to_contain_text("Lost in")


def test_records_page_replays_from_the_first_click_counting_cells_from_1(server, page):
    url, store = server
    lose(page, url, seed=6)
    rows, _ = store.records()
    page.goto(f"{url}records")
    expect(page.locator("#records-table tr[data-id]")).not_to_have_count(0)
    expect(page.locator("#window")).to_be_hidden()  # no empty Replay window before a record is chosen
    page.locator(f'#records-table tr[data-id="{rows[0]["id"]}"]').click()
    expect(page.locator("#window")).to_be_visible()
    title = page.locator("#replay-title")
    assert title.evaluate("t => t.scrollWidth <= t.clientWidth")  # not cut at beginner width
    page.click("#r-next")
    expect(page.locator("#r-info")).to_have_text("move 1 of 2: open column 1, row 1 at 0.000 s")
    page.click("#r-next")
    mx, my = board_for(6, 0, 0).mine_positions()[0]
    info = page.locator("#r-info").inner_text()
    assert info.startswith(f"move 2 of 2: open column {mx + 1}, row {my + 1} at ")
    assert 0 < float(info.split(" at ")[1].split()[0]) < 60


def test_records_page_filters_games_given_up_in_play(server, page):
    url, store = server
    page.goto(f"{url}?seed=5&mode=safe&level=beginner")
    expect(page.locator("#board .cell")).to_have_count(81)
    wait_idle(page)
    cell(page, 0, 0).click()  # past the first click: giving it up now is a loss, filed as quit
    wait_idle(page)
    gid = page.evaluate("window.sweeplab.state.id")
    assert page.evaluate("window.sweeplab.state.status") == "playing"
    page.once("dialog", lambda d: d.accept())
    page.keyboard.press("n")
    wait_idle(page)
    quit_rows, _ = store.records(status="quit")
    assert quit_rows and quit_rows[0]["game_id"] == gid
    page.goto(f"{url}records")
    expect(page.locator("#records-table tr[data-id]")).not_to_have_count(0)
    page.select_option("#f-status", "quit")
    expect(page.locator("#records-table tr[data-id]")).to_have_count(len(store.records(status="quit", limit=500)[0]))
    expect(page.locator(f'#records-table tr[data-id="{quit_rows[0]["id"]}"]')).to_contain_text("quit")
