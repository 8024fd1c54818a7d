"""The analysis board's figures in docs/figures, drawn by the real page in a real browser (Playwright
driving /usr/bin/chromium) against a real server:

- analysis-expert.png: an expert position where `strong` must guess, with every hidden cell's mine
  probability, the move and its reason;
- analysis-perfect.png: a small board's position with perfect play's win probability of every move;
- analysis-lost.png: a lost game explained (the position before the fatal click, its risk).

    python benchmarks/make_analysis_figures.py [--out docs/figures]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

from sweeplab.game import Game
from sweeplab.generators.uniform import uniform_board
from sweeplab.play.analyse_position import AnalysisPosition
from sweeplab.play.server import bind, create_app, url_of
from sweeplab.play.store import Store
from sweeplab.solver.players import StrongPlayer

CHROMIUM = os.environ.get("SWEEPLAB_CHROMIUM", "/usr/bin/chromium")
SETTLED = ("(() => { const s = window.sweeplabAnalyse && window.sweeplabAnalyse.state; return s && s.report && "
           "s.report.position.cells === s.cells && s.report.position.mines === s.mines; })()")


def guess_position(w, h, m, seed, at_least, keep=lambda view: True):
    """The first position of a seeded game played by strong where it must guess, with at least
    `at_least` of the safe cells open (and `keep(view)`)."""
    for s in range(seed, seed + 1000):
        board = uniform_board(w, h, m, s)
        zeros = np.argwhere((board.numbers == 0) & ~board.mines)
        if not len(zeros):
            continue
        game = Game(board)
        game.open(int(zeros[0][1]), int(zeros[0][0]))
        player = StrongPlayer(s)
        while not game.over:
            v = game.view()
            moves = player.moves(v)
            if not moves[0].certain and v.opened.sum() >= at_least * (w * h - m) and keep(v):
                return AnalysisPosition(v.cells, v.mine_count)
            for mv in moves:
                if not game.over:
                    game.open(mv.x, mv.y)
    raise RuntimeError("no such position")


def varied(view) -> bool:
    """Perfect play tells its moves apart: at least four different values (small enough to search)."""
    from math import comb

    from sweeplab.solver.optimal import OptimalPlay
    if comb(int((view.cells < 0).sum()), view.mine_count) > 200_000:
        return False
    values = OptimalPlay(view.width, view.height, view.mine_count).moves(view).values()
    return len(set(values)) >= 4


def lost_record(hub):
    """A beginner game lost on a guess that strong's look-ahead made: strong plays until it hits a mine."""
    for seed in range(1000):
        pg = hub.new(mode="safe", level="beginner", seed=str(seed))
        hub.act(pg, "open", 4, 4)
        player = StrongPlayer(seed)
        while not pg.game.over:
            for mv in player.moves(pg.game.view()):
                if not pg.game.over:
                    hub.act(pg, "open", mv.x, mv.y)
        if pg.game.status == "lost" and len(pg.game.log) >= 8:
            return pg.record_id
    raise RuntimeError("no lost game")


def shoot(page, path, what):
    page.wait_for_function(SETTLED, timeout=600_000)
    page.add_style_tag(content="#setup { display: none } body { padding: 12px }")
    boxes = [page.locator(s).bounding_box() for s in what]
    x0, y0 = min(b["x"] for b in boxes), min(b["y"] for b in boxes)
    x1, y1 = max(b["x"] + b["width"] for b in boxes), max(b["y"] + b["height"] for b in boxes)
    page.screenshot(path=str(path), clip={"x": x0 - 6, "y": y0 - 6, "width": x1 - x0 + 12, "height": y1 - y0 + 12})
    print("wrote", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "docs" / "figures"))
    args = ap.parse_args()
    out = Path(args.out)
    import uvicorn
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        store = Store(os.path.join(tmp, "figures.db"))
        app = create_app(store)
        sock = bind("127.0.0.1", 0)
        srv = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
        threading.Thread(target=srv.run, kwargs={"sockets": [sock]}, daemon=True).start()
        while not srv.started:
            time.sleep(0.02)
        url = url_of(sock)
        expert = guess_position(30, 16, 99, 40, 0.3, lambda v: (v.cells < 0).sum() >= 200)
        small = guess_position(6, 6, 7, 3, 0.2, varied)
        rid = lost_record(app.state.hub)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
            for name, hash_, overlay in (("analysis-expert.png", f"p={expert.code}", "numbers"),
                                         ("analysis-perfect.png", f"p={small.code}", "perfect"),
                                         ("analysis-lost.png", f"record={rid}", "numbers")):
                page = browser.new_page(viewport={"width": 1700, "height": 1000})
                page.goto(url + "analyse#" + hash_)
                page.wait_for_function(SETTLED, timeout=600_000)
                page.check(f'input[name="overlay"][value="{overlay}"]')
                shoot(page, out / name, ["#window", "#report"])
                page.close()
            browser.close()
        srv.should_exit = True
        store.close()


if __name__ == "__main__":
    main()
