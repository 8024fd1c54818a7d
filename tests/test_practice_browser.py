"""Practice with the solver in a real browser (Playwright driving Debian's /usr/bin/chromium) against a
real uvicorn server and its analysis worker: a practice game started from the menu as a person would,
clicked and flagged, its odds overlay read back and compared with `sweeplab solve --json` of the same
view; the best move; the solver's step and the rest of the game played by it, which never counts for
best times. A screenshot is kept under artifacts/ for a person to look at."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from sweeplab import generators
from sweeplab.game import Game
from sweeplab.play.analyse import WORKER
from sweeplab.play.store import Store
from sweeplab.solver import analyse

from .play_server import running

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("practice-e2e") / "play.db")
    with running(store) as (url, app):
        WORKER.start()  # its first start may compile its kernels: waited for here, not by the page
        yield url, store
    store.close()


def cell(page, x, y):
    return page.locator(f'#board .cell[data-x="{x}"][data-y="{y}"]')


def state(page) -> dict:
    page.evaluate("window.sweeplab.queue")  # every action sent has been answered and drawn
    return page.evaluate("window.sweeplab.state")


def overlay_drawn(page) -> None:
    """Wait until the odds on the board are those of the position the board shows."""
    page.wait_for_function("window.sweeplabPractice.drawn !== '' && "
                           "window.sweeplabPractice.drawn === window.sweeplab.state.cells", timeout=60_000)


def solve_json(s: dict, tmp_path: Path) -> dict:
    """`sweeplab solve --json --hint` of the view the page shows, written as the CLI reads a position
    ("?" is a hidden cell to the solver)."""
    w = s["width"]
    rows = [s["cells"][i:i + w].replace("?", "#") for i in range(0, len(s["cells"]), w)]
    f = tmp_path / "view.txt"
    f.write_text(f"mines: {s['mines']}\n" + "\n".join(rows) + "\n")
    out = subprocess.run([sys.executable, "-m", "sweeplab", "solve", "--json", "--hint", str(f)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def a_seed_to_practise_on() -> int:
    """A seed of the safe-first-click mode whose game, clicked in the middle, goes on with a certain cell
    to open (so the solver's first step cannot end it) and more to do after it."""
    for seed in range(1000):
        game = Game(rule=generators.make("uniform", 9, 9, 10, seed, first_click="safe"))
        game.open(4, 4)
        if game.status == "playing" and analyse(game.view()).safe.sum() >= 2:
            return seed
    raise AssertionError("no such seed in 0..999")


def pct(p: float) -> str:
    """The overlay's number, as `sweeplab solve` writes a probability in per cent."""
    v = 100 * p
    return "<1" if v < 0.5 else ">99" if v >= 99.5 else str(round(v))


def test_practice_odds_equal_solve_and_the_solver_plays_to_the_end(server, page, tmp_path):
    url, store = server
    page.goto(url)
    expect(page.locator("#board .cell")).to_have_count(81)
    # the panel, opened from the game menu, offers no odds in a game that may count for best times
    page.click("#game-menu-button")
    page.click('#game-menu [data-mode="safe"]')
    assert not state(page)["practice"]
    page.click("#game-menu-button")
    page.click("#practice-menu")
    expect(page.locator("#practice")).to_be_visible()
    expect(page.locator("#p-odds")).to_be_hidden()
    expect(page.locator("#p-off-why")).to_contain_text("best times")
    page.click("#p-new")
    page.wait_for_function("window.sweeplab.state && window.sweeplab.state.practice")
    expect(page.locator("#p-odds")).to_be_visible()
    s = state(page)
    assert s["mode"] == "safe" and s["status"] == "ready"
    # (a seed drawn by the page: the game below is played by a link's seed, the same kind of practice game)
    page.goto(f"{url}?seed={a_seed_to_practise_on()}&mode=safe&level=beginner")
    page.wait_for_function("window.sweeplab.state && window.sweeplab.state.practice")
    expect(page.locator("#p-odds")).to_be_visible()

    # a first click in the middle, and a flag (unknown to the solver: the player's flags may be wrong)
    cell(page, 4, 4).click()
    s = state(page)
    far = max((i for i, ch in enumerate(s["cells"]) if ch == "#"), key=lambda i: abs(i % 9 - 4) + abs(i // 9 - 4))
    cell(page, far % 9, far // 9).click(button="right")
    s = state(page)
    assert s["cells"][far] == "F"

    page.check("#p-odds")
    overlay_drawn(page)
    s = state(page)
    want = solve_json(s, tmp_path)
    for y in range(9):
        for x in range(9):
            c = cell(page, x, y)
            p = want["probability"][y][x]
            if p is None:  # an open cell: nothing drawn over it
                assert c.get_attribute("data-p") is None and c.locator(".p-ov").count() == 0, (x, y)
                continue
            assert float(c.get_attribute("data-p")) == p, (x, y)  # exact: the same float
            odds = c.get_attribute("data-odds")
            assert (odds == "safe") == ([x, y] in want["safe"]) and (odds == "mine") == ([x, y] in want["mines_certain"])
            expect(c.locator(".p-ov")).to_have_text("S" if odds == "safe" else "M" if odds == "mine" else pct(p))

    # the best move: the cells the solver's hint names (the certain safe cells, or strong's guess)
    page.check("#p-best")
    overlay_drawn(page)
    best = page.evaluate("[...document.querySelectorAll('#board .cell.p-best')].map(n => [+n.dataset.x, +n.dataset.y])")
    hint = want["hint"]
    if hint["kind"] != "mine":  # (certain mines and no safe cell: strong, which never flags, guesses instead)
        assert sorted(best) == sorted(hint["cells"])
    expect(page.locator("#p-why")).to_contain_text("Best move:")
    page.uncheck("#p-odds")  # the odds off, the best move still shown
    expect(page.locator("#board .p-ov")).to_have_count(0)
    expect(page.locator("#board .p-best")).to_have_count(len(best))
    page.check("#p-odds")
    expect(page.locator("#board .p-ov")).to_have_count(sum(p is not None for row in want["probability"] for p in row))
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "practice-odds.png"))

    # one step: the solver opens the move shown, and the odds follow the new position
    page.click("#p-step")
    overlay_drawn(page)
    after = state(page)
    last = page.evaluate("[...document.querySelectorAll('#board .cell.p-last')].map(n => [+n.dataset.x, +n.dataset.y])")
    assert len(last) == 1 and last[0] in best
    x, y = last[0]
    assert s["cells"][y * 9 + x] in "#?F" and after["cells"] != s["cells"] and after["hints_used"] == 1
    expect(page.locator("#p-did")).to_contain_text(f"The solver opens column {x + 1}, row {y + 1}")

    # the rest of the game, step by step, to its end
    page.click("#p-play")
    expect(page.locator("#p-play")).to_have_text("Stop the solver")
    page.wait_for_function("['won', 'lost'].includes(window.sweeplab.state.status)", timeout=120_000)
    end = state(page)
    expect(page.locator("#result-line")).to_have_attribute("data-status", end["status"])
    if end["status"] == "won":
        expect(page.locator("#result-line")).to_contain_text("practice: not eligible")
    expect(page.locator("#p-play")).to_be_disabled()
    expect(page.locator("#p-play")).to_have_text("Solver: play to the end")
    expect(page.locator("#board .p-ov")).to_have_count(0)  # no odds over a finished game
    rec = store.get(end["record_id"])
    assert rec["practice"] and rec["hints"] == end["hints_used"] >= 2
    assert all(b["id"] != rec["id"] for b in store.best_times())
    page.screenshot(path=str(ARTIFACTS / "practice.png"))
