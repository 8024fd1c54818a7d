"""Replays in the web app: the upload API, `play --replay`'s preloaded file, and the records page's viewer in a
real browser (Playwright driving /usr/bin/chromium) on EVF files sweeplab wrote itself."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from playwright.sync_api import expect, sync_playwright
from starlette.testclient import TestClient

from sweeplab.generators.uniform import uniform_board
from sweeplab.play.replays import replay_view
from sweeplab.play.server import create_app
from sweeplab.play.store import Store
from sweeplab.replays import read_replay
from sweeplab.replays.evf import game_to_evf
from sweeplab.replays.judge import judge

from .test_replays import crafted_evf, play_random

LOCAL = "http://127.0.0.1:8000"  # the server answers loopback Host names only
BYTES = {"Content-Type": "application/octet-stream"}  # a replay file's bytes, as the page sends them
ARTIFACTS = Path(__file__).resolve().parent.parent / "artifacts"


def game_with_guesses(w=9, h=9, m=10):
    """The first seeded random game that has at least two guesses and is over."""
    for seed in range(500):
        g = play_random(uniform_board(w, h, m, seed), random.Random(seed), 150)
        if g.over and len(judge(g).guesses) >= 2:
            return g
    raise AssertionError("no game with two guesses in 500 seeds")


@pytest.fixture(scope="module")
def evf_bytes():
    return game_to_evf(game_with_guesses(), player="viewer test")


def test_upload_api(tmp_path, evf_bytes):
    client = TestClient(create_app(Store(tmp_path / "p.db")), base_url=LOCAL)
    r = client.post("/api/replays?name=mine.evf", content=evf_bytes, headers=BYTES)
    assert r.status_code == 200, r.text
    v = r.json()
    rp = read_replay(evf_bytes, name="mine.evf")
    j = judge(rp.game)
    assert len(v["frames"]) == len(rp.game.log) + 1 and v["frames"][-1]["status"] == rp.game.status
    assert sorted(map(int, v["judged"])) == [c.index for c in j.clicks]
    assert v["judgement"]["guesses"] == len(j.guesses) and v["stats"]["player"] == "viewer test"
    assert v["check"] == []
    for body, name, words in [(b"\x04" + bytes(50), "cut.evf", "truncated"), (evf_bytes, "x.doc", "unknown replay format"),
                              (evf_bytes, "", "name=FILE")]:
        r = client.post(f"/api/replays?name={name}", content=body, headers=BYTES)
        assert r.status_code == 400 and words in r.json()["error"], r.text
    # another site's form can send text/plain or multipart without asking first: refused
    for ctype in ("text/plain", "multipart/form-data; boundary=x", "application/json"):
        r = client.post("/api/replays?name=mine.evf", content=evf_bytes, headers={"Content-Type": ctype})
        assert r.status_code == 415 and "application/octet-stream" in r.json()["error"], r.text
    r = client.get("/api/replays/preloaded")
    assert r.status_code == 404 and "--replay" in r.json()["error"]
    view = replay_view(rp)
    client = TestClient(create_app(Store(tmp_path / "q.db"), replay=view), base_url=LOCAL)
    assert client.get("/api/replays/preloaded").json()["judged"] == v["judged"]


@pytest.fixture(scope="module")
def server(tmp_path_factory, evf_bytes):
    """`sweeplab play --replay FILE` itself, in its own process: the URL it prints, and the view it serves."""
    folder = tmp_path_factory.mktemp("replay-e2e")
    f = folder / "preloaded.evf"
    f.write_bytes(evf_bytes)
    proc = subprocess.Popen([sys.executable, "-m", "sweeplab", "play", "--replay", str(f), "--no-browser", "--port", "0",
                             "--db", str(folder / "play.db")], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = line.split("serving at ")[1].split()[0]
        assert url.endswith("/records#replay"), line
        yield url.removesuffix("records#replay"), replay_view(read_replay(f))
    finally:
        proc.terminate()
        proc.wait(60)  # (a busy shared machine can take seconds to stop the server and its children)
        proc.stdout.close()


@pytest.mark.slow
def test_viewer_plays_the_file_and_marks_judged_clicks(server, tmp_path, evf_bytes, chromium):
    url, view = server
    with sync_playwright() as p:
        browser = p.chromium.launch(**chromium)
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(url + "records#replay")
        expect(page.locator("#window")).to_be_visible()
        expect(page.locator("#replay-title")).to_contain_text("preloaded.evf")
        expect(page.locator("#replay-summary")).to_contain_text(f"{view['judgement']['guesses']} guesses")
        n = len(view["frames"]) - 1
        expect(page.locator("#r-info")).to_contain_text(f"move 0 of {n}")
        page.click("#r-last")
        expect(page.locator("#r-info")).to_contain_text(f"move {n} of {n}")
        # every judged click is marked on its cell, with its exact probability on hover
        marked = page.locator("#board [data-risk]")
        expect(marked).to_have_count(len({(c["x"], c["y"]) for c in view["judged"].values()}))
        guess = next(c for c in view["judged"].values() if c["guess"])
        cell = page.locator(f'#board [data-x="{guess["x"]}"][data-y="{guess["y"]}"]')
        assert f"P(mine) = {guess['risk_exact']}" in cell.get_attribute("title")
        assert "rgb(255" in cell.get_attribute("style")  # a guess: yellow to red
        assert page.locator("#board .cell").count() == view["width"] * view["height"]
        # the frames carry the file's times: the last one is the game's end
        assert view["frames"][-1]["t"] == pytest.approx(view["stats"]["time"] + view["frames"][1]["t"], abs=2e-3)
        page.click("#r-first")
        expect(page.locator("#board [data-risk]")).to_have_count(0)
        ARTIFACTS.mkdir(exist_ok=True)
        page.click("#r-last")
        page.screenshot(path=str(ARTIFACTS / "replay-viewer.png"))
        # an upload replaces it; a bad file says what is wrong
        f = tmp_path / "uploaded.evf"
        f.write_bytes(game_to_evf(play_random(uniform_board(16, 16, 40, 3), random.Random(3), 100)))
        page.set_input_files("#replay-file", str(f))
        expect(page.locator("#replay-title")).to_contain_text("uploaded.evf")
        bad = tmp_path / "bad.rmv"
        bad.write_bytes(b"*rmv" + bytes(40))
        page.set_input_files("#replay-file", str(bad))
        expect(page.locator("#replay-error")).to_contain_text("bad.rmv")
        browser.close()
    assert errors == []


@pytest.fixture(scope="module")
def uploads():
    """One app (one reading child) for many uploads."""
    return TestClient(create_app(Store(":memory:")), base_url=LOCAL)


@pytest.mark.slow
@settings(max_examples=15)
@given(fmt=st.sampled_from(["avf", "rmv", "mvf", "evf", "txt"]), data=st.binary(max_size=300))
def test_uploads_of_any_bytes_are_answered_never_500(uploads, fmt, data):
    client = uploads
    r = client.post(f"/api/replays?name=up.{fmt}", content=data, headers=BYTES)
    assert r.status_code in (200, 400), r.text
    if r.status_code == 400:
        assert r.json()["error"].startswith(f"up.{fmt}: ")


def test_an_upload_is_read_in_a_bounded_child_and_its_answer_is_bounded(uploads):
    from sweeplab.play.replays import MAX_ANSWER, VIEW_MEMORY
    r = uploads.post("/api/replays?name=crafted.evf", content=crafted_evf(255, 0.0001, 19_000), headers=BYTES)
    assert r.status_code == 400 and "refused before reading" in r.json()["error"], r.text
    # 1,800 flags on a 100x100 board: 18 MB of frames, more than an answer may hold
    r = uploads.post("/api/replays?name=flags.evf", content=crafted_evf(100, 0.0001, 3_600), headers=BYTES)
    assert r.status_code == 400 and "too many to show move by move" in r.json()["error"], r.text
    assert f"at most {MAX_ANSWER // 2 ** 20} MB" in r.json()["error"]
    limits = Path(f"/proc/{uploads.app.state.reader._child._proc.pid}/limits").read_text()
    (line,) = [ln for ln in limits.splitlines() if ln.startswith("Max address space")]
    assert line.split()[3:5] == [str(VIEW_MEMORY)] * 2
