"""Records in a real browser (Playwright driving Chromium, the `chromium` fixture of conftest.py) against a
real server on a real SQLite file: a game played with the mouse as a person plays it, its recorded path
sent, exported as EVF and read back by ms-toollib with the same events and counters; the records page's
style filter and tables; the replay link, its speeds, its steps click by click, its cursor and trail; the
board link, played as practice, which never makes a best time."""

from __future__ import annotations

import random

import httpx
import pytest
from playwright.sync_api import expect

from sweeplab.board import Board
from sweeplab.play.replays import replay_view
from sweeplab.play.store import Store
from sweeplab.replays import read_replay
from sweeplab.replays.evf import path_events, record_game, record_to_evf
from sweeplab.stats import game_stats

from .play_server import ROOT, running
from .test_play_records import play
from .toollib_read import toollib_read

ARTIFACTS = ROOT / "artifacts"
SETTINGS = "localStorage.setItem('sweeplab.settings', JSON.stringify({mode: 'safe', level: 'beginner', zoom: 1.5}))"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("records") / "play.db")
    with running(store) as (url, app):
        yield url, app.state.hub, store
    store.close()


def centre(page, x, y, rng):
    box = page.locator(f'#board .cell[data-x="{x}"][data-y="{y}"]').bounding_box()
    return box["x"] + box["width"] * rng.uniform(0.2, 0.8), box["y"] + box["height"] * rng.uniform(0.2, 0.8)


def click(page, x, y, rng, button="left"):
    """As a hand does it: a few moves to somewhere in the cell, a press, a moment, a release."""
    page.mouse.move(*centre(page, x, y, rng), steps=rng.randint(2, 6))
    page.mouse.down(button=button)
    page.wait_for_timeout(rng.randint(10, 40))
    page.mouse.up(button=button)
    page.evaluate("window.sweeplab.queue")  # answered and drawn


def chord_spot(cells: str, board: Board):
    """An open 1 beside a hidden mine and a hidden safe cell: flag the mine, chord there, and a cell opens."""
    for i, ch in enumerate(cells):
        x, y = i % 9, i // 9
        around = [(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                  if (dx or dy) and 0 <= x + dx < 9 and 0 <= y + dy < 9]
        if ch == "1" and any(cells[v * 9 + u] == "#" and not board.is_mine(u, v) for u, v in around):
            return x, y, around
    return None


@pytest.fixture(scope="module")
def played(server, browser):
    """An eligible game (the server drew its seed) won in the browser without a flag, by mouse, and a flagged
    win beside it (played over the API); the record ids and what the recorder measured."""
    url, hub, store = server
    ctx = browser.new_context(viewport={"width": 1200, "height": 900})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(SETTINGS)
    page.goto(url)
    expect(page.locator("#board .cell")).to_have_count(81)
    page.evaluate("window.sweeplab.queue")
    rng = random.Random(7)
    page.mouse.move(5, 5)
    click(page, 4, 4, rng)
    gid = page.evaluate("window.sweeplab.state.id")
    board = hub.get(gid).game.board  # the test knows the board; the page never does
    # the hand sweeps the board once, fast, as a player's mouse does while thinking
    for x in range(0, 9):
        page.mouse.move(*centre(page, x, 8 - x, rng), steps=25)
    while page.evaluate("window.sweeplab.state.status") == "playing":
        cells = page.evaluate("window.sweeplab.board.cells")
        i = next(i for i, ch in enumerate(cells) if ch == "#" and not board.flat_mines[i])
        click(page, i % 9, i // 9, rng)
    expect(page.locator("#result-line")).to_have_attribute("data-status", "won")
    page.wait_for_function("window.sweeplabRecorder.stats.sent || window.sweeplabRecorder.stats.error")
    rec = page.evaluate("window.sweeplabRecorder.stats")
    rec["shown"] = page.locator("#c-path").text_content()  # the counters panel's path length
    rid = page.evaluate("window.sweeplab.state.record_id")
    ctx.close()
    assert errors == []
    with httpx.Client(base_url=url) as client:
        flagged = play(client, hub, random.Random(8), flags=1)[1]["record_id"]
    return {"rid": rid, "flagged": flagged, "recorder": rec, "gid": gid}


def test_the_recorded_path_exports_as_evf_that_ms_toollib_reads_back_alike(server, played):
    url, hub, store = server
    assert played["recorder"]["error"] is None and played["recorder"]["sent"]["record_id"] == played["rid"]
    row = store.get(played["rid"])
    events = path_events(row["path"])
    kinds = {e.kind for e in events}
    assert {"mv", "lc", "lr"} <= kinds and "rc" not in kinds and row["style"] == "nf"
    assert len(events) == played["recorder"]["events"]
    # the events ms-toollib reads from sweeplab's EVF are the recorded ones: count, kinds, positions, times
    data = record_to_evf(row)
    t = toollib_read(data)
    t0 = events[0].t
    assert [(k, round(s * 1000), x, y) for k, s, x, y in t["events"]] == \
        [(e.kind, round((e.t - t0) * 1000), e.x, e.y) for e in events]
    st = game_stats(record_game(row["record"]))
    assert (t["bbbv"], t["bbbv_solved"], t["left"], t["right"], t["double"], t["rce"], t["is_completed"]) == \
        (st.bbbv, st.bbbv, st.left_clicks, 0, 0, 0, True)
    assert data[1] & 0x10  # NF
    # the counters panel's path length is ms-toollib's of the same recording
    assert played["recorder"]["shown"] == str(round(t["path"])) and t["path"] > 100
    # the recording's cost: its handlers' time against the game's, and its size in the database
    with store._read() as db:
        size = db.execute("SELECT LENGTH(path) FROM paths WHERE id = ?", (played["rid"],)).fetchone()[0]
    assert size < 20_000
    print(f"recorded {len(events)} events in {events[-1].t:.2f} s: handlers {played['recorder']['busy']:.1f} ms "
          f"({100 * played['recorder']['busy'] / 1000 / events[-1].t:.2f}% of one core), {size} bytes kept")
    assert played["recorder"]["busy"] / 1000 < 0.03 * events[-1].t


def test_the_style_filter_and_the_tables_find_the_no_flag_win(server, played, page):
    url, hub, store = server
    with httpx.Client(base_url=url) as client:  # a game quit after one click: no 3BV/s nor IOE of it
        first = client.post("/api/games", json={"mode": "safe", "level": "beginner", "session": "q"}).json()
        client.post(f"/api/games/{first['id']}/actions", json={"kind": "open", "x": 4, "y": 4})
        client.post("/api/games", json={"mode": "safe", "level": "beginner", "session": "q"})
        quit_id = client.get("/api/records?status=quit").json()["records"][0]["id"]
    page.goto(f"{url}records")
    expect(page.locator("#records-table")).to_be_visible()
    quit_row = page.locator(f'#records-table tr[data-id="{quit_id}"] td')
    assert [quit_row.nth(i).inner_text() for i in (7, 8)] == ["–", "–"]
    page.select_option("#f-style", "nf")
    expect(page.locator(f'#records-table tr[data-id="{played["rid"]}"]')).to_contain_text("NF")
    expect(page.locator(f'#records-table tr[data-id="{played["flagged"]}"]')).to_have_count(0)
    page.select_option("#f-style", "flag")
    expect(page.locator(f'#records-table tr[data-id="{played["flagged"]}"]')).to_have_count(1)
    expect(page.locator(f'#records-table tr[data-id="{played["rid"]}"]')).to_have_count(0)
    # the tables of one style: the NF win holds all three bests of NF, safe beginner; its value opens its replay
    page.select_option("#t-style", "nf")
    row = page.locator('#tables-table tr[data-mode="safe"][data-level="beginner"]')
    for best in ("time", "bbbv_per_second", "ioe"):
        expect(row.locator(f'td[data-best="{best}"] a')).to_have_attribute("data-id", str(played["rid"]))
    expect(page.locator("#style-stats-table")).to_contain_text("1")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "records_tables.png"), full_page=True)  # for a person to look at
    row.locator('td[data-best="time"] a').click()
    expect(page.locator("#window")).to_be_visible()
    expect(page.locator("#replay-title")).to_have_text(f"Game {played['rid']}")
    assert played["gid"] not in page.content()  # the game id, the game's key, appears nowhere


def test_the_replay_link_plays_the_path_at_a_speed_and_click_by_click(server, played, page):
    url, hub, store = server
    page.goto(f"{url}replay/{played['rid']}")
    assert page.url.endswith(f"/records#{played['rid']}")
    # (a record's replay is made by a child process, whose kernels compile on a cold cache: minutes
    # while the suite's other worker compiles too, where the test's usual wait is for a page)
    expect(page.locator("#r-path-info")).to_contain_text("as recorded while playing", timeout=300_000)
    # the record keeps the game's counters as they were at its end: stats.py's figures of its moves
    st = game_stats(record_game(store.get(played["rid"])["record"]))
    expect(page.locator("#r-figures")).to_contain_text(
        f"3BV {st.bbbv}/{st.bbbv} · 3BV/s {st.bbbv_per_second:.3f} · IOE {st.ioe:.3f} · RQP {st.rqp:.3f} · "
        f"correctness {st.correctness:.3f} · throughput {st.throughput:.3f} · clicks {st.clicks} "
        f"({st.left_clicks} left, 0 right, 0 chord; {st.wasted_clicks} wasted)")
    path = page.evaluate("window.sweeplabReplay.path")
    ev = path["events"]
    assert page.evaluate("window.sweeplabReplay.time") == 0
    # click by click: each step goes to the next press or release, and the board follows the clicks made
    page.click("#r-click-next")
    first = next(i for i, e in enumerate(ev) if e[0] != "mv")
    assert page.evaluate("window.sweeplabReplay.time") == ev[first][1] and ev[first][0] == "lc"
    assert page.get_attribute("#r-path", "data-event") == str(first)
    assert page.evaluate("window.sweeplab.i") == 0
    page.click("#r-click-next")  # the release that opened the first cell
    assert ev[int(page.get_attribute("#r-path", "data-event"))][0] == "lr"
    assert page.evaluate("window.sweeplab.i") == 1
    assert page.locator("#r-trail").get_attribute("points").count(",") >= 1
    page.click("#r-click-prev")
    assert page.evaluate("window.sweeplab.i") == 0
    page.evaluate("window.sweeplabReplay.seek(window.sweeplabReplay.path.frame_times[5] + 0.3)")
    ARTIFACTS.mkdir(exist_ok=True)
    page.locator("#window").screenshot(path=str(ARTIFACTS / "replay_path.png"))  # for a person to look at
    # speeds: the path's clock runs at the chosen speed against the page's own clock
    assert page.eval_on_selector_all("#r-speed option", "os => os.map(o => Number(o.value))") == [0.25, 0.5, 1, 2, 4, 8]
    for speed in ("0.25", "8"):
        page.select_option("#r-speed", speed)
        page.evaluate("window.sweeplabReplay.seek(0)")
        ran = page.evaluate("""async () => {
            const t0 = performance.now();
            window.sweeplab.play();
            await new Promise(r => setTimeout(r, 400));
            window.sweeplab.play();  // pause: the path's clock stops where the page's is
            return [(performance.now() - t0) / 1000, window.sweeplabReplay.time]; }""")
        assert ran[1] == pytest.approx(ran[0] * float(speed), rel=0.25), (speed, ran)
    # played to its end at 8x: the last frame, the game won
    page.evaluate("window.sweeplabReplay.seek(0)")
    page.click("#r-play")
    page.wait_for_function("!window.sweeplabReplay.playing", timeout=20_000)
    assert page.evaluate("window.sweeplab.i") == page.evaluate("window.sweeplab.frames.length") - 1
    assert page.get_attribute("#face", "data-face") == "cool"
    expect(page.locator("#r-links")).to_contain_text("reads back as custom")
    # the same game's EVF file, in the viewer as the server's reader makes its view (in this process: the
    # upload's reading child is tested in test_replays_web.py): a file of its own, no links, its level named
    view = replay_view(read_replay(record_to_evf(store.get(played["rid"])), name="game.evf"))
    page.evaluate("v => window.sweeplabReplay.show(v)", view)
    expect(page.locator("#r-seed")).to_contain_text("custom 9x9/10 (custom in the file's level names, whose "
                                                    "beginner is 8x8/10")
    expect(page.locator("#r-links")).to_have_text("")
    # a game whose page sent no path (played over the API) plays the path made up from its moves, and says so
    page.goto(f"{url}replay/{played['flagged']}")
    expect(page.locator("#r-path-info")).to_contain_text("made up from the moves")
    made = page.evaluate("window.sweeplabReplay.path")
    assert made["kind"] == "made up" and len(made["frame_times"]) == page.evaluate("window.sweeplab.frames.length")
    assert [e[0] for e in made["events"][:2]] == ["lc", "lr"]
    # a bad link is a page that says so
    r = page.goto(f"{url}replay/424242")
    assert r.status == 404
    expect(page.locator("#link-error")).to_contain_text("no record 424242")


def test_the_board_link_is_practice_and_never_a_best_time(server, played, page):
    url, hub, store = server
    best = {t["best"]: t["id"] for t in httpx.get(f"{url}api/tables").json()["tables"]}
    page.goto(f"{url}board/{played['rid']}")
    expect(page.locator("#board .cell")).to_have_count(81)
    page.evaluate("window.sweeplab.queue")
    state = page.evaluate("window.sweeplab.state")
    assert state["practice"] and state["again"] == played["rid"]
    rng = random.Random(9)
    rec = store.get(played["rid"])["record"]
    board = Board.from_dict(rec["played_board"])
    # the same board: its first click, then a flag on a mine beside a number, a chord there (shift and the
    # left button, as on Windows), and every safe cell left
    first = rec["actions"][0]
    click(page, first[1], first[2], rng)
    while (spot := chord_spot(page.evaluate("window.sweeplab.board.cells"), board)) is None:
        cells = page.evaluate("window.sweeplab.board.cells")  # (rare) open on until a chord can be made
        i = next(i for i, ch in enumerate(cells) if ch == "#" and not board.flat_mines[i])
        click(page, i % 9, i // 9, rng)
    x, y, around = spot
    click(page, *next(c for c in around if board.is_mine(*c)), rng, button="right")
    page.keyboard.down("Shift")
    click(page, x, y, rng)
    page.keyboard.up("Shift")
    while page.evaluate("window.sweeplab.state.status") == "playing":
        cells = page.evaluate("window.sweeplab.board.cells")
        i = next(i for i, ch in enumerate(cells) if ch == "#" and not board.flat_mines[i])
        click(page, i % 9, i // 9, rng)
    expect(page.locator("#result-line")).to_contain_text("practice")
    page.wait_for_function("window.sweeplabRecorder.stats.sent || window.sweeplabRecorder.stats.error")
    assert page.evaluate("window.sweeplabRecorder.stats.error") is None
    again = store.get(page.evaluate("window.sweeplab.state.record_id"))
    kinds = [a[0] for a in again["record"]["actions"]]
    assert kinds.count("flag") == 1 and kinds.count("chord") == 1 and again["style"] == "flag"
    events = path_events(again["path"])
    t = toollib_read(record_to_evf(again))
    assert [(k, x, y) for k, s, x, y in t["events"]] == [(e.kind, e.x, e.y) for e in events]
    assert {"mc", "mr", "rc"} <= {e.kind for e in events}
    assert (t["right"], t["rce"], t["double"], t["is_completed"]) == (1, 1, 1, True)
    assert {t["best"]: t["id"] for t in httpx.get(f"{url}api/tables").json()["tables"]} == best
    r = page.goto(f"{url}board/nope")
    assert r.status == 404
    expect(page.locator("#link-error")).to_contain_text("not a record number")


def test_the_recorder_costs_microseconds_a_mouse_move(server, page):
    # 20,000 moves dispatched over an expert board as fast as the page takes them, with the recorder on, then
    # with it off (a game the page did not see from its start is not recorded): the difference is its cost
    url, hub, store = server
    page.add_init_script(SETTINGS.replace("beginner", "expert"))
    page.goto(url)
    expect(page.locator("#board .cell")).to_have_count(480)
    page.evaluate("window.sweeplab.queue")
    moves = """n => {
      const r = document.getElementById('board').getBoundingClientRect();
      const t0 = performance.now();
      for (let i = 0; i < n; i++) document.dispatchEvent(new MouseEvent('mousemove', {bubbles: true,
        clientX: r.left + (i * 7) % r.width, clientY: r.top + (i * 3) % r.height}));
      return performance.now() - t0; }"""
    on = min(page.evaluate(moves, 20_000) for _ in range(3))
    assert page.evaluate("window.sweeplabRecorder.stats.events") > 0
    page.evaluate("window.sweeplab.show({...window.sweeplab.state, id: 'resumed', status: 'playing'})")
    off = min(page.evaluate(moves, 20_000) for _ in range(3))
    assert page.evaluate("window.sweeplabRecorder.path") is None
    each = (on - off) / 20_000 * 1000
    print(f"recorder: {each:.1f} µs a mouse move ({on:.0f} ms on, {off:.0f} ms off for 20,000 moves)")
    assert each < 30  # 3% of a core at a 1,000 Hz mouse
