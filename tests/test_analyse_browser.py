"""The analysis board in a real browser (Playwright driving Debian's /usr/bin/chromium) against a real
uvicorn server: a position set up by clicks and keys, its overlay read back and compared with
`sweeplab solve --json`; a pasted position; a shared link; a step of a game's replay and of a replay file
opened in the board; the view of a lost game. Screenshots are kept under artifacts/ for a person to look at."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import expect

from sweeplab.board import Board
from sweeplab.game import Game, replay_steps
from sweeplab.play.analyse import WORKER
from sweeplab.play.analyse_position import AnalysisPosition
from sweeplab.play.games import replay_frames
from sweeplab.play.store import Store
from sweeplab.replays import read_replay
from sweeplab.replays.evf import game_to_evf
from sweeplab.replays.judge import judge
from sweeplab.view import HIDDEN

from .play_server import running

ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"
expect.set_options(timeout=60_000)  # the first analysis waits for the worker to load its kernels


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("analyse-e2e") / "play.db")
    with running(store) as (url, app):
        # The worker's first start may compile its kernels (a cold cache after a change): wait for it
        # here, under its own start timeout, so the page's waits measure the page.
        WORKER.start()
        yield url, app
    store.close()


@pytest.fixture(scope="module")
def viewport():
    return {"width": 1500, "height": 1000}


def analysed(page, after: int) -> int:
    """Wait until the page has drawn an analysis after the `after`th; return how many it has drawn."""
    page.wait_for_function(f"Number(document.body.dataset.seq || 0) > {after}", timeout=120_000)
    page.wait_for_function("!window.sweeplabAnalyse || true")
    return int(page.evaluate("document.body.dataset.seq"))


def settled(page) -> int:
    """Wait until the page's position and its last analysis agree (no analysis in flight)."""
    page.wait_for_function("(() => { const s = window.sweeplabAnalyse && window.sweeplabAnalyse.state; return s && s.report && "
                           "s.report.position.cells === s.cells && s.report.position.mines === s.mines && "
                           "s.report.trust_flags === s.trust; })()",
                           timeout=120_000)
    return int(page.evaluate("document.body.dataset.seq"))


def cell(page, x, y):
    return page.locator(f'#board .cell[data-x="{x}"][data-y="{y}"]')


def view_text(page) -> str:
    s = page.evaluate("({w: window.sweeplabAnalyse.state.w, m: window.sweeplabAnalyse.state.mines, "
                      "c: window.sweeplabAnalyse.state.cells})")
    rows = [s["c"][i:i + s["w"]] for i in range(0, len(s["c"]), s["w"])]
    return f"mines: {s['m']}\n" + "\n".join(rows) + "\n"


def solve_json(text: str, tmp_path: Path) -> dict:
    f = tmp_path / "position.txt"
    f.write_text(text)
    out = subprocess.run([sys.executable, "-m", "sweeplab", "solve", "--json", str(f)], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


def test_a_position_set_up_by_clicks_and_keys_shows_what_solve_says(server, page, tmp_path):
    url, _ = server
    page.goto(url + "analyse")
    analysed(page, 0)
    page.fill("#a-width", "6")
    page.fill("#a-height", "5")
    page.fill("#a-mines", "5")
    page.click("#a-empty")
    settled(page)
    # a 0-area in the top-left corner, painted by dragging with the 0 tool, bordered by typed numbers
    page.click('.tool[data-tool="0"]')
    box = cell(page, 0, 0).bounding_box()
    page.mouse.move(box["x"] + 4, box["y"] + 4)
    page.mouse.down()
    for x, y in ((1, 0), (1, 1), (0, 1)):
        b = cell(page, x, y).bounding_box()
        page.mouse.move(b["x"] + 4, b["y"] + 4)
    page.mouse.up()
    for (x, y), key in {(2, 0): "1", (2, 1): "2", (2, 2): "2", (1, 2): "1", (0, 2): "1"}.items():
        cell(page, x, y).hover()
        page.keyboard.press(key)
    cell(page, 3, 3).click(button="right")  # a flag, unknown unless trusted
    cell(page, 4, 4).hover()
    page.keyboard.press("f")
    page.keyboard.press("h")  # and hidden again
    settled(page)
    text = view_text(page)
    assert text == "mines: 5\n001###\n002###\n112###\n###F##\n######\n"
    want = solve_json(text, tmp_path)
    for y in range(5):
        for x in range(6):
            c = cell(page, x, y)
            p = want["probability"][y][x]
            got = c.get_attribute("data-p")
            if p is None:
                assert got == ""
            else:
                assert abs(float(got) - p) < 1e-12, (x, y, got, p)
            state = c.get_attribute("data-state")
            assert (state == "safe") == ([x, y] in want["safe"])
            assert (state == "mine") == ([x, y] in want["mines_certain"])
    expect(page.locator("#r-summary")).to_contain_text(f"{int(want['layouts']):,} layout")
    # the overlay's colours and numbers: percentages as `solve` prints them
    page.check('input[name="overlay"][value="numbers"]')
    p = want["probability"][4][5]
    expect(cell(page, 5, 4).locator(".ov")).to_have_text(str(round(100 * p)))
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "analyse-setup.png"))


def test_a_pasted_forum_grid_then_its_mine_total(server, page):
    url, _ = server
    page.goto(url + "analyse")
    n = analysed(page, 0)
    page.fill("#a-paste", "| 1 | ? | ? |\n|---|---|---|\n| 1 | ? | ? |\n| ? | ? | ? |\n")
    page.click("#a-load")
    n = analysed(page, n)
    assert page.evaluate("window.sweeplabAnalyse.state.cells") == "1##1#####"
    assert page.evaluate("window.sweeplabAnalyse.state.mines") is None
    expect(page.locator("#r-summary")).to_contain_text("No mine total")
    page.fill("#a-mines", "3")
    page.press("#a-mines", "Enter")
    page.locator("#a-mines").blur()
    settled(page)
    expect(page.locator("#r-summary")).to_contain_text("3 mines")
    assert page.evaluate("window.sweeplabAnalyse.state.report.status") == "ok"
    page.fill("#a-paste", "1 x ?")
    page.click("#a-load")
    expect(page.locator("#r-error")).to_contain_text("cannot read the row")
    # a board past the limit is refused by the server and never drawn
    page.fill("#a-width", "200")
    page.fill("#a-height", "200")
    page.click("#a-empty")
    expect(page.locator("#r-error")).to_contain_text("at most 10,000")
    expect(page.locator("#board .cell")).to_have_count(9)


def test_a_shared_link_opens_the_same_position(server, browser, page):
    url, _ = server
    page.goto(url + "analyse")
    analysed(page, 0)
    page.fill("#a-paste", "mines: 10\n#####\n#211#\n#1001\n#2101\n#####\n")
    page.click("#a-load")
    settled(page)
    page.check("#a-trust")
    settled(page)
    link = page.input_value("#a-link")
    assert "#p=5x5x10." in link and "trust=1" in link
    before = page.evaluate("window.sweeplabAnalyse.state.report")
    other = browser.new_context().new_page()
    other.goto(link)
    settled(other)
    after = other.evaluate("window.sweeplabAnalyse.state.report")
    for r in (before, after):
        r.pop("seconds")
    assert after == before and after["trust_flags"]
    assert other.is_checked("#a-trust")
    other.context.close()


def lost_record(hub, store):
    """A beginner game lost on a guess after a few moves: the first hidden cells opened in turn."""
    for seed in range(200):
        pg = hub.new(mode="safe", level="beginner", seed=str(seed))
        hub.act(pg, "open", 4, 4)
        while not pg.game.over:
            v = pg.game.view().cells.reshape(-1)
            i = int(np.flatnonzero(v == -1)[0])
            hub.act(pg, "open", i % 9, i // 9)
        if pg.game.status == "lost" and len(pg.game.log) >= 4:
            return pg.record_id
    raise AssertionError("no lost game in 200 seeds")


def test_a_replay_step_opens_in_the_board(server, page):
    url, app = server
    rid = lost_record(app.state.hub, app.state.store)
    rec = app.state.store.get(rid)
    frames = replay_frames(rec["record"])
    page.goto(url + f"records#{rid}")
    expect(page.locator("#r-info")).to_contain_text(f"of {len(frames) - 1}")
    step = 2
    for _ in range(step):
        page.click("#r-next")
    expect(page.locator("#r-info")).to_contain_text(f"move {step} of")
    with page.context.expect_page() as opened:
        page.click("#r-analyse")
    board = opened.value
    settled(board)
    assert board.evaluate("window.sweeplabAnalyse.state.cells") == frames[step]["cells"].replace("?", "#")
    assert board.evaluate("window.sweeplabAnalyse.state.mines") == rec["mines"]
    action = rec["record"]["actions"][step]  # the click made from that position, judged
    click = board.evaluate("window.sweeplabAnalyse.state.report.click")
    assert [click["kind"], click["x"], click["y"]] == action[:3]
    expect(board.locator("#r-click")).to_contain_text("The click made here")
    board.close()
    # the last step (the loss) opens the position before the fatal click, and says what happened
    page.click("#r-last")
    with page.context.expect_page() as opened:
        page.click("#r-analyse")
    board = opened.value
    settled(board)
    assert board.evaluate("window.sweeplabAnalyse.state.cells") == frames[-2]["cells"].replace("?", "#")
    expect(board.locator("#r-click")).to_contain_text("What happened")
    board.close()


def test_a_step_of_a_replay_file_opens_in_the_board(server, page, tmp_path):
    # a replay file opened in the records page's viewer, at a guess some moves in
    from .test_replays_web import game_with_guesses
    f = tmp_path / "guesses.evf"
    f.write_bytes(game_to_evf(game_with_guesses(), player="analyse test"))
    rp = read_replay(f.read_bytes(), name=f.name)
    guess = next(c for c in judge(rp.game).guesses if c.index >= 2)
    step = guess.index  # the viewer's move `step` shows the game before action `step`
    want = None
    for i, g in enumerate(replay_steps(rp.game.board, rp.game.log)):
        if i == step:
            v = g.view()
            want = AnalysisPosition(v.cells, v.mine_count).text
            break
    url, _ = server
    page.goto(url + "records")
    page.set_input_files("#replay-file", str(f))
    expect(page.locator("#replay-title")).to_contain_text(f.name)
    for _ in range(step):
        page.click("#r-next")
    expect(page.locator("#r-info")).to_contain_text(f"move {step} of")
    with page.context.expect_page() as opened:
        page.click("#r-analyse")
    board = opened.value
    settled(board)
    assert board.evaluate("window.sweeplabAnalyse.state.cells") == want
    assert board.evaluate("window.sweeplabAnalyse.state.mines") == rp.game.board.mine_count
    # the click made from it is judged from the position alone, as the judge did over the whole game
    click = board.evaluate("window.sweeplabAnalyse.state.report.click")
    assert (click["x"], click["y"]) == (guess.x, guess.y) and click["guess"]
    assert Fraction(click["risk_exact"]) == guess.risk
    board.close()


def test_a_lost_game_explained(server, page):
    url, app = server
    store = app.state.store
    page.goto(url + "?seed=7&mode=safe&level=beginner")  # a uniform board: its first click is quick
    expect(page.locator("#board .cell")).to_have_count(81)
    expect(page.locator("#status")).to_contain_text("Practice")
    # lose the game in the page: open cells that a peek at the board (the test's, not the page's) says
    # are safe, then one that is a mine
    gid = page.evaluate("window.sweeplab.state.id")
    pg = app.state.hub.get(gid)
    page.click('#board .cell[data-x="4"][data-y="4"]')
    expect(page.locator("#board")).not_to_have_attribute("data-status", "ready")
    board = pg.game.board
    if pg.game.status == "playing":
        safe = [(x, y) for y in range(9) for x in range(9) if not board.is_mine(x, y) and pg.game.view().cells[y, x] == -1]
        x, y = safe[0]
        page.click(f'#board .cell[data-x="{x}"][data-y="{y}"]')
        expect(page.locator("#board")).to_have_attribute("data-status", "playing")
        mx, my = board.mine_positions()[0]
        page.click(f'#board .cell[data-x="{mx}"][data-y="{my}"]')
    expect(page.locator("#board")).to_have_attribute("data-status", "lost")
    with page.context.expect_page() as opened:
        page.click("#what-happened")
    view = opened.value
    settled(view)
    rec = store.get(pg.record_id)
    g = Game(Board.from_dict(rec["record"]["played_board"]))
    for kind, x, y, _ in rec["record"]["actions"]:
        g.act(kind, x, y)
    last = judge(g).clicks[-1]
    text = view.locator("#r-click").inner_text()
    assert "What happened: the click that lost" in text
    assert f"P(mine) = {last.risk.numerator}/{last.risk.denominator}" in text
    assert ("forced" in text) == last.forced and ("needless" in text) == last.needless
    click = view.evaluate("window.sweeplabAnalyse.state.report.click")
    assert Fraction(click["risk_exact"]) == last.risk
    expect(view.locator("#board .cell.a-click")).to_have_count(1)
    view.screenshot(path=str(ARTIFACTS / "analyse-lost.png"))
    view.close()


def test_a_slow_analysis_says_it_is_working_and_counts_the_seconds(server, page):
    """A position that runs to the analysis' time limit on any machine (100x100, a 2 on every third
    cell of every fourth row: one frontier of thousands of cells) keeps the page waiting: it says so,
    counting the seconds, while the board shows it is busy; the answer ends both."""
    url, _ = server
    cells = np.full((100, 100), HIDDEN, dtype=np.int8)
    cells[2::4, ::3] = 2
    page.goto(url + "analyse#p=" + AnalysisPosition(cells, 2000).code)
    # both signs read in one evaluation: a wait on one and then the other could straddle the answer
    working = ("s => { const n = document.getElementById('r-working'); const m = /Analysing… (\\d+) s/.exec(n.textContent);"
               " return !n.hidden && m !== null && Number(m[1]) >= s"
               " && document.getElementById('board').classList.contains('busy'); }")
    page.wait_for_function(working, arg=1, timeout=30_000)
    page.wait_for_function(working, arg=2, timeout=5_000)
    analysed(page, 0)
    expect(page.locator("#r-working")).to_be_hidden()
    expect(page.locator("#board")).not_to_have_class(re.compile(r"\bbusy\b"))
    assert page.evaluate("window.sweeplabAnalyse.state.report.status") == "too_complex"
    assert page.evaluate("window.sweeplabAnalyse.state.report.position.mines") == 2000
